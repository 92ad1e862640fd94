/* Output: PerfMsmt lines exactly as EC-Master prints them, and the JSON fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <json-c/json.h>
#include <takt/perf.h>
#include "perf/set.h"   /* sets embedded on the stack, as the library embeds them */

static void test_fmt_usec(void **state)
{
    char b[32];
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 989400), " 989.4");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 1000000), "1000.0");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 300), "   0.3");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 0), "   0.0");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 12249), "  12.2");   /* rounds */
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 12250), "  12.3");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 49), "   0.0");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), -2500), "  -2.5");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), -49), "   0.0");     /* no "-0.0" */
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), 12345678900), "12345678.9");
    assert_string_equal(takt_perf_fmt_usec(b, sizeof(b), INT64_MIN), "-9223372036854775.8");
}

static void test_line(void **state)
{
    struct takt_perf_stat s;
    takt_perf_stat_reset(&s);
    takt_perf_stat_add(&s, 989400);
    takt_perf_stat_add(&s, 1011400);
    takt_perf_stat_add(&s, 999200);   /* sum 3000000 -> avg 1000000 */
    char line[160];
    takt_perf_format_line(line, sizeof(line), "Cycle Time", &s);
    assert_string_equal(line, "PerfMsmt 'Cycle Time' (min/avg/max) [usec]:  989.4/1000.0/1011.4");

    takt_perf_stat_reset(&s);
    takt_perf_stat_add(&s, 300);
    takt_perf_stat_add(&s, 12200);
    takt_perf_stat_add(&s, 8200);     /* avg 6900 */
    takt_perf_format_line(line, sizeof(line), "JOB_ProcessAllRxFrames", &s);
    assert_string_equal(line, "PerfMsmt 'JOB_ProcessAllRxFrames' (min/avg/max) [usec]:    0.3/   6.9/  12.2");

    takt_perf_stat_reset(&s);         /* empty: zeros, not sentinels */
    takt_perf_format_line(line, sizeof(line), "Task Duration", &s);
    assert_string_equal(line, "PerfMsmt 'Task Duration' (min/avg/max) [usec]:    0.0/   0.0/   0.0");
}

static void test_print_set(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt a, b;
    takt_perf_set_init(&s, false);
    assert_int_equal(takt_perf_msmt_init(&a, "Cycle Time", 0, 1000, 10), 0);
    assert_int_equal(takt_perf_msmt_init(&b, "Wake Deviation", 0, 1000, 10), 0);
    takt_perf_set_add(&s, &a);
    takt_perf_set_add(&s, &b);
    takt_perf_record(&s, &a, 1000000);
    takt_perf_record(&s, &b, 4200);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int bank = takt_perf_set_snapshot(&s, 0);
    takt_perf_print_interval(f, &s, bank);
    takt_perf_set_release(&s, bank);
    takt_perf_record(&s, &a, 2000000);
    takt_perf_print_total(f, &s);
    fclose(f);
    assert_string_equal(buf,
        "PerfMsmt 'Cycle Time' (min/avg/max) [usec]: 1000.0/1000.0/1000.0\n"
        "PerfMsmt 'Wake Deviation' (min/avg/max) [usec]:    4.2/   4.2/   4.2\n"
        "--- PerfMsmt over the whole run (all cycles) ---\n"
        "PerfMsmt 'Cycle Time' (min/avg/max) [usec]: 1000.0/1500.0/2000.0\n"
        "PerfMsmt 'Wake Deviation' (min/avg/max) [usec]:    4.2/   4.2/   4.2\n");
    free(buf);
    takt_perf_msmt_free(&a);
    takt_perf_msmt_free(&b);
}

static void test_report_interval(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt a;
    takt_perf_set_init(&s, false);
    assert_int_equal(takt_perf_msmt_init(&a, "RTT", 0, 1000, 10), 0);
    takt_perf_set_add(&s, &a);
    takt_perf_record(&s, &a, 30000);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(takt_perf_report_interval(&s, f, 0), 0);
    takt_perf_record(&s, &a, 10000);
    assert_int_equal(takt_perf_report_interval(&s, f, 0), 0);
    assert_int_equal(takt_perf_report_interval(&s, f, 0), 0);   /* empty interval */
    fclose(f);
    assert_string_equal(buf,
        "PerfMsmt 'RTT' (min/avg/max) [usec]:   30.0/  30.0/  30.0\n"
        "PerfMsmt 'RTT' (min/avg/max) [usec]:   10.0/  10.0/  10.0\n"
        "PerfMsmt 'RTT' (min/avg/max) [usec]:    0.0/   0.0/   0.0\n");
    free(buf);
    /* threaded set with no RT side: a timeout and nothing printed */
    s.threaded = true;
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(takt_perf_report_interval(&s, f, TAKT_NS_PER_MS), -ETIMEDOUT);
    fclose(f);
    assert_int_equal(len, 0);
    free(buf);
    takt_perf_msmt_free(&a);
}

