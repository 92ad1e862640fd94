/* The public API (include/takt/plk.h): its configuration reaches the MN core; end to
 * end in real time over the mem link, an MN
 * on its takt_rt_loop thread and a CN served by takt_plk_cn_run in another thread boot to
 * Operational, exchange process data through the accessors and the cyclic callback, and
 * answer a blocking SDO read (and refuse one with its abort code); the MN's published view
 * of the node's boot is read while it runs. (One CN: the mem link is a point-to-point pair.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <takt/plk.h>
#include "plk/driver.h"
#include "plk/events.h"
#include "plk/mn.h"
#include "rt/event.h"

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

/* written by the MN's (CN's) thread, read by the test's: atomically */
struct app { unsigned calls; uint8_t seen_in; };

static unsigned cn_calls;
static void on_cn_cycle(void *ctx, struct takt_plk_cn *cn, takt_ns_t now)
{
    (void)ctx; (void)now;
    takt_plk_cn_inputs(cn, NULL)[0] = 0x81;
    __atomic_fetch_add(&cn_calls, 1, __ATOMIC_RELAXED);
}

static void on_cycle(void *ctx, struct takt_plk_mn *mn, takt_ns_t now)
{
    struct app *a = ctx;
    size_t len;
    (void)now;
    uint8_t *out = takt_plk_mn_outputs(mn, 2, &len);
    if (out && len)
        out[0] = 0x3C;
    const uint8_t *in = takt_plk_mn_inputs(mn, 2, &len);
    if (in && len)
        __atomic_store_n(&a->seen_in, in[0], __ATOMIC_RELAXED);
    __atomic_fetch_add(&a->calls, 1, __ATOMIC_RELAXED);
}

/* What takt_plk_mn_cfg sets reaches the MN core and the CN configuration it downloads;
 * a threshold of 0 is "disabled" (as in the OD), not "default". */
static void cfg_thresholds_reach_the_core(void **state)
{
    (void)state;
    struct takt_plk_mn_cfg cfg;
    takt_plk_mn_cfg_default(&cfg);
    assert_int_equal(cfg.cycle_exceed_threshold, 15);
    assert_int_equal(cfg.cn_loss_threshold, 15);
    assert_int_equal(takt_plk_mn_cfg_add_range(&cfg, 1, 2, false), 0);
    char err[200];
    for (uint32_t v = 0; v <= 40; v += 40) {
        cfg.loss_pres_threshold = cfg.cycle_exceed_threshold = cfg.cn_loss_threshold = v;
        struct takt_plk_mn *mn;
        assert_int_equal(takt_plk_mn_create(&cfg, &mn, err, sizeof err), 0);
        const struct plk_mn *core = plk_drv_mn_core(mn);
        assert_int_equal(core->cfg.cycle_exceed_threshold, v);
        assert_int_equal(core->cycle_exceed.threshold, v);
        for (unsigned id = 1; id <= 2; id++) {
            assert_int_equal(core->cfg.node[id].loss_pres_threshold, v);
            assert_int_equal(core->cfg.node[id].cn_loss_soc_threshold, v);
            assert_int_equal(core->cfg.node[id].cn_loss_preq_threshold, v);
        }
        takt_plk_mn_destroy(mn);
    }
}

/* Drain the MN's or the CN's events: whether one's text starts with `text` (every
 * event of the CN concerns its own node ID). */
static bool saw_event(struct takt_plk_mn *mn, struct takt_plk_cn *cn, const char *text)
{
    struct takt_event ev;
    bool seen = false;
    while (mn ? takt_plk_mn_next_event(mn, &ev) : takt_plk_cn_next_event(cn, &ev)) {
        char line[200];
        if (rt_ev_ring_format(&ev, line, sizeof line) < 0)
            plk_ev_format(&ev, line, sizeof line);
        printf("  %s event: %s\n", mn ? "MN" : "CN", line);
        assert_true(ev.proto != TAKT_EV_PLK || ev.unit == 2);
        seen |= !strncmp(line, text, strlen(text));
    }
    return seen;
}

