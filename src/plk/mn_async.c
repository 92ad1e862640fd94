/* MN asynchronous slot: one SoA per cycle, choosing in priority order the MN's own NMT
 * command, the MN's SDO frame, an invite for a CN that asked (RS flags) or owes an SDO
 * reply, a SyncRequest (chaining), a StatusRequest, an IdentRequest (EPSG DS 301 SoA invitations, 7.4). */
#include <string.h>
#include "plk/mn.h"
#include "plk/frame.h"

void plk_mn_soa(struct plk_mn *mn, struct plk_txq *q, uint8_t svid, uint8_t target,
                const struct plk_sync_request *sync)
{
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, mn->mac, 6);
    m.mtyp = PLK_MTYP_SOA;
    m.dst = PLK_NODE_BROADCAST;
    m.src = PLK_NODE_MN;
    m.u.soa.nmt_state = mn->state;
    m.u.soa.svid = svid;
    m.u.soa.target = target;
    m.u.soa.epl_version = PLK_EPL_VERSION;
    if (sync)
        m.u.soa.sync = *sync;
    if (plk_txq_encode(q, &m))
        mn->st.frames_tx++;
    plk_mn_invite(mn, svid, target);
}

void plk_mn_nmt_command(struct plk_mn *mn, struct plk_txq *q, uint8_t dst, uint8_t cmd,
                        const uint8_t *data, uint8_t data_len)
{
    /* announced by SoA(NMTRequestInvite -> 240), as openPOWERLINK does */
    plk_mn_soa(mn, q, PLK_SOA_NMT_REQ_INVITE, PLK_NODE_MN, NULL);
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, mn->mac, 6);
    m.mtyp = PLK_MTYP_ASND;
    m.dst = dst;
    m.src = PLK_NODE_MN;
    m.u.asnd.svid = PLK_ASND_NMT_COMMAND;
    m.u.asnd.u.nmt_cmd.cmd = cmd;
    m.u.asnd.u.nmt_cmd.data_len = data_len;
    if (data_len)
        memcpy(m.u.asnd.u.nmt_cmd.data, data, data_len);
    if (plk_txq_encode(q, &m))
        mn->st.frames_tx++;
}

static bool try_nmt(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    if (mn->state == PLK_NMT_PRE_OPERATIONAL_1 && !mn->reset_sent &&
        mn->preop1_cycles >= 10) {
        /* after C_DLL_PREOP1_START_CYCLES SoAs: NMTResetNode to all (as openPOWERLINK's MN does) */
        mn->reset_sent = true;
        plk_mn_nmt_command(mn, q, PLK_NODE_BROADCAST, PLK_NMT_CMD_RESET_NODE, NULL, 0);
        return true;
    }
    if (plk_mn_async_cmdq(mn, q))
        return true;
    for (unsigned k = 0; k < mn->n_ids; k++) {
        struct plk_mn_node *n = mn->node[mn->ids[(mn->invite_rr + k) % mn->n_ids]];
        if (n->nmt_cmd) {
            plk_mn_nmt_command(mn, q, n->id, n->nmt_cmd, NULL, 0);
            n->nmt_cmd = 0;
            mn->invite_rr = (mn->invite_rr + k + 1) % mn->n_ids;
            return true;
        }
    }
    (void)now;
    return false;
}

static bool try_mn_sdo(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    for (unsigned k = 0; k < mn->n_ids; k++) {
        struct plk_mn_node *n = mn->node[mn->ids[(mn->invite_rr + k) % mn->n_ids]];
        if (!plk_sdo_client_tx_pending(n->sdo, now))
            continue;
        int len = plk_sdo_client_tx(n->sdo, n->sdo_buf, sizeof n->sdo_buf, now);
        if (len <= 0)
            continue;
        plk_mn_soa(mn, q, PLK_SOA_UNSPEC_INVITE, PLK_NODE_MN, NULL);
        struct plk_msg m;
        memset(&m, 0, sizeof m);
        memcpy(m.src_mac, mn->mac, 6);
        memcpy(m.dst_mac, n->mac, 6);
        m.mtyp = PLK_MTYP_ASND;
        m.dst = n->id;
        m.src = PLK_NODE_MN;
        m.u.asnd.svid = PLK_ASND_SDO;
        m.u.asnd.u.raw.data = n->sdo_buf;
        m.u.asnd.u.raw.len = (uint16_t)len;
        if (plk_txq_encode(q, &m))
            mn->st.frames_tx++;
        mn->invite_rr = (mn->invite_rr + k + 1) % mn->n_ids;
        return true;
    }
    return false;
}

/* A generic Ethernet frame within the async MTU, in the MN's own slot. */
static bool try_eth(struct plk_mn *mn, struct plk_txq *q)
{
    if (__atomic_load_n(&mn->eth.state, __ATOMIC_ACQUIRE) != 1)
        return false;
    plk_mn_soa(mn, q, PLK_SOA_UNSPEC_INVITE, PLK_NODE_MN, NULL);
    struct plk_txf *f = plk_txq_slot(q);
    if (f) {
        memcpy(f->data, mn->eth.data, mn->eth.len);
        f->len = mn->eth.len;
        mn->st.frames_tx++;
        mn->st.async_eth_tx++;
    }
    __atomic_store_n(&mn->eth.state, 0, __ATOMIC_RELEASE);
    return true;
}

/* A CN that raised RS, or owes an answer to our SDO request. Highest PR first (PR 7,
 * an NMT request, before generic ones: DS 301 4.2.4.1.2), round robin among equals. */
