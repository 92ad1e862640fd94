/* takt_ecat_master_wait_ev, the sleep of the thread that reports on a running master
 * (takt ecat run's main thread): with the RT thread running, a state change asked for
 * from another thread wakes the reader asleep with a 20 s timeout as soon as the cycle
 * published it, and stopping the master while the reader sleeps wakes it too. Without
 * the wake-up each of those waits would sleep its whole timeout. */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "master_rig.h"
#include "unit/thread_state.h"

#define LONG_NS (20 * TAKT_NS_PER_S)

static void wait_once(struct takt_ecat_master *m)
{
    takt_ns_t t0 = takt_now();
    takt_ecat_master_wait_ev(m, LONG_NS);
    takt_ns_t took = takt_now() - t0;
    if (took >= LONG_NS / 2)
        fail_msg("a wait took %.1f s: the cycle did not wake the reader", took / 1e9);
    struct takt_event ev;
    while (takt_ecat_master_next_ev(m, &ev))
        ;
}

struct stopper { struct takt_ecat_master *m; pid_t reader; };

static void *stopper_main(void *arg)
{
    struct stopper *s = arg;
    takt_ns_t give_up = takt_now() + 10 * TAKT_NS_PER_S;
    while (!thread_sleeps(s->reader) && takt_now() < give_up)
        usleep(1000);
    takt_ecat_master_stop(s->m);
    return NULL;
}

static void reader_woken_by_the_cycle(void **state)
{
    (void)state;
    struct rig *r = rig_new(2, false);
    up(r, 2);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    ro.mlock = false;
    ro.dma_latency = false;
    assert_int_equal(takt_ecat_master_start(r->m, &ro, 0), 0);
    /* drain what the start left, then a state change that puts no event of its own */
    wait_once(r->m);
    assert_int_equal(takt_ecat_master_request_state(r->m, AL_PREOP), 0);
    takt_ns_t end = takt_now() + 60 * TAKT_NS_PER_S;
    while (takt_ecat_master_state(r->m) != AL_PREOP && takt_now() < end)
        wait_once(r->m);
    assert_int_equal(takt_ecat_master_state(r->m), AL_PREOP);
    /* stopped while the reader sleeps: the loop's end wakes it */
    struct stopper s = { r->m, (pid_t)syscall(SYS_gettid) };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, stopper_main, &s), 0);
    while (!takt_rt_loop_ended(takt_ecat_master_loop(r->m)))
        wait_once(r->m);
    pthread_join(t, NULL);
    takt_ecat_master_join(r->m);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(reader_woken_by_the_cycle) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
