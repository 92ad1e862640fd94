/* MN driver: binds the MN core to a link and an takt_rt_loop. Wakes for each SoC on an
 * absolute deadline, waits for each PRes with a receive timeout (PResTimeout 0x1F92),
 * then serves the async slot until just before the next SoC; measures each job. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "plk/driver.h"
#include "plk/mn_info.h"
#include "rt/loop.h"
#include "plk/frame.h"
#include "util/wire.h"

#define RX_BATCH 16
#define TX_SLOTS 64
/* stop serving the async slot this long before the next SoC deadline, so the step
 * ends before it (the receive wake-up itself is late by up to the timer slack, which
 * is set to 1 ns for this thread) */
#define ASYNC_GUARD_NS 40000

struct takt_plk_mn {
    struct plk_mn core;
    struct takt_link *link;
    struct takt_rt_loop loop;
    bool loop_ok, started;
    bool thread_set;         /* the RT thread's first step ran (cleared at each start) */
    struct plk_txf tx[TX_SLOTS];
    struct plk_txq q;
    struct takt_frame rxf[RX_BATCH];
    uint8_t rxbuf[RX_BATCH][TAKT_FRAME_BUF];
    struct takt_perf_msmt m_soc, m_isoch, m_async, m_app, m_cpu;
    bool thread_cpu;         /* measure the thread's CPU per cycle (takt_plk_run_opts) */
    takt_ns_t cpu_prev;      /* thread CPU time at the start of the previous step */
    takt_ns_t spin_ns;       /* busy-poll this long for a PRes before sleeping (0 = never) */
    unsigned spin_miss;      /* PRes that came later than spin_ns: +4 each, -1 per hit */
    bool invited, answered;  /* this cycle's SoA asked a CN for an answer; it came */
    uint8_t invited_node;
    bool rx_full;            /* the last receive filled its batch: more may wait */
    bool rx_left;            /* the last cycle may have left frames to read (mn_step) */
    takt_ns_t sent_at;       /* the clock read of the last flush that sent (mn_flush) */
    /* Statistics published by the RT thread at the end of each cycle for other threads
     * (takt_plk_mn_get_stats / _node_stats): a sequence lock, odd while it writes. The
     * words are stored with release and loaded with acquire (no fences): a reader that
     * loads any word of a write in progress sees the odd sequence (or a later one) when
     * it reads the sequence again, and reads again. */
    unsigned pub_seq;
    uint64_t pub_mn[(sizeof(struct takt_plk_mn_stats) + 7) / 8];
    uint64_t pub_node[PLK_NODE_CN_MAX + 1][(sizeof(struct takt_plk_node_stats) + 7) / 8];
    takt_plk_mn_cycle_fn cb;
    void *cb_ctx;
    struct plk_mn_events ev;   /* per-node events, pushed in publish() */
    struct plk_mn_pub info;    /* boot steps, last resets: takt_plk_mn_node_info */
    struct plk_drv_sdo sdo;    /* SDO requests of other threads (driver_sdo.c) */
};

static takt_ns_t thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (takt_ns_t)ts.tv_sec * TAKT_NS_PER_S + ts.tv_nsec;
}

/* Send everything the core queued (MN frames have no launch time). */
int plk_drv_flush(struct takt_link *link, struct plk_txq *q, takt_ns_t ts)
{
    struct takt_frame f[TX_SLOTS];
    unsigned n = q->n < TX_SLOTS ? q->n : TX_SLOTS;
    for (unsigned i = 0; i < n; i++)
        f[i] = (struct takt_frame){ .data = q->f[i].data, .len = q->f[i].len, .ts = ts };
    q->n = 0;
    return n ? takt_link_send(link, f, n) : 0;
}

/* Send what the core queued; note whether a SoA in it invites an answer (any service
 * but NoService, addressed to a CN rather than to the MN itself), so the async slot is
 * only waited out when something can come in it. The send time is read just before
 * the send and given to the core (a PReq's PRes latency, timeout and the staleness of
 * a PRes count from it, not from the frame or wake-up that triggered it) and to a
 * capture tap (so the capture's send stamps are the same). A PRes cannot be stamped
 * before this read if it answers the PReq; one that arrives while the send syscall
 * runs still looks in time: no kernel transmit stamp is read (one more syscall). */
