/* EtherCAT master driver: binds the sans-I/O core (core.h) to a link, the clock and a
 * cycle thread, as plk/driver_mn.c does for the POWERLINK MN. One cycle: receive the
 * previous frames into the core, let it judge them, run the application, send the
 * cyclic frames, advance the core's timer, send the acyclic frames; each step timed
 * (EC-Master names). The driver also owns what concerns threads: the command ring that
 * other threads post into (master_cmd.c), drained before the core's entry points, and
 * who may put on the core's event ring. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ecat/driver.h"
#include "ecat/redund.h"
#include "ecat/sii.h"
#include "util/wire.h"

#define RX_BATCH 16

void takt_ecat_master_opts_default(struct takt_ecat_master_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_slaves = 128;
    o->cycle_ns = TAKT_NS_PER_MS;
    o->station_base = 0x1000;
    o->state_timeout_ns = 10 * TAKT_NS_PER_S;
    o->dg_timeout_ns = 50 * TAKT_NS_PER_MS;
    o->dc_mode = TAKT_ECAT_DC_MASTER_FOLLOWS_REF;
    o->acyc_frames = 4;
    o->sdo_timeout_ns = 3 * TAKT_NS_PER_S;
}

/* --- events: the structured ring of include/takt/event.h, in the core ------------- */

/* Whether this thread may put on the ring: the one producer is the thread that drives
 * the cycle (the master's RT thread while it runs, else the caller of the blocking
 * calls that drive it). */
static bool ring_producer(const struct ecat_core *m)
{
    int rt = __atomic_load_n(&m->ev_rt, __ATOMIC_ACQUIRE);
    return rt == 0 || (rt == 2 && pthread_equal(pthread_self(), m->ev_tid));
}

/* The core's time: the cycle (or service step) under way, or its creation. */
void ecat_ev_put(struct ecat_core *m, unsigned code, int unit, int err,
                 const int64_t *v, unsigned nv, const char *const *txt)
{
    takt_ns_t at = m->now;
    bool mine = ring_producer(m);
    if (!err) {
        if (mine)
            rt_ev_put(&m->ev, at, code, unit, 0, v, nv, txt);
        return;
    }
    struct takt_event ev;
    rt_ev_fill(&ev, TAKT_EV_ECAT, at, code, unit, err, v, nv, txt);
    ecat_ev_format(&ev, m->errmsg, sizeof m->errmsg);
    m->last_err = err;
    if (mine)
        rt_evring_push(&m->ev, &ev);
}

bool takt_ecat_master_next_ev(struct takt_ecat_master *m, struct takt_event *ev)
{
    return rt_evring_next(&m->core.ev, ev);
}

int takt_ecat_master_wait_ev(struct takt_ecat_master *m, takt_ns_t timeout_ns)
{
    return rt_evring_wait(&m->core.ev, timeout_ns);
}

uint64_t takt_ecat_master_events_dropped(const struct takt_ecat_master *m)
{
    return rt_evring_dropped(&m->core.ev);
}

bool takt_ecat_master_next_event_at(struct takt_ecat_master *m, char *buf, size_t len, takt_ns_t *at)
{
    struct takt_event ev;
    if (!rt_evring_next(&m->core.ev, &ev))
        return false;
    if (rt_ev_ring_format(&ev, buf, len) < 0)
        ecat_ev_format(&ev, buf, len);
    if (at)
        *at = ev.at;
    return true;
}

bool takt_ecat_master_next_event(struct takt_ecat_master *m, char *buf, size_t len)
{
    return takt_ecat_master_next_event_at(m, buf, len, NULL);
}

/* --- rates over 1/10/60 s --------------------------------------------------------- */

void ecat_rate_add(struct ecat_rate *r, takt_ns_t now, uint32_t sent, uint32_t lost)
{
    int64_t sec = now / TAKT_NS_PER_S;
    if (r->sec == 0)
        r->sec = sec;
    while (r->sec < sec) {               /* advance, clearing skipped seconds */
        r->cur = (r->cur + 1) % 61;
        r->sent[r->cur] = r->lost[r->cur] = 0;
        r->sec++;
        if (sec - r->sec > 61)
            r->sec = sec - 61;
    }
    r->sent[r->cur] += sent;
    r->lost[r->cur] += lost;
}

