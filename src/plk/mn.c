/* MN isochronous cycle: SoC, PReq/PRes for each polled CN in order, PResMN and the
 * time-triggered PRes of chained CNs, SoA; PRes timeouts, loss counters, cycle time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plk/mn.h"
#include "plk/frame.h"
#include "util/wire.h"

static void msg_init(struct plk_mn *mn, struct plk_msg *m, uint8_t mtyp, uint8_t dst)
{
    memset(m, 0, sizeof *m);
    memcpy(m->src_mac, mn->mac, 6);
    m->mtyp = mtyp;
    m->dst = dst;
    m->src = PLK_NODE_MN;
}

static void tx(struct plk_mn *mn, struct plk_txq *q, const struct plk_msg *m)
{
    if (plk_txq_encode(q, m))
        mn->st.frames_tx++;
}

static void send_soc(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    struct plk_msg m;
    msg_init(mn, &m, PLK_MTYP_SOC, PLK_NODE_BROADCAST);
    m.u.soc.flags1 = mn->soc_flags1;
    /* NetTime from the monotonic cycle start; RelativeTime in µs since boot (EPSG DS 301 frame formats) */
    m.u.soc.nettime_s = (uint32_t)(now / TAKT_NS_PER_S);
    m.u.soc.nettime_ns = (uint32_t)(now % TAKT_NS_PER_S);
    m.u.soc.relative_time = (uint64_t)(mn->st.cycles * (uint64_t)mn->cfg.cycle_us);
    tx(mn, q, &m);
    /* the last SoA's async slot ends here (its answer must be stamped before) */
    plk_mn_invite(mn, 0, 0);
}

static takt_ns_t pres_timeout(const struct plk_mn *mn, const struct plk_mn_node *n)
{
    uint32_t t = n->cfg->pres_timeout_ns ? n->cfg->pres_timeout_ns : PLK_DEF_PRES_TIMEOUT_NS;
    (void)mn;
    return t;
}

static void send_preq(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now, struct plk_txq *q)
{
    struct plk_msg m;
    msg_init(mn, &m, PLK_MTYP_PREQ, n->id);
    memcpy(m.dst_mac, n->mac, 6);
    /* RD only in MS_OPERATIONAL: the outputs are valid (EPSG DS 301 frame formats) */
    m.u.preq.flags1 = mn->state == PLK_NMT_OPERATIONAL ? PLK_F1_RD : 0;
    /* MS: the CN is served in a multiplexed slot (DS 301 4.6.1.1.3) */
    if (n->cfg->multiplexed)
        m.u.preq.flags1 |= PLK_F1_MS;
    m.u.preq.size = n->step >= MNS_WAIT_READY ? n->out_size : 0;
    m.u.preq.payload = n->out;
    m.u.preq.payload_limit = n->cfg->preq_payload;
    tx(mn, q, &m);
    n->polled = true;
    /* until the driver says when it really left (plk_mn_sent) */
    n->preq_sent = now;
    mn->deadline = now + pres_timeout(mn, n);
    mn->tx_stamp_node = n->id;
    mn->tx_queued_at = now;
}

