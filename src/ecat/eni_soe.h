/* SoE init commands of an ENI (Mailbox/SoE/InitCmds, ETG.2100) run at their transition
 * beside the CoE ones: one IDN write at a time through the master's SoE service. */
#ifndef TAKT_ECAT_ENI_SOE_H
#define TAKT_ECAT_ENI_SOE_H
#include <stdbool.h>
#include <stdint.h>
#include <takt/takt.h>

struct ecat_master;

struct ecat_eni_soe_run {
    struct ecat_master *m;
    unsigned  k;                    /* next SoE init command of the slave */
    bool      sent, busy;
    int       rc;
    takt_ns_t deadline;
    char      msg[200];             /* the transfer's own message, taken at completion */
};

/* Restart at the first command (a new transition phase). */
static inline void ecat_eni_soe_restart(struct ecat_eni_soe_run *sr) { sr->k = 0; sr->sent = false; }

/* The SoE init commands of slave pos for transition tr, in file order.
 * 1: busy, 0: done, <0: failed (ecat_master_error names file, line, IDN and the drive's refusal). */
int ecat_eni_run_soe(struct ecat_master *m, struct ecat_eni_soe_run *sr, int pos, uint8_t tr, takt_ns_t now);

#endif
