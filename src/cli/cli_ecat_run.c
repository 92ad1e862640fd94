/* takt ecat run: EcMasterDemo's job. Scan, configure from SII, start the cycle in its
 * real-time thread, walk the network to OP, print PerfMsmt lines and events while it
 * runs, then a summary (text and JSON). Also what `takt demo` runs on its master end. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <json-c/json.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <takt/wire.h>
#include "cli/cli_ecat.h"
#include "cli/cli_events.h"
#include "cli/metrics.h"
#include "cli/sdnotify.h"

/* Events with the time the cycle raised them, in seconds since the run's start; each
 * also in the run's JSON (code, slave, values, text). */
static void drain_events_but(struct takt_ecat_master *m, struct cli_evlog *l, bool failing)
{
    struct takt_event ev;
    while (takt_ecat_master_next_ev(m, &ev))
        cli_evlog_add(l, &ev, true, failing ? takt_ecat_master_error(m) : NULL);
}

static void drain_events(struct takt_ecat_master *m, struct cli_evlog *l)
{
    drain_events_but(m, l, false);
}

/* Before the error line of a failure: the event that raised the error is that line, so
 * it is not printed twice. */
static void drain_failing(struct takt_ecat_master *m, struct cli_evlog *l)
{
    drain_events_but(m, l, true);
}

static takt_ns_t sooner(takt_ns_t a, takt_ns_t b) { return a < b ? a : b; }

/* --lost-times: the cycle callback notes, for every frame counted lost, when it was sent
 * (the wake-up of the cycle before, CLOCK_MONOTONIC), when the loss was noticed (this
 * wake-up) and the larger wake-up deviation of the two cycles, so that `takt ecat bench`
 * can match losses against the simulator's serving stalls. Costs one stats copy a cycle
 * (in App). */
#define LOST_CAP 65536
struct lost_log {
    bool primed;
    uint64_t seen, before;      /* frames_lost at the last cycle / before the cycle thread */
    takt_ns_t prev_wake, prev_dev;
    takt_ns_t (*v)[3];          /* sent, noticed, worst wake deviation */
    size_t n;
    uint64_t total;
};

static void lost_cb(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    struct lost_log *g = ctx;
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(m, &s);
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(takt_ecat_master_loop(m), &li);
    takt_ns_t dev = li.wake_dev;
    if (!g->primed) {
        g->primed = true;
        g->before = s.frames_lost;
    } else {
        for (uint64_t i = g->seen; i < s.frames_lost; i++, g->total++)
            if (g->n < LOST_CAP) {
                g->v[g->n][0] = g->prev_wake;
                g->v[g->n][1] = now;
                g->v[g->n][2] = dev > g->prev_dev ? dev : g->prev_dev;
                g->n++;
            }
    }
    g->seen = s.frames_lost;
    g->prev_wake = now;
    g->prev_dev = dev;
}

static json_object *lost_json(const struct lost_log *g)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array();
    json_object_object_add(o, "before_cycle_thread", json_object_new_uint64(g->before));
    json_object_object_add(o, "count", json_object_new_uint64(g->total));
    for (size_t i = 0; i < g->n; i++) {
        json_object *e = json_object_new_array();
        for (int k = 0; k < 3; k++)
            json_object_array_add(e, json_object_new_int64(g->v[i][k]));
        json_object_array_add(arr, e);
    }
    json_object_object_add(o, "fields", json_object_new_string("sent_ns, noticed_ns, wake_dev_ns"));
    json_object_object_add(o, "frames", arr);
    return o;
}

/* --echo: the application half of the stale-reply test (docs/devices.md, "echo"). Each
 * slave with a 32-bit input "Counter" and a 32-bit output "Echo" (the simulator's echo
 * device) gets its counter copied into its echo, but only in cycles whose inputs are
 * fresh (takt_ecat_master_inputs_age() == 0): what an application that acts only on current
 * data does. The device then tells how old each echo was, independently of the
 * master's own counters. */
#define ECHO_MAX 64
struct echo_app {
    unsigned n;
    struct takt_ecat_pd_entry in[ECHO_MAX], out[ECHO_MAX];
    uint64_t copied, held;          /* cycles with fresh inputs / with older ones */
    struct lost_log *lost;          /* --lost-times too: one callback does both */
};

