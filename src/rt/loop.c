/* The cyclic loop: step() once per period on absolute deadlines, with Cycle Time, Wake
 * Deviation and Task Duration recorded every cycle; in the caller's thread or its own. */
#include "rt/loop.h"
#include <errno.h>
#include <string.h>
#include <time.h>

#define HIST_BIN_NS   TAKT_NS_PER_US
#define HIST_MAX_BINS 100000u   /* 800 KB per histogram at most; wider bins beyond */

static takt_ns_t cpu_now(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (takt_ns_t)ts.tv_sec * TAKT_NS_PER_S + ts.tv_nsec;
}

/* 1 us bins from 0 to 4 periods + 1 ms: room for a few skipped deadlines. Long periods
 * get wider bins so one histogram never exceeds HIST_MAX_BINS. */
static int init_msmt(struct takt_rt_loop *l, struct takt_perf_msmt *m, const char *name)
{
    uint64_t range = 4 * (uint64_t)l->cyc.period + TAKT_NS_PER_MS;
    uint64_t bin = HIST_BIN_NS;
    while (range / bin > HIST_MAX_BINS)
        bin *= 10;
    int r = takt_perf_msmt_init(m, name, 0, (int64_t)bin, (uint32_t)((range + bin - 1) / bin));
    if (!r)
        r = takt_perf_set_add(&l->perf, m);
    return r;
}

int rt_loop_init(struct takt_rt_loop *l, takt_ns_t period, const struct takt_rt_opts *o,
                 takt_rt_step_fn step, void *ctx)
{
    memset(l, 0, sizeof(*l));
    if (period <= 0 || period > TAKT_RT_LOOP_MAX_PERIOD || !step)
        return -EINVAL;
    if (o)
        l->opts = *o;
    else
        takt_rt_opts_default(&l->opts);
    l->rt.dma_fd = -1;
    l->step = step;
    l->ctx = ctx;
    takt_rt_cycle_init(&l->cyc, period, 0);
    takt_perf_set_init(&l->perf, false);
    int r = init_msmt(l, &l->m_cycle, "Cycle Time");
    if (!r)
        r = init_msmt(l, &l->m_wake, "Wake Deviation");
    if (!r)
        r = init_msmt(l, &l->m_task, "Task Duration");
    if (r)
        rt_loop_free(l);
    return r;
}

void rt_loop_free(struct takt_rt_loop *l)
{
    takt_perf_msmt_free(&l->m_cycle);
    takt_perf_msmt_free(&l->m_wake);
    takt_perf_msmt_free(&l->m_task);
}

static bool stop_requested(struct takt_rt_loop *l)
{
    return __atomic_load_n(&l->stop, __ATOMIC_ACQUIRE) != 0;
}

/* One cycle after the wake-up: record, run the step, record its duration. Returns the
 * step's result. */
static int run_cycle(struct takt_rt_loop *l, takt_ns_t wake)
{
    if (l->cyc.cycles > 1)   /* the first wake-up has no predecessor to measure from */
        takt_perf_record(&l->perf, &l->m_cycle, l->cyc.wake_period);
    takt_perf_record(&l->perf, &l->m_wake, l->cyc.wake_dev);
    int r = l->step(l->ctx, l, wake);
    takt_ns_t end = takt_now();
    takt_perf_record(&l->perf, &l->m_task, end - wake);
    takt_perf_set_cycle_end(&l->perf);
    takt_rt_cycle_done(&l->cyc, end);
    return r;
}

/* The loop proper; takt_rt_setup has been applied to this thread. */
static int loop_body(struct takt_rt_loop *l)
{
    /* CPU at the window's edges only, never per cycle: the thread's own, and the whole
     * process's (what /proc/PID/stat counts: other threads such as a supervisor, the
     * reporting thread or an in-process simulator included) */
    /* (the process window encloses the thread's: process read first, last) */
    takt_ns_t pcpu0 = cpu_now(CLOCK_PROCESS_CPUTIME_ID), cpu0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    l->result = 0;
    __atomic_store_n(&l->ended, 0, __ATOMIC_RELAXED);
    l->started = takt_now();
    takt_rt_cycle_init(&l->cyc, l->cyc.period, l->started + l->cyc.period);
    takt_ns_t end_by = l->duration > 0 ? l->started + l->duration : 0;
    while (!stop_requested(l)) {
        if (end_by && l->cyc.next > end_by)
            break;
        takt_ns_t wake = takt_rt_cycle_wait(&l->cyc);
        int r = run_cycle(l, wake);
        if (r) {
            l->result = r;
            break;
        }
    }
    l->cpu_ns = cpu_now(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    l->proc_cpu_ns = cpu_now(CLOCK_PROCESS_CPUTIME_ID) - pcpu0;
    /* last: a watcher polling `ended` (atomically) then sees every figure complete */
    __atomic_store_n(&l->ended, takt_now(), __ATOMIC_RELEASE);
    if (l->on_end)
        l->on_end(l->on_end_arg);
    return l->result;
}

int takt_rt_loop_run(struct takt_rt_loop *l)
{
    takt_rt_setup(&l->opts, &l->rt, l->warn, l->warn_ctx);
    int r = loop_body(l);
    takt_rt_teardown(&l->rt);
    return r;
}

static void *loop_thread(void *arg)
{
    takt_rt_loop_run(arg);
    return NULL;
}

int takt_rt_loop_start(struct takt_rt_loop *l)
{
    if (l->running)
        return -EBUSY;
    /* A reporter in another thread now snapshots: flips must go through the RT side. */
    l->perf.threaded = true;
    __atomic_store_n(&l->stop, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&l->ended, 0, __ATOMIC_RELEASE);   /* watchers wait for non-zero */
    int r = pthread_create(&l->thread, NULL, loop_thread, l);
    if (r)
        return -r;
    l->running = true;
    return 0;
}

void takt_rt_loop_stop(struct takt_rt_loop *l)
{
    __atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
}

int takt_rt_loop_join(struct takt_rt_loop *l)
{
    if (!l->running)
        return l->result;
    pthread_join(l->thread, NULL);
    l->running = false;
    return l->result;
}
