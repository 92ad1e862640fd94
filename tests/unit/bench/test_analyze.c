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

/* --- a minimal pcapng writer with if_tsresol = 9 (ns) ------------------------------- */
static FILE *ng_open(const char *path, int n_if, const int *linktypes)
{
    FILE *f = fopen(path, "wb");
    uint8_t shb[28] = { 0 };
    put_le32(shb, 0x0A0D0D0A);
    put_le32(shb + 4, 28);
    put_le32(shb + 8, 0x1A2B3C4D);
    put_le16(shb + 12, 1);
    put_le64(shb + 16, (uint64_t)-1);
    put_le32(shb + 24, 28);
    fwrite(shb, 1, 28, f);
    for (int i = 0; i < n_if; i++) {
        uint8_t idb[32] = { 0 };
        put_le32(idb, 1);
        put_le32(idb + 4, 32);
        put_le16(idb + 8, (uint16_t)linktypes[i]);
        put_le32(idb + 12, 65535);
        put_le16(idb + 16, 9);        /* if_tsresol */
        put_le16(idb + 18, 1);
        idb[20] = 9;                  /* 10^-9 s */
        put_le16(idb + 24, 0);        /* opt_endofopt */
        put_le16(idb + 26, 0);
        put_le32(idb + 28, 32);
        fwrite(idb, 1, 32, f);
    }
    return f;
}