static void mn_flush(struct takt_plk_mn *m)
{
    if (!m->q.n)
        return;
    takt_ns_t t = takt_now();
    for (unsigned i = 0; i < m->q.n; i++) {
        const uint8_t *d = m->q.f[i].data;
        if (m->q.f[i].len > PLK_SOA_OFF_TARGET && plk_frame_mtyp(d) == PLK_MTYP_SOA &&
            d[PLK_SOA_OFF_SVID] != PLK_SOA_NO_SERVICE && d[PLK_SOA_OFF_TARGET] != PLK_NODE_MN) {
            m->invited = true;
            m->invited_node = d[PLK_SOA_OFF_TARGET];
        }
    }
    plk_drv_flush(m->link, &m->q, t);
    plk_mn_sent(&m->core, t);
    m->sent_at = t;
}

static int receive(struct takt_plk_mn *m, takt_ns_t timeout)
{
    int n = takt_link_recv(m->link, m->rxf, RX_BATCH, timeout > 0 ? timeout : 0);
    m->rx_full = n == RX_BATCH;
    takt_ns_t read = n > 0 ? takt_now() : 0;
    for (int i = 0; i < n; i++) {
        /* the receive time: kernel timestamp where the link has one */
        takt_ns_t t = m->rxf[i].ts ? m->rxf[i].ts : read;
        const uint8_t *d = m->rxf[i].data;
        if (m->invited && m->rxf[i].len > PLK_OFF_SRC && plk_frame_mtyp(d) == PLK_MTYP_ASND &&
            d[PLK_OFF_SRC] == m->invited_node)
            m->answered = true;
        /* a PRes taken: how long after its PReq this thread read it (the core judged it
         * by its stamp; the difference is the MN's own lateness) */
        struct plk_mn_node *pn = m->rxf[i].len > PLK_OFF_SRC && plk_frame_mtyp(d) == PLK_MTYP_PRES &&
                                 PLK_IS_CN(d[PLK_OFF_SRC]) ? m->core.node[d[PLK_OFF_SRC]] : NULL;
        uint64_t taken = pn ? pn->st.pres_ok + pn->st.pres_late : 0;
        plk_mn_rx(&m->core, t, m->rxf[i].data, m->rxf[i].len, &m->q);
        if (pn && pn->st.pres_ok + pn->st.pres_late != taken &&
            read - pn->preq_sent > pn->st.pres_read_lat_max)
            pn->st.pres_read_lat_max = read - pn->preq_sent;
        mn_flush(m);
    }
    return n;
}

/* Wait for the PRes until `until`. Sleeping in ppoll and being woken costs a VM
 * more CPU than a PRes round trip over veth (docs/powerlink.md, "Where the MN's time
 * goes"), so poll without blocking for up to spin_ns first, then sleep. Whether the
 * PRes came within spin_ns is tracked (+4 per miss, -1 per hit, like the DLL error
 * counters): while they mostly come later, e.g. because the CNs share this CPU,
 * spinning would only add CPU and is skipped. */
static void wait_pres(struct takt_plk_mn *m, takt_ns_t now, takt_ns_t until)
{
    bool spin = m->spin_ns && m->spin_miss < 32;
    takt_ns_t end = now + m->spin_ns < until ? now + m->spin_ns : until;
    int n = 0;
    if (spin) {
        do
            n = receive(m, 0);
        while (n == 0 && takt_now() < end);
    }
    if (n == 0)
        n = receive(m, until - takt_now());
    if (n > 0 && m->spin_ns) {
        if (m->rxf[0].ts - now <= m->spin_ns)
            m->spin_miss -= m->spin_miss > 0;
        else if (m->spin_miss < 64)
            m->spin_miss += 4;
    } else if (n == 0 && m->spin_ns && m->spin_miss < 64) {
        m->spin_miss += 4;
    }
}

