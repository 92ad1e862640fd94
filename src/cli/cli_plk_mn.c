/* takt plk mn's session: run the MN on a link with interval statistics, the measured
 * steady window of --measure (boot excluded), the per-node table and the JSON report. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"
#include "cli/cli_events.h"
#include "cli/metrics.h"
#include "cli/sdnotify.h"

static void node_lat_stat(const struct takt_plk_node_stats *s, struct takt_perf_stat *p)
{
    p->min = s->pres_lat_min;
    p->max = s->pres_lat_max;
    p->sum = s->pres_lat_sum;
    p->count = s->pres_ok + s->pres_late;   /* every PRes taken, in time or late */
}

/* Per-node line and PerfMsmt line for the PRes latency. */
static void print_nodes(FILE *f, struct takt_plk_mn *mn, const struct takt_plk_mn_info *mi)
{
    for (unsigned i = 0; i < mi->n_nodes; i++) {
        struct takt_plk_node_stats s;
        struct takt_plk_node_info ni;
        takt_plk_mn_node_stats(mn, mi->nodes[i], &s);
        takt_plk_mn_node_info(mn, mi->nodes[i], &ni);
        struct takt_perf_stat p;
        node_lat_stat(&s, &p);
        char name[40];
        snprintf(name, sizeof name, "PRes Latency node %u", mi->nodes[i]);
        if (p.count)
            takt_perf_print_line(f, name, &p);
        fprintf(f, "  node %3u %-18s %-20s ok %" PRIu64 " lost %" PRIu64 " late %" PRIu64
                   " unexpected %" PRIu64 " thr %" PRIu64 " resets %" PRIu64 " boots %" PRIu64
                   " identfail %" PRIu64 "\n",
                mi->nodes[i], takt_plk_nmt_name(s.state),
                takt_plk_boot_step_name(ni.step), s.pres_ok, s.pres_lost,
                s.pres_late, s.unexpected, s.loss_threshold_hits, s.lost, s.boots, s.ident_fail);
        if (s.nmt_requests || s.status_lost || s.config_skipped || s.config_stored)
            fprintf(f, "           NMT requests %" PRIu64 ", StatusRequests unanswered %" PRIu64
                       ", configuration stored %" PRIu64 ", download skipped %" PRIu64 "\n",
                    s.nmt_requests, s.status_lost, s.config_stored, s.config_skipped);
        if (ni.note[0])
            fprintf(f, "           %s\n", ni.note);
        if (ni.last_reset)
            fprintf(f, "           last reset: %s\n", ni.last_reset);
    }
    struct takt_plk_mn_stats st;
    takt_plk_mn_get_stats(mn, &st);
    if (st.cycle_exceed_hits)
        fprintf(f, "cycle time exceeded in %" PRIu64 " cycles; the 0x1C02 threshold fired %" PRIu64
                   " times (MN back to PreOp1, every CN reset)\n", st.cycle_exceeded, st.cycle_exceed_hits);
    if (st.nmt_requests)
        fprintf(f, "NMT requests from CNs: %" PRIu64 " (executed %" PRIu64 ", refused %" PRIu64 ")%s%s\n",
                st.nmt_requests, st.nmt_requests_done, st.nmt_requests_refused,
                mi->nmtreq_last_refused[0] ? "; last refused: " : "", mi->nmtreq_last_refused);
}

