/* takt ecat bench: the master benchmark as one command. For each cycle time a fresh
 * namespace pair, `takt sim ecat` (busy-polling on its own CPU where SCHED_FIFO is
 * allowed) on side B, `takt ecat run --dc --lost-times` on side A and cyclictest at the
 * same interval, CPU and priority; then the table, with every lost frame matched
 * against the simulator's serving stalls and the master's wake-up deviation. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <takt/netns.h>
#include "bench/bench.h"
#include "bench/proc.h"
#include "cli/cli.h"
#include "cli/cli_ecat.h"

#define EB_MAX_CYCLES 8

struct eb_row {
    int64_t cycle_ns;
    bool ran;
    char note[256];
    /* master (takt ecat run's JSON) */
    int64_t td_min, td_avg, td_max;          /* Task Duration */
    double cpu_us;                           /* CPU per cycle */
    int64_t dev_p99, dev_p999, dev_max;      /* Wake Deviation; -1: beyond the histogram */
    uint64_t cycles, overruns, sent, lost, late, wkc;
    /* attribution of the losses counted while the cycle thread ran */
    uint64_t before, logged, in_sim, in_master, unexplained;
    uint64_t in_both;                        /* of in_sim: the master woke late too */
    /* simulator */
    bool sim_busy, sim_fifo;
    uint64_t sim_stalls, sim_dropped;        /* dropped: by --sim-fault */
    int64_t sim_stall_max, stall_thr;
    struct bench_ct ct;
    double ct_p99, ct_p999;                  /* us; -1: beyond 999 us */
    double load[2];                          /* 1-minute load average before / after */
};

struct eb {
    struct cli_ctx *c;
    const char *takt, *preset, *out, *fault;
    double secs;
    int cpu, prio, sim_cpu;
    long stall_us;
    bool stall_fixed;            /* --stall-us given: the same for every cycle time */
    bool fifo, busy;
    char fifo_note[256];
    char setup[400];             /* how master, cyclictest and simulator ran */
};

/* The machine is shared: its load average goes beside each row. */
static double loadavg(void)
{
    double v = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static void sleep_ms(long ms) { nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL); }

static int64_t jget(json_object *o, const char *k, int64_t dflt)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
        return dflt;
    return json_object_get_int64(v);
}

/* cyclictest's histogram (1 us bins, overflow in [1000]) at percentile p; -1 beyond. */
static double ct_percentile(const struct bench_ct *ct, double p)
{
    uint64_t total = 0, acc = 0;
    for (int i = 0; i <= 1000; i++)
        total += ct->hist[i];
    if (!total)
        return 0;
    double want = p / 100.0 * (double)total;
    for (int i = 0; i < 1000; i++)
        if ((double)(acc += ct->hist[i]) >= want)
            return i;
    return -1;
}

/* Wait until the master's log says the network is in OP (its cycle thread runs). */
static bool wait_op(const char *log, pid_t pid, double timeout_s)
{
    char line[512];
    for (int i = 0; i < (int)(timeout_s * 50); i++) {
        FILE *f = fopen(log, "r");
        bool found = false;
        while (f && !found && fgets(line, sizeof line, f))
            found = strstr(line, "in OP after") != NULL;
        if (f)
            fclose(f);
        if (found)
            return true;
        if (bench_wait(pid, 0) != -ETIMEDOUT)
            return false;
        sleep_ms(20);
    }
    return false;
}

