/* takt bench's report from made-up runs: the tables say N/A exactly where a cell was
 * not held (with its reason), small loads as "<1 (x.xx)", a percentile above the
 * histogram as "> top", cyclictest beside every figure; the plot data equal the
 * histograms; without gnuplot the report says how to render the scripts it wrote. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench/bench.h"

static char dir[256];

static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* A run with `n` periods spread over bins around the cycle. */
static void fill(struct bench_run *r, enum bench_proto p, unsigned nodes, int64_t cyc, uint64_t n)
{
    *r = (struct bench_run){ .proto = p, .nodes = nodes, .cycle_ns = cyc, .seconds = 1.0, .ran = true, .held = true,
                             .cycles = n + 1, .capture_drops = -1 };
    takt_perf_hist_init(&r->hist, 0, 1000, (uint32_t)(cyc * 4 / 1000 + 1000));
    takt_perf_stat_reset(&r->period);
    for (uint64_t i = 0; i < n; i++) {
        int64_t v = cyc + (int64_t)(i % 7) * 1000 - 3000;
        takt_perf_hist_add(&r->hist, v);
        takt_perf_stat_add(&r->period, v);
    }
    r->p50 = cyc;
    r->p99 = cyc + 3000;
    r->p999 = cyc + 3000;
    r->cpu_pct = 12.345;
    r->cpu_us_per_cycle = 12.345 * (double)cyc / 100000.0;
    r->ct = (struct bench_ct){ .ok = true, .cycles = n, .min_us = 2, .avg_us = 5, .max_us = 77, .status = 0 };
    snprintf(r->ct.cmd, sizeof r->ct.cmd, "cyclictest -m -q -i%lld", (long long)(cyc / 1000));
}

