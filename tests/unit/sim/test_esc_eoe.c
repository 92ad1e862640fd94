/* The simulated slave's EoE endpoint and IP stack alone: the services (set/get IP
 * parameter, address filter), then whole frames in fragments through a 64-byte mailbox:
 * nothing answered before it has an address, ARP, ICMP echo, a TCP connection on port 80
 * from SYN to the page with FIN and the peer's FIN acknowledged, RST for another port,
 * a bad IPv4 header checksum dropped. Every segment it sends has a right checksum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ecat/eoe.h"
#include "sim/esc.h"
#include "sim/esc_eoe.h"
#include "util/wire.h"

#define MBX 64
static const uint8_t hmac[6] = { 2, 0, 0, 0, 0, 1 }, hip[4] = { 10, 9, 0, 1 }, sip[4] = { 10, 9, 0, 2 };

struct t { struct sim_device_desc d; struct sim_esc e; struct ecat_eoe_rx rx; uint8_t smac[6]; };

static struct t *setup_t(void)
{
    struct t *t = calloc(1, sizeof *t);
    t->d.mbx_protocols = MBX_PROTO_EOE;
    t->e.desc = &t->d;
    t->e.station = 0x1002;
    assert_non_null(esc_eoe_get(&t->e));
    memcpy(t->smac, t->e.eoe->ip.mac, 6);
    return t;
}

static void teardown_t(struct t *t)
{
    esc_eoe_free(&t->e);
    free(t);
}

static uint16_t sum(uint32_t s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        s += get_be16(p + i);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

/* f through the mailbox in fragments; then the slave's answer, reassembled (its
 * length, 0 none). */
static size_t send_frame(struct t *t, const uint8_t *f, size_t n, uint8_t *out)
{
    struct ecat_eoe_tx tx;
    uint8_t m[MBX], r[MBX];
    assert_int_equal(ecat_eoe_tx_start(&tx, f, n, 1, 0), 0);
    size_t k;
    while ((k = ecat_eoe_tx_next(&tx, 1, m, MBX)) > 0)
        assert_int_equal(esc_eoe_request(&t->e, m, k, r, MBX), 0);   /* fragments: no reply */
    while ((k = esc_eoe_pending(&t->e, r, MBX)) > 0) {
        struct ecat_eoe_msg e;
        assert_int_equal(ecat_eoe_decode(r, k, &e), 0);
        if (ecat_eoe_rx_put(&t->rx, &e) == ECAT_EOE_RX_FRAME) {
            memcpy(out, t->rx.buf, t->rx.len);
            return t->rx.len;
        }
    }
    return 0;
}

static size_t ipv4(struct t *t, uint8_t *f, uint8_t proto, const uint8_t *payload, size_t n)
{
    memcpy(f, t->smac, 6);
    memcpy(f + 6, hmac, 6);
    put_be16(f + 12, 0x0800);
    uint8_t *h = f + 14;
    memset(h, 0, 20);
    h[0] = 0x45;
    put_be16(h + 2, (uint16_t)(20 + n));
    h[8] = 64;
    h[9] = proto;
    memcpy(h + 12, hip, 4);
    memcpy(h + 16, sip, 4);
    put_be16(h + 10, sum(0, h, 20));
    memcpy(h + 20, payload, n);
    return 34 + n;
}

static size_t tcp(struct t *t, uint8_t *f, uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack,
                  const char *data)
{
    uint8_t s[200];
    size_t n = data ? strlen(data) : 0;
    memset(s, 0, 20);
    put_be16(s, 40000);
    put_be16(s + 2, dport);
    put_be16(s + 4, (uint16_t)(seq >> 16));
    put_be16(s + 6, (uint16_t)seq);
    put_be16(s + 8, (uint16_t)(ack >> 16));
    put_be16(s + 10, (uint16_t)ack);
    s[12] = 5 << 4;
    s[13] = flags;
    put_be16(s + 14, 65535);
    memcpy(s + 20, data ? data : "", n);
    return ipv4(t, f, 6, s, 20 + n);
}

/* A TCP segment from the slave: flags, seq, ack, payload; its checksum checked. */
static const uint8_t *seg(const uint8_t *f, size_t n, uint8_t *flags, uint32_t *seq, uint32_t *ack,
                          size_t *dl)
{
    assert_true(n >= 54);
    assert_int_equal(get_be16(f + 12), 0x0800);
    assert_int_equal(f[23], 6);
    assert_int_equal(sum(0, f + 14, 20), 0);
    size_t tl = get_be16(f + 16) - 20;
    uint8_t ph[12];
    memcpy(ph, f + 26, 8);
    ph[8] = 0;
    ph[9] = 6;
    put_be16(ph + 10, (uint16_t)tl);
    assert_int_equal(sum(~sum(0, ph, 12) & 0xFFFF, f + 34, tl), 0);
    const uint8_t *s = f + 34;
    *flags = s[13];
    *seq = (uint32_t)get_be16(s + 4) << 16 | get_be16(s + 6);
    *ack = (uint32_t)get_be16(s + 8) << 16 | get_be16(s + 10);
    *dl = tl - (size_t)(s[12] >> 4) * 4;
    return s + (s[12] >> 4) * 4;
}

