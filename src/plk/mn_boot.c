/* MN boot-up of each CN (DS 301 7.4, oplk nmtmnu.c): identification and identity check,
 * StatusRequest until PreOp2, SDO configuration download, chaining set-up,
 * EnableReadyToOperate, StartNode; a lost CN is removed, reset and booted again. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "plk/mn.h"
#include "plk/frame.h"
#include "plk/pdo.h"
#include "plk/sdo_seq.h"
#include "util/wire.h"

static const char *const step_names[MNS_COUNT] = {
    [MNS_UNIDENT] = "unidentified",   [MNS_IDENTIFIED] = "identified",
    [MNS_STATUS] = "status",          [MNS_CONFIG] = "configuring",
    [MNS_SYNC] = "chaining set-up",   [MNS_WAIT_READY] = "wait ReadyToOperate",
    [MNS_READY] = "ReadyToOperate",   [MNS_WAIT_OP] = "wait Operational",
    [MNS_OPERATIONAL] = "Operational", [MNS_STOPPED] = "stopped",
};
_Static_assert(TAKT_ARRAY_SIZE(step_names) == MNS_COUNT, "one name per boot step");

const char *plk_mn_step_name(enum plk_mn_step s)
{
    return (unsigned)s < MNS_COUNT ? step_names[s] : "?";
}

void plk_mn_node_step(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now,
                      enum plk_mn_step s)
{
    (void)mn;
    n->step = s;
    n->step_since = now;
    n->idents_unanswered = 0;
    n->st.in_cycle = n->in_cycle;
}

void plk_mn_node_reset(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now)
{
    bool was_op = n->step == MNS_OPERATIONAL;
    n->in_cycle = false;
    n->chain_active = false;
    n->answered = n->late = n->polled = false;   /* out of this cycle's judgement too */
    n->rs = false;
    n->status_pending = false;
    n->cfg_pos = 0;
    plk_errcnt_reset(&n->loss_pres);
    struct plk_sdo_timing t;
    plk_sdo_timing_for_cycle(&t, mn->cfg.cycle_us);
    plk_sdo_client_init(n->sdo, &t);
    t.seg_size = plk_udp_sdo_seg_max((uint16_t)mn->cfg.async_mtu);
    plk_sdo_client_init(n->sdo_udp, &t);
    /* NMTResetNode to the CN, then identify it again (oplk nmtmnu: CN lost) */
    n->nmt_cmd = PLK_NMT_CMD_RESET_NODE;
    n->retry_at = now;
    plk_mn_node_step(mn, n, now, MNS_UNIDENT);
    if (was_op && mn->st.nodes_operational)
        mn->st.nodes_operational--;
}

void plk_mn_node_lost(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now, const char *why)
{
    n->lost_why = why;
    n->st.lost++;
    n->conf_reset_done = false;     /* its next boot checks and downloads afresh */
    plk_mn_node_reset(mn, n, now);
    /* a lost mandatory CN stops the network: MN cycle error -> PreOp1 (DS 301 7.4) */
    if (n->cfg->mandatory && mn->state >= PLK_NMT_PRE_OPERATIONAL_2 &&
        mn->state != PLK_NMT_BASIC_ETHERNET)
        plk_mn_set_state(mn, now, PLK_NMT_PRE_OPERATIONAL_1);
}

/* Identity check against 0x1F84..0x1F88 (EPSG DS 301 7.4): a mismatch is reported and the CN
 * is not booted (E_NMT_BPO1_IDENT_FAILED), then asked again later. */
static bool identity_ok(const struct plk_cfg_node *c, const struct plk_ident_response *r)
{
    return (!c->device_type_check || c->device_type == r->device_type) &&
           (!c->vendor_check || c->vendor_id == r->vendor_id) &&
           (!c->product_check || c->product_code == r->product_code) &&
           (!c->revision_check || c->revision_no == r->revision_no) &&
           (!c->serial_check || c->serial_no == r->serial_no);
}

