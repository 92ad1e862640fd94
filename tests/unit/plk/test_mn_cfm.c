/* Configuration date/time check (oplk cfmu.c): with 0x1F26/0x1F27 set, a CN whose
 * 0x1020 (in its IdentResponse) equals them gets only 0x1006; otherwise the download
 * ends with 0x1020/1, /2 and 0x1010/1 "save" (a refused store is accepted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"
#include "plk/od.h"

#define DATE 0x00001234u
#define TIME 0x05265C00u

static uint64_t od(struct plk_cn *cn, uint16_t idx, uint8_t sub)
{
    uint64_t v = 0;
    assert_int_equal(plk_od_get_u64(&cn->od, idx, sub, &v), 0);
    return v;
}

static struct bus *cfm_bus(unsigned n)
{
    struct plk_net_config cfg;
    bus_cfg(&cfg, 2000, 1, n);
    for (unsigned id = 1; id <= n; id++) {
        cfg.node[id].conf_date = DATE;
        cfg.node[id].conf_time = TIME;
        cfg.node[id].cn_loss_soc_threshold = 33;   /* differs from the CN default */
    }
    return bus_new(&cfg, 1, n);
}

static void unchanged_config_is_skipped(void **state)
{
    (void)state;
    struct bus *b = cfm_bus(2);
    /* node 2 already holds this configuration */
    assert_int_equal(plk_od_set_u64(&b->cn[1]->od, PLK_OD_VERIFY_CONF, 1, DATE), 0);
    assert_int_equal(plk_od_set_u64(&b->cn[1]->od, PLK_OD_VERIFY_CONF, 2, TIME), 0);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    struct plk_mn_node *n1 = b->mn.node[1], *n2 = b->mn.node[2];
    assert_int_equal(n2->st.config_skipped, 1);
    assert_string_equal(n2->note, "node 2: configuration unchanged (0x1020 = "
                                  "0x00001234/0x05265C00), download skipped");
    /* only the cycle length went to node 2 */
    assert_int_equal(od(b->cn[1], PLK_OD_CYCLE_LEN, 0), 2000);
    assert_int_equal(od(b->cn[1], PLK_OD_CN_LOSS_SOC, PLK_EC_THRESHOLD), PLK_DEF_ERR_THRESHOLD);
    /* node 1 had none: full download, 0x1020 written; takt's CN has no 0x1010 */
    assert_int_equal(n1->st.config_skipped, 0);
    assert_int_equal(od(b->cn[0], PLK_OD_CN_LOSS_SOC, PLK_EC_THRESHOLD), 33);
    assert_int_equal(od(b->cn[0], PLK_OD_VERIFY_CONF, 1), DATE);
    assert_int_equal(od(b->cn[0], PLK_OD_VERIFY_CONF, 2), TIME);
    assert_int_equal(n1->st.config_stored, 0);
    assert_non_null(strstr(n1->note, "store refused"));
    /* as oplk: NMTResetConfiguration after the download, then identified again and
     * found up to date (not a second download, not a loss); node 2 needed none */
    int rc1 = -1, ready1 = -1, ident_after = -1;
    for (unsigned i = 0; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp == PLK_MTYP_ASND && l->dst == 1 && l->nmt_cmd == PLK_NMT_CMD_RESET_CONFIGURATION)
            rc1 = (int)i;
        if (l->mtyp == PLK_MTYP_ASND && l->dst == 1 && l->nmt_cmd == PLK_NMT_CMD_ENABLE_READY_TO_OP)
            ready1 = (int)i;
        if (rc1 >= 0 && ident_after < 0 && l->mtyp == PLK_MTYP_SOA &&
            l->svid == PLK_SOA_IDENT_REQUEST && l->target == 1)
            ident_after = (int)i;
        assert_false(l->mtyp == PLK_MTYP_ASND && l->dst == 2 &&
                     l->nmt_cmd == PLK_NMT_CMD_RESET_CONFIGURATION);
    }
    assert_true(rc1 >= 0 && ident_after > rc1 && ready1 > ident_after);
    assert_int_equal(n1->st.lost, 0);
    assert_int_equal(n1->st.boots, 1);
    assert_int_equal(n1->st.config_skipped, 0);
    /* the refused store is not a configuration failure */
    assert_int_equal(b->mn.st.sdo_fail, 0);
    bus_free(b);
}

