/* Rescan of a running master (IgH's `ethercat rescan`): how many slaves answer, and is
 * each known slave still the device that was scanned? The count is the WKC of the BRD
 * of 0x0130 that every cycle sends already (recovery.c); the identity of each present
 * slave is read again from its SII words 0x0008..0x000F (ETG.2010 SII: vendor, product,
 * revision, serial number) through the register services (ecat_svc_queue): one
 * acyclic datagram at a time, beside the cyclic frames, which it never delays. Per
 * 4-byte SII read (ETG.1000.4 SII access): the command and word address as one 6-byte
 * write at 0x0502, 0x0502 read until not busy, then the data at 0x0508. A slave whose
 * identity changed is reported and handed to recovery (ecat_recovery_replaced); a
 * rescan that finds the network as it was changes nothing.
 *
 * Each step is started by the completion of the one before, in the cycle's thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/driver.h"
#include "util/wire.h"

#define RESCAN_POLLS 1000           /* busy reads of 0x0502 before giving up on a slave */

enum step { ST_OWNER, ST_CMD, ST_POLL, ST_DATA };

struct ecat_rescan {
    struct takt_ecat_master *drv;
    takt_ecat_done_fn fn;
    void    *ctx;
    unsigned pos, word, polls;
    enum step step;
    uint8_t  id[16];                /* SII words 0x08..0x0F of the slave being read */
    size_t   cap;                   /* entries res can hold */
    struct takt_ecat_rescan *res;
};

const char *takt_ecat_rescan_status_name(unsigned status)
{
    static const char *const n[] = { "same", "changed", "missing", "new", "failed" };
    return status < sizeof n / sizeof n[0] ? n[status] : "?";
}

static void step_done(void *ctx, int err, const uint8_t *data, size_t len);

static int issue(struct ecat_rescan *r)
{
    struct ecat_core *m = &r->drv->core;
    uint8_t b[6];
    switch (r->step) {
    case ST_OWNER:
        b[0] = 0;                                   /* 0x0500: EtherCAT owns the SII */
        return ecat_svc_queue(m, r->pos, ECAT_FPWR, ESC_SII_CONFIG, b, 1, step_done, r);
    case ST_CMD:
        put_le16(b, SII_CMD_READ);
        put_le32(b + 2, SII_W_VENDOR + r->word);
        return ecat_svc_queue(m, r->pos, ECAT_FPWR, ESC_SII_CTRL, b, 6, step_done, r);
    case ST_POLL:
        return ecat_svc_queue(m, r->pos, ECAT_FPRD, ESC_SII_CTRL, NULL, 2, step_done, r);
    case ST_DATA:
        return ecat_svc_queue(m, r->pos, ECAT_FPRD, ESC_SII_DATA, NULL, 4, step_done, r);
    }
    return -EINVAL;
}

static void finish(struct ecat_rescan *r)
{
    struct ecat_core *m = &r->drv->core;
    struct takt_ecat_rescan *res = r->res;
    unsigned cnt[5] = { 0 };
    for (unsigned i = 0; i < res->n; i++)
        cnt[res->slave[i].status]++;
    ECAT_EV(m, TAKT_ECAT_EV_RESCAN_DONE, -1, res->seen, res->expected, cnt[TAKT_ECAT_RESCAN_CHANGED],
            cnt[TAKT_ECAT_RESCAN_MISSING], cnt[TAKT_ECAT_RESCAN_NEW], cnt[TAKT_ECAT_RESCAN_FAILED]);
    /* handed to recovery after the record is made: it changes what info says */
    for (unsigned i = 0; i < res->expected; i++)
        if (res->slave[i].status == TAKT_ECAT_RESCAN_CHANGED)
            ecat_recovery_replaced(m, i, m->now);
    takt_ecat_done_fn fn = r->fn;
    void *ctx = r->ctx;
    r->fn = NULL;
    atomic_store_explicit(&r->drv->core.sii_user, ECAT_SII_FREE, memory_order_release);
    atomic_store_explicit(&r->drv->rescan_busy, false, memory_order_release);
    if (fn)
        fn(ctx, 0, (const uint8_t *)res, sizeof *res + res->n * sizeof res->slave[0]);
}

/* The next present slave from r->pos on, or finish. */
static void next_slave(struct ecat_rescan *r)
{
    struct ecat_core *m = &r->drv->core;
    for (; r->pos < r->res->expected; r->pos++) {
        struct takt_ecat_rescan_slave *e = &r->res->slave[r->pos];
        const struct takt_ecat_slave_info *in = &m->slaves[r->pos].info;
        if (!in->present || m->slaves[r->pos].rec.rejoin) {
            e->status = TAKT_ECAT_RESCAN_MISSING;
            continue;
        }
        r->word = 0;
        r->step = ST_OWNER;
        int rc = issue(r);
        if (!rc)
            return;
        e->status = TAKT_ECAT_RESCAN_FAILED;
        e->err = rc;
    }
    finish(r);
}

static void slave_read(struct ecat_rescan *r)
{
    struct takt_ecat_rescan_slave *e = &r->res->slave[r->pos];
    e->now_vendor = get_le32(r->id);
    e->now_product = get_le32(r->id + 4);
    e->now_revision = get_le32(r->id + 8);
    e->now_serial = get_le32(r->id + 12);
    /* same device: as recovery judges it (vendor, product, serial where both have one),
     * and the revision too: another revision is another device description */
    bool same = e->vendor == e->now_vendor && e->product == e->now_product &&
                e->revision == e->now_revision &&
                (!e->serial || !e->now_serial || e->serial == e->now_serial);
    e->status = same ? TAKT_ECAT_RESCAN_SAME : TAKT_ECAT_RESCAN_CHANGED;
    if (!same)
        ECAT_EV(&r->drv->core, TAKT_ECAT_EV_RESCAN_CHANGED, (int)r->pos, e->vendor, e->product, e->revision,
                e->now_vendor, e->now_product, e->now_revision);
}

