/* Cable redundancy: the master's frames go out of both ends of a ring and the two
 * copies are merged on return.
 *
 * Where the copies go (ESC datasheet Section I, 3.2, Table 9: only the direction out of
 * port 0 passes the processing unit): unbroken, the first port's copy is processed by
 * every slave and arrives at the second port, while the second port's copy runs through
 * the ring backwards unprocessed and arrives at the first. With a break, each copy comes
 * back on the port it left: the first port's copy processed by the slaves before the
 * break, the second's by the slaves after it (the first slave behind the break loops it
 * into its processing unit at its closed port 0). Either way each slave processed exactly
 * one copy, so the merge is the same in both cases (no double counting):
 *  - WKC: the sum of both copies' (ETG.1000.4: each slave adds to the WKC of the
 *    datagram it executes);
 *  - data: a byte a slave wrote differs from what was sent in the copy that passed the
 *    slave only: merged = first ^ second ^ sent, exact as long as no bit is written on
 *    both sides (logical areas do not overlap; physical commands address one slave);
 *    broadcast reads OR into the frame on both sides: merged = first | second.
 * A copy that did not come back counts as the frame as sent (WKC 0) where the other
 * copy alone reached every slave that can be reached (it went round the whole ring, or
 * the other port is dead); otherwise half a frame is never handed on (flush_halves).
 * Position addressing counts from where a copy enters the ring. While the ring is
 * broken, the positions are those of the slaves that answer, in frame order: the first
 * side's count of them (as the BRD's WKC split it) from the first port, then the second
 * side's (with two breaks, the slaves between them have no position). An APRD/APWR/APRW
 * for a slave on the second side travels in the second copy with its position counted
 * from the first slave that copy's processing meets; the first copy passes no slave
 * with that position, so the ordinary merge gives the one slave's answer. An ARMW
 * (other than the DC one) goes the same way, and travels in the first copy as NOP:
 * there every slave would write what the master sent in place of the value read (so
 * the first side's slaves are not written: the value read cannot reach them in the
 * same frame, and the WKC counts the second side's only). Otherwise (ring closed, a
 * slave on the first side) those commands travel in the second copy as NOP, and an
 * ARMW writes the first side only. Station-addressed, broadcast and logical commands go
 * both ways as they are: a station address is one slave, on one side; a broadcast or a
 * logical area is executed by each slave in the one copy that passes it.
 * The distributed-clock FRMW/ARMW on the system time (0x0910) is carried by the second
 * copy as it is while the ring is broken and the reference clock is behind the break.
 * With the reference on the first port's side, the second copy carries a BWR of 0x0910
 * instead: the reference's time as the first copy of an earlier frame read it, advanced
 * by the master's clock from when that copy left to when this one leaves (ETG.1000.4
 * drift compensation needs only the reference's time written periodically; its error is
 * the reference's drift against the master over that span, 50 ppm x 1 cycle = 50 ns,
 * plus the difference of the two copies' transit delays). The far side's WKC of that
 * write is not part of the frame's: the merged datagram is the first copy's.
 * The copies are told apart by source MAC: the second port's copy carries that port's
 * MAC; the processing unit sets bit 1 of the first octet (Section I, 3), so a copy with
 * it clear on the port it left is that port's own echo. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "ecat/redund.h"
#include "util/wire.h"

#define RED_SLOTS 64          /* frames in flight at once (a few cycles' worth) */
#define RED_RX    32
#define RED_MISS  8
#define RED_NOP   64          /* first copies' ARMWs sent as NOP in one send call */

struct red_slot {
    uint32_t  fno;
    bool      live;             /* sent, not yet handed to the master */
    bool      got[2];           /* copy c back (c 0: sent out of the first port) */
    uint8_t   port[2];          /* ... on this port */
    uint16_t  len;
    takt_ns_t ts;               /* the later copy's receive time */
    takt_ns_t t0;               /* when the first copy left */
    bool      dcw;              /* the second copy writes the reference's time */
    bool      dropped;          /* both copies came back on one port: the second unused */
    bool      expired;          /* read past with one copy back: observed, held for the other */
    uint8_t   sent[TAKT_FRAME_BUF];
    uint8_t   cp[2][TAKT_FRAME_BUF];
};

