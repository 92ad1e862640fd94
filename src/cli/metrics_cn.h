/* takt plk cn's metrics (metrics_cn.c): the simulated CNs' states and counters,
 * published by the network's thread, written by a reporter thread. */
#ifndef TAKT_CLI_METRICS_CN_H
#define TAKT_CLI_METRICS_CN_H

#include "cli/metrics.h"

/* A CN's figures: node ID, NMT state, and its counters (struct plk_cn_stats) by name. */
enum {
    MX_CN_PREQ_RX,
    MX_CN_PRES_TX,
    MX_CN_SOC_RX,
    MX_CN_SOA_RX,
    MX_CN_ASND_RX,
    MX_CN_ASND_TX,
    MX_CN_LOSS_SOC,
    MX_CN_LOSS_PREQ,
    MX_CN_CYCLE_ERRORS,
    MX_CN_BAD_FRAMES,
    MX_CN_SHORT_RX,
    MX_CN_NMT_CMDS,
    MX_CN_SDO_RX,
    MX_CN_STALE_DROPPED,
    MX_CN_NMTREQ_TX,
    MX_CN_NMTREQ_REFUSED,
    MX_CN_DROPPED,
    MX_CN_LATE,
    MX_CN_MALFORMED,
    MX_CN_COUNTERS
};
struct mx_plk_cn_node { uint8_t id, state; uint64_t c[MX_CN_COUNTERS]; };

struct cn_metrics;
/* From --metrics-file/--metrics-every/--metrics-listen, before the network runs (nodes:
 * the n CNs as they start): *out NULL when none are asked for. 0, or the exit status
 * after a message. Starts the reporter thread. */
int  cn_metrics_start(struct cli_ctx *c, const char *iface, const struct mx_plk_cn_node *nodes, unsigned n,
                      struct cn_metrics **out);
/* The network's thread, each period: publish (no allocation, never waits). */
void cn_metrics_publish(struct cn_metrics *cm, const struct mx_plk_cn_node *nodes, unsigned n);
/* After the network stopped: join the reporter, the last version from nodes, close. */
void cn_metrics_stop(struct cn_metrics *cm, const struct mx_plk_cn_node *nodes, unsigned n);

#endif
