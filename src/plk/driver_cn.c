/* CN host loop: receives frames with a timeout that ends at the next core timer or
 * launch time, hands each frame to the CN cores it concerns, sends their answers at
 * once or at their launch time (time-triggered PRes: by the kernel where the link has
 * SO_TXTIME, else from this loop). Also the public CN API. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "plk/driver.h"
#include "plk/frame.h"
#include "rt/event.h"
#include "util/wire.h"

#define RX_BATCH 16
#define RX_HOLD  32   /* frames read ahead: a batch plus those held back from the last */

int plk_cn_host_init(struct plk_cn_host *h, struct plk_cn **cn, unsigned n, struct takt_link *link)
{
    memset(h, 0, sizeof *h);
    h->cn = cn;
    h->n = n;
    h->link = link;
    h->q.f = h->tx;
    h->q.cap = TAKT_ARRAY_SIZE(h->tx);
    for (unsigned i = 0; i < n; i++) {
        if (h->by_id[cn[i]->cfg.id])
            return -EEXIST;
        h->by_id[cn[i]->cfg.id] = cn[i];
    }
    return 0;
}

static void pend_insert(struct plk_cn_host *h, const struct plk_txf *f)
{
    if (h->n_pend >= PLK_HOST_PENDING) {
        h->pend_overflow++;
        return;
    }
    unsigned i = h->n_pend++;
    while (i > 0 && h->pend[i - 1].launch > f->launch) {
        h->pend[i] = h->pend[i - 1];
        i--;
    }
    h->pend[i] = *f;
}

/* Immediate frames go out in one batch; timed ones too where the link's qdisc keeps
 * launch times (SO_TXTIME), else they wait in the pending queue for send_due. An answer
 * whose request's cycle is over by now (the host was stopped after the core answered,
 * before this send) is not sent: counted stale by its CN, as the core counts those it
 * drops. The clock is read only when the batch holds such an answer. */
void plk_cn_host_dispatch(struct plk_cn_host *h)
{
    struct takt_frame out[64];
    unsigned k = 0;
    takt_ns_t now = 0;
    for (unsigned i = 0; i < h->q.n; i++) {
        struct plk_txf *f = &h->q.f[i];
        if (f->launch && !h->link->txtime) {
            pend_insert(h, f);
            continue;
        }
        if (f->until && (now ? now : (now = takt_now())) >= f->until) {
            struct plk_cn *cn = f->len > PLK_OFF_SRC ? h->by_id[plk_frame_src(f->data)] : NULL;
            if (cn)
                cn->st.stale_dropped++;
            h->expired++;
            continue;
        }
        out[k++] = (struct takt_frame){ .data = f->data, .len = f->len, .launch = f->launch };
        h->launched_txtime += f->launch != 0;
    }
    if (k && takt_link_send(h->link, out, k) > 0)
        h->tx_frames += k;
    h->q.n = 0;
}

static void send_due(struct plk_cn_host *h, takt_ns_t now)
{
    unsigned k = 0;
    while (k < h->n_pend && h->pend[k].launch <= now)
        k++;
    if (!k)
        return;
    struct takt_frame out[PLK_HOST_PENDING];
    takt_ns_t t = takt_now();
    for (unsigned i = 0; i < k; i++) {
        out[i] = (struct takt_frame){ .data = h->pend[i].data, .len = h->pend[i].len };
        takt_ns_t late = t - h->pend[i].launch;
        h->launch_late_sum += late;
        if (late > h->launch_late_max)
            h->launch_late_max = late;
    }
    if (takt_link_send(h->link, out, k) > 0)
        h->tx_frames += k;
    h->launched += k;
    memmove(h->pend, h->pend + k, (h->n_pend - k) * sizeof h->pend[0]);
    h->n_pend -= k;
}

