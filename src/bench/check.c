/* takt check: reads kernel, scheduler, power-management, interface and privilege state
 * from /proc and /sys (below env->root) and judges each against what a cyclic master
 * needs (sched(7), Documentation/admin-guide/kernel-parameters.txt, the LF real-time wiki). Reading only: nothing is changed. */
#include "bench/check.h"
#include "bench/check_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <takt/link.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

/* Read a small file below root; trailing newline stripped. Returns length or -errno. */
int check_rd(const struct check_env *e, const char *path, char *buf, size_t cap)
{
    size_t n;
    if (e->read) {
        int got = e->read(e->read_ctx, path, buf, cap);
        if (got < 0)
            return got;
        n = (size_t)got < cap ? (size_t)got : cap - 1;
    } else {
        char full[512];
        snprintf(full, sizeof full, "%.300s%.200s", e->root ? e->root : "", path);
        FILE *f = fopen(full, "r");
        if (!f)
            return -errno;
        n = fread(buf, 1, cap - 1, f);
        fclose(f);
    }
    buf[n] = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    return (int)n;
}

/* Does a path below root exist? */
bool check_exists(const struct check_env *e, const char *path)
{
    char b[2], full[512];
    if (e->read)
        return e->read(e->read_ctx, path, b, sizeof b) >= 0;
    snprintf(full, sizeof full, "%.300s%.200s", e->root, path);
    return access(full, F_OK) == 0;
}

/* The entries of a directory below root, one name per line; length or -errno. */
int check_list_dir(const struct check_env *e, const char *path, char *buf, size_t cap)
{
    if (e->read)
        return check_rd(e, path, buf, cap);
    char full[512];
    snprintf(full, sizeof full, "%.300s%.200s", e->root, path);
    DIR *d = opendir(full);
    if (!d)
        return -errno;
    size_t n = 0;
    buf[0] = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n + strlen(de->d_name) + 2 <= cap)
        n += (size_t)snprintf(buf + n, cap - n, "%s\n", de->d_name);
    closedir(d);
    return (int)n;
}

struct check_item *check_add(struct check_report *r, const char *id, const char *title,
                              enum check_verdict v, const char *fix, const char *fmt, ...)
{
    if (r->n >= CHECK_MAX_ITEMS)
        return NULL;
    struct check_item *it = &r->item[r->n++];
    snprintf(it->id, sizeof it->id, "%s", id);
    snprintf(it->title, sizeof it->title, "%s", title);
    it->v = v;
    snprintf(it->fix, sizeof it->fix, "%s", fix ? fix : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->found, sizeof it->found, fmt, ap);
    va_end(ap);
    r->count[v]++;
    return it;
}

/* Value of a kernel command line parameter: NULL if absent, "" for a bare flag. */
static const char *cmdline_param(const char *cmdline, const char *key, char *val, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = cmdline; *p;) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= kl && strncmp(p, key, kl) == 0 && (len == kl || p[kl] == '=')) {
            size_t vl = len > kl ? len - kl - 1 : 0;
            if (vl >= cap)
                vl = cap - 1;
            memcpy(val, p + kl + (len > kl), vl);
            val[vl] = 0;
            return val;
        }
        p += len;
    }
    return NULL;
}

/* Is cpu in a Linux cpu list such as "1-3,6"? */
bool check_cpulist_has(const char *list, int cpu)
{
    const char *p = list;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p)
            return false;
        long b = a;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        if (cpu >= a && cpu <= b)
            return true;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    return false;
}

/* What the idle and frequency advice depends on: the drivers in use, the CPU vendor
 * and whether this is a guest. "" = not known (then every rule applies, as before). */
struct platform { char idle[32], freq[32]; bool intel, amd, vm; };

