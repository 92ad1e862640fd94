/* The POWERLINK floor of the peer benchmark (peer-bench.sh): what one MN cycle costs at
 * the least on this host and link with the given CNs, with no MN stack behind it. Every
 * CYCLE_US, on an absolute-deadline loop (clock_nanosleep TIMER_ABSTIME), it sends the
 * SoC, then for each CN its PReq and waits for that CN's PRes, then the SoA (EPSG DS 301
 * 4.2.4.1.1 and 4.2.4.1.2, the isochronous and asynchronous phases). Nothing else: no
 * application, no statistics beyond counting PRes. A poll-response MN cannot read the
 * PRes together:
 * each PReq waits for the previous CN's PRes or its timeout (DS 301 4.2.4.1.1). Where
 * the order allows, one system call is saved: the SoC and the first PReq leave in one
 * sendmmsg. Waiting for a PRes: non-blocking reads for up to SPIN_US (default 40, as
 * takt's MN), then ppoll for the rest of the PRes timeout (0x1F92): see wait_for().
 * Steady cycle with 3 CNs: clock_nanosleep, sendmmsg, 2 send (PReqs), 1 send (SoA) and
 * per PRes the reads until it came (one when it is there at once); with -r the PRes are
 * read from a memory-mapped receive ring (PACKET_RX_RING) and polling it costs no
 * system call: 5 calls a cycle in all.
 *
 * Boot, the fewest steps a CN accepts (DS 301 7.1.4): the cycle runs from the start;
 * the SoC takes a CN from NMT_CS_NOT_ACTIVE to PRE_OPERATIONAL_1 and the next one to
 * PRE_OPERATIONAL_2 (NMT_CT2, NMT_CT4). The async slot of the first cycles invites each
 * CN to an IdentResponse (SoA IdentRequest, DS 301 7.4.1.2) only to learn its MAC, the
 * PReq's destination. Once every PRes says PRE_OPERATIONAL_2 the MN sends
 * NMTEnableReadyToOperate to all (an ASnd NMTCommand after an SoA NMTRequestInvite to
 * itself, DS 301 7.3.1), once they say READY_TO_OPERATE NMTStartNode (NMT_CT5,
 * NMT_CT7); no SDO. It prints "OP" when every PRes says NMT_CS_OPERATIONAL; from then
 * on the SoA invites nobody. The PReqs' lengths (payload Size and frame) are arguments:
 * as takt's MN sends them for that node and CDC, zeros as payload. A raw AF_PACKET
 * socket, no library; pinning and priority come from outside (taskset, chrt), as for
 * the MNs. Stdout: "OP", then a SUMMARY line at SIGINT/SIGTERM.
 * Usage: plk_floor_cycle [-r] [-s SPIN_US] IFNAME CYCLE_US PRES_TIMEOUT_US NODE:SIZE[:FRAMELEN]...
 * (FRAMELEN default: 24 + max(SIZE, 36), at least 60) */
#define _GNU_SOURCE   /* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cycle_deadline.h"

#define ETHERTYPE_PLK 0x88AB
#define MAX_CN 16
#define NODE_MN 240
#define NODE_BROADCAST 255
/* EPSG DS 301 frame formats: basic header, message types */
enum { OFF_MTYP = 14, OFF_DST = 15, OFF_SRC = 16 };
enum { SOC = 0x01, PREQ = 0x03, PRES = 0x04, SOA = 0x05, ASND = 0x06 };
/* SoA: NMTStatus 17, Flags 18-19, RequestedServiceID 20, RequestedServiceTarget 21,
 * EPLVersion 22; SoC: NetTime 20 (s 20, ns 24), RelativeTime 28; PReq: Flags1 18,
 * PDOVersion 20, Size 22, payload 24; PRes: NMTStatus 17, Size 22, payload 24 */
enum { SOA_LEN = 54, SOC_LEN = 36, PDO_OFF = 24 };
enum { SVID_NONE = 0x00, SVID_IDENT = 0x01, SVID_NMT_INVITE = 0x03 };
enum { ASND_IDENT_RESPONSE = 0x01, ASND_NMT_COMMAND = 0x04 };
enum { NMT_PREOP2 = 0x5D, NMT_READY = 0x6D, NMT_OPERATIONAL = 0xFD };
enum { CMD_START_NODE = 0x21, CMD_ENABLE_READY_TO_OP = 0x24 };
#define F1_RD 0x01
#define PAYLOAD_LIMIT_MIN 36   /* 0x1F98/4 default: the least a PReq carries */
#define RESEND_CYCLES 100      /* an NMT command without effect is sent again after this */

