/* SDO over UDP/IP and the virtual Ethernet's frames: the codec pinned to bytes worked
 * out by hand (RFC 791/768 checksums, the 4-byte SDO header openPOWERLINK's sdoudp
 * sends), every malformed field refused with a message, and the MN and CN cores in
 * one process running user SDO transfers over UDP in the async phase (EPSG DS 301,
 * "SDO via UDP/IP"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include "test_mn_bus.h"
#include "plk/ipudp.h"
#include "util/wire.h"

static const uint8_t MN_MAC[6] = { 0x02, 0, 0, 0, 0, 0xF0 }, CN5_MAC[6] = { 0x02, 0, 0, 0, 1, 5 };

/* InitReq (rcon 0, scon 1) from 192.168.100.240:3819 to .5:3819, IP ID 0x1234 */
static const uint8_t GOLD_UDP[60] = {
    0x02, 0x00, 0x00, 0x00, 0x01, 0x05, 0x02, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x08, 0x00, 0x45, 0x00,
    0x00, 0x24, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0xde, 0x4e, 0xc0, 0xa8, 0x64, 0xf0, 0xc0, 0xa8,
    0x64, 0x05, 0x0e, 0xeb, 0x0e, 0xeb, 0x00, 0x10, 0x91, 0xab, 0x06, 0x00, 0x00, 0x05, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* ARP reply of CN 5 (192.168.100.5) to the MN */
static const uint8_t GOLD_ARP[60] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x02, 0x00, 0x00, 0x00, 0x01, 0x05, 0x08, 0x06, 0x00, 0x01,
    0x08, 0x00, 0x06, 0x04, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x01, 0x05, 0xc0, 0xa8, 0x64, 0x05,
    0x02, 0x00, 0x00, 0x00, 0x00, 0xf0, 0xc0, 0xa8, 0x64, 0xf0,
};

static void eps(struct plk_ip_ep *mn, struct plk_ip_ep *cn)
{
    *mn = (struct plk_ip_ep){ .ip = PLK_IP_NODE(240), .port = PLK_SDO_UDP_PORT };
    *cn = (struct plk_ip_ep){ .ip = PLK_IP_NODE(5), .port = PLK_SDO_UDP_PORT };
    memcpy(mn->mac, MN_MAC, 6);
    memcpy(cn->mac, CN5_MAC, 6);
}

static void encode_golden(void **state)
{
    (void)state;
    struct plk_ip_ep mn, cn;
    eps(&mn, &cn);
    uint8_t f[TAKT_FRAME_BUF];
    const uint8_t init_req[4] = { 0x00, 0x01, 0x00, 0x00 };
    assert_int_equal(plk_udp_sdo_encode(f, sizeof f, &mn, &cn, 0x1234, init_req, 4), 60);
    assert_memory_equal(f, GOLD_UDP, 60);
    assert_int_equal(plk_arp_encode(f, sizeof f, 2, CN5_MAC, PLK_IP_NODE(5), MN_MAC, PLK_IP_NODE(240)), 60);
    assert_memory_equal(f, GOLD_ARP, 60);
    /* a request goes to the broadcast with an empty target hardware address */
    assert_int_equal(plk_arp_encode(f, sizeof f, 1, MN_MAC, PLK_IP_NODE(240), NULL, PLK_IP_NODE(5)), 60);
    assert_memory_equal(f, "\xff\xff\xff\xff\xff\xff", 6);
    assert_memory_equal(f + 32, "\0\0\0\0\0\0", 6);
    assert_int_equal(plk_arp_encode(f, 59, 2, CN5_MAC, 1, MN_MAC, 2), -ENOSPC);
    assert_int_equal(plk_udp_sdo_encode(f, 59, &mn, &cn, 1, init_req, 4), -ENOSPC);
}

