/* CN side of NMTRequests (DS 301 7.3.6) and of error signaling (DS 301 6.5): PR/RS in
 * PRes and StatusResponse, ASnd NMTRequest on SoA(NMTRequestInvite), the queue draining,
 * 0x1F9F, the hand-over from another thread, loss-of-SoC/PReq history entries, and the
 * public API over the in-process link with a scripted MN. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plk/cn.h"
#include "plk/cn_int.h"
#include "plk/frame.h"
#include "util/wire.h"

struct fx {
    struct plk_cn cn;
    struct plk_txf buf[8];
    struct plk_txq q;
    uint8_t f[TAKT_FRAME_BUF];
};

static const uint8_t MN_MAC[6] = { 2, 0, 0, 0, 0, 0xF0 };
static const uint8_t CN_MAC[6] = { 2, 0, 0, 0, 1, 7 };

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof *x);
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, 7);
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
    int n = plk_frame_encode(x->f, sizeof x->f, m);
    assert_true(n >= 60);
    x->q.n = 0;
    plk_cn_rx(&x->cn, t, x->f, (size_t)n, &x->q);
}
static void soc(struct fx *x, takt_ns_t t)
{
    struct plk_msg m;
    msg(&m, PLK_MTYP_SOC, 255);
    m.u.soc.nettime_s = 0x11223344;
    m.u.soc.nettime_ns = 500;
    feed(x, t, &m);
}
static void soa(struct fx *x, takt_ns_t t, uint8_t svid, uint8_t target, uint8_t flags1)
{
    struct plk_msg m;
    msg(&m, PLK_MTYP_SOA, 255);
    m.u.soa.svid = svid;
    m.u.soa.target = target;
    m.u.soa.flags1 = flags1;
    m.u.soa.epl_version = PLK_EPL_VERSION;
    feed(x, t, &m);
}
static void preq(struct fx *x, takt_ns_t t, uint8_t flags1)
{
    struct plk_msg m;
    uint8_t out = 0;
    msg(&m, PLK_MTYP_PREQ, 7);
    memcpy(m.dst_mac, CN_MAC, 6);
    m.u.preq.flags1 = flags1;
    m.u.preq.size = 1;
    m.u.preq.payload = &out;
    m.u.preq.payload_limit = 36;
    feed(x, t, &m);
}
static void cmd(struct fx *x, takt_ns_t t, uint8_t c)
{
    struct plk_msg m;
    msg(&m, PLK_MTYP_ASND, 7);
    m.u.asnd.svid = PLK_ASND_NMT_COMMAND;
    m.u.asnd.u.nmt_cmd.cmd = c;
    feed(x, t, &m);
}
static void out(struct fx *x, unsigned i, struct plk_msg *m)
{
    char err[96];
    assert_true(i < x->q.n);
    assert_int_equal(plk_frame_decode(x->q.f[i].data, x->q.f[i].len, m, err, sizeof err), 0);
}
/* PRes of this cycle: flags1, flags2 */
static void pres_flags(struct fx *x, takt_ns_t t, uint8_t *f1, uint8_t *f2)
{
    struct plk_msg m;
    preq(x, t, 0);
    assert_int_equal(x->q.n, 1);
    out(x, 0, &m);
    assert_int_equal(m.mtyp, PLK_MTYP_PRES);
    *f1 = m.u.pres.flags1;
    *f2 = m.u.pres.flags2;
}