static void feed(struct plk_cn_host *h, takt_ns_t now, takt_ns_t t, bool closed,
                 const uint8_t *d, size_t len)
{
    h->rx_frames++;
    if (len <= PLK_OFF_SRC)
        return;
    uint8_t mtyp = plk_frame_mtyp(d), dst = plk_frame_dst(d), src = plk_frame_src(d);
    bool all = mtyp == PLK_MTYP_SOC || mtyp == PLK_MTYP_SOA ||
               (mtyp == PLK_MTYP_PRES && src == PLK_NODE_MN) ||
               (mtyp == PLK_MTYP_ASND && dst == PLK_NODE_BROADCAST);
    if (all) {
        for (unsigned i = 0; i < h->n; i++)
            plk_cn_rx_at(h->cn[i], now, t, closed, d, len, &h->q);
    } else if ((mtyp == PLK_MTYP_PREQ || mtyp == PLK_MTYP_ASND) && h->by_id[dst]) {
        plk_cn_rx_at(h->by_id[dst], now, t, closed, d, len, &h->q);
    } else if (mtyp != PLK_MTYP_PRES && mtyp != PLK_MTYP_PREQ && mtyp != PLK_MTYP_ASND) {
        for (unsigned i = 0; i < h->n; i++)   /* unknown types: let the cores judge */
            plk_cn_rx_at(h->cn[i], now, t, closed, d, len, &h->q);
    }
    plk_cn_host_dispatch(h);
    if (mtyp == PLK_MTYP_SOC && h->on_soc)
        h->on_soc(h->on_soc_ctx, t);
}

static takt_ns_t next_wake(struct plk_cn_host *h, takt_ns_t now)
{
    takt_ns_t w = now + 100 * TAKT_NS_PER_MS;
    for (unsigned i = 0; i < h->n; i++) {
        takt_ns_t d = plk_cn_deadline(h->cn[i]);
        if (d < w)
            w = d;
    }
    if (h->n_pend && h->pend[0].launch < w)
        w = h->pend[0].launch;
    if (h->periodic && h->next_periodic < w)
        w = h->next_periodic;
    return w;
}

void plk_cn_host_soc_window(const struct plk_cn_host *h, takt_ns_t now, takt_ns_t *w, takt_ns_t *sp)
{
    if (!h->soc_lead_ns)
        return;
    takt_ns_t due = INT64_MAX;
    for (unsigned i = 0; i < h->n; i++) {
        const struct plk_cn *cn = h->cn[i];
        bool cyclic = cn->state == PLK_NMT_PRE_OPERATIONAL_2 || cn->state == PLK_NMT_READY_TO_OPERATE ||
                      cn->state == PLK_NMT_OPERATIONAL || cn->state == PLK_NMT_CS_STOPPED;
        if (cyclic && cn->soc_rx && cn->cycle_us) {
            takt_ns_t d = cn->soc_rx + (takt_ns_t)cn->cycle_us * 1000;
            if (d < due)
                due = d;
        }
    }
    if (due == INT64_MAX || now >= due + h->soc_lead_ns)
        return;
    if (now < due - h->soc_lead_ns) {
        if (due - h->soc_lead_ns < *w)
            *w = due - h->soc_lead_ns;
    } else if (*sp < due + h->soc_lead_ns) {
        *sp = due + h->soc_lead_ns;
    }
}

/* A SoC or SoA of the MN: the frames that begin a cycle or its async slot. */
static uint8_t cycle_frame(const struct takt_frame *f)
{
    if (f->len <= PLK_OFF_SRC || plk_frame_src(f->data) != PLK_NODE_MN)
        return 0;
    uint8_t t = plk_frame_mtyp(f->data);
    return t == PLK_MTYP_SOC || t == PLK_MTYP_SOA ? t : 0;
}

/* Hand the frames rx[0..n) to the cores, each judged with what was read after it: a
 * later SoC closes every request before it (its cycle is over), a later SoA closes an
 * SoA's invitation too (its async slot is over; PreOp1 has SoA-only cycles). A PReq
 * is not closed by the SoA of its own cycle: its answer is late but still of this cycle,
 * and the MN takes it as late (as openPOWERLINK's MN does) rather than losing it. When
 * the socket may hold more (`more`), the frames from the last SoC or SoA on wait for
 * the next read, moved to the front; their number is returned. So a CN that could not
 * run for a while answers at most the requests of the cycle now running. */