static void mn_and_cn_over_mem(void **state)
{
    (void)state;
    struct takt_link *mn_l, *cn_l[1];
    assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l[0], 256, NULL, NULL), 0);
    cn_l[0]->mac[5] ^= 1;

    struct takt_plk_mn_cfg cfg;
    takt_plk_mn_cfg_default(&cfg);
    cfg.cycle_us = 2000;
    cfg.pres_timeout_ns = 500000;
    cfg.loss_pres_threshold = 0;       /* real time on a busy machine: count, don't reset */
    cfg.cycle_exceed_threshold = 0;
    cfg.cn_loss_threshold = 0;
    assert_int_equal(takt_plk_mn_cfg_add_range(&cfg, 2, 2, false), 0);
    /* a node ID outside 1..239 is refused with a message */
    struct takt_plk_mn_cfg bad = cfg;
    bad.nodes[0].id = 240;
    struct takt_plk_mn *mn;
    char err[200] = "";
    assert_true(takt_plk_mn_create(&bad, &mn, err, sizeof err) < 0);
    assert_non_null(strstr(err, "240"));
    assert_int_equal(takt_plk_mn_create(&cfg, &mn, err, sizeof err), 0);
    struct app a = { 0 };
    takt_plk_mn_set_callback(mn, on_cycle, &a);

    struct takt_plk_cn_cfg cc;
    takt_plk_cn_cfg_default(&cc, 2);
    /* real time on a busy machine (CI runs two jobs per core): a CN thread held off the
     * CPU for a few ms must not count a loss of SoC and fall back to PreOp1 here */
    cc.soc_tolerance_ns = 200 * 1000 * 1000;
    struct cn_thread c = { .link = cn_l[0] };
    assert_int_equal(takt_plk_cn_create(&cc, &c.cn, err, sizeof err), 0);
    takt_plk_cn_set_callback(c.cn, on_cn_cycle, NULL);
    assert_int_equal(pthread_create(&c.t, NULL, cn_main, &c), 0);

    struct takt_plk_run_opts o = { 0 };
    takt_rt_opts_default(&o.rt);
    o.rt.mlock = false;
    o.rt.dma_latency = false;
    assert_int_equal(takt_plk_mn_start(mn, mn_l, &o), 0);
    struct takt_plk_mn_stats st;
    takt_ns_t end = takt_now() + 20 * TAKT_NS_PER_S;
    /* real time, not simulated: wait until both sides agree (a loaded machine may make
     * the CN drop back and boot again on the way; the exact transitions are pinned by
     * the simulated-time tests in test_mn_boot.c and test_cn_nmt.c) */
    do {
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
        takt_plk_mn_get_stats(mn, &st);
    } while ((st.nodes_operational < 1 || takt_plk_cn_state(c.cn) != 0xFD) && takt_now() < end);
    assert_int_equal(st.nodes_operational, 1);
    assert_int_equal(takt_plk_cn_state(c.cn), 0xFD);
    nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
    assert_true(__atomic_load_n(&a.calls, __ATOMIC_RELAXED) > 10);
    assert_int_equal(__atomic_load_n(&a.seen_in, __ATOMIC_RELAXED), 0x81);
    assert_true(__atomic_load_n(&cn_calls, __ATOMIC_RELAXED) > 10);   /* once per SoC */

    uint8_t buf[8];
    size_t n = 0;
    /* a CN that dropped out and is booted again aborts an SDO in flight: one more try
     * once both sides are Operational again */
    int rc = takt_plk_mn_sdo_read(mn, 2, 0x1000, 0, buf, sizeof buf, &n, 5 * TAKT_NS_PER_S);
    if (rc) {
        end = takt_now() + 20 * TAKT_NS_PER_S;
        do {
            nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
            takt_plk_mn_get_stats(mn, &st);
        } while ((st.nodes_operational < 1 || takt_plk_cn_state(c.cn) != 0xFD) && takt_now() < end);
        rc = takt_plk_mn_sdo_read(mn, 2, 0x1000, 0, buf, sizeof buf, &n, 5 * TAKT_NS_PER_S);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, 4);
    assert_int_equal(buf[0] | buf[1] << 8 | buf[2] << 16 | buf[3] << 24, 0x000F0191);
    /* an object the CN does not have: refused with the abort code DS 301 gives for it
     * (a CN that dropped out meanwhile aborts otherwise: only the code of an abort is
     * pinned then) */
    rc = takt_plk_mn_sdo_read(mn, 2, 0x6FFF, 0, buf, sizeof buf, &n, 5 * TAKT_NS_PER_S);
    assert_int_equal(rc, -TAKT_ESDOABORT);
    assert_true(takt_plk_mn_sdo_abort_code(mn) != 0);
    if (takt_plk_cn_state(c.cn) == 0xFD)
        assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0x06020000);
    /* the boot as the MN's thread published it, read while it runs */
    struct takt_plk_node_info ni;
    end = takt_now() + 20 * TAKT_NS_PER_S;
    do {
        assert_int_equal(takt_plk_mn_node_info(mn, 2, &ni), 0);
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
    } while (ni.step != TAKT_PLK_STEP_OPERATIONAL && takt_now() < end);
    assert_int_equal(ni.step, TAKT_PLK_STEP_OPERATIONAL);
    assert_int_equal(ni.state, TAKT_PLK_OPERATIONAL);
    assert_true(ni.in_cycle);
    assert_false(ni.missing);
    assert_int_equal(ni.pres_timeout_ns, 500000);
    assert_int_equal(takt_plk_mn_node_info(mn, 3, &ni), -2 /* -ENOENT */);
    struct takt_plk_mn_info mi;
    takt_plk_mn_get_info(mn, &mi);
    assert_int_equal(mi.cycle_us, 2000);
    assert_int_equal(mi.n_nodes, 1);
    assert_int_equal(mi.nodes[0], 2);
    struct takt_plk_node_stats ns;
    assert_int_equal(takt_plk_mn_node_stats(mn, 2, &ns), 0);
    assert_true(ns.pres_ok > 10);
    assert_int_equal(takt_plk_mn_node_stats(mn, 3, &ns), -2 /* -ENOENT */);

    takt_plk_mn_stop(mn);
    takt_plk_mn_join(mn);
    size_t ol;
    const uint8_t *out = takt_plk_cn_outputs(c.cn, &ol);
    assert_int_equal(ol, 1);
    assert_int_equal(out[0], 0x3C);
    takt_plk_cn_stop(c.cn);
    pthread_join(c.t, NULL);
    /* both ends said so on their event rings: the MN of CN 2, the CN of itself */
    assert_true(saw_event(mn, NULL, "CN 2 OPERATIONAL"));
    assert_true(saw_event(NULL, c.cn, "CN 2 OPERATIONAL (was "));
    takt_plk_cn_destroy(c.cn);
    takt_plk_mn_destroy(mn);
    takt_link_close(mn_l);
    takt_link_close(cn_l[0]);
}

