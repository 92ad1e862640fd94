/* takt check against fixture /proc and /sys trees: a tuned RT machine, a stock desktop,
 * a half-tuned machine whose settings miss the cycle CPU ("mixed") and an empty tree
 * (every item must say "unknown" or give a safe default, never crash). Every item the
 * good tree passes must fail somewhere else: each has a good and a bad case. */
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
                        "sudo setcap cap_net_raw,cap_sys_nice,cap_ipc_lock=ep /usr/bin/takt");
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

static void mixed_machine(void **state)
{
    struct check_env e = { .root = tree("mixed"), .iface = "eth0", .cpu = 1, .coalesce = coal_none,
                           .binary = "/opt/takt/bin/takt" };
    struct check_report r;
    check_run(&e, &r);
    assert_int_equal(v(&r, "preempt_rt"), CHECK_OK);        /* no /sys/kernel/realtime; version says PREEMPT_RT */
    assert_int_equal(v(&r, "clocksource"), CHECK_WARN);
    assert_non_null(strstr(check_find(&r, "clocksource")->fix, "no TSC"));
    assert_int_equal(v(&r, "cmdline.isolcpus"), CHECK_WARN);   /* flags skipped, 2-3 leaves out CPU 1 */
    assert_string_equal(check_find(&r, "cmdline.isolcpus")->found,
                        "isolcpus=managed_irq,domain,2-3 leaves out the cycle CPU 1");
    assert_non_null(strstr(check_find(&r, "cmdline.isolcpus")->fix, "isolcpus=1 "));
    assert_int_equal(v(&r, "cmdline.nohz_full"), CHECK_OK);    /* 1-3 holds CPU 1 */
    assert_int_equal(v(&r, "cmdline.rcu_nocbs"), CHECK_OK);    /* implied by nohz_full */
    assert_non_null(strstr(check_find(&r, "cmdline.rcu_nocbs")->found, "implied by nohz_full=1-3"));
    assert_int_equal(v(&r, "cmdline.irqaffinity"), CHECK_WARN); /* 0-3 includes CPU 1 */
    assert_int_equal(v(&r, "cmdline.idle"), CHECK_INFO);
    assert_int_equal(v(&r, "cmdline.cpuidle.off"), CHECK_INFO);    /* =0 */
    assert_string_equal(check_find(&r, "cmdline.cpuidle.off")->found, "cpuidle.off=0");
    assert_int_equal(v(&r, "cmdline.intel_idle.max_cstate"), CHECK_WARN);   /* 9 */
    assert_int_equal(v(&r, "cmdline.processor.max_cstate"), CHECK_WARN);    /* 3 */
    assert_int_equal(v(&r, "cmdline.intel_pstate"), CHECK_INFO);            /* passive */
    assert_int_equal(v(&r, "cmdline.cpufreq.off"), CHECK_INFO);
    assert_int_equal(v(&r, "governor"), CHECK_INFO);          /* no cpufreq at all */
    assert_int_equal(v(&r, "smt"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "rt_throttling"), CHECK_UNKNOWN);
    assert_int_equal(v(&r, "cpu1.isolated"), CHECK_OK);       /* nohz_full implies isolation */
    assert_int_equal(v(&r, "iface"), CHECK_OK);               /* operstate unknown (no carrier detection) */
    assert_int_equal(v(&r, "iface.irq"), CHECK_OK);           /* line IRQ 19 on CPUs 2-3 */
    assert_string_equal(check_find(&r, "iface.irq")->found, "IRQ -> CPUs: 19->2-3");
    assert_int_equal(v(&r, "iface.coalesce"), CHECK_INFO);    /* not reported by the driver */
    assert_int_equal(v(&r, "cap.net_raw"), CHECK_OK);
    assert_int_equal(v(&r, "cap.ipc_lock"), CHECK_OK);
    assert_int_equal(v(&r, "cap.sys_nice"), CHECK_WARN);
    assert_string_equal(check_find(&r, "cap.sys_nice")->fix,
                        "sudo setcap cap_net_raw,cap_sys_nice,cap_ipc_lock=ep /opt/takt/bin/takt");
    assert_int_equal(v(&r, "rlimit.memlock"), CHECK_OK);      /* 64 KiB, but CAP_IPC_LOCK held */
    assert_int_equal(v(&r, "rlimit.rtprio"), CHECK_WARN);     /* 0 and no CAP_SYS_NICE */

    /* a virtual interface: no interrupt of its own */
    e.iface = "veth0";
    check_run(&e, &r);
    assert_int_equal(v(&r, "iface.irq"), CHECK_INFO);
    /* the same tree with the cycle CPU on 2: isolcpus holds it, irqaffinity 0-3 still not */
    e.cpu = 2;
    check_run(&e, &r);
    assert_int_equal(v(&r, "cmdline.isolcpus"), CHECK_OK);
    assert_int_equal(v(&r, "cpu2.isolated"), CHECK_OK);
    assert_int_equal(v(&r, "cmdline.irqaffinity"), CHECK_WARN);
}

/* Every item the tuned tree passes gets a verdict other than ok in the bad or the mixed
 * tree: no item is only ever seen passing. */