struct cn {
    unsigned id, size, len;
    uint8_t mac[6], state;
    int have_mac;
    unsigned long rx, missing, missing_op;   /* missing_op: once all were Operational */
    uint8_t f[1514];
};

static void le16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void le32(uint8_t *p, uint32_t v) { le16(p, v & 0xFFFF); le16(p + 2, v >> 16); }

/* Ethernet and POWERLINK basic header; multicast 01-11-1E-00-00-0x unless a MAC is given */
static void head(uint8_t *f, const uint8_t *dst_mac, unsigned mcast, const uint8_t *src_mac,
                 unsigned mtyp, unsigned dst)
{
    static const uint8_t mc[6] = { 0x01, 0x11, 0x1E, 0x00, 0x00, 0x00 };
    memcpy(f, dst_mac ? dst_mac : mc, 6);
    if (!dst_mac)
        f[5] = (uint8_t)mcast;
    memcpy(f + 6, src_mac, 6);
    f[12] = ETHERTYPE_PLK >> 8;
    f[13] = ETHERTYPE_PLK & 0xFF;
    f[OFF_MTYP] = (uint8_t)mtyp;
    f[OFF_DST] = (uint8_t)dst;
    f[OFF_SRC] = NODE_MN;
}

static long ns_until(const struct timespec *a, const struct timespec *b)   /* b - a */
{
    return (long)(b->tv_sec - a->tv_sec) * 1000000000L + (b->tv_nsec - a->tv_nsec);
}

/* Where frames are read: the socket (recv), or with -r its receive ring (TPACKET_V2,
 * PACKET_RX_RING): a frame already in the ring is read from memory, without a system
 * call, so polling for a PRes costs no syscall at all (as takt's ring link, -i ring:IF). */
struct rx {
    int fd;
    uint8_t *ring;             /* NULL: recv */
    unsigned frames, frame_size, at;
    int64_t ts;                /* the last frame's receive stamp, CLOCK_REALTIME ns */
    unsigned long stale;       /* answers received before their request was sent */
};

/* The next frame waiting, copied into buf, its kernel receive stamp in r->ts; its
 * length, 0 when none. */
static ssize_t next_frame(struct rx *r, uint8_t *buf)
{
    if (!r->ring) {
        /* SO_TIMESTAMPNS is on: the stamp comes as a control message */
        union { struct cmsghdr h; uint8_t b[CMSG_SPACE(sizeof(struct timespec))]; } cm;
        struct iovec iov = { buf, 1514 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cm, .msg_controllen = sizeof cm };
        ssize_t n = recvmsg(r->fd, &m, MSG_DONTWAIT);
        if (n <= 0)
            return 0;
        r->ts = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec t;
                memcpy(&t, CMSG_DATA(c), sizeof t);
                r->ts = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
            }
        return n;
    }
    struct tpacket2_hdr *h = (struct tpacket2_hdr *)(r->ring + (size_t)r->at * r->frame_size);
    uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
    if (!(st & TP_STATUS_USER))
        return 0;
    unsigned n = h->tp_snaplen < 1514 ? h->tp_snaplen : 1514;
    memcpy(buf, (uint8_t *)h + h->tp_mac, n);
    /* without a TS flag the slot holds the kernel's coarse wall time, not a stamp: no
     * judging by it then (SO_TIMESTAMPNS on the socket turns stamping on) */
    r->ts = st & TP_STATUS_TS_SOFTWARE ? (int64_t)h->tp_sec * 1000000000 + h->tp_nsec : 0;
    __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);   /* the slot back */
    r->at = (r->at + 1) % r->frames;
    return n;
}

static int ring_setup(struct rx *r)
{
    int v = TPACKET_V2;
    struct tpacket_req req = { .tp_block_size = 1 << 16, .tp_block_nr = 4, .tp_frame_size = 2048 };
    req.tp_frame_nr = req.tp_block_size / req.tp_frame_size * req.tp_block_nr;
    if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0 ||
        setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0)
        return -1;
    void *m = mmap(NULL, (size_t)req.tp_block_size * req.tp_block_nr, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_LOCKED, r->fd, 0);
    if (m == MAP_FAILED)
        return -1;
    r->ring = m;
    r->frames = req.tp_frame_nr;
    r->frame_size = req.tp_frame_size;
    return 0;
}

/* Read the frames waiting; 1 when one of type mtyp (ASnd: service svid) from node src,
 * received after its request was sent (sent: CLOCK_REALTIME ns, read just before the
 * send), was among them (into rx). The others are skipped: a late answer of another
 * node, and one of this node received before the request went out, which answers an
 * earlier one (a PRes that came after its timeout). Without that rule a late PRes
 * would be taken for the next cycle's, that cycle's for the one after, and so on: the
 * MN would run a cycle behind without ever waiting. takt's MN judges PRes by the same
 * stamps. */
