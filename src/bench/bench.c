/* takt bench orchestration: for each measurement a namespace pair, the simulated
 * network on side B, the stack on side A (each the takt binary itself, so the figures
 * are those of `takt ecat run` / `takt plk mn`), a capture at the peer end, cyclictest
 * on the host, and the stress load; then the stack's own JSON is read back. */
#include "bench/bench.h"

#include <errno.h>
#include <json-c/json.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench/analyze.h"
#include "bench/proc.h"

const char *bench_proto_name(enum bench_proto p) { return p == BP_ECAT ? "ethercat" : "powerlink"; }

void bench_opts_default(struct bench_opts *o, bool quick)
{
    memset(o, 0, sizeof *o);
    static const unsigned nodes[] = { 3, 10, 20, 40 };
    static const int64_t cycles_us[] = { 250, 500, 1000, 2000, 5000, 10000 };
    o->quick = quick;
    o->proto[BP_ECAT] = o->proto[BP_PLK] = true;
    for (unsigned i = 0; i < 4; i++)
        o->nodes[o->n_nodes++] = nodes[i];
    for (unsigned i = 0; i < 6; i++)
        o->cycle[o->n_cycles++] = cycles_us[i] * 1000;
    o->cell_s = quick ? 0.5 : 10.0;   /* quick: 50 cycles at 10 ms, enough for a first look */
    o->ref_cycle = 500000;
    o->ref_cycles = quick ? 4000 : 120000;   /* 2 s or 60 s at 500 us */
    o->ref_nodes = 10;
    for (int s = 0; s < ST_COUNT; s++)
        o->stress[s] = true;
    /* the stack (and cyclictest) on the last CPU, the simulated network elsewhere, both
     * at SCHED_FIFO 80 (the cyclictest documentation's 80-99) unless told otherwise */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->cpu = ncpu > 1 ? (int)ncpu - 1 : -1;
    o->sim_cpu = -1;
    o->ct_cpu = -1;
    o->prio = 80;
    o->link = "";
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void bench_add_note(struct bench_run *r, const char *fmt, ...)
{
    size_t l = strlen(r->note);
    if (l && l + 2 < sizeof r->note)
        l += (size_t)snprintf(r->note + l, sizeof r->note - l, "; ");
    va_list ap;
    va_start(ap, fmt);
    if (l < sizeof r->note)
        vsnprintf(r->note + l, sizeof r->note - l, fmt, ap);
    va_end(ap);
}

/* First value of `key` anywhere in a JSON tree (depth first). */
static json_object *find_key(json_object *j, const char *key)
{
    if (!j)
        return NULL;
    if (json_object_is_type(j, json_type_object)) {
        json_object *v;
        if (json_object_object_get_ex(j, key, &v))
            return v;
        json_object_object_foreach(j, k, child) {
            (void)k;
            if ((v = find_key(child, key)))
                return v;
        }
    } else if (json_object_is_type(j, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(j); i++) {
            json_object *v = find_key(json_object_array_get_idx(j, i), key);
            if (v)
                return v;
        }
    }
    return NULL;
}

static int64_t get_i64(json_object *j, const char *key, int64_t dflt)
{
    json_object *v = find_key(j, key);
    return v && !json_object_is_type(v, json_type_null) ? json_object_get_int64(v) : dflt;
}

/* The stack's JSON report: counts, CPU time and its Cycle Time measurement. */
static void read_stack_json(struct bench_run *r, const char *path)
{
    json_object *root = json_object_from_file(path), *j = root, *win;
    if (!root) {
        bench_add_note(r, "the stack wrote no JSON report");
        return;
    }
    /* a stack run with --measure reports the steady window (boot excluded) apart */
    if (json_object_object_get_ex(root, "measure", &win)) {
        j = win;
        r->wall_from = get_i64(win, "start_realtime_ns", 0);
        r->wall_to = get_i64(win, "end_realtime_ns", 0);
    }
    /* `takt ecat run` and `takt plk mn` name some figures differently */
    r->cycles = (uint64_t)get_i64(j, "cycles", 0);
    r->lost = (uint64_t)get_i64(j, "frames_lost", get_i64(j, "pres_lost_total", get_i64(j, "pres_lost", 0)));
    r->overruns = (uint64_t)get_i64(j, "overruns", 0);
    r->wkc_errors = (uint64_t)get_i64(j, "wkc_errors", 0);
    int64_t cpu = get_i64(j, "cpu_ns", -1);
    double per_cycle_ns = cpu >= 0 && r->cycles ? (double)cpu / (double)r->cycles : -1;
    if (per_cycle_ns < 0 && find_key(j, "cpu_us_per_cycle"))
        per_cycle_ns = json_object_get_double(find_key(j, "cpu_us_per_cycle")) * 1000.0;
    if (per_cycle_ns < 0 && find_key(j, "cpu_per_cycle_ns"))
        per_cycle_ns = (double)get_i64(j, "cpu_per_cycle_ns", 0);
    json_object *cpc = find_key(j, "CPU per Cycle");
    if (per_cycle_ns < 0 && cpc)
        per_cycle_ns = (double)get_i64(cpc, "avg_ns", 0);
    if (per_cycle_ns >= 0) {
        r->cpu_us_per_cycle = per_cycle_ns / 1000.0;
        r->cpu_pct = 100.0 * per_cycle_ns / (double)r->cycle_ns;
    }
    json_object *ct = find_key(j, "Cycle Time");
    if (!ct)
        ct = find_key(j, "SoC Period");
    if (ct) {
        takt_perf_stat_reset(&r->period);
        r->period.count = (uint64_t)get_i64(ct, "count", 0);
        r->period.min = get_i64(ct, "min_ns", 0);
        r->period.max = get_i64(ct, "max_ns", 0);
        r->period.sum = get_i64(ct, "avg_ns", 0) * (int64_t)r->period.count;
        /* null: the percentile lies above the histogram's top (-1 here, "> top" in the report) */
        r->p50 = get_i64(ct, "p50_ns", -1);
        r->p99 = get_i64(ct, "p99_ns", -1);
        r->p999 = get_i64(ct, "p99_9_ns", -1);
        json_object *h = find_key(ct, "hist"), *bins = h ? find_key(h, "bins") : NULL;
        if (bins && r->hist.bins) {
            int64_t bw = get_i64(h, "bin_ns", 1000);
            for (size_t i = 0; i < json_object_array_length(bins); i++) {
                json_object *p = json_object_array_get_idx(bins, i);
                int64_t v = json_object_get_int64(json_object_array_get_idx(p, 0));
                uint64_t n = (uint64_t)json_object_get_int64(json_object_array_get_idx(p, 1));
                /* re-bin into 1 us bins from 0 (value = bin start + half a bin) */
                int64_t mid = v + bw / 2;
                for (uint64_t k = 0; k < n; k++)
                    takt_perf_hist_add(&r->hist, mid);
            }
            r->hist.under += (uint64_t)get_i64(h, "under", 0);
            r->hist.over += (uint64_t)get_i64(h, "over", 0);
            r->hist.total += (uint64_t)get_i64(h, "under", 0) + (uint64_t)get_i64(h, "over", 0);
        }
    }
    json_object_put(root);
}

/* Wire view of the run from the capture at the peer end; also writes the deviation
 * time series (seconds since the first cycle, deviation in us) for the plots. */
static void read_capture(struct bench_run *r, const char *series_path)
{
    struct analyze a;
    struct an_opts ao = { .cycle_ns = r->cycle_ns, .bin_ns = 1000, .range_ns = r->cycle_ns,
                          .from_ns = r->wall_from, .to_ns = r->wall_to };
    analyze_init(&a, &ao);
    int64_t prec;
    char err[256];
    struct an_result res;
    if (analyze_file(&a, r->capture, &prec, err, sizeof err) == 0 && analyze_finish(&a, &res) == 0) {
        r->wire = res.period;
        r->wire_cycles = res.cycles;
        r->wire_lost = res.lost;
        analyze_result_free(&res);
        FILE *f = fopen(series_path, "w");
        for (size_t i = 1; f && i < a.nts; i++)
            fprintf(f, "%.6f %.3f\n", (double)(a.ts[i] - a.ts[0]) / 1e9,
                    (double)(a.ts[i] - a.ts[i - 1] - r->cycle_ns) / 1000.0);
        if (f)
            fclose(f);
    }
    analyze_free(&a);
}

/* Time a stack may take to bring every node up before its measured window: POWERLINK
 * configures each CN over SDO in the async slots (about 40 cycles per CN). EtherCAT
 * runs -t in all; its start-up (tens of ms) is inside it. */
static double bench_boot_s(const struct bench_run *r)
{
    if (r->proto != BP_PLK)
        return 0;
    return 3.0 + (double)r->nodes * 40.0 * (double)r->cycle_ns / 1e9;
}

int bench_sim_cpu(const struct bench_opts *o)
{
    if (o->sim_cpu >= 0)
        return o->sim_cpu;
    return o->cpu >= 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? (o->cpu == 0 ? 1 : 0) : -1;
}

/* argv of the simulated network (side B) and of the stack (side A). */
static void build_argv(const struct bench_opts *o, const struct bench_run *r, const char *ifa, const char *ifb,
                       const char *json, char **sim, char **stack, char (*buf)[600])
{
    int b = 0, n = 0, m = 0;
#define ARG(v) (snprintf(buf[b], sizeof buf[b], "%s", (v)), buf[b++])
#define ARGF(...) (snprintf(buf[b], sizeof buf[b], __VA_ARGS__), buf[b++])
    sim[n++] = ARG(o->takt);
    stack[m++] = ARG(o->takt);
    if (r->proto == BP_ECAT) {
        sim[n++] = "sim";
        sim[n++] = "ecat";
        sim[n++] = "-i";
        sim[n++] = ARGF("%s%s", o->link, ifb);
        sim[n++] = "--preset";
        sim[n++] = ARGF("paper-%u", r->nodes);
        stack[m++] = "ecat";
        stack[m++] = "run";
        stack[m++] = "--dc";
    } else {
        sim[n++] = "plk";
        sim[n++] = "cn";
        sim[n++] = "-i";
        sim[n++] = ARGF("%s%s", o->link, ifb);
        sim[n++] = "--nodes";
        sim[n++] = ARGF("1-%u", r->nodes);
        stack[m++] = "plk";
        stack[m++] = "mn";
        stack[m++] = "--nodes";
        stack[m++] = ARGF("1-%u", r->nodes);
        stack[m++] = "--boot-wait";   /* nothing else on this veth: no other MN to listen for */
        stack[m++] = "50";
        stack[m++] = "--measure";
        stack[m++] = ARGF("%.3f", r->seconds);
        stack[m++] = "-v";   /* its progress lines tell the bench when the boot is over */
    }
    stack[m++] = "-i";
    stack[m++] = ARGF("%s%s", o->link, ifa);
    stack[m++] = "-c";
    stack[m++] = ARGF("%lld", (long long)(r->cycle_ns / 1000));
    stack[m++] = "-t";
    stack[m++] = ARGF("%.3f", r->seconds + bench_boot_s(r));
    stack[m++] = "--json";
    stack[m++] = ARG(json);
    if (o->prio > 0) {   /* the simulated network must not be what fails first */
        sim[n++] = "-p";
        sim[n++] = ARGF("%d", o->prio);
    }
    int scpu = bench_sim_cpu(o);
    if (scpu >= 0) {     /* off the stack's CPU: its load is the stack's alone */
        sim[n++] = "-a";
        sim[n++] = ARGF("%d", scpu);
    }
    /* --sim-args: faults of the simulated network (takt sim ecat --fault ..., takt plk cn
     * --vanish/--nmt-request ...), to see how the report names what they do */
    if (o->sim_args && *o->sim_args) {
        char *save = NULL, *t = strtok_r(ARG(o->sim_args), " ", &save);
        for (; t && n < 22; t = strtok_r(NULL, " ", &save))
            sim[n++] = t;
    }
    if (o->cpu >= 0) {
        stack[m++] = "-a";
        stack[m++] = ARGF("%d", o->cpu);
    }
    if (o->prio > 0) {
        stack[m++] = "-p";
        stack[m++] = ARGF("%d", o->prio);
    }
    sim[n] = NULL;
    stack[m] = NULL;
#undef ARG
#undef ARGF
}

/* Start the run's stress load; a missing load generator is noted and the run goes on. */
static void start_load(const struct bench_opts *o, struct bench_run *r, struct bench_stressor *st,
                       const struct takt_netns *ns)
{
    int rc = bench_stress_start(st, r->stress, ns, o->out_dir);
    r->load_ran = rc == 0;
    snprintf(r->load_cmd, sizeof r->load_cmd, "%s", bench_stress_desc(r->stress));
    if (rc == -ENOENT)
        bench_add_note(r, "%s is not installed (apt install %s): ran without this load", st->missing,
                 bench_package_of(st->missing));
    else if (rc)
        bench_add_note(r, "the %s load could not be started (%s): ran without it", bench_stress_name(r->stress),
                 strerror(-rc));
}

/* The capture's last line: "takt capture: N frames written to F, D dropped by the kernel". */
static long capture_drops(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[700];
    long drops = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " dropped by the kernel");
        const char *c = p ? strrchr(line, ',') : NULL;
        if (c && c < p)
            drops = strtol(c + 1, NULL, 10);
    }
    if (f)
        fclose(f);
    return drops;
}

