/* The init-command executor: runs one slave's (or the master's) plan commands
 * (plan.h) of one ESM transition, whichever source made the plan. Register commands
 * go out with their expected working counter, retries and validation (read again
 * until the masked data matches); consecutive plain writes share one frame, where
 * the slaves process them in order (ETG.1000.4 5.4); CoE, SoE and EoE commands go
 * through the mailbox one at a time. The AL request and the wait for the state
 * (PLAN_F_AL_REQ, PLAN_F_AL_CHECK) are the owner's: the executor runs the commands
 * before them (phase PRE) and after them (POST) and says which timeout they carry.
 * Sans-I/O: the owner queues the requests it hands out, completes them, and tells it
 * the time; nothing here reads a clock or knows the link. */
#ifndef TAKT_ECAT_INITX_H
#define TAKT_ECAT_INITX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>
#include "ecat/plan.h"

struct ecat_req;

#define ECAT_INITX_BATCH 8          /* plain writes in flight at once */
#define ECAT_INITX_BATCH_BYTES 512  /* ... and their data */

struct ecat_initx_ops {
    void *ctx;
    /* send this request (its data is the executor's until it completes) */
    void (*queue)(void *ctx, struct ecat_req *r);
    /* the clocks are set up: a PLAN_F_NEEDS_DC command may go */
    bool (*dc_ready)(void *ctx);
    /* the SYNC0 start time a PLAN_F_START command writes */
    uint64_t (*start_time)(void *ctx, const struct ecat_plan_cmd *c);
    /* start a mailbox command; its end comes back through ecat_initx_mbx_done. 0 or <0 */
    int (*mbx_start)(void *ctx, const struct ecat_plan_cmd *c, uint8_t *buf, size_t cap);
    /* a register write was done (NULL: nobody cares) */
    void (*written)(void *ctx, const struct ecat_plan_cmd *c);
};

enum ecat_initx_phase {
    INITX_PRE,      /* register commands before the AL request */
    INITX_POST,     /* register commands after the state was reached */
    INITX_ALL,      /* register commands, AL ones skipped (the master's own) */
    INITX_MBX,      /* CoE, SoE, EoE commands in their order */
};

enum ecat_initx_why { INITX_WKC, INITX_VALIDATE, INITX_MBX_START, INITX_MBX_TIMEOUT, INITX_MBX_ERR,
                      INITX_MBX_DATA };

/* Why the executor stopped (after a return < 0). */
struct ecat_initx_fail {
    uint8_t why;                    /* enum ecat_initx_why */
    int     err;
    const struct ecat_plan_cmd *c;  /* the command that failed */
    int     wkc;                    /* register commands: the last WKC, -1 no frame back */
    const uint8_t *got;             /* validate: what the last read returned (c->len bytes);
                                       upload: what came (got_len bytes) */
    size_t  got_len;
    unsigned ms;                    /* validate: how long it waited */
    char    msg[200];               /* mailbox: the transfer's own message */
};

struct ecat_initx {
    struct ecat_initx_ops ops;
    takt_ns_t validate_ns;          /* a validate without its own timeout */
    takt_ns_t mbx_ns;               /* a mailbox command without its own timeout */
    const struct ecat_plan_slave *ps;
    uint8_t   tr, nxt;              /* the transition and the state it leads to */
    int8_t    before;               /* the master's commands: which (-1: a slave's) */
    uint8_t   phase;
    unsigned  split;                /* index of the AL request (n_cmd: none) */
    const struct ecat_plan_cmd *al_cmd;  /* where the transition's timeout comes from */
    uint32_t  al_timeout_ms;        /* 0: the owner's */
    unsigned  k;                    /* next command */
    unsigned  n;                    /* commands in flight: cmd[idx[0..n)] */
    unsigned  idx[ECAT_INITX_BATCH];
    struct ecat_req *req;           /* ECAT_INITX_BATCH */
    unsigned  tries;
    takt_ns_t t0;
    uint8_t  *buf;                  /* the requests' data */
    size_t    cap;
    bool      mbx_busy;             /* a mailbox command in flight */
    int       mbx_rc;
    size_t    mbx_len;
    takt_ns_t mbx_deadline;
    uint8_t  *cbuf;                 /* an upload's data */
    size_t    ccap;
    bool      lent;                 /* req and buf are the owner's */
    struct ecat_initx_fail fail;
};

/* Room for the commands of ps (any of them); 0 or -ENOMEM. */
int  ecat_initx_init(struct ecat_initx *x, const struct ecat_plan_slave *ps, const struct ecat_initx_ops *ops);
/* The same in the owner's storage: at least ECAT_INITX_BATCH requests and cap bytes
 * for their data (no mailbox commands then). */
void ecat_initx_init_at(struct ecat_initx *x, const struct ecat_initx_ops *ops, struct ecat_req *req,
                        uint8_t *buf, size_t cap);
void ecat_initx_free(struct ecat_initx *x);
/* Transition tr to state nxt: finds the AL request and its timeouts. before: for the
 * master's commands (pos -1) those before the slaves' (1) or after (0); -1 for a slave. */
void ecat_initx_begin(struct ecat_initx *x, uint8_t tr, uint8_t nxt, int before);
/* Run the phase's commands from the first. */
void ecat_initx_phase(struct ecat_initx *x, uint8_t phase);
/* One step: 1 still busy, 0 all the phase's commands done, <0 failed (x->fail). */
int  ecat_initx_step(struct ecat_initx *x, takt_ns_t now);
/* True while the phase has a register request in flight. */
bool ecat_initx_pending(const struct ecat_initx *x);
/* The mailbox command ended: err, len bytes in the buffer given to mbx_start, and the
 * transfer's message when it failed. */
void ecat_initx_mbx_done(struct ecat_initx *x, int err, size_t len, const char *msg);

#endif
