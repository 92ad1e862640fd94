/* What the cycle publishes for other threads (master_pub.c): each cyclic datagram with
 * the WKC it expects, the last one that came and its own count of WKC errors; each
 * slave's topology; and a copy of the process image that a reader in another thread
 * takes while the cycle thread rewrites it, never torn. Master and simulator in one
 * process over a mem pair that the simulator answers synchronously. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/link.h>
#include <takt/sim.h>
#include "unit/sim/eni_rig.h"
#include "ecat/driver.h"

struct rig { struct takt_sim *sim; struct takt_link *a, *b; struct takt_ecat_master *m; };

static void up(struct rig *r, const char *devices)
{
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    char err[256];
    if (takt_sim_create(devices, &so, &r->sim, err, sizeof err))
        fail_msg("simulator: %s", err);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 256, NULL, NULL), 0);
    takt_sim_attach_mem(r->sim, r->b);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, 5 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_configure(r->m), 0);
    if (takt_ecat_master_set_state(r->m, TAKT_ECAT_STATE_OP, 10 * TAKT_NS_PER_S))
        fail_msg("OP: %s", takt_ecat_master_error(r->m));
}

static void down(struct rig *r)
{
    takt_ecat_master_close(r->m);
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
}

/* A slave cut off: the frame's WKC drops to what is left, counted on that datagram
 * as in the statistics; back, the WKC is the expected one again. */
static void frames_wkc(void **state)
{
    (void)state;
    struct rig r;
    up(&r, "ek1100,el2004,el1004,el3102");
    struct takt_ecat_frame_info f[TAKT_ECAT_MAX_FRAMES];
    takt_ns_t now = takt_now();
    for (int i = 0; i < 3; i++)
        takt_ecat_master_cycle(r.m, now += TAKT_NS_PER_MS);
    assert_int_equal(takt_ecat_master_frames(r.m, f, TAKT_ECAT_MAX_FRAMES), 1);
    assert_int_equal(f[0].cmd, 12);             /* LRW */
    assert_int_equal(f[0].wkc_expected, 4);     /* LRW (ETG.1000.4): +2 for the EL2004 written, +1 each for the EL1004 and EL3102 read */
    assert_int_equal(f[0].wkc_last, 4);
    assert_int_equal(f[0].wkc_errors, 0);
    assert_int_equal(f[0].first_slave, 1);
    assert_int_equal(f[0].n_slaves, 3);
    struct takt_ecat_slave_state s;
    assert_int_equal(takt_ecat_master_slave_state(r.m, 3, &s), 0);
    assert_int_equal(s.parent, 2);
    assert_int_equal(s.parent_port, 1);
    assert_int_equal(s.frame, 0);
    assert_int_equal(takt_ecat_master_slave_state(r.m, 0, &s), 0);
    assert_int_equal(s.parent, -1);
    /* the EL3102 (reads: 1 of the WKC) gone */
    assert_int_equal(takt_sim_break(r.sim, 3, now), 0);
    for (int i = 0; i < 3; i++)
        takt_ecat_master_cycle(r.m, now += TAKT_NS_PER_MS);
    assert_int_equal(takt_ecat_master_frames(r.m, f, TAKT_ECAT_MAX_FRAMES), 1);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r.m, &st);
    assert_int_equal(f[0].wkc_last, 3);
    assert_true(f[0].wkc_errors >= 1);
    assert_int_equal(f[0].wkc_errors, st.wkc_errors);
    /* fewer than max: the count there is, only max copied */
    assert_int_equal(takt_ecat_master_frames(r.m, f, 0), 1);
    down(&r);
}

/* With an ENI that lays out its own frames (tests/data/eni/lwr_no_input.xml: an LWR of
 * the outputs and an LRD of the inputs) its datagrams are listed, each with its Cnt and
 * the WKC that came, slaves not said. */
