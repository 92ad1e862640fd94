/* The loop as programs see it (<takt/rt.h>): made by the library, read through copies
 * and accessors, so its context (rt/loop.h: thread handle, stop flag, perf banks) is
 * no part of the API. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rt/loop.h"

int takt_rt_loop_create(struct takt_rt_loop **out, takt_ns_t period, const struct takt_rt_opts *o,
                   takt_rt_step_fn step, void *ctx)
{
    *out = NULL;
    struct takt_rt_loop *l = malloc(sizeof *l);
    if (!l)
        return -ENOMEM;
    int r = rt_loop_init(l, period, o, step, ctx);
    if (r) {
        free(l);
        return r;
    }
    *out = l;
    return 0;
}

void takt_rt_loop_destroy(struct takt_rt_loop *l)
{
    if (!l)
        return;
    rt_loop_free(l);
    free(l);
}

void takt_rt_loop_set_duration(struct takt_rt_loop *l, takt_ns_t duration) { l->duration = duration; }

void takt_rt_loop_set_warn(struct takt_rt_loop *l, takt_rt_warn_fn warn, void *ctx)
{
    l->warn = warn;
    l->warn_ctx = ctx;
}

bool takt_rt_loop_ended(const struct takt_rt_loop *l)
{
    return __atomic_load_n(&l->ended, __ATOMIC_ACQUIRE) != 0;
}

void takt_rt_loop_get_info(const struct takt_rt_loop *l, struct takt_rt_loop_info *out)
{
    memset(out, 0, sizeof *out);
    /* ended first (acquire): when set, everything the loop stored before it is seen */
    out->ended = __atomic_load_n(&l->ended, __ATOMIC_ACQUIRE);
    out->period = l->cyc.period;
    out->cycles = __atomic_load_n(&l->cyc.cycles, __ATOMIC_RELAXED);
    out->overruns = __atomic_load_n(&l->cyc.overruns, __ATOMIC_RELAXED);
    out->skipped = __atomic_load_n(&l->cyc.skipped, __ATOMIC_RELAXED);
    out->wake_dev = __atomic_load_n(&l->cyc.wake_dev, __ATOMIC_RELAXED);
    /* written plainly by the loop's thread at its start and end: read once it ended */
    if (out->ended) {
        out->started = l->started;
        out->cpu_ns = l->cpu_ns;
        out->proc_cpu_ns = l->proc_cpu_ns;
        out->result = l->result;
    }
    out->running = l->running;
    out->opts = l->opts;
    /* takt_rt_setup writes rt in the loop's thread as it starts: read it only once the loop
     * has ended (the acquire above orders it), never while it may still be written */
    if (out->ended)
        out->rt = l->rt;
}

struct takt_perf_set *takt_rt_loop_perf(struct takt_rt_loop *l) { return &l->perf; }

const struct takt_perf_msmt *takt_rt_loop_msmt(const struct takt_rt_loop *l, enum takt_rt_loop_msmt which)
{
    switch (which) {
    case TAKT_RT_LOOP_CYCLE_TIME:     return &l->m_cycle;
    case TAKT_RT_LOOP_WAKE_DEVIATION: return &l->m_wake;
    case TAKT_RT_LOOP_TASK_DURATION:  return &l->m_task;
    }
    return NULL;
}
