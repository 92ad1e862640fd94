/* The command line parsed in-process (cli_parse, and the `plk cn` options that need no
 * link): a parse starts from nothing an earlier parse left behind, and the times of
 * --vanish and --nmt-request are refused unless they are numbers that fit in
 * nanoseconds, with nothing after them. Messages go to a temporary file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"

static FILE *sink;

static int parse(struct cli_ctx *c, int argc, char **argv)
{
    FILE *out = stdout, *err = stderr;
    stdout = stderr = sink;
    int rc = cli_parse(argc, argv, c);
    stdout = out;
    stderr = err;
    return rc;
}

/* `takt link bench -hv` prints help and stops at -h, half-way through the cluster; a
 * parse after it must not take the rest of that cluster as its own option. */
static void test_parse_starts_over(void **state)
{
    (void)state;
    char a0[] = "takt", a1[] = "link", a2[] = "bench", a3[] = "-hv";
    char *first[] = { a0, a1, a2, a3, NULL };
    struct cli_ctx c;
    assert_int_equal(parse(&c, 4, first), 0);          /* help */
    char b0[] = "takt", b1[] = "check";
    char *second[] = { b0, b1, NULL };
    assert_int_equal(parse(&c, 2, second), -1);
    assert_string_equal(c.cmd->verb, "check");
    assert_int_equal(c.verbose, 0);
}

/* `takt plk cn --node 1 OPT VALUE`: the exit status of its option parsing. */
static int cn_opt(const char *opt, const char *value, struct takt_sim_plk_faults *f, double *after)
{
    char *argv[] = { "takt", "plk", "cn", "--node", "1", (char *)opt, (char *)value, NULL };
    struct cli_ctx c;
    if (parse(&c, 7, argv) != -1)
        return 100;
    unsigned a, b, cmd, target;
    FILE *err = stderr;
    stderr = sink;
    int rc = cli_plk_cn_options(&c, &a, &b, f, &cmd, &target, after);
    stderr = err;
    return rc;
}

