/* POWERLINK CN core: answers PReq/PResMN with its PRes, SoA invitations with Ident/
 * Status/Sync responses and SDO replies, applies NMT commands, watches SoC and PReq. */
#include <errno.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/cn_int.h"
#include "plk/frame.h"
#include "plk/nmt_cn.h"
#include "util/wire.h"

struct plk_txf *plk_txq_slot(struct plk_txq *q)
{
    if (q->n >= q->cap) {
        q->overflow++;
        return NULL;
    }
    struct plk_txf *f = &q->f[q->n++];
    memset(f->data, 0, PLK_MIN_FRAME);
    f->len = 0;
    f->launch = 0;
    f->until = 0;
    return f;
}

/* Encode m into a new queue slot; the slot is given back if encoding fails. */
struct plk_txf *plk_txq_encode(struct plk_txq *q, const struct plk_msg *m)
{
    struct plk_txf *f = plk_txq_slot(q);
    if (!f)
        return NULL;
    int n = plk_frame_encode(f->data, sizeof f->data, m);
    if (n < 0) {
        q->n--;
        return NULL;
    }
    f->len = (uint16_t)n;
    return f;
}

/* xorshift32: fault injection must be reproducible from a seed (the node ID). */
static uint32_t rnd(struct plk_cn *cn)
{
    uint32_t x = cn->rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return cn->rng = x;
}
static bool chance(struct plk_cn *cn, uint32_t permille)
{
    return permille && rnd(cn) % 1000 < permille;
}

static void set_state(struct plk_cn *cn, takt_ns_t now, uint8_t s)
{
    if (s == cn->state)
        return;
    if (s == PLK_NMT_NOT_ACTIVE) {
        /* a reset: forget the cycle, the MN and pending requests (DS 301 7.1.2) */
        cn->chained = false;
        cn->mn_operational = false;
        cn->rs = 0;
        cn->pending_sdo_len = 0;
        cn->pending_sync = 0;
        cn->seen_preq = false;
        cn->cycle_count = 0;
        cn->preq_due = true;
        cn->mn_er = 0;   /* a new ER=1 from the MN restarts error signaling */
        plk_errcnt_reset(&cn->loss_soc);
        plk_errcnt_reset(&cn->loss_preq);
        plk_cn_async_reset(cn);
        plk_sdo_server_reset(&cn->sdo);
        plk_cn_ip_reset(cn);
    }
    /* atomic: other threads read it (takt_plk_cn_state); this thread is the only writer */
    __atomic_store_n(&cn->state, s, __ATOMIC_RELAXED);
    cn->state_since = now;
}

void plk_cn_event(struct plk_cn *cn, takt_ns_t now, enum plk_cn_ev ev, uint8_t cmd)
{
    uint8_t next = plk_nmt_cn_next(cn->state, ev, cmd);
    /* EnableReadyToOperate only proceeds when the application is ready (oplk nmtu) */
    if (next == PLK_NMT_READY_TO_OPERATE && cn->state == PLK_NMT_PRE_OPERATIONAL_2 &&
        !cn->app_ready)
        return;
    if (next == PLK_NMT_NOT_ACTIVE && cn->state != next && ev == PLK_CN_EV_COMMAND) {
        cn->resets++;          /* for the driver's events (takt_plk_cn_next_event) */
        cn->reset_cmd = cmd;
    }
    set_state(cn, now, next);
}

static void base_msg(struct plk_cn *cn, struct plk_msg *m, uint8_t mtyp, uint8_t dst)
{
    memset(m, 0, sizeof *m);
    memcpy(m->src_mac, cn->mac, 6);
    m->mtyp = mtyp;
    m->dst = dst;
    m->src = cn->cfg.id;
}

/* PRes (EPSG DS 301 frame formats): multicast, our state, RD only in Operational, EN of error signaling,
 * PR/RS of queued async frames, inputs as payload. */
static struct plk_txf *send_pres(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q)
{
    struct plk_msg m;
    base_msg(cn, &m, PLK_MTYP_PRES, PLK_NODE_BROADCAST);
    m.u.pres.nmt_state = cn->state;
    m.u.pres.flags1 = (uint8_t)((cn->state == PLK_NMT_OPERATIONAL ? PLK_F1_RD : 0) |
                                (cn->en ? PLK_F1_EN : 0));
    m.u.pres.flags2 = plk_cn_flags2(cn, now);
    m.u.pres.size = cn->state >= PLK_NMT_PRE_OPERATIONAL_2 ? cn->cfg.in_size : 0;
    m.u.pres.payload = cn->in;
    m.u.pres.payload_limit = cn->pres_limit;
    if (cn->faults.vanished)
        return NULL;
    if (chance(cn, cn->faults.drop_pres_permille)) {
        cn->st.dropped++;
        return NULL;
    }
    struct plk_txf *f = plk_txq_encode(q, &m);
    if (!f)
        return NULL;
    if (chance(cn, cn->faults.malformed_permille)) {
        f->data[PLK_PRES_OFF_SIZE] = 0xFF;   /* Size past the frame: invalid format */
        f->data[PLK_PRES_OFF_SIZE + 1] = 0x7F;
        cn->st.malformed++;
    }
    cn->st.pres_tx++;
    return f;
}

