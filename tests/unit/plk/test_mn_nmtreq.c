/* NMTRequests from CNs over the in-process segment: a scripted CN raises RS/PR in its
 * PRes, the MN invites it in priority order, the CN's ASnd NMTRequest is executed
 * (NMT command to another node, info service) or refused with a counted reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_mn_bus.h"

/* What each scripted CN (index) wants to ask for; pr 0 = nothing. */
struct script {
    uint8_t pr[BUS_MAX_CN];
    uint8_t cmd[BUS_MAX_CN], target[BUS_MAX_CN];
    unsigned sent[BUS_MAX_CN];
};

static void raise_rs(struct bus *b, unsigned cn, struct plk_txf *f)
{
    struct script *s = b->hook_ctx;
    if (s->pr[cn] && f->len > PLK_PRES_OFF_FLAGS2 && plk_frame_mtyp(f->data) == PLK_MTYP_PRES)
        f->data[PLK_PRES_OFF_FLAGS2] = (uint8_t)(s->pr[cn] << PLK_F2_PR_SHIFT | 1);
}

/* On SoA(NMTRequestInvite -> scripted CN): its NMTRequest goes out after the turnaround. */
static void answer_invite(struct bus *b, takt_ns_t at, const uint8_t *f, size_t len)
{
    struct script *s = b->hook_ctx;
    if (len < PLK_SOA_LEN || plk_frame_mtyp(f) != PLK_MTYP_SOA ||
        f[PLK_SOA_OFF_SVID] != PLK_SOA_NMT_REQ_INVITE)
        return;
    uint8_t node = f[PLK_SOA_OFF_TARGET];
    if (!PLK_IS_CN(node) || node > b->n_cn || s->pr[node - 1] != PLK_PRIO_NMTRQST)
        return;
    unsigned k = node - 1u;
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, b->cn[k]->mac, 6);
    m.mtyp = PLK_MTYP_ASND;
    m.dst = PLK_NODE_MN;
    m.src = node;
    m.u.asnd.svid = PLK_ASND_NMT_REQUEST;
    m.u.asnd.u.nmt_req.cmd = s->cmd[k];
    m.u.asnd.u.nmt_req.target = s->target[k];
    uint8_t buf[TAKT_FRAME_BUF];
    int n = plk_frame_encode(buf, sizeof buf, &m);
    assert_true(n > 0);
    bus_push(b, at + BUS_TURN_NS + BUS_WIRE_NS, (int)k, buf, (uint16_t)n);
    s->pr[k] = 0;               /* one request each */
    s->sent[k]++;
}

static struct bus *booted(struct script *s, unsigned n)
{
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, n);
    struct bus *b = bus_new(&cfg, 1, n);
    memset(s, 0, sizeof *s);
    b->hook_ctx = s;
    b->cn_hook = raise_rs;
    b->mn_hook = answer_invite;
    assert_true(bus_run_until_op(b, 5 * TAKT_NS_PER_S));
    return b;
}

static void ask(struct script *s, unsigned node, uint8_t pr, uint8_t cmd, uint8_t target)
{
    s->pr[node - 1] = pr;
    s->cmd[node - 1] = cmd;
    s->target[node - 1] = target;
}

/* First log entry at or after `from` matching; -1 if none. */
static int find_log(const struct bus *b, unsigned from, uint8_t mtyp, uint8_t svid_or_cmd,
                    uint8_t dst_or_target)
{
    for (unsigned i = from; i < b->n_log; i++) {
        const struct bus_log *l = &b->log[i];
        if (l->mtyp != mtyp)
            continue;
        if (mtyp == PLK_MTYP_SOA && l->svid == svid_or_cmd && l->target == dst_or_target)
            return (int)i;
        if (mtyp == PLK_MTYP_ASND && l->nmt_cmd == svid_or_cmd && l->dst == dst_or_target)
            return (int)i;
    }
    return -1;
}