static void eni_frames(void **state)
{
    (void)state;
    const char *src = getenv("TAKT_SOURCE_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/eni/lwr_no_input.xml", src ? src : ".");
    struct erig *r = erig_new(path, path, false);
    if (takt_ecat_master_configure_eni(r->m, path) || takt_ecat_master_set_state(r->m, TAKT_ECAT_STATE_OP, 20 * TAKT_NS_PER_S))
        fail_msg("ENI to OP: %s", takt_ecat_master_error(r->m));
    for (int i = 0; i < 3; i++)
        takt_ecat_master_cycle(r->m, takt_now());
    struct takt_ecat_frame_info f[TAKT_ECAT_MAX_FRAMES];
    unsigned n = takt_ecat_master_frames(r->m, f, TAKT_ECAT_MAX_FRAMES), logical = 0;
    assert_true(n >= 1);
    for (unsigned i = 0; i < n; i++) {
        if (f[i].wkc_last != f[i].wkc_expected || f[i].n_slaves || f[i].wkc_errors)
            fail_msg("ENI datagram %u (cmd %u): WKC %d of %u, %u slaves, %lu errors", i, f[i].cmd,
                     f[i].wkc_last, f[i].wkc_expected, f[i].n_slaves, (unsigned long)f[i].wkc_errors);
        logical += f[i].cmd >= 10 && f[i].cmd <= 12;
    }
    assert_true(logical >= 1);
    erig_free(r);
}

struct fill { unsigned n; size_t out_off, out_len; };

/* The cyclic callback: every output byte the same value, a new one each cycle. */
static void fill_fn(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    struct fill *fl = ctx;
    size_t len;
    uint8_t *img = takt_ecat_master_image(m, &len);
    fl->n++;
    memset(img + fl->out_off, (int)(fl->n & 0xFF), fl->out_len);
}

/* A reader in this thread while the cycle thread writes: every copy has all output
 * bytes equal (one cycle's), and the copies follow the cycle (several values seen). */
static void image_never_torn(void **state)
{
    (void)state;
    struct rig r;
    up(&r, "ek1100,el2004x16");
    struct takt_ecat_slave_info a, z;
    takt_ecat_master_slave_info(r.m, 1, &a);
    takt_ecat_master_slave_info(r.m, 16, &z);
    struct fill fl = { 0, a.out_offset, z.out_offset + (z.out_bits + 7) / 8 - a.out_offset };
    assert_true(fl.out_len >= 8);
    size_t len;
    uint8_t img[4096];
    assert_int_equal(takt_ecat_master_image_copy(r.m, img, sizeof img, &len), 0);
    takt_ecat_master_image(r.m, &len);
    assert_true(len <= sizeof img);
    takt_ecat_master_set_callback(r.m, fill_fn, &fl);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    assert_int_equal(takt_ecat_master_start(r.m, &ro, 0), 0);
    unsigned values = 0, copies = 0;
    int last = -1;
    takt_ns_t end = takt_now() + 20 * TAKT_NS_PER_S;
    while ((values < 20 || copies < 2000) && takt_now() < end) {
        size_t n;
        assert_int_equal(takt_ecat_master_image_copy(r.m, img, sizeof img, &n), 0);
        assert_int_equal(n, len);
        copies++;
        for (size_t i = 1; i < fl.out_len; i++)
            if (img[fl.out_off + i] != img[fl.out_off])
                fail_msg("copy %u torn: output byte %zu is 0x%02X, byte 0 0x%02X", copies, i,
                         img[fl.out_off + i], img[fl.out_off]);
        if (img[fl.out_off] != last) {
            values++;
            last = img[fl.out_off];
        }
        if (copies % 64 == 0)
            nanosleep(&(struct timespec){ 0, 100 * 1000 }, NULL);
    }
    takt_ecat_master_stop(r.m);
    takt_ecat_master_join(r.m);
    if (values < 20)
        fail_msg("the copies did not follow the cycle: %u values in %u copies", values, copies);
    down(&r);
}

/* Cycles the RT thread has run, as its statistics say. */
static uint64_t cycles(struct rig *r)
{
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    return st.cycles;
}

/* Until the RT thread has run past `n` cycles (generous limit: a stalled host). */
static void wait_cycles(struct rig *r, uint64_t n)
{
    takt_ns_t end = takt_now() + 60 * TAKT_NS_PER_S;
    while (cycles(r) < n) {
        if (takt_now() > end)
            fail_msg("the cycle did not reach %lu cycles (at %lu)", (unsigned long)n, (unsigned long)cycles(r));
        nanosleep(&(struct timespec){ 0, 200 * 1000 }, NULL);
    }
}

static unsigned pubs(struct rig *r)
{
    return atomic_load_explicit(&r->m->core.snap.pseq, memory_order_acquire) / 2;
}

/* While an RT thread runs the cycle and nobody reads, it publishes no frames and no
 * image; a reader's request has them published, for a lease of cycles, then no more. */