/* Word by word from the source, for the MN and every CN each cycle (no staging copy;
 * inlined with a constant len: a load and a store per word); zero past len. */
static inline __attribute__((always_inline)) void words_store(uint64_t *dst, const void *src, size_t len)
{
    const uint8_t *p = src;
    size_t i = 0;
#pragma GCC unroll 32
    for (; (i + 1) * 8 <= len; i++) {
        uint64_t w;
        memcpy(&w, p + i * 8, 8);
        __atomic_store_n(&dst[i], w, __ATOMIC_RELEASE);
    }
    if (i * 8 < len) {
        uint64_t w = 0;
        memcpy(&w, p + i * 8, len - i * 8);
        __atomic_store_n(&dst[i], w, __ATOMIC_RELEASE);
    }
}

static void words_load(void *dst, const uint64_t *src, size_t len)
{
    uint64_t w[(sizeof(struct takt_plk_node_stats) > sizeof(struct takt_plk_mn_stats)
                ? sizeof(struct takt_plk_node_stats) : sizeof(struct takt_plk_mn_stats)) / 8 + 1];
    for (size_t i = 0; i < (len + 7) / 8; i++)
        w[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
    memcpy(dst, w, len);
}

static void node_snapshot(const struct plk_mn_node *n, struct takt_plk_node_stats *s)
{
    *s = n->st;
    s->state = n->state;
    s->in_cycle = n->in_cycle;
}

/* RT thread: publish the statistics of the cycle just run (sequence lock writer); now
 * is the cycle's end, the time of the events it finds. */
static void publish(struct takt_plk_mn *m, takt_ns_t now)
{
    unsigned seq = m->pub_seq;   /* this thread is the only writer */
    __atomic_store_n(&m->pub_seq, seq + 1, __ATOMIC_RELAXED);
    struct takt_plk_mn_stats st = m->core.st;
    st.state = m->core.state;
    words_store(m->pub_mn, &st, sizeof st);
    for (unsigned i = 0; i < m->core.n_ids; i++) {
        struct takt_plk_node_stats ns;
        node_snapshot(m->core.node[m->core.ids[i]], &ns);
        words_store(m->pub_node[m->core.ids[i]], &ns, sizeof ns);
    }
    __atomic_store_n(&m->pub_seq, seq + 2, __ATOMIC_RELEASE);
    plk_mn_pub_update(&m->info, &m->core, now);
    plk_mn_events_scan(&m->ev, &m->core, now);
}

/* Any thread: a consistent copy of what the RT thread published (sequence lock reader;
 * the writer holds it for microseconds once a cycle, so the retry is rare). */
static void read_published(const struct takt_plk_mn *m, void *dst, const uint64_t *src, size_t len)
{
    for (;;) {
        unsigned s1 = __atomic_load_n(&m->pub_seq, __ATOMIC_ACQUIRE);
        if (!(s1 & 1)) {
            words_load(dst, src, len);
            if (__atomic_load_n(&m->pub_seq, __ATOMIC_RELAXED) == s1)
                return;
        }
        sched_yield();
    }
}

static int mn_step(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake)
{
    struct takt_plk_mn *m = ctx;
    if (!m->thread_set) {
        /* once per thread, not per cycle: both are properties of the thread */
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);   /* default 50 µs would overrun the SoC */
        plk_drv_sdo_bind(&m->sdo);
        m->thread_set = true;
    }
    /* CPU per cycle of the RT thread alone, when asked for (its distribution; the
     * process's figure over the whole run is takt_rt_loop's, read at the run's edges
     * only): the thread's CPU time from one step's start to the next, so the wake-up
     * from the SoC sleep and the loop's bookkeeping count too (kernel work done in this
     * thread's context, such as veth delivering our frames to the peer in softirq, is
     * in it: this kernel has no IRQ_TIME_ACCOUNTING). The thread CPU clock is not in
     * the vDSO: each read is a system call, which the cycle itself does not need. */
    if (m->thread_cpu) {
        takt_ns_t cpu0 = thread_cpu();
        if (m->cpu_prev)
            takt_perf_record(&loop->perf, &m->m_cpu, cpu0 - m->cpu_prev);
        m->cpu_prev = cpu0;
    }
    m->invited = m->answered = false;
    plk_drv_sdo_pump(&m->sdo, &m->core);   /* other threads' SDO requests, first */
    /* what the last cycle left is read before the core judges it as this cycle starts:
     * late PRes and async answers, frames behind a flood (bounded, so a flood cannot
     * hold off the SoC for long). Each is judged by its stamp. When that cycle's own
     * waits read all it expected (rx_left) the non-blocking receive, a system call that
     * would find nothing, is left out: a frame nobody asked for that came after them
     * is read by this cycle's first wait and judged the same there by its stamp
     * (unexpected: it answers no request of this cycle either). */
    if (m->rx_left)
        for (unsigned k = 0; k < 64 && receive(m, 0) == RX_BATCH; k++)
            ;
    plk_mn_cycle(&m->core, wake, &m->q);
    mn_flush(m);
    takt_ns_t t1 = takt_now();
    takt_perf_record(&loop->perf, &m->m_soc, t1 - wake);
    /* isochronous phase: one PRes after another, each with its timeout */
    takt_ns_t next = loop->cyc.next;
    takt_ns_t now = t1;
    while (plk_mn_busy(&m->core)) {
        if (now >= next - ASYNC_GUARD_NS)
            break;   /* cycle time exceeded: the core counts it at the next SoC */
        if (m->core.phase == MNP_CHAIN && now < m->core.chain_expect &&
            m->core.chain_expect < next - ASYNC_GUARD_NS) {
            /* chained PRes need no reaction one by one: sleep until the last should be
             * in and read them in batches (their arrival times are kernel stamps), one
             * wake-up instead of one per CN */
            struct timespec ts = { m->core.chain_expect / TAKT_NS_PER_S,
                                   m->core.chain_expect % TAKT_NS_PER_S };
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
            unsigned k = 0;
            while (plk_mn_busy(&m->core) && k++ < 32 && receive(m, 0) > 0)
                ;
            now = takt_now();
            continue;
        }
        takt_ns_t d = plk_mn_deadline(&m->core);
        if (now >= d) {
            /* woken late: a PRes may already wait in the socket; judge it first */
            receive(m, 0);
            if (plk_mn_busy(&m->core) && plk_mn_deadline(&m->core) == d) {
                plk_mn_tick(&m->core, now, &m->q);
                mn_flush(m);
            }
            now = takt_now();
            continue;
        }
        m->sent_at = 0;
        wait_pres(m, now, d < next ? d : next);
        /* The wait ends with the receive that took the PRes; the next PReq it sent read
         * the clock just before its send, microseconds ago: that read serves as now, one
         * read less per CN. It can only be early: a deadline passed since is found on the
         * next pass, whose wait then receives without waiting. */
        now = m->sent_at ? m->sent_at : takt_now();
    }
    takt_ns_t t2 = takt_now();
    takt_perf_record(&loop->perf, &m->m_isoch, t2 - t1);
    /* async slot: the invited answer comes within AsyncSlotTimeout (0x1F8A/2) of the
     * SoA; later ones are taken at the next cycle's start. Returning early lets the
     * loop sleep on the absolute SoC deadline instead of a receive timeout; with no
     * answer invited, or once it came, there is nothing to wait for (one sleep and
     * wake-up less). */
    takt_ns_t t3 = t2;   /* nothing invited: no wait, no clock read */
    if (m->invited) {
        takt_ns_t slot_end = t2 + (takt_ns_t)m->core.cfg.async_slot_timeout_ns;
        if (slot_end > next - ASYNC_GUARD_NS)
            slot_end = next - ASYNC_GUARD_NS;
        for (;;) {
            now = takt_now();
            if (now >= slot_end || m->answered)
                break;
            receive(m, slot_end - now);
        }
        t3 = takt_now();
    }
    takt_perf_record(&loop->perf, &m->m_async, t3 - t2);
    takt_ns_t t4 = t3;   /* no application: no clock read for it */
    if (m->cb) {
        m->cb(m->cb_ctx, m, t3);
        t4 = takt_now();
    }
    takt_perf_record(&loop->perf, &m->m_app, t4 - t3);
    /* frames may wait unread when a batch came full, a polled CN's PRes is missing (it
     * may come late), the invited answer did not come, or the isochronous phase did not
     * end (cycle exceeded; NotActive, where that receive listens for another MN) */
    m->rx_left = m->rx_full || m->core.phase != MNP_ASYNC || (m->invited && !m->answered) ||
                 plk_mn_pres_missing(&m->core);
    publish(m, t4);
    return 0;
}

