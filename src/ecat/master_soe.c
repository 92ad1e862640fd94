/* Mailbox transport for SoE (ETG.1000.6, Servo drive profile over EtherCAT): queued IDN reads and writes, one slot per
 * request, advanced by the master timer without blocking the cycle, as master_foe.c
 * does for FoE: write the whole receive mailbox (write fragments back to back, they are
 * not answered), poll SM1's "full" bit, read the response or its fragments, ask for a
 * repetition when the frame with a reply was lost. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/soe.h"
#include "ecat/master_internal.h"
#include "ecat/driver.h"

#define SM1_STATUS (ESC_SM0 + ESC_SM_SIZE + 5)     /* 0x080D, bit 3 mailbox full (ETG.1000.4 SyncManager) */
#define SM1_ACT    (ESC_SM0 + ESC_SM_SIZE + 6)     /* 0x080E, bit 1 repeat request */
#define SM1_PDI    (ESC_SM0 + ESC_SM_SIZE + 7)     /* 0x080F, bit 1 repeat acknowledge */
#define MBX_FULL   0x08

enum { SQ_FREE, SQ_WAIT_TURN, SQ_WRITE, SQ_POLL, SQ_READ, SQ_REPEAT, SQ_REPEAT_ACK };

struct ecat_soe_slot {
    uint8_t   st;
    unsigned  pos;
    uint32_t  seq;
    struct ecat_soe_xfer x;
    struct ecat_req req;
    uint16_t  out_start, out_len, in_start, in_len;
    uint8_t   out[ECAT_MAX_DG_DATA];
    uint8_t   in[ECAT_MAX_DG_DATA];
    size_t    msg_len;
    takt_ns_t deadline;
    takt_ecat_done_fn fn;
    void     *ctx;
};

int ecat_soe_init(struct ecat_core *m)
{
    m->soe = calloc(ECAT_SOE_SLOTS, sizeof *m->soe);
    return m->soe ? 0 : -ENOMEM;
}

void ecat_soe_free(struct ecat_core *m)
{
    free(m->soe);
    m->soe = NULL;
}

/* Only once it has its turn: a waiting SoE request waits for the others, not they for it. */
bool ecat_soe_slave_busy(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; m->soe && i < ECAT_SOE_SLOTS; i++)
        if (m->soe[i].st != SQ_FREE && m->soe[i].st != SQ_WAIT_TURN && m->soe[i].pos == pos)
            return true;
    return false;
}

bool ecat_soe_slave_waiting(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; m->soe && i < ECAT_SOE_SLOTS; i++)
        if (m->soe[i].st == SQ_WAIT_TURN && m->soe[i].pos == pos)
            return true;
    return false;
}

static void finish(struct ecat_core *m, struct ecat_soe_slot *q, int err)
{
    if (err)
        ECAT_FAILT(m, err, TAKT_ECAT_EV_ERROR_TEXT, q->pos, RT_TXT(q->x.msg[0] ? q->x.msg : takt_strerror(err)));
    q->st = SQ_FREE;
    if (q->fn)
        q->fn(q->ctx, err, q->x.buf, err ? 0 : q->x.len);
}

static void queue(struct ecat_core *m, struct ecat_soe_slot *q, uint8_t cmd, uint16_t ado,
                  uint8_t *data, uint16_t len, uint8_t st)
{
    ecat_req_init(&q->req, cmd, m->slaves[q->pos].info.station, ado, data, len);
    ecat_req_queue(m, &q->req);
    q->st = st;
}

static void write_mbx(struct ecat_core *m, struct ecat_soe_slot *q)
{
    /* the whole mailbox: writing its last byte hands it over (ETG.1000.4 SyncManager) */
    memset(q->out + q->msg_len, 0, q->out_len - q->msg_len);
    queue(m, q, ECAT_FPWR, q->out_start, q->out, q->out_len, SQ_WRITE);
}