static void publish_only_when_wanted(void **state)
{
    (void)state;
    struct rig r;
    up(&r, "ek1100,el2004,el1004");
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    assert_int_equal(takt_ecat_master_start(r.m, &ro, 0), 0);
    uint64_t c0 = cycles(&r);
    wait_cycles(&r, c0 + 5);
    unsigned p0 = pubs(&r);
    wait_cycles(&r, cycles(&r) + 200);
    if (pubs(&r) != p0)
        fail_msg("%u publications of the frames and image in 200 cycles that nobody read", pubs(&r) - p0);
    struct takt_ecat_frame_info f[TAKT_ECAT_MAX_FRAMES];
    assert_int_equal(takt_ecat_master_frames(r.m, f, TAKT_ECAT_MAX_FRAMES), 1);
    assert_int_equal(f[0].wkc_last, f[0].wkc_expected);
    uint64_t asked = cycles(&r);
    wait_cycles(&r, asked + 50);
    assert_true(pubs(&r) > p0);
    /* the lease ends: no more publications */
    wait_cycles(&r, asked + ECAT_PUB_LEASE + 10);
    unsigned p1 = pubs(&r);
    wait_cycles(&r, cycles(&r) + 100);
    if (pubs(&r) != p1)
        fail_msg("%u publications after the lease ended", pubs(&r) - p1);
    takt_ecat_master_stop(r.m);
    takt_ecat_master_join(r.m);
    down(&r);
}

struct count_fill { _Atomic unsigned n; size_t out_off, out_len; };

/* The cyclic callback: every output byte the cycle's count (low byte). */
static void count_fn(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    struct count_fill *fl = ctx;
    size_t len;
    uint8_t *img = takt_ecat_master_image(m, &len);
    unsigned n = atomic_load_explicit(&fl->n, memory_order_relaxed) + 1;
    memset(img + fl->out_off, (int)(n & 0xFF), fl->out_len);
    atomic_store_explicit(&fl->n, n, memory_order_release);
}

/* A reader that comes after a long time without readers gets the image of a cycle that
 * ran after its call began, not the last one published for an earlier reader. */
static void idle_reader_gets_current_image(void **state)
{
    (void)state;
    struct rig r;
    up(&r, "ek1100,el2004");
    struct takt_ecat_slave_info a;
    takt_ecat_master_slave_info(r.m, 1, &a);
    struct count_fill fl = { 0, a.out_offset, 1 };
    takt_ecat_master_set_callback(r.m, count_fn, &fl);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    assert_int_equal(takt_ecat_master_start(r.m, &ro, 0), 0);
    wait_cycles(&r, cycles(&r) + 300);   /* idle: nobody reads */
    for (int round = 0; round < 2; round++) {
        unsigned n0 = atomic_load_explicit(&fl.n, memory_order_acquire);
        uint8_t img[256];
        size_t len;
        assert_int_equal(takt_ecat_master_image_copy(r.m, img, sizeof img, &len), 0);
        unsigned n1 = atomic_load_explicit(&fl.n, memory_order_acquire);
        /* the copy's value is of a cycle k with n0 <= k <= n1 (low byte); n1 - n0 < 256 */
        uint8_t v = img[fl.out_off];
        if (n1 - n0 >= 256 || (uint8_t)(v - (uint8_t)n0) > (uint8_t)(n1 - n0))
            fail_msg("round %d: the image holds cycle %u's outputs (low byte), the call ran during cycles %u..%u",
                     round, v, n0, n1);
        if (round == 0)                  /* the lease runs: idle again past it */
            wait_cycles(&r, cycles(&r) + ECAT_PUB_LEASE + 50);
    }
    takt_ecat_master_stop(r.m);
    takt_ecat_master_join(r.m);
    down(&r);
}

struct cb_reads { _Atomic unsigned calls, bad; _Atomic int last_rc; unsigned n_slaves; };

/* The cyclic callback reads every slave's state and the frames, as an application that
 * watches its network each cycle does. */
static void reads_fn(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    struct cb_reads *c = ctx;
    for (unsigned i = 0; i < c->n_slaves; i++) {
        struct takt_ecat_slave_state st;
        int rc = takt_ecat_master_slave_state(m, i, &st);
        if (rc) {
            atomic_store_explicit(&c->last_rc, rc, memory_order_relaxed);
            atomic_fetch_add_explicit(&c->bad, 1, memory_order_relaxed);
        }
    }
    struct takt_ecat_frame_info f[TAKT_ECAT_MAX_FRAMES];
    takt_ecat_master_frames(m, f, TAKT_ECAT_MAX_FRAMES);
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_release);
}

