/* CN against openPOWERLINK's MN (demo_mn_console V2.7.2), with the bytes it sent in
 * scripts/interop/plk-openpowerlink.sh: error signaling initialisation (ER -> EC) and
 * the StatusResponse size its statusu.c accepts (C_DLL_MINSIZE_STATUSRES = 72). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/cn_int.h"
#include "plk/frame.h"

/* SoA(StatusRequest -> 1) from openPOWERLINK's MN in MS_PRE_OPERATIONAL_1, 54 bytes
 * (it sends SoA without padding); byte 18 is Flag1: 0x02 = ER set. */
static const uint8_t OPLK_SOA_STATREQ_ER1[54] = {
    0x01, 0x11, 0x1e, 0x00, 0x00, 0x03, 0x6e, 0xc6, 0xc3, 0x71, 0x03, 0xfb, 0x88, 0xab,
    0x05, 0xff, 0xf0, 0x1d, 0x02, 0x00, 0x02, 0x01, 0x20,
};
static const uint8_t OPLK_SOA_STATREQ_ER0[54] = {
    0x01, 0x11, 0x1e, 0x00, 0x00, 0x03, 0x6e, 0xc6, 0xc3, 0x71, 0x03, 0xfb, 0x88, 0xab,
    0x05, 0xff, 0xf0, 0x1d, 0x00, 0x00, 0x02, 0x01, 0x20,
};
/* The first StatusResponse of openPOWERLINK's demo CN after power-on (72 bytes, all
 * further bytes zero): Flag1 0x08 = EC, NMT state 0x1D = PreOp1. */
static const uint8_t OPLK_CN_SRES_HEAD[21] = {
    0x01, 0x11, 0x1e, 0x00, 0x00, 0x04, 0x7a, 0x61, 0xfc, 0x65, 0xe0, 0x3d, 0x88, 0xab,
    0x06, 0xff, 0x01, 0x02, 0x08, 0x00, 0x1d,
};

struct fx {
    struct plk_cn cn;
    struct plk_txf buf[4];
    struct plk_txq q;
};

static const uint8_t CN_MAC[6] = { 0x7a, 0x61, 0xfc, 0x65, 0xe0, 0x3d };

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof *x);
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, 1);
    assert_int_equal(plk_cn_init(&x->cn, &c, CN_MAC, 0), 0);
    x->q.f = x->buf;
    x->q.cap = 4;
    *state = x;
    return 0;
}
static int teardown(void **state) { free(*state); return 0; }

/* Feed one frame; return the StatusResponse's Flag1 (asserting there is exactly one). */
static uint8_t status_flag1(struct fx *x, takt_ns_t t, const uint8_t *f, size_t len)
{
    x->q.n = 0;
    plk_cn_rx(&x->cn, t, f, len, &x->q);
    assert_int_equal(x->q.n, 1);
    struct plk_msg m;
    char err[96];
    assert_int_equal(plk_frame_decode(x->q.f[0].data, x->q.f[0].len, &m, err, sizeof err), 0);
    assert_int_equal(m.u.asnd.svid, PLK_ASND_STATUS_RESPONSE);
    return m.u.asnd.u.status.flags1;
}

static void status_response_as_oplk_cn(void **state)
{
    struct fx *x = *state;
    x->q.n = 0;
    plk_cn_rx(&x->cn, 1000, OPLK_SOA_STATREQ_ER1, sizeof OPLK_SOA_STATREQ_ER1, &x->q);
    assert_int_equal(x->q.n, 1);
    /* shorter than 72 bytes, openPOWERLINK's MN counts it as no answer and resets the
     * CN with E_NMT_NO_STATUS_RES (found with the real MN) */
    assert_int_equal(x->q.f[0].len, 72);
    assert_memory_equal(x->q.f[0].data, OPLK_CN_SRES_HEAD, 6);          /* ASnd multicast */
    assert_memory_equal(x->q.f[0].data + 12, OPLK_CN_SRES_HEAD + 12, sizeof OPLK_CN_SRES_HEAD - 12);
    for (unsigned i = sizeof OPLK_CN_SRES_HEAD; i < 72; i++)
        assert_int_equal(x->q.f[0].data[i], 0);
}

static void exception_reset_handshake(void **state)
{
    struct fx *x = *state;
    /* ER=1: EC=1, also when asked again (the MN needs two EC=1 answers) */
    assert_int_equal(status_flag1(x, 1000, OPLK_SOA_STATREQ_ER1, 54), PLK_F1_EC);
    assert_int_equal(status_flag1(x, 2000, OPLK_SOA_STATREQ_ER1, 54), PLK_F1_EC);
    /* ER back to 0: Flag1 cleared, the MN's error signaling is ready */
    assert_int_equal(status_flag1(x, 3000, OPLK_SOA_STATREQ_ER0, 54), 0);
    assert_int_equal(status_flag1(x, 4000, OPLK_SOA_STATREQ_ER0, 54), 0);
    /* a new ER=1 (the MN restarts error signaling) sets EC again */
    assert_int_equal(status_flag1(x, 5000, OPLK_SOA_STATREQ_ER1, 54), PLK_F1_EC);
}

static void ec_after_reset_node(void **state)
{
    struct fx *x = *state;
    assert_int_equal(status_flag1(x, 1000, OPLK_SOA_STATREQ_ER1, 54), PLK_F1_EC);
    assert_int_equal(status_flag1(x, 2000, OPLK_SOA_STATREQ_ER0, 54), 0);
    /* NMTResetNode: DLL forgets the MN's ER (oplk dllknode_setupLocalNode), so the
     * MN's fresh ER=1 for the re-found node is a change and answered with EC=1 */
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.mtyp = PLK_MTYP_ASND;
    m.dst = 1;
    m.src = PLK_NODE_MN;
    m.u.asnd.svid = PLK_ASND_NMT_COMMAND;
    m.u.asnd.u.nmt_cmd.cmd = PLK_NMT_CMD_RESET_NODE;
    uint8_t f[TAKT_FRAME_BUF];
    int n = plk_frame_encode(f, sizeof f, &m);
    assert_true(n >= 60);
    x->q.n = 0;
    plk_cn_rx(&x->cn, 3000, f, (size_t)n, &x->q);
    assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
    assert_int_equal(status_flag1(x, 4000, OPLK_SOA_STATREQ_ER1, 54), PLK_F1_EC);
}

/* cn-early (docs/interop.md): with its own async buffer stuck the MN resends its last
 * SoA unchanged, so node 1 sees the same StatusRequest twice in a row. DS 301: a SoA
 * addressed to the CN is answered, every time; a StatusRequest to another node is not. */
static void resent_status_request_answered_each_time(void **state)
{
    struct fx *x = *state;
    assert_int_equal(status_flag1(x, 1000, OPLK_SOA_STATREQ_ER0, 54), PLK_F1_EC);
    assert_int_equal(status_flag1(x, 1050, OPLK_SOA_STATREQ_ER0, 54), PLK_F1_EC);
    assert_int_equal(x->cn.st.status_tx, 2);
    uint8_t other[54];
    memcpy(other, OPLK_SOA_STATREQ_ER0, sizeof other);
    other[21] = 32;   /* RequestedServiceTarget */
    x->q.n = 0;
    plk_cn_rx(&x->cn, 2000, other, sizeof other, &x->q);
    assert_int_equal(x->q.n, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(status_response_as_oplk_cn), T(exception_reset_handshake), T(ec_after_reset_node),
        T(resent_status_request_answered_each_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
