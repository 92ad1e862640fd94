/* Fuzz target: the master's scan, ESM, DC and recovery reply handling (scan.c, esm.c,
 * dc.c, recovery.c, cyclic.c, through pdu.c). A fresh master scans 1-3 fake ESCs
 * (tests/unit/ecat/master_fake.h) over an in-process link and is driven to OP, then
 * kept running, on a clock of 1 ms per cycle. Every reply first passes an operation
 * taken from the input (tamper.h): pass, drop, send twice, hold back some cycles,
 * overwrite a byte, set a working counter, cut the frame short; an event byte
 * power-cycles, cuts off, brings back or faults a slave. An exhausted input passes everything, so a short
 * input is a clean bring-up. Byte 0: slave count and options (DC, 4-byte SII). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/ecat.h>
#include "ecat/driver.h"
#include "fuzz/tamper.h"
#include "unit/ecat/master_fake.h"

#define CYCLES 600

struct rig {
    struct fake_net net;
    struct takt_link *a, *b, *cap_a, *cap_b;
    struct takt_ecat_master *m;
    struct tamper t;
    takt_ns_t now;
};

static takt_ns_t clk(void *ctx) { return ((struct rig *)ctx)->now; }

/* Events on the fake line (ETG.1000.4 DL registers, SyncManager): a slave that lost power is back in INIT with
 * its address and configuration gone; a cut leaves the slaves behind it silent. */
static void event(struct rig *g, unsigned arg)
{
    unsigned k = arg & 3;
    if (k >= g->net.n)
        k = g->net.n - 1;
    struct fake_slave *s = &g->net.s[k];
    switch (arg >> 2) {
    case 0:
        memset(s->mem + ESC_FMMU0, 0, 16 * ESC_FMMU_SIZE);
        memset(s->mem + ESC_SM0, 0, 16 * ESC_SM_SIZE);
        put_le16(s->mem + ESC_STATION_ADDR, 0);
        s->mem[ESC_AL_STATUS] = AL_INIT;
        put_le16(s->mem + ESC_AL_STATUS_CODE, 0);
        break;
    case 1:
        g->net.present = k;
        break;
    case 2:
        g->net.present = g->net.n;
        break;
    default:
        s->mem[ESC_AL_STATUS] |= AL_ERROR;
        put_le16(s->mem + ESC_AL_STATUS_CODE, 0x001B);      /* sync manager watchdog */
        break;
    }
}

static void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct rig *g = ctx;
    fake_respond(&g->net, g->cap_b, f);
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame r = { .data = buf, .cap = sizeof buf };
    if (takt_link_recv(g->cap_a, &r, 1, 0) != 1)
        return;
    unsigned ev = tamper_reply(&g->t, ep, &r);
    if (ev)
        event(g, ev - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rig g;
    memset(&g, 0, sizeof g);
    g.t.in = data;
    g.t.n = size;
    unsigned opt = tamper_take(&g.t);
    fake_init(&g.net, 1 + opt % 3);
    g.now = 1000 * TAKT_NS_PER_S;
    if (takt_link_mem_pair(&g.a, &g.b, 256, clk, &g) || takt_link_mem_pair(&g.cap_a, &g.cap_b, 8, clk, &g))
        abort();
    takt_link_mem_set_responder(g.b, respond, &g);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 4;
    o.dc = opt & 4;
    char err[200];
    if (takt_ecat_master_open(&g.m, g.a, &o, err, sizeof err))
        abort();
    struct takt_ecat_master *m = g.m;
    ecat_scan_start(&m->core, g.now);
    bool requested = false;
    unsigned in_op = 0;
    for (g.t.cycle = 0; g.t.cycle < CYCLES && in_op < 30; g.t.cycle++) {
        tamper_release(&g.t, g.b);
        /* a reply stamped at this cycle's start or later missed its cycle (cycle_step) */
        m->core.rx_deadline = g.now - 1;
        takt_ecat_master_cycle(m, g.now);
        m->core.rx_deadline = 0;
        if (!requested && m->core.scan.done && m->core.scan.state == MF_IDLE)
            requested = takt_ecat_master_request_state(m, AL_OP) == 0;
        if (takt_ecat_master_state(m) == AL_OP && g.t.pos >= g.t.n)
            in_op++;
        g.now += TAKT_NS_PER_MS;
    }
    char ev[256];
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        ;
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(m, &st);
    if (st.frames_late > st.frames_lost || st.frames_received + st.frames_lost > st.frames_sent)
        abort();
    if (getenv("TAKT_FUZZ_TRACE"))
        fprintf(stderr, "cycles %u state 0x%02x slaves %u sent %llu received %llu lost %llu\n", g.t.cycle,
                takt_ecat_master_state(m), takt_ecat_master_slave_count(m), (unsigned long long)st.frames_sent,
                (unsigned long long)st.frames_received, (unsigned long long)st.frames_lost);
    takt_ecat_master_close(m);
    takt_link_close(g.a);
    takt_link_close(g.b);
    takt_link_close(g.cap_a);
    takt_link_close(g.cap_b);
    return 0;
}
