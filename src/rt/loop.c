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
static int init_msmt(struct rt_loop *l, struct perf_msmt *m, const char *name)
{
    uint64_t range = 4 * (uint64_t)l->cyc.period + TAKT_NS_PER_MS;
    uint64_t bin = HIST_BIN_NS;
    while (range / bin > HIST_MAX_BINS)
        bin *= 10;
    int r = perf_msmt_init(m, name, 0, (int64_t)bin, (uint32_t)((range + bin - 1) / bin));
    if (!r)
        r = perf_set_add(&l->perf, m);
    return r;
}

int rt_loop_init(struct rt_loop *l, takt_ns_t period, const struct rt_opts *o,
                 rt_step_fn step, void *ctx)
{
    memset(l, 0, sizeof(*l));
    if (period <= 0 || period > RT_LOOP_MAX_PERIOD || !step)
        return -EINVAL;
    if (o)
        l->opts = *o;
    else
        rt_opts_default(&l->opts);
    l->rt.dma_fd = -1;
    l->step = step;
    l->ctx = ctx;
    rt_cycle_init(&l->cyc, period, 0);
    perf_set_init(&l->perf, false);
    int r = init_msmt(l, &l->m_cycle, "Cycle Time");
    if (!r)
        r = init_msmt(l, &l->m_wake, "Wake Deviation");
    if (!r)
        r = init_msmt(l, &l->m_task, "Task Duration");
    if (r)
        rt_loop_free(l);
    return r;
}

void rt_loop_free(struct rt_loop *l)
{
    perf_msmt_free(&l->m_cycle);
    perf_msmt_free(&l->m_wake);
    perf_msmt_free(&l->m_task);
}

static bool stop_requested(struct rt_loop *l)
{
    return __atomic_load_n(&l->stop, __ATOMIC_ACQUIRE) != 0;
}

/* One cycle after the wake-up: record, run the step, record its duration. Returns the
 * step's result. */
static int run_cycle(struct rt_loop *l, takt_ns_t wake)
{
    if (l->cyc.cycles > 1)   /* the first wake-up has no predecessor to measure from */
        perf_record(&l->perf, &l->m_cycle, l->cyc.wake_period);
    perf_record(&l->perf, &l->m_wake, l->cyc.wake_dev);
    int r = l->step(l->ctx, l, wake);
    takt_ns_t end = takt_now();
    perf_record(&l->perf, &l->m_task, end - wake);
    perf_set_cycle_end(&l->perf);
    rt_cycle_done(&l->cyc, end);
    return r;
}

/* The loop proper; rt_setup has been applied to this thread. */
static int loop_body(struct rt_loop *l)
{
    /* CPU at the window's edges only, never per cycle: the thread's own, and the whole
     * process's (what /proc/PID/stat counts: other threads such as a supervisor, the
     * reporting thread or an in-process simulator included) */
    /* (the process window encloses the thread's: process read first, last) */
    takt_ns_t pcpu0 = cpu_now(CLOCK_PROCESS_CPUTIME_ID), cpu0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    l->result = 0;
    __atomic_store_n(&l->ended, 0, __ATOMIC_RELAXED);
    l->started = takt_now();
    rt_cycle_init(&l->cyc, l->cyc.period, l->started + l->cyc.period);
    takt_ns_t end_by = l->duration > 0 ? l->started + l->duration : 0;
    while (!stop_requested(l)) {
        if (end_by && l->cyc.next > end_by)
            break;
        takt_ns_t wake = rt_cycle_wait(&l->cyc);
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
    return l->result;
}

int rt_loop_run(struct rt_loop *l)
{
    rt_setup(&l->opts, &l->rt, l->warn, l->warn_ctx);
    int r = loop_body(l);
    rt_teardown(&l->rt);
    return r;
}

static void *loop_thread(void *arg)
{
    rt_loop_run(arg);
    return NULL;
}

int rt_loop_start(struct rt_loop *l)
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

void rt_loop_stop(struct rt_loop *l)
{
    __atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
}

int rt_loop_join(struct rt_loop *l)
{
    if (!l->running)
        return l->result;
    pthread_join(l->thread, NULL);
    l->running = false;
    return l->result;
}