static void echo_cb(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    struct echo_app *a = ctx;
    if (a->lost)
        lost_cb(a->lost, m, now);
    if (takt_ecat_master_inputs_age(m) != 0) {
        a->held++;
        return;
    }
    for (unsigned i = 0; i < a->n; i++)
        takt_ecat_pd_write(m, &a->out[i], takt_ecat_pd_read(m, &a->in[i]));
    a->copied++;
}

static unsigned echo_find(struct takt_ecat_master *m, struct echo_app *a)
{
    for (unsigned pos = 0; pos < takt_ecat_master_slave_count(m) && a->n < ECHO_MAX; pos++) {
        struct takt_ecat_pd_entry in, out;
        if (takt_ecat_pd_find(m, pos, "Counter", 0, 0, &in) || takt_ecat_pd_find(m, pos, "Echo", 0, 0, &out) ||
            in.output || !out.output || in.bits != 32 || out.bits != 32)
            continue;
        a->in[a->n] = in;
        a->out[a->n++] = out;
    }
    return a->n;
}

static json_object *echo_json(const struct echo_app *a)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "slaves", json_object_new_int((int)a->n));
    json_object_object_add(o, "cycles_copied", json_object_new_uint64(a->copied));
    json_object_object_add(o, "cycles_held", json_object_new_uint64(a->held));
    return o;
}

static bool loop_running(const struct takt_rt_loop *l)
{
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    return li.running;
}

static json_object *summary_json(struct takt_ecat_master *m, const struct takt_ecat_master_stats *s,
                                 takt_ns_t op_after, bool dc)
{
    struct takt_rt_loop *l = takt_ecat_master_loop(m);
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "slaves", json_object_new_int((int)takt_ecat_master_slave_count(m)));
    /* per slave the propagation delay DC set-up measured and wrote to 0x0928 (null: no
     * DC, or not set up); the reference clock's is 0 */
    json_object *dl = json_object_new_array();
    for (unsigned i = 0; i < takt_ecat_master_slave_count(m); i++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(m, i, &si);
        json_object_array_add(dl, dc && si.dc ? json_object_new_int(si.dc_delay_ns) : NULL);
    }
    json_object_object_add(o, "dc_delays_ns", dl);
    char st[200];
    /* the lowest state, when every slave answers and frames return; else unknown */
    json_object_object_add(o, "state", json_object_new_string(s->state ? takt_ecat_al_state_name(s->state)
                                                                         : "unknown"));
    json_object_object_add(o, "state_text", json_object_new_string(takt_ecat_master_state_text(s, st, sizeof st)));
    json_object *in = json_object_new_object();
    const struct { const char *n; unsigned v; } cnt[] = {
        { "INIT", s->slaves_init }, { "PREOP", s->slaves_preop }, { "BOOT", s->slaves_boot },
        { "SAFEOP", s->slaves_safeop }, { "OP", s->slaves_op },
    };
    for (size_t i = 0; i < sizeof cnt / sizeof cnt[0]; i++)
        json_object_object_add(in, cnt[i].n, json_object_new_int((int)cnt[i].v));
    json_object_object_add(o, "slaves_in_state", in);
    json_object_object_add(o, "slaves_not_answering", json_object_new_int((int)s->slaves_not_answering));
    json_object_object_add(o, "slaves_present", json_object_new_int((int)s->slaves_present));
    json_object_object_add(o, "silent_cycles", json_object_new_int((int)s->silent_cycles));
    json_object_object_add(o, "op_after_ms", json_object_new_double(op_after / 1e6));
    json_object_object_add(o, "cycles", json_object_new_uint64(li.cycles));
    json_object_object_add(o, "cycle_ns", json_object_new_int64(li.period));
    json_object_object_add(o, "overruns", json_object_new_uint64(li.overruns));
    json_object_object_add(o, "frames_sent", json_object_new_uint64(s->frames_sent));
    json_object_object_add(o, "frames_received", json_object_new_uint64(s->frames_received));
    json_object_object_add(o, "frames_lost", json_object_new_uint64(s->frames_lost));
    json_object_object_add(o, "cyclic_frames_lost", json_object_new_uint64(s->cyc_frames_lost));
    json_object_object_add(o, "frames_unmatched", json_object_new_uint64(s->frames_unmatched));
    json_object_object_add(o, "frames_late", json_object_new_uint64(s->frames_late));
    json_object_object_add(o, "frames_duplicate", json_object_new_uint64(s->frames_duplicate));
    json_object_object_add(o, "wkc_errors", json_object_new_uint64(s->wkc_errors));
    json_object_object_add(o, "slaves_lost", json_object_new_uint64(s->slaves_lost));
    json_object_object_add(o, "slaves_returned", json_object_new_uint64(s->slaves_returned));
    json_object_object_add(o, "dc_sync_err_ns", json_object_new_int64(s->dc_sync_err_ns));
    json_object_object_add(o, "dc_sync_err_max_ns", json_object_new_int64(s->dc_sync_err_max_ns));
    json_object_object_add(o, "dc_sync_invalid", json_object_new_uint64(s->dc_sync_invalid));
    /* the process's CPU over the cycle loop's run (docs/performance.md), and the RT
     * thread's share of it */
    double cpu_us = takt_rt_loop_cpu_per_cycle(l) / 1e3, thr_us = takt_rt_loop_thread_cpu_per_cycle(l) / 1e3;
    json_object_object_add(o, "cpu_us_per_cycle", json_object_new_double(cpu_us));
    json_object_object_add(o, "thread_cpu_us_per_cycle", json_object_new_double(thr_us));
    json_object *rates = json_object_new_object();
    static const char *const span[3] = { "1s", "10s", "60s" };
    for (int i = 0; i < 3; i++) {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "tx_per_s", json_object_new_double(s->tx_rate[i]));
        json_object_object_add(r, "lost_per_s", json_object_new_double(s->loss_rate[i]));
        json_object_object_add(rates, span[i], r);
    }
    json_object_object_add(o, "rates", rates);
    json_object_object_add(o, "perf", takt_perf_set_to_json(takt_rt_loop_perf(l)));
    return o;
}

