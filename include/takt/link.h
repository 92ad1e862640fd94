/* takt link layer: a small vtable to move Ethernet frames in batches with receive
 * timestamps. Protocol code never knows which link it runs on (docs/architecture.md, Links). */
#ifndef TAKT_LINK_H
#define TAKT_LINK_H

#include <takt/takt.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

#define TAKT_ETH_MIN_FRAME   60     /* without FCS; shorter frames are padded on send */
#define TAKT_ETH_MAX_FRAME   1514   /* without FCS */
#define TAKT_FRAME_BUF       1536   /* buffer size that holds any frame */
#define TAKT_ETHERTYPE_ECAT  0x88A4
#define TAKT_ETHERTYPE_PLK   0x88AB
#define TAKT_ETHERTYPE_TEST  0x88B5 /* IEEE local experimental 1: takt link echo/bench */

/* One frame. On send: data/len are read (len < 60 is padded with zeros by the link);
 * ts is read only by a capture tap (the send time it records; 0 = now); launch is the
 * time (CLOCK_MONOTONIC) the frame is to leave, 0 = now: honoured by the kernel only
 * where link->txtime is set (SO_TXTIME with an etf, taprio or fq qdisc), ignored (sent
 * at once) elsewhere, so a caller that needs the time holds the frame itself there.
 * On receive: data must point to a buffer of cap bytes (>= TAKT_FRAME_BUF); the link
 * fills len and ts (receive time on CLOCK_MONOTONIC; kernel timestamp where the link
 * has one, converted at the edge). */
struct takt_frame {
    uint8_t  *data;
    uint16_t  len;
    uint16_t  cap;
    takt_ns_t ts;
    takt_ns_t launch;
};

struct takt_link_stats {
    uint64_t tx_frames, tx_bytes, tx_errors;
    uint64_t rx_frames, rx_bytes, rx_dropped; /* rx_dropped: kernel drops where known */
    uint64_t rx_filtered;                      /* frames received but not of our types */
};

struct takt_link;

struct takt_link_ops {
    const char *kind;    /* "packet", "mem", "capture", ... */
    /* Send n frames; returns how many were sent (>= 0) or a negative errno. */
    int  (*send)(struct takt_link *l, const struct takt_frame *f, unsigned n);
    /* Receive up to n frames; waits at most timeout_ns for the first one (0 = poll,
     * < 0 = wait forever). Returns the number received (0 on timeout) or -errno. */
    int  (*recv)(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns);
    void (*close)(struct takt_link *l);
    /* Optional: refresh l->stats from the kernel (rx_dropped). May be NULL. */
    void (*sync_stats)(struct takt_link *l);
};

struct takt_link {
    const struct takt_link_ops *ops;
    char     name[32];          /* interface name or a label ("mem:a") */
    uint8_t  mac[6];            /* the interface's own unicast MAC */
    uint16_t mtu;
    struct takt_link_stats stats;
    /* Launch times (takt_frame.launch) are kept by the kernel: SO_TXTIME is on and the
     * interface has a qdisc that honours it (txtime_qdisc: "etf", "taprio", "fq"). */
    bool txtime;
    char txtime_qdisc[16];
    /* How the link runs where it had a choice, for people to read ("" elsewhere): the
     * xdp link's attach mode, copy or zero-copy, busy polling (docs/link.md). */
    char mode[48];
};

struct takt_link_opts {
    const uint16_t *ethertypes;  /* EtherTypes to receive; NULL/0 = ECAT and PLK */
    unsigned n_ethertypes;
    bool qdisc_bypass;           /* PACKET_QDISC_BYPASS (default on via takt_link_opts_default) */
    bool promisc;                /* promiscuous membership */
    bool join_plk_multicast;     /* join 01-11-1E-00-00-01..05 */
    bool timestamps;             /* kernel receive timestamps (ns) */
    bool txtime;                 /* launch times via SO_TXTIME where the interface's qdisc
                                  * honours them (etf/taprio: CLOCK_TAI, fq: MONOTONIC);
                                  * PACKET_QDISC_BYPASS is then off for this socket */
};

/* [thread: any; non-blocking] */
void takt_link_opts_default(struct takt_link_opts *o);

/* Whether IFNAME can carry frames now: 1 it has a carrier (or its driver does not report
 * one), 0 it is up without a carrier (cable unplugged, veth peer down), -ENETDOWN it is
 * administratively down, -ENODEV there is no such interface, other -errno. Read from the
 * interface flags of the caller's network namespace (IFF_UP, IFF_RUNNING): sysfs shows
 * the namespace it was mounted in, so inside a namespace it may not list the interface. */