static int mn_new(const struct plk_net_config *nc, struct takt_plk_mn **out, char *err, size_t errlen)
{
    struct takt_plk_mn *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    static const uint8_t zero_mac[6];
    int r = plk_mn_init(&m->core, nc, zero_mac, takt_now(), err, errlen);
    if (!r && (r = plk_mn_events_init(&m->ev))) {
        plk_mn_free(&m->core);
        snprintf(err, errlen, "out of memory");
    } else if (!r && (r = plk_drv_sdo_init(&m->sdo))) {
        plk_mn_events_free(&m->ev);
        plk_mn_free(&m->core);
        snprintf(err, errlen, "out of memory");
    }
    if (r) {
        free(m);
        return r;
    }
    m->q.f = m->tx;
    m->q.cap = TX_SLOTS;
    m->spin_ns = PLK_DRV_MN_SPIN_DEFAULT_NS;
    for (unsigned i = 0; i < RX_BATCH; i++)
        m->rxf[i] = (struct takt_frame){ .data = m->rxbuf[i], .cap = TAKT_FRAME_BUF };
    *out = m;
    return 0;
}

int takt_plk_mn_create(const struct takt_plk_mn_cfg *cfg, struct takt_plk_mn **out,
                       char *err, size_t errlen)
{
    struct plk_net_config *nc = malloc(sizeof *nc);
    if (!nc)
        return -ENOMEM;
    int r = plk_mn_cfg_to_net(cfg, nc, err, errlen);
    if (!r)
        r = mn_new(nc, out, err, errlen);
    free(nc);
    return r;
}

