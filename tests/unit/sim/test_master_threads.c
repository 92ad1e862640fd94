/* Calls from other threads into a master whose RT thread runs (takt_ecat_master_start):
 * they reach the cycle through the command ring. Four threads at once ask for states,
 * read registers asynchronously and upload SDOs with the blocking form; every
 * completion arrives exactly once with the right data. A full ring refuses at once and
 * loses nothing it took; a blocking call from the cyclic callback is refused with
 * -EDEADLK rather than waiting for its own cycle. Run under ThreadSanitizer too. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "master_rig.h"
#include "ecat/driver.h"

#define NTHR 4
#define NREQ 200
#define OUTSTANDING 2          /* per thread: 4 x 2 in flight stay within the 16 service slots */

struct req { atomic_int calls; int err; uint16_t val; unsigned pos; };

struct hammer {
    struct rig *r;
    unsigned id;
    struct req req[NREQ];
    pthread_mutex_t mx;
    pthread_cond_t cv;
    unsigned done;             /* completions seen (under mx) */
    int sdo_fail, state_fail;
};

static void reg_done(void *ctx, int err, const uint8_t *data, size_t len);

struct rctx { struct hammer *h; struct req *q; };
static struct rctx rctx[NTHR][NREQ];

static void reg_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct rctx *c = ctx;
    c->q->err = err;
    c->q->val = !err && data && len == 2 ? get_le16(data) : 0;
    atomic_fetch_add(&c->q->calls, 1);
    pthread_mutex_lock(&c->h->mx);
    c->h->done++;
    pthread_cond_signal(&c->h->cv);
    pthread_mutex_unlock(&c->h->mx);
}

static bool wait_done(struct hammer *h, unsigned n)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;                        /* a generous limit: a stall is not a result */
    pthread_mutex_lock(&h->mx);
    int rc = 0;
    while (h->done < n && rc == 0)
        rc = pthread_cond_timedwait(&h->cv, &h->mx, &ts);
    bool ok = h->done >= n;
    pthread_mutex_unlock(&h->mx);
    return ok;
}

static void *hammer_main(void *arg)
{
    struct hammer *h = arg;
    struct takt_ecat_master *m = h->r->m;
    for (unsigned i = 0; i < NREQ; i++) {
        if (i >= OUTSTANDING && !wait_done(h, i - OUTSTANDING + 1))
            return NULL;
        if (i % 50 == h->id && takt_ecat_master_request_state(m, AL_OP))
            h->state_fail++;
        if (i % 40 == 3) {            /* the blocking form, from this thread */
            uint8_t buf[8];
            size_t len = 0;
            unsigned pos = (h->id + i) % 2;
            int rc = takt_ecat_sdo_upload(m, pos, 0x1018, 2, false, buf, sizeof buf, &len);
            if (rc || len != 4 || get_le32(buf) != 0x4000 + pos)
                h->sdo_fail++;
        }
        struct req *q = &h->req[i];
        q->pos = (h->id + i) % 2;
        rctx[h->id][i] = (struct rctx){ h, q };
        int rc;
        /* the ring is 64 deep and at most 8 are in flight: never full here */
        rc = takt_ecat_reg_read_async(m, q->pos, 0x0010, 2, reg_done, &rctx[h->id][i]);
        if (rc) {
            q->err = rc;
            atomic_fetch_add(&q->calls, 100);   /* refused at once: no completion expected */
            pthread_mutex_lock(&h->mx);
            h->done++;
            pthread_mutex_unlock(&h->mx);
        }
    }
    wait_done(h, NREQ);
    return NULL;
}

