/* Mailbox transport for FoE (ETG.1000.6, File access over EtherCAT): queued file reads and writes, one slot per
 * transfer, advanced by the master timer without blocking the cycle, as master_coe.c
 * does for CoE: write the whole receive mailbox, poll SM1's "full" bit, read the reply,
 * ask for a repetition when the frame with the reply was lost. In BOOT the bootstrap
 * mailbox from SII words 0x14-0x17 is used (ETG.2010). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/foe.h"
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "util/wire.h"

#define SM1_STATUS (ESC_SM0 + ESC_SM_SIZE + 5)     /* 0x080D, bit 3 mailbox full (ETG.1000.4 SyncManager) */
#define SM1_ACT    (ESC_SM0 + ESC_SM_SIZE + 6)     /* 0x080E, bit 1 repeat request */
#define SM1_PDI    (ESC_SM0 + ESC_SM_SIZE + 7)     /* 0x080F, bit 1 repeat acknowledge */
#define MBX_FULL   0x08
#define FOE_MAX_BUSY 100000u   /* BUSY answers before the master gives up */

enum { FQ_FREE, FQ_WAIT_TURN, FQ_WRITE, FQ_POLL, FQ_READ, FQ_ERR_WRITE, FQ_REPEAT, FQ_REPEAT_ACK };

struct ecat_foe_slot {
    uint8_t   st;
    unsigned  pos;
    uint32_t  seq;
    struct ecat_foe_xfer x;
    struct ecat_req req;
    uint16_t  out_start, out_len, in_start, in_len;   /* the mailbox in use */
    uint8_t   out[ECAT_MAX_DG_DATA];
    uint8_t   in[ECAT_MAX_DG_DATA];
    size_t    msg_len;
    bool      finish_after_write;
    takt_ns_t deadline;
    int       err;
    takt_ecat_done_fn fn;
    void     *ctx;
};

int ecat_foe_init(struct ecat_core *m)
{
    m->foe = calloc(ECAT_FOE_SLOTS, sizeof *m->foe);
    return m->foe ? 0 : -ENOMEM;
}

void ecat_foe_free(struct ecat_core *m)
{
    free(m->foe);
    m->foe = NULL;
}

bool ecat_slave_boot_mbx(const struct ecat_slave *s, struct ecat_sm_cfg mbx[2])
{
    if (s->scan.sii_len < 2 * (SII_W_BOOT_TX_SIZE + 1))
        return false;
    mbx[0] = (struct ecat_sm_cfg){ .start = get_le16(s->scan.sii + 2 * SII_W_BOOT_RX_OFF),
                                   .len = get_le16(s->scan.sii + 2 * SII_W_BOOT_RX_SIZE) };
    mbx[1] = (struct ecat_sm_cfg){ .start = get_le16(s->scan.sii + 2 * SII_W_BOOT_TX_OFF),
                                   .len = get_le16(s->scan.sii + 2 * SII_W_BOOT_TX_SIZE) };
    return mbx[0].len && mbx[1].len;
}

/* Also while one waits for its turn: the emergency poll must leave the slave alone then,
 * or, polling back to back while frames are lost, it would keep the transfer waiting. */
bool ecat_foe_slave_busy(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; m->foe && i < ECAT_FOE_SLOTS; i++)
        if (m->foe[i].st != FQ_FREE && m->foe[i].pos == pos)
            return true;
    return false;
}

bool ecat_foe_slave_waiting(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; m->foe && i < ECAT_FOE_SLOTS; i++)
        if (m->foe[i].st == FQ_WAIT_TURN && m->foe[i].pos == pos)
            return true;
    return false;
}

static void finish(struct ecat_core *m, struct ecat_foe_slot *q, int err)
{
    if (err)
        ECAT_FAILT(m, err, TAKT_ECAT_EV_ERROR_TEXT, q->pos, RT_TXT(q->x.msg[0] ? q->x.msg : takt_strerror(err)));
    q->st = FQ_FREE;
    if (q->fn)
        q->fn(q->ctx, err, q->x.buf, err ? 0 : q->x.len);
}

static void queue(struct ecat_core *m, struct ecat_foe_slot *q, uint8_t cmd, uint16_t ado,
                  uint8_t *data, uint16_t len, uint8_t st)
{
    ecat_req_init(&q->req, cmd, m->slaves[q->pos].info.station, ado, data, len);
    ecat_req_queue(m, &q->req);
    q->st = st;
}

static void write_mbx(struct ecat_core *m, struct ecat_foe_slot *q, uint8_t st)
{
    /* the whole mailbox: writing its last byte hands it over (ETG.1000.4 SyncManager) */
    memset(q->out + q->msg_len, 0, q->out_len - q->msg_len);
    queue(m, q, ECAT_FPWR, q->out_start, q->out, q->out_len, st);
}

