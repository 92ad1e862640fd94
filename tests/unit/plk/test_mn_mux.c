/* Multiplexed CNs (0x1F98/7, 0x1F9B/n: polled in one cycle of each round, MS in PReq, MC
 * toggled in the SoC, losses counted per own poll) and async-only CNs (never PReq'd,
 * booted and supervised by StatusRequest), over the in-process segment; and both read
 * from takt's text configuration and from a CDC. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"
#include "plk/cdc.h"

/* Nodes 1, 2 continuous; 3 in multiplexed cycle 1, 4 in cycle 2 of a round of 3. */
static struct bus *mux_bus(void)
{
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 4);
    cfg.mux_cycles = 3;
    for (unsigned id = 3; id <= 4; id++) {
        cfg.node[id].multiplexed = true;
        cfg.node[id].assignment |= PLK_NA_MULTIPLEXED;
        cfg.node[id].mux_cycle = (uint8_t)(id - 2);
        /* takt's CN does not yet relax its loss-of-PReq check for multiplexed slots;
         * the MN downloads this before the CN's first multiplexed PReq */
        cfg.node[id].cn_loss_preq_threshold = 0;
    }
    char err[160];
    assert_int_equal(plk_config_check(&cfg, err, sizeof err), 0);
    struct bus *b = bus_new(&cfg, 1, 4);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    return b;
}

static void mux_polled_in_own_cycle(void **state)
{
    (void)state;
    struct bus *b = mux_bus();
    unsigned mark = b->n_log;
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    unsigned preq[5] = { 0 }, socs = 0, mc_changes = 0;
    int last_mc = -1, soc_of_round = -1;
    unsigned soc_idx = 0, slot_ok = 1;
    for (unsigned i = mark; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp == PLK_MTYP_SOC) {
            int mc = (l->flags1 & PLK_F1_MC) != 0;
            if (last_mc >= 0 && mc != last_mc) {
                mc_changes++;
                soc_of_round = 0;   /* a toggle starts a round */
            } else if (soc_of_round >= 0) {
                soc_of_round++;
            }
            last_mc = mc;
            socs++;
            soc_idx++;
        } else if (l->mtyp == PLK_MTYP_PREQ && l->dst >= 1 && l->dst <= 4) {
            preq[l->dst]++;
            bool ms = l->flags1 & PLK_F1_MS;
            assert_int_equal(ms, l->dst >= 3);
            /* node 3 in the first cycle of a round, node 4 in the second */
            if (soc_of_round >= 0 && l->dst >= 3 && soc_of_round % 3 != (int)l->dst - 3)
                slot_ok = 0;
        }
    }
    assert_true(socs >= 29);
    assert_int_equal(preq[1], socs);
    assert_int_equal(preq[2], socs);
    assert_true(preq[3] >= socs / 3 - 1 && preq[3] <= socs / 3 + 1);
    assert_true(preq[4] >= socs / 3 - 1 && preq[4] <= socs / 3 + 1);
    /* MC toggles once per round of 3 */
    assert_true(mc_changes >= socs / 3 - 1 && mc_changes <= socs / 3 + 1);
    assert_true(slot_ok);
    for (unsigned id = 1; id <= 4; id++)
        assert_int_equal(b->mn.node[id]->st.pres_lost, 0);
    /* node 3 was configured (SDO outside the cycle) before its first PReq */
    unsigned sdo_before = 0;
    for (unsigned i = 0; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp == PLK_MTYP_PREQ && l->dst == 3)
            break;
        sdo_before += l->mtyp == PLK_MTYP_ASND && l->svid == PLK_ASND_SDO && l->dst == 3;
    }
    assert_true(sdo_before >= 12);
    bus_free(b);
}

