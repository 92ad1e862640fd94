/* takt analyze / takt check through the real binary: what a user sees for a microsecond
 * capture, a nanosecond one, bad files and bad options, and takt check on fixture trees
 * (--root) with its exit status and JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/cli/takt_run.h"
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *bin, *src;

static int run(const char *args, char *out, size_t n)
{
    return takt_run(bin, args, "2>&1", out, n);
}

static char out[65536];

static void expect(const char *args, int status, const char *s1, const char *s2)
{
    int rc = run(args, out, sizeof out);
    if (rc != status || (s1 && !strstr(out, s1)) || (s2 && !strstr(out, s2)))
        fail_msg("takt %s: exit %d (want %d), output:\n%s\n(want '%s' and '%s')", args, rc, status, out,
                 s1 ? s1 : "", s2 ? s2 : "");
}

static void analyze_files(void **state)
{
    char a[1024];
    /* a classic pcap with microsecond stamps (the reader fuzz seed): said twice */
    snprintf(a, sizeof a, "analyze '%s/tests/fuzz/corpus/fuzz_bench_pcap/plk.pcap' --nominal 500", src);
    expect(a, 0, "microsecond timestamps: precision is 1 us", "timestamps: us (precision 1 us)");
    expect(a, 0, "cyclic stream: POWERLINK SoC, 6 frames", "PerfMsmt 'Cycle Time' (min/avg/max) [usec]:  500.0/ 500.0/ 500.0");
    /* the histogram's limits as given: --lo/--hi, or +-range */
    snprintf(a, sizeof a, "analyze '%s/tests/fuzz/corpus/fuzz_bench_pcap/plk.pcap' --lo -50 --hi 100 --bin 5", src);
    expect(a, 0, "bins of 5.0 us over [-50.0, +100.0) us", "+0.0 us  5");
    snprintf(a, sizeof a, "analyze '%s/tests/fuzz/corpus/fuzz_bench_pcap/plk.pcap' --range 20", src);
    expect(a, 0, "bins of 1.0 us over [-20.0, +20.0) us", NULL);   /* 200 bins would be finer than its 1 us stamps */
    snprintf(a, sizeof a, "analyze '%s/tests/fuzz/corpus/fuzz_bench_pcap/plk.pcap' --nominal 5100", src);
    expect(a, 0, "bins of 5.0 us over [-510.0, +510.0) us", NULL);  /* +-10 % of the nominal cycle */
    snprintf(a, sizeof a, "analyze '%s/tests/fuzz/corpus/fuzz_bench_pcap/ecat.pcapng' --json -", src);
    assert_int_equal(run(a, out, sizeof out), 0);
    json_object *j = json_tokener_parse(out);
    assert_non_null(j);
    json_object *v;
    assert_true(json_object_object_get_ex(j, "timestamp_precision_ns", &v));
    assert_int_equal(json_object_get_int(v), 1);
    assert_true(json_object_object_get_ex(j, "stream", &v));
    json_object *sent;
    assert_true(json_object_object_get_ex(v, "sent", &sent));
    assert_int_equal(json_object_get_int(sent), 8);
    json_object_put(j);
    snprintf(a, sizeof a, "analyze '%s/tests/unit/bench/fixtures/check/good/proc/cmdline'", src);
    expect(a, 1, "is not a pcap or pcapng file", NULL);
    expect("analyze /nonexistent/x.pcapng", 1, "cannot open '/nonexistent/x.pcapng'", NULL);
}

static void analyze_options(void **state)
{
    expect("analyze", 2, "expects one capture file", NULL);
    expect("analyze x.pcap --lo=-50", 2, "--lo and --hi go together", NULL);
    expect("analyze x.pcap --lo=50 --hi=10", 2, "--hi above --lo", NULL);
    expect("analyze x.pcap --bin 0", 2, "--bin", NULL);
    expect("analyze x.pcap --range 1000000 --bin 0.001", 2, "10 million bins", NULL);
    expect("capture -t 1", 2, "expects -i IF and -o FILE", NULL);
    /* why a capture on the master's interface holds only the replies, and where to get both */
    expect("help capture", 0, "on the master's interface this (or Wireshark, tcpdump) records only the replies",
           "master's own --pcap tap");
    expect("help capture", 0, "run the master (and takt's other senders) with\n--no-qdisc-bypass", NULL);
    expect("help ecat run", 0, "--no-qdisc-bypass", "send through the qdisc, so captures on this interface");
}

static void check_trees(void **state)
{
    char a[1024];
    snprintf(a, sizeof a, "check --root '%s/tests/unit/bench/fixtures/check/bad' -a 1", src);
    expect(a, 1, "fail    PREEMPT_RT kernel", "fix: add isolcpus=1 (the cycle CPU)");
    snprintf(a, sizeof a, "check --root '%s/tests/unit/bench/fixtures/check/good' -a 1", src);
    expect(a, 0, "0 warn, 0 fail, 0 unknown", NULL);
    snprintf(a, sizeof a, "check --root '%s/tests/unit/bench/fixtures/check/mixed' -a 1 --json -", src);
    assert_int_equal(run(a, out, sizeof out), 0);
    json_object *j = json_tokener_parse(out), *items;
    assert_non_null(j);
    assert_true(json_object_object_get_ex(j, "items", &items));
    bool seen = false;
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *it = json_object_array_get_idx(items, i), *id, *verdict;
        json_object_object_get_ex(it, "id", &id);
        json_object_object_get_ex(it, "verdict", &verdict);
        if (!strcmp(json_object_get_string(id), "cmdline.intel_idle.max_cstate")) {
            seen = true;
            assert_string_equal(json_object_get_string(verdict), "warn");
        }
    }
    assert_true(seen);
    json_object_put(j);
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    src = getenv("TAKT_SOURCE_DIR");
    if (!bin || !src) {
        fprintf(stderr, "SKIP: TAKT_BIN and TAKT_SOURCE_DIR are set by ctest\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(analyze_files),
        cmocka_unit_test(analyze_options),
        cmocka_unit_test(check_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