static void every_item_has_good_and_bad_case(void **state)
{
    struct check_env g = { .root = tree("good"), .iface = "enp2s0", .cpu = 1, .coalesce = coal_zero };
    struct check_report good, bad, mixed;
    check_run(&g, &good);
    char b_root[1024], m_root[1024];
    snprintf(b_root, sizeof b_root, "%s", tree("bad"));
    snprintf(m_root, sizeof m_root, "%s", tree("mixed"));
    struct check_env b = { .root = b_root, .iface = "enp2s0", .cpu = 1, .coalesce = coal_high };
    struct check_env m = { .root = m_root, .iface = "eth0", .cpu = 1, .coalesce = coal_none };
    check_run(&b, &bad);
    check_run(&m, &mixed);
    assert_true(good.n >= 25);
    for (unsigned i = 0; i < good.n; i++) {
        const struct check_item *it = &good.item[i];
        assert_int_equal(it->v, CHECK_OK);
        const struct check_item *x = check_find(&bad, it->id), *y = check_find(&mixed, it->id);
        bool has_bad = (x && x->v != CHECK_OK) || (y && y->v != CHECK_OK);
        if (!has_bad)
            fail_msg("item '%s' passes in every fixture tree", it->id);
        /* a verdict other than ok always comes with a fix */
        if (x && x->v != CHECK_OK && x->v != CHECK_UNKNOWN && !*x->fix)
            fail_msg("item '%s' (%s) has no fix", x->id, check_verdict_name(x->v));
    }
}

/* Fed file contents: a table of path -> contents; every other path is absent. */
struct fed { const char *const *files; };   /* path, contents, path, contents, ..., NULL */
static int fed_read(void *ctx, const char *path, char *buf, size_t cap)
{
    const struct fed *f = ctx;
    for (const char *const *p = f->files; *p; p += 2)
        if (!strcmp(*p, path))
            return snprintf(buf, cap, "%s", p[1]) < (int)cap ? (int)strlen(p[1]) : (int)cap - 1;
    return -ENOENT;
}

static bool mentions(const struct check_report *r, const char *word)
{
    for (unsigned i = 0; i < r->n; i++)
        if (strstr(r->item[i].fix, word) || strstr(r->item[i].found, word) || strstr(r->item[i].id, word))
            return true;
    return false;
}

#define CMDLINE "BOOT_IMAGE=/vmlinuz root=/dev/vda1 quiet"

/* A KVM guest on AMD: haltpoll idle driver, no cpufreq, hypervisor flag. Nothing may
 * speak of intel_idle or intel_pstate, and the idle advice is the guest's. */
static void vm_on_amd_gets_guest_advice(void **state)
{
    static const char *const files[] = {
        "/proc/cmdline", CMDLINE,
        "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme sse2 hypervisor svm\n",
        "/sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n",
        NULL };
    struct fed f = { files };
    struct check_env e = { .root = "", .iface = NULL, .cpu = 1, .read = fed_read, .read_ctx = &f };
    struct check_report r;
    check_run(&e, &r);
    assert_false(mentions(&r, "intel_idle"));
    assert_false(mentions(&r, "intel_pstate"));
    assert_false(mentions(&r, "processor.max_cstate"));   /* acpi_idle is not in use */
    const struct check_item *ci = check_find(&r, "cpuidle");
    assert_non_null(ci);
    assert_non_null(strstr(ci->found, "haltpoll"));
    assert_non_null(strstr(ci->fix, "host"));              /* the host decides the wake-up latency */
    const struct check_item *g = check_find(&r, "governor");
    assert_non_null(strstr(g->found, "virtual machine"));
    assert_non_null(strstr(g->fix, "host"));
}

/* AMD bare metal: acpi_idle and amd-pstate. The C-state advice is processor.max_cstate,
 * the frequency advice names amd_pstate, none names the Intel drivers. */
static void amd_bare_metal_gets_amd_advice(void **state)
{
    static const char *const files[] = {
        "/proc/cmdline", CMDLINE,
        "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme sse2 svm\n",
        "/sys/devices/system/cpu/cpuidle/current_driver", "acpi_idle\n",
        "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", "amd-pstate-epp\n",
        "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n",
        NULL };
    struct fed f = { files };
    struct check_env e = { .root = "", .iface = NULL, .cpu = 1, .read = fed_read, .read_ctx = &f };
    struct check_report r;
    check_run(&e, &r);
    assert_false(mentions(&r, "intel_idle"));
    assert_false(mentions(&r, "intel_pstate"));
    assert_int_equal(v(&r, "cmdline.processor.max_cstate"), CHECK_WARN);
    assert_non_null(strstr(check_find(&r, "cpuidle")->fix, "processor.max_cstate"));
    assert_non_null(check_find(&r, "cmdline.amd_pstate"));
    assert_int_equal(v(&r, "governor"), CHECK_WARN);
}

/* Intel with intel_idle and intel_pstate keeps the Intel advice. */
static void intel_keeps_intel_advice(void **state)
{
    static const char *const files[] = {
        "/proc/cmdline", CMDLINE,
        "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme sse2 vmx\n",
        "/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n",
        "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", "intel_pstate\n",
        NULL };
    struct fed f = { files };
    struct check_env e = { .root = "", .iface = NULL, .cpu = 1, .read = fed_read, .read_ctx = &f };
    struct check_report r;
    check_run(&e, &r);
    assert_int_equal(v(&r, "cmdline.intel_idle.max_cstate"), CHECK_WARN);
    assert_non_null(check_find(&r, "cmdline.intel_pstate"));
    assert_null(check_find(&r, "cmdline.amd_pstate"));
    assert_non_null(strstr(check_find(&r, "cpuidle")->fix, "intel_idle.max_cstate"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_machine),
        cmocka_unit_test(bad_machine),
        cmocka_unit_test(missing_files),
        cmocka_unit_test(mixed_machine),
        cmocka_unit_test(every_item_has_good_and_bad_case),
        cmocka_unit_test(json_matches_report),
        cmocka_unit_test(vm_on_amd_gets_guest_advice),
        cmocka_unit_test(amd_bare_metal_gets_amd_advice),
        cmocka_unit_test(intel_keeps_intel_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
