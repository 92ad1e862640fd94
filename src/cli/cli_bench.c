/* takt bench: the evaluation matrix as one command (see src/bench/bench.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bench.h"
#include "cli/cli.h"

/* "3,10,20" -> values; returns count or -1 after printing the error. */
static int parse_list(struct cli_ctx *c, const char *opt, const char *s, double lo, double hi, double *out, int max)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max)
            return cli_usage_error(c, "%s takes at most %d values, got '%s'", opt, max, s), -1;
        if (cli_parse_double(c, opt, t, lo, hi, &out[n]))
            return -1;
        n++;
    }
    if (!n)
        return cli_usage_error(c, "%s expects a comma-separated list, got '%s'", opt, s), -1;
    return n;
}

/* "takt bench --quick ..." as invoked, for the report */
static void read_cmdline(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    for (size_t i = 0; n && i < n - 1; i++)
        if (!buf[i])
            buf[i] = ' ';
    size_t first = strcspn(buf, " ");
    const char *base = memrchr(buf, '/', first);   /* the binary's name, not its build path */
    if (base)
        memmove(buf, base + 1, strlen(base + 1) + 1);
}

static int run_bench(struct cli_ctx *c)
{
    static char cmdline[1024];
    read_cmdline(cmdline, sizeof cmdline);
    struct bench_opts o;
    bench_opts_default(&o, cli_flag(c, "quick"));
    char exe[PATH_MAX] = "";
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = 0;
    o.takt = exe;
    o.cmdline = cmdline;
    o.out_dir = cli_get(c, "out") ? cli_get(c, "out") : "takt-bench";
    if (c->cpu >= 0)
        o.cpu = c->cpu;
    if (c->prio > 0)
        o.prio = c->prio;
    if (cli_flag(c, "sched-other"))
        o.prio = 0;
    o.progress = cli_progress_enabled();
    o.stop = &cli_interrupted;
    double v[BENCH_MAX_CYCLES];
    const char *s;
    int n;
    if ((s = cli_get(c, "nodes"))) {
        if ((n = parse_list(c, "--nodes", s, 1, 239, v, BENCH_MAX_NODES)) < 0) return 2;
        o.n_nodes = (unsigned)n;
        for (int i = 0; i < n; i++)
            o.nodes[i] = (unsigned)v[i];
    }
    if ((s = cli_get(c, "cycles"))) {
        if ((n = parse_list(c, "--cycles (microseconds)", s, CLI_MIN_CYCLE_US, 1e6, v, BENCH_MAX_CYCLES)) < 0) return 2;
        o.n_cycles = (unsigned)n;
        for (int i = 0; i < n; i++)
            o.cycle[i] = (int64_t)(v[i] * 1000 + 0.5);
    }
    if (c->time_s > 0)
        o.cell_s = c->time_s;
    if ((s = cli_get(c, "ref-cycle"))) {
        if (cli_parse_double(c, "--ref-cycle (microseconds)", s, CLI_MIN_CYCLE_US, 1e6, &v[0])) return 2;
        o.ref_cycle = (int64_t)(v[0] * 1000 + 0.5);
    }
    if ((s = cli_get(c, "ref-cycles"))) {
        long l;
        if (cli_parse_long(c, "--ref-cycles", s, 10, 100000000, &l)) return 2;
        o.ref_cycles = (uint64_t)l;
    }
    if ((s = cli_get(c, "ct-cpu"))) {
        long l;
        if (cli_parse_long(c, "--ct-cpu", s, 0, 4095, &l)) return 2;
        o.ct_cpu = (int)l;
    }
    if ((s = cli_get(c, "sim-cpu"))) {
        long l;
        if (cli_parse_long(c, "--sim-cpu", s, 0, 4095, &l)) return 2;
        o.sim_cpu = (int)l;
    }
    if ((s = cli_get(c, "stack"))) {
        o.proto[BP_ECAT] = !strcmp(s, "ecat") || !strcmp(s, "both");
        o.proto[BP_PLK] = !strcmp(s, "plk") || !strcmp(s, "both");
        if (!o.proto[BP_ECAT] && !o.proto[BP_PLK])
            return cli_usage_error(c, "--stack expects ecat, plk or both, got '%s'", s);
    }
    if ((s = cli_get(c, "stress"))) {
        memset(o.stress, 0, sizeof o.stress);
        char buf[256];
        snprintf(buf, sizeof buf, "%s", s);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int k;
            for (k = 0; k < ST_COUNT && strcmp(t, bench_stress_name(k)); k++)
                ;
            if (k == ST_COUNT)
                return cli_usage_error(c, "--stress expects names from idle,cpu,disk,io2,network,scheduling,misc; got '%s'", t);
            o.stress[k] = true;
        }
    }
    if ((s = cli_get(c, "link")))
        o.link = s;
    o.sim_args = cli_get(c, "sim-args");
    if (c->argc)
        return cli_usage_error(c, "no positional arguments expected, got '%s'", c->argv[0]);
    char err[512] = "";
    int rc = bench_run_all(&o, err, sizeof err);
    if (rc)
        return cli_error(c, "%s", err);
    printf("takt bench: report written to %s/report.md (JSON: %s/report.json, plots: %s/plots/)\n", o.out_dir, o.out_dir,
           o.out_dir);
    return cli_interrupted ? 130 : 0;
}

