/* takt analyze on synthetic captures with known timestamps: every statistic is checked
 * against the value the construction implies (periods, outer bins, gaps, loss, late
 * frames, latency), in every capture format capture_writer.h writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/analyze.h"
#include "capture_writer.h"

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

/* takt's master opens every frame with a NOP naming the frame (index 0, the frame number
 * in its address): an acyclic frame and the cyclic frame of one cycle are both in flight,
 * and each return must pair with its own request, not be taken for a new request because
 * both begin with index 0 (more frames in flight than the ways an index keeps: the
 * capture then showed extra cyclic frames). */
static uint32_t nop_framed(uint8_t *b, uint32_t fno, uint8_t cmd, uint8_t idx, uint32_t addr, bool returned)
{
    memset(b, 0, 72);
    memset(b, 0xff, 6);
    memcpy(b + 6, "\x02\x00\x00\x00\x00\x01", 6);
    put_be16(b + 12, 0x88A4);
    put_le16(b + 14, 0x1000 | (12 + 10 + 8 + 2));
    b[16] = 0x00;                          /* NOP, index 0, frame number, no data, M set */
    put_le32(b + 18, fno);
    put_le16(b + 22, 0x8000);
    b[28] = cmd;
    b[29] = idx;
    put_le32(b + 30, addr);
    put_le16(b + 34, 8);
    put_le16(b + 46, returned ? 3 : 0);
    return 72;
}