/* Wait (bounded) until the stack's log holds a line with `want`: `takt plk mn -v` logs
 * "MN OPERATIONAL, n of n CNs operational", `takt ecat run` "all n slaves in OP". */
static void wait_log_line(const char *log, const char *want, double timeout_s)
{
    char line[512];
    for (double t0 = now_s(); now_s() - t0 < timeout_s;) {
        FILE *f = fopen(log, "r");
        bool found = false;
        while (f && !found && fgets(line, sizeof line, f))
            found = strstr(line, want) != NULL;
        if (f)
            fclose(f);
        if (found)
            return;
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
    }
}

/* Wait (10 ms steps, bounded) until a child has written something to path. */
static void wait_nonempty(const char *path, pid_t pid, int tries)
{
    struct stat sb;
    for (int i = 0; i < tries && pid > 0 && (stat(path, &sb) || sb.st_size == 0); i++)
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
}

/* `takt capture` at the network's end. Under load a SCHED_OTHER capture falls behind and
 * the kernel drops frames: it runs real-time too, below the stack and the network (chrt,
 * where SCHED_FIFO is allowed). Returns once the capture is live. */
static pid_t start_capture(const struct bench_opts *o, struct bench_run *r, const struct takt_netns *ns,
                           const char *tag, const char *log)
{
    snprintf(r->capture, sizeof r->capture, "%s/data/%s.pcapng", o->out_dir, tag);
    char t[32], cprio[16], chrt[512];
    snprintf(t, sizeof t, "%.1f", r->seconds + bench_boot_s(r) + 30);
    snprintf(cprio, sizeof cprio, "%d", o->prio > 10 ? o->prio - 10 : 1);
    char *cap[] = { "chrt", "-f", cprio, (char *)o->takt, "capture", "-i", (char *)ns->ifname[1], "-t", t, "-o",
                    r->capture, NULL };
    bool rt_cap = o->prio > 0 && bench_which("chrt", chrt, sizeof chrt);
    pid_t pid = bench_spawn(rt_cap ? cap : cap + 3, ns, TAKT_NETNS_B, log);
    /* the file header is written once libpcap is active: the first cycles are not missed */
    wait_nonempty(r->capture, pid, 500);
    return pid;
}