int plk_drv_mn_create(const struct plk_net_config *nc, struct takt_plk_mn **out,
                      char *err, size_t errlen)
{
    return mn_new(nc, out, err, errlen);
}

struct plk_mn *plk_drv_mn_core(struct takt_plk_mn *mn) { return &mn->core; }
struct plk_mn_pub *plk_drv_mn_pub(struct takt_plk_mn *mn) { return &mn->info; }
struct plk_drv_sdo *plk_drv_mn_sdo(struct takt_plk_mn *mn) { return &mn->sdo; }

/* Written by the RT thread as the transfer completes, before the caller is woken. */
uint32_t takt_plk_mn_sdo_abort_code(const struct takt_plk_mn *mn)
{
    return atomic_load_explicit(&mn->sdo.last_abort, memory_order_acquire);
}

bool takt_plk_mn_next_event(struct takt_plk_mn *mn, struct takt_event *ev) { return rt_evring_next(&mn->ev.ring, ev); }
int takt_plk_mn_wait_event(struct takt_plk_mn *mn, takt_ns_t timeout_ns) { return rt_evring_wait(&mn->ev.ring, timeout_ns); }

void plk_drv_mn_set_spin(struct takt_plk_mn *mn, takt_ns_t ns)
{
    mn->spin_ns = ns > 0 ? ns : 0;
    mn->spin_miss = 0;
}

