/* Statistics and histograms: min/avg/max/count, bin placement, under/over, and
 * percentiles against hand-computed values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <takt/perf.h>
#include "perf/rec.h"

static void test_stat(void **state)
{
    struct takt_perf_stat s;
    takt_perf_stat_reset(&s);
    assert_int_equal(s.count, 0);
    assert_int_equal(perf_stat_avg(&s), 0);
    takt_perf_stat_add(&s, 1000);
    assert_int_equal(s.min, 1000);
    assert_int_equal(s.max, 1000);
    takt_perf_stat_add(&s, -500);
    takt_perf_stat_add(&s, 2600);
    assert_int_equal(s.min, -500);
    assert_int_equal(s.max, 2600);
    assert_int_equal(s.sum, 3100);
    assert_int_equal(s.count, 3);
    assert_int_equal(perf_stat_avg(&s), 1033);   /* 3100/3 truncated */
}

static void test_hist_bins(void **state)
{
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 100, 10, 5), 0);   /* [100,150) */
    int64_t v[] = { 99, 100, 109, 110, 149, 150, -5, INT64_MAX, INT64_MIN, 125 };
    for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        takt_perf_hist_add(&h, v[i]);
    assert_int_equal(h.total, 10);
    assert_int_equal(h.under, 3);          /* 99, -5, INT64_MIN */
    assert_int_equal(h.over, 2);           /* 150, INT64_MAX */
    assert_int_equal(h.bins[0], 2);        /* 100, 109 */
    assert_int_equal(h.bins[1], 1);        /* 110 */
    assert_int_equal(h.bins[2], 1);        /* 125 */
    assert_int_equal(h.bins[3], 0);
    assert_int_equal(h.bins[4], 1);        /* 149 */
    takt_perf_hist_reset(&h);
    assert_int_equal(h.total, 0);
    assert_int_equal(h.under + h.over + h.bins[0] + h.bins[4], 0);
    takt_perf_hist_free(&h);
}

static void test_hist_negative_lo(void **state)
{
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, -1000, 100, 20), 0);   /* [-1000, 1000) */
    takt_perf_hist_add(&h, -1000);
    takt_perf_hist_add(&h, -1);
    takt_perf_hist_add(&h, 0);
    takt_perf_hist_add(&h, INT64_MAX);
    assert_int_equal(h.bins[0], 1);
    assert_int_equal(h.bins[9], 1);
    assert_int_equal(h.bins[10], 1);
    assert_int_equal(h.over, 1);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), 0);     /* rank 2: -1 in [-100,0) */
    takt_perf_hist_free(&h);
}

/* The bin of a value is found by a multiply and a shift, not a division: the same bin
 * as x / bin for every bin width and every x below 2^63 (the most a histogram can
 * span). Checked at each bin edge (k * bin - 1, k * bin) for k near 0, near the top of
 * the 63-bit range and spread between, for widths of 1 ns to 2^62 + 1 (the odd, the
 * round, the powers of two and the widths next to them), and through takt_perf_hist_add
 * with a histogram whose top is the largest a width allows. */
static void test_hist_bin_exact(void **state)
{
    (void)state;
    static const uint64_t widths[] = {
        1, 2, 3, 5, 7, 10, 100, 127, 128, 129, 1000, 1023, 1024, 1025, 10000, 100000,
        1000000, 999999937, 1000000000, 4294967295u, 4294967296u, 4294967297u,
        10000000000000ull, (1ull << 40) + 1, 0x5555555555555555ull, (1ull << 62) - 1,
        1ull << 62, (1ull << 62) + 1, 0x7fffffffffffffffull };
    const uint64_t top = 1ull << 63;     /* x below this */
    for (unsigned w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        uint64_t d = widths[w];
        struct takt_perf_hist h;
        assert_int_equal(takt_perf_hist_init(&h, 0, (int64_t)d, 1), 0);
        uint64_t kmax = (top - 1) / d;    /* the last edge below 2^63 */
        uint64_t seed = 0x9E3779B97F4A7C15ull ^ d;
        for (unsigned i = 0; i < 4000; i++) {
            uint64_t k;
            if (i < 1000)
                k = i;                    /* the first edges */
            else if (i < 2000)
                k = kmax - (i - 1000);    /* the last ones */
            else {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                k = (seed >> 1) % (kmax + 1);
            }
            if (k > kmax)
                continue;                 /* kmax < 1000: fewer edges */
            uint64_t e = k * d;
            if (e)
                assert_int_equal(perf_hist_bin(&h, e - 1), k - 1);
            assert_int_equal(perf_hist_bin(&h, e), k);
            if (e + d - 1 < top)
                assert_int_equal(perf_hist_bin(&h, e + d - 1), k);
        }
        assert_int_equal(perf_hist_bin(&h, top - 1), (top - 1) / d);
        takt_perf_hist_free(&h);
        /* the same through the histogram, up to its top */
        uint32_t n = (uint32_t)((uint64_t)INT64_MAX / d < 64 ? (uint64_t)INT64_MAX / d : 64);
        assert_int_equal(takt_perf_hist_init(&h, 0, (int64_t)d, n), 0);
        for (uint32_t b = 0; b < n; b++) {
            takt_perf_hist_add(&h, (int64_t)(b * d));
            takt_perf_hist_add(&h, (int64_t)(b * d + d - 1));
            assert_int_equal(h.bins[b], 2);
        }
        takt_perf_hist_add(&h, (int64_t)(n * d - 1));
        assert_int_equal(h.bins[n - 1], 3);
        assert_int_equal(h.over, 0);
        if ((uint64_t)n * d < (uint64_t)INT64_MAX) {
            takt_perf_hist_add(&h, (int64_t)(n * d));   /* the top edge itself: over */
            assert_int_equal(h.over, 1);
        }
        takt_perf_hist_free(&h);
    }
}