static void mux_losses_per_own_poll(void **state)
{
    (void)state;
    struct bus *b = mux_bus();
    struct plk_mn_node *n3 = b->mn.node[3];
    /* no PRes for one round (it still hears the SoCs): one of its polls is lost */
    b->cn[2]->faults.drop_pres_permille = 1000;
    bus_run(b, b->now + 3 * TAKT_NS_PER_MS);
    b->cn[2]->faults.drop_pres_permille = 0;
    assert_int_equal(n3->st.pres_lost, 1);
    assert_int_equal(n3->loss_pres.thr_cnt, 8);
    /* 3 more rounds = 9 cycles: the threshold counter drops 1 per answered poll (3),
     * not per cycle (which would have emptied it) */
    bus_run(b, b->now + 9 * TAKT_NS_PER_MS);
    assert_int_equal(n3->loss_pres.thr_cnt, 5);
    assert_int_equal(n3->step, MNS_OPERATIONAL);
    /* silent for two rounds: 8 + 8 - 0 >= 15 fires on its second poll (6 cycles) */
    uint64_t lost = n3->st.pres_lost;
    b->cn[2]->faults.drop_pres_permille = 1000;
    bus_run(b, b->now + 6 * TAKT_NS_PER_MS);
    assert_int_equal(n3->st.pres_lost, lost + 2);
    assert_int_equal(n3->st.loss_threshold_hits, 1);
    assert_false(n3->in_cycle);
    b->cn[2]->faults.drop_pres_permille = 0;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(n3->st.boots, 2);
    assert_int_equal(b->mn.node[1]->st.pres_lost, 0);
    bus_free(b);
}

static struct bus *async_bus(void)
{
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    cfg.node[3].async_only = true;
    cfg.node[3].assignment |= PLK_NA_ASYNC_ONLY;
    struct bus *b = bus_new(&cfg, 1, 3);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    return b;
}

static void async_only_booted_without_preq(void **state)
{
    (void)state;
    struct bus *b = async_bus();
    struct plk_mn_node *n3 = b->mn.node[3];
    assert_int_equal(n3->step, MNS_OPERATIONAL);
    assert_int_equal(b->cn[2]->state, PLK_NMT_OPERATIONAL);
    assert_int_equal(b->mn.st.nodes_operational, 3);
    assert_false(n3->in_cycle);
    unsigned status = 0, cmds = 0;
    for (unsigned i = 0; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        assert_false(l->mtyp == PLK_MTYP_PREQ && l->dst == 3);
        status += l->mtyp == PLK_MTYP_SOA && l->svid == PLK_SOA_STATUS_REQUEST && l->target == 3;
        cmds += l->mtyp == PLK_MTYP_ASND && l->dst == 3 &&
                (l->nmt_cmd == PLK_NMT_CMD_ENABLE_READY_TO_OP || l->nmt_cmd == PLK_NMT_CMD_START_NODE);
    }
    assert_true(status >= 2);
    assert_int_equal(cmds, 2);
    /* its configuration went through SDO like the others' */
    assert_int_equal(b->mn.st.sdo_fail, 0);
    assert_true(b->mn.st.sdo_ok >= 3 * 12);
    bus_free(b);
}

static void count_types(struct bus *b, takt_ns_t at, const uint8_t *f, size_t len)
{
    (void)at;
    unsigned *count = b->hook_ctx;
    if (len > PLK_OFF_MTYP)
        count[plk_frame_mtyp(f) & 15]++;
}

static void async_only_supervised_by_status(void **state)
{
    (void)state;
    struct bus *b = async_bus();
    struct plk_mn_node *n3 = b->mn.node[3];
    /* StatusRequest every C_NMT_STATREQ_CYCLE (5 s); two unanswered (+8 +8 >= 15) */
    b->cn[2]->faults.vanished = true;
    unsigned count[16] = { 0 };
    bus_run(b, b->next_cycle - 1);      /* count whole cycles: SoC ... SoA */
    b->hook_ctx = count;
    b->mn_hook = count_types;
    bus_run(b, b->next_cycle + 16000 * b->mn.cycle_ns - 1);
    assert_int_equal(n3->st.status_lost, 2);
    /* every cycle kept its SoA, also the one in which the node was found lost */
    assert_int_equal(count[PLK_MTYP_SOC], 16000);
    assert_int_equal(count[PLK_MTYP_SOA], 16000);
    b->mn_hook = NULL;
    assert_int_equal(n3->st.loss_threshold_hits, 1);
    assert_int_equal(n3->st.lost, 1);
    assert_int_equal(b->mn.node[1]->step, MNS_OPERATIONAL);
    b->cn[2]->faults.vanished = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(n3->st.boots, 2);
    bus_free(b);
}