static void decode_golden(void **state)
{
    (void)state;
    struct plk_ip_frame o;
    char err[160];
    assert_int_equal(plk_ip_decode(GOLD_UDP, 60, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PLK_IPF_UDP);
    assert_int_equal(o.src_ip, 0xC0A864F0);
    assert_int_equal(o.dst_ip, 0xC0A86405);
    assert_int_equal(o.src_port, 3819);
    assert_int_equal(o.dst_port, 3819);
    assert_int_equal(o.len, 8);   /* the padding is not payload */
    const uint8_t *sdo;
    size_t n;
    assert_int_equal(plk_udp_sdo_payload(o.data, o.len, &sdo, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(sdo[1], 0x01);
    assert_int_equal(plk_ip_decode(GOLD_ARP, 60, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PLK_IPF_ARP);
    assert_int_equal(o.arp_op, 2);
    assert_int_equal(o.arp_spa, PLK_IP_NODE(5));
    assert_int_equal(o.arp_tpa, PLK_IP_NODE(240));
    assert_memory_equal(o.arp_sha, CN5_MAC, 6);
    /* a POWERLINK frame is none of these */
    uint8_t plk[60] = { 0 };
    plk[12] = 0x88;
    plk[13] = 0xAB;
    assert_int_equal(plk_ip_decode(plk, 60, &o, err, sizeof err), -ENOMSG);
    assert_int_equal(plk_ip_decode(plk, 10, &o, err, sizeof err), -ENOMSG);
}

static void expect_bad(const uint8_t *f, size_t len, const char *says)
{
    struct plk_ip_frame o;
    char err[160] = "";
    assert_int_equal(plk_ip_decode(f, len, &o, err, sizeof err), -EPROTO);
    if (!strstr(err, says))
        fail_msg("expected '%s' in '%s'", says, err);
}

static void malformed_refused(void **state)
{
    (void)state;
    uint8_t f[60];
    memcpy(f, GOLD_UDP, 60);
    f[25] ^= 1;                                   /* header checksum */
    expect_bad(f, 60, "IPv4 header checksum at offset 24");
    memcpy(f, GOLD_UDP, 60);
    f[47] ^= 1;                                   /* payload: the UDP checksum no longer fits */
    expect_bad(f, 60, "UDP checksum");
    memcpy(f, GOLD_UDP, 60);
    f[41] = f[40] = 0;                            /* no UDP checksum: taken (RFC 768) */
    f[47] ^= 1;
    struct plk_ip_frame o;
    char err[160];
    assert_int_equal(plk_ip_decode(f, 60, &o, err, sizeof err), 0);
    expect_bad(GOLD_UDP, 30, "IPv4 header at offset 14: expected 20 bytes, got 16");
    memcpy(f, GOLD_UDP, 60);
    f[14] = 0x65;
    expect_bad(f, 60, "IPv4 version/IHL");
    memcpy(f, GOLD_UDP, 60);
    f[17] = 0xFF;                                 /* total length past the frame */
    expect_bad(f, 60, "IPv4 total length at offset 16");
    expect_bad(GOLD_UDP, 40, "IPv4 total length");
    memcpy(f, GOLD_UDP, 60);
    f[20] = 0x20;                                 /* MF: a fragment */
    f[24] = f[25] = 0;
    put_be16(f + 24, 0);
    {   /* refresh the header checksum so that only the fragment is wrong */
        uint32_t s = 0;
        for (unsigned i = 14; i < 34; i += 2)
            s += get_be16(f + i);
        while (s >> 16)
            s = (s & 0xFFFF) + (s >> 16);
        put_be16(f + 24, (uint16_t)~s);
    }
    expect_bad(f, 60, "expected an unfragmented datagram");
    memcpy(f, GOLD_UDP, 60);
    f[39] = 4;                                    /* UDP length below its header */
    expect_bad(f, 60, "UDP length at offset 38");
    expect_bad(GOLD_ARP, 41, "ARP frame: expected at least 42 bytes, got 41");
    memcpy(f, GOLD_ARP, 60);
    f[19] = 16;
    expect_bad(f, 60, "expected IPv4 over Ethernet");
    /* the SDO header */
    const uint8_t *sdo;
    size_t n;
    const uint8_t wrong[8] = { 0x06, 0, 0, 0x01, 0, 1, 0, 0 };
    assert_int_equal(plk_udp_sdo_payload(wrong, 8, &sdo, &n, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "ServiceID 0x05 (SDO), got 0x06 and 0x01"));
    assert_int_equal(plk_udp_sdo_payload(wrong, 3, &sdo, &n, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "expected the 4-byte header, got 3 bytes"));
}

static void seg_fits_async_mtu(void **state)
{
    (void)state;
    assert_int_equal(plk_udp_sdo_seg_max(300), 256);   /* C_DLL_MIN_ASYNC_MTU */
    assert_int_equal(plk_udp_sdo_seg_max(200), 156);
    assert_int_equal(plk_udp_sdo_seg_max(1500), 256);
    assert_int_equal(plk_udp_sdo_seg_max(10), 8);
}

/* Every IP frame on the bus, and whether the frame before it (from the MN) was a SoA
 * UnspecifiedInvite for the IP frame's sender. */
struct watch {
    unsigned ip_mn, ip_cn, outside, asnd_sdo_after_op;
    uint8_t last_svid, last_target;
    bool op;
};

static void note(struct bus *b, const uint8_t *f, size_t len, uint8_t sender)
{
    struct watch *w = b->hook_ctx;
    if (len > 13 && get_be16(f + 12) == PLK_ETH_IPV4) {
        if (w->last_svid != PLK_SOA_UNSPEC_INVITE || w->last_target != sender)
            w->outside++;
        if (sender == PLK_NODE_MN) w->ip_mn++; else w->ip_cn++;
        w->last_svid = 0;
        return;
    }
    if (len > 20 && f[PLK_OFF_MTYP] == PLK_MTYP_SOA) {
        w->last_svid = f[PLK_SOA_OFF_SVID];
        w->last_target = f[PLK_SOA_OFF_TARGET];
        return;
    }
    if (len > 20 && f[PLK_OFF_MTYP] == PLK_MTYP_ASND && f[PLK_ASND_OFF_SVID] == PLK_ASND_SDO && w->op)
        w->asnd_sdo_after_op++;
    if (len > 13 && f[PLK_OFF_MTYP] != PLK_MTYP_SOC)
        w->last_svid = 0;
}

static void mn_hook(struct bus *b, takt_ns_t at, const uint8_t *f, size_t len)
{
    (void)at;
    note(b, f, len, PLK_NODE_MN);
}

static void cn_hook(struct bus *b, unsigned cn, struct plk_txf *f)
{
    note(b, f->data, f->len, b->cn[cn]->cfg.id);
}

static void run_user(struct bus *b, struct plk_mn_user_sdo *u)
{
    u->state = 1;
    for (int i = 0; i < 100 && u->state != 3; i++)
        bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    assert_int_equal(u->state, 3);
}

static void sdo_over_udp_between_cores(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    struct bus *b = bus_new(&cfg, 1, 2);
    struct watch w = { 0 };
    b->hook_ctx = &w;
    b->mn_hook = mn_hook;
    b->cn_hook = cn_hook;
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    w.op = true;
    b->mn.sdo_udp = true;
    struct plk_mn_user_sdo *u = &b->mn.usdo;
    memset(u, 0, sizeof *u);
    u->node = 2;
    u->index = PLK_OD_IDENTITY;
    u->sub = 3;
    run_user(b, u);
    assert_int_equal(u->result, 0);
    assert_true(u->udp);
    assert_int_equal(get_le32(u->data), 0x00020007);
    /* a write, seen in the CN */
    memset(u, 0, sizeof *u);
    u->node = 2;
    u->write = true;
    u->index = PLK_OD_CN_LOSS_SOC;
    u->sub = PLK_EC_THRESHOLD;
    put_le32(u->data, 77);
    u->len = 4;
    run_user(b, u);
    assert_int_equal(u->result, 0);
    assert_int_equal(b->cn[1]->loss_soc.threshold, 77);
    /* 700 bytes each way: segmented within the async MTU */
    memset(u, 0, sizeof *u);
    u->node = 1;
    u->write = true;
    u->index = 0x2000;
    for (unsigned i = 0; i < 700; i++)
        u->data[i] = (uint8_t)(i * 5 + 1);
    u->len = 700;
    run_user(b, u);
    assert_int_equal(u->result, 0);
    memset(u, 0, sizeof *u);
    u->node = 1;
    u->index = 0x2000;
    run_user(b, u);
    assert_int_equal(u->result, 0);
    assert_int_equal(u->len, 700);
    for (unsigned i = 0; i < 700; i++)
        assert_int_equal(u->data[i], (uint8_t)(i * 5 + 1));
    /* an abort comes back with its code, as over ASnd */
    memset(u, 0, sizeof *u);
    u->node = 1;
    u->write = true;
    u->index = PLK_OD_IDENTITY;
    u->sub = 1;
    u->len = 4;
    run_user(b, u);
    assert_int_equal(u->result, -TAKT_ESDOABORT);
    assert_int_equal(u->abort_code, 0x06010002);
    /* all of it over UDP, each frame in its sender's UnspecifiedInvite slot */
    assert_true(w.ip_mn >= 10);
    assert_true(w.ip_cn >= 10);
    assert_int_equal(w.outside, 0);
    assert_int_equal(w.asnd_sdo_after_op, 0);
    assert_int_equal(b->cn[0]->ip_st.ip_bad + b->cn[1]->ip_st.ip_bad + b->mn.ip_st.ip_bad, 0);
    assert_int_equal(b->mn.ip_st.udp_tx, w.ip_mn);
    assert_int_equal(b->mn.node[1]->st.pres_lost + b->mn.node[2]->st.pres_lost, 0);
    bus_free(b);
}

static void arp_answered_in_the_async_slot(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 5, 1);
    struct bus *b = bus_new(&cfg, 5, 1);
    struct watch w = { 0 };
    b->hook_ctx = &w;
    b->mn_hook = mn_hook;
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    /* someone asks who has 192.168.100.5: the CN raises RS, answers when invited */
    uint8_t f[60];
    const uint8_t asker[6] = { 0x02, 0, 0, 0, 9, 9 };
    plk_arp_encode(f, sizeof f, 1, asker, PLK_IP_NODE(99), NULL, PLK_IP_NODE(5));
    bus_push(b, b->now + 1000, 7, f, 60);   /* from outside the bus's CNs */
    bus_run(b, b->now + 50 * TAKT_NS_PER_MS);
    assert_int_equal(b->cn[0]->ip_st.arp_tx, 1);
    assert_false(b->cn[0]->arp_due);
    /* one for the MN's address: answered in the MN's own slot */
    plk_arp_encode(f, sizeof f, 1, asker, PLK_IP_NODE(99), NULL, PLK_IP_NODE(240));
    bus_push(b, b->now + 1000, 7, f, 60);
    bus_run(b, b->now + 50 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.ip_st.arp_tx, 1);
    /* and one for nobody here: no answer */
    plk_arp_encode(f, sizeof f, 1, asker, PLK_IP_NODE(99), NULL, PLK_IP_NODE(77));
    bus_push(b, b->now + 1000, 7, f, 60);
    bus_run(b, b->now + 50 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.ip_st.arp_tx + b->cn[0]->ip_st.arp_tx, 2);
    bus_free(b);
}

/* ping of a CN: answered in its slot with the request's identifier, sequence and data;
 * the MN with a virtual Ethernet leaves frames to the TAP's MAC to the host */
static void echo_and_veth(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 5, 1);
    struct bus *b = bus_new(&cfg, 5, 1);
    const uint8_t tap[6] = { 0x02, 0, 0, 0, 0x7A, 0x9 };
    b->mn.veth.on = true;
    memcpy(b->mn.veth.mac, tap, 6);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    uint8_t f[TAKT_FRAME_BUF], req[40];
    memset(req, 0xA5, sizeof req);
    req[0] = 8;                      /* echo request, code 0, id 0x1234, seq 7 */
    req[1] = 0;
    put_be16(req + 2, 0);
    put_be16(req + 4, 0x1234);
    put_be16(req + 6, 7);
    /* the checksum: an echo reply's, with type 8 added */
    struct plk_ip_ep host = { .ip = PLK_IP_NODE(240) }, cn = { .ip = PLK_IP_NODE(5) };
    memcpy(host.mac, tap, 6);
    memcpy(cn.mac, b->cn[0]->mac, 6);
    int n = plk_icmp_echo_reply_encode(f, sizeof f, &host, &cn, 9, req, sizeof req);
    assert_int_equal(n, 14 + 20 + 40);
    f[34] = 8;
    put_be16(f + 36, (uint16_t)(get_be16(f + 36) - 0x0800));
    bus_push(b, b->now + 1000, 7, f, (uint16_t)n);
    bus_run(b, b->now + 50 * TAKT_NS_PER_MS);
    assert_int_equal(b->cn[0]->ip_st.echo_tx, 1);
    /* the reply went to the TAP's MAC, so the MN handed it to the host */
    unsigned h = b->mn.veth.head;
    assert_int_equal(h, 1);
    struct plk_ip_frame o;
    char err[160];
    assert_int_equal(plk_ip_decode(b->mn.veth.f[0].data, b->mn.veth.f[0].len, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PLK_IPF_ICMP);
    assert_int_equal(o.data[0], 0);
    assert_int_equal(get_be16(o.data + 4), 0x1234);
    assert_int_equal(get_be16(o.data + 6), 7);
    assert_memory_equal(o.data + 8, req + 8, 32);
    assert_memory_equal(o.dst_mac, tap, 6);
    /* an ARP request for the MN's address goes to the host too: its stack answers */
    plk_arp_encode(f, sizeof f, 1, b->cn[0]->mac, PLK_IP_NODE(5), NULL, PLK_IP_NODE(240));
    bus_push(b, b->now + 1000, 7, f, 60);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.veth.head, 2);
    assert_int_equal(b->mn.ip_st.arp_tx, 0);
    bus_free(b);
}

/* A host that writes to the virtual Ethernet in every cycle keeps the MN's own slot
 * busy: a CN that asked to send (its echo reply) still gets every other slot. */
static void busy_host_does_not_starve_cns(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 5, 1);
    struct bus *b = bus_new(&cfg, 5, 1);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    uint8_t eth[60] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0, 0, 0, 0x7A, 9, 0x88, 0xB5 };
    uint8_t req[16] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1 };
    struct plk_ip_ep host = { .ip = PLK_IP_NODE(240) }, cn = { .ip = PLK_IP_NODE(5) };
    memcpy(host.mac, b->mn.mac, 6);
    memcpy(cn.mac, b->cn[0]->mac, 6);
    uint8_t f[TAKT_FRAME_BUF];
    int n = plk_icmp_echo_reply_encode(f, sizeof f, &host, &cn, 1, req, sizeof req);
    f[34] = 8;
    put_be16(f + 36, (uint16_t)(get_be16(f + 36) - 0x0800));
    bus_push(b, b->now + 1000, 7, f, (uint16_t)n);
    uint64_t sent0 = b->mn.st.async_eth_tx;
    for (int i = 0; i < 20; i++) {      /* one host frame queued before every cycle */
        memcpy(b->mn.eth.data, eth, sizeof eth);
        b->mn.eth.len = sizeof eth;
        b->mn.eth.state = 1;
        bus_run(b, b->now + 1 * TAKT_NS_PER_MS);
    }
    assert_int_equal(b->cn[0]->ip_st.echo_tx, 1);
    assert_true(b->mn.st.async_eth_tx - sent0 >= 15);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_golden),
        cmocka_unit_test(decode_golden),
        cmocka_unit_test(malformed_refused),
        cmocka_unit_test(seg_fits_async_mtu),
        cmocka_unit_test(sdo_over_udp_between_cores),
        cmocka_unit_test(arp_answered_in_the_async_slot),
        cmocka_unit_test(echo_and_veth),
        cmocka_unit_test(busy_host_does_not_starve_cns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
