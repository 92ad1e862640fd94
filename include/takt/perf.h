/* takt per-cycle statistics: min/avg/max/count and a fixed-bin histogram per
 * measurement, per interval and cumulative; recording allocates nothing and takes no
 * lock (docs/architecture.md, Threads). Reports in EC-Master's PerfMsmt line format and JSON. */
#ifndef TAKT_PERF_H
#define TAKT_PERF_H

#include <takt/takt.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

struct takt_perf_stat {
    int64_t  min, max;     /* ns */
    int64_t  sum;          /* ns */
    uint64_t count;
};

/* Histogram of values in [lo, lo + bin*nbins): bins of `bin` ns; values below lo go to
 * `under`, values at or above the top to `over`. The bins live in caller-provided or
 * init-time allocated memory; recording never allocates. */
struct takt_perf_hist {
    int64_t   lo, bin;
    uint32_t  nbins;
    uint64_t *bins;
    uint64_t  under, over;
    uint64_t  total;
    /* set by takt_perf_hist_init for the recording: bin * nbins, and the division by
     * bin as a multiply and shift (the high half of value * mul, shifted by shift;
     * mul 0: bin is 2^shift) */
    uint64_t  span, mul;
    uint32_t  shift;
};

/* One named measurement ("Cycle Time", "JOB_ProcessAllRxFrames", ...). Its three
 * histograms have the one layout takt_perf_msmt_init gives them. */
struct takt_perf_msmt {
    char name[40];
    struct takt_perf_stat total;      /* cumulative */
    struct takt_perf_hist hist;       /* cumulative */
    struct takt_perf_stat ival[2];    /* interval banks: RT writes ival[active] */
    struct takt_perf_hist ihist[2];
};

/* A set of measurements sharing one interval switch. The RT side records into the
 * active bank; a reporter (another thread) calls takt_perf_set_snapshot(), which flips the
 * bank at the RT side's next takt_perf_set_cycle_end() and returns the finished one.
 * Opaque (its interval hand-over is atomics the library alone touches): a takt_rt_loop
 * has one (takt_rt_loop_perf), a program makes its own with takt_perf_set_create. */
#define TAKT_PERF_MAX_MSMT 32
struct takt_perf_set;

/* [thread: owner; blocking] */
int  takt_perf_hist_init(struct takt_perf_hist *h, int64_t lo, int64_t bin, uint32_t nbins);
/* [thread: owner; blocking] */
void takt_perf_hist_free(struct takt_perf_hist *h);
/* [thread: owner; non-blocking] */
void takt_perf_hist_reset(struct takt_perf_hist *h);
/* [thread: owner; non-blocking] */
void takt_perf_hist_add(struct takt_perf_hist *h, int64_t v);
/* Percentile p in [0,100]: the upper edge of the bin holding the value of rank
 * ceil(p/100 * total) (rank 1 = smallest); INT64_MAX if it falls in `over`, lo if in
 * `under`, 0 for an empty histogram. */
/* [thread: owner; non-blocking] */
int64_t takt_perf_hist_percentile(const struct takt_perf_hist *h, double p);

/* [thread: owner; non-blocking] */
void takt_perf_stat_reset(struct takt_perf_stat *s);
/* [thread: owner; non-blocking] */
void takt_perf_stat_add(struct takt_perf_stat *s, int64_t v);
static inline int64_t perf_stat_avg(const struct takt_perf_stat *s)
{ return s->count ? s->sum / (int64_t)s->count : 0; }

/* Measurement with a histogram of nbins bins of bin ns starting at lo. */
/* [thread: owner; blocking] */
int  takt_perf_msmt_init(struct takt_perf_msmt *m, const char *name, int64_t lo, int64_t bin, uint32_t nbins);
/* [thread: owner; blocking] */
void takt_perf_msmt_free(struct takt_perf_msmt *m);

/* An empty set. threaded: a reporter in another thread than the recording one takes
 * the intervals (the flip waits for takt_perf_set_cycle_end); false: takt_perf_set_snapshot
 * flips at once. 0 or -ENOMEM. */
/* [thread: any; blocking] */
int  takt_perf_set_create(bool threaded, struct takt_perf_set **out);
/* Frees the set, not its measurements (they stay the caller's). */
/* [thread: idle; blocking] */
void takt_perf_set_destroy(struct takt_perf_set *s);
/* The measurements in the order they were added: count, the i-th (NULL past the end),
 * the one of that name (NULL if none). The set's list changes only while it is idle. */