static void print_summary(FILE *f, struct takt_ecat_master *m, const struct takt_ecat_master_stats *s)
{
    struct takt_rt_loop *l = takt_ecat_master_loop(m);
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    takt_perf_print_total(f, takt_rt_loop_perf(l));
    double cpu_us = takt_rt_loop_cpu_per_cycle(l) / 1e3, thr_us = takt_rt_loop_thread_cpu_per_cycle(l) / 1e3;
    char st[200];
    fprintf(f, "Summary: state %s; %" PRIu64 " cycles (%" PRIu64 " overruns)\n",
            takt_ecat_master_state_text(s, st, sizeof st), li.cycles, li.overruns);
    fprintf(f, "  frames: %" PRIu64 " sent, %" PRIu64 " back in time, %" PRIu64 " lost (%" PRIu64
            " cyclic; %" PRIu64 " of the lost came back late, never used), %" PRIu64 " duplicate, %"
            PRIu64 " unmatched; loss rate 1/10/60 s: %.1f/%.1f/%.1f per s\n", s->frames_sent,
            s->frames_received, s->frames_lost, s->cyc_frames_lost, s->frames_late,
            s->frames_duplicate, s->frames_unmatched, s->loss_rate[0], s->loss_rate[1],
            s->loss_rate[2]);
    fprintf(f, "  WKC errors: %" PRIu64 "; slaves lost/returned: %" PRIu64 "/%" PRIu64 "\n",
            s->wkc_errors, s->slaves_lost, s->slaves_returned);
    fprintf(f, "  DC sync error (|0x092C|, max over the DC slaves): last %" PRId64 " ns, max in OP %" PRId64
            " ns (%" PRIu64 " readings not counted: saturated, or the slave not in OP)\n", s->dc_sync_err_ns, s->dc_sync_err_max_ns,
            s->dc_sync_invalid);
    fprintf(f, "  CPU per cycle: %.2f us (process, over the cycle loop's run; RT thread %.2f us)\n",
            cpu_us, thr_us);
    /* the cyclictest view: how late each wake-up came */
    const struct takt_perf_msmt *wake = takt_rt_loop_msmt(l, TAKT_RT_LOOP_WAKE_DEVIATION);
    const struct takt_perf_hist *h = &wake->hist;
    int64_t p99 = takt_perf_hist_percentile(h, 99), p999 = takt_perf_hist_percentile(h, 99.9);
    char a[24], b[24];
    snprintf(a, sizeof a, p99 == INT64_MAX ? "> range" : "%.1f", p99 / 1e3);
    snprintf(b, sizeof b, p999 == INT64_MAX ? "> range" : "%.1f", p999 / 1e3);
    fprintf(f, "  Cycle deviation (wake-up - deadline) p99/p99.9/max: %s/%s/%.1f us\n", a, b,
            wake->total.count ? wake->total.max / 1e3 : 0.0);
}

