/* Mailbox transport for EoE (ETG.1000.6, Ethernet over EtherCAT): per opened slave a
 * port with two single-producer single-consumer rings of whole Ethernet frames between
 * the host side (takt_ecat_eoe_send/recv, a non-RT thread) and the cycle, a fragmenter and a
 * reassembler, and a small machine advanced by the master timer. Each cycle a port
 * makes at most one mailbox exchange (one datagram: a fragment written, or the read
 * mailbox read). When an exchange ends and a CoE, FoE or SoE request waits for its turn,
 * the next exchange starts only in the next master timer call, after those (polled
 * before EoE) had the free mailbox; otherwise at once. When such a transfer held the
 * mailbox, EoE has the next turn before another starts. So neither side starves: CoE transfers and EoE
 * exchanges alternate on a busy mailbox. The read mailbox is read directly: an empty one is not read and
 * not counted (ETG.1000.4 SyncManager), so no status poll is needed. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/coe.h"
#include "ecat/eoe.h"
#include "ecat/master_internal.h"
#include "ecat/driver.h"

#define SM1_ACT    (ESC_SM0 + ESC_SM_SIZE + 6)     /* 0x080E, bit 1 repeat request */
#define SM1_PDI    (ESC_SM0 + ESC_SM_SIZE + 7)     /* 0x080F, bit 1 repeat acknowledge */
#define EOE_RING   32                              /* frames per direction */

enum { EP_IDLE, EP_WRITE, EP_READ, EP_REPEAT, EP_REPEAT_ACK };

struct eoe_frame { uint16_t len; uint8_t data[ECAT_EOE_FRAME_MAX]; };
/* One producer, one consumer: head written by the consumer only, tail by the producer. */
struct eoe_ring { atomic_uint head, tail; struct eoe_frame f[EOE_RING]; };

struct ecat_eoe_port {
    unsigned  pos;
    struct eoe_ring to_slave, to_host;
    uint8_t   st;
    bool      waiting;         /* passed over for another protocol: the next turn is ours */
    bool      turn_rx;         /* alternate writing and reading when both are due */
    struct ecat_eoe_tx tx;
    uint8_t   frame_no;
    struct ecat_eoe_rx rx;
    struct ecat_req req;
    uint8_t   out[ECAT_MAX_DG_DATA], in[ECAT_MAX_DG_DATA];
    size_t    msg_len;
    uint16_t  out_start, out_len, in_start, in_len;
    takt_ns_t deadline;
    /* a service (set IP parameter, set address filter) waiting for its response */
    uint8_t   svc;             /* request type, 0 none */
    bool      svc_sent;
    uint8_t   svc_msg[MBX_HDR + EOE_HDR + EOE_FILTER_BODY];
    size_t    svc_len;
    takt_ecat_done_fn fn;
    void     *ctx;
    /* the last IP parameters the slave took: a slave that lost them (power cycle, back
     * through INIT) gets them again when it is back in PREOP */
    uint8_t   ip_msg[MBX_HDR + EOE_HDR + EOE_IP_BODY];
    size_t    ip_len;
    bool      ip_lost;
    atomic_uint_fast64_t a_tx_frames, a_rx_frames, a_tx_frags, a_rx_frags, a_host_drops,
                         a_rx_dropped;
};

static bool ring_put(struct eoe_ring *r, const void *p, size_t n)
{
    unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    unsigned h = atomic_load_explicit(&r->head, memory_order_acquire);
    if (t - h >= EOE_RING || n > ECAT_EOE_FRAME_MAX)
        return false;
    struct eoe_frame *f = &r->f[t % EOE_RING];
    memcpy(f->data, p, n);
    f->len = (uint16_t)n;
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return true;
}

static struct eoe_frame *ring_peek(struct eoe_ring *r)
{
    unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
    unsigned t = atomic_load_explicit(&r->tail, memory_order_acquire);
    return h == t ? NULL : &r->f[h % EOE_RING];
}

