/* The cyclic loop's context (internal): the library embeds it in the objects that own
 * a cycle (the EtherCAT master, the POWERLINK MN driver) and the tests make it on
 * their stack; programs get one from takt_rt_loop_create() and see it through
 * <takt/rt.h>'s accessors only. */
#ifndef TAKT_RT_LOOP_H
#define TAKT_RT_LOOP_H

#include <pthread.h>
#include <takt/perf.h>
#include <takt/rt.h>
#include "perf/set.h"

struct takt_rt_loop {
    struct takt_rt_cycle cyc;
    struct takt_rt_opts  opts;
    struct takt_rt_state rt;
    takt_ns_t duration;        /* 0 = until takt_rt_loop_stop() */
    takt_rt_step_fn step;
    void *ctx;
    struct takt_perf_set  perf;     /* threaded when started with takt_rt_loop_start(); set
                                  perf.threaded yourself if you call takt_rt_loop_run() in a
                                  thread of your own and report from another */
    struct takt_perf_msmt m_cycle, m_wake, m_task;
    takt_ns_t cpu_ns;          /* thread CPU time consumed by the loop */
    takt_ns_t proc_cpu_ns;     /* the whole process's CPU time (every thread, user +
                                  kernel, what /proc/PID/stat counts) over the same
                                  window: read at the loop's start and end only */
    takt_ns_t started, ended;  /* monotonic; ended is stored last (release): a watcher
                                  may poll __atomic_load_n(&l->ended, ACQUIRE) != 0 */
    volatile int stop;         /* set by takt_rt_loop_stop() (atomic store) */
    int result;                /* non-zero value a step returned */
    pthread_t thread;
    bool running;
    takt_rt_warn_fn warn;
    void *warn_ctx;
    void (*on_end)(void *arg);  /* called by the loop's thread once `ended` is set (a
                                  reader sleeping on something else learns it at once) */
    void *on_end_arg;
};

/* In place (the caller owns the memory): as takt_rt_loop_create, then rt_loop_free. */
int  rt_loop_init(struct takt_rt_loop *l, takt_ns_t period, const struct takt_rt_opts *o,
                  takt_rt_step_fn step, void *ctx);
void rt_loop_free(struct takt_rt_loop *l);

#endif
