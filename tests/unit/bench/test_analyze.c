/* takt analyze on synthetic captures with known timestamps: every statistic is checked
 * against the value the construction implies (periods, outer bins, gaps, loss, latency). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/analyze.h"
#include "util/wire.h"

/* --- capture writers: pcapng (ns, us, big-endian, binary 2^-20 s ticks) and classic
 * pcap (ns, us), written byte by byte here so the reader is checked against the format
 * documents (rt-linux.md §6), not against itself ----------------------------------- */
enum fmt { NG_NS, NG_US, NG_BE, PCAP_NS, PCAP_US, NG_SLL2, PCAP_SLL, FMT_COUNT };
static const char *const fmt_name[] = { "pcapng-ns", "pcapng-us", "pcapng-be", "pcap-ns", "pcap-us",
                                        "pcapng-sll2", "pcap-sll" };
_Static_assert(sizeof fmt_name / sizeof fmt_name[0] == FMT_COUNT, "format names");

struct cap {
    FILE *f;
    enum fmt fmt;
};

static void w16(struct cap *c, uint16_t v)
{
    uint8_t b[2];
    if (c->fmt == NG_BE)
        put_be16(b, v);
    else
        put_le16(b, v);
    fwrite(b, 1, 2, c->f);
}

static void w32(struct cap *c, uint32_t v)
{
    uint8_t b[4];
    if (c->fmt == NG_BE) {
        b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
    } else {
        put_le32(b, v);
    }
    fwrite(b, 1, 4, c->f);
}

static bool is_ng(enum fmt f) { return f == NG_NS || f == NG_US || f == NG_BE || f == NG_SLL2; }
static bool is_us(enum fmt f) { return f == NG_US || f == PCAP_US; }

/* n_if interfaces with these link types; tsresol: option byte, -1 = no option */
static struct cap cap_open_if(const char *path, enum fmt fmt, int n_if, const int *linktypes, int tsresol)
{
    struct cap c = { fopen(path, "wb"), fmt };
    assert_non_null(c.f);
    if (!is_ng(fmt)) {   /* pcap file header: magic, 2.4, thiszone, sigfigs, snaplen, linktype */
        w32(&c, fmt == PCAP_US ? 0xA1B2C3D4 : 0xA1B23C4D);
        w16(&c, 2), w16(&c, 4), w32(&c, 0), w32(&c, 0), w32(&c, 65535), w32(&c, (uint32_t)linktypes[0]);
        return c;
    }
    w32(&c, 0x0A0D0D0A), w32(&c, 28), w32(&c, 0x1A2B3C4D), w16(&c, 1), w16(&c, 0);
    w32(&c, 0xFFFFFFFF), w32(&c, 0xFFFFFFFF), w32(&c, 28);                /* section length -1 */
    for (int i = 0; i < n_if; i++) {
        uint32_t len = tsresol >= 0 ? 32 : 24;
        w32(&c, 1), w32(&c, len), w16(&c, (uint16_t)linktypes[i]), w16(&c, 0), w32(&c, 65535);
        if (tsresol >= 0) {   /* if_tsresol (code 9, 1 byte), then opt_endofopt */
            w16(&c, 9), w16(&c, 1);
            uint8_t v[4] = { (uint8_t)tsresol, 0, 0, 0 };
            fwrite(v, 1, 4, c.f);
        }
        w16(&c, 0), w16(&c, 0), w32(&c, len);
    }
    return c;
}

static struct cap cap_open(const char *path, enum fmt fmt)
{
    int lt = fmt == NG_SLL2 ? 276 : fmt == PCAP_SLL ? 113 : 1;
    return cap_open_if(path, fmt, 1, &lt, fmt == NG_US ? -1 : 9);
}

/* An Ethernet frame as a Linux cooked capture records it (libpcap sll.h, big-endian):
 * SLL: pkttype, ARPHRD_ETHER, address length 6, address (8), protocol; SLL2: protocol,
 * reserved, ifindex, ARPHRD_ETHER, pkttype, address length, address (8). The sender's
 * MAC is kept, the destination is lost. */
