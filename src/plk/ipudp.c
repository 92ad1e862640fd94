/* Ethernet/IPv4/UDP and ARP codec for the POWERLINK async phase (ipudp.h). IPv4 and
 * UDP as RFC 791/768 lay them out (big-endian, unlike POWERLINK's own fields); ARP as
 * RFC 826 for IPv4 over Ethernet. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plk/ipudp.h"
#include "util/wire.h"

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -EPROTO;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, (uint16_t)(v >> 16));
    put_be16(p + 2, (uint16_t)v);
}

/* One's complement sum of 16-bit big-endian words (RFC 1071), not yet folded. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += get_be16(p + i);
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

static int decode_arp(const uint8_t *f, size_t len, struct plk_ip_frame *o, char *err, size_t errlen)
{
    if (len < PLK_ARP_FRAME)
        return bad(err, errlen, "ARP frame: expected at least %u bytes, got %zu", PLK_ARP_FRAME, len);
    const uint8_t *a = f + 14;
    if (get_be16(a) != 1 || get_be16(a + 2) != PLK_ETH_IPV4 || a[4] != 6 || a[5] != 4)
        return bad(err, errlen, "ARP at offset 14: expected IPv4 over Ethernet (1, 0x0800, 6, 4), "
                   "got (%u, 0x%04X, %u, %u)", get_be16(a), get_be16(a + 2), a[4], a[5]);
    o->kind = PLK_IPF_ARP;
    o->arp_op = get_be16(a + 6);
    memcpy(o->arp_sha, a + 8, 6);
    o->arp_spa = get_be32(a + 14);
    o->arp_tpa = get_be32(a + 24);
    return 0;
}

int plk_ip_decode(const uint8_t *f, size_t len, struct plk_ip_frame *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (len < 14)
        return -ENOMSG;
    memcpy(o->dst_mac, f, 6);
    memcpy(o->src_mac, f + 6, 6);
    uint16_t et = get_be16(f + 12);
    if (et == PLK_ETH_ARP)
        return decode_arp(f, len, o, err, errlen);
    if (et != PLK_ETH_IPV4)
        return -ENOMSG;
    const uint8_t *ip = f + 14;
    size_t room = len - 14;
    if (room < 20)
        return bad(err, errlen, "IPv4 header at offset 14: expected 20 bytes, got %zu", room);
    unsigned ihl = (ip[0] & 0x0Fu) * 4u;
    if (ip[0] >> 4 != 4 || ihl < 20 || ihl > room)
        return bad(err, errlen, "IPv4 version/IHL at offset 14: expected 4 and 20..%zu bytes, got 0x%02X",
                   room, ip[0]);
    uint16_t total = get_be16(ip + 2);
    if (total < ihl || total > room)
        return bad(err, errlen, "IPv4 total length at offset 16: expected %u..%zu, got %u", ihl, room, total);
    if (csum_fold(csum_add(0, ip, ihl)) != 0)
        return bad(err, errlen, "IPv4 header checksum at offset 24: 0x%04X does not add up",
                   get_be16(ip + 10));
    o->proto = ip[9];
    o->src_ip = get_be32(ip + 12);
    o->dst_ip = get_be32(ip + 16);
    o->kind = PLK_IPF_OTHER_IP;
    if (o->proto != 17 && o->proto != 1)
        return 0;
    if (get_be16(ip + 6) & 0x3FFF)   /* MF or a fragment offset: no reassembly here */
        return bad(err, errlen, "IPv4 flags/fragment at offset 20: expected an unfragmented "
                   "datagram, got 0x%04X", get_be16(ip + 6));
    const uint8_t *u = ip + ihl;
    size_t ulen = total - ihl;
    if (o->proto == 1) {
        if (ulen < 8 || csum_fold(csum_add(0, u, ulen)) != 0)
            return bad(err, errlen, "ICMP at offset %u: expected 8 or more bytes with a valid "
                       "checksum, got %zu bytes", 14 + ihl, ulen);
        o->kind = PLK_IPF_ICMP;
        o->data = u;
        o->len = (uint16_t)ulen;
        return 0;
    }
    if (ulen < 8)
        return bad(err, errlen, "UDP header at offset %u: expected 8 bytes, got %zu", 14 + ihl, ulen);
    uint16_t ul = get_be16(u + 4);
    if (ul < 8 || ul > ulen)
        return bad(err, errlen, "UDP length at offset %u: expected 8..%zu, got %u", 18 + ihl, ulen, ul);
    if (get_be16(u + 6)) {           /* 0: the sender computed none (RFC 768) */
        uint8_t ph[12];
        memcpy(ph, ip + 12, 8);
        ph[8] = 0;
        ph[9] = 17;
        put_be16(ph + 10, ul);
        if (csum_fold(csum_add(csum_add(0, ph, 12), u, ul)) != 0)
            return bad(err, errlen, "UDP checksum at offset %u: 0x%04X does not add up",
                       20 + ihl, get_be16(u + 6));
    }
    o->kind = PLK_IPF_UDP;
    o->src_port = get_be16(u);
    o->dst_port = get_be16(u + 2);
    o->data = u + 8;
    o->len = (uint16_t)(ul - 8);
    return 0;
}

int plk_udp_sdo_payload(const uint8_t *d, size_t len, const uint8_t **sdo, size_t *sdo_len,
                        char *err, size_t errlen)
{
    if (len < PLK_UDP_SDO_HDR)
        return bad(err, errlen, "SDO over UDP: expected the 4-byte header, got %zu bytes", len);
    if ((d[0] & 0x7F) != 0x06 || d[3] != 0x05)
        return bad(err, errlen, "SDO over UDP header: expected MessageType 0x06 (ASnd) and "
                   "ServiceID 0x05 (SDO), got 0x%02X and 0x%02X", d[0], d[3]);
    *sdo = d + PLK_UDP_SDO_HDR;
    *sdo_len = len - PLK_UDP_SDO_HDR;
    return 0;
}

