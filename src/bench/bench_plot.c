/* takt bench plots: gnuplot data files and scripts (PNG and SVG), rendered when gnuplot
 * is installed: load vs cycle time per node count, cycle-time histograms per stress test
 * (1 us bins, log count axis, the OSADL/acontis style) and the cycle deviation over time. */
#include "bench/bench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "bench/proc.h"

static double us(int64_t ns) { return (double)ns / 1000.0; }

static const char *proto_title(int p) { return p == BP_ECAT ? "EtherCAT master" : "POWERLINK MN"; }

/* load-<proto>-<n>nodes.dat: cycle time and CPU % of one node count. A cell that was not
 * held is a blank line, which ends the line segment there: gnuplot joins `with lines`
 * across NaN or `set datafile missing` points, and a gap must stay a gap. */
static int write_load_dat(const struct bench_all *a, int p, unsigned n)
{
    const struct bench_opts *o = a->o;
    char path[700];
    snprintf(path, sizeof path, "%s/plots/load-%s-%unodes.dat", o->out_dir, bench_proto_name(p), o->nodes[n]);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "# cycle_us cpu%% (%u nodes); a blank line where the cycle was not held (N/A)\n", o->nodes[n]);
    bool open = false, any = false;
    for (unsigned c = 0; c < o->n_cycles; c++) {
        const struct bench_run *r = bench_load_cell(a, p, o->nodes[n], o->cycle[c]);
        if (r && r->held) {
            fprintf(f, "%g %.3f\n", us(o->cycle[c]), r->cpu_pct);
            open = any = true;
        } else if (open) {
            fprintf(f, "\n");
            open = false;
        }
    }
    if (!any && o->n_cycles)   /* no point at all: one undefined one, so the file is not empty */
        fprintf(f, "%g NaN\n", us(o->cycle[0]));
    return fclose(f) ? -errno : 0;
}

/* jitter-<proto>-<stress>-hist.dat: the stack's Cycle Time in 1 us bins (non-empty only) */
static int write_hist_dat(const struct bench_all *a, const struct bench_run *r)
{
    char path[700];
    snprintf(path, sizeof path, "%s/plots/jitter-%s-%s-hist.dat", a->o->out_dir, bench_proto_name(r->proto),
             bench_stress_name(r->stress));
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "# cycle_us count (1 us bins; %llu cycles below, %llu above the range)\n",
            (unsigned long long)r->hist.under, (unsigned long long)r->hist.over);
    for (uint32_t b = 0; r->hist.bins && b < r->hist.nbins; b++)
        if (r->hist.bins[b])
            fprintf(f, "%lld %llu\n", (long long)((r->hist.lo + (int64_t)b * r->hist.bin) / 1000),
                    (unsigned long long)r->hist.bins[b]);
    return fclose(f) ? -errno : 0;
}

static void gp_hist(FILE *f, const struct bench_run *r, const char *pn)
{
    const char *sn = bench_stress_name(r->stress);
    char over[80] = "";
    if (r->hist.over)
        snprintf(over, sizeof over, ", %llu > %lld off-axis", (unsigned long long)r->hist.over,
                 (long long)((r->hist.lo + (int64_t)r->hist.nbins * r->hist.bin) / 1000));
    fprintf(f, "set title '%s: %llu periods, %.1f-%.1f us%s'\n", sn, (unsigned long long)r->period.count,
            us(r->period.min), us(r->period.max), over);
    fprintf(f, "plot 'jitter-%s-%s-hist.dat' using 1:2 with impulses lw 2 notitle\n", pn, sn);
}

static void gp_series(FILE *f, const struct bench_run *r, const char *pn)
{
    const char *sn = bench_stress_name(r->stress);
    fprintf(f, "set title '%s load: wire period - %g us'\n", sn, us(r->cycle_ns));
    fprintf(f, "plot 'jitter-%s-%s-series.dat' using 1:2 with points pt 7 ps 0.3 notitle\n", pn, sn);
}

