/* Metrics of `takt plk cn` (docs/metrics.md): each simulated CN's NMT state and counters
 * in the Prometheus text format. The CNs run in the network's thread; every period it
 * publishes their counters through a sequence lock over atomic words, and a reporter
 * thread of its own renders and writes them (--metrics-file, --metrics-listen), so the
 * network never waits for a file. The last version is written from the counters
 * themselves once the network has stopped. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"
#include "cli/metrics_cn.h"

static const struct { const char *name, *help; unsigned k; } cn_counters[] = {
    { "takt_plk_cn_preq_received_total", "PReq frames addressed to the CN.", MX_CN_PREQ_RX },
    { "takt_plk_cn_pres_sent_total", "PRes frames the CN sent.", MX_CN_PRES_TX },
    { "takt_plk_cn_soc_received_total", "SoC frames received.", MX_CN_SOC_RX },
    { "takt_plk_cn_soa_received_total", "SoA frames received.", MX_CN_SOA_RX },
    { "takt_plk_cn_asnd_received_total", "ASnd frames received.", MX_CN_ASND_RX },
    { "takt_plk_cn_asnd_sent_total", "ASnd frames sent (IdentResponse, StatusResponse, SDO, NMTRequest).", MX_CN_ASND_TX },
    { "takt_plk_cn_loss_soc_total", "Cycles without a SoC (EPSG DS 301 loss of SoC).", MX_CN_LOSS_SOC },
    { "takt_plk_cn_loss_preq_total", "Cycles without the CN's PReq (loss of PReq).", MX_CN_LOSS_PREQ },
    { "takt_plk_cn_cycle_errors_total", "Loss thresholds reached: the CN went back to PreOperational1.", MX_CN_CYCLE_ERRORS },
    { "takt_plk_cn_bad_frames_total", "Frames that did not decode.", MX_CN_BAD_FRAMES },
    { "takt_plk_cn_short_rx_total", "PDOs shorter than their mapping.", MX_CN_SHORT_RX },
    { "takt_plk_cn_nmt_commands_total", "NMT commands received.", MX_CN_NMT_CMDS },
    { "takt_plk_cn_sdo_received_total", "SDO requests received.", MX_CN_SDO_RX },
    { "takt_plk_cn_stale_dropped_total", "Requests not answered because a later one had come.", MX_CN_STALE_DROPPED },
    { "takt_plk_cn_nmt_requests_sent_total", "NMTRequests sent to the MN.", MX_CN_NMTREQ_TX },
    { "takt_plk_cn_nmt_requests_refused_total", "NMTRequests the MN refused.", MX_CN_NMTREQ_REFUSED },
    { "takt_plk_cn_fault_dropped_total", "Injected fault: PRes not sent.", MX_CN_DROPPED },
    { "takt_plk_cn_fault_late_total", "Injected fault: PRes sent late.", MX_CN_LATE },
    { "takt_plk_cn_fault_malformed_total", "Injected fault: PRes malformed.", MX_CN_MALFORMED },
};

static void mx_plk_cn(struct mx_buf *b, const struct mx_plk_cn_node *nodes, unsigned n)
{
    char lab[32];
    mx_gauge(b, "takt_plk_cn_nodes", "Simulated CNs served.", n);
    mx_family(b, "takt_plk_cn_state", "gauge", "The CN's NMT state (EPSG DS 301 NMT state codes, "
              "e.g. 0xFD = 253 Operational; label node).");
    for (unsigned i = 0; i < n; i++) {
        snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
        mx_sample(b, "takt_plk_cn_state", lab, nodes[i].state);
    }
    for (size_t f = 0; f < sizeof cn_counters / sizeof cn_counters[0]; f++) {
        mx_family(b, cn_counters[f].name, "counter", cn_counters[f].help);
        for (unsigned i = 0; i < n; i++) {
            snprintf(lab, sizeof lab, "node=\"%u\"", nodes[i].id);
            mx_sample_u64(b, cn_counters[f].name, lab, nodes[i].c[cn_counters[f].k]);
        }
    }
}

_Static_assert(sizeof cn_counters / sizeof cn_counters[0] == MX_CN_COUNTERS, "one metric per counter");
#define CN_WORDS (1 + MX_CN_COUNTERS)

struct cn_metrics {
    struct metrics *x;
    unsigned n;
    atomic_uint seq;               /* odd while the network's thread writes */
    _Atomic uint64_t *w;           /* n x CN_WORDS: id | state << 8, then the counters */
    struct mx_plk_cn_node *copy;
    pthread_t t;
    atomic_int quit;
    bool thread;
};

