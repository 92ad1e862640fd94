/* capture tap: wraps any link and writes every frame it sends and receives to a
 * pcapng file with nanosecond wall-clock timestamps (pcapng.h says why the blocks are
 * written by takt rather than libpcap). The tap owns the inner link.
 *
 * Stamps reach the tap out of order: a sent frame is stamped when handed over (or at
 * its launch time), a received one by the kernel on arrival, and a batch receive
 * returns after the sends it overlapped. Readers (tshark's deltas, takt analyze) want
 * the file in time order, so records wait in a small reorder window and leave it
 * sorted; one that comes too late for it is written at once and counted. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "link/link_internal.h"
#include "link/pcapng.h"

struct capture {
    struct takt_link base;     /* first */
    struct takt_link *inner;
    FILE *f;
    takt_ns_t offset;          /* CLOCK_REALTIME - CLOCK_MONOTONIC at open */
    bool write_failed;
    takt_ns_t newest;          /* highest stamp seen */
    takt_ns_t written;         /* stamp of the last record written */
    unsigned late;             /* records written out of time order */
    unsigned n_held;
    uint16_t order[TAKT_CAPTURE_WINDOW_RECORDS];   /* held slots, oldest stamp first */
    uint16_t free_slot[TAKT_CAPTURE_WINDOW_RECORDS];
    unsigned n_free;
    struct held {
        takt_ns_t ts;
        int dir;
        unsigned len;
        uint8_t data[TAKT_FRAME_BUF];
    } held[TAKT_CAPTURE_WINDOW_RECORDS];
    uint8_t blk[PCAPNG_EPB_MAX(TAKT_FRAME_BUF)];
};

static void write_record(struct capture *c, const uint8_t *data, unsigned len, takt_ns_t mono, int dir)
{
    size_t n = pcapng_epb(c->blk, sizeof c->blk, (uint64_t)(mono + c->offset), data, len, dir);
    if (n && fwrite(c->blk, 1, n, c->f) != n)
        c->write_failed = true;
    c->written = mono;
}

/* Write the oldest held record. */
static void release_oldest(struct capture *c)
{
    unsigned s = c->order[0];
    const struct held *h = &c->held[s];
    write_record(c, h->data, h->len, h->ts, h->dir);
    memmove(c->order, c->order + 1, (c->n_held - 1) * sizeof c->order[0]);
    c->n_held--;
    c->free_slot[c->n_free++] = (uint16_t)s;
}

static void cap_write(struct capture *c, const uint8_t *data, unsigned len, takt_ns_t mono, int dir)
{
    unsigned wire = link_wire_len(len);
    if (len > TAKT_FRAME_BUF)
        len = wire = TAKT_FRAME_BUF;
    if (mono < c->written) {           /* too late for the window: keep it, say so */
        uint8_t padded[TAKT_ETH_MIN_FRAME];
        if (wire != len) {
            memcpy(padded, data, len);
            memset(padded + len, 0, wire - len);
            data = padded;
        }
        takt_ns_t keep = c->written;
        write_record(c, data, wire, mono, dir);
        c->written = keep;
        c->late++;
        return;
    }
    if (c->n_held == TAKT_CAPTURE_WINDOW_RECORDS)
        release_oldest(c);
    unsigned s = c->free_slot[--c->n_free];
    struct held *h = &c->held[s];
    memcpy(h->data, data, len);        /* the frame as it went on the wire: padded */
    memset(h->data + len, 0, wire - len);
    h->len = wire;
    h->ts = mono;
    h->dir = dir;
    unsigned i = c->n_held;            /* after every held record not newer (arrival order on ties) */
    while (i > 0 && c->held[c->order[i - 1]].ts > mono)
        i--;
    memmove(c->order + i + 1, c->order + i, (c->n_held - i) * sizeof c->order[0]);
    c->order[i] = (uint16_t)s;
    c->n_held++;
    if (mono > c->newest)
        c->newest = mono;
    while (c->n_held && c->held[c->order[0]].ts <= c->newest - TAKT_CAPTURE_WINDOW_NS)
        release_oldest(c);
}