static int take(struct rx *r, uint8_t *rx, unsigned mtyp, unsigned svid, unsigned src, int64_t sent)
{
    ssize_t n;
    while ((n = next_frame(r, rx)) > 0)
        if (n > PDO_OFF && (rx[OFF_MTYP] & 0x7F) == mtyp && rx[OFF_SRC] == src &&
            (mtyp != ASND || rx[17] == svid)) {
            if (r->ts && r->ts < sent) {
                r->stale++;
                continue;
            }
            return 1;
        }
    return 0;
}

static int64_t real_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Wait at most tmo_ns for that frame: first polling without blocking for up to spin_ns
 * (on a VM a sleep and wake-up costs the waiter more than a whole round trip over veth,
 * docs/powerlink.md "Where the MN's time goes"; takt's MN does the same), then asleep in
 * ppoll for the rest. ppoll's timeout is a high-resolution timer, where a blocking recv's
 * SO_RCVTIMEO counts in jiffies (a 200 us PRes timeout would become 4 ms at HZ 250 and
 * a missing CN would stretch the cycle). Returns 1 when it came, 0 on timeout. */
static int wait_for(struct rx *r, uint8_t *rx, long tmo_ns, long spin_ns, unsigned mtyp, unsigned svid,
                    unsigned src, int64_t sent)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long left = tmo_ns;
    for (;;) {
        if (take(r, rx, mtyp, svid, src, sent))
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        left = tmo_ns - ns_until(&t0, &now);
        if (left <= 0)
            return 0;
        if (ns_until(&t0, &now) >= spin_ns)
            break;
    }
    struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
    for (;;) {
        struct timespec ts = { left / 1000000000L, left % 1000000000L };
        if (ppoll(&pfd, 1, &ts, NULL) <= 0)
            return 0;
        if (take(r, rx, mtyp, svid, src, sent))
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((left = tmo_ns - ns_until(&t0, &now)) <= 0)
            return 0;
    }
}

static int parse_cn(const char *arg, struct cn *c)
{
    char *end;
    unsigned long id = strtoul(arg, &end, 10), size = 0, len = 0;
    if (end == arg || *end != ':' || id < 1 || id > 239)
        return -1;
    size = strtoul(end + 1, &end, 10);
    if (size > 1490)
        return -1;
    if (*end == ':')
        len = strtoul(end + 1, &end, 10);
    if (*end)
        return -1;
    unsigned room = size > PAYLOAD_LIMIT_MIN ? (unsigned)size : PAYLOAD_LIMIT_MIN;
    if (!len)
        len = PDO_OFF + room;
    if (len < PDO_OFF + size || len > 1514)
        return -1;
    c->id = (unsigned)id;
    c->size = (unsigned)size;
    c->len = len < 60 ? 60 : (unsigned)len;
    return 0;
}

