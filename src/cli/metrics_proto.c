/* What takt exposes, as Prometheus families (docs/metrics.md lists them): the loop, the
 * PerfMsmt histograms, the EtherCAT master, the POWERLINK MN. Pure renderers: structs in,
 * text out (metrics_fmt.c), so the unit test checks them against golden text. */
#include "cli/metrics.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void mx_loop(struct mx_buf *b, const struct mx_loop *l)
{
    mx_counter(b, "takt_cycles_total", "Cycles the real-time loop ran.", l->cycles);
    mx_counter(b, "takt_overruns_total", "Cycles that began after their deadline had passed "
               "(the loop fell a period or more behind).", l->overruns);
    mx_gauge(b, "takt_cycle_period_seconds", "The cycle time asked for.", l->period_ns / 1e9);
    if (l->ended) {
        mx_family(b, "takt_cpu_seconds_total", "counter", "CPU time of the whole process, every "
                  "thread, over the cycle loop's run, as /proc counts it (written once the cycle ended).");
        mx_sample(b, "takt_cpu_seconds_total", NULL, l->cpu_ns / 1e9);
        mx_gauge(b, "takt_cpu_seconds_per_cycle", "CPU time of the whole process per cycle.",
                 l->cycles ? l->cpu_ns / 1e9 / (double)l->cycles : 0);
        mx_family(b, "takt_rt_thread_cpu_seconds_total", "counter", "The cycle thread's share of "
                  "takt_cpu_seconds_total (written once the cycle ended).");
        mx_sample(b, "takt_rt_thread_cpu_seconds_total", NULL, l->thread_cpu_ns / 1e9);
    }
}

static bool is_period(const char *name)
{
    return !strcmp(name, "Cycle Time") || !strcmp(name, "SoC Period");
}

void mx_perf(struct mx_buf *b, const struct mx_perf *p, int64_t period_ns)
{
    if (!p->n)
        return;
    mx_family(b, "takt_perf_seconds", "histogram", "The PerfMsmt measurements (label msmt: the "
              "name of the PerfMsmt line), per cycle. A bucket counts the values below its le.");
    for (unsigned i = 0; i < p->n; i++) {
        int64_t edges[64];
        unsigned n = mx_edges(p->hist[i], is_period(p->name[i]) ? period_ns : 0, edges, 64);
        char esc[96], lab[120];
        mx_escape(esc, sizeof esc, p->name[i]);
        snprintf(lab, sizeof lab, "msmt=\"%s\"", esc);
        mx_histogram(b, "takt_perf_seconds", lab, p->stat[i], p->hist[i], edges, n);
    }
}

struct u64_field {
    const char *name, *help;
    size_t off;
};

static uint64_t u64_at(const void *s, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)s + off, sizeof v);
    return v;
}

#define EF(n, h, f) { "takt_ecat_" n "_total", h, offsetof(struct takt_ecat_master_stats, f) }
static const struct u64_field ecat_counters[] = {
    EF("frames_sent", "EtherCAT frames sent (cyclic and acyclic).", frames_sent),
    EF("frames_received", "Frames back in their time (their data was used).", frames_received),
    EF("frames_lost", "Frames not back in their cycle (cyclic) or within the datagram timeout "
       "(acyclic).", frames_lost),
    EF("cyclic_frames_sent", "Cyclic (process data) frames sent.", cyc_frames_sent),
    EF("cyclic_frames_lost", "Cyclic frames lost.", cyc_frames_lost),
    EF("frames_late", "Frames counted lost that came back later (never used).", frames_late),
    EF("frames_duplicate", "A second copy of a frame already back.", frames_duplicate),
    EF("frames_unmatched", "Frames received that answer no frame this master sent.", frames_unmatched),
    EF("wkc_errors", "Cyclic datagrams with an unexpected working counter.", wkc_errors),
    EF("slaves_lost", "Slaves that stopped answering (recovery events).", slaves_lost),
    EF("slaves_returned", "Slaves that answered again and were brought back.", slaves_returned),
    EF("emergencies", "CoE emergency messages received.", emergencies),
    EF("dc_sync_invalid", "DC readings not counted (0x092C saturated, or the slave not in OP).",
       dc_sync_invalid),
};