static unsigned feed_batch(struct plk_cn_host *h, struct takt_frame *rx, unsigned n, bool more)
{
    int last_soc = -1, last_cyc = -1;
    for (unsigned i = 0; i < n; i++) {
        uint8_t c = cycle_frame(&rx[i]);
        if (c)
            last_cyc = (int)i;
        if (c == PLK_MTYP_SOC)
            last_soc = (int)i;
    }
    unsigned lim = n;
    if (more && last_cyc >= 0)
        /* a full hold that starts with the cycle frame cannot wait: that frame is then
         * judged by its time alone */
        lim = last_cyc > 0 || n < RX_HOLD ? (unsigned)last_cyc : 1;
    takt_ns_t now = takt_now();
    for (unsigned i = 0; i < lim; i++) {
        bool closed = (int)i < last_soc ||
                      ((int)i < last_cyc && cycle_frame(&rx[i]) == PLK_MTYP_SOA);
        feed(h, now, rx[i].ts ? rx[i].ts : now, closed, rx[i].data, rx[i].len);
    }
    /* the held frames to the front; their buffers go with them */
    for (unsigned i = lim; i < n; i++) {
        struct takt_frame t = rx[i - lim];
        rx[i - lim] = rx[i];
        rx[i] = t;
    }
    return n - lim;
}

int plk_cn_host_run(struct plk_cn_host *h, const volatile int *ext_stop)
{
    struct takt_frame rx[RX_HOLD];
    unsigned held = 0;
    _Static_assert(RX_HOLD <= TAKT_ARRAY_SIZE(h->rxbuf), "receive buffers for the batch");
    for (unsigned i = 0; i < RX_HOLD; i++)
        rx[i] = (struct takt_frame){ .data = h->rxbuf[i], .cap = TAKT_FRAME_BUF };
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);   /* launch times need precise wake-ups */
    takt_ns_t start = takt_now(), end = h->duration ? start + h->duration : INT64_MAX;
    h->next_periodic = start;
    while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED) && !(ext_stop && __atomic_load_n(ext_stop, __ATOMIC_RELAXED))) {
        takt_ns_t now = takt_now();
        if (now >= end)
            break;
        send_due(h, now);
        if (h->periodic && now >= h->next_periodic) {
            h->periodic(h->periodic_ctx, now);
            h->next_periodic = now + h->period;
        }
        takt_ns_t w = next_wake(h, now);
        if (w > end)
            w = end;
        int n = 0;
        unsigned room = RX_HOLD - held < RX_BATCH ? RX_HOLD - held : RX_BATCH;
        /* right after a frame, the next one of the cycle (another CN's PReq) usually
         * follows within a round trip: poll for it rather than sleep (spin_ns); with
         * frames held back, only what is queued already is read */
        takt_ns_t sp = h->spin_ns && !held ? h->last_rx + h->spin_ns : 0;
        /* a timed frame due soon: poll up to its launch rather than sleep to it (a
         * wake-up on a loaded host comes tens to hundreds of us late) */
        if (h->n_pend && !held && h->pend[0].launch - now <= PLK_HOST_LAUNCH_SPIN_NS)
            sp = h->pend[0].launch;
        /* the next SoC due soon: be awake for it (soc_lead_ns) */
        if (!held)
            plk_cn_host_soc_window(h, now, &w, &sp);
        for (; n == 0 && now < sp && now < w; now = takt_now())
            n = takt_link_recv(h->link, rx + held, room, 0);
        if (n == 0)
            n = takt_link_recv(h->link, rx + held, room, held || w <= now ? 0 : w - now);
        if (n < 0 && n != -EINTR && n != -EAGAIN)
            return n;
        if (n > 0)
            h->last_rx = takt_now();
        bool more = n > 0 && (unsigned)n == room;
        held = feed_batch(h, rx, held + (unsigned)(n > 0 ? n : 0), more);
        /* timers only after the frames that arrived meanwhile were seen: a late
         * wake-up must not turn a received SoC into a lost one */
        if (more || held)
            continue;
        now = takt_now();
        for (unsigned i = 0; i < h->n; i++)
            if (now >= plk_cn_deadline(h->cn[i])) {
                plk_cn_tick(h->cn[i], now, &h->q);
                plk_cn_host_dispatch(h);
            }
    }
    return 0;
}

/* --- public CN API ---------------------------------------------------------------- */
struct takt_plk_cn {
    struct plk_cn core;
    struct plk_cn *one[1];
    struct plk_cn_host host;
    takt_plk_cn_cycle_fn cb;
    void *cb_ctx;
    struct rt_evring ev;       /* NMT state changes and resets, put by the run thread */
    uint8_t seen_state;
    uint32_t seen_resets;
};