struct red_link {
    struct takt_link base;
    struct takt_link *port[2];
    struct red_slot slot[RED_SLOTS];
    uint8_t   tx2[RED_RX][TAKT_FRAME_BUF];     /* second copies of one send call */
    struct takt_frame f2[RED_RX];
    uint8_t   rxb[RED_RX][TAKT_FRAME_BUF];
    /* merged frames waiting for the caller */
    uint8_t   outb[RED_RX][TAKT_FRAME_BUF];
    uint16_t  outlen[RED_RX];
    takt_ns_t outts[RED_RX];
    unsigned  nout;
    unsigned  miss[2];          /* frames in a row without copy c: below RED_MISS it is
                                 * expected (a stall delays copies, a dead port loses
                                 * them all) */
    bool      heard[2];         /* port p has brought back a copy of ours at all */
    bool      ref_far;          /* the reference clock is behind the break */
    unsigned  ring_n;           /* slaves in the ring, as the broadcasts counted them */
    bool      dc_have;          /* the reference's time as last read on the first side */
    uint64_t  dc_time;
    takt_ns_t dc_at;            /* ... by the copy that left then */
    struct takt_ecat_redundancy st;
    struct red_frmw fr;         /* stations' sides while broken (redund_dg.c) */
};

static bool is_ecat(const uint8_t *b, size_t len)
{
    return len >= ECAT_ETH_HDR + ECAT_FRAME_HDR && get_be16(b + 12) == TAKT_ETHERTYPE_ECAT;
}

/* The frame number of the master's leading NOP, or false. */
static bool frame_no(uint8_t *b, size_t len, uint32_t *fno)
{
    struct ecat_dg dg;
    size_t pos;
    if (!is_ecat(b, len) || ecat_frame_first(b, len, &dg, &pos) != 0 || dg.cmd != ECAT_NOP || dg.len)
        return false;
    *fno = dg.lad;
    return true;
}

static bool is_dc_rmw(const struct ecat_dg *dg)
{
    return (dg->cmd == ECAT_FRMW || dg->cmd == ECAT_ARMW) && dg->ado == ESC_DC_SYS_TIME;
}

/* An auto-increment command (ARMW other than the DC one included) whose position,
 * counted from the first port, is a slave on the second port's side of a break. */
static bool far_side(const struct red_link *r, const struct ecat_dg *dg)
{
    bool ap = dg->cmd == ECAT_APRD || dg->cmd == ECAT_APWR || dg->cmd == ECAT_APRW ||
              (dg->cmd == ECAT_ARMW && !is_dc_rmw(dg));
    uint16_t pos1 = (uint16_t)(0 - dg->adp);
    return ap && r->st.broken && pos1 >= r->st.first_side &&
           pos1 < r->st.first_side + r->st.second_side;
}

/* The second port's copy: its own source MAC, and no command that would act on the
 * wrong slaves there (see the top of the file). */
static bool second_copy(struct red_link *r, uint8_t *b, size_t len)
{
    struct ecat_dg dg;
    size_t pos;
    bool dcw = false;
    memcpy(b + 6, r->port[1]->mac, 6);
    for (int rc = ecat_frame_first(b, len, &dg, &pos); rc == 0; rc = ecat_frame_next(b, len, &dg, &pos)) {
        bool ap = dg.cmd == ECAT_APRD || dg.cmd == ECAT_APWR || dg.cmd == ECAT_APRW ||
                  (dg.cmd == ECAT_ARMW && !is_dc_rmw(&dg));
        if (far_side(r, &dg)) {
            /* behind the break: counted from where this copy enters that side */
            put_le16(dg.hdr + 2, (uint16_t)(0 - ((uint16_t)(0 - dg.adp) - r->st.first_side)));
            ap = false;
        }
        if (is_dc_rmw(&dg) && r->st.broken && !r->ref_far && r->dc_have &&
            (dg.len == 4 || dg.len == 8)) {
            dg.hdr[0] = ECAT_BWR;   /* every slave behind the break; ADP counts up */
            put_le16(dg.hdr + 2, 0);
            dcw = true;             /* the time goes in as the copy leaves (red_send) */
        } else if (ap || (is_dc_rmw(&dg) && !(r->st.broken && r->ref_far)) ||
                   (red_frmw_is(&dg) && r->st.broken && red_frmw_side(&r->fr, dg.adp) == 0)) {
            dg.hdr[0] = ECAT_NOP;   /* an FRMW read on the first side: redund_dg.c */
        }
    }
    return dcw;
}