static void ecat_nop_framed_pairs(void **state)
{
    const char *p = tmpfile_name("nop.pcapng");
    int lt = 1;
    FILE *f = ng_open(p, 1, &lt);
    uint8_t b[80];
    master_mac0 = 0x02;
    /* per cycle five acyclic frames and the cyclic one, six in flight at once (more than
     * the ways one index keeps), then their returns; one cyclic frame lost. Cycle 70's
     * thread wakes late: its frame goes out 1.5 ms after the one before, whose return came
     * 1.19 ms after its send (after a nominal cycle, before the next send). */
    uint32_t fno = 0;
    int64_t t = 0;
    for (int i = 0; i < 100; i++) {
        t += i == 70 ? 1500000 : i == 71 ? 500000 : 1000000;
        uint32_t first = fno;
        for (int j = 0; j < 5; j++, fno++)
            ng_frame_dir(f, t + 1000 * j, b, nop_framed(b, fno, 0x07, (uint8_t)fno, 0x01300000, false), 2);
        ng_frame_dir(f, t + 10000, b, nop_framed(b, fno, 0x0C, (uint8_t)fno, 0, false), 2);
        fno++;
        for (uint32_t g = first; g < fno - 1; g++)
            ng_frame_dir(f, t + 20000 + 1000 * (g - first), b, nop_framed(b, g, 0x07, (uint8_t)g, 0x0130000A, true), 1);
        if (i != 50)
            ng_frame_dir(f, t + (i == 69 ? 1200000 : 30000), b, nop_framed(b, fno - 1, 0x0C, (uint8_t)(fno - 1), 0, true), 1);
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
    assert_int_equal(a.ecat_sent, 600);
    assert_int_equal(a.ecat_returned, 599);
    assert_int_equal(r.cycles, 99);
    assert_int_equal(r.stream_lost, 1);
    assert_int_equal(r.stream_late, 0);
    assert_int_equal(r.stream_after_cycle, 1);
    assert_int_equal(r.rtt.max, 1190000);
    analyze_result_free(&r);
    analyze_free(&a);
    unlink(p);
}

/* --pres-timeout: a PRes later than the MN's timeout but before the MN's next frame is
 * in time for the capture and counted apart (after_timeout); one after the MN's next
 * frame is late; without the option nothing is counted apart. */
static void plk_after_timeout(void **state)
{
    for (int with = 0; with < 2; with++) {
        struct analyze a;
        struct an_opts o = { .cycle_ns = 1000000, .pres_timeout_ns = with ? 200000 : 0 };
        analyze_init(&a, &o);
        uint8_t b[64];
        for (int c = 0; c < 10; c++) {
            int64_t t = c * 1000000LL;
            analyze_frame(&a, t, b, plk(b, 0x01, 255, 240));            /* SoC */
            analyze_frame(&a, t + 10000, b, plk(b, 0x03, 1, 240));      /* PReq 1 */
            /* node 1 answers 300 us late in cycles 3 and 5, the MN moves on at 400 us */
            analyze_frame(&a, t + (c == 3 || c == 5 ? 310000 : 60000), b, plk(b, 0x04, 255, 1));
            analyze_frame(&a, t + 400000, b, plk(b, 0x03, 2, 240));     /* PReq 2 */
            /* node 2 answers after the MN's SoA in cycle 7 */
            if (c != 7)
                analyze_frame(&a, t + 450000, b, plk(b, 0x04, 255, 2));
            analyze_frame(&a, t + 500000, b, plk(b, 0x05, 255, 240));   /* SoA */
            if (c == 7)
                analyze_frame(&a, t + 600000, b, plk(b, 0x04, 255, 2));
        }
        struct an_result r;
        assert_int_equal(analyze_finish(&a, &r), 0);
        assert_int_equal(r.late, 1);
        assert_int_equal(r.lost, 0);
        assert_int_equal(r.pres_after_timeout, with ? 2 : 0);
        assert_int_equal(a.node[1].after_timeout, with ? 2 : 0);
        analyze_result_free(&r);
        analyze_free(&a);
    }
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

/* The text report of a finished analysis, into buf. */
static void report_text(const struct analyze *a, const struct an_result *r, char *buf, size_t n)
{
    FILE *f = fmemopen(buf, n, "w");
    assert_non_null(f);
    analyze_print(f, a, r, 1);
    fclose(f);
}

/* A capture at the master's own interface: its frames bypass the qdisc and never reach
 * the capture, so the file holds only the returns (processed: WKC 3, U/L bit set). Not
 * one of them may be counted as sent or lost; the period still comes from them. */
static void ecat_replies_only(void **state)
{
    master_mac0 = 0x00;
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    uint8_t b[64];
    for (int i = 0; i < 1000; i++)
        analyze_frame(&a, 1000000LL * i + 20000, b, ecat_lrw(b, (uint8_t)i, true));
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(a.ecat_sent, 0);
    assert_int_equal(r.cycles, 999);
    assert_int_equal(r.period.min, 1000000);
    assert_int_equal(r.period.max, 1000000);
    assert_int_equal(r.lost, 0);
    assert_true(r.replies_only);
    assert_false(r.loss_measurable);
    static char txt[8192];
    report_text(&a, &r, txt, sizeof txt);
    assert_non_null(strstr(txt, "frames lost: not measurable: the capture holds only the replies (the master's "
                                "frames bypass the capture on its own interface)"));
    assert_null(strstr(txt, "slave side or both"));
    json_object *j = analyze_to_json(&a, &r, 1), *x;
    assert_true(json_object_object_get_ex(j, "lost", &x));
    assert_null(x);
    assert_true(json_object_object_get_ex(j, "sent", &x));
    assert_int_equal(json_object_get_int64(x), 0);
    json_object_put(j);
    analyze_result_free(&r);
    analyze_free(&a);
    /* a few returns with working counter 0 (no slave processed them) look like requests:
     * still a capture of replies, no loss figure */
    analyze_init(&a, &o);
    for (int i = 0; i < 1000; i++) {
        uint32_t n = ecat_lrw(b, (uint8_t)i, true);
        if (i % 100 == 50)
            put_le16(b + 34, 0);
        analyze_frame(&a, 2000000000LL + 1000000LL * i, b, n);
    }
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(a.ecat_sent, 10);
    assert_true(r.replies_only);
    assert_false(r.loss_measurable);
    assert_int_equal(r.lost, 0);
    analyze_result_free(&r);
    analyze_free(&a);
}

/* Without --bin/--range the histogram spans the nominal cycle's neighbourhood: a 5.1 ms
 * cycle whose periods stray by up to +-300 us puts none of them in the outer bins
 * (a fixed +-100 us window put most of them there). */
static void default_hist_follows_nominal(void **state)
{
    master_mac0 = 0;
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    uint8_t b[64];
    int64_t t = 0;
    for (int i = 0; i < 401; i++) {
        if (i)
            t += 5100000 + (int64_t)((i * 7919) % 601 - 300) * 1000;
        analyze_frame(&a, t, b, ecat_lrw(b, (uint8_t)i, false));
    }
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.cycles, 400);
    assert_true(r.period.max - r.period.min > 500000);
    assert_int_equal(r.dev.under, 0);
    assert_int_equal(r.dev.over, 0);
    assert_true(r.dev.nbins >= 100 && r.dev.nbins <= 400);
    assert_int_equal(r.dev.lo, -(int64_t)r.dev.bin * (int64_t)r.dev.nbins / 2);
    analyze_result_free(&r);
    analyze_free(&a);
    /* --bin and --range still rule */
    o = (struct an_opts){ .bin_ns = 1000, .range_ns = 100000 };
    analyze_init(&a, &o);
    t = 0;
    for (int i = 0; i < 3; i++, t += 5100000 + 200000 * i)
        analyze_frame(&a, t, b, ecat_lrw(b, (uint8_t)i, false));
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.dev.bin, 1000);
    assert_int_equal(r.dev.nbins, 200);
    analyze_result_free(&r);
    analyze_free(&a);
}

