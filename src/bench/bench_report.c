/* takt bench report: report.json (everything), report.md (the four tables in the
 * layout of the published evaluations, the machine, the notes) and gnuplot plots. */
#include "bench/bench.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/proc.h"

#define MD_CT_NOTE "cyclictest (rt-tests) is not installed: apt install rt-tests"

static double us(int64_t ns) { return (double)ns / 1000.0; }

static json_object *run_json(const struct bench_run *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "protocol", json_object_new_string(bench_proto_name(r->proto)));
    json_object_object_add(o, "nodes", json_object_new_int((int)r->nodes));
    json_object_object_add(o, "cycle_ns", json_object_new_int64(r->cycle_ns));
    json_object_object_add(o, "stress", json_object_new_string(bench_stress_name(r->stress)));
    json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
    json_object_object_add(o, "ran", json_object_new_boolean(r->ran));
    json_object_object_add(o, "held", json_object_new_boolean(r->held));
    json_object_object_add(o, "note", json_object_new_string(r->note));
    json_object_object_add(o, "cycles", json_object_new_int64((int64_t)r->cycles));
    json_object_object_add(o, "frames_lost", json_object_new_int64((int64_t)r->lost));
    json_object_object_add(o, "overruns", json_object_new_int64((int64_t)r->overruns));
    json_object_object_add(o, "cpu_percent", json_object_new_double(r->cpu_pct));
    json_object_object_add(o, "cpu_us_per_cycle", json_object_new_double(r->cpu_us_per_cycle));
    if (r->proto == BP_ECAT)
        json_object_object_add(o, "wkc_errors", json_object_new_int64((int64_t)r->wkc_errors));
    if (r->proto == BP_PLK) {
        json_object *e = json_object_new_object();
        char txt[600];
        json_object_object_add(e, "cn_reboots", json_object_new_int64((int64_t)r->ev.reboots));
        json_object_object_add(e, "cns_rebooted", json_object_new_int((int)r->ev.nodes_rebooted));
        json_object_object_add(e, "cn_resets", json_object_new_int64((int64_t)r->ev.resets));
        json_object_object_add(e, "loss_threshold_hits", json_object_new_int64((int64_t)r->ev.loss_thr));
        json_object_object_add(e, "cycle_exceed_threshold_hits", json_object_new_int64((int64_t)r->ev.exceed_thr));
        json_object_object_add(e, "last_reset", r->ev.last_reset[0] ? json_object_new_string(r->ev.last_reset) : NULL);
        json_object_object_add(e, "inside_window", r->ev.in_window < 0 ? NULL : json_object_new_boolean(r->ev.in_window));
        json_object_object_add(e, "text", json_object_new_string(bench_plk_events_text(r, txt, sizeof txt)));
        json_object_object_add(o, "network_events", e);
    }
    json_object_object_add(o, "cycle_time", takt_perf_msmt_to_json(&r->period, &r->hist, "Cycle Time"));
    if (r->stress != ST_IDLE || r->load_cmd[0]) {
        json_object_object_add(o, "load_command", json_object_new_string(r->load_cmd));
        json_object_object_add(o, "load_ran", json_object_new_boolean(r->load_ran));
    }
    if (r->capture[0]) {
        json_object_object_add(o, "capture_kernel_drops", r->capture_drops >= 0 ? json_object_new_int64(r->capture_drops) : NULL);
    }
    if (r->wire_cycles) {
        json_object *w = takt_perf_msmt_to_json(&r->wire, NULL, "Wire Cycle Time");
        json_object_object_add(w, "lost", json_object_new_int64((int64_t)r->wire_lost));
        json_object_object_add(o, "wire", w);
    }
    json_object *ct = json_object_new_object();
    json_object_object_add(ct, "installed", json_object_new_boolean(!r->ct.missing));
    json_object_object_add(ct, "command", json_object_new_string(r->ct.cmd));
    json_object_object_add(ct, "exit_status", json_object_new_int(r->ct.status));
    char cts[120];
    json_object_object_add(ct, "result", json_object_new_string(bench_ct_cell(r, true, cts, sizeof cts)));
    if (r->ct.ok) {
        json_object_object_add(ct, "cycles", json_object_new_int64((int64_t)r->ct.cycles));
        json_object_object_add(ct, "min_us", json_object_new_double(r->ct.min_us));
        json_object_object_add(ct, "avg_us", json_object_new_double(r->ct.avg_us));
        json_object_object_add(ct, "max_us", json_object_new_double(r->ct.max_us));
    }
    json_object_object_add(o, "cyclictest", ct);
    return o;
}

