/* rt_setup as an unprivileged-like configuration: nothing asked gives no warning, an
 * impossible request gives exactly one warning naming the problem, and the run goes on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <unistd.h>
#include <takt/rt.h>

struct warns {
    unsigned n;
    char last[320];
};

static void collect(void *ctx, const char *msg)
{
    struct warns *w = ctx;
    w->n++;
    snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void plain_opts(struct rt_opts *o)
{
    rt_opts_default(o);
    o->mlock = false;          /* process-wide; keep the test process as it is */
    o->dma_latency = false;
}

static void test_defaults(void **state)
{
    struct rt_opts o;
    rt_opts_default(&o);
    assert_int_equal(o.cpu, -1);
    assert_int_equal(o.prio, 0);
    assert_true(o.mlock);
    assert_true(o.dma_latency);
    assert_int_equal(o.prefault_stack, 64 * 1024);
}

static void test_nothing_asked_no_warning(void **state)
{
    struct rt_opts o;
    plain_opts(&o);
    struct rt_state st;
    struct warns w = { 0 };
    rt_setup(&o, &st, collect, &w);
    assert_int_equal(w.n, 0);
    assert_int_equal(st.warnings, 0);
    assert_false(st.affinity_ok);
    assert_false(st.fifo_ok);
    assert_int_equal(st.dma_fd, -1);
    rt_teardown(&st);
}

static void test_impossible_cpu_one_warning(void **state)
{
    struct rt_opts o;
    plain_opts(&o);
    o.cpu = 4000;
    struct rt_state st;
    struct warns w = { 0 };
    rt_setup(&o, &st, collect, &w);
    assert_int_equal(w.n, 1);
    assert_int_equal(st.warnings, 1);
    assert_false(st.affinity_ok);
    assert_non_null(strstr(w.last, "CPU 4000"));
    rt_teardown(&st);
    /* the run goes on: the thread still works and can sleep on a deadline */
    struct rt_cycle c;
    rt_cycle_init(&c, 100000, takt_now() + 100000);
    rt_cycle_wait(&c);
    assert_int_equal(c.cycles, 1);
}

static void test_bad_priority_one_warning(void **state)
{
    struct rt_opts o;
    plain_opts(&o);
    o.prio = 1000;
    struct rt_state st;
    struct warns w = { 0 };
    rt_setup(&o, &st, collect, &w);
    assert_int_equal(w.n, 1);
    assert_false(st.fifo_ok);
    assert_non_null(strstr(w.last, "1000"));
    assert_non_null(strstr(w.last, "SCHED_OTHER"));
}

static void test_cpu0_pins(void **state)
{
    struct rt_opts o;
    plain_opts(&o);
    o.cpu = 0;
    struct rt_state st;
    struct warns w = { 0 };
    rt_setup(&o, &st, collect, &w);
    /* CPU 0 may be outside a restricted cpuset: then one warning, never more */
    assert_true(w.n <= 1);
    assert_true(st.affinity_ok == (w.n == 0));
}

static void test_full_setup_warns_at_most_once_each(void **state)
{
    /* Whatever privileges this process has, each of the four requests gives either
     * success or exactly one warning; nothing aborts. */
    struct rt_opts o;
    rt_opts_default(&o);
    o.cpu = 0;
    o.prio = 10;
    struct rt_state st;
    struct warns w = { 0 };
    rt_setup(&o, &st, collect, &w);
    unsigned ok = st.affinity_ok + st.fifo_ok + st.mlock_ok + st.dma_latency_ok;
    assert_int_equal(ok + w.n, 4);
    assert_true(st.dma_latency_ok == (st.dma_fd >= 0));
    rt_teardown(&st);
    assert_int_equal(st.dma_fd, -1);
    /* back to SCHED_OTHER so later tests in this process are ordinary */
    struct sched_param sp = { 0 };
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_nothing_asked_no_warning),
        cmocka_unit_test(test_impossible_cpu_one_warning),
        cmocka_unit_test(test_bad_priority_one_warning),
        cmocka_unit_test(test_cpu0_pins),
        cmocka_unit_test(test_full_setup_warns_at_most_once_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
