/* A CN answers only the current request (DS 301 4.2.4: a PRes answers the PReq of this
 * cycle, an ASnd the SoA of this cycle). The core, fed by hand with receive stamps and
 * hand-over times, drops requests whose cycle has ended or that a later SoC closed;
 * the CN host, fed a backlog that queued while it could not run, answers at most the
 * newest request. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/driver.h"
#include "plk/frame.h"

#define ID 7
#define CYCLE_NS (50 * TAKT_NS_PER_MS)   /* the CN's power-on 0x1006 */

static const uint8_t MN_MAC[6] = { 2, 0, 0, 0, 0, 0xF0 };
static const uint8_t CN_MAC[6] = { 2, 0, 0, 0, 1, ID };

/* Frames from the MN, encoded: SoC, PReq to ID, SoA(svid -> ID). */
static int enc(uint8_t *f, uint8_t mtyp, uint8_t svid)
{
    struct plk_msg m;
    uint8_t out = 0x5A;
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, MN_MAC, 6);
    m.mtyp = mtyp;
    m.src = PLK_NODE_MN;
    m.dst = PLK_NODE_BROADCAST;
    if (mtyp == PLK_MTYP_PREQ) {
        m.dst = ID;
        memcpy(m.dst_mac, CN_MAC, 6);
        m.u.preq.size = 1;
        m.u.preq.payload = &out;
        m.u.preq.payload_limit = PLK_PAYLOAD_LIMIT_MIN;
    } else if (mtyp == PLK_MTYP_SOA) {
        m.u.soa.svid = svid;
        m.u.soa.target = svid ? ID : 0;
        m.u.soa.epl_version = PLK_EPL_VERSION;
    }
    int n = plk_frame_encode(f, TAKT_FRAME_BUF, &m);
    assert_true(n >= 60);
    return n;
}

struct fx {
    struct plk_cn cn;
    struct plk_txf buf[8];
    struct plk_txq q;
};

static void fx_init(struct fx *x)
{
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, ID);
    assert_int_equal(plk_cn_init(&x->cn, &c, CN_MAC, 0), 0);
    x->q = (struct plk_txq){ .f = x->buf, .cap = 8 };
}

/* Hand frame (mtyp, svid) to the core, received at ts, handed over at now; returns
 * how many frames it queued. */
static unsigned give(struct fx *x, takt_ns_t now, takt_ns_t ts, bool closed, uint8_t mtyp, uint8_t svid)
{
    uint8_t f[TAKT_FRAME_BUF];
    int n = enc(f, mtyp, svid);
    x->q.n = 0;
    plk_cn_rx_at(&x->cn, now, ts, closed, f, (size_t)n, &x->q);
    return x->q.n;
}

/* A CN in PreOp2 (two SoCs), current frames answered. */
static void to_preop2(struct fx *x, takt_ns_t *t)
{
    give(x, *t, *t, false, PLK_MTYP_SOC, 0);
    *t += CYCLE_NS;
    give(x, *t, *t, false, PLK_MTYP_SOC, 0);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);
}

/* The core's rule, at the edges of the cycle: a PReq and an IdentRequest handed over
 * within their cycle are answered; at the cycle's end (0x1006 after the SoC) or once a
 * later MN frame closed them, they are not, and each is counted. */
