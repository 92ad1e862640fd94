/* The event ring's reader wake-up (rt/event.h, rt_evring_wait / notify / wake): a
 * reader asleep with a long timeout is woken promptly by the producer's notify after
 * an event, by a change of the key, by a wake (the loop's end), and only then; no
 * wake-up is lost when producer and reader race (run under TAKT_TSAN too).
 *
 * "Promptly" is judged against a timeout far longer than any host stall: the reader
 * sleeps up to LONG_NS and must be back within LONG_NS / 2. Without the wake-up it
 * sleeps the whole LONG_NS, so these tests fail (slowly) when the signal is missing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "rt/event.h"
#include "rt/loop.h"
#include "unit/thread_state.h"

#define LONG_NS (20 * TAKT_NS_PER_S)

struct sleeper {
    struct rt_evring *e;
    pid_t tid;
    int rc;
    takt_ns_t took;
};

static void *sleeper_main(void *arg)
{
    struct sleeper *s = arg;
    __atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    takt_ns_t t0 = takt_now();
    s->rc = rt_evring_wait(s->e, LONG_NS);
    s->took = takt_now() - t0;
    return NULL;
}

/* Start a reader and return once it sleeps in the futex (or 10 s passed: then the
 * test still holds, it only checks the earlier return path). */
static void start_sleeper(struct sleeper *s, struct rt_evring *e, pthread_t *th)
{
    *s = (struct sleeper){ .e = e };
    assert_int_equal(pthread_create(th, NULL, sleeper_main, s), 0);
    takt_ns_t give_up = takt_now() + 10 * TAKT_NS_PER_S;
    while (takt_now() < give_up) {
        pid_t tid = __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE);
        if (tid && __atomic_load_n(&e->sleeping, __ATOMIC_ACQUIRE) && thread_sleeps(tid))
            return;
        usleep(1000);
    }
}

static void test_wait_rules(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_PLK, 8), 0);
    assert_int_equal(rt_evring_wait(&e, 0), 0);          /* nothing: the timeout */
    /* an event unread returns at once, notified or not */
    RT_EV(&e, 1, 1, -1, 0);
    assert_int_equal(rt_evring_wait(&e, LONG_NS), 1);
    struct takt_event ev;
    assert_true(rt_evring_next(&e, &ev));
    /* the notify after it: one return (the reader may have taken the event already) */
    rt_evring_notify(&e, 0);
    assert_int_equal(rt_evring_wait(&e, 0), 1);
    assert_int_equal(rt_evring_wait(&e, 0), 0);
    /* nothing new, key the same: no wake-up */
    rt_evring_notify(&e, 0);
    assert_int_equal(rt_evring_wait(&e, 0), 0);
    /* the key changed (a state the reader watches): a wake-up, once */
    rt_evring_notify(&e, 7);
    rt_evring_notify(&e, 7);
    assert_int_equal(rt_evring_wait(&e, 0), 1);
    assert_int_equal(rt_evring_wait(&e, 0), 0);
    rt_evring_wake(&e);
    assert_int_equal(rt_evring_wait(&e, 0), 1);
    /* an unreported loss counts as unread */
    for (int i = 0; i < 9; i++)
        RT_EV(&e, 2, 1, -1, 0);
    for (int i = 0; i < 8; i++)
        assert_true(rt_evring_next(&e, &ev) && ev.proto == TAKT_EV_PLK);
    assert_int_equal(rt_evring_wait(&e, 0), 1);
    assert_true(rt_evring_next(&e, &ev) && ev.proto == TAKT_EV_RING);
    assert_int_equal(rt_evring_wait(&e, 0), 0);
    /* the timeout is kept (a lower bound: a loaded host only makes it longer) */
    takt_ns_t t0 = takt_now();
    assert_int_equal(rt_evring_wait(&e, 30 * TAKT_NS_PER_MS), 0);
    assert_true(takt_now() - t0 >= 30 * TAKT_NS_PER_MS);
    rt_evring_free(&e);
}