static void stop_node_request_executed(void **state)
{
    (void)state;
    struct script s;
    struct bus *b = booted(&s, 3);
    unsigned mark = b->n_log;
    ask(&s, 1, PLK_PRIO_NMTRQST, PLK_NMT_CMD_STOP_NODE, 3);
    bus_run(b, b->now + 20 * TAKT_NS_PER_MS);
    int inv = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_NMT_REQ_INVITE, 1);
    int cmd = find_log(b, mark, PLK_MTYP_ASND, PLK_NMT_CMD_STOP_NODE, 3);
    assert_true(inv >= 0);
    assert_true(cmd > inv);
    assert_int_equal(s.sent[0], 1);
    assert_int_equal(b->mn.st.nmt_requests, 1);
    assert_int_equal(b->mn.st.nmt_requests_done, 1);
    assert_int_equal(b->mn.node[1]->st.nmt_requests, 1);
    assert_int_equal(b->cn[2]->state, PLK_NMT_CS_STOPPED);
    /* stopped on request: out of the cycle, not lost, status-supervised */
    struct plk_mn_node *n3 = b->mn.node[3];
    assert_int_equal(n3->step, MNS_STOPPED);
    assert_false(n3->in_cycle);
    assert_int_equal(n3->st.lost, 0);
    uint64_t lost = n3->st.pres_lost;
    bus_run(b, b->now + 100 * TAKT_NS_PER_MS);
    assert_int_equal(n3->st.pres_lost, lost);
    /* a StatusRequest a few cycles after the command confirmed the stop (not the 5 s
     * StatusRequest round) */
    assert_int_equal(n3->state, PLK_NMT_CS_STOPPED);
    assert_int_equal(b->mn.node[1]->step, MNS_OPERATIONAL);
    assert_int_equal(b->mn.state, PLK_NMT_OPERATIONAL);
    bus_free(b);
}

static void reset_and_preop2_requests_reboot_the_target(void **state)
{
    (void)state;
    struct script s;
    struct bus *b = booted(&s, 3);
    ask(&s, 1, PLK_PRIO_NMTRQST, PLK_NMT_CMD_RESET_NODE, 2);
    ask(&s, 3, PLK_PRIO_NMTRQST, PLK_NMT_CMD_ENTER_PREOP2, 1);
    bus_run(b, b->now + 30 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.st.nmt_requests_done, 2);
    assert_true(find_log(b, 0, PLK_MTYP_ASND, PLK_NMT_CMD_ENTER_PREOP2, 1) >= 0);
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    /* both went through the boot again; neither counts as lost */
    assert_int_equal(b->mn.node[2]->st.boots, 2);
    assert_int_equal(b->mn.node[1]->st.boots, 2);
    assert_int_equal(b->mn.node[2]->st.lost, 0);
    assert_int_equal(b->mn.node[1]->st.lost, 0);
    assert_int_equal(b->cn[0]->state, PLK_NMT_OPERATIONAL);
    bus_free(b);
}

static void refusals_counted_with_reason(void **state)
{
    (void)state;
    struct script s;
    struct bus *b = booted(&s, 3);
    unsigned mark = b->n_log;
    ask(&s, 2, PLK_PRIO_NMTRQST, PLK_NMT_CMD_START_NODE, 77);          /* not configured */
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.nmtreq_refused[PLK_NMTREQ_BAD_TARGET], 1);
    assert_non_null(strstr(b->mn.nmtreq_last, "node 2"));
    assert_non_null(strstr(b->mn.nmtreq_last, "node 77"));
    /* the requester hears NMTInvalidService */
    assert_true(find_log(b, mark, PLK_MTYP_ASND, PLK_NMT_CMD_INVALID_SERVICE, 2) >= 0);
    ask(&s, 2, PLK_PRIO_NMTRQST, PLK_NMT_CMD_NET_HOSTNAME_SET, 3);     /* not executed */
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.nmtreq_refused[PLK_NMTREQ_UNSUPPORTED], 1);
    ask(&s, 2, PLK_PRIO_NMTRQST, PLK_NMT_CMD_ENABLE_READY_TO_OP, 1);   /* MN's own step */
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    assert_int_equal(b->mn.nmtreq_refused[PLK_NMTREQ_BOOT_STEP], 1);
    assert_int_equal(b->mn.st.nmt_requests_refused, 3);
    assert_int_equal(b->mn.st.nmt_requests_done, 0);
    /* nothing was done to the others */
    assert_int_equal(b->mn.st.nodes_operational, 3);
    /* a request from an unconfigured node */
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.mtyp = PLK_MTYP_ASND;
    m.dst = PLK_NODE_MN;
    m.src = 99;
    m.u.asnd.svid = PLK_ASND_NMT_REQUEST;
    m.u.asnd.u.nmt_req.cmd = PLK_NMT_CMD_RESET_NODE;
    m.u.asnd.u.nmt_req.target = 1;
    uint8_t buf[TAKT_FRAME_BUF];
    int n = plk_frame_encode(buf, sizeof buf, &m);
    uint64_t unexpected = b->mn.st.unexpected;
    plk_mn_rx(&b->mn, b->now, buf, (size_t)n, &b->q);
    b->q.n = 0;
    /* no SoA invited it: an answer to nothing, counted and not executed */
    assert_int_equal(b->mn.st.unexpected, unexpected + 1);
    assert_int_equal(b->mn.st.nmt_requests, 3);
    assert_int_equal(b->mn.node[1]->step, MNS_OPERATIONAL);
    bus_free(b);
}