/* EPB with an epb_flags option when dir != 0 (1 inbound, 2 outbound) */
static void ng_frame_dir(FILE *f, int64_t ts, const uint8_t *d, uint32_t len, int dir)
{
    uint32_t pad = (len + 3) & ~3u, opt = dir ? 12 : 0, blen = 28 + pad + opt + 4;
    uint8_t h[28];
    put_le32(h, 6);
    put_le32(h + 4, blen);
    put_le32(h + 8, 0);
    put_le32(h + 12, (uint32_t)((uint64_t)ts >> 32));
    put_le32(h + 16, (uint32_t)ts);
    put_le32(h + 20, len);
    put_le32(h + 24, len);
    fwrite(h, 1, 28, f);
    fwrite(d, 1, len, f);
    static const uint8_t z[4];
    fwrite(z, 1, pad - len, f);
    if (dir) {
        uint8_t o[12] = { 0 };
        put_le16(o, 2);       /* epb_flags */
        put_le16(o + 2, 4);
        put_le32(o + 4, (uint32_t)dir);
        fwrite(o, 1, 12, f);  /* + opt_endofopt */
    }
    uint8_t t[4];
    put_le32(t, blen);
    fwrite(t, 1, 4, f);
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

static void ecat_known_stream(void **state)
{
    master_mac0 = state && *state ? 0x02 : 0x00;
    const char *p = tmpfile_name("ecat.pcapng");
    int lt = 1;
    FILE *f = ng_open(p, 1, &lt);
    uint8_t b[64];
    /* 1001 sends; periods: 1 ms except: #10 +5 us, #11 -5 us (back on grid), #100 +150 us
     * (outer upper bin), #101 -150 us (outer lower bin), #500 a 3 ms gap (2 cycles missing,
     * upper bin). Replies 20 us after each send except for sends 7, 8 and 900: lost. */
    int64_t t = 1000000000000LL;
    int sends = 0;
    for (int i = 0; i < 1001; i++) {
        int64_t per = 1000000;
        if (i == 10) per += 5000;
        if (i == 11) per -= 5000;
        if (i == 100) per += 150000;
        if (i == 101) per -= 150000;
        if (i == 500) per = 3000000;
        if (i)
            t += per;
        uint8_t idx = (uint8_t)i;
        ng_frame(f, t, b, ecat_lrw(b, idx, false));
        sends++;
        if (i != 7 && i != 8 && i != 900)
            ng_frame(f, t + 20000, b, ecat_lrw(b, idx, true));
    }
    fclose(f);

    struct analyze a;
    struct an_opts o = { .cycle_ns = 0, .bin_ns = 1000, .range_ns = 100000 };
    analyze_init(&a, &o);
    int64_t prec = 0;
    char err[256] = "";
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    assert_int_equal(prec, 1);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.proto, 1);
    assert_int_equal(a.ecat_sent, 1001);
    assert_int_equal(a.ecat_returned, 998);
    assert_int_equal(r.cycles, 1000);
    assert_int_equal(r.nominal_ns, 1000000);
    assert_int_equal(r.period.min, 850000);
    assert_int_equal(r.period.max, 3000000);
    assert_int_equal(r.dev.under, 1);
    assert_int_equal(r.dev.over, 2);                 /* +150 us and the gap */
    assert_int_equal(r.dev.bins[100], 995);          /* deviation 0 in bin [0, 1 us) */
    assert_int_equal(r.dev.bins[105], 1);            /* +5 us */
    assert_int_equal(r.dev.bins[95], 1);             /* -5 us */
    assert_int_equal(r.dev.under + r.dev.over + 995 + 2, r.cycles);
    assert_int_equal(r.gaps, 1);
    assert_int_equal(r.missing_cycles, 2);
    assert_int_equal(r.lost, 3);
    assert_int_equal(r.rtt.count, 998);
    assert_int_equal(r.rtt.min, 20000);
    assert_int_equal(r.rtt.max, 20000);
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

static void plk_known_cycle(void **state)
{
    const char *p = tmpfile_name("plk.pcapng");
    int lt = 1;
    FILE *f = ng_open(p, 1, &lt);
    uint8_t b[64];
    int64_t t = 5000000000LL;
    /* 200 cycles of 500 us: SoC, PReq 1 (+10 us), PRes 1 (+10 + 30 us), PReq 2 (+60 us),
     * PRes 2 (+60 + 25 us), SoA. Node 2 stays silent in cycles 50 and 51. */
    for (int c = 0; c < 200; c++, t += 500000) {
        ng_frame(f, t, b, plk(b, 0x01, 255, 240));
        ng_frame(f, t + 10000, b, plk(b, 0x03, 1, 240));
        ng_frame(f, t + 40000, b, plk(b, 0x04, 255, 1));
        ng_frame(f, t + 60000, b, plk(b, 0x03, 2, 240));
        if (c != 50 && c != 51)
            ng_frame(f, t + 85000, b, plk(b, 0x04, 255, 2));
        ng_frame(f, t + 100000, b, plk(b, 0x05, 255, 240));
    }
    fclose(f);
    struct analyze a;
    struct an_opts o = { .cycle_ns = 500000, .bin_ns = 1000, .range_ns = 50000 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), 0);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.proto, 2);
    assert_int_equal(a.soc, 200);
    assert_int_equal(r.cycles, 199);
    assert_int_equal(r.period.min, 500000);
    assert_int_equal(r.period.max, 500000);
    assert_int_equal(r.dev.bins[50], 199);
    assert_int_equal(a.node[1].preq, 200);
    assert_int_equal(a.node[1].pres, 200);
    assert_int_equal(a.node[1].lost, 0);
    assert_int_equal(a.node[1].lat.min, 30000);
    assert_int_equal(a.node[1].lat.max, 30000);
    assert_int_equal(a.node[2].pres, 198);
    assert_int_equal(a.node[2].lost, 2);
    assert_int_equal(a.node[2].lat.min, 25000);
    assert_int_equal(r.lost, 2);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ecat_known_stream),
        cmocka_unit_test_prestate(ecat_known_stream, (void *)1),   /* locally administered master MAC */
        cmocka_unit_test(ecat_one_direction_local_mac),
        cmocka_unit_test(ecat_direction_flags),
        cmocka_unit_test(plk_known_cycle),
        cmocka_unit_test(plk_one_direction),
        cmocka_unit_test(microsecond_pcap),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