/* From the cycle's own thread the readers neither wait for the cycle (it is the caller)
 * nor publish more than once a cycle however many reads it makes. */
static void callback_reads_publish_once(void **state)
{
    (void)state;
    struct rig r;
    up(&r, "ek1100,el2004,el1004,el2004");
    struct cb_reads cb = { 0, 0, 0, 4 };
    takt_ecat_master_set_callback(r.m, reads_fn, &cb);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    assert_int_equal(takt_ecat_master_start(r.m, &ro, 0), 0);
    wait_cycles(&r, cycles(&r) + 5);
    unsigned p0 = pubs(&r), k0 = atomic_load_explicit(&cb.calls, memory_order_acquire);
    wait_cycles(&r, cycles(&r) + 100);
    unsigned p1 = pubs(&r), k1 = atomic_load_explicit(&cb.calls, memory_order_acquire);
    takt_ecat_master_stop(r.m);
    takt_ecat_master_join(r.m);
    if (atomic_load(&cb.bad))
        fail_msg("%u reads in the callback failed (last %d)", atomic_load(&cb.bad), atomic_load(&cb.last_rc));
    /* one publication per callback, give or take the one the cycle makes at its end */
    if (p1 - p0 > k1 - k0 + 1)
        fail_msg("%u publications for %u callbacks of 5 reads each", p1 - p0, k1 - k0);
    down(&r);
}

struct freeze { _Atomic int frozen, inside; };

/* The cyclic callback: stays while frozen is set, as a cycle thread the host stalls. */
static void freeze_fn(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)m; (void)now;
    struct freeze *f = ctx;
    while (atomic_load_explicit(&f->frozen, memory_order_acquire)) {
        atomic_store_explicit(&f->inside, 1, memory_order_release);
        nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
    }
    atomic_store_explicit(&f->inside, 0, memory_order_release);
}

/* A frozen cycle: the first reader waits its bounded time and hears -ETIMEDOUT; the
 * reads after it, while that request is still unserved, say so at once instead of each
 * waiting again (a view of 20 slaves would otherwise take 20 waits); once the cycle has
 * run again a read is current. */
static void frozen_cycle_one_wait(void **state)
{
    (void)state;
    struct rig r;
    up(&r, "ek1100,el2004,el1004");
    struct freeze fz = { 0, 0 };
    takt_ecat_master_set_callback(r.m, freeze_fn, &fz);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    assert_int_equal(takt_ecat_master_start(r.m, &ro, 0), 0);
    wait_cycles(&r, cycles(&r) + ECAT_PUB_LEASE + 50);   /* no reader: no lease */
    atomic_store_explicit(&fz.frozen, 1, memory_order_release);
    while (!atomic_load_explicit(&fz.inside, memory_order_acquire))
        nanosleep(&(struct timespec){ 0, 200 * 1000 }, NULL);
    takt_ns_t t0 = takt_now();
    for (int i = 0; i < 20; i++) {
        struct takt_ecat_slave_state st;
        int rc = takt_ecat_master_slave_state(r.m, (unsigned)(i % 3), &st);
        if (rc != -ETIMEDOUT)
            fail_msg("read %d of a frozen cycle: %d, expected -ETIMEDOUT", i, rc);
    }
    takt_ns_t took = takt_now() - t0;
    /* one wait is 0.5 s here: twenty would be 10 s */
    if (took > 5 * TAKT_NS_PER_S)
        fail_msg("20 reads of a frozen cycle took %.1f s: each waited again", (double)took / 1e9);
    atomic_store_explicit(&fz.frozen, 0, memory_order_release);
    wait_cycles(&r, cycles(&r) + 2);     /* the cycle runs again: it serves the requests */
    uint8_t img[256];
    size_t len;
    assert_int_equal(takt_ecat_master_image_copy(r.m, img, sizeof img, &len), 0);
    takt_ecat_master_stop(r.m);
    takt_ecat_master_join(r.m);
    down(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_wkc),
        cmocka_unit_test(eni_frames),
        cmocka_unit_test(image_never_torn),
        cmocka_unit_test(publish_only_when_wanted),
        cmocka_unit_test(idle_reader_gets_current_image),
        cmocka_unit_test(callback_reads_publish_once),
        cmocka_unit_test(frozen_cycle_one_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
