/* CN core: every NMT transition (DS 301 7.1.4) driven by real frames, PRes and
 * IdentResponse/StatusResponse contents, loss of SoC / PReq with the threshold rule,
 * BasicEthernet, bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/cn_int.h"
#include "plk/frame.h"
#include "plk/nmt_cn.h"

struct fx {
    struct plk_cn cn;
    struct plk_txf buf[8];
    struct plk_txq q;
    uint8_t f[TAKT_FRAME_BUF];
    int flen;
};

static const uint8_t MN_MAC[6] = { 2, 0, 0, 0, 0, 0xF0 };
static const uint8_t CN_MAC[6] = { 2, 0, 0, 0, 1, 7 };

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof *x);
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, 7);
    c.vendor_id = 0x1234;
    assert_int_equal(plk_cn_init(&x->cn, &c, CN_MAC, 0), 0);
    x->q.f = x->buf;
    x->q.cap = 8;
    *state = x;
    return 0;
}
static int teardown(void **state) { free(*state); return 0; }

static void msg(struct plk_msg *m, uint8_t mtyp, uint8_t dst)
{
    memset(m, 0, sizeof *m);
    memcpy(m->src_mac, MN_MAC, 6);
    m->mtyp = mtyp;
    m->dst = dst;
    m->src = PLK_NODE_MN;
}

static void feed(struct fx *x, takt_ns_t t, const struct plk_msg *m)
{
    x->flen = plk_frame_encode(x->f, sizeof x->f, m);
    assert_true(x->flen >= 60);
    x->q.n = 0;
    plk_cn_rx(&x->cn, t, x->f, (size_t)x->flen, &x->q);
}

static void soc(struct fx *x, takt_ns_t t) { struct plk_msg m; msg(&m, PLK_MTYP_SOC, 255); feed(x, t, &m); }
static void soa(struct fx *x, takt_ns_t t, uint8_t svid, uint8_t target)
{
    struct plk_msg m;
    msg(&m, PLK_MTYP_SOA, 255);
    m.u.soa.svid = svid;
    m.u.soa.target = target;
    m.u.soa.epl_version = PLK_EPL_VERSION;
    feed(x, t, &m);
}
static void preq(struct fx *x, takt_ns_t t, bool rd, uint8_t out)
{
    struct plk_msg m;
    msg(&m, PLK_MTYP_PREQ, 7);
    memcpy(m.dst_mac, CN_MAC, 6);
    m.u.preq.flags1 = rd ? PLK_F1_RD : 0;
    m.u.preq.size = 1;
    m.u.preq.payload = &out;
    m.u.preq.payload_limit = 36;
    feed(x, t, &m);
}
static void cmd(struct fx *x, takt_ns_t t, uint8_t dst, uint8_t c)
{
    struct plk_msg m;
    msg(&m, PLK_MTYP_ASND, dst);
    m.u.asnd.svid = PLK_ASND_NMT_COMMAND;
    m.u.asnd.u.nmt_cmd.cmd = c;
    feed(x, t, &m);
}
static int decode_out(struct fx *x, unsigned i, struct plk_msg *m)
{
    char err[96];
    return plk_frame_decode(x->q.f[i].data, x->q.f[i].len, m, err, sizeof err);
}

/* Walk NotActive -> PreOp1 -> PreOp2 -> ReadyToOp -> Operational. */
static void to_operational(struct fx *x, takt_ns_t *t)
{
    soa(x, *t, PLK_SOA_NO_SERVICE, 0);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);           /* NMT_CT2 */
    soc(x, *t += 1000000);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);           /* NMT_CT4 */
    preq(x, *t += 10000, false, 0);
    cmd(x, *t += 10000, 7, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    assert_int_equal(x->cn.state, PLK_NMT_READY_TO_OPERATE);            /* NMT_CT5 */
    soc(x, *t += 1000000);
    preq(x, *t += 10000, false, 0);
    cmd(x, *t += 10000, 7, PLK_NMT_CMD_START_NODE);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);                 /* NMT_CT7 */
}

