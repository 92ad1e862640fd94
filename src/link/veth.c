/* rtnetlink requests for the namespace helper: RTM_NEWLINK for a veth pair whose peer
 * lands in another namespace (IFLA_NET_NS_FD), and IFF_UP on a link. */
#include <errno.h>
#include <stddef.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "link/link_internal.h"
#include "link/veth.h"

/* A request: nlmsghdr + ifinfomsg + attributes, built in one aligned byte buffer. */
struct nl_req {
    union { uint8_t b[768]; struct nlmsghdr align; } u;
    struct nlmsghdr *nh;
    struct ifinfomsg *ifi;
};

static void nl_init(struct nl_req *r, uint16_t type, uint16_t flags)
{
    memset(r->u.b, 0, sizeof r->u.b);
    r->nh = &r->u.align;
    r->nh->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    r->nh->nlmsg_type = type;
    r->nh->nlmsg_flags = flags;
    r->ifi = NLMSG_DATA(r->nh);
    r->ifi->ifi_family = AF_UNSPEC;
}

/* Append an attribute; returns its offset in the buffer (for nests) or 0 if full. */
static size_t nl_put(struct nl_req *r, unsigned short type, const void *data, size_t len)
{
    size_t off = NLMSG_ALIGN(r->nh->nlmsg_len);
    size_t need = off + RTA_SPACE(len);
    if (need > sizeof r->u.b)
        return 0;
    struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(len), .rta_type = type };
    memcpy(r->u.b + off, &a, sizeof a);
    if (len)
        memcpy(r->u.b + off + RTA_LENGTH(0), data, len);
    r->nh->nlmsg_len = (uint32_t)need;
    return off;
}

/* Close a nest opened at `off`: its length runs to the current end. */
static void nl_end(struct nl_req *r, size_t off)
{
    unsigned short len = (unsigned short)(r->nh->nlmsg_len - off);
    memcpy(r->u.b + off + offsetof(struct rtattr, rta_len), &len, sizeof len);
}

/* Send one request and wait for its acknowledgement (NLMSG_ERROR with error 0). */
static int nl_talk(struct nlmsghdr *nh, const char *what, char *why, size_t whylen)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return link_err(why, whylen, -errno, "%s: netlink socket: %s", what, strerror(errno));
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
    nh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
    nh->nlmsg_seq = 1;
    int rc = 0;
    if (sendto(fd, nh, nh->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
        rc = -errno;
    } else {
        union { uint8_t b[4096]; struct nlmsghdr align; } buf;
        ssize_t n = recv(fd, buf.b, sizeof buf.b, 0);
        if (n < 0)
            rc = -errno;
        else if ((size_t)n < NLMSG_LENGTH(sizeof(struct nlmsgerr)) || buf.align.nlmsg_type != NLMSG_ERROR)
            rc = -EPROTO;
        else
            rc = ((struct nlmsgerr *)NLMSG_DATA(&buf.align))->error;
    }
    close(fd);
    if (rc)
        return link_err(why, whylen, rc, "%s: %s", what, strerror(-rc));
    return 0;
}

int veth_create(const char *a, const char *b, int peer_netns_fd, char *why, size_t whylen)
{
    struct nl_req r;
    nl_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
    struct ifinfomsg peer = { .ifi_family = AF_UNSPEC };
    uint32_t nsfd = (uint32_t)peer_netns_fd;

    /* IFLA_LINKINFO { KIND "veth", DATA { VETH_INFO_PEER { ifinfomsg, IFNAME, NET_NS_FD } } } */
    size_t info, data, pe;
    if (!nl_put(&r, IFLA_IFNAME, a, strlen(a) + 1) ||
        !(info = nl_put(&r, IFLA_LINKINFO, NULL, 0)) ||
        !nl_put(&r, IFLA_INFO_KIND, "veth", 4) ||
        !(data = nl_put(&r, IFLA_INFO_DATA, NULL, 0)) ||
        !(pe = nl_put(&r, VETH_INFO_PEER, &peer, sizeof peer)) ||
        !nl_put(&r, IFLA_IFNAME, b, strlen(b) + 1) ||
        !nl_put(&r, IFLA_NET_NS_FD, &nsfd, sizeof nsfd))
        return link_err(why, whylen, -ENOBUFS, "veth request too long");
    nl_end(&r, pe);
    nl_end(&r, data);
    nl_end(&r, info);
    char what[96];
    snprintf(what, sizeof what, "creating veth pair %s/%s (is the veth module available?)", a, b);
    return nl_talk(r.nh, what, why, whylen);
}

int link_set_up(const char *name, char *why, size_t whylen)
{
    struct nl_req r;
    int idx = (int)if_nametoindex(name);
    if (!idx)
        return link_err(why, whylen, -ENODEV, "setting %s up: no such interface", name);
    nl_init(&r, RTM_NEWLINK, 0);
    r.ifi->ifi_index = idx;
    r.ifi->ifi_flags = IFF_UP;
    r.ifi->ifi_change = IFF_UP;
    char what[64];
    snprintf(what, sizeof what, "setting %s up", name);
    return nl_talk(r.nh, what, why, whylen);
}

int link_set_mtu(const char *name, unsigned mtu, char *why, size_t whylen)
{
    struct nl_req r;
    int idx = (int)if_nametoindex(name);
    if (!idx)
        return link_err(why, whylen, -ENODEV, "setting the MTU of %s: no such interface", name);
    nl_init(&r, RTM_NEWLINK, 0);
    r.ifi->ifi_index = idx;
    uint32_t v = mtu;
    if (!nl_put(&r, IFLA_MTU, &v, sizeof v))
        return link_err(why, whylen, -ENOBUFS, "MTU request too long");
    char what[64];
    snprintf(what, sizeof what, "setting the MTU of %s to %u", name, mtu);
    return nl_talk(r.nh, what, why, whylen);
}
