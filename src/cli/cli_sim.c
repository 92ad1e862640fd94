/* takt sim ecat: run a simulated EtherCAT network on an interface, or benchmark the
 * simulator in-process (--bench). Parsing and printing only; the work is in src/sim. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <takt/rt.h>
#include <takt/sim.h>
#include "cli/cli.h"

static const struct cli_opt sim_ecat_opts[] = {
    { "preset",  0, 1, "NAME", "network preset: 3, 10, 20, paper-40 (EK1100 + EL1004/EL2004 alternating), a count, or junction (a 9-slave tree)" },
    { "topology", 0, 1, "SPEC", "tree instead of a line: PARENT:PORT for each position 1..N-1, comma-separated (PARENT an earlier position, 0-based; ports 1..3; slaves in the frame's order 0-3-1-2), e.g. 0:3,1:1,0:1" },
    { "devices", 'd', 1, "LIST", "device list, e.g. ek1100,el1004x4,el2004x4,servo (catalogue: ek1100, el1004, el2004, el3102, servo, echo, soe-drive, eoe-device) or ESI files; FILE.xml@SEL picks one device of many: SEL is a name (EL1008), a product code (#x03F03052) and/or :REVISION (EL1008:#x00120000)" },
    { "eni",     0, 1, "FILE", "simulate exactly the slaves this ENI file expects" },
    { "esi-dir", 0, 1, "DIR",  "one slave per ESI file (*.xml) in DIR, in name order (each file's first device); DIR@SEL takes the device SEL picks (as in --devices) from every file that has it" },
    { "fault",   'f', 1, "SPEC", "fault injection, ';'-separated, K a slave position (0-based, as takt ecat slaves shows it): drop=P corrupt=P crc=P delay=T break=K[:PORT]@T (the cable into K) heal=K@T power=K@T sdo-abort=K:IDX:SUB=CODE refuse=K:STATE=CODE" },
    { "foe",     0,   1, "SPEC", "FoE files of slaves with FoE (K their position, 0-based), ';'-separated K:FILE[,boot][,ro][,max=N][,pw=N][,size=N] or K:busy=N / K:disk=N / K:nocreate" },
    { "fwd-delay", 0, 1, "NS", "forwarding delay per slave and direction (default 500 ns)" },
    { "drift",   0, 1, "PPM",  "clock drift spread of the slaves, +-PPM (default 50, 0 = none)" },
    { "seed",    0, 1, "N",    "seed for clock offsets/drifts and random faults (default 1)" },
    { "sii4",    0, 0, NULL,   "advertise 4-byte SII reads (default: 8-byte)" },
    { "ram",     0, 1, "KIB",  "process RAM per slave from 0x1000, 1..60 KiB (default 8; register 0x0006)" },
    { "list",    'l', 0, NULL, "print the slaves and exit: position (0-based, as takt ecat slaves shows it and --fault, --foe and --topology take it), name, where it hangs" },
    { "bench",   0, 0, NULL,   "in-process benchmark: 40 and 1000 slaves, LRW + FRMW per frame, with and without the device models" },
    { "frames",  0, 1, "N",    "frames per benchmark run (default 20000)" },
    { "repeat",  0, 1, "N",    "runs per benchmark row: median, min and max (default 1)" },
    { "bench-slaves", 0, 1, "LIST", "slave counts to benchmark, comma-separated (default 40,1000)" },
    { "busy-poll", 0, 0, NULL, "poll the socket without sleeping (like an ESC, which never sleeps); with -a/-p on its own CPU at SCHED_FIFO" },
    { "redundant", 0, 1, "IF2", "a ring: the last slave's port 1 is wired back to IF2, the master's second port (cable redundancy; break=N is then that last cable; --pcap FILE: IF2's frames in FILE with -2 before its extension)" },
    { "stall-us", 0, 1, "US",  "record serving stalls longer than US (default 100 with --busy-poll) in the JSON: loop turns apart or a frame waiting" },
    { 0 }
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --bench-slaves: comma-separated slave counts, 1..4096 each (the image must fit a frame) */
static int bench_sizes(struct cli_ctx *c, unsigned *v, unsigned *n)
{
    const char *s = cli_get(c, "bench-slaves");
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s ? s : "40,1000");
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long l;
        if (*n == 8)
            return cli_usage_error(c, "--bench-slaves expects at most 8 counts, got '%s'", s);
        if (cli_parse_long(c, "--bench-slaves", t, 1, 4096, &l))
            return 2;
        v[(*n)++] = (unsigned)l;
    }
    return *n ? 0 : cli_usage_error(c, "--bench-slaves expects counts like 40,1000, got '%s'", s ? s : "");
}