int main(int argc, char **argv)
{
    long spin_ns = 40000;
    int use_ring = 0;
    for (;;) {
        if (argc > 2 && !strcmp(argv[1], "-s")) {
            char *end;
            spin_ns = strtol(argv[2], &end, 10) * 1000L;
            if (*end || end == argv[2] || spin_ns < 0) {
                fprintf(stderr, "plk_floor_cycle: -s wants microseconds >= 0, got '%s'\n", argv[2]);
                return 2;
            }
            argv += 2;
            argc -= 2;
        } else if (argc > 1 && !strcmp(argv[1], "-r")) {
            use_ring = 1;
            argv++;
            argc--;
        } else {
            break;
        }
    }
    if (argc < 5) {
        fprintf(stderr, "usage: plk_floor_cycle [-r] [-s SPIN_US] IFNAME CYCLE_US PRES_TIMEOUT_US "
                "NODE:SIZE[:FRAMELEN]...\n");
        return 2;
    }
    long cycle_us = atol(argv[2]), tmo_us = atol(argv[3]);
    if (cycle_us < 100 || cycle_us > 1000000) {
        fprintf(stderr, "plk_floor_cycle: CYCLE_US must be 100..1000000, got '%s'\n", argv[2]);
        return 2;
    }
    if (tmo_us < 1 || tmo_us >= cycle_us) {
        fprintf(stderr, "plk_floor_cycle: PRES_TIMEOUT_US must be 1..CYCLE_US-1, got '%s'\n", argv[3]);
        return 2;
    }
    long tmo_ns = tmo_us * 1000L;
    static struct cn cns[MAX_CN];
    unsigned n_cn = 0;
    for (int i = 4; i < argc; i++) {
        if (n_cn == MAX_CN || parse_cn(argv[i], &cns[n_cn])) {
            fprintf(stderr, "plk_floor_cycle: expected NODE:SIZE[:FRAMELEN] (node 1..239, size 0..1490, "
                    "frame up to 1514 bytes, at most %d CNs), got '%s'\n", MAX_CN, argv[i]);
            return 2;
        }
        n_cn++;
    }
    int fd = socket(AF_PACKET, SOCK_RAW, htons(ETHERTYPE_PLK));
    if (fd < 0) {
        perror("plk_floor_cycle: socket (needs CAP_NET_RAW)");
        return 1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", argv[1]);
    if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
        fprintf(stderr, "plk_floor_cycle: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETHERTYPE_PLK),
                               .sll_ifindex = ifr.ifr_ifindex };
    int one = 1;
    /* our own outgoing copies are not answers (kernel 4.20+) */
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    /* frames go straight to the driver, past the qdisc, as takt's links send them */
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
    struct rx rxs = { .fd = fd };
    /* receive stamps: a PRes is this request's answer only if it came after the send */
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0 ||
        (use_ring && ring_setup(&rxs) < 0)) {
        fprintf(stderr, "plk_floor_cycle: %s%s: %s\n", argv[1], use_ring ? " (receive ring)" : "",
                strerror(errno));
        return 1;
    }
    const uint8_t *mac = (const uint8_t *)ifr.ifr_hwaddr.sa_data;
    catch_stop();

    uint8_t soc[60], soa[SOA_LEN + 6], asnd[60], rx[1514];
    memset(soc, 0, sizeof soc);
    head(soc, NULL, 1, mac, SOC, NODE_BROADCAST);
    memset(soa, 0, sizeof soa);
    head(soa, NULL, 3, mac, SOA, NODE_BROADCAST);
    soa[22] = 0x20;   /* EPLVersion 2.0 */
    for (unsigned i = 0; i < n_cn; i++) {
        head(cns[i].f, NULL, 0, mac, PREQ, cns[i].id);
        le16(cns[i].f + 22, cns[i].size);   /* payload bytes stay zero: no application */
    }
    /* SoC and the first PReq in one call; the mmsghdr's iovec is set once the MAC is known */
    struct iovec iov[2] = { { soc, sizeof soc }, { cns[0].f, cns[0].len } };
    struct mmsghdr mm[2];
    memset(mm, 0, sizeof mm);
    mm[0].msg_hdr.msg_iov = &iov[0];
    mm[0].msg_hdr.msg_iovlen = 1;
    mm[1].msg_hdr.msg_iov = &iov[1];
    mm[1].msg_hdr.msg_iovlen = 1;

    /* NetTime: the deadline (monotonic) moved to real time once; RelativeTime in µs */
    struct timespec next, now, real;
    clock_gettime(CLOCK_MONOTONIC, &next);
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t to_real = (int64_t)(real.tv_sec - next.tv_sec) * 1000000000 + (real.tv_nsec - next.tv_nsec);
    unsigned long cycles = 0, overruns = 0, op_at = 0, last_cmd = 0;
    unsigned ident_rr = 0, sent_cmd = 0;
    uint8_t mn_state = NMT_PREOP2;
    int op = 0;
    while (!stop) {
        add_ns(&next, cycle_us * 1000L);
        int64_t t = (int64_t)next.tv_sec * 1000000000 + next.tv_nsec + to_real;
        le32(soc + 20, (uint32_t)(t / 1000000000));
        le32(soc + 24, (uint32_t)(t % 1000000000));
        le32(soc + 28, (uint32_t)((uint64_t)cycles * (uint64_t)cycle_us));
        le32(soc + 32, (uint32_t)(((uint64_t)cycles * (uint64_t)cycle_us) >> 32));
        int first = 1;
        unsigned at_state[4] = { 0, 0, 0, 0 };   /* PRes seen in PreOp2, Ready, Operational */
        for (unsigned i = 0; i < n_cn; i++) {
            struct cn *c = &cns[i];
            if (!c->have_mac)
                continue;
            c->f[18] = mn_state == NMT_OPERATIONAL ? F1_RD : 0;
            int r;
            int64_t sent = real_ns();
            if (first) {
                iov[1].iov_base = c->f;
                iov[1].iov_len = c->len;
                int k = sendmmsg(fd, mm, 2, 0);
                r = k < 0 || (k == 1 && send(fd, c->f, c->len, 0) < 0) ? -1 : 0;
                first = 0;
            } else {
                r = send(fd, c->f, c->len, 0) < 0 ? -1 : 0;
            }
            if (r < 0 && errno != ENOBUFS) {
                perror("plk_floor_cycle: send");
                return 1;
            }
            if (wait_for(&rxs, rx, tmo_ns, spin_ns, PRES, 0, c->id, sent) > 0) {
                c->rx++;
                c->state = rx[17];
                at_state[0] += c->state == NMT_PREOP2;
                at_state[1] += c->state == NMT_READY;
                at_state[2] += c->state == NMT_OPERATIONAL;
            } else {
                c->missing++;
                c->missing_op += op;
            }
        }
        if (first && send(fd, soc, sizeof soc, 0) < 0 && errno != ENOBUFS) {
            perror("plk_floor_cycle: send");
            return 1;
        }
        /* the async slot: during boot an IdentRequest or an NMT command, then nothing */
        unsigned svid = SVID_NONE, target = 0, cmd = 0;
        unsigned all = n_cn;
        if (!op && at_state[2] == all) {
            op = 1;
            op_at = cycles;
            printf("OP after %lu cycles (every CN's PRes says NMT_CS_OPERATIONAL)\n", cycles);
            fflush(stdout);
        }
        if (!op) {
            int resend = cycles - last_cmd >= RESEND_CYCLES;
            for (unsigned k = 0; k < n_cn && !svid; k++) {
                struct cn *c = &cns[(ident_rr + k) % n_cn];
                if (!c->have_mac) {
                    svid = SVID_IDENT;
                    target = c->id;
                    ident_rr = (ident_rr + k + 1) % n_cn;
                }
            }
            if (!svid && at_state[0] == all && (sent_cmd != CMD_ENABLE_READY_TO_OP || resend))
                cmd = CMD_ENABLE_READY_TO_OP;
            else if (!svid && at_state[1] + at_state[2] == all && at_state[1] &&
                     (sent_cmd != CMD_START_NODE || resend))
                cmd = CMD_START_NODE;
            if (cmd) {
                svid = SVID_NMT_INVITE;
                target = NODE_MN;
            }
        }
        soa[17] = mn_state;
        soa[20] = (uint8_t)svid;
        soa[21] = (uint8_t)target;
        int64_t soa_sent = real_ns();
        if (send(fd, soa, SOA_LEN + 6, 0) < 0 && errno != ENOBUFS) {
            perror("plk_floor_cycle: send");
            return 1;
        }
        if (cmd) {
            memset(asnd, 0, sizeof asnd);
            head(asnd, NULL, 4, mac, ASND, NODE_BROADCAST);
            asnd[17] = ASND_NMT_COMMAND;
            asnd[18] = (uint8_t)cmd;
            if (send(fd, asnd, sizeof asnd, 0) < 0 && errno != ENOBUFS) {
                perror("plk_floor_cycle: send");
                return 1;
            }
            sent_cmd = cmd;
            last_cmd = cycles;
            /* the MN's own state follows the command it gave (DS 301 7.1.3) */
            mn_state = cmd == CMD_START_NODE ? NMT_OPERATIONAL : NMT_READY;
        } else if (svid == SVID_IDENT && wait_for(&rxs, rx, tmo_ns, spin_ns, ASND,
                                                      ASND_IDENT_RESPONSE, target, soa_sent) > 0) {
            for (unsigned i = 0; i < n_cn; i++)
                if (cns[i].id == target) {
                    memcpy(cns[i].mac, rx + 6, 6);
                    memcpy(cns[i].f, rx + 6, 6);
                    cns[i].have_mac = 1;
                }
        }
        cycles++;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (before(&next, &now)) {
            overruns++;   /* deadlines missed are skipped, not caught up in a burst */
            while (before(&next, &now))
                add_ns(&next, cycle_us * 1000L);
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
            ;
    }
    unsigned long rx_all = 0, miss = 0, miss_op = 0;
    for (unsigned i = 0; i < n_cn; i++) {
        rx_all += cns[i].rx;
        miss += cns[i].missing;
        miss_op += cns[i].missing_op;
    }
    printf("SUMMARY cycles %lu pres %lu pres_missing %lu pres_missing_in_op %lu stale %lu overruns %lu op %d op_after %lu",
           cycles, rx_all, miss, miss_op, rxs.stale, overruns, op, op_at);
    for (unsigned i = 0; i < n_cn; i++)   /* per CN: PRes received / missing in OP */
        printf(" node%u %lu/%lu", cns[i].id, cns[i].rx, cns[i].missing_op);
    printf("\n");
    close(fd);
    return op ? 0 : 1;
}
