/* A slave's ESM set-up: who drives its transitions (the ENI's runner, eni_exec.c, or
 * takt's own set-up), the transition's timeout, and for takt's own set-up the slave's
 * part of the configuration plan (plan_sii.c: SM and FMMU writes per transition, the
 * AL request and check marked) with the init-command executor running it (initx.h),
 * whose requests are the machine's own (struct ecat_sfsm), so whatever cancels those
 * cancels these. The plan is built when the slave is sent to a state (after scan, and
 * after the layout for SAFEOP and OP) and built again each time, so a re-scan or
 * recovery brings what the slave's SII and the layout say now. ENI-driven slaves run
 * the ENI's plan through the same executor. */
#ifndef TAKT_ECAT_ESM_H
#define TAKT_ECAT_ESM_H

#include <takt/takt.h>
#include "ecat/initx.h"
#include "ecat/plan.h"

struct ecat_core;
struct ecat_eni_run;

struct ecat_esm {
    struct ecat_eni_run *er;        /* ENI-driven start-up (eni_exec.c), NULL: takt's own set-up */
    takt_ns_t         al_timeout_ns;  /* this transition's timeout from the ENI, 0: the option's */
    struct ecat_plan  plan;         /* one slave (slave[0]): takt's own set-up */
    struct ecat_initx x;
    struct ecat_core *m;            /* the executor's owner, for its requests */
    bool              built;
};

#endif
