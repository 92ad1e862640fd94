/* POWERLINK network configuration: defaults, consistency check, the per-CN concise DCF
 * the MN downloads, and writing the configuration back as text. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plk/config.h"
#include "plk/cdc.h"
#include "plk/config_int.h"

int plk_config_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}
#define fail plk_config_fail

void plk_config_default(struct plk_net_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cycle_us = 1000;
    cfg->mn_node_id = PLK_NODE_MN;
    cfg->startup = PLK_SU_MN_DEFAULT;
    cfg->async_mtu = PLK_ASYNC_MTU_MIN;
    cfg->prescaler = 2;
    cfg->async_slot_timeout_ns = PLK_DEF_ASYNC_SLOT_TIMEOUT_NS;
    cfg->wait_soc_preq_ns = 1000;
    cfg->cycle_exceed_threshold = PLK_DEF_ERR_THRESHOLD;
    cfg->loss_soc_tolerance_ns = PLK_DEF_LOSS_SOC_TOLERANCE_NS;
    /* 0x1F89 defaults of the oplk MN OD, µs */
    cfg->boot_time_us[PLK_BT_MN_WAIT_NOT_ACT] = 1000000;
    cfg->boot_time_us[PLK_BT_MN_TIMEOUT_PREOP1] = 500000;
    cfg->boot_time_us[PLK_BT_MN_WAIT_PREOP1] = 500000;
    cfg->boot_time_us[PLK_BT_MN_TIMEOUT_PREOP2] = 5000000;
    cfg->boot_time_us[PLK_BT_MN_TIMEOUT_READY_TO_OP] = 500000;
    cfg->pres_mn_payload = PLK_PAYLOAD_LIMIT_MIN;
}

void plk_config_node_default(const struct plk_net_config *cfg, struct plk_cfg_node *n,
                             uint8_t node_id)
{
    memset(n, 0, sizeof *n);
    n->present = true;
    n->node_id = node_id;
    n->assignment = PLK_NA_EXISTS | PLK_NA_IS_CN | PLK_NA_START_CN | PLK_NA_VALID;
    n->preq_payload = PLK_PAYLOAD_LIMIT_MIN;
    n->pres_payload = PLK_PAYLOAD_LIMIT_MIN;
    n->pres_timeout_ns = PLK_DEF_PRES_TIMEOUT_NS;
    n->loss_pres_threshold = PLK_DEF_ERR_THRESHOLD;
    n->cn_loss_soc_threshold = PLK_DEF_ERR_THRESHOLD;
    n->cn_loss_preq_threshold = PLK_DEF_ERR_THRESHOLD;
    (void)cfg;
}

int plk_config_add_range(struct plk_net_config *cfg, unsigned first, unsigned last,
                         char *err, size_t errlen)
{
    if (first < PLK_NODE_CN_MIN || last > PLK_NODE_CN_MAX || first > last)
        return fail(err, errlen, -EINVAL, "node range %u-%u: expected CN node IDs within "
                    "1-239, first <= last", first, last);
    for (unsigned id = first; id <= last; id++) {
        if (!cfg->node[id].present)
            cfg->n_nodes++;
        plk_config_node_default(cfg, &cfg->node[id], (uint8_t)id);
    }
    return 0;
}

/* Mapping entries: whole-byte ones byte aligned, BOOLEAN/BITn (length not a multiple
 * of 8) at any bit, inside the payload, not overlapping each other. */