static const struct cli_opt bench_opts[] = {
    { "quick", 0, 0, NULL, "a first look: 0.5 s per load cell, 4000 jitter cycles (about 1 min for EtherCAT, 2 for POWERLINK)" },
    { "out", 'o', 1, "DIR", "report directory (default takt-bench)" },
    { "nodes", 0, 1, "LIST", "node counts (default 3,10,20,40)" },
    { "cycles", 0, 1, "LIST", "cycle times in us (default 250,500,1000,2000,5000,10000)" },
    { "ref-cycle", 0, 1, "US", "cycle of the jitter runs (default 500)" },
    { "ref-cycles", 0, 1, "N", "cycles per stress scenario (default 120000; 4000 with --quick)" },
    { "stress", 0, 1, "LIST", "stress scenarios: idle,cpu,disk,io2,network,scheduling,misc (default all)" },
    { "stack", 0, 1, "WHICH", "ecat, plk or both (default both)" },
    { "ct-cpu", 0, 1, "CPU", "CPU for cyclictest (default: the stack's -a CPU)" },
    { "sim-cpu", 0, 1, "CPU", "CPU for the simulated network (default: CPU 0, or 1 when the stack is on 0)" },
    { "sched-other", 0, 0, NULL, "run everything as SCHED_OTHER (default: SCHED_FIFO at -p, 80)" },
    { "link", 0, 1, "PREFIX", "link spec prefix for the stack and network, e.g. packet:" },
    { "sim-args", 0, 1, "ARGS", "extra options of the simulated network, space-separated: faults such as '--nmt-request 0x28@255+1' (takt plk cn) or '--fault drop=0.01' (takt sim ecat), to see how the report names them" },
    { 0 }
};

static const struct cli_common_help bench_help[] = {
    { CLI_TIME, "seconds per load cell (default 10; 0.5 with --quick)" },
    { CLI_CPU,  "pin the stack and cyclictest to this CPU (default: the last CPU)" },
    { CLI_PRIO, "SCHED_FIFO priority 1..99 of the stack and cyclictest (default 80; --sched-other: none)" },
    { 0 }
};

const struct cli_cmd cli_cmds_bench[] = {
    { NULL, "bench", NULL, "the evaluation matrix: CPU load over cycle time x node count, jitter under stress",
      "For EtherCAT (takt ecat run vs takt sim ecat) and POWERLINK (takt plk mn vs takt plk cn),\n"
      "each across a veth pair in network namespaces: the CPU load of the stack's cycle thread\n"
      "for every node count and cycle time (N/A where the cycle cannot be held without loss), and\n"
      "the cycle time at a reference cycle while each stress load runs (stress-ng, hackbench, a\n"
      "parallel compile). cyclictest runs at the same interval and priority in the same run.\n"
      "-t sets the seconds per load cell (default 10; 0.5 with --quick). -a pins the stack and\n"
      "cyclictest (default: the last CPU), -p is their SCHED_FIFO priority (default 80; refused:\n"
      "a warning, SCHED_OTHER, and the report says so). Writes DIR/report.md, DIR/report.json,\n"
      "DIR/data/, DIR/logs/ and DIR/plots/ (gnuplot PNG and SVG; without gnuplot the data and\n"
      "scripts, and the report says how to render them). --sim-args passes faults to the\n"
      "simulated network; what they do inside a measured window (a POWERLINK reset, CN\n"
      "reboots, threshold firings) is named in the run's cell.",
      CLI_TIME | CLI_CPU | CLI_PRIO, bench_opts, run_bench, bench_help },
    { 0 }
};
