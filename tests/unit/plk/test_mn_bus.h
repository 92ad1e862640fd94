/* In-process POWERLINK segment for the MN/CN tests: one MN core and N CN cores on a
 * shared wire with deterministic time (an event queue; frames take a fixed time to
 * arrive; CNs answer after a fixed turnaround or at their launch time). */
#ifndef TEST_MN_BUS_H
#define TEST_MN_BUS_H

#include <stdlib.h>
#include <string.h>
#include "plk/mn.h"
#include "plk/cn.h"
#include "plk/frame.h"

#define BUS_MAX_CN  40
#define BUS_MAX_EV  512
#define BUS_WIRE_NS 3000      /* propagation + serialisation of a short frame */
#define BUS_TURN_NS 5000      /* CN turnaround PReq -> PRes */
#define BUS_LOG     20000

struct bus_ev {
    takt_ns_t t;
    int from;                 /* -1 MN, else CN index */
    uint16_t len;
    uint8_t data[TAKT_FRAME_BUF];
};

/* Every frame the MN sent, in order (type, dst/target, service), for sequence checks. */
struct bus_log {
    takt_ns_t t;
    uint8_t mtyp, dst, svid, target, nmt_cmd, state, src, flags1;
};

struct bus;
/* Scripted CN behaviour on top of takt's CNs: cn_hook may rewrite a frame CN `cn` is
 * about to send; mn_hook sees every MN frame as it leaves (and may bus_push answers). */
typedef void (*bus_cn_hook)(struct bus *b, unsigned cn, struct plk_txf *f);
typedef void (*bus_mn_hook)(struct bus *b, takt_ns_t at, const uint8_t *f, size_t len);

struct bus {
    bus_cn_hook cn_hook;
    bus_mn_hook mn_hook;
    void *hook_ctx;
    struct plk_mn mn;
    struct plk_cn *cn[BUS_MAX_CN];
    unsigned n_cn;
    struct bus_ev *ev;
    unsigned n_ev;
    takt_ns_t now, next_cycle;
    struct plk_txf txbuf[64];
    struct plk_txq q;
    struct bus_log *log;
    unsigned n_log;
    uint64_t pres_mn_seen, launched_pres;
};

static inline void bus_log_frame(struct bus *b, takt_ns_t t, const uint8_t *f, size_t len)
{
    struct plk_msg m;
    char err[80];
    if (b->n_log >= BUS_LOG || plk_frame_decode(f, len, &m, err, sizeof err) < 0)
        return;
    struct bus_log *l = &b->log[b->n_log++];
    memset(l, 0, sizeof *l);
    l->t = t;
    l->mtyp = m.mtyp;
    l->dst = m.dst;
    l->src = m.src;
    if (m.mtyp == PLK_MTYP_SOA) {
        l->svid = m.u.soa.svid;
        l->target = m.u.soa.target;
        l->state = m.u.soa.nmt_state;
    } else if (m.mtyp == PLK_MTYP_ASND) {
        l->svid = m.u.asnd.svid;
        if (m.u.asnd.svid == PLK_ASND_NMT_COMMAND)
            l->nmt_cmd = m.u.asnd.u.nmt_cmd.cmd;
    } else if (m.mtyp == PLK_MTYP_PRES) {
        l->state = m.u.pres.nmt_state;
    } else if (m.mtyp == PLK_MTYP_SOC) {
        l->flags1 = m.u.soc.flags1;
    } else if (m.mtyp == PLK_MTYP_PREQ) {
        l->flags1 = m.u.preq.flags1;
    }
}

static inline void bus_push(struct bus *b, takt_ns_t t, int from, const uint8_t *d, uint16_t len)
{
    if (b->n_ev >= BUS_MAX_EV)
        abort();
    unsigned i = b->n_ev++;
    while (i > 0 && b->ev[i - 1].t > t) {   /* keep sorted, stable for equal times */
        b->ev[i] = b->ev[i - 1];
        i--;
    }
    b->ev[i].t = t;
    b->ev[i].from = from;
    b->ev[i].len = len;
    memcpy(b->ev[i].data, d, len);
}

static inline void bus_flush(struct bus *b, int from, takt_ns_t now)
{
    takt_ns_t t = now;
    for (unsigned i = 0; i < b->q.n; i++) {
        struct plk_txf *f = &b->q.f[i];
        takt_ns_t at = from < 0 ? t : t + BUS_TURN_NS;
        if (f->launch) {
            at = f->launch;
            b->launched_pres++;
        }
        if (from >= 0 && b->cn_hook)
            b->cn_hook(b, (unsigned)from, f);
        if (from < 0) {
            bus_log_frame(b, at, f->data, f->len);
            if (f->data[PLK_OFF_MTYP] == PLK_MTYP_PRES)
                b->pres_mn_seen++;
        }
        bus_push(b, at + BUS_WIRE_NS, from, f->data, f->len);
        if (from < 0 && b->mn_hook)
            b->mn_hook(b, at, f->data, f->len);
        t += BUS_WIRE_NS / 3;   /* frames of one batch leave back to back */
    }
    b->q.n = 0;
}