static json_object *mn_json(struct takt_plk_mn *mn, const struct takt_plk_mn_info *mi)
{
    struct takt_plk_mn_stats st;
    takt_plk_mn_get_stats(mn, &st);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "role", json_object_new_string("mn"));
    json_object_object_add(o, "cycle_us", json_object_new_int64(mi->cycle_us));
    json_object_object_add(o, "state", json_object_new_string(takt_plk_nmt_name(st.state)));
    json_object_object_add(o, "cycles", json_object_new_uint64(st.cycles));
    json_object_object_add(o, "cycle_exceeded", json_object_new_uint64(st.cycle_exceeded));
    json_object_object_add(o, "cycle_exceed_threshold_hits", json_object_new_uint64(st.cycle_exceed_hits));
    json_object_object_add(o, "cycle_exceed_threshold", json_object_new_uint64(mi->cycle_exceed_threshold));
    json_object_object_add(o, "frames_tx", json_object_new_uint64(st.frames_tx));
    json_object_object_add(o, "frames_rx", json_object_new_uint64(st.frames_rx));
    json_object_object_add(o, "bad_frames", json_object_new_uint64(st.bad_frames));
    json_object_object_add(o, "unexpected", json_object_new_uint64(st.unexpected));
    json_object_object_add(o, "sdo_ok", json_object_new_uint64(st.sdo_ok));
    json_object_object_add(o, "sdo_fail", json_object_new_uint64(st.sdo_fail));
    json_object_object_add(o, "nodes_configured", json_object_new_int(st.nodes_configured));
    json_object_object_add(o, "nodes_operational", json_object_new_int(st.nodes_operational));
    json_object_object_add(o, "nmt_requests", json_object_new_uint64(st.nmt_requests));
    json_object_object_add(o, "nmt_requests_done", json_object_new_uint64(st.nmt_requests_done));
    json_object_object_add(o, "nmt_requests_refused", json_object_new_uint64(st.nmt_requests_refused));
    if (mi->nmtreq_last_refused[0])
        json_object_object_add(o, "nmt_request_last_refused", json_object_new_string(mi->nmtreq_last_refused));
    uint64_t lost = 0;
    json_object *arr = json_object_new_array();
    for (unsigned i = 0; i < mi->n_nodes; i++) {
        struct takt_plk_node_stats s;
        struct takt_plk_node_info ni;
        takt_plk_mn_node_stats(mn, mi->nodes[i], &s);
        takt_plk_mn_node_info(mn, mi->nodes[i], &ni);
        struct takt_perf_stat p;
        node_lat_stat(&s, &p);
        json_object *n = json_object_new_object();
        json_object_object_add(n, "node", json_object_new_int(mi->nodes[i]));
        json_object_object_add(n, "state", json_object_new_string(takt_plk_nmt_name(s.state)));
        json_object_object_add(n, "chained", json_object_new_boolean(ni.chain_active));
        json_object_object_add(n, "pres_ok", json_object_new_uint64(s.pres_ok));
        json_object_object_add(n, "pres_lost", json_object_new_uint64(s.pres_lost));
        json_object_object_add(n, "pres_late", json_object_new_uint64(s.pres_late));
        json_object_object_add(n, "pres_held", json_object_new_uint64(s.pres_held));
        json_object_object_add(n, "pres_read_lat_max_ns", json_object_new_int64(s.pres_read_lat_max));
        json_object_object_add(n, "unexpected", json_object_new_uint64(s.unexpected));
        json_object_object_add(n, "loss_threshold_hits", json_object_new_uint64(s.loss_threshold_hits));
        json_object_object_add(n, "loss_pres_threshold", json_object_new_uint64(ni.loss_pres_threshold));
        json_object_object_add(n, "pres_timeout_ns", json_object_new_uint64(ni.pres_timeout_ns));
        json_object_object_add(n, "resets", json_object_new_uint64(s.lost));
        if (ni.last_reset)
            json_object_object_add(n, "last_reset", json_object_new_string(ni.last_reset));
        json_object_object_add(n, "boots", json_object_new_uint64(s.boots));
        json_object_object_add(n, "ident_fail", json_object_new_uint64(s.ident_fail));
        json_object_object_add(n, "bad_frames", json_object_new_uint64(s.bad_frames));
        json_object_object_add(n, "nmt_requests", json_object_new_uint64(s.nmt_requests));
        json_object_object_add(n, "status_lost", json_object_new_uint64(s.status_lost));
        json_object_object_add(n, "config_stored", json_object_new_uint64(s.config_stored));
        json_object_object_add(n, "config_skipped", json_object_new_uint64(s.config_skipped));
        if (ni.note[0])
            json_object_object_add(n, "note", json_object_new_string(ni.note));
        json_object_array_add(arr, n);
        json_object_object_add(n, "pres_latency", takt_perf_msmt_to_json(&p, NULL, "PRes Latency"));
        lost += s.pres_lost;
    }
    json_object_object_add(o, "pres_lost_total", json_object_new_uint64(lost));
    json_object_object_add(o, "nodes", arr);
    struct takt_rt_loop *l = takt_plk_mn_loop(mn);
    if (l)
        json_object_object_add(o, "loop", takt_rt_loop_to_json(l));
    return o;
}

