/* Mailbox transport for CoE (ETG.1000.4 SyncManager and mailbox): a queued SDO / SDO-info transfer per slot,
 * driven by the master timer without ever blocking the cycle. The transfer logic is
 * coe.c's; here the messages move: write the whole receive mailbox (SM0) so its last
 * byte sets "full", poll SM1's status byte (0x080D bit 3), read the send mailbox. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/coe.h"
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "util/wire.h"

#define SM1_STATUS (ESC_SM0 + ESC_SM_SIZE + 5)     /* 0x080D, bit 3 mailbox full (ETG.1000.4 SyncManager) */
#define SM1_ACT    (ESC_SM0 + ESC_SM_SIZE + 6)     /* 0x080E, bit 1 repeat request */
#define SM1_PDI    (ESC_SM0 + ESC_SM_SIZE + 7)     /* 0x080F, bit 1 repeat acknowledge */
#define MBX_FULL   0x08

enum { MS_FREE, MS_WAIT_TURN, MS_WRITE, MS_POLL, MS_READ, MS_ABORT_WRITE, MS_REPEAT,
       MS_REPEAT_ACK };

struct ecat_sdo_slot {
    uint8_t   st;
    unsigned  pos;
    uint32_t  seq;             /* queue order: one transfer per slave at a time */
    struct ecat_coe_xfer x;
    struct ecat_req req;
    uint8_t   out[ECAT_MAX_DG_DATA];
    uint8_t   in[ECAT_MAX_DG_DATA];
    size_t    out_len;
    takt_ns_t t0, deadline;
    takt_ns_t written;         /* when the slave took the current request */
    unsigned  restarts;
    int       err;
    takt_ecat_done_fn fn;
    void     *ctx;
};

int ecat_coe_init(struct ecat_core *m)
{
    m->sdo = calloc(ECAT_SDO_SLOTS, sizeof *m->sdo);
    m->coe_poll_set = calloc((m->max_slaves + 63) / 64, sizeof *m->coe_poll_set);
    return m->sdo && m->coe_poll_set ? 0 : -ENOMEM;
}

void ecat_coe_free(struct ecat_core *m)
{
    free(m->sdo);
    m->sdo = NULL;
    free(m->coe_poll_set);
    m->coe_poll_set = NULL;
    m->n_coe_poll = 0;
}

static void finish(struct ecat_core *m, struct ecat_sdo_slot *q, int err)
{
    if (err)
        ECAT_FAILT(m, err, TAKT_ECAT_EV_ERROR_TEXT, q->pos, RT_TXT(q->x.msg[0] ? q->x.msg : takt_strerror(err)));
    q->st = MS_FREE;
    m->sdo_used--;
    if (q->fn)
        q->fn(q->ctx, err, q->x.req.data, err ? 0 : q->x.result_len);
}

static void write_mbx(struct ecat_core *m, struct ecat_sdo_slot *q, uint8_t st)
{
    const struct ecat_slave *s = &m->slaves[q->pos];
    /* the whole mailbox: writing its last byte hands it over (ETG.1000.4 SyncManager) */
    memset(q->out + q->out_len, 0, s->info.mbx_out_len - q->out_len);
    ecat_req_init(&q->req, ECAT_FPWR, s->info.station, s->info.mbx_out_start, q->out,
                  s->info.mbx_out_len);
    ecat_req_queue(m, &q->req);
    q->st = st;
}

static void poll_mbx(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    ecat_req_init(&q->req, ECAT_FPRD, m->slaves[q->pos].info.station, SM1_STATUS, q->in, 1);
    ecat_req_queue(m, &q->req);
    q->st = MS_POLL;
}

static void read_mbx(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    const struct ecat_slave *s = &m->slaves[q->pos];
    ecat_req_init(&q->req, ECAT_FPRD, s->info.station, s->info.mbx_in_start, q->in, s->info.mbx_in_len);
    ecat_req_queue(m, &q->req);
    q->st = MS_READ;
}

/* The frame that read the send mailbox was lost: its reply left the ESC with it. Ask
 * the slave to put it back (ETG.1000.4 SyncManager repeat request: toggle SM1 repeat request 0x080E bit 1, wait for
 * the acknowledge in 0x080F bit 1, then read again). */