/* PResMN (EPSG DS 302-C): the MN's own PRes to 255 carrying every chained CN's outputs. */
static void send_pres_mn(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    uint8_t pl[TAKT_PLK_MAX_PDO];
    struct plk_msg m;
    msg_init(mn, &m, PLK_MTYP_PRES, PLK_NODE_BROADCAST);
    m.u.pres.nmt_state = mn->state;
    m.u.pres.flags1 = mn->state == PLK_NMT_OPERATIONAL ? PLK_F1_RD : 0;
    memset(pl, 0, mn->pres_mn_size + 1u);
    for (unsigned i = 0; i < mn->n_chain; i++) {
        struct plk_mn_node *n = mn->node[mn->chain[i]];
        if (n->step >= MNS_WAIT_READY)
            memcpy(pl + n->out_off, n->out, n->out_size);
    }
    m.u.pres.size = mn->pres_mn_size;
    m.u.pres.payload = pl;
    m.u.pres.payload_limit = mn->pres_mn_size > PLK_PAYLOAD_LIMIT_MIN ? mn->pres_mn_size
                                                                      : PLK_PAYLOAD_LIMIT_MIN;
    tx(mn, q, &m);
    takt_ns_t last = 0, first_max = 0;
    for (unsigned i = 0; i < mn->n_chain; i++) {
        struct plk_mn_node *n = mn->node[mn->chain[i]];
        n->polled = true;
        n->preq_sent = now;
        takt_ns_t t = n->cfg->pres_time_first_ns + pres_timeout(mn, n);
        if (t > last)
            last = t;
        if (n->cfg->pres_time_first_ns > first_max)
            first_max = n->cfg->pres_time_first_ns;
    }
    mn->chain_end = now + last;
    /* the driver may sleep until then and read the chained PRes in one batch */
    mn->chain_expect = now + first_max + 30000;
    mn->deadline = mn->chain_end;
    mn->tx_stamp_node = PLK_NODE_MN;
    mn->tx_queued_at = now;
}

/* The chained CNs time their PRes from the PResMN's arrival (PResTimeFirst), so the
 * window moves with its actual send. */
static void pres_mn_sent(struct plk_mn *mn, takt_ns_t t)
{
    takt_ns_t d = t - mn->tx_queued_at;
    for (unsigned i = 0; i < mn->n_chain; i++)
        mn->node[mn->chain[i]]->preq_sent = t;
    mn->chain_end += d;
    mn->chain_expect += d;
    if (mn->phase == MNP_CHAIN)
        mn->deadline = mn->chain_end;
}

void plk_mn_invite(struct plk_mn *mn, uint8_t svid, uint8_t target)
{
    mn->inv_prev = mn->inv;
    mn->inv_prev.end = 0;
    mn->inv = (struct plk_mn_inv){ .svid = svid, .target = target, .end = INT64_MAX };
    mn->inv_stamp_pending = true;
}

void plk_mn_sent(struct plk_mn *mn, takt_ns_t t)
{
    if (mn->inv_stamp_pending) {
        mn->inv_stamp_pending = false;
        mn->inv.sent = t;
        mn->inv_prev.end = t;
    }
    uint8_t id = mn->tx_stamp_node;
    mn->tx_stamp_node = 0;
    /* a send cannot precede the decision to send (a clock read before it was) */
    if (!id || t <= mn->tx_queued_at)
        return;
    if (id == PLK_NODE_MN) {
        pres_mn_sent(mn, t);
        return;
    }
    struct plk_mn_node *n = mn->node[id];
    n->preq_sent = t;
    /* the PRes timeout runs from the PReq's send (0x1F92) */
    if (mn->phase == MNP_ISOCH && mn->cur < mn->n_poll && mn->poll[mn->cur] == id)
        mn->deadline = t + pres_timeout(mn, n);
}

static void send_soa_and_async(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    mn->phase = MNP_ASYNC;
    mn->deadline = INT64_MAX;
    plk_mn_async(mn, now, q);
}

/* Poll the next CN, or go on to the PResMN / SoA when all were polled. */
static void advance(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    while (mn->phase == MNP_ISOCH && mn->cur < mn->n_poll) {
        struct plk_mn_node *n = mn->node[mn->poll[mn->cur]];
        if (n && n->in_cycle) {
            send_preq(mn, n, now, q);
            return;
        }
        mn->cur++;   /* removed from the cycle meanwhile */
    }
    if (mn->phase == MNP_ISOCH && mn->n_chain) {
        mn->phase = MNP_CHAIN;
        send_pres_mn(mn, now, q);
        return;
    }
    send_soa_and_async(mn, now, q);
}

static void pres_lost(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now)
{
    n->st.pres_lost++;
    if (plk_errcnt_event(&n->loss_pres)) {
        /* 0x1C09 threshold (EPSG DS 301 DLL error handling): remove from the cycle and reset the CN */
        n->st.loss_threshold_hits++;
        plk_mn_node_lost(mn, n, now, "loss of PRes threshold (E_DLL_LOSS_PRES_TH 0x8243)");
    }
}

