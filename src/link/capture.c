/* capture tap: wraps any link and writes every frame it sends and receives to a
 * pcapng file with nanosecond wall-clock timestamps (pcapng.h says why the blocks are
 * written by takt rather than libpcap). The tap owns the inner link. */
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
    uint8_t blk[PCAPNG_EPB_MAX(TAKT_FRAME_BUF)];
};

static void cap_write(struct capture *c, const uint8_t *data, unsigned len, takt_ns_t mono, int dir)
{
    uint8_t padded[TAKT_ETH_MIN_FRAME];
    unsigned wire = link_wire_len(len);
    if (wire != len) {                 /* record the frame as it went on the wire */
        memcpy(padded, data, len);
        memset(padded + len, 0, wire - len);
        data = padded;
    }
    size_t n = pcapng_epb(c->blk, sizeof c->blk, (uint64_t)(mono + c->offset), data, wire, dir);
    if (n && fwrite(c->blk, 1, n, c->f) != n)
        c->write_failed = true;
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