static json_object *bench_json(const struct takt_sim_bench *r, bool esc_only, const double *ns, long reps)
{
    json_object *o = json_object_new_object(), *runs = json_object_new_array();
    json_object_object_add(o, "slaves", json_object_new_int((int)r->slaves));
    json_object_object_add(o, "frames", json_object_new_int((int)r->frames));
    json_object_object_add(o, "device_models", json_object_new_boolean(!esc_only));
    json_object_object_add(o, "image_bytes", json_object_new_int((int)r->image_bytes));
    json_object_object_add(o, "repeat", json_object_new_int((int)reps));
    json_object_object_add(o, "ns_per_frame", json_object_new_double(ns[reps / 2]));
    json_object_object_add(o, "ns_per_frame_min", json_object_new_double(ns[0]));
    json_object_object_add(o, "ns_per_frame_max", json_object_new_double(ns[reps - 1]));
    json_object_object_add(o, "frames_per_s", json_object_new_double(ns[reps / 2] > 0 ? 1e9 / ns[reps / 2] : 0));
    for (long k = 0; k < reps; k++)
        json_object_array_add(runs, json_object_new_double(ns[k]));
    json_object_object_add(o, "ns_per_frame_runs", runs);
    json_object_object_add(o, "wkc_ok", json_object_new_boolean(r->wkc_ok));
    return o;
}

/* Each size with and without the device models, --repeat times; the median (upper one
 * for an even count), minimum and maximum of the thread CPU time per frame. */
static int run_bench(struct cli_ctx *c)
{
    long frames = 20000, reps = 1;
    const char *fs = cli_get(c, "frames"), *rs = cli_get(c, "repeat");
    unsigned sizes[8], nsizes;
    if (fs && cli_parse_long(c, "--frames", fs, 1, 100000000, &frames))
        return 2;
    if (rs && cli_parse_long(c, "--repeat", rs, 1, 101, &reps))
        return 2;
    int rc = bench_sizes(c, sizes, &nsizes);
    if (rc)
        return rc;
    json_object *arr = json_object_new_array();
    printf("CPU time per frame of LRW (full image) + FRMW 0x0910, in-process, %ld frames, %ld run%s each\n",
           frames, reps, reps > 1 ? "s (median, min, max)" : "");
    printf("%8s %-8s %8s %12s %10s %10s %14s %6s\n", "slaves", "devices", "image_B", "ns/frame", "min", "max",
           "frames/s", "wkc");
    for (unsigned i = 0; i < 2 * nsizes && !cli_interrupted; i++) {
        struct takt_sim_bench r;
        char err[256];
        double ns[101];
        bool esc_only = i & 1;
        unsigned n = sizes[i / 2];
        for (long k = 0; k < reps && !cli_interrupted; k++) {
            if (cli_progress_enabled())
                fprintf(stderr, "benchmarking %u slaves, run %ld of %ld...\r", n, k + 1, reps);
            if (takt_sim_bench_run(n, (unsigned)frames, esc_only, &r, err, sizeof err)) {
                json_object_put(arr);
                return cli_error(c, "%s", err);
            }
            if (!r.wkc_ok) {
                json_object_put(arr);
                return cli_error(c, "%u slaves: the working counters were not the expected ones", r.slaves);
            }
            ns[k] = r.ns_per_frame;
        }
        if (cli_interrupted)
            break;
        qsort(ns, (size_t)reps, sizeof ns[0], cmp_double);
        printf("%8u %-8s %8u %12.0f %10.0f %10.0f %14.0f %6s\n", r.slaves, esc_only ? "off" : "on", r.image_bytes,
               ns[reps / 2], ns[0], ns[reps - 1], ns[reps / 2] > 0 ? 1e9 / ns[reps / 2] : 0, "ok");
        json_object_array_add(arr, bench_json(&r, esc_only, ns, reps));
    }
    json_object *root = json_object_new_object();
    json_object_object_add(root, "bench", arr);
    int jrc = cli_write_json(c, root);
    json_object_put(root);
    return jrc;
}