static void read_master(struct eb_row *r, const char *path)
{
    json_object *j = json_object_from_file(path), *perf, *m, *lf;
    if (!j) {
        snprintf(r->note, sizeof r->note, "takt ecat run wrote no JSON (%.200s)", path);
        return;
    }
    r->cycles = (uint64_t)jget(j, "cycles", 0);
    r->overruns = (uint64_t)jget(j, "overruns", 0);
    r->sent = (uint64_t)jget(j, "frames_sent", 0);
    r->lost = (uint64_t)jget(j, "frames_lost", 0);
    r->late = (uint64_t)jget(j, "frames_late", 0);
    r->wkc = (uint64_t)jget(j, "wkc_errors", 0);
    json_object *cpu;
    if (json_object_object_get_ex(j, "cpu_us_per_cycle", &cpu))
        r->cpu_us = json_object_get_double(cpu);
    if (json_object_object_get_ex(j, "perf", &perf)) {
        if (json_object_object_get_ex(perf, "Task Duration", &m)) {
            r->td_min = jget(m, "min_ns", 0);
            r->td_avg = jget(m, "avg_ns", 0);
            r->td_max = jget(m, "max_ns", 0);
        }
        if (json_object_object_get_ex(perf, "Wake Deviation", &m)) {
            r->dev_p99 = jget(m, "p99_ns", -1);
            r->dev_p999 = jget(m, "p99_9_ns", -1);
            r->dev_max = jget(m, "max_ns", 0);
        }
    }
    if (json_object_object_get_ex(j, "lost_frames", &lf)) {
        r->before = (uint64_t)jget(lf, "before_cycle_thread", 0);
        r->logged = (uint64_t)jget(lf, "count", 0);
    }
    r->ran = r->cycles > 0;
    json_object_put(j);
}

/* Whether the master's own lateness explains a lost frame sent at SENT and judged lost
 * at the wake-up SEEN, the larger wake-up deviation of those two cycles DEV: a wake-up
 * later than one cycle, or a frame sent so late in its cycle that its reply had less
 * than the simulator's stall threshold left before the wake-up that judged it (a round
 * trip the simulator served without a stall can miss so short a window). */
bool cli_ecat_bench_master_late(int64_t sent, int64_t seen, int64_t dev, int64_t cycle_ns, int64_t stall_thr)
{
    return dev > cycle_ns || (stall_thr > 0 && seen - sent < stall_thr);
}

/* Match every logged loss: a simulator stall overlapping [sent, noticed] explains it;
 * else the master's own lateness (above); else it stays unexplained. Losses beyond the
 * master's log cap count as unexplained. */
static void attribute(struct eb_row *r, const char *master_json, const char *sim_json)
{
    json_object *mj = json_object_from_file(master_json), *sj = json_object_from_file(sim_json);
    json_object *lf = NULL, *frames = NULL, *serving = NULL, *stalls = NULL, *v;
    if (sj && json_object_object_get_ex(sj, "serving", &serving)) {
        r->sim_busy = json_object_object_get_ex(serving, "mode", &v) &&
                      !strcmp(json_object_get_string(v), "busy-poll");
        r->sim_stalls = (uint64_t)jget(serving, "count", 0);
        r->sim_stall_max = jget(serving, "max_ns", 0);
        r->stall_thr = jget(serving, "threshold_ns", 0);
        json_object_object_get_ex(serving, "stalls", &stalls);
    }
    if (sj && json_object_object_get_ex(sj, "fifo", &v))
        r->sim_fifo = json_object_get_boolean(v);
    r->sim_dropped = (uint64_t)jget(sj, "dropped", 0);
    if (mj && json_object_object_get_ex(mj, "lost_frames", &lf))
        json_object_object_get_ex(lf, "frames", &frames);
    size_t nf = frames ? json_object_array_length(frames) : 0, ns = stalls ? json_object_array_length(stalls) : 0;
    for (size_t i = 0; i < nf; i++) {
        json_object *e = json_object_array_get_idx(frames, i);
        int64_t sent = json_object_get_int64(json_object_array_get_idx(e, 0));
        int64_t seen = json_object_get_int64(json_object_array_get_idx(e, 1));
        int64_t dev = json_object_get_int64(json_object_array_get_idx(e, 2));
        bool sim = false;
        for (size_t k = 0; k < ns && !sim; k++) {
            json_object *s = json_object_array_get_idx(stalls, k);
            int64_t from = json_object_get_int64(json_object_array_get_idx(s, 0));
            int64_t len = json_object_get_int64(json_object_array_get_idx(s, 1));
            sim = from < seen && from + len > sent;
        }
        bool late = cli_ecat_bench_master_late(sent, seen, dev, r->cycle_ns, r->stall_thr);
        if (sim && late)
            r->in_both++;
        if (sim)
            r->in_sim++;
        else if (late)
            r->in_master++;
        else
            r->unexplained++;
    }
    r->unexplained += r->logged > nf ? r->logged - nf : 0;
    json_object_put(mj);
    json_object_put(sj);
}