/* The measured window of --measure: opens when the MN and every CN are Operational
 * (the interval bank holding the boot is discarded), closes measure_s later. The
 * counters are latched by the RT thread at the bank flips, so the window's cycle count
 * and its Cycle Time statistics cover exactly the same cycles. */
struct mn_counters {
    uint64_t cycles, lost, late, overruns, exceeded;
    int64_t cpu_ns;   /* the process's CPU time (what /proc/PID/stat counts) */
};

struct mn_window {
    bool open;
    takt_ns_t end;
    const struct takt_plk_mn *mn;
    const struct takt_plk_mn_info *mi;
    const struct takt_rt_loop *loop;
    struct mn_counters at_flip;  /* written by the RT thread at each flip */
    struct mn_counters from, n;  /* at the opening flip; over the window */
    int bank;          /* interval bank with the window's statistics, -1 before it closed */
    int64_t wall_open, wall_close;  /* CLOCK_REALTIME ns, to cut a capture to the window */
    takt_ns_t started, boot;        /* MN start; from it to the window's opening */
};

static int64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * TAKT_NS_PER_S + t.tv_nsec;
}

/* PRes lost and late, summed over the CNs. */
static void mn_pres_sums(const struct takt_plk_mn *mn, const struct takt_plk_mn_info *mi,
                         uint64_t *lost, uint64_t *late)
{
    *lost = *late = 0;
    for (unsigned i = 0; i < mi->n_nodes; i++) {
        struct takt_plk_node_stats s;
        takt_plk_mn_node_stats(mn, mi->nodes[i], &s);
        *lost += s.pres_lost;
        *late += s.pres_late;
    }
}

static uint64_t loop_overruns(const struct takt_rt_loop *l)
{
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    return li.overruns;
}

static uint64_t loop_cycles(const struct takt_rt_loop *l)
{
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(l, &li);
    return li.cycles;
}

/* perf flip hook, in the RT thread: the counters at the interval's edge (what this
 * thread published at the end of its last step: the flip comes after it). */
static void mn_window_latch(void *arg)
{
    struct mn_window *w = arg;
    struct takt_plk_mn_stats ms;
    takt_plk_mn_get_stats(w->mn, &ms);
    uint64_t lost, late;
    mn_pres_sums(w->mn, w->mi, &lost, &late);
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);   /* at the window's edges only */
    w->at_flip = (struct mn_counters){
        .cpu_ns = (int64_t)cpu.tv_sec * TAKT_NS_PER_S + cpu.tv_nsec,
        .cycles = ms.cycles,
        .lost = lost,
        .late = late,
        .overruns = loop_overruns(w->loop),
        .exceeded = ms.cycle_exceeded,
    };
}

/* Returns true when the window has closed (stop the MN). */
static bool mn_window_step(struct mn_window *w, const struct takt_plk_mn *mn,
                           const struct takt_plk_mn_info *mi, const struct takt_plk_mn_stats *ms,
                           struct takt_rt_loop *l, double measure_s)
{
    if (!w->open) {
        if (ms->state != TAKT_PLK_OPERATIONAL || ms->nodes_operational != mi->n_nodes)
            return false;
        w->mn = mn;
        w->mi = mi;
        w->loop = l;
        takt_perf_set_on_flip(takt_rt_loop_perf(l), mn_window_latch, w);
        int b = takt_perf_set_snapshot(takt_rt_loop_perf(l), TAKT_NS_PER_S);
        if (b < 0)
            return false;   /* the RT side did not flip yet: the request stays pending */
        takt_perf_set_release(takt_rt_loop_perf(l), b);
        w->from = w->at_flip;
        w->boot = takt_now() - w->started;
        w->end = takt_now() + (takt_ns_t)(measure_s * 1e9);
        w->wall_open = wall_ns();
        w->open = true;
        return false;
    }
    if (takt_now() < w->end)
        return false;
    w->bank = takt_perf_set_snapshot(takt_rt_loop_perf(l), TAKT_NS_PER_S);
    if (w->bank < 0)
        return false;
    takt_perf_set_on_flip(takt_rt_loop_perf(l), NULL, NULL);
    w->wall_close = wall_ns();
    w->n = (struct mn_counters){
        .cycles = w->at_flip.cycles - w->from.cycles,
        .lost = w->at_flip.lost - w->from.lost,
        .late = w->at_flip.late - w->from.late,
        .overruns = w->at_flip.overruns - w->from.overruns,
        .exceeded = w->at_flip.exceeded - w->from.exceeded,
        .cpu_ns = w->at_flip.cpu_ns - w->from.cpu_ns,
    };
    return true;
}