/* the cyclic callback: a blocking call from the RT thread would wait for itself */
struct cb { atomic_int reg_rc, sdo_rc, state_rc, calls; };
static void on_cycle(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    struct cb *c = ctx;
    (void)now;
    if (atomic_fetch_add(&c->calls, 1) != 5)
        return;
    uint8_t b[4];
    size_t len;
    atomic_store(&c->reg_rc, takt_ecat_reg_read(m, 0, 0x0010, b, 2));
    atomic_store(&c->sdo_rc, takt_ecat_sdo_upload(m, 1, 0x1018, 2, false, b, sizeof b, &len));
    atomic_store(&c->state_rc, takt_ecat_master_set_state(m, AL_OP, TAKT_NS_PER_S));
}

static struct rig *mbx_rig(void)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[2];
    for (unsigned i = 0; i < 2; i++) {
        mbx_desc(&r->desc[i], i);
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 2, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = TAKT_NS_PER_MS;
    /* a thread stalled for a while is not a lost frame: wide datagram timeouts */
    o.dg_timeout_ns = 500 * TAKT_NS_PER_MS;
    o.sdo_timeout_ns = 20 * TAKT_NS_PER_S;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    up(r, 2);
    return r;
}

static void start_rt(struct rig *r)
{
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    ro.mlock = false;
    ro.dma_latency = false;
    assert_int_equal(takt_ecat_master_start(r->m, &ro, 0), 0);
}

static void stop_rt(struct rig *r)
{
    takt_ecat_master_stop(r->m);
    takt_ecat_master_join(r->m);
}

static void hammer_running_master(void **state)
{
    (void)state;
    struct rig *r = mbx_rig();
    struct cb cb = { 0 };
    atomic_store(&cb.reg_rc, 1);
    atomic_store(&cb.sdo_rc, 1);
    atomic_store(&cb.state_rc, 1);
    takt_ecat_master_set_callback(r->m, on_cycle, &cb);
    start_rt(r);
    /* from this thread while the RT thread runs: set_state goes through the ring too */
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    static struct hammer h[NTHR];
    pthread_t t[NTHR];
    for (unsigned i = 0; i < NTHR; i++) {
        memset(&h[i], 0, sizeof h[i]);
        h[i].r = r;
        h[i].id = i;
        pthread_mutex_init(&h[i].mx, NULL);
        pthread_cond_init(&h[i].cv, NULL);
        assert_int_equal(pthread_create(&t[i], NULL, hammer_main, &h[i]), 0);
    }
    for (unsigned i = 0; i < NTHR; i++)
        pthread_join(t[i], NULL);
    stop_rt(r);
    for (unsigned i = 0; i < NTHR; i++) {
        assert_int_equal(h[i].state_fail, 0);
        assert_int_equal(h[i].sdo_fail, 0);
        for (unsigned k = 0; k < NREQ; k++) {
            const struct req *q = &h[i].req[k];
            if (atomic_load(&q->calls) != 1 || q->err || q->val != 0x1000 + q->pos)
                printf("thread %u request %u: %d completions, err %d, 0x%04X\n", i, k,
                       atomic_load(&q->calls), q->err, q->val);
            assert_int_equal(atomic_load(&q->calls), 1);
            assert_int_equal(q->err, 0);
            assert_int_equal(q->val, 0x1000 + q->pos);   /* station address of that slave */
        }
    }
    assert_true(atomic_load(&cb.calls) > 5);
    assert_int_equal(atomic_load(&cb.reg_rc), -EDEADLK);
    assert_int_equal(atomic_load(&cb.sdo_rc), -EDEADLK);
    assert_int_equal(atomic_load(&cb.state_rc), -EDEADLK);
    rig_free(r);
}

/* Nothing drains while no cycle runs: a thread that is not the cycle's fills the ring;
 * the 65th call is refused at once (-EAGAIN, no completion); the next cycle applies
 * the 64, each completing exactly once: the first 16 take the service slots, the rest
 * are refused by the cycle (-EBUSY through the completion), none silently lost. */
struct fill { struct rig *r; int accepted, refused_rc; };
static struct req fill_req[80];
static struct rctx fill_ctx[80];
static struct hammer fill_h;