void mx_ecat(struct mx_buf *b, const struct takt_ecat_master_stats *s,
             const struct mx_ecat_slave *sl, unsigned n)
{
    for (size_t i = 0; i < sizeof ecat_counters / sizeof ecat_counters[0]; i++)
        mx_counter(b, ecat_counters[i].name, ecat_counters[i].help, u64_at(s, ecat_counters[i].off));
    static const char *const win[3] = { "1s", "10s", "60s" };
    char lab[64];
    mx_family(b, "takt_ecat_frames_sent_per_second", "gauge", "Frames sent per second over the "
              "last 1, 10 and 60 s (label window).");
    for (int i = 0; i < 3; i++) {
        snprintf(lab, sizeof lab, "window=\"%s\"", win[i]);
        mx_sample(b, "takt_ecat_frames_sent_per_second", lab, s->tx_rate[i]);
    }
    mx_family(b, "takt_ecat_frames_lost_per_second", "gauge", "Frames lost per second over the "
              "last 1, 10 and 60 s (label window).");
    for (int i = 0; i < 3; i++) {
        snprintf(lab, sizeof lab, "window=\"%s\"", win[i]);
        mx_sample(b, "takt_ecat_frames_lost_per_second", lab, s->loss_rate[i]);
    }
    mx_gauge(b, "takt_ecat_state", "The network's state: the lowest AL state of the slaves "
             "(1 INIT, 2 PREOP, 3 BOOT, 4 SAFEOP, 8 OP), 0 when unknown (a slave does not "
             "answer, no frame returns, or a state is changing).", s->state);
    mx_gauge(b, "takt_ecat_slaves", "Slaves found by the scan.", s->slaves);
    mx_gauge(b, "takt_ecat_slaves_present", "Slaves that answered the last cycle's BRD 0x0130.",
             s->slaves_present);
    mx_gauge(b, "takt_ecat_slaves_not_answering", "Scanned slaves that do not answer.",
             s->slaves_not_answering);
    const struct { const char *n; unsigned v; } cnt[] = {
        { "INIT", s->slaves_init }, { "PREOP", s->slaves_preop }, { "BOOT", s->slaves_boot },
        { "SAFEOP", s->slaves_safeop }, { "OP", s->slaves_op },
    };
    mx_family(b, "takt_ecat_slaves_in_state", "gauge", "Answering slaves per AL state they last "
              "reported (label state).");
    for (size_t i = 0; i < sizeof cnt / sizeof cnt[0]; i++) {
        snprintf(lab, sizeof lab, "state=\"%s\"", cnt[i].n);
        mx_sample(b, "takt_ecat_slaves_in_state", lab, cnt[i].v);
    }
    mx_gauge(b, "takt_ecat_silent_cycles", "Consecutive cycles in which no frame came back.",
             s->silent_cycles);
    mx_gauge(b, "takt_ecat_dc_sync_error_seconds", "DC system time difference: max |0x092C| "
             "over the DC slaves in the last round.", s->dc_sync_err_ns / 1e9);
    mx_gauge(b, "takt_ecat_dc_sync_error_max_seconds", "The largest DC system time difference "
             "seen in OP.", s->dc_sync_err_max_ns / 1e9);
    static const struct { const char *name, *type, *help; } per[] = {
        { "takt_ecat_slave_state", "gauge", "The AL state the slave last reported (1 INIT, 2 "
          "PREOP, 3 BOOT, 4 SAFEOP, 8 OP; ETG.1000.6 AL Status 0x0130), labels position and name." },
        { "takt_ecat_slave_error", "gauge", "1 when the slave's AL status has the error flag set." },
        { "takt_ecat_slave_al_status_code", "gauge", "The slave's last AL status code (0x0134)." },
        { "takt_ecat_slave_present", "gauge", "1 when the slave answered in the last cycle." },
    };
    for (size_t f = 0; f < sizeof per / sizeof per[0]; f++) {
        if (!n)
            break;
        mx_family(b, per[f].name, per[f].type, per[f].help);
        for (unsigned i = 0; i < n; i++) {
            char esc[140], sl_lab[200];
            mx_escape(esc, sizeof esc, sl[i].name);
            snprintf(sl_lab, sizeof sl_lab, "position=\"%u\",name=\"%s\"", i, esc);
            const struct takt_ecat_slave_state *st = &sl[i].st;
            double v = f == 0 ? st->al_state & 0x0F : f == 1 ? (st->al_state & 0x10) != 0
                     : f == 2 ? st->al_code : st->present;
            mx_sample(b, per[f].name, sl_lab, v);
        }
    }
}

#define MF(n, h, f) { "takt_plk_" n "_total", h, offsetof(struct takt_plk_mn_stats, f) }
static const struct u64_field mn_counters[] = {
    MF("mn_cycles", "POWERLINK cycles the MN began (SoC sent).", cycles),
    MF("cycle_exceeded", "Cycles whose isochronous and async phases did not fit the cycle time.",
       cycle_exceeded),
    MF("cycle_exceed_threshold_hits", "Times the cycle-time-exceeded threshold (0x1C02) fired: "
       "MN back to PreOperational1, every CN reset.", cycle_exceed_hits),
    MF("frames_sent", "POWERLINK frames the MN sent.", frames_tx),
    MF("frames_received", "POWERLINK frames the MN received.", frames_rx),
    MF("bad_frames", "Malformed frames received.", bad_frames),
    MF("unexpected_frames", "Frames that came when none was expected, or from unknown CNs.", unexpected),
    MF("sdo_ok", "SDO transfers that succeeded.", sdo_ok),
    MF("sdo_fail", "SDO transfers that failed.", sdo_fail),
    MF("other_mn_frames", "SoC/SoA of another MN seen while NotActive.", other_mn_frames),
    MF("async_eth_sent", "Generic Ethernet frames sent in the async slot.", async_eth_tx),
    MF("nmt_requests", "NMTRequests received from CNs.", nmt_requests),
    MF("nmt_requests_done", "NMTRequests executed.", nmt_requests_done),
    MF("nmt_requests_refused", "NMTRequests refused (answered with NMTInvalidService).",
       nmt_requests_refused),
};