static void info_service_asks_the_target(void **state)
{
    (void)state;
    struct script s;
    struct bus *b = booted(&s, 3);
    unsigned mark = b->n_log;
    ask(&s, 3, PLK_PRIO_NMTRQST, PLK_NMT_CMD_STATUS_RESPONSE, 1);
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    int inv = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_NMT_REQ_INVITE, 3);
    int req = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_STATUS_REQUEST, 1);
    assert_true(inv >= 0);
    assert_true(req > inv);
    mark = b->n_log;
    ask(&s, 3, PLK_PRIO_NMTRQST, PLK_NMT_CMD_IDENT_RESPONSE, 200);   /* any CN may be asked */
    bus_run(b, b->now + 10 * TAKT_NS_PER_MS);
    assert_true(find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_IDENT_REQUEST, 200) >= 0);
    assert_int_equal(b->mn.st.nmt_requests_done, 2);
    bus_free(b);
}

static void nmt_request_invited_before_generic(void **state)
{
    (void)state;
    struct script s;
    struct bus *b = booted(&s, 3);
    unsigned mark = b->n_log;
    /* node 1 asks with a generic priority, node 3 with PR 7 in the same cycle */
    s.pr[0] = PLK_PRIO_GENERIC;
    ask(&s, 3, PLK_PRIO_NMTRQST, PLK_NMT_CMD_STATUS_RESPONSE, 2);
    bus_run(b, b->now + TAKT_NS_PER_MS + 500000);
    int nmt = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_NMT_REQ_INVITE, 3);
    int gen = find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_UNSPEC_INVITE, 1);
    assert_true(nmt >= 0);
    assert_true(gen < 0 || gen > nmt);
    s.pr[0] = 0;
    bus_run(b, b->now + 5 * TAKT_NS_PER_MS);
    assert_true(find_log(b, mark, PLK_MTYP_SOA, PLK_SOA_UNSPEC_INVITE, 1) > nmt);
    bus_free(b);
}

static void network_reset_request_reboots_all(void **state)
{
    (void)state;
    struct script s;
    struct bus *b = booted(&s, 2);
    unsigned mark = b->n_log;
    ask(&s, 2, PLK_PRIO_NMTRQST, PLK_NMT_CMD_RESET_COMMUNICATION, PLK_NODE_BROADCAST);
    bus_run(b, b->now + 5 * TAKT_NS_PER_MS);
    assert_true(find_log(b, mark, PLK_MTYP_ASND, PLK_NMT_CMD_RESET_COMMUNICATION,
                         PLK_NODE_BROADCAST) >= 0);
    /* the requested reset replaces the MN's own NMTResetNode broadcast */
    assert_true(find_log(b, mark, PLK_MTYP_ASND, PLK_NMT_CMD_RESET_NODE, PLK_NODE_BROADCAST) < 0);
    assert_true(bus_run_until_op(b, b->now + 5 * TAKT_NS_PER_S));
    assert_int_equal(b->mn.node[1]->st.boots, 2);
    assert_int_equal(b->mn.node[2]->st.boots, 2);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stop_node_request_executed),
        cmocka_unit_test(reset_and_preop2_requests_reboot_the_target),
        cmocka_unit_test(refusals_counted_with_reason),
        cmocka_unit_test(info_service_asks_the_target),
        cmocka_unit_test(nmt_request_invited_before_generic),
        cmocka_unit_test(network_reset_request_reboots_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