static int build(struct cli_ctx *c, struct takt_sim **s)
{
    struct takt_sim_opts o;
    char err[512];
    takt_sim_opts_default(&o);
    const char *v;
    long l;
    double d;
    if ((v = cli_get(c, "fwd-delay"))) {
        if (cli_parse_long(c, "--fwd-delay", v, 1, 1000000, &l))
            return 2;
        o.fwd_delay_ns = l;
    }
    if ((v = cli_get(c, "drift"))) {
        if (cli_parse_double(c, "--drift", v, 0, 1000, &d))
            return 2;
        o.drift_ppm = d;
    }
    if ((v = cli_get(c, "seed"))) {
        if (cli_parse_long(c, "--seed", v, 0, 0x7FFFFFFF, &l))
            return 2;
        o.seed = (uint32_t)l;
    }
    o.sii_read4 = cli_flag(c, "sii4");
    if ((v = cli_get(c, "ram"))) {
        /* ADO is 16 bits: RAM from 0x1000 must end below 64 KiB */
        if (cli_parse_long(c, "--ram", v, 1, 60, &l))
            return 2;
        o.ram_bytes = (uint32_t)l * 1024;
    }
    const char *preset = cli_get(c, "preset"), *devs = cli_get(c, "devices");
    const char *eni = cli_get(c, "eni"), *esi = cli_get(c, "esi-dir");
    int given = !!preset + !!devs + !!eni + !!esi;
    if (given != 1)
        return cli_usage_error(c, "expected exactly one of --preset, --devices, --eni, --esi-dir, got %d", given);
    int rc = preset ? takt_sim_create_preset(preset, &o, s, err, sizeof err)
           : devs   ? takt_sim_create(devs, &o, s, err, sizeof err)
           : eni    ? takt_sim_create_eni(eni, &o, s, err, sizeof err)
                    : takt_sim_create_esi_dir(esi, &o, s, err, sizeof err);
    if (rc)
        return cli_error(c, "%s", err);
    const char *topo = cli_get(c, "topology");
    if (topo && takt_sim_set_topology(*s, topo, err, sizeof err)) {
        takt_sim_destroy(*s);
        return cli_usage_error(c, "--topology: %s", err);
    }
    if (cli_get(c, "redundant") && takt_sim_set_ring(*s, err, sizeof err)) {
        takt_sim_destroy(*s);
        return cli_usage_error(c, "--redundant: %s", err);
    }
    const char *f = cli_get(c, "fault");
    if (f && takt_sim_fault(*s, f, err, sizeof err)) {
        takt_sim_destroy(*s);
        return cli_usage_error(c, "--fault: %s", err);
    }
    const char *foe = cli_get(c, "foe");
    if (foe && takt_sim_foe(*s, foe, err, sizeof err)) {
        takt_sim_destroy(*s);
        return cli_usage_error(c, "--foe: %s", err);
    }
    return 0;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

static void print_stats(const struct takt_sim_stats *st, double cpu, double wall)
{
    printf("frames %" PRIu64 " replies %" PRIu64 " datagrams %" PRIu64 " malformed %" PRIu64
           " not-ecat %" PRIu64 " dropped %" PRIu64 " corrupted %" PRIu64 " reachable %u"
           " cpu %.1f%% (%.2f us/frame)\n",
           st->frames, st->replies, st->datagrams, st->malformed, st->not_ecat, st->dropped,
           st->corrupted, st->reachable, wall > 0 ? 100.0 * cpu / wall : 0,
           st->frames ? cpu * 1e6 / (double)st->frames : 0);
    fflush(stdout);
}

/* Serving stalls: times the simulator did not answer like hardware. Two kinds: its loop
 * did not turn (busy-poll only; preempted, throttled) and a frame waited from its kernel
 * receive time to its answer. Preallocated; overlapping stalls merge. */
#define STALL_CAP 65536
struct stall_log {
    takt_ns_t thr;
    takt_ns_t (*v)[3];          /* start (CLOCK_MONOTONIC), length, kind ('g' or 'w') */
    size_t n;
    uint64_t total;             /* also those beyond STALL_CAP */
    takt_ns_t max;
};

static void stall_add(struct stall_log *g, takt_ns_t from, takt_ns_t to, char kind)
{
    if (to - from < g->thr)
        return;
    if (g->n && from <= g->v[g->n - 1][0] + g->v[g->n - 1][1]) {
        takt_ns_t *e = g->v[g->n - 1];
        if (to > e[0] + e[1])
            e[1] = to - e[0];
        if (e[1] > g->max)
            g->max = e[1];
        return;
    }
    g->total++;
    if (to - from > g->max)
        g->max = to - from;
    if (g->n < STALL_CAP) {
        g->v[g->n][0] = from;
        g->v[g->n][1] = to - from;
        g->v[g->n][2] = kind;
        g->n++;
    }
}

static void spin_until(takt_ns_t t)
{
    while (takt_now() < t)
        ;
}

#define BATCH 16
/* A busy poll at SCHED_FIFO is throttled by the kernel (sched_rt_runtime_us, 95 % by
 * default, shared with every other RT task on that CPU): measured here, 20-55 ms
 * without a turn every second. A cyclic master's frames come once a period, so after
 * answering one the loop sleeps in recv until GUARD_NS before the next is due (a frame
 * arriving earlier ends the sleep) and spins only from there; the period is the
 * shortest gap between frames over the last 32 to 64 (gaps under 50 us are frames of the
 * same cycle); at cycles under 400 us the guard is half the period (a wake-up there can
 * be late: the answer then is too, which the stall log shows, but a throttled loop
 * answers nothing for tens of ms). Where no room is left it gives up the CPU for 7 % of
 * the time it spun, right after answering a frame. */
#define GUARD_NS     (200 * TAKT_NS_PER_US)
#define SPIN_NS      (400 * TAKT_NS_PER_US)
#define IDLE_SPIN_NS (5 * TAKT_NS_PER_MS)

struct pace {
    takt_ns_t last, gmin[2];     /* last arrival; shortest gap in this / the last window */
    unsigned ngaps;
    takt_ns_t spun;              /* end of the last sleep */
};

static void pace_arrival(struct pace *p, takt_ns_t t)
{
    takt_ns_t gap = t - p->last;
    p->last = t;
    if (gap < 50 * TAKT_NS_PER_US)
        return;
    if (!p->gmin[0] || gap < p->gmin[0])
        p->gmin[0] = gap;
    if (++p->ngaps == 32) {
        p->gmin[1] = p->gmin[0];
        p->gmin[0] = 0;
        p->ngaps = 0;
    }
}

static takt_ns_t pace_wait(const struct pace *p, takt_ns_t now, bool answered)
{
    takt_ns_t per = p->gmin[1] && (!p->gmin[0] || p->gmin[1] < p->gmin[0]) ? p->gmin[1] : p->gmin[0];
    if (answered && per) {
        takt_ns_t guard = per / 2 < GUARD_NS ? per / 2 : GUARD_NS;
        takt_ns_t w = p->last + per - guard - now;
        if (w >= 20 * TAKT_NS_PER_US)
            return w < 10 * TAKT_NS_PER_MS ? w : 10 * TAKT_NS_PER_MS;
    }
    takt_ns_t spin = now - p->spun;
    if (!(answered && spin >= SPIN_NS) && spin < IDLE_SPIN_NS)
        return 0;
    takt_ns_t w = spin * 7 / 100;
    return w < 20 * TAKT_NS_PER_US ? 20 * TAKT_NS_PER_US : w > TAKT_NS_PER_MS ? TAKT_NS_PER_MS : w;
}

/* takt_sim_serve's loop with the stall log and, when busy, polling (paced as above). */
static int serve_measured(struct takt_sim *s, struct takt_link *l, takt_ns_t until, bool busy,
                          struct stall_log *g)
{
    static uint8_t bufs[BATCH][TAKT_FRAME_BUF];
    struct takt_frame f[BATCH];
    takt_ns_t prev = takt_now(), tick = prev;
    struct pace pc = { .last = prev, .spun = prev };
    bool answered = false;
    while (!cli_interrupted) {
        takt_ns_t wait = busy ? pace_wait(&pc, prev, answered) : 10 * TAKT_NS_PER_MS;
        answered = false;
        for (unsigned i = 0; i < BATCH; i++)
            f[i] = (struct takt_frame){ .data = bufs[i], .cap = TAKT_FRAME_BUF };
        int n = takt_link_recv(l, f, BATCH, wait);
        takt_ns_t now = takt_now();
        if (wait)
            pc.spun = now;
        else if (busy)
            stall_add(g, prev, now, 'g');
        prev = now;
        if (until && now >= until)
            break;
        if (n < 0) {
            if (n == -EINTR || n == -EAGAIN)
                continue;
            return n;
        }
        if (n == 0) {
            if (now - tick >= TAKT_NS_PER_MS) {
                takt_sim_tick(s, now);
                tick = now;
            }
            continue;
        }
        unsigned out = 0;
        for (int i = 0; i < n; i++) {
            takt_ns_t t = f[i].ts ? f[i].ts : now, delay = 0;
            pace_arrival(&pc, t);
            size_t r = takt_sim_process(s, f[i].data, f[i].len, TAKT_FRAME_BUF, t, &delay);
            if (!r)
                continue;
            if (delay)
                spin_until(t + delay);
            f[out] = f[i];
            f[out].len = (uint16_t)r;
            out++;
        }
        if (out) {
            int sr = takt_link_send(l, f, out);
            if (sr < 0 && sr != -EAGAIN && sr != -ENOBUFS)
                return sr;
            answered = true;
        }
        takt_ns_t done = takt_now();
        for (int i = 0; i < n; i++)
            if (f[i].ts && f[i].ts < now)
                stall_add(g, f[i].ts, done, 'w');
        prev = done;
    }
    return 0;
}

static json_object *stall_json(const struct stall_log *g, bool busy)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "mode", json_object_new_string(busy ? "busy-poll" : "blocking"));
    json_object_object_add(o, "threshold_ns", json_object_new_int64(g->thr));
    json_object_object_add(o, "count", json_object_new_uint64(g->total));
    json_object_object_add(o, "max_ns", json_object_new_int64(g->max));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < g->n; i++) {
        json_object *e = json_object_new_array();
        json_object_array_add(e, json_object_new_int64(g->v[i][0]));
        json_object_array_add(e, json_object_new_int64(g->v[i][1]));
        json_object_array_add(e, json_object_new_string(g->v[i][2] == 'g' ? "loop" : "wait"));
        json_object_array_add(arr, e);
    }
    json_object_object_add(o, "stalls", arr);
    return o;
}