/* --- open/close ------------------------------------------------------------------- */

static int cycle_step(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake);

int takt_ecat_master_open(struct takt_ecat_master **out, struct takt_link *link,
                     const struct takt_ecat_master_opts *o, char *err, size_t errlen)
{
    struct takt_ecat_master_opts d;
    *out = NULL;
    if (!o) {
        takt_ecat_master_opts_default(&d);
        o = &d;
    }
    if (!link) {
        snprintf(err, errlen, "ecat master: expected a link, got none");
        return -EINVAL;
    }
    struct takt_ecat_master *m = calloc(1, sizeof *m);
    if (!m)
        goto nomem;
    pthread_mutex_init(&m->drive_mx, NULL);
    m->link = link;
    if (o->redundant) {
        int rc = ecat_red_open(link, o->redundant, &m->red, err, errlen);
        if (rc) {
            pthread_mutex_destroy(&m->drive_mx);
            free(m);
            return rc;
        }
        m->link = m->red;           /* every frame leaves by both ports */
    }
    int rc = ecat_core_init(&m->core, m->link->mac, m->link->name, o, takt_now(), err, errlen);
    if (rc) {
        if (m->red)
            takt_link_close(m->red);
        pthread_mutex_destroy(&m->drive_mx);
        free(m);
        return rc;
    }
    /* DC system time counts from 2000-01-01 (ETG.1000.4 distributed clocks); the core runs on monotonic time */
    struct timespec rt, mt;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mt);
    m->core.dc.offset = (rt.tv_sec - mt.tv_sec - 946684800LL) * TAKT_NS_PER_S + (rt.tv_nsec - mt.tv_nsec);
    m->rxbuf = calloc(RX_BATCH, TAKT_FRAME_BUF);
    m->rxf = calloc(RX_BATCH, sizeof *m->rxf);
    m->txf = calloc(o->acyc_frames > ECAT_MAX_CYC_DG ? o->acyc_frames : ECAT_MAX_CYC_DG,
                    sizeof *m->txf);
    if (!m->rxbuf || !m->rxf || !m->txf || rt_cmdring_init(&m->cmd, ECAT_CMD_RING))
        goto nomem;
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    if (rt_loop_init(&m->loop, o->cycle_ns, &ro, cycle_step, m))
        goto nomem;
    m->loop_init = true;
    struct { struct takt_perf_msmt *p; const char *n; } ms[] = {
        { &m->m_rx, "JOB_ProcessAllRxFrames" }, { &m->m_app, "App" },
        { &m->m_cyc, "JOB_SendAllCycFrames" }, { &m->m_timer, "JOB_MasterTimer" },
        { &m->m_acyc, "JOB_SendAcycFrames" },
    };
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(ms); i++) {
        /* 100 ns bins up to 1 ms: job durations are microseconds */
        if (takt_perf_msmt_init(ms[i].p, ms[i].n, 0, 100, 10000))
            goto nomem;
        takt_perf_set_add(&m->loop.perf, ms[i].p);
    }
    *out = m;
    return 0;
nomem:
    snprintf(err, errlen, "ecat master: out of memory for %u slaves", o->max_slaves);
    takt_ecat_master_close(m);
    return -ENOMEM;
}

void takt_ecat_master_close(struct takt_ecat_master *m)
{
    if (!m)
        return;
    if (m->loop.running) {
        takt_rt_loop_stop(&m->loop);
        takt_ecat_master_join(m);
    }
    if (m->loop_init) {
        struct takt_perf_msmt *ms[] = { &m->m_rx, &m->m_app, &m->m_cyc, &m->m_timer, &m->m_acyc };
        for (size_t i = 0; i < TAKT_ARRAY_SIZE(ms); i++)
            takt_perf_msmt_free(ms[i]);
        rt_loop_free(&m->loop);
    }
    ecat_cmd_cancel_all(m);
    ecat_rescan_free(m);
    rt_cmdring_free(&m->cmd);
    ecat_core_free(&m->core);
    free(m->rxbuf);
    free(m->rxf);
    free(m->txf);
    if (m->red)
        takt_link_close(m->red);
    pthread_mutex_destroy(&m->drive_mx);
    free(m);
}

