/* The rig of the redundancy link's unit tests (test_redund*.c): the link over two mem
 * pairs whose clock is a constant, the test playing the ring (see test_redund.c). */
#ifndef TAKT_TEST_REDUND_RIG_H
#define TAKT_TEST_REDUND_RIG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <takt/link.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "ecat/redund.h"
#include "util/wire.h"

#define N     4                     /* slaves in the ring */
#define FAKE  1000                  /* every copy's receive stamp */
#define APOS  3                     /* the APRD's slave */

static inline takt_ns_t fake_clock(void *ctx)
{
    (void)ctx;
    return FAKE;
}

struct rig {
    struct takt_link *a[2], *b[2], *red;
    uint32_t fno;
    uint8_t  cp[2][TAKT_FRAME_BUF];  /* the copies as the ring got them */
    uint16_t len;
};

static inline struct rig *rig_new(void)
{
    static struct rig r;
    memset(&r, 0, sizeof r);
    char err[200];
    for (int p = 0; p < 2; p++)
        assert_int_equal(takt_link_mem_pair(&r.a[p], &r.b[p], 16, fake_clock, NULL), 0);
    r.a[1]->mac[5] ^= 0x55;
    assert_int_equal(ecat_red_open(r.a[0], r.a[1], &r.red, err, sizeof err), 0);
    r.fno = 100;
    return &r;
}

static inline void rig_free(struct rig *r)
{
    takt_link_close(r->red);
    for (int p = 0; p < 2; p++) {
        takt_link_close(r->a[p]);
        takt_link_close(r->b[p]);
    }
}

/* One frame of the master's shape out of both ports; the copies kept in r->cp. */
static inline void out(struct rig *r)
{
    uint8_t f[TAKT_FRAME_BUF] = { 0 };
    size_t pos = ecat_frame_begin(f, r->a[0]->mac);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_NOP, 0, ++r->fno, 0, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_LRW, 1, 0x10000, N, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_BRD, 2, (uint32_t)ESC_AL_STATUS << 16, 2, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_APRD, 3,
                   (uint16_t)(0 - APOS) | (uint32_t)ESC_AL_STATUS << 16, 2, NULL);
    struct takt_frame tf = { .data = f, .len = (uint16_t)ecat_frame_end(f, pos), .cap = sizeof f };
    assert_int_equal(takt_link_send(r->red, &tf, 1), 1);
    for (int p = 0; p < 2; p++) {
        struct takt_frame g = { .data = r->cp[p], .cap = TAKT_FRAME_BUF };
        assert_int_equal(takt_link_recv(r->b[p], &g, 1, 0), 1);
        r->len = g.len;
    }
}

/* Slaves from..to-1 process copy c in the forward direction. */
static inline void pass(struct rig *r, int c, unsigned from, unsigned to)
{
    uint8_t *b = r->cp[c];
    for (unsigned i = from; i < to; i++) {
        struct ecat_dg dg;
        size_t pos;
        for (int rc = ecat_frame_first(b, r->len, &dg, &pos); rc == 0; rc = ecat_frame_next(b, r->len, &dg, &pos)) {
            if (dg.cmd == ECAT_LRW) {
                dg.data[i] = (uint8_t)(0x10 + i);
                put_le16(dg.wkc, (uint16_t)(get_le16(dg.wkc) + 1));
            } else if (dg.cmd == ECAT_BRD) {
                dg.data[0] |= 0x08;
                put_le16(dg.wkc, (uint16_t)(get_le16(dg.wkc) + 1));
            } else if (dg.cmd == ECAT_APRD) {
                if (dg.adp == 0) {
                    dg.data[0] = (uint8_t)(0xA0 + i);
                    put_le16(dg.wkc, (uint16_t)(get_le16(dg.wkc) + 1));
                }
                put_le16(dg.hdr + 2, (uint16_t)(dg.adp + 1));
            }
        }
        b[6] |= 0x02;               /* the processing unit marks the frame */
    }
}

