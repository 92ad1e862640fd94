/* takt rt latency: the cyclic loop of every takt stack run with an empty (or busy) step,
 * to see what wake-up latency, jitter and overruns this machine gives — the number to
 * hold next to cyclictest's before blaming a protocol stack. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include <takt/rt.h>
#include "cli/cli.h"

struct lat {
    takt_ns_t busy;     /* spin this long in each cycle */
};

static int busy_step(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake)
{
    const struct lat *t = ctx;
    if (t->busy > 0)
        while (takt_now() - wake < t->busy)
            ;
    return 0;
}

static void print_percentiles(FILE *f, const struct takt_perf_msmt *m)
{
    static const double ps[] = { 50, 99, 99.9, 99.99 };
    static const char *const names[] = { "p50", "p99", "p99.9", "p99.99" };
    fprintf(f, "Percentiles '%s' [usec]:", m->name);
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        int64_t v = takt_perf_hist_percentile(&m->hist, ps[i]);
        char b[32];
        if (v == INT64_MAX)
            fprintf(f, " %s >%s", names[i], takt_perf_fmt_usec(b, sizeof(b), m->hist.lo + m->hist.bin * m->hist.nbins));
        else
            fprintf(f, " %s %s", names[i], takt_perf_fmt_usec(b, sizeof(b), v));
    }
    fprintf(f, "\n");
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* Reporter side: interval lines every perf_s, a progress line on a terminal, stop on
 * Ctrl-C; returns when the loop ended by itself or was told to stop. */
static void watch(struct cli_ctx *c, struct takt_rt_loop *l)
{
    takt_ns_t start = takt_now(), every = (takt_ns_t)(c->perf_s * 1e9);
    takt_ns_t next = every > 0 ? start + every : INT64_MAX;
    bool progress = cli_progress_enabled() && every == 0;
    while (!takt_rt_loop_ended(l)) {
        if (cli_interrupted) {
            takt_rt_loop_stop(l);
            break;
        }
        sleep_ms(20);
        takt_ns_t now = takt_now();
        if (progress)
            fprintf(stderr, "\r%8.1f s", (double)(now - start) / 1e9);
        if (now < next)
            continue;
        next += every;
        if (takt_perf_report_interval(takt_rt_loop_perf(l), stdout, TAKT_NS_PER_S) == 0)
            fflush(stdout);
    }
    if (progress)
        fprintf(stderr, "\r%*s\r", 12, "");
}

static int run_latency(struct cli_ctx *c)
{
    struct lat t = { 0 };
    const char *s = cli_get(c, "busy");
    double busy_us = 0;
    if (s && cli_parse_double(c, "--busy (microseconds)", s, 0, (double)c->cycle_ns / 1000.0 * 100, &busy_us))
        return 2;
    t.busy = (takt_ns_t)(busy_us * 1000.0);
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    o.cpu = c->cpu;
    o.prio = c->prio;
    o.dma_latency = !cli_flag(c, "no-dma-latency");
    o.mlock = !cli_flag(c, "no-mlock");
    struct takt_rt_loop *l;
    int rc = takt_rt_loop_create(&l, c->cycle_ns, &o, busy_step, &t);
    if (rc)
        return cli_error(c, "cannot set up the loop for a %lld ns cycle: %s",
                         (long long)c->cycle_ns, strerror(-rc));
    takt_ns_t duration = c->time_s > 0 ? (takt_ns_t)(c->time_s * 1e9) : 0;
    takt_rt_loop_set_duration(l, duration);
    if (c->verbose)
        fprintf(stderr, "takt rt latency: cycle %.1f us, cpu %d, prio %d, busy %.1f us, %s\n",
                (double)c->cycle_ns / 1000.0, c->cpu, c->prio, busy_us,
                duration ? "until -t" : "until Ctrl-C");
    rc = takt_rt_loop_start(l);
    if (rc) {
        takt_rt_loop_destroy(l);
        return cli_error(c, "cannot start the loop thread: %s", strerror(-rc));
    }
    watch(c, l);
    takt_rt_loop_join(l);
    takt_perf_print_total(stdout, takt_rt_loop_perf(l));
    print_percentiles(stdout, takt_rt_loop_msmt(l, TAKT_RT_LOOP_WAKE_DEVIATION));
    print_percentiles(stdout, takt_rt_loop_msmt(l, TAKT_RT_LOOP_CYCLE_TIME));
    takt_rt_loop_print_summary(stdout, l);
    if (c->json) {
        json_object *j = takt_rt_loop_to_json(l);
        rc = cli_write_json(c, j);
        json_object_put(j);
    }
    takt_rt_loop_destroy(l);
    return rc;
}

static const struct cli_opt latency_opts[] = {
    { "busy", 0, 1, "US", "spin this long in each cycle (shows Task Duration and overruns)" },
    { "no-mlock", 0, 0, NULL, "do not lock memory" },
    { "no-dma-latency", 0, 0, NULL, "do not hold /dev/cpu_dma_latency at 0 (like cyclictest --laptop)" },
    { 0 }
};

const struct cli_cmd cli_cmds_rt[] = {
    { "rt", "latency", NULL, "wake-up latency of takt's cyclic loop (like cyclictest)",
      "Runs the real-time loop every takt stack uses (absolute deadlines on\n"
      "CLOCK_MONOTONIC, SCHED_FIFO with -p, pinned with -a, memory locked,\n"
      "/dev/cpu_dma_latency held at 0) with an empty step, and prints Cycle Time,\n"
      "Wake Deviation (cyclictest's latency) and Task Duration as PerfMsmt lines\n"
      "(every --perf S and at the end), percentiles, overruns and CPU per cycle.\n"
      "Compare with: cyclictest -m -p PRIO -i US -D S -q\n"
      "Example: takt rt latency -c 250 -p 80 -a 1 -t 10 --perf --json lat.json",
      CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON, latency_opts, run_latency, NULL },
    { 0 }
};