static void maybe_late(struct plk_cn *cn, struct plk_txf *f, takt_ns_t now)
{
    if (f && chance(cn, cn->faults.late_pres_permille)) {
        f->launch = now + cn->faults.late_ns;
        cn->st.late++;
    }
}

static void copy_outputs(struct plk_cn *cn, const uint8_t *p, uint16_t size, uint16_t off)
{
    if (size <= off)
        return;
    uint16_t n = (uint16_t)(size - off);
    if (n > cn->cfg.out_size)
        n = cn->cfg.out_size;
    memcpy(cn->out, p + off, n);
    if (cn->od_do && cn->od_do->data)   /* RPDO 0x1600/1 -> 0x6200/1 */
        cn->od_do->data[0] = cn->out[0];
    if (n < cn->cfg.out_size)
        cn->st.short_rx++;   /* E_PDO_SHORT_RX (EPSG DS 301 6.4) */
}

/* A slow CN (injected): the PRes leaves answer_delay after the PReq arrived. */
static void maybe_delay(struct plk_cn *cn, struct plk_txf *f, takt_ns_t now)
{
    const struct plk_cn_faults *fl = &cn->faults;
    if (!f || !fl->answer_delay_max_ns)
        return;
    takt_ns_t span = fl->answer_delay_max_ns - fl->answer_delay_min_ns;
    f->launch = now + fl->answer_delay_min_ns + (span > 0 ? (takt_ns_t)(rnd(cn) % (uint64_t)(span + 1)) : 0);
    cn->st.delayed++;
}

/* False (and counted) when the request in hand is not the current one (plk_cn_rx_at). */
bool plk_cn_may_answer(struct plk_cn *cn)
{
    if (!cn->rx_current)
        cn->st.stale_dropped++;
    return cn->rx_current;
}

static void on_preq(struct plk_cn *cn, takt_ns_t now, const struct plk_msg *m, struct plk_txq *q)
{
    cn->st.preq_rx++;
    cn->last_preq = now;
    cn->preq_this_cycle = true;
    cn->seen_preq = true;
    cn->cycle_count = 0;
    cn->mn_operational = m->u.preq.flags1 & PLK_F1_RD;
    plk_cn_ea(cn, m->u.preq.flags1);
    if (cn->state == PLK_NMT_OPERATIONAL || cn->state == PLK_NMT_READY_TO_OPERATE)
        copy_outputs(cn, m->u.preq.payload, m->u.preq.size, 0);
    if (cn->state == PLK_NMT_PRE_OPERATIONAL_1 || cn->state == PLK_NMT_NOT_ACTIVE)
        return;   /* not yet in the isochronous phase */
    /* Stopped: out of the isochronous phase, a PReq is not answered (DS 301 7.1.4.7;
     * oplk dllkevent.c takes the PRes off its PReq filter in CS_STOPPED). */
    if (cn->state == PLK_NMT_CS_STOPPED || !plk_cn_may_answer(cn))
        return;
    struct plk_txf *f = send_pres(cn, now, q);
    maybe_delay(cn, f, now);
    maybe_late(cn, f, now);
}

/* PResMN (EPSG DS 302-C): in chained mode it replaces the PReq; our PRes leaves
 * pres_time_first ns after the end of the PResMN (its receive time). */
static void on_pres_mn(struct plk_cn *cn, takt_ns_t now, const struct plk_msg *m, struct plk_txq *q)
{
    if (!cn->chained || cn->state < PLK_NMT_PRE_OPERATIONAL_2)
        return;
    cn->st.preq_rx++;
    cn->last_preq = now;
    cn->preq_this_cycle = true;
    cn->seen_preq = true;
    cn->cycle_count = 0;
    cn->mn_operational = m->u.pres.flags1 & PLK_F1_RD;
    if (cn->state == PLK_NMT_OPERATIONAL || cn->state == PLK_NMT_READY_TO_OPERATE)
        copy_outputs(cn, m->u.pres.payload, m->u.pres.size, cn->out_offset);
    if (!plk_cn_may_answer(cn))
        return;
    struct plk_txf *f = send_pres(cn, now, q);
    if (f)
        f->launch = now + cn->pres_time_first_ns;
    if (f && chance(cn, cn->faults.late_pres_permille)) {
        f->launch += cn->faults.late_ns;
        cn->st.late++;
    }
}

