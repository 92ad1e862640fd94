/* Prometheus text exposition into a fixed buffer (metrics_fmt.h). The format is the
 * text format 0.0.4 of the Prometheus exposition formats: `# HELP`, `# TYPE`, then
 * samples `name{label="value",...} number`, a histogram as cumulative _bucket series
 * with an `le` label ending in +Inf, then _sum and _count. */
#include "cli/metrics_fmt.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put(struct mx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct mx_buf *b, const char *fmt, ...)
{
    if (b->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->cap - b->len) {
        b->overflow = true;
        b->p[b->len] = 0;   /* the last complete line stays the end */
        return;
    }
    b->len += (size_t)n;
}

void mx_escape(char *out, size_t len, const char *in)
{
    size_t o = 0;
    for (; in && *in && o + 3 < len; in++) {
        char c = *in;
        if (c == '\\' || c == '"' || c == '\n') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c;
        } else {
            out[o++] = c;
        }
    }
    if (len)
        out[o < len ? o : len - 1] = 0;
}

void mx_init(struct mx_buf *b, char *p, size_t cap, const char *iface, const char *protocol)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    b->cap = cap;
    b->overflow = cap == 0;
    if (cap)
        p[0] = 0;
    char i[64], pr[32];
    mx_escape(i, sizeof i, iface ? iface : "");
    mx_escape(pr, sizeof pr, protocol ? protocol : "");
    snprintf(b->common, sizeof b->common, "interface=\"%s\",protocol=\"%s\"", i, pr);
}

void mx_family(struct mx_buf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_value(struct mx_buf *b, double v)
{
    if (isnan(v))
        put(b, "NaN\n");
    else if (isinf(v))
        put(b, "%sInf\n", v > 0 ? "+" : "-");
    else if (v == (double)(int64_t)v && fabs(v) < 9e15)
        put(b, "%" PRId64 "\n", (int64_t)v);
    else
        put(b, "%.9g\n", v);
}

static void put_name(struct mx_buf *b, const char *name, const char *labels)
{
    put(b, "%s{%s%s%s} ", name, b->common, labels && *labels ? "," : "", labels ? labels : "");
}

void mx_sample(struct mx_buf *b, const char *name, const char *labels, double v)
{
    put_name(b, name, labels);
    put_value(b, v);
}

void mx_sample_u64(struct mx_buf *b, const char *name, const char *labels, uint64_t v)
{
    put_name(b, name, labels);
    put(b, "%" PRIu64 "\n", v);
}

void mx_counter(struct mx_buf *b, const char *name, const char *help, uint64_t v)
{
    mx_family(b, name, "counter", help);
    mx_sample_u64(b, name, NULL, v);
}

void mx_gauge(struct mx_buf *b, const char *name, const char *help, double v)
{
    mx_family(b, name, "gauge", help);
    mx_sample(b, name, NULL, v);
}

void mx_histogram(struct mx_buf *b, const char *name, const char *labels,
                  const struct takt_perf_stat *s, const struct takt_perf_hist *h,
                  const int64_t *edges_ns, unsigned n_edges)
{
    char full[96], lab[256];
    const char *sep = labels && *labels ? "," : "";
    snprintf(full, sizeof full, "%s_bucket", name);
    uint64_t cum = h->under;   /* below the range: below every edge inside it */
    uint32_t k = 0;            /* bins [0, k) are counted in cum */
    int64_t last = INT64_MIN;
    for (unsigned i = 0; i < n_edges; i++) {
        if (edges_ns[i] <= h->lo || edges_ns[i] > h->lo + h->bin * (int64_t)h->nbins)
            continue;
        uint32_t upto = (uint32_t)((edges_ns[i] - h->lo) / h->bin);   /* bins wholly below */
        int64_t edge = h->lo + (int64_t)upto * h->bin;
        if (edge <= last)
            continue;
        last = edge;
        for (; k < upto; k++)
            cum += h->bins[k];
        snprintf(lab, sizeof lab, "%s%sle=\"%.9g\"", labels ? labels : "", sep, edge / 1e9);
        mx_sample_u64(b, full, lab, cum);
    }
    /* +Inf holds every value, so it equals _count (the histogram's total and the
     * statistic's count are the same values) */
    snprintf(lab, sizeof lab, "%s%sle=\"+Inf\"", labels ? labels : "", sep);
    mx_sample_u64(b, full, lab, s->count);
    snprintf(full, sizeof full, "%s_sum", name);
    mx_sample(b, full, labels, s->count ? s->sum / 1e9 : 0);
    snprintf(full, sizeof full, "%s_count", name);
    mx_sample_u64(b, full, labels, s->count);
}

static unsigned add_edge(int64_t *out, unsigned n, unsigned cap, int64_t v)
{
    for (unsigned i = 0; i < n; i++)
        if (out[i] == v)
            return n;
    if (n >= cap)
        return n;
    unsigned i = n;
    for (; i > 0 && out[i - 1] > v; i--)
        out[i] = out[i - 1];
    out[i] = v;
    return n + 1;
}

unsigned mx_edges(const struct takt_perf_hist *h, int64_t period_ns, int64_t *out, unsigned cap)
{
    static const int steps[3] = { 1, 2, 5 };
    int64_t top = h->lo + h->bin * (int64_t)h->nbins;
    unsigned n = 0;
    for (int64_t dec = 1; dec <= top; dec *= 10)
        for (int i = 0; i < 3; i++) {
            int64_t v = dec * steps[i];
            if (v >= h->bin && v > h->lo && v <= top)
                n = add_edge(out, n, cap, v - (v - h->lo) % h->bin);
        }
    if (period_ns > 0)
        for (int64_t dec = 1000; dec <= period_ns / 2; dec *= 10)
            for (int i = 0; i < 3; i++) {
                int64_t d = dec * steps[i];
                if (d > period_ns / 2 || d < h->bin)
                    continue;
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    int64_t v = period_ns + sgn * d;
                    if (v > h->lo && v <= top)
                        n = add_edge(out, n, cap, v - (v - h->lo) % h->bin);
                }
            }
    if (period_ns > 0 && period_ns > h->lo && period_ns <= top)
        n = add_edge(out, n, cap, period_ns - (period_ns - h->lo) % h->bin);
    return n;
}