static void to_operational(struct fx *x, takt_ns_t *t)
{
    soa(x, *t, PLK_SOA_NO_SERVICE, 0, 0);
    soc(x, *t += 1000000);
    preq(x, *t += 10000, 0);
    cmd(x, *t += 10000, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    soc(x, *t += 1000000);
    preq(x, *t += 10000, 0);
    cmd(x, *t += 10000, PLK_NMT_CMD_START_NODE);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
}

/* Two requests: PRes says PR 7 / RS 2, each NMTRequestInvite to us takes one, foreign
 * invites take none, and the flags fall to 0 when the queue is empty. */
static void nmt_requests_announced_and_drained(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    uint8_t f1, f2;
    pres_flags(x, t += 10000, &f1, &f2);
    assert_int_equal(f2, 0);
    const uint8_t nodes[2] = { 0x00, 0x02 };   /* StopNodeEx bit-field: node 9 */
    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_STOP_NODE_EX, 255, nodes, 2), 0);
    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_RESET_NODE, 9, NULL, 0), 0);
    pres_flags(x, t += 10000, &f1, &f2);
    assert_int_equal(f2, PLK_PRIO_NMTRQST << PLK_F2_PR_SHIFT | 2);

    soa(x, t += 10000, PLK_SOA_NMT_REQ_INVITE, 8, 0);   /* another node's invite */
    assert_int_equal(x->q.n, 0);
    soa(x, t += 10000, PLK_SOA_NMT_REQ_INVITE, 7, 0);
    assert_int_equal(x->q.n, 1);
    struct plk_msg m;
    out(x, 0, &m);
    assert_int_equal(m.mtyp, PLK_MTYP_ASND);
    assert_int_equal(m.dst, PLK_NODE_MN);
    assert_int_equal(m.src, 7);
    assert_int_equal(m.u.asnd.svid, PLK_ASND_NMT_REQUEST);
    assert_int_equal(m.u.asnd.u.nmt_req.cmd, PLK_NMT_CMD_STOP_NODE_EX);
    assert_int_equal(m.u.asnd.u.nmt_req.target, 255);
    assert_int_equal(x->q.f[0].data[PLK_NMTREQ_OFF_DATA + 1], 0x02);   /* the bit-field */
    /* ASnd multicast 01-11-1E-00-00-04 (EPSG DS 301 addressing), 60 bytes */
    assert_int_equal(x->q.f[0].data[5], 0x04);
    assert_int_equal(x->q.f[0].len, 60);

    pres_flags(x, t += 10000, &f1, &f2);
    assert_int_equal(f2, PLK_PRIO_NMTRQST << PLK_F2_PR_SHIFT | 1);
    soa(x, t += 10000, PLK_SOA_NMT_REQ_INVITE, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.nmt_req.cmd, PLK_NMT_CMD_RESET_NODE);
    assert_int_equal(m.u.asnd.u.nmt_req.target, 9);
    pres_flags(x, t += 10000, &f1, &f2);
    assert_int_equal(f2, 0);
    /* an invite with nothing queued sends nothing */
    soa(x, t += 10000, PLK_SOA_NMT_REQ_INVITE, 7, 0);
    assert_int_equal(x->q.n, 0);
    assert_int_equal(x->cn.st.nmtreq_queued, 2);
    assert_int_equal(x->cn.st.nmtreq_tx, 2);
}

/* StatusResponse and IdentResponse carry the same PR/RS; an UnspecifiedInvite sends the
 * NMT request (PR 7) before the SDO reply (PR 3), which then shows PR 3 / RS 1. */
static void status_response_and_priority_over_sdo(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, PLK_SOA_NO_SERVICE, 0, 0);   /* PreOp1 */
    /* an SDO InitReq from the MN (sequence layer: send con 1) leaves an InitAck pending */
    static const uint8_t init_req[4] = { 0x00, 0x01, 0x00, 0x00 };
    struct plk_msg m;
    msg(&m, PLK_MTYP_ASND, 7);
    m.u.asnd.svid = PLK_ASND_SDO;
    m.u.asnd.u.raw.data = init_req;
    m.u.asnd.u.raw.len = sizeof init_req;
    feed(x, 2000, &m);
    soa(x, 3000, PLK_SOA_STATUS_REQUEST, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.status.flags2, PLK_PRIO_GENERIC << PLK_F2_PR_SHIFT | 1);

    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_PUBLISH_NODE_STATES, 240, NULL, 0), 0);
    soa(x, 4000, PLK_SOA_STATUS_REQUEST, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.status.nmt_state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(m.u.asnd.u.status.flags2, PLK_PRIO_NMTRQST << PLK_F2_PR_SHIFT | 1);
    soa(x, 5000, PLK_SOA_IDENT_REQUEST, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.ident.flags2, PLK_PRIO_NMTRQST << PLK_F2_PR_SHIFT | 1);

    soa(x, 6000, PLK_SOA_UNSPEC_INVITE, 7, 0);
    assert_int_equal(x->q.n, 1);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.svid, PLK_ASND_NMT_REQUEST);
    assert_int_equal(m.u.asnd.u.nmt_req.cmd, PLK_NMT_CMD_PUBLISH_NODE_STATES);
    soa(x, 7000, PLK_SOA_STATUS_REQUEST, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.status.flags2, PLK_PRIO_GENERIC << PLK_F2_PR_SHIFT | 1);
    soa(x, 8000, PLK_SOA_UNSPEC_INVITE, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.svid, PLK_ASND_SDO);
}

