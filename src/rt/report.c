/* What a finished takt_rt_loop reports beyond its PerfMsmt lines: cycle and overrun counts,
 * CPU per cycle (the process's and the loop thread's), and which real-time settings took effect, as text and JSON. */
#include "rt/loop.h"
#include <json-c/json.h>
#include <inttypes.h>

static takt_ns_t run_ns(const struct takt_rt_loop *l)
{
    return l->ended > l->started ? l->ended - l->started : 0;
}

/* The process's CPU over the loop's run per cycle: what /proc says for the process
 * over that window, divided by the cycles in it (docs/measurement.md). */
int64_t takt_rt_loop_cpu_per_cycle(const struct takt_rt_loop *l)
{
    return l->cyc.cycles ? l->proc_cpu_ns / (int64_t)l->cyc.cycles : 0;
}

int64_t takt_rt_loop_thread_cpu_per_cycle(const struct takt_rt_loop *l)
{
    return l->cyc.cycles ? l->cpu_ns / (int64_t)l->cyc.cycles : 0;
}

void takt_rt_loop_print_summary(FILE *f, const struct takt_rt_loop *l)
{
    char per[32], cpu[32], thr[32];
    takt_perf_fmt_usec(per, sizeof(per), l->cyc.period);
    takt_perf_fmt_usec(cpu, sizeof(cpu), takt_rt_loop_cpu_per_cycle(l));
    takt_perf_fmt_usec(thr, sizeof(thr), takt_rt_loop_thread_cpu_per_cycle(l));
    takt_ns_t run = run_ns(l);
    double load = run ? 100.0 * (double)l->proc_cpu_ns / (double)run : 0.0;
    fprintf(f, "Cycles: %" PRIu64 "  Period [usec]: %s  Overruns: %" PRIu64
            "  Skipped: %" PRIu64 "  CPU [usec/cycle]: %s (%.1f %%)  RT thread [usec/cycle]: %s\n",
            l->cyc.cycles, per, l->cyc.overruns, l->cyc.skipped, cpu, load, thr);
}

static json_object *rt_json(const struct takt_rt_loop *l)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "cpu", json_object_new_int(l->opts.cpu));
    json_object_object_add(o, "prio", json_object_new_int(l->opts.prio));
    json_object_object_add(o, "affinity_ok", json_object_new_boolean(l->rt.affinity_ok));
    json_object_object_add(o, "fifo_ok", json_object_new_boolean(l->rt.fifo_ok));
    json_object_object_add(o, "mlock_ok", json_object_new_boolean(l->rt.mlock_ok));
    json_object_object_add(o, "mlock_future", json_object_new_boolean(l->rt.mlock_future));
    json_object_object_add(o, "dma_latency_ok", json_object_new_boolean(l->rt.dma_latency_ok));
    json_object_object_add(o, "warnings", json_object_new_int64(l->rt.warnings));
    return o;
}

void *takt_rt_loop_to_json(const struct takt_rt_loop *l)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "period_ns", json_object_new_int64(l->cyc.period));
    json_object_object_add(o, "cycles", json_object_new_uint64(l->cyc.cycles));
    json_object_object_add(o, "overruns", json_object_new_uint64(l->cyc.overruns));
    json_object_object_add(o, "skipped", json_object_new_uint64(l->cyc.skipped));
    json_object_object_add(o, "run_ns", json_object_new_int64(run_ns(l)));
    json_object_object_add(o, "cpu_ns", json_object_new_int64(l->proc_cpu_ns));
    json_object_object_add(o, "cpu_per_cycle_ns", json_object_new_int64(takt_rt_loop_cpu_per_cycle(l)));
    json_object_object_add(o, "thread_cpu_ns", json_object_new_int64(l->cpu_ns));
    json_object_object_add(o, "thread_cpu_per_cycle_ns", json_object_new_int64(takt_rt_loop_thread_cpu_per_cycle(l)));
    json_object_object_add(o, "rt", rt_json(l));
    json_object_object_add(o, "perf", takt_perf_set_to_json(&l->perf));
    return o;
}
