/* The standard communication objects of a CN (EPSG DS 301 object dictionary; defaults as in openPOWERLINK's
 * CiA401_CN objdict.h and demo CN), so every takt CN answers the same SDO reads and
 * takes the same DCF downloads as the CN an openCONFIGURATOR project expects. */
#include <errno.h>
#include <string.h>
#include "plk/od.h"
#include "plk/proto.h"

#define PDO_MAP_ENTRIES 25   /* subs per 0x1600/0x1A00 object in the oplk demo CN */

void plk_od_cn_params_default(struct plk_od_cn_params *p, uint8_t node_id)
{
    memset(p, 0, sizeof *p);
    p->node_id = node_id;
    p->device_type = PLK_OPLK_DEMO_DEVICE_TYPE;
    p->revision_no = 0x00020007;                     /* oplk demo CN */
    p->cycle_len_us = 50000;                         /* oplk demo CN CYCLE_LEN */
    p->feature_flags = PLK_FEAT_OPLK_DEMO_CN;
    p->preq_payload_limit = PLK_PAYLOAD_LIMIT_MIN;
    p->pres_payload_limit = PLK_PAYLOAD_LIMIT_MIN;
    p->async_mtu = PLK_ASYNC_MTU_MIN;
    p->loss_soc_tolerance_ns = PLK_DEF_LOSS_SOC_TOLERANCE_NS;
    p->n_pdo = 1;
}

/* Error counter record: 1 cumulative, 2 threshold count (read-only), 3 threshold. */
static int add_errcnt(struct plk_od *od, uint16_t index)
{
    int rc = plk_od_add(od, index, 0, PLK_OT_U8, PLK_OA_CONST, 3);
    if (!rc) rc = plk_od_add(od, index, PLK_EC_CUMULATIVE, PLK_OT_U32, PLK_OA_RW, 0);
    if (!rc) rc = plk_od_add(od, index, PLK_EC_THRESHOLD_CNT, PLK_OT_U32, PLK_OA_READ, 0);
    if (!rc) rc = plk_od_add(od, index, PLK_EC_THRESHOLD, PLK_OT_U32, PLK_OA_RW,
                             PLK_DEF_ERR_THRESHOLD);
    return rc;
}

static int add_pdo(struct plk_od *od, uint16_t comm, uint16_t map)
{
    int rc = plk_od_add(od, comm, 0, PLK_OT_U8, PLK_OA_CONST, 2);
    if (!rc) rc = plk_od_add(od, comm, 1, PLK_OT_U8, PLK_OA_RW, 0);   /* NodeID */
    if (!rc) rc = plk_od_add(od, comm, 2, PLK_OT_U8, PLK_OA_RW, 0);   /* MappingVersion */
    if (!rc) rc = plk_od_add_array(od, map, PDO_MAP_ENTRIES, PLK_OA_RW, PLK_OT_U64, PLK_OA_RW, 0);
    /* An empty mapping until configured, as openPOWERLINK's demo CN. */
    if (!rc) rc = plk_od_set_u64(od, map, 0, 0);
    if (!rc) { struct plk_od_entry *e = plk_od_find(od, map, 0); e->def = 0; }
    return rc;
}

static int add_cycle_timing(struct plk_od *od, const struct plk_od_cn_params *p)
{
    const uint16_t I = PLK_OD_CYCLE_TIMING;
    int rc = plk_od_add(od, I, 0, PLK_OT_U8, PLK_OA_CONST, 9);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_ISOCHR_TX_MAX, PLK_OT_U16, PLK_OA_CONST, PLK_ISOCHR_MAX_PAYL);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_ISOCHR_RX_MAX, PLK_OT_U16, PLK_OA_CONST, PLK_ISOCHR_MAX_PAYL);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_PRES_MAX_LATENCY, PLK_OT_U32, PLK_OA_READ, 50000);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_PREQ_ACT_PAYLOAD, PLK_OT_U16, PLK_OA_RW, p->preq_payload_limit);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_PRES_ACT_PAYLOAD, PLK_OT_U16, PLK_OA_RW, p->pres_payload_limit);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_ASND_MAX_LATENCY, PLK_OT_U32, PLK_OA_READ, 150000);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_MULT_CYCLE_CNT, PLK_OT_U8, PLK_OA_RW, 0);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_ASYNC_MTU, PLK_OT_U16, PLK_OA_RW, p->async_mtu);
    if (!rc) rc = plk_od_add(od, I, PLK_CT_PRESCALER, PLK_OT_U16, PLK_OA_RW, 2);
    if (!rc) rc = plk_od_set_range(od, I, PLK_CT_PREQ_ACT_PAYLOAD, PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL);
    if (!rc) rc = plk_od_set_range(od, I, PLK_CT_PRES_ACT_PAYLOAD, PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL);
    if (!rc) rc = plk_od_set_range(od, I, PLK_CT_ASYNC_MTU, PLK_ASYNC_MTU_MIN, PLK_ASYNC_MTU_MAX);
    return rc;
}

