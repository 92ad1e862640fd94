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
#include "plk/cn.h"
#include "sim/plk_net.h"

struct mx_plk_cn_node { uint8_t id, state; struct plk_cn_stats st; };

static const struct { const char *name, *help; size_t off; } cn_counters[] = {
    { "takt_plk_cn_preq_received_total", "PReq frames addressed to the CN.", offsetof(struct plk_cn_stats, preq_rx) },
    { "takt_plk_cn_pres_sent_total", "PRes frames the CN sent.", offsetof(struct plk_cn_stats, pres_tx) },
    { "takt_plk_cn_soc_received_total", "SoC frames received.", offsetof(struct plk_cn_stats, soc_rx) },
    { "takt_plk_cn_soa_received_total", "SoA frames received.", offsetof(struct plk_cn_stats, soa_rx) },
    { "takt_plk_cn_asnd_received_total", "ASnd frames received.", offsetof(struct plk_cn_stats, asnd_rx) },
    { "takt_plk_cn_asnd_sent_total", "ASnd frames sent (IdentResponse, StatusResponse, SDO, NMTRequest).", offsetof(struct plk_cn_stats, asnd_tx) },
    { "takt_plk_cn_loss_soc_total", "Cycles without a SoC (EPSG DS 301 loss of SoC).", offsetof(struct plk_cn_stats, loss_soc) },
    { "takt_plk_cn_loss_preq_total", "Cycles without the CN's PReq (loss of PReq).", offsetof(struct plk_cn_stats, loss_preq) },
    { "takt_plk_cn_cycle_errors_total", "Loss thresholds reached: the CN went back to PreOperational1.", offsetof(struct plk_cn_stats, cycle_errors) },
    { "takt_plk_cn_bad_frames_total", "Frames that did not decode.", offsetof(struct plk_cn_stats, bad_frames) },
    { "takt_plk_cn_short_rx_total", "PDOs shorter than their mapping.", offsetof(struct plk_cn_stats, short_rx) },
    { "takt_plk_cn_nmt_commands_total", "NMT commands received.", offsetof(struct plk_cn_stats, nmt_cmds) },
    { "takt_plk_cn_sdo_received_total", "SDO requests received.", offsetof(struct plk_cn_stats, sdo_rx) },
    { "takt_plk_cn_stale_dropped_total", "Requests not answered because a later one had come.", offsetof(struct plk_cn_stats, stale_dropped) },
    { "takt_plk_cn_nmt_requests_sent_total", "NMTRequests sent to the MN.", offsetof(struct plk_cn_stats, nmtreq_tx) },
    { "takt_plk_cn_nmt_requests_refused_total", "NMTRequests the MN refused.", offsetof(struct plk_cn_stats, nmtreq_refused) },
    { "takt_plk_cn_fault_dropped_total", "Injected fault: PRes not sent.", offsetof(struct plk_cn_stats, dropped) },
    { "takt_plk_cn_fault_late_total", "Injected fault: PRes sent late.", offsetof(struct plk_cn_stats, late) },
    { "takt_plk_cn_fault_malformed_total", "Injected fault: PRes malformed.", offsetof(struct plk_cn_stats, malformed) },
};

static uint64_t u64_at(const void *p, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)p + off, sizeof v);
    return v;
}

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
            mx_sample_u64(b, cn_counters[f].name, lab, u64_at(&nodes[i].st, cn_counters[f].off));
        }
    }
}

#define CN_WORDS (1 + (sizeof(struct plk_cn_stats) + 7) / 8)

struct cn_metrics {
    struct metrics *x;
    struct sim_plk_net *s;
    unsigned n;
    atomic_uint seq;               /* odd while the network's thread writes */
    _Atomic uint64_t *w;           /* n x CN_WORDS: id | state << 8, then the counters */
    struct mx_plk_cn_node *copy;
    pthread_t t;
    atomic_int quit;
    bool thread;
};

/* The network's thread, every period. */
static void publish(void *ctx, const struct sim_plk_net *s)
{
    struct cn_metrics *cm = ctx;
    unsigned q = atomic_load_explicit(&cm->seq, memory_order_relaxed);
    atomic_store_explicit(&cm->seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (unsigned i = 0; i < cm->n && i < s->n; i++) {
        uint64_t w[CN_WORDS] = { 0 };
        const struct plk_cn *cn = s->cn[i];
        w[0] = cn->cfg.id | (uint64_t)__atomic_load_n(&cn->state, __ATOMIC_RELAXED) << 8;
        memcpy(&w[1], &cn->st, sizeof cn->st);
        for (size_t k = 0; k < CN_WORDS; k++)
            atomic_store_explicit(&cm->w[i * CN_WORDS + k], w[k], memory_order_relaxed);
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
            memcpy(&cm->copy[i].st, &w[1], sizeof cm->copy[i].st);
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&cm->seq, memory_order_relaxed) == q)
            break;
    }
    mx_plk_cn(b, cm->copy, cm->n);
}

/* Once the network stopped: its counters as they are. */
static void render_final(struct metrics *x, struct mx_buf *b, void *ctx)
{
    (void)x;
    struct cn_metrics *cm = ctx;
    for (unsigned i = 0; i < cm->n; i++) {
        cm->copy[i].id = cm->s->cn[i]->cfg.id;
        cm->copy[i].state = cm->s->cn[i]->state;
        cm->copy[i].st = cm->s->cn[i]->st;
    }
    mx_plk_cn(b, cm->copy, cm->n);
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

int cn_metrics_start(struct cli_ctx *c, const char *iface, struct sim_plk_net *s, struct cn_metrics **out)
{
    *out = NULL;
    struct metrics *x;
    int rc = metrics_open(c, iface, "powerlink", NULL, false, &x);
    if (rc || !x)
        return rc;
    struct cn_metrics *cm = calloc(1, sizeof *cm);
    if (cm) {
        cm->n = s->n;
        cm->w = calloc((size_t)(s->n ? s->n : 1) * CN_WORDS, sizeof *cm->w);
        cm->copy = calloc(s->n ? s->n : 1, sizeof *cm->copy);
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
    cm->s = s;
    publish(cm, s);          /* the first version: every CN in its initial state */
    s->publish = publish;
    s->publish_ctx = cm;
    cm->thread = pthread_create(&cm->t, NULL, reporter, cm) == 0;
    if (!cm->thread)
        fprintf(stderr, "takt plk cn: no metrics thread: metrics only at the end\n");
    *out = cm;
    return 0;
}

void cn_metrics_stop(struct cn_metrics *cm)
{
    if (!cm)
        return;
    if (cm->thread) {
        atomic_store_explicit(&cm->quit, 1, memory_order_release);
        pthread_join(cm->t, NULL);
    }
    cm->s->publish = NULL;
    metrics_render_write(cm->x, true, render_final, cm);
    metrics_close(cm->x);
    free(cm->w);
    free(cm->copy);
    free(cm);
}
