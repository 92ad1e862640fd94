/* Replay: the replies real slaves gave to another master (ethercrab on an EK1100 +
 * EL2828 + EL2889, $TAKT_FIXTURES/ethercat-pcap/replay-ek1100-el2828-el2889.pcapng)
 * become the register contents and SII images of the fake ESCs, and takt's master scans
 * them. Our requests differ from ethercrab's, so the replies are not replayed frame by
 * frame; what the slaves answered (ESC registers, SII words) is. Skips without fixtures. */
#include <errno.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/sii.h"
#include "unit/ecat/master_fake.h"

#define REC_SLAVES 3

struct recording {
    uint8_t  mem[REC_SLAVES][0x1000];   /* registers as first answered */
    bool     seen[REC_SLAVES][0x1000];
    uint8_t  sii[REC_SLAVES][4096];
    size_t   sii_len[REC_SLAVES];
    uint32_t sii_addr[REC_SLAVES];      /* word address of the last SII read command */
    unsigned frames;
};

/* Station addresses of the recording: ethercrab's 0x1000 + index (ethercrab BASE_SUBDEVICE_ADDRESS). */
static int slave_of(uint16_t adp) { return adp >= 0x1000 && adp < 0x1000 + REC_SLAVES ? adp - 0x1000 : -1; }

static void take(struct recording *r, const uint8_t *req, const uint8_t *rep, size_t len)
{
    struct ecat_dg q, a;
    size_t pq, pa;
    uint8_t qb[TAKT_FRAME_BUF], ab[TAKT_FRAME_BUF];
    memcpy(qb, req, len);
    memcpy(ab, rep, len);
    if (ecat_frame_first(qb, len, &q, &pq) || ecat_frame_first(ab, len, &a, &pa))
        return;
    for (int rq = 0, ra = 0; rq == 0 && ra == 0;
         rq = ecat_frame_next(qb, len, &q, &pq), ra = ecat_frame_next(ab, len, &a, &pa)) {
        int k = slave_of(q.adp);
        if (k < 0 || q.cmd != a.cmd || q.len != a.len || get_le16(a.wkc) == 0)
            continue;
        if (q.cmd == ECAT_FPWR && q.ado == ESC_SII_CTRL && q.len >= 6 &&
            (get_le16(q.data) & SII_CMD_MASK) == SII_CMD_READ)
            r->sii_addr[k] = get_le32(q.data + 2);
        if (q.cmd != ECAT_FPRD)
            continue;
        if (q.ado == ESC_SII_DATA) {
            size_t off = 2 * (size_t)r->sii_addr[k];
            if (off + a.len <= sizeof r->sii[k]) {
                memcpy(r->sii[k] + off, a.data, a.len);
                if (off + a.len > r->sii_len[k])
                    r->sii_len[k] = off + a.len;
            }
            continue;
        }
        for (unsigned i = 0; i < a.len && q.ado + i < 0x1000; i++)
            if (!r->seen[k][q.ado + i]) {
                r->seen[k][q.ado + i] = true;
                r->mem[k][q.ado + i] = a.data[i];
            }
    }
}

static int load(const char *path, struct recording *r)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline(path, err);
    if (!p)
        return -ENOENT;
    struct pcap_pkthdr *h;
    const u_char *d;
    static uint8_t last[TAKT_FRAME_BUF];
    size_t last_len = 0;
    while (pcap_next_ex(p, &h, &d) == 1) {
        if (h->caplen < ECAT_ETH_HDR + ECAT_FRAME_HDR || h->caplen > TAKT_FRAME_BUF ||
            get_be16(d + 12) != TAKT_ETHERTYPE_ECAT)
            continue;
        if (!(d[6] & 0x02)) {                    /* the master's request (U/L clear, ESC datasheet Section I) */
            memcpy(last, d, h->caplen);
            last_len = h->caplen;
        } else if (last_len) {                   /* the reply to it */
            size_t n = h->caplen < last_len ? h->caplen : last_len;
            take(r, last, d, n);
            r->frames++;
            last_len = 0;
        }
    }
    pcap_close(p);
    return 0;
}

static void test_replay_scan(void **state)
{
    (void)state;
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/ethercat-pcap/replay-ek1100-el2828-el2889.pcapng", dir ? dir : ".");
    static struct recording rec;
    memset(&rec, 0, sizeof rec);
    if (!dir || load(path, &rec))
        skip();
    printf("  %u request/reply pairs; SII bytes recorded: %zu %zu %zu\n", rec.frames,
           rec.sii_len[0], rec.sii_len[1], rec.sii_len[2]);
    assert_true(rec.sii_len[0] >= 0x80);

    static struct fake_net net;
    fake_init(&net, REC_SLAVES);
    for (unsigned k = 0; k < REC_SLAVES; k++) {
        /* what the slave answered: ESC type, features, DL status; then its SII */
        memcpy(net.s[k].mem, rec.mem[k], 0x0010);
        put_le16(net.s[k].mem + ESC_STATION_ADDR, 0);
        memcpy(net.s[k].sii, rec.sii[k], rec.sii_len[k]);
        net.s[k].sii_len = rec.sii_len[k];
        net.s[k].mem[ESC_AL_STATUS] = AL_INIT;
        put_le16(net.s[k].mem + ESC_SII_CTRL, SII_READ8);
    }
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(b, fake_respond, &net);
    struct takt_ecat_master *m;
    char err[200];
    assert_int_equal(takt_ecat_master_open(&m, a, NULL, err, sizeof err), 0);
    int rc = takt_ecat_master_scan(m, TAKT_NS_PER_S);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(m));
    assert_int_equal(rc, 0);
    static const uint32_t product[REC_SLAVES] = { 0x044C2C52, 0x0B0C3052, 0x0B493052 };
    static struct ecat_sii sii;
    for (unsigned k = 0; k < REC_SLAVES; k++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(m, k, &si);
        printf("  slave %u: %s, ESC type 0x%02X features 0x%04X, vendor 0x%X product 0x%08X\n", k,
               si.name, si.esc_type, si.esc_features, si.vendor, si.product);
        assert_int_equal(si.vendor, 2);
        assert_int_equal(si.product, product[k]);
        /* ethercrab read only the SII parts it needed: the name is what those say */
        assert_int_equal(ecat_sii_decode(rec.sii[k], rec.sii_len[k], &sii, 0, NULL, 0), 0);
        assert_string_equal(si.name, ecat_sii_name(&sii));
        assert_int_equal(si.esc_type, rec.mem[k][ESC_TYPE]);
        assert_int_equal(si.esc_features, get_le16(rec.mem[k] + ESC_FEATURES));
    }
    /* the real devices' mapping: EL2828 8 outputs, EL2889 16, laid out and reached OP */
    assert_int_equal(takt_ecat_master_set_state(m, AL_OP, TAKT_NS_PER_S), 0);
    size_t len;
    takt_ecat_master_image(m, &len);
    assert_int_equal(len, 3);
    takt_ecat_master_close(m);
    takt_link_close(a);
    takt_link_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
