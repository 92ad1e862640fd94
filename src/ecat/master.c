/* EtherCAT master driver: binds the sans-I/O cores to a link and a cycle. One cycle:
 * receive and process the previous frames, run the application, send the cyclic frames,
 * advance the master timer, send acyclic frames; each step timed (EC-Master names). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ecat/master_internal.h"
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

/* --- events: the structured ring of include/takt/event.h ------------------------- */

/* Whether this thread may put on the ring: the one producer is the thread that drives
 * the cycle (the master's RT thread while it runs, else the caller of the blocking
 * calls that drive it). */
static bool ring_producer(const struct takt_ecat_master *m)
{
    int rt = __atomic_load_n(&m->ev_rt, __ATOMIC_ACQUIRE);
    return rt == 0 || (rt == 2 && pthread_equal(pthread_self(), m->ev_tid));
}

void ecat_ev_put(struct takt_ecat_master *m, unsigned code, int unit, int err,
                 const int64_t *v, unsigned nv, const char *const *txt)
{
    takt_ns_t at = m->now ? m->now : takt_now();   /* raised before any cycle */
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
    return rt_evring_next(&m->ev, ev);
}

uint64_t takt_ecat_master_events_dropped(const struct takt_ecat_master *m)
{
    return rt_evring_dropped(&m->ev);
}

bool takt_ecat_master_next_event_at(struct takt_ecat_master *m, char *buf, size_t len, takt_ns_t *at)
{
    struct takt_event ev;
    if (!rt_evring_next(&m->ev, &ev))
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
    if (!link || o->max_slaves == 0 || o->max_slaves > 65535 || o->cycle_ns <= 0 ||
        o->acyc_frames == 0 || o->acyc_frames > 64) {
        snprintf(err, errlen, "ecat master: expected a link, 1..65535 slaves, a positive cycle and "
                 "1..64 acyclic frames per cycle");
        return -EINVAL;
    }
    struct takt_ecat_master *m = calloc(1, sizeof *m);
    if (!m)
        goto nomem;
    m->link = link;
    m->o = *o;
    if (o->redundant) {
        int rc = ecat_red_open(link, o->redundant, &m->red, err, errlen);
        if (rc) {
            free(m);
            return rc;
        }
        m->link = m->red;           /* every frame leaves by both ports */
    }
    m->max_slaves = o->max_slaves;
    m->dc_ref = -1;
    if (rt_evring_init(&m->ev, TAKT_EV_ECAT, ECAT_EVENTS))
        goto nomem;
    pthread_mutex_init(&m->drive_mx, NULL);
    /* DC system time counts from 2000-01-01 (ETG.1000.4 distributed clocks); the core runs on monotonic time */
    struct timespec rt, mt;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mt);
    m->dc_offset = (rt.tv_sec - mt.tv_sec - 946684800LL) * TAKT_NS_PER_S + (rt.tv_nsec - mt.tv_nsec);
    m->slaves = calloc(o->max_slaves, sizeof *m->slaves);
    m->txbuf = calloc(o->acyc_frames, TAKT_FRAME_BUF);
    m->cycbuf = calloc(ECAT_MAX_CYC_DG, TAKT_FRAME_BUF);
    m->rxbuf = calloc(RX_BATCH, TAKT_FRAME_BUF);
    m->rxf = calloc(RX_BATCH, sizeof *m->rxf);
    m->sii_scratch = calloc(1, sizeof *m->sii_scratch);
    m->maps = calloc(o->max_slaves, sizeof *m->maps);
    m->snap.slave = calloc(o->max_slaves, sizeof *m->snap.slave);
    m->cyc_rx = calloc(2 * ECAT_MAX_CYC_DG, ECAT_MAX_DG_DATA);   /* LRW/LRD, then LWR */
    m->txf = calloc(o->acyc_frames > ECAT_MAX_CYC_DG ? o->acyc_frames : ECAT_MAX_CYC_DG,
                    sizeof *m->txf);
    if (!m->slaves || !m->txbuf || !m->cycbuf || !m->rxbuf || !m->rxf || !m->txf || !m->sii_scratch || !m->maps || !m->snap.slave || !m->cyc_rx ||
        ecat_coe_init(m) || ecat_foe_init(m) || ecat_soe_init(m) || ecat_pub_init(m) ||
        rt_cmdring_init(&m->cmd, ECAT_CMD_RING))
        goto nomem;
    for (unsigned i = 0; i < o->max_slaves; i++)
        if (!(m->slaves[i].sii = calloc(1, ECAT_SII_FIRST)))
            goto nomem;
        else
            m->slaves[i].sii_cap = ECAT_SII_FIRST;
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
    rt_cmdring_free(&m->cmd);
    ecat_master_drop_eni(m);
    rt_evring_free(&m->ev);
    for (unsigned i = 0; m->slaves && i < m->max_slaves; i++)
        free(m->slaves[i].sii);
    free(m->slaves);
    free(m->txbuf);
    free(m->cycbuf);
    free(m->rxbuf);
    free(m->rxf);
    free(m->sii_scratch);
    free(m->maps);
    free(m->snap.slave);
    ecat_pub_free(m);
    free(m->cyc_rx);
    ecat_pdo_image_free(&m->img);
    ecat_coe_free(m);
    ecat_foe_free(m);
    ecat_soe_free(m);
    ecat_eoe_free(m);
    free(m->txf);
    free(m->image);
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
            ecat_pdu_receive(m, m->rxf[i].data, m->rxf[i].len, m->rxf[i].ts);
        total += n;
        timeout = 0;
        if (n < RX_BATCH)
            return total;
    }
}