/* Loss of PReq (0x1C0D) for the cycle this SoC closes, as openPOWERLINK's CN judges it
 * (dllkstatemachine.c: SoA without PReq, cycle counter 0, state >= ReadyToOperate):
 * counted from ReadyToOperate on and only in cycles the CN is due; a multiplexed CN
 * (0x1F98/7 = N) is due N SoCs after its last PReq. Other cycles count as good.
 * Returns true when the threshold fired. */
static bool judge_preq(struct plk_cn *cn)
{
    if (!cn->last_soc || !cn->seen_preq ||
        (cn->state != PLK_NMT_READY_TO_OPERATE && cn->state != PLK_NMT_OPERATIONAL))
        return false;
    if (cn->preq_this_cycle || !cn->preq_due) {
        plk_errcnt_good(&cn->loss_preq);
        return false;
    }
    cn->st.loss_preq++;
    if (!plk_errcnt_event(&cn->loss_preq))
        return false;
    plk_cn_error(cn, PLK_E_DLL_LOSS_PREQ_TH);   /* EPSG DS 301 error code 0x8242 */
    return true;
}

static void on_soc(struct plk_cn *cn, takt_ns_t now, const struct plk_soc *soc,
                   struct plk_txq *q)
{
    cn->st.soc_rx++;
    cn->net_time = soc->nettime_s | (uint64_t)soc->nettime_ns << 32;   /* NetTime s, ns */
    bool fired = judge_preq(cn);
    /* the cycle this SoC opens: due when the counter wraps (a PReq resets it) */
    if (cn->mux_cycles)
        cn->cycle_count = (uint8_t)((cn->cycle_count + 1) % cn->mux_cycles);
    cn->preq_due = cn->cycle_count == 0;
    cn->preq_this_cycle = false;
    cn->last_soc = now;
    cn->soc_rx = now;
    if (fired) {
        /* this SoC closed the failed cycle; the next one starts PreOp2 */
        plk_cn_cycle_error(cn, now);
        return;
    }
    plk_errcnt_good(&cn->loss_soc);
    plk_cn_event(cn, now, PLK_CN_EV_SOC, 0);
    (void)q;
}

void plk_cn_cycle_error(struct plk_cn *cn, takt_ns_t now)
{
    cn->st.cycle_errors++;
    cn->seen_preq = false;
    plk_cn_event(cn, now, PLK_CN_EV_CYCLE_ERROR, 0);
}

static void on_nmt_command(struct plk_cn *cn, takt_ns_t now, const struct plk_nmt_command *c)
{
    cn->st.nmt_cmds++;
    if (c->cmd == PLK_NMT_CMD_INVALID_SERVICE)
        cn->st.nmtreq_refused++;   /* the MN's answer to a request it cannot execute */
    plk_cn_event(cn, now, PLK_CN_EV_COMMAND, c->cmd);
}

static void on_asnd(struct plk_cn *cn, takt_ns_t now, const struct plk_msg *m, struct plk_txq *q)
{
    if (m->dst != cn->cfg.id && m->dst != PLK_NODE_BROADCAST)
        return;
    cn->st.asnd_rx++;
    switch (m->u.asnd.svid) {
    case PLK_ASND_NMT_COMMAND:
        if (m->src == PLK_NODE_MN)
            on_nmt_command(cn, now, &m->u.asnd.u.nmt_cmd);
        break;
    case PLK_ASND_SDO:
        if (m->dst == cn->cfg.id)
            plk_cn_sdo_rx(cn, now, m->u.asnd.u.raw.data, m->u.asnd.u.raw.len);
        break;
    default:
        break;
    }
    (void)q;
}

/* The cycle a request received at ts belongs to began with the last SoC if that came
 * less than a cycle (0x1006) before it, else with the request itself (PreOp1 has SoA-
 * only cycles of its own length; a CN without a SoC in the last cycle has nothing
 * better). The request is current until that cycle ends, unless a later SoC (SoA for an
 * invitation) closed it first. The last eighth of the cycle is left out: the next SoC is
 * due a cycle after this one was sent, not received, so it may come earlier by this
 * SoC's lateness, and an answer that reached the MN after it could pass for the answer
 * to the next cycle's request. Returns the end (0: no cycle length, no end). */
static takt_ns_t request_until(const struct plk_cn *cn, takt_ns_t ts)
{
    takt_ns_t cyc = (takt_ns_t)cn->cycle_us * 1000;
    if (cyc <= 0)
        return 0;
    takt_ns_t start = cn->soc_rx && ts >= cn->soc_rx && ts - cn->soc_rx < cyc ? cn->soc_rx : ts;
    return start + cyc - cyc / 8;
}

