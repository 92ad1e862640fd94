/* takt_rt_loop: cycle counts and measurement counts agree, a step's result stops the loop,
 * the duration limit holds, stop works from another thread, and a reporter thread
 * takes interval snapshots while the loop runs in its own thread. No timing asserts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <json-c/json.h>
#include <takt/rt.h>
#include "rt/loop.h"

#define MS TAKT_NS_PER_MS

struct counter {
    uint64_t steps;
    uint64_t stop_at;     /* 0: never stop by itself */
    int ret;
    struct takt_perf_msmt *job; /* an extra measurement recorded by the step */
};

static int count_step(void *ctx, struct takt_rt_loop *l, takt_ns_t wake)
{
    struct counter *c = ctx;
    c->steps++;
    if (c->job)
        takt_perf_record(&l->perf, c->job, (int64_t)(c->steps % 7) * 1000);
    if (c->stop_at && c->steps >= c->stop_at)
        return c->ret;
    return 0;
}

static void plain_opts(struct takt_rt_opts *o)
{
    takt_rt_opts_default(o);
    o->mlock = false;
    o->dma_latency = false;
}

static void quiet(void *ctx, const char *msg) { (*(unsigned *)ctx)++; }

static void test_init_names_and_hist(void **state)
{
    struct takt_rt_loop l;
    struct takt_rt_opts o;
    plain_opts(&o);
    struct counter c = { 0 };
    assert_int_equal(rt_loop_init(&l, MS, &o, count_step, &c), 0);
    assert_string_equal(l.m_cycle.name, "Cycle Time");
    assert_string_equal(l.m_wake.name, "Wake Deviation");
    assert_string_equal(l.m_task.name, "Task Duration");
    assert_int_equal(l.perf.n, 3);
    assert_int_equal(l.m_cycle.hist.bin, 1000);                /* 1 us bins */
    assert_int_equal(l.m_cycle.hist.nbins, 5000);              /* 4 ms + 1 ms */
    rt_loop_free(&l);
    assert_int_equal(rt_loop_init(&l, 0, &o, count_step, &c), -EINVAL);
    assert_int_equal(rt_loop_init(&l, MS, &o, NULL, &c), -EINVAL);
    assert_int_equal(rt_loop_init(&l, INT64_MAX, &o, count_step, &c), -EINVAL);
    /* a long period keeps the histogram bounded with wider bins */
    assert_int_equal(rt_loop_init(&l, TAKT_RT_LOOP_MAX_PERIOD, &o, count_step, &c), 0);
    assert_true(l.m_cycle.hist.nbins <= 100000);
    assert_true((uint64_t)l.m_cycle.hist.bin * l.m_cycle.hist.nbins >= 4 * (uint64_t)TAKT_RT_LOOP_MAX_PERIOD);
    rt_loop_free(&l);
}

