/* The network configuration from an openPOWERLINK MN concise DCF (mnobd.cdc), so an
 * openCONFIGURATOR project runs on takt unchanged: MN objects by index (EPSG DS 301 object dictionary; CiA 302-3 concise DCF)
 * and each CN's own DCF in 0x1F22/n for its mapping, payloads and thresholds. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "plk/cdc.h"
#include "plk/config.h"
#include "plk/config_int.h"

#define fail plk_config_fail

/* A numeric entry whose size must be one of the object's. */
static int num(const struct plk_cdc_entry *e, unsigned idx, uint32_t want_size, uint64_t *v,
               const char *who, char *err, size_t errlen)
{
    if (e->size != want_size)
        return fail(err, errlen, -EINVAL, "%sCDC entry %u (0x%04X/%u) at offset %zu: size %u, "
                    "expected %u", who, idx, e->index, e->sub, e->offset, e->size, want_size);
    plk_cdc_entry_u64(e, v);
    return 0;
}

static void set_assignment(struct plk_net_config *cfg, uint8_t id, uint32_t v)
{
    struct plk_cfg_node *n = &cfg->node[id];
    bool is_cn = (v & PLK_NA_EXISTS) && (v & PLK_NA_IS_CN);
    if (!is_cn) {
        if (n->present)
            cfg->n_nodes--;
        memset(n, 0, sizeof *n);
        return;
    }
    if (!n->present) {
        plk_config_node_default(cfg, n, id);
        cfg->n_nodes++;
    }
    n->assignment = v;
    n->mandatory = v & PLK_NA_MANDATORY;
    n->chained = v & PLK_NA_PRES_CHAINING;
    n->async_only = v & PLK_NA_ASYNC_ONLY;
    n->multiplexed = v & PLK_NA_MULTIPLEXED;
}

/* Per-node objects of the MN's OD (sub = node ID). */
static int mn_node_entry(struct plk_net_config *cfg, const struct plk_cdc_entry *e,
                         unsigned i, char *err, size_t errlen)
{
    uint8_t id = e->sub;
    uint64_t v;
    uint32_t size = e->index == PLK_OD_MN_PREQ_PAYLOAD_LIMIT ||
                    e->index == PLK_OD_MN_PRES_PAYLOAD_LIMIT ? 2 :
                    e->index == PLK_OD_MN_MULT_CYCLE_ASSIGN ? 1 : 4;
    int rc = num(e, i, size, &v, "", err, errlen);
    if (rc)
        return rc;
    if (!PLK_IS_CN(id))
        return 0;                        /* sub 0 (count) or the MN's own entry */
    struct plk_cfg_node *n = &cfg->node[id];
    switch (e->index) {
    case PLK_OD_EXP_CONF_DATE: n->conf_date = (uint32_t)v; break;
    case PLK_OD_EXP_CONF_TIME: n->conf_time = (uint32_t)v; break;
    case PLK_OD_MN_DEVICE_TYPE_LIST: n->device_type = (uint32_t)v; n->device_type_check = v != 0; break;
    case PLK_OD_MN_VENDOR_ID_LIST: n->vendor_id = (uint32_t)v; n->vendor_check = v != 0; break;
    case PLK_OD_MN_PRODUCT_CODE_LIST: n->product_code = (uint32_t)v; n->product_check = v != 0; break;
    case PLK_OD_MN_REVISION_LIST: n->revision_no = (uint32_t)v; n->revision_check = v != 0; break;
    case PLK_OD_MN_SERIAL_LIST: n->serial_no = (uint32_t)v; n->serial_check = v != 0; break;
    case PLK_OD_MN_PREQ_PAYLOAD_LIMIT: n->preq_payload = (uint16_t)v; break;
    case PLK_OD_MN_PRES_PAYLOAD_LIMIT: n->pres_payload = (uint16_t)v; break;
    case PLK_OD_MN_CN_PRES_TIMEOUT: n->pres_timeout_ns = (uint32_t)v; break;
    case PLK_OD_MN_CN_LOSS_PRES_TH: n->loss_pres_threshold = (uint32_t)v; break;
    case PLK_OD_MN_MULT_CYCLE_ASSIGN: n->mux_cycle = (uint8_t)v; break;
    default: break;
    }
    return 0;
}

