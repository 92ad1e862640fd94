/* MN error handling over the in-process segment: PRes timeout per node, the +8/-1
 * loss-of-PRes threshold (0x1C09), a lost CN removed, reset and booted again, a lost
 * mandatory CN, cycle time exceeded (0x1C02), malformed frames. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"

static struct bus *booted(struct plk_net_config *cfg, unsigned n)
{
    struct bus *b = bus_new(cfg, 1, n);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    return b;
}

static void single_loss_is_counted_not_fatal(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct bus *b = booted(&cfg, 3);
    /* one silent cycle: +8 < 15, counted, node stays */
    b->cn[1]->faults.vanished = true;
    bus_run(b, b->now + 1 * TAKT_NS_PER_MS);
    b->cn[1]->faults.vanished = false;
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    struct plk_mn_node *n = b->mn.node[2];
    assert_int_equal(n->st.pres_lost, 1);
    assert_int_equal(n->st.loss_threshold_hits, 0);
    assert_int_equal(n->step, MNS_OPERATIONAL);
    assert_int_equal(n->loss_pres.cumulative, 1);
    /* every good cycle took 1 off the threshold counter */
    assert_int_equal(n->loss_pres.thr_cnt, 0);
    bus_free(b);
}

static void two_losses_fire_threshold_and_node_reboots(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct bus *b = booted(&cfg, 3);
    b->cn[1]->faults.vanished = true;
    bus_run(b, b->now + 2 * TAKT_NS_PER_MS + 100000);
    struct plk_mn_node *n = b->mn.node[2];
    /* threshold 15: 8, 16 >= 15 -> fires on the second loss (EPSG DS 301 DLL error handling) */
    assert_int_equal(n->st.pres_lost, 2);
    assert_int_equal(n->st.loss_threshold_hits, 1);
    assert_false(n->in_cycle);
    assert_int_equal(n->step, MNS_UNIDENT);
    /* no more PReq to it while out of the cycle: losses stop */
    bus_run(b, b->now + 50 * TAKT_NS_PER_MS);
    assert_int_equal(n->st.pres_lost, 2);
    assert_int_equal(b->mn.node[1]->step, MNS_OPERATIONAL);
    assert_int_equal(b->mn.state, PLK_NMT_OPERATIONAL);
    /* NMTResetNode to node 2 was sent */
    bool reset = false;
    for (unsigned i = 0; i < b->n_log; i++)
        if (b->log[i].mtyp == PLK_MTYP_ASND && b->log[i].nmt_cmd == PLK_NMT_CMD_RESET_NODE &&
            b->log[i].dst == 2)
            reset = true;
    assert_true(reset);
    /* it comes back: reset on its side, identified, configured, started again */
    b->cn[1]->faults.vanished = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(n->st.boots, 2);
    assert_int_equal(n->st.lost, 1);
    assert_int_equal(b->mn.node[1]->st.boots, 1);
    bus_free(b);
}

static void threshold_zero_disables(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[2].loss_pres_threshold = 0;
    struct bus *b = booted(&cfg, 2);
    b->cn[1]->faults.vanished = true;
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    struct plk_mn_node *n = b->mn.node[2];
    assert_in_range(n->st.pres_lost, 29, 31);
    assert_int_equal(n->st.loss_threshold_hits, 0);
    assert_true(n->in_cycle);
    bus_free(b);
}

static void dropped_pres_are_all_counted(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    cfg.node[1].loss_pres_threshold = 0;   /* keep it in the cycle to count every loss */
    struct bus *b = booted(&cfg, 3);
    b->cn[0]->faults.drop_pres_permille = 100;
    uint64_t ok0 = b->mn.node[1]->st.pres_ok, lost0 = b->mn.node[1]->st.pres_lost;
    bus_run(b, b->now + 1000 * TAKT_NS_PER_MS);
    uint64_t ok = b->mn.node[1]->st.pres_ok - ok0, lost = b->mn.node[1]->st.pres_lost - lost0;
    /* every PReq either got its PRes or was counted lost; the CN's own count agrees */
    assert_in_range(ok + lost, 999, 1001);
    assert_int_equal(lost, b->cn[0]->st.dropped);
    assert_in_range(lost, 50, 150);
    bus_free(b);
}

