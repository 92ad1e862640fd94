/* PRes and ASnd at the MN judged by wire time, fed by hand with chosen times after a
 * booted segment: a PRes stamped within its node's timeout from its PReq's actual send
 * (plk_mn_sent) is the answer even when read after the MN moved on; one stamped later
 * in the cycle is late (counted, data not taken, no loss); one that answers no PReq of
 * this cycle (stamped before it left, a node not polled, a second one) and an ASnd no
 * SoA of this cycle invited are unexpected: counted, never taken. Losses are judged at
 * the end of the cycle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"

#define TMO 50000   /* bus_cfg's PRes timeout */

struct hand {
    struct bus *b;
    struct plk_txf buf[16];
    struct plk_txq q;
};

/* A segment of `n` CNs booted to Operational, stopped in the async phase of a cycle:
 * from here on the MN is driven by hand (the bus's CNs no longer answer). */
static void hand_init(struct hand *h, struct plk_net_config *cfg, unsigned n)
{
    h->b = bus_new(cfg, 1, n);
    assert_true(bus_run_until_op(h->b, 5 * TAKT_NS_PER_S));
    bus_run(h->b, h->b->next_cycle - 100000);
    assert_int_equal(h->b->mn.phase, MNP_ASYNC);
    h->q = (struct plk_txq){ .f = h->buf, .cap = 16 };
}

/* A frame of this type and destination was queued; the queue is emptied. */
static void expect_sent(struct hand *h, uint8_t mtyp, uint8_t dst)
{
    bool found = false;
    for (unsigned i = 0; i < h->q.n; i++) {
        const uint8_t *f = h->q.f[i].data;
        found |= plk_frame_mtyp(f) == mtyp && plk_frame_dst(f) == dst;
    }
    assert_true(found);
    h->q.n = 0;
}

static void feed_pres(struct hand *h, takt_ns_t t, uint8_t node, uint8_t data)
{
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.src_mac[0] = 0x02;
    m.src_mac[5] = node;
    m.mtyp = PLK_MTYP_PRES;
    m.dst = PLK_NODE_BROADCAST;
    m.src = node;
    m.u.pres.nmt_state = PLK_NMT_OPERATIONAL;
    m.u.pres.flags1 = PLK_F1_RD;
    m.u.pres.size = 1;
    m.u.pres.payload = &data;
    m.u.pres.payload_limit = PLK_PAYLOAD_LIMIT_MIN;
    uint8_t f[TAKT_FRAME_BUF];
    int len = plk_frame_encode(f, sizeof f, &m);
    assert_true(len > 0);
    plk_mn_rx(&h->b->mn, t, f, (size_t)len, &h->q);
}

static void tick(struct hand *h, takt_ns_t t) { plk_mn_tick(&h->b->mn, t, &h->q); }

/* A PRes of node 1 stamped after its timeout, while the MN waits for node 2, is late:
 * counted, taken as this cycle's answer (openPOWERLINK's MN takes a PRes until the
 * next SoC), not a loss at the cycle's end, and the MN still waits for node 2. The
 * timeout runs from the PReq's actual send. After the SoA a second PRes of node 1 or 2
 * is unexpected and not taken. */