static void *filler(void *arg)
{
    struct fill *f = arg;
    for (unsigned i = 0; i < 80; i++) {
        fill_req[i].pos = i % 2;
        fill_ctx[i] = (struct rctx){ &fill_h, &fill_req[i] };
        int rc = takt_ecat_reg_read_async(f->r->m, i % 2, 0x0010, 2, reg_done, &fill_ctx[i]);
        if (rc) {
            f->refused_rc = rc;
            break;
        }
        f->accepted++;
    }
    return NULL;
}

static void full_ring_refuses(void **state)
{
    (void)state;
    struct rig *r = mbx_rig();
    start_rt(r);
    stop_rt(r);                 /* joined: nobody drives the cycle now */
    pthread_mutex_init(&fill_h.mx, NULL);
    pthread_cond_init(&fill_h.cv, NULL);
    struct fill f = { .r = r };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, filler, &f), 0);
    pthread_join(t, NULL);
    assert_int_equal(f.accepted, 64);
    assert_int_equal(f.refused_rc, -EAGAIN);
    cycles(r, 20);               /* this thread drives, and drains */
    unsigned ok = 0, busy = 0;
    for (unsigned i = 0; i < 80; i++) {
        int calls = atomic_load(&fill_req[i].calls);
        assert_int_equal(calls, i < 64 ? 1 : 0);
        if (i < 64 && fill_req[i].err == 0) {
            assert_int_equal(fill_req[i].val, 0x1000 + i % 2);
            ok++;
        } else if (i < 64) {
            assert_int_equal(fill_req[i].err, -EBUSY);
            busy++;
        }
    }
    assert_int_equal(ok, 16);
    assert_int_equal(busy, 48);
    /* the cycle's own thread applies at once again: a refusal is returned, no callback */
    assert_int_equal(takt_ecat_reg_read_async(r->m, 7, 0x0010, 2, reg_done, &fill_ctx[70]), -ENOENT);
    assert_int_equal(atomic_load(&fill_req[70].calls), 0);
    rig_free(r);
}

/* the published state of slave pos reaches st within 10 s (the RT thread publishes it) */
static bool reaches(struct rig *r, unsigned pos, uint8_t st)
{
    struct takt_ecat_slave_state s;
    for (int i = 0; i < 10000; i++) {
        if (!takt_ecat_master_slave_state(r->m, pos, &s) && (s.al_state & TAKT_ECAT_STATE_MASK) == st)
            return true;
        struct timespec ts = { 0, TAKT_NS_PER_MS };
        nanosleep(&ts, NULL);
    }
    return false;
}

/* One slave's state from a thread that is not the cycle's, while the RT thread runs:
 * takt_ecat_slave_set_state posts the request and sleeps until that slave settled
 * (before, it drove the cycle from this thread beside the RT thread); the other stays
 * in OP. TAKT_ECAT_STATE_NETWORK takes it back to where the network is held, and is
 * refused while no network-wide state was asked for. */
static void slave_state_beside_running_cycle(void **state)
{
    (void)state;
    struct rig *s = rig_new(2, false);
    assert_int_equal(takt_ecat_master_scan(s->m, 2 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_slave_set_state(s->m, 1, TAKT_ECAT_STATE_NETWORK, TAKT_NS_PER_S), -EINVAL);
    rig_free(s);

    struct rig *r = mbx_rig();
    start_rt(r);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_PREOP, 20 * TAKT_NS_PER_S), 0);
    assert_true(reaches(r, 1, AL_PREOP));
    assert_true(reaches(r, 0, AL_OP));
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, TAKT_ECAT_STATE_NETWORK, 20 * TAKT_NS_PER_S), 0);
    assert_true(reaches(r, 1, AL_OP));
    assert_true(reaches(r, 0, AL_OP));
    assert_int_equal(takt_ecat_slave_set_state(r->m, 7, AL_PREOP, 20 * TAKT_NS_PER_S), -ENOENT);
    stop_rt(r);
    rig_free(r);
}

