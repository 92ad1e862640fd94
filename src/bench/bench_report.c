/* takt bench report: report.json (everything), report.md (the four tables in the
 * layout of the published evaluations, the machine, the notes) and gnuplot plots. */
#include "bench/bench.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/proc.h"

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
    json_object_object_add(o, "cycle_time", perf_msmt_to_json(&r->period, &r->hist, "Cycle Time"));
    if (r->wire_cycles) {
        json_object *w = perf_msmt_to_json(&r->wire, NULL, "Wire Cycle Time");
        json_object_object_add(w, "lost", json_object_new_int64((int64_t)r->wire_lost));
        json_object_object_add(o, "wire", w);
    }
    json_object *ct = json_object_new_object();
    json_object_object_add(ct, "installed", json_object_new_boolean(!r->ct.missing));
    if (r->ct.ok) {
        json_object_object_add(ct, "cycles", json_object_new_int64((int64_t)r->ct.cycles));
        json_object_object_add(ct, "min_us", json_object_new_double(r->ct.min_us));
        json_object_object_add(ct, "avg_us", json_object_new_double(r->ct.avg_us));
        json_object_object_add(ct, "max_us", json_object_new_double(r->ct.max_us));
    }
    json_object_object_add(o, "cyclictest", ct);
    return o;
}

static void md_machine(FILE *f, const struct bench_all *a)
{
    json_object *s = a->sysinfo, *v;
    fprintf(f, "## Machine\n\n| | |\n|---|---|\n");
    static const char *const keys[] = { "cpu_model", "cpus_online", "kernel", "kernel_version", "preempt_rt",
                                        "clocksource", "kernel_cmdline" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_object_get_ex(s, keys[i], &v))
            fprintf(f, "| %s | `%s` |\n", keys[i], json_object_get_string(v));
    json_object *chk, *sum;
    if (json_object_object_get_ex(s, "check", &chk) && json_object_object_get_ex(chk, "summary", &sum))
        fprintf(f, "| takt check | %s |\n", json_object_to_json_string(sum));
    fprintf(f, "| scheduling | %s |\n", a->fifo_ok ? "SCHED_FIFO" : a->fifo_note);
    fprintf(f, "\n");
}

static const struct bench_run *load_cell(const struct bench_all *a, int p, unsigned nodes, int64_t cyc)
{
    for (unsigned i = 0; i < a->n_load; i++)
        if ((int)a->load[i].proto == p && a->load[i].nodes == nodes && a->load[i].cycle_ns == cyc)
            return &a->load[i];
    return NULL;
}