static void run_row(struct eb *b, struct eb_row *r)
{
    char why[256], mj[600], sj[600], mlog[600], slog[600], dd[600], tag[64];
    struct takt_netns ns;
    memset(&ns, 0, sizeof ns);
    ns.ctl[0] = ns.ctl[1] = -1;
    long us = (long)(r->cycle_ns / 1000);
    snprintf(tag, sizeof tag, "%ldus", us);
    snprintf(mj, sizeof mj, "%s/data/master-%s.json", b->out, tag);
    snprintf(sj, sizeof sj, "%s/data/sim-%s.json", b->out, tag);
    snprintf(mlog, sizeof mlog, "%s/logs/master-%s.log", b->out, tag);
    snprintf(slog, sizeof slog, "%s/logs/sim-%s.log", b->out, tag);
    snprintf(dd, sizeof dd, "%s/data", b->out);
    unlink(mj);
    unlink(sj);
    r->load[0] = loadavg();
    if (takt_netns_create(&ns, why, sizeof why)) {
        snprintf(r->note, sizeof r->note, "no namespace pair: %.200s", why);
        return;
    }
    char a[16][64], *sim[32], *st[32];
    int n = 0, m = 0, k = 0;
#define A(...) (snprintf(a[k], sizeof a[k], __VA_ARGS__), a[k++])
    sim[n++] = (char *)b->takt; sim[n++] = "sim"; sim[n++] = "ecat"; sim[n++] = "-i"; sim[n++] = ns.ifname[1];
    sim[n++] = "--preset"; sim[n++] = (char *)b->preset; sim[n++] = "--json"; sim[n++] = sj;
    /* a quarter of the cycle already costs a frame at 125 us: the threshold scales down */
    long thr = b->stall_fixed || b->stall_us * 4 <= us ? b->stall_us : (us + 3) / 4;
    sim[n++] = "--stall-us"; sim[n++] = A("%ld", thr);
    if (b->busy) {
        sim[n++] = "--busy-poll"; sim[n++] = "-a"; sim[n++] = A("%d", b->sim_cpu);
    }
    if (b->fifo) {
        sim[n++] = "-p"; sim[n++] = A("%d", b->prio);
    }
    if (b->fault) {
        sim[n++] = "--fault"; sim[n++] = (char *)b->fault;
    }
    sim[n] = NULL;
    st[m++] = (char *)b->takt; st[m++] = "ecat"; st[m++] = "run"; st[m++] = "--dc"; st[m++] = "--lost-times";
    st[m++] = "-i"; st[m++] = ns.ifname[0]; st[m++] = "-c"; st[m++] = A("%ld", us);
    st[m++] = "-t"; st[m++] = A("%.3f", b->secs); st[m++] = "--json"; st[m++] = mj;
    if (b->cpu >= 0) {
        st[m++] = "-a"; st[m++] = A("%d", b->cpu);
    }
    if (b->prio > 0) {
        st[m++] = "-p"; st[m++] = A("%d", b->prio);
    }
    st[m] = NULL;
#undef A
    pid_t ps = bench_spawn(sim, &ns, TAKT_NETNS_B, slog);
    sleep_ms(300);
    pid_t pm = ps > 0 ? bench_spawn(st, &ns, TAKT_NETNS_A, mlog) : -1;
    /* cyclictest measures the same window as the cycle thread: from OP on */
    if (pm > 0 && wait_op(mlog, pm, 30))
        bench_ct_start(&r->ct, dd, tag, r->cycle_ns, b->secs, b->fifo ? b->prio : 0, b->cpu);
    int rc = pm > 0 ? bench_wait(pm, b->secs + 60) : -1;
    if (rc == -ETIMEDOUT) {
        bench_stop(pm, 2);
        snprintf(r->note, sizeof r->note, "takt ecat run did not finish (see logs/master-%s.log)", tag);
    } else if (rc) {
        snprintf(r->note, sizeof r->note, "takt ecat run exited with %d (see logs/master-%s.log)", rc, tag);
    }
    bench_ct_finish(&r->ct, 10);
    if (ps > 0)
        bench_stop(ps, 5);   /* SIGTERM: the simulator writes its JSON with the stall log */
    takt_netns_destroy(&ns);
    r->load[1] = loadavg();
    read_master(r, mj);
    if (rc == 1 && r->cycles > 0 && r->overruns * 2 > r->cycles)   /* its exit status for that */
        snprintf(r->note, sizeof r->note, "the machine could not hold the cycle: %" PRIu64 " of %" PRIu64
                 " cycles overran", r->overruns, r->cycles);
    attribute(r, mj, sj);
    if (r->ct.ok) {
        r->ct_p99 = ct_percentile(&r->ct, 99);
        r->ct_p999 = ct_percentile(&r->ct, 99.9);
    }
}