static uint32_t cooked(enum fmt fmt, uint8_t *o, const uint8_t *d, uint32_t len)
{
    uint32_t hdr = fmt == NG_SLL2 ? 20 : 16;
    memset(o, 0, hdr);
    if (fmt == NG_SLL2) {
        memcpy(o, d + 12, 2);
        o[7] = 3;                 /* ifindex 3 */
        put_be16(o + 8, 1);       /* ARPHRD_ETHER */
        o[10] = 1;                /* broadcast, as an EtherCAT frame arrives */
        o[11] = 6;
        memcpy(o + 12, d + 6, 6);
    } else {
        put_be16(o, 4);           /* outgoing */
        put_be16(o + 2, 1);
        put_be16(o + 4, 6);
        memcpy(o + 6, d + 6, 6);
        memcpy(o + 14, d + 12, 2);
    }
    memcpy(o + hdr, d + 14, len - 14);
    return len - 14 + hdr;
}

/* one frame at ts ns; dir (pcapng epb_flags: 1 inbound, 2 outbound) where not 0 */
static void cap_frame_dir(struct cap *c, int64_t ts, const uint8_t *d, uint32_t len, int dir)
{
    static const uint8_t z[4];
    uint8_t ck[1600];
    if (c->fmt == NG_SLL2 || c->fmt == PCAP_SLL) {
        len = cooked(c->fmt, ck, d, len);
        d = ck;
    }
    if (!is_ng(c->fmt)) {
        w32(c, (uint32_t)(ts / 1000000000));
        w32(c, (uint32_t)(ts % 1000000000 / (c->fmt == PCAP_US ? 1000 : 1)));
        w32(c, len), w32(c, len);
        fwrite(d, 1, len, c->f);
        return;
    }
    uint64_t ticks = (uint64_t)(c->fmt == NG_US ? ts / 1000 : ts);
    uint32_t pad = (len + 3) & ~3u, opt = dir ? 12 : 0, blen = 28 + pad + opt + 4;
    w32(c, 6), w32(c, blen), w32(c, 0), w32(c, (uint32_t)(ticks >> 32)), w32(c, (uint32_t)ticks);
    w32(c, len), w32(c, len);
    fwrite(d, 1, len, c->f);
    fwrite(z, 1, pad - len, c->f);
    if (dir)   /* epb_flags, then opt_endofopt */
        w16(c, 2), w16(c, 4), w32(c, (uint32_t)dir), w16(c, 0), w16(c, 0);
    w32(c, blen);
}

static void cap_frame(struct cap *c, int64_t ts, const uint8_t *d, uint32_t len) { cap_frame_dir(c, ts, d, len, 0); }
static void cap_close(struct cap *c) { fclose(c->f); }

/* the pcapng of the older tests: nanoseconds, little-endian */
static FILE *ng_open(const char *path, int n_if, const int *linktypes)
{
    return cap_open_if(path, NG_NS, n_if, linktypes, 9).f;
}

static void ng_frame_dir(FILE *f, int64_t ts, const uint8_t *d, uint32_t len, int dir)
{
    struct cap c = { f, NG_NS };
    cap_frame_dir(&c, ts, d, len, dir);
}

static void ng_frame(FILE *f, int64_t ts, const uint8_t *d, uint32_t len)
{
    ng_frame_dir(f, ts, d, len, 0);
}

/* An EtherCAT frame with one LRW datagram (idx) of 8 bytes; returned frames carry the
 * U/L bit in the source MAC and WKC 3. */
static uint8_t master_mac0;   /* first octet of the master's MAC: 0x00 universal, 0x02 local (veth) */