static void ring_pop(struct eoe_ring *r)
{
    unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

static void count(atomic_uint_fast64_t *c) { atomic_fetch_add_explicit(c, 1, memory_order_relaxed); }

void ecat_eoe_free(struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_eoe; i++)
        free(m->eoe[i]);
    free(m->eoe);
    m->eoe = NULL;
    m->n_eoe = 0;
}

static struct ecat_eoe_port *port_of(const struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; i < m->n_eoe; i++)
        if (m->eoe[i]->pos == pos)
            return m->eoe[i];
    return NULL;
}

bool ecat_eoe_slave_open(const struct ecat_core *m, unsigned pos) { return port_of(m, pos) != NULL; }

bool ecat_eoe_slave_busy(const struct ecat_core *m, unsigned pos)
{
    const struct ecat_eoe_port *p = port_of(m, pos);
    return p && (p->st != EP_IDLE || p->waiting);
}

static bool may_start(const struct ecat_core *m, unsigned pos)
{
    if (ecat_coe_slave_busy(m, pos) || ecat_foe_slave_busy(m, pos) || ecat_soe_slave_busy(m, pos))
        return false;
    return !(m->idle_pos == pos && (ecat_req_busy(&m->idle_req) || m->idle_req.st == REQ_DONE));
}

static void queue(struct ecat_core *m, struct ecat_eoe_port *p, uint8_t cmd, uint16_t ado,
                  uint8_t *data, uint16_t len, uint8_t st)
{
    ecat_req_init(&p->req, cmd, m->slaves[p->pos].info.station, ado, data, len);
    ecat_req_queue(m, &p->req);
    p->st = st;
}

static void write_mbx(struct ecat_core *m, struct ecat_eoe_port *p)
{
    /* the whole mailbox: writing its last byte hands it over (ETG.1000.4 SyncManager) */
    memset(p->out + p->msg_len, 0, p->out_len - p->msg_len);
    queue(m, p, ECAT_FPWR, p->out_start, p->out, p->out_len, EP_WRITE);
}

static void read_mbx(struct ecat_core *m, struct ecat_eoe_port *p)
{ queue(m, p, ECAT_FPRD, p->in_start, p->in, p->in_len, EP_READ); }

static void repeat_req(struct ecat_core *m, struct ecat_eoe_port *p)
{
    struct ecat_slave *s = &m->slaves[p->pos];
    p->in[0] = ecat_mbx_repeat_req(&s->mbx);
    queue(m, p, ECAT_FPWR, SM1_ACT, p->in, 1, EP_REPEAT);
}

static void svc_done(struct ecat_core *m, struct ecat_eoe_port *p, int err)
{
    if (p->svc == EOE_T_SET_IP_REQ && !err && p->svc_len <= sizeof p->ip_msg) {
        memcpy(p->ip_msg, p->svc_msg, p->svc_len);
        p->ip_len = p->svc_len;
        p->ip_lost = false;
    }
    if (p->svc == EOE_T_SET_IP_REQ && !p->fn)
        ECAT_EVT(m, err ? TAKT_ECAT_EV_EOE_AGAIN_FAILED : TAKT_ECAT_EV_EOE_AGAIN, p->pos, RT_TXT(err ? m->errmsg : ""));
    p->svc = 0;
    p->svc_sent = false;
    if (p->fn)
        p->fn(p->ctx, err, NULL, 0);
}

/* A slave back in PREOP or above after INIT (or gone) lost its IP parameters: the
 * last ones it took go out again, once, before other EoE traffic. */