static const char *proto_title(int p) { return p == BP_ECAT ? "EtherCAT master" : "POWERLINK MN"; }

const struct bench_run *bench_load_cell(const struct bench_all *a, int p, unsigned nodes, int64_t cyc)
{
    for (unsigned i = 0; i < a->n_load; i++)
        if ((int)a->load[i].proto == p && a->load[i].nodes == nodes && a->load[i].cycle_ns == cyc)
            return &a->load[i];
    return NULL;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "?";
}

static void md_machine(FILE *f, const struct bench_all *a)
{
    json_object *s = a->sysinfo, *v, *chk, *items, *sum;
    fprintf(f, "## Machine\n\n| | |\n|---|---|\n");
    fprintf(f, "| CPU model | %s |\n| CPUs online | %s |\n", jstr(s, "cpu_model"), jstr(s, "cpus_online"));
    fprintf(f, "| Kernel | %s `%s` |\n", jstr(s, "kernel"), jstr(s, "kernel_version"));
    bool rt = json_object_object_get_ex(s, "preempt_rt", &v) && json_object_get_boolean(v);
    fprintf(f, "| PREEMPT_RT | %s |\n", rt ? "yes" : "**no** (a standard kernel: expect ms-scale worst cases)");
    fprintf(f, "| Clock source | %s |\n| Kernel command line | `%s` |\n", jstr(s, "clocksource"), jstr(s, "kernel_cmdline"));
    if (json_object_object_get_ex(s, "check", &chk) && json_object_object_get_ex(chk, "summary", &sum))
        fprintf(f, "| `takt check` | %s ok, %s info, %s warn, %s fail, %s unknown |\n", jstr(sum, "ok"), jstr(sum, "info"),
                jstr(sum, "warn"), jstr(sum, "fail"), jstr(sum, "unknown"));
    fprintf(f, "\n");
    if (chk && json_object_object_get_ex(chk, "items", &items)) {
        bool any = false;
        for (size_t i = 0; i < json_object_array_length(items); i++) {
            json_object *it = json_object_array_get_idx(items, i);
            const char *vd = jstr(it, "verdict");
            if (strcmp(vd, "warn") && strcmp(vd, "fail"))
                continue;
            if (!any)
                fprintf(f, "`takt check` items that are not as a real-time machine wants them:\n\n");
            any = true;
            fprintf(f, "- **%s** %s: %s. Fix: %s\n", vd, jstr(it, "title"), jstr(it, "found"), jstr(it, "fix"));
        }
        if (any)
            fprintf(f, "\n");
    }
}

static void md_setup(FILE *f, const struct bench_all *a)
{
    const struct bench_opts *o = a->o;
    fprintf(f, "## Setup\n\n| | |\n|---|---|\n");
    if (o->cmdline)
        fprintf(f, "| Command | `%s` |\n", o->cmdline);
    fprintf(f, "| Date | %s |\n", a->date);
    if (a->fifo_ok)
        fprintf(f, "| Scheduling | SCHED_FIFO priority %d for the stack, the simulated network and cyclictest |\n", o->prio);
    else
        fprintf(f, "| Scheduling | **SCHED_OTHER**: %s |\n", a->fifo_note);
    if (o->cpu >= 0)
        fprintf(f, "| Stack CPU | %d (cyclictest on %d) |\n", o->cpu, o->ct_cpu >= 0 ? o->ct_cpu : o->cpu);
    else
        fprintf(f, "| Stack CPU | not pinned |\n");
    int sc = bench_sim_cpu(o);
    if (sc >= 0)
        fprintf(f, "| Simulated network CPU | %d |\n", sc);
    else
        fprintf(f, "| Simulated network CPU | not pinned |\n");
    fprintf(f, "| Link | %s veth pair between two network namespaces |\n", o->link[0] ? o->link : "packet: (AF_PACKET) on a");
    fprintf(f, "| System load cells | %.1f s each (POWERLINK: measured once every CN is Operational) |\n", o->cell_s);
    fprintf(f, "| Jitter runs | %llu cycles of %g µs, %u nodes, per stress test |\n\n", (unsigned long long)o->ref_cycles,
            us(o->ref_cycle), o->ref_nodes);
}

