/* Link front door: default options, opening a link from a spec string ("eth0",
 * "packet:eth0", "ring:eth0", "xdp:eth0"), statistics and close. The kinds live in
 * packet.c, ring.c, xdp.c, mem.c, capture.c. */
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "link/link_internal.h"

int link_wait_in(int fd, takt_ns_t timeout_ns)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    struct timespec t = { timeout_ns / TAKT_NS_PER_S, timeout_ns % TAKT_NS_PER_S };
    int rc = ppoll(&pfd, 1, timeout_ns < 0 ? NULL : &t, NULL);
    if (rc < 0)
        return -errno;
    if (pfd.revents & (POLLERR | POLLNVAL))
        return -ENETDOWN;
    return rc;
}

int link_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

void takt_link_opts_default(struct takt_link_opts *o)
{
    *o = (struct takt_link_opts){
        .qdisc_bypass = true,
        .join_plk_multicast = true,
        .timestamps = true,
    };
}

int takt_link_carrier(const char *ifname)
{
    /* a link spec names its interface after the kind */
    if (ifname && !strncmp(ifname, "packet:", 7))
        ifname += 7;
    else if (ifname && !strncmp(ifname, "ring:", 5))
        ifname += 5;
    else if (ifname && !strncmp(ifname, "xdp:", 4))
        ifname += 4;
    if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
        return -ENODEV;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct ifreq ifr = { 0 };
    memcpy(ifr.ifr_name, ifname, strlen(ifname));
    int rc = ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 ? -errno : 0;
    close(fd);
    if (rc)
        return rc == -ENXIO ? -ENODEV : rc;
    unsigned fl = (unsigned short)ifr.ifr_flags;
    if (!(fl & IFF_UP))
        return -ENETDOWN;
    return (fl & IFF_RUNNING) ? 1 : 0;   /* IFF_RUNNING: the kernel's operational state */
}

int takt_link_open(const char *spec, const struct takt_link_opts *opts,
                   struct takt_link **out, char *err, size_t errlen)
{
    struct takt_link_opts def;
    *out = NULL;
    if (!opts) {
        takt_link_opts_default(&def);
        opts = &def;
    }
    if (!spec || !*spec)
        return link_err(err, errlen, -EINVAL, "no interface given: expected IFNAME, packet:IFNAME, ring:IFNAME or xdp:IFNAME");
    const char *colon = strchr(spec, ':');
    if (!colon)
        return link_packet_open(spec, opts, out, err, errlen);
    if ((size_t)(colon - spec) == 6 && strncmp(spec, "packet", 6) == 0)
        return link_packet_open(colon + 1, opts, out, err, errlen);
    if ((size_t)(colon - spec) == 4 && strncmp(spec, "ring", 4) == 0)
        return link_ring_open(colon + 1, opts, out, err, errlen);
    if ((size_t)(colon - spec) == 3 && strncmp(spec, "xdp", 3) == 0)
        return link_xdp_open(colon + 1, opts, out, err, errlen);
    return link_err(err, errlen, -EINVAL,
                    "unknown link kind in '%s': expected IFNAME, packet:IFNAME, ring:IFNAME or xdp:IFNAME "
                    "(the mem link is made in-process with takt_link_mem_pair)", spec);
}

void takt_link_get_stats(struct takt_link *l, struct takt_link_stats *out)
{
    if (l->ops->sync_stats)
        l->ops->sync_stats(l);
    *out = l->stats;
}

void takt_link_close(struct takt_link *l)
{
    if (l)
        l->ops->close(l);
}
