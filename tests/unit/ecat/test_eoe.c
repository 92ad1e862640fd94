/* EoE codec against hand-written bytes (ETG.1000.6, Ethernet over EtherCAT; SOEM
 * ec_EOEt and ecx_EOEsend, Wireshark packet-ecatmb.h): header bit layout, a frame cut
 * into 32-byte-unit fragments and put back together, every way a fragment can be wrong
 * dropped and counted, set-IP-parameter and address filter bodies, text forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <takt/takt.h>
#include "ecat/eoe.h"
#include "util/wire.h"

static void test_header_bytes(void **state)
{
    (void)state;
    uint8_t b[64], d[3] = { 0xAA, 0xBB, 0xCC };
    /* last fragment 2 of frame 5, offset 3 units, port 1, counter 4 */
    size_t n = ecat_eoe_encode(b, sizeof b, 4, ecat_eoe_info1(EOE_T_FRAG, 1, EOE_F_LAST),
                               ecat_eoe_info2(2, 3, 5), d, 3);
    const uint8_t want[] = { 0x07, 0x00, 0x00, 0x00, 0x00, 0x42,      /* len 7, type 2, cnt 4 */
                             0x10, 0x01,                              /* type 0, port 1, last */
                             0xC2, 0x50,                              /* frag 2 | 3 << 6 | 5 << 12 */
                             0xAA, 0xBB, 0xCC };
    assert_int_equal(n, sizeof want);
    assert_memory_equal(b, want, sizeof want);
    struct ecat_eoe_msg m;
    assert_int_equal(ecat_eoe_decode(want, sizeof want, &m), 0);
    assert_int_equal(m.type, EOE_T_FRAG);
    assert_int_equal(m.port, 1);
    assert_true(m.last);
    assert_false(m.time_appended);
    assert_int_equal(m.frag, 2);
    assert_int_equal(m.units, 3);
    assert_int_equal(m.frame_no, 5);
    assert_int_equal(m.len, 3);
    /* a set-IP response: type 3, result in the second word */
    const uint8_t res[] = { 0x04, 0x00, 0x00, 0x00, 0x00, 0x12, 0x03, 0x01, 0x01, 0x02 };
    assert_int_equal(ecat_eoe_decode(res, sizeof res, &m), 0);
    assert_int_equal(m.type, EOE_T_SET_IP_RES);
    assert_int_equal(m.info2, EOE_RESULT_NO_IP_SUPPORT);
    assert_string_equal(ecat_eoe_result_text(m.info2), "no IP support");
    /* short, not EoE, shorter than the EoE header */
    assert_int_equal(ecat_eoe_decode(res, 9, &m), -EMSGSIZE);
    uint8_t x[10];
    memcpy(x, res, 10);
    x[5] = 0x13;
    assert_int_equal(ecat_eoe_decode(x, 10, &m), -EPROTO);
    x[5] = 0x12;
    x[0] = 3;
    assert_int_equal(ecat_eoe_decode(x, 10, &m), -EMSGSIZE);
    assert_int_equal(ecat_eoe_encode(b, 12, 1, 0, 0, d, 3), 0);      /* does not fit */
}

/* 100 bytes through a 64-byte mailbox: 54 data bytes of room, 32 per non-last fragment:
 * 32 + 32 + 36 (the last may fill the room). */
static void test_fragments(void **state)
{
    (void)state;
    uint8_t f[100], out[64];
    for (unsigned i = 0; i < sizeof f; i++)
        f[i] = (uint8_t)(i * 7);
    struct ecat_eoe_tx t;
    assert_int_equal(ecat_eoe_tx_start(&t, f, sizeof f, 9, 0), 0);
    struct ecat_eoe_rx *r = calloc(1, sizeof *r);
    const size_t lens[] = { 32, 32, 36 };
    const uint16_t info2[] = { 0x9000 | 4 << 6 | 0,        /* size 100 -> 4 units */
                               0x9000 | 1 << 6 | 1, 0x9000 | 2 << 6 | 2 };
    for (unsigned k = 0; k < 3; k++) {
        size_t n = ecat_eoe_tx_next(&t, 1, out, sizeof out);
        assert_int_equal(n, MBX_HDR + EOE_HDR + lens[k]);
        assert_int_equal(get_le16(out + EOE_OFF_INFO2), info2[k]);
        assert_int_equal(get_le16(out + EOE_OFF_INFO1), k == 2 ? EOE_F_LAST : 0);
        struct ecat_eoe_msg m;
        assert_int_equal(ecat_eoe_decode(out, n, &m), 0);
        assert_int_equal(ecat_eoe_rx_put(r, &m), k == 2 ? ECAT_EOE_RX_FRAME : ECAT_EOE_RX_MORE);
    }
    assert_int_equal(ecat_eoe_tx_next(&t, 1, out, sizeof out), 0);
    assert_int_equal(r->len, sizeof f);
    assert_memory_equal(r->buf, f, sizeof f);
    assert_int_equal(r->st.frames, 1);
    assert_int_equal(r->st.dropped, 0);
    /* a mailbox without room for one 32-byte unit carries nothing */
    assert_int_equal(ecat_eoe_tx_start(&t, f, sizeof f, 1, 0), 0);
    assert_int_equal(ecat_eoe_tx_next(&t, 1, out, 41), 0);
    assert_int_equal(ecat_eoe_tx_start(&t, f, 13, 1, 0), -EMSGSIZE);
    free(r);
}

