/* POWERLINK network configuration in memory, read from takt's own text file (INI-like,
 * docs/powerlink.md) or derived from an openPOWERLINK mnobd.cdc. One struct describes
 * the MN's cycle and every CN: identity, payloads, timeouts, chaining, PDO mapping. */
#ifndef TAKT_PLK_CONFIG_H
#define TAKT_PLK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "plk/proto.h"
#include "plk/pdo.h"

struct plk_cdc;

#define PLK_CFG_MAX_MAP 32       /* mapping entries per direction and node */
/* MN object NMT_MultiplCycleAssign_AU8 (DS 301): multiplexed cycle of node n (sub n) */
#define PLK_OD_MN_MULT_CYCLE_ASSIGN 0x1F9B

/* One CN as the MN sees it. Identity fields are checked only where *_check is set
 * (0x1F84..0x1F88 present in a CDC, or given in the file). */
struct plk_cfg_node {
    bool     present;
    uint8_t  node_id;
    uint32_t assignment;        /* 0x1F81 bits (PLK_NA_*, PLK_NA_VALID) */
    bool     mandatory;         /* PLK_NA_MANDATORY */
    bool     chained;           /* PollResponse Chaining (PLK_NA_PRES_CHAINING) */
    bool     async_only;        /* PLK_NA_ASYNC_ONLY: never polled, StatusRequest only */
    bool     multiplexed;       /* PLK_NA_MULTIPLEXED: polled in one cycle of a round */
    uint8_t  mux_cycle;         /* 0x1F9B/n: that cycle, 1..mux_cycles */
    uint32_t device_type, vendor_id, product_code, revision_no, serial_no;
    bool     device_type_check, vendor_check, product_check, revision_check, serial_check;
    uint16_t preq_payload;      /* 0x1F8B/n and CN 0x1F98/4: bytes, 36..1490 */
    uint16_t pres_payload;      /* 0x1F8D/n and CN 0x1F98/5 */
    uint32_t pres_timeout_ns;   /* 0x1F92/n */
    uint32_t loss_pres_threshold;   /* 0x1C09/n; 0 disables */
    uint32_t pres_time_first_ns;    /* chaining: PRes offset after the PResMN end */
    uint32_t conf_date, conf_time;  /* 0x1F26/0x1F27 expected; 0 = not checked */
    /* CN-side objects the MN downloads (or that a CDC's 0x1F22 carried) */
    uint32_t cn_loss_soc_threshold, cn_loss_preq_threshold;  /* CN 0x1C0B/3, 0x1C0D/3 */
    struct plk_pdo_entry rx_map[PLK_CFG_MAX_MAP];  /* CN RPDO: PReq payload -> CN objects */
    uint8_t  n_rx;
    struct plk_pdo_entry tx_map[PLK_CFG_MAX_MAP];  /* CN TPDO: CN objects -> PRes payload */
    uint8_t  n_tx;
    bool     has_mapping;       /* rx/tx maps configured (download them) */
    /* The MN's own PDO objects for this node (CDC 0x1400+k/0x1600+k with 0x1400+k/1 =
     * node: its PRes into the MN; 0x1800+k/0x1A00+k: the MN's PReq payload to it).
     * Offsets are in the node's PRes / PReq payload; they size the MN's process image. */
    struct plk_pdo_entry mn_rx_map[PLK_CFG_MAX_MAP];
    uint8_t  n_mn_rx;
    struct plk_pdo_entry mn_tx_map[PLK_CFG_MAX_MAP];
    uint8_t  n_mn_tx;
    bool     has_mn_map;
    uint8_t  mn_rx_chan, mn_tx_chan;   /* k of the first channel (for messages) */
};

struct plk_net_config {
    uint32_t cycle_us;          /* 0x1006 */
    uint8_t  mn_node_id;        /* 240 */
    uint32_t startup;           /* 0x1F80 */
    uint32_t async_mtu;         /* 0x1F98/8 */
    uint32_t prescaler;         /* 0x1F98/9 */
    uint8_t  mux_cycles;        /* 0x1F98/7 MultiplCycleCnt: cycles per round, 0 none */
    uint32_t async_slot_timeout_ns;  /* 0x1F8A/2 */
    uint32_t wait_soc_preq_ns;       /* 0x1F8A/1 */
    uint32_t cycle_exceed_threshold; /* 0x1C02/3 */
    uint32_t loss_soc_tolerance_ns;  /* 0x1C14 for the CNs */
    uint32_t boot_time_us[6];        /* 0x1F89/1..5 (index 0 unused) */
    bool     pres_mn;           /* MN sends a PResMN (needed for chaining) */
    uint16_t pres_mn_payload;   /* PResMN payload bytes (chaining outputs) */
    struct plk_cfg_node node[PLK_NODE_CN_MAX + 1];   /* index = node ID, 0 unused */
    unsigned n_nodes;
};

/* openPOWERLINK defaults: cycle 1000 µs unless given, payloads 36, PRes
 * timeout 25 µs, thresholds 15, async MTU 300, prescaler 2, boot times of 0x1F89. */
void plk_config_default(struct plk_net_config *cfg);
/* Defaults for one node, marked present. */
void plk_config_node_default(const struct plk_net_config *cfg, struct plk_cfg_node *n,
                             uint8_t node_id);
/* Add nodes first..last with default settings (the CLI's --nodes A-B). */
int plk_config_add_range(struct plk_net_config *cfg, unsigned first, unsigned last,
                         char *err, size_t errlen);

/* Parse takt's text format (starts from plk_config_default). err: "line N: ..." with the
 * node ID, key and reason. 0, -EINVAL (syntax/value) or -ERANGE. Runs plk_config_check. */
int plk_config_parse(struct plk_net_config *cfg, const char *text, size_t len,
                     char *err, size_t errlen);
/* plk_config_parse of a file; err begins with "PATH: ". */
int plk_config_load(struct plk_net_config *cfg, const char *path, char *err, size_t errlen);

/* Derive the configuration from a parsed MN CDC: 0x1F81 (nodes, mandatory, chaining),
 * 0x1006, 0x1C02/3, 0x1C09/n, 0x1C14, 0x1F84..0x1F88, 0x1F26/27, 0x1F8A, 0x1F8B/8D,
 * 0x1F92, 0x1F98, and per node 0x1F22/n (CN mapping, thresholds, payloads). */
int plk_config_from_cdc(struct plk_net_config *cfg, const struct plk_cdc *cdc,
                        char *err, size_t errlen);

/* Consistency: cycle >= 400 µs... err names node, object and reason. 0 or -EINVAL. */
int plk_config_check(const struct plk_net_config *cfg, char *err, size_t errlen);

/* Write the configuration back in the text format (round trip, `takt plk config`).
 * Returns bytes written (like snprintf) or negative. */
int plk_config_format(const struct plk_net_config *cfg, char *buf, size_t cap);

/* Concise DCF for node n (what the MN downloads into the CN, as 0x1F22/n would hold):
 * 0x1006, 0x1C0B/3, 0x1C0D/3, 0x1C14, 0x1F98/4,5, mapping. Returns bytes or -ENOSPC. */
int plk_config_node_dcf(const struct plk_net_config *cfg, uint8_t node, uint8_t *buf, size_t cap);

#endif
