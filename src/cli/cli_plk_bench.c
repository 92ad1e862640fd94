/* takt plk bench: the MN against simulated CNs across a namespace veth pair for a matrix
 * of CN counts x cycle times (the layout of the evaluation's Tables 2 and 3): MN CPU
 * load in %, SoC wake-up deviation min/max, frames lost; N/A where the cycle cannot be
 * held. Each cell boots its CNs first and measures only the steady state after. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <takt/netns.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"

#define MAX_N 8
#define MAX_C 8

struct cell {
    unsigned n;
    uint32_t cycle_us;
    bool chained;
    int status;               /* 0 ok, 1 not booted, 2 cycle not held, 3 error */
    double cpu_pct;
    int64_t dev_min, dev_max, per_min, per_max;
    uint64_t cycles, pres_lost, overruns, exceeded;
    /* inside the measured window: CN reboots, CN resets, loss-threshold firings and
     * 0x1C02 cycle-exceeded threshold firings (each resets every CN) */
    uint64_t reboots, resets, loss_thr, exceed_thr;
    double boot_s;
};

static uint64_t loop_overruns(const struct takt_rt_loop *l)
{
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    return li.overruns;
}

/* The counters that show a reset of the network, summed over the CNs, and the PRes
 * lost (v[4]); as the MN's thread published them. */
static void reset_counts(const struct takt_plk_mn *mn, const struct takt_plk_mn_info *mi, uint64_t v[5])
{
    v[0] = v[1] = v[2] = v[4] = 0;
    for (unsigned i = 0; i < mi->n_nodes; i++) {
        struct takt_plk_node_stats s;
        takt_plk_mn_node_stats(mn, mi->nodes[i], &s);
        v[0] += s.boots;
        v[1] += s.lost;
        v[2] += s.loss_threshold_hits;
        v[4] += s.pres_lost;
    }
    struct takt_plk_mn_stats ms;
    takt_plk_mn_get_stats(mn, &ms);
    v[3] = ms.cycle_exceed_hits;
}

struct bench {
    struct cli_ctx *c;
    struct takt_netns ns;
    struct cell *cell;        /* shared with the MN child (MAP_SHARED) */
    double measure_s;
};

static void sleep_ms(long ms) { nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL); }