/* After the run: the stack's figures, the wire, and whether the cycle was held. */
static void judge_run(const struct bench_opts *o, struct bench_run *r, int rc, const char *tag, const char *json,
                      const char *log_cap, const char *log_stack)
{
    bool capture = r->capture[0] != 0;
    read_stack_json(r, json);
    if (r->proto == BP_PLK)
        bench_plk_events_read(r, json, log_stack);
    if (capture && bench_run_happened(r, rc)) {
        char series[600];
        snprintf(series, sizeof series, "%s/plots/%s-series.dat", o->out_dir, tag);
        read_capture(r, series);
        r->capture_drops = capture_drops(log_cap);
        if (r->capture_drops > 0)
            bench_add_note(r, "the capture lost %ld frames in the kernel: the wire figures have gaps that were not on the wire",
                     r->capture_drops);
    }
    bench_judge(r, rc, capture, tag);
}

static void run_one(const struct bench_opts *o, struct bench_run *r, const char *tag, bool capture)
{
    char why[256], json[512], log_sim[512], log_stack[512], log_cap[512], data[520];
    struct takt_netns ns;
    memset(&ns, 0, sizeof ns);
    ns.ctl[0] = ns.ctl[1] = -1;
    takt_perf_hist_init(&r->hist, 0, 1000, (uint32_t)(r->cycle_ns * 4 / 1000 + 1000));
    if (takt_netns_create(&ns, why, sizeof why)) {
        bench_add_note(r, "no namespace pair: %.200s", why);
        return;
    }
    snprintf(json, sizeof json, "%s/data/%s.json", o->out_dir, tag);
    snprintf(log_sim, sizeof log_sim, "%s/logs/%s-network.log", o->out_dir, tag);
    snprintf(log_stack, sizeof log_stack, "%s/logs/%s-stack.log", o->out_dir, tag);
    snprintf(log_cap, sizeof log_cap, "%s/logs/%s-capture.log", o->out_dir, tag);
    snprintf(data, sizeof data, "%s/data", o->out_dir);
    r->capture_drops = -1;
    unlink(json);
    char *sim[24], *stack[32], buf[40][600];
    build_argv(o, r, ns.ifname[0], ns.ifname[1], json, sim, stack, buf);

    /* POWERLINK boots its CNs over SDO for seconds: the load and cyclictest cover the MN's
     * measured window (it starts once every CN is Operational), not the boot */
    bool after_boot = r->proto == BP_PLK;
    struct bench_stressor st;
    memset(&st, 0, sizeof st);
    if (!after_boot)
        start_load(o, r, &st, &ns);

    pid_t psim = bench_spawn(sim, &ns, TAKT_NETNS_B, log_sim);
    /* the network prints its first line once its link is open; its real-time set-up
     * (mlockall, pre-faulting) follows, and a loaded machine makes that take 100+ ms: the
     * master's first scan frames must not time out waiting for it (seen at 20 ms) */
    wait_nonempty(log_sim, psim, 100);
    nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
    pid_t pcap = capture ? start_capture(o, r, &ns, tag, log_cap) : 0;
    int ct_cpu = o->ct_cpu >= 0 ? o->ct_cpu : o->cpu;
    pid_t pstack = bench_spawn(stack, &ns, TAKT_NETNS_A, log_stack);
    /* cyclictest measures the OS beside the running cycle, not the stack's start-up (its
     * scan, configuration and real-time set-up at the same priority on the same CPU
     * showed up as ms in cyclictest's max): it starts when the network is up */
    char want[96];
    if (after_boot)
        snprintf(want, sizeof want, "MN OPERATIONAL, %u of %u CNs operational", r->nodes, r->nodes);
    else
        snprintf(want, sizeof want, "all %u slaves in OP", r->nodes);
    if (pstack > 0)
        wait_log_line(log_stack, want, bench_boot_s(r) + 5);
    if (after_boot && pstack > 0)
        start_load(o, r, &st, &ns);
    if (pstack > 0)
        bench_ct_start(&r->ct, data, tag, r->cycle_ns, r->seconds, o->prio, ct_cpu);
    int rc = pstack > 0 ? bench_wait(pstack, r->seconds + bench_boot_s(r) + 60) : (int)pstack;
    if (rc == -ETIMEDOUT) {
        bench_stop(pstack, 2);
        bench_add_note(r, "the stack did not finish within %.0f s (see logs/%.60s-stack.log)",
                 r->seconds + bench_boot_s(r) + 60, tag);
    }
    bench_ct_finish(&r->ct, 5);
    if (pcap > 0)
        bench_stop(pcap, 2);
    bench_stop(psim, 2);
    char dead[200];
    if (r->load_ran && !bench_stress_running(&st, dead, sizeof dead)) {
        r->load_ran = false;
        bench_add_note(r, "%s", dead);
    }
    bench_stress_stop(&st);
    takt_netns_destroy(&ns);
    judge_run(o, r, rc, tag, json, log_cap, log_stack);
}