static void repeat_req(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    struct ecat_slave *s = &m->slaves[q->pos];
    q->in[0] = ecat_mbx_repeat_req(&s->mbx);
    ecat_req_init(&q->req, ECAT_FPWR, s->info.station, SM1_ACT, q->in, 1);
    ecat_req_queue(m, &q->req);
    q->st = MS_REPEAT;
}

static void repeat_poll(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    ecat_req_init(&q->req, ECAT_FPRD, m->slaves[q->pos].info.station, SM1_PDI, q->in, 1);
    ecat_req_queue(m, &q->req);
    q->st = MS_REPEAT_ACK;
}

static void on_reply(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    unsigned emcy = q->x.n_emcy;
    int rc = ecat_coe_xfer_on_reply(&q->x, q->in, m->slaves[q->pos].info.mbx_in_len, q->out,
                                    m->slaves[q->pos].info.mbx_out_len, &q->out_len);
    if (q->x.n_emcy != emcy)
        ECAT_EV(m, TAKT_ECAT_EV_EMERGENCY, q->pos, q->x.emcy.code, q->x.emcy.code, q->x.emcy.reg);
    if (rc == ECAT_COE_SEND) {
        write_mbx(m, q, MS_WRITE);
    } else if (rc == ECAT_COE_WAIT) {
        poll_mbx(m, q);
    } else if (rc == ECAT_COE_DONE) {
        finish(m, q, 0);
    } else if (q->out_len) {            /* the client aborts: tell the slave, then fail */
        q->err = rc;
        write_mbx(m, q, MS_ABORT_WRITE);
    } else {
        finish(m, q, rc);
    }
}

static void timeout(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    int rc = ecat_coe_xfer_timeout(&q->x, q->out, m->slaves[q->pos].info.mbx_out_len, &q->out_len);
    if (q->out_len && q->req.st != REQ_SENT) {
        q->err = rc;
        write_mbx(m, q, MS_ABORT_WRITE);
        q->deadline = q->t0 = INT64_MAX / 2;       /* the abort goes once */
        return;
    }
    finish(m, q, rc);
}

/* A slave that takes a request and stays silent may have judged it a repetition: ETG.1000.4
 * lets it drop a message with the counter and contents of the last one it served, and a
 * master that started anew (another process, after a restart) begins its counters where
 * an earlier one may have ended. Before anything came back, the transfer is started again,
 * which gives the request the next counter. */
#define ECAT_MBX_SILENCE_NS (200 * TAKT_NS_PER_MS)

static bool restart(struct ecat_core *m, struct ecat_sdo_slot *q)
{
    bool initial = q->x.state == COE_ST_UP_INIT || q->x.state == COE_ST_DOWN_INIT ||
                   (q->x.state == COE_ST_INFO && q->x.done == 0);
    if (!initial || q->x.done || q->restarts >= 3)
        return false;
    struct ecat_slave *s = &m->slaves[q->pos];
    struct ecat_coe_req r = q->x.req;          /* xfer_start clears x, which holds it */
    if (ecat_coe_xfer_start(&q->x, &r, &s->mbx, q->out, s->info.mbx_out_len, &q->out_len) !=
        ECAT_COE_SEND)
        return false;
    q->restarts++;
    return true;
}

static bool earlier_busy(const struct ecat_core *m, const struct ecat_sdo_slot *q)
{
    for (unsigned i = 0; i < ECAT_SDO_SLOTS; i++) {
        const struct ecat_sdo_slot *o = &m->sdo[i];
        if (o != q && o->st != MS_FREE && o->pos == q->pos && o->seq < q->seq)
            return true;
    }
    return false;
}

/* Between transfers the slaves' send mailboxes are polled (one slave at a time, each
 * every ECAT_EMCY_POLL_NS): what a slave sends by itself -- emergencies -- is reported
 * as an event and counted; anything else found there is stale and dropped. */
#define ECAT_EMCY_POLL_NS (50 * TAKT_NS_PER_MS)