/* The cycle that ends here, node by node (DS 301: loss of PRes when none came in the
 * cycle; a late one is counted late, as openPOWERLINK's MN, which takes a PRes until
 * the next SoC or a later node's PRes, dllkframe.c searchNodeInfo, and counts no loss
 * for it). Judged now rather than at the timeout, so a PRes that arrived in time but
 * was read after the MN had moved on still counts as in time. */
static void judge_cycle(struct plk_mn *mn, takt_ns_t now)
{
    for (unsigned i = 0; i < mn->n_ids; i++) {
        struct plk_mn_node *n = mn->node[mn->ids[i]];
        bool polled = n->polled, ok = n->answered || n->late;
        n->polled = n->answered = n->late = false;
        if (!polled || !n->in_cycle)
            continue;
        if (ok)
            plk_errcnt_good(&n->loss_pres);
        else
            pres_lost(mn, n, now);
    }
}

static void build_poll_list(struct plk_mn *mn)
{
    mn->n_poll = mn->n_chain = 0;
    for (unsigned i = 0; i < mn->n_ids; i++) {
        struct plk_mn_node *n = mn->node[mn->ids[i]];
        if (!n->in_cycle)
            continue;
        /* a multiplexed CN only in its cycle of the round (0x1F9B/n, 1-based) */
        if (n->cfg->multiplexed && mn->cfg.mux_cycles && n->cfg->mux_cycle != mn->mux_idx + 1u)
            continue;
        /* a chained CN is polled until its SyncResponse confirmed PRes mode */
        if (n->chain_active)
            mn->chain[mn->n_chain++] = n->id;
        else
            mn->poll[mn->n_poll++] = n->id;
    }
}

/* Cycle-time exceeded (0x1C02, EPSG DS 301 DLL error handling): the previous cycle had not finished its
 * isochronous phase when the next SoC was due. */
static void check_exceeded(struct plk_mn *mn, takt_ns_t now)
{
    if (!plk_mn_busy(mn)) {
        plk_errcnt_good(&mn->cycle_exceed);
        return;
    }
    mn->st.cycle_exceeded++;
    /* whoever we waited for is lost for this cycle (judge_cycle) */
    if (plk_errcnt_event(&mn->cycle_exceed)) {
        mn->st.cycle_exceed_hits++;
        /* E_DLL_CYCLE_EXCEED_TH: MN cycle error -> MS_PRE_OPERATIONAL_1, CNs reset */
        plk_mn_set_state(mn, now, PLK_NMT_PRE_OPERATIONAL_1);
    }
}

/* MC in the SoC toggles when the last cycle of a multiplexed round has ended (DS 301
 * 4.6.1.1.1), i.e. with the first SoC of every round after the first. */
static void mux_next(struct plk_mn *mn)
{
    if (!mn->cfg.mux_cycles)
        return;
    if (mn->mux_idx == 0 && mn->mux_rounds++ > 0)
        mn->soc_flags1 ^= PLK_F1_MC;
}

void plk_mn_cycle(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    if (mn->phase != MNP_IDLE)
        check_exceeded(mn, now);
    judge_cycle(mn, now);
    mn->st.cycles++;
    mn->cycle_start = now;
    plk_mn_nmt_eval(mn, now);
    if (mn->state == PLK_NMT_NOT_ACTIVE) {
        mn->phase = MNP_IDLE;
        return;
    }
    if (mn->state == PLK_NMT_PRE_OPERATIONAL_1) {
        /* reduced cycle: SoA only (EPSG DS 301 reduced POWERLINK cycle) */
        mn->preop1_cycles++;
        send_soa_and_async(mn, now, q);
        return;
    }
    mux_next(mn);
    send_soc(mn, now, q);
    build_poll_list(mn);
    if (mn->cfg.mux_cycles)
        mn->mux_idx = (mn->mux_idx + 1) % mn->cfg.mux_cycles;
    mn->cur = 0;
    mn->phase = MNP_ISOCH;
    advance(mn, now, q);
}