static void fmt_pct(char *buf, size_t n, int64_t ns, int64_t max)
{
    if (ns < 0)
        snprintf(buf, n, ">%.0f", max / 1e3);
    else
        snprintf(buf, n, "%.1f", ns / 1e3);
}

static int64_t shortest_zero_loss(const struct eb_row *r, unsigned nr)
{
    int64_t best = 0;
    for (unsigned i = 0; i < nr; i++)
        if (r[i].ran && r[i].lost == 0 && r[i].wkc == 0 && (!best || r[i].cycle_ns < best))
            best = r[i].cycle_ns;
    return best;
}

static void print_row(FILE *f, const struct eb_row *r)
{
    if (!r->ran) {
        fprintf(f, "| %lld | %s |\n", (long long)(r->cycle_ns / 1000), r->note);
        return;
    }
    char p1[24], p2[24], c1[24], c2[24], ct[64];
    fmt_pct(p1, sizeof p1, r->dev_p99, r->dev_max);
    fmt_pct(p2, sizeof p2, r->dev_p999, r->dev_max);
    if (r->ct.ok) {
        snprintf(c1, sizeof c1, r->ct_p99 < 0 ? ">999" : "%.0f", r->ct_p99);
        snprintf(c2, sizeof c2, r->ct_p999 < 0 ? ">999" : "%.0f", r->ct_p999);
        snprintf(ct, sizeof ct, "%s/%s/%.0f", c1, c2, r->ct.max_us);
    } else {
        snprintf(ct, sizeof ct, "%s", r->ct.missing ? "not installed" : "did not run");
    }
    fprintf(f, "| %lld | %.1f/%.1f/%.1f | %.1f | %s/%s/%.1f | %s | %" PRIu64 " | %" PRIu64 " (%" PRIu64
               ") | %" PRIu64 " | ≥ %.0f: %" PRIu64 ", %.0f | %" PRIu64 " (%" PRIu64 ") / %" PRIu64 " / %" PRIu64,
            (long long)(r->cycle_ns / 1000), r->td_min / 1e3, r->td_avg / 1e3, r->td_max / 1e3, r->cpu_us, p1,
            p2, r->dev_max / 1e3, ct, r->sent, r->lost, r->late, r->wkc, r->stall_thr / 1e3, r->sim_stalls,
            r->sim_stall_max / 1e3, r->in_sim, r->in_both, r->in_master, r->unexplained);
    if (r->before)
        fprintf(f, " (+%" PRIu64 " at start-up)", r->before);
    fprintf(f, " |\n");
}

