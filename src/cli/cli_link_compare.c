/* takt link bench --compare N: the packet link against the ring link on one interface,
 * in alternated runs (packet, ring, then ring, packet, ...: a drift of the host's load
 * over the series hits both alike), each run a full `takt link bench` of -t seconds;
 * then per link the median and the spread (min-max) of every figure, since one run on a
 * shared host proves nothing. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cli_link.h"

#define N_LINKS 2
static const char *const kinds[N_LINKS] = { "packet", "ring" };

enum { F_CPU, F_THREAD, F_P50, F_P99, N_FIG };
static const char *const fig_name[N_FIG] = { "cpu_per_cycle", "thread_cpu_per_cycle", "rtt_p50", "rtt_p99" };

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* median (the mean of the middle two for an even count), min and max of v[0..n) */
static void spread(const int64_t *v, unsigned n, double *med, int64_t *lo, int64_t *hi)
{
    int64_t s[2000];
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_i64);
    *med = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2.0;
    *lo = s[0];
    *hi = s[n - 1];
}

static int64_t fig(const struct bench_result *r, int f)
{
    return f == F_CPU ? r->cpu : f == F_THREAD ? r->thread_cpu : f == F_P50 ? r->rtt_p50 : r->rtt_p99;
}

/* the interface a spec names: "IF", "packet:IF" or "ring:IF" */
static const char *iface_of(const char *spec)
{
    const char *colon = strchr(spec, ':');
    return colon ? colon + 1 : spec;
}

static json_object *link_json(const struct bench_result *r, unsigned n)
{
    json_object *o = json_object_new_object(), *runs = json_object_new_array();
    uint64_t lost = 0, sent = 0;
    for (unsigned i = 0; i < n; i++) {
        json_object *x = json_object_new_object();
        for (int f = 0; f < N_FIG; f++) {
            char k[40];
            snprintf(k, sizeof k, "%s_ns", fig_name[f]);
            json_object_object_add(x, k, json_object_new_int64(fig(&r[i], f)));
        }
        json_object_object_add(x, "cycles", json_object_new_uint64(r[i].cycles));
        json_object_object_add(x, "sent", json_object_new_uint64(r[i].sent));
        json_object_object_add(x, "lost", json_object_new_uint64(r[i].lost));
        json_object_array_add(runs, x);
        lost += r[i].lost;
        sent += r[i].sent;
    }
    for (int f = 0; f < N_FIG; f++) {
        int64_t v[1000], lo, hi;
        double med;
        for (unsigned i = 0; i < n; i++)
            v[i] = fig(&r[i], f);
        spread(v, n, &med, &lo, &hi);
        char k[48];
        snprintf(k, sizeof k, "%s_ns", fig_name[f]);
        json_object *s = json_object_new_object();
        json_object_object_add(s, "median", json_object_new_double(med));
        json_object_object_add(s, "min", json_object_new_int64(lo));
        json_object_object_add(s, "max", json_object_new_int64(hi));
        json_object_object_add(o, k, s);
    }
    json_object_object_add(o, "sent", json_object_new_uint64(sent));
    json_object_object_add(o, "lost", json_object_new_uint64(lost));
    json_object_object_add(o, "runs", runs);
    return o;
}

static void print_table(FILE *out, struct bench_result r[N_LINKS][1000], unsigned n)
{
    fprintf(out, "--- packet vs ring: %u alternated runs each; median (min-max), usec ---\n", n);
    fprintf(out, "| link | CPU per cycle, process | CPU per cycle, loop thread | RTT p50 | RTT p99 | lost / sent |\n");
    fprintf(out, "|---|---|---|---|---|---|\n");
    for (int k = 0; k < N_LINKS; k++) {
        fprintf(out, "| %s |", kinds[k]);
        for (int f = 0; f < N_FIG; f++) {
            int64_t v[1000], lo, hi;
            double med;
            for (unsigned i = 0; i < n; i++)
                v[i] = fig(&r[k][i], f);
            spread(v, n, &med, &lo, &hi);
            fprintf(out, " %.1f (%.1f-%.1f) |", med / 1e3, lo / 1e3, hi / 1e3);
        }
        uint64_t lost = 0, sent = 0;
        for (unsigned i = 0; i < n; i++) {
            lost += r[k][i].lost;
            sent += r[k][i].sent;
        }
        fprintf(out, " %" PRIu64 " / %" PRIu64 " |\n", lost, sent);
    }
}

int cli_link_compare(struct cli_ctx *c, long rounds, unsigned size)
{
    if (!c->iface || !strcmp(c->iface, "mem") || !strncmp(c->iface, "mem:", 4))
        return cli_usage_error(c, "--compare expects -i IF (an Ethernet interface or veth), got %s",
                               c->iface ? c->iface : "none");
    if (c->pcap)
        return cli_usage_error(c, "--compare runs many benches: it writes no capture (drop --pcap)");
    static struct bench_result res[N_LINKS][1000];
    const char *spec0 = c->iface, *ifname = iface_of(spec0);
    char spec[N_LINKS][64];
    for (int k = 0; k < N_LINKS; k++)
        snprintf(spec[k], sizeof spec[k], "%s:%s", kinds[k], ifname);
    int rc = 0;
    for (long i = 0; i < rounds && !rc && !cli_interrupted; i++) {
        for (int j = 0; j < N_LINKS && !rc && !cli_interrupted; j++) {
            int k = (i % 2) ? N_LINKS - 1 - j : j;   /* packet, ring; ring, packet; ... */
            struct takt_link *l;
            c->iface = spec[k];
            rc = cli_link_open(c, &l);
            c->iface = spec0;
            if (rc)
                break;
            fprintf(stdout, "=== run %ld of %ld: %s ===\n", i + 1, rounds, spec[k]);
            struct bench_args a = {
                .link = l, .cycle_ns = c->cycle_ns, .time_s = c->time_s > 0 ? c->time_s : 10,
                .perf_s = c->perf_s, .cpu = c->cpu, .prio = c->prio, .size = size,
                .out = stdout, .stop = &cli_interrupted, .res = &res[k][i],
                .keep_caps = true,   /* the next run opens a raw socket again */
            };
            int b = link_bench(&a);
            takt_link_close(l);
            if (b == 1)
                rc = cli_error(c, "no answer on %s: is 'takt link echo -i PEER' running on the other end?", spec[k]);
            else if (b < 0)
                rc = cli_error(c, "on %s: %s", spec[k], takt_strerror(b));
        }
    }
    if (rc)
        return rc;
    if (cli_interrupted)
        return cli_error(c, "interrupted: no comparison from an incomplete series");
    print_table(stdout, res, (unsigned)rounds);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "interface", json_object_new_string(ifname));
        json_object_object_add(o, "cycle_ns", json_object_new_int64(c->cycle_ns));
        json_object_object_add(o, "run_s", json_object_new_double(c->time_s > 0 ? c->time_s : 10));
        json_object_object_add(o, "rounds", json_object_new_int64(rounds));
        for (int k = 0; k < N_LINKS; k++)
            json_object_object_add(o, kinds[k], link_json(res[k], (unsigned)rounds));
        rc = cli_write_json(c, o);
        json_object_put(o);
    }
    return rc;
}