/* What the CN refuses to queue, what a reset drops, and the MN's NMTInvalidService. */
static void refusals_and_reset(void **state)
{
    struct fx *x = *state;
    /* NotActive: the CN may not send */
    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_RESET_NODE, 9, NULL, 0), -EAGAIN);
    soa(x, 1000, PLK_SOA_NO_SERVICE, 0, 0);
    uint8_t big[33] = { 0 };
    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_RESET_NODE_EX, 255, big, 33), -EINVAL);
    assert_int_equal(plk_cn_request_nmt(&x->cn, 0, 9, NULL, 0), -EINVAL);
    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_INVALID_SERVICE, 9, NULL, 0), -EINVAL);
    for (unsigned i = 0; i < PLK_CN_NMTREQ_MAX; i++)
        assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_STOP_NODE, 9, NULL, 0), 0);
    assert_int_equal(plk_cn_request_nmt(&x->cn, PLK_NMT_CMD_STOP_NODE, 9, NULL, 0), -ENOSPC);
    /* the MN's answer to a request it cannot execute */
    cmd(x, 2000, PLK_NMT_CMD_INVALID_SERVICE);
    assert_int_equal(x->cn.st.nmtreq_refused, 1);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    /* NMTResetNode: the queue is forgotten (DS 301 7.1.2) and counted */
    cmd(x, 3000, PLK_NMT_CMD_RESET_NODE);
    assert_int_equal(x->cn.state, PLK_NMT_NOT_ACTIVE);
    assert_int_equal(x->cn.n_nmtreq, 0);
    assert_int_equal(x->cn.st.nmtreq_dropped, PLK_CN_NMTREQ_MAX);
}

/* 0x1F9F NMT_RequestCmd_REC written over SDO: Release (sub 1) queues CmdID/CmdTarget/
 * CmdData and reads back 0. */
static void request_by_od_0x1f9f(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, PLK_SOA_NO_SERVICE, 0, 0);
    uint32_t abort = 0;
    uint8_t v = PLK_NMT_CMD_ENTER_PREOP2_EX, tgt = 255, one = 1;
    const uint8_t bits[4] = { 0, 0x80, 0, 0 };   /* node 15 */
    assert_int_equal(plk_od_write(&x->cn.od, 0x1F9F, 2, &v, 1, &abort), 0);
    assert_int_equal(plk_od_write(&x->cn.od, 0x1F9F, 3, &tgt, 1, &abort), 0);
    assert_int_equal(plk_od_write(&x->cn.od, 0x1F9F, 4, bits, 4, &abort), 0);
    assert_int_equal(x->cn.n_nmtreq, 0);
    assert_int_equal(plk_od_write(&x->cn.od, 0x1F9F, 1, &one, 1, &abort), 0);
    assert_int_equal(x->cn.n_nmtreq, 1);
    assert_int_equal(x->cn.nmtreq[0].cmd, PLK_NMT_CMD_ENTER_PREOP2_EX);
    assert_int_equal(x->cn.nmtreq[0].target, 255);
    assert_int_equal(x->cn.nmtreq[0].data_len, 4);
    assert_int_equal(x->cn.nmtreq[0].data[1], 0x80);
    uint64_t rel = 1;
    assert_int_equal(plk_od_get_u64(&x->cn.od, 0x1F9F, 1, &rel), 0);
    assert_int_equal(rel, 0);
}