static void late_pres_in_next_window_not_taken(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct hand h;
    hand_init(&h, &cfg, 3);
    struct plk_mn *mn = &h.b->mn;
    struct plk_mn_node *n1 = mn->node[1], *n2 = mn->node[2];
    takt_ns_t T = h.b->next_cycle;
    uint64_t lost1 = n1->st.pres_lost, late1 = n1->st.pres_late, ok1 = n1->st.pres_ok;
    uint64_t un1 = n1->st.unexpected, un2 = n2->st.unexpected;

    plk_mn_cycle(mn, T, &h.q);
    expect_sent(&h, PLK_MTYP_PREQ, 1);
    plk_mn_sent(mn, T + 1000);            /* the MN woke 1 µs late */
    assert_int_equal(n1->preq_sent, T + 1000);
    assert_int_equal(plk_mn_deadline(mn), T + 1000 + TMO);
    tick(&h, T + TMO + 500);             /* past trigger + timeout, not past send + timeout */
    assert_int_equal(h.q.n, 0);
    tick(&h, T + 1000 + TMO);
    expect_sent(&h, PLK_MTYP_PREQ, 2);
    takt_ns_t s2 = T + 1000 + TMO + 700;
    plk_mn_sent(mn, s2);

    feed_pres(&h, s2 + 900, 1, 0xE1);    /* node 1's answer, after its timeout */
    assert_int_equal(h.q.n, 0);          /* no PReq 3: still waiting for node 2 */
    assert_int_equal(n1->st.pres_late, late1 + 1);
    assert_int_equal(n1->st.pres_ok, ok1);
    assert_int_equal(n1->in[0], 0xE1);
    assert_int_equal(mn->poll[mn->cur], 2);
    assert_int_equal(plk_mn_deadline(mn), s2 + TMO);

    takt_ns_t sum2 = n2->st.pres_lat_sum;
    feed_pres(&h, s2 + 7000, 2, 0x22);
    assert_int_equal(n2->st.pres_lat_sum - sum2, 7000);
    assert_int_equal(n2->in[0], 0x22);
    expect_sent(&h, PLK_MTYP_PREQ, 3);
    plk_mn_sent(mn, s2 + 9000);
    feed_pres(&h, s2 + 12000, 3, 0x33);
    expect_sent(&h, PLK_MTYP_SOA, PLK_NODE_BROADCAST);
    /* after the SoA: a second PRes of node 1 and of node 2 answer nothing */
    feed_pres(&h, s2 + 20000, 1, 0xD1);
    feed_pres(&h, s2 + 21000, 2, 0xE2);
    assert_int_equal(n1->st.pres_late, late1 + 1);
    assert_int_equal(n1->st.unexpected, un1 + 1);
    assert_int_equal(n2->st.unexpected, un2 + 1);
    assert_int_equal(n1->in[0], 0xE1);
    assert_int_equal(n2->in[0], 0x22);
    /* the cycle ends: late is not lost */
    plk_mn_cycle(mn, T + 1000000, &h.q);
    assert_int_equal(n1->st.pres_lost, lost1);
    bus_free(h.b);
}

/* Wire time, not read time: PRes 1 stamped 100 ns before its timeout but read after the
 * MN had moved on to node 2 is node 1's answer (taken, latency from the stamp, held);
 * the MN keeps waiting for node 2. A PRes of node 3, not polled yet in this cycle, and
 * one of an unconfigured node answer nothing. Before, a PRes the MN read after its
 * timeout counted as late and lost. */
static void in_time_on_the_wire_read_late_is_held(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct hand h;
    hand_init(&h, &cfg, 3);
    struct plk_mn *mn = &h.b->mn;
    struct plk_mn_node *n1 = mn->node[1], *n3 = mn->node[3];
    takt_ns_t T = h.b->next_cycle;
    uint64_t lost1 = n1->st.pres_lost, ok1 = n1->st.pres_ok, late1 = n1->st.pres_late;
    uint64_t un3 = n3->st.unexpected, unx = mn->st.unexpected;
    uint8_t in3 = n3->in[0];
    takt_ns_t sum1 = n1->st.pres_lat_sum;

    plk_mn_cycle(mn, T, &h.q);
    expect_sent(&h, PLK_MTYP_PREQ, 1);
    plk_mn_sent(mn, T + 2000);
    feed_pres(&h, T + 3000, 3, 0xE3);      /* node 3 was not polled yet */
    assert_int_equal(n3->st.unexpected, un3 + 1);
    assert_int_equal(n3->in[0], in3);
    assert_int_equal(h.q.n, 0);
    feed_pres(&h, T + 3500, 50, 0xE5);     /* no such node */
    assert_int_equal(mn->st.unexpected, unx + 2);
    tick(&h, T + 2000 + TMO);              /* the MN's timeout: on to node 2 */
    expect_sent(&h, PLK_MTYP_PREQ, 2);
    plk_mn_sent(mn, T + 2000 + TMO + 3000);
    feed_pres(&h, T + 2000 + TMO - 100, 1, 0x11);   /* read now, stamped in time */
    assert_int_equal(n1->st.pres_ok, ok1 + 1);
    assert_int_equal(n1->st.pres_held, 1);
    assert_int_equal(n1->st.pres_late, late1);
    assert_int_equal(n1->in[0], 0x11);
    assert_int_equal(n1->st.pres_lat_sum - sum1, TMO - 100);
    assert_int_equal(h.q.n, 0);            /* still waiting for node 2 */
    assert_int_equal(mn->poll[mn->cur], 2);
    plk_mn_cycle(mn, T + 1000000, &h.q);   /* node 1 answered: no loss */
    assert_int_equal(n1->st.pres_lost, lost1);
    bus_free(h.b);
}