static size_t frag(uint8_t *b, uint8_t no, uint8_t units, uint8_t frame, bool last, size_t len)
{
    static uint8_t d[256];
    return ecat_eoe_encode(b, 300, 1, ecat_eoe_info1(EOE_T_FRAG, 0, last ? EOE_F_LAST : 0),
                           ecat_eoe_info2(no, units, frame), d, len);
}

static int put(struct ecat_eoe_rx *r, uint8_t no, uint8_t units, uint8_t frame, bool last, size_t len)
{
    uint8_t b[300];
    struct ecat_eoe_msg m;
    size_t n = frag(b, no, units, frame, last, len);
    assert_int_equal(ecat_eoe_decode(b, n, &m), 0);
    return ecat_eoe_rx_put(r, &m);
}

static void test_reassembly_checks(void **state)
{
    (void)state;
    struct ecat_eoe_rx *r = calloc(1, sizeof *r);
    /* out of order: fragment 2 after 0 */
    assert_int_equal(put(r, 0, 3, 1, false, 32), ECAT_EOE_RX_MORE);
    assert_int_equal(put(r, 2, 2, 1, true, 20), -EPROTO);
    assert_int_equal(r->st.bad_order, 1);
    /* a fragment with no frame under way */
    assert_int_equal(put(r, 1, 1, 1, true, 20), -EPROTO);
    assert_int_equal(r->st.bad_order, 2);
    /* another frame's fragment */
    assert_int_equal(put(r, 0, 3, 1, false, 32), ECAT_EOE_RX_MORE);
    assert_int_equal(put(r, 1, 1, 2, true, 20), -EPROTO);
    assert_int_equal(r->st.bad_frame_no, 1);
    /* an offset other than the bytes so far */
    assert_int_equal(put(r, 0, 3, 3, false, 32), ECAT_EOE_RX_MORE);
    assert_int_equal(put(r, 1, 2, 3, true, 20), -EPROTO);
    assert_int_equal(r->st.bad_offset, 1);
    /* a non-last fragment that does not end on a unit */
    assert_int_equal(put(r, 0, 3, 4, false, 40), -EPROTO);
    assert_int_equal(r->st.bad_offset, 2);
    /* more than announced (2 units = 64 bytes) */
    assert_int_equal(put(r, 0, 2, 5, false, 32), ECAT_EOE_RX_MORE);
    assert_int_equal(put(r, 1, 1, 5, true, 40), -EPROTO);
    assert_int_equal(r->st.overflow, 1);
    /* more than a frame can have, though announced (63 units) */
    assert_int_equal(put(r, 0, 63, 6, false, 256), ECAT_EOE_RX_MORE);
    for (uint8_t k = 1; k < 5; k++)
        assert_int_equal(put(r, k, (uint8_t)(8 * k), 6, false, 256), ECAT_EOE_RX_MORE);
    assert_int_equal(put(r, 5, 40, 6, true, 256), -EPROTO);       /* 1536 > 1518 */
    assert_int_equal(r->st.overflow, 2);
    /* a new frame before the last fragment of the one under way: that one is dropped,
     * the new one goes on */
    assert_int_equal(put(r, 0, 3, 7, false, 32), ECAT_EOE_RX_MORE);
    assert_int_equal(put(r, 0, 3, 8, false, 32), ECAT_EOE_RX_MORE);
    assert_int_equal(r->st.interrupted, 1);
    assert_int_equal(put(r, 1, 1, 8, true, 50), ECAT_EOE_RX_FRAME);
    assert_int_equal(r->len, 82);
    /* too short to be Ethernet */
    assert_int_equal(put(r, 0, 1, 9, true, 10), -EPROTO);
    assert_int_equal(r->st.bad_size, 1);
    assert_int_equal(r->st.frames, 1);
    assert_int_equal(r->st.dropped, 9);
    /* a timestamp appended to the last fragment is not frame data */
    uint8_t b[300];
    struct ecat_eoe_msg m;
    uint8_t d[24] = { 0 };
    put_le32(d + 20, 0x12345678);
    size_t n = ecat_eoe_encode(b, sizeof b, 1, ecat_eoe_info1(EOE_T_FRAG, 0, EOE_F_LAST | EOE_F_TIME_APPENDED),
                               ecat_eoe_info2(0, 1, 10), d, sizeof d);
    assert_int_equal(ecat_eoe_decode(b, n, &m), 0);
    assert_int_equal(ecat_eoe_rx_put(r, &m), ECAT_EOE_RX_FRAME);
    assert_int_equal(r->len, 20);
    assert_true(r->has_timestamp);
    assert_int_equal(r->timestamp, 0x12345678);
    free(r);
}