static int send_frames(struct takt_ecat_master *m, unsigned n)
{
    if (!n)
        return 0;
    int rc = takt_link_send(m->link, m->txf, n);
    if (rc < 0)
        return rc;
    m->st.frames_sent += n;
    return 0;
}

static uint8_t lowest_state(const struct takt_ecat_master *m)
{
    static const uint8_t rank[16] = { [AL_INIT] = 1, [AL_PREOP] = 2, [AL_BOOT] = 2,
                                      [AL_SAFEOP] = 3, [AL_OP] = 4 };
    uint8_t low = 0;
    int lr = 99;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].info.al_state & AL_STATE_MASK;
        if (rank[st] < lr) {
            lr = rank[st];
            low = st;
        }
    }
    return low;
}

static void master_timer(struct takt_ecat_master *m, takt_ns_t now)
{
    ecat_pdu_expire(m, now);
    ecat_mfsm_step(m, now);
    ecat_eni_master_step(m, now);
    ecat_svc_poll(m, now);
    ecat_coe_poll(m, now);
    ecat_foe_poll(m, now);
    ecat_soe_poll(m, now);
    ecat_eoe_poll(m, now);
    for (unsigned i = 0; i < m->n_slaves; i++)
        ecat_sfsm_step(m, &m->slaves[i], now);
    /* DC set-up addresses slaves by station: not while an ENI's IP commands readdress them */
    if (m->o.dc && m->target && !m->dc_active && !ecat_eni_settling(m))
        ecat_dc_configure(m, now);
    m->low_state = lowest_state(m);
    ecat_state_update(m);
}

static inline void timed(struct takt_ecat_master *m, struct takt_perf_msmt *pm, takt_ns_t *t)
{
    takt_ns_t n = takt_now();
    takt_perf_record(&m->loop.perf, pm, n - *t);
    *t = n;
}

int takt_ecat_master_cycle(struct takt_ecat_master *m, takt_ns_t now)
{
    takt_ns_t t = takt_now();
    m->now = now;
    ecat_cmd_drain(m, now);         /* what other threads asked for, first */
    int rc = receive(m, 0);
    ecat_cyc_check(m, now);
    if (m->red)
        ecat_red_check(m, now);
    ecat_snap_publish(m);           /* this cycle's losses, for a callback that reads them */
    timed(m, &m->m_rx, &t);
    if (m->app_fn && m->configured)
        m->app_fn(m->app_ctx, m, now);
    timed(m, &m->m_app, &t);
    /* the send time, not the wake-up: the reference clock may be set from it */
    int rc2 = m->scanned ? send_frames(m, ecat_cyc_build(m, takt_now())) : 0;
    timed(m, &m->m_cyc, &t);
    master_timer(m, now);
    timed(m, &m->m_timer, &t);
    int rc3 = send_frames(m, ecat_pdu_build_acyc(m, now));
    timed(m, &m->m_acyc, &t);
    m->st.cycles++;
    ecat_snap_publish(m);
    if (rc < 0)
        return rc;
    return rc2 < 0 ? rc2 : rc3;
}