static int check_map(const struct plk_cfg_node *n, const struct plk_pdo_entry *m,
                     unsigned count, uint16_t payload, const char *dir, uint16_t obj,
                     char *err, size_t errlen)
{
    for (unsigned i = 0; i < count; i++) {
        const struct plk_pdo_entry *e = &m[i];
        bool bits = plk_pdo_entry_is_bits(e);
        if (e->bit_len == 0 || (!bits && e->bit_offset % 8) || (bits && e->bit_len > 63))
            return fail(err, errlen, -EINVAL, "node %u, 0x%04X/%u (%s 0x%04X/%u): bit offset "
                        "%u length %u, expected a byte-aligned whole number of bytes or a "
                        "bit entry of 1..63 bits", n->node_id,
                        obj, i + 1, dir, e->index, e->sub, e->bit_offset, e->bit_len);
        unsigned end = plk_pdo_entry_end(e);
        if (end > payload)
            return fail(err, errlen, -EINVAL, "node %u, 0x%04X/%u (%s 0x%04X/%u): ends at "
                        "byte %u, beyond the %s payload of %u bytes", n->node_id, obj, i + 1,
                        dir, e->index, e->sub, end, dir, payload);
        for (unsigned j = 0; j < i; j++) {
            const struct plk_pdo_entry *o = &m[j];
            if (e->bit_offset < o->bit_offset + o->bit_len && o->bit_offset < e->bit_offset + e->bit_len)
                return fail(err, errlen, -EINVAL, "node %u, 0x%04X/%u (0x%04X/%u) overlaps "
                            "0x%04X/%u (0x%04X/%u) in the %s payload", n->node_id, obj, i + 1,
                            e->index, e->sub, obj, j + 1, o->index, o->sub, dir);
        }
    }
    return 0;
}

/* The MN's own mapping for a node against the CN's (same frame, other end): every MN
 * entry must meet a CN entry of the same bit offset and length, and both must cover
 * the same payload bytes. Chained CNs are left out: their PReq part is in the PResMN. */
static int check_mn_vs_cn(const struct plk_cfg_node *n, const struct plk_pdo_entry *mn,
                          unsigned n_mn, uint16_t mn_obj, const struct plk_pdo_entry *cn,
                          unsigned n_cn, uint16_t cn_obj, const char *frame,
                          char *err, size_t errlen)
{
    unsigned mn_end = 0, cn_end = 0;
    for (unsigned i = 0; i < n_mn; i++)
        if (plk_pdo_entry_end(&mn[i]) > mn_end)
            mn_end = plk_pdo_entry_end(&mn[i]);
    for (unsigned i = 0; i < n_cn; i++)
        if (plk_pdo_entry_end(&cn[i]) > cn_end)
            cn_end = plk_pdo_entry_end(&cn[i]);
    for (unsigned i = 0; i < n_mn; i++) {
        bool found = false;
        for (unsigned j = 0; j < n_cn && !found; j++)
            found = cn[j].bit_offset == mn[i].bit_offset && cn[j].bit_len == mn[i].bit_len;
        if (!found)
            return fail(err, errlen, -EINVAL, "node %u: MN 0x%04X/%u maps %u bits at bit %u of "
                        "its %s, the CN's 0x%04X has no entry there (MN %u bytes, CN %u bytes)",
                        n->node_id, mn_obj, i + 1, mn[i].bit_len, mn[i].bit_offset, frame,
                        cn_obj, mn_end, cn_end);
    }
    if (mn_end != cn_end)
        return fail(err, errlen, -EINVAL, "node %u: MN 0x%04X covers %u bytes of its %s, the "
                    "CN's 0x%04X %u bytes", n->node_id, mn_obj, mn_end, frame, cn_obj, cn_end);
    return 0;
}

static int check_mn_map(const struct plk_cfg_node *n, char *err, size_t errlen)
{
    uint16_t rx_obj = (uint16_t)(PLK_OD_RPDO_MAP + n->mn_rx_chan);
    uint16_t tx_obj = (uint16_t)(PLK_OD_TPDO_MAP + n->mn_tx_chan);
    /* the MN receives the node's PRes, sends its PReq */
    int rc = check_map(n, n->mn_rx_map, n->n_mn_rx, n->pres_payload, "PRes", rx_obj, err, errlen);
    if (!rc)
        rc = check_map(n, n->mn_tx_map, n->n_mn_tx, n->preq_payload, "PReq", tx_obj, err, errlen);
    if (rc || !n->has_mapping)
        return rc;
    rc = check_mn_vs_cn(n, n->mn_rx_map, n->n_mn_rx, rx_obj, n->tx_map, n->n_tx,
                        PLK_OD_TPDO_MAP, "PRes", err, errlen);
    if (!rc && !n->chained)
        rc = check_mn_vs_cn(n, n->mn_tx_map, n->n_mn_tx, tx_obj, n->rx_map, n->n_rx,
                            PLK_OD_RPDO_MAP, "PReq", err, errlen);
    return rc;
}