/* The PRes timeout is each node's own 0x1F92/n: a PRes 80 µs after its PReq is late
 * for node 1 (50 µs) and in time for node 2 (100 µs). */
static void timeout_per_node(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[2].pres_timeout_ns = 100000;
    struct hand h;
    hand_init(&h, &cfg, 2);
    struct plk_mn *mn = &h.b->mn;
    struct plk_mn_node *n1 = mn->node[1], *n2 = mn->node[2];
    uint64_t late1 = n1->st.pres_late, ok2 = n2->st.pres_ok, late2 = n2->st.pres_late;
    takt_ns_t T = h.b->next_cycle;
    plk_mn_cycle(mn, T, &h.q);
    expect_sent(&h, PLK_MTYP_PREQ, 1);
    plk_mn_sent(mn, T + 1000);
    feed_pres(&h, T + 81000, 1, 0x11);
    assert_int_equal(n1->st.pres_late, late1 + 1);
    expect_sent(&h, PLK_MTYP_PREQ, 2);
    plk_mn_sent(mn, T + 83000);
    assert_int_equal(plk_mn_deadline(mn), T + 83000 + 100000);
    feed_pres(&h, T + 163000, 2, 0x22);
    assert_int_equal(n2->st.pres_ok, ok2 + 1);
    assert_int_equal(n2->st.pres_late, late2);
    bus_free(h.b);
}

/* An ASnd answers the SoA of this cycle that invited it, once: a StatusResponse no SoA
 * asked for (node 1 saying PreOp1) is unexpected and its state not taken; invited, it
 * is taken; a second one, or one after the next SoC, is unexpected again. */
static void asnd_only_when_invited(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    struct hand h;
    hand_init(&h, &cfg, 2);
    struct plk_mn *mn = &h.b->mn;
    struct plk_mn_node *n1 = mn->node[1];
    uint64_t un = n1->st.unexpected;
    takt_ns_t t = h.b->now;
    uint8_t f[TAKT_FRAME_BUF];
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.mtyp = PLK_MTYP_ASND;
    m.dst = PLK_NODE_BROADCAST;
    m.src = 1;
    m.u.asnd.svid = PLK_ASND_STATUS_RESPONSE;
    m.u.asnd.u.status.nmt_state = PLK_NMT_PRE_OPERATIONAL_1;
    int len = plk_frame_encode(f, sizeof f, &m);
    assert_true(len > 0);
    plk_mn_rx(mn, t + 1000, f, (size_t)len, &h.q);
    assert_int_equal(n1->st.unexpected, un + 1);
    assert_int_equal(n1->state, PLK_NMT_OPERATIONAL);
    assert_int_equal(n1->step, MNS_OPERATIONAL);

    plk_mn_soa(mn, &h.q, PLK_SOA_STATUS_REQUEST, 1, NULL);
    h.q.n = 0;
    plk_mn_sent(mn, t + 2000);
    m.u.asnd.u.status.nmt_state = PLK_NMT_OPERATIONAL;
    len = plk_frame_encode(f, sizeof f, &m);
    plk_mn_rx(mn, t + 1500, f, (size_t)len, &h.q);   /* stamped before the SoA left */
    assert_int_equal(n1->st.unexpected, un + 2);
    plk_mn_rx(mn, t + 9000, f, (size_t)len, &h.q);
    assert_int_equal(n1->st.unexpected, un + 2);     /* the invited answer */
    plk_mn_rx(mn, t + 9500, f, (size_t)len, &h.q);
    assert_int_equal(n1->st.unexpected, un + 3);     /* a second one */
    assert_int_equal(n1->state, PLK_NMT_OPERATIONAL);
    h.q.n = 0;
    bus_free(h.b);
}