static int mn_entry(struct plk_net_config *cfg, const struct plk_cdc_entry *e, unsigned i,
                    char *err, size_t errlen)
{
    uint64_t v;
    int rc = 0;
    switch (e->index) {
    case PLK_OD_NODE_ASSIGNMENT:
        if ((rc = num(e, i, 4, &v, "", err, errlen)))
            return rc;
        if (e->sub == PLK_NODE_MN)
            cfg->pres_mn = v & PLK_NA_PRES_MN;
        else if (PLK_IS_CN(e->sub))
            set_assignment(cfg, e->sub, (uint32_t)v);
        else if (e->sub > PLK_NODE_MN && e->sub <= 250)
            /* the ids above the MN's carry the standby MNs of MN redundancy (EPSG DS
             * 302-A; oplk's Demo_RMN_3CN numbers them from 241) */
            return fail(err, errlen, -EINVAL, "CDC entry %u (0x1F81/%u) at offset %zu: node "
                        "%u is a redundant MN of an MN-redundancy network, and redundant MNs "
                        "are not supported: expected CNs (1-239) and the MN (240)", i, e->sub,
                        e->offset, e->sub);
        else if (e->sub != 0)
            return fail(err, errlen, -EINVAL, "CDC entry %u (0x1F81/%u) at offset %zu: node "
                        "%u is neither a CN (1-239) nor the MN (240)", i, e->sub, e->offset, e->sub);
        return 0;
    case PLK_OD_CYCLE_LEN:
        if (!(rc = num(e, i, 4, &v, "", err, errlen)))
            cfg->cycle_us = (uint32_t)v;
        return rc;
    case PLK_OD_NMT_STARTUP:
        if (!(rc = num(e, i, 4, &v, "", err, errlen)))
            cfg->startup = (uint32_t)v;
        return rc;
    case PLK_OD_MN_CYC_TIME_EXCEED:
        if (e->sub == PLK_EC_THRESHOLD && !(rc = num(e, i, 4, &v, "", err, errlen)))
            cfg->cycle_exceed_threshold = (uint32_t)v;
        return rc;
    case PLK_OD_LOSS_SOC_TOLERANCE:
        if (!(rc = num(e, i, 4, &v, "", err, errlen)))
            cfg->loss_soc_tolerance_ns = (uint32_t)v;
        return rc;
    case PLK_OD_MN_CYCLE_TIMING:
        if ((e->sub == 1 || e->sub == 2) && !(rc = num(e, i, 4, &v, "", err, errlen))) {
            if (e->sub == 1)
                cfg->wait_soc_preq_ns = (uint32_t)v;
            else
                cfg->async_slot_timeout_ns = (uint32_t)v;
        }
        return rc;
    case PLK_OD_BOOT_TIME:
        if (e->sub >= 1 && e->sub <= 5 && !(rc = num(e, i, 4, &v, "", err, errlen)))
            cfg->boot_time_us[e->sub] = (uint32_t)v;
        return rc;
    case PLK_OD_CYCLE_TIMING:
        if (e->sub == PLK_CT_ASYNC_MTU && !(rc = num(e, i, 2, &v, "", err, errlen)))
            cfg->async_mtu = (uint32_t)v;
        if (e->sub == PLK_CT_PRESCALER && !(rc = num(e, i, 2, &v, "", err, errlen)))
            cfg->prescaler = (uint32_t)v;
        if (e->sub == PLK_CT_MULT_CYCLE_CNT && !(rc = num(e, i, 1, &v, "", err, errlen)))
            cfg->mux_cycles = (uint8_t)v;
        return rc;
    case PLK_OD_EXP_CONF_DATE: case PLK_OD_EXP_CONF_TIME:
    case PLK_OD_MN_DEVICE_TYPE_LIST: case PLK_OD_MN_VENDOR_ID_LIST:
    case PLK_OD_MN_PRODUCT_CODE_LIST: case PLK_OD_MN_REVISION_LIST: case PLK_OD_MN_SERIAL_LIST:
    case PLK_OD_MN_PREQ_PAYLOAD_LIMIT: case PLK_OD_MN_PRES_PAYLOAD_LIMIT:
    case PLK_OD_MN_CN_PRES_TIMEOUT: case PLK_OD_MN_CN_LOSS_PRES_TH:
    case PLK_OD_MN_MULT_CYCLE_ASSIGN:
        return e->sub ? mn_node_entry(cfg, e, i, err, errlen) : 0;
    default:
        return 0;            /* MN PDO objects and the rest: not needed by takt's MN */
    }
}