static void print_table(FILE *f, const struct eb *b, const struct eb_row *r, unsigned nr)
{
    fprintf(f, "%s with DC over veth, %.0f s per cycle; %s\n"
               "lost (late): frames counted lost (of which came back after their cycle); sim stalls: "
               "times the simulator's loop did not turn or a frame waited for its answer longer than "
               "the threshold (%ld us, at most a quarter of the cycle), and the longest; lost in: "
               "losses of the cycle thread whose round trip overlapped a simulator stall (of which the "
               "master late too: the whole machine stalled) / else the master late (a wake-up more "
               "than a cycle late, or the frame sent with less than the stall threshold left to "
               "return) / neither\n\n",
            b->preset, b->secs, b->setup, b->stall_us);
    fprintf(f, "| cycle µs | Task Duration min/avg/max µs | CPU µs/cycle | cycle dev p99/p99.9/max µs | "
               "cyclictest p99/p99.9/max µs | frames sent | lost (late) | WKC err | sim stalls ≥ µs: n, longest µs | "
               "lost in: sim stall (master late too) / master stall / unexplained |\n");
    fprintf(f, "|---:|---|---:|---|---|---:|---:|---:|---|---|\n");
    for (unsigned i = 0; i < nr; i++)
        print_row(f, &r[i]);
    fprintf(f, "\n");
    for (unsigned i = 0; i < nr; i++)
        if (r[i].ran)
            fprintf(f, "%lld µs: %" PRIu64 " lost frames, of which %" PRIu64 " at start-up; of the %" PRIu64
                       " in the cycle, %" PRIu64 " fell into a simulator stall of ≥ %.0f µs (%" PRIu64
                       " with the master late too), %" PRIu64 " into a master stall (wake-up > cycle "
                       "late, or sent too late to return), %" PRIu64 " unexplained; cyclictest max %.0f µs\n", (long long)(r[i].cycle_ns / 1000),
                    r[i].lost, r[i].before, r[i].logged, r[i].in_sim, r[i].stall_thr / 1e3, r[i].in_both,
                    r[i].in_master, r[i].unexplained, r[i].ct.ok ? r[i].ct.max_us : -1.0);
    fprintf(f, "\nload average (1 min) before/after each row:");
    for (unsigned i = 0; i < nr; i++)
        fprintf(f, "%s %lld us %.2f/%.2f", i ? "," : "", (long long)(r[i].cycle_ns / 1000), r[i].load[0], r[i].load[1]);
    fprintf(f, "\n");
    int64_t best = shortest_zero_loss(r, nr);
    if (best)
        fprintf(f, "\nshortest cycle with zero loss: %lld µs\n", (long long)(best / 1000));
    else
        fprintf(f, "\nshortest cycle with zero loss: none of those run\n");
}