static void md_load(FILE *f, const struct bench_all *a, int p)
{
    const struct bench_opts *o = a->o;
    fprintf(f, "### CPU load of the %s stack's cycle thread, %% of one core\n\n| cycle \\ nodes |",
            p == BP_ECAT ? "EtherCAT master" : "POWERLINK MN");
    for (unsigned n = 0; n < o->n_nodes; n++)
        fprintf(f, " %u |", o->nodes[n]);
    fprintf(f, "\n|---|");
    for (unsigned n = 0; n < o->n_nodes; n++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (unsigned c = 0; c < o->n_cycles; c++) {
        fprintf(f, "| %g µs |", us(o->cycle[c]));
        for (unsigned n = 0; n < o->n_nodes; n++) {
            const struct bench_run *r = load_cell(a, p, o->nodes[n], o->cycle[c]);
            if (!r || !r->held)
                fprintf(f, " N/A |");
            else if (r->cpu_pct < 1.0)
                fprintf(f, " <1 (%.2f) |", r->cpu_pct);
            else
                fprintf(f, " %.1f |", r->cpu_pct);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\nN/A: the cycle was not held: a WKC error, more than 0.1 %% of the cycles with a lost frame, or "
               "more than 1 %% of them overran (reason per cell below and in report.json).\n\n");
    for (unsigned i = 0; i < a->n_load; i++) {
        const struct bench_run *r = &a->load[i];
        if ((int)r->proto == p && !r->held)
            fprintf(f, "- %u nodes, %g µs: %s\n", r->nodes, us(r->cycle_ns), r->note[0] ? r->note : "not held");
    }
    fprintf(f, "\n");
}

static void md_jitter(FILE *f, const struct bench_all *a, int p)
{
    fprintf(f, "### %s: cycle time under load, %g µs cycle, %u nodes\n\n",
            p == BP_ECAT ? "EtherCAT master" : "POWERLINK MN", us(a->o->ref_cycle), a->o->ref_nodes);
    fprintf(f, "| load | cycles | min cycle µs | max cycle µs | max deviation µs | p99 µs | p99.9 µs | "
               "wire min/max µs | cyclictest max µs | note |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (unsigned i = 0; i < a->n_jit; i++) {
        const struct bench_run *r = &a->jit[i];
        if ((int)r->proto != p)
            continue;
        if (!r->ran || !r->cycles) {
            fprintf(f, "| %s | - | - | - | - | - | - | - | - | %s |\n", bench_stress_name(r->stress), r->note);
            continue;
        }
        int64_t dev = r->period.max - r->cycle_ns;
        if (r->cycle_ns - r->period.min > dev)
            dev = r->cycle_ns - r->period.min;
        char wire[48] = "-", ct[24] = "-";
        if (r->wire_cycles)
            snprintf(wire, sizeof wire, "%.1f / %.1f", us(r->wire.min), us(r->wire.max));
        if (r->ct.ok)
            snprintf(ct, sizeof ct, "%.0f", r->ct.max_us);
        fprintf(f, "| %s | %llu | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |\n", bench_stress_name(r->stress),
                (unsigned long long)r->cycles, us(r->period.min), us(r->period.max), us(dev), us(r->p99), us(r->p999),
                wire, ct, r->note);
    }
    fprintf(f, "\n");
}

/* gnuplot: data files and scripts; rendered when gnuplot is installed. */
static int write_plots(const struct bench_all *a, bool *rendered)
{
    const struct bench_opts *o = a->o;
    char path[700];
    *rendered = false;
    for (int p = 0; p < BP_COUNT; p++) {
        if (!o->proto[p])
            continue;
        const char *pn = bench_proto_name(p);
        /* load vs cycle time, one line per node count */
        snprintf(path, sizeof path, "%s/plots/load-%s.dat", o->out_dir, pn);
        FILE *f = fopen(path, "w");
        if (!f)
            return -errno;
        fprintf(f, "# cycle_us");
        for (unsigned n = 0; n < o->n_nodes; n++)
            fprintf(f, " cpu%%_%unodes", o->nodes[n]);
        fprintf(f, "\n");
        for (unsigned c = 0; c < o->n_cycles; c++) {
            fprintf(f, "%g", us(o->cycle[c]));
            for (unsigned n = 0; n < o->n_nodes; n++) {
                const struct bench_run *r = load_cell(a, p, o->nodes[n], o->cycle[c]);
                fprintf(f, r && r->held ? " %.3f" : " NaN", r ? r->cpu_pct : 0.0);
            }
            fprintf(f, "\n");
        }
        fclose(f);
        /* cycle-time histograms per stress test, 1 us bins */
        for (unsigned i = 0; i < a->n_jit; i++) {
            const struct bench_run *r = &a->jit[i];
            if ((int)r->proto != p)
                continue;
            snprintf(path, sizeof path, "%s/plots/jitter-%s-%s-hist.dat", o->out_dir, pn, bench_stress_name(r->stress));
            if (!(f = fopen(path, "w")))
                return -errno;
            fprintf(f, "# cycle_us count (1 us bins)\n");
            for (uint32_t b = 0; r->hist.bins && b < r->hist.nbins; b++)
                if (r->hist.bins[b])
                    fprintf(f, "%lld %llu\n", (long long)((r->hist.lo + (int64_t)b * r->hist.bin) / 1000),
                            (unsigned long long)r->hist.bins[b]);
            fclose(f);
        }
        for (int fmt = 0; fmt < 2; fmt++) {
            const char *ext = fmt ? "svg" : "png";
            const char *term = fmt ? "svg size 1000,600 dynamic" : "pngcairo size 1000,600";
            snprintf(path, sizeof path, "%s/plots/%s-%s.gp", o->out_dir, pn, ext);
            if (!(f = fopen(path, "w")))
                return -errno;
            fprintf(f, "# takt bench plots for %s; render with: cd plots && gnuplot %s-%s.gp\n", pn, pn, ext);
            fprintf(f, "set terminal %s\nset grid\n", term);
            fprintf(f, "set output 'load-%s.%s'\nset title 'CPU load of the %s cycle thread vs cycle time'\n"
                       "set xlabel 'cycle time [us]'\nset ylabel 'CPU load [%% of one core]'\nset logscale x\n"
                       "set key top right\nplot ", pn, ext, pn);
            for (unsigned n = 0; n < o->n_nodes; n++)
                fprintf(f, "%s'load-%s.dat' using 1:%u with linespoints title '%u nodes'", n ? ", " : "", pn, n + 2, o->nodes[n]);
            fprintf(f, "\nunset logscale x\n");
            fprintf(f, "set output 'hist-%s.%s'\nset title 'Cycle time histograms under load (%g us cycle, 1 us bins)'\n"
                       "set xlabel 'cycle time [us]'\nset ylabel 'cycles'\nset logscale y\nplot ", pn, ext, us(o->ref_cycle));
            bool first = true;
            for (unsigned i = 0; i < a->n_jit; i++)
                if ((int)a->jit[i].proto == p) {
                    fprintf(f, "%s'jitter-%s-%s-hist.dat' using 1:2 with steps title '%s'", first ? "" : ", ", pn,
                            bench_stress_name(a->jit[i].stress), bench_stress_name(a->jit[i].stress));
                    first = false;
                }
            fprintf(f, "\nunset logscale y\n");
            for (unsigned i = 0; i < a->n_jit; i++) {
                const struct bench_run *r = &a->jit[i];
                if ((int)r->proto != p || !r->wire_cycles)
                    continue;
                fprintf(f, "set output 'series-%s-%s.%s'\nset title 'Cycle deviation on the wire over time, %s load'\n"
                           "set xlabel 'time [s]'\nset ylabel 'period - nominal [us]'\n"
                           "plot 'jitter-%s-%s-series.dat' using 1:2 with points pt 7 ps 0.3 title '%s'\n",
                        pn, bench_stress_name(r->stress), ext, bench_stress_name(r->stress), pn,
                        bench_stress_name(r->stress), bench_stress_name(r->stress));
            }
            fclose(f);
        }
    }
    char gp[512];
    if (!bench_which("gnuplot", gp, sizeof gp))
        return 0;
    for (int p = 0; p < BP_COUNT; p++)
        for (int fmt = 0; fmt < 2 && o->proto[p]; fmt++) {
            snprintf(path, sizeof path, "%s-%s.gp", bench_proto_name(p), fmt ? "svg" : "png");
            char plots[700];
            snprintf(plots, sizeof plots, "%s/plots", o->out_dir);
            char *argv[] = { "sh", "-c", "cd \"$1\" && gnuplot \"$2\"", "sh", plots, path, NULL };
            pid_t pid = bench_spawn(argv, NULL, 0, NULL);
            if (pid > 0 && bench_wait(pid, 60) == 0)
                *rendered = true;
        }
    return 0;
}

int bench_write_report(const struct bench_all *a, char *err, size_t errlen)
{
    const struct bench_opts *o = a->o;
    bool rendered = false;
    int rc = write_plots(a, &rendered);
    if (rc)
        return snprintf(err, errlen, "cannot write plots: %s", strerror(-rc)), rc;

    json_object *j = json_object_new_object(), *load = json_object_new_array(), *jit = json_object_new_array();
    json_object_object_add(j, "machine", json_object_get(a->sysinfo));
    json_object_object_add(j, "sched_fifo", json_object_new_boolean(a->fifo_ok));
    json_object_object_add(j, "notes", json_object_new_string(a->fifo_ok ? "" : a->fifo_note));
    json_object_object_add(j, "missing_load_generators", json_object_new_string(a->missing));
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
    fprintf(f, "# takt bench report%s\n\n", o->quick ? " (--quick)" : "");
    fprintf(f, "Each stack ran as its own process (`takt ecat run`, `takt plk mn`) against the simulated network "
               "(`takt sim ecat`, `takt plk cn`) across a veth pair in network namespaces; cyclictest ran at the same "
               "interval and priority in the same run. Load matrix cells lasted %.1f s; jitter runs %llu cycles.\n\n",
            o->cell_s, (unsigned long long)o->ref_cycles);
    if (!a->fifo_ok)
        fprintf(f, "> **Note:** %s. Figures are marked by this.\n\n", a->fifo_note);
    if (a->missing[0])
        fprintf(f, "> **Missing load generators:** %s\n\n", a->missing);
    md_machine(f, a);
    fprintf(f, "## System load (tables 2 and 3 of the classic evaluation)\n\n");
    for (int p = 0; p < BP_COUNT; p++)
        if (o->proto[p])
            md_load(f, a, p);
    fprintf(f, "## Jitter under stress (tables 4 and 5)\n\n");
    for (int s = 0; s < ST_COUNT; s++)
        if (o->stress[s])
            fprintf(f, "- **%s**: %s\n", bench_stress_name(s), bench_stress_desc(s));
    fprintf(f, "\nmin/max cycle and deviation are the stack's own wake-to-wake Cycle Time; *wire* is the period of the "
               "cyclic frames captured at the simulator's end (kernel timestamps); cyclictest max is its wake-up "
               "latency.\n\n");
    for (int p = 0; p < BP_COUNT; p++)
        if (o->proto[p])
            md_jitter(f, a, p);
    fprintf(f, "## Plots\n\n");
    if (rendered) {
        for (int p = 0; p < BP_COUNT; p++)
            if (o->proto[p])
                fprintf(f, "![load](plots/load-%s.png)\n\n![histograms](plots/hist-%s.png)\n\n", bench_proto_name(p),
                        bench_proto_name(p));
        fprintf(f, "Time series of the cycle deviation per load: `plots/series-*.png`; SVG versions beside them.\n");
    } else {
        fprintf(f, "gnuplot is not installed (apt install gnuplot-nox): the data files and scripts are in `plots/`; "
                   "render them with `cd plots && gnuplot ethercat-png.gp powerlink-png.gp`.\n");
    }
    fclose(f);
    return 0;
}