static uint32_t ecat_lrw(uint8_t *b, uint8_t idx, bool returned)
{
    memset(b, 0, 60);
    memset(b, 0xff, 6);
    memcpy(b + 6, "\x02\x00\x00\x00\x00\x01", 6);
    b[6] = returned ? master_mac0 | 0x02 : master_mac0;
    put_be16(b + 12, 0x88A4);
    put_le16(b + 14, 0x1000 | (10 + 8 + 2));
    b[16] = 0x0C;  /* LRW */
    b[17] = idx;
    put_le32(b + 18, 0x00010000);
    put_le16(b + 22, 8);
    put_le16(b + 34, returned ? 3 : 0);
    return 60;
}

static char path[256];

static const char *tmpfile_name(const char *tag)
{
    snprintf(path, sizeof path, "/tmp/takt-analyze-%d-%s", (int)getpid(), tag);
    return path;
}

struct ev { int64_t ts; int idx; bool ret; };
static int ev_cmp(const void *x, const void *y)
{
    const struct ev *a = x, *b = y;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

struct variant { enum fmt fmt; uint8_t mac0; };

/* 1001 sends; periods: 1 ms except: #10 +5 us, #11 -5 us (back on grid), #100 +150 us
 * (outer upper bin), #101 -150 us (outer lower bin), #500 a 3 ms gap (2 cycles missing,
 * upper bin). Replies 20 us after each send except: sends 7, 8 and 900 never answered
 * (lost), send 300 answered 1.2 ms later, after send 301 (late). All times are whole
 * microseconds, so every format must give the same exact figures. */
static void ecat_known_stream(void **state)
{
    const struct variant *var = *state;
    master_mac0 = var->mac0;
    char tag[64];
    snprintf(tag, sizeof tag, "ecat-%s-%u", fmt_name[var->fmt], var->mac0);
    const char *p = tmpfile_name(tag);
    static struct ev ev[2100];
    int nev = 0;
    int64_t t = 1000000000000LL;
    for (int i = 0; i < 1001; i++) {
        int64_t per = 1000000;
        if (i == 10) per += 5000;
        if (i == 11) per -= 5000;
        if (i == 100) per += 150000;
        if (i == 101) per -= 150000;
        if (i == 500) per = 3000000;
        if (i)
            t += per;
        ev[nev++] = (struct ev){ t, i, false };
        if (i != 7 && i != 8 && i != 900)
            ev[nev++] = (struct ev){ t + (i == 300 ? 1200000 : 20000), i, true };
    }
    qsort(ev, (size_t)nev, sizeof ev[0], ev_cmp);
    struct cap c = cap_open(p, var->fmt);
    uint8_t b[64];
    for (int e = 0; e < nev; e++)
        cap_frame(&c, ev[e].ts, b, ecat_lrw(b, (uint8_t)ev[e].idx, ev[e].ret));
    cap_close(&c);

    struct analyze a;
    struct an_opts o = { .cycle_ns = 0, .bin_ns = 1000, .range_ns = 100000 };
    analyze_init(&a, &o);
    int64_t prec = 0;
    char err[256] = "";
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(prec, is_us(var->fmt) ? 1000 : 1);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.proto, 1);
    assert_int_equal(a.ecat_sent, 1001);
    assert_int_equal(a.ecat_returned, 998);
    assert_int_equal(a.ts[0], 1000000000000LL);
    assert_int_equal(r.cycles, 1000);
    assert_int_equal(r.nominal_ns, 1000000);
    assert_int_equal(r.period.min, 850000);
    assert_int_equal(r.period.max, 3000000);
    assert_int_equal(r.period.sum, 1002000000);     /* 1000 x 1 ms + the 2 ms of the gap */
    assert_int_equal(r.dev.under, 1);
    assert_int_equal(r.dev.over, 2);                 /* +150 us and the gap */
    assert_int_equal(r.dev.bins[100], 995);          /* deviation 0 in bin [0, 1 us) */
    assert_int_equal(r.dev.bins[105], 1);            /* +5 us */
    assert_int_equal(r.dev.bins[95], 1);             /* -5 us */
    assert_int_equal(r.dev.under + r.dev.over + 995 + 2, r.cycles);
    assert_int_equal(r.gaps, 1);
    assert_int_equal(r.missing_cycles, 2);
    assert_int_equal(r.lost, 3);
    assert_int_equal(r.late, 1);
    assert_int_equal(r.stream_lost, 3);
    assert_int_equal(r.stream_late, 1);
    assert_int_equal(a.keys[a.stream].count, 1001);
    assert_int_equal(a.keys[a.stream].returned, 998);
    assert_int_equal(r.rtt.count, 998);
    assert_int_equal(r.rtt.min, 20000);
    assert_int_equal(r.rtt.max, 1200000);
    assert_int_equal(r.rtt.sum, 997 * 20000 + 1200000);
    assert_int_equal(r.p50, 1000000);
    assert_int_equal(r.p99, 1000000);
    assert_int_equal(r.p999, 1150000);               /* rank 999 of 1000 */
    assert_int_equal(r.p9999, 3000000);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

static uint32_t plk(uint8_t *b, uint8_t mtyp, uint8_t dst, uint8_t src)
{
    memset(b, 0, 60);
    memcpy(b, "\x01\x11\x1e\x00\x00\x01", 6);
    put_be16(b + 12, 0x88AB);
    b[14] = mtyp;
    b[15] = dst;
    b[16] = src;
    return 60;
}

/* SoCs every 500 us; the cycle starting at #10 is 5 us late (periods +5/-5 us), #100
 * 80 us late (+80/-80 us: both outer bins at --range 50), cycle #150 is missing (a gap of
 * one cycle). In each cycle: PReq 1 (+10 us), PRes 1 (+40 us), PReq 2 (+60 us), PRes 2
 * (+85 us), SoA (+100 us). Node 2 stays silent in cycles 50 and 51 (lost); in cycle 70
 * node 1 answers at +65 us, after the MN already sent PReq 2 (late: the MN counts it
 * lost; no latency). */
static void plk_known_cycle(void **state)
{
    const struct variant *var = *state;
    char tag[64];
    snprintf(tag, sizeof tag, "plk-%s", fmt_name[var->fmt]);
    const char *p = tmpfile_name(tag);
    struct cap c = cap_open(p, var->fmt);
    uint8_t b[64];
    for (int cy = 0; cy < 200; cy++) {
        if (cy == 150)
            continue;
        int64_t t = 5000000000LL + cy * 500000LL + (cy == 10 ? 5000 : cy == 100 ? 80000 : 0);
        cap_frame(&c, t, b, plk(b, 0x01, 255, 240));
        cap_frame(&c, t + 10000, b, plk(b, 0x03, 1, 240));
        if (cy != 70)
            cap_frame(&c, t + 40000, b, plk(b, 0x04, 255, 1));
        cap_frame(&c, t + 60000, b, plk(b, 0x03, 2, 240));
        if (cy == 70)
            cap_frame(&c, t + 65000, b, plk(b, 0x04, 255, 1));
        if (cy != 50 && cy != 51)
            cap_frame(&c, t + 85000, b, plk(b, 0x04, 255, 2));
        cap_frame(&c, t + 100000, b, plk(b, 0x05, 255, 240));
    }
    cap_close(&c);
    struct analyze a;
    struct an_opts o = { .cycle_ns = 500000, .bin_ns = 1000, .range_ns = 50000 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(prec, is_us(var->fmt) ? 1000 : 1);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.proto, 2);
    assert_int_equal(a.soc, 199);
    assert_int_equal(r.cycles, 198);
    assert_int_equal(r.period.min, 420000);
    assert_int_equal(r.period.max, 1000000);
    assert_int_equal(r.period.sum, 198 * 500000LL + 500000);
    assert_int_equal(r.dev.bins[50], 193);
    assert_int_equal(r.dev.bins[55], 1);
    assert_int_equal(r.dev.bins[45], 1);
    assert_int_equal(r.dev.under, 1);                /* -80 us */
    assert_int_equal(r.dev.over, 2);                 /* +80 us and the missing cycle */
    assert_int_equal(r.gaps, 1);
    assert_int_equal(r.missing_cycles, 1);
    assert_int_equal(r.p50, 500000);
    assert_int_equal(r.p99, 580000);                 /* rank 197 of 198 */
    assert_int_equal(r.p999, 1000000);
    assert_int_equal(a.node[1].preq, 199);
    assert_int_equal(a.node[1].pres, 199);
    assert_int_equal(a.node[1].lost, 0);
    assert_int_equal(a.node[1].late, 1);
    assert_int_equal(a.node[1].lat.count, 198);
    assert_int_equal(a.node[1].lat.min, 30000);
    assert_int_equal(a.node[1].lat.max, 30000);
    assert_int_equal(a.node[2].pres, 197);
    assert_int_equal(a.node[2].lost, 2);
    assert_int_equal(a.node[2].late, 0);
    assert_int_equal(a.node[2].lat.min, 25000);
    assert_int_equal(a.node[2].lat.max, 25000);
    assert_int_equal(r.lost, 2);
    assert_int_equal(r.late, 1);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

/* A capture that holds only the master's frames, from a master whose MAC is locally
 * administered (as on a veth): indices wrap every 256 frames and must never be taken
 * for returns. */
static void ecat_one_direction_local_mac(void **state)
{
    master_mac0 = 0x02;
    const char *p = tmpfile_name("onedir.pcapng");
    int lt = 1;
    FILE *f = ng_open(p, 1, &lt);
    uint8_t b[64];
    for (int i = 0; i < 1000; i++)
        ng_frame(f, 1000000LL * i, b, ecat_lrw(b, (uint8_t)i, false));
    fclose(f);
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(a.ecat_sent, 1000);
    assert_int_equal(a.ecat_returned, 0);
    assert_int_equal(r.cycles, 999);
    assert_int_equal(r.period.min, 1000000);
    assert_int_equal(r.period.max, 1000000);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

/* Captured at the CN's end: its own PRes (sent with qdisc bypass) are not in the file,
 * so no PReq may be taken for a lost PRes. */
static void plk_one_direction(void **state)
{
    struct analyze a;
    struct an_opts o = { .cycle_ns = 1000000 };
    analyze_init(&a, &o);
    uint8_t b[64];
    for (int c = 0; c < 10; c++) {
        analyze_frame(&a, c * 1000000LL, b, plk(b, 0x01, 255, 240));
        analyze_frame(&a, c * 1000000LL + 5000, b, plk(b, 0x03, 1, 240));
    }
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.cycles, 9);
    assert_int_equal(a.node[1].preq, 10);
    assert_int_equal(r.lost, 0);
    analyze_result_free(&r);
    analyze_free(&a);
}

/* The master's own capture (takt's --pcap tap) marks direction: a mailbox poll that
 * comes back with working counter 0 is still a return, and an auto-increment read whose
 * ADP every slave incremented still pairs with its request. */
static void ecat_direction_flags(void **state)
{
    const char *p = tmpfile_name("dir.pcapng");
    int lt = 1;
    FILE *f = ng_open(p, 1, &lt);
    uint8_t b[64];
    for (int i = 0; i < 100; i++) {
        int64_t t = 1000000LL * i;
        master_mac0 = 0x02;
        ng_frame_dir(f, t, b, ecat_lrw(b, (uint8_t)i, false), 2);
        ng_frame_dir(f, t + 15000, b, ecat_lrw(b, (uint8_t)i, true), 1);
        /* FPRD of an empty mailbox: returns unchanged, WKC 0 */
        ecat_lrw(b, (uint8_t)(i + 100), false);
        b[16] = 0x04;
        put_le32(b + 18, 0x10801001);
        ng_frame_dir(f, t + 20000, b, 60, 2);
        ng_frame_dir(f, t + 30000, b, 60, 1);
        /* APRD to position -3: comes back with ADP 0 after three slaves */
        ecat_lrw(b, (uint8_t)(i + 200), false);
        b[16] = 0x01;
        put_le32(b + 18, 0x0130FFFD);
        ng_frame_dir(f, t + 40000, b, 60, 2);
        put_le32(b + 18, 0x01300000);
        put_le16(b + 34, 1);
        ng_frame_dir(f, t + 50000, b, 60, 1);
    }
    fclose(f);
    struct analyze a;
    struct an_opts o = { .cycle_ns = 1000000 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(a.ecat_sent, 300);
    assert_int_equal(a.ecat_returned, 300);
    assert_int_equal(r.lost, 0);
    assert_int_equal(r.cycles, 99);
    assert_int_equal(r.rtt.count, 300);
    assert_int_equal(r.rtt.min, 10000);
    assert_int_equal(r.rtt.max, 15000);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

static void microsecond_pcap(void **state)
{
    master_mac0 = 0;
    const char *p = tmpfile_name("us.pcap");
    pcap_t *d = pcap_open_dead(DLT_EN10MB, 65535);
    pcap_dumper_t *w = pcap_dump_open(d, p);
    uint8_t b[64];
    for (int i = 0; i < 10; i++) {
        struct pcap_pkthdr h = { .ts = { 100, i * 1000 }, .caplen = 60, .len = 60 };
        ecat_lrw(b, (uint8_t)i, false);
        pcap_dump((u_char *)w, &h, b);
    }
    pcap_dump_close(w);
    pcap_close(d);
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(prec, 1000);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.nominal_ns, 1000000);
    assert_int_equal(r.cycles, 9);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

static void bad_inputs(void **state)
{
    struct analyze a;
    struct an_opts o = { 0 };
    int64_t prec;
    char err[256];
    struct an_result r;

    /* no cyclic frames: only ARP-like frames */
    const char *p = tmpfile_name("none.pcapng");
    int lt = 1;
    FILE *f = ng_open(p, 1, &lt);
    uint8_t b[64] = { 0 };
    put_be16(b + 12, 0x0806);
    for (int i = 0; i < 5; i++)
        ng_frame(f, i * 1000, b, 60);
    fclose(f);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(analyze_finish(&a, &r), -ENODATA);
    assert_int_equal(a.other_frames, 5);
    analyze_free(&a);

    /* mixed link types */
    int lts[2] = { 1, 113 };
    f = ng_open(p, 2, lts);
    fclose(f);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "mixes link types 1 and 113"));
    analyze_free(&a);

    /* not a capture */
    f = fopen(p, "wb");
    fputs("this is not a capture file at all", f);
    fclose(f);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "not a pcap or pcapng file"));
    analyze_free(&a);
    unlink(p);

    /* missing file */
    analyze_init(&a, &o);
    assert_true(analyze_file(&a, "/nonexistent/x.pcapng", &prec, err, sizeof err) < 0);
    assert_non_null(strstr(err, "/nonexistent/x.pcapng"));
    analyze_free(&a);

    /* truncated and garbage frames are counted, never crash */
    analyze_init(&a, &o);
    uint8_t g[20] = { 0 };
    put_be16(g + 12, 0x88A4);
    analyze_frame(&a, 0, g, 16);
    analyze_frame(&a, 0, g, 3);
    put_be16(g + 12, 0x88AB);
    analyze_frame(&a, 0, g, 15);
    assert_int_equal(a.malformed, 3);
    analyze_free(&a);
}