static json_object *row_json(const struct eb_row *r)
{
    json_object *o = json_object_new_object();
#define I(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
#define U(k, v) json_object_object_add(o, k, json_object_new_uint64(v))
#define N(k, v) json_object_object_add(o, k, (v) < 0 ? NULL : json_object_new_int64(v))
    I("cycle_us", r->cycle_ns / 1000);
    json_object_object_add(o, "ran", json_object_new_boolean(r->ran));
    if (r->note[0])
        json_object_object_add(o, "note", json_object_new_string(r->note));
    I("task_duration_min_ns", r->td_min);
    I("task_duration_avg_ns", r->td_avg);
    I("task_duration_max_ns", r->td_max);
    json_object_object_add(o, "cpu_us_per_cycle", json_object_new_double(r->cpu_us));
    N("cycle_dev_p99_ns", r->dev_p99);
    N("cycle_dev_p99_9_ns", r->dev_p999);
    I("cycle_dev_max_ns", r->dev_max);
    json_object *ct = json_object_new_object();
    json_object_object_add(ct, "ran", json_object_new_boolean(r->ct.ok));
    if (r->ct.ok) {
        json_object_object_add(ct, "cycles", json_object_new_uint64(r->ct.cycles));
        json_object_object_add(ct, "p99_us", r->ct_p99 < 0 ? NULL : json_object_new_double(r->ct_p99));
        json_object_object_add(ct, "p99_9_us", r->ct_p999 < 0 ? NULL : json_object_new_double(r->ct_p999));
        json_object_object_add(ct, "max_us", json_object_new_double(r->ct.max_us));
    }
    json_object_object_add(o, "cyclictest", ct);
    U("cycles", r->cycles);
    U("overruns", r->overruns);
    U("frames_sent", r->sent);
    U("frames_lost", r->lost);
    U("frames_late", r->late);
    U("wkc_errors", r->wkc);
    json_object *at = json_object_new_object();
    json_object_object_add(at, "before_cycle_thread", json_object_new_uint64(r->before));
    json_object_object_add(at, "in_cycle_thread", json_object_new_uint64(r->logged));
    json_object_object_add(at, "sim_stall", json_object_new_uint64(r->in_sim));
    json_object_object_add(at, "sim_stall_master_late_too", json_object_new_uint64(r->in_both));
    json_object_object_add(at, "master_stall", json_object_new_uint64(r->in_master));
    json_object_object_add(at, "unexplained", json_object_new_uint64(r->unexplained));
    json_object_object_add(o, "lost_attribution", at);
    json_object *sim = json_object_new_object();
    json_object_object_add(sim, "busy_poll", json_object_new_boolean(r->sim_busy));
    json_object_object_add(sim, "fifo", json_object_new_boolean(r->sim_fifo));
    json_object_object_add(sim, "stall_threshold_ns", json_object_new_int64(r->stall_thr));
    json_object_object_add(sim, "stalls", json_object_new_uint64(r->sim_stalls));
    json_object_object_add(sim, "stall_max_ns", json_object_new_int64(r->sim_stall_max));
    json_object_object_add(sim, "dropped", json_object_new_uint64(r->sim_dropped));
    json_object_object_add(o, "simulator", sim);
    json_object_object_add(o, "loadavg_before", json_object_new_double(r->load[0]));
    json_object_object_add(o, "loadavg_after", json_object_new_double(r->load[1]));
#undef I
#undef U
#undef N
    return o;
}

static json_object *report_json(const struct eb *b, const struct eb_row *r, unsigned nr)
{
    json_object *o = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(o, "preset", json_object_new_string(b->preset));
    json_object_object_add(o, "seconds_per_cycle", json_object_new_double(b->secs));
    json_object_object_add(o, "master_cpu", json_object_new_int(b->cpu));
    json_object_object_add(o, "sim_cpu", json_object_new_int(b->busy ? b->sim_cpu : -1));
    json_object_object_add(o, "prio", json_object_new_int(b->fifo ? b->prio : 0));
    json_object_object_add(o, "fifo", json_object_new_boolean(b->fifo));
    if (!b->fifo)
        json_object_object_add(o, "fifo_note", json_object_new_string(b->fifo_note));
    json_object_object_add(o, "setup", json_object_new_string(b->setup));
    json_object_object_add(o, "stall_threshold_us", json_object_new_int64(b->stall_us));
    if (b->fault)
        json_object_object_add(o, "sim_fault", json_object_new_string(b->fault));
    for (unsigned i = 0; i < nr; i++)
        json_object_array_add(rows, row_json(&r[i]));
    json_object_object_add(o, "rows", rows);
    int64_t best = shortest_zero_loss(r, nr);
    json_object_object_add(o, "shortest_zero_loss_us", best ? json_object_new_int64(best / 1000) : NULL);
    json_object_object_add(o, "system", bench_sysinfo_json(b->takt));
    return o;
}

static int parse_cycles(struct cli_ctx *c, const char *s, int64_t *out)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (n == EB_MAX_CYCLES)
            return cli_usage_error(c, "--cycles takes at most %d values, got '%s'", EB_MAX_CYCLES, s), -1;
        if (cli_parse_long(c, "--cycles (microseconds)", t, 50, 1000000, &v))
            return -1;
        out[n++] = v * 1000;
    }
    if (!n)
        return cli_usage_error(c, "--cycles expects a comma-separated list of microseconds, got '%s'", s), -1;
    return n;
}

