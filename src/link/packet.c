/* packet link: AF_PACKET SOCK_RAW on one interface. A classic BPF filter admits only
 * the EtherTypes asked for (attached before bind, so nothing else is ever queued);
 * sendmmsg/recvmmsg batch the syscalls; SO_TIMESTAMPNS gives kernel receive stamps. */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <net/if_arp.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <linux/net_tstamp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "link/link_internal.h"
#include "util/wire.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23   /* Linux 4.20, include/uapi/linux/if_packet.h */
#endif

#define PKT_MAX_TYPES 8
#define ETH_TYPE_OFF  12            /* IEEE 802.3: dst(6) src(6) type(2) */

struct packet_link {
    struct takt_link base;          /* first */
    int fd;
    int ifindex;
    uint16_t types[PKT_MAX_TYPES];
    unsigned n_types;
    bool timestamps;
    takt_ns_t shift, shift_at;      /* cached CLOCK_MONOTONIC - CLOCK_REALTIME, when read */
    struct link_txtime tx;          /* launch-time qdisc (base.txtime says it is in use) */
    takt_ns_t tx_shift, tx_shift_at; /* cached qdisc clock - CLOCK_MONOTONIC */
    /* recvmmsg's headers, set up at open: a receive renews only a buffer that moved and
     * the lengths the kernel wrote back into the headers of what it returned (the MN
     * polls for a PRes with many empty receives) */
    struct mmsghdr rmh[LINK_BATCH_MAX];
    struct iovec riov[LINK_BATCH_MAX];
    struct sockaddr_ll rfrom[LINK_BATCH_MAX];
    union { char buf[CMSG_SPACE(sizeof(struct timespec))]; struct cmsghdr align; } rctl[LINK_BATCH_MAX];
};

#define SHIFT_REFRESH_NS TAKT_NS_PER_S

static const uint8_t zeros[TAKT_ETH_MIN_FRAME];

static bool type_wanted(const struct packet_link *p, const uint8_t *d, unsigned len)
{
    if (len < ETH_TYPE_OFF + 2)
        return false;
    uint16_t t = get_be16(d + ETH_TYPE_OFF);
    for (unsigned i = 0; i < p->n_types; i++)
        if (p->types[i] == t)
            return true;
    return false;
}

static takt_ns_t ts_of(const struct timespec *t) { return (takt_ns_t)t->tv_sec * TAKT_NS_PER_S + t->tv_nsec; }

/* clock a - CLOCK_MONOTONIC, read between two monotonic reads; the narrowest of a few
 * tries is kept (an interrupt in between would shift every conversion by its length) */
takt_ns_t link_clock_minus_mono(clockid_t a)
{
    takt_ns_t best = 0, best_win = INT64_MAX;
    for (int i = 0; i < 4 && best_win > TAKT_NS_PER_US; i++) {
        struct timespec m1, r, m2;
        clock_gettime(CLOCK_MONOTONIC, &m1);
        clock_gettime(a, &r);
        clock_gettime(CLOCK_MONOTONIC, &m2);
        takt_ns_t win = ts_of(&m2) - ts_of(&m1);
        if (win < best_win) {
            best_win = win;
            best = ts_of(&r) - (ts_of(&m1) + win / 2);
        }
    }
    return best;
}

/* The SCM_TXTIME control message of one frame (SO_TXTIME is on: every frame needs a
 * txtime, etf drops those without). */