static void rebooted_cn_keeps_its_configuration(void **state)
{
    (void)state;
    struct bus *b = cfm_bus(2);
    /* node 1 can store: the download ends with 0x1010/1 = "save" */
    assert_int_equal(plk_od_add(&b->cn[0]->od, PLK_OD_STORE_PARAM, 1, PLK_OT_U32, PLK_OA_RW, 0), 0);
    assert_int_equal(plk_od_add(&b->cn[0]->od, PLK_OD_RESTORE_PARAM, 1, PLK_OT_U32, PLK_OA_RW, 0), 0);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    struct plk_mn_node *n1 = b->mn.node[1];
    assert_int_equal(n1->st.config_stored, 1);
    assert_int_equal(od(b->cn[0], PLK_OD_STORE_PARAM, 1), 0x65766173u);
    /* the changed configuration started with "load" (restore defaults), as oplk */
    assert_int_equal(od(b->cn[0], PLK_OD_RESTORE_PARAM, 1), 0x64616F6Cu);
    assert_int_equal(b->mn.st.sdo_fail, 0);     /* node 2's refused 0x1011/0x1010 too */
    assert_int_equal(n1->st.config_skipped, 0);
    uint64_t sdo_ok = b->mn.st.sdo_ok;
    /* lose it (no PRes twice): reset, identified again with 0x1020 = expected */
    b->cn[0]->faults.drop_pres_permille = 1000;
    bus_run(b, b->now + 3 * 2 * TAKT_NS_PER_MS);
    b->cn[0]->faults.drop_pres_permille = 0;
    assert_int_equal(n1->st.lost, 1);
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(n1->st.boots, 2);
    assert_int_equal(n1->st.config_skipped, 1);
    assert_int_equal(n1->st.config_stored, 1);
    /* one write (0x1006) for the second boot */
    assert_int_equal(b->mn.st.sdo_ok, sdo_ok + 1);
    bus_free(b);
}

static void changed_date_downloads_again(void **state)
{
    (void)state;
    struct bus *b = cfm_bus(1);
    assert_int_equal(plk_od_set_u64(&b->cn[0]->od, PLK_OD_VERIFY_CONF, 1, DATE - 1), 0);
    assert_int_equal(plk_od_set_u64(&b->cn[0]->od, PLK_OD_VERIFY_CONF, 2, TIME), 0);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    assert_int_equal(b->mn.node[1]->st.config_skipped, 0);
    assert_int_equal(od(b->cn[0], PLK_OD_VERIFY_CONF, 1), DATE);
    assert_int_equal(od(b->cn[0], PLK_OD_CN_LOSS_SOC, PLK_EC_THRESHOLD), 33);
    bus_free(b);
}

static void without_expected_date_no_check(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 1);
    struct bus *b = bus_new(&cfg, 1, 1);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    /* 0x1020 untouched, nothing stored, nothing skipped */
    assert_int_equal(od(b->cn[0], PLK_OD_VERIFY_CONF, 1), 0);
    assert_int_equal(b->mn.node[1]->st.config_skipped, 0);
    assert_int_equal(b->mn.node[1]->st.config_stored, 0);
    assert_int_equal(b->mn.node[1]->note[0], '\0');
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unchanged_config_is_skipped),
        cmocka_unit_test(rebooted_cn_keeps_its_configuration),
        cmocka_unit_test(changed_date_downloads_again),
        cmocka_unit_test(without_expected_date_no_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