static void test_services_and_stack(void **state)
{
    (void)state;
    struct t *t = setup_t();
    uint8_t f[1600], out[1600], r[MBX + 64], m[128];
    /* no address yet: an ARP request goes unanswered */
    memset(f, 0xFF, 6);
    memcpy(f + 6, hmac, 6);
    put_be16(f + 12, 0x0806);
    const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 9, 0, 1,
                              0, 0, 0, 0, 0, 0, 10, 9, 0, 2 };
    memcpy(f + 14, arp, 28);
    assert_int_equal(send_frame(t, f, 42, out), 0);
    assert_int_equal(t->e.eoe->n_dropped, 1);
    /* set-IP: answered with result 0; get-IP gives it back */
    struct takt_ecat_eoe_ip p = { .flags = EOE_IP_IP | EOE_IP_MASK, .ip = { 10, 9, 0, 2 }, .mask = { 255, 255, 255, 0 } };
    uint8_t body[EOE_IP_BODY];
    ecat_eoe_ip_encode(body, &p);
    size_t n = ecat_eoe_encode(m, sizeof m, 1, ecat_eoe_info1(EOE_T_SET_IP_REQ, 0, EOE_F_LAST), 0, body, sizeof body);
    size_t k = esc_eoe_request(&t->e, m, n, r, sizeof r);
    struct ecat_eoe_msg e;
    assert_int_equal(ecat_eoe_decode(r, k, &e), 0);
    assert_int_equal(e.type, EOE_T_SET_IP_RES);
    assert_int_equal(e.info2, EOE_RESULT_OK);
    n = ecat_eoe_encode(m, sizeof m, 2, ecat_eoe_info1(EOE_T_GET_IP_REQ, 0, EOE_F_LAST), 0, NULL, 0);
    k = esc_eoe_request(&t->e, m, n, r, sizeof r);
    assert_int_equal(ecat_eoe_decode(r, k, &e), 0);
    assert_int_equal(e.type, EOE_T_GET_IP_RES);
    struct takt_ecat_eoe_ip q;
    assert_int_equal(ecat_eoe_ip_decode(e.data, e.len, &q), 0);
    assert_memory_equal(q.ip, sip, 4);
    assert_memory_equal(q.mac, t->smac, 6);
    n = ecat_eoe_encode(m, sizeof m, 3, ecat_eoe_info1(EOE_T_GET_FILTER_REQ, 0, EOE_F_LAST), 0, NULL, 0);
    k = esc_eoe_request(&t->e, m, n, r, sizeof r);
    assert_int_equal(ecat_eoe_decode(r, k, &e), 0);
    assert_int_equal(e.info2, EOE_RESULT_UNSUPPORTED_TYPE);
    /* ARP now answered */
    n = send_frame(t, f, 42, out);
    assert_int_equal(n, 42);
    assert_int_equal(get_be16(out + 20), 2);
    assert_memory_equal(out + 22, t->smac, 6);
    assert_memory_equal(out, hmac, 6);
    /* ICMP echo of 300 bytes: the same payload back, in several fragments each way */
    uint8_t ic[308] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1 };
    for (unsigned i = 8; i < sizeof ic; i++)
        ic[i] = (uint8_t)i;
    put_be16(ic + 2, sum(0, ic, sizeof ic));
    n = send_frame(t, f, ipv4(t, f, 1, ic, sizeof ic), out);
    assert_int_equal(n, 34 + sizeof ic);
    assert_int_equal(out[34], 0);
    assert_memory_equal(out + 42, ic + 8, sizeof ic - 8);
    assert_int_equal(sum(0, out + 34, sizeof ic), 0);
    /* a bad IPv4 header checksum: dropped */
    size_t len = ipv4(t, f, 1, ic, sizeof ic);
    f[24] ^= 0x55;
    unsigned dropped = t->e.eoe->n_dropped;
    assert_int_equal(send_frame(t, f, len, out), 0);
    assert_int_equal(t->e.eoe->n_dropped, dropped + 1);
    /* TCP to port 80: handshake, request, the page with FIN, the peer's FIN acknowledged */
    uint8_t fl;
    uint32_t seq, ack;
    size_t dl;
    n = send_frame(t, f, tcp(t, f, 80, 0x02, 1000, 0, NULL), out);
    seg(out, n, &fl, &seq, &ack, &dl);
    assert_int_equal(fl, 0x12);                                /* SYN|ACK */
    assert_int_equal(ack, 1001);
    uint32_t iss = seq;
    assert_int_equal(send_frame(t, f, tcp(t, f, 80, 0x10, 1001, iss + 1, NULL), out), 0);
    n = send_frame(t, f, tcp(t, f, 80, 0x18, 1001, iss + 1, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"), out);
    const uint8_t *d = seg(out, n, &fl, &seq, &ack, &dl);
    assert_int_equal(fl & 0x11, 0x11);                         /* ACK and FIN with the page */
    assert_int_equal(seq, iss + 1);
    assert_int_equal(ack, 1001 + 27);
    assert_true(dl > 100);
    assert_memory_equal(d, "HTTP/1.0 200 OK", 15);
    char page[1024];
    memcpy(page, d, dl);
    page[dl] = 0;
    assert_non_null(strstr(page, "takt simulated EoE device"));
    n = send_frame(t, f, tcp(t, f, 80, 0x11, 1028, iss + 2 + (uint32_t)dl, NULL), out);
    seg(out, n, &fl, &seq, &ack, &dl);
    assert_int_equal(fl, 0x10);
    assert_int_equal(ack, 1029);
    assert_int_equal(t->e.eoe->n_http, 1);
    /* another port: RST */
    n = send_frame(t, f, tcp(t, f, 81, 0x02, 5000, 0, NULL), out);
    seg(out, n, &fl, &seq, &ack, &dl);
    assert_int_equal(fl & 0x04, 0x04);
    teardown_t(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_services_and_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
