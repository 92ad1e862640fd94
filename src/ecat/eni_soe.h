/* SoE and EoE init commands of an ENI (Mailbox/SoE/InitCmds, Mailbox/EoE/InitCmds,
 * ETG.2100) run at their transition after the CoE ones: one service at a time through
 * the master's SoE and EoE clients. */
#ifndef TAKT_ECAT_ENI_SOE_H
#define TAKT_ECAT_ENI_SOE_H
#include <stdbool.h>
#include <stdint.h>
#include <takt/takt.h>

struct ecat_core;

struct ecat_eni_mbx_run {
    struct ecat_core *m;
    unsigned  k;                    /* next SoE command, then n_soe + next EoE command */
    bool      sent, busy;
    int       rc;
    takt_ns_t deadline;
    char      msg[200];             /* the transfer's own message, taken at completion */
};

/* Restart at the first command (a new transition phase). */
static inline void ecat_eni_mbx_restart(struct ecat_eni_mbx_run *x) { x->k = 0; x->sent = false; }

/* The SoE, then the EoE init commands of slave pos for transition tr, in file order.
 * 1: busy, 0: done, <0: failed (takt_ecat_master_error names file, line, comment and the
 * slave's refusal). */
int ecat_eni_run_mbx(struct ecat_core *m, struct ecat_eni_mbx_run *x, int pos, uint8_t tr, takt_ns_t now);

/* At configure time: the EoE ports the ENI's EoE init commands need. 0 or <0 (message). */
int ecat_eni_mbx_setup(struct ecat_core *m);

#endif
