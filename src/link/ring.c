/* ring link: the packet link with its receive path on a memory-mapped PACKET_RX_RING.
 * The kernel writes each admitted frame (after the same EtherType filter and own-frame
 * suppression) into a shared slot and flips the slot's status; a receive that finds
 * frames reads them from the mapping without a syscall, and one that finds none waits
 * in ppoll as the packet link does.
 *
 * Ring version: TPACKET_V2, one frame per slot. TPACKET_V3 packs frames into blocks and
 * hands a block to user space only when it is full or when its retire timer fires
 * (tp_retire_blk_tov, whole milliseconds on the jiffies clock; net/packet/af_packet.c
 * wakes the reader only in prb_close_block): a lone EtherCAT reply would sit in the
 * open block for up to that timer, longer than a 250 us cycle. V2 hands over every
 * frame as it lands, which is what a cyclic master needs.
 *
 * Send: through the packet link on the same socket (sendmmsg, one syscall per batch).
 * A PACKET_TX_RING would still need a send() per batch to kick the kernel, saves only
 * the copy of a few hundred bytes, and cannot carry SCM_TXTIME launch times; so it is
 * not used. Statistics: tx counters and tp_drops (PACKET_STATISTICS: frames the full
 * ring could not take) come from the packet link, rx counters from the ring. */
#include <linux/if_packet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "link/link_internal.h"
#include "util/wire.h"

#define RING_FRAME_SIZE 2048u   /* tpacket2_hdr + sockaddr_ll + padding + 1514 bytes */
#define RING_BLOCK_SIZE 16384u  /* a multiple of the page size and of the frame size */
#define ETH_TYPE_OFF    12

struct ring_link {
    struct takt_link base;      /* first */
    struct takt_link *pkt;      /* the packet link: socket, filter, send path, tp_drops */
    int fd;
    uint8_t *map;
    size_t map_len;
    unsigned head;              /* next slot to read */
    bool timestamps;
    takt_ns_t shift, shift_at;  /* CLOCK_MONOTONIC - CLOCK_REALTIME, when read */
};

static inline struct tpacket2_hdr *slot(const struct ring_link *r, unsigned i)
{
    return (struct tpacket2_hdr *)(r->map + (size_t)i * RING_FRAME_SIZE);
}

static int ring_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{
    struct ring_link *r = (struct ring_link *)l;
    return takt_link_send(r->pkt, f, n);
}

static takt_ns_t mono_minus_real(void) { return -link_clock_minus_mono(CLOCK_REALTIME); }

/* Take up to n frames that are in the ring now. */
static int ring_take(struct ring_link *r, struct takt_frame *f, unsigned n)
{
    struct takt_link *l = &r->base;
    unsigned got = 0;
    takt_ns_t now = 0;
    while (got < n) {
        struct tpacket2_hdr *h = slot(r, r->head);
        /* acquire: the frame's bytes are read only after the kernel's status store */
        uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
        if (!(st & TP_STATUS_USER))
            break;
        if (!now) {
            now = takt_now();
            /* as the packet link: refresh the wall-clock offset once a second */
            if (r->timestamps && (!r->shift_at || now - r->shift_at > TAKT_NS_PER_S)) {
                r->shift = mono_minus_real();
                r->shift_at = now;
            }
        }
        const struct sockaddr_ll *from =
            (const struct sockaddr_ll *)((uint8_t *)h + TPACKET_ALIGN(sizeof *h));
        const uint8_t *data = (const uint8_t *)h + h->tp_mac;
        unsigned len = h->tp_snaplen;
        bool keep = from->sll_pkttype != PACKET_OUTGOING && len >= ETH_TYPE_OFF + 2 &&
                    !(st & TP_STATUS_COPY);   /* COPY: longer than a slot, never here */
        if (keep) {
            if (len > f[got].cap)
                len = f[got].cap;
            memcpy(f[got].data, data, len);
            takt_ns_t ts = now;
            /* a slot without a TS flag carries the kernel's coarse (jiffies) wall time,
             * not the frame's stamp (af_packet.c, tpacket_rcv): then `now` is closer */
            if (r->timestamps && (st & (TP_STATUS_TS_SOFTWARE | TP_STATUS_TS_RAW_HARDWARE))) {
                ts = (takt_ns_t)h->tp_sec * TAKT_NS_PER_S + h->tp_nsec + r->shift;
                if (ts > now + TAKT_NS_PER_US && r->shift_at != now) {   /* clock stepped */
                    r->shift = mono_minus_real();
                    r->shift_at = now;
                    ts = (takt_ns_t)h->tp_sec * TAKT_NS_PER_S + h->tp_nsec + r->shift;
                }
            }
            f[got].len = (uint16_t)len;
            f[got].ts = ts;
            l->stats.rx_frames++;
            l->stats.rx_bytes += len;
            got++;
        } else {
            l->stats.rx_filtered++;
        }
        /* release: hand the slot back only after its bytes were copied */
        __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        r->head = (r->head + 1) % LINK_RING_FRAMES;
    }
    return (int)got;
}

