/* MN side of NMTRequests (DS 301 7.3.6, oplk nmtmnu.c cbNmtRequest/requestNmtCommand):
 * a CN invited by SoA(NMTRequestInvite) asks for an NMT command or info service; the MN
 * validates it, executes it in its async slot, or refuses it with NMTInvalidService. */
#include <stdio.h>
#include <string.h>
#include "plk/mn.h"
#include "util/wire.h"

static const char *const refusal_names[PLK_NMTREQ_REFUSAL_COUNT] = {
    [PLK_NMTREQ_NOT_ACTIVE] = "MN not active",
    [PLK_NMTREQ_UNKNOWN_SOURCE] = "requesting node not configured",
    [PLK_NMTREQ_BAD_TARGET] = "target node not configured",
    [PLK_NMTREQ_UNSUPPORTED] = "command not executed for a CN",
    [PLK_NMTREQ_BOOT_STEP] = "the MN sends this command in the node's boot",
    [PLK_NMTREQ_QUEUE_FULL] = "too many requests pending",
};
_Static_assert(TAKT_ARRAY_SIZE(refusal_names) == PLK_NMTREQ_REFUSAL_COUNT, "one name per reason");

const char *plk_mn_nmtreq_refusal_name(enum plk_mn_nmtreq_refusal r)
{
    return (unsigned)r < PLK_NMTREQ_REFUSAL_COUNT ? refusal_names[r] : "?";
}

static bool queue_cmd(struct plk_mn *mn, uint8_t dst, uint8_t cmd, const uint8_t *data,
                      uint8_t len)
{
    if (mn->n_cmdq >= PLK_MN_QUEUE)
        return false;
    struct plk_mn_node *n = PLK_IS_CN(dst) ? mn->node[dst] : NULL;
    if (n && n->nmt_cmd == cmd)
        return true;            /* the boot sequence sends it already */
    typeof(mn->cmdq[0]) *c = &mn->cmdq[mn->n_cmdq++];
    c->dst = dst;
    c->cmd = cmd;
    c->data_len = len > PLK_NMTCMD_DATA_MAX ? PLK_NMTCMD_DATA_MAX : len;
    if (c->data_len)
        memcpy(c->data, data, c->data_len);
    return true;
}

static bool queue_info(struct plk_mn *mn, uint8_t svid, uint8_t target)
{
    if (mn->n_infoq >= PLK_MN_QUEUE)
        return false;
    mn->infoq[mn->n_infoq].svid = svid;
    mn->infoq[mn->n_infoq].target = target;
    mn->n_infoq++;
    return true;
}

static void refuse(struct plk_mn *mn, uint8_t src, const struct plk_nmt_request *r,
                   enum plk_mn_nmtreq_refusal why)
{
    mn->nmtreq_refused[why]++;
    mn->st.nmt_requests_refused++;
    snprintf(mn->nmtreq_last, sizeof mn->nmtreq_last, "node %u: NMTRequest %s (0x%02X) for "
             "node %u refused: %s", src, plk_nmt_cmd_name(r->cmd), r->cmd, r->target,
             plk_mn_nmtreq_refusal_name(why));
    /* oplk answers a request it cannot execute with NMTInvalidService to the requester */
    if (PLK_IS_CN(src))
        queue_cmd(mn, src, PLK_NMT_CMD_INVALID_SERVICE, NULL, 0);
}

static bool is_reset(uint8_t cmd)
{
    return cmd == PLK_NMT_CMD_RESET_NODE || cmd == PLK_NMT_CMD_RESET_COMMUNICATION ||
           cmd == PLK_NMT_CMD_RESET_CONFIGURATION || cmd == PLK_NMT_CMD_SW_RESET;
}

/* A reset of the whole network (target 240/0 or 255): like a user reset in oplk, the
 * command goes out as a broadcast and the MN boots every CN again from PreOp1. */
static enum plk_mn_nmtreq_refusal reset_all(struct plk_mn *mn, takt_ns_t now, uint8_t cmd)
{
    plk_mn_set_state(mn, now, PLK_NMT_PRE_OPERATIONAL_1);
    plk_mn_reset_all(mn, now);
    mn->reset_sent = true;      /* the requested reset replaces the MN's own */
    return queue_cmd(mn, PLK_NODE_BROADCAST, cmd, NULL, 0) ? PLK_NMTREQ_REFUSAL_COUNT
                                                           : PLK_NMTREQ_QUEUE_FULL;
}