/* --redundant IF2: the ring's second port, captured beside --pcap FILE as FILE-2.EXT. */
static int open_second(struct cli_ctx *c, const struct takt_link_opts *lo, const char *iface,
                       struct takt_link **out)
{
    const char *if1 = c->iface, *pcap = c->pcap;
    char path[512];
    if (if1 && !strcmp(if1, iface))
        return cli_usage_error(c, "--redundant expects the ring's other port, not -i's %s again", iface);
    if (pcap) {
        const char *dot = strrchr(pcap, '.'), *slash = strrchr(pcap, '/');
        if (!dot || (slash && dot < slash))
            dot = pcap + strlen(pcap);
        snprintf(path, sizeof path, "%.*s-2%s", (int)(dot - pcap), pcap, dot);
        c->pcap = path;
    }
    c->iface = iface;
    int rc = cli_open_link(c, lo, "the port the ring's last slave is wired back to", out);
    c->iface = if1;
    c->pcap = pcap;
    return rc;
}

static int run_serve(struct cli_ctx *c, struct takt_sim *s)
{
    bool busy = cli_flag(c, "busy-poll");
    struct stall_log g = { .thr = busy ? 100 * TAKT_NS_PER_US : 0 };
    const char *su = cli_get(c, "stall-us");
    long lv;
    if (su) {
        if (cli_parse_long(c, "--stall-us", su, 1, 10000000, &lv))
            return 2;
        g.thr = lv * TAKT_NS_PER_US;
    }
    bool measured = busy || g.thr > 0;
    if (measured && !(g.v = calloc(STALL_CAP, sizeof *g.v)))
        return cli_error(c, "no memory for the stall log");
    struct takt_link_opts lo;
    takt_link_opts_default(&lo);
    static const uint16_t types[1] = { TAKT_ETHERTYPE_ECAT };
    lo.ethertypes = types;
    lo.n_ethertypes = 1;
    lo.timestamps = true;
    struct takt_link *l, *l2 = NULL;
    const char *red = cli_get(c, "redundant");
    if (red && measured) {
        free(g.v);
        return cli_usage_error(c, "--redundant serves two ports by turns: not with --busy-poll or --stall-us");
    }
    int rc = red ? open_second(c, &lo, red, &l2) : 0;
    if (rc)
        return rc;
    rc = cli_open_link(c, &lo, "the interface to simulate the network on", &l);
    if (rc) {
        takt_link_close(l2);
        return rc;
    }
    /* the raw socket exists: keep only what the real-time set-up below uses, then not that */
    cli_drop_caps(c, c->cpu >= 0 || c->prio > 0 ? cli_caps_for_rt(c) : 0);
    fprintf(stderr, "takt sim ecat: %u slaves on %s%s\n", takt_sim_slave_count(s), c->iface,
            c->time_s > 0 ? "" : " (Ctrl-C to stop)");
    struct takt_rt_state rts = { .dma_fd = -1 };
    bool rt = c->cpu >= 0 || c->prio > 0;
    if (rt) {
        /* the serving thread answers like hardware: pin it and raise it when asked */
        struct takt_rt_opts ro;
        takt_rt_opts_default(&ro);
        ro.cpu = c->cpu;
        ro.prio = c->prio;
        ro.drop_caps = cli_caps_dropping();
        takt_rt_setup(&ro, &rts, NULL, NULL);
    }
    takt_ns_t start = takt_now(), end = c->time_s > 0 ? start + (takt_ns_t)(c->time_s * 1e9) : 0;
    double cpu0 = cpu_s();
    struct takt_sim_stats st;
    while (!cli_interrupted && !rc) {
        takt_ns_t until = end;
        if (c->perf_s > 0) {
            takt_ns_t next = takt_now() + (takt_ns_t)(c->perf_s * 1e9);
            until = end && end < next ? end : next;
        }
        rc = l2 ? takt_sim_serve_ring(s, l, l2, until, &cli_interrupted)
           : measured ? serve_measured(s, l, until, busy, &g) : takt_sim_serve(s, l, until, &cli_interrupted);
        if (rc)
            break;
        takt_sim_get_stats(s, &st);
        if (c->perf_s > 0)
            print_stats(&st, cpu_s() - cpu0, (double)(takt_now() - start) * 1e-9);
        if (end && takt_now() >= end)
            break;
    }
    takt_link_close(l);
    takt_link_close(l2);
    if (rt)
        takt_rt_teardown(&rts);
    if (rc) {
        free(g.v);
        return cli_error(c, "serving %s failed: %s", c->iface, strerror(-rc));
    }
    double cpu = cpu_s() - cpu0, wall = (double)(takt_now() - start) * 1e-9;
    takt_sim_get_stats(s, &st);
    print_stats(&st, cpu, wall);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "interface", json_object_new_string(c->iface));
    if (red) {
        json_object_object_add(o, "redundant", json_object_new_string(red));
        json_object_object_add(o, "ring", json_object_new_string(takt_sim_ring_intact(s) ? "intact" : "broken"));
    }
    json_object_object_add(o, "slaves", json_object_new_int((int)takt_sim_slave_count(s)));
    json_object_object_add(o, "frames", json_object_new_uint64(st.frames));
    json_object_object_add(o, "replies", json_object_new_uint64(st.replies));
    json_object_object_add(o, "datagrams", json_object_new_uint64(st.datagrams));
    json_object_object_add(o, "malformed", json_object_new_uint64(st.malformed));
    json_object_object_add(o, "not_ecat", json_object_new_uint64(st.not_ecat));
    json_object_object_add(o, "dropped", json_object_new_uint64(st.dropped));
    json_object_object_add(o, "corrupted", json_object_new_uint64(st.corrupted));
    json_object_object_add(o, "crc_errors", json_object_new_uint64(st.crc));
    json_object_object_add(o, "wall_s", json_object_new_double(wall));
    json_object_object_add(o, "cpu_s", json_object_new_double(cpu));
    json_object_object_add(o, "cpu_us_per_frame",
                           json_object_new_double(st.frames ? cpu * 1e6 / (double)st.frames : 0));
    json_object *arr = json_object_new_array();
    for (unsigned k = 0; k < takt_sim_slave_count(s); k++) {
        uint8_t al[2] = { 0 }, code[2] = { 0 };
        takt_sim_peek(s, k, 0x0130, al, 2);
        takt_sim_peek(s, k, 0x0134, code, 2);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(takt_sim_slave_name(s, k)));
        json_object_object_add(e, "al_status", json_object_new_int(al[0] | al[1] << 8));
        json_object_object_add(e, "al_status_code", json_object_new_int(code[0] | code[1] << 8));
        json_object_array_add(arr, e);
    }
    json_object_object_add(o, "slave_states", arr);
    struct takt_sim_echo_stats es;
    if (takt_sim_echo_stats(s, &es)) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "frames", json_object_new_uint64(es.frames));
        json_object_object_add(e, "echoes", json_object_new_uint64(es.echoes));
        json_object_object_add(e, "stale", json_object_new_uint64(es.stale));
        json_object_object_add(e, "age_max", json_object_new_uint64(es.age_max));
        json_object_object_add(e, "stale_first_age", json_object_new_uint64(es.stale_first_age));
        json_object_object_add(e, "stale_first_frame", json_object_new_uint64(es.stale_first_frame));
        json_object_object_add(o, "echo", e);
        fprintf(stderr, "takt sim ecat: echo: %" PRIu64 " frames, %" PRIu64 " new echoes, %" PRIu64
                " stale (older than 1 frame), oldest %" PRIu32 " frames\n", es.frames, es.echoes,
                es.stale, es.age_max);
    }
    json_object_object_add(o, "fifo", json_object_new_boolean(rt && rts.fifo_ok));
    json_object_object_add(o, "cpu_pinned", json_object_new_boolean(rt && rts.affinity_ok));
    if (measured) {
        json_object_object_add(o, "serving", stall_json(&g, busy));
        fprintf(stderr, "takt sim ecat: %s, %" PRIu64 " serving stalls over %.0f us (longest %.0f us)\n",
                busy ? "busy-polled" : "blocking", g.total, g.thr / 1e3, g.max / 1e3);
    }
    free(g.v);
    int jrc = cli_write_json(c, o);
    json_object_put(o);
    return jrc;
}