void cn_metrics_publish(struct cn_metrics *cm, const struct mx_plk_cn_node *nodes, unsigned n)
{
    unsigned q = atomic_load_explicit(&cm->seq, memory_order_relaxed);
    atomic_store_explicit(&cm->seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (unsigned i = 0; i < cm->n && i < n; i++) {
        atomic_store_explicit(&cm->w[i * CN_WORDS], nodes[i].id | (uint64_t)nodes[i].state << 8,
                              memory_order_relaxed);
        for (size_t k = 0; k < MX_CN_COUNTERS; k++)
            atomic_store_explicit(&cm->w[i * CN_WORDS + 1 + k], nodes[i].c[k], memory_order_relaxed);
    }
    atomic_store_explicit(&cm->seq, q + 2, memory_order_release);
}

static void render_published(struct metrics *x, struct mx_buf *b, void *ctx)
{
    (void)x;
    struct cn_metrics *cm = ctx;
    for (unsigned spin = 0;; spin++) {
        unsigned q = atomic_load_explicit(&cm->seq, memory_order_acquire);
        if (q & 1) {
            if (spin % 64 == 63)
                sched_yield();
            continue;
        }
        for (unsigned i = 0; i < cm->n; i++) {
            uint64_t w[CN_WORDS];
            for (size_t k = 0; k < CN_WORDS; k++)
                w[k] = atomic_load_explicit(&cm->w[i * CN_WORDS + k], memory_order_relaxed);
            cm->copy[i].id = (uint8_t)w[0];
            cm->copy[i].state = (uint8_t)(w[0] >> 8);
            memcpy(cm->copy[i].c, &w[1], sizeof cm->copy[i].c);
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&cm->seq, memory_order_relaxed) == q)
            break;
    }
    mx_plk_cn(b, cm->copy, cm->n);
}

/* Once the network stopped: its counters as the caller read them. */
struct final { const struct mx_plk_cn_node *nodes; unsigned n; };

static void render_final(struct metrics *x, struct mx_buf *b, void *ctx)
{
    (void)x;
    const struct final *f = ctx;
    mx_plk_cn(b, f->nodes, f->n);
}

static void *reporter(void *arg)
{
    struct cn_metrics *cm = arg;
    while (!atomic_load_explicit(&cm->quit, memory_order_acquire)) {
        if (metrics_due(cm->x, takt_now()))
            metrics_render_write(cm->x, false, render_published, cm);
        nanosleep(&(struct timespec){ 0, 20 * TAKT_NS_PER_MS }, NULL);
    }
    return NULL;
}

int cn_metrics_start(struct cli_ctx *c, const char *iface, const struct mx_plk_cn_node *nodes, unsigned n,
                     struct cn_metrics **out)
{
    *out = NULL;
    struct metrics *x;
    int rc = metrics_open(c, iface, "powerlink", NULL, false, &x);
    if (rc || !x)
        return rc;
    struct cn_metrics *cm = calloc(1, sizeof *cm);
    if (cm) {
        cm->n = n;
        cm->w = calloc((size_t)(n ? n : 1) * CN_WORDS, sizeof *cm->w);
        cm->copy = calloc(n ? n : 1, sizeof *cm->copy);
    }
    if (!cm || !cm->w || !cm->copy) {
        if (cm) {
            free(cm->w);
            free(cm->copy);
        }
        free(cm);
        metrics_close(x);
        return cli_error(c, "out of memory for the metrics");
    }
    cm->x = x;
    cn_metrics_publish(cm, nodes, n);   /* the first version: every CN in its initial state */
    cm->thread = pthread_create(&cm->t, NULL, reporter, cm) == 0;
    if (!cm->thread)
        fprintf(stderr, "takt plk cn: no metrics thread: metrics only at the end\n");
    *out = cm;
    return 0;
}

void cn_metrics_stop(struct cn_metrics *cm, const struct mx_plk_cn_node *nodes, unsigned n)
{
    if (!cm)
        return;
    if (cm->thread) {
        atomic_store_explicit(&cm->quit, 1, memory_order_release);
        pthread_join(cm->t, NULL);
    }
    struct final f = { nodes, n };
    metrics_render_write(cm->x, true, render_final, &f);
    metrics_close(cm->x);
    free(cm->w);
    free(cm->copy);
    free(cm);
}
