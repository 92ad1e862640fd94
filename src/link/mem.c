/* mem link: an in-process pair of endpoints joined by two fixed-size single-producer
 * single-consumer rings (C11 atomics), so each endpoint may live in its own thread.
 * Sending and polling make no system call; frames are stamped by an injectable clock.
 * An endpoint may instead carry a synchronous responder that sees each frame at once. */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "link/link_internal.h"

struct mem_slot {
    uint16_t  len;
    takt_ns_t ts;
    uint8_t   data[TAKT_FRAME_BUF];
};

/* One direction. head: next slot the producer writes; tail: next the consumer reads.
 * Both only grow; index = counter % depth. */
struct mem_ring {
    _Alignas(64) atomic_uint_fast64_t head;
    _Alignas(64) atomic_uint_fast64_t tail;
    unsigned depth;
    struct mem_slot *slots;
};

struct mem_ep {
    struct takt_link base;      /* first: struct takt_link * casts to mem_ep * */
    struct mem_ring *rx, *tx;   /* tx is the peer's rx */
    struct mem_ep *peer;
    struct mem_pair *pair;
    takt_link_responder_fn responder;
    void *responder_ctx;
    unsigned depth_in_responder; /* bounds responder ping-pong recursion */
};

struct mem_pair {
    struct mem_ring ring[2];
    struct mem_ep ep[2];
    takt_clock_fn clock;
    void *clock_ctx;
    atomic_int open_eps;
};

#define MEM_RESPONDER_DEPTH 8
#define MEM_SPIN_NS (50 * TAKT_NS_PER_US)
#define MEM_NAP_NS  (20 * TAKT_NS_PER_US)

static takt_ns_t mem_clock(const struct mem_pair *p)
{ return p->clock ? p->clock(p->clock_ctx) : takt_now(); }

static void mem_deliver_sync(struct mem_ep *to, const struct takt_frame *f, unsigned wire, takt_ns_t ts)
{
    /* The responder gets the frame as the receiver would: padded, stamped. */
    uint8_t buf[TAKT_FRAME_BUF];
    memcpy(buf, f->data, f->len);
    memset(buf + f->len, 0, wire - f->len);
    struct takt_frame rf = { .data = buf, .len = (uint16_t)wire, .cap = sizeof buf, .ts = ts };
    to->base.stats.rx_frames++;
    to->base.stats.rx_bytes += wire;
    to->depth_in_responder++;
    to->responder(to->responder_ctx, &to->base, &rf);
    to->depth_in_responder--;
}

static int mem_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{
    struct mem_ep *ep = (struct mem_ep *)l;
    struct mem_ep *to = ep->peer;
    struct mem_ring *r = ep->tx;
    unsigned sent = 0;

    for (; sent < n; sent++) {
        int rc = link_check_tx(&f[sent]);
        if (rc) {
            l->stats.tx_errors++;
            return sent ? (int)sent : rc;
        }
        unsigned wire = link_wire_len(f[sent].len);
        takt_ns_t ts = mem_clock(ep->pair);
        if (to->responder && to->depth_in_responder < MEM_RESPONDER_DEPTH) {
            l->stats.tx_frames++;
            l->stats.tx_bytes += wire;
            mem_deliver_sync(to, &f[sent], wire, ts);
            continue;
        }
        uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head - tail >= r->depth) {
            l->stats.tx_errors += n - sent;
            return sent ? (int)sent : -ENOBUFS;   /* ring full: the peer is not reading */
        }
        struct mem_slot *s = &r->slots[head % r->depth];
        memcpy(s->data, f[sent].data, f[sent].len);
        memset(s->data + f[sent].len, 0, wire - f[sent].len);
        s->len = (uint16_t)wire;
        s->ts = ts;
        atomic_store_explicit(&r->head, head + 1, memory_order_release);
        l->stats.tx_frames++;
        l->stats.tx_bytes += wire;
    }
    return (int)sent;
}