/* The reference's time now, into the second copy's BWR of 0x0910. */
static void stamp_time(struct red_link *r, uint8_t *b, size_t len, takt_ns_t now)
{
    struct ecat_dg dg;
    size_t pos;
    uint64_t t = r->dc_time + (uint64_t)(now - r->dc_at);
    for (int rc = ecat_frame_first(b, len, &dg, &pos); rc == 0; rc = ecat_frame_next(b, len, &dg, &pos))
        if (dg.cmd == ECAT_BWR && dg.ado == ESC_DC_SYS_TIME) {
            if (dg.len == 8)
                put_le64(dg.data, t);
            else
                put_le32(dg.data, (uint32_t)t);
        }
}

static int red_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{
    struct red_link *r = (struct red_link *)l;
    unsigned n2 = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t fno;
        size_t len = f[i].len;
        if (len > TAKT_FRAME_BUF || !frame_no(f[i].data, len, &fno) || n2 == RED_RX)
            continue;               /* not the master's: the first port only */
        struct red_slot *s = &r->slot[fno % RED_SLOTS];
        s->fno = fno;
        s->live = true;
        s->got[0] = s->got[1] = false;
        s->dropped = s->expired = false;
        s->len = (uint16_t)len;
        s->ts = 0;
        memcpy(s->sent, f[i].data, len);
        memcpy(r->tx2[n2], f[i].data, len);
        s->dcw = second_copy(r, r->tx2[n2], len);
        r->f2[n2] = f[i];
        r->f2[n2].data = r->tx2[n2];
        n2++;
    }
    takt_ns_t t0 = takt_now();
    for (unsigned i = 0; i < n; i++) {
        uint32_t fno;
        if (f[i].len <= TAKT_FRAME_BUF && frame_no(f[i].data, f[i].len, &fno))
            r->slot[fno % RED_SLOTS].t0 = t0;
    }
    /* An ARMW whose reading slave is on the second port's side goes by the second copy
     * (second_copy): in the first, every slave would write what the master sent in
     * place of the value read. It leaves as NOP there, and the caller's frame is put
     * back as it was once sent. So does an FRMW whose station is known there. */
    uint8_t *nop[RED_NOP], nop_cmd[RED_NOP];
    unsigned n_nop = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t fno;
        if (f[i].len > TAKT_FRAME_BUF || !frame_no(f[i].data, f[i].len, &fno))
            continue;
        struct ecat_dg dg;
        size_t pos;
        for (int rc = ecat_frame_first(f[i].data, f[i].len, &dg, &pos); rc == 0 && n_nop < RED_NOP;
             rc = ecat_frame_next(f[i].data, f[i].len, &dg, &pos))
            if ((dg.cmd == ECAT_ARMW && far_side(r, &dg)) ||
                (red_frmw_is(&dg) && r->st.broken && red_frmw_side(&r->fr, dg.adp) == 1)) {
                nop_cmd[n_nop] = dg.cmd;
                dg.hdr[0] = ECAT_NOP;
                nop[n_nop++] = dg.hdr;
            }
    }
    int a = takt_link_send(r->port[0], f, n);
    for (unsigned i = 0; i < n_nop; i++)
        nop[i][0] = nop_cmd[i];
    if (n2 && r->dc_have) {
        takt_ns_t t1 = takt_now();   /* as close to the second copy's leaving as can be */
        for (unsigned i = 0; i < n2; i++)
            stamp_time(r, r->tx2[i], r->f2[i].len, t1);
    }
    int b = n2 ? takt_link_send(r->port[1], r->f2, n2) : 0;
    r->st.tx[0] += a > 0 ? (unsigned)a : 0;
    r->st.tx[1] += b > 0 ? (unsigned)b : 0;
    if (a < 0 && b > 0)
        return (int)n;              /* out of the second port: the ring still carries it */
    return a;
}