bool ecat_coe_slave_busy(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; m->sdo && i < ECAT_SDO_SLOTS; i++)
        if (m->sdo[i].st != MS_FREE && m->sdo[i].st != MS_WAIT_TURN && m->sdo[i].pos == pos)
            return true;
    return false;
}

bool ecat_coe_slave_waiting(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; m->sdo && i < ECAT_SDO_SLOTS; i++)
        if (m->sdo[i].st == MS_WAIT_TURN && m->sdo[i].pos == pos)
            return true;
    return false;
}

/* The mailbox is taken by a CoE transfer, an FoE transfer (master_foe.c), an SoE
 * request (master_soe.c) or an EoE exchange (master_eoe.c). */
static bool slave_busy(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; i < ECAT_SDO_SLOTS; i++)
        if (m->sdo[i].st != MS_FREE && m->sdo[i].pos == pos)
            return true;
    return ecat_foe_slave_busy(m, pos) || ecat_soe_slave_busy(m, pos) || ecat_eoe_slave_busy(m, pos);
}

/* What the SII says: a CoE send mailbox that one datagram reads. These slaves are
 * the poll set (coe_poll_set); only their fields from the SII decide it. */
static bool mbx_pollable(const struct ecat_slave *s)
{
    return (s->info.mbx_protocols & MBX_PROTO_COE) && s->info.mbx_in_len &&
           s->info.mbx_in_len <= ECAT_MAX_DG_DATA;
}

/* And now: present, its machine idle, in a state with a mailbox (ETG.1000.6 mailbox
 * communication from PREOP on). Looked at in the walk, as this changes every report. */
static bool mbx_usable(const struct ecat_slave *s)
{
    uint8_t st = s->info.al_state & AL_STATE_MASK;
    return s->info.present && s->esm.f.state == SS_IDLE && (st == AL_PREOP || st == AL_SAFEOP || st == AL_OP);
}

void ecat_coe_poll_note(struct ecat_core *m, unsigned pos)
{
    if (!m->coe_poll_set || pos >= m->max_slaves)
        return;
    uint64_t bit = 1ull << (pos % 64), *w = &m->coe_poll_set[pos / 64];
    bool in = (*w & bit) != 0, want = mbx_pollable(&m->slaves[pos]);
    if (in == want)
        return;
    *w ^= bit;
    if (want)
        m->n_coe_poll++;
    else
        m->n_coe_poll--;
}

void ecat_coe_poll_clear(struct ecat_core *m)
{
    if (m->coe_poll_set)
        memset(m->coe_poll_set, 0, (m->max_slaves + 63) / 64 * sizeof *m->coe_poll_set);
    m->n_coe_poll = 0;
}

/* The first position from pos on, below end, in the poll set; end if none. */
static unsigned next_pollable(const uint64_t *set, unsigned pos, unsigned end)
{
    while (pos < end) {
        uint64_t w = set[pos / 64] >> (pos % 64);
        if (w) {
            pos += (unsigned)__builtin_ctzll(w);
            return pos < end ? pos : end;
        }
        pos = (pos / 64 + 1) * 64;
    }
    return end;
}