static unsigned mem_take(struct mem_ep *ep, struct takt_frame *f, unsigned n)
{
    struct mem_ring *r = ep->rx;
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    unsigned got = 0;
    for (; got < n && tail != head; got++, tail++) {
        const struct mem_slot *s = &r->slots[tail % r->depth];
        uint16_t len = s->len <= f[got].cap ? s->len : f[got].cap; /* cap is the caller's promise */
        memcpy(f[got].data, s->data, len);
        f[got].len = len;
        f[got].ts = s->ts;
        ep->base.stats.rx_frames++;
        ep->base.stats.rx_bytes += len;
    }
    atomic_store_explicit(&r->tail, tail, memory_order_release);
    return got;
}

static int mem_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns)
{
    struct mem_ep *ep = (struct mem_ep *)l;
    if (n == 0)
        return 0;
    unsigned got = mem_take(ep, f, n);
    if (got || timeout_ns == 0)
        return (int)got;
    /* Waiting is only for threaded use: the peer thread will fill the ring. The
     * deadline is real time, since an injected test clock need not advance. */
    takt_ns_t start = takt_now();
    takt_ns_t end = timeout_ns > 0 ? start + timeout_ns : INT64_MAX;
    for (;;) {
        got = mem_take(ep, f, n);
        if (got)
            return (int)got;
        takt_ns_t now = takt_now();
        if (now >= end)
            return 0;
        /* yield for a short while (fast hand-over), then nap so an idle waiter does
         * not burn a CPU */
        if (now - start < MEM_SPIN_NS)
            sched_yield();
        else
            nanosleep(&(struct timespec){ 0, MEM_NAP_NS }, NULL);
    }
}

static void mem_close(struct takt_link *l)
{
    struct mem_ep *ep = (struct mem_ep *)l;
    struct mem_pair *p = ep->pair;
    if (atomic_fetch_sub(&p->open_eps, 1) == 1) {
        free(p->ring[0].slots);
        free(p->ring[1].slots);
        free(p);
    }
}

static const struct takt_link_ops mem_ops = {
    .kind = "mem",
    .send = mem_send,
    .recv = mem_recv,
    .close = mem_close,
};

int takt_link_mem_pair(struct takt_link **a, struct takt_link **b, unsigned depth,
                       takt_clock_fn clock, void *clock_ctx)
{
    *a = *b = NULL;
    if (depth == 0 || depth > 65536)
        return -EINVAL;
    /* aligned: the ring counters sit on their own cache lines */
    size_t sz = (sizeof(struct mem_pair) + 63) & ~(size_t)63;
    struct mem_pair *p = aligned_alloc(64, sz);
    if (!p)
        return -ENOMEM;
    memset(p, 0, sz);
    for (int i = 0; i < 2; i++) {
        p->ring[i].depth = depth;
        p->ring[i].slots = calloc(depth, sizeof(struct mem_slot));
        atomic_init(&p->ring[i].head, 0);
        atomic_init(&p->ring[i].tail, 0);
        if (!p->ring[i].slots) {
            free(p->ring[0].slots);
            free(p);
            return -ENOMEM;
        }
    }
    p->clock = clock;
    p->clock_ctx = clock_ctx;
    atomic_init(&p->open_eps, 2);
    for (int i = 0; i < 2; i++) {
        struct mem_ep *ep = &p->ep[i];
        ep->base.ops = &mem_ops;
        snprintf(ep->base.name, sizeof ep->base.name, "mem:%c", 'a' + i);
        /* locally administered MACs 02-74-61-6b-74-0a/0b ("takt") */
        memcpy(ep->base.mac, (const uint8_t[]){ 0x02, 0x74, 0x61, 0x6b, 0x74, (uint8_t)(0x0a + i) }, 6);
        ep->base.mtu = 1500;
        ep->rx = &p->ring[i];
        ep->tx = &p->ring[1 - i];
        ep->peer = &p->ep[1 - i];
        ep->pair = p;
    }
    *a = &p->ep[0].base;
    *b = &p->ep[1].base;
    return 0;
}

void takt_link_mem_set_responder(struct takt_link *l, takt_link_responder_fn fn, void *ctx)
{
    if (!l || l->ops != &mem_ops)
        return;
    struct mem_ep *ep = (struct mem_ep *)l;
    ep->responder = fn;
    ep->responder_ctx = ctx;
}