static int write_file_report(const struct eb *b, const struct eb_row *r, unsigned nr, json_object *j)
{
    char p[600];
    snprintf(p, sizeof p, "%s/report.md", b->out);
    FILE *f = fopen(p, "w");
    if (!f)
        return -errno;
    fprintf(f, "# takt ecat bench\n\n");
    print_table(f, b, r, nr);
    fclose(f);
    snprintf(p, sizeof p, "%s/report.json", b->out);
    return json_object_to_file_ext(p, j, JSON_C_TO_STRING_PRETTY) ? -EIO : 0;
}

static int cmd_ecat_bench(struct cli_ctx *c)
{
    static struct eb b;
    static struct eb_row rows[EB_MAX_CYCLES];
    static char exe[PATH_MAX];
    bool quick = cli_flag(c, "quick");
    int64_t cyc[EB_MAX_CYCLES] = { 1000000, 500000, 250000, 125000 };
    int nc = 4;
    const char *s;
    memset(&b, 0, sizeof b);
    memset(rows, 0, sizeof rows);
    b.c = c;
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = 0;
    b.takt = exe;
    b.preset = cli_get(c, "preset") ? cli_get(c, "preset") : "paper-40";
    b.out = cli_get(c, "out") ? cli_get(c, "out") : "takt-ecat-bench";
    b.fault = cli_get(c, "sim-fault");
    b.secs = c->time_s > 0 ? c->time_s : quick ? 3 : 60;
    b.stall_us = 100;
    if ((s = cli_get(c, "stall-us")) && cli_parse_long(c, "--stall-us", s, 1, 1000000, &b.stall_us))
        return 2;
    b.stall_fixed = s != NULL;
    if ((s = cli_get(c, "cycles")) && (nc = parse_cycles(c, s, cyc)) < 0)
        return 2;
    if (c->argc)
        return cli_usage_error(c, "no positional arguments expected, got '%s'", c->argv[0]);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* the master (and cyclictest) on the last CPU, the simulator on the first */
    b.cpu = c->cpu >= 0 ? c->cpu : ncpu > 1 ? (int)ncpu - 1 : -1;
    b.sim_cpu = b.cpu == 0 ? 1 : 0;
    if ((s = cli_get(c, "sim-cpu"))) {
        long v;
        if (cli_parse_long(c, "--sim-cpu", s, 0, 4095, &v))
            return 2;
        b.sim_cpu = (int)v;
    }
    b.prio = c->prio > 0 ? c->prio : 80;
    b.fifo = bench_fifo_allowed(b.prio, b.fifo_note, sizeof b.fifo_note);
    /* busy polling at SCHED_OTHER would only take the master's CPU time away */
    b.busy = b.fifo && ncpu > 1 && b.sim_cpu != b.cpu && !cli_flag(c, "no-busy-poll");
    if (!b.fifo)
        b.prio = 0;
    char mc[24] = "", sc[24] = "blocking in recv";
    if (b.cpu >= 0)
        snprintf(mc, sizeof mc, " on CPU %d", b.cpu);
    if (b.busy)
        snprintf(sc, sizeof sc, "busy-polling on CPU %d", b.sim_cpu);
    snprintf(b.setup, sizeof b.setup, "master and cyclictest%s at %s; simulator %s%s", mc,
             b.fifo ? "SCHED_FIFO" : "SCHED_OTHER", sc, b.fifo ? " at SCHED_FIFO" : "");
    if (b.fifo)
        snprintf(b.setup + strlen(b.setup), sizeof b.setup - strlen(b.setup), " (priority %d)", b.prio);
    else   /* cyclictest (rt-tests 2.x) exits at once when it cannot set its policy */
        snprintf(b.setup + strlen(b.setup), sizeof b.setup - strlen(b.setup),
                 " (%s; cyclictest may refuse to run without RT rights)", b.fifo_note);
    char d[600];
    static const char *const sub[] = { "", "/data", "/logs" };
    for (int i = 0; i < 3; i++) {
        snprintf(d, sizeof d, "%s%s", b.out, sub[i]);
        if (mkdir(d, 0755) && errno != EEXIST)
            return cli_error(c, "cannot create %s: %s", d, strerror(errno));
    }
    unsigned nr = 0;
    for (int i = 0; i < nc && !cli_interrupted; i++) {
        rows[nr].cycle_ns = cyc[i];
        if (cli_progress_enabled())
            fprintf(stderr, "\r\033[Ktakt ecat bench: [%d/%d] %lld us cycle for %.0f s ...", i + 1, nc,
                    (long long)(cyc[i] / 1000), b.secs);
        run_row(&b, &rows[nr++]);
    }
    if (cli_progress_enabled())
        fprintf(stderr, "\r\033[K");
    print_table(stdout, &b, rows, nr);
    json_object *j = report_json(&b, rows, nr);
    int rc = write_file_report(&b, rows, nr, j);
    if (rc)
        fprintf(stderr, "takt ecat bench: cannot write the report into %s: %s\n", b.out, strerror(-rc));
    if (c->json && cli_write_json(c, j))
        rc = -EIO;
    json_object_put(j);
    for (unsigned i = 0; i < nr; i++)
        if (!rows[i].ran)
            rc = rc ? rc : -EPROTO;
    return cli_interrupted ? 130 : rc ? 1 : 0;
}

