/* takt check, the interface and privilege parts: link state, interrupt coalescing and
 * offloads of the network interface a master would use (ethtool(8)'s ioctls), and
 * whether this process may take the real-time priority, lock memory and open raw
 * sockets (capabilities(7), getrlimit(2)). Reading only: nothing is changed. */
#include "bench/check.h"
#include "bench/check_int.h"

#include <ctype.h>
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

static int coalesce_ioctl(const char *iface, struct check_coalesce *c, void *ctx)
{
    (void)ctx;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -errno;
    struct ethtool_coalesce ec = { .cmd = ETHTOOL_GCOALESCE };
    struct ifreq ifr = { 0 };
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", iface);
    ifr.ifr_data = (void *)&ec;
    int rc = ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
    close(fd);
    if (rc == 0)
        *c = (struct check_coalesce){ (int)ec.rx_coalesce_usecs, (int)ec.rx_max_coalesced_frames,
                                      (int)ec.tx_coalesce_usecs, (int)ec.tx_max_coalesced_frames };
    return rc;
}

/* The interface's state: sysfs operstate below a fixture root; on the live system the
 * interface flags of this network namespace (sysfs shows the namespace it was mounted
 * in, so inside `takt netns` or a container it does not list the interfaces there). */
static int iface_state(const struct check_env *e, char *buf, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "/sys/class/net/%.64s/operstate", e->iface);
    if (*e->root || e->read)
        return check_rd(e, path, buf, cap);
    int c = takt_link_carrier(e->iface);   /* the same reading the link users make */
    if (c == -ENODEV)
        return c;
    if (c < 0 && c != -ENETDOWN)
        return check_rd(e, path, buf, cap);
    snprintf(buf, cap, "%s", c == -ENETDOWN ? "down" : c ? "up" : "up without carrier");
    return (int)strlen(buf);
}

void check_iface(const struct check_env *e, struct check_report *r)
{
    if (!e->iface)
        return;
    char buf[256], upfix[128];
    if (iface_state(e, buf, sizeof buf) < 0) {
        check_add(r, "iface", "Interface", CHECK_FAIL, "name an existing interface (ip link lists them)",
            "no interface '%s'", e->iface);
        return;
    }
    snprintf(upfix, sizeof upfix, "ip link set dev %.32s up, and check the cable", e->iface);
    check_add(r, "iface", "Interface", !strcmp(buf, "up") || !strcmp(buf, "unknown") ? CHECK_OK : CHECK_WARN,
        strcmp(buf, "up") ? upfix : NULL, "%s is %s", e->iface, buf);

    /* IRQs: MSI vectors of the device, else nothing (virtual interfaces have none) */
    char full[512], names[4096];
    snprintf(full, sizeof full, "/sys/class/net/%.32s/device/msi_irqs", e->iface);
    char irqs[128] = "", aff_all[192] = "";
    bool on_cycle_cpu = false;
    if (check_list_dir(e, full, names, sizeof names) > 0) {
        char *save = NULL;
        for (char *name = strtok_r(names, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
            if (!isdigit((unsigned char)name[0]))
                continue;
            char ap[128], aff[64];
            snprintf(ap, sizeof ap, "/proc/irq/%.16s/smp_affinity_list", name);
            if (check_rd(e, ap, aff, sizeof aff) < 0)
                snprintf(aff, sizeof aff, "?");
            if (e->cpu >= 0 && check_cpulist_has(aff, e->cpu))
                on_cycle_cpu = true;
            size_t l = strlen(irqs);
            snprintf(irqs + l, sizeof irqs - l, "%s%.16s", l ? "," : "", name);
            l = strlen(aff_all);
            snprintf(aff_all + l, sizeof aff_all - l, "%s%.16s->%.32s", l ? " " : "", name, aff);
        }
    }
    char legacy[32];   /* a device without MSI: its one line interrupt */
    snprintf(full, sizeof full, "/sys/class/net/%.32s/device/irq", e->iface);
    if (!*irqs && check_rd(e, full, legacy, sizeof legacy) > 0 && atoi(legacy) > 0) {
        char ap[128], aff[64];
        snprintf(ap, sizeof ap, "/proc/irq/%d/smp_affinity_list", atoi(legacy));
        if (check_rd(e, ap, aff, sizeof aff) < 0)
            snprintf(aff, sizeof aff, "?");
        on_cycle_cpu = e->cpu >= 0 && check_cpulist_has(aff, e->cpu);
        snprintf(irqs, sizeof irqs, "%d", atoi(legacy));
        snprintf(aff_all, sizeof aff_all, "%d->%.32s", atoi(legacy), aff);
    }
    if (!*irqs)
        check_add(r, "iface.irq", "Interface IRQ affinity", CHECK_INFO, NULL, "%s has no interrupt of its own (no MSI, no line IRQ: a virtual interface)", e->iface);
    else if (on_cycle_cpu)
        check_add(r, "iface.irq", "Interface IRQ affinity", CHECK_WARN,
            "keep device IRQs off the cycle CPU: echo <housekeeping cpus> > /proc/irq/N/smp_affinity_list (and stop irqbalance)",
            "IRQ -> CPUs: %s (includes cycle CPU %d)", aff_all, e->cpu);
    else
        check_add(r, "iface.irq", "Interface IRQ affinity", CHECK_OK, NULL, "IRQ -> CPUs: %s", aff_all);

    struct check_coalesce c;
    int rc = (e->coalesce ? e->coalesce : coalesce_ioctl)(e->iface, &c, e->coalesce_ctx);
    char fix[160];
    snprintf(fix, sizeof fix, "ethtool -C %s rx-usecs 0 rx-frames 1 tx-usecs 0 tx-frames 1", e->iface);
    if (rc < 0)
        check_add(r, "iface.coalesce", "Interrupt coalescing", CHECK_INFO, NULL,
            "not reported by the driver (%s)", rc == -EOPNOTSUPP ? "not supported" : strerror(-rc));
    else if (c.rx_usecs <= 0 && c.tx_usecs <= 0)
        check_add(r, "iface.coalesce", "Interrupt coalescing", CHECK_OK, NULL, "rx-usecs %d rx-frames %d tx-usecs %d tx-frames %d",
            c.rx_usecs, c.rx_frames, c.tx_usecs, c.tx_frames);
    else
        check_add(r, "iface.coalesce", "Interrupt coalescing", CHECK_WARN, fix,
            "rx-usecs %d tx-usecs %d: each frame may wait that long before its interrupt", c.rx_usecs, c.tx_usecs);
}

/* Capability bits in /proc/self/status CapEff (linux/capability.h). */
enum { CAP_NET_ADMIN_BIT = 12, CAP_NET_RAW_BIT = 13, CAP_IPC_LOCK_BIT = 14, CAP_SYS_NICE_BIT = 23 };

static bool limits_line(const char *limits, const char *name, char *soft, size_t cap)
{
    const char *p = strstr(limits, name);
    if (!p)
        return false;
    p += strlen(name);
    while (*p == ' ')
        p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && n + 1 < cap)
        n++;
    memcpy(soft, p, n);
    soft[n] = 0;
    return true;
}

