/* takt analyze's file reader on the awkward files: microsecond pcap, binary tick
 * resolution with an offset, no cyclic frames, mixed and foreign link types, truncated
 * and damaged files. A clear message, what could be read is kept, nothing crashes. */
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
#include "capture_writer.h"

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

    /* a packet block whose captured length would wrap around 32 bits past its block */
    c = cap_open(p, NG_NS);
    cap_frame(&c, 1000, b, ecat_lrw(b, 0, false));
    pos = ftell(c.f);
    cap_frame(&c, 2000, b, ecat_lrw(b, 1, false));
    fseek(c.f, pos + 20, SEEK_SET);
    w32(&c, 0xFFFFFFF0);
    cap_close(&c);
    analyze_init(&a, &o);
    assert_int_equal(analyze_file(&a, p, &prec, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "longer than its block"));
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
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(microsecond_pcap),
        cmocka_unit_test(pcapng_binary_ticks_and_offset),
        cmocka_unit_test(bad_inputs),
        cmocka_unit_test(truncated_and_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