static uint64_t cycles_run(struct rig *r)
{
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(r->m, &s);
    return s.cycles;
}

static void lone_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct rctx *c = ctx;
    (void)data;
    (void)len;
    c->q->err = err;
    atomic_fetch_add(&c->q->calls, 1);
}

static void wait_cycles(struct rig *r, uint64_t n)
{
    uint64_t until = cycles_run(r) + n;
    for (int i = 0; i < 20000 && cycles_run(r) < until; i++)
        usleep(500);
    assert_true(cycles_run(r) >= until);
}

/* The cycle the RT thread stops in is judged too: the network falls silent, the loop is
 * stopped a few cycles later, and after the join every frame sent is accounted for:
 * received or counted lost (an acyclic request in flight is given its timeout first).
 * No frame is left open, and the frames counted lost are exactly those the network
 * dropped (the mem link is synchronous: nothing comes late). Before, the frame of the
 * last cycle was neither received nor lost. */
static void last_cycle_judged(void **state)
{
    (void)state;
    struct rig *r = rig_new(2, false);
    up(r, 2);
    start_rt(r);
    wait_cycles(r, 20);
    __atomic_store_n(&r->mute, 1, __ATOMIC_RELEASE);
    wait_cycles(r, 2);
    /* an acyclic request that leaves now and times out (50 ms) well after the stop */
    static struct req q;
    static struct rctx qc;
    qc = (struct rctx){ NULL, &q };
    assert_int_equal(takt_ecat_reg_read_async(r->m, 0, 0x0010, 2, lone_done, &qc), 0);
    wait_cycles(r, 2);
    stop_rt(r);
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(r->m, &s);
    const struct ecat_core *c = &r->m->core;
    unsigned cyc_open = 0, acyc_open = 0;
    for (unsigned i = 0; i < ECAT_GEN_RING; i++)
        if (c->gen[i].st == GEN_SENT)
            *(c->gen[i].cyclic ? &cyc_open : &acyc_open) += 1;
    printf("sent %llu received %llu lost %llu (late %llu), dropped %u, open %u cyclic %u acyclic\n",
           (unsigned long long)s.frames_sent, (unsigned long long)s.frames_received,
           (unsigned long long)s.frames_lost, (unsigned long long)s.frames_late, r->dropped,
           cyc_open, acyc_open);
    assert_int_equal(cyc_open, 0);
    assert_int_equal(acyc_open, 0);
    assert_true(s.cyc_frames_lost >= 4);
    assert_true(s.frames_lost > s.cyc_frames_lost);   /* the register read's frame too */
    assert_int_equal(s.frames_late, 0);
    assert_int_equal(s.frames_sent, s.frames_received + s.frames_lost);
    assert_int_equal(r->dropped, s.frames_lost);
    rig_free(r);
}

/* The cyclic callback of the RT thread reads the statistics of its own cycle: at the
 * callback after the one that muted the network, the cyclic frame sent in between has
 * been judged lost, and the callback sees it counted (its loss, not the count the cycle
 * published at the end of the cycle before). */
struct exact { struct rig *r; unsigned calls, muted_at; uint64_t lost0, lost1; };

static void exact_fn(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    struct exact *e = ctx;
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(m, &st);
    e->calls++;
    if (e->calls == 20) {
        e->lost0 = st.cyc_frames_lost;
        e->muted_at = e->calls;
        __atomic_store_n(&e->r->mute, 1, __ATOMIC_RELEASE);   /* this cycle's frame is lost */
    } else if (e->muted_at && e->calls == e->muted_at + 1) {
        e->lost1 = st.cyc_frames_lost;
        takt_ecat_master_stop(m);
    } else if (e->calls > 1000) {
        takt_ecat_master_stop(m);          /* never reached: the join would wait for ever */
    }
}

