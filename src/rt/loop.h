/* The cyclic loop's context (internal): the library embeds it in the objects that own
 * a cycle (the EtherCAT master, the POWERLINK MN driver) and the tests make it on
 * their stack; programs get one from rt_loop_create() and see it through
 * <takt/rt.h>'s accessors only. */
#ifndef TAKT_RT_LOOP_H
#define TAKT_RT_LOOP_H

#include <pthread.h>
#include <takt/perf.h>
#include <takt/rt.h>

struct rt_loop {
    struct rt_cycle cyc;
    struct rt_opts  opts;
    struct rt_state rt;
    takt_ns_t duration;        /* 0 = until rt_loop_stop() */
    rt_step_fn step;
    void *ctx;
    struct perf_set  perf;     /* threaded when started with rt_loop_start(); set
                                  perf.threaded yourself if you call rt_loop_run() in a
                                  thread of your own and report from another */
    struct perf_msmt m_cycle, m_wake, m_task;
    takt_ns_t cpu_ns;          /* thread CPU time consumed by the loop */
    takt_ns_t proc_cpu_ns;     /* the whole process's CPU time (every thread, user +
                                  kernel, what /proc/PID/stat counts) over the same
                                  window: read at the loop's start and end only */
    takt_ns_t started, ended;  /* monotonic; ended is stored last (release): a watcher
                                  may poll __atomic_load_n(&l->ended, ACQUIRE) != 0 */
    volatile int stop;         /* set by rt_loop_stop() (atomic store) */
    int result;                /* non-zero value a step returned */
    pthread_t thread;
    bool running;
    rt_warn_fn warn;
    void *warn_ctx;
};

/* In place (the caller owns the memory): as rt_loop_create, then rt_loop_free. */
int  rt_loop_init(struct rt_loop *l, takt_ns_t period, const struct rt_opts *o,
                  rt_step_fn step, void *ctx);
void rt_loop_free(struct rt_loop *l);

#endif
