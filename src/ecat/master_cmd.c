/* How calls from other threads reach the EtherCAT cycle: the command ring
 * (rt/cmdring.h). The state request and every _async service are applied at once when
 * the caller is the thread that drives the cycle (its cyclic callback, or a tool thread
 * that runs the cycle itself); from any other thread they are posted and applied by
 * ecat_cmd_drain, the first thing each cycle (and each service step of a blocking
 * tool) does. Before takt_ecat_master_start, a thread that has not driven the cycle
 * posts too, and the first cycle takes its commands. A posted call returns 0 or
 * -EAGAIN (ring full) at once; what applying it finds wrong (no such slave, no
 * mailbox, no free slot) comes back by its completion, called in the cycle's thread.
 *
 * This is the driver's side (driver.h): it knows the threads and the clock; each record
 * is applied by the core's own functions (ecat_core_request_state, ecat_svc_queue,
 * ecat_sdo_queue, ecat_foe_queue, ecat_soe_queue, ecat_eoe_svc_queue), which know
 * neither. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "ecat/coe.h"
#include "ecat/driver.h"

_Static_assert(sizeof(pthread_t) <= sizeof(uintptr_t), "pthread_t fits a word");

static uintptr_t self(void) { return (uintptr_t)pthread_self(); }

bool ecat_cmd_here(struct takt_ecat_master *m)
{
    return atomic_load_explicit(&m->cycle_self, memory_order_relaxed) == self();
}

bool ecat_drive_begin(struct takt_ecat_master *m)
{
    if (atomic_load_explicit(&m->driving, memory_order_relaxed) == self())
        return false;                     /* already this thread's (set_state, then drive) */
    pthread_mutex_lock(&m->drive_mx);
    atomic_store_explicit(&m->driving, self(), memory_order_relaxed);
    atomic_store_explicit(&m->cycle_self, self(), memory_order_relaxed);
    return true;
}

void ecat_drive_end(struct takt_ecat_master *m, bool took)
{
    if (!took)
        return;
    atomic_store_explicit(&m->driving, 0, memory_order_relaxed);
    pthread_mutex_unlock(&m->drive_mx);
}

bool ecat_rt_on(struct takt_ecat_master *m)
{
    return atomic_load_explicit(&m->rt_on, memory_order_acquire);
}

/* --- applying one command in the cycle's thread ------------------------------------ */

static bool state_settled(const struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].esm.f.state;
        if (st != SS_IDLE && st != SS_FAILED)
            return false;
    }
    return true;
}

static int state_result(const struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].esm.f.state == SS_FAILED)
            return m->slaves[i].esm.f.err ? m->slaves[i].esm.f.err : -TAKT_EALSTATUS;
    return 0;
}

static void state_wait_end(struct takt_ecat_master *m, int err)
{
    rt_cmd_done_fn fn = m->state_fn;
    m->state_fn = NULL;
    if (fn)
        fn(m->state_ctx, err, NULL, 0);
}

static void slave_wait_end(struct takt_ecat_master *m, int err)
{
    rt_cmd_done_fn fn = m->slave_fn;
    m->slave_fn = NULL;
    if (fn)
        fn(m->slave_ctx, err, NULL, 0);
}

/* takt_ecat_slave_set_state from another thread: done when that slave settled */
static void slave_wait_check(struct takt_ecat_master *m)
{
    const struct ecat_slave *s = &m->core.slaves[m->slave_pos];
    if (s->esm.f.state == SS_IDLE)
        slave_wait_end(m, 0);
    else if (s->esm.f.state == SS_FAILED)
        slave_wait_end(m, s->esm.f.err ? s->esm.f.err : -TAKT_EALSTATUS);
}