/* [thread: any; blocking] */
int takt_link_carrier(const char *ifname);

/* Open a link by spec: "IFNAME" or "packet:IFNAME" (AF_PACKET), "ring:IFNAME" (the
 * same socket with a memory-mapped receive ring), "xdp:IFNAME" (AF_XDP; docs/link.md). On error *out is NULL
 * and the message in err (if given) names the interface and says what to do. */
/* [thread: any; blocking] */
int takt_link_open(const char *spec, const struct takt_link_opts *opts,
                   struct takt_link **out, char *err, size_t errlen);

/* In-process pair: what a sends, b receives, and the reverse. No syscalls; frames are
 * stamped with the clock given (NULL = takt_now). Rings hold `depth` frames each way. */
typedef takt_ns_t (*takt_clock_fn)(void *ctx);
/* [thread: any; blocking] */
int takt_link_mem_pair(struct takt_link **a, struct takt_link **b, unsigned depth,
                       takt_clock_fn clock, void *clock_ctx);

/* Optional synchronous responder on a mem endpoint: every frame delivered to `ep` is
 * handed to fn at once (in the sender's call), instead of being queued; fn may send
 * replies through ep. This is how an in-process simulator answers deterministically. */
typedef void (*takt_link_responder_fn)(void *ctx, struct takt_link *ep,
                                       const struct takt_frame *f);
/* [thread: idle; non-blocking] */
void takt_link_mem_set_responder(struct takt_link *ep, takt_link_responder_fn fn, void *ctx);

/* Capture tap: wraps `inner`; every frame sent and received is also written to a
 * pcapng file with nanosecond timestamps. Closing the tap closes inner too. */
/* [thread: idle; blocking] */
int takt_link_capture(struct takt_link *inner, const char *pcapng_path,
                      struct takt_link **out, char *err, size_t errlen);
/* The capture's CLOCK_REALTIME - CLOCK_MONOTONIC offset, fixed at open: a frame with
 * monotonic time ts is written with wall-clock time ts + offset. */
/* [thread: idle; blocking] */
takt_ns_t takt_link_capture_offset(const struct takt_link *cap);
/* Records the tap had to write out of time order so far: stamps reach the tap out of
 * order (a send is stamped when handed over, a reply by the kernel on arrival) and are
 * held in a reorder window (TAKT_CAPTURE_WINDOW_NS of stamp time, at most
 * TAKT_CAPTURE_WINDOW_RECORDS records) and written sorted; a record older than what
 * already left the window is written at once and counted here. */
/* [thread: idle; blocking] */
unsigned takt_link_capture_late(const struct takt_link *cap);
#define TAKT_CAPTURE_WINDOW_NS      (20 * 1000 * 1000)
#define TAKT_CAPTURE_WINDOW_RECORDS 256

/* Current statistics (kernel drop counters refreshed where the link has them). */
/* [thread: cycle; non-blocking] */
void takt_link_get_stats(struct takt_link *l, struct takt_link_stats *out);

static inline int takt_link_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{ return l->ops->send(l, f, n); }
static inline int takt_link_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t t)
{ return l->ops->recv(l, f, n, t); }
/* [thread: idle; blocking] */
void takt_link_close(struct takt_link *l);

/* pcapng blocks (IETF draft-ietf-opsawg-pcapng), as the capture tap writes them, for a
 * program that writes a capture of its own: a Section Header Block, one Interface
 * Description Block with nanosecond resolution (if_tsresol 9), then one Enhanced Packet
 * Block per frame on interface 0. Each encodes into buf (cap bytes, sized by the
 * caller: TAKT_PCAPNG_EPB_MAX) and returns the block's length, 0 if it does not fit.
 * ts_ns: ns since 1970; dir: 0 unknown, TAKT_PCAPNG_DIR_IN or _OUT (epb_flags). */
#define TAKT_PCAPNG_DIR_IN  1
#define TAKT_PCAPNG_DIR_OUT 2
#define TAKT_PCAPNG_EPB_MAX(len) (28u + (((len) + 3u) & ~3u) + 12u + 4u + 4u)
/* [thread: any; non-blocking] */
size_t takt_pcapng_shb(uint8_t *buf, size_t cap, const char *userappl);
/* [thread: any; non-blocking] */
size_t takt_pcapng_idb(uint8_t *buf, size_t cap, const char *ifname, uint32_t snaplen);
/* [thread: any; non-blocking] */
size_t takt_pcapng_epb(uint8_t *buf, size_t cap, uint64_t ts_ns, const uint8_t *data,
                       uint32_t len, int dir);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