/* One CN's DCF, applied in order like the CN's OD would take it. */
static int node_dcf(struct plk_net_config *cfg, uint8_t id, const struct plk_cdc *dcf,
                    char *err, size_t errlen)
{
    struct plk_cfg_node *n = &cfg->node[id];
    uint64_t rx[PLK_CFG_MAX_MAP + 1] = { 0 }, tx[PLK_CFG_MAX_MAP + 1] = { 0 };
    uint64_t n_rx = 0, n_tx = 0, v;
    char who[32];
    snprintf(who, sizeof who, "node %u, 0x1F22/%u: ", id, id);
    struct plk_cdc_iter it;
    struct plk_cdc_entry e;
    plk_cdc_iter_init(&it, dcf);
    while (plk_cdc_next(&it, &e)) {
        int rc = 0;
        if (e.index == PLK_OD_RPDO_MAP || e.index == PLK_OD_TPDO_MAP) {
            bool is_rx = e.index == PLK_OD_RPDO_MAP;
            if (e.sub > PLK_CFG_MAX_MAP)
                return fail(err, errlen, -EINVAL, "%sentry %u (0x%04X/%u): more than %d "
                            "mapping entries", who, it.n, e.index, e.sub, PLK_CFG_MAX_MAP);
            if ((rc = num(&e, it.n, e.sub ? 8 : 1, &v, who, err, errlen)))
                return rc;
            if (e.sub == 0) {
                if (v > PLK_CFG_MAX_MAP)
                    return fail(err, errlen, -EINVAL, "%sentry %u (0x%04X/0) = %llu, at most "
                                "%d entries", who, it.n, e.index, (unsigned long long)v,
                                PLK_CFG_MAX_MAP);
                *(is_rx ? &n_rx : &n_tx) = v;
            } else {
                (is_rx ? rx : tx)[e.sub] = v;
            }
            n->has_mapping = true;
        } else if (e.index == PLK_OD_CN_LOSS_SOC && e.sub == PLK_EC_THRESHOLD) {
            if (!(rc = num(&e, it.n, 4, &v, who, err, errlen)))
                n->cn_loss_soc_threshold = (uint32_t)v;
        } else if (e.index == PLK_OD_CN_LOSS_PREQ && e.sub == PLK_EC_THRESHOLD) {
            if (!(rc = num(&e, it.n, 4, &v, who, err, errlen)))
                n->cn_loss_preq_threshold = (uint32_t)v;
        } else if (e.index == PLK_OD_CYCLE_TIMING && e.sub == PLK_CT_PREQ_ACT_PAYLOAD) {
            if (!(rc = num(&e, it.n, 2, &v, who, err, errlen)))
                n->preq_payload = (uint16_t)v;
        } else if (e.index == PLK_OD_CYCLE_TIMING && e.sub == PLK_CT_PRES_ACT_PAYLOAD) {
            if (!(rc = num(&e, it.n, 2, &v, who, err, errlen)))
                n->pres_payload = (uint16_t)v;
        } else if (e.index == PLK_OD_CYCLE_TIMING && e.sub == PLK_CT_PRES_TIME_FIRST) {
            if (!(rc = num(&e, it.n, 4, &v, who, err, errlen)))
                n->pres_time_first_ns = (uint32_t)v;
        } else if (e.index == PLK_OD_CYCLE_LEN) {
            if (!(rc = num(&e, it.n, 4, &v, who, err, errlen)) && v != cfg->cycle_us)
                return fail(err, errlen, -EINVAL, "%sentry %u: 0x1006 = %llu µs, but the MN "
                            "cycle is %u µs", who, it.n, (unsigned long long)v, cfg->cycle_us);
        }
        if (rc)
            return rc;
    }
    for (unsigned k = 0; k < n_rx; k++)
        n->rx_map[k] = plk_pdo_entry_decode(rx[k + 1]);
    for (unsigned k = 0; k < n_tx; k++)
        n->tx_map[k] = plk_pdo_entry_decode(tx[k + 1]);
    n->n_rx = (uint8_t)n_rx;
    n->n_tx = (uint8_t)n_tx;
    return 0;
}

/* One MN PDO channel k: comm object (0x1400+k / 0x1800+k) sub 1 names the node, the
 * mapping object's final sub 0 the count (CDC entries apply in order: the last wins). */