/* Note what a copy tells about the ring: which port it came back on, how many slaves a
 * broadcast counted on its side, whether it passed the reference clock. */
static void observe(struct red_link *r, struct red_slot *s, bool judge)
{
    bool crossed = (s->got[0] && s->port[0] == 1) || (s->got[1] && s->port[1] == 0);
    bool looped = (s->got[0] && s->port[0] == 0) || (s->got[1] && s->port[1] == 1);
    r->st.crossed += crossed;
    if (!s->got[0] || !s->got[1])
        r->st.single++;
    for (int c = 0; c < 2; c++)
        r->miss[c] = s->got[c] ? 0 : r->miss[c] + (r->miss[c] < RED_MISS);
    bool broken = !crossed && looped;   /* emit() only sees frames with a copy back */
    struct ecat_dg d0, d1, ds;
    size_t p0, p1, ps;
    int rs = ecat_frame_first(s->sent, s->len, &ds, &ps);
    int r0 = ecat_frame_first(s->cp[0], s->len, &d0, &p0);
    int r1 = ecat_frame_first(s->cp[1], s->len, &d1, &p1);
    bool counted = !judge;          /* the ring's state is judged by frames with a BRD, and
                                     * not by one whose other copy is merely late */
    struct takt_ecat_redundancy was = r->st;
    bool lone_counted = judge || s->dropped || (s->got[0] && s->got[1]);
    while (rs == 0 && r0 == 0 && r1 == 0) {
        if (ds.cmd == ECAT_BRD && !counted) {
            counted = true;
            r->st.first_side = s->got[0] ? get_le16(d0.wkc) : 0;
            r->st.second_side = s->got[1] && !crossed ? get_le16(d1.wkc) : 0;
            r->st.broken = broken;
            unsigned all = r->st.first_side + r->st.second_side;
            if (all > r->ring_n && (crossed || (s->got[0] && s->got[1])))
                r->ring_n = all;
        } else if (ds.cmd == ECAT_BRD && !lone_counted && looped && !crossed) {
            /* one copy back, looped: the ring is broken and this is its side's count
             * (what the other side has is known once its copy comes, or is none when
             * its port brings nothing back); enough to address that side's slaves by
             * position from the start, before the ring was ever seen closed */
            lone_counted = true;
            int c = s->got[0] ? 0 : 1;
            unsigned n = get_le16(c ? d1.wkc : d0.wkc);
            r->st.broken = true;
            *(c ? &r->st.second_side : &r->st.first_side) = n;
            if (r->miss[!c] >= RED_MISS)
                *(c ? &r->st.first_side : &r->st.second_side) = 0;
        }
        if (is_dc_rmw(&ds) && broken && s->got[0])
            r->ref_far = !memcmp(d0.data, ds.data, ds.len);  /* not read on the first side */
        if (is_dc_rmw(&ds) && s->got[0] && s->t0 && (ds.len == 4 || ds.len == 8) &&
            get_le16(d0.wkc) && memcmp(d0.data, ds.data, ds.len)) {
            /* read by the reference as the first copy passed it (about when it left) */
            r->dc_time = ds.len == 8 ? get_le64(d0.data) : get_le32(d0.data);
            r->dc_at = s->t0;
            r->dc_have = true;
        }
        rs = ecat_frame_next(s->sent, s->len, &ds, &ps);
        r0 = ecat_frame_next(s->cp[0], s->len, &d0, &p0);
        r1 = ecat_frame_next(s->cp[1], s->len, &d1, &p1);
    }
    if (was.broken != r->st.broken || was.first_side != r->st.first_side ||
        was.second_side != r->st.second_side)
        red_frmw_reset(&r->fr);     /* the stations' sides are to be learned anew */
}

/* Both copies (or what came of them) into one reply, queued for the caller. */
static bool covers(const struct red_link *r, struct red_slot *s);