/* In side A: boot, discard the boot interval, measure measure_s seconds. */
static int mn_cell(void *arg)
{
    struct bench *b = arg;
    struct cell *x = b->cell;
    struct cli_ctx *c = b->c;
    char err[256];
    struct takt_plk_net *nc;
    if (cli_plk_default_net(c, x->n, x->cycle_us, 50000, x->chained, &nc))
        return 3;
    const char *saved = c->iface;
    c->iface = b->ns.ifname[0];
    struct takt_link *l;
    int rc = cli_plk_open_link(c, &l);
    c->iface = saved;
    struct takt_plk_mn *mn = NULL;
    if (!rc && takt_plk_mn_create_net(nc, &mn, err, sizeof err)) {
        fprintf(stderr, "takt plk bench: %u CNs at %u us: %s\n", x->n, x->cycle_us, err);
        takt_link_close(l);
        rc = 3;
    }
    takt_plk_net_free(nc);
    if (rc)
        return 3;
    struct takt_plk_run_opts o = { .thread_cpu = true };   /* its CPU %: the CPU per Cycle line */
    takt_rt_opts_default(&o.rt);
    o.rt.cpu = c->cpu;
    o.rt.prio = c->prio;
    if (takt_plk_mn_start(mn, l, &o)) {
        takt_plk_mn_destroy(mn);
        takt_link_close(l);
        return 3;
    }
    struct takt_plk_mn_info mi;
    takt_plk_mn_get_info(mn, &mi);
    struct takt_plk_mn_stats ms;
    struct takt_rt_loop *loop = takt_plk_mn_loop(mn);
    takt_ns_t t0 = takt_now();
    /* one SDO exchange needs two async slots; ~30 per CN plus identification */
    takt_ns_t limit = t0 + 3 * TAKT_NS_PER_S + (takt_ns_t)x->n * 40 * x->cycle_us * 1000;
    for (takt_plk_mn_get_stats(mn, &ms);
         (ms.nodes_operational < x->n || ms.state != TAKT_PLK_OPERATIONAL) &&
         takt_now() < limit && !cli_interrupted; takt_plk_mn_get_stats(mn, &ms))
        sleep_ms(20);
    x->boot_s = (double)(takt_now() - t0) / 1e9;
    x->status = ms.nodes_operational == x->n ? 0 : 1;
    if (x->status == 0) {
        sleep_ms(200);   /* settle */
        int bank = takt_perf_set_snapshot(takt_rt_loop_perf(loop), TAKT_NS_PER_S);
        if (bank >= 0)
            takt_perf_set_release(takt_rt_loop_perf(loop), bank);
        takt_plk_mn_get_stats(mn, &ms);
        uint64_t cyc0 = ms.cycles, ov0 = loop_overruns(loop), ex0 = ms.cycle_exceeded;
        uint64_t ev0[5], ev1[5];
        reset_counts(mn, &mi, ev0);
        sleep_ms((long)(b->measure_s * 1000));
        reset_counts(mn, &mi, ev1);
        x->reboots = ev1[0] - ev0[0];
        x->resets = ev1[1] - ev0[1];
        x->loss_thr = ev1[2] - ev0[2];
        x->exceed_thr = ev1[3] - ev0[3];
        bank = takt_perf_set_snapshot(takt_rt_loop_perf(loop), TAKT_NS_PER_S);
        if (bank >= 0) {
            const struct takt_perf_stat *cpu = takt_perf_msmt_interval(takt_perf_set_find(takt_rt_loop_perf(loop), "CPU per Cycle"), bank, NULL);
            const struct takt_perf_stat *dev = takt_perf_msmt_interval(takt_rt_loop_msmt(loop, TAKT_RT_LOOP_WAKE_DEVIATION), bank, NULL);
            const struct takt_perf_stat *per = takt_perf_msmt_interval(takt_rt_loop_msmt(loop, TAKT_RT_LOOP_CYCLE_TIME), bank, NULL);
            x->cpu_pct = 100.0 * (double)perf_stat_avg(cpu) / (double)(x->cycle_us * 1000.0);
            x->dev_min = dev->min; x->dev_max = dev->max;
            x->per_min = per->min; x->per_max = per->max;
            takt_perf_set_release(takt_rt_loop_perf(loop), bank);
        }
        uint64_t ev2[5];
        reset_counts(mn, &mi, ev2);
        takt_plk_mn_get_stats(mn, &ms);
        x->pres_lost = ev2[4] - ev0[4];
        x->cycles = ms.cycles - cyc0;
        x->overruns = loop_overruns(loop) - ov0;
        x->exceeded = ms.cycle_exceeded - ex0;
        /* the cycle is not held when more than 1 % of the cycles overran or exceeded */
        if ((x->overruns + x->exceeded) * 100 > x->cycles || ms.nodes_operational < x->n)
            x->status = 2;
        /* a reset inside the window stopped the SoC stream and rebooted CNs: not held,
         * however few PRes were lost */
        if (x->reboots || x->resets || x->loss_thr || x->exceed_thr)
            x->status = 2;
    }
    takt_plk_mn_stop(mn);
    takt_plk_mn_join(mn);
    takt_plk_mn_destroy(mn);
    takt_link_close(l);
    return 0;
}

static void cn_child(struct bench *b, unsigned n)
{
    struct takt_link *l;
    struct cli_ctx c = *b->c;
    c.iface = b->ns.ifname[1];
    c.json = NULL;
    c.pcap = NULL;
    c.time_s = 0;
    c.cpu = -1;
    if (cli_plk_open_link(&c, &l))
        _exit(1);
    /* quiet: the bench prints the table */
    if (!freopen("/dev/null", "w", stdout))
        _exit(1);
    _exit(cli_plk_cn_session(&c, 1, n, NULL, l, &cli_interrupted));
}

