/* Loss-of-frame threshold counters, EPSG DS 301 DLL error handling: +8 per event, -1 per good cycle, fire at
 * the threshold and start over, threshold 0 disables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "plk/errcnt.h"

static void threshold_15_two_losses_fire(void **state)
{
    struct plk_errcnt e;
    plk_errcnt_init(&e, 15);
    assert_false(plk_errcnt_event(&e));      /* 8 */
    assert_int_equal(e.thr_cnt, 8);
    assert_true(plk_errcnt_event(&e));       /* 16 >= 15: fires, resets */
    assert_int_equal(e.thr_cnt, 0);
    assert_int_equal(e.cumulative, 2);
    assert_int_equal(e.fired, 1);
}

static void good_cycles_decay(void **state)
{
    struct plk_errcnt e;
    plk_errcnt_init(&e, 15);
    assert_false(plk_errcnt_event(&e));      /* 8 */
    plk_errcnt_good(&e);                     /* 7 */
    plk_errcnt_good(&e);                     /* 6 */
    assert_false(plk_errcnt_event(&e));      /* 14 < 15 */
    assert_int_equal(e.thr_cnt, 14);
    for (int i = 0; i < 20; i++)
        plk_errcnt_good(&e);                 /* floors at 0 */
    assert_int_equal(e.thr_cnt, 0);
    /* one loss every 8 cycles never accumulates: 8 - 7 good = 1, + 8 = 9 ... */
    for (int i = 0; i < 100; i++) {
        assert_false(plk_errcnt_event(&e));
        for (int k = 0; k < 8; k++)
            plk_errcnt_good(&e);
    }
    assert_int_equal(e.fired, 0);
    assert_int_equal(e.cumulative, 102);
    /* one good cycle between two losses: 8 - 1 + 8 = 15: fires */
    assert_false(plk_errcnt_event(&e));
    plk_errcnt_good(&e);
    assert_true(plk_errcnt_event(&e));
}

static void threshold_40_and_80(void **state)
{
    /* Demo_3CN's MN thresholds (40) need 5 losses in a row, the CN's (80) 10 */
    struct plk_errcnt e;
    plk_errcnt_init(&e, 40);
    for (int i = 0; i < 4; i++)
        assert_false(plk_errcnt_event(&e));
    assert_true(plk_errcnt_event(&e));
    plk_errcnt_init(&e, 80);
    for (int i = 0; i < 9; i++)
        assert_false(plk_errcnt_event(&e));
    assert_true(plk_errcnt_event(&e));
}

static void zero_disables(void **state)
{
    struct plk_errcnt e;
    plk_errcnt_init(&e, 0);
    for (int i = 0; i < 1000; i++)
        assert_false(plk_errcnt_event(&e));
    assert_int_equal(e.cumulative, 1000);
    assert_int_equal(e.thr_cnt, 0);
    assert_int_equal(e.fired, 0);
    plk_errcnt_init(&e, 15);
    plk_errcnt_event(&e);
    plk_errcnt_reset(&e);
    assert_int_equal(e.thr_cnt, 0);
    assert_int_equal(e.cumulative, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threshold_15_two_losses_fire),
        cmocka_unit_test(good_cycles_decay),
        cmocka_unit_test(threshold_40_and_80),
        cmocka_unit_test(zero_disables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