void plk_mn_close(struct plk_mn *mn, takt_ns_t now)
{
    judge_cycle(mn, now);
    mn->phase = MNP_IDLE;
}

static void pres_latency(struct plk_mn_node *n, takt_ns_t lat)
{
    if (!n->st.pres_lat_min || lat < n->st.pres_lat_min)
        n->st.pres_lat_min = lat;
    if (lat > n->st.pres_lat_max)
        n->st.pres_lat_max = lat;
    n->st.pres_lat_sum += lat;
}

void plk_mn_unexpected(struct plk_mn *mn, struct plk_mn_node *n)
{
    mn->st.unexpected++;
    if (n)
        n->st.unexpected++;
}

/* A PRes is judged by wire time: `now` is its receive stamp, preq_sent the send stamp
 * of this cycle's PReq to its node (the PResMN's for a chained CN). It answers that
 * PReq when its node was polled in this cycle and has not answered yet, and it was
 * stamped after the PReq left: anything else (a node not polled, a second PRes, one
 * stamped before the PReq left: the answer to an earlier one) answers nothing the MN
 * sent, is counted unexpected and never taken. Stamped within the node's PRes timeout
 * (0x1F92, from the PReq's send; a chained CN's from the PResMN's plus its
 * PResTimeFirst) it is in time, also when the MN's thread read it only after it had
 * moved on (pres_held); stamped later in the cycle it is late (DS 301 0x1C04): counted
 * late, yet the answer of this cycle, taken as openPOWERLINK's MN takes it (data, NMT
 * state and async requests; a CN slow now and then would otherwise never boot), and no
 * loss. Either way the wait for it is over. */
static void on_pres(struct plk_mn *mn, takt_ns_t now, const struct plk_msg *m)
{
    struct plk_mn_node *n = PLK_IS_CN(m->src) ? mn->node[m->src] : NULL;
    if (!n || !n->in_cycle || !n->polled || n->answered || n->late || now < n->preq_sent) {
        plk_mn_unexpected(mn, n);
        return;
    }
    takt_ns_t limit = n->preq_sent + pres_timeout(mn, n) +
                      (n->chain_active ? (takt_ns_t)n->cfg->pres_time_first_ns : 0);
    bool waited = (mn->phase == MNP_ISOCH && mn->cur < mn->n_poll && mn->poll[mn->cur] == n->id) ||
                  (mn->phase == MNP_CHAIN && n->chain_active);
    if (now > limit) {
        n->late = true;
        n->st.pres_late++;
    } else {
        n->answered = true;
        n->st.pres_ok++;
        if (!waited)
            n->st.pres_held++;
    }
    pres_latency(n, now - n->preq_sent);
    n->rs = (m->u.pres.flags2 & PLK_F2_RS_MASK) != 0;
    n->pr = (uint8_t)((m->u.pres.flags2 & PLK_F2_PR_MASK) >> PLK_F2_PR_SHIFT);
    uint16_t sz = m->u.pres.size < n->in_size ? m->u.pres.size : n->in_size;
    if (sz)
        memcpy(n->in, m->u.pres.payload, sz);
    if (m->u.pres.nmt_state != n->state) {
        n->state = m->u.pres.nmt_state;
        plk_mn_on_pres_state(mn, n, now);
    }
}

static bool chain_complete(const struct plk_mn *mn)
{
    for (unsigned i = 0; i < mn->n_chain; i++) {
        const struct plk_mn_node *n = mn->node[mn->chain[i]];
        if (!n->answered && !n->late && n->in_cycle)
            return false;
    }
    return true;
}