/* --- the cycle -------------------------------------------------------------------- */

static int receive(struct takt_ecat_master *m, takt_ns_t timeout)
{
    int total = 0;
    for (;;) {
        for (unsigned i = 0; i < RX_BATCH; i++) {
            m->rxf[i].data = m->rxbuf + (size_t)i * TAKT_FRAME_BUF;
            m->rxf[i].cap = TAKT_FRAME_BUF;
            m->rxf[i].len = 0;
        }
        int n = takt_link_recv(m->link, m->rxf, RX_BATCH, timeout);
        if (n <= 0)
            return n < 0 ? n : total;
        for (int i = 0; i < n; i++)
            ecat_core_rx(&m->core, m->core.now, m->rxf[i].data, m->rxf[i].len, m->rxf[i].ts);
        total += n;
        timeout = 0;
        if (n < RX_BATCH)
            return total;
    }
}

/* What the core has to send now, sent. */
static int send_frames(struct takt_ecat_master *m, takt_ns_t now)
{
    unsigned max = m->core.o.acyc_frames > ECAT_MAX_CYC_DG ? m->core.o.acyc_frames : ECAT_MAX_CYC_DG;
    unsigned n = ecat_core_tx(&m->core, now, m->txf, max);
    if (!n)
        return 0;
    int rc = takt_link_send(m->link, m->txf, n);
    if (rc < 0)
        return rc;
    m->core.st.frames_sent += n;
    return 0;
}

static inline void timed(struct takt_ecat_master *m, struct takt_perf_msmt *pm, takt_ns_t *t)
{
    takt_ns_t n = takt_now();
    takt_perf_record(&m->loop.perf, pm, n - *t);
    *t = n;
}

int takt_ecat_master_cycle(struct takt_ecat_master *m, takt_ns_t now)
{
    struct ecat_core *c = &m->core;
    takt_ns_t t = takt_now();
    c->now = now;
    ecat_cmd_drain(m, now);         /* what other threads asked for, first */
    int rc = receive(m, 0);
    ecat_core_cycle(c, now);
    if (m->red) {
        struct takt_ecat_redundancy port;
        ecat_red_get(m->red, &port);
        ecat_red_check(c, &port, now);
    }
    /* this cycle's losses, for a callback that reads them; the RT thread's callback
     * reads the statistics where they are counted (takt_ecat_master_get_stats) */
    if (m->app_fn && c->configured && !c->threaded)
        ecat_snap_stats(c);
    timed(m, &m->m_rx, &t);
    if (m->app_fn && c->configured)
        m->app_fn(m->app_ctx, m, now);
    timed(m, &m->m_app, &t);
    /* the send time, not the wake-up: the reference clock may be set from it */
    int rc2 = send_frames(m, takt_now());
    timed(m, &m->m_cyc, &t);
    ecat_core_timer(c, now);
    timed(m, &m->m_timer, &t);
    int rc3 = send_frames(m, now);
    timed(m, &m->m_acyc, &t);
    c->st.cycles++;
    ecat_snap_publish(c);
    if (rc < 0)
        return rc;
    return rc2 < 0 ? rc2 : rc3;
}

