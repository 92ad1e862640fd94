/* Application-facing services of the master: process-data lookup and typed access,
 * and queued register reads/writes with completion callbacks (plus blocking wrappers
 * for tools that drive the cycle themselves). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "ecat/sii.h"
#include "util/wire.h"

/* --- process data ------------------------------------------------------------------ */

uint8_t *takt_ecat_master_image(struct takt_ecat_master *drv, size_t *len)
{
    struct ecat_core *m = &drv->core;
    if (len)
        *len = m->image_len;
    return m->image;
}

static void fill_entry(const struct ecat_core *m, unsigned pos, const struct ecat_pd *d,
                       struct takt_ecat_pd_entry *e)
{
    e->position = pos;
    e->index = d->index;
    e->sub = d->sub;
    e->bits = d->bits;
    e->output = d->output;
    e->byte_offset = d->abs_bit / 8;
    e->bit_offset = (uint8_t)(d->abs_bit % 8);
    snprintf(e->name, sizeof e->name, "%s", d->name);
}

int takt_ecat_pd_find(const struct takt_ecat_master *drv, unsigned pos, const char *name,
                 uint16_t index, uint8_t sub, struct takt_ecat_pd_entry *out)
{
    const struct ecat_core *m = &drv->core;
    if (pos >= m->n_slaves || !m->configured)
        return -ENOENT;
    /* pdo.c's lookup: entry name, "PDO name.entry name", or index:sub */
    const struct ecat_pdo_var *v = name ? ecat_pdo_find(&m->img, (uint16_t)pos, name)
                                        : ecat_pdo_find_idx(&m->img, (uint16_t)pos, index, sub);
    if (!v)
        return -ENOENT;
    struct ecat_pd d = { .index = v->index, .sub = v->subindex, .bits = v->bitlen,
                         .output = !v->input, .abs_bit = v->bit_off, .pdo = v->pdo };
    snprintf(d.name, sizeof d.name, "%s", v->name);
    fill_entry(m, pos, &d, out);
    return 0;
}

unsigned takt_ecat_pd_count(const struct takt_ecat_master *drv)
{
    const struct ecat_core *m = &drv->core;
    unsigned n = 0;
    for (unsigned i = 0; i < m->n_slaves; i++)
        n += m->slaves[i].n_pd;
    return n;
}

int takt_ecat_pd_get(const struct takt_ecat_master *drv, unsigned i, struct takt_ecat_pd_entry *out)
{
    const struct ecat_core *m = &drv->core;
    for (unsigned p = 0; p < m->n_slaves; p++) {
        if (i < m->slaves[p].n_pd) {
            fill_entry(m, p, &m->slaves[p].pd[i], out);
            return 0;
        }
        i -= m->slaves[p].n_pd;
    }
    return -ENOENT;
}

bool takt_ecat_pd_get_bit(struct takt_ecat_master *drv, const struct takt_ecat_pd_entry *e)
{
    struct ecat_core *m = &drv->core;
    return (m->image[e->byte_offset] >> e->bit_offset) & 1;
}

void takt_ecat_pd_set_bit(struct takt_ecat_master *drv, const struct takt_ecat_pd_entry *e, bool v)
{
    struct ecat_core *m = &drv->core;
    uint8_t *b = &m->image[e->byte_offset];
    *b = (uint8_t)(v ? *b | 1u << e->bit_offset : *b & ~(1u << e->bit_offset));
}

/* Values of any bit length up to 64 at any bit offset (little-endian, ETG.1000.4). */
uint64_t takt_ecat_pd_read(struct takt_ecat_master *drv, const struct takt_ecat_pd_entry *e)
{
    struct ecat_core *m = &drv->core;
    uint64_t v = 0;
    for (unsigned i = 0; i < e->bits && i < 64; i++) {
        unsigned b = e->bit_offset + i;
        v |= (uint64_t)((m->image[e->byte_offset + b / 8] >> (b % 8)) & 1) << i;
    }
    return v;
}