static void idle_poll(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_req *r = &m->idle_req;
    if (ecat_req_busy(r))
        return;
    if (r->st == REQ_DONE && m->idle_pos < m->n_slaves) {
        struct ecat_slave *s = &m->slaves[m->idle_pos];
        r->st = REQ_IDLE;
        if (r->wkc == 1 && r->ado == SM1_STATUS && (m->idle_buf[0] & MBX_FULL) &&
            !slave_busy(m, m->idle_pos)) {
            ecat_req_init(r, ECAT_FPRD, s->info.station, s->info.mbx_in_start, m->idle_buf,
                          s->info.mbx_in_len);
            ecat_req_queue(m, r);
            return;
        }
        if (r->wkc == 1 && r->ado == s->info.mbx_in_start) {
            struct ecat_coe_emcy e;
            if (ecat_coe_emcy_decode(m->idle_buf, r->len, &e) == 0) {
                m->st.emergencies++;
                ECAT_EV(m, TAKT_ECAT_EV_EMERGENCY_DATA, m->idle_pos, s->info.station, e.code, e.code, e.reg, ecat_ev_bytes5(e.data));
            }
        }
    }
    if (!m->n_coe_poll)
        return;                     /* no slave has a send mailbox to poll */
    /* every slave of the poll set once, from idle_next on, wrapping: [from, n), then
     * [0, from), the order of a walk over all slaves, which this runs every cycle */
    unsigned n = m->n_slaves, from = n && m->idle_next >= n ? m->idle_next % n : m->idle_next;
    for (unsigned lap = 0; lap < 2; lap++) {
        unsigned end = lap ? from : n;
        for (unsigned pos = next_pollable(m->coe_poll_set, lap ? 0 : from, end); pos < end;
             pos = next_pollable(m->coe_poll_set, pos + 1, end)) {
            struct ecat_slave *s = &m->slaves[pos];
            if (!mbx_usable(s) || slave_busy(m, pos) || ecat_eoe_slave_open(m, pos) ||
                !ecat_mbx_poll_due(&s->mbx, now, ECAT_EMCY_POLL_NS))
                continue;
            m->idle_pos = pos;
            m->idle_next = pos + 1;
            ecat_req_init(r, ECAT_FPRD, s->info.station, SM1_STATUS, m->idle_buf, 1);
            ecat_req_queue(m, r);
            return;
        }
    }
}

/* Master timer: advance every transfer whose datagram came back. */
void ecat_coe_poll(struct ecat_core *m, takt_ns_t now)
{
    if (!m->sdo)
        return;
    idle_poll(m, now);
    if (!m->sdo_used)
        return;                     /* every slot free: nothing to advance */
    for (unsigned i = 0; i < ECAT_SDO_SLOTS; i++) {
        struct ecat_sdo_slot *q = &m->sdo[i];
        if (q->st == MS_FREE || ecat_req_busy(&q->req))
            continue;
        if (q->st == MS_WAIT_TURN) {
            if (earlier_busy(m, q) || ecat_foe_slave_busy(m, q->pos) || ecat_soe_slave_busy(m, q->pos) ||
                ecat_eoe_slave_busy(m, q->pos))
                continue;
            q->t0 = now;
            q->deadline = now + m->o.sdo_timeout_ns;
            write_mbx(m, q, MS_WRITE);
            continue;
        }
        if (now > q->deadline) {
            timeout(m, q);
            continue;
        }
        int wkc = q->req.wkc;
        switch (q->st) {
        case MS_WRITE:
            if (wkc == 1) {
                q->written = now;
                poll_mbx(m, q);
            }
            else
                write_mbx(m, q, MS_WRITE);      /* mailbox still full or frame lost: again */
            break;
        case MS_ABORT_WRITE:
            if (wkc == 1 || now > q->deadline)
                finish(m, q, q->err);
            else
                write_mbx(m, q, MS_ABORT_WRITE);
            break;
        case MS_POLL:
            if (wkc == 1 && (q->in[0] & MBX_FULL))
                read_mbx(m, q);
            else if (now - q->written > ECAT_MBX_SILENCE_NS && restart(m, q))
                write_mbx(m, q, MS_WRITE);
            else
                poll_mbx(m, q);
            break;
        case MS_READ:
            if (wkc == 1 && ecat_eoe_offer(m, q->pos, q->in, m->slaves[q->pos].info.mbx_in_len))
                poll_mbx(m, q);                 /* an EoE fragment came first: ours follows */
            else if (wkc == 1)
                on_reply(m, q);
            else if (wkc < 0)
                repeat_req(m, q);               /* the reply went with the lost frame */
            else
                poll_mbx(m, q);
            break;
        case MS_REPEAT:
            if (wkc == 1)
                repeat_poll(m, q);
            else
                repeat_req(m, q);
            break;
        case MS_REPEAT_ACK:
            if (wkc == 1 && ecat_mbx_repeat_acked(&m->slaves[q->pos].mbx, q->in[0]))
                poll_mbx(m, q);
            else
                repeat_poll(m, q);
            break;
        }
    }
}

