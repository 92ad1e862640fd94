/* MN + CNs in one process with deterministic time: the boot-up sequence on the wire
 * (DS 301 / openPOWERLINK order), cyclic exchange, mandatory and late nodes,
 * identity check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"
#include "util/wire.h"

static int find_log(const struct bus *b, unsigned from, uint8_t mtyp, int svid, int target, int cmd)
{
    for (unsigned i = from; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp != mtyp)
            continue;
        if (svid >= 0 && l->svid != svid)
            continue;
        if (target >= 0 && (mtyp == PLK_MTYP_SOA ? l->target : l->dst) != target)
            continue;
        if (cmd >= 0 && l->nmt_cmd != cmd)
            continue;
        return (int)i;
    }
    return -1;
}

static void boot_three_nodes_in_order(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct bus *b = bus_new(&cfg, 1, 3);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    assert_int_equal(b->mn.state, PLK_NMT_OPERATIONAL);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(b->cn[i]->state, PLK_NMT_OPERATIONAL);
        assert_int_equal(b->mn.node[i + 1]->st.boots, 1);
    }
    /* wire order: SoA only first (no SoC in PreOp1), then the NMTResetNode broadcast,
     * IdentRequests, first SoC, StatusRequest, SDO, EnableReadyToOperate, StartNode */
    int first_soc = find_log(b, 0, PLK_MTYP_SOC, -1, -1, -1);
    int reset = find_log(b, 0, PLK_MTYP_ASND, PLK_ASND_NMT_COMMAND, PLK_NODE_BROADCAST,
                         PLK_NMT_CMD_RESET_NODE);
    assert_true(first_soc > 10);
    assert_true(reset >= 10 && reset < first_soc);
    for (int n = 1; n <= 3; n++) {
        int ident = find_log(b, (unsigned)reset, PLK_MTYP_SOA, PLK_SOA_IDENT_REQUEST, n, -1);
        int status = find_log(b, (unsigned)first_soc, PLK_MTYP_SOA, PLK_SOA_STATUS_REQUEST, n, -1);
        int preq = find_log(b, 0, PLK_MTYP_PREQ, -1, n, -1);
        int sdo = find_log(b, 0, PLK_MTYP_ASND, PLK_ASND_SDO, n, -1);
        int enable = find_log(b, 0, PLK_MTYP_ASND, PLK_ASND_NMT_COMMAND, n,
                              PLK_NMT_CMD_ENABLE_READY_TO_OP);
        int start = find_log(b, 0, PLK_MTYP_ASND, PLK_ASND_NMT_COMMAND, n, PLK_NMT_CMD_START_NODE);
        assert_true(ident > reset && ident < first_soc);
        assert_true(status > first_soc);
        assert_true(preq > status);
        assert_true(sdo > preq);
        assert_true(enable > sdo);
        assert_true(start > enable);
    }
    /* SoA carries the MN's state: 0x1D before the first SoC, then 0x5D, 0x6D, 0xFD */
    assert_int_equal(b->log[0].state, PLK_NMT_PRE_OPERATIONAL_1);
    bool saw_ready = false;
    for (unsigned i = 0; i < b->n_log; i++)
        if (b->log[i].mtyp == PLK_MTYP_SOA && b->log[i].state == PLK_NMT_READY_TO_OPERATE)
            saw_ready = true;
    assert_true(saw_ready);
    /* configuration arrived: cycle length and thresholds in the CN's OD */
    assert_int_equal(b->cn[0]->cycle_us, 1000);
    assert_int_equal(plk_od_u32(&b->cn[0]->od, PLK_OD_CYCLE_LEN, 0, 0), 1000);
    assert_int_equal(b->mn.st.sdo_fail, 0);
    bus_free(b);
}

static void cyclic_exchange(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 10, 3);
    struct bus *b = bus_new(&cfg, 10, 3);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    for (unsigned i = 0; i < 3; i++) {
        b->mn.node[10 + i]->out[0] = (uint8_t)(0x50 + i);
        b->cn[i]->in[0] = (uint8_t)(0xA0 + i);
    }
    uint64_t ok0 = b->mn.node[10]->st.pres_ok;
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(b->cn[i]->out[0], 0x50 + i);
        assert_int_equal(b->mn.node[10 + i]->in[0], 0xA0 + i);
        assert_int_equal(b->mn.node[10 + i]->st.pres_lost, 0);
        assert_true(b->cn[i]->mn_operational);
    }
    /* one PRes per node per cycle: 20 cycles */
    assert_in_range(b->mn.node[10]->st.pres_ok - ok0, 19, 21);
    assert_int_equal(b->mn.st.cycle_exceeded, 0);
    assert_true(b->mn.node[10]->st.pres_lat_max < 50000);
    bus_free(b);
}

