/* Fuzz target: the master's frame receive path (ecat_pdu_receive: source MAC check,
 * the frame number in the leading NOP, datagram parsing in frame.c, matching by index,
 * command and length, late and duplicate replies; then ecat_cyc_check). A fresh master
 * either has its scan's first requests in flight (byte 0 even) or runs in OP over one
 * fake ESC (tests/unit/ecat/master_fake.h) and has a cycle's frames in flight (byte 0
 * odd). From then on nothing answers but the input, in records [op][len][len bytes]:
 *   op & 3 = 0: the bytes are a whole frame;
 *            1: a frame the master sent, come back (U/L bit set), patched by the bytes
 *               as (offset, value) pairs;
 *            2: the bytes follow a valid returned Ethernet header;
 *            3: a master cycle 1 ms later (its frames are in flight in turn).
 * Each frame is handed over in a buffer of exactly its length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/ecat.h>
#include "ecat/driver.h"
#include "unit/ecat/master_fake.h"

#define SENT 8

struct rig {
    struct fake_net net;
    bool answer;                         /* the fake ESC answers (bring-up only) */
    struct takt_link *a, *b;
    takt_ns_t now;
    uint8_t sent[SENT][TAKT_FRAME_BUF];  /* the master's last frames, as sent */
    uint16_t sent_len[SENT];
    unsigned nsent;
};

static takt_ns_t clk(void *ctx) { return ((struct rig *)ctx)->now; }

static void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct rig *g = ctx;
    if (g->answer) {
        fake_respond(&g->net, ep, f);
        return;
    }
    unsigned i = g->nsent++ % SENT;
    memcpy(g->sent[i], f->data, f->len);
    g->sent_len[i] = f->len;
}

static void feed(struct takt_ecat_master *m, const uint8_t *frame, size_t len, takt_ns_t ts)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, frame, len);
    struct takt_ecat_master_stats a, b;
    takt_ecat_master_get_stats(m, &a);
    ecat_pdu_receive(&m->core, copy, len, ts);
    takt_ecat_master_get_stats(m, &b);
    /* one frame is counted once at most: received, unmatched, late or duplicate */
    uint64_t d = (b.frames_received - a.frames_received) + (b.frames_unmatched - a.frames_unmatched) +
                 (b.frames_late - a.frames_late) + (b.frames_duplicate - a.frames_duplicate);
    if (d > 1)
        abort();
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rig g;
    if (size < 1)
        return 0;
    memset(&g, 0, sizeof g);
    fake_init(&g.net, 1);
    g.now = 1000 * TAKT_NS_PER_S;
    if (takt_link_mem_pair(&g.a, &g.b, 256, clk, &g))
        abort();
    takt_link_mem_set_responder(g.b, respond, &g);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 2;
    char err[200];
    struct takt_ecat_master *m;
    if (takt_ecat_master_open(&m, g.a, &o, err, sizeof err))
        abort();
    ecat_scan_start(&m->core, g.now);
    if (data[0] & 1) {
        /* bring-up against the fake, so that cyclic frames go out */
        g.answer = true;
        bool requested = false;
        for (unsigned c = 0; c < 400 && takt_ecat_master_state(m) != AL_OP; c++) {
            takt_ecat_master_cycle(m, g.now);
            if (!requested && m->core.scan.done && m->core.scan.state == MF_IDLE)
                requested = takt_ecat_master_request_state(m, AL_OP) == 0;
            g.now += TAKT_NS_PER_MS;
        }
        g.answer = false;
    }
    takt_ecat_master_cycle(m, g.now);
    size_t p = 1;
    while (p + 2 <= size) {
        uint8_t op = data[p];
        size_t len = data[p + 1];
        p += 2;
        if (len > size - p)
            len = size - p;
        const uint8_t *b = data + p;
        p += len;
        uint8_t buf[TAKT_FRAME_BUF];
        switch (op & 3) {
        case 0:
            feed(m, b, len, g.now);
            break;
        case 1: {
            if (!g.nsent)
                break;
            unsigned i = (g.nsent - 1 - (op >> 2) % (g.nsent < SENT ? g.nsent : SENT)) % SENT;
            size_t fl = g.sent_len[i];
            memcpy(buf, g.sent[i], fl);
            buf[6] |= 0x02;
            for (size_t k = 0; k + 2 <= len; k += 2) {
                unsigned off = b[k] + ((op >> 5) << 8);
                if (off < fl)
                    buf[off] = b[k + 1];
            }
            feed(m, buf, fl, g.now);
            break;
        }
        case 2:
            memset(buf, 0xFF, 6);
            memcpy(buf + 6, m->link->mac, 6);
            buf[6] |= 0x02;
            buf[12] = 0x88;
            buf[13] = 0xA4;
            memcpy(buf + 14, b, len);
            feed(m, buf, 14 + len, g.now);
            break;
        default:
            g.now += TAKT_NS_PER_MS;
            m->core.rx_deadline = g.now - 1;
            takt_ecat_master_cycle(m, g.now);
            m->core.rx_deadline = 0;
            break;
        }
    }
    takt_ecat_master_cycle(m, g.now + TAKT_NS_PER_MS);
    char ev[256];
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        ;
    takt_ecat_master_close(m);
    takt_link_close(g.a);
    takt_link_close(g.b);
    return 0;
}