/* The run thread, at each SoC and every 10 ms: an event for a reset or a state change
 * since the last look, at the time the core changed state. */
#define CN_SCAN_NS (10 * TAKT_NS_PER_MS)
static void cn_scan(void *ctx, takt_ns_t now)
{
    struct takt_plk_cn *c = ctx;
    const struct plk_cn *k = &c->core;
    (void)now;
    if (k->resets != c->seen_resets) {
        c->seen_resets = k->resets;
        RT_EV(&c->ev, k->state_since, TAKT_PLK_EV_CN_RESET, k->cfg.id, 0, k->reset_cmd, k->state);
    } else if (k->state != c->seen_state) {
        RT_EV(&c->ev, k->state_since, TAKT_PLK_EV_CN_STATE, k->cfg.id, 0, k->state, c->seen_state);
    }
    c->seen_state = k->state;
}

bool takt_plk_cn_next_event(struct takt_plk_cn *cn, struct takt_event *ev)
{
    return rt_evring_next(&cn->ev, ev);
}

int takt_plk_cn_create(const struct takt_plk_cn_cfg *cfg, struct takt_plk_cn **out,
                       char *err, size_t errlen)
{
    struct takt_plk_cn *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    static const uint8_t zero_mac[6];
    int r = plk_cn_init(&c->core, cfg, zero_mac, takt_now());
    if (r) {
        snprintf(err, errlen, "node %u: invalid CN configuration (node ID 1..239, "
                 "payloads up to %u bytes)", cfg->id, PLK_ISOCHR_MAX_PAYL);
        free(c);
        return r;
    }
    c->one[0] = &c->core;
    c->seen_state = c->core.state;
    if (rt_evring_init(&c->ev, TAKT_EV_PLK, 256)) {
        free(c);
        return -ENOMEM;
    }
    *out = c;
    return 0;
}

void takt_plk_cn_destroy(struct takt_plk_cn *cn)
{
    if (cn)
        rt_evring_free(&cn->ev);
    free(cn);
}

void takt_plk_cn_set_callback(struct takt_plk_cn *cn, takt_plk_cn_cycle_fn fn, void *ctx)
{
    cn->cb = fn;
    cn->cb_ctx = ctx;
}

uint8_t *takt_plk_cn_inputs(struct takt_plk_cn *cn, size_t *len)
{
    if (len)
        *len = cn->core.cfg.in_size;
    return cn->core.in;
}

const uint8_t *takt_plk_cn_outputs(struct takt_plk_cn *cn, size_t *len)
{
    if (len)
        *len = cn->core.cfg.out_size;
    return cn->core.out;
}

int takt_plk_cn_state(const struct takt_plk_cn *cn)
{
    return __atomic_load_n(&cn->core.state, __ATOMIC_RELAXED);
}

/* The application's cycle: once per SoC, after the PReq of the last cycle delivered
 * its outputs and before this cycle's PRes takes the inputs. */
static void cn_on_soc(void *ctx, takt_ns_t now)
{
    struct takt_plk_cn *c = ctx;
    cn_scan(c, now);
    if (c->cb)
        c->cb(c->cb_ctx, c, now);
}

int takt_plk_cn_run(struct takt_plk_cn *cn, struct takt_link *link, const struct takt_plk_run_opts *o)
{
    memcpy(cn->core.mac, link->mac, 6);
    int r = plk_cn_host_init(&cn->host, cn->one, 1, link);
    if (r)
        return r;
    cn->host.duration = o ? o->duration : 0;
    cn->host.on_soc = cn_on_soc;
    cn->host.on_soc_ctx = cn;
    cn->host.periodic = cn_scan;
    cn->host.periodic_ctx = cn;
    cn->host.period = CN_SCAN_NS;
    struct takt_rt_state st;
    if (o)
        takt_rt_setup(&o->rt, &st, NULL, NULL);
    r = plk_cn_host_run(&cn->host, NULL);
    cn_scan(cn, takt_now());
    if (o)
        takt_rt_teardown(&st);
    return r;
}

void takt_plk_cn_stop(struct takt_plk_cn *cn) { __atomic_store_n(&cn->host.stop, 1, __ATOMIC_RELAXED); }
