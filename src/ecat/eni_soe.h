/* SoE and EoE init commands of an ENI (Mailbox/SoE/InitCmds, Mailbox/EoE/InitCmds,
 * ETG.2100) run at their transition after the CoE ones: one service at a time through
 * the master's SoE and EoE clients. */
#ifndef TAKT_ECAT_ENI_SOE_H
#define TAKT_ECAT_ENI_SOE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>
#include <takt/ecat.h>

struct ecat_core;

struct ecat_plan_cmd;

/* Start one SoE or EoE command of the plan for slave pos; fn ends it. 0 or <0. */
int ecat_eni_mbx_start(struct ecat_core *m, unsigned pos, const struct ecat_plan_cmd *c, takt_ecat_done_fn fn,
                       void *ctx);
/* What the command is, for messages: "SoE write of IDN S-0-0040 drive 0". */
void ecat_eni_mbx_what(const struct ecat_plan_cmd *c, char *b, size_t n);

/* At configure time: the EoE ports the ENI's EoE init commands need. 0 or <0 (message). */
int ecat_eni_mbx_setup(struct ecat_core *m);

#endif