/* Can this process get SCHED_FIFO at the asked priority? Tried in a child. */
bool bench_fifo_allowed(int prio, char *note, size_t n)
{
    if (prio <= 0) {
        snprintf(note, n, "priority 0: the stack, the simulated network and cyclictest ran as SCHED_OTHER");
        return false;
    }
    pid_t pid = fork();
    if (pid == 0) {
        struct sched_param sp = { .sched_priority = prio };
        _exit(sched_setscheduler(0, SCHED_FIFO, &sp) == 0 ? 0 : 1);
    }
    int st = 1;
    if (pid > 0)
        waitpid(pid, &st, 0);
    bool ok = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok)
        snprintf(note, n, "SCHED_FIFO %d refused (needs CAP_SYS_NICE or an rtprio limit): measured as SCHED_OTHER", prio);
    return ok;
}

/* The first time cyclictest fails (rt-tests 2.x exits at once without real-time rights,
 * whatever the policy asked), keep its own words for the report. */
static void note_ct_failure(struct bench_all *a, const struct bench_run *r)
{
    if (a->ct_note[0] || r->ct.missing || r->ct.ok || r->ct.status < 0)
        return;
    char line[200] = "";
    FILE *f = fopen(r->ct.log_path, "r");
    if (f && fgets(line, sizeof line, f))
        line[strcspn(line, "\n")] = 0;
    if (f)
        fclose(f);
    snprintf(a->ct_note, sizeof a->ct_note, "cyclictest exited with status %d%s%s%s", r->ct.status,
             line[0] ? " (\"" : "", line, line[0] ? "\")" : "");
}