static void test_vanish_times(void **state)
{
    (void)state;
    struct takt_sim_plk_faults f;
    double after;
    assert_int_equal(cn_opt("--vanish", "3@2+1.5", &f, &after), 0);
    assert_int_equal(f.vanish_node, 3);
    assert_int_equal(f.vanish_at, 2000000000);
    assert_int_equal(f.vanish_for, 1500000000);
    assert_int_equal(cn_opt("--vanish", "3@2", &f, &after), 0);
    assert_int_equal(f.vanish_for, 0);
    /* not a time in nanoseconds: NaN, infinity, past 2^63 ns, trailing text */
    static const char *const bad[] = { "3@nan", "3@inf", "3@1e300", "3@2+1e10", "3@2+nan", "3@2x",
                                       "3@2+1.5s", "3@-0+-1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cn_opt("--vanish", bad[i], &f, &after) != 2)
            fail_msg("--vanish %s accepted (at %lld ns, for %lld ns)", bad[i], (long long)f.vanish_at,
                     (long long)f.vanish_for);
}

static void test_nmt_request_time(void **state)
{
    (void)state;
    struct takt_sim_plk_faults f;
    double after;
    assert_int_equal(cn_opt("--nmt-request", "0x22@1+2", &f, &after), 0);
    assert_true(after == 2.0);
    static const char *const bad[] = { "0x22@1+nan", "0x22@1+1e300", "0x22@1+2x", "0x22@1+1e10" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cn_opt("--nmt-request", bad[i], &f, &after) != 2)
            fail_msg("--nmt-request %s accepted (after %g s)", bad[i], after);
}

/* `takt plk mn --nodes LIST`: the exit status of building its network configuration
 * (ni filled when 0); the message, if any, in msg. */
static int mn_nodes(const char *list, struct takt_plk_net_info *ni, char *msg, size_t len)
{
    char *argv[] = { "takt", "plk", "mn", "--nodes", (char *)list, NULL };
    struct cli_ctx c;
    if (parse(&c, 5, argv) != -1)
        return 100;
    FILE *err = stderr;
    stderr = sink;
    long at = ftell(sink);
    struct takt_plk_net *nc = NULL;
    int rc = cli_plk_net_config(&c, &nc);
    stderr = err;
    if (!rc)
        takt_plk_net_get(nc, ni);
    takt_plk_net_free(nc);
    fflush(sink);
    fseek(sink, at, SEEK_SET);
    size_t n = fread(msg, 1, len - 1, sink);
    msg[n] = 0;
    fseek(sink, 0, SEEK_END);
    return rc;
}

/* Demo_3CN's CNs are 1, 32 and 110: --nodes takes IDs and ranges mixed, on the MN and
 * on the simulated CNs, and refuses anything else saying what it expects. */
static void test_node_lists(void **state)
{
    (void)state;
    struct takt_plk_net_info nc;
    char msg[512];
    assert_int_equal(mn_nodes("1,32,110", &nc, msg, sizeof msg), 0);
    assert_int_equal(nc.n_nodes, 3);
    assert_int_equal(nc.nodes[0], 1);
    assert_int_equal(nc.nodes[1], 32);
    assert_int_equal(nc.nodes[2], 110);
    assert_int_equal(mn_nodes("1-3,32", &nc, msg, sizeof msg), 0);
    assert_int_equal(nc.n_nodes, 4);
    assert_int_equal(nc.nodes[2], 3);
    assert_int_equal(nc.nodes[3], 32);
    assert_int_equal(mn_nodes("5", &nc, msg, sizeof msg), 0);
    assert_int_equal(nc.n_nodes, 1);
    assert_int_equal(mn_nodes("1-239", &nc, msg, sizeof msg), 0);
    assert_int_equal(nc.n_nodes, 239);
    static const char *const bad[] = { "", ",", "1,", ",1", "1,,2", "1-", "-1", "0", "240", "3-1",
                                       "1;2", "a", "1 ,2", " 1", "+1", "1-2-3", "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (mn_nodes(bad[i], &nc, msg, sizeof msg) != 2)
            fail_msg("--nodes '%s' accepted", bad[i]);
        if (!strstr(msg, "--nodes") || !strstr(msg, "1,32,110"))
            fail_msg("--nodes '%s': the message does not say what is expected: %s", bad[i], msg);
    }
    struct takt_sim_plk_faults f;
    double after;
    char *argv[] = { "takt", "plk", "cn", "--nodes", "1,32,110", NULL };
    struct cli_ctx c;
    assert_int_equal(parse(&c, 5, argv), -1);
    unsigned a, b, cmd, target;
    assert_int_equal(cli_plk_cn_options(&c, &a, &b, &f, &cmd, &target, &after), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 110);
}

/* A run whose cycles mostly overran ends non-zero and says what could not be held; a
 * run with some overruns (at most half) is the tuning's business, not an error. */
static void test_overruns(void **state)
{
    (void)state;
    char a0[] = "takt", a1[] = "ecat", a2[] = "run";
    char *argv[] = { a0, a1, a2, NULL };
    struct cli_ctx c;
    assert_int_equal(parse(&c, 3, argv), -1);
    FILE *err = stderr;
    stderr = sink;
    long at = ftell(sink);
    int none = cli_check_overruns(&c, 1000, 0, 100000);
    int half = cli_check_overruns(&c, 1000, 500, 100000);
    int idle = cli_check_overruns(&c, 0, 0, 100000);
    int most = cli_check_overruns(&c, 7362, 7362, 100000);
    stderr = err;
    assert_int_equal(none, 0);
    assert_int_equal(half, 0);
    assert_int_equal(idle, 0);
    assert_int_equal(most, 1);
    char msg[512] = "";
    fflush(sink);
    fseek(sink, at, SEEK_SET);
    size_t n = fread(msg, 1, sizeof msg - 1, sink);
    msg[n] = 0;
    assert_non_null(strstr(msg, "the machine could not hold a 100 us cycle: 7362 of 7362 cycles overran"));
}

int main(void)
{
    sink = tmpfile();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_starts_over),
        cmocka_unit_test(test_vanish_times),
        cmocka_unit_test(test_nmt_request_time),
        cmocka_unit_test(test_overruns),
        cmocka_unit_test(test_node_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
