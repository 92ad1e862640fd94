/* takt_plk_mn_wait_event, the sleep of the thread that reports on a running MN (takt
 * plk mn's main thread): an MN on its RT thread and a CN over the mem link boot while
 * the reader only ever sleeps in it with a 20 s timeout. Every wait must end long
 * before that: woken by the MN's thread at the end of each cycle that put events or
 * changed its state, and by the loop's end when the MN is stopped while the reader
 * sleeps. Without the wake-up each of those waits would sleep its whole timeout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <takt/plk.h>
#include "unit/thread_state.h"

#define LONG_NS (20 * TAKT_NS_PER_S)

struct cn_thread {
    struct takt_plk_cn *cn;
    struct takt_link *link;
    pthread_t t;
};

static void *cn_main(void *arg)
{
    struct cn_thread *c = arg;
    takt_plk_cn_run(c->cn, c->link, NULL);
    return NULL;
}

struct stopper {
    struct takt_plk_mn *mn;
    pid_t reader;
    pthread_t t;
};

/* Stop the MN once the reader sleeps (or after 10 s: then the reader may still be
 * between its waits, which the test allows). */
static void *stopper_main(void *arg)
{
    struct stopper *s = arg;
    takt_ns_t give_up = takt_now() + 10 * TAKT_NS_PER_S;
    while (!thread_sleeps(s->reader) && takt_now() < give_up)
        usleep(1000);
    takt_plk_mn_stop(s->mn);
    return NULL;
}

/* One wait as takt plk mn's thread makes it, then every event it finds; true when one
 * says CN 2 is Operational. */
static bool wait_once(struct takt_plk_mn *mn)
{
    takt_ns_t t0 = takt_now();
    takt_plk_mn_wait_event(mn, LONG_NS);
    takt_ns_t took = takt_now() - t0;
    if (took >= LONG_NS / 2)
        fail_msg("a wait took %.1f s: the MN's thread did not wake the reader", took / 1e9);
    struct takt_event ev;
    bool op = false;
    while (takt_plk_mn_next_event(mn, &ev))
        op |= ev.proto == TAKT_EV_PLK && ev.code == TAKT_PLK_EV_STATE && ev.unit == 2 &&
              ev.v[0] == TAKT_PLK_OPERATIONAL;
    return op;
}

static void reader_sleeps_until_woken(void **state)
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
    struct takt_plk_cn_cfg cc;
    takt_plk_cn_cfg_default(&cc, 2);
    cc.soc_tolerance_ns = 200 * 1000 * 1000;   /* a CN thread held off the CPU: no loss */
    struct cn_thread c = { .link = cn_l };
    assert_int_equal(takt_plk_cn_create(&cc, &c.cn, err, sizeof err), 0);
    assert_int_equal(pthread_create(&c.t, NULL, cn_main, &c), 0);
    struct takt_plk_run_opts o = { 0 };
    takt_rt_opts_default(&o.rt);
    o.rt.mlock = false;
    o.rt.dma_latency = false;
    assert_int_equal(takt_plk_mn_start(mn, mn_l, &o), 0);

    /* the boot: node events and the MN's state changes wake the reader */
    takt_ns_t end = takt_now() + 60 * TAKT_NS_PER_S;
    bool op = false;
    while (!op && takt_now() < end)
        op = wait_once(mn);
    assert_true(op);
    /* the count of Operational CNs is published before the wake-up that follows it */
    struct takt_plk_mn_stats st;
    takt_plk_mn_get_stats(mn, &st);
    while (st.nodes_operational != 1 && takt_now() < end) {
        wait_once(mn);
        takt_plk_mn_get_stats(mn, &st);
    }
    assert_int_equal(st.nodes_operational, 1);

    /* stopped while the reader sleeps: the loop's end wakes it */
    struct stopper s = { .mn = mn, .reader = (pid_t)syscall(SYS_gettid) };
    assert_int_equal(pthread_create(&s.t, NULL, stopper_main, &s), 0);
    while (!takt_rt_loop_ended(takt_plk_mn_loop(mn)))
        wait_once(mn);
    pthread_join(s.t, NULL);
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
    const struct CMUnitTest tests[] = { cmocka_unit_test(reader_sleeps_until_woken) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