static int check_node(const struct plk_net_config *cfg, const struct plk_cfg_node *n,
                      char *err, size_t errlen)
{
    uint64_t cycle_ns = (uint64_t)cfg->cycle_us * 1000u;
    if (n->preq_payload < PLK_PAYLOAD_LIMIT_MIN || n->preq_payload > PLK_ISOCHR_MAX_PAYL)
        return fail(err, errlen, -EINVAL, "node %u, 0x1F8B (preq_payload): %u bytes, expected "
                    "%d..%d", n->node_id, n->preq_payload, PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL);
    if (n->pres_payload < PLK_PAYLOAD_LIMIT_MIN || n->pres_payload > PLK_ISOCHR_MAX_PAYL)
        return fail(err, errlen, -EINVAL, "node %u, 0x1F8D (pres_payload): %u bytes, expected "
                    "%d..%d", n->node_id, n->pres_payload, PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL);
    if (n->pres_timeout_ns == 0 || n->pres_timeout_ns >= cycle_ns)
        return fail(err, errlen, -EINVAL, "node %u, 0x1F92 (pres_timeout_ns): %u ns, expected "
                    "1..%llu (below the cycle)", n->node_id, n->pres_timeout_ns,
                    (unsigned long long)cycle_ns - 1);
    if (n->chained && n->async_only)
        return fail(err, errlen, -EINVAL, "node %u, 0x1F81: PRes chaining and async-only "
                    "exclude each other", n->node_id);
    if (n->multiplexed && (n->chained || n->async_only))
        return fail(err, errlen, -EINVAL, "node %u, 0x1F81: multiplexed excludes PRes chaining "
                    "and async-only", n->node_id);
    if (n->multiplexed && (cfg->mux_cycles < 2 || n->mux_cycle < 1 || n->mux_cycle > cfg->mux_cycles))
        return fail(err, errlen, -EINVAL, "node %u, 0x1F9B/%u (mux_cycle): %u, expected a "
                    "multiplexed cycle 1..%u of 0x1F98/7 (multiplexed_cycles = %u, at least 2)",
                    n->node_id, n->node_id, n->mux_cycle, cfg->mux_cycles, cfg->mux_cycles);
    if (n->chained && !cfg->pres_mn)
        return fail(err, errlen, -EINVAL, "node %u, 0x1F81: PRes chaining needs the MN's "
                    "PResMN (pres_mn = yes)", n->node_id);
    if (n->chained && n->pres_time_first_ns >= cycle_ns)
        return fail(err, errlen, -EINVAL, "node %u, 0x1F98/0x0B (pres_time_first_ns): %u ns, "
                    "not within the cycle of %llu ns", n->node_id, n->pres_time_first_ns,
                    (unsigned long long)cycle_ns);
    int rc = check_map(n, n->rx_map, n->n_rx, n->preq_payload, "PReq", PLK_OD_RPDO_MAP, err, errlen);
    if (!rc)
        rc = check_map(n, n->tx_map, n->n_tx, n->pres_payload, "PRes", PLK_OD_TPDO_MAP, err, errlen);
    if (!rc && n->has_mn_map)
        rc = check_mn_map(n, err, errlen);
    return rc;
}