int ecat_sdo_queue(struct ecat_core *m, unsigned pos, const struct ecat_coe_req *r,
                   takt_ecat_done_fn fn, void *ctx)
{
    if (pos >= m->n_slaves)
        return -ENOENT;
    struct ecat_slave *s = &m->slaves[pos];
    if (!(s->info.mbx_protocols & MBX_PROTO_COE) || !s->info.mbx_out_len || !s->info.mbx_in_len) {
        ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_NO_COE, pos, RT_TXT(s->info.name), s->info.mbx_protocols,
                   s->info.mbx_out_len, s->info.mbx_in_len);
        return -TAKT_EMBOX;
    }
    if ((s->info.al_state & AL_STATE_MASK) < AL_PREOP || (s->info.al_state & AL_STATE_MASK) == AL_BOOT) {
        ECAT_FAILT(m, -EAGAIN, TAKT_ECAT_EV_MBX_STATE, pos, RT_TXT(s->info.name), s->info.al_state);
        return -EAGAIN;
    }
    if (s->info.mbx_out_len > ECAT_MAX_DG_DATA || s->info.mbx_in_len > ECAT_MAX_DG_DATA)
        return -EMSGSIZE;
    for (unsigned i = 0; i < ECAT_SDO_SLOTS; i++) {
        struct ecat_sdo_slot *q = &m->sdo[i];
        if (q->st != MS_FREE)
            continue;
        struct ecat_coe_req rq = *r;
        rq.pos = (uint16_t)pos;
        rq.mbx_out = s->info.mbx_out_len;
        rq.mbx_in = s->info.mbx_in_len;
        int rc = ecat_coe_xfer_start(&q->x, &rq, &s->mbx, q->out, s->info.mbx_out_len, &q->out_len);
        if (rc != ECAT_COE_SEND) {
            ECAT_FAILT(m, rc < 0 ? rc : -EINVAL, TAKT_ECAT_EV_SLAVE_TEXT, pos, RT_TXT(q->x.msg));
            return rc < 0 ? rc : -EINVAL;
        }
        ecat_req_init(&q->req, ECAT_NOP, 0, 0, NULL, 0);
        q->pos = pos;
        q->seq = m->sdo_seq++;
        q->fn = fn;
        q->ctx = ctx;
        q->err = 0;
        q->restarts = 0;
        q->st = MS_WAIT_TURN;
        m->sdo_used++;
        return 0;
    }
    return -EBUSY;
}

/* The core's own (the ENI's CoE init commands, in the cycle): queued at once. */
int ecat_sdo_upload_async(struct ecat_core *m, unsigned pos, uint16_t index, uint8_t sub,
                          bool ca, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    struct ecat_coe_req r = { .op = ECAT_COE_UPLOAD, .index = index, .subindex = sub,
                              .complete_access = ca, .data = buf, .cap = cap };
    return ecat_sdo_queue(m, pos, &r, fn, ctx);
}

int ecat_sdo_download_async(struct ecat_core *m, unsigned pos, uint16_t index, uint8_t sub,
                            bool ca, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx)
{
    struct ecat_coe_req r = { .op = ECAT_COE_DOWNLOAD, .index = index, .subindex = sub,
                              .complete_access = ca, .data = (uint8_t *)data, .len = len };
    return ecat_sdo_queue(m, pos, &r, fn, ctx);
}

/* Through the command ring (master_cmd.c): the request travels in the record; its data
 * buffer stays the caller's until the completion. */
static int sdo_submit(struct takt_ecat_master *drv, unsigned pos, const struct ecat_coe_req *r,
                      takt_ecat_done_fn fn, void *ctx)
{
    if (pos > UINT16_MAX)
        return -ENOENT;
    struct rt_cmd c = { .op = ECAT_CMD_SDO, .target = (uint16_t)pos, .done = fn, .ctx = ctx };
    return ecat_cmd_submit(drv, &c, r, sizeof *r);
}

int takt_ecat_sdo_upload_async(struct takt_ecat_master *drv, unsigned pos, uint16_t index, uint8_t sub,
                          bool ca, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    struct ecat_coe_req r = { .op = ECAT_COE_UPLOAD, .index = index, .subindex = sub,
                              .complete_access = ca, .data = buf, .cap = cap };
    return sdo_submit(drv, pos, &r, fn, ctx);
}

