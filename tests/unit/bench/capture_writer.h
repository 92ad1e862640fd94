/* Capture files written byte by byte for the analyzer's tests (pcapng ns, us,
 * big-endian, SLL2; classic pcap ns, us, SLL) and the frames they hold: an EtherCAT LRW
 * and POWERLINK frames. Written from the format documents (draft-ietf-opsawg-pcapng, libpcap
 * sll.h), so the reader is checked against them, not against itself. */
#ifndef TAKT_TEST_CAPTURE_WRITER_H
#define TAKT_TEST_CAPTURE_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/wire.h"

enum fmt { NG_NS, NG_US, NG_BE, PCAP_NS, PCAP_US, NG_SLL2, PCAP_SLL, FMT_COUNT };
__attribute__((unused)) static const char *const fmt_name[] = { "pcapng-ns", "pcapng-us", "pcapng-be", "pcap-ns", "pcap-us",
                                        "pcapng-sll2", "pcap-sll" };
_Static_assert(sizeof fmt_name / sizeof fmt_name[0] == FMT_COUNT, "format names");

struct cap {
    FILE *f;
    enum fmt fmt;
};

static inline void w16(struct cap *c, uint16_t v)
{
    uint8_t b[2];
    if (c->fmt == NG_BE)
        put_be16(b, v);
    else
        put_le16(b, v);
    fwrite(b, 1, 2, c->f);
}

static inline void w32(struct cap *c, uint32_t v)
{
    uint8_t b[4];
    if (c->fmt == NG_BE) {
        b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
    } else {
        put_le32(b, v);
    }
    fwrite(b, 1, 4, c->f);
}

static inline bool is_ng(enum fmt f) { return f == NG_NS || f == NG_US || f == NG_BE || f == NG_SLL2; }
static inline bool is_us(enum fmt f) { return f == NG_US || f == PCAP_US; }

/* n_if interfaces with these link types; tsresol: option byte, -1 = no option */
static inline struct cap cap_open_if(const char *path, enum fmt fmt, int n_if, const int *linktypes, int tsresol)
{
    struct cap c = { fopen(path, "wb"), fmt };
    assert_non_null(c.f);
    if (!is_ng(fmt)) {   /* pcap file header: magic, 2.4, thiszone, sigfigs, snaplen, linktype */
        w32(&c, fmt == PCAP_US ? 0xA1B2C3D4 : 0xA1B23C4D);
        w16(&c, 2), w16(&c, 4), w32(&c, 0), w32(&c, 0), w32(&c, 65535), w32(&c, (uint32_t)linktypes[0]);
        return c;
    }
    w32(&c, 0x0A0D0D0A), w32(&c, 28), w32(&c, 0x1A2B3C4D), w16(&c, 1), w16(&c, 0);
    w32(&c, 0xFFFFFFFF), w32(&c, 0xFFFFFFFF), w32(&c, 28);                /* section length -1 */
    for (int i = 0; i < n_if; i++) {
        uint32_t len = tsresol >= 0 ? 32 : 24;
        w32(&c, 1), w32(&c, len), w16(&c, (uint16_t)linktypes[i]), w16(&c, 0), w32(&c, 65535);
        if (tsresol >= 0) {   /* if_tsresol (code 9, 1 byte), then opt_endofopt */
            w16(&c, 9), w16(&c, 1);
            uint8_t v[4] = { (uint8_t)tsresol, 0, 0, 0 };
            fwrite(v, 1, 4, c.f);
        }
        w16(&c, 0), w16(&c, 0), w32(&c, len);
    }
    return c;
}

static inline struct cap cap_open(const char *path, enum fmt fmt)
{
    int lt = fmt == NG_SLL2 ? 276 : fmt == PCAP_SLL ? 113 : 1;
    return cap_open_if(path, fmt, 1, &lt, fmt == NG_US ? -1 : 9);
}

/* An Ethernet frame as a Linux cooked capture records it (libpcap sll.h, big-endian):
 * SLL: pkttype, ARPHRD_ETHER, address length 6, address (8), protocol; SLL2: protocol,
 * reserved, ifindex, ARPHRD_ETHER, pkttype, address length, address (8). The sender's
 * MAC is kept, the destination is lost. */
