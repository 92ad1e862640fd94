/* capture tap: frames sent and received through a mem link are written to pcapng and
 * read back by tshark with the same lengths and nanosecond wall-clock timestamps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include <takt/link.h>

struct fake_clock { takt_ns_t now; };
static takt_ns_t fake_now(void *ctx) { return ((struct fake_clock *)ctx)->now; }

static bool have_tshark(void) { return system("command -v tshark >/dev/null 2>&1") == 0; }

/* Expected record: length, wall-clock ns, direction, and the frame's bytes (as sent,
 * zero-padded to 60). */
struct rec { unsigned len; int64_t ts; int dir; uint8_t bytes[1514]; };

static void frame(uint8_t *b, unsigned len, uint8_t seed)
{
    memset(b, 0xff, 6);
    for (int i = 0; i < 6; i++) b[6 + i] = (uint8_t)(0x02 + i);
    b[12] = 0x88; b[13] = 0xB5;
    for (unsigned i = 14; i < len; i++) b[i] = (uint8_t)(seed * 3 + i);
}

/* Write a capture through a mem-link tap; fill exp with what it must hold. */
static int make_capture(char *path, struct rec *exp)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);

    struct fake_clock clk = { 5 * TAKT_NS_PER_S + 123456789 };
    struct takt_link *a, *b, *cap;
    char err[256] = "";
    assert_int_equal(takt_link_mem_pair(&a, &b, 8, fake_now, &clk), 0);
    assert_int_equal(takt_link_capture(a, path, &cap, err, sizeof err), 0);
    takt_ns_t off = takt_link_capture_offset(cap);
    assert_true(off != 0);

    int ne = 0;
    uint8_t buf[3][1514];
    unsigned lens[3] = { 20, 60, 1514 };
    struct takt_frame f[3];
    for (int i = 0; i < 3; i++) {
        frame(buf[i], lens[i], (uint8_t)i);
        f[i] = (struct takt_frame){ .data = buf[i], .len = (uint16_t)lens[i], .ts = 7 * TAKT_NS_PER_S + i * 1001 };
        exp[ne] = (struct rec){ lens[i] < 60 ? 60 : lens[i], f[i].ts + off, 2, { 0 } };
        memcpy(exp[ne++].bytes, buf[i], lens[i]);
    }
    assert_int_equal(takt_link_send(cap, f, 3), 3);

    uint8_t rx[3][TAKT_FRAME_BUF];
    struct takt_frame rf[3];
    for (int i = 0; i < 3; i++)
        rf[i] = (struct takt_frame){ .data = rx[i], .cap = TAKT_FRAME_BUF };
    assert_int_equal(takt_link_recv(b, rf, 3, 0), 3);
    /* b answers two frames at known clock times; the tap records them as received */
    clk.now = 9 * TAKT_NS_PER_S + 1;
    assert_int_equal(takt_link_send(b, &rf[0], 1), 1);
    clk.now = 9 * TAKT_NS_PER_S + 999999999;
    assert_int_equal(takt_link_send(b, &rf[2], 1), 1);
    assert_int_equal(takt_link_recv(cap, rf, 3, 0), 2);
    exp[ne] = (struct rec){ 60, 9 * TAKT_NS_PER_S + 1 + off, 1, { 0 } };
    memcpy(exp[ne++].bytes, exp[0].bytes, 60);         /* the first frame, answered back */
    exp[ne] = (struct rec){ 1514, 9 * TAKT_NS_PER_S + 999999999 + off, 1, { 0 } };
    memcpy(exp[ne++].bytes, exp[2].bytes, 1514);
    takt_link_close(cap);
    takt_link_close(b);
    return ne;
}