void check_privileges(const struct check_env *e, struct check_report *r)
{
    char st[4096], lim[4096], v[32];
    const char *bin = e->binary ? e->binary : "/usr/local/bin/takt";
    char setcap[256];
    snprintf(setcap, sizeof setcap, "sudo setcap cap_net_raw,cap_sys_nice,cap_ipc_lock=ep %s", bin);
    uint64_t caps = 0;
    bool have_caps = false;
    if (check_rd(e, "/proc/self/status", st, sizeof st) > 0) {
        const char *p = strstr(st, "CapEff:");
        if (p) {
            caps = strtoull(p + 7, NULL, 16);
            have_caps = true;
        }
    }
    static const struct { int bit; const char *name, *why; } need[] = {
        { CAP_NET_RAW_BIT, "CAP_NET_RAW", "raw frames on the interface" },
        { CAP_SYS_NICE_BIT, "CAP_SYS_NICE", "SCHED_FIFO priority and CPU affinity" },
        { CAP_IPC_LOCK_BIT, "CAP_IPC_LOCK", "mlockall without a memlock limit" },
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        char id[24];
        snprintf(id, sizeof id, "cap.%s", need[i].name + 4);
        for (char *q = id; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        if (!have_caps)
            check_add(r, id, need[i].name, CHECK_UNKNOWN, setcap, "CapEff not readable");
        else if (caps & (1ull << need[i].bit))
            check_add(r, id, need[i].name, CHECK_OK, NULL, "held (%s)", need[i].why);
        else
            check_add(r, id, need[i].name, CHECK_WARN, setcap, "missing: needed for %s", need[i].why);
    }
    if (check_rd(e, "/proc/self/limits", lim, sizeof lim) < 0) {
        check_add(r, "rlimit.memlock", "Locked-memory limit", CHECK_UNKNOWN, NULL, "/proc/self/limits not readable");
        return;
    }
    bool ipc = have_caps && (caps & (1ull << CAP_IPC_LOCK_BIT));
    if (!limits_line(lim, "Max locked memory", v, sizeof v))
        check_add(r, "rlimit.memlock", "Locked-memory limit", CHECK_UNKNOWN, NULL, "no 'Max locked memory' line");
    else if (!strcmp(v, "unlimited") || ipc || strtoull(v, NULL, 10) >= 64ull << 20)
        check_add(r, "rlimit.memlock", "Locked-memory limit", CHECK_OK, NULL, "%s%s", v, ipc ? " (CAP_IPC_LOCK held)" : " bytes");
    else
        check_add(r, "rlimit.memlock", "Locked-memory limit", CHECK_WARN,
            "raise it: '@realtime - memlock unlimited' in /etc/security/limits.d/ (and add the user to that group), or grant CAP_IPC_LOCK",
            "%s bytes: mlockall() of takt's memory may fail", v);
    bool nice = have_caps && (caps & (1ull << CAP_SYS_NICE_BIT));
    if (!limits_line(lim, "Max realtime priority", v, sizeof v))
        check_add(r, "rlimit.rtprio", "Real-time priority limit", CHECK_UNKNOWN, NULL, "no 'Max realtime priority' line");
    else if (nice || !strcmp(v, "unlimited") || atoi(v) >= 80)
        check_add(r, "rlimit.rtprio", "Real-time priority limit", CHECK_OK, NULL, "%s%s", v, nice ? " (CAP_SYS_NICE held)" : "");
    else
        check_add(r, "rlimit.rtprio", "Real-time priority limit", CHECK_WARN,
            "'@realtime - rtprio 99' in /etc/security/limits.d/, or grant CAP_SYS_NICE",
            "RLIMIT_RTPRIO %s: SCHED_FIFO above it is refused", v);
}