static int cycle_step(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake)
{
    struct takt_ecat_master *m = ctx;
    struct ecat_core *c = &m->core;
    if (__atomic_load_n(&c->ev_rt, __ATOMIC_RELAXED) == 1) {   /* the ring's producer from now */
        c->ev_tid = pthread_self();
        __atomic_store_n(&c->ev_rt, 2, __ATOMIC_RELEASE);
    }
    /* a cyclic reply stamped after this cycle's deadline missed its cycle, however soon
     * the thread got round to reading it */
    c->rx_deadline = wake - loop->cyc.wake_dev;
    int rc = takt_ecat_master_cycle(m, wake);
    c->rx_deadline = 0;
    if (__atomic_load_n(&loop->stop, __ATOMIC_ACQUIRE) ||
        (loop->duration && wake + 2 * loop->cyc.period > loop->started + loop->duration))
        ecat_pub_publish(c);        /* the loop's last cycles: what readers find after it */
    if (c->o.dc && c->dc.active && c->o.dc_mode == TAKT_ECAT_DC_MASTER_FOLLOWS_REF && c->dc.shift_ns) {
        loop->cyc.next += c->dc.shift_ns;    /* shift the cycle towards the reference clock */
        c->dc.shift_ns = 0;
    }
    /* a link error (e.g. -ENOBUFS) costs this cycle's frames, which count as lost; the
     * loop goes on so that the network can recover */
    if (rc < 0 && m->link_errors++ == 0)
        ECAT_EVT(c, TAKT_ECAT_EV_LINK_ERROR, -1, RT_TXT(m->link->name), rc);
    return 0;
}

/* Between two cycles of a blocking tool: acyclic replies were processed by receive();
 * advance the state machines and send what they queued, without a cyclic frame. */
static int service(struct takt_ecat_master *m, takt_ns_t now)
{
    m->core.now = now;
    ecat_cmd_drain(m, now);
    ecat_core_timer(&m->core, now);
    int rc = send_frames(m, now);
    ecat_snap_publish(&m->core);
    return rc;
}

/* A link error ends a blocking call: it is recorded with a message (takt_ecat_master_error
 * is never empty after a failure), and an interface without a carrier is named as such
 * rather than by the errno the kernel's drop gives (ENOBUFS, ENETDOWN). */
static int link_fail(struct takt_ecat_master *drv, int rc, const char *what)
{
    struct ecat_core *m = &drv->core;
    if (m->errmsg[0] && m->last_err == rc)
        return rc;
    int carrier = takt_link_carrier(drv->link->name);   /* < 0 for a mem link: no interface */
    if (carrier == 0)
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_LINK_NO_CARRIER, -1, RT_TXT(drv->link->name));
    else if (carrier == -ENETDOWN)
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_LINK_DOWN, -1, RT_TXT(drv->link->name, drv->link->name));
    else
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_LINK_FAILED, -1, RT_TXT(what, drv->link->name), rc);
    return rc;
}

static int drive(struct takt_ecat_master *m, bool (*done)(struct ecat_core *m, void *ctx),
                 void *ctx, takt_ns_t timeout_ns)
{
    takt_ns_t end = takt_now() + timeout_ns, next = 0;
    for (;;) {
        takt_ns_t now = takt_now();
        int rc;
        /* cyclic frames at the configured period, as the RT loop would send them (so
         * loss accounting stays honest); acyclic work as fast as replies come back */
        if (now >= next) {
            rc = takt_ecat_master_cycle(m, now);
            next = now + m->core.o.cycle_ns;
        } else {
            rc = service(m, now);
        }
        if (rc < 0)
            return link_fail(m, rc, "sending");
        if (done(&m->core, ctx))
            return 0;
        if (now > end)
            return -ETIMEDOUT;
        takt_ns_t wait = next - takt_now();
        rc = receive(m, wait > 0 ? wait : 0);
        if (rc < 0)
            return link_fail(m, rc, "receiving");
    }
}

int ecat_master_drive(struct takt_ecat_master *m, bool (*done)(struct ecat_core *m, void *ctx),
                      void *ctx, takt_ns_t timeout_ns)
{
    bool took = ecat_drive_begin(m);
    int rc = drive(m, done, ctx, timeout_ns);
    ecat_drive_end(m, took);
    return rc;
}

void ecat_wait_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ecat_wait *w = ctx;
    (void)data;
    w->err = err;
    w->len = len;
    w->done = true;
}

static bool wait_check(struct ecat_core *m, void *ctx)
{
    (void)m;
    return ((struct ecat_wait *)ctx)->done;
}

int ecat_wait_drive(struct takt_ecat_master *m, struct ecat_wait *w, takt_ns_t timeout_ns)
{
    return ecat_master_drive(m, wait_check, w, timeout_ns);
}