static inline void back(struct rig *r, int c, unsigned port)
{
    struct takt_frame f = { .data = r->cp[c], .len = r->len, .cap = TAKT_FRAME_BUF };
    assert_int_equal(takt_link_send(r->b[port], &f, 1), 1);
}

/* What the link hands on now (0 or 1 frame into *f). */
static inline int get(struct rig *r, uint8_t *buf, struct takt_frame *f)
{
    struct takt_frame g[4];
    static uint8_t more[3][TAKT_FRAME_BUF];
    g[0] = (struct takt_frame){ .data = buf, .cap = TAKT_FRAME_BUF };
    for (int i = 1; i < 4; i++)
        g[i] = (struct takt_frame){ .data = more[i - 1], .cap = TAKT_FRAME_BUF };
    int n = takt_link_recv(r->red, g, 4, 0);
    assert_true(n >= 0 && n <= 1);   /* one frame out, at most one reply */
    *f = g[0];
    return n;
}

/* The reply is the whole frame: every slave's byte, every WKC as an unbroken ring's,
 * with the copies' stamp. */
static inline void whole(struct rig *r, const char *what)
{
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame f;
    printf("  %s\n", what);
    assert_int_equal(get(r, buf, &f), 1);
    assert_int_equal(f.ts, FAKE);
    struct ecat_dg dg;
    size_t pos;
    int seen = 0;
    for (int rc = ecat_frame_first(buf, f.len, &dg, &pos); rc == 0; rc = ecat_frame_next(buf, f.len, &dg, &pos)) {
        if (dg.cmd == ECAT_NOP) {
            assert_int_equal(dg.lad, r->fno);
        } else if (dg.cmd == ECAT_LRW) {
            for (unsigned i = 0; i < N; i++)
                assert_int_equal(dg.data[i], 0x10 + i);
            assert_int_equal(get_le16(dg.wkc), N);
            seen++;
        } else if (dg.cmd == ECAT_BRD) {
            assert_int_equal(get_le16(dg.wkc), N);
            assert_int_equal(dg.data[0], 0x08);
            seen++;
        } else if (dg.cmd == ECAT_APRD) {
            assert_int_equal(get_le16(dg.wkc), 1);
            assert_int_equal(dg.data[0], 0xA0 + APOS);
            seen++;
        } else {
            fail_msg("datagram 0x%02x in the reply", dg.cmd);
        }
    }
    assert_int_equal(seen, 3);
}

/* The reply is stamped after any deadline (the master counts the frame late), or none
 * is handed on at all. */
static inline void late(struct rig *r, const char *what, takt_ns_t before)
{
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame f;
    printf("  %s\n", what);
    if (get(r, buf, &f) == 1)
        assert_true(f.ts >= before && f.ts != FAKE);
}

static inline void nothing(struct rig *r)
{
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame f;
    assert_int_equal(get(r, buf, &f), 0);
}

static inline void intact(struct rig *r)
{
    out(r);
    pass(r, 0, 0, N);
    back(r, 0, 1);
    back(r, 1, 0);                  /* unprocessed, backwards through the ring */
}

/* Broken before slave k: each copy loops on the port it left. */
static inline void broken(struct rig *r, unsigned k, int first)
{
    out(r);
    pass(r, 0, 0, k);
    pass(r, 1, k, N);
    back(r, first, (unsigned)first);
    back(r, !first, (unsigned)!first);
}

/* A ring that the link has seen whole, then broken before slave k. */
static inline struct rig *broken_rig(unsigned k)
{
    struct rig *r = rig_new();
    intact(r);
    whole(r, "intact");
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame f;
    broken(r, k, 0);                /* its APRD went as NOP by the second port: the */
    assert_int_equal(get(r, buf, &f), 1);   /* break was not known when it left */
    for (int i = 0; i < 3; i++) {
        broken(r, k, i & 1);
        whole(r, "broken, both copies");
    }
    struct takt_ecat_redundancy st;
    ecat_red_get(r->red, &st);
    assert_true(st.broken);
    assert_int_equal(st.first_side, k);
    assert_int_equal(st.second_side, N - k);
    return r;
}

#endif