int takt_ecat_sdo_download_async(struct takt_ecat_master *drv, unsigned pos, uint16_t index, uint8_t sub,
                            bool ca, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx)
{
    struct ecat_coe_req r = { .op = ECAT_COE_DOWNLOAD, .index = index, .subindex = sub,
                              .complete_access = ca, .data = (uint8_t *)data, .len = len };
    return sdo_submit(drv, pos, &r, fn, ctx);
}

int takt_ecat_sdo_info_async(struct takt_ecat_master *drv, unsigned pos, enum takt_ecat_sdo_info_op op,
                        uint16_t index, uint8_t sub, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx)
{
    static const enum ecat_coe_op ops[] = { [TAKT_ECAT_SDO_INFO_ODLIST] = ECAT_COE_ODLIST,
        [TAKT_ECAT_SDO_INFO_OBJECT] = ECAT_COE_OBJDESC, [TAKT_ECAT_SDO_INFO_ENTRY] = ECAT_COE_ENTRYDESC };
    if ((unsigned)op >= TAKT_ARRAY_SIZE(ops))
        return -EINVAL;
    struct ecat_coe_req r = { .op = ops[op], .index = index, .subindex = sub, .data = buf,
                              .cap = cap, .list_type = 1, .value_info = 0 };
    return sdo_submit(drv, pos, &r, fn, ctx);
}

/* --- blocking wrappers (tools only; master_block.c waits) ---------------------------- */

struct sdo_args { unsigned pos; uint16_t index; uint8_t sub; bool ca; enum takt_ecat_sdo_info_op op; };

static void forget(struct ecat_core *m, const void *ctx)
{
    for (unsigned i = 0; i < ECAT_SDO_SLOTS; i++)
        if (m->sdo[i].ctx == ctx)
            m->sdo[i].fn = NULL;
}

static int upload_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                        void *ctx)
{
    const struct sdo_args *a = args;
    return takt_ecat_sdo_upload_async(drv, a->pos, a->index, a->sub, a->ca, buf, n, fn, ctx);
}

static int download_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n,
                          takt_ecat_done_fn fn, void *ctx)
{
    const struct sdo_args *a = args;
    return takt_ecat_sdo_download_async(drv, a->pos, a->index, a->sub, a->ca, buf, n, fn, ctx);
}

static int info_start(struct takt_ecat_master *drv, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                      void *ctx)
{
    const struct sdo_args *a = args;
    return takt_ecat_sdo_info_async(drv, a->pos, a->op, a->index, a->sub, buf, n, fn, ctx);
}

/* the transfer's own timeout, and a second for the cycle to report it */
static takt_ns_t limit(const struct takt_ecat_master *drv) { return drv->core.o.sdo_timeout_ns + TAKT_NS_PER_S; }

int takt_ecat_sdo_upload(struct takt_ecat_master *drv, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                    void *buf, size_t cap, size_t *len)
{
    struct sdo_args a = { .pos = pos, .index = index, .sub = sub, .ca = ca };
    return ecat_block_run(drv, &(struct ecat_block){ .start = upload_start, .args = &a, .buf = buf, .n = cap,
                                                     .len = len, .timeout_ns = limit(drv), .forget = forget });
}

int takt_ecat_sdo_download(struct takt_ecat_master *drv, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                      const void *data, size_t len)
{
    struct sdo_args a = { .pos = pos, .index = index, .sub = sub, .ca = ca };
    return ecat_block_run(drv, &(struct ecat_block){ .start = download_start, .args = &a, .buf = (void *)data,
                                                     .n = len, .write = true, .timeout_ns = limit(drv),
                                                     .forget = forget });
}

int takt_ecat_sdo_info(struct takt_ecat_master *drv, unsigned pos, enum takt_ecat_sdo_info_op op, uint16_t index,
                  uint8_t sub, void *buf, size_t cap, size_t *len)
{
    struct sdo_args a = { .pos = pos, .index = index, .sub = sub, .op = op };
    return ecat_block_run(drv, &(struct ecat_block){ .start = info_start, .args = &a, .buf = buf, .n = cap,
                                                     .len = len, .timeout_ns = limit(drv), .forget = forget });
}