static int apply(struct takt_ecat_master *drv, struct rt_cmd *c, bool posted)
{
    struct ecat_core *m = &drv->core;
    unsigned pos = c->target;
    switch (c->op) {
    case ECAT_CMD_STATE: {
        int rc = ecat_core_request_state(m, (uint8_t)c->arg[0], takt_now());
        if (!rc && c->done) {
            /* takt_ecat_master_set_state from another thread: done when every slave
             * settled (checked by each drain); a newer request ends an older wait */
            state_wait_end(drv, -ECANCELED);
            drv->state_fn = c->done;
            drv->state_ctx = c->ctx;
            return 1;
        }
        if (rc && posted && !c->done && m->last_err != rc)
            ECAT_FAIL(m, rc, rc == -EAGAIN ? TAKT_ECAT_EV_STATE_REQUEST_UNSCANNED
                                           : TAKT_ECAT_EV_STATE_REQUEST, -1, (uint8_t)c->arg[0], rc);
        return rc;
    }
    case ECAT_CMD_SLAVE_STATE: {
        int rc = ecat_core_request_slave_state(m, pos, (uint8_t)c->arg[0], takt_now());
        if (!rc && c->done) {
            slave_wait_end(drv, -ECANCELED);      /* a newer request ends an older wait */
            drv->slave_fn = c->done;
            drv->slave_ctx = c->ctx;
            drv->slave_pos = pos;
            return 1;
        }
        if (rc && posted && !c->done && m->last_err != rc)
            ECAT_FAIL(m, rc, rc == -EAGAIN ? TAKT_ECAT_EV_STATE_REQUEST_UNSCANNED
                                           : TAKT_ECAT_EV_STATE_REQUEST, (int)pos, (uint8_t)c->arg[0], rc);
        return rc;
    }
    case ECAT_CMD_SII_COPY: {
        int rc = ecat_sii_copy(m, pos, (unsigned)c->arg[0], c->ptr, c->len);
        if (!rc && c->done)
            c->done(c->ctx, 0, NULL, 0);
        return rc;
    }
    case ECAT_CMD_REG:
        return ecat_svc_queue(m, pos, (uint8_t)c->arg[0], (uint16_t)c->arg[1],
                              c->inl_len ? c->inl : NULL, (uint16_t)c->arg[2], c->done, c->ctx);
    case ECAT_CMD_SDO: {
        struct ecat_coe_req r;
        memcpy(&r, c->inl, sizeof r);
        return ecat_sdo_queue(m, pos, &r, c->done, c->ctx);
    }
    case ECAT_CMD_FOE:
        return ecat_foe_queue(m, pos, (int)c->arg[0], (const char *)c->inl, c->arg[1], c->ptr,
                              c->len, c->done, c->ctx);
    case ECAT_CMD_SOE:
        return ecat_soe_queue(m, pos, (int)c->arg[0], (uint8_t)c->arg[1], (uint8_t)c->arg[2],
                              (uint16_t)c->arg[3], c->ptr, c->len, c->done, c->ctx);
    case ECAT_CMD_EOE_OPEN:
        return takt_ecat_eoe_open(drv, pos);
    case ECAT_CMD_EOE_SVC:
        return ecat_eoe_svc_queue(m, pos, (uint8_t)c->arg[0], c->inl, c->inl_len, c->done, c->ctx);
    case ECAT_CMD_RESCAN:
        return ecat_rescan_start(drv, c->done, c->ctx);
    default:
        return -EINVAL;
    }
}

static void apply_posted(void *ctx, struct rt_cmd *c)
{
    struct takt_ecat_master *m = ctx;
    int rc = apply(m, c, true);
    /* the call returned 0 when it was posted: a refusal goes to its completion */
    if (rc < 0 && c->done)
        c->done(c->ctx, rc, NULL, 0);
}

void ecat_cmd_drain(struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    /* the thread that drains is the cycle's: its own calls apply at once */
    if (!ecat_cmd_here(m))
        atomic_store_explicit(&m->cycle_self, self(), memory_order_relaxed);
    if (m->state_fn && state_settled(&m->core))
        state_wait_end(m, state_result(&m->core));
    if (m->slave_fn)
        slave_wait_check(m);
    rt_cmdring_drain(&m->cmd, 0, apply_posted, m);
}

static void cancel(void *ctx, struct rt_cmd *c)
{
    (void)ctx;
    if (c->done)
        c->done(c->ctx, -ECANCELED, NULL, 0);
}

void ecat_cmd_cancel_all(struct takt_ecat_master *m)
{
    if (m->cmd.cell)
        rt_cmdring_drain(&m->cmd, 0, cancel, m);
    state_wait_end(m, -ECANCELED);
    slave_wait_end(m, -ECANCELED);
}

/* At once when the caller is the cycle's thread: the RT thread (its callback), or while
 * none runs the thread driving a blocking call (a completion it calls), or the thread
 * that drove the cycle last when nobody drives now (the lock keeps another from
 * starting meanwhile). Posted otherwise. */
int ecat_cmd_submit(struct takt_ecat_master *m, const struct rt_cmd *c, const void *inl, size_t n)
{
    bool locked = false, direct;
    if (ecat_rt_on(m))
        direct = ecat_cmd_here(m);
    else if (atomic_load_explicit(&m->driving, memory_order_relaxed) == self())
        direct = true;
    else
        direct = locked = ecat_cmd_here(m) && pthread_mutex_trylock(&m->drive_mx) == 0;
    if (!direct)
        return rt_cmdring_post(&m->cmd, c, inl, n);
    struct rt_cmd now = *c;               /* the header; the payload is read in place */
    if (n)
        memcpy(now.inl, inl, n);
    now.inl_len = (uint16_t)n;
    int rc = apply(m, &now, false);
    if (locked)
        pthread_mutex_unlock(&m->drive_mx);
    return rc > 0 ? 0 : rc;
}

/* --- the blocking forms from another thread while the RT thread runs ---------------- */

int ecat_cmd_blocking(struct takt_ecat_master *m)
{
    if (!ecat_rt_on(m))
        return 0;                          /* no RT thread: the caller drives the cycle */
    return ecat_cmd_here(m) ? -EDEADLK : 1;
}

int ecat_cmd_wait(struct takt_ecat_master *m, struct rt_waiter *w, int posted, takt_ns_t timeout_ns)
{
    if (posted) {
        rt_waiter_abandon(w);             /* refused: no completion will come */
        return posted;
    }
    int rc = rt_waiter_wait(w, timeout_ns, &m->loop);
    return rc ? rc : w->err;
}