static json_object *mn_window_json(const struct mn_window *w, struct takt_rt_loop *l, double measure_s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "seconds", json_object_new_double(measure_s));
    json_object_object_add(o, "boot_s", json_object_new_double((double)w->boot / 1e9));
    json_object_object_add(o, "cycles", json_object_new_uint64(w->n.cycles));
    json_object_object_add(o, "pres_lost", json_object_new_uint64(w->n.lost));
    json_object_object_add(o, "pres_late", json_object_new_uint64(w->n.late));
    json_object_object_add(o, "overruns", json_object_new_uint64(w->n.overruns));
    json_object_object_add(o, "cycle_exceeded", json_object_new_uint64(w->n.exceeded));
    json_object_object_add(o, "cpu_ns", json_object_new_int64(w->n.cpu_ns));
    json_object_object_add(o, "cpu_per_cycle_ns",
                           json_object_new_int64(w->n.cycles ? w->n.cpu_ns / (int64_t)w->n.cycles : 0));
    json_object_object_add(o, "start_realtime_ns", json_object_new_int64(w->wall_open));
    json_object_object_add(o, "end_realtime_ns", json_object_new_int64(w->wall_close));
    json_object_object_add(o, "perf", takt_perf_set_interval_to_json(takt_rt_loop_perf(l), w->bank));
    return o;
}

static takt_ns_t sooner(takt_ns_t a, takt_ns_t b) { return a < b ? a : b; }

/* Print the MN's per-node events as they came (from its event ring: this thread never
 * reads the core the RT thread writes); boot steps only with -v, all in the JSON. */
static void print_events(struct cli_ctx *c, struct takt_plk_mn *mn, struct cli_evlog *l)
{
    struct takt_event ev;
    while (takt_plk_mn_next_event(mn, &ev))
        cli_evlog_add(l, &ev, c->verbose || ev.proto != TAKT_EV_PLK || ev.code != TAKT_PLK_EV_STEP, NULL);
}

/* Run an MN on `link` with configuration nc until -t or Ctrl-C; print statistics
 * every --perf seconds and at the end; JSON to --json. Exit status 0 when every CN is
 * Operational at the end, 3 otherwise. The link stays the caller's. */
