/* The command ring (src/rt/cmdring.c): records come out once each, in the order they
 * went in (per producer, with several producers at once), a full ring refuses at once
 * and loses nothing it took, and a waiter in another thread is woken by the
 * completion. Run under ThreadSanitizer too (.ci/run). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "rt/cmdring.h"

static void apply_count(void *ctx, struct rt_cmd *c)
{
    unsigned *seen = ctx;
    assert_int_equal(c->arg[0], seen[0]);      /* in order */
    assert_int_equal(c->inl_len, 4);
    unsigned v;
    memcpy(&v, c->inl, 4);
    assert_int_equal(v, c->arg[0] * 3);
    seen[0]++;
}

static void order_and_full(void **state)
{
    (void)state;
    struct rt_cmdring r;
    assert_int_equal(rt_cmdring_init(&r, 3), -EINVAL);
    assert_int_equal(rt_cmdring_init(&r, 8), 0);
    unsigned seen[1] = { 0 }, next = 0;
    for (int lap = 0; lap < 3; lap++) {
        /* fill it: the ninth is refused, and the eight come out in order */
        for (unsigned i = 0; i < 8; i++, next++) {
            struct rt_cmd c = { .op = 1, .arg = { next } };
            unsigned v = next * 3;
            assert_int_equal(rt_cmdring_post(&r, &c, &v, sizeof v), 0);
        }
        struct rt_cmd c = { .op = 1 };
        assert_int_equal(rt_cmdring_post(&r, &c, NULL, 0), -EAGAIN);
        assert_int_equal(rt_cmdring_drain(&r, 3, apply_count, seen), 3);
        assert_int_equal(rt_cmdring_drain(&r, 0, apply_count, seen), 5);
        assert_int_equal(rt_cmdring_drain(&r, 0, apply_count, seen), 0);
    }
    assert_int_equal(seen[0], 24);
    assert_int_equal(atomic_load(&r.refused), 3);
    uint8_t big[RT_CMD_INLINE + 1] = { 0 };
    struct rt_cmd c = { .op = 1 };
    assert_int_equal(rt_cmdring_post(&r, &c, big, sizeof big), -EMSGSIZE);
    rt_cmdring_free(&r);
}

/* 4 producers x 200 records against a consumer in its own thread: each record is
 * applied exactly once, each producer's in its order; a producer that finds the ring
 * full tries again (and counts it), never waits inside the ring. */
#define NPROD 4
#define NREC 200
struct mp {
    struct rt_cmdring r;
    unsigned applied[NPROD][NREC];
    unsigned next[NPROD];
    atomic_uint done;
    atomic_uint retries;
};

static void apply_mp(void *ctx, struct rt_cmd *c)
{
    struct mp *m = ctx;
    unsigned p = c->target, i = c->arg[0];
    assert_true(p < NPROD && i < NREC);
    assert_int_equal(i, m->next[p]);           /* per-producer order */
    m->next[p]++;
    m->applied[p][i]++;
    atomic_fetch_add(&m->done, 1);
}

struct prod { struct mp *m; unsigned id; };

static void *producer(void *arg)
{
    struct prod *p = arg;
    for (unsigned i = 0; i < NREC; i++) {
        struct rt_cmd c = { .op = 2, .target = (uint16_t)p->id, .arg = { i } };
        while (rt_cmdring_post(&p->m->r, &c, &i, sizeof i) == -EAGAIN) {
            atomic_fetch_add(&p->m->retries, 1);
            sched_yield();
        }
    }
    return NULL;
}

static void *consumer(void *arg)
{
    struct mp *m = arg;
    while (atomic_load(&m->done) < NPROD * NREC)
        if (!rt_cmdring_drain(&m->r, 0, apply_mp, m))
            sched_yield();
    return NULL;
}

static void many_producers(void **state)
{
    (void)state;
    struct mp *m = calloc(1, sizeof *m);
    assert_int_equal(rt_cmdring_init(&m->r, 16), 0);   /* small: it fills up */
    pthread_t c, t[NPROD];
    struct prod p[NPROD];
    assert_int_equal(pthread_create(&c, NULL, consumer, m), 0);
    for (unsigned i = 0; i < NPROD; i++) {
        p[i] = (struct prod){ m, i };
        assert_int_equal(pthread_create(&t[i], NULL, producer, &p[i]), 0);
    }
    for (unsigned i = 0; i < NPROD; i++)
        pthread_join(t[i], NULL);
    pthread_join(c, NULL);
    for (unsigned i = 0; i < NPROD; i++)
        for (unsigned k = 0; k < NREC; k++)
            assert_int_equal(m->applied[i][k], 1);
    assert_int_equal(atomic_load(&m->r.posted), NPROD * NREC);
    assert_int_equal(atomic_load(&m->r.refused), atomic_load(&m->retries));
    rt_cmdring_free(&m->r);
    free(m);
}

/* A waiter sleeps until the completion, made in another thread, wakes it; its result
 * and data arrive; one that gives up first leaves the waiter to the completion. */
static void *complete_later(void *arg)
{
    struct rt_waiter *w = arg;
    uint8_t d[3] = { 1, 2, 3 };
    rt_waiter_done(w, -5, d, sizeof d);
    return NULL;
}

static void waiter(void **state)
{
    (void)state;
    struct rt_waiter *w = rt_waiter_new(2);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, complete_later, w), 0);
    assert_int_equal(rt_waiter_wait(w, 60 * TAKT_NS_PER_S, NULL), 0);
    assert_int_equal(w->err, -5);
    assert_int_equal(w->len, 2);               /* what fits */
    assert_int_equal(w->buf[1], 2);
    rt_waiter_put(w);
    pthread_join(t, NULL);
    /* nobody completes: a timeout, and the completion's reference still holds it */
    w = rt_waiter_new(0);
    assert_int_equal(rt_waiter_wait(w, TAKT_NS_PER_MS, NULL), -ETIMEDOUT);
    rt_waiter_put(w);
    rt_waiter_done(w, 0, NULL, 0);             /* frees it (ASan/valgrind: no leak) */
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(order_and_full),
                                        cmocka_unit_test(many_producers),
                                        cmocka_unit_test(waiter) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