static int cap_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{
    struct capture *c = (struct capture *)l;
    /* stamped when handed to the link: a reply can arrive (kernel stamp) before a batch
     * send returns, and must not look older than its request */
    takt_ns_t now = takt_now();
    int rc = takt_link_send(c->inner, f, n);
    for (int i = 0; i < rc; i++) {
        /* a frame the kernel holds to its launch time leaves then */
        takt_ns_t t = c->inner->txtime && f[i].launch > now ? f[i].launch : now;
        cap_write(c, f[i].data, f[i].len, f[i].ts ? f[i].ts : t, PCAPNG_DIR_OUT);
    }
    return rc;
}

static int cap_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns)
{
    struct capture *c = (struct capture *)l;
    int rc = takt_link_recv(c->inner, f, n, timeout_ns);
    for (int i = 0; i < rc; i++)
        cap_write(c, f[i].data, f[i].len, f[i].ts, PCAPNG_DIR_IN);
    return rc;
}

static void cap_sync_stats(struct takt_link *l)
{
    struct capture *c = (struct capture *)l;
    takt_link_get_stats(c->inner, &l->stats);
}

static void cap_close(struct takt_link *l)
{
    struct capture *c = (struct capture *)l;
    while (c->n_held)
        release_oldest(c);
    if (c->late)
        fprintf(stderr, "takt: capture of %s: %u frames written out of time order (stamped more than "
                "%d ms before frames already written)\n", l->name, c->late, TAKT_CAPTURE_WINDOW_NS / 1000000);
    if (fclose(c->f) != 0 || c->write_failed)
        fprintf(stderr, "takt: capture of %s: writing the pcapng file failed (disk full?)\n", l->name);
    takt_link_close(c->inner);
    free(c);
}

static const struct takt_link_ops cap_ops = {
    .kind = "capture",
    .send = cap_send,
    .recv = cap_recv,
    .close = cap_close,
    .sync_stats = cap_sync_stats,
};

static takt_ns_t ts_ns(const struct timespec *t) { return (takt_ns_t)t->tv_sec * TAKT_NS_PER_S + t->tv_nsec; }

/* Wall minus monotonic, read between two monotonic reads to halve the error. */
static takt_ns_t realtime_offset(void)
{
    struct timespec m1, r, m2;
    clock_gettime(CLOCK_MONOTONIC, &m1);
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m2);
    return ts_ns(&r) - (ts_ns(&m1) + (ts_ns(&m2) - ts_ns(&m1)) / 2);
}

int takt_link_capture(struct takt_link *inner, const char *path, struct takt_link **out,
                      char *err, size_t errlen)
{
    *out = NULL;
    struct capture *c = calloc(1, sizeof *c);
    if (!c)
        return link_err(err, errlen, -ENOMEM, "capture: out of memory");
    c->f = fopen(path, "wb");
    if (!c->f) {
        int e = errno;
        free(c);
        return link_err(err, errlen, -e, "capture: cannot create '%s': %s", path, strerror(e));
    }
    char appl[64];
    snprintf(appl, sizeof appl, "takt %s", takt_version());
    size_t n = pcapng_shb(c->blk, sizeof c->blk, appl);
    n += pcapng_idb(c->blk + n, sizeof c->blk - n, inner->name, 65535);
    if (fwrite(c->blk, 1, n, c->f) != n) {
        int e = errno;
        fclose(c->f);
        free(c);
        return link_err(err, errlen, -e, "capture: cannot write '%s': %s", path, strerror(e));
    }
    for (unsigned i = 0; i < TAKT_CAPTURE_WINDOW_RECORDS; i++)
        c->free_slot[i] = (uint16_t)(TAKT_CAPTURE_WINDOW_RECORDS - 1 - i);
    c->n_free = TAKT_CAPTURE_WINDOW_RECORDS;
    c->inner = inner;
    c->offset = realtime_offset();
    c->base = *inner;                  /* name, mac, mtu, stats as the inner link */
    c->base.ops = &cap_ops;
    *out = &c->base;
    return 0;
}

takt_ns_t takt_link_capture_offset(const struct takt_link *l)
{
    if (!l || l->ops != &cap_ops)
        return 0;
    return ((const struct capture *)l)->offset;
}

unsigned takt_link_capture_late(const struct takt_link *l)
{
    if (!l || l->ops != &cap_ops)
        return 0;
    return ((const struct capture *)l)->late;
}