void takt_ecat_pd_write(struct takt_ecat_master *drv, const struct takt_ecat_pd_entry *e, uint64_t v)
{
    struct ecat_core *m = &drv->core;
    if (e->bit_offset == 0 && e->bits % 8 == 0) {
        for (unsigned i = 0; i < e->bits / 8; i++)
            m->image[e->byte_offset + i] = (uint8_t)(v >> (8 * i));
        return;
    }
    for (unsigned i = 0; i < e->bits && i < 64; i++) {
        unsigned b = e->bit_offset + i;
        uint8_t *p = &m->image[e->byte_offset + b / 8];
        *p = (uint8_t)(((v >> i) & 1) ? *p | 1u << (b % 8) : *p & ~(1u << (b % 8)));
    }
}

/* --- register services ------------------------------------------------------------- */

int ecat_svc_queue(struct ecat_core *m, unsigned pos, uint8_t cmd, uint16_t reg,
                   const void *data, uint16_t len, takt_ecat_done_fn fn, void *ctx)
{
    if (pos >= m->n_slaves)
        return -ENOENT;
    if (len == 0 || len > ECAT_SVC_DATA)
        return -EINVAL;
    for (unsigned i = 0; i < ECAT_SVC_SLOTS; i++) {
        struct ecat_svc *v = &m->svc[i];
        if (v->used)
            continue;
        v->used = true;
        v->fn = fn;
        v->ctx = ctx;
        v->tries = 0;
        v->pos = pos;
        if (data)
            memcpy(v->data, data, len);
        else
            memset(v->data, 0, len);
        ecat_req_init(&v->req, cmd, m->slaves[pos].info.station, reg, v->data, len);
        ecat_req_queue(m, &v->req);
        return 0;
    }
    return -EBUSY;
}

/* Through the command ring (master_cmd.c); a write's data travels in the record. */
static int svc_submit(struct takt_ecat_master *drv, unsigned pos, uint8_t cmd, uint16_t reg,
                      const void *data, uint16_t len, takt_ecat_done_fn fn, void *ctx)
{
    if (len == 0 || len > ECAT_SVC_DATA || pos > UINT16_MAX)
        return pos > UINT16_MAX ? -ENOENT : -EINVAL;
    struct rt_cmd c = { .op = ECAT_CMD_REG, .target = (uint16_t)pos, .arg = { cmd, reg, len },
                        .done = fn, .ctx = ctx };
    return ecat_cmd_submit(drv, &c, data, data ? len : 0);
}

int takt_ecat_reg_read_async(struct takt_ecat_master *drv, unsigned pos, uint16_t reg, uint16_t len,
                        takt_ecat_done_fn fn, void *ctx)
{ return svc_submit(drv, pos, ECAT_FPRD, reg, NULL, len, fn, ctx); }

int takt_ecat_reg_write_async(struct takt_ecat_master *drv, unsigned pos, uint16_t reg, const void *data,
                         uint16_t len, takt_ecat_done_fn fn, void *ctx)
{ return svc_submit(drv, pos, ECAT_FPWR, reg, data, len, fn, ctx); }

/* Master timer: finish services whose datagram returned (lost ones retried twice). */
void ecat_svc_poll(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    for (unsigned i = 0; i < ECAT_SVC_SLOTS; i++) {
        struct ecat_svc *v = &m->svc[i];
        if (!v->used || v->req.st != REQ_DONE)
            continue;
        if (v->req.wkc < 0 && ++v->tries < 3) {
            ecat_req_queue(m, &v->req);
            continue;
        }
        int err = v->req.wkc < 0 ? -ETIMEDOUT : v->req.wkc != 1 ? -TAKT_EWKC : 0;
        if (err)
            ECAT_EV(m, TAKT_ECAT_EV_SVC_WKC, v->pos, v->req.cmd, v->req.ado, v->req.len, v->req.wkc);
        v->used = false;
        if (v->fn)
            v->fn(v->ctx, err, v->data, v->req.len);
    }
}

struct blocking { bool done; int err; void *buf; uint16_t len; };

static void blocking_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct blocking *b = ctx;
    b->err = err;
    if (b->buf && !err)
        memcpy(b->buf, data, len < b->len ? len : b->len);
    b->done = true;
}

static bool blocking_check(struct ecat_core *m, void *ctx)
{
    (void)m;
    return ((struct blocking *)ctx)->done;
}