static void run_cell(struct bench *b, struct cell *x)
{
    memset(b->cell, 0, sizeof *b->cell);
    b->cell->n = x->n;
    b->cell->cycle_us = x->cycle_us;
    b->cell->chained = x->chained;
    b->cell->status = 3;
    fflush(NULL);
    pid_t cn = takt_netns_fork(&b->ns, TAKT_NETNS_B);
    if (cn == 0)
        cn_child(b, x->n);
    if (cn < 0) {
        x->status = 3;
        return;
    }
    sleep_ms(200);
    int rc = takt_netns_run(&b->ns, TAKT_NETNS_A, mn_cell, b);
    kill(cn, SIGTERM);
    while (waitpid(cn, NULL, 0) < 0 && errno == EINTR)
        ;
    *x = *b->cell;
    if (rc)
        x->status = 3;
}

static const char *cell_text(const struct cell *x, char *buf, size_t n)
{
    if (x->status == 1) return "N/A*";
    if (x->status == 2) return "N/A";
    if (x->status == 3) return "error";
    snprintf(buf, n, "%.1f", x->cpu_pct);
    return buf;
}

static json_object *cell_json(const struct cell *x)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "cns", json_object_new_int((int)x->n));
    json_object_object_add(o, "cycle_us", json_object_new_int((int)x->cycle_us));
    json_object_object_add(o, "mode", json_object_new_string(x->chained ? "chained" : "conventional"));
    static const char *const st[] = { "ok", "not_booted", "cycle_not_held", "error" };
    json_object_object_add(o, "status", json_object_new_string(st[x->status & 3]));
    json_object_object_add(o, "boot_s", json_object_new_double(x->boot_s));
    if (x->status == 0 || x->status == 2) {
        json_object_object_add(o, "mn_cpu_pct", json_object_new_double(x->cpu_pct));
        json_object_object_add(o, "soc_dev_min_ns", json_object_new_int64(x->dev_min));
        json_object_object_add(o, "soc_dev_max_ns", json_object_new_int64(x->dev_max));
        json_object_object_add(o, "soc_period_min_ns", json_object_new_int64(x->per_min));
        json_object_object_add(o, "soc_period_max_ns", json_object_new_int64(x->per_max));
        json_object_object_add(o, "cycles", json_object_new_uint64(x->cycles));
        json_object_object_add(o, "pres_lost", json_object_new_uint64(x->pres_lost));
        json_object_object_add(o, "overruns", json_object_new_uint64(x->overruns));
        json_object_object_add(o, "cycle_exceeded", json_object_new_uint64(x->exceeded));
        json_object_object_add(o, "cn_reboots", json_object_new_uint64(x->reboots));
        json_object_object_add(o, "cn_resets", json_object_new_uint64(x->resets));
        json_object_object_add(o, "loss_threshold_hits", json_object_new_uint64(x->loss_thr));
        json_object_object_add(o, "cycle_exceed_threshold_hits", json_object_new_uint64(x->exceed_thr));
    }
    return o;
}

static int parse_list(struct cli_ctx *c, const char *opt, const char *s, unsigned *v, unsigned max,
                      unsigned lo, unsigned hi)
{
    unsigned n = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long x;
        if (n >= max || cli_parse_long(c, opt, t, lo, hi, &x))
            return n >= max ? cli_usage_error(c, "%s takes at most %u values", opt, max), -1 : -1;
        v[n++] = (unsigned)x;
    }
    return (int)n;
}