static void progress(const struct bench_opts *o, unsigned done, unsigned total, const char *what)
{
    if (o->progress)
        fprintf(stderr, "\r\033[Ktakt bench: [%u/%u] %s", done, total, what);
}

int bench_run_all(const struct bench_opts *asked, char *err, size_t errlen)
{
    struct bench_opts eo = *asked;
    const struct bench_opts *o = &eo;
    char d[600];
    const char *sub[] = { "", "/data", "/logs", "/plots" };
    for (int i = 0; i < 4; i++) {
        snprintf(d, sizeof d, "%s%s", o->out_dir, sub[i]);
        if (mkdir(d, 0755) && errno != EEXIST)
            return snprintf(err, errlen, "cannot create %s: %s", d, strerror(errno)), -errno;
    }
    struct bench_all a = { .o = o };
    a.fifo_ok = bench_fifo_allowed(o->prio, a.fifo_note, sizeof a.fifo_note);
    if (!a.fifo_ok && o->prio > 0) {
        /* measure anyway, as SCHED_OTHER everywhere: cyclictest would refuse -p outright */
        fprintf(stderr, "takt bench: warning: %s; the report is marked\n", a.fifo_note);
        eo.prio = 0;
    }
    a.sysinfo = bench_sysinfo_json_cpu(o->takt, o->cpu);
    time_t now = time(NULL);
    strftime(a.date, sizeof a.date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    unsigned np = 0;
    for (int p = 0; p < BP_COUNT; p++)
        np += o->proto[p];
    unsigned ns = 0;
    for (int s = 0; s < ST_COUNT; s++)
        ns += o->stress[s];
    a.load = calloc((size_t)np * o->n_nodes * o->n_cycles + 1, sizeof *a.load);
    a.jit = calloc((size_t)np * ST_COUNT + 1, sizeof *a.jit);
    if (!a.load || !a.jit) {
        free(a.load);
        free(a.jit);
        return -ENOMEM;
    }
    unsigned total = np * (o->n_nodes * o->n_cycles + ns), done = 0;
    char tag[128], what[160];
    for (int p = 0; p < BP_COUNT; p++) {
        if (!o->proto[p])
            continue;
        for (unsigned ni = 0; ni < o->n_nodes; ni++)
            for (unsigned ci = 0; ci < o->n_cycles && !(o->stop && *o->stop); ci++) {
                struct bench_run *r = &a.load[a.n_load++];
                *r = (struct bench_run){ .proto = p, .nodes = o->nodes[ni], .cycle_ns = o->cycle[ci],
                                         .stress = ST_IDLE, .seconds = o->cell_s };
                snprintf(tag, sizeof tag, "load-%s-%u-%lldus", bench_proto_name(p), r->nodes, (long long)(r->cycle_ns / 1000));
                snprintf(what, sizeof what, "%s %u nodes at %lld us", bench_proto_name(p), r->nodes, (long long)(r->cycle_ns / 1000));
                progress(o, ++done, total, what);
                run_one(o, r, tag, false);
                note_ct_failure(&a, r);
            }
        for (int s = 0; s < ST_COUNT; s++) {
            if (!o->stress[s] || (o->stop && *o->stop))
                continue;
            struct bench_run *r = &a.jit[a.n_jit++];
            *r = (struct bench_run){ .proto = p, .nodes = o->ref_nodes, .cycle_ns = o->ref_cycle, .stress = s,
                                     .seconds = (double)o->ref_cycles * (double)o->ref_cycle / 1e9 };
            snprintf(tag, sizeof tag, "jitter-%s-%s", bench_proto_name(p), bench_stress_name(s));
            snprintf(what, sizeof what, "%s jitter under %s load", bench_proto_name(p), bench_stress_name(s));
            progress(o, ++done, total, what);
            run_one(o, r, tag, true);
            note_ct_failure(&a, r);
            if (r->note[0] && strstr(r->note, "not installed") && !strstr(a.missing, bench_stress_name(s))) {
                size_t l = strlen(a.missing);
                snprintf(a.missing + l, sizeof a.missing - l, "%s%s", l ? "; " : "", r->note);
            }
        }
    }
    if (o->progress)
        fprintf(stderr, "\r\033[K");
    int rc = bench_write_report(&a, err, errlen);
    for (unsigned i = 0; i < a.n_load; i++)
        takt_perf_hist_free(&a.load[i].hist);
    for (unsigned i = 0; i < a.n_jit; i++)
        takt_perf_hist_free(&a.jit[i].hist);
    free(a.load);
    free(a.jit);
    json_object_put(a.sysinfo);
    return rc;
}
