/* The command ring (internal): how every call from another thread reaches the thread
 * that drives a cycle (the EtherCAT master's, the POWERLINK MN's). Any number of
 * producers post fixed-size records; exactly one consumer, the cycle's thread, drains
 * them at one point of its cycle and sees one ordered stream. Both sides are lock-free
 * (a bounded MPSC queue after D. Vyukov's: a sequence word per cell, a CAS on the
 * producers' position): a producer never waits for the cycle (a full ring is -EAGAIN at
 * once), the cycle never waits for a producer (a cell claimed but not yet filled ends
 * that drain; the next one takes it). Completions go back by the record's callback,
 * called in the consumer's thread; a caller that must wait for it sleeps on an
 * rt_waiter (a futex word), never in a polling loop. */
#ifndef TAKT_RT_CMDRING_H
#define TAKT_RT_CMDRING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>

struct takt_rt_loop;

#define RT_CMD_INLINE 512      /* bytes a record carries itself (a register write's data) */

/* Completion: called once, in the consumer's thread, with the result and the data a
 * read brought (valid during the call only). Same shape as takt_ecat_done_fn. */
typedef void (*rt_cmd_done_fn)(void *ctx, int err, const uint8_t *data, size_t len);

struct rt_cmd {
    uint32_t seq;              /* set by rt_cmdring_post: the record's place in the stream */
    uint16_t op;               /* what to do (the owner's codes) */
    uint16_t target;           /* slave position / node ID */
    uint32_t arg[4];           /* small arguments, per op */
    void    *ptr;              /* caller-owned request storage (valid until done) */
    size_t   len;              /* of ptr */
    rt_cmd_done_fn done;       /* may be NULL */
    void    *ctx;
    uint16_t inl_len;
    uint8_t  inl[RT_CMD_INLINE];
};

struct rt_cmd_cell {
    atomic_uint seq;           /* == pos: free for producer pos; pos + 1: filled */
    struct rt_cmd c;
};

struct rt_cmdring {
    struct rt_cmd_cell *cell;
    unsigned mask;
    atomic_uint enq;           /* next position a producer claims (CAS) */
    unsigned deq;              /* next position the consumer takes (its own) */
    bool     owned;            /* cells allocated by rt_cmdring_init */
    atomic_ulong posted, refused;   /* records accepted; posts refused as full */
};

/* cap: a power of two, 2..4096. 0 or -EINVAL / -ENOMEM. */
int  rt_cmdring_init(struct rt_cmdring *r, unsigned cap);
/* The same over cap cells the owner embeds (nothing allocated; free nothing). */
int  rt_cmdring_init_on(struct rt_cmdring *r, struct rt_cmd_cell *cells, unsigned cap);
void rt_cmdring_free(struct rt_cmdring *r);

/* Any thread, never blocks: copies c (seq is set) and inl_len bytes of inl into a free
 * cell. 0, -EAGAIN when the ring is full (nothing posted), -EMSGSIZE when inl_len
 * exceeds RT_CMD_INLINE. */
int  rt_cmdring_post(struct rt_cmdring *r, const struct rt_cmd *c, const void *inl, size_t inl_len);

/* The consumer's thread only: apply the records posted so far, oldest first, at most
 * max (0: the ring's capacity, so one drain stays bounded), each in its cell (apply must
 * not keep the pointer). Returns records applied. */
unsigned rt_cmdring_drain(struct rt_cmdring *r, unsigned max,
                          void (*apply)(void *ctx, struct rt_cmd *c), void *ctx);

/* --- waiting for a completion in another thread --------------------------------------
 * Heap-allocated and counted: the waiter and the completion each hold a reference, so a
 * caller that gives up (timeout) returns while the cycle may still complete it later.
 * buf (cap bytes) is where the request's data lives for the cycle: a read's result,
 * or a copy of a write's data, so nothing of the caller's stack is touched after it
 * returned. */
struct rt_waiter {
    atomic_int done;           /* 0 waiting, 1 done: the futex word */
    atomic_int refs;
    int        err;
    size_t     len;            /* bytes of the result (a read) */
    size_t     cap;
    uint8_t    buf[];
};

struct rt_waiter *rt_waiter_new(size_t cap);
/* The completion (rt_cmd_done_fn / takt_ecat_done_fn shape): records err and len,
 * copies data into buf when it is not buf itself, wakes the waiter, drops its reference. */
void rt_waiter_done(void *ctx, int err, const uint8_t *data, size_t len);
/* Sleep until done, timeout_ns passed (-ETIMEDOUT), or the loop's thread ended with the
 * request not done (-ECANCELED; loop may be NULL). 0 when done: then w->err, w->len. */
int  rt_waiter_wait(struct rt_waiter *w, takt_ns_t timeout_ns, const struct takt_rt_loop *loop);
/* Drop the caller's reference (after reading the result, or on giving up). */
void rt_waiter_put(struct rt_waiter *w);
/* The completion is never coming (the request was refused before it was posted): drop
 * its reference as well. */
void rt_waiter_abandon(struct rt_waiter *w);

#endif
