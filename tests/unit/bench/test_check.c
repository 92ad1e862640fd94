/* takt check against fixture /proc and /sys trees: a tuned RT machine, a stock desktop
 * and an empty tree (every item must say "unknown" or give a safe default, never crash). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/check.h"

static char root[1024];

static const char *tree(const char *name)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    snprintf(root, sizeof root, "%s/tests/unit/bench/fixtures/check/%s", src ? src : ".", name);
    return root;
}

static int coal_zero(const char *iface, struct check_coalesce *c, void *ctx)
{
    *c = (struct check_coalesce){ 0, 1, 0, 1 };
    return 0;
}
static int coal_high(const char *iface, struct check_coalesce *c, void *ctx)
{
    *c = (struct check_coalesce){ 50, 0, 100, 0 };
    return 0;
}
static int coal_none(const char *iface, struct check_coalesce *c, void *ctx) { return -EOPNOTSUPP; }

static enum check_verdict v(const struct check_report *r, const char *id)
{
    const struct check_item *it = check_find(r, id);
    if (!it)
        fail_msg("no item '%s'", id);
    return it->v;
}

static void good_machine(void **state)
{
    struct check_env e = { .root = tree("good"), .iface = "enp2s0", .cpu = 1, .coalesce = coal_zero,
                           .binary = "/usr/bin/takt" };
    struct check_report r;
    check_run(&e, &r);
    assert_int_equal(r.count[CHECK_FAIL], 0);
    assert_int_equal(r.count[CHECK_WARN], 0);
    assert_int_equal(v(&r, "preempt_rt"), CHECK_OK);
    assert_int_equal(v(&r, "clocksource"), CHECK_OK);
    assert_int_equal(v(&r, "cmdline.isolcpus"), CHECK_OK);
    assert_string_equal(check_find(&r, "cmdline.isolcpus")->found, "isolcpus=1");
    assert_int_equal(v(&r, "cmdline.idle"), CHECK_OK);
    assert_int_equal(v(&r, "governor"), CHECK_OK);
    assert_int_equal(v(&r, "smt"), CHECK_OK);
    assert_int_equal(v(&r, "rt_throttling"), CHECK_OK);
    assert_int_equal(v(&r, "cpu1.isolated"), CHECK_OK);
    assert_int_equal(v(&r, "iface.irq"), CHECK_OK);
    assert_int_equal(v(&r, "iface.coalesce"), CHECK_OK);
    assert_int_equal(v(&r, "cap.net_raw"), CHECK_OK);
    assert_int_equal(v(&r, "cap.sys_nice"), CHECK_OK);
    assert_int_equal(v(&r, "cap.ipc_lock"), CHECK_OK);
    assert_int_equal(v(&r, "rlimit.memlock"), CHECK_OK);
    assert_int_equal(v(&r, "rlimit.rtprio"), CHECK_OK);
}

static void bad_machine(void **state)
{
    struct check_env e = { .root = tree("bad"), .iface = "enp2s0", .cpu = 1, .coalesce = coal_high,
                           .binary = "/usr/bin/takt" };
    struct check_report r;
    check_run(&e, &r);
    assert_int_equal(v(&r, "preempt_rt"), CHECK_FAIL);
    assert_int_equal(v(&r, "clocksource"), CHECK_WARN);
    assert_non_null(strstr(check_find(&r, "clocksource")->fix, "echo tsc"));
    assert_int_equal(v(&r, "cmdline.isolcpus"), CHECK_WARN);
    assert_int_equal(v(&r, "cmdline.idle"), CHECK_INFO);   /* idle=halt is not idle=poll */
    assert_int_equal(v(&r, "governor"), CHECK_WARN);
    assert_non_null(strstr(check_find(&r, "governor")->found, "2 of 2"));
    assert_int_equal(v(&r, "smt"), CHECK_WARN);
    assert_int_equal(v(&r, "rt_throttling"), CHECK_INFO);
    assert_int_equal(v(&r, "cpuidle"), CHECK_INFO);
    assert_int_equal(v(&r, "cpu1.isolated"), CHECK_WARN);
    assert_int_equal(v(&r, "iface"), CHECK_WARN);          /* down */
    assert_int_equal(v(&r, "iface.irq"), CHECK_WARN);      /* 0-3 includes cpu 1 */
    assert_int_equal(v(&r, "iface.coalesce"), CHECK_WARN);
    assert_string_equal(check_find(&r, "iface.coalesce")->fix,
                        "ethtool -C enp2s0 rx-usecs 0 rx-frames 1 tx-usecs 0 tx-frames 1");
    assert_int_equal(v(&r, "cap.net_raw"), CHECK_WARN);
    assert_string_equal(check_find(&r, "cap.net_raw")->fix,
                        "sudo setcap cap_net_raw,cap_net_admin,cap_sys_nice,cap_ipc_lock+ep /usr/bin/takt");
    assert_int_equal(v(&r, "rlimit.memlock"), CHECK_WARN);
    assert_int_equal(v(&r, "rlimit.rtprio"), CHECK_WARN);
}

static void missing_files(void **state)
{
    struct check_env e = { .root = tree("missing"), .iface = "eth9", .cpu = 3, .coalesce = coal_none };
    struct check_report r;
    check_run(&e, &r);
    assert_int_equal(v(&r, "preempt_rt"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "clocksource"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "cmdline"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "smt"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "iface"), CHECK_FAIL);          /* no such interface */
    assert_non_null(strstr(check_find(&r, "iface")->found, "eth9"));
    assert_int_equal(v(&r, "cap.net_raw"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "rlimit.memlock"), CHECK_UNKNOWN);
    assert_null(check_find(&r, "iface.coalesce"));          /* not asked once the interface is missing */
}

static void json_matches_report(void **state)
{
    struct check_env e = { .root = tree("bad"), .iface = "enp2s0", .cpu = 1, .coalesce = coal_high };
    struct check_report r;
    check_run(&e, &r);
    json_object *j = check_to_json(&r);
    json_object *items, *sum, *w;
    assert_true(json_object_object_get_ex(j, "items", &items));
    assert_int_equal(json_object_array_length(items), r.n);
    assert_true(json_object_object_get_ex(j, "summary", &sum));
    assert_true(json_object_object_get_ex(sum, "warn", &w));
    assert_int_equal(json_object_get_int(w), r.count[CHECK_WARN]);
    unsigned total = 0;
    for (int k = 0; k < CHECK_VERDICTS; k++)
        total += r.count[k];
    assert_int_equal(total, r.n);
    json_object_put(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_machine),
        cmocka_unit_test(bad_machine),
        cmocka_unit_test(missing_files),
        cmocka_unit_test(json_matches_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