/* An event put while the reader sleeps its long timeout: back at once, the event there. */
static void test_event_wakes_sleeper(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_PLK, 8), 0);
    struct sleeper s;
    pthread_t th;
    start_sleeper(&s, &e, &th);
    RT_EV(&e, 5, 3, 1, 0, 42);
    rt_evring_notify(&e, 0);
    pthread_join(th, NULL);
    assert_int_equal(s.rc, 1);
    assert_true(s.took < LONG_NS / 2);
    struct takt_event ev;
    assert_true(rt_evring_next(&e, &ev));
    assert_int_equal(ev.v[0], 42);
    assert_int_equal(ev.at, 5);   /* the producer's own stamp, not the reading's */
    /* a changed key alone wakes it too */
    start_sleeper(&s, &e, &th);
    rt_evring_notify(&e, 0x301);
    pthread_join(th, NULL);
    assert_int_equal(s.rc, 1);
    assert_true(s.took < LONG_NS / 2);
    rt_evring_free(&e);
}

static int step_nothing(void *ctx, struct takt_rt_loop *l, takt_ns_t wake)
{
    (void)ctx, (void)l, (void)wake;
    return 0;
}

/* A loop with a duration ends by itself: its on_end hook wakes the sleeping reader. */
static void test_loop_end_wakes_sleeper(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_PLK, 8), 0);
    struct sleeper s;
    pthread_t th;
    start_sleeper(&s, &e, &th);
    struct takt_rt_loop l;
    assert_int_equal(rt_loop_init(&l, TAKT_NS_PER_MS, NULL, step_nothing, NULL), 0);
    l.duration = 20 * TAKT_NS_PER_MS;
    l.on_end = rt_evring_wake_fn;
    l.on_end_arg = &e;
    assert_int_equal(takt_rt_loop_start(&l), 0);
    pthread_join(th, NULL);
    assert_true(takt_rt_loop_ended(&l));
    assert_int_equal(s.rc, 1);
    assert_true(s.took < LONG_NS / 2);
    takt_rt_loop_join(&l);
    rt_loop_free(&l);
    rt_evring_free(&e);
}

/* Producer and reader race: the producer puts events one by one, notifying after each,
 * now and then waiting until the reader sleeps; the reader drains and waits with the
 * long timeout. Every event arrives and no wait runs into its timeout. */
#define N_RACE 3000
static void *race_producer(void *arg)
{
    struct rt_evring *e = arg;
    for (int64_t i = 0; i < N_RACE; i++) {
        RT_EV(e, i, 1, -1, 0, i);        /* the ring holds them all: no loss */
        rt_evring_notify(e, (uint32_t)(i / 100));
        if (i % 7 == 0) {                /* let the reader fall asleep now and then */
            takt_ns_t give_up = takt_now() + TAKT_NS_PER_S;
            while (!__atomic_load_n(&e->sleeping, __ATOMIC_ACQUIRE) && takt_now() < give_up)
                sched_yield();
        }
    }
    return NULL;
}

static void test_race(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_ECAT, N_RACE), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, race_producer, &e), 0);
    int64_t next = 0;
    struct takt_event ev;
    while (next < N_RACE) {
        while (rt_evring_next(&e, &ev)) {
            assert_int_not_equal(ev.proto, TAKT_EV_RING);
            assert_int_equal(ev.v[0], next);
            next++;
        }
        if (next == N_RACE)
            break;
        takt_ns_t t0 = takt_now();
        rt_evring_wait(&e, LONG_NS);
        assert_true(takt_now() - t0 < LONG_NS / 2);
    }
    pthread_join(th, NULL);
    rt_evring_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_rules),
        cmocka_unit_test(test_event_wakes_sleeper),
        cmocka_unit_test(test_loop_end_wakes_sleeper),
        cmocka_unit_test(test_race),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