int cli_plk_bench_run(struct cli_ctx *c)
{
    unsigned ns[MAX_N] = { 3, 10, 20, 40 }, cs[MAX_C] = { 250, 500, 1000, 2000, 5000, 10000 };
    int nn = 4, nc = 6;
    const char *s;
    if ((s = cli_get(c, "cns")) && (nn = parse_list(c, "--cns", s, ns, MAX_N, 1, 239)) < 0)
        return 2;
    if ((s = cli_get(c, "cycles")) && (nc = parse_list(c, "--cycles", s, cs, MAX_C, 100, 100000)) < 0)
        return 2;
    static struct bench b;
    b = (struct bench){ .c = c, .measure_s = c->time_s > 0 ? c->time_s : 5 };
    b.cell = mmap(NULL, sizeof *b.cell, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (b.cell == MAP_FAILED)
        return cli_error(c, "mmap: %s", strerror(errno));
    char why[256];
    if (takt_netns_create(&b.ns, why, sizeof why))
        return cli_error(c, "network namespaces unavailable: %s", why);
    bool chain40 = !cli_flag(c, "no-chained");
    static struct cell cells[MAX_N * MAX_C + MAX_C];
    unsigned k = 0;
    for (int i = 0; i < nn && !cli_interrupted; i++)
        for (int j = 0; j < nc && !cli_interrupted; j++) {
            cells[k] = (struct cell){ .n = ns[i], .cycle_us = cs[j] };
            if (cli_progress_enabled())
                fprintf(stderr, "takt plk bench: %u CNs, %u us ...\n", ns[i], cs[j]);
            run_cell(&b, &cells[k++]);
        }
    unsigned nchain = 0;
    for (int j = 0; chain40 && j < nc && !cli_interrupted; j++) {
        cells[k] = (struct cell){ .n = ns[nn - 1], .cycle_us = cs[j], .chained = true };
        if (cli_progress_enabled())
            fprintf(stderr, "takt plk bench: %u CNs chained, %u us ...\n", ns[nn - 1], cs[j]);
        run_cell(&b, &cells[k++]);
        nchain++;
    }
    takt_netns_destroy(&b.ns);
    /* Table: MN CPU load in % (rows: CNs, columns: cycle) */
    char t[32];
    printf("MN CPU load [%%] (N/A: cycle not held), MN against simulated CNs over veth\n%-14s", "CNs \\ cycle");
    for (int j = 0; j < nc; j++)
        printf(" %9u us", cs[j]);
    printf("\n");
    for (int i = 0; i < nn; i++) {
        printf("%-14u", ns[i]);
        for (int j = 0; j < nc; j++)
            printf(" %12s", cell_text(&cells[i * nc + j], t, sizeof t));
        printf("\n");
    }
    if (nchain) {
        char lbl[24];
        snprintf(lbl, sizeof lbl, "%u chained", ns[nn - 1]);
        printf("%-14s", lbl);
        for (unsigned j = 0; j < nchain; j++)
            printf(" %12s", cell_text(&cells[(unsigned)(nn * nc) + j], t, sizeof t));
        printf("\n");
    }
    printf("N/A: more than 1 %% of the cycles overran, a CN dropped out or the network was reset\n"
           "while measuring (named below);\n"
           "N/A*: the CNs did not all reach Operational within the boot limit (the cycle\n"
           "could not be held long enough to configure them)\n");
    printf("\nSoC wake-up deviation min/max [us], PRes lost, cycles measured\n");
    for (unsigned i = 0; i < k; i++) {
        const struct cell *x = &cells[i];
        if (x->status == 1 || x->status == 3) {
            printf("%3u CNs %6u us %-12s %s (boot %.1f s)\n", x->n, x->cycle_us,
                   x->chained ? "chained" : "conventional", x->status == 1 ? "not booted" : "error", x->boot_s);
            continue;
        }
        printf("%3u CNs %6u us %-12s dev %7.1f/%8.1f  lost %6" PRIu64 "  cycles %7" PRIu64
               "  overruns %" PRIu64 "  exceeded %" PRIu64 "  boot %.1f s\n", x->n, x->cycle_us,
               x->chained ? "chained" : "conventional", x->dev_min / 1000.0, x->dev_max / 1000.0,
               x->pres_lost, x->cycles, x->overruns, x->exceeded, x->boot_s);
        if (x->reboots || x->resets || x->loss_thr || x->exceed_thr)
            printf("%29s network reset inside the measured window: CNs booted again %" PRIu64
                   " times, reset %" PRIu64 " times, loss threshold fired %" PRIu64
                   " times, cycle-exceeded threshold (0x1C02) %" PRIu64 " times\n", "",
                   x->reboots, x->resets, x->loss_thr, x->exceed_thr);
    }
    if (c->json) {
        json_object *o = json_object_new_object(), *arr = json_object_new_array();
        for (unsigned i = 0; i < k; i++)
            json_object_array_add(arr, cell_json(&cells[i]));
        json_object_object_add(o, "measure_s", json_object_new_double(b.measure_s));
        json_object_object_add(o, "cells", arr);
        FILE *f = strcmp(c->json, "-") ? fopen(c->json, "w") : stdout;
        if (f) {
            fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
            if (f != stdout)
                fclose(f);
        }
        json_object_put(o);
    }
    munmap(b.cell, sizeof *b.cell);
    return 0;
}