int cli_plk_mn_session(struct cli_ctx *c, const struct takt_plk_net *nc, struct takt_link *link,
                       struct cli_plk_veth *veth)
{
    char err[320];
    struct takt_plk_mn *mn;
    int rc = takt_plk_mn_create_net(nc, &mn, err, sizeof err);
    if (rc)
        return cli_error(c, "%s", err);
    /* --measure S: statistics of S seconds of steady operation, boot excluded (takt bench) */
    double measure_s = 0;
    const char *mopt = cli_get(c, "measure");
    if (mopt && cli_parse_double(c, "--measure (seconds)", mopt, 0.01, 1e6, &measure_s)) {
        takt_plk_mn_destroy(mn);
        return 2;
    }
    double limit_s = c->time_s > 0 ? c->time_s : measure_s > 0 ? measure_s + 60 : 0;
    struct takt_plk_run_opts o = { .duration = (takt_ns_t)(limit_s * 1e9) };
    takt_rt_opts_default(&o.rt);
    o.rt.cpu = c->cpu;
    o.rt.prio = c->prio;
    o.rt.drop_caps = cli_caps_dropping();   /* the cycle thread, once set up */
    o.thread_cpu = cli_flag(c, "thread-cpu");
    /* the configuration part stays as it is; the rest is read again at the end */
    struct takt_plk_mn_info mi;
    takt_plk_mn_get_info(mn, &mi);
    fprintf(stderr, "takt plk mn: %s, cycle %u us, %u CNs configured\n", link->name,
            mi.cycle_us, mi.n_nodes);
    if (veth)
        takt_plk_mn_veth(mn, veth->mac);
    if ((rc = takt_plk_mn_start(mn, link, &o))) {
        takt_plk_mn_destroy(mn);
        return cli_error(c, "cannot start the MN cycle: %s", takt_strerror(rc));
    }
    if (veth && (rc = cli_plk_veth_start(c, veth, mn)))
        fprintf(stderr, "takt plk mn: no virtual Ethernet thread: %s\n", strerror(-rc));
    else if (veth)
        fprintf(stderr, "takt plk mn: virtual Ethernet %s up\n", veth->name);
    cli_drop_caps(c, cli_caps_after_rt(c));
    struct cli_plk_ctl *ctl;
    cli_plk_ctl_start(c, mn, &ctl);
    struct takt_rt_loop *l = takt_plk_mn_loop(mn);
    /* metrics and the service protocol (docs/metrics.md, docs/service.md); the loop and
     * its measurements exist once the MN started */
    struct metrics *mx = NULL;
    struct sdn sd;
    sdn_open(&sd);
    if ((rc = metrics_open(c, c->iface ? c->iface : link->name, "powerlink", l, sdn_active(&sd), &mx))) {
        sdn_close(&sd);
        cli_plk_ctl_stop(ctl);
        takt_plk_mn_stop(mn);
        takt_plk_mn_join(mn);
        takt_plk_mn_destroy(mn);
        return rc;
    }
    if (mx && measure_s <= 0)
        metrics_hook_flips(mx);
    char last_status[120] = "";
    /* interval reports and the measured window both use the interval banks: one or the
     * other; the metrics take the banks of the reports, or every second without them */
    bool banks = measure_s <= 0 && (c->perf_s > 0 || mx);
    takt_ns_t every = (takt_ns_t)((c->perf_s > 0 ? c->perf_s : 1) * 1e9);
    takt_ns_t next = banks ? takt_now() + every : INT64_MAX;
    uint8_t last_state = 0;
    unsigned last_op = 0;
    struct mn_window w = { .bank = -1, .started = takt_now() };
    struct cli_evlog evl;
    cli_evlog_init(&evl, "takt plk mn", w.started, c->json);
    /* while the RT thread runs, the MN's figures come from what it published (ms) and
     * its node events: never from the core it writes */
    struct takt_plk_mn_stats ms;
    while (!cli_interrupted && !takt_rt_loop_ended(l)) {
        takt_plk_mn_get_stats(mn, &ms);
        if (measure_s > 0 && mn_window_step(&w, mn, &mi, &ms, l, measure_s))
            break;
        /* sleep until the RT thread wakes this thread (node events, the MN's state or
         * its count of Operational CNs changed, the cycle ended), a signal, or the next
         * duty: interval report, metrics, watchdog, the window's edge (a window whose
         * opening flip is still pending: soon again) */
        takt_ns_t now = takt_now(), due = now + CLI_REPORT_IDLE_NS;
        due = sooner(sooner(due, next), sooner(metrics_next_due(mx), sdn_next_due(&sd)));
        if (measure_s > 0 && (w.open || (ms.state == TAKT_PLK_OPERATIONAL && ms.nodes_operational == mi.n_nodes)))
            due = sooner(due, w.open ? w.end : now + 10 * TAKT_NS_PER_MS);
        if (due > now)
            takt_plk_mn_wait_event(mn, due - now);
        print_events(c, mn, &evl);
        takt_plk_mn_get_stats(mn, &ms);
        if (ms.state != last_state || ms.nodes_operational != last_op) {
            last_state = ms.state;
            last_op = ms.nodes_operational;
            if (c->verbose || cli_progress_enabled())
                fprintf(stderr, "takt plk mn: MN %s, %u of %u CNs operational\n",
                        takt_plk_nmt_name(last_state), last_op, mi.n_nodes);
        }
        if (sdn_active(&sd)) {
            char st[120];
            snprintf(st, sizeof st, "MN %s, %u of %u CNs operational", takt_plk_nmt_name(ms.state),
                     ms.nodes_operational, mi.n_nodes);
            if (ms.state == TAKT_PLK_OPERATIONAL && ms.nodes_operational == mi.n_nodes)
                sdn_ready(&sd, st);
            if (strcmp(st, last_status)) {
                snprintf(last_status, sizeof last_status, "%s", st);
                sdn_status(&sd, st);
            }
            uint64_t lc, lo;
            metrics_latched(mx, &lc, &lo);
            sdn_watchdog(&sd, takt_now(), ms.cycles, ms.frames_rx, lo, lc);
        }
        if (metrics_due(mx, takt_now()))
            metrics_write_plk_mn(mx, mn, false);
        if (takt_now() < next)
            continue;
        next += every;
        int bank = takt_perf_set_snapshot(takt_rt_loop_perf(l), TAKT_NS_PER_S);
        if (bank < 0)
            continue;
        if (mx)
            metrics_add_bank(mx, takt_rt_loop_perf(l), bank);
        if (c->perf_s > 0)
            takt_perf_print_interval(stdout, takt_rt_loop_perf(l), bank);
        takt_perf_set_release(takt_rt_loop_perf(l), bank);
        if (c->perf_s <= 0)
            continue;
        printf("MN %s: %u/%u CNs operational, cycles %" PRIu64 ", cycle time exceeded %" PRIu64 "\n",
               takt_plk_nmt_name(ms.state), ms.nodes_operational, mi.n_nodes,
               ms.cycles, ms.cycle_exceeded);
        fflush(stdout);
    }
    sdn_send(&sd, "STOPPING=1");
    cli_plk_ctl_stop(ctl);     /* no SDO transfer is started from here on */
    takt_plk_mn_stop(mn);
    takt_plk_mn_join(mn);
    if (veth) {
        cli_plk_veth_close(veth);
        printf("--- virtual Ethernet %s: %" PRIu64 " frames to the network, %" PRIu64 " to the host, "
               "%" PRIu64 " dropped\n", veth->name, veth->to_net, veth->to_host,
               veth->dropped + takt_plk_mn_veth_dropped(mn));
    }
    print_events(c, mn, &evl);
    takt_plk_mn_get_info(mn, &mi);   /* the last NMTRequest refused */
    takt_plk_mn_get_stats(mn, &ms);
    /* the link named, and why nothing answered where it had no carrier */
    int carrier = c->iface ? takt_link_carrier(c->iface) : 1;   /* the demo's mem link: no interface */
    printf("--- takt plk mn: MN %s, %u of %u CNs operational on %s%s%s\n", takt_plk_nmt_name(ms.state),
           ms.nodes_operational, mi.n_nodes, c->iface ? c->iface : link->name,
           carrier == 0 ? ", which has no carrier (cable unplugged?)" : "",
           carrier == -ENETDOWN ? ", which is down" : "");
    takt_perf_print_total(stdout, takt_rt_loop_perf(l));
    takt_rt_loop_print_summary(stdout, l);
    print_nodes(stdout, mn, &mi);
    if (w.bank >= 0) {
        printf("--- measured window: %.1f s of steady operation (boot excluded: every CN Operational "
               "%.1f s after the start), %" PRIu64 " cycles, %" PRIu64 " PRes lost, CPU per cycle %.2f us "
               "(process)\n", measure_s, (double)w.boot / 1e9, w.n.cycles, w.n.lost,
               w.n.cycles ? (double)w.n.cpu_ns / 1e3 / (double)w.n.cycles : 0.0);
        takt_perf_print_interval(stdout, takt_rt_loop_perf(l), w.bank);
    } else if (measure_s > 0) {
        fprintf(stderr, "takt plk mn: not every CN was Operational within %.1f s: nothing measured\n", limit_s);
    }
    if (c->json) {
        json_object *j = mn_json(mn, &mi);
        if (w.bank >= 0)
            json_object_object_add(j, "measure", mn_window_json(&w, l, measure_s));
        cli_evlog_to_json(&evl, j);
        cli_write_json(c, j);
        json_object_put(j);
    }
    if (w.bank >= 0)
        takt_perf_set_release(takt_rt_loop_perf(l), w.bank);
    if (mx)
        metrics_write_plk_mn(mx, mn, true);
    metrics_close(mx);
    sdn_close(&sd);
    bool ok = ms.nodes_operational == mi.n_nodes && (measure_s <= 0 || w.bank >= 0);
    /* most cycles late: the figures above are not of the cycle asked for */
    bool held = !cli_check_overruns(c, loop_cycles(l), loop_overruns(l), (int64_t)mi.cycle_us * 1000);
    cli_evlog_free(&evl);
    takt_plk_mn_destroy(mn);
    return !ok ? 3 : held ? 0 : 1;
}