static void poll_mbx(struct ecat_core *m, struct ecat_foe_slot *q)
{ queue(m, q, ECAT_FPRD, SM1_STATUS, q->in, 1, FQ_POLL); }

static void read_mbx(struct ecat_core *m, struct ecat_foe_slot *q)
{ queue(m, q, ECAT_FPRD, q->in_start, q->in, q->in_len, FQ_READ); }

/* The reply left the ESC with a lost frame: toggle the repeat request (ETG.1000.4 SyncManager). */
static void repeat_req(struct ecat_core *m, struct ecat_foe_slot *q)
{
    struct ecat_slave *s = &m->slaves[q->pos];
    q->in[0] = ecat_mbx_repeat_req(&s->mbx);
    queue(m, q, ECAT_FPWR, SM1_ACT, q->in, 1, FQ_REPEAT);
}

static void progress(struct ecat_core *m, struct ecat_foe_slot *q)
{
    size_t done, total;
    if (!m->foe_progress)
        return;
    ecat_foe_xfer_progress(&q->x, &done, &total);
    m->foe_progress(m->foe_progress_ctx, q->pos, done, total);
}

static void on_reply(struct ecat_core *m, struct ecat_foe_slot *q, takt_ns_t now)
{
    size_t before = q->x.dir == ECAT_FOE_READ ? q->x.len : q->x.off;
    int rc = ecat_foe_xfer_on_reply(&q->x, q->in, q->in_len, q->out, q->out_len, &q->msg_len);
    size_t after = q->x.dir == ECAT_FOE_READ ? q->x.len : q->x.off;
    if (after != before || rc == ECAT_FOE_DONE)
        progress(m, q);
    if (rc == ECAT_FOE_SEND) {
        if (q->x.busy > FOE_MAX_BUSY) {
            snprintf(q->x.msg, sizeof q->x.msg, "slave %u: FoE of '%s': slave still BUSY after "
                     "%u answers", q->pos, q->x.name, q->x.busy);
            finish(m, q, -ETIMEDOUT);
            return;
        }
        q->deadline = now + m->o.sdo_timeout_ns;   /* the slave answered: it is alive */
        q->finish_after_write = q->x.finish_on_send;
        write_mbx(m, q, FQ_WRITE);
    } else if (rc == ECAT_FOE_WAIT) {
        poll_mbx(m, q);
    } else if (rc == ECAT_FOE_DONE) {
        finish(m, q, 0);
    } else if (q->msg_len) {             /* tell the slave with an ERR, then fail */
        q->err = rc;
        write_mbx(m, q, FQ_ERR_WRITE);
    } else {
        finish(m, q, rc);
    }
}

static void timeout(struct ecat_core *m, struct ecat_foe_slot *q)
{
    size_t done, total;
    ecat_foe_xfer_progress(&q->x, &done, &total);
    snprintf(q->x.msg, sizeof q->x.msg, "slave %u: FoE %s of '%s': no answer within %lld ms "
             "(packet %u, %zu bytes moved)", q->pos, q->x.dir == ECAT_FOE_READ ? "read" : "write",
             q->x.name, (long long)(m->o.sdo_timeout_ns / TAKT_NS_PER_MS), (unsigned)q->x.pkt, done);
    finish(m, q, -ETIMEDOUT);
}

static bool may_start(const struct ecat_core *m, const struct ecat_foe_slot *q)
{
    for (unsigned i = 0; i < ECAT_FOE_SLOTS; i++) {
        const struct ecat_foe_slot *o = &m->foe[i];
        if (o != q && o->st != FQ_FREE && o->pos == q->pos && o->seq < q->seq)
            return false;
    }
    /* the CoE transfers, SoE and EoE and the emergency poll share this mailbox: not
     * while they run */
    if (ecat_coe_slave_busy(m, q->pos) || ecat_soe_slave_busy(m, q->pos) ||
        ecat_eoe_slave_busy(m, q->pos))
        return false;
    return !(m->idle_pos == q->pos && (ecat_req_busy(&m->idle_req) || m->idle_req.st == REQ_DONE));
}