static void test_200_cycles_in_thread(void **state)
{
    struct takt_rt_loop l;
    struct takt_rt_opts o;
    plain_opts(&o);
    struct counter c = { .stop_at = 200, .ret = 42 };
    struct takt_perf_msmt job;
    assert_int_equal(takt_perf_msmt_init(&job, "JOB_Test", 0, 1000, 100), 0);
    c.job = &job;
    unsigned warns = 0;
    assert_int_equal(rt_loop_init(&l, MS, &o, count_step, &c), 0);
    l.warn = quiet;
    l.warn_ctx = &warns;
    assert_int_equal(takt_perf_set_add(&l.perf, &job), 0);
    assert_int_equal(takt_rt_loop_run(&l), 42);
    assert_int_equal(warns, 0);
    assert_int_equal(l.result, 42);
    assert_int_equal(c.steps, 200);
    assert_int_equal(l.cyc.cycles, 200);
    assert_int_equal(l.m_wake.total.count, 200);
    assert_int_equal(l.m_wake.hist.total, 200);
    assert_int_equal(l.m_task.total.count, 200);
    assert_int_equal(l.m_task.hist.total, 200);
    assert_int_equal(l.m_cycle.total.count, 199);  /* wake-to-wake needs two wake-ups */
    assert_int_equal(l.m_cycle.hist.total, 199);
    assert_int_equal(job.total.count, 200);
    assert_int_equal(job.hist.total, 200);
    /* the histogram's bins account for every value */
    uint64_t in = l.m_cycle.hist.under + l.m_cycle.hist.over;
    for (uint32_t i = 0; i < l.m_cycle.hist.nbins; i++)
        in += l.m_cycle.hist.bins[i];
    assert_int_equal(in, 199);
    /* single-threaded set: nobody flipped, so the active bank has everything */
    assert_int_equal(l.m_wake.ival[l.perf.active].count, 200);
    assert_true(l.ended > l.started);
    assert_true(l.cpu_ns > 0);
    /* skipped deadlines count whole periods lost: cycles + skipped spans the run */
    assert_true(l.cyc.cycles + l.cyc.skipped >= 200);

    /* summary and JSON agree with the counters */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    takt_rt_loop_print_summary(f, &l);
    fclose(f);
    char expect[64];
    snprintf(expect, sizeof(expect), "Cycles: 200  Period [usec]: 1000.0  Overruns: %llu  Skipped: %llu ",
             (unsigned long long)l.cyc.overruns, (unsigned long long)l.cyc.skipped);
    assert_memory_equal(buf, expect, strlen(expect));
    assert_non_null(strstr(buf, "CPU [usec/cycle]: "));
    free(buf);
    assert_int_equal(takt_rt_loop_cpu_per_cycle(&l), l.proc_cpu_ns / 200);
    assert_int_equal(takt_rt_loop_thread_cpu_per_cycle(&l), l.cpu_ns / 200);
    assert_true(l.proc_cpu_ns >= l.cpu_ns);
    json_object *js = takt_rt_loop_to_json(&l), *v, *m;
    assert_true(json_object_object_get_ex(js, "cycles", &v));
    assert_int_equal(json_object_get_int64(v), 200);
    assert_true(json_object_object_get_ex(js, "period_ns", &v));
    assert_int_equal(json_object_get_int64(v), MS);
    assert_true(json_object_object_get_ex(js, "rt", &v));
    assert_true(json_object_object_get_ex(v, "fifo_ok", &m));
    assert_false(json_object_get_boolean(m));
    assert_true(json_object_object_get_ex(js, "perf", &v));
    assert_true(json_object_object_get_ex(v, "Cycle Time", &m));
    assert_true(json_object_object_get_ex(m, "count", &v));
    assert_int_equal(json_object_get_int64(v), 199);
    assert_true(json_object_object_get_ex(m, "hist", &v));
    assert_true(json_object_object_get_ex(v, "total", &m));
    assert_int_equal(json_object_get_int64(m), 199);
    json_object_put(js);
    takt_perf_msmt_free(&job);
    rt_loop_free(&l);
}

