/* Internals shared by the link implementations (packet, mem, capture): padding rule,
 * error-message helper and the per-kind open functions behind takt_link_open(). */
#ifndef TAKT_LINK_INTERNAL_H
#define TAKT_LINK_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <takt/link.h>

/* Most frames one send/recv call hands to the kernel at once; larger batches loop. */
#define LINK_BATCH_MAX 64

/* Length a frame has on the wire: short frames are padded to the Ethernet minimum
 * (IEEE 802.3 clause 3.2.8: 64 bytes with FCS, so 60 without). */
static inline unsigned link_wire_len(unsigned len)
{ return len < TAKT_ETH_MIN_FRAME ? TAKT_ETH_MIN_FRAME : len; }

/* Validate one frame to send: data present, 1..TAKT_ETH_MAX_FRAME bytes. */
static inline int link_check_tx(const struct takt_frame *f)
{
    if (!f->data || f->len == 0)
        return -EINVAL;
    if (f->len > TAKT_ETH_MAX_FRAME)
        return -EMSGSIZE;
    return 0;
}

/* Wait until fd is readable, at most timeout_ns (< 0: forever): 1 readable, 0 timed
 * out, -errno (-EINTR included), -ENETDOWN when the socket reports an error. */
int link_wait_in(int fd, takt_ns_t timeout_ns);

/* snprintf into err (if given); returns `code` so callers can `return link_err(...)`. */
int link_err(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Launch-time support of an interface (txtime.c). */
struct link_txtime {
    char kind[16];        /* qdisc that honours SO_TXTIME: "etf", "taprio", "fq"; "" none */
    char root[16];        /* the root qdisc's kind, for messages ("noqueue", ...) */
    int clockid;          /* clock the qdisc wants (-1: none found) */
    takt_ns_t delta_ns;   /* etf: dequeue window before txtime */
    bool offload;         /* etf offload: the NIC holds frames to txtime */
};
/* One buffer of an RTM_GETQDISC dump reply (n bytes, 4-byte aligned): the qdiscs of
 * ifindex go into t (the best one wins). 1 at NLMSG_DONE, the negative errno of an
 * NLMSG_ERROR, 0 when the dump goes on in the next buffer. */
int link_txtime_parse(const void *buf, size_t n, int ifindex, struct link_txtime *t);
/* Read the qdiscs of ifindex (in the caller's network namespace). 0 or -errno. */
int link_txtime_probe(int ifindex, struct link_txtime *t);
/* The SCM_TXTIME value for a frame with launch time `launch` (0 = now) on the qdisc's
 * clock; clock_shift = qdisc clock - CLOCK_MONOTONIC. */
uint64_t link_txtime_of(const struct link_txtime *t, takt_ns_t launch, takt_ns_t now,
                        takt_ns_t clock_shift);

/* Tests: turn SO_TXTIME on for a packet link as if a qdisc `kind` were there (the frames
 * then carry SCM_TXTIME; a qdisc that ignores it sends them at once). 0 or -errno. */
int link_packet_txtime_force(struct takt_link *l, const char *kind, int clockid, takt_ns_t delta_ns);

int link_packet_open(const char *ifname, const struct takt_link_opts *o,
                     struct takt_link **out, char *err, size_t errlen);
/* The socket of a packet link (-EINVAL for another kind): the ring link maps its
 * receive ring on it and sends through the packet link. */
int link_packet_fd(const struct takt_link *l);
/* clock a - CLOCK_MONOTONIC, read between two monotonic reads (packet.c). */
takt_ns_t link_clock_minus_mono(clockid_t a);

/* Frames the ring link's receive ring holds (ring.c): a cycle's replies fit many times
 * over; a reader stalled past it loses the excess, counted in rx_dropped (tp_drops). */
#define LINK_RING_FRAMES 256
int link_ring_open(const char *ifname, const struct takt_link_opts *o,
                   struct takt_link **out, char *err, size_t errlen);

/* AF_XDP on queue 0 of ifname (xdp.c); without libxdp/libbpf at build time it only
 * says so. */
int link_xdp_open(const char *ifname, const struct takt_link_opts *o,
                  struct takt_link **out, char *err, size_t errlen);

#endif