static void step(struct ecat_core *m, struct ecat_foe_slot *q, takt_ns_t now)
{
    int wkc = q->req.wkc;
    switch (q->st) {
    case FQ_WRITE:
        if (wkc != 1)
            write_mbx(m, q, FQ_WRITE);       /* mailbox still full or frame lost: again */
        else if (q->finish_after_write)
            finish(m, q, 0);                 /* the ACK of the last DATA is delivered */
        else
            poll_mbx(m, q);
        break;
    case FQ_ERR_WRITE:
        if (wkc == 1)
            finish(m, q, q->err);
        else
            write_mbx(m, q, FQ_ERR_WRITE);
        break;
    case FQ_POLL:
        if (wkc == 1 && (q->in[0] & MBX_FULL))
            read_mbx(m, q);
        else
            poll_mbx(m, q);
        break;
    case FQ_READ:
        if (wkc == 1 && ecat_eoe_offer(m, q->pos, q->in, q->in_len))
            poll_mbx(m, q);                  /* an EoE fragment came first: ours follows */
        else if (wkc == 1)
            on_reply(m, q, now);
        else if (wkc < 0)
            repeat_req(m, q);
        else
            poll_mbx(m, q);
        break;
    case FQ_REPEAT:
        if (wkc == 1)
            queue(m, q, ECAT_FPRD, SM1_PDI, q->in, 1, FQ_REPEAT_ACK);
        else
            repeat_req(m, q);
        break;
    case FQ_REPEAT_ACK:
        if (wkc == 1 && ecat_mbx_repeat_acked(&m->slaves[q->pos].mbx, q->in[0]))
            poll_mbx(m, q);
        else
            queue(m, q, ECAT_FPRD, SM1_PDI, q->in, 1, FQ_REPEAT_ACK);
        break;
    }
}

void ecat_foe_poll(struct ecat_core *m, takt_ns_t now)
{
    for (unsigned i = 0; m->foe && i < ECAT_FOE_SLOTS; i++) {
        struct ecat_foe_slot *q = &m->foe[i];
        if (q->st == FQ_FREE || ecat_req_busy(&q->req))
            continue;
        if (q->st == FQ_WAIT_TURN) {
            if (!q->deadline)
                q->deadline = now + m->o.sdo_timeout_ns;
            if (!may_start(m, q)) {
                if (now > q->deadline) {
                    snprintf(q->x.msg, sizeof q->x.msg, "slave %u: FoE of '%s': the mailbox stayed "
                             "busy (CoE transfer or emergency poll) for %lld ms", q->pos, q->x.name,
                             (long long)(m->o.sdo_timeout_ns / TAKT_NS_PER_MS));
                    finish(m, q, -ETIMEDOUT);
                }
                continue;
            }
            q->deadline = now + m->o.sdo_timeout_ns;
            write_mbx(m, q, FQ_WRITE);
            continue;
        }
        if (now > q->deadline && q->st != FQ_ERR_WRITE) {
            timeout(m, q);
            continue;
        }
        if (now > q->deadline + m->o.sdo_timeout_ns) {
            finish(m, q, q->err);            /* the ERR for the slave does not go out either */
            continue;
        }
        step(m, q, now);
    }
}

/* --- requests ----------------------------------------------------------------------- */

static int pick_mailbox(struct ecat_core *m, struct ecat_slave *s, struct ecat_foe_slot *q)
{
    uint8_t st = s->info.al_state & AL_STATE_MASK;
    if (st == AL_BOOT) {
        struct ecat_sm_cfg b[2];
        if (!ecat_slave_boot_mbx(s, b)) {
            ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_FOE_NO_BOOT_MBX, s->info.position, RT_TXT(s->info.name));
            return -TAKT_EMBOX;
        }
        q->out_start = b[0].start, q->out_len = b[0].len;
        q->in_start = b[1].start, q->in_len = b[1].len;
    } else if (st == AL_PREOP || st == AL_SAFEOP || st == AL_OP) {
        q->out_start = s->info.mbx_out_start, q->out_len = s->info.mbx_out_len;
        q->in_start = s->info.mbx_in_start, q->in_len = s->info.mbx_in_len;
    } else {
        ECAT_FAILT(m, -EAGAIN, TAKT_ECAT_EV_FOE_STATE, s->info.position, RT_TXT(s->info.name), s->info.al_state);
        return -EAGAIN;
    }
    if (q->out_len < MBX_HDR + FOE_HDR + 1 || q->in_len < MBX_HDR + FOE_HDR ||
        q->out_len > ECAT_MAX_DG_DATA || q->in_len > ECAT_MAX_DG_DATA) {
        ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_FOE_MBX_SIZE, s->info.position, RT_TXT(s->info.name), q->out_len, q->in_len,
               ECAT_MAX_DG_DATA);
        return -TAKT_EMBOX;
    }
    return 0;
}