#define NF(n, h, f) { "takt_plk_node_" n "_total", h, offsetof(struct takt_plk_node_stats, f) }
static const struct u64_field node_counters[] = {
    NF("pres_ok", "PRes received in time.", pres_ok),
    NF("pres_lost", "PReq without a PRes in time (the loss counter of 0x1C09).", pres_lost),
    NF("pres_late", "PRes that came after its timeout.", pres_late),
    NF("pres_held", "PRes taken but holding data not newer than the last.", pres_held),
    NF("unexpected_frames", "Frames from the node when none was expected.", unexpected),
    NF("loss_threshold_hits", "Times the PRes loss threshold (0x1C09) fired: node removed "
       "from the cycle and reset.", loss_threshold_hits),
    NF("resets", "Times the node was removed from the cycle and reset (any reason).", lost),
    NF("boots", "Times the node reached Operational.", boots),
    NF("ident_failures", "Identity checks that failed (0x1F84..0x1F88).", ident_fail),
    NF("bad_frames", "Malformed frames from the node.", bad_frames),
    NF("nmt_requests", "NMTRequests from the node.", nmt_requests),
    NF("status_requests_unanswered", "StatusRequests the node did not answer.", status_lost),
    NF("config_stored", "Configuration downloads that ended with 0x1020 written and stored.",
       config_stored),
    NF("config_skipped", "Configuration downloads skipped (0x1020 already equal).", config_skipped),
};

void mx_plk_mn(struct mx_buf *b, const struct takt_plk_mn_stats *s,
               const struct mx_plk_node *nodes, unsigned n)
{
    mx_gauge(b, "takt_plk_mn_state", "The MN's NMT state (EPSG DS 301 NMT state codes, e.g. "
             "0xFD = 253 Operational).", s->state);
    mx_gauge(b, "takt_plk_nodes_configured", "CNs configured.", s->nodes_configured);
    mx_gauge(b, "takt_plk_nodes_operational", "CNs Operational.", s->nodes_operational);
    for (size_t i = 0; i < sizeof mn_counters / sizeof mn_counters[0]; i++)
        mx_counter(b, mn_counters[i].name, mn_counters[i].help, u64_at(s, mn_counters[i].off));
    if (!n)
        return;
    char lab[32], name[96];
    mx_family(b, "takt_plk_node_state", "gauge", "The NMT state last seen from the CN (label node).");
    for (unsigned i = 0; i < n; i++) {
        snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
        mx_sample(b, "takt_plk_node_state", lab, nodes[i].st.state);
    }
    mx_family(b, "takt_plk_node_in_cycle", "gauge", "1 when the CN is polled in the isochronous phase.");
    for (unsigned i = 0; i < n; i++) {
        snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
        mx_sample(b, "takt_plk_node_in_cycle", lab, nodes[i].st.in_cycle);
    }
    for (size_t f = 0; f < sizeof node_counters / sizeof node_counters[0]; f++) {
        mx_family(b, node_counters[f].name, "counter", node_counters[f].help);
        for (unsigned i = 0; i < n; i++) {
            snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
            mx_sample_u64(b, node_counters[f].name, lab, u64_at(&nodes[i].st, node_counters[f].off));
        }
    }
    mx_family(b, "takt_plk_node_pres_latency_seconds", "summary", "PReq sent to PRes received, "
              "over every PRes taken (in time or late).");
    for (unsigned i = 0; i < n; i++) {
        snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
        const struct takt_plk_node_stats *st = &nodes[i].st;
        snprintf(name, sizeof name, "takt_plk_node_pres_latency_seconds_sum");
        mx_sample(b, name, lab, st->pres_lat_sum / 1e9);
        snprintf(name, sizeof name, "takt_plk_node_pres_latency_seconds_count");
        mx_sample_u64(b, name, lab, st->pres_ok + st->pres_late);
    }
    mx_family(b, "takt_plk_node_pres_latency_max_seconds", "gauge", "The longest PReq to PRes "
              "latency seen.");
    for (unsigned i = 0; i < n; i++) {
        snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
        const struct takt_plk_node_stats *st = &nodes[i].st;
        mx_sample(b, "takt_plk_node_pres_latency_max_seconds", lab,
                  st->pres_ok + st->pres_late ? st->pres_lat_max / 1e9 : 0);
    }
}