static void eth_hdr(uint8_t *b, const uint8_t dst[6], const uint8_t src[6], uint16_t et)
{
    memcpy(b, dst, 6);
    memcpy(b + 6, src, 6);
    put_be16(b + 12, et);
}

/* Ethernet + IPv4 header for l4 bytes of protocol proto; the frame length (padded to
 * 60), or -ENOSPC. The layer-4 bytes start at buf + 34. */
static int ipv4_hdr(uint8_t *buf, size_t cap, const struct plk_ip_ep *src, const struct plk_ip_ep *dst,
                    uint16_t ip_id, uint8_t proto, size_t l4)
{
    size_t n = 34 + l4;
    size_t flen = n < 60 ? 60 : n;
    if (flen > cap || l4 > 0xFFFF - 20)
        return -ENOSPC;
    memset(buf, 0, flen);
    eth_hdr(buf, dst->mac, src->mac, PLK_ETH_IPV4);
    uint8_t *ip = buf + 14;
    ip[0] = 0x45;
    put_be16(ip + 2, (uint16_t)(n - 14));
    put_be16(ip + 4, ip_id);
    put_be16(ip + 6, 0x4000);        /* DF */
    ip[8] = 64;
    ip[9] = proto;
    put_be32(ip + 12, src->ip);
    put_be32(ip + 16, dst->ip);
    put_be16(ip + 10, csum_fold(csum_add(0, ip, 20)));
    return (int)flen;
}

int plk_icmp_echo_reply_encode(uint8_t *buf, size_t cap, const struct plk_ip_ep *src,
                               const struct plk_ip_ep *dst, uint16_t ip_id, const uint8_t *msg, size_t len)
{
    if (len < 8)
        return -EINVAL;
    int flen = ipv4_hdr(buf, cap, src, dst, ip_id, 1, len);
    if (flen < 0)
        return flen;
    uint8_t *m = buf + 34;
    memcpy(m, msg, len);
    m[0] = 0;                        /* echo reply, code 0 */
    m[1] = 0;
    put_be16(m + 2, 0);
    put_be16(m + 2, csum_fold(csum_add(0, m, len)));
    return flen;
}

int plk_udp_encode(uint8_t *buf, size_t cap, const struct plk_ip_ep *src,
                   const struct plk_ip_ep *dst, uint16_t ip_id, const uint8_t *pay, size_t len)
{
    if (len > 0xFFFF - 28)
        return -ENOSPC;
    int flen = ipv4_hdr(buf, cap, src, dst, ip_id, 17, 8 + len);
    if (flen < 0)
        return flen;
    uint8_t *ip = buf + 14, *u = ip + 20;
    put_be16(u, src->port);
    put_be16(u + 2, dst->port);
    put_be16(u + 4, (uint16_t)(8 + len));
    memcpy(u + 8, pay, len);
    uint8_t ph[12];
    memcpy(ph, ip + 12, 8);
    ph[8] = 0;
    ph[9] = 17;
    put_be16(ph + 10, (uint16_t)(8 + len));
    uint16_t cs = csum_fold(csum_add(csum_add(0, ph, 12), u, 8 + len));
    put_be16(u + 6, cs ? cs : 0xFFFF);   /* a computed 0 goes as all ones (RFC 768) */
    return flen;
}

int plk_udp_sdo_encode(uint8_t *buf, size_t cap, const struct plk_ip_ep *src,
                       const struct plk_ip_ep *dst, uint16_t ip_id, const uint8_t *sdo, size_t len)
{
    uint8_t p[PLK_UDP_SDO_HDR + 1500];
    if (len > sizeof p - PLK_UDP_SDO_HDR)
        return -ENOSPC;
    /* as openPOWERLINK's sdoudp sends it: ASnd, destination and source node 0 */
    p[0] = 0x06;
    p[1] = 0;
    p[2] = 0;
    p[3] = 0x05;
    memcpy(p + PLK_UDP_SDO_HDR, sdo, len);
    return plk_udp_encode(buf, cap, src, dst, ip_id, p, PLK_UDP_SDO_HDR + len);
}

int plk_arp_encode(uint8_t *buf, size_t cap, uint16_t op, const uint8_t sha[6], uint32_t spa,
                   const uint8_t tha[6], uint32_t tpa)
{
    static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF }, zero[6];
    if (cap < 60)
        return -ENOSPC;
    memset(buf, 0, 60);
    eth_hdr(buf, op == 1 ? bcast : tha, sha, PLK_ETH_ARP);
    uint8_t *a = buf + 14;
    put_be16(a, 1);
    put_be16(a + 2, PLK_ETH_IPV4);
    a[4] = 6;
    a[5] = 4;
    put_be16(a + 6, op);
    memcpy(a + 8, sha, 6);
    put_be32(a + 14, spa);
    memcpy(a + 18, op == 1 ? zero : tha, 6);
    put_be32(a + 24, tpa);
    return 60;
}

uint16_t plk_udp_sdo_seg_max(uint16_t async_mtu)
{
    /* IPv4 20 + UDP 8 + SDO header 4 + sequence layer 4 + command header 8 */
    unsigned room = async_mtu > 44 + 8 ? async_mtu - 44u : 8u;
    return (uint16_t)(room > 256 ? 256 : room);
}