static void on_ident(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now,
                     const struct plk_ident_response *r, const uint8_t *f)
{
    n->state = r->nmt_state;
    if (n->step != MNS_UNIDENT)
        return;
    if (!identity_ok(n->cfg, r)) {
        n->st.ident_fail++;
        n->retry_at = now + 100 * TAKT_NS_PER_MS;
        return;
    }
    memcpy(n->mac, f + PLK_OFF_SRC_MAC, 6);   /* PReq goes unicast to this MAC */
    /* VerifyConfiguration = the CN's 0x1020 (EPSG DS 301 IdentResponse), what oplk's CFM compares */
    n->cn_conf_date = r->conf_date;
    n->cn_conf_time = r->conf_time;
    plk_mn_node_step(mn, n, now, MNS_IDENTIFIED);
    if (mn->state >= PLK_NMT_PRE_OPERATIONAL_2 && mn->state != PLK_NMT_BASIC_ETHERNET)
        plk_mn_node_step(mn, n, now, MNS_STATUS);
}

static void enable_ready(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now)
{
    n->nmt_cmd = PLK_NMT_CMD_ENABLE_READY_TO_OP;
    plk_mn_node_step(mn, n, now, MNS_WAIT_READY);
}

/* An async-only CN (0x1F81 bit 0x100) is never PReq'd: its StatusResponses carry the
 * state changes a PRes would show, and supervise it (oplk nmtmnu nodeBootStep2). */
static void on_status_async_only(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now,
                                 uint8_t state)
{
    n->status_pending = false;
    plk_errcnt_good(&n->loss_pres);
    if (state == n->state)
        return;
    n->state = state;
    plk_mn_on_pres_state(mn, n, now);
}

/* 0x1020 check (oplk cfmu.c): with 0x1F26/0x1F27 set for the node, a CN whose
 * VerifyConfiguration equals them keeps its configuration; otherwise the download ends
 * with 0x1020 and a store. Without them the download always runs and is not stored. */
static void cfg_begin(struct plk_mn_node *n)
{
    const struct plk_cfg_node *c = n->cfg;
    n->cfg_pos = 0;
    if (!c->conf_date && !c->conf_time) {
        n->cfg_mode = PLK_CFGM_PLAIN;
    } else if (n->cn_conf_date == c->conf_date && n->cn_conf_time == c->conf_time) {
        n->cfg_mode = PLK_CFGM_UPTODATE;
        if (n->conf_reset_done)     /* back from our own NMTResetConfiguration */
            return;
        n->st.config_skipped++;
        snprintf(n->note, sizeof n->note, "node %u: configuration unchanged (0x1020 = "
                 "0x%08X/0x%08X), download skipped", n->id, c->conf_date, c->conf_time);
    } else {
        n->cfg_mode = PLK_CFGM_STORE;
        snprintf(n->note, sizeof n->note, "node %u: configuration 0x%08X/0x%08X differs "
                 "from expected 0x%08X/0x%08X, downloading", n->id, n->cn_conf_date,
                 n->cn_conf_time, c->conf_date, c->conf_time);
    }
}

static void on_status(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now, uint8_t state)
{
    n->status_due = now + (takt_ns_t)5000 * TAKT_NS_PER_MS;  /* C_NMT_STATREQ_CYCLE */
    if (n->cfg->async_only && n->step >= MNS_CONFIG && n->step != MNS_STOPPED) {
        on_status_async_only(mn, n, now, state);
        return;
    }
    n->state = state;
    if (n->step == MNS_STATUS && state == PLK_NMT_PRE_OPERATIONAL_2) {
        /* CN in PreOp2: add it to the isochronous phase (unless async-only) and
         * configure it */
        /* a multiplexed CN joins once configured: it learns 0x1F98/7 (and its PReq
         * loss settings) before its first multiplexed PReq */
        n->in_cycle = !n->cfg->async_only && !n->cfg->multiplexed;
        cfg_begin(n);
        plk_mn_node_step(mn, n, now, MNS_CONFIG);
    } else if (n->step >= MNS_CONFIG &&
               (state == PLK_NMT_PRE_OPERATIONAL_1 || state == PLK_NMT_NOT_ACTIVE)) {
        plk_mn_node_lost(mn, n, now, "CN fell back to PreOp1");
    }
}