static void lost_mandatory_node_resets_network(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[1].mandatory = true;
    struct bus *b = booted(&cfg, 2);
    b->cn[0]->faults.vanished = true;
    bus_run(b, b->now + 3 * TAKT_NS_PER_MS);
    /* DS 301: lost mandatory CN -> MN back to PreOp1, every CN reset */
    assert_int_equal(b->mn.state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(b->mn.node[2]->step, MNS_UNIDENT);
    b->cn[0]->faults.vanished = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(b->mn.node[2]->st.boots, 2);
    bus_free(b);
}

static void cycle_time_exceeded_is_counted(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.cycle_exceed_threshold = 0;   /* count only */
    for (unsigned i = 1; i <= 2; i++) {
        cfg.node[i].pres_timeout_ns = 1500000;   /* longer than the cycle */
        cfg.node[i].loss_pres_threshold = 0;
    }
    struct bus *b = booted(&cfg, 2);
    /* node 2 is silent: the MN still waits for it when the next SoC is due */
    b->cn[1]->faults.vanished = true;
    uint64_t ex0 = b->mn.st.cycle_exceeded;
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    assert_in_range(b->mn.st.cycle_exceeded - ex0, 8, 11);
    assert_true(b->mn.node[2]->st.pres_lost > 0);
    bus_free(b);
}

static void cycle_exceed_threshold_sends_mn_to_preop1(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.cycle_exceed_threshold = 15;
    for (unsigned i = 1; i <= 2; i++) {
        cfg.node[i].pres_timeout_ns = 1500000;
        cfg.node[i].loss_pres_threshold = 0;
    }
    struct bus *b = booted(&cfg, 2);
    b->cn[1]->faults.vanished = true;
    bus_run(b, b->now + 3 * TAKT_NS_PER_MS + 100000);
    assert_int_equal(b->mn.st.cycle_exceed_hits, 1);
    assert_int_equal(b->mn.state, PLK_NMT_PRE_OPERATIONAL_1);
    b->cn[1]->faults.vanished = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    bus_free(b);
}

static void malformed_pres_counted(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[2].loss_pres_threshold = 0;
    struct bus *b = booted(&cfg, 2);
    b->cn[1]->faults.malformed_permille = 1000;
    uint64_t bad0 = b->mn.st.bad_frames;
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    /* a PRes whose Size runs past the frame is rejected, counted, and the PReq times out */
    assert_in_range(b->mn.st.bad_frames - bad0, 9, 11);
    assert_in_range(b->mn.node[2]->st.bad_frames, 9, 11);
    assert_in_range(b->mn.node[2]->st.pres_lost, 9, 11);
    assert_int_equal(b->mn.node[1]->st.pres_lost, 0);
    bus_free(b);
}

/* A CN whose PRes never come never shows RS, so its SDO replies are never invited:
 * the SDO connection dies, and the MN must notice that (SDO timeout during
 * configuration -> reset) instead of configuring forever. (A PRes after its timeout is
 * late but taken, RS included, as openPOWERLINK's MN takes it.) */
static void dead_sdo_connection_resets_node(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[2].loss_pres_threshold = 0;          /* lost PRes alone never remove it */
    struct bus *b = bus_new(&cfg, 1, 2);
    b->cn[1]->faults.drop_pres_permille = 1000;
    bus_run(b, 3 * TAKT_NS_PER_S);
    struct plk_mn_node *n = b->mn.node[2];
    assert_true(n->st.lost >= 1);
    assert_true(b->mn.st.sdo_fail >= 1);
    assert_int_equal(b->mn.node[1]->step, MNS_OPERATIONAL);
    /* once its PRes come again it boots */
    b->cn[1]->faults.drop_pres_permille = 0;
    assert_true(bus_run_until_op(b, b->now + 10 * TAKT_NS_PER_S));
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_loss_is_counted_not_fatal),
        cmocka_unit_test(two_losses_fire_threshold_and_node_reboots),
        cmocka_unit_test(threshold_zero_disables),
        cmocka_unit_test(dropped_pres_are_all_counted),
        cmocka_unit_test(lost_mandatory_node_resets_network),
        cmocka_unit_test(cycle_time_exceeded_is_counted),
        cmocka_unit_test(cycle_exceed_threshold_sends_mn_to_preop1),
        cmocka_unit_test(malformed_pres_counted),
        cmocka_unit_test(dead_sdo_connection_resets_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