/* if_tsresol 0x94 (2^-20 s ticks) and if_tsoffset 100 s: 2048 ticks are exactly
 * 1953125 ns, so the periods must come out exactly that (a floating-point conversion
 * of a 2^50-tick timestamp is off by hundreds of ns). */
static void pcapng_binary_ticks_and_offset(void **state)
{
    master_mac0 = 0;
    const char *p = tmpfile_name("bin.pcapng");
    FILE *f = fopen(p, "wb");
    struct cap c = { f, NG_NS };
    w32(&c, 0x0A0D0D0A), w32(&c, 28), w32(&c, 0x1A2B3C4D), w16(&c, 1), w16(&c, 0);
    w32(&c, 0xFFFFFFFF), w32(&c, 0xFFFFFFFF), w32(&c, 28);
    w32(&c, 1), w32(&c, 44), w16(&c, 1), w16(&c, 0), w32(&c, 65535);
    w16(&c, 9), w16(&c, 1), w32(&c, 0x94);                       /* if_tsresol 2^-20 */
    w16(&c, 14), w16(&c, 8), w32(&c, 100), w32(&c, 0);           /* if_tsoffset 100 s (LE u64) */
    w16(&c, 0), w16(&c, 0), w32(&c, 44);
    uint8_t b[64];
    uint64_t t0 = 1ull << 50;   /* about 34 years of ticks */
    for (int i = 0; i < 10; i++) {
        uint64_t ticks = t0 + 2048ull * (uint64_t)i;
        uint32_t len = ecat_lrw(b, (uint8_t)i, false);
        w32(&c, 6), w32(&c, 28 + 60 + 4), w32(&c, 0), w32(&c, (uint32_t)(ticks >> 32)), w32(&c, (uint32_t)ticks);
        w32(&c, len), w32(&c, len);
        fwrite(b, 1, len, f);
        w32(&c, 28 + 60 + 4);
    }
    fclose(f);
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(prec, 954);                                  /* 2^-20 s, rounded */
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.cycles, 9);
    assert_int_equal(r.period.min, 1953125);
    assert_int_equal(r.period.max, 1953125);
    /* 2^50 ticks of 2^-20 s = 2^30 s, plus the 100 s offset */
    assert_int_equal(a.ts[0], ((1LL << 30) + 100) * 1000000000LL);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