static void test_ip_body(void **state)
{
    (void)state;
    struct takt_ecat_eoe_ip p = { .flags = EOE_IP_MAC | EOE_IP_IP | EOE_IP_MASK | EOE_IP_GW,
                             .mac = { 2, 0, 0, 0, 0, 0x22 }, .ip = { 10, 77, 0, 2 },
                             .mask = { 255, 255, 255, 0 }, .gw = { 10, 77, 0, 1 } };
    uint8_t b[EOE_IP_BODY];
    assert_int_equal(ecat_eoe_ip_encode(b, &p), 58);
    const uint8_t want[26] = { 0x0F, 0, 0, 0, 2, 0, 0, 0, 0, 0x22,
                               2, 0, 77, 10,                /* little-endian u32 of the address */
                               0, 255, 255, 255, 1, 0, 77, 10, 0, 0, 0, 0 };
    assert_memory_equal(b, want, sizeof want);
    struct takt_ecat_eoe_ip q;
    assert_int_equal(ecat_eoe_ip_decode(b, sizeof b, &q), 0);
    assert_int_equal(q.flags, p.flags);
    assert_memory_equal(q.ip, p.ip, 4);
    assert_memory_equal(q.gw, p.gw, 4);
    assert_int_equal(ecat_eoe_ip_decode(b, 21, &q), -EMSGSIZE);   /* gateway cut off */
    struct takt_ecat_eoe_filter f = { .n_mac = 1, .no_broadcast = true, .mac = { { 1, 2, 3, 4, 5, 6 } } };
    uint8_t fb[EOE_FILTER_BODY];
    assert_int_equal(ecat_eoe_filter_encode(fb, &f), 122);
    assert_int_equal(get_le16(fb), 0x0081);
    struct takt_ecat_eoe_filter g;
    assert_int_equal(ecat_eoe_filter_decode(fb, sizeof fb, &g), 0);
    assert_int_equal(g.n_mac, 1);
    assert_true(g.no_broadcast);
    assert_memory_equal(g.mac[0], f.mac[0], 6);
    assert_int_equal(ecat_eoe_filter_decode(fb, 7, &g), -EMSGSIZE);
}

static void test_text(void **state)
{
    (void)state;
    uint8_t ip[4], mask[4], mac[6];
    bool has = false;
    char err[128];
    assert_int_equal(takt_ecat_eoe_ip_parse("10.77.0.2/20", ip, mask, &has, err, sizeof err), 0);
    assert_true(has);
    assert_int_equal(ip[0], 10);
    assert_int_equal(mask[2], 0xF0);
    assert_int_equal(takt_ecat_eoe_ip_parse("10.77.0.300/24", ip, mask, &has, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "expected an IPv4 address"));
    assert_int_equal(takt_ecat_eoe_ip_parse("10.77.0.2/33", ip, mask, &has, err, sizeof err), -EINVAL);
    assert_int_equal(takt_ecat_eoe_ip_parse("10.77.0.2/24", ip, NULL, NULL, err, sizeof err), -EINVAL);
    assert_int_equal(takt_ecat_eoe_ip_parse("10.77.0.2x", ip, NULL, NULL, err, sizeof err), -EINVAL);
    assert_int_equal(takt_ecat_eoe_mac_parse("02:00:00:aB:00:22", mac, err, sizeof err), 0);
    assert_int_equal(mac[3], 0xAB);
    assert_int_equal(takt_ecat_eoe_mac_parse("02:00:00:00:00", mac, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "aa:bb:cc:dd:ee:ff"));
    assert_string_equal(ecat_eoe_type_name(EOE_T_SET_IP_REQ), "set IP parameter request");
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_header_bytes),
        cmocka_unit_test(test_fragments),
        cmocka_unit_test(test_reassembly_checks),
        cmocka_unit_test(test_ip_body),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