static void boot_transitions(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
    to_operational(x, &t);
}

static void soc_first_goes_preop1_then_preop2(void **state)
{
    struct fx *x = *state;
    soc(x, 1000);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    soc(x, 2000000);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);
}

static void commands_in_wrong_state_are_ignored(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, PLK_SOA_NO_SERVICE, 0);
    cmd(x, 2000, 7, PLK_NMT_CMD_START_NODE);          /* PreOp1: StartNode means nothing */
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    cmd(x, 3000, 7, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    cmd(x, 4000, 9, PLK_NMT_CMD_RESET_NODE);          /* to another node */
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
}

static void app_not_ready_holds_preop2(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, 0, 0);
    soc(x, 2000);
    x->cn.app_ready = false;
    cmd(x, 3000, 7, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);
}

static void stop_preop2_reset(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    cmd(x, t += 1000, 7, PLK_NMT_CMD_STOP_NODE);
    assert_int_equal(x->cn.state, PLK_NMT_CS_STOPPED);                  /* NMT_CT8 */
    /* Stopped: out of the isochronous phase, a PReq gets no PRes (DS 301 7.1.4.7; the
     * demo CN takes its PRes off the PReq filter), a StatusRequest says Stopped */
    soc(x, t += 1000000);
    preq(x, t += 10000, true, 5);
    assert_int_equal(x->q.n, 0);
    assert_int_equal(x->cn.out[0], 0);   /* outputs not taken either */
    soa(x, t += 10000, PLK_SOA_STATUS_REQUEST, 7);
    struct plk_msg m;
    assert_int_equal(decode_out(x, 0, &m), 0);
    assert_int_equal(m.u.asnd.u.status.nmt_state, PLK_NMT_CS_STOPPED);
    cmd(x, t += 1000, 7, PLK_NMT_CMD_ENTER_PREOP2);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);           /* NMT_CT10 */
    cmd(x, t += 1000, PLK_NODE_BROADCAST, PLK_NMT_CMD_RESET_NODE);
    assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
    /* each reset command, to this node */
    const uint8_t resets[] = { PLK_NMT_CMD_RESET_COMMUNICATION, PLK_NMT_CMD_RESET_CONFIGURATION,
                               PLK_NMT_CMD_SW_RESET };
    for (unsigned i = 0; i < 3; i++) {
        soa(x, t += 1000, 0, 0);
        assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
        /* an SDO connection with a response in flight ... */
        x->cn.sdo.seq.state = PLK_SEQ_VALID;
        x->cn.sdo.seq.hist_n = 1;
        x->cn.sdo.reply_pending = true;
        cmd(x, t += 1000, 7, resets[i]);
        assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
        /* ... ends with the reset: nothing of it is sent again (test_sdo.c) */
        assert_int_equal(x->cn.sdo.seq.state, PLK_SEQ_IDLE);
        assert_int_equal(x->cn.sdo.seq.hist_n, 0);
        assert_false(x->cn.sdo.reply_pending);
    }
}

static void operational_to_preop2(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    cmd(x, t += 1000, 7, PLK_NMT_CMD_ENTER_PREOP2);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);           /* NMT_CT9 */
}