static void callback_reads_own_cycle_stats(void **state)
{
    (void)state;
    struct rig *r = rig_new(2, false);
    up(r, 2);
    struct exact e = { .r = r };
    takt_ecat_master_set_callback(r->m, exact_fn, &e);
    start_rt(r);
    takt_ecat_master_join(r->m);           /* the callback stops the loop */
    if (e.muted_at == 0 || e.calls != e.muted_at + 1)
        fail_msg("the callback ran %u times (muted at %u)", e.calls, e.muted_at);
    if (e.lost1 != e.lost0 + 1)
        fail_msg("the callback saw %llu cyclic frames lost after its muted cycle, %llu before: expected one more",
                 (unsigned long long)e.lost1, (unsigned long long)e.lost0);
    rig_free(r);
}

/* What other threads read of each slave follows every change the cycle makes to it:
 * lost (not present, no state), back and in OP again; the statistics count it so. The cable is cut and mended from
 * the cyclic callback, in the thread that runs the simulator. */
struct cable { struct rig *r; int want; int done; };   /* want, done: atomic */

static void cable_fn(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)m;
    struct cable *c = ctx;
    int w = __atomic_load_n(&c->want, __ATOMIC_ACQUIRE);
    if (w == __atomic_load_n(&c->done, __ATOMIC_RELAXED))
        return;
    if (w == 1)
        takt_sim_break(c->r->sim, 1, now);
    else
        takt_sim_heal(c->r->sim, now);
    __atomic_store_n(&c->done, w, __ATOMIC_RELEASE);
}

static bool published(struct rig *r, unsigned pos, bool present, uint8_t st)
{
    struct takt_ecat_slave_state s;
    for (int i = 0; i < 20000; i++) {      /* 20 s at most: a stall is not a result */
        if (takt_ecat_master_slave_state(r->m, pos, &s) >= 0 && s.present == present &&
            (s.al_state & TAKT_ECAT_STATE_MASK) == st)
            return true;
        nanosleep(&(struct timespec){ 0, TAKT_NS_PER_MS }, NULL);
    }
    printf("slave %u: published present %d, state 0x%02X; expected %d, 0x%02X\n", pos, s.present,
           s.al_state, present, st);
    return false;
}

/* ... and the counts per state in the statistics with them */
static bool counted(struct rig *r, unsigned op, unsigned not_answering)
{
    struct takt_ecat_master_stats st;
    for (int i = 0; i < 20000; i++) {
        takt_ecat_master_get_stats(r->m, &st);
        if (st.slaves_op == op && st.slaves_not_answering == not_answering)
            return true;
        nanosleep(&(struct timespec){ 0, TAKT_NS_PER_MS }, NULL);
    }
    printf("statistics: %u in OP, %u not answering; expected %u, %u\n", st.slaves_op,
           st.slaves_not_answering, op, not_answering);
    return false;
}

static void slave_state_follows_loss_and_return(void **state)
{
    (void)state;
    struct rig *r = rig_new(2, false);
    up(r, 2);
    struct cable c = { .r = r };
    takt_ecat_master_set_callback(r->m, cable_fn, &c);
    start_rt(r);
    assert_true(published(r, 0, true, AL_OP));
    assert_true(published(r, 1, true, AL_OP));
    __atomic_store_n(&c.want, 1, __ATOMIC_RELEASE);
    assert_true(published(r, 1, false, 0));
    assert_true(published(r, 0, true, AL_OP));
    assert_true(counted(r, 1, 1));
    __atomic_store_n(&c.want, 2, __ATOMIC_RELEASE);
    assert_true(published(r, 1, true, AL_OP));
    assert_true(published(r, 0, true, AL_OP));
    assert_true(counted(r, 2, 0));
    stop_rt(r);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(hammer_running_master),
                                        cmocka_unit_test(full_ring_refuses),
                                        cmocka_unit_test(slave_state_beside_running_cycle),
                                        cmocka_unit_test(last_cycle_judged),
                                        cmocka_unit_test(callback_reads_own_cycle_stats),
                                        cmocka_unit_test(slave_state_follows_loss_and_return) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