static int mn_pdo_channel(struct plk_net_config *cfg, const struct plk_cdc *cdc, unsigned k,
                          bool rx, char *err, size_t errlen)
{
    uint16_t comm = (uint16_t)((rx ? PLK_OD_RPDO_COMM : PLK_OD_TPDO_COMM) + k);
    uint16_t map = (uint16_t)((rx ? PLK_OD_RPDO_MAP : PLK_OD_TPDO_MAP) + k);
    struct plk_cdc_entry e;
    uint64_t node, count, v;
    if (plk_cdc_find(cdc, comm, 1, &e))
        return 0;
    int rc = num(&e, 0, 1, &node, "", err, errlen);
    if (rc)
        return rc;
    /* node 0 in a TPDO channel is the PResMN (chaining); not an MN process image */
    if (!PLK_IS_CN(node) || !cfg->node[node].present)
        return 0;
    struct plk_cfg_node *n = &cfg->node[node];
    if (plk_cdc_find(cdc, map, 0, &e))
        return 0;
    if ((rc = num(&e, 0, 1, &count, "", err, errlen)))
        return rc;
    struct plk_pdo_entry *m = rx ? n->mn_rx_map : n->mn_tx_map;
    uint8_t *nm = rx ? &n->n_mn_rx : &n->n_mn_tx;
    if (*nm == 0)
        *(rx ? &n->mn_rx_chan : &n->mn_tx_chan) = (uint8_t)k;
    for (unsigned sub = 1; sub <= count; sub++) {
        if (plk_cdc_find(cdc, map, (uint8_t)sub, &e))
            return fail(err, errlen, -EINVAL, "node %u: MN 0x%04X/0 = %llu, but 0x%04X/%u is "
                        "missing", (unsigned)node, map, (unsigned long long)count, map, sub);
        if ((rc = num(&e, 0, 8, &v, "", err, errlen)))
            return rc;
        struct plk_pdo_entry x = plk_pdo_entry_decode(v);
        if (x.bit_len == 0)
            continue;
        if (*nm >= PLK_CFG_MAX_MAP)
            return fail(err, errlen, -EINVAL, "node %u: MN 0x%04X: more than %d mapping "
                        "entries for this node", (unsigned)node, map, PLK_CFG_MAX_MAP);
        m[(*nm)++] = x;
    }
    n->has_mn_map = true;
    return 0;
}

int plk_config_from_cdc(struct plk_net_config *cfg, const struct plk_cdc *cdc,
                        char *err, size_t errlen)
{
    plk_config_default(cfg);
    struct plk_cdc_iter it;
    struct plk_cdc_entry e;
    /* Pass 1: node assignment first, then every per-node object can land. */
    plk_cdc_iter_init(&it, cdc);
    while (plk_cdc_next(&it, &e))
        if (e.index == PLK_OD_NODE_ASSIGNMENT) {
            int rc = mn_entry(cfg, &e, it.n, err, errlen);
            if (rc)
                return rc;
        }
    plk_cdc_iter_init(&it, cdc);
    while (plk_cdc_next(&it, &e)) {
        if (e.index == PLK_OD_NODE_ASSIGNMENT || e.index == PLK_OD_CONCISE_DCF_LIST)
            continue;
        int rc = mn_entry(cfg, &e, it.n, err, errlen);
        if (rc)
            return rc;
    }
    for (unsigned id = PLK_NODE_CN_MIN; id <= PLK_NODE_CN_MAX; id++) {
        if (!cfg->node[id].present)
            continue;
        struct plk_cdc dcf;
        char sub[200];
        int rc = plk_cdc_node_dcf(cdc, (uint8_t)id, &dcf, sub, sizeof sub);
        if (rc == -ENOENT)
            continue;                    /* a CN without DCF keeps its own settings */
        if (rc)
            return fail(err, errlen, rc, "node %u: %s", id, sub);
        if ((rc = node_dcf(cfg, (uint8_t)id, &dcf, err, errlen)))
            return rc;
    }
    for (unsigned k = 0; k < 256; k++) {
        int rc = mn_pdo_channel(cfg, cdc, k, true, err, errlen);
        if (!rc)
            rc = mn_pdo_channel(cfg, cdc, k, false, err, errlen);
        if (rc)
            return rc;
    }
    return plk_config_check(cfg, err, errlen);
}