static void ip_again(struct ecat_core *m, struct ecat_eoe_port *p, uint8_t al)
{
    struct ecat_slave *s = &m->slaves[p->pos];
    if (!p->ip_len)
        return;
    if (!s->info.present || al == AL_INIT || al == AL_BOOT) {
        /* its mailbox counter restarts too (mbx.h): the answer to the same request
         * with the same counter is new, not a repetition */
        p->ip_lost = true;
        s->mbx.rx = 0;
        s->mbx.rx_hash = 0;
        return;
    }
    if (!p->ip_lost || p->svc || s->esm.f.state != SS_IDLE || (al != AL_PREOP && al != AL_SAFEOP && al != AL_OP))
        return;
    p->ip_lost = false;
    memcpy(p->svc_msg, p->ip_msg, p->ip_len);
    p->svc_len = p->ip_len;
    p->svc = EOE_T_SET_IP_REQ;
    p->svc_sent = false;
    p->fn = NULL;
    p->ctx = NULL;
}

/* One message from the slave's read mailbox. */
static void on_msg(struct ecat_core *m, struct ecat_eoe_port *p, const uint8_t *b, size_t n)
{
    struct ecat_eoe_msg e;
    struct ecat_coe_emcy em;
    if (ecat_mbx_rx_dup_msg(&m->slaves[p->pos].mbx, b, n))
        return;                           /* a repetition */
    if (ecat_coe_emcy_decode(b, n, &em) == 0) {
        /* the emergency poll leaves this slave to the port: its emergencies come here */
        m->st.emergencies++;
        ECAT_EV(m, TAKT_ECAT_EV_EMERGENCY_DATA, p->pos, m->slaves[p->pos].info.station, em.code, em.code, em.reg, ecat_ev_bytes5(em.data));
        return;
    }
    if (ecat_eoe_decode(b, n, &e) < 0)
        return;                           /* not EoE, and nobody asked */
    if (e.type == EOE_T_FRAG) {
        count(&p->a_rx_frags);
        int rc = ecat_eoe_rx_put(&p->rx, &e);
        atomic_store_explicit(&p->a_rx_dropped, p->rx.st.dropped, memory_order_relaxed);
        if (rc == ECAT_EOE_RX_FRAME) {
            if (ring_put(&p->to_host, p->rx.buf, p->rx.len))
                count(&p->a_rx_frames);
            else
                count(&p->a_host_drops);  /* the host side is behind: Ethernet drops */
        }
        return;
    }
    if (p->svc && p->svc_sent && e.type == p->svc + 1) {
        uint16_t res = e.info2;           /* the result code takes the second word */
        if (res) {
            ECAT_FAIL(m, -TAKT_EMBOX, TAKT_ECAT_EV_EOE_ANSWER, p->pos, p->svc, res, res);
            svc_done(m, p, -TAKT_EMBOX);
        } else {
            svc_done(m, p, 0);
        }
    }
}

bool ecat_eoe_offer(struct ecat_core *m, unsigned pos, const uint8_t *msg, size_t len)
{
    struct ecat_eoe_port *p = port_of(m, pos);
    if (!p || len < MBX_HDR || (msg[MBX_OFF_TYPECNT] & 0x0F) != MBX_TYPE_EOE)
        return false;
    on_msg(m, p, msg, len);
    return true;
}

static void end_exchange(struct ecat_eoe_port *p)
{
    p->st = EP_IDLE;               /* the next one in the next timer call, after the others */
}