/* --lo/--hi: an asymmetric window [-10 us, +30 us) in 5 us bins; outer bins beyond. */
static void asymmetric_limits(void **state)
{
    master_mac0 = 0;
    struct analyze a;
    struct an_opts o = { .cycle_ns = 1000000, .bin_ns = 5000, .lo_ns = -10000, .hi_ns = 30000 };
    analyze_init(&a, &o);
    uint8_t b[64];
    /* deviations: -11 (under), -10 (bin 0), -1 (bin 1), 0 (bin 2), 29.999 (bin 7), 30 (over) us */
    static const int64_t dev[] = { -11000, -10000, -1000, 0, 29999, 30000 };
    int64_t t = 0;
    analyze_frame(&a, t, b, ecat_lrw(b, 0, false));
    for (int i = 0; i < 6; i++) {
        t += 1000000 + dev[i];
        analyze_frame(&a, t, b, ecat_lrw(b, (uint8_t)(i + 1), false));
    }
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.dev.lo, -10000);
    assert_int_equal(r.dev.nbins, 8);
    assert_int_equal(r.dev.under, 1);
    assert_int_equal(r.dev.bins[0], 1);
    assert_int_equal(r.dev.bins[1], 1);
    assert_int_equal(r.dev.bins[2], 1);
    assert_int_equal(r.dev.bins[7], 1);
    assert_int_equal(r.dev.over, 1);
    analyze_result_free(&r);
    analyze_free(&a);
}