static inline uint32_t cooked(enum fmt fmt, uint8_t *o, const uint8_t *d, uint32_t len)
{
    uint32_t hdr = fmt == NG_SLL2 ? 20 : 16;
    memset(o, 0, hdr);
    if (fmt == NG_SLL2) {
        memcpy(o, d + 12, 2);
        o[7] = 3;                 /* ifindex 3 */
        put_be16(o + 8, 1);       /* ARPHRD_ETHER */
        o[10] = 1;                /* broadcast, as an EtherCAT frame arrives */
        o[11] = 6;
        memcpy(o + 12, d + 6, 6);
    } else {
        put_be16(o, 4);           /* outgoing */
        put_be16(o + 2, 1);
        put_be16(o + 4, 6);
        memcpy(o + 6, d + 6, 6);
        memcpy(o + 14, d + 12, 2);
    }
    memcpy(o + hdr, d + 14, len - 14);
    return len - 14 + hdr;
}

/* one frame at ts ns; dir (pcapng epb_flags: 1 inbound, 2 outbound) where not 0 */
static inline void cap_frame_dir(struct cap *c, int64_t ts, const uint8_t *d, uint32_t len, int dir)
{
    static const uint8_t z[4];
    uint8_t ck[1600];
    if (c->fmt == NG_SLL2 || c->fmt == PCAP_SLL) {
        len = cooked(c->fmt, ck, d, len);
        d = ck;
    }
    if (!is_ng(c->fmt)) {
        w32(c, (uint32_t)(ts / 1000000000));
        w32(c, (uint32_t)(ts % 1000000000 / (c->fmt == PCAP_US ? 1000 : 1)));
        w32(c, len), w32(c, len);
        fwrite(d, 1, len, c->f);
        return;
    }
    uint64_t ticks = (uint64_t)(c->fmt == NG_US ? ts / 1000 : ts);
    uint32_t pad = (len + 3) & ~3u, opt = dir ? 12 : 0, blen = 28 + pad + opt + 4;
    w32(c, 6), w32(c, blen), w32(c, 0), w32(c, (uint32_t)(ticks >> 32)), w32(c, (uint32_t)ticks);
    w32(c, len), w32(c, len);
    fwrite(d, 1, len, c->f);
    fwrite(z, 1, pad - len, c->f);
    if (dir)   /* epb_flags, then opt_endofopt */
        w16(c, 2), w16(c, 4), w32(c, (uint32_t)dir), w16(c, 0), w16(c, 0);
    w32(c, blen);
}

static inline void cap_frame(struct cap *c, int64_t ts, const uint8_t *d, uint32_t len) { cap_frame_dir(c, ts, d, len, 0); }
static inline void cap_close(struct cap *c) { fclose(c->f); }

/* the pcapng of the older tests: nanoseconds, little-endian */
static inline FILE *ng_open(const char *path, int n_if, const int *linktypes)
{
    return cap_open_if(path, NG_NS, n_if, linktypes, 9).f;
}

static inline void ng_frame_dir(FILE *f, int64_t ts, const uint8_t *d, uint32_t len, int dir)
{
    struct cap c = { f, NG_NS };
    cap_frame_dir(&c, ts, d, len, dir);
}

static inline void ng_frame(FILE *f, int64_t ts, const uint8_t *d, uint32_t len)
{
    ng_frame_dir(f, ts, d, len, 0);
}

/* An EtherCAT frame with one LRW datagram (idx) of 8 bytes; returned frames carry the
 * U/L bit in the source MAC and WKC 3. */
static uint8_t master_mac0;   /* first octet of the master's MAC: 0x00 universal, 0x02 local (veth) */

static inline uint32_t ecat_lrw(uint8_t *b, uint8_t idx, bool returned)
{
    memset(b, 0, 60);
    memset(b, 0xff, 6);
    memcpy(b + 6, "\x02\x00\x00\x00\x00\x01", 6);
    b[6] = returned ? master_mac0 | 0x02 : master_mac0;
    put_be16(b + 12, 0x88A4);
    put_le16(b + 14, 0x1000 | (10 + 8 + 2));
    b[16] = 0x0C;  /* LRW */
    b[17] = idx;
    put_le32(b + 18, 0x00010000);
    put_le16(b + 22, 8);
    put_le16(b + 34, returned ? 3 : 0);
    return 60;
}

static char path[256];

static inline const char *tmpfile_name(const char *tag)
{
    snprintf(path, sizeof path, "/tmp/takt-analyze-%d-%s", (int)getpid(), tag);
    return path;
}

static inline uint32_t plk(uint8_t *b, uint8_t mtyp, uint8_t dst, uint8_t src)
{
    memset(b, 0, 60);
    memcpy(b, "\x01\x11\x1e\x00\x00\x01", 6);
    put_be16(b + 12, 0x88AB);
    b[14] = mtyp;
    b[15] = dst;
    b[16] = src;
    return 60;
}

#endif