static void start(struct ecat_core *m, struct ecat_eoe_port *p, takt_ns_t now)
{
    struct ecat_slave *s = &m->slaves[p->pos];
    p->deadline = now + m->o.sdo_timeout_ns;
    if (p->svc && !p->svc_sent) {
        memcpy(p->out, p->svc_msg, p->svc_len);
        p->out[MBX_OFF_TYPECNT] = (uint8_t)(MBX_TYPE_EOE | ecat_mbx_next_cnt(&s->mbx) << 4);
        p->msg_len = p->svc_len;
        p->svc_sent = true;
        write_mbx(m, p);
        return;
    }
    bool can_tx = p->tx.active || ring_peek(&p->to_slave);
    if (can_tx && (!p->turn_rx || p->svc)) {
        if (!p->tx.active) {
            struct eoe_frame *f = ring_peek(&p->to_slave);
            p->frame_no = (uint8_t)((p->frame_no + 1) & 0x0F);
            if (ecat_eoe_tx_start(&p->tx, f->data, f->len, p->frame_no, 0)) {
                ring_pop(&p->to_slave);   /* not a frame: takt_ecat_eoe_send checked it */
                return;
            }
        }
        p->msg_len = ecat_eoe_tx_next(&p->tx, ecat_mbx_next_cnt(&s->mbx), p->out, p->out_len);
        if (!p->tx.active)
            ring_pop(&p->to_slave);       /* its last fragment is in out: the slot is free */
        if (p->msg_len) {
            count(&p->a_tx_frags);
            if (!p->tx.active)
                count(&p->a_tx_frames);
            p->turn_rx = true;
            write_mbx(m, p);
        }
        return;
    }
    p->turn_rx = false;
    read_mbx(m, p);
}

static void step(struct ecat_core *m, struct ecat_eoe_port *p)
{
    int wkc = p->req.wkc;
    switch (p->st) {
    case EP_WRITE:
        if (wkc == 1)
            end_exchange(p);
        else
            write_mbx(m, p);              /* mailbox still full or frame lost: again */
        break;
    case EP_READ:
        if (wkc < 0) {
            repeat_req(m, p);             /* the frame with the message was lost */
        } else {
            if (wkc == 1)
                on_msg(m, p, p->in, p->in_len);
            end_exchange(p);
        }
        break;
    case EP_REPEAT:
        if (wkc == 1)
            queue(m, p, ECAT_FPRD, SM1_PDI, p->in, 1, EP_REPEAT_ACK);
        else
            repeat_req(m, p);
        break;
    case EP_REPEAT_ACK:
        if (wkc == 1 && ecat_mbx_repeat_acked(&m->slaves[p->pos].mbx, p->in[0]))
            read_mbx(m, p);
        else
            queue(m, p, ECAT_FPRD, SM1_PDI, p->in, 1, EP_REPEAT_ACK);
        break;
    }
}

void ecat_eoe_poll(struct ecat_core *m, takt_ns_t now)
{
    for (unsigned i = 0; i < m->n_eoe; i++) {
        struct ecat_eoe_port *p = m->eoe[i];
        struct ecat_slave *s = &m->slaves[p->pos];
        uint8_t al = s->info.al_state & AL_STATE_MASK;
        if (ecat_req_busy(&p->req))
            continue;
        if (p->st == EP_IDLE)
            ip_again(m, p, al);
        if (p->st != EP_IDLE) {
            if (now > p->deadline) {
                ECAT_EV(m, TAKT_ECAT_EV_EOE_TIMEOUT_GIVEN_UP, p->pos, m->o.sdo_timeout_ns / TAKT_NS_PER_MS);
                p->st = EP_IDLE;
                p->tx.active = false;
                ecat_eoe_rx_reset(&p->rx);
                if (p->svc)
                    svc_done(m, p, -ETIMEDOUT);
                continue;
            }
            step(m, p);
            if (p->st != EP_IDLE || ecat_coe_slave_waiting(m, p->pos) ||
                ecat_foe_slave_waiting(m, p->pos) || ecat_soe_slave_waiting(m, p->pos))
                continue;                  /* (others first: they are polled before EoE) */
        }
        /* a slave on its way between states is left alone, but for a service its ENI
         * start-up asked for (EoE init commands run while the slave is in SS_ENI) */
        bool eni_svc = p->svc && s->esm.f.state == SS_ENI;
        if (!s->info.present || (s->esm.f.state != SS_IDLE && !eni_svc) ||
            (al != AL_PREOP && al != AL_SAFEOP && al != AL_OP)) {
            p->waiting = false;
            continue;
        }
        /* another protocol's transfer holds the mailbox: it ends, then EoE has one turn
         * before the next one starts (they wait while ecat_eoe_slave_busy says so) */
        if (!may_start(m, p->pos)) {
            p->waiting = true;
            continue;
        }
        p->waiting = false;
        start(m, p, now);
    }
}