/* A state change seen in a PRes. */
void plk_mn_on_pres_state(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now)
{
    switch (n->step) {
    case MNS_WAIT_READY:
        if (n->state == PLK_NMT_READY_TO_OPERATE)
            plk_mn_node_step(mn, n, now, MNS_READY);
        break;
    case MNS_WAIT_OP:
        if (n->state == PLK_NMT_OPERATIONAL) {
            plk_mn_node_step(mn, n, now, MNS_OPERATIONAL);
            n->conf_reset_done = false;
            n->st.boots++;
            mn->st.nodes_operational++;
        }
        break;
    case MNS_OPERATIONAL:
        if (n->state != PLK_NMT_OPERATIONAL)
            plk_mn_node_lost(mn, n, now, "CN left Operational");
        return;
    default:
        break;
    }
    if (n->step >= MNS_CONFIG &&
        (n->state == PLK_NMT_PRE_OPERATIONAL_1 || n->state == PLK_NMT_NOT_ACTIVE))
        plk_mn_node_lost(mn, n, now, "CN fell back to PreOp1");
    else if (n->step >= MNS_READY && n->state == PLK_NMT_PRE_OPERATIONAL_2)
        plk_mn_node_lost(mn, n, now, "CN fell back to PreOp2");
}

/* --- configuration download (what openPOWERLINK's CFM writes) ------------ */
struct cfg_write { uint16_t index; uint8_t sub; uint8_t size; uint64_t value; };

static uint64_t map_entry(uint16_t idx, uint8_t sub, uint16_t bit_off, uint16_t bits)
{
    struct plk_pdo_entry e = { .index = idx, .sub = sub, .bit_offset = bit_off, .bit_len = bits };
    return plk_pdo_entry_encode(&e);
}

/* The k-th write of the node's configuration proper; false when that list is done. */
static bool cfg_item_base(const struct plk_mn *mn, const struct plk_mn_node *n, unsigned k,
                          struct cfg_write *w)
{
    const struct plk_cfg_node *c = n->cfg;
    uint16_t roff = (uint16_t)(n->chained ? n->out_off * 8 : 0);
    unsigned nrx = c->has_mapping ? c->n_rx : 1, ntx = c->has_mapping ? c->n_tx : 1;
    const struct cfg_write fixed[] = {
        { PLK_OD_CYCLE_LEN, 0, 4, mn->cfg.cycle_us },
        { PLK_OD_LOSS_SOC_TOLERANCE, 0, 4, mn->cfg.loss_soc_tolerance_ns },
        { PLK_OD_CN_LOSS_SOC, PLK_EC_THRESHOLD, 4, c->cn_loss_soc_threshold },
        { PLK_OD_CN_LOSS_PREQ, PLK_EC_THRESHOLD, 4, c->cn_loss_preq_threshold },
        { PLK_OD_CYCLE_TIMING, PLK_CT_PREQ_ACT_PAYLOAD, 2, c->preq_payload },
        { PLK_OD_CYCLE_TIMING, PLK_CT_PRES_ACT_PAYLOAD, 2, c->pres_payload },
        { PLK_OD_RPDO_MAP, 0, 1, 0 },
        { PLK_OD_TPDO_MAP, 0, 1, 0 },
    };
    unsigned nf = TAKT_ARRAY_SIZE(fixed);
    if (k < nf) {
        *w = fixed[k];
        return true;
    }
    k -= nf;
    if (k < nrx) {
        const struct plk_pdo_entry *e = &c->rx_map[k];
        *w = (struct cfg_write){ PLK_OD_RPDO_MAP, (uint8_t)(k + 1), 8,
            c->has_mapping ? map_entry(e->index, e->sub, (uint16_t)(e->bit_offset + roff), e->bit_len)
                           : map_entry(0x6200, 1, roff, 8) };
        return true;
    }
    k -= nrx;
    if (k < ntx) {
        const struct plk_pdo_entry *e = &c->tx_map[k];
        *w = (struct cfg_write){ PLK_OD_TPDO_MAP, (uint8_t)(k + 1), 8,
            c->has_mapping ? map_entry(e->index, e->sub, e->bit_offset, e->bit_len)
                           : map_entry(0x6000, 1, 0, 8) };
        return true;
    }
    k -= ntx;
    if (k == 0) { *w = (struct cfg_write){ PLK_OD_RPDO_MAP, 0, 1, nrx }; return true; }
    if (k == 1) { *w = (struct cfg_write){ PLK_OD_TPDO_MAP, 0, 1, ntx }; return true; }
    k -= 2;
    /* a multiplexed CN learns the round length (its loss-of-PReq check depends on it) */
    if (k == 0 && c->multiplexed) {
        *w = (struct cfg_write){ PLK_OD_CYCLE_TIMING, PLK_CT_MULT_CYCLE_CNT, 1, mn->cfg.mux_cycles };
        return true;
    }
    return false;
}