int cli_ecat_run_link(struct cli_ctx *c, const struct ecat_run_args *a)
{
    const char *label = a->label ? a->label : "takt ecat run";
    /* The link is open: from here on only the cycle thread's set-up needs a capability
     * (docs/rt.md, Capabilities). */
    cli_drop_caps(c, cli_caps_for_rt(c) | (cli_get(c, "eoe") ? TAKT_RT_CAP(CAP_NET_ADMIN) : 0));
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = c->cycle_ns;
    o.dc = a->dc;
    o.dc_mode = a->dc_mode;
    o.redundant = a->redundant;
    char err[256];
    struct takt_ecat_master *m;
    if (takt_ecat_master_open(&m, a->link, &o, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", label, err);
        return 1;
    }
    int status = 0;
    takt_ns_t t0 = takt_now();
    struct cli_evlog evl;
    cli_evlog_init(&evl, label, t0, c->json);
    int rc = takt_ecat_master_scan(m, (takt_ns_t)((a->scan_timeout_s > 0 ? a->scan_timeout_s : 5) * 1e9));
    drain_events_but(m, &evl, rc != 0);
    if (rc || takt_ecat_master_slave_count(m) == 0) {
        fprintf(stderr, "%s: scan on %s: %s\n", label, a->link->name,
                rc ? takt_ecat_master_error(m) : "no slave answered (is the network connected?)");
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return 1;
    }
    unsigned n = takt_ecat_master_slave_count(m);
    size_t img;
    /* Without an ENI, PREOP first: slaves with CoE tell their real PDO assignment over
     * the mailbox. With one, the ENI's own commands take them through INIT -> PREOP. */
    const char *eni = cli_get(c, "eni");
    if (!eni && takt_ecat_master_set_state(m, TAKT_ECAT_STATE_PREOP, 15 * TAKT_NS_PER_S)) {
        drain_failing(m, &evl);
        fprintf(stderr, "%s: %s\n", label, takt_ecat_master_error(m));
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return 1;
    }
    if (!eni && !cli_flag(c, "sii-pdo")) {
        takt_ecat_master_read_pdos_coe(m);
        takt_ecat_master_read_pdos_soe(m);   /* SoE drives: their AT/MDT lists */
    }
    drain_events(m, &evl);
    if (eni ? takt_ecat_master_configure_eni(m, eni) : takt_ecat_master_configure(m)) {
        drain_failing(m, &evl);
        fprintf(stderr, "%s: %s\n", label, takt_ecat_master_error(m));
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return 1;
    }
    struct cli_eoe_run *eoe = NULL;
    if (cli_eoe_run_setup(c, m, &eoe)) {     /* the slaves are in PREOP: TAPs, IP parameters */
        drain_failing(m, &evl);
        cli_eoe_run_close(eoe);
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return 1;
    }
    takt_ecat_master_image(m, &img);
    printf("%s: %u slaves on %s, process image %zu bytes, cycle %.0f us%s\n", label, n,
           a->link->name, img, c->cycle_ns / 1e3, takt_ecat_master_dc_enabled(m) ? ", DC" : "");
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    ro.cpu = c->cpu;
    ro.prio = c->prio;
    ro.drop_caps = cli_caps_dropping();   /* the cycle thread, once set up */
    if ((rc = takt_ecat_master_request_state(m, TAKT_ECAT_STATE_OP))) {
        fprintf(stderr, "%s: %s\n", label, takt_ecat_master_error(m));
        cli_eoe_run_close(eoe);
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return 1;
    }
    /* metrics and the service protocol (docs/metrics.md, docs/service.md): set up before
     * the cycle starts, since they allocate and hook the perf flip */
    struct metrics *mx = NULL;
    struct sdn sd;
    sdn_open(&sd);
    if ((rc = metrics_open(c, a->link->name, "ecat", takt_ecat_master_loop(m), sdn_active(&sd), &mx))) {
        sdn_close(&sd);
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return rc;
    }
    if (mx) {
        metrics_ecat_names(mx, m);
        metrics_hook_flips(mx);
    }
    takt_ns_t dur = c->time_s > 0 ? (takt_ns_t)(c->time_s * 1e9) : 0;
    struct lost_log lost = { 0 };
    if (cli_flag(c, "lost-times")) {
        if (!(lost.v = calloc(LOST_CAP, sizeof *lost.v))) {
            metrics_close(mx);
            sdn_close(&sd);
            cli_eoe_run_close(eoe);
            takt_ecat_master_close(m);
            cli_evlog_free(&evl);
            return 1;
        }
        takt_ecat_master_set_callback(m, lost_cb, &lost);
    }
    struct echo_app *echo = NULL;
    if (cli_flag(c, "echo")) {
        if (!(echo = calloc(1, sizeof *echo))) {
            free(lost.v);
            metrics_close(mx);
            sdn_close(&sd);
            cli_eoe_run_close(eoe);
            takt_ecat_master_close(m);
            cli_evlog_free(&evl);
            return 1;
        }
        if (!echo_find(m, echo)) {
            fprintf(stderr, "%s: --echo: no slave has a 32-bit input 'Counter' and output 'Echo' "
                    "(expected the simulator's echo device, e.g. takt sim ecat --devices ek1100,echo)\n", label);
            free(echo);
            free(lost.v);
            metrics_close(mx);
            sdn_close(&sd);
            cli_eoe_run_close(eoe);
            takt_ecat_master_close(m);
            cli_evlog_free(&evl);
            return 1;
        }
        echo->lost = lost.v ? &lost : NULL;
        takt_ecat_master_set_callback(m, echo_cb, echo);
    }
    /* the thread runs until stopped: the run ends after dur, but not in the middle of a
     * silence (its summary could only say the state is unknown), at most 1 s later */
    /* the control socket: its copies are taken while no cycle runs */
    struct cli_ecat_ctl *ctl = NULL;
    cli_ecat_ctl_start(c, m, &ctl);
    if ((rc = takt_ecat_master_start(m, &ro, 0))) {
        cli_ecat_ctl_stop(ctl);
        cli_ecat_ctl_free(ctl);
        free(lost.v);
        free(echo);
        metrics_close(mx);
        sdn_close(&sd);
        fprintf(stderr, "%s: cannot start the cycle thread: %s\n", label, takt_strerror(rc));
        cli_eoe_run_close(eoe);
        takt_ecat_master_close(m);
        cli_evlog_free(&evl);
        return 1;
    }
    cli_drop_caps(c, cli_caps_after_rt(c));   /* this thread made the last one it needed */
    struct takt_rt_loop *l = takt_ecat_master_loop(m);
    takt_ns_t started = takt_now();
    /* the interval banks are taken every --perf S, or every second for the metrics */
    takt_ns_t snap_every = (takt_ns_t)((c->perf_s > 0 ? c->perf_s : 1) * 1e9), next_snap = started + snap_every;
    takt_ns_t op_after = -1, end = dur ? started + dur : 0;
    char last_status[200] = "";
    while (loop_running(l) && !cli_interrupted) {
        /* sleep until the cycle wakes this thread (events, the network's state changed),
         * a signal, or the next duty: -t's end (past it, waiting out a silence: a look
         * every 20 ms), an interval report, metrics, the watchdog */
        takt_ns_t now = takt_now(), due = now + CLI_REPORT_IDLE_NS;
        if (end)
            due = sooner(due, end > now ? end : now + 20 * TAKT_NS_PER_MS);
        if (c->perf_s > 0 || mx)
            due = sooner(due, next_snap);
        due = sooner(due, sooner(metrics_next_due(mx), sdn_next_due(&sd)));
        if (due > now)
            takt_ecat_master_wait_ev(m, due - now);
        drain_events(m, &evl);
        if (op_after < 0 && takt_ecat_master_state(m) == TAKT_ECAT_STATE_OP) {
            op_after = takt_now() - t0;
            printf("%s: all %u slaves in OP after %.0f ms\n", label, n, op_after / 1e6);
            fflush(stdout);
            char st[120];
            snprintf(st, sizeof st, "OP, slaves %u/%u, cycle %.0f us", n, n, c->cycle_ns / 1e3);
            sdn_ready(&sd, st);
        }
        if (end && takt_now() >= end) {
            struct takt_ecat_master_stats q;
            takt_ecat_master_get_stats(m, &q);
            if (!q.silent_cycles || takt_now() >= end + TAKT_NS_PER_S)
                break;
        }
        if ((c->perf_s > 0 || mx) && takt_now() >= next_snap) {
            next_snap += snap_every;
            int bank = takt_perf_set_snapshot(takt_rt_loop_perf(l), 200 * TAKT_NS_PER_MS);
            if (bank >= 0) {
                if (mx)
                    metrics_add_bank(mx, takt_rt_loop_perf(l), bank);
                if (c->perf_s > 0)
                    takt_perf_print_interval(stdout, takt_rt_loop_perf(l), bank);
                takt_perf_set_release(takt_rt_loop_perf(l), bank);
            }
            if (c->perf_s > 0) {
                struct takt_ecat_master_stats s;
                takt_ecat_master_get_stats(m, &s);
                char st[200];
                printf("State %s, frames lost %" PRIu64 ", WKC errors %" PRIu64
                       ", DC sync error %" PRId64 " ns\n", takt_ecat_master_state_text(&s, st, sizeof st),
                       s.frames_lost, s.wkc_errors, s.dc_sync_err_ns);
                fflush(stdout);
            }
        }
        if (metrics_due(mx, takt_now()))
            metrics_write_ecat(mx, m, false);
        if (sdn_active(&sd)) {
            struct takt_ecat_master_stats q;
            takt_ecat_master_get_stats(m, &q);
            uint64_t lc, lo;
            metrics_latched(mx, &lc, &lo);
            sdn_watchdog(&sd, takt_now(), q.cycles, q.frames_received, lo, lc);
            char st[200];
            takt_ecat_master_state_text(&q, st, sizeof st);
            if (strcmp(st, last_status)) {
                snprintf(last_status, sizeof last_status, "%s", st);
                sdn_status(&sd, st);
            }
        }
    }
    sdn_send(&sd, "STOPPING=1");
    cli_ecat_ctl_stop(ctl);    /* no request reaches the master from here on */
    takt_ecat_master_stop(m);
    takt_ecat_master_join(m);
    drain_events_but(m, &evl, op_after < 0);
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(m, &s);
    print_summary(stdout, m, &s);
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    cli_eoe_run_print(stdout, m, eoe);
    cli_ecat_red_print(stdout, m);
    if (cli_check_overruns(c, li.cycles, li.overruns, c->cycle_ns))
        status = 1;
    if (op_after < 0) {
        char st[200];
        fprintf(stderr, "%s: the network did not reach OP (state %s)%s%s\n", label,
                takt_ecat_master_state_text(&s, st, sizeof st), takt_ecat_master_error(m)[0] ? ": " : "",
                takt_ecat_master_error(m));
        status = 1;
    }
    if (mx)
        metrics_write_ecat(mx, m, true);
    metrics_close(mx);
    sdn_close(&sd);
    json_object *sj = c->json ? summary_json(m, &s, op_after, takt_ecat_master_dc_enabled(m)) : NULL;
    cli_evlog_to_json(&evl, sj);
    cli_evlog_free(&evl);
    if (sj && lost.v)
        json_object_object_add(sj, "lost_frames", lost_json(&lost));
    if (sj && echo)
        json_object_object_add(sj, "echo", echo_json(echo));
    if (sj && eoe)
        json_object_object_add(sj, "eoe", cli_eoe_run_json(m, eoe));
    json_object *rj = sj ? cli_ecat_red_json(m) : NULL;
    if (rj)
        json_object_object_add(sj, "redundancy", rj);
    free(lost.v);
    free(echo);
    int jrc = sj ? cli_write_json(c, sj) : 0;
    json_object_put(sj);
    if (jrc)
        status = 1;
    cli_eoe_run_close(eoe);
    takt_ecat_master_close(m);
    cli_ecat_ctl_free(ctl);    /* operations the cycle never completed: freed only now */
    return status;
}

int cli_ecat_run(struct cli_ctx *c);
int cli_ecat_run(struct cli_ctx *c)
{
    struct ecat_run_args a = { .dc = cli_flag(c, "dc"), .label = "takt ecat run" };
    const char *mode = cli_get(c, "dc-mode");
    if (mode) {
        if (!strcmp(mode, "master"))
            a.dc_mode = TAKT_ECAT_DC_MASTER_FOLLOWS_REF;
        else if (!strcmp(mode, "ref"))
            a.dc_mode = TAKT_ECAT_DC_REF_FOLLOWS_MASTER;
        else
            return cli_usage_error(c, "--dc-mode expects 'master' or 'ref', got '%s'", mode);
    }
    /* the second port first: opening the first drops the capability to open links */
    int rc = cli_get(c, "redundant") && !c->link ? cli_ecat_open_second(c, &a.redundant) : 0;
    if (rc)
        return rc;
    if ((rc = cli_ecat_open_link(c, &a.link))) {
        takt_link_close(a.redundant);
        return rc;
    }
    rc = cli_ecat_run_link(c, &a);
    takt_link_close(a.redundant);
    takt_link_close(a.link);
    return rc;
}