static void md_load(FILE *f, const struct bench_all *a, int p, int table)
{
    const struct bench_opts *o = a->o;
    for (int ctab = 0; ctab < 2; ctab++) {
        if (!ctab)
            fprintf(f, "### Table %d: CPU load of the %s, %% of one core\n\n", table, proto_title(p));
        else
            fprintf(f, "cyclictest in the same runs (same interval and priority, same CPU): max wake-up latency, µs\n\n");
        fprintf(f, "| cycle \\ nodes |");
        for (unsigned n = 0; n < o->n_nodes; n++)
            fprintf(f, " %u |", o->nodes[n]);
        fprintf(f, "\n|---|");
        for (unsigned n = 0; n < o->n_nodes; n++)
            fprintf(f, "---:|");
        fprintf(f, "\n");
        for (unsigned c = 0; c < o->n_cycles; c++) {
            fprintf(f, "| %g µs |", us(o->cycle[c]));
            for (unsigned n = 0; n < o->n_nodes; n++) {
                const struct bench_run *r = bench_load_cell(a, p, o->nodes[n], o->cycle[c]);
                char ctc[120];
                if (ctab)
                    fprintf(f, " %s |", r ? bench_ct_cell(r, false, ctc, sizeof ctc) : "-");
                else if (!r || !r->held)
                    fprintf(f, " N/A |");
                else if (r->cpu_pct < 1.0)
                    fprintf(f, " <1 (%.2f) |", r->cpu_pct);
                else
                    fprintf(f, " %.1f |", r->cpu_pct);
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "CPU load: CPU time of the stack's cycle thread (its only busy thread) divided by the time it ran. "
               "**N/A: the cycle was not held**, i.e. the stack did not finish its run, %s, or more than 0.1 %% of "
               "the cycles lost a frame (%s), or more than 1 %% of the cycles overran into the next one. Why, per "
               "cell:\n\n",
            p == BP_ECAT ? "or a working counter was wrong" : "or the network was reset while measuring (a CN rebooted, "
                           "a threshold fired)",
            p == BP_ECAT ? "an EtherCAT frame that did not come back" : "a PRes that did not come in time");
    unsigned na = 0;
    for (unsigned i = 0; i < a->n_load; i++) {
        const struct bench_run *r = &a->load[i];
        if ((int)r->proto == p && (!r->held || r->note[0])) {
            fprintf(f, "- %u nodes, %g µs: %s%s\n", r->nodes, us(r->cycle_ns), r->held ? "(held) " : "",
                    r->note[0] ? r->note : "not held");
            na++;
        }
    }
    if (!na)
        fprintf(f, "- every cell held its cycle\n");
    fprintf(f, "\n");
}

/* A percentile cell: the value, or "> top" where it lies above the histogram */
static void pct(char *b, size_t n, int64_t v, const struct bench_run *r)
{
    if (v >= 0)
        snprintf(b, n, "%.1f", us(v));
    else
        snprintf(b, n, "> %lld", (long long)((r->hist.lo + (int64_t)r->hist.nbins * r->hist.bin) / 1000));
}

static void md_jitter(FILE *f, const struct bench_all *a, int p, int table)
{
    fprintf(f, "### Table %d: %s, cycle time under stress, %g µs cycle, %u nodes\n\n", table, proto_title(p),
            us(a->o->ref_cycle), a->o->ref_nodes);
    fprintf(f, "| stress test | cycles run / due | min cycle µs | max cycle µs | max deviation µs | p50 µs | p99 µs | "
               "p99.9 µs | frames lost | wire min / max µs | cyclictest avg / max µs |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (unsigned i = 0; i < a->n_jit; i++) {
        const struct bench_run *r = &a->jit[i];
        if ((int)r->proto != p)
            continue;
        unsigned long long due = (unsigned long long)(r->seconds * 1e9 / (double)r->cycle_ns + 0.5);
        char ct[160], ev[600];
        bench_ct_cell(r, true, ct, sizeof ct);
        if (!r->ran || !r->cycles) {
            fprintf(f, "| %s | 0 / %llu | - | - | - | - | - | - | - | - | %s |\n", bench_stress_name(r->stress), due, ct);
            continue;
        }
        int64_t dev = r->period.max - r->cycle_ns;
        if (r->cycle_ns - r->period.min > dev)
            dev = r->cycle_ns - r->period.min;
        char wire[48] = "-", p50[24], p99[24], p999[24], lost[640];
        if (r->wire_cycles)
            snprintf(wire, sizeof wire, "%.1f / %.1f", us(r->wire.min), us(r->wire.max));
        pct(p50, sizeof p50, r->p50, r);
        pct(p99, sizeof p99, r->p99, r);
        pct(p999, sizeof p999, r->p999, r);
        /* a reset of the network is named in the cell, not hidden behind a frame count */
        if (bench_plk_events_text(r, ev, sizeof ev)[0])
            snprintf(lost, sizeof lost, "%llu; **%s**", (unsigned long long)r->lost, ev);
        else
            snprintf(lost, sizeof lost, "%llu", (unsigned long long)r->lost);
        fprintf(f, "| %s | %llu / %llu | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s | %s |\n",
                bench_stress_name(r->stress), (unsigned long long)r->cycles, due, us(r->period.min), us(r->period.max),
                us(dev), p50, p99, p999, lost, wire, ct);
    }
    fprintf(f, "\n");
    for (unsigned i = 0; i < a->n_jit; i++) {
        const struct bench_run *r = &a->jit[i];
        char why[600];
        if ((int)r->proto != p)
            continue;
        if (r->note[0])
            fprintf(f, "- %s: %s\n", bench_stress_name(r->stress), r->note);
        /* where the wire and the stack disagree on the longest period, say why */
        if (bench_max_why(r, why, sizeof why)[0] && !strstr(r->note, why))
            fprintf(f, "- %s: %s\n", bench_stress_name(r->stress), why);
    }
    fprintf(f, "\n");
}

static void md_plots(FILE *f, const struct bench_all *a, bool rendered, const char *why)
{
    const struct bench_opts *o = a->o;
    fprintf(f, "## Plots\n\n");
    if (!rendered) {
        fprintf(f, "**No images: %s.** The data files (`*.dat`) and gnuplot scripts (`*.gp`) are in `plots/`; "
                   "render PNG and SVG with\n\n```\ncd %s/plots && gnuplot", why, o->out_dir);
        for (int p = 0; p < BP_COUNT; p++)
            if (o->proto[p])
                fprintf(f, " %s-png.gp %s-svg.gp", bench_proto_name(p), bench_proto_name(p));
        fprintf(f, "\n```\n\nThat makes `load-PROTO.png` (CPU load vs cycle time per node count), `hist-PROTO.png` "
                   "(cycle-time histograms per stress test, 1 µs bins, log count axis; one file per test as "
                   "`hist-PROTO-TEST.png`) and `series-PROTO.png` (cycle deviation over time), each also as SVG.\n");
        return;
    }
    for (int p = 0; p < BP_COUNT; p++) {
        if (!o->proto[p])
            continue;
        const char *pn = bench_proto_name(p);
        fprintf(f, "### %s\n\nCPU load vs cycle time, a line per node count (gaps: not held):\n\n![load](plots/load-%s.png)\n\n",
                proto_title(p), pn);
        if (a->n_jit)
            fprintf(f, "Cycle-time histograms per stress test (1 µs bins, log count axis; each also as "
                       "`plots/hist-%s-TEST.png`):\n\n![histograms](plots/hist-%s.png)\n\n", pn, pn);
        bool series = false;
        for (unsigned i = 0; i < a->n_jit; i++)
            series = series || ((int)a->jit[i].proto == p && a->jit[i].wire_cycles);
        if (series)
            fprintf(f, "Cycle deviation over time, from the capture at the simulator's end (each also as "
                       "`plots/series-%s-TEST.png`):\n\n![series](plots/series-%s.png)\n\n", pn, pn);
    }
    fprintf(f, "Every image is also there as SVG; the gnuplot scripts and data files are beside them.\n");
}

int bench_write_report(const struct bench_all *a, char *err, size_t errlen)
{
    const struct bench_opts *o = a->o;
    bool rendered = false;
    char why[200];
    int rc = bench_write_plots(a, &rendered, why, sizeof why);
    if (rc)
        return snprintf(err, errlen, "cannot write plots: %s", strerror(-rc)), rc;

    json_object *j = json_object_new_object(), *load = json_object_new_array(), *jit = json_object_new_array();
    json_object_object_add(j, "date", json_object_new_string(a->date));
    json_object_object_add(j, "command", o->cmdline ? json_object_new_string(o->cmdline) : NULL);
    json_object_object_add(j, "machine", json_object_get(a->sysinfo));
    json_object_object_add(j, "sched_fifo", json_object_new_boolean(a->fifo_ok));
    json_object_object_add(j, "prio", json_object_new_int(o->prio));
    json_object_object_add(j, "cpu", json_object_new_int(o->cpu));
    json_object_object_add(j, "sim_cpu", json_object_new_int(bench_sim_cpu(o)));
    json_object_object_add(j, "cell_seconds", json_object_new_double(o->cell_s));
    json_object_object_add(j, "ref_cycle_ns", json_object_new_int64(o->ref_cycle));
    json_object_object_add(j, "ref_cycles", json_object_new_int64((int64_t)o->ref_cycles));
    json_object_object_add(j, "ref_nodes", json_object_new_int((int)o->ref_nodes));
    json_object_object_add(j, "notes", json_object_new_string(a->fifo_ok ? "" : a->fifo_note));
    json_object_object_add(j, "missing_load_generators", json_object_new_string(a->missing));
    json_object_object_add(j, "cyclictest_failure", json_object_new_string(a->ct_note));
    json_object_object_add(j, "plots_rendered", json_object_new_boolean(rendered));
    for (unsigned i = 0; i < a->n_load; i++)
        json_object_array_add(load, run_json(&a->load[i]));
    for (unsigned i = 0; i < a->n_jit; i++)
        json_object_array_add(jit, run_json(&a->jit[i]));
    json_object_object_add(j, "load", load);
    json_object_object_add(j, "jitter", jit);
    char path[700];
    snprintf(path, sizeof path, "%s/report.json", o->out_dir);
    if (json_object_to_file_ext(path, j, JSON_C_TO_STRING_PRETTY)) {
        json_object_put(j);
        return snprintf(err, errlen, "cannot write %s", path), -EIO;
    }
    json_object_put(j);

    snprintf(path, sizeof path, "%s/report.md", o->out_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno)), -errno;
    fprintf(f, "# takt bench report%s\n\n", o->quick ? " (--quick: short runs, a first look)" : "");
    fprintf(f, "What a software master on this PC reaches: the **CPU load** of each stack over cycle time × node count "
               "(the layout of the classic Tables 2 and 3) and its **cycle time under stress** (Tables 4 and 5). Each "
               "stack ran as its own process (`takt ecat run`, `takt plk mn`) against a simulated network (`takt sim "
               "ecat`, `takt plk cn`) across a veth pair in network namespaces; **cyclictest** ran at the same interval "
               "and priority in every run, so each figure stands next to the operating system's own wake-up latency. "
               "Every figure is in `report.json`; each run's logs are in `logs/`, the stacks' own reports, the "
               "captures and cyclictest's output in `data/`.\n\n");
    if (!a->fifo_ok)
        fprintf(f, "> **Warning: not real-time scheduled.** %s. Every figure below was measured like that.\n\n", a->fifo_note);
    if (a->missing[0])
        fprintf(f, "> **Missing load generators:** %s\n\n", a->missing);
    bool ct_missing = false;
    for (unsigned i = 0; i < a->n_load + a->n_jit; i++)
        ct_missing = ct_missing || (i < a->n_load ? a->load[i].ct.missing : a->jit[i - a->n_load].ct.missing);
    if (ct_missing)
        fprintf(f, "> **%s**: its cells say \"not installed\".\n\n", MD_CT_NOTE);
    else if (a->ct_note[0])
        fprintf(f, "> **cyclictest did not run**: %s. rt-tests 2.x refuses to run without real-time rights; "
                   "its cells say why where it failed (`data/cyclictest-*.log`).\n\n", a->ct_note);
    md_setup(f, a);
    md_machine(f, a);
    fprintf(f, "## System load (Tables 2 and 3)\n\n");
    for (int p = 0; p < BP_COUNT; p++)
        if (o->proto[p] && o->n_nodes && o->n_cycles)
            md_load(f, a, p, 2 + p);
    fprintf(f, "## Jitter under stress (Tables 4 and 5)\n\nStress tests, one after the other:\n\n");
    for (int s = 0; s < ST_COUNT; s++)
        if (o->stress[s])
            fprintf(f, "- **%s**: %s\n", bench_stress_name(s), bench_stress_desc(s));
    fprintf(f, "\nmin/max cycle, max deviation (from the nominal cycle) and the percentiles are the stack's own "
               "wake-to-wake Cycle Time (1 µs histogram); *cycles due* is the run's length over the cycle, so fewer "
               "cycles run means periods were skipped (a POWERLINK window can end a few cycles late, so more than due is "
               "no error); *wire* is the period of the cyclic frames captured with kernel "
               "timestamps at the simulator's end; cyclictest's figures are its wake-up latency in the same run.\n\n");
    for (int p = 0; p < BP_COUNT; p++)
        if (o->proto[p] && a->n_jit)
            md_jitter(f, a, p, 4 + p);
    md_plots(f, a, rendered, why);
    return fclose(f) ? (snprintf(err, errlen, "cannot write %s", path), -EIO) : 0;
}