static int cycle_step(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake)
{
    struct takt_ecat_master *m = ctx;
    if (__atomic_load_n(&m->ev_rt, __ATOMIC_RELAXED) == 1) {   /* the ring's producer from now */
        m->ev_tid = pthread_self();
        __atomic_store_n(&m->ev_rt, 2, __ATOMIC_RELEASE);
    }
    /* a cyclic reply stamped after this cycle's deadline missed its cycle, however soon
     * the thread got round to reading it */
    m->rx_deadline = wake - loop->cyc.wake_dev;
    int rc = takt_ecat_master_cycle(m, wake);
    m->rx_deadline = 0;
    if (m->o.dc && m->dc_active && m->o.dc_mode == TAKT_ECAT_DC_MASTER_FOLLOWS_REF && m->dc_shift_ns) {
        loop->cyc.next += m->dc_shift_ns;    /* shift the cycle towards the reference clock */
        m->dc_shift_ns = 0;
    }
    /* a link error (e.g. -ENOBUFS) costs this cycle's frames, which count as lost; the
     * loop goes on so that the network can recover */
    if (rc < 0 && m->link_errors++ == 0)
        ECAT_EVT(m, TAKT_ECAT_EV_LINK_ERROR, -1, RT_TXT(m->link->name), rc);
    return 0;
}

/* Between two cycles of a blocking tool: acyclic replies were processed by receive();
 * advance the state machines and send what they queued, without a cyclic frame. */
static int service(struct takt_ecat_master *m, takt_ns_t now)
{
    m->now = now;
    ecat_cmd_drain(m, now);
    master_timer(m, now);
    int rc = send_frames(m, ecat_pdu_build_acyc(m, now));
    ecat_snap_publish(m);
    return rc;
}

/* A link error ends a blocking call: it is recorded with a message (takt_ecat_master_error
 * is never empty after a failure), and an interface without a carrier is named as such
 * rather than by the errno the kernel's drop gives (ENOBUFS, ENETDOWN). */
static int link_fail(struct takt_ecat_master *m, int rc, const char *what)
{
    if (m->errmsg[0] && m->last_err == rc)
        return rc;
    int carrier = takt_link_carrier(m->link->name);   /* < 0 for a mem link: no interface */
    if (carrier == 0)
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_LINK_NO_CARRIER, -1, RT_TXT(m->link->name));
    else if (carrier == -ENETDOWN)
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_LINK_DOWN, -1, RT_TXT(m->link->name, m->link->name));
    else
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_LINK_FAILED, -1, RT_TXT(what, m->link->name), rc);
    return rc;
}

static int drive(struct takt_ecat_master *m, bool (*done)(struct takt_ecat_master *m, void *ctx),
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
            next = now + m->o.cycle_ns;
        } else {
            rc = service(m, now);
        }
        if (rc < 0)
            return link_fail(m, rc, "sending");
        if (done(m, ctx))
            return 0;
        if (now > end)
            return -ETIMEDOUT;
        takt_ns_t wait = next - takt_now();
        rc = receive(m, wait > 0 ? wait : 0);
        if (rc < 0)
            return link_fail(m, rc, "receiving");
    }
}