static void mandatory_node_holds_preop1(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[2].mandatory = true;
    struct bus *b = bus_new(&cfg, 1, 2);
    b->cn[1]->faults.vanished = true;
    bus_run(b, 2 * TAKT_NS_PER_S);
    /* without its mandatory CN the MN stays in PreOp1: no SoC at all */
    assert_int_equal(b->mn.state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(find_log(b, 0, PLK_MTYP_SOC, -1, -1, -1), -1);
    b->cn[1]->faults.vanished = false;
    assert_true(bus_run_until_op(b, 8 * TAKT_NS_PER_S));
    bus_free(b);
}

static void optional_node_joins_late(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);
    struct bus *b = bus_new(&cfg, 1, 3);
    b->cn[2]->faults.vanished = true;
    bus_run(b, 3 * TAKT_NS_PER_S);
    /* optional node missing: the MN goes Operational with the others */
    assert_int_equal(b->mn.state, PLK_NMT_OPERATIONAL);
    assert_int_equal(b->mn.st.nodes_operational, 2);
    assert_int_equal(b->mn.node[3]->step, MNS_UNIDENT);
    /* it keeps being asked for (IdentRequest in the async slot of the running cycle) */
    int late_ident = find_log(b, b->n_log / 2, PLK_MTYP_SOA, PLK_SOA_IDENT_REQUEST, 3, -1);
    assert_true(late_ident > 0);
    uint64_t lost1 = b->mn.node[1]->st.pres_lost;
    b->cn[2]->faults.vanished = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(b->mn.node[3]->st.boots, 1);
    /* the others ran on undisturbed */
    assert_int_equal(b->mn.node[1]->st.pres_lost, lost1);
    assert_int_equal(b->mn.node[1]->st.boots, 1);
    bus_free(b);
}

static void wrong_identity_is_refused(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    cfg.node[2].vendor_id = 0;
    cfg.node[2].vendor_check = true;
    struct bus *b = bus_new(&cfg, 1, 2);
    b->cn[1]->faults.wrong_identity = true;
    bus_run(b, 3 * TAKT_NS_PER_S);
    assert_true(b->mn.node[2]->st.ident_fail > 0);
    assert_int_equal(b->mn.node[2]->step, MNS_UNIDENT);
    assert_false(b->mn.node[2]->in_cycle);
    assert_int_equal(b->mn.node[1]->step, MNS_OPERATIONAL);
    /* the right device on that node ID is then accepted */
    b->cn[1]->faults.wrong_identity = false;
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    bus_free(b);
}

static void user_sdo_read_write(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    struct bus *b = bus_new(&cfg, 1, 2);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    struct plk_mn_user_sdo *u = &b->mn.usdo;
    memset(u, 0, sizeof *u);
    u->node = 2;
    u->index = PLK_OD_IDENTITY;
    u->sub = 3;
    u->state = 1;
    bus_run(b, b->now + 200 * TAKT_NS_PER_MS);
    assert_int_equal(u->state, 3);
    assert_int_equal(u->result, 0);
    assert_int_equal(u->len, 4);
    assert_int_equal(get_le32(u->data), 0x00020007);
    /* write an application object and see it in the CN */
    memset(u, 0, sizeof *u);
    u->node = 2;
    u->write = true;
    u->index = PLK_OD_CN_LOSS_SOC;
    u->sub = PLK_EC_THRESHOLD;
    put_le32(u->data, 99);
    u->len = 4;
    u->state = 1;
    bus_run(b, b->now + 200 * TAKT_NS_PER_MS);
    assert_int_equal(u->state, 3);
    assert_int_equal(u->result, 0);
    assert_int_equal(b->cn[1]->loss_soc.threshold, 99);
    /* a missing object aborts with 0x06020000 */
    memset(u, 0, sizeof *u);
    u->node = 1;
    u->index = 0x5FFF;
    u->state = 1;
    bus_run(b, b->now + 200 * TAKT_NS_PER_MS);
    assert_int_equal(u->state, 3);
    assert_int_equal(u->result, -TAKT_ESDOABORT);
    assert_int_equal(u->abort_code, 0x06020000);
    bus_free(b);
}