static void read_platform(const struct check_env *e, struct platform *p)
{
    memset(p, 0, sizeof *p);
    if (check_rd(e, "/sys/devices/system/cpu/cpuidle/current_driver", p->idle, sizeof p->idle) < 0)
        p->idle[0] = 0;
    if (check_rd(e, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", p->freq, sizeof p->freq) < 0)
        p->freq[0] = 0;
    char ci[8192];   /* the first CPU's block holds vendor_id and flags */
    if (check_rd(e, "/proc/cpuinfo", ci, sizeof ci) > 0) {
        p->intel = strstr(ci, "GenuineIntel") != NULL;
        p->amd = strstr(ci, "AuthenticAMD") != NULL || strstr(ci, "HygonGenuine") != NULL;
        const char *fl = strstr(ci, "\nflags");
        const char *eol = fl ? strchr(fl + 1, '\n') : NULL;
        const char *hv = fl ? strstr(fl, " hypervisor") : NULL;
        p->vm = hv && (!eol || hv < eol);
    }
    if (!strcmp(p->idle, "haltpoll"))   /* only ever loaded in a KVM guest */
        p->vm = true;
}

/* Does a command line rule apply to this platform? The Intel drivers' parameters mean
 * nothing on AMD or in a guest, whose C-states and frequency the host decides. */
static bool rule_applies(const char *key, const struct platform *p)
{
    bool idle_known = *p->idle && strcmp(p->idle, "none");
    if (!strcmp(key, "intel_idle.max_cstate"))
        return idle_known ? !strcmp(p->idle, "intel_idle") : !p->amd && !p->vm;
    if (!strcmp(key, "processor.max_cstate"))   /* acpi_idle's limit; with intel_idle.max_cstate=0 it is acpi_idle's turn */
        return idle_known ? !strcmp(p->idle, "acpi_idle") || !strcmp(p->idle, "intel_idle") : !p->vm;
    if (!strcmp(key, "intel_pstate"))
        return *p->freq ? !strncmp(p->freq, "intel_", 6) : !p->amd && !p->vm;
    if (!strcmp(key, "amd_pstate"))
        return *p->freq ? !strncmp(p->freq, "amd-pstate", 10) : p->amd && !p->vm;
    if (!strcmp(key, "cpufreq.off"))
        return *p->freq || !p->vm;
    return true;
}

static void check_kernel(const struct check_env *e, struct check_report *r)
{
    char rt[16], ver[256];
    int have_rt = check_rd(e, "/sys/kernel/realtime", rt, sizeof rt);
    int have_ver = check_rd(e, "/proc/sys/kernel/version", ver, sizeof ver);
    if (have_rt > 0 && rt[0] == '1')
        check_add(r, "preempt_rt", "PREEMPT_RT kernel", CHECK_OK, NULL, "/sys/kernel/realtime = 1%s%s",
            have_ver > 0 ? "; " : "", have_ver > 0 ? ver : "");
    else if (have_rt < 0 && have_ver > 0 && strstr(ver, "PREEMPT_RT"))   /* kernels without the sysfs file */
        check_add(r, "preempt_rt", "PREEMPT_RT kernel", CHECK_OK, NULL, "%s", ver);
    else if (have_rt < 0 && have_ver < 0)
        check_add(r, "preempt_rt", "PREEMPT_RT kernel", CHECK_UNKNOWN, "check `uname -v` for PREEMPT_RT",
            "neither /sys/kernel/realtime nor /proc/sys/kernel/version readable");
    else
        check_add(r, "preempt_rt", "PREEMPT_RT kernel", CHECK_FAIL,
            "boot a PREEMPT_RT kernel (Debian: apt install linux-image-rt-amd64; mainline >= 6.12 with CONFIG_PREEMPT_RT=y)",
            "not real-time (%s)", have_ver > 0 ? ver : "no /sys/kernel/realtime");

    char cs[64], avail[256];
    if (check_rd(e, "/sys/devices/system/clocksource/clocksource0/current_clocksource", cs, sizeof cs) < 0) {
        check_add(r, "clocksource", "Clock source", CHECK_UNKNOWN, NULL, "current_clocksource not readable");
    } else if (!strcmp(cs, "tsc") || !strcmp(cs, "arch_sys_counter")) {
        check_add(r, "clocksource", "Clock source", CHECK_OK, NULL, "%s", cs);
    } else {
        bool tsc = check_rd(e, "/sys/devices/system/clocksource/clocksource0/available_clocksource", avail, sizeof avail) > 0 &&
                   strstr(avail, "tsc");
        check_add(r, "clocksource", "Clock source", CHECK_WARN,
            tsc ? "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource (or boot with clocksource=tsc)"
                : "no TSC clocksource offered: reading the clock costs more; expect higher task durations",
            "%s (reading it is slower than tsc)", cs);
    }
}

/* How a command line parameter is judged. */
enum cl_kind {
    CL_HAS_CPU,      /* a CPU list that should hold the cycle CPU (isolcpus, nohz_full, rcu_nocbs) */
    CL_NOT_CPU,      /* a CPU list that should leave the cycle CPU out (irqaffinity) */
    CL_VALUE,        /* should have exactly this value (idle=poll, cpuidle.off=1, ...) */
    CL_MAX1,         /* a C-state limit: 0 or 1 is what a cycle thread wants */
};

struct cmdline_rule {
    const char *key, *title;
    enum cl_kind kind;
    const char *value;   /* CL_VALUE */
    bool want;           /* recommended for a dedicated real-time CPU (warn); else optional (info) */
    const char *fix;     /* "%s" is the CPU list to use */
};

static const struct cmdline_rule cmdline_rules[] = {
    { "isolcpus", "CPU isolation (isolcpus)", CL_HAS_CPU, NULL, true,
      "add isolcpus=%s (the cycle CPU) to the kernel command line, or use a cpuset" },
    { "nohz_full", "Tickless CPU (nohz_full)", CL_HAS_CPU, NULL, true,
      "add nohz_full=%s for the cycle CPU (needs CONFIG_NO_HZ_FULL)" },
    { "rcu_nocbs", "RCU callbacks offloaded (rcu_nocbs)", CL_HAS_CPU, NULL, true,
      "add rcu_nocbs=%s for the cycle CPU (nohz_full=%s implies it)" },
    { "irqaffinity", "Default IRQ affinity (irqaffinity)", CL_NOT_CPU, NULL, true,
      "add irqaffinity=0 (housekeeping CPUs only, not %s) so device IRQs stay off the cycle CPU" },
    { "idle", "Idle polling (idle=poll)", CL_VALUE, "poll", false,
      "optional, drastic: idle=poll keeps CPUs out of C-states (more heat and power)" },
    { "cpuidle.off", "cpuidle disabled (cpuidle.off)", CL_VALUE, "1", false,
      "optional: cpuidle.off=1 disables C-states entirely" },
    { "intel_idle.max_cstate", "intel_idle C-state limit", CL_MAX1, NULL, true,
      "add intel_idle.max_cstate=0 (or 1) to avoid deep C-state exit latency" },
    { "processor.max_cstate", "ACPI C-state limit", CL_MAX1, NULL, true,
      "add processor.max_cstate=1 to avoid deep C-state exit latency" },
    { "intel_pstate", "intel_pstate driver", CL_VALUE, "disable", false,
      "optional: intel_pstate=disable for a fixed frequency with acpi-cpufreq + performance governor" },
    { "amd_pstate", "amd_pstate driver", CL_VALUE, "disable", false,
      "optional: amd_pstate=disable for a fixed frequency with acpi-cpufreq + performance governor" },
    { "cpufreq.off", "cpufreq disabled (cpufreq.off)", CL_VALUE, "1", false,
      "optional: cpufreq.off=1 runs at the firmware frequency" },
};

/* The CPU list of isolcpus=[flags,]list: skip the flag words (nohz, domain, managed_irq). */
static const char *cpulist_part(const char *v)
{
    const char *p = v;
    while (*p && !isdigit((unsigned char)*p)) {
        const char *c = strchr(p, ',');
        if (!c)
            return "";
        p = c + 1;
    }
    return p;
}

static void check_cmdline(const struct check_env *e, struct check_report *r)
{
    char cl[4096], val[256], nohz[256] = "";
    if (check_rd(e, "/proc/cmdline", cl, sizeof cl) < 0) {
        check_add(r, "cmdline", "Kernel command line", CHECK_UNKNOWN, NULL, "/proc/cmdline not readable");
        return;
    }
    bool have_nohz = cmdline_param(cl, "nohz_full", nohz, sizeof nohz) != NULL;
    char cpu[16];
    snprintf(cpu, sizeof cpu, e->cpu >= 0 ? "%d" : "N", e->cpu);
    struct platform plat;
    read_platform(e, &plat);
    for (size_t i = 0; i < sizeof cmdline_rules / sizeof cmdline_rules[0]; i++) {
        const struct cmdline_rule *k = &cmdline_rules[i];
        if (!rule_applies(k->key, &plat))
            continue;
        char id[40], fix[320];
        snprintf(id, sizeof id, "cmdline.%.31s", k->key);
        snprintf(fix, sizeof fix, k->fix, cpu, cpu);
        enum check_verdict bad = k->want ? CHECK_WARN : CHECK_INFO;
        const char *v = cmdline_param(cl, k->key, val, sizeof val);
        if (!v) {
            /* nohz_full offloads RCU callbacks of its CPUs as rcu_nocbs would (kernel-parameters.txt, nohz_full) */
            if (!strcmp(k->key, "rcu_nocbs") && have_nohz && (e->cpu < 0 || check_cpulist_has(nohz, e->cpu)))
                check_add(r, id, k->title, CHECK_OK, NULL, "not set; implied by nohz_full=%s", nohz);
            else
                check_add(r, id, k->title, bad, fix, "not set");
            continue;
        }
        bool ok;
        switch (k->kind) {
        case CL_HAS_CPU:
            ok = e->cpu < 0 || check_cpulist_has(cpulist_part(v), e->cpu);
            if (!ok) {
                check_add(r, id, k->title, bad, fix, "%s=%s leaves out the cycle CPU %d", k->key, v, e->cpu);
                continue;
            }
            break;
        case CL_NOT_CPU:
            ok = e->cpu < 0 || !check_cpulist_has(v, e->cpu);
            if (!ok) {
                check_add(r, id, k->title, bad, fix, "%s=%s includes the cycle CPU %d", k->key, v, e->cpu);
                continue;
            }
            break;
        case CL_MAX1:
            ok = isdigit((unsigned char)*v) && atoi(v) <= 1;
            break;
        default:
            ok = !strcmp(v, k->value);
            break;
        }
        if (ok)
            check_add(r, id, k->title, CHECK_OK, NULL, "%s%s%s", k->key, *v ? "=" : "", v);
        else
            check_add(r, id, k->title, bad, fix, "%s=%s%s", k->key, v,
                k->kind == CL_MAX1 ? ": deep C-states stay allowed" : "");
    }
}

static void check_cpus(const struct check_env *e, struct check_report *r)
{
    char buf[256];
    /* governor of every CPU that has cpufreq */
    int n = 0, perf = 0;
    char other[64] = "";
    for (int cpu = 0; cpu < 1024; cpu++) {
        char p[128];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
        if (check_rd(e, p, buf, sizeof buf) < 0) {
            char d[128];
            snprintf(d, sizeof d, "/sys/devices/system/cpu/cpu%d/online", cpu);
            char o[8];
            if (check_rd(e, d, o, sizeof o) < 0 && cpu > 0) {
                snprintf(d, sizeof d, "/sys/devices/system/cpu/cpu%d", cpu);
                if (!check_exists(e, d))
                    break;
            }
            continue;
        }
        n++;
        if (!strcmp(buf, "performance"))
            perf++;
        else
            snprintf(other, sizeof other, "cpu%d: %.40s", cpu, buf);
    }
    struct platform plat;
    read_platform(e, &plat);
    if (n == 0 && plat.vm)
        check_add(r, "governor", "CPU frequency governor", CHECK_INFO,
            "the host sets the frequency: its governor on the CPUs behind this guest's vCPUs should be performance",
            "no cpufreq in this virtual machine");
    else if (n == 0)
        check_add(r, "governor", "CPU frequency governor", CHECK_INFO, NULL, "no cpufreq (fixed frequency or virtual machine)");
    else if (perf == n)
        check_add(r, "governor", "CPU frequency governor", CHECK_OK, NULL, "performance on all %d CPUs", n);
    else
        check_add(r, "governor", "CPU frequency governor", CHECK_WARN,
            "cpupower frequency-set -g performance (or echo performance > /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)",
            "%d of %d CPUs not on performance (%s)", n - perf, n, other);

    if (check_rd(e, "/sys/devices/system/cpu/smt/active", buf, sizeof buf) < 0)
        check_add(r, "smt", "Simultaneous multithreading", CHECK_UNKNOWN, NULL, "/sys/devices/system/cpu/smt/active not readable");
    else if (buf[0] == '0')
        check_add(r, "smt", "Simultaneous multithreading", CHECK_OK, NULL, "off");
    else
        check_add(r, "smt", "Simultaneous multithreading", CHECK_WARN,
            "echo off > /sys/devices/system/cpu/smt/control (or nosmt on the command line): a sibling thread shares the core's pipeline",
            "on");

    if (check_rd(e, "/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof buf) < 0) {
        check_add(r, "rt_throttling", "RT throttling", CHECK_UNKNOWN, NULL, "/proc/sys/kernel/sched_rt_runtime_us not readable");
    } else {
        long us = strtol(buf, NULL, 10);
        if (us < 0)
            check_add(r, "rt_throttling", "RT throttling", CHECK_OK, NULL,
                "disabled (sched_rt_runtime_us = -1): a runaway FIFO thread can hold its CPU");
        else
            check_add(r, "rt_throttling", "RT throttling", CHECK_INFO,
                "fine for a sleeping cycle thread; only a busy-polling FIFO thread meets it: sysctl kernel.sched_rt_runtime_us=-1",
                "RT tasks limited to %ld us per %s", us,
                check_rd(e, "/proc/sys/kernel/sched_rt_period_us", buf, sizeof buf) > 0 ? buf : "1000000");
    }

    /* the C-state advice of the idle driver in use */
    const char *idle_fix;
    if (!strcmp(plat.idle, "haltpoll"))
        idle_fix = "a guest's wake-up latency is the host's: pin this vCPU to an isolated host CPU with shallow C-states "
                   "(idle=poll in the guest keeps the vCPU from halting, at the cost of a busy host CPU)";
    else if (!strcmp(plat.idle, "intel_idle"))
        idle_fix = "limit C-states (intel_idle.max_cstate=1) or hold /dev/cpu_dma_latency at 0 (takt does while running)";
    else if (!strcmp(plat.idle, "acpi_idle"))
        idle_fix = "limit C-states (processor.max_cstate=1) or hold /dev/cpu_dma_latency at 0 (takt does while running)";
    else
        idle_fix = "hold /dev/cpu_dma_latency at 0 (takt does while running) or disable C-states (cpuidle.off=1)";
    if (*plat.idle && strcmp(plat.idle, "none"))
        check_add(r, "cpuidle", "Idle driver", CHECK_INFO, idle_fix, "%s%s", plat.idle,
            plat.vm ? " (virtual machine)" : "");
    else
        check_add(r, "cpuidle", "Idle driver", CHECK_OK, NULL, "none");

    if (e->cpu < 0)
        return;
    char id[24], iso[256] = "", nohz[256] = "";
    snprintf(id, sizeof id, "cpu%d.isolated", e->cpu);
    check_rd(e, "/sys/devices/system/cpu/isolated", iso, sizeof iso);
    check_rd(e, "/sys/devices/system/cpu/nohz_full", nohz, sizeof nohz);
    if (check_cpulist_has(iso, e->cpu) || check_cpulist_has(nohz, e->cpu))
        check_add(r, id, "Cycle CPU isolated", CHECK_OK, NULL, "CPU %d in isolated=%s nohz_full=%s", e->cpu,
            *iso ? iso : "-", *nohz && strcmp(nohz, "(null)") ? nohz : "-");
    else
    {
        char fix[160];
        snprintf(fix, sizeof fix, "add isolcpus=%d nohz_full=%d rcu_nocbs=%d to the kernel command line and reboot",
                 e->cpu, e->cpu, e->cpu);
        check_add(r, id, "Cycle CPU isolated", CHECK_WARN, fix, "CPU %d is not isolated (isolated='%s', nohz_full='%s')",
            e->cpu, iso, *nohz && strcmp(nohz, "(null)") ? nohz : "");
    }
}

void check_run(const struct check_env *env, struct check_report *r)
{
    memset(r, 0, sizeof *r);
    struct check_env e = *env;
    if (!e.root)
        e.root = "";
    check_kernel(&e, r);
    check_cmdline(&e, r);
    check_cpus(&e, r);
    check_iface(&e, r);
    check_privileges(&e, r);
}