static int cmd_sim_ecat(struct cli_ctx *c)
{
    if (cli_flag(c, "bench"))
        return run_bench(c);
    struct takt_sim *s = NULL;
    int rc = build(c, &s);
    if (rc)
        return rc;
    if (cli_flag(c, "list") || !c->iface) {
        /* one numbering: the ring position from 0, as takt ecat slaves and IgH's
         * ethercat tool show it, is what --fault, --foe and --topology take */
        fprintf(stderr, "position (first column): 0-based, as takt ecat slaves and IgH's "
                "ethercat tool show it; --fault, --foe and --topology take it\n");
        for (unsigned k = 0; k < takt_sim_slave_count(s); k++)
        {
            int par;
            unsigned port;
            char where[64];
            takt_sim_get_parent(s, k, &par, &port);
            if (par < 0)
                snprintf(where, sizeof where, "master");
            else
                snprintf(where, sizeof where, "on port %u of position %d", port, par);
            printf("%4u  %-24s %s\n", k, takt_sim_slave_name(s, k), where);
        }
        if (!cli_flag(c, "list"))
            rc = cli_usage_error(c, "-i/--iface expects the interface to serve (a veth end), got none");
    } else {
        rc = run_serve(c, s);
    }
    takt_sim_destroy(s);
    return rc;
}

