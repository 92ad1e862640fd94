/* Deadline arithmetic of takt_rt_cycle: on-time and late wake-ups, skipped deadlines,
 * overruns after a long step, and no drift — pure arithmetic, nothing sleeps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <takt/rt.h>

#define P  1000000LL           /* 1 ms period */
#define T0 5000000000LL        /* first deadline, an arbitrary monotonic time */

static void test_init(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, P, T0);
    assert_int_equal(c.period, P);
    assert_int_equal(c.next, T0);
    assert_int_equal(c.last_wake, 0);
    assert_int_equal(c.cycles, 0);
    assert_int_equal(c.overruns, 0);
    assert_int_equal(c.skipped, 0);
}

static void test_on_time(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, P, T0);
    takt_rt_cycle_woke(&c, T0);
    assert_int_equal(c.wake_dev, 0);
    assert_int_equal(c.wake_period, 0);      /* no previous wake-up */
    assert_int_equal(c.next, T0 + P);
    takt_rt_cycle_done(&c, T0 + 100000);
    takt_rt_cycle_woke(&c, T0 + P + 7000);
    assert_int_equal(c.wake_dev, 7000);
    assert_int_equal(c.wake_period, P + 7000);
    assert_int_equal(c.next, T0 + 2 * P);
    assert_int_equal(c.cycles, 2);
    assert_int_equal(c.overruns, 0);
    assert_int_equal(c.skipped, 0);
}

static void test_late_within_period(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, P, T0);
    takt_rt_cycle_woke(&c, T0 + P / 2);
    assert_int_equal(c.wake_dev, P / 2);
    assert_int_equal(c.next, T0 + P);          /* the grid, not wake + period */
    assert_int_equal(c.overruns, 0);
    assert_int_equal(c.skipped, 0);
    takt_rt_cycle_done(&c, T0 + P / 2 + 1000);
    assert_int_equal(c.next, T0 + P);
    assert_int_equal(c.overruns, 0);
}

static void test_late_three_and_a_half(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, P, T0);
    takt_ns_t now = T0 + 3 * P + P / 2;
    takt_rt_cycle_woke(&c, now);
    assert_int_equal(c.wake_dev, 3 * P + P / 2);
    assert_int_equal(c.skipped, 3);            /* T0+P, T0+2P, T0+3P */
    assert_int_equal(c.overruns, 1);
    assert_true(c.next > now);
    assert_int_equal(c.next, T0 + 4 * P);
    assert_int_equal((c.next - T0) % P, 0);    /* phase kept */
    /* the step is short: done() must not count the same cycle again */
    takt_rt_cycle_done(&c, now + 1000);
    assert_int_equal(c.overruns, 1);
    assert_int_equal(c.skipped, 3);
    /* the next cycle is on time again */
    takt_rt_cycle_woke(&c, T0 + 4 * P + 10);
    assert_int_equal(c.wake_dev, 10);
    assert_int_equal(c.overruns, 1);
    assert_int_equal(c.cycles, 2);
}

static void test_done_after_overrunning_step(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, P, T0);
    takt_rt_cycle_woke(&c, T0 + 5000);
    assert_int_equal(c.next, T0 + P);
    /* the step ran 2.2 periods: deadlines T0+P and T0+2P passed */
    takt_rt_cycle_done(&c, T0 + 2 * P + P / 5);
    assert_int_equal(c.overruns, 1);
    assert_int_equal(c.skipped, 2);
    assert_int_equal(c.next, T0 + 3 * P);
    /* a step ending exactly on a deadline also misses it: no back-to-back cycle */
    takt_rt_cycle_woke(&c, T0 + 3 * P);
    takt_rt_cycle_done(&c, T0 + 4 * P);
    assert_int_equal(c.overruns, 2);
    assert_int_equal(c.skipped, 3);
    assert_int_equal(c.next, T0 + 5 * P);
}

static void test_late_wake_and_long_step_one_overrun(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, P, T0);
    takt_rt_cycle_woke(&c, T0 + P + 1);             /* misses T0+P */
    assert_int_equal(c.overruns, 1);
    assert_int_equal(c.skipped, 1);
    takt_rt_cycle_done(&c, T0 + 3 * P);             /* and the step misses T0+2P, T0+3P */
    assert_int_equal(c.overruns, 1);           /* still one cycle with misses */
    assert_int_equal(c.skipped, 3);
    assert_int_equal(c.next, T0 + 4 * P);
}

static void test_no_drift(void **state)
{
    /* An awkward period (not a divisor of 1 s) and a wake-up jitter pattern: after a
     * million cycles the deadline is exactly on the start + k*period grid. */
    const takt_ns_t per = 333333;
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, per, T0);
    for (uint64_t k = 0; k < 1000000; k++) {
        takt_ns_t jitter = (takt_ns_t)((k * 7919) % 50000);   /* 0..50 us late */
        takt_ns_t wake = c.next + jitter;
        takt_rt_cycle_woke(&c, wake);
        takt_rt_cycle_done(&c, wake + 20000);
    }
    assert_int_equal(c.cycles, 1000000);
    assert_int_equal(c.overruns, 0);
    assert_int_equal(c.skipped, 0);
    assert_int_equal(c.next, T0 + 1000000LL * per);
}

static void test_zero_period_is_safe(void **state)
{
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, 0, T0);                  /* bad input: clamped, never loops forever */
    takt_rt_cycle_woke(&c, T0 + 10);
    assert_true(c.next > T0 + 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_on_time),
        cmocka_unit_test(test_late_within_period),
        cmocka_unit_test(test_late_three_and_a_half),
        cmocka_unit_test(test_done_after_overrunning_step),
        cmocka_unit_test(test_late_wake_and_long_step_one_overrun),
        cmocka_unit_test(test_no_drift),
        cmocka_unit_test(test_zero_period_is_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
