/* Instructions per POWERLINK MN cycle, counted rather than timed (scripts/perf/
 * cycle-count.sh builds and runs this under callgrind; docs/performance.md
 * "Instructions per cycle"). The MN (takt_plk_mn, its real-time thread, driver and
 * core) runs on an in-process mem link whose other end is a synchronous responder
 * holding simulated CN cores (nodes 1, 32 and 110 by default): every PReq is answered
 * within the MN's own send call, so each cycle takes the same path whatever the host's
 * timing. Collection is off at the start; once every CN is Operational, the cycle
 * callback dumps callgrind's counters once per cycle, each dump holding exactly one
 * cycle of the MN's thread (wake-up, SoC, isochronous and async phases, statistics,
 * publication, the loop's bookkeeping). The responder's work (the CNs) is toggled out
 * of the count. Built against a tree's internal headers and its static library, so
 * the same file measures an older tree too.
 *
 * usage: mn_count [-c CYCLE_US] [-n CYCLES] [-t TIMEOUT_S]
 * Prints "cycles measured N" on stdout; the counts are in callgrind's dump files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <takt/link.h>
#include <takt/plk.h>
#include "plk/cn.h"

static const uint8_t ids[] = { 1, 32, 110 };
#define N_CN (sizeof ids / sizeof ids[0])

struct cns {
    struct plk_cn cn[N_CN];
    struct plk_txf tx[64];
    struct plk_txq q;
    int measuring;            /* written and read by the MN's thread only */
};

/* Send what the CN cores queued (launch times ignored: answered at once). */
static void cns_flush(struct cns *c, struct takt_link *ep)
{
    for (unsigned i = 0; i < c->q.n; i++) {
        struct takt_frame f = { .data = c->q.f[i].data, .len = c->q.f[i].len };
        takt_link_send(ep, &f, 1);
    }
    c->q.n = 0;
}

static void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct cns *c = ctx;
    if (c->measuring)
        CALLGRIND_TOGGLE_COLLECT;   /* the CNs are not the MN's cost */
    takt_ns_t now = f->ts ? f->ts : takt_now();
    for (unsigned i = 0; i < N_CN; i++) {
        if (now >= plk_cn_deadline(&c->cn[i]))
            plk_cn_tick(&c->cn[i], now, &c->q);
        plk_cn_rx(&c->cn[i], now, f->data, f->len, &c->q);
    }
    cns_flush(c, ep);
    if (c->measuring)
        CALLGRIND_TOGGLE_COLLECT;
}

struct run {
    struct cns *cns;
    unsigned want, done;
};

/* MN thread, once per cycle after its async phase: from the first cycle with every CN
 * Operational on, each call ends one counted cycle and starts the next. */
static void on_cycle(void *ctx, struct takt_plk_mn *mn, takt_ns_t now)
{
    (void)now;
    struct run *r = ctx;
    if (r->cns->measuring) {
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS;
        if (++r->done >= r->want) {
            r->cns->measuring = 0;
            takt_plk_mn_stop(mn);
            return;
        }
        CALLGRIND_TOGGLE_COLLECT;
        return;
    }
    if (r->done >= r->want)
        return;
    struct takt_plk_mn_stats s;
    takt_plk_mn_get_stats(mn, &s);
    if (s.nodes_operational < N_CN)
        return;
    CALLGRIND_ZERO_STATS;
    r->cns->measuring = 1;
    CALLGRIND_TOGGLE_COLLECT;
}

int main(int argc, char **argv)
{
    unsigned cycle_us = 10000, cycles = 200, timeout_s = 600;
    int o;
    while ((o = getopt(argc, argv, "c:n:t:")) != -1) {
        switch (o) {
        case 'c': cycle_us = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'n': cycles = (unsigned)strtoul(optarg, NULL, 10); break;
        case 't': timeout_s = (unsigned)strtoul(optarg, NULL, 10); break;
        default:
            fprintf(stderr, "usage: mn_count [-c CYCLE_US] [-n CYCLES] [-t TIMEOUT_S]\n");
            return 2;
        }
    }
    if (cycle_us < 100 || !cycles) {
        fprintf(stderr, "mn_count: -c wants a cycle of at least 100 us and -n at least 1 cycle, got %u and %u\n",
                cycle_us, cycles);
        return 2;
    }
    struct takt_link *a, *b;
    char err[256] = "";
    if (takt_link_mem_pair(&a, &b, 256, NULL, NULL)) {
        fprintf(stderr, "mn_count: no mem link pair\n");
        return 1;
    }
    b->mac[5] ^= 1;
    static struct cns c;
    c.q.f = c.tx;
    c.q.cap = 64;
    for (unsigned i = 0; i < N_CN; i++) {
        struct takt_plk_cn_cfg cc;
        takt_plk_cn_cfg_default(&cc, ids[i]);
        if (plk_cn_init(&c.cn[i], &cc, b->mac, takt_now())) {
            fprintf(stderr, "mn_count: CN %u: init failed\n", ids[i]);
            return 1;
        }
    }
    takt_link_mem_set_responder(b, respond, &c);

    struct takt_plk_mn_cfg mc;
    takt_plk_mn_cfg_default(&mc);
    mc.cycle_us = cycle_us;
    /* counted, never reset: the count would otherwise include a reboot */
    mc.loss_pres_threshold = mc.cycle_exceed_threshold = mc.cn_loss_threshold = 0;
    mc.pres_timeout_ns = cycle_us * 250u;   /* a quarter cycle: slow under callgrind */
    for (unsigned i = 0; i < N_CN; i++)
        takt_plk_mn_cfg_add_range(&mc, ids[i], ids[i], false);
    struct takt_plk_mn *mn;
    if (takt_plk_mn_create(&mc, &mn, err, sizeof err)) {
        fprintf(stderr, "mn_count: MN: %s\n", err);
        return 1;
    }
    struct run r = { .cns = &c, .want = cycles };
    takt_plk_mn_set_callback(mn, on_cycle, &r);
    struct takt_plk_run_opts ro;
    memset(&ro, 0, sizeof ro);
    takt_rt_opts_default(&ro.rt);
    ro.rt.mlock = ro.rt.dma_latency = false;   /* nothing to hold: no timing is judged */
    ro.duration = (takt_ns_t)timeout_s * TAKT_NS_PER_S;
    if (takt_plk_mn_start(mn, a, &ro)) {
        fprintf(stderr, "mn_count: the MN did not start\n");
        return 1;
    }
    takt_plk_mn_join(mn);
    printf("cycles measured %u\n", r.done);
    takt_plk_mn_destroy(mn);
    for (unsigned i = 0; i < N_CN; i++)
        plk_cn_free(&c.cn[i]);
    takt_link_close(a);
    takt_link_close(b);
    return r.done == cycles ? 0 : 1;
}