int plk_od_add_cn_profile(struct plk_od *od, const struct plk_od_cn_params *p)
{
    if (!PLK_IS_CN(p->node_id) || p->n_pdo == 0)
        return -EINVAL;
    int rc = plk_od_add(od, PLK_OD_DEVICE_TYPE, 0, PLK_OT_U32, PLK_OA_CONST, p->device_type);
    if (!rc) rc = plk_od_add(od, PLK_OD_ERROR_REGISTER, 0, PLK_OT_U8, PLK_OA_READ, 0);
    /* oplk's range starts at 400 µs; takt also runs shorter cycles, so only 0 is refused. */
    if (!rc) rc = plk_od_add(od, PLK_OD_CYCLE_LEN, 0, PLK_OT_U32, PLK_OA_RW, p->cycle_len_us);
    if (!rc) rc = plk_od_set_range(od, PLK_OD_CYCLE_LEN, 0, 1, UINT32_MAX);
    if (!rc) rc = plk_od_add(od, PLK_OD_IDENTITY, 0, PLK_OT_U8, PLK_OA_CONST, 4);
    if (!rc) rc = plk_od_add(od, PLK_OD_IDENTITY, 1, PLK_OT_U32, PLK_OA_CONST, p->vendor_id);
    if (!rc) rc = plk_od_add(od, PLK_OD_IDENTITY, 2, PLK_OT_U32, PLK_OA_CONST, p->product_code);
    if (!rc) rc = plk_od_add(od, PLK_OD_IDENTITY, 3, PLK_OT_U32, PLK_OA_CONST, p->revision_no);
    if (!rc) rc = plk_od_add(od, PLK_OD_IDENTITY, 4, PLK_OT_U32, PLK_OA_CONST, p->serial_no);
    if (!rc) rc = plk_od_add(od, PLK_OD_VERIFY_CONF, 0, PLK_OT_U8, PLK_OA_CONST, 2);
    if (!rc) rc = plk_od_add(od, PLK_OD_VERIFY_CONF, 1, PLK_OT_U32, PLK_OA_RW, 0);
    if (!rc) rc = plk_od_add(od, PLK_OD_VERIFY_CONF, 2, PLK_OT_U32, PLK_OA_RW, 0);
    if (!rc) rc = plk_od_add(od, PLK_OD_SDO_SEQ_TIMEOUT, 0, PLK_OT_U32, PLK_OA_RW, PLK_DEF_SDO_SEQ_TIMEOUT_MS);
    for (unsigned n = 0; !rc && n < p->n_pdo; n++) {
        rc = add_pdo(od, (uint16_t)(PLK_OD_RPDO_COMM + n), (uint16_t)(PLK_OD_RPDO_MAP + n));
        if (!rc)
            rc = add_pdo(od, (uint16_t)(PLK_OD_TPDO_COMM + n), (uint16_t)(PLK_OD_TPDO_MAP + n));
    }
    if (!rc) rc = add_errcnt(od, PLK_OD_CN_LOSS_SOC);
    if (!rc) rc = add_errcnt(od, PLK_OD_CN_LOSS_PREQ);
    if (!rc) rc = add_errcnt(od, PLK_OD_CN_CRC_ERROR);
    if (!rc) rc = plk_od_add(od, PLK_OD_LOSS_SOC_TOLERANCE, 0, PLK_OT_U32, PLK_OA_RW, p->loss_soc_tolerance_ns);
    if (!rc) rc = plk_od_add(od, PLK_OD_FEATURE_FLAGS, 0, PLK_OT_U32, PLK_OA_CONST, p->feature_flags);
    if (!rc) rc = plk_od_add(od, PLK_OD_EPL_NODE_ID, 0, PLK_OT_U8, PLK_OA_CONST, 2);
    if (!rc) rc = plk_od_add(od, PLK_OD_EPL_NODE_ID, 1, PLK_OT_U8, PLK_OA_READ, p->node_id);
    if (!rc) rc = plk_od_add(od, PLK_OD_EPL_NODE_ID, 2, PLK_OT_BOOL, PLK_OA_READ, 1);
    if (!rc) rc = add_cycle_timing(od, p);
    if (!rc) rc = plk_od_add(od, PLK_OD_CN_BASIC_ETH_TIMEOUT, 0, PLK_OT_U32, PLK_OA_RW, PLK_DEF_BASIC_ETH_TIMEOUT_US);
    return rc;
}