static int64_t get_i64(json_object *o, const char *k)
{
    json_object *v;
    assert_true(json_object_object_get_ex(o, k, &v));
    assert_true(json_object_is_type(v, json_type_int));
    return json_object_get_int64(v);
}

static void test_json_msmt(void **state)
{
    struct takt_perf_stat s;
    struct takt_perf_hist h;
    takt_perf_stat_reset(&s);
    assert_int_equal(takt_perf_hist_init(&h, 0, 1000, 10), 0);
    int64_t v[] = { 500, 1500, 1600, 9999, 20000 };
    for (unsigned i = 0; i < 5; i++) {
        takt_perf_stat_add(&s, v[i]);
        takt_perf_hist_add(&h, v[i]);
    }
    takt_perf_hist_add(&h, -1);       /* histogram-only value to show "under" */
    json_object *o = takt_perf_msmt_to_json(&s, &h, "RTT");
    assert_non_null(o);
    json_object *name;
    assert_true(json_object_object_get_ex(o, "name", &name));
    assert_string_equal(json_object_get_string(name), "RTT");
    assert_int_equal(get_i64(o, "count"), 5);
    assert_int_equal(get_i64(o, "min_ns"), 500);
    assert_int_equal(get_i64(o, "avg_ns"), 6719);
    assert_int_equal(get_i64(o, "max_ns"), 20000);
    /* hist total 6: under 1, bin0 1, bin1 2, bin9 1, over 1.
     * p50 rank 3 -> bin1 -> 2000; p99 rank ceil(5.94)=6 -> over -> null */
    assert_int_equal(get_i64(o, "p50_ns"), 2000);
    json_object *p99;
    assert_true(json_object_object_get_ex(o, "p99_ns", &p99));
    assert_null(p99);
    assert_true(json_object_object_get_ex(o, "p99_9_ns", &p99));
    assert_true(json_object_object_get_ex(o, "p99_99_ns", &p99));
    json_object *hist, *bins;
    assert_true(json_object_object_get_ex(o, "hist", &hist));
    assert_int_equal(get_i64(hist, "lo_ns"), 0);
    assert_int_equal(get_i64(hist, "bin_ns"), 1000);
    assert_int_equal(get_i64(hist, "under"), 1);
    assert_int_equal(get_i64(hist, "over"), 1);
    assert_true(json_object_object_get_ex(hist, "bins", &bins));
    assert_string_equal(json_object_to_json_string_ext(bins, JSON_C_TO_STRING_PLAIN),
                        "[[0,1],[1000,2],[9000,1]]");
    json_object_put(o);

    /* empty statistics: count 0 and nulls, no INT64 sentinels */
    takt_perf_stat_reset(&s);
    takt_perf_hist_reset(&h);
    o = takt_perf_msmt_to_json(&s, &h, "empty");
    assert_int_equal(get_i64(o, "count"), 0);
    json_object *mn;
    assert_true(json_object_object_get_ex(o, "min_ns", &mn));
    assert_null(mn);
    assert_true(json_object_object_get_ex(o, "p50_ns", &mn));
    assert_null(mn);
    json_object_put(o);
    takt_perf_hist_free(&h);
}

static void test_json_set(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt a;
    takt_perf_set_init(&s, false);
    assert_int_equal(takt_perf_msmt_init(&a, "Cycle Time", 0, 1000, 2000), 0);
    takt_perf_set_add(&s, &a);
    takt_perf_record(&s, &a, 1000000);
    int bank = takt_perf_set_snapshot(&s, 0);
    takt_perf_record(&s, &a, 1002000);
    json_object *tot = takt_perf_set_to_json(&s);
    json_object *ival = takt_perf_set_interval_to_json(&s, bank);
    json_object *m;
    assert_true(json_object_object_get_ex(tot, "Cycle Time", &m));
    assert_int_equal(get_i64(m, "count"), 2);
    assert_int_equal(get_i64(m, "max_ns"), 1002000);
    assert_true(json_object_object_get_ex(ival, "Cycle Time", &m));
    assert_int_equal(get_i64(m, "count"), 1);
    assert_int_equal(get_i64(m, "p99_99_ns"), 1001000);
    json_object_put(tot);
    json_object_put(ival);
    takt_perf_msmt_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_usec),
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_print_set),
        cmocka_unit_test(test_report_interval),
        cmocka_unit_test(test_json_msmt),
        cmocka_unit_test(test_json_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