static int ring_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns)
{
    struct ring_link *r = (struct ring_link *)l;
    if (n == 0)
        return 0;
    /* the fast path: frames already there cost no syscall at all */
    int got = ring_take(r, f, n);
    if (got || timeout_ns == 0)
        return got;
    takt_ns_t end = timeout_ns > 0 ? takt_now() + timeout_ns : 0;
    for (;;) {
        int rc = link_wait_in(r->fd, timeout_ns);
        if (rc <= 0)
            return rc == -EINTR ? 0 : rc;
        if ((got = ring_take(r, f, n)))
            return got;
        /* only filtered frames (or a slot not yet flipped) woke us: wait out the rest */
        if (timeout_ns > 0 && (timeout_ns = end - takt_now()) <= 0)
            return 0;
    }
}

static void ring_sync_stats(struct takt_link *l)
{
    struct ring_link *r = (struct ring_link *)l;
    struct takt_link_stats p;
    takt_link_get_stats(r->pkt, &p);
    l->stats.tx_frames = p.tx_frames;
    l->stats.tx_bytes = p.tx_bytes;
    l->stats.tx_errors = p.tx_errors;
    l->stats.rx_dropped = p.rx_dropped;
    l->stats.rx_filtered += p.rx_filtered;   /* none: the packet link never receives */
}

static void ring_close(struct takt_link *l)
{
    struct ring_link *r = (struct ring_link *)l;
    if (r->map)
        munmap(r->map, r->map_len);
    takt_link_close(r->pkt);
    free(r);
}

static const struct takt_link_ops ring_ops = {
    .kind = "ring",
    .send = ring_send,
    .recv = ring_recv,
    .close = ring_close,
    .sync_stats = ring_sync_stats,
};

static int set_int(int fd, int level, int opt, int v)
{
    return setsockopt(fd, level, opt, &v, sizeof v) ? -errno : 0;
}

/* The ring on the packet link's socket (bound, filtered): version, ring, mapping, then
 * the frames queued on the socket before the ring existed are drained (a frame left in
 * the socket queue would keep poll() readable with the ring empty). */
static int map_ring(struct ring_link *r, const char *ifname, char *err, size_t errlen)
{
    int rc;
    if ((rc = set_int(r->fd, SOL_PACKET, PACKET_VERSION, TPACKET_V2)))
        return link_err(err, errlen, rc, "%s: PACKET_VERSION TPACKET_V2 refused: %s", ifname, strerror(-rc));
    struct tpacket_req req = {
        .tp_block_size = RING_BLOCK_SIZE,
        .tp_block_nr = LINK_RING_FRAMES / (RING_BLOCK_SIZE / RING_FRAME_SIZE),
        .tp_frame_size = RING_FRAME_SIZE,
        .tp_frame_nr = LINK_RING_FRAMES,
    };
    if (setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req))
        return link_err(err, errlen, -errno, "%s: setting up the receive ring (PACKET_RX_RING, %u frames) "
                        "failed: %s", ifname, LINK_RING_FRAMES, strerror(errno));
    r->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
    void *m = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, r->fd, 0);
    if (m == MAP_FAILED)   /* MAP_LOCKED needs RLIMIT_MEMLOCK room; mlockall covers it later */
        m = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (m == MAP_FAILED)
        return link_err(err, errlen, -errno, "%s: mapping the receive ring (%zu bytes) failed: %s",
                        ifname, r->map_len, strerror(errno));
    r->map = m;
    uint8_t junk[64];
    while (recv(r->fd, junk, sizeof junk, MSG_DONTWAIT | MSG_TRUNC) >= 0)
        ;
    return 0;
}

int link_ring_open(const char *ifname, const struct takt_link_opts *o,
                   struct takt_link **out, char *err, size_t errlen)
{
    struct takt_link *pkt;
    int rc = link_packet_open(ifname, o, &pkt, err, errlen);
    if (rc)
        return rc;
    struct ring_link *r = calloc(1, sizeof *r);
    if (!r) {
        takt_link_close(pkt);
        return link_err(err, errlen, -ENOMEM, "%s: out of memory", ifname);
    }
    r->pkt = pkt;
    r->fd = link_packet_fd(pkt);
    r->timestamps = o->timestamps;
    r->base = (struct takt_link){ .ops = &ring_ops, .mtu = pkt->mtu, .txtime = pkt->txtime };
    memcpy(r->base.mac, pkt->mac, sizeof r->base.mac);
    snprintf(r->base.name, sizeof r->base.name, "%s", pkt->name);
    snprintf(r->base.txtime_qdisc, sizeof r->base.txtime_qdisc, "%s", pkt->txtime_qdisc);
    if ((rc = map_ring(r, ifname, err, errlen))) {
        ring_close(&r->base);
        return rc;
    }
    *out = &r->base;
    return 0;
}