/* One script per protocol and format: every plot of that protocol. */
static int write_script(const struct bench_all *a, int p, bool svg)
{
    const struct bench_opts *o = a->o;
    const char *pn = bench_proto_name(p), *ext = svg ? "svg" : "png";
    char path[700];
    snprintf(path, sizeof path, "%s/plots/%s-%s.gp", o->out_dir, pn, ext);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    const char *term = svg ? "svg dynamic" : "pngcairo";
    fprintf(f, "# takt bench plots of the %s; render with: cd plots && gnuplot %s-%s.gp\n", proto_title(p), pn, ext);
    fprintf(f, "set terminal %s size 1000,600\nset grid\nset datafile missing 'NaN'\n", term);
    /* load vs cycle time, a line per node count */
    fprintf(f, "set output 'load-%s.%s'\nset title 'CPU load of the %s cycle thread vs cycle time (gaps: cycle not held)'\n"
               "set xlabel 'cycle time [us]'\nset ylabel 'CPU load [%% of one core]'\nset logscale x\nset key top right\n",
            pn, ext, proto_title(p));
    bool any = false;
    for (unsigned i = 0; i < a->n_load; i++)
        any = any || ((int)a->load[i].proto == p && a->load[i].held);
    if (!any)   /* nothing to autoscale on: gnuplot would stop the whole script there */
        fprintf(f, "set xrange [100:20000]\nset yrange [0:100]\n"
                   "set label 1 'no cell held its cycle: every cell is N/A' at graph 0.5,0.5 center\n");
    else                /* the axes end where the data ends */
        fprintf(f, "set autoscale xfix\nset yrange [0:*]\n");
    fprintf(f, "plot ");
    for (unsigned n = 0; n < o->n_nodes; n++)
        fprintf(f, "%s'load-%s-%unodes.dat' using 1:2 with linespoints title '%u nodes'", n ? ", " : "", pn,
                o->nodes[n], o->nodes[n]);
    fprintf(f, "\nunset logscale x\nunset label 1\nset autoscale x\nset xrange [*:*]\nset yrange [*:*]\n");
    /* histograms: one file per stress test, then all of them on one page */
    /* one x range for every stress test, so the panels compare at a glance: a span around
     * the nominal cycle wide enough for the largest deviation inside the histogram */
    int64_t nom = o->ref_cycle, dev = 0;
    for (unsigned i = 0; i < a->n_jit; i++) {
        const struct bench_run *r = &a->jit[i];
        int64_t top = r->hist.lo + (int64_t)r->hist.nbins * r->hist.bin;
        if ((int)r->proto != p || !r->period.count)
            continue;
        nom = r->cycle_ns;
        int64_t hi = (r->period.max < top ? r->period.max : top) - r->cycle_ns, lo = r->cycle_ns - r->period.min;
        dev = hi > dev ? hi : dev;
        dev = lo > dev ? lo : dev;
    }
    int64_t span = dev + (dev / 10 > 5000 ? dev / 10 : 5000);
    span = span < 20000 ? 20000 : span;
    fprintf(f, "set xlabel 'cycle time [us] (1 us bins)'\nset ylabel 'periods (log)'\nset logscale y\nset yrange [0.8:*]\n");
    fprintf(f, "set xrange [%lld:%lld]\n", (long long)((nom - span > 0 ? nom - span : 0) / 1000),
            (long long)((nom + span) / 1000));
    unsigned nj = 0;
    for (unsigned i = 0; i < a->n_jit; i++)
        if ((int)a->jit[i].proto == p && a->jit[i].period.count) {
            fprintf(f, "set output 'hist-%s-%s.%s'\n", pn, bench_stress_name(a->jit[i].stress), ext);
            gp_hist(f, &a->jit[i], pn);
            nj++;
        }
    unsigned rows = (nj + 1) / 2 ? (nj + 1) / 2 : 1;
    fprintf(f, "set terminal %s size 1200,%u\nset output 'hist-%s.%s'\nset multiplot layout %u,2 title "
               "'%s: cycle time per stress test, %g us cycle, %u nodes'\n", term, 300 * rows + 60, pn, ext, rows,
            proto_title(p), us(o->ref_cycle), o->ref_nodes);
    for (unsigned i = 0; i < a->n_jit; i++)
        if ((int)a->jit[i].proto == p && a->jit[i].period.count)
            gp_hist(f, &a->jit[i], pn);
    fprintf(f, "unset multiplot\nunset logscale y\nset xrange [*:*]\nset yrange [*:*]\nset terminal %s size 1000,600\n", term);
    /* deviation over time on the wire: one y scale for every panel, so they compare; the
     * time axis ends where the capture does */
    int64_t ylo = 0, yhi = 0;
    for (unsigned i = 0; i < a->n_jit; i++) {
        const struct bench_run *r = &a->jit[i];
        if ((int)r->proto != p || !r->wire_cycles)
            continue;
        ylo = r->wire.min - r->cycle_ns < ylo ? r->wire.min - r->cycle_ns : ylo;
        yhi = r->wire.max - r->cycle_ns > yhi ? r->wire.max - r->cycle_ns : yhi;
    }
    double pad = (double)(yhi - ylo) / 20000.0 + 1.0;
    fprintf(f, "set xlabel 'time [s]'\nset ylabel 'period - nominal [us]'\nset autoscale xfix\n"
               "set yrange [%.1f:%.1f]\n", us(ylo) - pad, us(yhi) + pad);
    unsigned ns = 0;
    for (unsigned i = 0; i < a->n_jit; i++)
        if ((int)a->jit[i].proto == p && a->jit[i].wire_cycles) {
            fprintf(f, "set output 'series-%s-%s.%s'\n", pn, bench_stress_name(a->jit[i].stress), ext);
            gp_series(f, &a->jit[i], pn);
            ns++;
        }
    if (ns) {
        rows = (ns + 1) / 2;
        fprintf(f, "set terminal %s size 1200,%u\nset output 'series-%s.%s'\nset multiplot layout %u,2 title "
                   "'%s: cycle deviation over time on the wire per stress test'\n", term, 300 * rows + 60, pn, ext,
                rows, proto_title(p));
        for (unsigned i = 0; i < a->n_jit; i++)
            if ((int)a->jit[i].proto == p && a->jit[i].wire_cycles)
                gp_series(f, &a->jit[i], pn);
        fprintf(f, "unset multiplot\n");
    }
    return fclose(f) ? -errno : 0;
}