/* What a capture of a loaded MN showed on the wire: every PRes of cycle k came during cycle k+1. Stale
 * PRes 1 stamped before PReq 1 actually left, and stale PRes 2 stamped 1495 ns after
 * the genuine PRes 1 that triggered PReq 2 but before PReq 2 left, are not answers.
 * Each genuine PRes is taken, with its latency from its PReq's actual send. */
static void stale_pres_of_previous_cycle_not_taken(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct hand h;
    hand_init(&h, &cfg, 3);
    struct plk_mn *mn = &h.b->mn;
    takt_ns_t T = h.b->next_cycle, t = T;
    uint64_t lost[4], late[4], ok[4];
    takt_ns_t sum[4];
    for (unsigned id = 1; id <= 3; id++) {
        lost[id] = mn->node[id]->st.pres_lost;
        late[id] = mn->node[id]->st.pres_late;
        ok[id] = mn->node[id]->st.pres_ok;
    }

    uint64_t un[4];
    for (unsigned id = 1; id <= 3; id++)
        un[id] = mn->node[id]->st.unexpected;
    /* cycle k: no PRes in time */
    plk_mn_cycle(mn, T, &h.q);
    for (unsigned id = 1; id <= 3; id++) {
        expect_sent(&h, PLK_MTYP_PREQ, (uint8_t)id);
        plk_mn_sent(mn, t + 500);
        t += 500 + TMO;
        tick(&h, t);
    }
    expect_sent(&h, PLK_MTYP_SOA, PLK_NODE_BROADCAST);
    for (unsigned id = 1; id <= 3; id++)
        sum[id] = mn->node[id]->st.pres_lat_sum;

    /* cycle k+1: the MN woke 3 µs late; stale PRes 1 came before its PReq 1 left.
     * Cycle k's losses are judged as it ends. */
    takt_ns_t T2 = T + 1000000, s1 = T2 + 3000;
    plk_mn_cycle(mn, T2, &h.q);
    for (unsigned id = 1; id <= 3; id++)
        assert_int_equal(mn->node[id]->st.pres_lost, lost[id] + 1);
    expect_sent(&h, PLK_MTYP_PREQ, 1);
    plk_mn_sent(mn, s1);
    feed_pres(&h, T2 + 800, 1, 0xE1);
    assert_int_equal(h.q.n, 0);
    assert_int_equal(mn->node[1]->st.unexpected, un[1] + 1);
    /* stale PRes 2 while node 1 is polled: node 2 was not polled yet */
    feed_pres(&h, s1 + 300, 2, 0xE2);
    assert_int_equal(mn->node[2]->st.unexpected, un[2] + 1);
    assert_int_equal(h.q.n, 0);

    /* the genuine PRes 1; PReq 2 leaves 2 µs after its stamp (the MN's reaction) */
    takt_ns_t r1 = s1 + 5200, s2 = r1 + 2000;
    feed_pres(&h, r1, 1, 0x11);
    expect_sent(&h, PLK_MTYP_PREQ, 2);
    plk_mn_sent(mn, s2);
    /* a second stale PRes 2, 1495 ns after the PRes 1 that triggered PReq 2 */
    feed_pres(&h, r1 + 1495, 2, 0xE2);
    assert_int_equal(h.q.n, 0);
    assert_int_equal(mn->node[2]->st.unexpected, un[2] + 2);
    takt_ns_t r2 = s2 + 4300, s3 = r2 + 1500;
    feed_pres(&h, r2, 2, 0x22);
    expect_sent(&h, PLK_MTYP_PREQ, 3);
    plk_mn_sent(mn, s3);
    feed_pres(&h, r2 + 1000, 3, 0xE3);   /* in the same batch as PRes 2 */
    feed_pres(&h, s3 + 2500, 3, 0x33);
    expect_sent(&h, PLK_MTYP_SOA, PLK_NODE_BROADCAST);

    const takt_ns_t lat[4] = { 0, 5200, 4300, 2500 };
    const uint8_t data[4] = { 0, 0x11, 0x22, 0x33 };
    for (unsigned id = 1; id <= 3; id++) {
        struct plk_mn_node *n = mn->node[id];
        assert_int_equal(n->st.pres_lat_sum - sum[id], lat[id]);
        assert_int_equal(n->in[0], data[id]);
        assert_int_equal(n->st.pres_ok, ok[id] + 1);
        assert_int_equal(n->st.pres_lost, lost[id] + 1);   /* only cycle k's */
    }
    for (unsigned id = 1; id <= 3; id++)
        assert_int_equal(mn->node[id]->st.pres_late, late[id]);
    assert_int_equal(mn->node[3]->st.unexpected, un[3] + 1);
    /* the +8 of cycle k's loss, -1 for the good cycle k+1 as it ends */
    plk_mn_cycle(mn, T2 + 1000000, &h.q);
    assert_int_equal(mn->node[2]->loss_pres.thr_cnt, 7);
    bus_free(h.b);
}