static void put_txtime(struct packet_link *p, struct msghdr *mh, void *ctl, size_t ctl_len,
                       takt_ns_t launch, takt_ns_t now)
{
    uint64_t t = link_txtime_of(&p->tx, launch, now, p->tx_shift);
    mh->msg_control = ctl;
    mh->msg_controllen = ctl_len;
    struct cmsghdr *c = CMSG_FIRSTHDR(mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_TXTIME;
    c->cmsg_len = CMSG_LEN(sizeof t);
    memcpy(CMSG_DATA(c), &t, sizeof t);
}

static int pkt_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{
    struct packet_link *p = (struct packet_link *)l;
    struct mmsghdr mh[LINK_BATCH_MAX];
    struct iovec iov[LINK_BATCH_MAX][2];
    union { char buf[CMSG_SPACE(sizeof(uint64_t))]; struct cmsghdr align; } ctl[LINK_BATCH_MAX];
    unsigned done = 0;
    takt_ns_t now = l->txtime ? takt_now() : 0;
    if (l->txtime && p->tx.clockid != CLOCK_MONOTONIC && now - p->tx_shift_at > TAKT_NS_PER_S) {
        p->tx_shift = link_clock_minus_mono(p->tx.clockid);
        p->tx_shift_at = now;
    }

    while (done < n) {
        unsigned k = n - done < LINK_BATCH_MAX ? n - done : LINK_BATCH_MAX;
        for (unsigned i = 0; i < k; i++) {
            const struct takt_frame *fr = &f[done + i];
            int rc = link_check_tx(fr);
            if (rc && i == 0) {
                l->stats.tx_errors++;
                return done ? (int)done : rc;
            }
            if (rc) {           /* send the good ones first; the next round reports it */
                k = i;
                break;
            }
            /* pad by a second iovec of zeros: no copy of the frame */
            iov[i][0] = (struct iovec){ fr->data, fr->len };
            iov[i][1] = (struct iovec){ (void *)zeros, link_wire_len(fr->len) - fr->len };
            mh[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
            if (l->txtime)
                put_txtime(p, &mh[i].msg_hdr, ctl[i].buf, sizeof ctl[i].buf, fr->launch, now);
        }
        int rc = sendmmsg(p->fd, mh, k, 0);
        if (rc < 0) {
            int e = errno;
            l->stats.tx_errors++;
            return done ? (int)done : -e;
        }
        for (int i = 0; i < rc; i++) {
            l->stats.tx_frames++;
            l->stats.tx_bytes += link_wire_len(f[done + i].len);
        }
        done += (unsigned)rc;
        if ((unsigned)rc < k)
            break;                     /* the kernel took fewer: let the caller decide */
    }
    return (int)done;
}

/* Kernel stamps are CLOCK_REALTIME; the stack runs on CLOCK_MONOTONIC (docs/architecture.md). */
static takt_ns_t mono_minus_real(void) { return -link_clock_minus_mono(CLOCK_REALTIME); }

static void rx_headers_init(struct packet_link *p)
{
    for (unsigned i = 0; i < LINK_BATCH_MAX; i++)
        p->rmh[i] = (struct mmsghdr){ .msg_hdr = {
            .msg_name = &p->rfrom[i], .msg_namelen = sizeof p->rfrom[i],
            .msg_iov = &p->riov[i], .msg_iovlen = 1,
            .msg_control = p->rctl[i].buf, .msg_controllen = sizeof p->rctl[i].buf } };
}

/* The kernel writes back how much of the name and control space a datagram used:
 * the next receive offers the whole again. */
static void rx_header_renew(struct packet_link *p, unsigned i)
{
    p->rmh[i].msg_hdr.msg_namelen = sizeof p->rfrom[i];
    p->rmh[i].msg_hdr.msg_controllen = sizeof p->rctl[i].buf;
}

/* Take what is queued now (n <= LINK_BATCH_MAX), without waiting. */
static int pkt_recv_now(struct packet_link *p, struct takt_frame *f, unsigned n)
{
    struct takt_link *l = &p->base;
    struct mmsghdr *mh = p->rmh;
    const struct sockaddr_ll *from = p->rfrom;

    for (unsigned i = 0; i < n; i++)
        if (p->riov[i].iov_base != f[i].data || p->riov[i].iov_len != f[i].cap)
            p->riov[i] = (struct iovec){ f[i].data, f[i].cap };
    int rc = recvmmsg(p->fd, mh, n, MSG_DONTWAIT, NULL);
    if (rc < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
    takt_ns_t now = takt_now();
    /* the offset costs up to 12 clock reads: refresh it once a second, or at once when
     * a stamp would land after `now` (the wall clock was stepped) */
    if (p->timestamps && (!p->shift_at || now - p->shift_at > SHIFT_REFRESH_NS)) {
        p->shift = mono_minus_real();
        p->shift_at = now;
    }
    unsigned got = 0;
    for (int i = 0; i < rc; i++) {
        unsigned len = mh[i].msg_len;
        /* The filter should have kept these away; count any that slip through. */
        if (from[i].sll_pkttype == PACKET_OUTGOING || !type_wanted(p, f[i].data, len)) {
            rx_header_renew(p, (unsigned)i);
            l->stats.rx_filtered++;
            continue;
        }
        takt_ns_t ts = now;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh[i].msg_hdr); c; c = CMSG_NXTHDR(&mh[i].msg_hdr, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec t;
                memcpy(&t, CMSG_DATA(c), sizeof t);
                ts = ts_of(&t) + p->shift;
                if (ts > now + TAKT_NS_PER_US && p->shift_at != now) {
                    p->shift = mono_minus_real();
                    p->shift_at = now;
                    ts = ts_of(&t) + p->shift;
                }
            }
        rx_header_renew(p, (unsigned)i);   /* its stamp is read */
        if (len > f[got].cap)
            len = f[got].cap;
        if (got != (unsigned)i)         /* close the gap left by a filtered frame */
            memmove(f[got].data, f[i].data, len);
        f[got].len = (uint16_t)len;
        f[got].ts = ts;
        l->stats.rx_frames++;
        l->stats.rx_bytes += len;
        got++;
    }
    return (int)got;
}

static int pkt_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns)
{
    struct packet_link *p = (struct packet_link *)l;
    if (n == 0)
        return 0;
    if (n > LINK_BATCH_MAX)
        n = LINK_BATCH_MAX;
    takt_ns_t end = timeout_ns > 0 ? takt_now() + timeout_ns : 0;
    for (;;) {
        if (timeout_ns != 0) {
            int rc = link_wait_in(p->fd, timeout_ns);
            if (rc <= 0)
                return rc == -EINTR ? 0 : rc;
        }
        int got = pkt_recv_now(p, f, n);
        if (got != 0 || timeout_ns == 0)
            return got;
        /* only stray frames (counted in rx_filtered) woke us: wait out the rest */
        if (timeout_ns > 0 && (timeout_ns = end - takt_now()) <= 0)
            return 0;
    }
}

static void pkt_sync_stats(struct takt_link *l)
{
    struct packet_link *p = (struct packet_link *)l;
    struct tpacket_stats st;
    socklen_t sl = sizeof st;
    if (getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0)
        l->stats.rx_dropped += st.tp_drops;   /* the kernel resets them on read */
}

static void pkt_close(struct takt_link *l)
{
    struct packet_link *p = (struct packet_link *)l;
    close(p->fd);
    free(p);
}

static const struct takt_link_ops packet_ops = {
    .kind = "packet",
    .send = pkt_send,
    .recv = pkt_recv,
    .close = pkt_close,
    .sync_stats = pkt_sync_stats,
};

/* --- open ------------------------------------------------------------------------ */

/* POWERLINK multicast MAC addresses (EPSG DS 301 V1.4.0, Appendix 3.5, C_DLL_MULTICAST_*):
 * SoC 01-11-1E-00-00-01, PRes -02, SoA -03, ASnd -04, AMNI -05. */
static const uint8_t plk_mcast[5][6] = {
    { 0x01, 0x11, 0x1E, 0x00, 0x00, 0x01 }, { 0x01, 0x11, 0x1E, 0x00, 0x00, 0x02 },
    { 0x01, 0x11, 0x1E, 0x00, 0x00, 0x03 }, { 0x01, 0x11, 0x1E, 0x00, 0x00, 0x04 },
    { 0x01, 0x11, 0x1E, 0x00, 0x00, 0x05 },
};

static int perm_err(const char *ifname, char *err, size_t errlen, int e, const char *what)
{
    if (e == EPERM || e == EACCES)
        return link_err(err, errlen, -e,
                        "%s on %s: permission denied; raw Ethernet needs CAP_NET_RAW: run as root, "
                        "or 'sudo setcap cap_net_raw,cap_sys_nice,cap_ipc_lock=ep $(command -v takt)'", what, ifname);
    return link_err(err, errlen, -e, "%s on %s failed: %s", what, ifname, strerror(e));
}

/* Classic BPF: load the EtherType (half word at offset 12), accept on a match with any
 * wanted type, drop otherwise. Jump offsets count from the next instruction. */
static int attach_filter(struct packet_link *p)
{
    struct sock_filter prog[PKT_MAX_TYPES + 3];
    unsigned n = 0, k = p->n_types;
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, ETH_TYPE_OFF);
    for (unsigned i = 0; i < k; i++)
        prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, p->types[i],
                                                  (uint8_t)(k - i), 0);
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);          /* drop */
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0x40000);    /* whole frame */
    struct sock_fprog fp = { .len = (unsigned short)n, .filter = prog };
    return setsockopt(p->fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp) ? -errno : 0;
}

