/* CN requests to the MN and error signaling: the NMTRequest queue (DS 301 7.3.6), the
 * Flag2 PR/RS announcement of pending async frames, 0x1F9F NMT_RequestCmd_REC, and the
 * history entries a StatusResponse carries after an error threshold fired (DS 301 6.5). */
#include <errno.h>
#include <string.h>
#include "plk/cn_int.h"
#include "util/wire.h"

/* ERR_EntryType of a history entry: mode "occurred" 0x3000 | POWERLINK profile 0x0002
 * (oplk frame.h ERR_ENTRYTYPE_*, as its errhndk.c generateHistoryEntry writes). */
#define PLK_ERR_ENTRY_HISTORY_PLK 0x3002

static bool may_send(uint8_t state)
{
    /* NMT_CS_EPL_MODE states that answer SoAs; NotActive only listens (DS 301 7.1.4) */
    return state == PLK_NMT_PRE_OPERATIONAL_1 || state == PLK_NMT_PRE_OPERATIONAL_2 ||
           state == PLK_NMT_READY_TO_OPERATE || state == PLK_NMT_OPERATIONAL ||
           state == PLK_NMT_CS_STOPPED;
}

/* n_nmtreq is read from other threads (takt_plk_cn_nmt_pending): stored atomically. */
static void set_count(struct plk_cn *cn, unsigned n)
{
    __atomic_store_n(&cn->n_nmtreq, (uint8_t)n, __ATOMIC_RELAXED);
}

static int check_request(uint8_t cmd, size_t len)
{
    if (cmd == 0 || cmd == PLK_NMT_CMD_INVALID_SERVICE || len > PLK_NMTCMD_DATA_MAX)
        return -EINVAL;
    return 0;
}

int plk_cn_request_nmt(struct plk_cn *cn, uint8_t cmd, uint8_t target, const void *data,
                       size_t len)
{
    int r = check_request(cmd, len);
    if (r)
        return r;
    if (!may_send(cn->state))
        return -EAGAIN;
    if (cn->n_nmtreq >= PLK_CN_NMTREQ_MAX)
        return -ENOSPC;
    struct plk_cn_nmtreq *q = &cn->nmtreq[cn->n_nmtreq];
    set_count(cn, cn->n_nmtreq + 1u);
    q->cmd = cmd;
    q->target = target;
    q->data_len = (uint8_t)len;
    if (len)
        memcpy(q->data, data, len);
    cn->st.nmtreq_queued++;
    return 0;
}

int plk_cn_post_nmt_request(struct plk_cn *cn, uint8_t cmd, uint8_t target,
                            const void *data, size_t len)
{
    int r = check_request(cmd, len);
    if (r)
        return r;
    struct rt_cmd c = { .arg = { cmd, target } };
    /* the ring copies the data: any thread, any number at once; full is -EAGAIN */
    return rt_cmdring_post(&cn->nmtreq_ring, &c, data, len);
}

static void take_one(void *ctx, struct rt_cmd *c)
{
    struct plk_cn *cn = ctx;
    if (plk_cn_request_nmt(cn, (uint8_t)c->arg[0], (uint8_t)c->arg[1], c->inl, c->inl_len) < 0)
        cn->st.nmtreq_dropped++;
}

/* Core side of the hand-over, in the thread that drives the core. A request the core
 * cannot queue (state, full queue) is dropped and counted: the poster learns it from
 * the statistics, as from a reset. */
void plk_cn_nmtreq_take(struct plk_cn *cn)
{
    rt_cmdring_drain(&cn->nmtreq_ring, 0, take_one, cn);
}

/* Flag2 (EPSG DS 301 frame formats): PR names the highest priority with a frame queued, RS how many frames
 * of that priority wait (at most 7), as openPOWERLINK's CN counts them (dllkevent.c). */
uint8_t plk_cn_flags2(struct plk_cn *cn, takt_ns_t now)
{
    if (cn->n_nmtreq)
        return (uint8_t)(PLK_PRIO_NMTRQST << PLK_F2_PR_SHIFT |
                         (cn->n_nmtreq > PLK_F2_RS_MASK ? PLK_F2_RS_MASK : cn->n_nmtreq));
    if (plk_sdo_server_tx_pending(&cn->sdo, now) || plk_cn_ip_pending(cn, now))
        return (uint8_t)(PLK_PRIO_GENERIC << PLK_F2_PR_SHIFT | 1);
    return 0;
}

/* ASnd NMTRequest to the MN (EPSG DS 301 7.3.6: 18 CommandID, 19 target, 20.. data), to the ASnd
 * multicast address like the CN's other ASnd frames. */
bool plk_cn_send_nmtreq(struct plk_cn *cn, struct plk_txq *q)
{
    if (!cn->n_nmtreq)
        return false;
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, cn->mac, 6);
    m.mtyp = PLK_MTYP_ASND;
    m.dst = PLK_NODE_MN;
    m.src = cn->cfg.id;
    m.u.asnd.svid = PLK_ASND_NMT_REQUEST;
    const struct plk_cn_nmtreq *r = &cn->nmtreq[0];
    m.u.asnd.u.nmt_req.cmd = r->cmd;
    m.u.asnd.u.nmt_req.target = r->target;
    m.u.asnd.u.nmt_req.data_len = r->data_len;
    memcpy(m.u.asnd.u.nmt_req.data, r->data, r->data_len);
    if (!plk_txq_encode(q, &m))
        return false;   /* stays queued: the MN invites again while RS says so */
    memmove(&cn->nmtreq[0], &cn->nmtreq[1], (size_t)(cn->n_nmtreq - 1) * sizeof cn->nmtreq[0]);
    set_count(cn, cn->n_nmtreq - 1u);
    cn->st.nmtreq_tx++;
    return true;
}