/* Chained CNs: the window opens when the PResMN actually leaves. A chained PRes
 * stamped before that belongs to an earlier cycle; the latency counts from the send. */
static void chained_window_from_pres_mn_send(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[1].chained = cfg.node[2].chained = true;
    cfg.node[1].pres_time_first_ns = 20000;
    cfg.node[2].pres_time_first_ns = 30000;
    cfg.pres_mn = true;
    struct hand h;
    hand_init(&h, &cfg, 2);
    struct plk_mn *mn = &h.b->mn;
    assert_true(mn->node[1]->chain_active && mn->node[2]->chain_active);
    struct plk_mn_node *n1 = mn->node[1], *n2 = mn->node[2];
    uint64_t un1 = n1->st.unexpected;
    takt_ns_t sum1 = n1->st.pres_lat_sum, sum2 = n2->st.pres_lat_sum;
    takt_ns_t T = h.b->next_cycle, s = T + 4000;

    plk_mn_cycle(mn, T, &h.q);
    expect_sent(&h, PLK_MTYP_PRES, PLK_NODE_BROADCAST);   /* SoC, PResMN */
    takt_ns_t end = mn->chain_end, expect = mn->chain_expect;
    plk_mn_sent(mn, s);
    assert_int_equal(mn->chain_end, end + 4000);
    assert_int_equal(mn->chain_expect, expect + 4000);
    assert_int_equal(plk_mn_deadline(mn), end + 4000);

    feed_pres(&h, T + 2500, 1, 0xE1);      /* before the PResMN left: stale */
    assert_int_equal(n1->st.unexpected, un1 + 1);
    assert_int_not_equal(n1->in[0], 0xE1);
    feed_pres(&h, s + 23000, 1, 0x11);
    feed_pres(&h, s + 33500, 2, 0x22);
    expect_sent(&h, PLK_MTYP_SOA, PLK_NODE_BROADCAST);
    assert_int_equal(n1->st.pres_lat_sum - sum1, 23000);
    assert_int_equal(n2->st.pres_lat_sum - sum2, 33500);
    assert_int_equal(n1->in[0], 0x11);
    assert_int_equal(n2->in[0], 0x22);
    bus_free(h.b);
}

/* Without plk_mn_sent (a caller that sends at once) the queued time stands; a send
 * time before it is ignored. */
static void sent_time_defaults_and_bounds(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 1);
    struct hand h;
    hand_init(&h, &cfg, 1);
    struct plk_mn *mn = &h.b->mn;
    takt_ns_t T = h.b->next_cycle;
    plk_mn_cycle(mn, T, &h.q);
    expect_sent(&h, PLK_MTYP_PREQ, 1);
    assert_int_equal(mn->node[1]->preq_sent, T);
    plk_mn_sent(mn, T - 10);
    assert_int_equal(mn->node[1]->preq_sent, T);
    assert_int_equal(plk_mn_deadline(mn), T + TMO);
    plk_mn_sent(mn, T + 50);                /* reported once only */
    assert_int_equal(mn->node[1]->preq_sent, T);
    takt_ns_t sum = mn->node[1]->st.pres_lat_sum;
    feed_pres(&h, T + 6000, 1, 0x11);
    assert_int_equal(mn->node[1]->st.pres_lat_sum - sum, 6000);
    bus_free(h.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(late_pres_in_next_window_not_taken),
        cmocka_unit_test(in_time_on_the_wire_read_late_is_held),
        cmocka_unit_test(asnd_only_when_invited),
        cmocka_unit_test(timeout_per_node),
        cmocka_unit_test(stale_pres_of_previous_cycle_not_taken),
        cmocka_unit_test(chained_window_from_pres_mn_send),
        cmocka_unit_test(sent_time_defaults_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