const struct cli_cmd cli_cmds_sim[] = {
    { "sim", "ecat", NULL, "simulate an EtherCAT network (software ESCs) on an interface",
      "Answers EtherCAT frames arriving on IF like a line (or, with --topology, a tree) of real slaves: registers, SII, "
      "SyncManagers, FMMUs, mailbox/CoE, AL state machine, distributed clocks. The network "
      "is a preset, a device list, the slaves an ENI expects, or a directory of ESI files. "
      "--fault injects frame loss, corruption, delay, cable breaks, power cycles, SDO aborts "
      "and refused state changes at given times. --foe sets the files a slave with FoE "
      "holds (each has firmware.bin, writable only in BOOT). --redundant IF2 closes the line into a ring "
      "whose last slave is wired back to IF2 (cable redundancy). --bench times the simulator in-process.\n"
      "Examples:\n  takt sim ecat -i veth1 --preset paper-40\n"
      "  takt sim ecat -i veth1 --devices ek1100,el1004x2,servo --fault 'break=2@5s;heal=2@8s'\n"
      "  takt sim ecat -i veth1 --redundant veth3 --preset 10 --fault 'break=4@5s;heal=0@8s'\n"
      "  takt sim ecat -i veth1 --preset junction --fault 'break=3:3@5s;heal=0@8s'\n"
      "  takt sim ecat --devices ek1100,el1004,el2004,ek1100 --topology 0:3,1:1,0:1 --list\n"
      "  takt sim ecat --bench --json bench.json",
      CLI_IFACE | CLI_TIME | CLI_PERF | CLI_JSON | CLI_PCAP | CLI_RT, sim_ecat_opts, cmd_sim_ecat, NULL },
    { 0 }
};
