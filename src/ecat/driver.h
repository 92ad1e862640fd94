/* The EtherCAT master driver (master.c): the core (core.h) with what it must not know:
 * the link, the clock, the RT thread and its measurements. The public handle. */
#ifndef TAKT_ECAT_DRIVER_H
#define TAKT_ECAT_DRIVER_H

#include <pthread.h>
#include <stdatomic.h>
#include "ecat/core.h"
#include "rt/cmdring.h"
#include "rt/loop.h"

struct takt_ecat_master {
    struct ecat_core core;
    struct takt_link *link;    /* the link frames leave by: red with two ports */
    struct takt_link *red;     /* cable redundancy (redund.c): both ports, NULL with one */
    uint8_t  *rxbuf;           /* receive buffers */
    struct takt_frame *rxf, *txf;
    uint64_t  link_errors;

    /* application */
    takt_ecat_cyclic_fn app_fn;
    void     *app_ctx;

    /* calls from other threads (master_cmd.c): the command ring the cycle drains, the
     * thread that last drained it (the cycle's), whether an RT thread runs, and a
     * set_state from another thread waiting for the slaves to settle */
    struct rt_cmdring cmd;
    _Atomic uintptr_t cycle_self;
    atomic_bool rt_on;
    pthread_mutex_t drive_mx;  /* held by a blocking call that drives the cycle itself */
    _Atomic uintptr_t driving; /* ... and that thread */
    rt_cmd_done_fn state_fn;
    void     *state_ctx;
    rt_cmd_done_fn slave_fn;   /* ... and a takt_ecat_slave_set_state for slave_pos */
    void     *slave_ctx;
    unsigned  slave_pos;

    struct takt_rt_loop loop;
    bool      loop_init;
    struct takt_perf_msmt m_rx, m_cyc, m_timer, m_acyc, m_app;
    struct ecat_rescan *rescan; /* master_rescan.c: the one rescan that may run */
    atomic_bool rescan_busy;
};

/* master_cmd.c: the command ring. Records: op, target (slave position), arg[], ptr/len
 * (the caller's buffer), the inline payload (a register write's data, a struct
 * ecat_coe_req, an FoE file name, an EoE service body). Each is applied in the cycle's
 * thread by the core's functions (ecat_core_request_state, ecat_svc_queue, ...). */
#define ECAT_CMD_RING 64
enum { ECAT_CMD_STATE = 1, ECAT_CMD_REG, ECAT_CMD_SDO, ECAT_CMD_FOE, ECAT_CMD_SOE,
       ECAT_CMD_EOE_OPEN, ECAT_CMD_EOE_SVC, ECAT_CMD_RESCAN, ECAT_CMD_SLAVE_STATE,
       ECAT_CMD_SII_COPY };
/* master_svc.c: the master's copy of slave pos's SII takes len bytes from word on. */
int ecat_sii_copy(struct ecat_core *m, unsigned pos, unsigned word, const uint8_t *data, size_t len);
/* The caller is the thread that drives the cycle (last drained the ring). */
bool ecat_cmd_here(struct takt_ecat_master *m);
/* master_rescan.c: start the posted rescan (cycle's thread); free its state at close. */
int  ecat_rescan_start(struct takt_ecat_master *m, takt_ecat_done_fn fn, void *ctx);
void ecat_rescan_free(struct takt_ecat_master *m);
/* Take / give back the right to drive the cycle from this thread while no RT thread
 * runs (nested calls of the same thread are counted as one). */
bool ecat_drive_begin(struct takt_ecat_master *m);
void ecat_drive_end(struct takt_ecat_master *m, bool took);
/* An RT thread (takt_ecat_master_start) runs the cycle, until takt_ecat_master_join. */
bool ecat_rt_on(struct takt_ecat_master *m);
/* master_pub.c: a reader (any thread) asks for the frames, image and topology and
 * waits, bounded, until the cycle has published them after the request. 0 when what is
 * published is current, -ETIMEDOUT when the running cycle did not publish in time (what
 * is there is older). */
int  ecat_pub_want(struct takt_ecat_master *m);
/* master_pub.c: the publication's cycle, the lease's end and the request it served. */
void ecat_pub_hdr(const struct takt_ecat_master *m, uint64_t *cycles, uint64_t *until, unsigned *served);
/* At the start of every cycle and service step, in the cycle's thread. */
void ecat_cmd_drain(struct takt_ecat_master *m, takt_ns_t now);
/* Close: every record still posted completes with -ECANCELED. */
void ecat_cmd_cancel_all(struct takt_ecat_master *m);
/* Apply c now (the cycle's thread: errors returned, no completion) or post it (any other
 * thread: 0 or -EAGAIN; errors by the completion). */
int  ecat_cmd_submit(struct takt_ecat_master *m, const struct rt_cmd *c, const void *inl, size_t n);
/* A blocking call: 0 no RT thread runs (drive the cycle as before), 1 post and wait,
 * -EDEADLK from the RT thread itself (its callback would wait for its own cycle). */
int  ecat_cmd_blocking(struct takt_ecat_master *m);
/* Wait for w after posting returned `posted` (non-zero: refused, w's completion
 * reference dropped). 0 and w's result, or -ETIMEDOUT / -ECANCELED. */
int  ecat_cmd_wait(struct takt_ecat_master *m, struct rt_waiter *w, int posted, takt_ns_t timeout_ns);
/* Wait until ok(ctx) holds, checked by this thread: the cycle driven meanwhile when no
 * RT thread runs, slept beside one. 0, or -ETIMEDOUT. */
int  ecat_cmd_wait_for(struct takt_ecat_master *m, bool (*ok)(void *ctx), void *ctx, takt_ns_t timeout_ns);
/* The network's state (pos -1) or one slave's, posted; 0 when settled, its refusal, or
 * -ETIMEDOUT. */
int  ecat_cmd_set_state(struct takt_ecat_master *m, int pos, uint8_t state, takt_ns_t timeout_ns);

/* One blocking mailbox call (master_block.c; CoE, SoE and FoE take it): its _async form
 * started by start with the buffer and completion the wait gives, then waited for, by
 * driving the cycle (no RT thread) or posted and slept on (another thread). */
struct ecat_block {
    int  (*start)(struct takt_ecat_master *m, const void *args, void *buf, size_t n, takt_ecat_done_fn fn,
                  void *ctx);
    const void *args;          /* the call's own arguments, for start */
    void   *buf;               /* a read's reply (n bytes room, *len what came), a write's data */
    size_t  n, *len;
    bool    write;
    takt_ns_t timeout_ns;
    /* after a timeout while driving: the slot whose completion context is ctx must not
     * call back into the waiting stack frame */
    void (*forget)(struct ecat_core *m, const void *ctx);
};
int  ecat_block_run(struct takt_ecat_master *m, const struct ecat_block *b);

#endif