/* Cut a file to len bytes. */
static void cut(const char *p, long len) { assert_int_equal(truncate(p, len), 0); }

static long file_size(const char *p)
{
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* A capture killed while writing, and damaged files: a clear message, what could be
 * read is kept, nothing crashes. */
static void truncated_and_corrupt(void **state)
{
    master_mac0 = 0;
    struct analyze a;
    struct an_opts o = { 0 };
    int64_t prec;
    char err[256];
    struct an_result r;
    uint8_t b[64];
    for (enum fmt fmt = NG_NS; fmt < FMT_COUNT; fmt++) {
        const char *p = tmpfile_name("trunc");
        struct cap c = cap_open(p, fmt);
        for (int i = 0; i < 20; i++)
            cap_frame(&c, 1000000LL * (i + 1), b, ecat_lrw(b, (uint8_t)i, false));
        cap_close(&c);
        cut(p, file_size(p) - 30);           /* inside the 20th frame */
        analyze_init(&a, &o);
        err[0] = 0;
        assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
        assert_true(a.truncated);
        assert_int_equal(a.frames, 19);
        assert_non_null(strstr(err, "truncated after 19 frames"));
        assert_int_equal(analyze_finish(&a, &r), 0);
        assert_int_equal(r.cycles, 18);
        analyze_result_free(&r);
        analyze_free(&a);

        cut(p, is_ng(fmt) ? 40 : 30);        /* inside the first block / record */
        analyze_init(&a, &o);
        int rc = analyze_file(&a, p, &prec, err, sizeof err);
        if (is_ng(fmt)) {
            assert_int_equal(rc, -EINVAL);
            assert_non_null(strstr(err, "ends inside its first block"));
        } else {                              /* libpcap: a short record header is the end */
            assert_true(rc == 0 || rc == -EINVAL);
            assert_int_equal(a.frames, 0);
        }
        analyze_free(&a);
        unlink(p);
    }

    /* a packet block naming an interface the file never described */
    const char *p = tmpfile_name("badif.pcapng");
    struct cap c = cap_open(p, NG_NS);
    cap_frame(&c, 1000, b, ecat_lrw(b, 0, false));
    long pos = ftell(c.f);
    cap_frame(&c, 2000, b, ecat_lrw(b, 1, false));
    fseek(c.f, pos + 8, SEEK_SET);
    w32(&c, 7);
    cap_close(&c);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "damaged after 1 frames"));
    assert_non_null(strstr(err, "interface 7"));
    analyze_free(&a);

    /* a block length that is not a multiple of 4: read up to there */
    c = cap_open(p, NG_NS);
    cap_frame(&c, 1000, b, ecat_lrw(b, 0, false));
    cap_frame(&c, 2000, b, ecat_lrw(b, 1, false));
    pos = ftell(c.f);
    cap_frame(&c, 3000, b, ecat_lrw(b, 2, false));
    fseek(c.f, pos + 4, SEEK_SET);
    w32(&c, 13);
    cap_close(&c);
    analyze_init(&a, &o);
    err[0] = 0;
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(a.frames, 2);
    assert_true(a.truncated);
    analyze_free(&a);

    /* one interface that is neither Ethernet nor Linux cooked (raw IP, 101) */
    int lt = 101;
    c = cap_open_if(p, NG_NS, 1, &lt, 9);
    cap_close(&c);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "expected Ethernet"));
    analyze_free(&a);

    /* classic pcap of raw IP (linktype 101) */
    lt = 101;
    c = cap_open_if(p, PCAP_NS, 1, &lt, -1);
    cap_close(&c);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "expected Ethernet (EN10MB) or Linux cooked"));
    analyze_free(&a);

    /* too short to be a capture at all */
    FILE *f = fopen(p, "wb");
    fwrite("\x0a\x0d\x0d\x0a", 1, 4, f);
    fclose(f);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "too short"));
    analyze_free(&a);
    unlink(p);
}

static struct variant V[] = {
    { NG_NS, 0x00 }, { NG_NS, 0x02 }, { NG_US, 0x00 }, { NG_BE, 0x02 }, { PCAP_NS, 0x00 }, { PCAP_US, 0x02 },
    { NG_SLL2, 0x02 }, { PCAP_SLL, 0x00 },
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* every format; master MAC universal (0x00) or locally administered (0x02, veth) */
        cmocka_unit_test_prestate(ecat_known_stream, &V[0]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[1]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[2]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[3]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[4]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[5]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[6]),
        cmocka_unit_test_prestate(ecat_known_stream, &V[7]),
        cmocka_unit_test(ecat_one_direction_local_mac),
        cmocka_unit_test(ecat_direction_flags),
        cmocka_unit_test_prestate(plk_known_cycle, &V[0]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[2]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[3]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[4]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[5]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[6]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[7]),
        cmocka_unit_test(pcapng_binary_ticks_and_offset),
        cmocka_unit_test(asymmetric_limits),
        cmocka_unit_test(truncated_and_corrupt),
        cmocka_unit_test(plk_one_direction),
        cmocka_unit_test(microsecond_pcap),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