static void pres_contents(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    soa(x, t, 0, 0);
    soc(x, t += 1000000);
    x->cn.in[0] = 0x0B;
    preq(x, t += 10000, false, 0x44);
    assert_int_equal(x->q.n, 1);
    struct plk_msg m;
    assert_int_equal(decode_out(x, 0, &m), 0);
    assert_int_equal(m.mtyp, PLK_MTYP_PRES);
    assert_int_equal(m.src, 7);
    assert_int_equal(m.dst, PLK_NODE_BROADCAST);
    assert_int_equal(m.u.pres.nmt_state, PLK_NMT_PRE_OPERATIONAL_2);
    assert_int_equal(m.u.pres.flags1 & PLK_F1_RD, 0);   /* RD only in Operational */
    /* outputs are not taken before ReadyToOperate */
    assert_int_equal(x->cn.out[0], 0);
    /* PRes goes to the PRes multicast, padded to 24 + PResActPayloadLimit */
    assert_memory_equal(x->q.f[0].data, ((uint8_t[]){ 0x01, 0x11, 0x1E, 0, 0, 2 }), 6);
    assert_int_equal(x->q.f[0].len, 60);
    cmd(x, t += 1000, 7, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    cmd(x, t += 1000, 7, PLK_NMT_CMD_START_NODE);
    soc(x, t += 1000000);
    preq(x, t += 10000, true, 0x44);
    assert_int_equal(decode_out(x, 0, &m), 0);
    assert_true(m.u.pres.flags1 & PLK_F1_RD);
    assert_int_equal(m.u.pres.size, 1);
    assert_int_equal(m.u.pres.payload[0], 0x0B);
    assert_int_equal(x->cn.out[0], 0x44);
    assert_true(x->cn.mn_operational);
    /* PReq for another node: no answer */
    struct plk_msg p;
    msg(&p, PLK_MTYP_PREQ, 8);
    memcpy(p.dst_mac, CN_MAC, 6);
    p.u.preq.payload_limit = 36;
    feed(x, t += 1000, &p);
    assert_int_equal(x->q.n, 0);
}

static void ident_and_status_response(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, PLK_SOA_IDENT_REQUEST, 7);
    assert_int_equal(x->q.n, 1);
    struct plk_msg m;
    assert_int_equal(decode_out(x, 0, &m), 0);
    assert_int_equal(m.mtyp, PLK_MTYP_ASND);
    assert_int_equal(m.u.asnd.svid, PLK_ASND_IDENT_RESPONSE);
    assert_int_equal(x->q.f[0].len, PLK_IRES_LEN);
    const struct plk_ident_response *r = &m.u.asnd.u.ident;
    assert_int_equal(r->nmt_state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(r->vendor_id, 0x1234);
    assert_int_equal(r->device_type, PLK_OPLK_DEMO_DEVICE_TYPE);
    assert_int_equal(r->ip_address, 0xC0A86407);
    assert_true(r->feature_flags & PLK_FEAT_ISOCHR);
    /* an IdentRequest for another node: silence */
    soa(x, 2000, PLK_SOA_IDENT_REQUEST, 8);
    assert_int_equal(x->q.n, 0);
    soa(x, 3000, PLK_SOA_STATUS_REQUEST, 7);
    assert_int_equal(decode_out(x, 0, &m), 0);
    assert_int_equal(m.u.asnd.svid, PLK_ASND_STATUS_RESPONSE);
    assert_int_equal(m.u.asnd.u.status.nmt_state, PLK_NMT_PRE_OPERATIONAL_1);
    /* the wrong-identity fault changes the vendor ID */
    x->cn.faults.wrong_identity = true;
    soa(x, 4000, PLK_SOA_IDENT_REQUEST, 7);
    assert_int_equal(decode_out(x, 0, &m), 0);
    assert_int_not_equal(m.u.asnd.u.ident.vendor_id, 0x1234);
}

static void loss_of_soc_threshold(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    x->cn.cycle_us = 1000;
    x->cn.cfg.soc_tolerance_ns = 100000;
    soc(x, t += 1000000);
    takt_ns_t d = plk_cn_deadline(&x->cn);
    assert_int_equal(d, t + 1000000 + 100000);
    /* first missed SoC: +8 < 15 */
    plk_cn_tick(&x->cn, d, &x->q);
    assert_int_equal(x->cn.st.loss_soc, 1);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
    /* second: 16 >= 15 -> NMT cycle error -> PreOp1 (0x8245) */
    plk_cn_tick(&x->cn, plk_cn_deadline(&x->cn), &x->q);
    assert_int_equal(x->cn.st.loss_soc, 2);
    assert_int_equal(x->cn.st.cycle_errors, 1);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
}

static void loss_of_soc_ignored_in_preop2(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, 0, 0);
    soc(x, 2000);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);
    assert_int_equal(plk_cn_deadline(&x->cn), INT64_MAX);
}