static void test_hist_init_errors(void **state)
{
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 0, 0, 10), -EINVAL);
    assert_int_equal(takt_perf_hist_init(&h, 0, 10, 0), -EINVAL);
    assert_int_equal(takt_perf_hist_init(&h, 0, INT64_MAX, 4), -ERANGE);
    takt_perf_hist_free(&h);     /* safe after a failed init */
}

static void test_percentiles_uniform(void **state)
{
    /* 10000 values 1..10000 ns, 1 ns bins starting at 1: value v sits in bin v-1 whose
     * upper edge is v+1. Rank ceil(p/100*10000): p50 -> 5000, p99 -> 9900,
     * p99.9 -> 9990, p99.99 -> 9999, p100 -> 10000, p0 -> rank 1. */
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 1, 1, 10000), 0);
    for (int64_t v = 10000; v >= 1; v--)    /* order does not matter */
        takt_perf_hist_add(&h, v);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), 5001);
    assert_int_equal(takt_perf_hist_percentile(&h, 99), 9901);
    assert_int_equal(takt_perf_hist_percentile(&h, 99.9), 9991);
    assert_int_equal(takt_perf_hist_percentile(&h, 99.99), 10000);
    assert_int_equal(takt_perf_hist_percentile(&h, 100), 10001);
    assert_int_equal(takt_perf_hist_percentile(&h, 0), 2);
    /* out-of-range p is clamped, NaN taken as 0 */
    assert_int_equal(takt_perf_hist_percentile(&h, -5), 2);
    assert_int_equal(takt_perf_hist_percentile(&h, 250), 10001);
    assert_int_equal(takt_perf_hist_percentile(&h, NAN), 2);
    takt_perf_hist_free(&h);
}

static void test_percentiles_skewed(void **state)
{
    /* 1 us bins from 0. 9000 values of 1000 ns (bin 1), 900 of 5000 (bin 5),
     * 90 of 20000 (bin 20), 9 of 100000 (bin 100), 1 of 999999 (bin 999). total 10000.
     * p50 rank 5000 -> bin 1 -> 2000; p99 rank 9900 -> cumulative 9000, 9900 -> bin 5
     * -> 6000; p99.9 rank 9990 -> 9990 at bin 20 -> 21000; p99.99 rank 9999 -> bin 100
     * -> 101000; p100 -> bin 999 -> 1000000. */
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 0, 1000, 1000), 0);
    for (int i = 0; i < 9000; i++) takt_perf_hist_add(&h, 1000);
    for (int i = 0; i < 900; i++)  takt_perf_hist_add(&h, 5000);
    for (int i = 0; i < 90; i++)   takt_perf_hist_add(&h, 20000);
    for (int i = 0; i < 9; i++)    takt_perf_hist_add(&h, 100000);
    takt_perf_hist_add(&h, 999999);
    assert_int_equal(h.total, 10000);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), 2000);
    assert_int_equal(takt_perf_hist_percentile(&h, 99), 6000);
    assert_int_equal(takt_perf_hist_percentile(&h, 99.9), 21000);
    assert_int_equal(takt_perf_hist_percentile(&h, 99.99), 101000);
    assert_int_equal(takt_perf_hist_percentile(&h, 100), 1000000);
    takt_perf_hist_free(&h);
}

static void test_percentiles_small_counts(void **state)
{
    /* 3 values: p50 rank ceil(1.5)=2, p99 rank ceil(2.97)=3 */
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 0, 10, 10), 0);
    takt_perf_hist_add(&h, 5);
    takt_perf_hist_add(&h, 15);
    takt_perf_hist_add(&h, 95);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), 20);
    assert_int_equal(takt_perf_hist_percentile(&h, 99), 100);
    assert_int_equal(takt_perf_hist_percentile(&h, 33.3), 10);   /* rank ceil(0.999)=1 */
    assert_int_equal(takt_perf_hist_percentile(&h, 33.4), 20);   /* rank ceil(1.002)=2 */
    takt_perf_hist_free(&h);
}

static void test_percentiles_overflow_under_empty(void **state)
{
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 100, 10, 10), 0);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), 0);      /* empty */
    for (int i = 0; i < 100; i++)
        takt_perf_hist_add(&h, 1000 + i);                        /* all over */
    assert_int_equal(h.over, 100);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), INT64_MAX);
    assert_int_equal(takt_perf_hist_percentile(&h, 0), INT64_MAX);
    takt_perf_hist_reset(&h);
    for (int i = 0; i < 10; i++)
        takt_perf_hist_add(&h, 0);                               /* all under */
    takt_perf_hist_add(&h, 105);
    assert_int_equal(takt_perf_hist_percentile(&h, 50), 100);    /* lo */
    assert_int_equal(takt_perf_hist_percentile(&h, 91), 110);    /* rank 11 -> bin 0 */
    takt_perf_hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat),
        cmocka_unit_test(test_hist_bins),
        cmocka_unit_test(test_hist_negative_lo),
        cmocka_unit_test(test_hist_init_errors),
        cmocka_unit_test(test_hist_bin_exact),
        cmocka_unit_test(test_percentiles_uniform),
        cmocka_unit_test(test_percentiles_skewed),
        cmocka_unit_test(test_percentiles_small_counts),
        cmocka_unit_test(test_percentiles_overflow_under_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