static void poll_mbx(struct ecat_core *m, struct ecat_soe_slot *q)
{ queue(m, q, ECAT_FPRD, SM1_STATUS, q->in, 1, SQ_POLL); }

static void repeat_req(struct ecat_core *m, struct ecat_soe_slot *q)
{
    struct ecat_slave *s = &m->slaves[q->pos];
    q->in[0] = ecat_mbx_repeat_req(&s->mbx);
    queue(m, q, ECAT_FPWR, SM1_ACT, q->in, 1, SQ_REPEAT);
}

static bool may_start(const struct ecat_core *m, const struct ecat_soe_slot *q)
{
    for (unsigned i = 0; i < ECAT_SOE_SLOTS; i++) {
        const struct ecat_soe_slot *o = &m->soe[i];
        if (o != q && o->st != SQ_FREE && o->pos == q->pos && o->seq < q->seq)
            return false;
    }
    /* CoE, FoE, EoE and the emergency poll share this mailbox: not while they run */
    if (ecat_coe_slave_busy(m, q->pos) || ecat_foe_slave_busy(m, q->pos) ||
        ecat_eoe_slave_busy(m, q->pos))
        return false;
    return !(m->idle_pos == q->pos && (ecat_req_busy(&m->idle_req) || m->idle_req.st == REQ_DONE));
}

static void step(struct ecat_core *m, struct ecat_soe_slot *q, takt_ns_t now)
{
    int wkc = q->req.wkc, rc;
    switch (q->st) {
    case SQ_WRITE:
        if (wkc != 1) {
            write_mbx(m, q);                 /* mailbox still full or frame lost: again */
            break;
        }
        q->deadline = now + m->o.sdo_timeout_ns;
        rc = ecat_soe_xfer_sent(&q->x, q->out, q->out_len, &q->msg_len);
        if (rc == ECAT_SOE_SEND)
            write_mbx(m, q);                 /* the next write fragment */
        else if (rc < 0)
            finish(m, q, rc);
        else
            poll_mbx(m, q);
        break;
    case SQ_POLL:
        if (wkc == 1 && (q->in[0] & MBX_FULL))
            queue(m, q, ECAT_FPRD, q->in_start, q->in, q->in_len, SQ_READ);
        else
            poll_mbx(m, q);
        break;
    case SQ_READ:
        if (wkc < 0) {
            repeat_req(m, q);
        } else if (wkc != 1 || ecat_eoe_offer(m, q->pos, q->in, q->in_len)) {
            poll_mbx(m, q);                  /* (an EoE fragment came first: ours follows) */
        } else {
            rc = ecat_soe_xfer_on_reply(&q->x, q->in, q->in_len);
            if (rc == ECAT_SOE_WAIT) {
                q->deadline = now + m->o.sdo_timeout_ns;   /* a fragment: the slave is alive */
                poll_mbx(m, q);
            } else {
                finish(m, q, rc == ECAT_SOE_DONE ? 0 : rc);
            }
        }
        break;
    case SQ_REPEAT:
        if (wkc == 1)
            queue(m, q, ECAT_FPRD, SM1_PDI, q->in, 1, SQ_REPEAT_ACK);
        else
            repeat_req(m, q);
        break;
    case SQ_REPEAT_ACK:
        if (wkc == 1 && ecat_mbx_repeat_acked(&m->slaves[q->pos].mbx, q->in[0]))
            poll_mbx(m, q);
        else
            queue(m, q, ECAT_FPRD, SM1_PDI, q->in, 1, SQ_REPEAT_ACK);
        break;
    }
}

static void timeout(struct ecat_core *m, struct ecat_soe_slot *q, const char *what)
{
    char s[TAKT_ECAT_SOE_IDN_STR];
    takt_ecat_soe_idn_format(q->x.idn, s);
    snprintf(q->x.msg, sizeof q->x.msg, "slave %u: SoE %s of IDN %s: %s within %lld ms", q->pos,
             q->x.dir == ECAT_SOE_READ ? "read" : "write", s, what,
             (long long)(m->o.sdo_timeout_ns / TAKT_NS_PER_MS));
    finish(m, q, -ETIMEDOUT);
}