void plk_mn_rx(struct plk_mn *mn, takt_ns_t now, const uint8_t *f, size_t len, struct plk_txq *q)
{
    struct plk_msg m;
    char err[96];
    int r = plk_frame_decode(f, len, &m, err, sizeof err);
    if (r == -ENOMSG) {
        plk_mn_ip_rx(mn, now, f, len);   /* the virtual Ethernet's IP frames */
        return;
    }
    mn->st.frames_rx++;
    if (r < 0) {
        mn->st.bad_frames++;
        if (len > PLK_OFF_SRC && PLK_IS_CN(f[PLK_OFF_SRC]) && mn->node[f[PLK_OFF_SRC]])
            mn->node[f[PLK_OFF_SRC]]->st.bad_frames++;
        return;
    }
    if (m.src == PLK_NODE_MN) {
        /* another MN on the segment: DS 301 NMT_MT2 waits in MS_NOT_ACTIVE while one
         * is active (the timer 0x1F89/1 restarts) */
        if ((m.mtyp == PLK_MTYP_SOC || m.mtyp == PLK_MTYP_SOA) && mn->state == PLK_NMT_NOT_ACTIVE) {
            mn->state_since = now;
            mn->st.other_mn_frames++;
        }
        return;
    }
    switch (m.mtyp) {
    case PLK_MTYP_PRES: {
        on_pres(mn, now, &m);
        /* the wait is over once the polled node's PRes came, in time or late */
        const struct plk_mn_node *w = mn->phase == MNP_ISOCH && mn->cur < mn->n_poll
                                      ? mn->node[mn->poll[mn->cur]] : NULL;
        if (w && w->id == m.src && (w->answered || w->late)) {
            mn->cur++;
            advance(mn, now, q);
        } else if (mn->phase == MNP_CHAIN && chain_complete(mn)) {
            send_soa_and_async(mn, now, q);
        }
        break;
    }
    case PLK_MTYP_ASND:
        plk_mn_on_asnd(mn, now, &m, f);
        break;
    default:
        break;
    }
}

void plk_mn_tick(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    if (now < mn->deadline)
        return;
    /* the PRes timeout: move on; whether a PRes came in time is judged by its stamp
     * when it is read, and a loss at the cycle's end (judge_cycle) */
    if (mn->phase == MNP_ISOCH && mn->cur < mn->n_poll) {
        mn->cur++;
        advance(mn, now, q);
    } else if (mn->phase == MNP_CHAIN) {
        send_soa_and_async(mn, now, q);
    } else {
        mn->deadline = INT64_MAX;
    }
}

takt_ns_t plk_mn_deadline(const struct plk_mn *mn)
{
    return plk_mn_busy(mn) ? mn->deadline : INT64_MAX;
}

/* the nodes judge_cycle would count lost if the cycle ended now */
bool plk_mn_pres_missing(const struct plk_mn *mn)
{
    for (unsigned i = 0; i < mn->n_ids; i++) {
        const struct plk_mn_node *n = mn->node[mn->ids[i]];
        if (n->polled && n->in_cycle && !n->answered && !n->late)
            return true;
    }
    return false;
}