static int query_if(struct packet_link *p, const char *ifname, char *err, size_t errlen)
{
    struct ifreq ifr = { 0 };
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (ioctl(p->fd, SIOCGIFHWADDR, &ifr) < 0)
        return perm_err(ifname, err, errlen, errno, "reading the MAC address (SIOCGIFHWADDR)");
    if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
        return link_err(err, errlen, -EPROTONOSUPPORT,
                        "%s is not an Ethernet interface (ARPHRD %u): pick an Ethernet port or veth",
                        ifname, ifr.ifr_hwaddr.sa_family);
    memcpy(p->base.mac, ifr.ifr_hwaddr.sa_data, 6);
    if (ioctl(p->fd, SIOCGIFMTU, &ifr) < 0)
        return perm_err(ifname, err, errlen, errno, "reading the MTU (SIOCGIFMTU)");
    if (ifr.ifr_mtu < TAKT_ETH_MAX_FRAME - 14)
        return link_err(err, errlen, -EMSGSIZE,
                        "MTU of %s is %d, takt needs at least %d for full-size frames: "
                        "'ip link set %s mtu 1500'", ifname, ifr.ifr_mtu, TAKT_ETH_MAX_FRAME - 14, ifname);
    p->base.mtu = (uint16_t)(ifr.ifr_mtu > 65535 ? 65535 : ifr.ifr_mtu);
    if (ioctl(p->fd, SIOCGIFFLAGS, &ifr) < 0)
        return perm_err(ifname, err, errlen, errno, "reading the flags (SIOCGIFFLAGS)");
    if (!(ifr.ifr_flags & IFF_UP))
        return link_err(err, errlen, -ENETDOWN, "interface %s is down: 'ip link set %s up'", ifname, ifname);
    return 0;
}