#define PLK_STORE_SIGNATURE 0x65766173u   /* "save" (oplk cfmu.c finishDownload) */
#define PLK_RESTORE_SIGNATURE 0x64616F6Cu /* "load" (oplk cfmu.c, restore defaults) */

/* The k-th write for node n by its download mode; false when the list is done. */
static bool cfg_item(const struct plk_mn *mn, const struct plk_mn_node *n, unsigned k,
                     struct cfg_write *w)
{
    if (n->cfg_mode == PLK_CFGM_UPTODATE) {
        /* oplk still downloads the cycle length to an up-to-date CN */
        *w = (struct cfg_write){ PLK_OD_CYCLE_LEN, 0, 4, mn->cfg.cycle_us };
        return k == 0;
    }
    if (n->cfg_mode == PLK_CFGM_STORE) {
        /* oplk's CFM starts a changed configuration with 0x1011/1 "load" */
        if (k == 0) {
            *w = (struct cfg_write){ PLK_OD_RESTORE_PARAM, 1, 4, PLK_RESTORE_SIGNATURE };
            return true;
        }
        k--;
    }
    if (cfg_item_base(mn, n, k, w))
        return true;
    if (n->cfg_mode != PLK_CFGM_STORE)
        return false;
    unsigned base = 0;
    struct cfg_write x;
    while (cfg_item_base(mn, n, base, &x))
        base++;
    /* as oplk's CFM ends: 0x1020, the store, the cycle length once more */
    const struct cfg_write tail[] = {
        { PLK_OD_VERIFY_CONF, 1, 4, n->cfg->conf_date },
        { PLK_OD_VERIFY_CONF, 2, 4, n->cfg->conf_time },
        { PLK_OD_STORE_PARAM, 1, 4, PLK_STORE_SIGNATURE },
        { PLK_OD_CYCLE_LEN, 0, 4, mn->cfg.cycle_us },
    };
    if (k - base >= TAKT_ARRAY_SIZE(tail))
        return false;
    *w = tail[k - base];
    return true;
}

/* An SDO write of the download ended (status DONE or not). */
static void cfg_item_done(struct plk_mn *mn, struct plk_mn_node *n, bool ok)
{
    struct cfg_write w;
    bool item = cfg_item(mn, n, n->cfg_pos, &w);
    bool store = item && w.index == PLK_OD_STORE_PARAM;
    /* a CN without 0x1010/0x1011 aborts them: accepted, as by oplk */
    bool optional = store || (item && w.index == PLK_OD_RESTORE_PARAM);
    if (ok)
        mn->st.sdo_ok++;
    else if (!optional)
        mn->st.sdo_fail++;
    if (store) {
        if (ok)
            n->st.config_stored++;
        n->cn_conf_date = n->cfg->conf_date;    /* its 0x1020 now holds them */
        n->cn_conf_time = n->cfg->conf_time;
        snprintf(n->note, sizeof n->note, "node %u: configuration downloaded, 0x1020 "
                 "written, %s", n->id, ok ? "stored (0x1010/1)" : "store refused by the CN");
    }
}

/* The SDO client notices a dead connection only when asked for its next frame; once
 * its sequence layer gave up nothing is pending and nobody asks, so the MN checks here
 * with the client's own rule (else the node would stay in configuration forever). */
static void sdo_watch(struct plk_sdo_client *s, takt_ns_t now)
{
    if (s->status == PLK_SDO_BUSY && !plk_sdo_client_tx_pending(s, now) &&
        (plk_sdo_seq_failed(&s->seq) || now - s->seq.last_rx > s->tm.timeout_ns)) {
        s->status = PLK_SDO_TIMEOUT;
        s->abort_code = PLK_ABORT_TIMEOUT;
        s->cmd_pending = false;
    }
}