/* From other threads: requests go into the CN's command ring, any number of posters
 * at once, taken in their order at the next frame or timer; a full ring refuses at once
 * (-EAGAIN) and loses nothing it accepted. */
static void handover_from_another_thread(void **state)
{
    struct fx *x = *state;
    soa(x, 1000, PLK_SOA_NO_SERVICE, 0, 0);
    assert_int_equal(plk_cn_post_nmt_request(&x->cn, PLK_NMT_CMD_RESET_NODE, 3, NULL, 0), 0);
    assert_int_equal(plk_cn_post_nmt_request(&x->cn, PLK_NMT_CMD_RESET_NODE, 4, NULL, 0), 0);
    assert_int_equal(x->cn.n_nmtreq, 0);
    soa(x, 2000, PLK_SOA_NO_SERVICE, 0, 0);
    assert_int_equal(x->cn.n_nmtreq, 2);
    assert_int_equal(x->cn.nmtreq[0].target, 3);
    assert_int_equal(x->cn.nmtreq[1].target, 4);
    assert_int_equal(plk_cn_post_nmt_request(&x->cn, PLK_NMT_CMD_RESET_NODE, 5, NULL, 0), 0);
    plk_cn_tick(&x->cn, 3000, &x->q);   /* timers take it too */
    assert_int_equal(x->cn.n_nmtreq, 3);
    assert_int_equal(x->cn.nmtreq[2].target, 5);
    for (unsigned i = 0; i < PLK_CN_NMTREQ_RING; i++)
        assert_int_equal(plk_cn_post_nmt_request(&x->cn, PLK_NMT_CMD_RESET_NODE, 6, NULL, 0), 0);
    assert_int_equal(plk_cn_post_nmt_request(&x->cn, PLK_NMT_CMD_RESET_NODE, 7, NULL, 0), -EAGAIN);
    uint64_t dropped = x->cn.st.nmtreq_dropped;
    plk_cn_tick(&x->cn, 4000, &x->q);
    /* one more fits the core's queue of 4; the other 7 are dropped there and counted */
    assert_int_equal(x->cn.n_nmtreq, PLK_CN_NMTREQ_MAX);
    assert_int_equal(x->cn.st.nmtreq_dropped, dropped + PLK_CN_NMTREQ_RING - 1);
}

/* Loss of SoC past the threshold (+8/-1, 0x1C0B/3 = 15): NMT cycle error -> PreOp1 and
 * a history entry 0x8245 in the StatusResponse with EN toggled, kept until the MN's EA
 * matches EN after a StatusResponse carried it. 0x1C0B/1,2 read the live counters. */
