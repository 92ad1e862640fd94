/* Fuzz target: the /proc and /sys readers of `takt check` (check_run in
 * src/bench/check.c: PREEMPT_RT and clock source, the kernel command line and its CPU
 * lists, governors, SMT, RT throttling, idle driver, isolation, interface state, MSI
 * and line IRQs with their affinity lists, CapEff in /proc/self/status, the limits in
 * /proc/self/limits), then the report printed and as JSON. The files come from the
 * input through check_env.read: byte 0 picks the cycle CPU (-1..6), whether an
 * interface is audited and what its coalescing query returns; the rest, split at NUL
 * bytes, is the content of the files of `paths` in that order ("-": no such file).
 * The machine has cpu0 and cpu1. */
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/check.h"

static const char *const paths[] = {
    "/sys/kernel/realtime",
    "/proc/sys/kernel/version",
    "/sys/devices/system/clocksource/clocksource0/current_clocksource",
    "/sys/devices/system/clocksource/clocksource0/available_clocksource",
    "/proc/cmdline",
    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
    "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
    "/sys/devices/system/cpu/cpu1/online",
    "/sys/devices/system/cpu/smt/active",
    "/proc/sys/kernel/sched_rt_runtime_us",
    "/proc/sys/kernel/sched_rt_period_us",
    "/sys/devices/system/cpu/cpuidle/current_driver",
    "/sys/devices/system/cpu/isolated",
    "/sys/devices/system/cpu/nohz_full",
    "/sys/class/net/eth0/operstate",
    "/sys/class/net/eth0/device/msi_irqs",
    "/proc/irq/*/smp_affinity_list",
    "/sys/class/net/eth0/device/irq",
    "/proc/self/status",
    "/proc/self/limits",
};
#define NPATHS (sizeof paths / sizeof paths[0])

struct files { const char *p[NPATHS]; size_t n[NPATHS]; uint8_t opt; };

static bool match(const char *pattern, const char *path)
{
    const char *star = strchr(pattern, '*');
    if (!star)
        return !strcmp(pattern, path);
    size_t pre = (size_t)(star - pattern), post = strlen(star + 1), l = strlen(path);
    return l >= pre + post && !strncmp(path, pattern, pre) && !strcmp(path + l - post, star + 1);
}

static int rd(void *ctx, const char *path, char *buf, size_t cap)
{
    const struct files *f = ctx;
    if (!strcmp(path, "/sys/devices/system/cpu/cpu0") || !strcmp(path, "/sys/devices/system/cpu/cpu1"))
        return 0;                            /* the CPUs' directories */
    for (size_t i = 0; i < NPATHS; i++) {
        if (!match(paths[i], path))
            continue;
        if (!f->p[i] || (f->n[i] == 1 && f->p[i][0] == '-'))
            return -ENOENT;
        size_t n = f->n[i] < cap ? f->n[i] : cap - 1;
        memcpy(buf, f->p[i], n);
        return (int)n;
    }
    return -ENOENT;
}

static int coalesce(const char *iface, struct check_coalesce *c, void *ctx)
{
    const struct files *f = ctx;
    (void)iface;
    switch ((f->opt >> 4) & 3) {
    case 0: return -EOPNOTSUPP;
    case 1: *c = (struct check_coalesce){ 0, 1, 0, 1 }; return 0;
    case 2: *c = (struct check_coalesce){ 50, 0, -1, -1 }; return 0;
    default: return -ENODEV;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    if (size < 1)
        return 0;
    struct files f = { .opt = data[0] };
    size_t i = 1;
    for (size_t k = 0; k < NPATHS && i <= size; k++) {
        const char *s = (const char *)data + i;
        const char *z = memchr(s, 0, size - i);
        f.p[k] = s;
        f.n[k] = z ? (size_t)(z - s) : size - i;
        i += f.n[k] + 1;
    }
    struct check_env e = { .root = "", .cpu = (int)(data[0] & 7) - 1, .iface = (data[0] & 8) ? "eth0" : NULL,
                           .binary = "/usr/bin/takt", .coalesce = coalesce, .coalesce_ctx = &f,
                           .read = rd, .read_ctx = &f };
    static struct check_report r;
    check_run(&e, &r);
    unsigned sum = 0;
    for (int v = 0; v < CHECK_VERDICTS; v++)
        sum += r.count[v];
    if (r.n > CHECK_MAX_ITEMS || sum != r.n)
        abort();
    for (unsigned k = 0; k < r.n; k++)
        if ((unsigned)r.item[k].v >= CHECK_VERDICTS || !memchr(r.item[k].found, 0, sizeof r.item[k].found) ||
            !memchr(r.item[k].fix, 0, sizeof r.item[k].fix) || !r.item[k].id[0])
            abort();
    check_print(null, &r, data[0] & 0x40);
    json_object_put(check_to_json(&r));
    return 0;
}
