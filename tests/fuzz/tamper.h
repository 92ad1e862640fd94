/* Shared by the master fuzz targets: what happens to each reply on its way back to the
 * master, as the input says. One byte per reply (an exhausted input passes everything):
 *   0x00-0x7F pass    0x8X drop            0x9X send twice    0xAX hold back X+1 cycles
 *   0xBX one byte overwritten (2 bytes offset, 1 byte value)
 *   0xCX the WKC of datagram X set (1 byte)   0xDX cut short (1 byte: length / 6)
 *   0xEX a data byte of datagram X flipped (2 bytes)
 *   0xFX an event on the line (the target's own; X its argument), then pass. */
#ifndef TAKT_FUZZ_TAMPER_H
#define TAKT_FUZZ_TAMPER_H

#include <stdint.h>
#include <string.h>
#include <takt/link.h>
#include "ecat/frame.h"
#include "util/wire.h"

#define TAMPER_HOLD 16

struct tamper {
    const uint8_t *in;
    size_t n, pos;
    unsigned cycle;              /* the master's cycle, stepped by the target */
    struct { unsigned due; uint16_t len; uint8_t d[TAKT_FRAME_BUF]; } held[TAMPER_HOLD];
    unsigned nheld;
};

static inline unsigned tamper_take(struct tamper *t) { return t->pos < t->n ? t->in[t->pos++] : 0; }

/* The WKC of datagram i of a frame, NULL when it has fewer. */
static inline uint8_t *tamper_wkc(uint8_t *buf, size_t len, unsigned i)
{
    struct ecat_dg dg;
    size_t pos;
    unsigned k = 0;
    for (int rc = ecat_frame_first(buf, len, &dg, &pos); rc == 0; rc = ecat_frame_next(buf, len, &dg, &pos))
        if (k++ == i)
            return dg.wkc;
    return NULL;
}

/* Pass reply r (buffer of TAKT_FRAME_BUF bytes) to ep as the input says; returns the
 * low nibble + 1 of an event byte (0: none) for the target to act on. */
static inline unsigned tamper_reply(struct tamper *t, struct takt_link *ep, struct takt_frame *r)
{
    uint8_t *buf = r->data;
    unsigned op = tamper_take(t), x, ev = 0;
    uint8_t *w;
    switch (op >> 4) {
    case 8:
        return 0;
    case 9:
        takt_link_send(ep, r, 1);
        break;
    case 10:
        if (t->nheld < TAMPER_HOLD) {
            t->held[t->nheld].due = t->cycle + 1 + (op & 15);
            t->held[t->nheld].len = r->len;
            memcpy(t->held[t->nheld++].d, buf, r->len);
            return 0;
        }
        break;
    case 11:
        x = tamper_take(t) | tamper_take(t) << 8;
        buf[x % r->len] = (uint8_t)tamper_take(t);
        break;
    case 12:
        x = tamper_take(t);
        if ((w = tamper_wkc(buf, r->len, op & 15)))
            put_le16(w, (uint16_t)x);
        break;
    case 13:
        r->len = (uint16_t)(tamper_take(t) * 6 % (r->len + 1));
        break;
    case 14:
        x = tamper_take(t);
        if ((w = tamper_wkc(buf, r->len, op & 15)) && w > buf + 16)
            w[-1 - (int)(x % 8)] ^= (uint8_t)tamper_take(t);
        break;
    case 15:
        ev = (op & 15) + 1;
        break;
    default:
        break;
    }
    takt_link_send(ep, r, 1);
    return ev;
}

/* Send what was held back and is due by now (the target calls it each cycle). */
static inline void tamper_release(struct tamper *t, struct takt_link *ep)
{
    for (unsigned i = 0; i < t->nheld;) {
        if (t->held[i].due > t->cycle) {
            i++;
            continue;
        }
        struct takt_frame f = { .data = t->held[i].d, .len = t->held[i].len, .cap = TAKT_FRAME_BUF };
        takt_link_send(ep, &f, 1);
        t->held[i] = t->held[--t->nheld];
    }
}

#endif