static void emit(struct red_link *r, struct red_slot *s, bool judge)
{
    if (r->nout == RED_RX)
        return;
    if (s->got[0] && s->got[1] && s->port[0] == s->port[1]) {
        /* Both copies on one port: the ring broke or closed while the frame was out.
         * On the second port, the first copy went round the whole ring and is the
         * frame; the second looped behind a new break and passed those slaves again
         * (adding it would count them twice). On the first port, the first copy looped
         * before a break that is gone and the second crossed unprocessed: the slaves
         * behind it never saw the frame, which is then late unless the first copy
         * covers them all. Either way only the first copy counts, and the frame says
         * nothing about the ring's state. */
        memcpy(s->cp[1], s->sent, s->len);
        s->dropped = true;
        judge = false;
        if (!covers(r, s))
            s->ts = takt_now();
    }
    for (int c = 0; c < 2; c++)
        if (!s->got[c])
            memcpy(s->cp[c], s->sent, s->len);   /* a missing copy: as sent, WKC 0 */
    if (!s->expired)                /* an expired frame was observed then (expire) */
        observe(r, s, judge);
    /* both copies looped, each on its side of a break: what an FRMW did (redund_dg.c) */
    bool looped = s->got[0] && s->got[1] && s->port[0] == 0 && s->port[1] == 1;
    uint8_t *o = r->outb[r->nout];
    memcpy(o, s->got[0] ? s->cp[0] : s->cp[1], s->len);
    memcpy(o + 6, s->sent + 6, 6);
    o[6] |= 0x02;                   /* came back through the ring */
    struct ecat_dg d0, d1, ds, dout;
    size_t p0, p1, ps, po;
    int rs = ecat_frame_first(s->sent, s->len, &ds, &ps);
    int r0 = ecat_frame_first(s->cp[0], s->len, &d0, &p0);
    int r1 = ecat_frame_first(s->cp[1], s->len, &d1, &p1);
    int ro = ecat_frame_first(o, s->len, &dout, &po);
    while (rs == 0 && r0 == 0 && r1 == 0 && ro == 0) {
        dout.hdr[0] = ds.cmd;       /* the second copy may have travelled as NOP */
        bool own = s->dcw && is_dc_rmw(&ds);   /* the far side's time write: not the frame's */
        red_merge_dg(ds.cmd, dout.data, d0.data, own ? ds.data : d1.data, ds.data, ds.len);
        unsigned w = get_le16(d0.wkc) + (own ? get_le16(ds.wkc) : get_le16(d1.wkc)) - get_le16(ds.wkc);
        if (looped) {
            red_frmw_learn(&r->fr, &ds, &d0, &d1);
            if (red_frmw_is(&ds))
                w = red_frmw_merge(&r->fr, &r->st, &ds, &d0, &d1, w);
        }
        put_le16(dout.wkc, (uint16_t)(w > 0xFFFF ? 0xFFFF : w));
        rs = ecat_frame_next(s->sent, s->len, &ds, &ps);
        r0 = ecat_frame_next(s->cp[0], s->len, &d0, &p0);
        r1 = ecat_frame_next(s->cp[1], s->len, &d1, &p1);
        ro = ecat_frame_next(o, s->len, &dout, &po);
    }
    r->outlen[r->nout] = s->len;
    r->outts[r->nout] = s->ts;
    r->nout++;
    s->live = false;
}

/* One frame from port p: a copy of one of ours (kept until its pair is complete),
 * something else (handed on as it is), or our own echo (dropped). */
static void take(struct red_link *r, unsigned p, uint8_t *b, size_t len, takt_ns_t ts)
{
    r->st.rx[p]++;
    uint32_t fno;
    int c = -1;
    if (is_ecat(b, len) && len >= 12) {
        if (!memcmp(b + 7, r->port[0]->mac + 1, 5))
            c = 0;
        else if (!memcmp(b + 7, r->port[1]->mac + 1, 5))
            c = 1;
    }
    if (c >= 0 && (unsigned)c == p && !(b[6] & 0x02))
        return;                     /* our own frame as it left this port */
    if (c >= 0)
        r->heard[p] = true;
    struct red_slot *s = NULL;
    if (c >= 0 && frame_no(b, len, &fno))
        s = &r->slot[fno % RED_SLOTS];
    if (s && s->fno == fno && !s->live) {
        r->miss[c] = 0;             /* a copy after its frame was merged: wait for it again */
        r->st.late++;
        return;
    }
    if (s && s->live && s->fno == fno && s->got[c]) {
        r->st.late++;               /* the same copy again (a duplicate on the wire): the
                                     * first is kept, handing this one on would give the
                                     * master half a frame */
        return;
    }
    if (!s || !s->live || s->fno != fno || len != s->len || !red_same_shape(s->sent, b, len)) {
        if (r->nout < RED_RX) {     /* not a copy we wait for: as it is */
            memcpy(r->outb[r->nout], b, len);
            r->outlen[r->nout] = (uint16_t)len;
            r->outts[r->nout++] = ts;
        }
        return;
    }
    if (s->expired)
        r->miss[c] = 0;             /* counted missing when its frame expired: it came */
    memcpy(s->cp[c], b, len);
    s->got[c] = true;
    s->port[c] = (uint8_t)p;
    if (ts > s->ts)
        s->ts = ts;
    if (s->got[0] && s->got[1])
        emit(r, s, true);
}