/* Drive the node's configuration one SDO write at a time; called each cycle. */
static void config_step(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now)
{
    struct plk_sdo_client *s = n->sdo;
    sdo_watch(s, now);
    if (s->status == PLK_SDO_BUSY)
        return;
    if (s->status == PLK_SDO_DONE || s->status == PLK_SDO_ABORTED || s->status == PLK_SDO_TIMEOUT) {
        cfg_item_done(mn, n, s->status == PLK_SDO_DONE);
        if (s->status == PLK_SDO_TIMEOUT) {
            plk_mn_node_lost(mn, n, now, "SDO timeout during configuration");
            return;
        }
        s->status = PLK_SDO_IDLE;
        n->cfg_pos++;
    }
    struct cfg_write w;
    if (!cfg_item(mn, n, n->cfg_pos, &w)) {
        if (n->cfg_mode == PLK_CFGM_STORE && !n->conf_reset_done) {
            /* as in openPOWERLINK: NMTResetConfiguration makes the CN take the stored
             * configuration; it is identified again and found up to date. Once per
             * boot, so a CN that forgets 0x1020 cannot loop. */
            plk_mn_node_reset(mn, n, now);
            n->conf_reset_done = true;
            n->nmt_cmd = PLK_NMT_CMD_RESET_CONFIGURATION;
            return;
        }
        if (n->cfg->multiplexed)
            n->in_cycle = true;
        if (n->chained)
            plk_mn_node_step(mn, n, now, MNS_SYNC);
        else
            enable_ready(mn, n, now);
        return;
    }
    uint8_t v[8];
    for (unsigned i = 0; i < w.size; i++)
        v[i] = (uint8_t)(w.value >> (8 * i));
    if (plk_sdo_client_write(s, w.index, w.sub, v, w.size, now) < 0)
        n->cfg_pos++;
}

/* User SDO (takt plk sdo read|write) on a node whose configuration is done. */
static void user_sdo_step(struct plk_mn *mn, takt_ns_t now)
{
    struct plk_mn_user_sdo *u = &mn->usdo;
    /* loaded by the driver in this thread (driver_sdo.c); 3 hands the result back */
    int st = u->state;
    if (st != 1 && st != 2)
        return;
    struct plk_mn_node *n = PLK_IS_CN(u->node) ? mn->node[u->node] : NULL;
    if (!n || n->step < MNS_WAIT_READY) {
        if (st == 1 && !n) {
            u->result = -ENODEV;
            u->state = 3;
        }
        return;
    }
    if (st == 1)   /* the transport is the one chosen when the transfer was queued */
        u->udp = __atomic_load_n(&mn->sdo_udp, __ATOMIC_ACQUIRE);
    struct plk_sdo_client *s = u->udp ? n->sdo_udp : n->sdo;
    sdo_watch(s, now);
    if (st == 1) {
        if (s->status == PLK_SDO_BUSY)
            return;
        int r = u->write ? plk_sdo_client_write(s, u->index, u->sub, u->data, u->len, now)
                         : plk_sdo_client_read(s, u->index, u->sub, now);
        if (r < 0) {
            u->result = r;
            u->state = 3;
            return;
        }
        u->state = 2;
        return;
    }
    if (s->status == PLK_SDO_BUSY)
        return;
    u->result = s->status == PLK_SDO_DONE ? 0 : s->status == PLK_SDO_TIMEOUT ? -ETIMEDOUT
                                                                            : -TAKT_ESDOABORT;
    u->abort_code = s->abort_code;
    if (!u->write && s->status == PLK_SDO_DONE) {
        u->len = s->len < sizeof u->data ? s->len : sizeof u->data;
        memcpy(u->data, s->data, u->len);
    }
    if (s->status == PLK_SDO_DONE) mn->st.sdo_ok++; else mn->st.sdo_fail++;
    s->status = PLK_SDO_IDLE;
    u->state = 3;
}

/* Per-cycle progress of every node's boot (called from the NMT evaluation). */
void plk_mn_boot_tick(struct plk_mn *mn, takt_ns_t now)
{
    bool preop2 = mn->state >= PLK_NMT_PRE_OPERATIONAL_2 && mn->state != PLK_NMT_BASIC_ETHERNET;
    for (unsigned i = 0; i < mn->n_ids; i++) {
        struct plk_mn_node *n = mn->node[mn->ids[i]];
        switch (n->step) {
        case MNS_IDENTIFIED:
            if (preop2)
                plk_mn_node_step(mn, n, now, MNS_STATUS);
            break;
        case MNS_CONFIG:
            config_step(mn, n, now);
            break;
        case MNS_WAIT_READY: case MNS_WAIT_OP:
            /* async-only: ask for the state soon, as no PRes will show it */
            if (n->cfg->async_only && n->status_due > now + 4 * mn->cycle_ns)
                n->status_due = now + 4 * mn->cycle_ns;
            break;
        case MNS_READY:
            if (mn->state == PLK_NMT_OPERATIONAL && !(mn->cfg.startup & PLK_SU_NO_START_NODE)) {
                n->nmt_cmd = PLK_NMT_CMD_START_NODE;
                plk_mn_node_step(mn, n, now, MNS_WAIT_OP);
            }
            break;
        default:
            break;
        }
    }
    user_sdo_step(mn, now);
}