static void core_answers_only_the_current_request(void **state)
{
    (void)state;
    struct fx *x = calloc(1, sizeof *x);
    fx_init(x);
    takt_ns_t t = 10 * TAKT_NS_PER_S;
    to_preop2(x, &t);

    /* this cycle: SoC at t; a PReq 20 us later, handed over at the last ns before the
     * guard (the cycle's last eighth) */
    t += CYCLE_NS;
    give(x, t, t, false, PLK_MTYP_SOC, 0);
    takt_ns_t edge = t + CYCLE_NS - CYCLE_NS / 8;
    assert_int_equal(give(x, edge - 1, t + 20000, false, PLK_MTYP_PREQ, 0), 1);
    assert_int_equal(plk_frame_mtyp(x->buf[0].data), PLK_MTYP_PRES);
    assert_true(x->buf[0].until == edge);       /* and it may not leave later than that */
    assert_int_equal(x->cn.st.stale_dropped, 0);
    /* the same at the guard: not answered */
    assert_int_equal(give(x, edge, t + 20000, false, PLK_MTYP_PREQ, 0), 0);
    assert_int_equal(x->cn.st.stale_dropped, 1);
    /* in time, but the host already holds the next SoC */
    assert_int_equal(give(x, t + 30000, t + 20000, true, PLK_MTYP_PREQ, 0), 0);
    assert_int_equal(x->cn.st.stale_dropped, 2);
    /* IdentRequest of this cycle: answered; 3 s old: not */
    assert_int_equal(give(x, t + 400000, t + 300000, false, PLK_MTYP_SOA, PLK_SOA_IDENT_REQUEST), 1);
    assert_int_equal(give(x, t + 3 * TAKT_NS_PER_S, t + 300000, false, PLK_MTYP_SOA,
                          PLK_SOA_IDENT_REQUEST), 0);
    assert_int_equal(x->cn.st.stale_dropped, 3);
    /* a stale PReq still counts as received (it came in its cycle: no loss of PReq) */
    assert_int_equal(x->cn.st.preq_rx, 3);
    free(x);
}

/* PreOp1 has SoA-only cycles: with no SoC in the last cycle, the SoA opens its own. */
static void core_preop1_invite_by_its_own_time(void **state)
{
    (void)state;
    struct fx *x = calloc(1, sizeof *x);
    fx_init(x);
    takt_ns_t t = 10 * TAKT_NS_PER_S;
    assert_int_equal(give(x, t, t, false, PLK_MTYP_SOA, PLK_SOA_NO_SERVICE), 0);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(give(x, t + 5 * TAKT_NS_PER_MS, t + TAKT_NS_PER_MS, false, PLK_MTYP_SOA,
                          PLK_SOA_IDENT_REQUEST), 1);
    assert_int_equal(give(x, t + TAKT_NS_PER_S, t + 2 * TAKT_NS_PER_MS, false, PLK_MTYP_SOA,
                          PLK_SOA_IDENT_REQUEST), 0);
    assert_int_equal(x->cn.st.stale_dropped, 1);
    free(x);
}

/* --- the CN host over the mem link ------------------------------------------------ */
struct clk { takt_ns_t t; };
static takt_ns_t clk_now(void *ctx) { return ((struct clk *)ctx)->t; }

static void mn_send(struct takt_link *l, uint8_t mtyp, uint8_t svid)
{
    uint8_t f[TAKT_FRAME_BUF];
    int n = enc(f, mtyp, svid);
    struct takt_frame fr = { .data = f, .len = (uint16_t)n };
    assert_int_equal(takt_link_send(l, &fr, 1), 1);
}

/* What queued while the CN could not run: 60 cycles of SoC, PReq, SoA(IdentRequest)
 * stamped 3 s to 50 ms ago, then this cycle's SoC and PReq. The host answers this
 * cycle's PReq and nothing else: one PRes, no IdentResponse. Before, it answered the
 * backlog (58 PRes after reaching PreOp2, 60 IdentResponses). */
