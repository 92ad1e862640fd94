/* Command ring and completion waiter (cmdring.h). */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "rt/cmdring.h"
#include "rt/loop.h"

int rt_cmdring_init_on(struct rt_cmdring *r, struct rt_cmd_cell *cells, unsigned cap)
{
    memset(r, 0, sizeof *r);
    if (!cells || cap < 2 || cap > 4096 || (cap & (cap - 1)))
        return -EINVAL;
    r->cell = cells;
    r->mask = cap - 1;
    for (unsigned i = 0; i < cap; i++)
        atomic_init(&r->cell[i].seq, i);
    atomic_init(&r->enq, 0);
    return 0;
}

int rt_cmdring_init(struct rt_cmdring *r, unsigned cap)
{
    memset(r, 0, sizeof *r);
    if (cap < 2 || cap > 4096 || (cap & (cap - 1)))
        return -EINVAL;
    struct rt_cmd_cell *c = calloc(cap, sizeof *c);
    if (!c)
        return -ENOMEM;
    rt_cmdring_init_on(r, c, cap);
    r->owned = true;
    return 0;
}

void rt_cmdring_free(struct rt_cmdring *r)
{
    if (r->owned)
        free(r->cell);
    r->cell = NULL;
}

int rt_cmdring_post(struct rt_cmdring *r, const struct rt_cmd *c, const void *inl, size_t inl_len)
{
    if (inl_len > RT_CMD_INLINE)
        return -EMSGSIZE;
    unsigned pos = atomic_load_explicit(&r->enq, memory_order_relaxed);
    struct rt_cmd_cell *cell;
    for (;;) {
        cell = &r->cell[pos & r->mask];
        unsigned seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        int dif = (int)(seq - pos);
        if (dif == 0) {
            /* free for this position: claim it (another producer may be faster) */
            if (atomic_compare_exchange_weak_explicit(&r->enq, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                break;
        } else if (dif < 0) {
            /* the consumer has not taken the record a lap ago: full */
            atomic_fetch_add_explicit(&r->refused, 1, memory_order_relaxed);
            return -EAGAIN;
        } else {
            pos = atomic_load_explicit(&r->enq, memory_order_relaxed);
        }
    }
    /* the cell is this producer's until the release store below hands it over */
    memcpy(&cell->c, c, offsetof(struct rt_cmd, inl));
    cell->c.seq = pos;
    cell->c.inl_len = (uint16_t)inl_len;
    if (inl_len)
        memcpy(cell->c.inl, inl, inl_len);
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    atomic_fetch_add_explicit(&r->posted, 1, memory_order_relaxed);
    return 0;
}

unsigned rt_cmdring_drain(struct rt_cmdring *r, unsigned max,
                          void (*apply)(void *ctx, struct rt_cmd *c), void *ctx)
{
    unsigned n = 0;
    if (!max || max > r->mask + 1)
        max = r->mask + 1;
    while (n < max) {
        unsigned pos = r->deq;
        struct rt_cmd_cell *cell = &r->cell[pos & r->mask];
        if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos + 1)
            break;                       /* empty, or claimed and not yet filled */
        apply(ctx, &cell->c);
        /* free for the producer one lap on */
        atomic_store_explicit(&cell->seq, pos + r->mask + 1, memory_order_release);
        r->deq = pos + 1;
        n++;
    }
    return n;
}

/* --- waiter --------------------------------------------------------------------------- */

struct rt_waiter *rt_waiter_new(size_t cap)
{
    struct rt_waiter *w = malloc(sizeof *w + (cap ? cap : 1));
    if (!w)
        return NULL;
    atomic_init(&w->done, 0);
    atomic_init(&w->refs, 2);
    w->err = 0;
    w->len = 0;
    w->cap = cap;
    return w;
}

void rt_waiter_put(struct rt_waiter *w)
{
    if (w && atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) == 1)
        free(w);
}

void rt_waiter_abandon(struct rt_waiter *w) { rt_waiter_put(w); }

void rt_waiter_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct rt_waiter *w = ctx;
    if (len > w->cap)
        len = w->cap;
    if (data && len && data != w->buf)
        memcpy(w->buf, data, len);
    w->err = err;
    w->len = len;
    atomic_store_explicit(&w->done, 1, memory_order_release);
    /* FUTEX_WAKE makes no system call wait: the cycle's thread does not block here */
    syscall(SYS_futex, &w->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    rt_waiter_put(w);
}

int rt_waiter_wait(struct rt_waiter *w, takt_ns_t timeout_ns, const struct takt_rt_loop *loop)
{
    takt_ns_t end = takt_now() + timeout_ns;
    while (!atomic_load_explicit(&w->done, memory_order_acquire)) {
        takt_ns_t left = end - takt_now();
        if (left <= 0)
            return -ETIMEDOUT;
        /* a loop that ended drains nothing more: look at it now and then */
        if (loop && __atomic_load_n(&loop->ended, __ATOMIC_ACQUIRE))
            return atomic_load_explicit(&w->done, memory_order_acquire) ? 0 : -ECANCELED;
        if (loop && left > 100 * TAKT_NS_PER_MS)
            left = 100 * TAKT_NS_PER_MS;
        struct timespec ts = { left / TAKT_NS_PER_S, left % TAKT_NS_PER_S };
        /* sleeps only while the word is still 0: a completion between the load above and
         * this call makes it return at once */
        syscall(SYS_futex, &w->done, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
    }
    return 0;
}