void ecat_soe_poll(struct ecat_core *m, takt_ns_t now)
{
    for (unsigned i = 0; m->soe && i < ECAT_SOE_SLOTS; i++) {
        struct ecat_soe_slot *q = &m->soe[i];
        if (q->st == SQ_FREE || ecat_req_busy(&q->req))
            continue;
        if (q->st == SQ_WAIT_TURN) {
            if (!q->deadline)
                q->deadline = now + m->o.sdo_timeout_ns;
            if (!may_start(m, q)) {
                if (now > q->deadline)
                    timeout(m, q, "the mailbox stayed busy (CoE, FoE or emergency poll)");
                continue;
            }
            q->deadline = now + m->o.sdo_timeout_ns;
            write_mbx(m, q);
            continue;
        }
        if (now > q->deadline) {
            timeout(m, q, "no answer");
            continue;
        }
        step(m, q, now);
    }
}

/* --- requests ----------------------------------------------------------------------- */

int ecat_soe_queue(struct ecat_core *m, unsigned pos, int dir, uint8_t drive,
                   uint8_t elements, uint16_t idn, uint8_t *buf, size_t cap, takt_ecat_done_fn fn,
                   void *ctx)
{
    if (pos >= m->n_slaves) {
        ECAT_FAIL(m, -ENOENT, TAKT_ECAT_EV_NO_SLAVE, -1, 0, pos, m->n_slaves);
        return -ENOENT;
    }
    struct ecat_slave *s = &m->slaves[pos];
    if (!(s->info.mbx_protocols & MBX_PROTO_SOE)) {
        ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_NO_SOE, pos, RT_TXT(s->info.name), s->info.mbx_protocols);
        return -TAKT_EMBOX;
    }
    uint8_t st = s->info.al_state & AL_STATE_MASK;
    if (st != AL_PREOP && st != AL_SAFEOP && st != AL_OP) {
        ECAT_FAILT(m, -EAGAIN, TAKT_ECAT_EV_SOE_STATE, pos, RT_TXT(s->info.name), s->info.al_state);
        return -EAGAIN;
    }
    for (unsigned i = 0; i < ECAT_SOE_SLOTS; i++) {
        struct ecat_soe_slot *q = &m->soe[i];
        if (q->st != SQ_FREE)
            continue;
        q->out_start = s->info.mbx_out_start, q->out_len = s->info.mbx_out_len;
        q->in_start = s->info.mbx_in_start, q->in_len = s->info.mbx_in_len;
        if (q->out_len < MBX_HDR + SOE_HDR + 1 || q->in_len < MBX_HDR + SOE_HDR + 2 ||
            q->out_len > ECAT_MAX_DG_DATA || q->in_len > ECAT_MAX_DG_DATA) {
            ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_SOE_MBX_SIZE, pos, RT_TXT(s->info.name), q->out_len, q->in_len,
                       ECAT_MAX_DG_DATA);
            return -TAKT_EMBOX;
        }
        int rc = ecat_soe_xfer_start(&q->x, (enum ecat_soe_dir)dir, pos, drive, elements, idn, buf, cap,
                                     q->out_len, &s->mbx, q->out, &q->msg_len);
        if (rc != ECAT_SOE_SEND) {
            ECAT_FAILT(m, rc < 0 ? rc : -EINVAL, TAKT_ECAT_EV_ERROR_TEXT, pos, RT_TXT(q->x.msg));
            return rc < 0 ? rc : -EINVAL;
        }
        ecat_req_init(&q->req, ECAT_NOP, 0, 0, NULL, 0);
        q->pos = pos;
        q->seq = m->soe_seq++;
        q->fn = fn;
        q->ctx = ctx;
        q->deadline = 0;                      /* set by the master timer */
        q->st = SQ_WAIT_TURN;
        return 0;
    }
    return -EBUSY;
}

