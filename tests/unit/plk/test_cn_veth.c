/* The CN's end of a host virtual Ethernet (takt plk cn --veth): a frame the host hands
 * over waits until the MN gives the CN the async slot with SoA UnspecifiedInvite (EPSG
 * DS 301 4.2.4.6; the CN signals it with PR/RS meanwhile), and what comes from the
 * POWERLINK network for the CN's MAC or for all is handed to the host -- except SDO
 * over UDP port 3819 to the CN's IP, which the CN's own SDO server keeps answering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include "test_mn_bus.h"
#include "plk/cn_int.h"
#include "plk/ipudp.h"
#include "util/wire.h"

static const uint8_t TAP[6] = { 0x02, 0, 0, 0, 0x7A, 0x9 };   /* the MN host's TAP */

/* Each IPv4 frame a CN sends, and whether the MN's frame before it was a SoA
 * UnspecifiedInvite for that CN. */
struct watch { unsigned ip_cn, outside; uint8_t svid, target; };

static void note(struct bus *b, const uint8_t *f, size_t len, uint8_t sender)
{
    struct watch *w = b->hook_ctx;
    if (len > 13 && get_be16(f + 12) == PLK_ETH_IPV4) {
        if (w->svid != PLK_SOA_UNSPEC_INVITE || w->target != sender)
            w->outside++;
        w->ip_cn += sender != PLK_NODE_MN;
        w->svid = 0;
        return;
    }
    bool soa = len > 20 && f[PLK_OFF_MTYP] == PLK_MTYP_SOA;
    w->svid = soa ? f[PLK_SOA_OFF_SVID] : 0;
    w->target = soa ? f[PLK_SOA_OFF_TARGET] : 0;
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

/* An ICMP echo request from src to dst (a reply's encoding with type 8 patched in). */
static int echo_request(uint8_t *f, size_t cap, const struct plk_ip_ep *src, const struct plk_ip_ep *dst)
{
    uint8_t req[24] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1 };
    memset(req + 8, 0x5A, 16);
    int n = plk_icmp_echo_reply_encode(f, cap, src, dst, 3, req, sizeof req);
    f[34] = 8;
    put_be16(f + 36, (uint16_t)(get_be16(f + 36) - 0x0800));
    return n;
}

static struct bus *booted(struct watch *w)
{
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 5, 1);
    struct bus *b = bus_new(&cfg, 5, 1);
    b->mn.veth.on = true;
    memcpy(b->mn.veth.mac, TAP, 6);
    plk_cn_veth_on(b->cn[0], true);
    b->hook_ctx = w;
    b->mn_hook = mn_hook;
    b->cn_hook = cn_hook;
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    return b;
}

static void host_frame_waits_for_unspecified_invite(void **state)
{
    (void)state;
    struct watch w = { 0 };
    struct bus *b = booted(&w);
    struct plk_cn *cn = b->cn[0];
    struct plk_ip_ep me = { .ip = PLK_IP_NODE(5) }, mn_host = { .ip = PLK_IP_NODE(240) };
    memcpy(me.mac, cn->mac, 6);
    memcpy(mn_host.mac, TAP, 6);
    uint8_t f[TAKT_FRAME_BUF];
    int n = echo_request(f, sizeof f, &me, &mn_host);
    assert_true(n > 0);
    unsigned before = w.ip_cn;
    assert_int_equal(plk_cn_veth_send(cn, f, (size_t)n), 0);
    assert_int_equal(plk_cn_veth_send(cn, f, (size_t)n), -EBUSY);   /* one waits at a time */
    /* announced as a generic frame in PRes and StatusResponse (DS 301 Flag2 PR/RS) */
    assert_int_equal(plk_cn_flags2(cn, b->now) >> PLK_F2_PR_SHIFT, PLK_PRIO_GENERIC);
    assert_int_equal(w.ip_cn, before);
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    /* sent once, in the slot of an UnspecifiedInvite to node 5, and the MN gave it to
     * its own host (the TAP's MAC) */
    assert_int_equal(w.ip_cn - before, 1);
    assert_int_equal(w.outside, 0);
    assert_int_equal(cn->veth.to_net, 1);
    assert_int_equal(b->mn.veth.head, 1);
    assert_int_equal(b->mn.veth.f[0].len, n);
    assert_memory_equal(b->mn.veth.f[0].data, f, (size_t)n);
    assert_int_equal(plk_cn_flags2(cn, b->now), 0);
    /* the slot is free again; what the host may not send is refused */
    assert_int_equal(plk_cn_veth_send(cn, f, (size_t)n), 0);
    uint8_t plk[60] = { 0 };
    put_be16(plk + 12, 0x88AB);
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    assert_int_equal(plk_cn_veth_send(cn, plk, sizeof plk), -EPROTOTYPE);
    assert_int_equal(plk_cn_veth_send(cn, f, 13), -EMSGSIZE);
    assert_int_equal(plk_cn_veth_send(cn, f, 1515), -EMSGSIZE);
    assert_int_equal(w.outside, 0);
    bus_free(b);
}

/* What the host gets: ICMP and ARP for the CN (its stack answers, not the core), other
 * ports, broadcasts; not another node's frames, not SDO over UDP to 3819. */
