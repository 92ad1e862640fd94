/* Launch-time sending (SO_TXTIME): which qdisc on an interface honours a frame's launch
 * time, read over rtnetlink (RTM_GETQDISC), and the clock and lead it wants. */
#include <errno.h>
#include <limits.h>
#include <linux/net_tstamp.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "link/link_internal.h"

/* What one qdisc contributes; the best found on the interface wins: etf (a launch-time
 * queue proper, net/sched/sch_etf.c), then taprio (txtime-assist), then fq (honours
 * skb->tstamp as earliest departure time on CLOCK_MONOTONIC, net/sched/sch_fq.c). */
static int kind_rank(const char *k)
{
    return !strcmp(k, "etf") ? 3 : !strcmp(k, "taprio") ? 2 : !strcmp(k, "fq") ? 1 : 0;
}

/* Walk the attributes of one RTM_NEWQDISC (rtnetlink(7)); fill t if it beats t. */
static void take_qdisc(const struct nlmsghdr *h, int ifindex, struct link_txtime *t)
{
    const struct tcmsg *tc = NLMSG_DATA(h);
    if (tc->tcm_ifindex != ifindex)
        return;
    char kind[16] = "";
    const struct rtattr *opts = NULL;
    int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof *tc);
    for (const struct rtattr *a = (const void *)((const char *)tc + NLMSG_ALIGN(sizeof *tc));
         RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        if (a->rta_type == TCA_KIND)
            snprintf(kind, sizeof kind, "%.*s", (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
        else if (a->rta_type == TCA_OPTIONS)
            opts = a;
    }
    int rank = kind_rank(kind);
    if (kind[0] && tc->tcm_parent == TC_H_ROOT)
        snprintf(t->root, sizeof t->root, "%s", kind);
    if (rank <= kind_rank(t->kind))
        return;
    snprintf(t->kind, sizeof t->kind, "%s", kind);
    t->clockid = rank == 1 ? CLOCK_MONOTONIC : CLOCK_TAI;
    t->delta_ns = 0;
    t->offload = false;
    int olen = opts ? (int)RTA_PAYLOAD(opts) : 0;
    for (const struct rtattr *a = opts ? RTA_DATA(opts) : NULL; a && RTA_OK(a, olen); a = RTA_NEXT(a, olen)) {
        if (rank == 3 && a->rta_type == TCA_ETF_PARMS && RTA_PAYLOAD(a) >= sizeof(struct tc_etf_qopt)) {
            struct tc_etf_qopt q;
            memcpy(&q, RTA_DATA(a), sizeof q);
            t->clockid = q.clockid;
            t->delta_ns = q.delta;
            t->offload = q.flags & TC_ETF_OFFLOAD_ON;
        } else if (rank == 2 && a->rta_type == TCA_TAPRIO_ATTR_SCHED_CLOCKID && RTA_PAYLOAD(a) >= 4) {
            int32_t c;
            memcpy(&c, RTA_DATA(a), sizeof c);
            t->clockid = c;
        }
    }
}

int link_txtime_parse(const void *buf, size_t n, int ifindex, struct link_txtime *t)
{
    int left = n > INT_MAX ? INT_MAX : (int)n;
    for (const struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
        if (h->nlmsg_type == NLMSG_DONE)
            return 1;
        if (h->nlmsg_type == NLMSG_ERROR) {
            if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
                return -EPROTO;              /* no room for the error: not read past it */
            const struct nlmsgerr *e = NLMSG_DATA(h);
            return e->error > 0 ? -EPROTO : e->error;
        }
        if (h->nlmsg_type == RTM_NEWQDISC && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct tcmsg)))
            take_qdisc(h, ifindex, t);
    }
    return 0;
}

int link_txtime_probe(int ifindex, struct link_txtime *t)
{
    memset(t, 0, sizeof *t);
    t->clockid = -1;
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return -errno;
    struct {
        struct nlmsghdr h;
        struct tcmsg tc;
    } req = {
        .h = { .nlmsg_len = sizeof req, .nlmsg_type = RTM_GETQDISC,
               .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
        .tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex },
    };
    int rc = 0;
    if (send(fd, &req, sizeof req, 0) < 0)
        rc = -errno;
    static _Thread_local char buf[32768] __attribute__((aligned(4)));
    for (bool done = false; !rc && !done;) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) {
            rc = -errno;
            break;
        }
        int d = link_txtime_parse(buf, (size_t)n, ifindex, t);
        if (d < 0)
            rc = d;
        done = d > 0;
        if (n == 0)
            break;
    }
    close(fd);
    if (!t->kind[0])
        t->clockid = -1;
    return rc;
}

/* The kernel's txtime for a frame: etf in software mode hands a frame to the driver
 * from txtime - delta on (its dequeue window is [txtime - delta, txtime]), so the time
 * asked for is launch + delta for the frame to leave at launch; with offload the NIC
 * holds it to txtime itself. Frames without a launch time get now + delta (+1 µs):
 * etf drops a frame whose txtime has passed. */
uint64_t link_txtime_of(const struct link_txtime *t, takt_ns_t launch, takt_ns_t now,
                        takt_ns_t clock_shift)
{
    takt_ns_t lead = t->offload ? 0 : t->delta_ns;
    takt_ns_t earliest = now + t->delta_ns + TAKT_NS_PER_US;
    takt_ns_t at = launch ? launch + lead : earliest;
    if (at < earliest && t->clockid != CLOCK_MONOTONIC)
        at = earliest;      /* a launch time that has already passed: as soon as possible */
    return (uint64_t)(at + clock_shift);
}