/* --- bring-up --------------------------------------------------------------------- */

static bool scan_done(struct ecat_core *m, void *ctx)
{
    (void)ctx;
    return m->scan.state == MF_IDLE;
}

int takt_ecat_master_scan(struct takt_ecat_master *drv, takt_ns_t timeout_ns)
{
    struct ecat_core *m = &drv->core;
    ecat_core_scan(m, takt_now());
    int rc = ecat_master_drive(drv, scan_done, NULL, timeout_ns);
    if (rc == -ETIMEDOUT && !m->last_err)
        ECAT_FAIL(m, rc, TAKT_ECAT_EV_SCAN_TIMEOUT, -1, timeout_ns / TAKT_NS_PER_MS);
    if (rc)
        return rc;
    return m->last_err;
}

int takt_ecat_master_configure(struct takt_ecat_master *drv)
{
    struct ecat_core *m = &drv->core;
    if (!m->scan.done) {
        ECAT_FAIL(m, -EAGAIN, TAKT_ECAT_EV_CONFIGURE_UNSCANNED, -1);
        return -EAGAIN;
    }
    return ecat_layout(m);
}


unsigned takt_ecat_master_inputs_age(const struct takt_ecat_master *m) { return m->core.inputs_age; }

static bool state_done(struct ecat_core *m, void *ctx)
{
    (void)ctx;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].esm.f.state;
        if (st != SS_IDLE && st != SS_FAILED)
            return false;
    }
    return true;
}

int takt_ecat_master_set_state(struct takt_ecat_master *drv, uint8_t state, takt_ns_t timeout_ns)
{
    struct ecat_core *m = &drv->core;
    int rc = ecat_cmd_blocking(drv);
    if (rc)                         /* the RT thread runs: it takes the request */
        return rc < 0 ? rc : ecat_cmd_set_state(drv, -1, state, timeout_ns);
    bool took = ecat_drive_begin(drv);   /* the request applies at once, then the drive */
    rc = takt_ecat_master_request_state(drv, state);
    if (!rc)
        rc = ecat_master_drive(drv, state_done, NULL, timeout_ns);
    ecat_drive_end(drv, took);
    if (rc)
        return rc;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].esm.f.state == SS_FAILED)
            return m->slaves[i].esm.f.err ? m->slaves[i].esm.f.err : -TAKT_EALSTATUS;
    return 0;
}

/* --- one slave's state (BOOT for a firmware update while the others stay) ---------- */

static bool slave_settled(struct ecat_core *m, void *ctx)
{
    uint8_t st = m->slaves[*(unsigned *)ctx].esm.f.state;
    return st == SS_IDLE || st == SS_FAILED;
}

int takt_ecat_slave_set_state(struct takt_ecat_master *drv, unsigned pos, uint8_t state, takt_ns_t timeout_ns)
{
    struct ecat_core *m = &drv->core;
    int rc = ecat_cmd_blocking(drv);
    if (rc)                         /* the RT thread runs: it takes the request */
        return rc < 0 ? rc : pos > UINT16_MAX ? -ENOENT : ecat_cmd_set_state(drv, (int)pos, state, timeout_ns);
    rc = ecat_core_request_slave_state(m, pos, state, takt_now());
    if (rc)
        return rc;
    struct ecat_slave *s = &m->slaves[pos];
    rc = ecat_master_drive(drv, slave_settled, &pos, timeout_ns);
    if (rc)
        return rc;
    return s->esm.f.state == SS_FAILED ? (s->esm.f.err ? s->esm.f.err : -TAKT_EALSTATUS) : 0;
}

/* --- thread ----------------------------------------------------------------------- */