/* Whether the one copy of s that is back passed every slave: the first port's copy that
 * went round the whole ring, or a copy that looped on a side which (by its broadcast, or
 * else the last one seen on that side) holds the whole ring. */
static bool covers(const struct red_link *r, struct red_slot *s)
{
    int c = s->got[0] ? 0 : 1;      /* of a pair on one port: the first copy (emit) */
    if (s->port[c] != c)
        return c == 0;
    unsigned side = r->st.broken ? (c == 0 ? r->st.first_side : r->st.second_side) : 0;
    struct ecat_dg dg;
    size_t pos;
    for (int rc = ecat_frame_first(s->cp[c], s->len, &dg, &pos); rc == 0;
         rc = ecat_frame_next(s->cp[c], s->len, &dg, &pos))
        if (dg.cmd == ECAT_BRD) {
            side = get_le16(dg.wkc);
            break;
        }
    return r->ring_n && side >= r->ring_n;
}

/* Frames of which one copy is back. Whether that copy alone may stand for the frame is
 * judged by what it carries, never by how long the other takes: it may when it passed
 * every slave (covers), or when it looped on its side of a break while the other port
 * has brought back nothing for RED_MISS frames in a row (a dead port: the slaves
 * beyond both breaks are unreachable, and the master's WKC check must say so) or, once
 * the caller reads, nothing at all yet (a ring broken at that end from the start). A
 * frame whose other copy is late waits for it while the caller waits (not `all`); once
 * the caller reads (`all`) it expires: noted (a missing copy counts towards a dead
 * port), not handed on, still waiting for its other copy without holding up the caller.
 * Half a frame is no reply: a mailbox read (FPRD of SM1) behind the break empties the
 * slave's mailbox as the other copy passes it, and without that copy would read as
 * empty (WKC 0), the message gone for good; a mailbox write would read as refused and
 * be written twice. Complete, the frame is handed on with the later copy's stamp (late
 * for a cyclic frame's cycle; an acyclic one's reply); if that copy never comes, its
 * datagrams time out (a mailbox read is repeated, ETG.1000.4 SyncManager repeat
 * request). Returns how many frames wait that have not expired. */
static void expire(struct red_link *r, struct red_slot *s)
{
    if (s->expired)
        return;
    for (int c = 0; c < 2; c++)
        if (!s->got[c])
            memcpy(s->cp[c], s->sent, s->len);
    observe(r, s, false);
    s->expired = true;
}

static unsigned flush_halves(struct red_link *r, bool all)
{
    unsigned wait = 0;
    for (unsigned i = 0; i < RED_SLOTS; i++) {
        struct red_slot *s = &r->slot[i];
        if (!s->live || !(s->got[0] || s->got[1]) || s->expired)
            continue;               /* an expired frame goes on only complete (take) */
        int c = s->got[0] ? 0 : 1;
        bool whole = covers(r, s);
        bool dead = r->miss[!c] >= RED_MISS;    /* the other port brings nothing back */
        bool mute = all && !r->heard[!c];       /* ... nor ever did (broken at its end
                                                 * from the start): as good as dead */
        bool alone = whole || ((dead || mute) && s->port[c] == c);
        if (alone && (dead || all))
            emit(r, s, whole || dead);
        else if (all)
            expire(r, s);           /* its other copy is merely late, or lost */
        else
            wait++;
    }
    return wait;
}