/* Through the command ring (master_cmd.c); the buffer stays the caller's until the
 * completion. */
static int soe_submit(struct takt_ecat_master *drv, unsigned pos, enum ecat_soe_dir dir, uint8_t drive,
                      uint8_t elements, uint16_t idn, uint8_t *buf, size_t cap, takt_ecat_done_fn fn,
                      void *ctx)
{
    if (pos > UINT16_MAX)
        return -ENOENT;
    struct rt_cmd c = { .op = ECAT_CMD_SOE, .target = (uint16_t)pos,
                        .arg = { dir, drive, elements, idn }, .ptr = buf, .len = cap,
                        .done = fn, .ctx = ctx };
    return ecat_cmd_submit(drv, &c, NULL, 0);
}

int takt_ecat_soe_read_async(struct takt_ecat_master *drv, unsigned pos, uint8_t drive, uint8_t elements,
                        uint16_t idn, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    return soe_submit(drv, pos, ECAT_SOE_READ, drive, elements, idn, buf, cap, fn, ctx);
}

/* The core's own (the ENI's SoE init commands, in the cycle): queued at once. */
int ecat_soe_write_async(struct ecat_core *m, unsigned pos, uint8_t drive, uint8_t elements,
                    uint16_t idn, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx)
{
    return ecat_soe_queue(m, pos, ECAT_SOE_WRITE, drive, elements, idn, (uint8_t *)data, len, fn, ctx);
}

int takt_ecat_soe_write_async(struct takt_ecat_master *drv, unsigned pos, uint8_t drive, uint8_t elements,
                         uint16_t idn, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx)
{
    return soe_submit(drv, pos, ECAT_SOE_WRITE, drive, elements, idn, (uint8_t *)data, len, fn, ctx);
}

/* --- blocking wrappers (tools only; master_block.c waits) ---------------------------- */

struct soe_args { unsigned pos; uint8_t drive, elements; uint16_t idn; };

static void forget(struct ecat_core *m, const void *ctx)
{
    for (unsigned i = 0; i < ECAT_SOE_SLOTS; i++)
        if (m->soe[i].ctx == ctx)
            m->soe[i].fn = NULL;
}

static int read_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                      void *ctx)
{
    const struct soe_args *a = args;
    return takt_ecat_soe_read_async(drv, a->pos, a->drive, a->elements, a->idn, buf, n, fn, ctx);
}

static int write_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                       void *ctx)
{
    const struct soe_args *a = args;
    return takt_ecat_soe_write_async(drv, a->pos, a->drive, a->elements, a->idn, buf, n, fn, ctx);
}

/* a backstop only: the slot ends a transfer by its own SDO timeout, started again with
 * each fragment of an IDN (step()) */
static takt_ns_t limit(const struct takt_ecat_master *drv)
{ return 4 * drv->core.o.sdo_timeout_ns + TAKT_NS_PER_S; }

int takt_ecat_soe_read(struct takt_ecat_master *drv, unsigned pos, uint8_t drive, uint8_t elements,
                  uint16_t idn, void *buf, size_t cap, size_t *len)
{
    struct soe_args a = { pos, drive, elements, idn };
    return ecat_block_run(drv, &(struct ecat_block){ .start = read_start, .args = &a, .buf = buf, .n = cap,
                                                     .len = len, .timeout_ns = limit(drv), .forget = forget });
}

int takt_ecat_soe_write(struct takt_ecat_master *drv, unsigned pos, uint8_t drive, uint8_t elements,
                   uint16_t idn, const void *data, size_t len)
{
    struct soe_args a = { pos, drive, elements, idn };
    return ecat_block_run(drv, &(struct ecat_block){ .start = write_start, .args = &a, .buf = (void *)data,
                                                     .n = len, .write = true, .timeout_ns = limit(drv),
                                                     .forget = forget });
}
