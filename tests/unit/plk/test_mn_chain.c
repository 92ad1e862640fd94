/* PollResponse Chaining (EPSG DS 302-C) over the in-process segment: chained CNs
 * are set up by SyncRequest, get their outputs from one PResMN and answer at their
 * configured offsets; polled CNs are mixed in the same cycle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"

static void chain_cfg(struct plk_net_config *cfg)
{
    bus_cfg(cfg, 1000, 1, 4);
    /* nodes 2 and 3 chained, 1 and 4 polled */
    cfg->node[2].chained = cfg->node[3].chained = true;
    cfg->node[2].pres_time_first_ns = 20000;
    cfg->node[3].pres_time_first_ns = 40000;
    cfg->pres_mn = true;
}

static void chained_and_polled_reach_operational(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    chain_cfg(&cfg);
    struct bus *b = bus_new(&cfg, 1, 4);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    assert_true(b->mn.node[2]->chain_active);
    assert_true(b->mn.node[3]->chain_active);
    assert_false(b->mn.node[1]->chain_active);
    assert_true(b->cn[1]->chained);
    assert_true(b->cn[2]->chained);
    assert_false(b->cn[0]->chained);
    /* the SyncRequest carried each node's PResTimeFirst */
    assert_int_equal(b->cn[1]->pres_time_first_ns, 20000);
    assert_int_equal(b->cn[2]->pres_time_first_ns, 40000);
    /* their parts of the PResMN are at the configured offsets (0x1600/1 bit offset) */
    assert_int_equal(b->cn[1]->out_offset, 0);
    assert_int_equal(b->cn[2]->out_offset, 1);
    bus_free(b);
}

static void one_cycle_on_the_wire(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    chain_cfg(&cfg);
    struct bus *b = bus_new(&cfg, 1, 4);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    unsigned from = b->n_log;
    uint64_t launched0 = b->launched_pres;
    bus_run(b, b->now + 2 * TAKT_NS_PER_MS + 500000);
    /* SoC, PReq 1, PReq 4, PResMN, SoA: no PReq to the chained nodes */
    int soc = -1, pres_mn = -1, soa = -1, preq1 = -1, preq4 = -1;
    for (unsigned i = from; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp == PLK_MTYP_SOC && soc >= 0) break;   /* one cycle only */
        if (l->mtyp == PLK_MTYP_SOC && soc < 0) soc = (int)i;
        if (soc < 0) continue;
        if (l->mtyp == PLK_MTYP_PREQ) {
            assert_true(l->dst == 1 || l->dst == 4);
            if (l->dst == 1) preq1 = (int)i;
            if (l->dst == 4) preq4 = (int)i;
        }
        if (l->mtyp == PLK_MTYP_PRES && l->src == PLK_NODE_MN && pres_mn < 0) pres_mn = (int)i;
        if (l->mtyp == PLK_MTYP_SOA && soa < 0) soa = (int)i;
    }
    assert_true(soc >= 0 && preq1 > soc && preq4 > preq1 && pres_mn > preq4 && soa > pres_mn);
    /* both chained PRes were sent at their launch time after the PResMN */
    assert_in_range(b->launched_pres - launched0, 4, 6);   /* 2 per cycle */
    assert_int_equal(b->log[pres_mn].state, PLK_NMT_OPERATIONAL);
    bus_free(b);
}

static void chained_data_exchange(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    chain_cfg(&cfg);
    struct bus *b = bus_new(&cfg, 1, 4);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    for (unsigned id = 1; id <= 4; id++) {
        b->mn.node[id]->out[0] = (uint8_t)(0x10 * id);
        b->cn[id - 1]->in[0] = (uint8_t)(0x0F - id);
    }
    uint64_t ok2 = b->mn.node[2]->st.pres_ok;
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    for (unsigned id = 1; id <= 4; id++) {
        assert_int_equal(b->cn[id - 1]->out[0], 0x10 * id);
        assert_int_equal(b->mn.node[id]->in[0], 0x0F - id);
        assert_int_equal(b->mn.node[id]->st.pres_lost, 0);
    }
    assert_in_range(b->mn.node[2]->st.pres_ok - ok2, 9, 11);
    /* the chained PRes latency is measured from the PResMN: about PResTimeFirst */
    assert_true(b->mn.node[3]->st.pres_lat_max >= 40000);
    assert_true(b->mn.node[3]->st.pres_lat_max < 40000 + 20000);
    bus_free(b);
}

static void lost_chained_node_counted_and_rebooted(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    chain_cfg(&cfg);
    struct bus *b = bus_new(&cfg, 1, 4);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    b->cn[2]->faults.vanished = true;
    bus_run(b, b->now + 3 * TAKT_NS_PER_MS);
    struct plk_mn_node *n = b->mn.node[3];
    assert_int_equal(n->st.pres_lost, 2);
    assert_int_equal(n->st.loss_threshold_hits, 1);
    assert_false(n->in_cycle);
    assert_false(n->chain_active);
    /* the other chained node and the polled ones lose nothing */
    assert_int_equal(b->mn.node[2]->st.pres_lost, 0);
    assert_int_equal(b->mn.node[1]->st.pres_lost, 0);
    b->cn[2]->faults.vanished = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_true(n->chain_active);
    assert_int_equal(n->st.boots, 2);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chained_and_polled_reach_operational),
        cmocka_unit_test(one_cycle_on_the_wire),
        cmocka_unit_test(chained_data_exchange),
        cmocka_unit_test(lost_chained_node_counted_and_rebooted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
