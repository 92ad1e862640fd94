/* takt plk mn --veth: POWERLINK's virtual Ethernet on the MN's host (EPSG DS 301,
 * "Virtual Ethernet"), as openPOWERLINK's veth offers it: a TAP device with the MN's
 * IP (192.168.100.240/24 by default), the MAC of the POWERLINK interface and the async
 * MTU, so the host's own IP stack (ping, a UDP socket to a CN's SDO port 3819) reaches
 * the CNs. Frames the host writes to the TAP are queued for the MN's async slot
 * (takt_plk_mn_send_eth: SoA UnspecifiedInvite -> 240, then the frame); IP and ARP
 * frames for the MN come back through takt_plk_mn_recv_eth. A thread of this command
 * moves them; the MN's cycle thread never touches the TAP.
 * takt plk cn --veth: the same on a CN's host (DS 301: every node may have it), a TAP
 * device with the CN's MAC and 192.168.100.<id>/24 whose frames wait for the CN's
 * async slot (takt_sim_plk_send_eth: signalled with PR/RS, sent on SoA
 * UnspecifiedInvite to the CN) and which gets the IPv4 and ARP frames for the CN
 * (takt_sim_plk_recv_eth), except SDO over UDP port 3819, which the CN serves itself. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cli/cli.h"
#include <takt/plk.h>
#include "cli/cli_plk.h"

static int ifreq_call(int s, unsigned long req, struct ifreq *ifr, const char *name, const char *what,
                      char *err, size_t errlen)
{
    if (ioctl(s, req, ifr) == 0)
        return 0;
    int e = errno;
    snprintf(err, errlen, "%s: %s: %s%s", name, what, strerror(e),
             e == EPERM ? " (needs CAP_NET_ADMIN: run as root or give takt cap_net_admin)" : "");
    return -e;
}

/* Parse "A.B.C.D[/LEN]" into address and prefix length (default 24). */
static int parse_ip(const char *s, struct in_addr *a, unsigned *len)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s", s);
    char *slash = strchr(buf, '/');
    *len = 24;
    if (slash) {
        char *end;
        long l = strtol(slash + 1, &end, 10);
        if (*end || end == slash + 1 || l < 1 || l > 30)
            return -1;
        *len = (unsigned)l;
        *slash = 0;
    }
    return inet_pton(AF_INET, buf, a) == 1 ? 0 : -1;
}

/* /proc/sys/net/KEY to at least 1 (left alone when it is already): 0, or -errno. */
static int sysctl_at_least_1(const char *key)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/net/%s", key);
    FILE *f = fopen(path, "r+");
    int cur = -1;
    if (f && fscanf(f, "%d", &cur) == 1 && cur >= 1) {
        fclose(f);
        return 0;
    }
    if (!f)
        return -errno;
    rewind(f);
    bool ok = fputs("1\n", f) >= 0;
    int r = fclose(f) == 0 && ok ? 0 : -errno;
    return r ? r : -EIO;
}

static void sysctl_or_warn(struct cli_ctx *c, const char *key, const char *risk)
{
    int r = sysctl_at_least_1(key);
    if (r)
        fprintf(stderr, "takt %s: warning: cannot set /proc/sys/net/%s to 1 (%s): %s\n", c->cmd->verb,
                key, strerror(-r), risk);
}

/* The host must not answer ARP for the TAP's address on the POWERLINK interface itself
 * (Linux answers for any local address on any interface by default): that answer would
 * leave outside the async phase. arp_ignore 1 answers only for addresses of the
 * interface the request came in on, and the POWERLINK interface has none. */
static void arp_ignore(struct cli_ctx *c, const char *iface)
{
    char key[96], risk[160];
    snprintf(key, sizeof key, "ipv4/conf/%s/arp_ignore", iface);
    snprintf(risk, sizeof risk, "the host may answer ARP for the virtual Ethernet's address on "
             "%s outside the async phase", iface);
    sysctl_or_warn(c, key, risk);
}

