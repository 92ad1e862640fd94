/* takt plk cn's metrics (metrics_cn.c): the simulated CNs' states and counters,
 * published by the network's thread, written by a reporter thread. */
#ifndef TAKT_CLI_METRICS_CN_H
#define TAKT_CLI_METRICS_CN_H

#include "cli/metrics.h"

struct sim_plk_net;
struct cn_metrics;
/* From --metrics-file/--metrics-every/--metrics-listen, once s holds its CNs and before
 * it runs: *out NULL when none are asked for. 0, or the exit status after a message. */
int  cn_metrics_start(struct cli_ctx *c, const char *iface, struct sim_plk_net *s, struct cn_metrics **out);
/* After the network stopped: the last version from the counters, then close. */
void cn_metrics_stop(struct cn_metrics *cm);

#endif