/* An NMT state command for one configured CN, kept consistent with its boot. */
static enum plk_mn_nmtreq_refusal node_cmd(struct plk_mn *mn, takt_ns_t now,
                                           struct plk_mn_node *t, uint8_t cmd)
{
    if (mn->n_cmdq >= PLK_MN_QUEUE)
        return PLK_NMTREQ_QUEUE_FULL;
    if (is_reset(cmd)) {
        /* the CN reboots: identify and configure it again, not counted as lost */
        plk_mn_node_reset(mn, t, now);
        t->nmt_cmd = cmd;
        return PLK_NMTREQ_REFUSAL_COUNT;
    }
    switch (cmd) {
    case PLK_NMT_CMD_STOP_NODE:
        if (t->step < MNS_CONFIG)
            return PLK_NMTREQ_BOOT_STEP;
        if (t->step == MNS_OPERATIONAL && mn->st.nodes_operational)
            mn->st.nodes_operational--;
        t->in_cycle = false;    /* a stopped CN answers no PReq (DS 301 7.1.4) */
        /* confirm the stop a few cycles after the command went out, not at the next
         * 5 s StatusRequest round: until then the node's state would read stale */
        t->status_due = now + 4 * mn->cycle_ns;
        plk_mn_node_step(mn, t, now, MNS_STOPPED);
        break;
    case PLK_NMT_CMD_ENTER_PREOP2:
        if (t->step < MNS_CONFIG)
            return PLK_NMTREQ_BOOT_STEP;
        if (t->step == MNS_OPERATIONAL && mn->st.nodes_operational)
            mn->st.nodes_operational--;
        /* back in PreOp2 the MN configures and starts it again from the status step */
        t->in_cycle = false;
        t->chain_active = false;
        t->status_due = now;
        plk_mn_node_step(mn, t, now, MNS_STATUS);
        break;
    case PLK_NMT_CMD_START_NODE:
        if (t->step != MNS_READY || mn->state != PLK_NMT_OPERATIONAL)
            return PLK_NMTREQ_BOOT_STEP;
        plk_mn_node_step(mn, t, now, MNS_WAIT_OP);
        break;
    default:
        return PLK_NMTREQ_BOOT_STEP;   /* EnableReadyToOperate belongs to the boot */
    }
    queue_cmd(mn, t->id, cmd, NULL, 0);
    return PLK_NMTREQ_REFUSAL_COUNT;
}

static enum plk_mn_nmtreq_refusal execute(struct plk_mn *mn, takt_ns_t now,
                                          const struct plk_nmt_request *r)
{
    uint8_t target = r->target ? r->target : PLK_NODE_MN;
    struct plk_mn_node *t = PLK_IS_CN(target) ? mn->node[target] : NULL;
    switch (r->cmd) {
    case PLK_NMT_CMD_IDENT_RESPONSE:
    case PLK_NMT_CMD_STATUS_RESPONSE:
        /* info services: the MN asks the target; its answer goes to 255, so the
         * requester reads it too. Any CN ID may be asked, configured or not. */
        if (!PLK_IS_CN(target))     /* takt's MN sends no Ident/StatusResponse itself */
            return target == PLK_NODE_MN ? PLK_NMTREQ_UNSUPPORTED : PLK_NMTREQ_BAD_TARGET;
        return queue_info(mn, r->cmd == PLK_NMT_CMD_IDENT_RESPONSE ? PLK_SOA_IDENT_REQUEST
                                                                   : PLK_SOA_STATUS_REQUEST,
                          target) ? PLK_NMTREQ_REFUSAL_COUNT : PLK_NMTREQ_QUEUE_FULL;
    case PLK_NMT_CMD_START_NODE: case PLK_NMT_CMD_STOP_NODE:
    case PLK_NMT_CMD_ENTER_PREOP2: case PLK_NMT_CMD_ENABLE_READY_TO_OP:
    case PLK_NMT_CMD_RESET_NODE: case PLK_NMT_CMD_RESET_COMMUNICATION:
    case PLK_NMT_CMD_RESET_CONFIGURATION: case PLK_NMT_CMD_SW_RESET:
        if (target == PLK_NODE_MN || target == PLK_NODE_BROADCAST)
            return is_reset(r->cmd) ? reset_all(mn, now, r->cmd) : PLK_NMTREQ_UNSUPPORTED;
        if (!t)
            return PLK_NMTREQ_BAD_TARGET;
        return node_cmd(mn, now, t, r->cmd);
    default:
        /* Ex commands, managing and info commands the MN originates itself */
        return PLK_NMTREQ_UNSUPPORTED;
    }
}

void plk_mn_on_nmt_request(struct plk_mn *mn, takt_ns_t now, uint8_t src,
                           const struct plk_nmt_request *r)
{
    struct plk_mn_node *n = PLK_IS_CN(src) ? mn->node[src] : NULL;
    mn->st.nmt_requests++;
    if (!n) {
        refuse(mn, src, r, PLK_NMTREQ_UNKNOWN_SOURCE);
        return;
    }
    n->st.nmt_requests++;
    bool active = mn->state >= PLK_NMT_PRE_OPERATIONAL_1 && mn->state != PLK_NMT_BASIC_ETHERNET &&
                  mn->state != PLK_NMT_NOT_ACTIVE;
    enum plk_mn_nmtreq_refusal why = active ? execute(mn, now, r) : PLK_NMTREQ_NOT_ACTIVE;
    if (why != PLK_NMTREQ_REFUSAL_COUNT)
        refuse(mn, src, r, why);
    else
        mn->st.nmt_requests_done++;
}

bool plk_mn_async_cmdq(struct plk_mn *mn, struct plk_txq *q)
{
    if (!mn->n_cmdq)
        return false;
    typeof(mn->cmdq[0]) c = mn->cmdq[0];
    memmove(mn->cmdq, mn->cmdq + 1, (mn->n_cmdq - 1) * sizeof mn->cmdq[0]);
    mn->n_cmdq--;
    plk_mn_nmt_command(mn, q, c.dst, c.cmd, c.data, c.data_len);
    return true;
}

bool plk_mn_async_infoq(struct plk_mn *mn, struct plk_txq *q)
{
    if (!mn->n_infoq)
        return false;
    uint8_t svid = mn->infoq[0].svid, target = mn->infoq[0].target;
    memmove(mn->infoq, mn->infoq + 1, (mn->n_infoq - 1) * sizeof mn->infoq[0]);
    mn->n_infoq--;
    plk_mn_soa(mn, q, svid, target, NULL);
    return true;
}