static void loss_of_preq_threshold(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    /* two cycles with SoC but no PReq */
    soc(x, t += 1000000);
    soc(x, t += 1000000);
    assert_int_equal(x->cn.st.loss_preq, 1);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
    soc(x, t += 1000000);
    assert_int_equal(x->cn.st.loss_preq, 2);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
}

static void basic_ethernet(void **state)
{
    struct fx *x = *state;
    takt_ns_t d = plk_cn_deadline(&x->cn);
    assert_int_equal(d, (takt_ns_t)PLK_DEF_BASIC_ETH_TIMEOUT_US * 1000);
    plk_cn_tick(&x->cn, d - 1, &x->q);
    assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
    plk_cn_tick(&x->cn, d, &x->q);
    assert_int_equal(x->cn.state, PLK_NMT_BASIC_ETHERNET);             /* NMT_CT3 */
    /* any POWERLINK frame: back to PreOp1 (NMT_CT12) */
    struct plk_msg m;
    msg(&m, PLK_MTYP_ASND, 255);
    m.u.asnd.svid = PLK_ASND_STATUS_RESPONSE;
    m.src = 3;
    feed(x, d + 1000, &m);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
}

static void transition_table(void **state)
{
    (void)state;
    /* the pure function, for the cases frames cannot reach */
    assert_int_equal(plk_nmt_cn_next(PLK_NMT_GS_INITIALISING, PLK_CN_EV_SOC, 0), PLK_NMT_NOT_ACTIVE);
    assert_int_equal(plk_nmt_cn_next(PLK_NMT_PRE_OPERATIONAL_2, PLK_CN_EV_CYCLE_ERROR, 0),
                     PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(plk_nmt_cn_next(PLK_NMT_READY_TO_OPERATE, PLK_CN_EV_CYCLE_ERROR, 0),
                     PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(plk_nmt_cn_next(PLK_NMT_CS_STOPPED, PLK_CN_EV_CYCLE_ERROR, 0),
                     PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(plk_nmt_cn_next(PLK_NMT_PRE_OPERATIONAL_1, PLK_CN_EV_CYCLE_ERROR, 0),
                     PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(plk_nmt_cn_next(PLK_NMT_BASIC_ETHERNET, PLK_CN_EV_COMMAND,
                                     PLK_NMT_CMD_SW_RESET), PLK_NMT_NOT_ACTIVE);
    assert_string_equal(takt_plk_nmt_name(PLK_NMT_READY_TO_OPERATE), "READY_TO_OPERATE");
}

static void bad_frames_are_counted(void **state)
{
    struct fx *x = *state;
    uint8_t f[64] = { 0 };
    f[12] = 0x88; f[13] = 0xAB; f[14] = 0x04; f[15] = 0xFF; f[16] = 3;
    f[22] = 0xFF; f[23] = 0x7F;   /* PRes Size past the end */
    plk_cn_rx(&x->cn, 1000, f, 60, &x->q);
    assert_int_equal(x->cn.st.bad_frames, 1);
    plk_cn_rx(&x->cn, 1000, f, 10, &x->q);        /* truncated header */
    assert_int_equal(x->cn.st.bad_frames, 2);
    f[12] = 0x08; f[13] = 0x00;                   /* not POWERLINK: ignored, not bad */
    plk_cn_rx(&x->cn, 1000, f, 60, &x->q);
    assert_int_equal(x->cn.st.bad_frames, 2);
    assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(boot_transitions), T(soc_first_goes_preop1_then_preop2),
        T(commands_in_wrong_state_are_ignored), T(app_not_ready_holds_preop2),
        T(stop_preop2_reset), T(operational_to_preop2), T(pres_contents),
        T(ident_and_status_response), T(loss_of_soc_threshold), T(loss_of_soc_ignored_in_preop2),
        T(loss_of_preq_threshold), T(basic_ethernet), T(transition_table), T(bad_frames_are_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
