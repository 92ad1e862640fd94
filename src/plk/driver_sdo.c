/* The MN's SDO requests from other threads (driver.h): through the command ring into
 * the core's user-SDO slot, one at a time, completed from the RT thread. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "plk/driver.h"
#include "rt/loop.h"

int plk_drv_sdo_init(struct plk_drv_sdo *q)
{
    memset(q, 0, sizeof *q);
    return rt_cmdring_init(&q->ring, PLK_DRV_SDO_RING);
}

static void finish(struct plk_drv_sdo *q, struct plk_mn_user_sdo *u, int err)
{
    size_t n = 0;
    if (!err && !u->write) {
        n = u->len < q->cap ? u->len : q->cap;
        memcpy(q->ptr, u->data, n);
    }
    q->busy = false;
    atomic_store_explicit(&q->last_abort, err == -TAKT_ESDOABORT ? u->abort_code : 0,
                          memory_order_release);
    u->state = 0;
    if (q->done)
        q->done(q->ctx, err, q->ptr, n);
}

static void cancel(void *ctx, struct rt_cmd *c)
{
    (void)ctx;
    if (c->done)
        c->done(c->ctx, -ECANCELED, NULL, 0);
}

void plk_drv_sdo_free(struct plk_drv_sdo *q, struct plk_mn *core)
{
    if (!q->ring.cell)
        return;
    if (q->busy)
        finish(q, &core->usdo, -ECANCELED);
    rt_cmdring_drain(&q->ring, 0, cancel, NULL);
    rt_cmdring_free(&q->ring);
}

struct load { struct plk_drv_sdo *q; struct plk_mn_user_sdo *u; };

/* Hand one record to the core's slot (mn_boot.c's user_sdo_step runs it). */
static void load(void *ctx, struct rt_cmd *c)
{
    struct load *l = ctx;
    struct plk_mn_user_sdo *u = l->u;
    struct plk_drv_sdo *q = l->q;
    memset(u, 0, offsetof(struct plk_mn_user_sdo, data));
    u->write = c->op == PLK_DRV_SDO_WRITE;
    u->node = (uint8_t)c->target;
    u->index = (uint16_t)c->arg[0];
    u->sub = (uint8_t)c->arg[1];
    u->len = 0;
    if (u->write) {
        memcpy(u->data, c->ptr, c->len);
        u->len = (uint32_t)c->len;
    }
    u->result = 0;
    u->abort_code = 0;
    q->done = c->done;
    q->ctx = c->ctx;
    q->ptr = c->ptr;
    q->cap = c->len;
    q->busy = true;
    u->state = 1;
}

void plk_drv_sdo_bind(struct plk_drv_sdo *q)
{
    atomic_store_explicit(&q->rt_self, (uintptr_t)pthread_self(), memory_order_relaxed);
}

void plk_drv_sdo_pump(struct plk_drv_sdo *q, struct plk_mn *core)
{
    struct plk_mn_user_sdo *u = &core->usdo;
    if (q->busy && u->state == 3)
        finish(q, u, u->result);
    if (!q->busy && u->state == 0) {
        struct load l = { q, u };
        rt_cmdring_drain(&q->ring, 1, load, &l);
    }
}

int plk_drv_sdo_call(struct plk_drv_sdo *q, const struct takt_rt_loop *loop, bool write,
                     unsigned node, uint16_t index, uint8_t sub, void *buf, size_t len,
                     size_t *got, takt_ns_t timeout_ns)
{
    if (atomic_load_explicit(&q->rt_self, memory_order_relaxed) == (uintptr_t)pthread_self())
        return -EDEADLK;             /* the cycle's callback: it would wait for its own step */
    if (len > PLK_SDO_DATA_MAX)
        return write ? -EMSGSIZE : -EINVAL;
    /* the waiter's buffer carries the data both ways: it outlives a timeout here */
    struct rt_waiter *w = rt_waiter_new(write ? len : PLK_SDO_DATA_MAX);
    if (!w)
        return -ENOMEM;
    if (write && len)
        memcpy(w->buf, buf, len);
    struct rt_cmd c = { .op = write ? PLK_DRV_SDO_WRITE : PLK_DRV_SDO_READ, .target = (uint16_t)node,
                        .arg = { index, sub }, .ptr = w->buf, .len = w->cap,
                        .done = rt_waiter_done, .ctx = w };
    if (write)
        c.len = len;
    int rc = rt_cmdring_post(&q->ring, &c, NULL, 0);
    if (rc) {
        rt_waiter_abandon(w);
        rt_waiter_put(w);
        return rc;
    }
    rc = rt_waiter_wait(w, timeout_ns, loop);
    if (!rc && !w->err && !write) {
        size_t n = w->len < len ? w->len : len;
        memcpy(buf, w->buf, n);
        if (got)
            *got = n;
    }
    rc = rc ? rc : w->err;
    rt_waiter_put(w);
    return rc;
}
