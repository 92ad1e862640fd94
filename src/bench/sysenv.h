/* What takt bench records beside every figure: the machine (CPU, kernel, RT, clock
 * source, command line, takt check), cyclictest at the same interval, and the load
 * generators of the stress scenarios. */
#ifndef TAKT_BENCH_SYSENV_H
#define TAKT_BENCH_SYSENV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <takt/netns.h>

/* Machine description as a json_object* (CPU model, cores, kernel, realtime,
 * clocksource, cmdline, check summary and items). */
void *bench_sysinfo_json(const char *takt_binary);
/* The same with `takt check`'s per-CPU items for the stack's CPU (-1: none). */
void *bench_sysinfo_json_cpu(const char *takt_binary, int cpu);

/* The CPU model from the text of /proc/cpuinfo (its first "model name" line); "" if
 * none. */
void bench_cpuinfo_model(const char *cpuinfo, char *model, size_t cap);

/* cyclictest run alongside a measurement. */
struct bench_ct {
    pid_t pid;
    char json_path[512];
    bool missing;              /* cyclictest not installed */
    char cmd[320];             /* the command line it ran with (for the report) */
    char log_path[520];        /* its stdout/stderr */
    int status;                /* exit status (-1: not waited for) */
    /* results (µs, as cyclictest reports them) */
    bool ok;
    uint64_t cycles;
    double min_us, avg_us, max_us;
    uint64_t hist[1001];       /* 1 µs bins 0..999 + overflow at [1000] */
};
/* Start `cyclictest -m -q -p PRIO -i US -l N -D S -a CPU -h 1000 --json=DIR/cyclictest-TAG.json`
 * (N = seconds / interval loops, -D a bound 2 s above it); prio 0 runs it without -p
 * (SCHED_OTHER), as the stack would run. Its output goes to DIR/cyclictest-TAG.log. */
int  bench_ct_start(struct bench_ct *ct, const char *dir, const char *tag, int64_t interval_ns,
                    double seconds, int prio, int cpu);
/* Wait for it (bounded) and parse its JSON. */
int  bench_ct_finish(struct bench_ct *ct, double timeout_s);
/* The results from cyclictest's JSON (a json_object*): 0, or -EPROTO when it has no
 * cycles of thread 0. */
int  bench_ct_parse(struct bench_ct *ct, void *json);

/* Stress scenarios (the OSADL load set, run with stress-ng and hackbench). */
enum bench_stress { ST_IDLE, ST_CPU, ST_DISK, ST_IO2, ST_NET, ST_SCHED, ST_MISC, ST_COUNT };
const char *bench_stress_name(enum bench_stress s);
const char *bench_stress_desc(enum bench_stress s);
struct bench_stressor {
    enum bench_stress s;
    pid_t pid[2];
    char tmpdir[256];
    char missing[64];          /* program that is missing ("" if none) */
};
/* Start the load of scenario s (ns: the namespace pair, for the network flood that must
 * stay inside it). Returns 0, or -ENOENT with st->missing set (the run goes on idle). */
int  bench_stress_start(struct bench_stressor *st, enum bench_stress s, const struct takt_netns *ns,
                        const char *workdir);
/* Is every process of the load still running? If one has exited, say which and how in
 * why (a load generator that dies at once would otherwise pass for a quiet machine). */
bool bench_stress_running(struct bench_stressor *st, char *why, size_t n);
void bench_stress_stop(struct bench_stressor *st);

#endif