int plk_config_check(const struct plk_net_config *cfg, char *err, size_t errlen)
{
    if (cfg->cycle_us == 0 || cfg->cycle_us > 60000000u)
        return fail(err, errlen, -EINVAL, "0x1006 (cycle_us): %u µs, expected 1..60000000",
                    cfg->cycle_us);
    if (cfg->mn_node_id != PLK_NODE_MN)
        return fail(err, errlen, -EINVAL, "MN node ID %u, expected 240", cfg->mn_node_id);
    if (cfg->async_mtu < PLK_ASYNC_MTU_MIN || cfg->async_mtu > PLK_ASYNC_MTU_MAX)
        return fail(err, errlen, -EINVAL, "0x1F98/8 (async_mtu): %u, expected %d..%d",
                    cfg->async_mtu, PLK_ASYNC_MTU_MIN, PLK_ASYNC_MTU_MAX);
    if (cfg->prescaler > 1000)
        return fail(err, errlen, -EINVAL, "0x1F98/9 (prescaler): %u, expected 0..1000", cfg->prescaler);
    if (cfg->async_slot_timeout_ns >= (uint64_t)cfg->cycle_us * 1000u)
        return fail(err, errlen, -EINVAL, "0x1F8A/2 (async_slot_timeout_ns): %u ns is not "
                    "shorter than the cycle of %u µs", cfg->async_slot_timeout_ns, cfg->cycle_us);
    if (cfg->pres_mn && (cfg->pres_mn_payload < PLK_PAYLOAD_LIMIT_MIN ||
                         cfg->pres_mn_payload > PLK_ISOCHR_MAX_PAYL))
        return fail(err, errlen, -EINVAL, "pres_mn_payload: %u bytes, expected %d..%d",
                    cfg->pres_mn_payload, PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL);
    unsigned count = 0;
    for (unsigned id = PLK_NODE_CN_MIN; id <= PLK_NODE_CN_MAX; id++) {
        const struct plk_cfg_node *n = &cfg->node[id];
        if (!n->present)
            continue;
        count++;
        if (n->node_id != id)
            return fail(err, errlen, -EINVAL, "node slot %u holds node ID %u", id, n->node_id);
        int rc = check_node(cfg, n, err, errlen);
        if (rc)
            return rc;
    }
    if (count == 0)
        return fail(err, errlen, -EINVAL, "no CN configured (0x1F81 has no node with the "
                    "exists and CN bits)");
    if (count != cfg->n_nodes)
        return fail(err, errlen, -EINVAL, "n_nodes is %u, but %u nodes are present",
                    cfg->n_nodes, count);
    return 0;
}

/* Concise DCF of a node: what openCONFIGURATOR writes into 0x1F22/n (CiA 302-3 concise DCF). */
int plk_config_node_dcf(const struct plk_net_config *cfg, uint8_t node, uint8_t *buf, size_t cap)
{
    if (!PLK_IS_CN(node) || !cfg->node[node].present)
        return -ENOENT;
    const struct plk_cfg_node *n = &cfg->node[node];
    int u = plk_cdc_begin(buf, cap);
#define ADD(i, s, v, sz) do { if (u >= 0) u = plk_cdc_append_u(buf, cap, (size_t)u, i, s, v, sz); } while (0)
    if (n->has_mapping) {
        ADD(PLK_OD_RPDO_MAP, 0, 0, 1);                  /* disable while rewriting */
        ADD(PLK_OD_TPDO_MAP, 0, 0, 1);
    }
    ADD(PLK_OD_CYCLE_LEN, 0, cfg->cycle_us, 4);
    if (n->conf_date || n->conf_time) {
        ADD(PLK_OD_VERIFY_CONF, 1, n->conf_date, 4);
        ADD(PLK_OD_VERIFY_CONF, 2, n->conf_time, 4);
    }
    ADD(PLK_OD_CN_LOSS_SOC, PLK_EC_THRESHOLD, n->cn_loss_soc_threshold, 4);
    ADD(PLK_OD_CN_LOSS_PREQ, PLK_EC_THRESHOLD, n->cn_loss_preq_threshold, 4);
    ADD(PLK_OD_LOSS_SOC_TOLERANCE, 0, cfg->loss_soc_tolerance_ns, 4);
    ADD(PLK_OD_CYCLE_TIMING, PLK_CT_PREQ_ACT_PAYLOAD, n->preq_payload, 2);
    ADD(PLK_OD_CYCLE_TIMING, PLK_CT_PRES_ACT_PAYLOAD, n->pres_payload, 2);
    if (n->multiplexed)
        ADD(PLK_OD_CYCLE_TIMING, PLK_CT_MULT_CYCLE_CNT, cfg->mux_cycles, 1);
    if (n->has_mapping) {
        for (unsigned i = 0; i < n->n_rx; i++)
            ADD(PLK_OD_RPDO_MAP, (uint8_t)(i + 1), plk_pdo_entry_encode(&n->rx_map[i]), 8);
        for (unsigned i = 0; i < n->n_tx; i++)
            ADD(PLK_OD_TPDO_MAP, (uint8_t)(i + 1), plk_pdo_entry_encode(&n->tx_map[i]), 8);
        ADD(PLK_OD_RPDO_MAP, 0, n->n_rx, 1);
        ADD(PLK_OD_TPDO_MAP, 0, n->n_tx, 1);
    }
#undef ADD
    return u;
}