static int add_node(struct plk_mn *mn, const struct plk_cfg_node *c, char *err, size_t errlen)
{
    struct plk_mn_node *n = calloc(1, sizeof *n);
    struct plk_sdo_client *s = calloc(1, sizeof *s), *su = calloc(1, sizeof *su);
    if (!n || !s || !su) {
        free(n);
        free(s);
        free(su);
        snprintf(err, errlen, "node %u: out of memory", c->node_id);
        return -ENOMEM;
    }
    struct plk_sdo_timing t;
    plk_sdo_timing_for_cycle(&t, mn->cfg.cycle_us);
    plk_sdo_client_init(s, &t);
    n->sdo = s;
    t.seg_size = plk_udp_sdo_seg_max((uint16_t)mn->cfg.async_mtu);
    plk_sdo_client_init(su, &t);
    n->sdo_udp = su;
    n->cfg = c;
    n->id = c->node_id;
    n->chained = c->chained;
    /* the simulated X20 set-up maps 1 byte each way when no mapping is given */
    n->out_size = c->preq_payload < PLK_PAYLOAD_LIMIT_MIN ? c->preq_payload : 1;
    n->in_size = 1;
    if (c->has_mapping) {
        unsigned o = 0, i = 0;
        /* a bit-packed entry occupies its last byte partly: round up */
        for (unsigned k = 0; k < c->n_rx; k++)
            if (plk_pdo_entry_end(&c->rx_map[k]) > o)
                o = plk_pdo_entry_end(&c->rx_map[k]);
        for (unsigned k = 0; k < c->n_tx; k++)
            if (plk_pdo_entry_end(&c->tx_map[k]) > i)
                i = plk_pdo_entry_end(&c->tx_map[k]);
        n->out_size = (uint16_t)o;
        n->in_size = (uint16_t)i;
    }
    if (c->has_mn_map) {
        /* the MN's own 0x16xx/0x1Axx for this node define its process image */
        unsigned o = 0, i = 0;
        for (unsigned k = 0; k < c->n_mn_tx; k++)
            if (plk_pdo_entry_end(&c->mn_tx_map[k]) > o)
                o = plk_pdo_entry_end(&c->mn_tx_map[k]);
        for (unsigned k = 0; k < c->n_mn_rx; k++)
            if (plk_pdo_entry_end(&c->mn_rx_map[k]) > i)
                i = plk_pdo_entry_end(&c->mn_rx_map[k]);
        n->out_size = (uint16_t)o;
        n->in_size = (uint16_t)i;
    }
    plk_errcnt_init(&n->loss_pres, c->loss_pres_threshold);
    if (n->chained) {
        /* fixed place in the PResMN payload, so joins and losses never move others */
        if (mn->pres_mn_size + n->out_size > PLK_ISOCHR_MAX_PAYL) {
            snprintf(err, errlen, "node %u: PResMN payload would exceed %u bytes with its "
                     "%u output bytes (object 0x1F81 chaining)", c->node_id,
                     PLK_ISOCHR_MAX_PAYL, n->out_size);
            free(n); free(s);
            return -EINVAL;
        }
        n->out_off = mn->pres_mn_size;
        mn->pres_mn_size = (uint16_t)(mn->pres_mn_size + n->out_size);
    }
    mn->node[n->id] = n;
    mn->ids[mn->n_ids++] = n->id;
    return 0;
}

int plk_mn_init(struct plk_mn *mn, const struct plk_net_config *cfg, const uint8_t mac[6],
                takt_ns_t now, char *err, size_t errlen)
{
    memset(mn, 0, sizeof *mn);
    mn->cfg = *cfg;
    memcpy(mn->mac, mac, 6);
    mn->cycle_ns = (takt_ns_t)cfg->cycle_us * 1000;
    plk_errcnt_init(&mn->cycle_exceed, cfg->cycle_exceed_threshold);
    for (unsigned id = PLK_NODE_CN_MIN; id <= PLK_NODE_CN_MAX; id++) {
        const struct plk_cfg_node *c = &mn->cfg.node[id];
        if (!c->present)
            continue;
        int r = add_node(mn, c, err, errlen);
        if (r) {
            plk_mn_free(mn);
            return r;
        }
    }
    mn->st.nodes_configured = mn->n_ids;
    mn->deadline = INT64_MAX;
    /* GS_INITIALISING .. RESET_CONFIGURATION -> MS_NOT_ACTIVE: listen for another MN
     * for 0x1F89/1 before starting (EPSG DS 301 7.4) */
    mn->state = PLK_NMT_NOT_ACTIVE;
    mn->state_since = now;
    return 0;
}

void plk_mn_free(struct plk_mn *mn)
{
    for (unsigned id = 0; id <= PLK_NODE_CN_MAX; id++) {
        if (mn->node[id]) {
            free(mn->node[id]->sdo);
            free(mn->node[id]->sdo_udp);
            free(mn->node[id]);
            mn->node[id] = NULL;
        }
    }
    mn->n_ids = 0;
}