int takt_ecat_master_start(struct takt_ecat_master *m, const struct takt_rt_opts *o, takt_ns_t duration_ns)
{
    if (o)
        m->loop.opts = *o;
    m->loop.duration = duration_ns;
    m->loop.on_end = rt_evring_wake_fn;   /* a reader in takt_ecat_master_wait_ev sees the end */
    m->loop.on_end_arg = &m->core.ev;
    /* from now on the RT thread alone applies what other threads post, this one's calls
     * included: none applies at once until its first drain names it the cycle's */
    atomic_store_explicit(&m->cycle_self, 0, memory_order_relaxed);
    atomic_store_explicit(&m->rt_on, true, memory_order_release);
    __atomic_store_n(&m->core.ev_rt, 1, __ATOMIC_RELEASE);
    m->core.threaded = true;        /* before the thread: its first cycle reads it */
    int rc = takt_rt_loop_start(&m->loop);
    if (rc) {
        m->core.threaded = false;
        atomic_store_explicit(&m->rt_on, false, memory_order_release);
        __atomic_store_n(&m->core.ev_rt, 0, __ATOMIC_RELEASE);
    }
    return rc;
}

void takt_ecat_master_stop(struct takt_ecat_master *m) { takt_rt_loop_stop(&m->loop); }

/* Read replies until `until`, each judged against the deadline the core holds. */
static void receive_until(struct takt_ecat_master *m, takt_ns_t until)
{
    for (;;) {
        takt_ns_t now = takt_now();
        if (receive(m, now < until ? until - now : 0) < 0 || now >= until)
            break;
    }
}

/* The cycle the loop stopped in is judged like every other: its replies are awaited to
 * the end of its cycle (the wake-up the loop had planned next), each judged against
 * that deadline, and a frame that did not come is counted lost. Acyclic requests still
 * in flight are given their timeout (dg_timeout_ns) too, then expire as they would
 * have. Without it a frame dropped at the stop would be missing from the losses. */
static void close_last_cycle(struct takt_ecat_master *m)
{
    struct ecat_core *c = &m->core;
    takt_ns_t due = m->loop.cyc.next;
    if (!m->loop.cyc.cycles || !c->px)
        return;
    c->rx_deadline = due;
    receive_until(m, due);
    c->rx_deadline = 0;
    ecat_core_close(c, due);
    takt_ns_t acyc = ecat_core_acyc_due(c);
    if (acyc) {
        receive_until(m, acyc);
        ecat_core_expire(c, acyc > due ? acyc : due);
    }
    ecat_snap_publish(c);
}

int takt_ecat_master_join(struct takt_ecat_master *m)
{
    int rc = takt_rt_loop_join(&m->loop);
    m->core.threaded = false;
    close_last_cycle(m);
    ecat_pub_publish(&m->core);     /* the RT thread's last state, for readers from now */
    __atomic_store_n(&m->core.ev_rt, 0, __ATOMIC_RELEASE);
    /* the RT thread has ended: the next thread to drive the cycle drains the ring */
    atomic_store_explicit(&m->cycle_self, 0, memory_order_relaxed);
    atomic_store_explicit(&m->rt_on, false, memory_order_release);
    return rc;
}
struct takt_rt_loop *takt_ecat_master_loop(struct takt_ecat_master *m) { return &m->loop; }

void takt_ecat_master_set_callback(struct takt_ecat_master *m, takt_ecat_cyclic_fn fn, void *ctx)
{
    m->app_fn = fn;
    m->app_ctx = ctx;
}

/* --- queries ---------------------------------------------------------------------- */


unsigned takt_ecat_master_slave_count(const struct takt_ecat_master *m) { return m->core.n_slaves; }

int takt_ecat_master_slave_info(const struct takt_ecat_master *drv, unsigned pos, struct takt_ecat_slave_info *out)
{
    const struct ecat_core *m = &drv->core;
    if (pos >= m->n_slaves)
        return -ENOENT;
    *out = m->slaves[pos].info;
    return 0;
}

const uint8_t *takt_ecat_slave_sii(const struct takt_ecat_master *drv, unsigned pos, size_t *len)
{
    const struct ecat_core *m = &drv->core;
    if (pos >= m->n_slaves)
        return NULL;
    *len = m->slaves[pos].scan.sii_len;
    return m->slaves[pos].scan.sii;
}

const char *takt_ecat_master_error(const struct takt_ecat_master *m) { return m->core.errmsg; }