static void segmented_sdo_through_mn(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    struct bus *b = bus_new(&cfg, 1, 2);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    struct plk_mn_user_sdo *u = &b->mn.usdo;
    /* 700 bytes into the CN's DOMAIN 0x2000: more than one segment each way */
    memset(u, 0, sizeof *u);
    u->node = 1;
    u->write = true;
    u->index = 0x2000;
    for (unsigned i = 0; i < 700; i++)
        u->data[i] = (uint8_t)(i * 7 + 3);
    u->len = 700;
    u->state = 1;
    bus_run(b, b->now + 500 * TAKT_NS_PER_MS);
    assert_int_equal(u->state, 3);
    assert_int_equal(u->result, 0);
    const struct plk_od_entry *e = plk_od_find(&b->cn[0]->od, 0x2000, 0);
    assert_non_null(e);
    assert_int_equal(e->size, 700);
    assert_int_equal(e->data[699], (uint8_t)(699 * 7 + 3));
    memset(u, 0, sizeof *u);
    u->node = 1;
    u->index = 0x2000;
    u->state = 1;
    bus_run(b, b->now + 500 * TAKT_NS_PER_MS);
    assert_int_equal(u->state, 3);
    assert_int_equal(u->result, 0);
    assert_int_equal(u->len, 700);
    for (unsigned i = 0; i < 700; i++)
        assert_int_equal(u->data[i], (uint8_t)(i * 7 + 3));
    /* the string object */
    memset(u, 0, sizeof *u);
    u->node = 2;
    u->index = 0x1008;
    u->state = 1;
    bus_run(b, b->now + 200 * TAKT_NS_PER_MS);
    assert_int_equal(u->result, 0);
    assert_memory_equal(u->data, "takt simulated CN", 17);
    /* the cycle ran on meanwhile */
    assert_int_equal(b->mn.node[1]->st.pres_lost, 0);
    bus_free(b);
}

static void another_mn_keeps_not_active(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 1);
    struct bus *b = bus_new(&cfg, 1, 1);
    /* a SoA from another MN every 10 ms: 0x1F89/1 (20 ms here) never runs out */
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.mtyp = PLK_MTYP_SOA;
    m.dst = PLK_NODE_BROADCAST;
    m.src = PLK_NODE_MN;
    m.u.soa.epl_version = PLK_EPL_VERSION;
    uint8_t f[64];
    int len = plk_frame_encode(f, sizeof f, &m);
    assert_true(len >= 60);
    for (int i = 0; i < 10; i++) {
        bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
        plk_mn_rx(&b->mn, b->now, f, (size_t)len, &b->q);
    }
    assert_int_equal(b->mn.state, PLK_NMT_NOT_ACTIVE);
    assert_int_equal(b->mn.st.other_mn_frames, 10);
    assert_int_equal(b->n_log, 0);   /* silent while the other MN runs */
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.state, PLK_NMT_PRE_OPERATIONAL_1);
    bus_free(b);
}

static void generic_ethernet_in_async_slot(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 2);
    struct bus *b = bus_new(&cfg, 1, 2);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    /* an IPv4-typed frame of 100 bytes, queued as takt_plk_mn_send_eth does */
    memset(b->mn.eth.data, 0xEE, 100);
    b->mn.eth.data[12] = 0x08;
    b->mn.eth.data[13] = 0x00;
    b->mn.eth.len = 100;
    b->mn.eth.state = 1;
    unsigned from = b->n_log;
    bus_run(b, b->now + 3 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.eth.state, 0);
    assert_int_equal(b->mn.st.async_eth_tx, 1);
    /* announced by SoA(UnspecifiedInvite -> 240) */
    bool soa240 = false;
    for (unsigned i = from; i < b->n_log; i++)
        if (b->log[i].mtyp == PLK_MTYP_SOA && b->log[i].svid == PLK_SOA_UNSPEC_INVITE &&
            b->log[i].target == PLK_NODE_MN)
            soa240 = true;
    assert_true(soa240);
    /* CNs ignore it and the cycle runs on */
    assert_int_equal(b->cn[0]->st.bad_frames, 0);
    assert_int_equal(b->mn.node[1]->st.pres_lost, 0);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boot_three_nodes_in_order),
        cmocka_unit_test(cyclic_exchange),
        cmocka_unit_test(mandatory_node_holds_preop1),
        cmocka_unit_test(optional_node_joins_late),
        cmocka_unit_test(wrong_identity_is_refused),
        cmocka_unit_test(user_sdo_read_write),
        cmocka_unit_test(segmented_sdo_through_mn),
        cmocka_unit_test(another_mn_keeps_not_active),
        cmocka_unit_test(generic_ethernet_in_async_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