int cli_plk_veth_open(struct cli_ctx *c, struct cli_plk_veth *v, const char *name, const char *ip,
                      const char *iface, unsigned mtu, const uint8_t *mac)
{
    memset(v, 0, sizeof *v);
    v->fd = -1;
    struct in_addr addr;
    unsigned plen;
    if (parse_ip(ip, &addr, &plen))
        return cli_usage_error(c, "--ip expects an IPv4 address with an optional prefix length "
                               "1..30 such as 192.168.100.240/24, got '%s'", ip);
    if (!*name || strlen(name) >= IFNAMSIZ)
        return cli_usage_error(c, "--veth expects an interface name of 1..%d characters, got '%s'",
                               IFNAMSIZ - 1, name);
    char err[256];
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cli_error(c, "cannot open /dev/net/tun for the virtual Ethernet %s: %s%s", name, strerror(errno),
                         errno == EACCES || errno == EPERM
                         ? " (a TAP device needs root, or CAP_NET_ADMIN and access to /dev/net/tun)" : "");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int rc = s < 0 ? -errno : ifreq_call(fd, TUNSETIFF, &ifr, name, "creating the TAP device", err, sizeof err);
    if (s < 0)
        snprintf(err, sizeof err, "%s: socket: %s", name, strerror(-rc));
    snprintf(v->name, sizeof v->name, "%s", ifr.ifr_name);
    if (!rc && mac) {   /* a CN's: the node's own MAC */
        ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
        memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
        rc = ifreq_call(s, SIOCSIFHWADDR, &ifr, v->name, "setting its MAC", err, sizeof err);
    }
    if (!rc) {   /* the MN's: its own MAC, not the POWERLINK interface's (mn_ip.c says why) */
        rc = ifreq_call(s, SIOCGIFHWADDR, &ifr, v->name, "reading its MAC", err, sizeof err);
        memcpy(v->mac, ifr.ifr_hwaddr.sa_data, 6);
    }
    if (!rc) {
        ifr.ifr_mtu = (int)mtu;
        rc = ifreq_call(s, SIOCSIFMTU, &ifr, v->name, "setting its MTU to the async MTU", err, sizeof err);
    }
    if (!rc) {
        struct sockaddr_in *sa = (struct sockaddr_in *)&ifr.ifr_addr;
        memset(&ifr.ifr_addr, 0, sizeof ifr.ifr_addr);
        sa->sin_family = AF_INET;
        sa->sin_addr = addr;
        rc = ifreq_call(s, SIOCSIFADDR, &ifr, v->name, "setting its IP address", err, sizeof err);
        if (!rc) {
            sa->sin_addr.s_addr = htonl(~0u << (32 - plen));
            rc = ifreq_call(s, SIOCSIFNETMASK, &ifr, v->name, "setting its netmask", err, sizeof err);
        }
    }
    if (!rc && mac) {
        /* before it is up, so it sends no IPv6 neighbour discovery at all: POWERLINK's
         * virtual Ethernet is IPv4 (192.168.100.0/24), and the CN hands over no IPv6 */
        char key[64];
        snprintf(key, sizeof key, "ipv6/conf/%s/disable_ipv6", v->name);
        int r = sysctl_at_least_1(key);
        if (r && r != -ENOENT)   /* ENOENT: no IPv6 in this kernel */
            fprintf(stderr, "takt %s: warning: cannot set /proc/sys/net/%s to 1 (%s): the host may "
                    "send IPv6 frames into the CN's async slots\n", c->cmd->verb, key, strerror(-r));
    }
    if (!rc && !(rc = ifreq_call(s, SIOCGIFFLAGS, &ifr, v->name, "reading its flags", err, sizeof err))) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        rc = ifreq_call(s, SIOCSIFFLAGS, &ifr, v->name, "setting it up", err, sizeof err);
    }
    if (s >= 0)
        close(s);
    if (rc) {
        close(fd);
        return cli_error(c, "virtual Ethernet %s", err);
    }
    v->fd = fd;
    snprintf(v->iface, sizeof v->iface, "%s", iface);
    return 0;
}

int cli_plk_veth_opts(struct cli_ctx *c, struct cli_plk_veth *v, unsigned mtu)
{
    const char *vn = cli_get(c, "veth"), *ip = cli_get(c, "ip");
    v->fd = -1;
    if (ip && !vn)
        return cli_usage_error(c, "--ip sets the address of the virtual Ethernet: give --veth too");
    if (!vn)
        return 0;
    return cli_plk_veth_open(c, v, *vn ? vn : "takt-plk0", ip ? ip : "192.168.100.240/24",
                             c->iface ? c->iface : "", mtu, NULL);
}

static void *veth_thread(void *arg)
{
    struct cli_plk_veth *v = arg;
    uint8_t buf[TAKT_FRAME_BUF];
    bool held = false;   /* buf holds a frame from the TAP the MN's slot has not taken */
    int hlen = 0;
    while (!__atomic_load_n(&v->stop, __ATOMIC_ACQUIRE)) {
        int n;
        uint8_t rx[TAKT_FRAME_BUF];
        while ((n = v->recv(v->node, rx, sizeof rx)) > 0) {
            if (write(v->fd, rx, (size_t)n) == n)
                v->to_host++;
        }
        if (!held) {
            hlen = (int)read(v->fd, buf, sizeof buf);
            held = hlen > 0;
        }
        if (held) {
            int r = v->send(v->node, buf, (size_t)hlen);
            if (r == 0) {
                v->to_net++;
                held = false;
                continue;
            }
            if (r != -EBUSY) {   /* beyond the async MTU (the TAP's MTU keeps the host below
                                  * it) or, from a CN's host, a POWERLINK frame */
                v->dropped++;
                held = false;
            }
        }
        /* 1 ms: a frame waits for at most one MN slot anyway (one a cycle) */
        struct pollfd p = { .fd = v->fd, .events = held ? 0 : POLLIN };
        poll(&p, 1, 1);
    }
    return NULL;
}