static void test_duration_limit(void **state)
{
    struct takt_rt_loop l;
    struct takt_rt_opts o;
    plain_opts(&o);
    struct counter c = { 0 };
    assert_int_equal(rt_loop_init(&l, MS, &o, count_step, &c), 0);
    l.duration = 50 * MS;
    assert_int_equal(takt_rt_loop_run(&l), 0);
    /* deadlines started+1ms .. started+50ms: each one run or skipped (a late last
     * cycle may also skip deadlines past the end) */
    assert_true(c.steps <= 50);
    assert_true(c.steps > 0);
    assert_true(c.steps + l.cyc.skipped >= 50);
    assert_true(l.cyc.next > l.started + 50 * MS);
    assert_int_equal(l.cyc.cycles, c.steps);
    rt_loop_free(&l);
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

static void test_start_snapshot_stop(void **state)
{
    struct takt_rt_loop l;
    struct takt_rt_opts o;
    plain_opts(&o);
    struct counter c = { 0 };
    assert_int_equal(rt_loop_init(&l, MS, &o, count_step, &c), 0);
    assert_int_equal(takt_rt_loop_start(&l), 0);
    assert_true(l.perf.threaded);
    assert_int_equal(takt_rt_loop_start(&l), -EBUSY);
    uint64_t wake_sum = 0, task_sum = 0;
    for (int i = 0; i < 5; i++) {
        sleep_ms(20);
        int b = takt_perf_set_snapshot(&l.perf, 1000 * MS);
        if (b == -ETIMEDOUT)
            continue;      /* loop thread starved for a second: the request stays pending */
        assert_true(b == 0 || b == 1);
        wake_sum += l.m_wake.ival[b].count;
        task_sum += l.m_task.ival[b].count;
        assert_int_equal(l.m_wake.ihist[b].total, l.m_wake.ival[b].count);
        takt_perf_set_release(&l.perf, b);
        assert_int_equal(l.m_wake.ival[b].count, 0);
    }
    takt_rt_loop_stop(&l);
    assert_int_equal(takt_rt_loop_join(&l), 0);
    assert_false(l.running);
    /* loop stopped: released banks are zero, so the two banks hold what was not
     * reported (the last interval, and one finished after a timed-out snapshot) */
    wake_sum += l.m_wake.ival[0].count + l.m_wake.ival[1].count;
    task_sum += l.m_task.ival[0].count + l.m_task.ival[1].count;
    assert_true(c.steps > 0);
    assert_int_equal(l.cyc.cycles, c.steps);
    assert_int_equal(wake_sum, c.steps);        /* no count lost or doubled by flips */
    assert_int_equal(task_sum, c.steps);
    assert_int_equal(l.m_wake.total.count, c.steps);
    rt_loop_free(&l);
}

static void *stopper(void *arg)
{
    struct takt_rt_loop *l = arg;
    sleep_ms(30);
    takt_rt_loop_stop(l);
    return NULL;
}

static void test_run_stopped_from_other_thread(void **state)
{
    /* the loop runs in this thread without an end of its own; another thread stops it */
    struct takt_rt_loop l;
    struct takt_rt_opts o;
    plain_opts(&o);
    struct counter c = { 0 };
    assert_int_equal(rt_loop_init(&l, MS, &o, count_step, &c), 0);
    pthread_t t;
    takt_ns_t before = takt_now();
    assert_int_equal(pthread_create(&t, NULL, stopper, &l), 0);
    assert_int_equal(takt_rt_loop_run(&l), 0);
    pthread_join(t, NULL);
    assert_true(c.steps > 0);
    assert_int_equal(l.cyc.cycles, c.steps);
    assert_int_equal(l.m_task.total.count, c.steps);
    /* not before the stopper's 30 ms, counted from its creation: a loaded host may start
     * the loop (l.started) late, so ended - started can be shorter */
    assert_true(l.ended >= before + 30 * MS);
    assert_true(l.ended > l.started);
    rt_loop_free(&l);
}

static void test_snapshot_times_out_without_rt_side(void **state)
{
    struct takt_perf_set s;
    takt_perf_set_init(&s, true);
    assert_int_equal(takt_perf_set_snapshot(&s, 2 * MS), -ETIMEDOUT);
    /* the pending request is honoured by the next cycle end, not raised twice */
    takt_perf_set_cycle_end(&s);
    assert_int_equal(s.active, 1);
    assert_int_equal(takt_perf_set_snapshot(&s, 2 * MS), 0);
    takt_perf_set_cycle_end(&s);
    assert_int_equal(s.active, 1);              /* nothing new was requested */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_names_and_hist),
        cmocka_unit_test(test_200_cycles_in_thread),
        cmocka_unit_test(test_duration_limit),
        cmocka_unit_test(test_start_snapshot_stop),
        cmocka_unit_test(test_run_stopped_from_other_thread),
        cmocka_unit_test(test_snapshot_times_out_without_rt_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
