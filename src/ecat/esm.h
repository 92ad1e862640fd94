/* A slave's ESM as one sub-object: the machine's state, the requests of its step, its
 * retries and the state it is driven to (struct ecat_sfsm, esm.c); who drives its
 * transitions (the ENI's runner, eni_exec.c, or takt's own set-up); the transition's
 * timeout; and for takt's own set-up the slave's part of the configuration plan
 * (plan_sii.c: SM and FMMU writes per transition, the AL request and check marked) with
 * the init-command executor running it (initx.h), whose requests are the machine's own,
 * so whatever cancels those cancels these. The plan is built when the slave is sent to
 * a state (after scan, and after the layout for SAFEOP and OP) and built again each
 * time, in storage reserved at open, so a re-scan or recovery brings what the slave's
 * SII and the layout say now without allocating in the cycle thread. ENI-driven slaves
 * run the ENI's plan through the same executor. */
#ifndef TAKT_ECAT_ESM_H
#define TAKT_ECAT_ESM_H

#include <takt/takt.h>
#include "ecat/initx.h"
#include "ecat/plan.h"

/* Per-slave state machine (scan, SII, configuration, AL state change). */
enum ecat_sfsm_state {
    SS_IDLE, SS_ADDR, SS_ESC, SS_SII_CMD, SS_SII_POLL, SS_SETUP, SS_DC,
    SS_AL_REQ, SS_AL_WAIT, SS_AL_ACK, SS_FAILED, SS_ENI,
    SS_SII_WAIT,                    /* for the EEPROM interface: a tool's SII write has it */
    SS_COUNT
};

/* The longest a slave's SII read waits for the EEPROM interface (SS_SII_WAIT): a tool's
 * write gives it back after each chunk, a rescan after one read of each slave. */
#define ECAT_SII_WAIT_MAX_NS (30 * TAKT_NS_PER_S)

struct ecat_sfsm {
    uint8_t   state;
    takt_ns_t t0;              /* when the current wait started */
    unsigned  retries;
    unsigned  nreq;            /* requests of the current step */
    struct ecat_req req[12];
    uint8_t   buf[12][ECAT_REQ_DATA];
    unsigned  sii_word;        /* next SII word to read */
    uint8_t   target;          /* AL state this slave is driven to */
    uint8_t   requested;       /* AL state of the pending request */
    int       err;
};

/* The storage of the slave's set-up plan, reserved at open (ecat_esm_init) so that
 * sending a slave to a state, which recovery and a DC rejoin do in the cycle thread,
 * never allocates. The most plan_sii.c makes for one slave: INIT -> PREOP 2 mailbox
 * SM writes + AL request and check, PREOP -> SAFEOP as many SM and FMMU writes as the
 * machine has requests (12) + 3 SYNC0 writes + AL, SAFEOP -> OP AL, INIT -> BOOT 2 SM
 * writes + AL: 27 commands of at most 16 bytes, the AL checks' data and mask 2 more. */
#define ECAT_ESM_PLAN_CMDS  32
#define ECAT_ESM_PLAN_BYTES (ECAT_ESM_PLAN_CMDS * 16 + 4 * 4)

struct ecat_core;
struct ecat_eni_run;

struct ecat_esm {
    struct ecat_sfsm  f;            /* state, requests of the step, retries, target state */
    struct ecat_eni_run *er;        /* ENI-driven start-up (eni_exec.c), NULL: takt's own set-up */
    takt_ns_t         al_timeout_ns;  /* this transition's timeout from the ENI, 0: the option's */
    struct ecat_plan  plan;         /* one slave (slave[0]): takt's own set-up */
    struct ecat_initx x;
    struct ecat_core *m;            /* the executor's owner, for its requests */
    bool              built;
};

#endif