static void received_frames_for_the_host(void **state)
{
    (void)state;
    struct watch w = { 0 };
    struct bus *b = booted(&w);
    struct plk_cn *cn = b->cn[0];
    struct plk_ip_ep me = { .ip = PLK_IP_NODE(5), .port = PLK_SDO_UDP_PORT };
    struct plk_ip_ep mn_host = { .ip = PLK_IP_NODE(240), .port = 40000 };
    memcpy(me.mac, cn->mac, 6);
    memcpy(mn_host.mac, TAP, 6);
    uint8_t f[TAKT_FRAME_BUF], got[TAKT_FRAME_BUF];
    /* ping of the CN's IP: to the host */
    int n = echo_request(f, sizeof f, &mn_host, &me);
    bus_push(b, b->now + 1000, 7, f, (uint16_t)n);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    assert_int_equal(plk_cn_veth_recv(cn, got, sizeof got), n);
    assert_memory_equal(got, f, (size_t)n);
    assert_int_equal(plk_cn_veth_recv(cn, got, sizeof got), 0);
    assert_int_equal(cn->ip_st.echo_tx, 0);
    /* ARP for the CN's IP (broadcast): to the host, not answered by the core */
    n = plk_arp_encode(f, sizeof f, 1, TAP, PLK_IP_NODE(240), NULL, PLK_IP_NODE(5));
    bus_push(b, b->now + 1000, 7, f, (uint16_t)n);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    assert_int_equal(plk_cn_veth_recv(cn, got, 8), -EMSGSIZE);   /* too small: stays */
    assert_int_equal(plk_cn_veth_recv(cn, got, sizeof got), n);
    assert_int_equal(cn->ip_st.arp_tx, 0);
    /* UDP to another port of the CN's IP: to the host */
    struct plk_ip_ep web = me;
    web.port = 80;
    const uint8_t pay[4] = { 1, 2, 3, 4 };
    n = plk_udp_encode(f, sizeof f, &mn_host, &web, 9, pay, sizeof pay);
    bus_push(b, b->now + 1000, 7, f, (uint16_t)n);
    /* an IP frame to another MAC: not for this host */
    struct plk_ip_ep other = web;
    memcpy(other.mac, (uint8_t[6]){ 0x02, 0, 0, 0, 1, 9 }, 6);
    int m = plk_udp_encode(f + 800, sizeof f - 800, &mn_host, &other, 10, pay, sizeof pay);
    bus_push(b, b->now + 2000, 7, f + 800, (uint16_t)m);
    /* SDO over UDP (InitReq) to 3819: the core's SDO server answers it */
    const uint8_t init[4] = { 0x00, 0x01, 0, 0 };
    struct plk_ip_ep mn_sdo = mn_host;
    mn_sdo.port = PLK_SDO_UDP_PORT;
    int k = plk_udp_sdo_encode(f + 400, 400, &mn_sdo, &me, 11, init, sizeof init);
    bus_push(b, b->now + 3000, 7, f + 400, (uint16_t)k);
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    assert_int_equal(plk_cn_veth_recv(cn, got, sizeof got), n);
    assert_memory_equal(got, f, (size_t)n);
    assert_int_equal(plk_cn_veth_recv(cn, got, sizeof got), 0);
    assert_int_equal(cn->ip_st.udp_rx, 1);
    assert_int_equal(cn->ip_st.udp_tx, 1);
    assert_int_equal(cn->veth.to_host, 3);
    /* a host that does not read: the ring keeps 8, the rest is counted */
    n = echo_request(f, sizeof f, &mn_host, &me);
    for (int i = 0; i < 10; i++)
        bus_push(b, b->now + 1000 + i * 100, 7, f, (uint16_t)n);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    assert_int_equal(cn->veth.dropped, 2);
    int kept = 0;
    while (plk_cn_veth_recv(cn, got, sizeof got) > 0)
        kept++;
    assert_int_equal(kept, 8);
    assert_int_equal(w.outside, 0);
    bus_free(b);
}

/* Without a host virtual Ethernet the core answers ARP and ping itself, as before. */
static void without_veth_the_core_answers(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 5, 1);
    struct bus *b = bus_new(&cfg, 5, 1);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    struct plk_cn *cn = b->cn[0];
    uint8_t f[TAKT_FRAME_BUF];
    int n = plk_arp_encode(f, sizeof f, 1, TAP, PLK_IP_NODE(240), NULL, PLK_IP_NODE(5));
    bus_push(b, b->now + 1000, 7, f, (uint16_t)n);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    assert_int_equal(cn->ip_st.arp_tx, 1);
    assert_int_equal(plk_cn_veth_recv(cn, f, sizeof f), 0);
    assert_int_equal(plk_cn_veth_send(cn, f, 60), -ENODEV);
    bus_free(b);
}

/* The public CN's wrappers reach the same hand-over. */
static void public_cn_api(void **state)
{
    (void)state;
    struct takt_plk_cn_cfg cfg;
    takt_plk_cn_cfg_default(&cfg, 5);
    struct takt_plk_cn *cn;
    char err[160];
    assert_int_equal(takt_plk_cn_create(&cfg, &cn, err, sizeof err), 0);
    uint8_t f[60] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0, 1, 5, 0x08, 0x06 };
    assert_int_equal(takt_plk_cn_send_eth(cn, f, sizeof f), -ENODEV);
    takt_plk_cn_veth(cn, true);
    assert_int_equal(takt_plk_cn_send_eth(cn, f, sizeof f), 0);
    assert_int_equal(takt_plk_cn_send_eth(cn, f, sizeof f), -EBUSY);
    assert_int_equal(takt_plk_cn_recv_eth(cn, f, sizeof f), 0);
    assert_int_equal(takt_plk_cn_veth_dropped(cn), 0);
    takt_plk_cn_destroy(cn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_frame_waits_for_unspecified_invite),
        cmocka_unit_test(received_frames_for_the_host),
        cmocka_unit_test(without_veth_the_core_answers),
        cmocka_unit_test(public_cn_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
