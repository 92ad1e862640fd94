/* EoE, master against the in-process simulator's EoE endpoint: set-IP parameters, then
 * an ARP request and ICMP echoes (one fragment, and 1000 bytes in eleven fragments each
 * way through 128-byte mailboxes) through the port's rings, while CoE uploads share the
 * same mailbox and all complete; the same with mailbox replies lost on the way back; a
 * slave without EoE and a mailbox too small refused by name before any traffic. */
#include <time.h>
#include "ecat/eoe.h"
#include "sim/esc_eoe.h"
#include "sim/net.h"
#include "unit/sim/master_rig.h"

static struct rig *eoe_rig(bool eoe, unsigned mbx)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        if (i == 1) {
            mbx_desc(&r->desc[i], i);             /* CoE, and EoE when asked */
            if (eoe)
                r->desc[i].mbx_protocols |= MBX_PROTO_EOE;
            r->desc[i].sm[0].len = (uint16_t)mbx;
            r->desc[i].sm[1].len = (uint16_t)mbx;
        } else {
            io_desc(&r->desc[i], i);
        }
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 3, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    return r;
}

static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 }, host_ip[4] = { 10, 77, 0, 1 };
static const uint8_t slave_ip[4] = { 10, 77, 0, 2 };

static uint16_t sum16(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

static size_t echo_request(uint8_t *f, const uint8_t *dst_mac, uint16_t seq, size_t payload)
{
    memcpy(f, dst_mac, 6);
    memcpy(f + 6, host_mac, 6);
    put_be16(f + 12, 0x0800);
    uint8_t *ip = f + 14, *ic = f + 34;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put_be16(ip + 2, (uint16_t)(28 + payload));
    ip[8] = 64;
    ip[9] = 1;
    memcpy(ip + 12, host_ip, 4);
    memcpy(ip + 16, slave_ip, 4);
    put_be16(ip + 10, sum16(ip, 20));
    ic[0] = 8;
    ic[1] = 0;
    put_be16(ic + 2, 0);
    put_be16(ic + 4, 0x1234);
    put_be16(ic + 6, seq);
    for (size_t i = 0; i < payload; i++)
        ic[8 + i] = (uint8_t)(i + seq);
    put_be16(ic + 2, sum16(ic, 8 + payload));
    return 42 + payload;
}

struct upl { int done, err; uint8_t buf[8]; };
static void upl_done(void *ctx, int err, const uint8_t *d, size_t n)
{
    struct upl *u = ctx;
    (void)d;
    (void)n;
    u->done++;
    if (err)
        u->err = err;
}

/* Send f, drive cycles (CoE uploads of 0x1000 kept going beside) until a frame comes
 * back; returns its length in out. */
static void cycle_paced(struct rig *r);
static int exchange(struct rig *r, const uint8_t *f, size_t n, uint8_t *out, size_t cap, struct upl *u,
                    unsigned *uploads)
{
    assert_int_equal(takt_ecat_eoe_send(r->m, 1, f, n), 0);
    /* bounded by time, not cycles: a lost reply is noticed after the datagram timeout */
    for (takt_ns_t end = takt_now() + 20 * TAKT_NS_PER_S; takt_now() < end;) {
        if (u && u->done == (int)*uploads && *uploads < 1000) {
            assert_int_equal(takt_ecat_sdo_upload_async(r->m, 1, 0x1000, 0, false, u->buf, sizeof u->buf,
                                                   upl_done, u), 0);
            (*uploads)++;
        }
        cycle_paced(r);
        int k = takt_ecat_eoe_recv(r->m, 1, out, cap);
        if (k > 0)
            return k;
    }
    print_events(r->m);
    struct takt_ecat_eoe_stats st;
    takt_ecat_eoe_get_stats(r->m, 1, &st);
    struct esc_eoe *s = r->sim->sl[1].esc.eoe;
    printf("tx %llu/%llu rx %llu/%llu uploads %u done %d; slave in %u out %u arp %u echo %u drop %u q %u\n",
           (unsigned long long)st.tx_frames, (unsigned long long)st.tx_frags,
           (unsigned long long)st.rx_frames, (unsigned long long)st.rx_frags, u ? *uploads : 0,
           u ? u->done : 0, s->n_frames_in, s->n_frames_out, s->n_arp, s->n_echo, s->n_dropped,
           s->q_count);
    fail_msg("no frame back within 20 s");
    return 0;
}

/* One cycle, then a pause of 100 us: a datagram whose reply is lost expires after the
 * master's 50 ms datagram timeout, judged by its frame's record in a ring of 4096
 * frames; cycles back to back as fast as the in-process simulator answers would wrap
 * that ring first. */
static void cycle_paced(struct rig *r)
{
    cycles(r, 1);
    struct timespec ts = { 0, 100000 };
    nanosleep(&ts, NULL);
}

static void run_traffic(struct rig *r)
{
    struct takt_ecat_eoe_ip p = { .flags = EOE_IP_IP | EOE_IP_MASK, .ip = { 10, 77, 0, 2 },
                             .mask = { 255, 255, 255, 0 } };
    assert_int_equal(takt_ecat_eoe_set_ip(r->m, 1, &p), 0);
    struct esc_eoe *s = r->sim->sl[1].esc.eoe;
    assert_non_null(s);
    assert_int_equal(s->n_set_ip, 1);
    assert_memory_equal(s->ip.ip, slave_ip, 4);
    uint8_t f[1600], in[1600];
    struct upl u = { 0 };
    unsigned uploads = 0;
    /* ARP: who has 10.77.0.2 */
    static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    memcpy(f, bcast, 6);
    memcpy(f + 6, host_mac, 6);
    put_be16(f + 12, 0x0806);
    const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 77, 0, 1,
                              0, 0, 0, 0, 0, 0, 10, 77, 0, 2 };
    memcpy(f + 14, arp, 28);
    int n = exchange(r, f, 42, in, sizeof in, &u, &uploads);
    assert_int_equal(n, 42);
    assert_int_equal(get_be16(in + 20), 2);                      /* ARP reply */
    uint8_t mac[6];
    memcpy(mac, in + 22, 6);
    assert_memory_equal(in + 28, slave_ip, 4);
    /* echoes: one fragment, then 1000 bytes in many */
    const size_t sizes[] = { 56, 1000, 1458 };
    for (unsigned k = 0; k < 3; k++) {
        size_t len = echo_request(f, mac, (uint16_t)k, sizes[k]);
        n = exchange(r, f, len, in, sizeof in, &u, &uploads);
        assert_int_equal(n, (int)len);
        assert_int_equal(in[34], 0);                              /* echo reply */
        assert_memory_equal(in + 42, f + 42, sizes[k]);          /* the same payload */
        assert_int_equal(sum16(in + 34, len - 34), 0);            /* its checksum right */
    }
    /* the CoE uploads went on beside and all completed */
    for (takt_ns_t end = takt_now() + 20 * TAKT_NS_PER_S; takt_now() < end && u.done < (int)uploads;)
        cycle_paced(r);
    assert_int_equal(u.done, (int)uploads);
    assert_int_equal(u.err, 0);
    assert_true(uploads >= 10);
    struct takt_ecat_eoe_stats st;
    assert_int_equal(takt_ecat_eoe_get_stats(r->m, 1, &st), 0);
    assert_int_equal(st.tx_frames, 4);
    assert_int_equal(st.rx_frames, 4);
    assert_true(st.tx_frags >= 2 + 11 + 16);
    assert_int_equal(st.rx_dropped, 0);
    assert_int_equal(s->n_echo, 3);
}