static void config_text_and_cdc(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    char err[200];
    const char *good = "[network]\ncycle_us = 1000\nmultiplexed_cycles = 4\n"
                       "[node 1]\n[node 2]\nmultiplexed = yes\nmux_cycle = 4\n"
                       "[node 3]\nasync_only = yes\n";
    assert_int_equal(plk_config_parse(&cfg, good, strlen(good), err, sizeof err), 0);
    assert_int_equal(cfg.mux_cycles, 4);
    assert_true(cfg.node[2].multiplexed);
    assert_true(cfg.node[2].assignment & PLK_NA_MULTIPLEXED);
    assert_int_equal(cfg.node[2].mux_cycle, 4);
    assert_true(cfg.node[3].async_only);
    /* round trip through the writer */
    char txt[8192];
    int n = plk_config_format(&cfg, txt, sizeof txt);
    assert_true(n > 0);
    struct plk_net_config cfg2;
    assert_int_equal(plk_config_parse(&cfg2, txt, (size_t)n, err, sizeof err), 0);
    assert_int_equal(cfg2.node[2].mux_cycle, 4);
    assert_int_equal(cfg2.mux_cycles, 4);
    /* the CN's DCF carries the round length */
    uint8_t dcf[512];
    int dl = plk_config_node_dcf(&cfg, 2, dcf, sizeof dcf);
    assert_true(dl > 0);
    struct plk_cdc c;
    assert_int_equal(plk_cdc_parse(&c, dcf, (size_t)dl, err, sizeof err), 0);
    struct plk_cdc_entry e;
    assert_int_equal(plk_cdc_find(&c, PLK_OD_CYCLE_TIMING, PLK_CT_MULT_CYCLE_CNT, &e), 0);
    assert_int_equal(e.data[0], 4);

    const char *bad_slot = "[network]\nmultiplexed_cycles = 4\n[node 2]\nmultiplexed = yes\n"
                           "mux_cycle = 5\n";
    assert_int_equal(plk_config_parse(&cfg, bad_slot, strlen(bad_slot), err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "node 2"));
    assert_non_null(strstr(err, "0x1F9B"));
    const char *no_round = "[node 2]\nmultiplexed = yes\nmux_cycle = 1\n";
    assert_int_equal(plk_config_parse(&cfg, no_round, strlen(no_round), err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "0x1F98/7"));
    const char *both = "[network]\npres_mn = yes\nmultiplexed_cycles = 2\n[node 2]\n"
                       "multiplexed = yes\nmux_cycle = 1\nchained = yes\n";
    assert_int_equal(plk_config_parse(&cfg, both, strlen(both), err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "multiplexed"));

    /* the same from a CDC: 0x1F81 bits, 0x1F98/7 (U8), 0x1F9B/n (U8) */
    uint8_t b[512];
    int u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_NODE_ASSIGNMENT, 1, 0x80000007u, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_NODE_ASSIGNMENT, 2, 0x80000207u, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_NODE_ASSIGNMENT, 3, 0x80000107u, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_CYCLE_TIMING, PLK_CT_MULT_CYCLE_CNT, 3, 1);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_MN_MULT_CYCLE_ASSIGN, 2, 2, 1);
    assert_true(u > 0);
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), 0);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), 0);
    assert_int_equal(cfg.mux_cycles, 3);
    assert_true(cfg.node[2].multiplexed);
    assert_int_equal(cfg.node[2].mux_cycle, 2);
    assert_true(cfg.node[3].async_only);
    assert_false(cfg.node[1].multiplexed || cfg.node[1].async_only);
    /* a wrong size is named */
    u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_NODE_ASSIGNMENT, 2, 0x80000207u, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, PLK_OD_MN_MULT_CYCLE_ASSIGN, 2, 2, 4);
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), 0);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "0x1F9B/2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mux_polled_in_own_cycle),
        cmocka_unit_test(mux_losses_per_own_poll),
        cmocka_unit_test(async_only_booted_without_preq),
        cmocka_unit_test(async_only_supervised_by_status),
        cmocka_unit_test(config_text_and_cdc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