struct wait_for { bool (*ok)(void *ctx); void *ctx; };

static bool wait_for_ok(struct ecat_core *m, void *ctx)
{
    (void)m;
    const struct wait_for *w = ctx;
    return w->ok(w->ctx);
}

int ecat_cmd_wait_for(struct takt_ecat_master *m, bool (*ok)(void *ctx), void *ctx, takt_ns_t timeout_ns)
{
    if (ok(ctx))
        return 0;
    if (!ecat_rt_on(m)) {
        struct wait_for w = { ok, ctx };
        return ecat_master_drive(m, wait_for_ok, &w, timeout_ns) ? -ETIMEDOUT : 0;
    }
    for (takt_ns_t t0 = takt_now(); takt_now() - t0 < timeout_ns;) {
        struct timespec ts = { 0, TAKT_NS_PER_MS };
        nanosleep(&ts, NULL);             /* the RT thread cycles meanwhile */
        if (ok(ctx))
            return 0;
    }
    return -ETIMEDOUT;
}

/* --- the state request --------------------------------------------------------------- */

int takt_ecat_master_request_state(struct takt_ecat_master *m, uint8_t state)
{
    struct rt_cmd c = { .op = ECAT_CMD_STATE, .arg = { state } };
    return ecat_cmd_submit(m, &c, NULL, 0);
}

int takt_ecat_slave_request_state(struct takt_ecat_master *m, unsigned pos, uint8_t state)
{
    struct rt_cmd c = { .op = ECAT_CMD_SLAVE_STATE, .target = pos, .arg = { state } };
    return ecat_cmd_submit(m, &c, NULL, 0);
}

int ecat_cmd_set_state(struct takt_ecat_master *m, int pos, uint8_t state, takt_ns_t timeout_ns)
{
    struct rt_waiter *w = rt_waiter_new(0);
    if (!w)
        return -ENOMEM;
    struct rt_cmd c = { .op = pos < 0 ? ECAT_CMD_STATE : ECAT_CMD_SLAVE_STATE,
                        .target = pos < 0 ? 0 : (uint16_t)pos, .arg = { state },
                        .done = rt_waiter_done, .ctx = w };
    int rc = ecat_cmd_wait(m, w, rt_cmdring_post(&m->cmd, &c, NULL, 0), timeout_ns);
    rt_waiter_put(w);
    return rc;
}

/* --- a reader's request for the frames and image (master_pub.c) ------------------------ */

struct hdr_rd { uint64_t cycles, until; unsigned served; };

/* How long a reader waits for the cycle to publish after its request: many cycles, and
 * long enough for a host that stalls the cycle's thread now and then. */
static takt_ns_t want_wait(const struct ecat_core *c)
{
    takt_ns_t w = 20 * (takt_ns_t)c->o.cycle_ns;
    return w > 500 * TAKT_NS_PER_MS ? w : 500 * TAKT_NS_PER_MS;
}

int ecat_pub_want(struct takt_ecat_master *m)
{
    struct ecat_core *c = &m->core;
    if (!ecat_rt_on(m))
        return 0;             /* every cycle and service step publishes (and the join did) */
    if (ecat_cmd_here(m)) {   /* the cycle's own thread (its callback): it is the writer,
                                 once a cycle (a callback may read every slave's state) */
        if (c->snap.pub_here != c->st.cycles + 1) {
            c->snap.pub_here = c->st.cycles + 1;
            ecat_pub_publish(c);
        }
        return 0;
    }
    struct hdr_rd h;
    ecat_pub_hdr(m, &h.cycles, &h.until, &h.served);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(m, &st);   /* published every cycle, before the frames */
    bool current = h.cycles == st.cycles;
    if (current && h.until > st.cycles + ECAT_PUB_LEASE / 2)
        return 0;             /* the lease runs on: nothing to ask */
    unsigned t = atomic_fetch_add_explicit(&c->snap.preq, 1, memory_order_relaxed) + 1;
    if (current)
        return 0;             /* renewed for the reads to come */
    /* a reader before waited its whole time for a request the cycle has still not
     * served: the cycle is frozen. No second wait: a view of many slaves would wait for
     * each. Served again, the cycle serves this request too. */
    unsigned g = atomic_load_explicit(&c->snap.pub_gave_up, memory_order_relaxed);
    if (g && (int)(h.served - g) < 0)
        return -ETIMEDOUT;
    takt_ns_t end = takt_now() + want_wait(c);
    for (;;) {
        ecat_pub_hdr(m, &h.cycles, &h.until, &h.served);
        if ((int)(h.served - t) >= 0 || !ecat_rt_on(m))
            return 0;
        if (takt_now() > end) {
            atomic_store_explicit(&c->snap.pub_gave_up, t, memory_order_relaxed);
            return -ETIMEDOUT;
        }
        nanosleep(&(struct timespec){ 0, 50 * 1000 }, NULL);
    }
}
