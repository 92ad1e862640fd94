/* Prometheus text exposition (format 0.0.4) into a caller's buffer: no allocation, no
 * I/O, so it is unit tested on its own and the reporter thread can call it with a buffer
 * it allocated before the cycle started. docs/metrics.md lists the metrics takt writes. */
#ifndef TAKT_CLI_METRICS_FMT_H
#define TAKT_CLI_METRICS_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/perf.h>

struct mx_buf {
    char  *p;
    size_t len, cap;
    bool   overflow;          /* something did not fit: the text is incomplete */
    char   common[160];       /* labels every sample carries: interface="..",protocol=".." */
};

void mx_init(struct mx_buf *b, char *p, size_t cap, const char *iface, const char *protocol);
/* `# HELP name help` and `# TYPE name type` (type: counter, gauge, histogram). Every
 * sample of a family must follow its family line, before the next family. */
void mx_family(struct mx_buf *b, const char *name, const char *type, const char *help);
/* One sample `name{common,labels} value`; labels is NULL or `k="v",k2="v2"` (values
 * already escaped with mx_escape). Integers print exactly; NaN/Inf as Prometheus spells
 * them. */
void mx_sample(struct mx_buf *b, const char *name, const char *labels, double v);
void mx_sample_u64(struct mx_buf *b, const char *name, const char *labels, uint64_t v);
/* Family and its only sample. */
void mx_counter(struct mx_buf *b, const char *name, const char *help, uint64_t v);
void mx_gauge(struct mx_buf *b, const char *name, const char *help, double v);
/* The samples of one histogram series from a perf statistic and its histogram (ns):
 * name_bucket{le=".."} at the edges given (ns, ascending; each rounded down to a bin
 * edge of h, those outside h's range dropped), the +Inf bucket, name_sum (seconds) and
 * name_count. A bucket counts the values below its bin edge (and every value under the
 * histogram's range); the family line is the caller's. */
void mx_histogram(struct mx_buf *b, const char *name, const char *labels,
                  const struct takt_perf_stat *s, const struct takt_perf_hist *h,
                  const int64_t *edges_ns, unsigned n_edges);
/* The bucket edges takt uses for a measurement: 1-2-5 steps from the bin width to the
 * top of h, and, when period_ns > 0 (a cycle time), period +- 1-2-5 steps of 1 us up to
 * half the period. Sorted, without duplicates; returns how many (at most cap). */
unsigned mx_edges(const struct takt_perf_hist *h, int64_t period_ns, int64_t *out, unsigned cap);
/* A label value escaped as the format wants (\\, \" and \n); always terminated. */
void mx_escape(char *out, size_t len, const char *in);

#endif