static void tshark_reads_it(void **state)
{
    if (!have_tshark())
        skip();
    char path[] = "/tmp/takt_capture_XXXXXX";
    struct rec exp[5];
    int ne = make_capture(path, exp);

    char cmd[512];
    snprintf(cmd, sizeof cmd, "tshark -r %s -T fields -e frame.len -e frame.time_epoch "
             "-e eth.dst -e eth.src -e eth.type -e data.data -e frame.packet_flags_direction 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        unsigned len, dir = 0, type;
        long long sec, nsec;
        char frac[32], dst[20], src[20];
        static char data[4000];
        int k = sscanf(line, "%u %lld.%31[0-9] %19s %19s %x %3999s %x", &len, &sec, frac, dst, src, &type,
                       data, &dir);
        if (k < 7)
            fail_msg("unexpected tshark line: %s", line);
        /* the same frame, byte for byte: header fields and the payload as hex */
        assert_true(n < ne);
        char want[4000];
        const uint8_t *e = exp[n].bytes;
        snprintf(want, sizeof want, "%02x:%02x:%02x:%02x:%02x:%02x", e[0], e[1], e[2], e[3], e[4], e[5]);
        assert_string_equal(dst, want);
        snprintf(want, sizeof want, "%02x:%02x:%02x:%02x:%02x:%02x", e[6], e[7], e[8], e[9], e[10], e[11]);
        assert_string_equal(src, want);
        assert_int_equal(type, (unsigned)(e[12] << 8 | e[13]));
        for (unsigned i = 14; i < exp[n].len; i++)
            snprintf(want + 2 * (i - 14), 3, "%02x", e[i]);
        assert_string_equal(data, want);
        assert_int_equal(strlen(frac), 9);      /* nanosecond resolution kept */
        nsec = atoll(frac);
        assert_true(n < ne);
        assert_int_equal(len, exp[n].len);
        assert_int_equal(sec * TAKT_NS_PER_S + nsec, exp[n].ts);
        if (k == 8)
            assert_int_equal(dir, exp[n].dir);
        n++;
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(n, ne);

    /* the format judge: no malformed packet, no expert info */
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y '_ws.malformed || _ws.expert' 2>/dev/null", path);
    p = popen(cmd, "r");
    assert_non_null(p);
    if (fgets(line, sizeof line, p))
        fail_msg("tshark flags the capture: %s", line);
    pclose(p);
    unlink(path);
}

/* libpcap (1.10 reads pcapng) sees the same frames, bytes and nanosecond times. */
static void libpcap_reads_it(void **state)
{
    char path[] = "/tmp/takt_capture_XXXXXX";
    struct rec exp[5];
    int ne = make_capture(path, exp);
    char eb[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
    if (!p)
        fail_msg("libpcap cannot read %s: %s", path, eb);
    assert_int_equal(pcap_datalink(p), DLT_EN10MB);
    struct pcap_pkthdr *h;
    const u_char *d;
    int n = 0;
    while (pcap_next_ex(p, &h, &d) == 1) {
        assert_true(n < ne);
        assert_int_equal(h->caplen, exp[n].len);
        assert_int_equal(h->len, exp[n].len);
        assert_int_equal((int64_t)h->ts.tv_sec * TAKT_NS_PER_S + h->ts.tv_usec, exp[n].ts);
        assert_int_equal(d[12], 0x88);
        assert_int_equal(d[13], 0xB5);
        if (n == 0)   /* the 20-byte frame: padded with zeros up to 60 */
            for (int i = 20; i < 60; i++)
                assert_int_equal(d[i], 0);
        n++;
    }
    assert_int_equal(n, ne);
    pcap_close(p);
    unlink(path);
}

static void bad_path(void **state)
{
    struct takt_link *a, *b, *cap = (struct takt_link *)1;
    char err[256] = "";
    assert_int_equal(takt_link_mem_pair(&a, &b, 2, NULL, NULL), 0);
    assert_int_equal(takt_link_capture(a, "/nonexistent-dir/x.pcapng", &cap, err, sizeof err), -ENOENT);
    assert_null(cap);
    assert_non_null(strstr(err, "/nonexistent-dir/x.pcapng"));
    takt_link_close(a);
    takt_link_close(b);
}

/* Records handed to the tap with interleaved stamps (TX stamps taken when a frame is
 * handed over, RX stamps from the kernel) are written in time order; none was late. */
static void written_in_time_order(void **state)
{
    char path[] = "/tmp/takt_capture_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct fake_clock clk = { 3 * TAKT_NS_PER_S };
    struct takt_link *a, *b, *cap;
    char err[256] = "";
    assert_int_equal(takt_link_mem_pair(&a, &b, 64, fake_now, &clk), 0);
    assert_int_equal(takt_link_capture(a, path, &cap, err, sizeof err), 0);
    uint8_t buf[1514], rx[TAKT_FRAME_BUF];
    frame(buf, 60, 1);
    /* each round: a frame sent with stamp t, then a reply the kernel stamped 40 us
     * before it (it arrived while the send call ran), then one stamped between */
    const int rounds = 20;
    for (int i = 0; i < rounds; i++) {
        takt_ns_t t = 3 * TAKT_NS_PER_S + (takt_ns_t)i * 100000;
        struct takt_frame f = { .data = buf, .len = 60, .ts = t };
        assert_int_equal(takt_link_send(cap, &f, 1), 1);
        struct takt_frame rf = { .data = rx, .cap = TAKT_FRAME_BUF };
        assert_int_equal(takt_link_recv(b, &rf, 1, 0), 1);
        clk.now = t - 40000;
        assert_int_equal(takt_link_send(b, &rf, 1), 1);
        clk.now = t - 20000;
        assert_int_equal(takt_link_send(b, &rf, 1), 1);
        struct takt_frame got[2] = { { .data = rx, .cap = TAKT_FRAME_BUF }, { .data = buf, .cap = sizeof buf } };
        uint8_t rx2[TAKT_FRAME_BUF];
        got[1].data = rx2;
        got[1].cap = TAKT_FRAME_BUF;
        assert_int_equal(takt_link_recv(cap, got, 2, 0), 2);
    }
    assert_int_equal(takt_link_capture_late(cap), 0);
    takt_link_close(cap);
    takt_link_close(b);

    char eb[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
    if (!p)
        fail_msg("libpcap cannot read %s: %s", path, eb);
    struct pcap_pkthdr *h;
    const u_char *d;
    int n = 0;
    int64_t last = 0;
    while (pcap_next_ex(p, &h, &d) == 1) {
        int64_t ts = (int64_t)h->ts.tv_sec * TAKT_NS_PER_S + h->ts.tv_usec;
        if (ts < last)
            fail_msg("record %d at %" PRId64 " ns is older than the one before (%" PRId64 ")", n, ts, last);
        last = ts;
        n++;
    }
    assert_int_equal(n, 3 * rounds);
    pcap_close(p);
    unlink(path);
}

/* A record more than the reorder window older than what was written is still written,
 * and counted as late. */
static void late_record_counted(void **state)
{
    char path[] = "/tmp/takt_capture_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct takt_link *a, *b, *cap;
    char err[256] = "";
    assert_int_equal(takt_link_mem_pair(&a, &b, 8, NULL, NULL), 0);
    assert_int_equal(takt_link_capture(a, path, &cap, err, sizeof err), 0);
    uint8_t buf[60];
    frame(buf, 60, 2);
    struct takt_frame f = { .data = buf, .len = 60, .ts = 10 * TAKT_NS_PER_S };
    assert_int_equal(takt_link_send(cap, &f, 1), 1);
    f.ts = 11 * TAKT_NS_PER_S;          /* one second on: the first record is written */
    assert_int_equal(takt_link_send(cap, &f, 1), 1);
    f.ts = 10 * TAKT_NS_PER_S - 1;      /* older than what is already in the file */
    assert_int_equal(takt_link_send(cap, &f, 1), 1);
    assert_int_equal(takt_link_capture_late(cap), 1);
    takt_link_close(cap);
    takt_link_close(b);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tshark_reads_it),
        cmocka_unit_test(libpcap_reads_it),
        cmocka_unit_test(bad_path),
        cmocka_unit_test(written_in_time_order),
        cmocka_unit_test(late_record_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