/* A reset (NotActive) forgets queued requests (DS 301 7.1.2); error entries already
 * signalled stay until the MN acknowledges them, EN restarts at 0. */
void plk_cn_async_reset(struct plk_cn *cn)
{
    cn->st.nmtreq_dropped += cn->n_nmtreq;
    set_count(cn, 0);
    cn->en = false;
    cn->err_sent = false;
}

/* An error threshold fired: a history entry for the StatusResponse, EN toggled so the
 * MN sees new information in the next PRes/StatusResponse. The oldest entry makes room
 * when all PLK_SRES_MAX_ENTRIES are taken. */
void plk_cn_error(struct plk_cn *cn, uint16_t code)
{
    if (cn->n_err == PLK_SRES_MAX_ENTRIES) {
        memmove(&cn->err[0], &cn->err[1], (PLK_SRES_MAX_ENTRIES - 1) * sizeof cn->err[0]);
        cn->n_err--;
    }
    cn->err[cn->n_err++] = (struct plk_error_entry){
        .type = PLK_ERR_ENTRY_HISTORY_PLK, .code = code, .time = cn->net_time,
    };
    cn->en = !cn->en;
    cn->err_sent = false;
    cn->st.err_entries++;
}

/* EA from the MN (PReq, StatusRequest SoA) equal to our EN after a StatusResponse
 * carried the entries: the MN has read them (DS 301 6.5.4 exception acknowledge). */
void plk_cn_ea(struct plk_cn *cn, uint8_t flags1)
{
    if (cn->n_err && cn->err_sent && !!(flags1 & PLK_F1_EA) == cn->en) {
        cn->n_err = 0;
        cn->err_sent = false;
    }
}

/* 0x1F9F NMT_RequestCmd_REC (DS 301; oplk ctrlu.c handleObdRequestCmd forwards it from
 * a CN as NMTRequest): 1 Release_BOOL, 2 CmdID_U8, 3 CmdTarget_U8, 4 CmdData_DOM.
 * Writing a non-zero Release queues the request; an SDO client can so trigger it. */
int plk_cn_od_add_nmtreq(struct plk_cn *cn)
{
    struct plk_od *od = &cn->od;
    int r = plk_od_add(od, PLK_OD_NMT_REQUEST_CMD, 0, PLK_OT_U8, PLK_OA_CONST, 4);
    if (!r)
        r = plk_od_add(od, PLK_OD_NMT_REQUEST_CMD, 1, PLK_OT_BOOL, PLK_OA_RW, 0);
    if (!r)
        r = plk_od_add(od, PLK_OD_NMT_REQUEST_CMD, 2, PLK_OT_U8, PLK_OA_RW, PLK_NMT_CMD_INVALID_SERVICE);
    if (!r)
        r = plk_od_add(od, PLK_OD_NMT_REQUEST_CMD, 3, PLK_OT_U8, PLK_OA_RW, 0);
    if (!r)
        r = plk_od_add_buf(od, PLK_OD_NMT_REQUEST_CMD, 4, PLK_OT_DOMAIN, PLK_OA_RW,
                           PLK_NMTCMD_DATA_MAX, NULL, 0);
    return r;
}

void plk_cn_od_hook_nmtreq(struct plk_cn *cn, const struct plk_od_entry *e)
{
    if (e->index != PLK_OD_NMT_REQUEST_CMD || e->sub != 1 || !e->data || !e->data[0])
        return;
    uint64_t cmd = 0, target = 0;
    plk_od_get_u64(&cn->od, PLK_OD_NMT_REQUEST_CMD, 2, &cmd);
    plk_od_get_u64(&cn->od, PLK_OD_NMT_REQUEST_CMD, 3, &target);
    const struct plk_od_entry *d = plk_od_find(&cn->od, PLK_OD_NMT_REQUEST_CMD, 4);
    if (plk_cn_request_nmt(cn, (uint8_t)cmd, (uint8_t)target, d ? d->data : NULL,
                           d ? d->size : 0) < 0)
        cn->st.nmtreq_dropped++;
    e->data[0] = 0;   /* Release is a trigger: reads back 0 once taken */
}

/* 0x1C0B/0x1C0D subs 1 (cumulative) and 2 (threshold count) show the live counters to
 * an SDO read; called before each SDO request is served. */
void plk_cn_od_sync_errcnt(struct plk_cn *cn)
{
    static const struct { uint16_t index; size_t off; } map[] = {
        { PLK_OD_CN_LOSS_SOC, offsetof(struct plk_cn, loss_soc) },
        { PLK_OD_CN_LOSS_PREQ, offsetof(struct plk_cn, loss_preq) },
    };
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(map); i++) {
        const struct plk_errcnt *c = (const void *)((const char *)cn + map[i].off);
        struct plk_od_entry *e1 = plk_od_find(&cn->od, map[i].index, PLK_EC_CUMULATIVE);
        struct plk_od_entry *e2 = plk_od_find(&cn->od, map[i].index, PLK_EC_THRESHOLD_CNT);
        if (e1 && e1->data)
            put_le32(e1->data, c->cumulative);
        if (e2 && e2->data)
            put_le32(e2->data, c->thr_cnt);
    }
}