static int add_membership(struct packet_link *p, int type, const uint8_t *mac)
{
    struct packet_mreq mr = { .mr_ifindex = p->ifindex, .mr_type = (unsigned short)type };
    if (mac) {
        mr.mr_alen = 6;
        memcpy(mr.mr_address, mac, 6);
    }
    return setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) ? -errno : 0;
}

static int set_int(int fd, int level, int opt, int v)
{
    return setsockopt(fd, level, opt, &v, sizeof v) ? -errno : 0;
}

/* Launch times where a qdisc keeps them; otherwise (no such qdisc, or SO_TXTIME
 * refused) the link has none and callers hold timed frames themselves. */
static void txtime_setup(struct packet_link *p)
{
    if (link_txtime_probe(p->ifindex, &p->tx) || p->tx.clockid < 0)
        return;
    struct sock_txtime st = { .clockid = p->tx.clockid, .flags = 0 };
    snprintf(p->base.txtime_qdisc, sizeof p->base.txtime_qdisc, "%s", p->tx.kind);
    if (setsockopt(p->fd, SOL_SOCKET, SO_TXTIME, &st, sizeof st)) {
        /* net/core/sock.c: SO_TXTIME on any clock but CLOCK_MONOTONIC needs CAP_NET_ADMIN */
        if (errno == EPERM)
            fprintf(stderr, "takt: warning: %s: the %s qdisc keeps launch times on CLOCK_TAI, "
                    "which needs CAP_NET_ADMIN (root, or cap_net_admin in takt's setcap line); "
                    "takt holds timed frames itself\n", p->base.name, p->tx.kind);
        return;
    }
    p->tx_shift = p->tx.clockid == CLOCK_MONOTONIC ? 0 : link_clock_minus_mono(p->tx.clockid);
    p->tx_shift_at = takt_now();
    p->base.txtime = true;
}

int link_packet_txtime_force(struct takt_link *l, const char *kind, int clockid, takt_ns_t delta_ns)
{
    if (strcmp(l->ops->kind, "packet"))
        return -EINVAL;
    struct packet_link *p = (struct packet_link *)l;
    struct sock_txtime st = { .clockid = clockid, .flags = 0 };
    if (setsockopt(p->fd, SOL_SOCKET, SO_TXTIME, &st, sizeof st))
        return -errno;
    p->tx = (struct link_txtime){ .clockid = clockid, .delta_ns = delta_ns };
    snprintf(p->tx.kind, sizeof p->tx.kind, "%s", kind);
    snprintf(l->txtime_qdisc, sizeof l->txtime_qdisc, "%s", kind);
    p->tx_shift = clockid == CLOCK_MONOTONIC ? 0 : link_clock_minus_mono(clockid);
    p->tx_shift_at = takt_now();
    l->txtime = true;
    return 0;
}