static bool try_invite(struct plk_mn *mn, struct plk_txq *q)
{
    struct plk_mn_node *best = NULL;
    unsigned best_k = 0;
    int best_pr = -1;
    for (unsigned k = 0; k < mn->n_ids; k++) {
        struct plk_mn_node *n = mn->node[mn->ids[(mn->invite_rr + k) % mn->n_ids]];
        /* a CN outside the cycle cannot raise RS: invite it while it owes a reply */
        bool owes = !n->in_cycle && n->step >= MNS_CONFIG &&
                    (n->sdo->status == PLK_SDO_BUSY || n->sdo->seq.state != PLK_SEQ_VALID ||
                     n->sdo_udp->status == PLK_SDO_BUSY);
        int pr = n->rs ? n->pr : owes ? PLK_PRIO_GENERIC : -1;
        if (pr > best_pr) {
            best = n;
            best_k = k;
            best_pr = pr;
        }
    }
    if (!best)
        return false;
    /* PR 7 asks for an NMT request: NMTRequestInvite, else UnspecifiedInvite */
    uint8_t svid = best->rs && best->pr == PLK_PRIO_NMTRQST ? PLK_SOA_NMT_REQ_INVITE
                                                            : PLK_SOA_UNSPEC_INVITE;
    best->rs = false;
    plk_mn_soa(mn, q, svid, best->id, NULL);
    mn->invite_rr = (mn->invite_rr + best_k + 1) % mn->n_ids;
    return true;
}

static bool try_sync(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    for (unsigned i = 0; i < mn->n_ids; i++) {
        struct plk_mn_node *n = mn->node[mn->ids[i]];
        if (n->step != MNS_SYNC || now < n->retry_at)
            continue;
        struct plk_sync_request s = {
            .sync_control = PLK_SYNC_PRES_TIME_FIRST_VALID | PLK_SYNC_PRES_MODE_SET,
            .pres_time_first = n->cfg->pres_time_first_ns,
        };
        n->retry_at = now + mn->cycle_ns * 4;
        plk_mn_soa(mn, q, PLK_SOA_SYNC_REQUEST, n->id, &s);
        return true;
    }
    return false;
}

/* An async-only CN's StatusRequest stands in for its PRes: one left unanswered until
 * the next is due counts like a lost PRes on the 0x1C09 threshold counter (+8/-1).
 * False when that removed the node. */
static bool async_only_supervise(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now)
{
    if (n->status_pending) {
        n->st.status_lost++;
        if (plk_errcnt_event(&n->loss_pres)) {
            n->st.loss_threshold_hits++;
            n->status_pending = false;
            plk_mn_node_lost(mn, n, now, "async-only CN: StatusResponse threshold");
            return false;
        }
    }
    n->status_pending = true;
    return true;
}

static bool try_status(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    for (unsigned k = 0; k < mn->n_ids; k++) {
        unsigned idx = (mn->status_rr + k) % mn->n_ids;
        struct plk_mn_node *n = mn->node[mn->ids[idx]];
        bool due = n->step == MNS_STATUS ||
                   (n->step >= MNS_CONFIG && now >= n->status_due);
        if (!due)
            continue;
        n->status_due = now + (takt_ns_t)5000 * TAKT_NS_PER_MS;  /* C_NMT_STATREQ_CYCLE */
        if (n->cfg->async_only && n->step >= MNS_CONFIG && !async_only_supervise(mn, n, now))
            continue;       /* lost: its reset goes out in a later slot */
        plk_mn_soa(mn, q, PLK_SOA_STATUS_REQUEST, n->id, NULL);
        mn->status_rr = idx + 1;
        return true;
    }
    return false;
}

static bool try_ident(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    for (unsigned k = 0; k < mn->n_ids; k++) {
        unsigned idx = (mn->ident_rr + k) % mn->n_ids;
        struct plk_mn_node *n = mn->node[mn->ids[idx]];
        if (n->step != MNS_UNIDENT || now < n->retry_at)
            continue;
        plk_mn_soa(mn, q, PLK_SOA_IDENT_REQUEST, n->id, NULL);
        if (!n->idents_unanswered++)
            n->ident_first = now;
        mn->ident_rr = idx + 1;
        return true;
    }
    return false;
}

void plk_mn_async(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    if (mn->n_ids == 0) {
        plk_mn_soa(mn, q, PLK_SOA_NO_SERVICE, 0, NULL);
        return;
    }
    if (try_nmt(mn, now, q) || try_mn_sdo(mn, now, q))
        return;
    /* The MN's own generic frames (SDO over UDP, ARP answers, the virtual Ethernet's)
     * and an invitation of a CN that asked take turns: a busy host cannot keep the CNs'
     * answers (and the replies its own frames ask for) out of the slot. */
    bool own_first = !mn->own_generic_last;
    mn->own_generic_last = false;
    if (own_first && (plk_mn_ip_tx(mn, now, q) || try_eth(mn, q))) {
        mn->own_generic_last = true;
        return;
    }
    if (try_invite(mn, q))
        return;
    if (!own_first && (plk_mn_ip_tx(mn, now, q) || try_eth(mn, q))) {
        mn->own_generic_last = true;
        return;
    }
    if (plk_mn_async_infoq(mn, q) || try_sync(mn, now, q) || try_status(mn, now, q))
        return;
    /* PreOp1 starts with C_DLL_PREOP1_START_CYCLES SoA(NoService) (as openPOWERLINK's MN does) */
    if (mn->state == PLK_NMT_PRE_OPERATIONAL_1 && mn->preop1_cycles < 10) {
        plk_mn_soa(mn, q, PLK_SOA_NO_SERVICE, 0, NULL);
        return;
    }
    if (try_ident(mn, now, q))
        return;
    plk_mn_soa(mn, q, PLK_SOA_NO_SERVICE, 0, NULL);
}
