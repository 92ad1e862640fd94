/* Metrics of a running `takt ecat run` / `takt plk mn` in the Prometheus text format
 * (docs/metrics.md) and the systemd service protocol (docs/service.md). Everything here
 * runs in the reporter thread (the one that prints PerfMsmt lines), never in the cycle:
 * the cycle's figures come through the public accessors and the perf interval banks. */
#ifndef TAKT_CLI_METRICS_H
#define TAKT_CLI_METRICS_H

#include <takt/ecat.h>
#include <takt/plk.h>
#include <takt/rt.h>
#include "cli/metrics_fmt.h"

struct cli_ctx;

/* The options, for a command's option table. */
#define CLI_METRICS_OPTS \
    { "metrics-file", 0, 1, "FILE", "write the metrics in the Prometheus text format to FILE " \
      "(atomically: FILE.tmp, then renamed) every --metrics-every seconds and at the end" }, \
    { "metrics-every", 0, 1, "S", "seconds between --metrics-file writes and --metrics-listen " \
      "updates (default 5)" }, \
    { "metrics-listen", 0, 1, "ADDR", "serve the metrics over HTTP (GET /metrics) on PORT " \
      "(127.0.0.1), ADDR:PORT or [ADDR6]:PORT; an address beyond loopback only when given" }

/* --- pure renderers (metrics_proto.c) --------------------------------------------- */
struct mx_loop {
    uint64_t cycles, overruns;
    int64_t  period_ns;
    bool     ended;           /* the figures below exist only once the cycle ended */
    int64_t  cpu_ns;          /* the whole process's CPU time over the loop's run (/proc's) */
    int64_t  thread_cpu_ns;   /* the cycle thread's share of it */
};
void mx_loop(struct mx_buf *b, const struct mx_loop *l);

/* Histograms named as the PerfMsmt lines: one family takt_perf_seconds with label
 * msmt="Cycle Time" etc.; period_ns adds edges around the period to the cycle-time
 * measurements (names in `periodic`, the first n_periodic of them). */
struct mx_perf {
    unsigned n;
    const char *name[TAKT_PERF_MAX_MSMT];
    const struct takt_perf_stat *stat[TAKT_PERF_MAX_MSMT];
    const struct takt_perf_hist *hist[TAKT_PERF_MAX_MSMT];
};
void mx_perf(struct mx_buf *b, const struct mx_perf *p, int64_t period_ns);

struct mx_ecat_slave {
    char name[64];
    struct takt_ecat_slave_state st;
};
void mx_ecat(struct mx_buf *b, const struct takt_ecat_master_stats *s,
             const struct mx_ecat_slave *sl, unsigned n);

struct mx_plk_node {
    uint8_t id;
    struct takt_plk_node_stats st;
};
void mx_plk_mn(struct mx_buf *b, const struct takt_plk_mn_stats *s,
               const struct mx_plk_node *nodes, unsigned n);

/* --- the running side (metrics.c) ------------------------------------------------- */
struct metrics;

/* From the command line (--metrics-file, --metrics-every, --metrics-listen; loop NULL: a
 * command without takt's cycle loop, plk cn): *out NULL when no metrics
 * are asked for, unless always (the service watchdog wants the latched counters); 2 after a usage error (said), 1 when out of memory, else 0. perf is
 * the loop's set: its measurements are accumulated here from the interval banks, so
 * the cumulative figures the cycle writes are never read while it runs. Call before
 * the cycle starts (allocates). */
int  metrics_open(struct cli_ctx *c, const char *iface, const char *protocol,
                  struct takt_rt_loop *loop, bool always, struct metrics **out);
/* The loop's cycles and overruns as the cycle latched them at the last flip. */
void metrics_latched(const struct metrics *x, uint64_t *cycles, uint64_t *overruns);
void metrics_close(struct metrics *x);
/* Latch the loop's counters at each interval flip (in the cycle: a few plain copies);
 * call before the cycle starts. Not with another flip hook (plk mn --measure). */
void metrics_hook_flips(struct metrics *x);
/* Reporter: add a finished interval bank (between takt_perf_set_snapshot and release). */
void metrics_add_bank(struct metrics *x, const struct takt_perf_set *s, int bank);
/* Reporter: is a file write due (every --metrics-every s)? */
bool metrics_due(struct metrics *x, takt_ns_t now);
/* When metrics_due next says yes (INT64_MAX: never), for a reporter that sleeps. */
takt_ns_t metrics_next_due(const struct metrics *x);
/* Render and write. ecat: the master (per-slave names taken at open time, see
 * metrics_ecat_names); plk: the MN. final: the cycle has ended, so the cumulative
 * histograms and the loop's own counters are read directly. 0 or -errno (said once). */
void metrics_ecat_names(struct metrics *x, struct takt_ecat_master *m);
int  metrics_write_ecat(struct metrics *x, struct takt_ecat_master *m, bool final);
int  metrics_write_plk_mn(struct metrics *x, struct takt_plk_mn *mn, bool final);
/* Render with fn (after the loop's figures, when metrics_open had a loop) and write
 * the file and the HTTP copy; the buffer grows until the text fits. 0 or -errno. */
typedef void (*metrics_fn)(struct metrics *x, struct mx_buf *b, void *ctx);
int  metrics_render_write(struct metrics *x, bool final, metrics_fn fn, void *ctx);
/* Write text atomically to path: path.tmp in the same directory, fsync, rename, fsync
 * of the directory. 0 or -errno. */
int  metrics_write_file(const char *path, const char *text, size_t len);

#endif
