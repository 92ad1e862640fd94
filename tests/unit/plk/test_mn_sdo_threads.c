/* SDO transfers on a running MN from several threads at once (takt_plk_mn_sdo_read):
 * they reach the RT thread through its command ring, wait in their order for the
 * core's one SDO slot, and each caller sleeps until its own result comes back, right.
 * A blocking SDO from the MN's cyclic callback is refused with -EDEADLK. Real time over
 * the mem link, a CN in its own thread; run under ThreadSanitizer too. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <takt/plk.h>
#include "util/wire.h"

#define NTHR 4
#define NREQ 40

struct cn_thread { struct takt_plk_cn *cn; struct takt_link *link; pthread_t t; };

static void *cn_main(void *arg)
{
    struct cn_thread *c = arg;
    takt_plk_cn_run(c->cn, c->link, NULL);
    return NULL;
}

struct cb { atomic_int calls, rc; };
static void on_cycle(void *ctx, struct takt_plk_mn *mn, takt_ns_t now)
{
    struct cb *c = ctx;
    (void)now;
    if (atomic_fetch_add(&c->calls, 1) != 10)
        return;
    uint8_t b[4];
    size_t n;
    atomic_store(&c->rc, takt_plk_mn_sdo_read(mn, 2, 0x1000, 0, b, sizeof b, &n, TAKT_NS_PER_S));
}

struct worker { struct takt_plk_mn *mn; unsigned id, ok, bad, first_bad_rc, retries; };

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    for (unsigned i = 0; i < NREQ; i++) {
        uint8_t b[8] = { 0 };
        size_t n = 0;
        /* alternately the device type and the cycle length the MN configured */
        bool type = (i + w->id) % 2;
        int rc = -1;
        /* a CN held off the CPU long enough to drop out and boot again aborts the
         * transfer in flight (a result, not a lost one): try that one again; a wrong
         * value is never tolerated */
        for (unsigned k = 0; k < 3 && rc; k++) {
            rc = takt_plk_mn_sdo_read(w->mn, 2, type ? 0x1000 : 0x1006, 0, b, sizeof b, &n,
                                      60 * TAKT_NS_PER_S);
            if (rc == -TAKT_ESDOABORT || rc == -ETIMEDOUT)
                w->retries++;
            else
                break;
        }
        if (!rc && n == 4 && get_le32(b) == (type ? 0x000F0191u : 2000u)) {
            w->ok++;
        } else {
            if (!w->bad)
                w->first_bad_rc = (unsigned)-rc;
            w->bad++;
        }
    }
    return NULL;
}

static void wait_operational(struct takt_plk_mn *mn, struct takt_plk_cn *cn)
{
    struct takt_plk_mn_stats st;
    takt_ns_t end = takt_now() + 60 * TAKT_NS_PER_S;
    do {
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
        takt_plk_mn_get_stats(mn, &st);
    } while ((st.nodes_operational < 1 || takt_plk_cn_state(cn) != 0xFD) && takt_now() < end);
    assert_int_equal(st.nodes_operational, 1);
}

static void sdo_from_many_threads(void **state)
{
    (void)state;
    struct takt_link *mn_l, *cn_l;
    assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l, 256, NULL, NULL), 0);
    cn_l->mac[5] ^= 1;
    struct takt_plk_mn_cfg cfg;
    takt_plk_mn_cfg_default(&cfg);
    cfg.cycle_us = 2000;
    cfg.pres_timeout_ns = 500000;
    cfg.loss_pres_threshold = 0;       /* real time on a busy machine: count, don't reset */
    cfg.cycle_exceed_threshold = 0;
    cfg.cn_loss_threshold = 0;
    assert_int_equal(takt_plk_mn_cfg_add_range(&cfg, 2, 2, false), 0);
    struct takt_plk_mn *mn;
    char err[200] = "";
    assert_int_equal(takt_plk_mn_create(&cfg, &mn, err, sizeof err), 0);
    struct cb cb = { 0 };
    atomic_store(&cb.rc, 1);
    takt_plk_mn_set_callback(mn, on_cycle, &cb);
    struct takt_plk_cn_cfg cc;
    takt_plk_cn_cfg_default(&cc, 2);
    cc.soc_tolerance_ns = 200 * 1000 * 1000;
    struct cn_thread c = { .link = cn_l };
    assert_int_equal(takt_plk_cn_create(&cc, &c.cn, err, sizeof err), 0);
    assert_int_equal(pthread_create(&c.t, NULL, cn_main, &c), 0);
    struct takt_plk_run_opts o = { 0 };
    takt_rt_opts_default(&o.rt);
    o.rt.mlock = false;
    o.rt.dma_latency = false;
    assert_int_equal(takt_plk_mn_start(mn, mn_l, &o), 0);
    wait_operational(mn, c.cn);

    struct worker w[NTHR];
    pthread_t t[NTHR];
    for (unsigned i = 0; i < NTHR; i++) {
        w[i] = (struct worker){ .mn = mn, .id = i };
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    for (unsigned i = 0; i < NTHR; i++)
        pthread_join(t[i], NULL);
    for (unsigned i = 0; i < NTHR; i++) {
        if (w[i].bad)
            printf("thread %u: %u of %u wrong, first error %d\n", i, w[i].bad, NREQ,
                   -(int)w[i].first_bad_rc);
        assert_int_equal(w[i].ok, NREQ);
    }
    assert_true(atomic_load(&cb.calls) > 10);
    assert_int_equal(atomic_load(&cb.rc), -EDEADLK);

    takt_plk_mn_stop(mn);
    takt_plk_mn_join(mn);
    takt_plk_cn_stop(c.cn);
    pthread_join(c.t, NULL);
    takt_plk_cn_destroy(c.cn);
    takt_plk_mn_destroy(mn);
    takt_link_close(mn_l);
    takt_link_close(cn_l);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(sdo_from_many_threads) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