int ecat_master_drive(struct takt_ecat_master *m, bool (*done)(struct takt_ecat_master *m, void *ctx),
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

static bool wait_check(struct takt_ecat_master *m, void *ctx)
{
    (void)m;
    return ((struct ecat_wait *)ctx)->done;
}

int ecat_wait_drive(struct takt_ecat_master *m, struct ecat_wait *w, takt_ns_t timeout_ns)
{
    return ecat_master_drive(m, wait_check, w, timeout_ns);
}

/* --- bring-up --------------------------------------------------------------------- */

static bool scan_done(struct takt_ecat_master *m, void *ctx)
{
    (void)ctx;
    return m->mf_state == MF_IDLE;
}

int takt_ecat_master_scan(struct takt_ecat_master *m, takt_ns_t timeout_ns)
{
    ecat_master_drop_eni(m);        /* a new bus: configure from the ENI again */
    ecat_scan_start(m, takt_now());
    int rc = ecat_master_drive(m, scan_done, NULL, timeout_ns);
    if (rc == -ETIMEDOUT && !m->last_err)
        ECAT_FAIL(m, rc, TAKT_ECAT_EV_SCAN_TIMEOUT, -1, timeout_ns / TAKT_NS_PER_MS);
    if (rc)
        return rc;
    return m->last_err;
}

int takt_ecat_master_configure(struct takt_ecat_master *m)
{
    if (!m->scanned) {
        ECAT_FAIL(m, -EAGAIN, TAKT_ECAT_EV_CONFIGURE_UNSCANNED, -1);
        return -EAGAIN;
    }
    return ecat_layout(m);
}

unsigned takt_ecat_master_inputs_age(const struct takt_ecat_master *m) { return m->inputs_age; }

static bool state_done(struct takt_ecat_master *m, void *ctx)
{
    (void)ctx;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].f.state;
        if (st != SS_IDLE && st != SS_FAILED)
            return false;
    }
    return true;
}

int takt_ecat_master_set_state(struct takt_ecat_master *m, uint8_t state, takt_ns_t timeout_ns)
{
    int rc = ecat_cmd_blocking(m);
    if (rc)                         /* the RT thread runs: it takes the request */
        return rc < 0 ? rc : ecat_cmd_set_state(m, state, timeout_ns);
    bool took = ecat_drive_begin(m);   /* the request applies at once, then the drive */
    rc = takt_ecat_master_request_state(m, state);
    if (!rc)
        rc = ecat_master_drive(m, state_done, NULL, timeout_ns);
    ecat_drive_end(m, took);
    if (rc)
        return rc;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].f.state == SS_FAILED)
            return m->slaves[i].f.err ? m->slaves[i].f.err : -TAKT_EALSTATUS;
    return 0;
}

/* --- thread ----------------------------------------------------------------------- */

int takt_ecat_master_start(struct takt_ecat_master *m, const struct takt_rt_opts *o, takt_ns_t duration_ns)
{
    if (o)
        m->loop.opts = *o;
    m->loop.duration = duration_ns;
    /* from now on the RT thread alone applies what other threads post, this one's calls
     * included: none applies at once until its first drain names it the cycle's */
    atomic_store_explicit(&m->cycle_self, 0, memory_order_relaxed);
    atomic_store_explicit(&m->rt_on, true, memory_order_release);
    __atomic_store_n(&m->ev_rt, 1, __ATOMIC_RELEASE);
    int rc = takt_rt_loop_start(&m->loop);
    if (rc) {
        atomic_store_explicit(&m->rt_on, false, memory_order_release);
        __atomic_store_n(&m->ev_rt, 0, __ATOMIC_RELEASE);
    }
    return rc;
}

void takt_ecat_master_stop(struct takt_ecat_master *m) { takt_rt_loop_stop(&m->loop); }

int takt_ecat_master_join(struct takt_ecat_master *m)
{
    int rc = takt_rt_loop_join(&m->loop);
    __atomic_store_n(&m->ev_rt, 0, __ATOMIC_RELEASE);
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


unsigned takt_ecat_master_slave_count(const struct takt_ecat_master *m) { return m->n_slaves; }

int takt_ecat_master_slave_info(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_slave_info *out)
{
    if (pos >= m->n_slaves)
        return -ENOENT;
    *out = m->slaves[pos].info;
    return 0;
}

const uint8_t *takt_ecat_slave_sii(const struct takt_ecat_master *m, unsigned pos, size_t *len)
{
    if (pos >= m->n_slaves)
        return NULL;
    *len = m->slaves[pos].sii_len;
    return m->slaves[pos].sii;
}

const char *takt_ecat_master_error(const struct takt_ecat_master *m) { return m->errmsg; }