/* A capture that stamps a request and its return alike cannot show a round trip:
 * no "Round Trip 0.0/0.0/0.0", null in JSON. */
static void ecat_equal_stamps(void **state)
{
    master_mac0 = 0;
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    uint8_t b[64];
    for (int i = 0; i < 100; i++) {
        analyze_frame(&a, 1000000LL * i, b, ecat_lrw(b, (uint8_t)i, false));
        analyze_frame(&a, 1000000LL * i, b, ecat_lrw(b, (uint8_t)i, true));
    }
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(a.ecat_sent, 100);
    assert_int_equal(a.ecat_returned, 100);
    assert_int_equal(r.lost, 0);
    assert_false(r.rtt_measurable);
    static char txt[8192];
    report_text(&a, &r, txt, sizeof txt);
    assert_null(strstr(txt, "'Round Trip'"));
    assert_non_null(strstr(txt, "Round Trip: not measurable"));
    json_object *j = analyze_to_json(&a, &r, 1), *x;
    assert_true(json_object_object_get_ex(j, "round_trip", &x));
    assert_null(x);
    json_object_put(j);
    analyze_result_free(&r);
    analyze_free(&a);
}

/* The capture started while three frames were in flight: their returns come first,
 * without their requests. They are counted apart, never as sent (nor lost). */
static void ecat_orphan_returns(void **state)
{
    master_mac0 = 0x02;
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    uint8_t b[64];
    for (int i = 0; i < 3; i++)
        analyze_frame(&a, 1000LL * i, b, ecat_lrw(b, (uint8_t)(253 + i), true));
    for (int i = 0; i < 100; i++) {
        analyze_frame(&a, 10000 + 1000000LL * i, b, ecat_lrw(b, (uint8_t)i, false));
        analyze_frame(&a, 30000 + 1000000LL * i, b, ecat_lrw(b, (uint8_t)i, true));
    }
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(a.ecat_sent, 100);
    assert_int_equal(a.ecat_returned, 100);
    assert_int_equal(a.keys[a.stream].count, 100);
    assert_int_equal(r.lost, 0);
    assert_int_equal(r.cycles, 99);
    assert_true(r.loss_measurable);
    assert_int_equal(a.ecat_orphans, 3);
    static char txt[8192];
    report_text(&a, &r, txt, sizeof txt);
    assert_non_null(strstr(txt, "3 returns without their request in the file (capture started while they were "
                                "in flight)"));
    assert_non_null(strstr(txt, "frames lost: 0 of 100 sent"));
    analyze_result_free(&r);
    analyze_free(&a);
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
        cmocka_unit_test(ecat_nop_framed_pairs),
        cmocka_unit_test_prestate(plk_known_cycle, &V[0]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[2]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[3]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[4]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[5]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[6]),
        cmocka_unit_test_prestate(plk_known_cycle, &V[7]),
        cmocka_unit_test(plk_one_direction),
        cmocka_unit_test(plk_after_timeout),
        cmocka_unit_test(asymmetric_limits),
        cmocka_unit_test(ecat_replies_only),
        cmocka_unit_test(default_hist_follows_nominal),
        cmocka_unit_test(ecat_equal_stamps),
        cmocka_unit_test(ecat_orphan_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