/* Drain port p once (waiting at most t for the first frame). */
static int drain(struct red_link *r, unsigned p, takt_ns_t t)
{
    struct takt_frame f[RED_RX];
    unsigned room = RED_RX - r->nout;
    if (!room)
        return 0;
    for (unsigned i = 0; i < room; i++)
        f[i] = (struct takt_frame){ .data = r->rxb[i], .cap = TAKT_FRAME_BUF };
    int n = takt_link_recv(r->port[p], f, room, t);
    for (int i = 0; i < n; i++)
        take(r, p, f[i].data, f[i].len, f[i].ts);
    return n;
}

/* The link API has no descriptor to wait on both ports at once: wait on each in turn
 * in short slices. */
#define SLICE_NS (100 * 1000)

static int red_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns)
{
    struct red_link *r = (struct red_link *)l;
    takt_ns_t end = timeout_ns > 0 ? takt_now() + timeout_ns : 0;
    for (;;) {
        int a, b, got = 0;
        do {                        /* everything both ports hold now */
            a = drain(r, 0, 0);
            b = drain(r, 1, 0);
            got += (a > 0 ? a : 0) + (b > 0 ? b : 0);
        } while ((a > 0 || b > 0) && r->nout < RED_RX);
        if (a < 0 && b < 0 && !r->nout)
            return a;
        unsigned wait = flush_halves(r, false);
        if (r->nout && !wait)
            break;
        takt_ns_t now = timeout_ns ? takt_now() : 0;
        if (timeout_ns == 0 || (timeout_ns > 0 && now >= end)) {
            flush_halves(r, true);  /* the other copy is not back by now: it is late */
            break;
        }
        if (got)
            continue;
        takt_ns_t t = timeout_ns < 0 || end - now > SLICE_NS ? SLICE_NS : end - now;
        if (drain(r, 0, t / 2) <= 0)   /* nothing, or a port that fails at once: wait on the other */
            drain(r, 1, t / 2);
    }
    unsigned k = r->nout < n ? r->nout : n;
    for (unsigned i = 0; i < k; i++) {
        uint16_t len = r->outlen[i] <= f[i].cap ? r->outlen[i] : f[i].cap;
        memcpy(f[i].data, r->outb[i], len);
        f[i].len = len;
        f[i].ts = r->outts[i];
    }
    memmove(r->outb, r->outb + k, (r->nout - k) * sizeof r->outb[0]);
    memmove(r->outlen, r->outlen + k, (r->nout - k) * sizeof r->outlen[0]);
    memmove(r->outts, r->outts + k, (r->nout - k) * sizeof r->outts[0]);
    r->nout -= k;
    return (int)k;
}

static void red_close(struct takt_link *l)
{
    free(l);
}

static void red_sync(struct takt_link *l)
{
    struct red_link *r = (struct red_link *)l;
    takt_link_get_stats(r->port[0], &l->stats);
}

static const struct takt_link_ops red_ops = {
    .kind = "redundant", .send = red_send, .recv = red_recv, .close = red_close,
    .sync_stats = red_sync,
};

int ecat_red_open(struct takt_link *first, struct takt_link *second, struct takt_link **out,
                  char *err, size_t errlen)
{
    *out = NULL;
    if (!first || !second || first == second) {
        snprintf(err, errlen, "cable redundancy: expected two different ports");
        return -EINVAL;
    }
    if (!memcmp(first->mac + 1, second->mac + 1, 5)) {
        snprintf(err, errlen, "cable redundancy: %s and %s have MACs that differ only in the "
                 "first octet; the copies could not be told apart", first->name, second->name);
        return -EINVAL;
    }
    struct red_link *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    r->base.ops = &red_ops;
    snprintf(r->base.name, sizeof r->base.name, "%s", first->name);
    memcpy(r->base.mac, first->mac, 6);
    r->base.mtu = first->mtu;
    r->port[0] = first;
    r->port[1] = second;
    r->st.active = true;
    r->st.break_after = -1;
    red_frmw_reset(&r->fr);
    *out = &r->base;
    return 0;
}

void ecat_red_get(const struct takt_link *l, struct takt_ecat_redundancy *out)
{
    const struct red_link *r = (const struct red_link *)l;
    *out = r->st;
}