static void rx_frame(struct plk_cn *cn, takt_ns_t now, const uint8_t *f, size_t len,
                     struct plk_txq *q);

void plk_cn_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *f, size_t len, struct plk_txq *q)
{
    plk_cn_rx_at(cn, now, now, false, f, len, q);
}

void plk_cn_rx_at(struct plk_cn *cn, takt_ns_t now, takt_ns_t ts, bool closed,
                  const uint8_t *f, size_t len, struct plk_txq *q)
{
    if (cn->faults.vanished)
        return;
    takt_ns_t until = request_until(cn, ts);
    cn->rx_current = !closed && (!until || now < until);
    unsigned first = q->n;
    rx_frame(cn, ts, f, len, q);   /* from here on the frame's own time: timers, states */
    /* what it queued answers this request: not to be sent after its cycle (a host
     * frozen between this call and its send would otherwise send it cycles late) */
    for (unsigned i = first; i < q->n; i++)
        if (!q->f[i].launch)
            q->f[i].until = until;
}

static void rx_frame(struct plk_cn *cn, takt_ns_t now, const uint8_t *f, size_t len,
                     struct plk_txq *q)
{
    struct plk_msg m;
    char err[96];
    plk_cn_nmtreq_take(cn);
    int r = plk_frame_decode(f, len, &m, err, sizeof err);
    if (r == -ENOMSG) {
        plk_cn_ip_rx(cn, now, f, len);   /* the virtual Ethernet's IP frames */
        return;
    }
    if (r < 0) {
        cn->st.bad_frames++;
        return;
    }
    if (m.src == cn->cfg.id)
        return;   /* our own frame looped back */
    cn->last_frame = now;
    if (cn->state == PLK_NMT_BASIC_ETHERNET)
        plk_cn_event(cn, now, PLK_CN_EV_PLK_FRAME, 0);
    switch (m.mtyp) {
    case PLK_MTYP_SOC:
        on_soc(cn, now, &m.u.soc, q);
        break;
    case PLK_MTYP_PREQ:
        if (m.dst == cn->cfg.id) {
            memcpy(cn->mn_mac, f + PLK_OFF_SRC_MAC, 6);
            on_preq(cn, now, &m, q);
        }
        break;
    case PLK_MTYP_PRES:
        if (m.src == PLK_NODE_MN)
            on_pres_mn(cn, now, &m, q);
        break;
    case PLK_MTYP_SOA:
        cn->st.soa_rx++;
        plk_cn_event(cn, now, PLK_CN_EV_SOA, 0);
        if (m.u.soa.target == cn->cfg.id)
            plk_cn_on_invite(cn, now, &m.u.soa, q);
        break;
    case PLK_MTYP_ASND:
        on_asnd(cn, now, &m, q);
        break;
    default:
        break;
    }
}

/* Loss of SoC (EPSG DS 301; timing as openPOWERLINK's CN): 0x1006·1000 + 0x1C14 ns after the last SoC, ignored in
 * PreOp2 (oplk dllkstatemachine.c). BasicEthernet after 0x1F99 in NotActive. */
takt_ns_t plk_cn_deadline(const struct plk_cn *cn)
{
    if (cn->state == PLK_NMT_NOT_ACTIVE)
        return cn->state_since + (takt_ns_t)cn->cfg.basic_eth_timeout_us * 1000;
    if (cn->last_soc && (cn->state == PLK_NMT_READY_TO_OPERATE ||
                         cn->state == PLK_NMT_OPERATIONAL || cn->state == PLK_NMT_CS_STOPPED))
        return cn->last_soc + (takt_ns_t)cn->cycle_us * 1000 + cn->cfg.soc_tolerance_ns;
    return INT64_MAX;
}

void plk_cn_tick(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q)
{
    (void)q;
    plk_cn_nmtreq_take(cn);
    takt_ns_t d = plk_cn_deadline(cn);
    if (now < d)
        return;
    if (cn->state == PLK_NMT_NOT_ACTIVE) {
        if (cn->cfg.basic_eth_timeout_us)
            plk_cn_event(cn, now, PLK_CN_EV_BASIC_ETH_TIMEOUT, 0);
        else
            cn->state_since = now;
        return;
    }
    cn->st.loss_soc++;
    /* count one loss per missed cycle: the next deadline is one cycle later */
    cn->last_soc += (takt_ns_t)cn->cycle_us * 1000;
    if (plk_errcnt_event(&cn->loss_soc)) {
        plk_cn_error(cn, PLK_E_DLL_LOSS_SOC_TH);    /* EPSG DS 301 error code 0x8245 */
        plk_cn_cycle_error(cn, now);
    }
}