/* From another thread while the RT thread runs: post, sleep until the completion. */
static int reg_rt(struct takt_ecat_master *drv, unsigned pos, uint8_t cmd, uint16_t reg, void *buf,
                  const void *data, uint16_t len)
{
    struct rt_waiter *w = rt_waiter_new(len);
    if (!w)
        return -ENOMEM;
    int rc = ecat_cmd_wait(drv, w, svc_submit(drv, pos, cmd, reg, data, len, rt_waiter_done, w),
                           5 * TAKT_NS_PER_S);   /* it completes within ~3 datagram timeouts */
    if (!rc && buf)
        memcpy(buf, w->buf, w->len < len ? w->len : len);
    rt_waiter_put(w);
    return rc;
}

int takt_ecat_reg_read(struct takt_ecat_master *drv, unsigned pos, uint16_t reg, void *buf, uint16_t len)
{
    int mode = ecat_cmd_blocking(drv);
    if (mode)
        return mode < 0 ? mode : reg_rt(drv, pos, ECAT_FPRD, reg, buf, NULL, len);
    struct blocking b = { .buf = buf, .len = len };
    int rc = takt_ecat_reg_read_async(drv, pos, reg, len, blocking_done, &b);
    if (rc)
        return rc;
    rc = ecat_master_drive(drv, blocking_check, &b, TAKT_NS_PER_S);
    return rc ? rc : b.err;
}

int takt_ecat_reg_write(struct takt_ecat_master *drv, unsigned pos, uint16_t reg, const void *data, uint16_t len)
{
    int mode = ecat_cmd_blocking(drv);
    if (mode)
        return mode < 0 ? mode : reg_rt(drv, pos, ECAT_FPWR, reg, NULL, data, len);
    struct blocking b = { 0 };
    int rc = takt_ecat_reg_write_async(drv, pos, reg, data, len, blocking_done, &b);
    if (rc)
        return rc;
    rc = ecat_master_drive(drv, blocking_check, &b, TAKT_NS_PER_S);
    return rc ? rc : b.err;
}

/* --- SII write (tools only) -------------------------------------------------------- */

/* Wait until 0x0502 is not busy; returns the status word or a negative error. */
static int sii_idle(struct takt_ecat_master *drv, unsigned pos)
{
    for (int i = 0; i < 1000; i++) {
        uint8_t b[2];
        int rc = takt_ecat_reg_read(drv, pos, ESC_SII_CTRL, b, 2);
        if (rc)
            return rc;
        if (!(get_le16(b) & SII_BUSY))
            return get_le16(b);
    }
    return -ETIMEDOUT;
}

/* ETG.1000.4 SII access: per word, command write + write enable, the word address and the
 * data as one 8-byte write at 0x0502, wait while busy, check the error bits. The
 * register accesses are the blocking forms: beside a running RT thread each goes through
 * the command ring and the cycle keeps its timing. */
static int sii_write_words(struct takt_ecat_master *drv, unsigned pos, unsigned word, const uint8_t *data,
                           size_t len)
{
    struct ecat_core *m = &drv->core;
    uint8_t owner = 0;
    int rc = takt_ecat_reg_write(drv, pos, ESC_SII_CONFIG, &owner, 1);   /* EtherCAT owns the SII */
    for (size_t w = 0; !rc && w < len / 2; w++) {
        int st = sii_idle(drv, pos);
        if (st < 0) {
            rc = st;
            break;
        }
        /* command, address and the word's data as one write of 0x0502..0x0509: the ESC
         * runs the command at the end of that frame, so no other user's read can land
         * its data in 0x0508 between the data and the command */
        uint8_t cmd[ESC_SII_DATA + 2 - ESC_SII_CTRL];
        put_le16(cmd, SII_CMD_WRITE | SII_WRITE_EN);
        put_le32(cmd + ESC_SII_ADDR - ESC_SII_CTRL, (uint32_t)(word + w));
        memcpy(cmd + ESC_SII_DATA - ESC_SII_CTRL, data + 2 * w, 2);
        if ((rc = takt_ecat_reg_write(drv, pos, ESC_SII_CTRL, cmd, sizeof cmd)))
            break;
        st = sii_idle(drv, pos);
        if (st < 0) {
            rc = st;
            break;
        }
        if (st & (SII_ERR_WE | SII_ERR_ACK)) {
            ECAT_FAIL(m, -TAKT_ESII, TAKT_ECAT_EV_SII_WRITE_REFUSED, pos, word + w, st);
            return -TAKT_ESII;
        }
    }
    if (rc && (!m->errmsg[0] || m->last_err != rc))
        ECAT_FAIL(m, rc, TAKT_ECAT_EV_SII_WRITE_FAILED, pos, rc);
    return rc;
}