static void test_ping_beside_coe(void **state)
{
    (void)state;
    struct rig *r = eoe_rig(true, 128);
    run_traffic(r);
    rig_free(r);
}

/* Every 5th frame that reads a send mailbox loses its reply: the master asks for a
 * repetition and no fragment is missing. */
static void test_lost_replies(void **state)
{
    (void)state;
    struct rig *r = eoe_rig(true, 128);
    r->drop_reply_every = 5;
    run_traffic(r);
    assert_true(r->replies_dropped > 5);
    rig_free(r);
}

static void test_refusals(void **state)
{
    (void)state;
    struct rig *r = eoe_rig(false, 128);
    assert_int_equal(takt_ecat_eoe_open(r->m, 1), -TAKT_EMBOX);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "slave 1 ("));
    assert_non_null(strstr(takt_ecat_master_error(r->m), "has no EoE"));
    assert_int_equal(takt_ecat_eoe_open(r->m, 9), -ENOENT);
    assert_int_equal(takt_ecat_eoe_send(r->m, 1, "x", 1), -ENOENT);
    rig_free(r);
    r = eoe_rig(true, 48);
    assert_int_equal(takt_ecat_eoe_open(r->m, 1), -TAKT_EMBOX);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "too small for EoE"));
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ping_beside_coe),
        cmocka_unit_test(test_lost_replies),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