static void loss_of_soc_signals_history_entry(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    x->cn.cycle_us = 1000;
    soc(x, t += 1000000);
    uint8_t f1, f2;
    pres_flags(x, t += 10000, &f1, &f2);
    assert_int_equal(f1 & PLK_F1_EN, 0);
    plk_cn_tick(&x->cn, plk_cn_deadline(&x->cn), &x->q);
    plk_cn_tick(&x->cn, plk_cn_deadline(&x->cn), &x->q);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(x->cn.st.err_entries, 1);

    memset(x->buf[0].data, 0xEE, sizeof x->buf[0].data);   /* a slot's old contents */
    soa(x, t += 3000000, PLK_SOA_STATUS_REQUEST, 7, 0);
    struct plk_msg m;
    out(x, 0, &m);
    for (unsigned i = PLK_SRES_OFF_HISTORY + PLK_SRES_ENTRY_LEN; i < PLK_SRES_MIN_LEN; i++)
        assert_int_equal(x->q.f[0].data[i], 0);   /* the terminator entry */
    const struct plk_status_response *s = &m.u.asnd.u.status;
    assert_true(s->flags1 & PLK_F1_EN);
    assert_int_equal(s->n_entries, 1);
    assert_int_equal(s->entries[0].code, PLK_E_DLL_LOSS_SOC_TH);
    assert_int_equal(s->entries[0].type, 0x3002);   /* history, occurred, POWERLINK */
    assert_int_equal(s->entries[0].time, 0x11223344u | (uint64_t)500 << 32);
    assert_int_equal(x->q.f[0].len, PLK_SRES_MIN_LEN);   /* 32 + 20 + terminator */
    /* EA != EN: not acknowledged, still there */
    soa(x, t += 1000, PLK_SOA_STATUS_REQUEST, 7, 0);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.status.n_entries, 1);
    /* EA == EN: the MN has read them */
    soa(x, t += 1000, PLK_SOA_STATUS_REQUEST, 7, PLK_F1_EA);
    out(x, 0, &m);
    assert_int_equal(m.u.asnd.u.status.n_entries, 0);
    assert_true(m.u.asnd.u.status.flags1 & PLK_F1_EN);

    /* the counters as an SDO read sees them */
    plk_cn_od_sync_errcnt(&x->cn);
    assert_int_equal(plk_od_u32(&x->cn.od, 0x1C0B, 1, 0), 2);
    assert_int_equal(plk_od_u32(&x->cn.od, 0x1C0B, 2, 99), 0);   /* reset when it fired */
    assert_int_equal(plk_od_u32(&x->cn.od, 0x1C0B, 3, 0), 15);
    /* the MN resets the cumulative count and sets a higher threshold */
    uint32_t abort = 0;
    uint8_t zero[4] = { 0 }, thr[4] = { 80, 0, 0, 0 };
    assert_int_equal(plk_od_write(&x->cn.od, 0x1C0B, 1, zero, 4, &abort), 0);
    assert_int_equal(plk_od_write(&x->cn.od, 0x1C0B, 3, thr, 4, &abort), 0);
    assert_int_equal(x->cn.loss_soc.cumulative, 0);
    assert_int_equal(x->cn.loss_soc.threshold, 80);
}

/* Loss of PReq: 0x8242 once the threshold fires; a threshold of 80 (the Demo_3CN CDC)
 * needs 10 losses in a row, and every good cycle takes 1 off. */
static void loss_of_preq_threshold_80(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    to_operational(x, &t);
    x->cn.loss_preq.threshold = 80;
    soc(x, t += 1000000);
    for (int i = 0; i < 9; i++)
        soc(x, t += 1000000);   /* 9 cycles without PReq: 72 */
    assert_int_equal(x->cn.loss_preq.thr_cnt, 72);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
    preq(x, t += 10000, 0);
    soc(x, t += 1000000);       /* a good cycle: 71 */
    assert_int_equal(x->cn.loss_preq.thr_cnt, 71);
    soc(x, t += 1000000);       /* 79 */
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
    soc(x, t += 1000000);       /* 87 >= 80: fires */
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_1);
    assert_int_equal(x->cn.st.loss_preq, 11);
    assert_int_equal(x->cn.n_err, 1);
    assert_int_equal(x->cn.err[0].code, PLK_E_DLL_LOSS_PREQ_TH);
}

/* Loss of PReq as openPOWERLINK's CN judges it (dllkstatemachine.c): not in PreOp2;
 * a multiplexed CN (0x1F98/7 = 3) PReq'd every third cycle loses nothing, and a PReq
 * missing in its due cycle counts once, not in the cycles in between. */