/* The master's copy of the image takes what the slave holds now (in the cycle's thread
 * when one runs: the copy is the cycle's). Growing it allocates, which a tool's SII
 * write may cost one cycle. */
int ecat_sii_copy(struct ecat_core *m, unsigned pos, unsigned word, const uint8_t *data, size_t len)
{
    if (pos >= m->n_slaves)
        return -ENOENT;
    struct ecat_slave *s = &m->slaves[pos];
    size_t end = 2 * (size_t)word + len;
    if (ecat_sii_grow(s, end))
        return -ENOMEM;
    if (s->scan.sii_len < 2 * (size_t)word)
        memset(s->scan.sii + s->scan.sii_len, 0xFF, 2 * (size_t)word - s->scan.sii_len);
    memcpy(s->scan.sii + 2 * (size_t)word, data, len);
    if (s->scan.sii_len < end)
        s->scan.sii_len = end;
    return 0;
}

/* The EEPROM interface for this write (ETG.1000.4 6.4: one user at a time): a rescan
 * that reads it now ends within its bounded steps; wait for that (the rescans asked
 * for meanwhile are refused), driving the cycle when no RT thread does. */
static bool sii_claim(struct takt_ecat_master *drv)
{
    int free_ = ECAT_SII_FREE;
    return atomic_compare_exchange_strong(&drv->core.sii_user, &free_, ECAT_SII_WRITE);
}

static bool sii_claimed(void *ctx)
{
    return sii_claim(ctx);
}

static int sii_take(struct takt_ecat_master *drv)
{
    if (sii_claim(drv))
        return 0;
    atomic_store(&drv->core.sii_wanted, true);   /* rescans asked for from now on are refused */
    int rc = ecat_cmd_wait_for(drv, sii_claimed, drv, 10 * TAKT_NS_PER_S);
    atomic_store(&drv->core.sii_wanted, false);
    return rc ? -EBUSY : 0;
}

int takt_ecat_sii_write_at(struct takt_ecat_master *drv, unsigned pos, unsigned word, const uint8_t *data,
                           size_t len)
{
    struct ecat_core *m = &drv->core;
    int mode = ecat_cmd_blocking(drv);
    if (mode < 0)
        return mode;
    if (pos >= m->n_slaves)
        return -ENOENT;
    if (!len || len % 2 || 2 * (size_t)word + len > ECAT_SII_MAX_IMAGE)
        return -EINVAL;
    if (sii_take(drv)) {
        if (!mode)        /* beside an RT thread the event ring is the cycle's alone */
            ECAT_FAIL(m, -EBUSY, TAKT_ECAT_EV_SII_WRITE_FAILED, pos, -EBUSY);
        return -EBUSY;
    }
    int rc = sii_write_words(drv, pos, word, data, len);
    atomic_store_explicit(&drv->core.sii_user, ECAT_SII_FREE, memory_order_release);
    if (rc)
        return rc;
    if (!mode)
        return ecat_sii_copy(m, pos, word, data, len);
    struct rt_waiter *w = rt_waiter_new(len);
    if (!w)
        return -ENOMEM;
    memcpy(w->buf, data, len);      /* the record points here: the waiter lives until it is applied */
    struct rt_cmd c = { .op = ECAT_CMD_SII_COPY, .target = (uint16_t)pos, .arg = { word }, .ptr = w->buf,
                        .len = len, .done = rt_waiter_done, .ctx = w };
    rc = ecat_cmd_wait(drv, w, rt_cmdring_post(&drv->cmd, &c, NULL, 0), 5 * TAKT_NS_PER_S);
    rt_waiter_put(w);
    return rc;
}

int takt_ecat_sii_write(struct takt_ecat_master *drv, unsigned pos, const uint8_t *img, size_t len)
{
    if (len < 16 || len % 2 || len > ECAT_SII_MAX_IMAGE)
        return -EINVAL;
    return takt_ecat_sii_write_at(drv, pos, 0, img, len);
}