static void host_answers_only_the_newest_request(void **state)
{
    (void)state;
    struct clk ck;
    struct takt_link *mn_l, *cn_l;
    assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l, 512, clk_now, &ck), 0);
    takt_ns_t now = takt_now();
    for (int k = 60; k >= 1; k--) {
        ck.t = now - k * CYCLE_NS;
        mn_send(mn_l, PLK_MTYP_SOC, 0);
        ck.t += 20000;
        mn_send(mn_l, PLK_MTYP_PREQ, 0);
        ck.t += 200000;
        mn_send(mn_l, PLK_MTYP_SOA, PLK_SOA_IDENT_REQUEST);
    }
    ck.t = takt_now();
    mn_send(mn_l, PLK_MTYP_SOC, 0);
    mn_send(mn_l, PLK_MTYP_PREQ, 0);

    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, ID);
    struct takt_plk_cn *cn;
    char err[128];
    assert_int_equal(takt_plk_cn_create(&c, &cn, err, sizeof err), 0);
    /* the host runs 200 ms of real time (everything is queued already; a host stall
     * of 15 ms still leaves this cycle's PReq well within its 50 ms cycle) */
    struct takt_plk_run_opts o = { .duration = 200 * TAKT_NS_PER_MS };
    takt_rt_opts_default(&o.rt);
    o.rt.prio = 0;
    o.rt.mlock = false;
    o.rt.dma_latency = false;
    assert_int_equal(takt_plk_cn_run(cn, cn_l, &o), 0);

    unsigned pres = 0, ident = 0;
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame fr = { .data = buf, .cap = sizeof buf };
    while (takt_link_recv(mn_l, &fr, 1, 0) == 1) {
        pres += plk_frame_mtyp(buf) == PLK_MTYP_PRES;
        ident += plk_frame_mtyp(buf) == PLK_MTYP_ASND;
    }
    assert_int_equal(ident, 0);
    assert_int_equal(pres, 1);
    const struct plk_cn *core = (const struct plk_cn *)(const void *)cn;
    assert_int_equal(core->st.pres_tx, 1);
    assert_true(core->st.stale_dropped >= 60 + 58);
    takt_plk_cn_destroy(cn);
    takt_link_close(mn_l);
    takt_link_close(cn_l);
}

/* The core answered in time, then the host could not run before the send: the answer
 * whose cycle ended meanwhile is not sent, and counted stale by its CN; the one still
 * in its cycle is. The clock is the host's own, read at the send. */
static void host_drops_an_answer_past_its_cycle(void **state)
{
    (void)state;
    struct fx *x = calloc(1, sizeof *x);
    struct plk_cn_host *h = calloc(1, sizeof *h);
    assert_non_null(x);
    assert_non_null(h);
    fx_init(x);
    struct takt_link *mn_l, *cn_l;
    assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l, 16, NULL, NULL), 0);
    struct plk_cn *cns[1] = { &x->cn };
    assert_int_equal(plk_cn_host_init(h, cns, 1, cn_l), 0);
    takt_ns_t t = takt_now();
    to_preop2(x, &t);
    /* two PRes queued: one whose cycle ended a millisecond ago, one with 40 ms left */
    give(x, t + 20000, t + 20000, false, PLK_MTYP_PREQ, 0);
    assert_int_equal(x->q.n, 1);
    h->q.f[0] = x->buf[0];
    h->q.f[0].until = takt_now() - TAKT_NS_PER_MS;
    h->q.f[1] = x->buf[0];
    h->q.f[1].until = takt_now() + 40 * TAKT_NS_PER_MS;
    h->q.f[1].data[h->q.f[1].len - 1] = 0x55;   /* told apart on the wire (its padding) */
    h->q.n = 2;
    uint64_t stale = x->cn.st.stale_dropped;
    plk_cn_host_dispatch(h);
    assert_int_equal(h->q.n, 0);
    assert_int_equal(h->expired, 1);
    assert_int_equal(x->cn.st.stale_dropped, stale + 1);
    assert_int_equal(h->tx_frames, 1);
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame fr = { .data = buf, .cap = sizeof buf };
    assert_int_equal(takt_link_recv(mn_l, &fr, 1, 0), 1);
    assert_int_equal(plk_frame_mtyp(buf), PLK_MTYP_PRES);
    assert_int_equal(buf[fr.len - 1], 0x55);
    assert_int_equal(takt_link_recv(mn_l, &fr, 1, 0), 0);
    takt_link_close(mn_l);
    takt_link_close(cn_l);
    plk_cn_free(&x->cn);
    free(h);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(core_answers_only_the_current_request),
        cmocka_unit_test(core_preop1_invite_by_its_own_time),
        cmocka_unit_test(host_answers_only_the_newest_request),
        cmocka_unit_test(host_drops_an_answer_past_its_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