static inline struct bus *bus_new(const struct plk_net_config *cfg, unsigned first, unsigned n_cn)
{
    struct bus *b = calloc(1, sizeof *b);
    b->ev = calloc(BUS_MAX_EV, sizeof *b->ev);
    b->log = calloc(BUS_LOG, sizeof *b->log);
    b->q.f = b->txbuf;
    b->q.cap = 64;
    const uint8_t mn_mac[6] = { 0x02, 0, 0, 0, 0, 0xF0 };
    char err[160];
    if (plk_mn_init(&b->mn, cfg, mn_mac, 0, err, sizeof err))
        abort();
    for (unsigned i = 0; i < n_cn; i++) {
        struct takt_plk_cn_cfg c;
        takt_plk_cn_cfg_default(&c, (uint8_t)(first + i));
        uint8_t mac[6] = { 0x02, 0, 0, 0, 1, (uint8_t)(first + i) };
        b->cn[i] = calloc(1, sizeof *b->cn[i]);
        if (plk_cn_init(b->cn[i], &c, mac, 0))
            abort();
    }
    b->n_cn = n_cn;
    b->next_cycle = 0;
    return b;
}

static inline void bus_free(struct bus *b)
{
    plk_mn_free(&b->mn);
    for (unsigned i = 0; i < b->n_cn; i++)
        free(b->cn[i]);
    free(b->ev);
    free(b->log);
    free(b);
}

static inline void bus_deliver(struct bus *b, struct bus_ev *e)
{
    if (e->from >= 0) {   /* a CN frame reaches the MN and the other CNs */
        plk_mn_rx(&b->mn, e->t, e->data, e->len, &b->q);
        bus_flush(b, -1, e->t);
    }
    for (unsigned i = 0; i < b->n_cn; i++) {
        if ((int)i == e->from)
            continue;
        plk_cn_rx(b->cn[i], e->t, e->data, e->len, &b->q);
        bus_flush(b, (int)i, e->t);
    }
}

/* Advance simulated time to t_end, handling cycles, frames and timers in order. */
static inline void bus_run(struct bus *b, takt_ns_t t_end)
{
    for (;;) {
        takt_ns_t t = b->next_cycle;
        int what = 0;   /* 0 cycle, 1 event, 2 MN timer, 3+i CN timer */
        if (b->n_ev && b->ev[0].t < t) { t = b->ev[0].t; what = 1; }
        takt_ns_t d = plk_mn_deadline(&b->mn);
        if (d < t) { t = d; what = 2; }
        for (unsigned i = 0; i < b->n_cn; i++) {
            takt_ns_t c = plk_cn_deadline(b->cn[i]);
            if (c < t) { t = c; what = 3 + (int)i; }
        }
        if (t > t_end) {
            b->now = t_end;
            return;
        }
        b->now = t;
        if (what == 0) {
            plk_mn_cycle(&b->mn, t, &b->q);
            bus_flush(b, -1, t);
            b->next_cycle = t + b->mn.cycle_ns;
        } else if (what == 1) {
            struct bus_ev e = b->ev[0];
            memmove(b->ev, b->ev + 1, (b->n_ev - 1) * sizeof *b->ev);
            b->n_ev--;
            bus_deliver(b, &e);
        } else if (what == 2) {
            plk_mn_tick(&b->mn, t, &b->q);
            bus_flush(b, -1, t);
        } else {
            plk_cn_tick(b->cn[what - 3], t, &b->q);
            bus_flush(b, what - 3, t);
        }
    }
}

/* Run until every configured node is Operational (and the MN too) or t_max. */
static inline bool bus_run_until_op(struct bus *b, takt_ns_t t_max)
{
    while (b->now < t_max) {
        bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
        if (b->mn.state == PLK_NMT_OPERATIONAL && b->mn.st.nodes_operational == b->mn.n_ids)
            return true;
    }
    return false;
}

/* A test configuration: cycle_us, nodes first..first+n-1, short boot waits. Built by
 * hand (openPOWERLINK's defaults) so these tests depend only on the cores. */
static inline void bus_cfg(struct plk_net_config *c, uint32_t cycle_us, unsigned first, unsigned n)
{
    memset(c, 0, sizeof *c);
    c->cycle_us = cycle_us;
    c->mn_node_id = PLK_NODE_MN;
    c->startup = PLK_SU_MN_DEFAULT;
    c->async_mtu = PLK_ASYNC_MTU_MIN;
    c->prescaler = 2;
    c->async_slot_timeout_ns = PLK_DEF_ASYNC_SLOT_TIMEOUT_NS;
    c->cycle_exceed_threshold = PLK_DEF_ERR_THRESHOLD;
    c->loss_soc_tolerance_ns = PLK_DEF_LOSS_SOC_TOLERANCE_NS;
    c->boot_time_us[PLK_BT_MN_WAIT_NOT_ACT] = 20000;
    c->boot_time_us[PLK_BT_MN_TIMEOUT_PREOP1] = 500000;
    c->boot_time_us[PLK_BT_MN_WAIT_PREOP1] = 500000;
    c->boot_time_us[PLK_BT_MN_TIMEOUT_PREOP2] = 5000000;
    c->boot_time_us[PLK_BT_MN_TIMEOUT_READY_TO_OP] = 500000;
    for (unsigned i = 0; i < n; i++) {
        struct plk_cfg_node *d = &c->node[first + i];
        d->present = true;
        d->node_id = (uint8_t)(first + i);
        d->assignment = PLK_NA_EXISTS | PLK_NA_IS_CN | PLK_NA_START_CN | PLK_NA_VALID;
        d->preq_payload = d->pres_payload = PLK_PAYLOAD_LIMIT_MIN;
        d->pres_timeout_ns = 50000;   /* BUS_TURN + 2 * BUS_WIRE fits */
        d->loss_pres_threshold = PLK_DEF_ERR_THRESHOLD;
        d->cn_loss_soc_threshold = d->cn_loss_preq_threshold = PLK_DEF_ERR_THRESHOLD;
        c->n_nodes++;
    }
}

#endif
