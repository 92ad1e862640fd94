/* The Prometheus renderers (metrics_fmt.c, metrics_proto.c) against golden text: names,
 * HELP/TYPE lines, label escaping, histogram buckets from the perf bins. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "cli/metrics.h"

static char buf[65536];

static void test_histogram_golden(void **state)
{
    (void)state;
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 0, 1000, 5000), 0);   /* 1 us bins to 5 ms */
    struct takt_perf_stat s;
    takt_perf_stat_reset(&s);
    const int64_t v[] = { -5, 999, 1000, 1500, 998000, 1001000, 1001999, 7000000 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        takt_perf_stat_add(&s, v[i]);
        takt_perf_hist_add(&h, v[i]);
    }
    struct mx_buf b;
    mx_init(&b, buf, sizeof buf, "eth\"1", "ecat");
    mx_family(&b, "takt_perf_seconds", "histogram", "help");
    const int64_t e[] = { 1000, 1500, 2000, 999999, 1000000, 1002000, 6000000 };
    mx_histogram(&b, "takt_perf_seconds", "msmt=\"Cycle Time\"", &s, &h, e, 7);
    const char *want =
        "# HELP takt_perf_seconds help\n"
        "# TYPE takt_perf_seconds histogram\n"
        /* below 1 us: the value under the range and 999 */
        "takt_perf_seconds_bucket{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\",le=\"1e-06\"} 2\n"
        /* 1500 is rounded down to the bin edge 1000: already written, so skipped */
        "takt_perf_seconds_bucket{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\",le=\"2e-06\"} 4\n"
        "takt_perf_seconds_bucket{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\",le=\"0.000999\"} 5\n"
        "takt_perf_seconds_bucket{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\",le=\"0.001\"} 5\n"
        "takt_perf_seconds_bucket{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\",le=\"0.001002\"} 7\n"
        /* 6 ms is above the histogram's top (5 ms): dropped; 7 ms only in +Inf */
        "takt_perf_seconds_bucket{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\",le=\"+Inf\"} 8\n"
        "takt_perf_seconds_sum{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\"} 0.010004493\n"
        "takt_perf_seconds_count{interface=\"eth\\\"1\",protocol=\"ecat\",msmt=\"Cycle Time\"} 8\n";
    assert_string_equal(buf, want);
    assert_false(b.overflow);
    takt_perf_hist_free(&h);
}

static void test_edges(void **state)
{
    (void)state;
    struct takt_perf_hist h;
    assert_int_equal(takt_perf_hist_init(&h, 0, 100, 10000), 0);   /* the JOB_* layout: 100 ns to 1 ms */
    int64_t e[64];
    unsigned n = mx_edges(&h, 0, e, 64);
    const int64_t want[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
                             200000, 500000, 1000000 };
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(e[i], want[i]);
    takt_perf_hist_free(&h);
    /* a cycle time of 1 ms in 1 us bins to 5 ms: the ladder plus 1 ms +- 1..500 us */
    assert_int_equal(takt_perf_hist_init(&h, 0, 1000, 5000), 0);
    n = mx_edges(&h, 1000000, e, 64);
    for (unsigned i = 1; i < n; i++)
        assert_true(e[i] > e[i - 1]);
    const int64_t some[] = { 1000, 500000, 990000, 999000, 1000000, 1001000, 1002000, 1500000, 5000000 };
    for (size_t k = 0; k < sizeof some / sizeof some[0]; k++) {
        bool found = false;
        for (unsigned i = 0; i < n; i++)
            found |= e[i] == some[k];
        assert_true(found);
    }
    takt_perf_hist_free(&h);
}

static void test_escape_and_overflow(void **state)
{
    (void)state;
    char out[32];
    mx_escape(out, sizeof out, "a\\b\"c\nd");
    assert_string_equal(out, "a\\\\b\\\"c\\nd");
    mx_escape(out, 4, "\"\"\"\"");
    assert_true(strlen(out) <= 3);
    char small[40];
    struct mx_buf b;
    mx_init(&b, small, sizeof small, "eth0", "ecat");
    mx_counter(&b, "takt_x_total", "a counter", 1);
    assert_true(b.overflow);
    assert_true(strlen(small) < sizeof small);
}