static void loss_of_preq_preop2_and_multiplexed(void **state)
{
    struct fx *x = *state;
    takt_ns_t t = 1000;
    soa(x, t, PLK_SOA_NO_SERVICE, 0, 0);
    soc(x, t += 1000000);
    preq(x, t += 10000, 0);
    for (int i = 0; i < 4; i++)
        soc(x, t += 1000000);
    assert_int_equal(x->cn.state, PLK_NMT_PRE_OPERATIONAL_2);
    assert_int_equal(x->cn.st.loss_preq, 0);

    cmd(x, t += 10000, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    cmd(x, t += 10000, PLK_NMT_CMD_START_NODE);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
    uint32_t abort = 0;
    uint8_t three = 3;
    assert_int_equal(plk_od_write(&x->cn.od, 0x1F98, 7, &three, 1, &abort), 0);
    assert_int_equal(x->cn.mux_cycles, 3);
    for (int round = 0; round < 4; round++) {
        preq(x, t += 10000, 0);
        for (int i = 0; i < 3; i++)
            soc(x, t += 1000000);
    }
    assert_int_equal(x->cn.st.loss_preq, 0);
    /* the due cycle passes without PReq: one loss, then two cycles not due */
    soc(x, t += 1000000);
    assert_int_equal(x->cn.st.loss_preq, 1);
    soc(x, t += 1000000);
    soc(x, t += 1000000);
    assert_int_equal(x->cn.st.loss_preq, 1);
    preq(x, t += 10000, 0);
    soc(x, t += 1000000);
    assert_int_equal(x->cn.st.loss_preq, 1);
    assert_int_equal(x->cn.state, PLK_NMT_OPERATIONAL);
    /* back to continuous (0x1F98/7 = 0): from the next cycle on every cycle is due */
    uint8_t zero = 0;
    assert_int_equal(plk_od_write(&x->cn.od, 0x1F98, 7, &zero, 1, &abort), 0);
    soc(x, t += 1000000);   /* closes the running cycle, which was not due */
    assert_int_equal(x->cn.st.loss_preq, 1);
    soc(x, t += 1000000);
    soc(x, t += 1000000);
    assert_int_equal(x->cn.st.loss_preq, 3);
}

/* --- public API over the mem link, scripted MN ------------------------------------- */
struct cn_thread {
    struct takt_plk_cn *cn;
    struct takt_link *link;
    pthread_t t;
};
static void *cn_main(void *arg)
{
    struct cn_thread *c = arg;
    takt_plk_cn_run(c->cn, c->link, NULL);
    return NULL;
}

static int mn_send(struct takt_link *l, const struct plk_msg *m)
{
    uint8_t b[TAKT_FRAME_BUF];
    int n = plk_frame_encode(b, sizeof b, m);
    assert_true(n >= 60);
    struct takt_frame f = { .data = b, .len = (uint16_t)n };
    return takt_link_send(l, &f, 1);
}

/* Wait up to 2 s for a frame from node 2 of the given type (and ASnd service). */
static bool mn_expect(struct takt_link *l, uint8_t mtyp, uint8_t svid, struct plk_msg *m,
                      uint8_t *raw, size_t cap)
{
    takt_ns_t end = takt_now() + 2 * TAKT_NS_PER_S;
    while (takt_now() < end) {
        static uint8_t bufs[8][TAKT_FRAME_BUF];
        struct takt_frame f[8];
        for (int i = 0; i < 8; i++)
            f[i] = (struct takt_frame){ .data = bufs[i], .cap = sizeof bufs[i] };
        int n = takt_link_recv(l, f, 8, 50 * 1000 * 1000);   /* relative */
        for (int i = 0; i < n; i++) {
            char err[96];
            if (plk_frame_decode(f[i].data, f[i].len, m, err, sizeof err) == 0 &&
                m->src == 2 && m->mtyp == mtyp && (mtyp != PLK_MTYP_ASND || m->u.asnd.svid == svid)) {
                memcpy(raw, f[i].data, f[i].len < cap ? f[i].len : cap);
                return true;
            }
        }
    }
    return false;
}

static void api_request_over_mem_link(void **state)
{
    (void)state;
    struct takt_link *mn_l, *cn_l;
    assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l, 64, NULL, NULL), 0);
    cn_l->mac[5] ^= 1;
    struct takt_plk_cn_cfg cc;
    takt_plk_cn_cfg_default(&cc, 2);
    struct cn_thread c = { .link = cn_l };
    char err[160];
    assert_int_equal(takt_plk_cn_create(&cc, &c.cn, err, sizeof err), 0);
    /* the layout cn_api.c relies on: the core is the first member */
    size_t il;
    assert_ptr_equal((char *)takt_plk_cn_inputs(c.cn, &il) - offsetof(struct plk_cn, in),
                     (char *)c.cn);
    assert_int_equal(pthread_create(&c.t, NULL, cn_main, &c), 0);

    struct plk_msg m, r;
    uint8_t raw[TAKT_FRAME_BUF];
    /* SoA NoService: NotActive -> PreOp1 (the CN's thread takes requests from here) */
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, mn_l->mac, 6);
    m.mtyp = PLK_MTYP_SOA;
    m.dst = 255;
    m.src = PLK_NODE_MN;
    m.u.soa.epl_version = PLK_EPL_VERSION;
    m.u.soa.nmt_state = 0x5D;   /* MS_PRE_OPERATIONAL_1 */
    assert_int_equal(mn_send(mn_l, &m), 1);
    takt_ns_t end = takt_now() + 2 * TAKT_NS_PER_S;
    while (takt_plk_cn_state(c.cn) != PLK_NMT_PRE_OPERATIONAL_1 && takt_now() < end)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    assert_int_equal(takt_plk_cn_state(c.cn), PLK_NMT_PRE_OPERATIONAL_1);

    assert_int_equal(takt_plk_cn_request_nmt(c.cn, PLK_NMT_CMD_RESET_NODE, 5, NULL, 0), 0);
    assert_int_equal(takt_plk_cn_request_nmt(c.cn, 0, 5, NULL, 0), -EINVAL);
    /* StatusRequest: the answer announces it (the frame hands it to the CN's core) */
    m.u.soa.svid = PLK_SOA_STATUS_REQUEST;
    m.u.soa.target = 2;
    assert_int_equal(mn_send(mn_l, &m), 1);
    assert_true(mn_expect(mn_l, PLK_MTYP_ASND, PLK_ASND_STATUS_RESPONSE, &r, raw, sizeof raw));
    assert_int_equal(r.u.asnd.u.status.flags2, PLK_PRIO_NMTRQST << PLK_F2_PR_SHIFT | 1);
    assert_int_equal(takt_plk_cn_nmt_pending(c.cn), 1);
    /* NMTRequestInvite: the request, then the queue is empty */
    m.u.soa.svid = PLK_SOA_NMT_REQ_INVITE;
    assert_int_equal(mn_send(mn_l, &m), 1);
    assert_true(mn_expect(mn_l, PLK_MTYP_ASND, PLK_ASND_NMT_REQUEST, &r, raw, sizeof raw));
    assert_int_equal(r.dst, PLK_NODE_MN);
    assert_int_equal(raw[PLK_NMTREQ_OFF_ID], PLK_NMT_CMD_RESET_NODE);
    assert_int_equal(raw[PLK_NMTREQ_OFF_TARGET], 5);
    assert_int_equal(takt_plk_cn_nmt_pending(c.cn), 0);
    m.u.soa.svid = PLK_SOA_STATUS_REQUEST;
    assert_int_equal(mn_send(mn_l, &m), 1);
    assert_true(mn_expect(mn_l, PLK_MTYP_ASND, PLK_ASND_STATUS_RESPONSE, &r, raw, sizeof raw));
    assert_int_equal(r.u.asnd.u.status.flags2, 0);

    takt_plk_cn_stop(c.cn);
    pthread_join(c.t, NULL);
    takt_plk_cn_destroy(c.cn);
    takt_link_close(mn_l);
    takt_link_close(cn_l);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(nmt_requests_announced_and_drained),
        T(status_response_and_priority_over_sdo),
        T(refusals_and_reset),
        T(request_by_od_0x1f9f),
        T(handover_from_another_thread),
        T(loss_of_soc_signals_history_entry),
        T(loss_of_preq_threshold_80),
        T(loss_of_preq_preop2_and_multiplexed),
        cmocka_unit_test(api_request_over_mem_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