/* [thread: any; non-blocking] */
unsigned takt_perf_set_count(const struct takt_perf_set *s);
/* [thread: any; non-blocking] */
struct takt_perf_msmt *takt_perf_set_msmt(const struct takt_perf_set *s, unsigned i);
/* [thread: any; non-blocking] */
struct takt_perf_msmt *takt_perf_set_find(const struct takt_perf_set *s, const char *name);
/* [thread: idle; non-blocking] */
int  takt_perf_set_add(struct takt_perf_set *s, struct takt_perf_msmt *m);
/* Set the flip hook: called at the flip, on the side that flips (the RT thread in a
 * threaded set), so the owner can latch its own counters at exactly the interval's
 * edge. Call it before the snapshot it should see. */
/* [thread: idle; non-blocking] */
void takt_perf_set_on_flip(struct takt_perf_set *s, void (*fn)(void *arg), void *arg);
/* Record one value (ns): cumulative + active interval bank. RT-safe. */
/* [thread: cycle; non-blocking] */
void takt_perf_record(struct takt_perf_set *s, struct takt_perf_msmt *m, int64_t v);
/* RT side, once per cycle: honour a pending flip request. */
/* [thread: cycle; non-blocking] */
void takt_perf_set_cycle_end(struct takt_perf_set *s);
/* Reporter side: finish the interval; returns the bank index (0/1) to read with
 * takt_perf_msmt_interval(); call takt_perf_set_release() after reading it. In a threaded set
 * this waits (sleeping 100 µs steps, at most timeout_ns) for the RT side's flip;
 * returns -ETIMEDOUT if the RT side did not run. */
/* [thread: host; blocking] */
int  takt_perf_set_snapshot(struct takt_perf_set *s, takt_ns_t timeout_ns);
/* [thread: host; non-blocking] */
void takt_perf_set_release(struct takt_perf_set *s, int bank);
/* The interval statistics of measurement m in `bank` (and its histogram via *hist if
 * hist is not NULL); valid between takt_perf_set_snapshot() and takt_perf_set_release(). */
/* [thread: host; non-blocking] */
const struct takt_perf_stat *takt_perf_msmt_interval(const struct takt_perf_msmt *m, int bank,
                                           const struct takt_perf_hist **hist);

/* Output. The PerfMsmt line: `PerfMsmt 'Cycle Time' (min/avg/max) [usec]: 989.4/1000.0/1011.4`
 * (values in 0.1 µs as EC-Master prints them). */
/* [thread: any; blocking] */
void takt_perf_print_line(FILE *f, const char *name, const struct takt_perf_stat *s);
/* One value as EC-Master prints it: ns rounded to 0.1 us, `%4d.%d` style (width 6,
 * right-aligned, a '-' in front of negative values). Returns buf. */
/* [thread: any; non-blocking] */
char *takt_perf_fmt_usec(char *buf, size_t len, int64_t ns);
/* The line without newline into buf (returns snprintf's result). */
/* [thread: any; non-blocking] */
int  takt_perf_format_line(char *buf, size_t len, const char *name, const struct takt_perf_stat *s);
/* One PerfMsmt line per measurement of the interval bank (after takt_perf_set_snapshot). */
/* [thread: host; blocking] */
void takt_perf_print_interval(FILE *f, const struct takt_perf_set *s, int bank);
/* The run's totals: a "--- PerfMsmt over the whole run (all cycles) ---" line, then one
 * PerfMsmt line per measurement, so they are not taken for the last interval's. */
/* [thread: idle; blocking] */
void takt_perf_print_total(FILE *f, const struct takt_perf_set *s);
/* Reporter convenience: snapshot, print the finished interval's lines, release.
 * 0 or -ETIMEDOUT (nothing printed) as takt_perf_set_snapshot(). */
/* [thread: host; blocking] */
int  takt_perf_report_interval(struct takt_perf_set *s, FILE *f, takt_ns_t timeout_ns);

/* JSON: an object per measurement {name, count, min_ns, avg_ns, max_ns, p50_ns,
 * p99_ns, p99_9_ns, p99_99_ns, hist: {lo_ns, bin_ns, nbins, total, under, over,
 * bins: [[lo, n]...]}} (only non-empty bins; null for values that do not exist: empty
 * statistics, or a percentile above the histogram's range). docs/statistics.md. Returns a json_object* (json-c) as void* to keep json-c out
 * of the public header; the caller owns it. */
/* [thread: any; blocking] */
void *takt_perf_msmt_to_json(const struct takt_perf_stat *s, const struct takt_perf_hist *h, const char *name);
/* [thread: idle; blocking] */
void *takt_perf_set_to_json(const struct takt_perf_set *s);  /* cumulative, {name: obj, ...} */
/* [thread: host; blocking] */
void *takt_perf_set_interval_to_json(const struct takt_perf_set *s, int bank);  /* same, one bank */

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