void takt_plk_mn_destroy(struct takt_plk_mn *mn)
{
    if (!mn)
        return;
    if (mn->started)
        takt_plk_mn_join(mn);
    if (mn->loop_ok) {
        rt_loop_free(&mn->loop);
        struct takt_perf_msmt *jobs[] = { &mn->m_soc, &mn->m_isoch, &mn->m_async, &mn->m_app, &mn->m_cpu };
        for (unsigned i = 0; i < TAKT_ARRAY_SIZE(jobs); i++)
            takt_perf_msmt_free(jobs[i]);
    }
    plk_drv_sdo_free(&mn->sdo, &mn->core);
    plk_mn_free(&mn->core);
    plk_mn_events_free(&mn->ev);
    free(mn);
}

void takt_plk_mn_set_callback(struct takt_plk_mn *mn, takt_plk_mn_cycle_fn fn, void *ctx)
{
    mn->cb = fn;
    mn->cb_ctx = ctx;
}

uint8_t *takt_plk_mn_outputs(struct takt_plk_mn *mn, unsigned node, size_t *len)
{
    struct plk_mn_node *n = PLK_IS_CN(node) ? mn->core.node[node] : NULL;
    if (len)
        *len = n ? n->out_size : 0;
    return n ? n->out : NULL;
}

const uint8_t *takt_plk_mn_inputs(struct takt_plk_mn *mn, unsigned node, size_t *len)
{
    struct plk_mn_node *n = PLK_IS_CN(node) ? mn->core.node[node] : NULL;
    if (len)
        *len = n ? n->in_size : 0;
    return n ? n->in : NULL;
}

/* While the RT thread runs, the copy it published at the end of its last cycle;
 * before the start and after the join, the core's own figures. */
void takt_plk_mn_get_stats(const struct takt_plk_mn *mn, struct takt_plk_mn_stats *s)
{
    if (__atomic_load_n(&mn->started, __ATOMIC_ACQUIRE)) {
        read_published(mn, s, mn->pub_mn, sizeof *s);
        return;
    }
    *s = mn->core.st;
    s->state = mn->core.state;
}

int takt_plk_mn_node_stats(const struct takt_plk_mn *mn, unsigned node, struct takt_plk_node_stats *s)
{
    const struct plk_mn_node *n = PLK_IS_CN(node) ? mn->core.node[node] : NULL;
    if (!n)
        return -ENOENT;
    if (__atomic_load_n(&mn->started, __ATOMIC_ACQUIRE))
        read_published(mn, s, mn->pub_node[node], sizeof *s);
    else
        node_snapshot(n, s);
    return 0;
}

static int add_msmt(struct takt_plk_mn *m, struct takt_perf_msmt *pm, const char *name, takt_ns_t range)
{
    takt_ns_t bin = range / 2000 > 1000 ? range / 2000 : 1000;
    int r = takt_perf_msmt_init(pm, name, 0, bin, (uint32_t)(range / bin + 1));
    return r ? r : takt_perf_set_add(&m->loop.perf, pm);
}

int takt_plk_mn_start(struct takt_plk_mn *mn, struct takt_link *link, const struct takt_plk_run_opts *o)
{
    memcpy(mn->core.mac, link->mac, 6);
    mn->link = link;
    int r = rt_loop_init(&mn->loop, mn->core.cycle_ns, &o->rt, mn_step, mn);
    if (r)
        return r;
    mn->loop_ok = true;
    mn->loop.duration = o->duration;
    mn->loop.on_end = rt_evring_wake_fn;   /* a reader in takt_plk_mn_wait_event sees the end */
    mn->loop.on_end_arg = &mn->ev.ring;
    /* the loop's wake-ups are the SoC deadlines */
    snprintf(mn->loop.m_cycle.name, sizeof mn->loop.m_cycle.name, "SoC Period");
    snprintf(mn->loop.m_wake.name, sizeof mn->loop.m_wake.name, "SoC Wake Deviation");
    takt_ns_t range = mn->core.cycle_ns * 2;
    if ((r = add_msmt(mn, &mn->m_soc, "JOB_SendSoC", range)) ||
        (r = add_msmt(mn, &mn->m_isoch, "JOB_IsochronousPhase", range)) ||
        (r = add_msmt(mn, &mn->m_async, "JOB_AsyncPhase", range)) ||
        (r = add_msmt(mn, &mn->m_app, "JOB_Application", range)) ||
        (o->thread_cpu && (r = add_msmt(mn, &mn->m_cpu, "CPU per Cycle", range))))
        return r;
    mn->thread_cpu = o->thread_cpu;
    mn->cpu_prev = 0;
    mn->rx_left = true;        /* whatever came before the start is read first */
    publish(mn, takt_now());   /* before the RT thread exists: readers see the initial figures */
    mn->thread_set = false;    /* a new thread: its first step sets it up */
    r = takt_rt_loop_start(&mn->loop);
    if (!r)
        __atomic_store_n(&mn->started, true, __ATOMIC_RELEASE);
    return r;
}