static void test_ecat_golden(void **state)
{
    (void)state;
    struct takt_ecat_master_stats s = { 0 };
    s.frames_sent = 10;
    s.frames_received = 9;
    s.frames_lost = 1;
    s.wkc_errors = 2;
    s.tx_rate[0] = 1000;
    s.loss_rate[1] = 0.5;
    s.state = 8;
    s.slaves = 2;
    s.slaves_op = 1;
    s.slaves_safeop = 1;
    s.dc_sync_err_ns = 20;
    struct mx_ecat_slave sl[2] = {
        { .name = "EK1100", .st = { .al_state = 8, .present = true } },
        { .name = "bad \"name\"\n", .st = { .al_state = 0x14, .al_code = 0x1B } },
    };
    struct mx_buf b;
    mx_init(&b, buf, sizeof buf, "eth0", "ecat");
    mx_ecat(&b, &s, sl, 2);
    assert_false(b.overflow);
    const char *lines[] = {
        "# TYPE takt_ecat_frames_sent_total counter\n"
        "takt_ecat_frames_sent_total{interface=\"eth0\",protocol=\"ecat\"} 10\n",
        "takt_ecat_wkc_errors_total{interface=\"eth0\",protocol=\"ecat\"} 2\n",
        "takt_ecat_frames_sent_per_second{interface=\"eth0\",protocol=\"ecat\",window=\"1s\"} 1000\n",
        "takt_ecat_frames_lost_per_second{interface=\"eth0\",protocol=\"ecat\",window=\"10s\"} 0.5\n",
        "takt_ecat_slaves_in_state{interface=\"eth0\",protocol=\"ecat\",state=\"SAFEOP\"} 1\n",
        "takt_ecat_dc_sync_error_seconds{interface=\"eth0\",protocol=\"ecat\"} 2e-08\n",
        "takt_ecat_slave_state{interface=\"eth0\",protocol=\"ecat\",position=\"0\",name=\"EK1100\"} 8\n",
        "takt_ecat_slave_state{interface=\"eth0\",protocol=\"ecat\",position=\"1\",name=\"bad \\\"name\\\"\\n\"} 4\n",
        "takt_ecat_slave_error{interface=\"eth0\",protocol=\"ecat\",position=\"1\",name=\"bad \\\"name\\\"\\n\"} 1\n",
        "takt_ecat_slave_al_status_code{interface=\"eth0\",protocol=\"ecat\",position=\"1\",name=\"bad \\\"name\\\"\\n\"} 27\n",
        "takt_ecat_slave_present{interface=\"eth0\",protocol=\"ecat\",position=\"0\",name=\"EK1100\"} 1\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(buf, lines[i]))
            fail_msg("missing:\n%s\nin:\n%s", lines[i], buf);
}

static void test_plk_golden(void **state)
{
    (void)state;
    struct takt_plk_mn_stats s = { .state = 0xFD, .cycles = 100, .frames_tx = 300,
                                   .nodes_configured = 2, .nodes_operational = 2 };
    struct mx_plk_node n[2] = {
        { .id = 1, .st = { .state = 0xFD, .pres_ok = 98, .pres_lost = 2, .loss_threshold_hits = 1,
                           .pres_lat_sum = 98000, .pres_lat_max = 3000 } },
        { .id = 7, .st = { .state = 0x1D, .in_cycle = true } },
    };
    struct mx_buf b;
    mx_init(&b, buf, sizeof buf, "eth1", "powerlink");
    mx_plk_mn(&b, &s, n, 2);
    assert_false(b.overflow);
    const char *want =
        "# HELP takt_plk_node_pres_lost_total PReq without a PRes in time (the loss counter of 0x1C09).\n"
        "# TYPE takt_plk_node_pres_lost_total counter\n"
        "takt_plk_node_pres_lost_total{interface=\"eth1\",protocol=\"powerlink\",node=\"1\"} 2\n"
        "takt_plk_node_pres_lost_total{interface=\"eth1\",protocol=\"powerlink\",node=\"7\"} 0\n";
    if (!strstr(buf, want))
        fail_msg("missing:\n%s\nin:\n%s", want, buf);
    const char *more[] = {
        "takt_plk_mn_state{interface=\"eth1\",protocol=\"powerlink\"} 253\n",
        "takt_plk_mn_cycles_total{interface=\"eth1\",protocol=\"powerlink\"} 100\n",
        "takt_plk_node_loss_threshold_hits_total{interface=\"eth1\",protocol=\"powerlink\",node=\"1\"} 1\n",
        "takt_plk_node_state{interface=\"eth1\",protocol=\"powerlink\",node=\"7\"} 29\n",
        "takt_plk_node_in_cycle{interface=\"eth1\",protocol=\"powerlink\",node=\"7\"} 1\n",
        "takt_plk_node_pres_latency_seconds_sum{interface=\"eth1\",protocol=\"powerlink\",node=\"1\"} 9.8e-05\n",
        "takt_plk_node_pres_latency_seconds_count{interface=\"eth1\",protocol=\"powerlink\",node=\"1\"} 98\n",
        "takt_plk_node_pres_latency_max_seconds{interface=\"eth1\",protocol=\"powerlink\",node=\"7\"} 0\n",
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        if (!strstr(buf, more[i]))
            fail_msg("missing:\n%s\nin:\n%s", more[i], buf);
}

static void test_loop_golden(void **state)
{
    (void)state;
    struct mx_loop l = { .cycles = 4000, .overruns = 3, .period_ns = 1000000, .ended = true,
                         .cpu_ns = 80000000, .thread_cpu_ns = 60000000 };
    struct mx_buf b;
    mx_init(&b, buf, sizeof buf, "eth0", "ecat");
    mx_loop(&b, &l);
    assert_non_null(strstr(buf, "# TYPE takt_cycles_total counter\ntakt_cycles_total{interface=\"eth0\",protocol=\"ecat\"} 4000\n"));
    assert_non_null(strstr(buf, "takt_overruns_total{interface=\"eth0\",protocol=\"ecat\"} 3\n"));
    assert_non_null(strstr(buf, "takt_cycle_period_seconds{interface=\"eth0\",protocol=\"ecat\"} 0.001\n"));
    assert_non_null(strstr(buf, "# TYPE takt_cpu_seconds_total counter\ntakt_cpu_seconds_total{interface=\"eth0\",protocol=\"ecat\"} 0.08\n"));
    assert_non_null(strstr(buf, "takt_cpu_seconds_per_cycle{interface=\"eth0\",protocol=\"ecat\"} 2e-05\n"));
    assert_non_null(strstr(buf, "# TYPE takt_rt_thread_cpu_seconds_total counter\ntakt_rt_thread_cpu_seconds_total{interface=\"eth0\",protocol=\"ecat\"} 0.06\n"));
    l.ended = false;
    mx_init(&b, buf, sizeof buf, "eth0", "ecat");
    mx_loop(&b, &l);
    assert_null(strstr(buf, "cpu"));   /* the CPU time exists only once the cycle ended */
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_histogram_golden),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_escape_and_overflow),
        cmocka_unit_test(test_ecat_golden),
        cmocka_unit_test(test_plk_golden),
        cmocka_unit_test(test_loop_golden),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
