/* takt bench: the classic evaluation as one command. A load matrix (protocol x node
 * count x cycle time -> CPU load of the stack, N/A where the cycle cannot be held
 * without loss) and jitter under stress (reference cycle while each load runs), each
 * figure next to cyclictest at the same interval, written as JSON, Markdown and plots. */
#ifndef TAKT_BENCH_BENCH_H
#define TAKT_BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <takt/perf.h>
#include "bench/sysenv.h"

enum bench_proto { BP_ECAT, BP_PLK, BP_COUNT };

#define BENCH_MAX_NODES  8
#define BENCH_MAX_CYCLES 12

struct bench_opts {
    const char *out_dir;
    const char *takt;               /* path of the takt binary to run */
    bool quick;
    bool proto[BP_COUNT];
    unsigned nodes[BENCH_MAX_NODES], n_nodes;
    int64_t cycle[BENCH_MAX_CYCLES];
    unsigned n_cycles;
    double cell_s;                  /* seconds per load-matrix cell */
    int64_t ref_cycle;              /* jitter runs */
    uint64_t ref_cycles;            /* cycles per stress scenario */
    unsigned ref_nodes;
    bool stress[ST_COUNT];
    int cpu, prio;                  /* for the stack and cyclictest */
    int ct_cpu;                     /* CPU for cyclictest (-1: same as the stack) */
    int sim_cpu;                    /* CPU for the simulated network (-1: another than cpu) */
    const char *link;               /* link spec prefix, "" = packet */
    const char *sim_args;           /* extra options of the simulated network, space-separated */
    const char *cmdline;            /* how takt bench was invoked (for the report), may be NULL */
    bool progress;                  /* show progress on stderr */
    volatile int *stop;             /* set (by a signal handler) to stop early */
};

/* What happened to a POWERLINK network in a run, from the MN's report (per-node boots,
 * resets, loss-threshold firings; the cycle-exceeded threshold of object 0x1C02, EPSG
 * DS 301 DLL error handling) and its progress log: a reset stops the SoC stream and
 * reboots the CNs, which a frame-loss count alone hides. */
struct bench_plk_events {
    uint64_t reboots;               /* boots beyond each CN's first */
    unsigned nodes_rebooted;        /* CNs that booted more than once */
    unsigned nodes;                 /* CNs in the MN's report */
    uint64_t resets;                /* CNs the MN reset (sum over the CNs) */
    uint64_t loss_thr;              /* the MN's loss-of-PRes threshold firings */
    uint64_t exceed_thr;            /* cycle-exceeded threshold firings (0x1C02): every CN reset */
    char last_reset[120];           /* the MN's last reset reason, "" if none */
    int in_window;                  /* 1: the network left Operational after the window opened,
                                     * 0: only while booting, -1: not known */
};

/* One measurement: the stack at one cycle time and node count, under one load. */
struct bench_run {
    enum bench_proto proto;
    unsigned nodes;
    int64_t cycle_ns;
    enum bench_stress stress;
    double seconds;
    /* results */
    bool ran, held;                 /* held: the cycle was kept without loss */
    char note[1024];                /* why N/A, missing tools, ... */
    uint64_t cycles, lost, overruns, wkc_errors;
    double cpu_pct;                 /* stack threads' CPU time / wall time on one core */
    double cpu_us_per_cycle;
    struct takt_perf_stat period;        /* the stack's Cycle Time */
    struct takt_perf_hist hist;          /* Cycle Time, 1 us bins */
    int64_t p50, p99, p999;         /* -1: above the histogram's top (see hist.over) */
    struct takt_perf_stat wire;          /* cycle period seen on the wire (capture at the peer) */
    uint64_t wire_cycles, wire_lost;
    long capture_drops;             /* frames the kernel dropped before the capture read them (-1: unknown) */
    char capture[512];              /* capture file of this run, "" if none */
    int64_t wall_from, wall_to;     /* the stack's measured window (CLOCK_REALTIME), 0 = whole run */
    struct bench_ct ct;
    bool load_ran;                  /* the stress load ran for the whole run */
    char load_cmd[200];             /* what ran as the load */
    struct bench_plk_events ev;     /* POWERLINK only */
};

void bench_opts_default(struct bench_opts *o, bool quick);
/* The CPU the simulated network is pinned to (-1: not pinned). */
int  bench_sim_cpu(const struct bench_opts *o);
/* Can this process get SCHED_FIFO at prio? Tried in a child; note says why not. */
bool bench_fifo_allowed(int prio, char *note, size_t n);
/* Run everything; writes out_dir/{report.md,report.json,data/,plots/}. Returns 0, or
 * -errno when the output directory or the namespace pair cannot be made. */
int  bench_run_all(const struct bench_opts *o, char *err, size_t errlen);

/* report side (bench_report.c) */
struct bench_all {
    const struct bench_opts *o;
    struct bench_run *load;         /* [proto][node][cycle] flattened */
    unsigned n_load;
    struct bench_run *jit;          /* [proto][stress] */
    unsigned n_jit;
    void *sysinfo;                  /* json_object* */
    bool fifo_ok;
    char fifo_note[256];
    char date[64];                  /* when the run started (UTC) */
    char ct_note[256];              /* why cyclictest did not run, from the first failure */
    char missing[256];              /* load generators not installed */
};
/* After a run: whether the cycle was held, and why not in r->note (bench.c). rc: the
 * stack's exit status; capture: the wire was captured. */
void bench_judge(struct bench_run *r, int rc, bool capture, const char *tag);
/* Notes of a run pile up ("; "-separated): a missing tool, a lossy capture, ... */
void bench_add_note(struct bench_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Did the run happen (figures to judge), from the stack's exit status and counts? */
bool bench_run_happened(const struct bench_run *r, int rc);
/* r->ev from the MN's JSON report and its -v log (bench_judge.c). */
void bench_plk_events_read(struct bench_run *r, const char *json_path, const char *log_path);
/* The events of a POWERLINK run in words ("" when none); returns buf. */
const char *bench_plk_events_text(const struct bench_run *r, char *buf, size_t n);
/* Why the stack's and the wire's max period disagree ("" when they agree); returns buf. */
const char *bench_max_why(const struct bench_run *r, char *buf, size_t n);
/* cyclictest's cell: its max (or avg / max) or why there is none; returns buf. */
const char *bench_ct_cell(const struct bench_run *r, bool avg, char *buf, size_t n);
int bench_write_report(const struct bench_all *a, char *err, size_t errlen);
const struct bench_run *bench_load_cell(const struct bench_all *a, int proto, unsigned nodes, int64_t cycle_ns);
/* bench_plot.c: data, scripts and (with gnuplot) PNG + SVG in out_dir/plots; rendered
 * says whether every image exists, why what is missing. Returns 0 or -errno. */
int bench_write_plots(const struct bench_all *a, bool *rendered, char *why, size_t n);
const char *bench_proto_name(enum bench_proto p);

#endif