/* Did gnuplot make every file the scripts name? */
static bool all_rendered(const struct bench_all *a, int p)
{
    const char *pn = bench_proto_name(p);
    char path[800];
    struct stat sb;
    for (int fmt = 0; fmt < 2; fmt++) {
        const char *ext = fmt ? "svg" : "png";
        snprintf(path, sizeof path, "%s/plots/load-%s.%s", a->o->out_dir, pn, ext);
        if (stat(path, &sb) || sb.st_size == 0)
            return false;
        snprintf(path, sizeof path, "%s/plots/hist-%s.%s", a->o->out_dir, pn, ext);
        if (a->n_jit && (stat(path, &sb) || sb.st_size == 0))
            return false;
    }
    return true;
}

int bench_write_plots(const struct bench_all *a, bool *rendered, char *why, size_t n)
{
    const struct bench_opts *o = a->o;
    int rc = 0;
    *rendered = false;
    snprintf(why, n, "gnuplot is not installed (apt install %s)", bench_package_of("gnuplot"));
    for (int p = 0; p < BP_COUNT && !rc; p++) {
        if (!o->proto[p])
            continue;
        for (unsigned k = 0; k < o->n_nodes && !rc; k++)
            rc = write_load_dat(a, p, k);
        for (unsigned i = 0; i < a->n_jit && !rc; i++)
            if ((int)a->jit[i].proto == p)
                rc = write_hist_dat(a, &a->jit[i]);
        for (int svg = 0; svg < 2 && !rc; svg++)
            rc = write_script(a, p, svg);
    }
    char gp[512];
    if (rc || !bench_which("gnuplot", gp, sizeof gp))
        return rc;
    char plots[700], log[720];
    snprintf(plots, sizeof plots, "%s/plots", o->out_dir);
    snprintf(log, sizeof log, "%s/logs/gnuplot.log", o->out_dir);
    bool ok = true;
    for (int p = 0; p < BP_COUNT; p++) {
        if (!o->proto[p])
            continue;
        char cmd[300];
        snprintf(cmd, sizeof cmd, "cd \"$1\" && gnuplot %s-png.gp %s-svg.gp", bench_proto_name(p), bench_proto_name(p));
        char *argv[] = { "sh", "-c", cmd, "sh", plots, NULL };
        pid_t pid = bench_spawn(argv, NULL, 0, log);
        int st = pid > 0 ? bench_wait(pid, 120) : (int)pid;
        if (st == -ETIMEDOUT)
            bench_stop(pid, 1);
        ok = ok && st == 0 && all_rendered(a, p);
    }
    *rendered = ok;
    if (!ok)
        snprintf(why, n, "gnuplot failed (see logs/gnuplot.log)");
    return 0;
}
