/* CoE client against real captures ($TAKT_FIXTURES/ethercat-pcap): every CoE request
 * the recorded master sent must be what our client sends for the same transfer, byte
 * for byte, and the recorded replies must complete the transfer with the same data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pcap/pcap.h>
#include <takt/takt.h>
#include "ecat/coe.h"
#include "ecat/frame.h"
#include "util/wire.h"

#define MAX_MSGS 256
struct msg { bool request; uint16_t station; size_t len; uint8_t b[1500]; };
static struct msg msgs[MAX_MSGS];
static unsigned n_msgs;

static bool is_coe_mbx(const uint8_t *d, size_t n)
{
    struct ecat_mbx_hdr h;
    return n >= 8 && ecat_mbx_decode(d, n, &h) == 0 && h.type == MBX_TYPE_COE && h.len >= 2;
}

/* Collect the mailbox traffic of returned frames (U/L bit set by the first slave):
 * writes that reached a slave (WKC 1) are requests, reads that found a full mailbox
 * (WKC 1) are replies. Wireshark's mailbox heuristic (packet-ethercat-datagram.c). */
static int load(const char *name)
{
    const char *dir = getenv("TAKT_FIXTURES");
    if (!dir)
        return -1;
    char path[512], errbuf[PCAP_ERRBUF_SIZE];
    snprintf(path, sizeof path, "%s/ethercat-pcap/%s", dir, name);
    pcap_t *p = pcap_open_offline(path, errbuf);
    if (!p)
        return -1;
    n_msgs = 0;
    struct pcap_pkthdr *ph;
    const u_char *pkt;
    static uint8_t buf[2048];
    while (pcap_next_ex(p, &ph, &pkt) == 1) {
        if (ph->caplen < 16 || ph->caplen > sizeof buf || get_be16(pkt + 12) != 0x88A4 || !(pkt[6] & 0x02))
            continue;
        memcpy(buf, pkt, ph->caplen);
        struct ecat_dg dg;
        size_t pos;
        int rc = ecat_frame_first(buf, ph->caplen, &dg, &pos);
        for (; rc == 0; rc = ecat_frame_next(buf, ph->caplen, &dg, &pos)) {
            bool wr = dg.cmd == ECAT_FPWR || dg.cmd == ECAT_APWR;
            bool rd = dg.cmd == ECAT_FPRD || dg.cmd == ECAT_APRD;
            if ((!wr && !rd) || dg.ado < 0x1000 || get_le16(dg.wkc) != 1 || !is_coe_mbx(dg.data, dg.len))
                continue;
            assert_true(n_msgs < MAX_MSGS);
            struct msg *m = &msgs[n_msgs++];
            m->request = wr;
            m->station = dg.adp;
            m->len = dg.len;
            memcpy(m->b, dg.data, dg.len);
        }
    }
    pcap_close(p);
    return 0;
}

/* Replay: start a transfer like the recorded request, compare each request, feed each
 * reply. Returns the number of transfers completed. */
static unsigned replay(uint8_t *result, size_t cap, size_t *result_len)
{
    unsigned done = 0;
    struct ecat_mbx_chan chan = {0};
    struct ecat_coe_xfer x;
    uint8_t out[1500];
    size_t out_len = 0;
    bool running = false;
    for (unsigned i = 0; i < n_msgs; i++) {
        struct msg *m = &msgs[i];
        struct ecat_coe_msg cm;
        assert_int_equal(ecat_coe_parse(m->b, m->len, &cm), 0);
        if (m->request) {
            if (!running) {
                assert_int_equal(cm.service, COE_SDO_REQ);
                assert_int_equal(cm.cmd & 0xE0, 0x40);      /* the captures hold uploads */
                chan.tx = (uint8_t)((cm.mbx.cnt + 6) % 7);   /* continue the recorded counter */
                struct ecat_coe_req r = { .op = ECAT_COE_UPLOAD, .pos = 0, .index = cm.index,
                                          .subindex = cm.subindex, .complete_access = cm.cmd & 0x10,
                                          .data = result, .cap = cap, .mbx_out = (uint16_t)m->len };
                assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
                running = true;
            }
            /* what we send equals what the recorded master sent (its mailbox is padded) */
            assert_true(out_len <= m->len);
            assert_memory_equal(out, m->b, out_len);
            continue;
        }
        if (!running)
            continue;
        int rc = ecat_coe_xfer_on_reply(&x, m->b, m->len, out, sizeof out, &out_len);
        if (rc < 0)
            fail_msg("replay: %s", x.msg);
        if (rc == ECAT_COE_DONE) {
            done++;
            running = false;
            *result_len = x.result_len;
        }
    }
    return done;
}

static void test_ek1914_upload(void **state)
{
    (void)state;
    if (load("replay-ek1914-segmented-upload.pcapng") < 0) {
        print_message("fixture absent (TAKT_FIXTURES), skipped\n");
        skip();
    }
    assert_int_equal(n_msgs, 2);       /* one upload request, one response */
    uint8_t data[256];
    size_t n = 0;
    assert_int_equal(replay(data, sizeof data, &n), 1);
    /* 0x1008 device name, normal upload of 6 bytes, as ethercrab decoded it */
    assert_int_equal(n, 6);
    assert_memory_equal(data, "EK1914", 6);
}

static void test_captures_without_coe(void **state)
{
    (void)state;
    /* EK1100/EL1004/EL28xx have no mailbox: the SOEM, TwinCAT and ethercrab runs on
     * them carry no CoE traffic, and nothing must be mistaken for it */
    static const char *const files[] = { "soem-sdinfo-ek1100-el1004.pcapng",
                                         "twincat-run-ek1100-el1004.pcapng",
                                         "replay-ek1100-el2828-el2889.pcapng", "replay-dc.pcapng" };
    unsigned loaded = 0;
    for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (load(files[i]) < 0)
            continue;
        loaded++;
        assert_int_equal(n_msgs, 0);
    }
    if (!loaded) {
        print_message("fixtures absent (TAKT_FIXTURES), skipped\n");
        skip();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ek1914_upload),
        cmocka_unit_test(test_captures_without_coe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
