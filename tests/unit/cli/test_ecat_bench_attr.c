/* takt ecat bench's attribution of a lost frame to the master's own lateness: a wake-up
 * more than a cycle late, or a frame sent so late in its cycle that its reply had less
 * than the simulator's stall threshold to come back before the wake-up that judged it.
 * The cases are the losses of a 250 and a 125 us row on a loaded VM: sent 232 us into a
 * 250 us cycle, the frame had 18 us left and was judged 40 us after its send. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "cli/cli_ecat.h"

#define US 1000LL

static void test_wake_more_than_a_cycle_late(void **state)
{
    (void)state;
    /* judged a whole cycle after the send, but the wake-up was 260 us late */
    assert_true(cli_ecat_bench_master_late(0, 250 * US, 260 * US, 250 * US, 63 * US));
}

static void test_sent_too_late_to_return(void **state)
{
    (void)state;
    /* 250 us cycle, threshold 63 us: woken 232 us late, judged 40.5 us after the send */
    assert_true(cli_ecat_bench_master_late(1000 * US, 1040 * US + 500, 232 * US, 250 * US, 63 * US));
    /* 125 us cycle, threshold 32 us: judged 22 us after the send */
    assert_true(cli_ecat_bench_master_late(0, 22 * US, 115 * US, 125 * US, 32 * US));
}

static void test_window_long_enough_stays_unexplained(void **state)
{
    (void)state;
    /* 125 us cycle: 45 us to return, more than the 32 us threshold: not the master's doing */
    assert_false(cli_ecat_bench_master_late(0, 45 * US, 104 * US, 125 * US, 32 * US));
    /* an on-time master and a whole cycle to return */
    assert_false(cli_ecat_bench_master_late(0, 1000 * US, 20 * US, 1000 * US, 100 * US));
    /* no threshold known (a simulator that records no stalls): only the wake-up rule */
    assert_false(cli_ecat_bench_master_late(0, 10 * US, 200 * US, 250 * US, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wake_more_than_a_cycle_late),
        cmocka_unit_test(test_sent_too_late_to_return),
        cmocka_unit_test(test_window_long_enough_stays_unexplained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