static void step_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ecat_rescan *r = ctx;
    struct takt_ecat_rescan_slave *e = &r->res->slave[r->pos];
    if (!err) {
        switch (r->step) {
        case ST_OWNER:
            r->step = ST_CMD;
            break;
        case ST_CMD:
            r->step = ST_POLL;
            r->polls = 0;
            break;
        case ST_POLL: {
            uint16_t st = len >= 2 ? get_le16(data) : SII_BUSY;
            if (st & SII_BUSY) {
                if (++r->polls >= RESCAN_POLLS)
                    err = -ETIMEDOUT;
            } else if (st & (SII_ERR_ACK | SII_ERR_LOAD)) {
                err = -TAKT_ESII;
            } else {
                r->step = ST_DATA;
            }
            break;
        }
        case ST_DATA:
            memcpy(r->id + 2 * r->word, data, len >= 4 ? 4 : len);
            r->word += 2;
            r->step = ST_CMD;
            if (r->word >= 8) {
                slave_read(r);
                r->pos++;
                next_slave(r);
                return;
            }
            break;
        }
    }
    if (!err)
        err = issue(r);
    if (err) {
        e->status = TAKT_ECAT_RESCAN_FAILED;
        e->err = err;
        r->pos++;
        next_slave(r);
    }
}

/* The cycle's thread: the record of what was scanned, then the first slave. */
int ecat_rescan_start(struct takt_ecat_master *drv, takt_ecat_done_fn fn, void *ctx)
{
    struct ecat_core *m = &drv->core;
    struct ecat_rescan *r = drv->rescan;
    unsigned seen = m->rec.present, n = m->n_slaves;
    int err = 0;
    if (!n)
        err = -EAGAIN;                              /* nothing scanned to compare with */
    else if (!r || r->cap < n)
        err = -ENOMEM;
    if (err) {
        atomic_store_explicit(&drv->core.sii_user, ECAT_SII_FREE, memory_order_release);
        atomic_store_explicit(&drv->rescan_busy, false, memory_order_release);
        return err;
    }
    r->drv = drv;
    r->fn = fn;
    r->ctx = ctx;
    r->pos = 0;
    memset(r->res, 0, sizeof *r->res + r->cap * sizeof r->res->slave[0]);
    /* the BRD's own count, not limited to the configured slaves as recovery's is */
    unsigned wkc = m->mon_al.wkc > 0 ? (unsigned)m->mon_al.wkc : seen;
    r->res->seen = wkc;
    r->res->expected = n;
    r->res->n = wkc > n && wkc <= r->cap ? wkc : n;
    for (unsigned i = 0; i < r->res->n; i++) {
        struct takt_ecat_rescan_slave *e = &r->res->slave[i];
        if (i >= n) {
            e->status = TAKT_ECAT_RESCAN_NEW;
            continue;
        }
        e->vendor = m->slaves[i].info.vendor;
        e->product = m->slaves[i].info.product;
        e->revision = m->slaves[i].info.revision;
        e->serial = m->slaves[i].info.serial;
    }
    next_slave(r);
    return 1;                                       /* its completion says the rest */
}

int takt_ecat_master_rescan_async(struct takt_ecat_master *drv, takt_ecat_done_fn fn, void *ctx)
{
    bool idle = false;
    if (!atomic_compare_exchange_strong(&drv->rescan_busy, &idle, true))
        return -EBUSY;
    /* the EEPROM interface is the rescan's until it ends; an SII write that runs keeps
     * it, or waits for it (its words would take the rescan's reads as their data):
     * refused, not queued */
    int free_ = ECAT_SII_FREE;
    if (atomic_load(&drv->core.sii_wanted) ||
        !atomic_compare_exchange_strong(&drv->core.sii_user, &free_, ECAT_SII_RESCAN)) {
        atomic_store_explicit(&drv->rescan_busy, false, memory_order_release);
        return -EBUSY;
    }
    /* allocated here, not in the cycle: room for the slaves and as many unexpected */
    size_t cap = 2 * (size_t)drv->core.max_slaves + 1;
    if (!drv->rescan || drv->rescan->cap < cap) {
        struct ecat_rescan *r = calloc(1, sizeof *r);
        struct takt_ecat_rescan *res = calloc(1, sizeof *res + cap * sizeof res->slave[0]);
        if (!r || !res) {
            free(r);
            free(res);
            atomic_store_explicit(&drv->core.sii_user, ECAT_SII_FREE, memory_order_release);
            atomic_store_explicit(&drv->rescan_busy, false, memory_order_release);
            return -ENOMEM;
        }
        ecat_rescan_free(drv);
        r->cap = cap;
        r->res = res;
        drv->rescan = r;
    }
    struct rt_cmd c = { .op = ECAT_CMD_RESCAN, .done = fn, .ctx = ctx };
    int rc = ecat_cmd_submit(drv, &c, NULL, 0);
    if (rc) {
        atomic_store_explicit(&drv->core.sii_user, ECAT_SII_FREE, memory_order_release);
        atomic_store_explicit(&drv->rescan_busy, false, memory_order_release);
    }
    return rc;
}

void ecat_rescan_free(struct takt_ecat_master *drv)
{
    if (!drv->rescan)
        return;
    free(drv->rescan->res);
    free(drv->rescan);
    drv->rescan = NULL;
}