/* --- opening a port, services -------------------------------------------------------- */

int ecat_eoe_open(struct ecat_core *m, unsigned pos)
{
    if (pos >= m->n_slaves) {
        ECAT_FAIL(m, -ENOENT, TAKT_ECAT_EV_NO_SLAVE, -1, 1, pos, m->n_slaves);
        return -ENOENT;
    }
    if (port_of(m, pos))
        return 0;
    if (m->threaded) {
        ECAT_FAIL(m, -EBUSY, TAKT_ECAT_EV_EOE_BEFORE_START, pos);
        return -EBUSY;
    }
    struct ecat_slave *s = &m->slaves[pos];
    if (!(s->info.mbx_protocols & MBX_PROTO_EOE)) {
        ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_NO_EOE, pos, RT_TXT(s->info.name), s->info.mbx_protocols);
        return -TAKT_EMBOX;
    }
    unsigned out = s->info.mbx_out_len, in = s->info.mbx_in_len;
    if (out < MBX_HDR + EOE_HDR + EOE_UNIT || in < MBX_HDR + EOE_HDR + EOE_UNIT ||
        out < MBX_HDR + EOE_HDR + EOE_IP_BODY || out > ECAT_MAX_DG_DATA || in > ECAT_MAX_DG_DATA) {
        ECAT_FAILT(m, -TAKT_EMBOX, TAKT_ECAT_EV_EOE_MBX_SIZE, pos, RT_TXT(s->info.name), out, in,
                   MBX_HDR + EOE_HDR + EOE_IP_BODY, ECAT_MAX_DG_DATA);
        return -TAKT_EMBOX;
    }
    struct ecat_eoe_port **v = realloc(m->eoe, (m->n_eoe + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    m->eoe = v;
    struct ecat_eoe_port *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->pos = pos;
    p->out_start = s->info.mbx_out_start, p->out_len = (uint16_t)out;
    p->in_start = s->info.mbx_in_start, p->in_len = (uint16_t)in;
    ecat_req_init(&p->req, ECAT_NOP, 0, 0, NULL, 0);
    m->eoe[m->n_eoe++] = p;
    return 0;
}

int takt_ecat_eoe_open(struct takt_ecat_master *drv, unsigned pos)
{
    struct ecat_core *m = &drv->core;
    if (!ecat_cmd_here(drv) && ecat_rt_on(drv)) {
        if (pos <= UINT16_MAX && port_of(m, pos))
            return 0;           /* ports change only while no RT thread runs: readable */
        /* the refusal is the cycle's to report (its event ring has one producer) */
        struct rt_cmd c = { .op = ECAT_CMD_EOE_OPEN, .target = (uint16_t)pos };
        rt_cmdring_post(&drv->cmd, &c, NULL, 0);
        return -EBUSY;
    }
    return ecat_eoe_open(m, pos);
}

int ecat_eoe_svc_queue(struct ecat_core *m, unsigned pos, uint8_t type, const uint8_t *body,
                       size_t len, takt_ecat_done_fn fn, void *ctx)
{
    int rc = ecat_eoe_open(m, pos);
    if (rc)
        return rc;
    struct ecat_eoe_port *p = port_of(m, pos);
    if (p->svc)
        return -EBUSY;
    p->svc_len = ecat_eoe_encode(p->svc_msg, sizeof p->svc_msg, 0,
                                 ecat_eoe_info1(type, 0, EOE_F_LAST), 0, body, len);
    p->svc = type;
    p->svc_sent = false;
    p->fn = fn;
    p->ctx = ctx;
    return 0;
}

/* The core's own (the ENI's EoE init commands, in the cycle): queued at once. */
int ecat_eoe_set_ip_async(struct ecat_core *m, unsigned pos, const struct takt_ecat_eoe_ip *ip,
                          takt_ecat_done_fn fn, void *ctx)
{
    uint8_t b[EOE_IP_BODY];
    ecat_eoe_ip_encode(b, ip);
    return ecat_eoe_svc_queue(m, pos, EOE_T_SET_IP_REQ, b, sizeof b, fn, ctx);
}

int ecat_eoe_set_filter_async(struct ecat_core *m, unsigned pos,
                              const struct takt_ecat_eoe_filter *f, takt_ecat_done_fn fn, void *ctx)
{
    uint8_t b[EOE_FILTER_BODY];
    ecat_eoe_filter_encode(b, f);
    return ecat_eoe_svc_queue(m, pos, EOE_T_SET_FILTER_REQ, b, sizeof b, fn, ctx);
}

/* Through the command ring (master_cmd.c): the encoded body travels in the record. */
static int svc_submit(struct takt_ecat_master *m, unsigned pos, uint8_t type, const uint8_t *body,
                      size_t len, takt_ecat_done_fn fn, void *ctx)
{
    if (pos > UINT16_MAX)
        return -ENOENT;
    struct rt_cmd c = { .op = ECAT_CMD_EOE_SVC, .target = (uint16_t)pos, .arg = { type },
                        .done = fn, .ctx = ctx };
    return ecat_cmd_submit(m, &c, body, len);
}

int takt_ecat_eoe_set_ip_async(struct takt_ecat_master *drv, unsigned pos, const struct takt_ecat_eoe_ip *ip,
                          takt_ecat_done_fn fn, void *ctx)
{
    uint8_t b[EOE_IP_BODY];
    ecat_eoe_ip_encode(b, ip);
    return svc_submit(drv, pos, EOE_T_SET_IP_REQ, b, sizeof b, fn, ctx);
}

int takt_ecat_eoe_set_filter_async(struct takt_ecat_master *drv, unsigned pos,
                              const struct takt_ecat_eoe_filter *f, takt_ecat_done_fn fn, void *ctx)
{
    uint8_t b[EOE_FILTER_BODY];
    ecat_eoe_filter_encode(b, f);
    return svc_submit(drv, pos, EOE_T_SET_FILTER_REQ, b, sizeof b, fn, ctx);
}

static int wait_for(struct takt_ecat_master *drv, unsigned pos, struct ecat_wait *w)
{
    struct ecat_core *m = &drv->core;
    int rc = ecat_wait_drive(drv, w, 2 * m->o.sdo_timeout_ns + TAKT_NS_PER_S);
    struct ecat_eoe_port *p = port_of(m, pos);
    if (rc && p && p->ctx == w)
        p->fn = NULL;                     /* no call back into this stack frame */
    if (!rc && w->err == -ETIMEDOUT)
        ECAT_FAIL(m, -ETIMEDOUT, TAKT_ECAT_EV_EOE_TIMEOUT, pos, m->o.sdo_timeout_ns / TAKT_NS_PER_MS);
    return rc ? rc : w->err;
}

/* From another thread while the RT thread runs: post, sleep until the completion. */
static int rt_wait(struct takt_ecat_master *m, unsigned pos, uint8_t type, const struct takt_ecat_eoe_ip *ip,
                   const struct takt_ecat_eoe_filter *f)
{
    uint8_t b[EOE_IP_BODY > EOE_FILTER_BODY ? EOE_IP_BODY : EOE_FILTER_BODY];
    size_t n = ip ? EOE_IP_BODY : EOE_FILTER_BODY;
    if (ip)
        ecat_eoe_ip_encode(b, ip);
    else
        ecat_eoe_filter_encode(b, f);
    struct rt_waiter *w = rt_waiter_new(0);
    if (!w)
        return -ENOMEM;
    int rc = ecat_cmd_wait(m, w, svc_submit(m, pos, type, b, n, rt_waiter_done, w),
                           2 * m->core.o.sdo_timeout_ns + TAKT_NS_PER_S);
    rt_waiter_put(w);
    return rc;
}

int takt_ecat_eoe_set_ip(struct takt_ecat_master *drv, unsigned pos, const struct takt_ecat_eoe_ip *ip)
{
    int mode = ecat_cmd_blocking(drv);
    if (mode)
        return mode < 0 ? mode : rt_wait(drv, pos, EOE_T_SET_IP_REQ, ip, NULL);
    struct ecat_wait w = { 0 };
    int rc = takt_ecat_eoe_set_ip_async(drv, pos, ip, ecat_wait_done, &w);
    return rc ? rc : wait_for(drv, pos, &w);
}

int takt_ecat_eoe_set_filter(struct takt_ecat_master *drv, unsigned pos, const struct takt_ecat_eoe_filter *f)
{
    int mode = ecat_cmd_blocking(drv);
    if (mode)
        return mode < 0 ? mode : rt_wait(drv, pos, EOE_T_SET_FILTER_REQ, NULL, f);
    struct ecat_wait w = { 0 };
    int rc = takt_ecat_eoe_set_filter_async(drv, pos, f, ecat_wait_done, &w);
    return rc ? rc : wait_for(drv, pos, &w);
}

/* --- the host side ------------------------------------------------------------------- */

int takt_ecat_eoe_send(struct takt_ecat_master *drv, unsigned pos, const void *frame, size_t len)
{
    struct ecat_core *m = &drv->core;
    struct ecat_eoe_port *p = port_of(m, pos);
    if (!p)
        return -ENOENT;
    if (len < 14 || len > ECAT_EOE_FRAME_MAX)
        return -EMSGSIZE;
    if (!ring_put(&p->to_slave, frame, len)) {
        count(&p->a_host_drops);
        return -EAGAIN;
    }
    return 0;
}

int takt_ecat_eoe_recv(struct takt_ecat_master *drv, unsigned pos, void *buf, size_t cap)
{
    struct ecat_core *m = &drv->core;
    struct ecat_eoe_port *p = port_of(m, pos);
    if (!p)
        return -ENOENT;
    struct eoe_frame *f = ring_peek(&p->to_host);
    if (!f)
        return 0;
    size_t n = f->len <= cap ? f->len : cap;
    memcpy(buf, f->data, n);
    ring_pop(&p->to_host);
    return (int)n;
}

int takt_ecat_eoe_get_stats(const struct takt_ecat_master *drv, unsigned pos, struct takt_ecat_eoe_stats *out)
{
    const struct ecat_core *m = &drv->core;
    struct ecat_eoe_port *p = port_of(m, pos);
    if (!p)
        return -ENOENT;
    out->tx_frames = atomic_load_explicit(&p->a_tx_frames, memory_order_relaxed);
    out->rx_frames = atomic_load_explicit(&p->a_rx_frames, memory_order_relaxed);
    out->tx_frags = atomic_load_explicit(&p->a_tx_frags, memory_order_relaxed);
    out->rx_frags = atomic_load_explicit(&p->a_rx_frags, memory_order_relaxed);
    out->host_drops = atomic_load_explicit(&p->a_host_drops, memory_order_relaxed);
    out->rx_dropped = atomic_load_explicit(&p->a_rx_dropped, memory_order_relaxed);
    return 0;
}

unsigned takt_ecat_eoe_ports(const struct takt_ecat_master *drv, unsigned *pos, unsigned max)
{
    const struct ecat_core *m = &drv->core;
    unsigned n = 0;
    for (unsigned i = 0; i < m->n_eoe && n < max; i++)
        pos[n++] = m->eoe[i]->pos;
    return m->n_eoe;
}