static int mn_send(void *node, const void *frame, size_t len) { return takt_plk_mn_send_eth(node, frame, len); }
static int mn_recv(void *node, void *buf, size_t cap) { return takt_plk_mn_recv_eth(node, buf, cap); }

static int start(struct cli_plk_veth *v)
{
    int r = pthread_create(&v->th, NULL, veth_thread, v);
    v->running = r == 0;
    return -r;
}

int cli_plk_veth_start(struct cli_ctx *c, struct cli_plk_veth *v, struct takt_plk_mn *mn)
{
    arp_ignore(c, v->iface);   /* now that the link is open: IF is a POWERLINK port */
    v->mn = mn;
    v->node = mn;
    v->send = mn_send;
    v->recv = mn_recv;
    return start(v);
}

/* --- a CN's host ------------------------------------------------------------------ */

/* The CN's virtual Ethernet carries what every POWERLINK network's async slot carries:
 * C_DLL_MIN_ASYNC_MTU (DS 301), whatever 0x1F98/8 the MN configures later. */
#define CN_VETH_MTU 300

int cli_plk_cn_veth_opts(struct cli_ctx *c, struct cli_plk_veth *v, unsigned node)
{
    const char *vn = cli_get(c, "veth");
    v->fd = -1;
    if (!vn)
        return 0;
    if (!c->iface || !*c->iface)
        return cli_usage_error(c, "--veth expects -i IF: the TAP device takes the MAC of the CN's interface");
    /* the CN's MAC is its interface's (takt_sim_plk_run takes the link's) */
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", c->iface);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int r = s < 0 ? -errno : ioctl(s, SIOCGIFHWADDR, &ifr) ? -errno : 0;
    if (s >= 0)
        close(s);
    if (r)
        return cli_error(c, "%s: reading its MAC for the virtual Ethernet: %s", c->iface, strerror(-r));
    char name[IFNAMSIZ + 8], ip[32];
    snprintf(name, sizeof name, "takt-plk%u", node);
    snprintf(ip, sizeof ip, "192.168.100.%u/24", node);
    return cli_plk_veth_open(c, v, *vn ? vn : name, ip, c->iface, CN_VETH_MTU,
                             (const uint8_t *)ifr.ifr_hwaddr.sa_data);
}

static int cn_send(void *node, const void *frame, size_t len) { return takt_sim_plk_send_eth(node, 0, frame, len); }
static int cn_recv(void *node, void *buf, size_t cap) { return takt_sim_plk_recv_eth(node, 0, buf, cap); }

int cli_plk_cn_veth_start(struct cli_ctx *c, struct cli_plk_veth *v, struct takt_sim_plk *s)
{
    arp_ignore(c, v->iface);
    /* The TAP has the CN's MAC, so the CN's IP frames reach IF's own IP stack too, and
     * Linux takes a datagram for any local address on any interface: it would answer
     * it a second time through the TAP, and a UDP datagram to 3819, meant for the CN
     * alone, with an ICMP port unreachable. Reverse-path filtering drops on IF what
     * comes from 192.168.100.0/24, which is routed through the TAP. */
    char key[96], risk[192];
    snprintf(key, sizeof key, "ipv4/conf/%s/rp_filter", v->iface);
    snprintf(risk, sizeof risk, "the host may take the CN's IP frames twice (also from %s)", v->iface);
    sysctl_or_warn(c, key, risk);
    FILE *f = fopen("/proc/sys/net/ipv4/conf/all/rp_filter", "r");
    int all = 0;
    if (f && fscanf(f, "%d", &all) == 1 && all == 2)
        fprintf(stderr, "takt %s: warning: net.ipv4.conf.all.rp_filter is 2 (loose), which overrides "
                "%s's strict 1: %s\n", c->cmd->verb, v->iface, risk);
    if (f)
        fclose(f);
    takt_sim_plk_veth(s, 0, true);
    v->node = s;
    v->send = cn_send;
    v->recv = cn_recv;
    return start(v);
}

void cli_plk_veth_close(struct cli_plk_veth *v)
{
    if (v->running) {
        __atomic_store_n(&v->stop, 1, __ATOMIC_RELEASE);
        pthread_join(v->th, NULL);
        v->running = false;
    }
    if (v->fd >= 0)
        close(v->fd);   /* the TAP device goes with its last descriptor */
    v->fd = -1;
}
