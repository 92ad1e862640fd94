/* Reporting: EC-Master's PerfMsmt text lines and JSON (json-c) with histogram and
 * percentiles. Runs in the reporter thread, never in the cycle. */
#include <takt/perf.h>
#include <json-c/json.h>
#include <inttypes.h>
#include <string.h>
#include "perf/set.h"

/* EC-Master prints `%4d.%d` of the value in 0.1 us (its PerfMsmt log lines). We round ns to the
 * nearest 0.1 us (half away from zero) and keep the width of 6 for negative values. */
char *takt_perf_fmt_usec(char *buf, size_t len, int64_t ns)
{
    bool neg = ns < 0;
    uint64_t a = neg ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t tenths = (a + 50) / 100;
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%s%" PRIu64 ".%" PRIu64, neg && tenths ? "-" : "",
             tenths / 10, tenths % 10);
    snprintf(buf, len, "%6s", tmp);
    return buf;
}

int takt_perf_format_line(char *buf, size_t len, const char *name, const struct takt_perf_stat *s)
{
    char mn[32], av[32], mx[32];
    bool any = s->count > 0;   /* an empty interval prints zeros, not INT64 sentinels */
    takt_perf_fmt_usec(mn, sizeof(mn), any ? s->min : 0);
    takt_perf_fmt_usec(av, sizeof(av), perf_stat_avg(s));
    takt_perf_fmt_usec(mx, sizeof(mx), any ? s->max : 0);
    return snprintf(buf, len, "PerfMsmt '%s' (min/avg/max) [usec]: %s/%s/%s", name, mn, av, mx);
}

void takt_perf_print_line(FILE *f, const char *name, const struct takt_perf_stat *s)
{
    char line[160];
    takt_perf_format_line(line, sizeof(line), name, s);
    fprintf(f, "%s\n", line);
}

void takt_perf_print_interval(FILE *f, const struct takt_perf_set *s, int bank)
{
    if (bank != 0 && bank != 1)
        return;
    for (unsigned i = 0; i < s->n; i++)
        takt_perf_print_line(f, s->m[i]->name, &s->m[i]->ival[bank]);
}

void takt_perf_print_total(FILE *f, const struct takt_perf_set *s)
{
    /* the same line format as each --perf interval's: say which block is the run's */
    fprintf(f, "--- PerfMsmt over the whole run (all cycles) ---\n");
    for (unsigned i = 0; i < s->n; i++)
        takt_perf_print_line(f, s->m[i]->name, &s->m[i]->total);
}

int takt_perf_report_interval(struct takt_perf_set *s, FILE *f, takt_ns_t timeout_ns)
{
    int bank = takt_perf_set_snapshot(s, timeout_ns);
    if (bank < 0)
        return bank;
    takt_perf_print_interval(f, s, bank);
    takt_perf_set_release(s, bank);
    return 0;
}

/* null where a value does not exist (empty statistics) rather than a sentinel */
static json_object *ns_or_null(bool have, int64_t v)
{
    return have ? json_object_new_int64(v) : NULL;
}

static json_object *hist_to_json(const struct takt_perf_hist *h)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "lo_ns", json_object_new_int64(h->lo));
    json_object_object_add(o, "bin_ns", json_object_new_int64(h->bin));
    json_object_object_add(o, "nbins", json_object_new_int64(h->nbins));
    json_object_object_add(o, "total", json_object_new_uint64(h->total));
    json_object_object_add(o, "under", json_object_new_uint64(h->under));
    json_object_object_add(o, "over", json_object_new_uint64(h->over));
    json_object *bins = json_object_new_array();
    for (uint32_t i = 0; h->bins && i < h->nbins; i++) {
        if (!h->bins[i])
            continue;
        json_object *pair = json_object_new_array_ext(2);
        json_object_array_add(pair, json_object_new_int64(h->lo + (int64_t)i * h->bin));
        json_object_array_add(pair, json_object_new_uint64(h->bins[i]));
        json_object_array_add(bins, pair);
    }
    json_object_object_add(o, "bins", bins);
    return o;
}

static void add_percentile(json_object *o, const char *key, const struct takt_perf_hist *h, double p)
{
    int64_t v = takt_perf_hist_percentile(h, p);
    /* INT64_MAX means "above the histogram's range": no number to give; max_ns bounds it */
    json_object_object_add(o, key, ns_or_null(h->total > 0 && v != INT64_MAX, v));
}

void *takt_perf_msmt_to_json(const struct takt_perf_stat *s, const struct takt_perf_hist *h, const char *name)
{
    json_object *o = json_object_new_object();
    bool any = s->count > 0;
    json_object_object_add(o, "name", json_object_new_string(name ? name : ""));
    json_object_object_add(o, "count", json_object_new_uint64(s->count));
    json_object_object_add(o, "min_ns", ns_or_null(any, s->min));
    json_object_object_add(o, "avg_ns", ns_or_null(any, perf_stat_avg(s)));
    json_object_object_add(o, "max_ns", ns_or_null(any, s->max));
    if (h) {
        add_percentile(o, "p50_ns", h, 50.0);
        add_percentile(o, "p99_ns", h, 99.0);
        add_percentile(o, "p99_9_ns", h, 99.9);
        add_percentile(o, "p99_99_ns", h, 99.99);
        json_object_object_add(o, "hist", hist_to_json(h));
    }
    return o;
}

void *takt_perf_set_to_json(const struct takt_perf_set *s)
{
    json_object *o = json_object_new_object();
    for (unsigned i = 0; i < s->n; i++) {
        const struct takt_perf_msmt *m = s->m[i];
        json_object_object_add(o, m->name, takt_perf_msmt_to_json(&m->total, &m->hist, m->name));
    }
    return o;
}

void *takt_perf_set_interval_to_json(const struct takt_perf_set *s, int bank)
{
    json_object *o = json_object_new_object();
    if (bank != 0 && bank != 1)
        return o;
    for (unsigned i = 0; i < s->n; i++) {
        const struct takt_perf_msmt *m = s->m[i];
        json_object_object_add(o, m->name, takt_perf_msmt_to_json(&m->ival[bank], &m->ihist[bank], m->name));
    }
    return o;
}