int ecat_foe_queue(struct ecat_core *m, unsigned pos, int dir, const char *name,
                   uint32_t password, uint8_t *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    if (pos >= m->n_slaves) {
        ECAT_FAIL(m, -ENOENT, TAKT_ECAT_EV_NO_SLAVE, -1, 2, pos, m->n_slaves);
        return -ENOENT;
    }
    struct ecat_slave *s = &m->slaves[pos];
    if (!(s->info.mbx_protocols & MBX_PROTO_FOE)) {
        ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_NO_FOE, pos, RT_TXT(s->info.name), s->info.mbx_protocols);
        return -TAKT_EMBOX;
    }
    for (unsigned i = 0; i < ECAT_FOE_SLOTS; i++) {
        struct ecat_foe_slot *q = &m->foe[i];
        if (q->st != FQ_FREE)
            continue;
        int rc = pick_mailbox(m, s, q);
        if (rc)
            return rc;
        rc = ecat_foe_xfer_start(&q->x, (enum ecat_foe_dir)dir, pos, name, password, buf, cap, q->out_len,
                                 q->in_len, &s->mbx, q->out, &q->msg_len);
        if (rc != ECAT_FOE_SEND) {
            ECAT_FAILT(m, rc < 0 ? rc : -EINVAL, TAKT_ECAT_EV_ERROR_TEXT, pos, RT_TXT(q->x.msg));
            return rc < 0 ? rc : -EINVAL;
        }
        ecat_req_init(&q->req, ECAT_NOP, 0, 0, NULL, 0);
        q->pos = pos;
        q->seq = m->foe_seq++;
        q->fn = fn;
        q->ctx = ctx;
        q->err = 0;
        q->finish_after_write = false;
        q->deadline = 0;                      /* set by the master timer */
        q->st = FQ_WAIT_TURN;
        return 0;
    }
    return -EBUSY;
}

/* Through the command ring (master_cmd.c): the file name travels in the record, the
 * data buffer stays the caller's until the completion. */
static int foe_submit(struct takt_ecat_master *drv, unsigned pos, enum ecat_foe_dir dir, const char *name,
                      uint32_t password, uint8_t *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    size_t n = name ? strnlen(name, RT_CMD_INLINE) : 0;
    if (!name || n == RT_CMD_INLINE)
        return -EINVAL;
    if (pos > UINT16_MAX)
        return -ENOENT;
    struct rt_cmd c = { .op = ECAT_CMD_FOE, .target = (uint16_t)pos, .arg = { dir, password },
                        .ptr = buf, .len = cap, .done = fn, .ctx = ctx };
    return ecat_cmd_submit(drv, &c, name, n + 1);
}

int takt_ecat_foe_read_async(struct takt_ecat_master *drv, unsigned pos, const char *name, uint32_t password,
                        void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    return foe_submit(drv, pos, ECAT_FOE_READ, name, password, buf, cap, fn, ctx);
}

int takt_ecat_foe_write_async(struct takt_ecat_master *drv, unsigned pos, const char *name, uint32_t password,
                         const void *data, size_t len, takt_ecat_done_fn fn, void *ctx)
{
    return foe_submit(drv, pos, ECAT_FOE_WRITE, name, password, (uint8_t *)data, len, fn, ctx);
}

void takt_ecat_foe_set_progress(struct takt_ecat_master *drv, takt_ecat_foe_progress_fn fn, void *ctx)
{
    struct ecat_core *m = &drv->core;
    m->foe_progress = fn;
    m->foe_progress_ctx = ctx;
}

/* --- blocking wrappers (tools only; master_block.c waits) ---------------------------- */

struct foe_args { unsigned pos; const char *name; uint32_t password; };

static void forget(struct ecat_core *m, const void *ctx)
{
    for (unsigned i = 0; i < ECAT_FOE_SLOTS; i++)
        if (m->foe[i].ctx == ctx)
            m->foe[i].fn = NULL;
}

static int read_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                      void *ctx)
{
    const struct foe_args *a = args;
    return takt_ecat_foe_read_async(drv, a->pos, a->name, a->password, buf, n, fn, ctx);
}

static int write_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                       void *ctx)
{
    const struct foe_args *a = args;
    return takt_ecat_foe_write_async(drv, a->pos, a->name, a->password, buf, n, fn, ctx);
}

/* No overall limit beyond the per-packet timeout: a large firmware takes what it takes
 * (the cycle ends a stalled transfer by its per-packet timeout). */
#define FOE_LIMIT (24 * 3600 * TAKT_NS_PER_S)

int takt_ecat_foe_read(struct takt_ecat_master *drv, unsigned pos, const char *name, uint32_t password,
                  void *buf, size_t cap, size_t *len)
{
    struct foe_args a = { pos, name, password };
    return ecat_block_run(drv, &(struct ecat_block){ .start = read_start, .args = &a, .buf = buf, .n = cap,
                                                     .len = len, .timeout_ns = FOE_LIMIT, .forget = forget });
}

int takt_ecat_foe_write(struct takt_ecat_master *drv, unsigned pos, const char *name, uint32_t password,
                   const void *data, size_t len)
{
    struct foe_args a = { pos, name, password };
    return ecat_block_run(drv, &(struct ecat_block){ .start = write_start, .args = &a, .buf = (void *)data,
                                                     .n = len, .write = true, .timeout_ns = FOE_LIMIT,
                                                     .forget = forget });
}