static const struct cli_opt ecat_bench_opts[] = {
    { "quick", 0, 0, NULL, "smoke run: 3 s per cycle time instead of 60" },
    { "cycles", 0, 1, "LIST", "cycle times in us (default 1000,500,250,125)" },
    { "preset", 0, 1, "NAME", "network of takt sim ecat (default paper-40)" },
    { "out", 'o', 1, "DIR", "report directory (default takt-ecat-bench): report.md, report.json, data/, logs/" },
    { "sim-cpu", 0, 1, "CPU", "CPU the simulator busy-polls on (default: 0, or 1 when the master has 0)" },
    { "no-busy-poll", 0, 0, NULL, "let the simulator block in recv as it does by default" },
    { "sim-fault", 0, 1, "SPEC", "fault injection of the simulator (takt sim ecat --fault), e.g. drop=0.01: losses no stall explains" },
    { "stall-us", 0, 1, "US", "a simulator serving gap longer than US is a stall (default 100, but at most a quarter of the cycle)" },
    { 0 }
};

static const struct cli_common_help ecat_bench_help[] = {
    { CLI_TIME, "seconds per cycle time (default 60; 3 with --quick)" },
    { CLI_CPU,  "CPU of the master and cyclictest (default: the last CPU)" },
    { CLI_PRIO, "SCHED_FIFO priority 1..99 of the master and cyclictest (default 80)" },
    { 0 }
};

const struct cli_cmd cli_cmds_ecat_bench[] = {
    { "ecat", "bench", NULL, "the master benchmark: Task Duration, CPU, jitter and loss per cycle time",
      "For each cycle time (default 1000, 500, 250, 125 us; -t seconds each, default 60): takt sim ecat\n"
      "(--preset, default paper-40) on one end of a fresh veth pair in network namespaces,\n"
      "takt ecat run --dc on the other, cyclictest at the same interval, CPU (-a, default the last\n"
      "CPU) and priority (-p, default 80 where SCHED_FIFO is allowed) in the same window. Where\n"
      "SCHED_FIFO is allowed the simulator busy-polls on its own CPU, as an ESC never sleeps.\n"
      "Each row: Task Duration min/avg/max, CPU per cycle (the master process's over its run),\n"
      "cycle deviation p99/p99.9/max, cyclictest p99/p99.9/max, frames sent/lost (late),\n"
      "WKC errors, and every lost frame\n"
      "matched against the simulator's serving stalls and the master's wake-up deviation;\n"
      "then the shortest cycle with zero loss. Table on stdout and in DIR/report.md, JSON in\n"
      "DIR/report.json (and --json FILE), each process's JSON and log in DIR/data, DIR/logs.",
      CLI_CPU | CLI_PRIO | CLI_TIME | CLI_JSON, ecat_bench_opts, cmd_ecat_bench, ecat_bench_help },
    { 0 }
};