/* RS/PR in an Ident/StatusResponse (EPSG DS 301 IdentResponse, StatusResponse): how a CN outside the cycle asks. */
static void note_request(struct plk_mn_node *n, uint8_t flags2)
{
    n->rs = (flags2 & PLK_F2_RS_MASK) != 0;
    n->pr = (uint8_t)((flags2 & PLK_F2_PR_MASK) >> PLK_F2_PR_SHIFT);
}

/* Does the ASnd service svid answer this invitation (DS 301 4.2.4.1.2)? An
 * UnspecifiedInvite lets the CN send what it has queued: an NMTRequest or SDO. */
static bool answers(const struct plk_mn_inv *v, uint8_t src, uint8_t svid, takt_ns_t ts)
{
    if (!v->svid || v->target != src || v->answered || ts < v->sent || ts >= v->end)
        return false;
    switch (v->svid) {
    case PLK_SOA_IDENT_REQUEST:  return svid == PLK_ASND_IDENT_RESPONSE;
    case PLK_SOA_STATUS_REQUEST: return svid == PLK_ASND_STATUS_RESPONSE;
    case PLK_SOA_SYNC_REQUEST:   return svid == PLK_ASND_SYNC_RESPONSE;
    case PLK_SOA_NMT_REQ_INVITE: return svid == PLK_ASND_NMT_REQUEST;
    case PLK_SOA_UNSPEC_INVITE:  return svid == PLK_ASND_NMT_REQUEST || svid == PLK_ASND_SDO;
    default:                     return false;
    }
}

/* A CN sends an ASnd only when this cycle's SoA invited it, once, within the async slot
 * (judged by the frame's receive stamp `now` against the SoA's send and the next SoC/
 * SoA's send). Anything else answers no request: counted unexpected, not taken. ASnd
 * to others than the MN (a CN's SDO to another CN) are not the MN's business. */
static bool invited(struct plk_mn *mn, takt_ns_t now, const struct plk_msg *m)
{
    struct plk_mn_inv *v = answers(&mn->inv, m->src, m->u.asnd.svid, now) ? &mn->inv
                         : answers(&mn->inv_prev, m->src, m->u.asnd.svid, now) ? &mn->inv_prev : NULL;
    if (v) {
        v->answered = true;
        return true;
    }
    return false;
}

void plk_mn_on_asnd(struct plk_mn *mn, takt_ns_t now, const struct plk_msg *m, const uint8_t *f)
{
    if (m->dst != PLK_NODE_MN && m->dst != PLK_NODE_BROADCAST)
        return;
    struct plk_mn_node *n = PLK_IS_CN(m->src) ? mn->node[m->src] : NULL;
    if (!n || !invited(mn, now, m)) {
        plk_mn_unexpected(mn, n);
        return;
    }
    if (m->u.asnd.svid == PLK_ASND_NMT_REQUEST) {
        if (m->dst == PLK_NODE_MN)
            plk_mn_on_nmt_request(mn, now, m->src, &m->u.asnd.u.nmt_req);
        return;
    }
    char err[96];
    switch (m->u.asnd.svid) {
    case PLK_ASND_IDENT_RESPONSE:
        note_request(n, m->u.asnd.u.ident.flags2);
        on_ident(mn, n, now, &m->u.asnd.u.ident, f);
        break;
    case PLK_ASND_STATUS_RESPONSE:
        note_request(n, m->u.asnd.u.status.flags2);
        on_status(mn, n, now, m->u.asnd.u.status.nmt_state);
        break;
    case PLK_ASND_SDO:
        if (m->dst == PLK_NODE_MN &&
            plk_sdo_client_rx(n->sdo, m->u.asnd.u.raw.data, m->u.asnd.u.raw.len, now, err, sizeof err) < 0)
            n->st.bad_frames++;
        break;
    case PLK_ASND_SYNC_RESPONSE:
        if (n->step == MNS_SYNC && (m->u.asnd.u.sync.sync_status & 1)) {
            n->chain_active = true;
            enable_ready(mn, n, now);
        }
        break;
    default:
        break;
    }
}