void takt_plk_mn_stop(struct takt_plk_mn *mn)
{
    /* any thread, also while another joins: started is the join's atomic hand-off */
    if (__atomic_load_n(&mn->started, __ATOMIC_ACQUIRE))
        takt_rt_loop_stop(&mn->loop);
}

/* The cycle the loop stopped in is judged like every other: what arrives until its end
 * (the SoC the loop had planned next) is read, each frame judged by its stamp, then
 * the PReqs left without a PRes count as lost. Without it a PRes lost in the last
 * cycle would be in no count. The MN has stopped: what the core would answer is not
 * sent. */
static void close_last_cycle(struct takt_plk_mn *m)
{
    takt_ns_t due = m->loop.cyc.next;
    if (!m->loop.cyc.cycles)
        return;
    for (unsigned k = 0; k < 64; k++) {
        takt_ns_t now = takt_now();
        int n = takt_link_recv(m->link, m->rxf, RX_BATCH, now < due ? due - now : 0);
        takt_ns_t read = takt_now();
        for (int i = 0; i < n; i++) {
            plk_mn_rx(&m->core, m->rxf[i].ts ? m->rxf[i].ts : read, m->rxf[i].data, m->rxf[i].len, &m->q);
            m->q.n = 0;
        }
        if (n < 0 || (read >= due && n < RX_BATCH))
            break;
    }
    plk_mn_close(&m->core, due);
}

int takt_plk_mn_join(struct takt_plk_mn *mn)
{
    if (!mn->started)
        return 0;
    int r = takt_rt_loop_join(&mn->loop);
    close_last_cycle(mn);
    /* its id may be another thread's from now on */
    atomic_store_explicit(&mn->sdo.rt_self, 0, memory_order_relaxed);
    /* the RT thread has ended: statistics come from the core again */
    __atomic_store_n(&mn->started, false, __ATOMIC_RELEASE);
    return r;
}

int takt_plk_mn_send_eth(struct takt_plk_mn *mn, const void *frame, size_t len)
{
    struct plk_mn_eth *e = &mn->core.eth;
    if (len < 14 || len > (size_t)mn->core.cfg.async_mtu + 14 || len > sizeof e->data)
        return -EMSGSIZE;
    if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE))
        return -EBUSY;
    memcpy(e->data, frame, len);
    e->len = (uint16_t)len;
    __atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
    return 0;
}

struct takt_rt_loop *takt_plk_mn_loop(struct takt_plk_mn *mn) { return mn->loop_ok ? &mn->loop : NULL; }

int takt_plk_mn_sdo_read(struct takt_plk_mn *mn, unsigned node, uint16_t index, uint8_t sub,
                         void *buf, size_t cap, size_t *len, takt_ns_t timeout_ns)
{
    return plk_drv_sdo_call(&mn->sdo, &mn->loop, false, node, index, sub, buf, cap, len, timeout_ns);
}

int takt_plk_mn_sdo_write(struct takt_plk_mn *mn, unsigned node, uint16_t index, uint8_t sub,
                          const void *data, size_t len, takt_ns_t timeout_ns)
{
    return plk_drv_sdo_call(&mn->sdo, &mn->loop, true, node, index, sub, (void *)data, len, NULL,
                            timeout_ns);
}