static int configure(struct packet_link *p, const char *ifname, const struct takt_link_opts *o,
                     char *err, size_t errlen)
{
    int rc;
    /* Protocol 0 at socket(): nothing is queued until bind(), and the filter is in
     * place before that, so no frame of another type can slip in between. */
    if ((rc = attach_filter(p)))
        return link_err(err, errlen, rc, "attaching the EtherType filter on %s failed: %s", ifname, strerror(-rc));
    /* The socket sees all types (the filter chooses), so it would also see our own
     * transmitted frames: ignore them. */
    if ((rc = set_int(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)) && rc != -ENOPROTOOPT)
        return perm_err(ifname, err, errlen, -rc, "PACKET_IGNORE_OUTGOING");
    if (o->txtime)
        txtime_setup(p);
    /* the bypass would skip the qdisc that keeps the launch times */
    if (o->qdisc_bypass && !p->base.txtime && (rc = set_int(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1)))
        return perm_err(ifname, err, errlen, -rc, "PACKET_QDISC_BYPASS");
    if (o->timestamps && (rc = set_int(p->fd, SOL_SOCKET, SO_TIMESTAMPNS, 1)))
        return perm_err(ifname, err, errlen, -rc, "SO_TIMESTAMPNS");
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                               .sll_ifindex = p->ifindex };
    if (bind(p->fd, (struct sockaddr *)&sll, sizeof sll) < 0)
        return perm_err(ifname, err, errlen, errno, "bind");
    if (o->promisc && (rc = add_membership(p, PACKET_MR_PROMISC, NULL)))
        return perm_err(ifname, err, errlen, -rc, "promiscuous mode (PACKET_MR_PROMISC)");
    for (unsigned i = 0; o->join_plk_multicast && i < TAKT_ARRAY_SIZE(plk_mcast); i++)
        if ((rc = add_membership(p, PACKET_MR_MULTICAST, plk_mcast[i])))
            return perm_err(ifname, err, errlen, -rc, "joining the POWERLINK multicast groups");
    return 0;
}

int link_packet_fd(const struct takt_link *l)
{
    return strcmp(l->ops->kind, "packet") ? -EINVAL : ((const struct packet_link *)l)->fd;
}

int link_packet_open(const char *ifname, const struct takt_link_opts *o,
                     struct takt_link **out, char *err, size_t errlen)
{
    if (!*ifname || strlen(ifname) >= IFNAMSIZ)
        return link_err(err, errlen, -EINVAL, "interface name '%s' is not valid (1..%d characters)",
                        ifname, IFNAMSIZ - 1);
    if (o->n_ethertypes > PKT_MAX_TYPES)
        return link_err(err, errlen, -EINVAL, "%s: at most %d EtherTypes, got %u", ifname,
                        PKT_MAX_TYPES, o->n_ethertypes);
    int ifindex = (int)if_nametoindex(ifname);
    if (!ifindex)
        return link_err(err, errlen, -ENODEV,
                        "no such interface '%s' ('ip -br link' lists them)", ifname);
    struct packet_link *p = calloc(1, sizeof *p);
    if (!p)
        return link_err(err, errlen, -ENOMEM, "%s: out of memory", ifname);
    p->ifindex = ifindex;
    p->timestamps = o->timestamps;
    rx_headers_init(p);
    if (o->ethertypes && o->n_ethertypes) {
        memcpy(p->types, o->ethertypes, o->n_ethertypes * sizeof p->types[0]);
        p->n_types = o->n_ethertypes;
    } else {
        p->types[0] = TAKT_ETHERTYPE_ECAT;
        p->types[1] = TAKT_ETHERTYPE_PLK;
        p->n_types = 2;
    }
    p->base.ops = &packet_ops;
    snprintf(p->base.name, sizeof p->base.name, "%s", ifname);
    p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    int rc = 0;
    if (p->fd < 0)
        rc = perm_err(ifname, err, errlen, errno, "opening a raw socket");
    if (!rc)
        rc = query_if(p, ifname, err, errlen);
    if (!rc)
        rc = configure(p, ifname, o, err, errlen);
    if (rc) {
        if (p->fd >= 0)
            close(p->fd);
        free(p);
        return rc;
    }
    *out = &p->base;
    return 0;
}