/* The MN thread's CPU per cycle costs a system call every cycle: measured only when
 * asked (takt_plk_run_opts.thread_cpu), the other measurements either way. */
static void thread_cpu_when_asked(void **state)
{
    (void)state;
    for (int on = 0; on <= 1; on++) {
        struct takt_link *mn_l, *cn_l;
        assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l, 64, NULL, NULL), 0);
        struct takt_plk_mn_cfg cfg;
        takt_plk_mn_cfg_default(&cfg);
        assert_int_equal(takt_plk_mn_cfg_add_range(&cfg, 2, 2, false), 0);
        struct takt_plk_mn *mn;
        char err[200] = "";
        assert_int_equal(takt_plk_mn_create(&cfg, &mn, err, sizeof err), 0);
        struct takt_plk_run_opts o = { .thread_cpu = on };
        takt_rt_opts_default(&o.rt);
        o.rt.mlock = false;
        o.rt.dma_latency = false;
        assert_int_equal(takt_plk_mn_start(mn, mn_l, &o), 0);
        struct takt_perf_set *ps = takt_rt_loop_perf(takt_plk_mn_loop(mn));
        assert_non_null(takt_perf_set_find(ps, "JOB_SendSoC"));
        if (on)
            assert_non_null(takt_perf_set_find(ps, "CPU per Cycle"));
        else
            assert_null(takt_perf_set_find(ps, "CPU per Cycle"));
        takt_plk_mn_stop(mn);
        takt_plk_mn_join(mn);
        takt_plk_mn_destroy(mn);
        takt_link_close(mn_l);
        takt_link_close(cn_l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(cfg_thresholds_reach_the_core),
                                        cmocka_unit_test(mn_and_cn_over_mem),
                                        cmocka_unit_test(thread_cpu_when_asked) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
