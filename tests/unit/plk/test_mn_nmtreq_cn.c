/* NMTRequests between takt's MN and takt's own CNs (plk_cn_request_nmt) over the
 * in-process segment: PR 7/RS in the CN's PRes, SoA(NMTRequestInvite), the CN's ASnd
 * NMTRequest, the MN executing or refusing it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"

static struct bus *booted(unsigned n)
{
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, n);
    struct bus *b = bus_new(&cfg, 1, n);
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    return b;
}

static int find_log(const struct bus *b, unsigned from, uint8_t mtyp, uint8_t what, uint8_t who)
{
    for (unsigned i = from; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp != mtyp)
            continue;
        if (mtyp == PLK_MTYP_SOA && l->svid == what && l->target == who)
            return (int)i;
        if (mtyp == PLK_MTYP_ASND && l->nmt_cmd == what && l->dst == who)
            return (int)i;
    }
    return -1;
}

static void cn_stops_another_cn(void **state)
{
    (void)state;
    struct bus *b = booted(3);
    unsigned mark = b->n_log;
    assert_int_equal(plk_cn_request_nmt(b->cn[0], PLK_NMT_CMD_STOP_NODE, 3, NULL, 0), 0);
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    int inv = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_NMT_REQ_INVITE, 1);
    int cmd = find_log(b, mark, PLK_MTYP_ASND, PLK_NMT_CMD_STOP_NODE, 3);
    assert_true(inv >= 0 && cmd > inv);
    assert_int_equal(b->mn.st.nmt_requests_done, 1);
    assert_int_equal(b->cn[2]->state, PLK_NMT_CS_STOPPED);
    assert_int_equal(b->mn.node[3]->step, MNS_STOPPED);
    assert_int_equal(b->mn.node[3]->st.lost, 0);
    /* and brings it back: EnterPreOperational2, then the MN configures and starts it */
    assert_int_equal(plk_cn_request_nmt(b->cn[0], PLK_NMT_CMD_ENTER_PREOP2, 3, NULL, 0), 0);
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(b->mn.node[3]->st.boots, 2);
    assert_int_equal(b->cn[2]->state, PLK_NMT_OPERATIONAL);
    bus_free(b);
}

static void cn_asks_status_of_another(void **state)
{
    (void)state;
    struct bus *b = booted(3);
    unsigned mark = b->n_log;
    assert_int_equal(plk_cn_request_nmt(b->cn[1], PLK_NMT_CMD_STATUS_RESPONSE, 1, NULL, 0), 0);
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    int inv = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_NMT_REQ_INVITE, 2);
    int req = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_STATUS_REQUEST, 1);
    assert_true(inv >= 0 && req > inv);
    bus_free(b);
}

static void two_queued_requests_and_a_refusal(void **state)
{
    (void)state;
    struct bus *b = booted(3);
    unsigned mark = b->n_log;
    assert_int_equal(plk_cn_request_nmt(b->cn[1], PLK_NMT_CMD_START_NODE, 99, NULL, 0), 0);
    assert_int_equal(plk_cn_request_nmt(b->cn[1], PLK_NMT_CMD_IDENT_RESPONSE, 3, NULL, 0), 0);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.st.nmt_requests, 2);
    assert_int_equal(b->mn.st.nmt_requests_refused, 1);
    assert_int_equal(b->mn.nmtreq_refused[PLK_NMTREQ_BAD_TARGET], 1);
    assert_int_equal(b->mn.st.nmt_requests_done, 1);
    assert_true(find_log(b, mark, PLK_MTYP_ASND, PLK_NMT_CMD_INVALID_SERVICE, 2) >= 0);
    assert_true(find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_IDENT_REQUEST, 3) >= 0);
    /* the network runs on */
    assert_int_equal(b->mn.st.nodes_operational, 3);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cn_stops_another_cn),
        cmocka_unit_test(cn_asks_status_of_another),
        cmocka_unit_test(two_queued_requests_and_a_refusal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
