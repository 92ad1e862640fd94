/* takt link bench --compare N: the packet link against the ring link and the xdp link
 * on one interface, in alternated runs (packet, ring, xdp, then xdp, ring, packet, ...:
 * a drift of the host's load over the series hits all alike), each run a full `takt
 * link bench` of -t seconds; then per link the median and the spread (min-max) of
 * every figure, since one run on a shared host proves nothing, and each link's median
 * CPU per round trip as a ratio to the packet link's from the same series. The xdp
 * link takes part where it can be opened (a build with AF_XDP, CAP_BPF); where not,
 * the reason is printed and the others compare alone. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cli_link.h"

#define N_LINKS 3
static const char *const kinds[N_LINKS] = { "packet", "ring", "xdp" };
#define K_XDP 2

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

/* the interface a spec names: "IF", "packet:IF", "ring:IF" or "xdp:IF" */
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

static double median_of(const struct bench_result *r, unsigned n, int f)
{
    int64_t v[1000], lo, hi;
    double med;
    for (unsigned i = 0; i < n; i++)
        v[i] = fig(&r[i], f);
    spread(v, n, &med, &lo, &hi);
    return med;
}

static void print_table(FILE *out, struct bench_result r[N_LINKS][1000], unsigned n, const bool *on)
{
    fprintf(out, "--- %s: %u alternated runs each; median (min-max), usec ---\n",
            on[K_XDP] ? "packet vs ring vs xdp" : "packet vs ring", n);
    fprintf(out, "| link | CPU per cycle, process | CPU per cycle, loop thread | RTT p50 | RTT p99 | lost / sent | CPU / packet's |\n");
    fprintf(out, "|---|---|---|---|---|---|---|\n");
    double base = median_of(r[0], n, F_CPU);
    for (int k = 0; k < N_LINKS; k++) {
        if (!on[k])
            continue;
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
        fprintf(out, " %" PRIu64 " / %" PRIu64 " | %.2f |\n", lost, sent,
                base > 0 ? median_of(r[k], n, F_CPU) / base : 0.0);
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
    bool on[N_LINKS] = { true, true, true };
    char xdp_why[320] = "";
    int rc = 0;
    for (long i = 0; i < rounds && !rc && !cli_interrupted; i++) {
        for (int j = 0; j < N_LINKS && !rc && !cli_interrupted; j++) {
            int k = (i % 2) ? N_LINKS - 1 - j : j;   /* packet, ring, xdp; xdp, ring, packet; ... */
            if (!on[k])
                continue;
            struct takt_link *l;
            if (k == K_XDP && i == 0) {
                /* the xdp link where it can be had: its error is the reason it is left out */
                struct takt_link_opts o;
                uint16_t type = (uint16_t)cli_link_ethertype(c);
                takt_link_opts_default(&o);
                o.ethertypes = &type;
                o.n_ethertypes = 1;
                if (takt_link_open(spec[k], &o, &l, xdp_why, sizeof xdp_why)) {
                    on[k] = false;
                    fprintf(stderr, "takt link bench: xdp left out of the comparison: %s\n", xdp_why);
                    continue;
                }
                takt_link_close(l);
            }
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
    print_table(stdout, res, (unsigned)rounds, on);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "interface", json_object_new_string(ifname));
        json_object_object_add(o, "cycle_ns", json_object_new_int64(c->cycle_ns));
        json_object_object_add(o, "run_s", json_object_new_double(c->time_s > 0 ? c->time_s : 10));
        json_object_object_add(o, "rounds", json_object_new_int64(rounds));
        double base = median_of(res[0], (unsigned)rounds, F_CPU);
        for (int k = 0; k < N_LINKS; k++) {
            if (!on[k]) {
                json_object *x = json_object_new_object();
                json_object_object_add(x, "left_out", json_object_new_string(xdp_why));
                json_object_object_add(o, kinds[k], x);
                continue;
            }
            json_object *x = link_json(res[k], (unsigned)rounds);
            json_object_object_add(x, "cpu_per_cycle_ratio_to_packet",
                                   json_object_new_double(base > 0 ? median_of(res[k], (unsigned)rounds, F_CPU) / base : 0.0));
            json_object_object_add(o, kinds[k], x);
        }
        rc = cli_write_json(c, o);
        json_object_put(o);
    }
    return rc;
}