static void report_reads_as_it_should(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/takt-bench-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/plots", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof sub, "%s/logs", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    setenv("PATH", "/nonexistent", 1);   /* no gnuplot: scripts and data only */

    struct bench_opts o;
    bench_opts_default(&o, true);
    o.out_dir = dir;
    o.proto[BP_PLK] = false;
    o.n_nodes = 2;                    /* 3, 10 */
    o.n_cycles = 2;                   /* 250, 500 us */
    o.cpu = 1;
    struct bench_run load[4], jit[2];
    fill(&load[0], BP_ECAT, 3, 250000, 100);
    fill(&load[1], BP_ECAT, 3, 500000, 100);
    load[1].cpu_pct = 0.5;
    fill(&load[2], BP_ECAT, 10, 250000, 100);
    load[2].held = false;
    load[2].lost = 7;
    snprintf(load[2].note, sizeof load[2].note, "not held: 7 of 101 cycles lost a frame");
    fill(&load[3], BP_ECAT, 10, 500000, 100);
    load[3].ct.ok = false;
    fill(&jit[0], BP_ECAT, 10, 500000, 1000);
    jit[0].stress = ST_IDLE;
    fill(&jit[1], BP_ECAT, 10, 500000, 1000);
    jit[1].stress = ST_CPU;
    jit[1].p999 = -1;                 /* above the histogram */
    takt_perf_hist_add(&jit[1].hist, 9000000);
    takt_perf_stat_add(&jit[1].period, 9000000);
    jit[1].cycles++;
    snprintf(jit[1].load_cmd, sizeof jit[1].load_cmd, "stress-ng --cpu 0");
    jit[1].load_ran = true;
    json_object *sys = json_object_new_object();
    json_object_object_add(sys, "cpu_model", json_object_new_string("Test CPU 3000"));
    json_object_object_add(sys, "cpus_online", json_object_new_int(2));
    json_object_object_add(sys, "preempt_rt", json_object_new_boolean(0));
    struct bench_all a = { .o = &o, .load = load, .n_load = 4, .jit = jit, .n_jit = 2, .sysinfo = sys, .fifo_ok = true };
    snprintf(a.date, sizeof a.date, "today");
    char err[256] = "";
    assert_int_equal(bench_write_report(&a, err, sizeof err), 0);

    char *md = slurp("report.md");
    assert_non_null(strstr(md, "### Table 2: CPU load of the EtherCAT master"));
    assert_null(strstr(md, "Table 3"));
    assert_non_null(strstr(md, "| 250 µs | 12.3 | N/A |"));
    assert_non_null(strstr(md, "| 500 µs | <1 (0.50) | 12.3 |"));
    assert_non_null(strstr(md, "- 10 nodes, 250 µs: not held: 7 of 101 cycles lost a frame"));
    assert_non_null(strstr(md, "| 500 µs | 77 | no result |"));   /* cyclictest beside it, why not where it failed */
    assert_non_null(strstr(md, "| CPU model | Test CPU 3000 |"));
    assert_non_null(strstr(md, "| PREEMPT_RT | **no**"));
    assert_non_null(strstr(md, "SCHED_FIFO priority 80"));
    assert_non_null(strstr(md, "| Stack CPU | 1 (cyclictest on 1) |"));
    /* cpu row: 1001 periods of which one above the 3 ms histogram */
    assert_non_null(strstr(md, "| cpu | 1002 / 2000 | 497.0 | 9000.0 | 8500.0 | 500.0 | 503.0 | > 3000 | 0 | - | 5 / 77 |"));
    assert_non_null(strstr(md, "gnuplot is not installed (apt install gnuplot-nox)"));
    assert_non_null(strstr(md, "&& gnuplot ethercat-png.gp ethercat-svg.gp"));
    assert_null(strstr(md, "powerlink-png.gp"));

    /* the plot data hold the histograms (in-range bins) */
    char *dat = slurp("plots/jitter-ethercat-cpu-hist.dat");
    unsigned long long sum = 0, b, c;
    for (char *l = strchr(dat, '\n') + 1; l && sscanf(l, "%llu %llu", &b, &c) == 2; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        sum += c;
    assert_int_equal(sum, 1000);
    assert_non_null(strstr(dat, "1 above the range"));
    char *gp = slurp("plots/ethercat-png.gp");
    assert_non_null(strstr(gp, "set logscale y"));
    assert_non_null(strstr(gp, "set output 'hist-ethercat-cpu.png'"));
    assert_non_null(strstr(gp, "set multiplot"));
    assert_null(strstr(gp, "no cell held"));
    assert_non_null(strstr(slurp("plots/load-ethercat-3nodes.dat"), "\n250 12.345\n500 0.500\n"));
    /* 10 nodes: N/A at 250 us, so its line starts at 500 */
    assert_non_null(strstr(slurp("plots/load-ethercat-10nodes.dat"), "N/A)\n500 12.345\n"));

    json_object *j = json_object_from_file(strcat(strcpy(sub, dir), "/report.json")), *v;
    assert_non_null(j);
    assert_true(json_object_object_get_ex(j, "load", &v));
    assert_int_equal(json_object_array_length(v), 4);
    assert_true(json_object_object_get_ex(j, "plots_rendered", &v));
    assert_false(json_object_get_boolean(v));
    json_object_put(j);
    json_object_put(sys);
    for (int i = 0; i < 4; i++)
        takt_perf_hist_free(&load[i].hist);
    for (int i = 0; i < 2; i++)
        takt_perf_hist_free(&jit[i].hist);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "/bin/rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void refused_fifo_marks_the_report(void **state)
{
    (void)state;
    char note[256];
    /* as root this is allowed; the report side is what matters: a refusal is marked */
    snprintf(dir, sizeof dir, "/tmp/takt-bench-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/plots", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    setenv("PATH", "/nonexistent", 1);
    struct bench_opts o;
    bench_opts_default(&o, true);
    o.out_dir = dir;
    o.n_nodes = o.n_cycles = 0;
    o.prio = 0;
    assert_false(bench_fifo_allowed(0, note, sizeof note));
    struct bench_all a = { .o = &o, .sysinfo = json_object_new_object(), .fifo_ok = false };
    snprintf(a.fifo_note, sizeof a.fifo_note, "SCHED_FIFO 80 refused (needs CAP_SYS_NICE)");
    char err[256];
    assert_int_equal(bench_write_report(&a, err, sizeof err), 0);
    char *md = slurp("report.md");
    assert_non_null(strstr(md, "Warning: not real-time scheduled.** SCHED_FIFO 80 refused"));
    assert_non_null(strstr(md, "| Scheduling | **SCHED_OTHER**"));
    /* no held cell: fixed axes, or gnuplot stops the whole script at the load plot */
    assert_non_null(strstr(slurp("plots/ethercat-png.gp"), "no cell held its cycle"));
    json_object_put(a.sysinfo);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "/bin/rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void sim_goes_to_another_cpu(void **state)
{
    (void)state;
    struct bench_opts o;
    bench_opts_default(&o, false);
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    o.cpu = 0;
    assert_int_equal(bench_sim_cpu(&o), 1);
    o.cpu = 1;
    assert_int_equal(bench_sim_cpu(&o), 0);
    o.sim_cpu = 5;
    assert_int_equal(bench_sim_cpu(&o), 5);
    o.sim_cpu = -1;
    o.cpu = -1;
    assert_int_equal(bench_sim_cpu(&o), -1);
}

static void mkout(void)
{
    snprintf(dir, sizeof dir, "/tmp/takt-bench-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/plots", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof sub, "%s/logs", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    setenv("PATH", "/nonexistent", 1);
}

static void rmout(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "/bin/rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The section of report.md from `from` to the next "### " (or the end), copied. */
static char *section(const char *md, const char *from)
{
    static char buf[1 << 16];
    const char *s = strstr(md, from);
    assert_non_null(s);
    const char *e = strstr(s + 4, "### ");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    n = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return buf;
}

/* A POWERLINK run in which the network was reset inside the measured window (NMTResetNode,
 * the SoC stream stopped 10.5 ms, every CN booted twice) is named as such in its cells,
 * with no word of working counters; the wire's 10.5 ms max beside the stack's is explained. */
static void plk_reset_in_window_is_named(void **state)
{
    (void)state;
    mkout();
    struct bench_opts o;
    bench_opts_default(&o, true);
    o.out_dir = dir;
    o.proto[BP_ECAT] = false;
    o.n_nodes = 1;                    /* 3 */
    o.n_cycles = 1;                   /* 250 us */
    struct bench_run load[1], jit[1];
    fill(&load[0], BP_PLK, 3, 250000, 3959);
    fill(&jit[0], BP_PLK, 10, 500000, 3959);
    for (int i = 0; i < 2; i++) {
        struct bench_run *r = i ? &jit[0] : &load[0];
        r->lost = 52;
        r->ev = (struct bench_plk_events){ .reboots = 3, .nodes_rebooted = 3, .nodes = 3, .resets = 3, .loss_thr = 3,
                                           .in_window = 1 };
        snprintf(r->ev.last_reset, sizeof r->ev.last_reset, "CN 3: loss of PRes threshold");
        r->wire_cycles = r->cycles;
        takt_perf_stat_reset(&r->wire);
        takt_perf_stat_add(&r->wire, r->cycle_ns - 2000);
        takt_perf_stat_add(&r->wire, 10500000);
        r->ran = r->held = false;
        bench_judge(r, 0, true, "t");
        assert_false(r->held);        /* 52 of 3960 alone would pass the 0.1 % rule... */
    }
    /* ...and so would this one, but a reset inside the window is no held cycle */
    struct bench_run quiet;
    fill(&quiet, BP_PLK, 3, 250000, 100000);
    quiet.lost = 1;
    quiet.ev = load[0].ev;
    bench_judge(&quiet, 0, false, "q");
    assert_false(quiet.held);
    assert_non_null(strstr(quiet.note, "POWERLINK network reset inside the measured window"));
    /* the same counts from the boot, before the window: named, and the cell held */
    quiet.note[0] = 0;
    quiet.ev.in_window = 0;
    bench_judge(&quiet, 0, false, "q");
    assert_true(quiet.held);
    assert_non_null(strstr(quiet.note, "while booting, before the measured window"));
    takt_perf_hist_free(&quiet.hist);

    struct bench_all a = { .o = &o, .load = load, .n_load = 1, .jit = jit, .n_jit = 1,
                           .sysinfo = json_object_new_object(), .fifo_ok = true };
    char err[256] = "";
    assert_int_equal(bench_write_report(&a, err, sizeof err), 0);
    char *md = slurp("report.md");
    char *t3 = section(md, "### Table 3");
    assert_non_null(strstr(t3, "- 3 nodes, 250 µs: 52 of 3960 cycles lost a PRes (1.31 %), 0 overran (0.00 %); "
                               "POWERLINK network reset inside the measured window: 3 of 3 CNs booted again (3 reboots), "
                               "the MN reset CNs 3 times, the loss-of-PRes threshold fired 3 times (last reset: CN 3: "
                               "loss of PRes threshold)"));
    assert_null(strstr(t3, "WKC"));
    assert_null(strstr(t3, "working counter"));
    char *t5 = section(md, "### Table 5");
    assert_non_null(strstr(t5, "| 52; **POWERLINK network reset inside the measured window: 3 of 3 CNs booted again"));
    assert_non_null(strstr(t5, "wire max 10500.0 µs, stack max 503.0 µs: the MN stopped sending SoC while the network "
                               "was reset"));
    assert_null(strstr(t5, "WKC"));
    json_object *j = json_object_from_file(strcat(strcpy(err, dir), "/report.json")), *v, *r0, *ev;
    assert_non_null(j);
    assert_true(json_object_object_get_ex(j, "load", &v));
    r0 = json_object_array_get_idx(v, 0);
    assert_false(json_object_object_get_ex(r0, "wkc_errors", NULL));
    assert_true(json_object_object_get_ex(r0, "network_events", &ev));
    assert_true(json_object_object_get_ex(ev, "cn_reboots", &v));
    assert_int_equal(json_object_get_int(v), 3);
    json_object_put(j);
    json_object_put(a.sysinfo);
    takt_perf_hist_free(&load[0].hist);
    takt_perf_hist_free(&jit[0].hist);
    rmout();
}

/* A cyclictest that timed out leaves its reason in the cell, not a blank or a dash. */
static void timed_out_cyclictest_says_so(void **state)
{
    (void)state;
    mkout();
    struct bench_opts o;
    bench_opts_default(&o, true);
    o.out_dir = dir;
    o.proto[BP_PLK] = false;
    o.n_nodes = 1;
    o.n_cycles = 1;
    struct bench_run load[1], jit[1];
    fill(&load[0], BP_ECAT, 3, 250000, 100);
    fill(&jit[0], BP_ECAT, 10, 500000, 100);
    for (int i = 0; i < 2; i++) {
        struct bench_ct *c = i ? &jit[0].ct : &load[0].ct;
        c->ok = false;
        c->status = -ETIMEDOUT;
    }
    struct bench_all a = { .o = &o, .load = load, .n_load = 1, .jit = jit, .n_jit = 1,
                           .sysinfo = json_object_new_object(), .fifo_ok = true };
    char err[256] = "";
    assert_int_equal(bench_write_report(&a, err, sizeof err), 0);
    char *md = slurp("report.md");
    assert_non_null(strstr(md, "| 250 µs | timed out: no result (see data/cyclictest-*.log) |"));
    assert_non_null(strstr(md, "| - | timed out: no result (see data/cyclictest-*.log) |\n"));
    json_object_put(a.sysinfo);
    takt_perf_hist_free(&load[0].hist);
    takt_perf_hist_free(&jit[0].hist);
    rmout();
}

/* A node count's load line with an N/A in the middle breaks there: a blank line in its
 * data file (gnuplot joins a line across NaN); the plot's axes end at the data. */
static void load_line_breaks_at_na(void **state)
{
    (void)state;
    mkout();
    struct bench_opts o;
    bench_opts_default(&o, true);
    o.out_dir = dir;
    o.proto[BP_PLK] = false;
    o.n_nodes = 1;                    /* 3 */
    o.n_cycles = 3;                   /* 250, 500, 1000 us */
    struct bench_run load[3];
    fill(&load[0], BP_ECAT, 3, 250000, 10);
    fill(&load[1], BP_ECAT, 3, 500000, 10);
    fill(&load[2], BP_ECAT, 3, 1000000, 10);
    load[1].held = false;
    struct bench_all a = { .o = &o, .load = load, .n_load = 3, .sysinfo = json_object_new_object(), .fifo_ok = true };
    char err[256] = "";
    assert_int_equal(bench_write_report(&a, err, sizeof err), 0);
    assert_non_null(strstr(slurp("plots/load-ethercat-3nodes.dat"), "\n250 12.345\n\n1000 12.345\n"));
    char *gp = slurp("plots/ethercat-png.gp");
    assert_non_null(strstr(gp, "'load-ethercat-3nodes.dat' using 1:2 with linespoints"));
    assert_non_null(strstr(gp, "set autoscale xfix"));
    json_object_put(a.sysinfo);
    for (int i = 0; i < 3; i++)
        takt_perf_hist_free(&load[i].hist);
    rmout();
}

/* Histograms span the nominal cycle, series panels share one y scale. */
static void plots_compare_at_a_glance(void **state)
{
    (void)state;
    mkout();
    struct bench_opts o;
    bench_opts_default(&o, true);
    o.out_dir = dir;
    o.proto[BP_PLK] = false;
    o.n_nodes = o.n_cycles = 0;
    struct bench_run jit[2];
    fill(&jit[0], BP_ECAT, 10, 5100000, 100);   /* 5.1 ms: periods 5097..5103 us */
    fill(&jit[1], BP_ECAT, 10, 5100000, 100);
    jit[1].stress = ST_CPU;
    for (int i = 0; i < 2; i++) {
        jit[i].wire_cycles = 100;
        takt_perf_stat_reset(&jit[i].wire);
        takt_perf_stat_add(&jit[i].wire, 5100000 - (i ? 40000 : 3000));
        takt_perf_stat_add(&jit[i].wire, 5100000 + (i ? 3000 : 90000));
    }
    struct bench_all a = { .o = &o, .jit = jit, .n_jit = 2, .sysinfo = json_object_new_object(), .fifo_ok = true };
    char err[256] = "";
    assert_int_equal(bench_write_report(&a, err, sizeof err), 0);
    char *gp = slurp("plots/ethercat-png.gp");
    assert_non_null(strstr(gp, "set xrange [5080:5120]"));   /* +-20 us around 5100, not 0..5123 */
    assert_non_null(strstr(gp, "set yrange [-47.5:97.5]"));  /* both series: -40..90 us, padded */
    json_object_put(a.sysinfo);
    for (int i = 0; i < 2; i++)
        takt_perf_hist_free(&jit[i].hist);
    rmout();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_reads_as_it_should),
        cmocka_unit_test(refused_fifo_marks_the_report),
        cmocka_unit_test(sim_goes_to_another_cpu),
        cmocka_unit_test(plk_reset_in_window_is_named),
        cmocka_unit_test(timed_out_cyclictest_says_so),
        cmocka_unit_test(load_line_breaks_at_na),
        cmocka_unit_test(plots_compare_at_a_glance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
