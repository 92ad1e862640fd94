/* The simulated EoE slave's own IP stack, as small as a slave's web server needs:
 * Ethernet II (RFC 894) with ARP (RFC 826) answering requests for its address, IPv4
 * (RFC 791: no options kept, no fragments) with ICMP echo (RFC 792), and TCP (RFC 9293)
 * for one connection at a time on port 80: handshake, one HTTP/1.0-style request, the
 * whole response with FIN, the peer's FIN acknowledged. No retransmission: the mailbox
 * does not lose frames, and a peer that retransmits gets its data acknowledged again.
 * Anything it does not understand is dropped and counted; nothing is trusted. */
#include <stdio.h>
#include <string.h>
#include "sim/esc_eoe.h"
#include "util/wire.h"

enum { ESC_TCP_CLOSED = 0, ESC_TCP_SYN_RCVD, ESC_TCP_ESTABLISHED, ESC_TCP_FIN_SENT };
enum { TH_FIN = 0x01, TH_SYN = 0x02, TH_RST = 0x04, TH_PSH = 0x08, TH_ACK = 0x10 };
#define ETH 14
#define MSS 1400

static const char page_small[] =
    "<!DOCTYPE html>\n<html><head><title>takt eoe-device</title></head>\n"
    "<body><h1>takt simulated EoE device</h1>\n"
    "<p>Served by the slave's own IP stack, through the EtherCAT mailbox.</p></body></html>\n";

static uint16_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += get_be16(p + i);
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)sum;
}

static uint16_t csum(uint32_t sum, const uint8_t *p, size_t n) { return (uint16_t)~csum_add(sum, p, n); }

static void eth_hdr(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    put_be16(f + 12, type);
}

static void arp(struct esc_eoe *s, const uint8_t *f, size_t len)
{
    const uint8_t *a = f + ETH;
    if (len < ETH + 28 || get_be16(a) != 1 || get_be16(a + 2) != 0x0800 || a[4] != 6 ||
        a[5] != 4 || get_be16(a + 6) != 1 || memcmp(a + 24, s->ip.ip, 4)) {
        s->n_dropped++;
        return;
    }
    uint8_t o[ETH + 28];
    eth_hdr(o, a + 8, s->ip.mac, 0x0806);
    uint8_t *r = o + ETH;
    put_be16(r, 1);
    put_be16(r + 2, 0x0800);
    r[4] = 6;
    r[5] = 4;
    put_be16(r + 6, 2);                     /* reply */
    memcpy(r + 8, s->ip.mac, 6);
    memcpy(r + 14, s->ip.ip, 4);
    memcpy(r + 18, a + 8, 6);
    memcpy(r + 24, a + 14, 4);
    s->n_arp++;
    esc_eoe_queue(s, o, sizeof o);
}

/* An IPv4 header (20 bytes) for a reply of plen payload bytes to the sender of f. */
static void ip_hdr(struct esc_eoe *s, uint8_t *o, const uint8_t *f, uint8_t proto, size_t plen)
{
    const uint8_t *ip = f + ETH;
    eth_hdr(o, f + 6, s->ip.mac, 0x0800);
    uint8_t *h = o + ETH;
    memset(h, 0, 20);
    h[0] = 0x45;
    put_be16(h + 2, (uint16_t)(20 + plen));
    put_be16(h + 4, s->ip_id++);
    put_be16(h + 6, 0x4000);               /* don't fragment */
    h[8] = 64;
    h[9] = proto;
    memcpy(h + 12, s->ip.ip, 4);
    memcpy(h + 16, ip + 12, 4);
    put_be16(h + 10, csum(0, h, 20));
}

static void icmp(struct esc_eoe *s, const uint8_t *f, const uint8_t *p, size_t n)
{
    if (n < 8 || p[0] != 8 || p[1] != 0) {    /* echo request only */
        s->n_dropped++;
        return;
    }
    uint8_t o[ECAT_EOE_FRAME_MAX];
    ip_hdr(s, o, f, 1, n);
    uint8_t *r = o + ETH + 20;
    memcpy(r, p, n);
    r[0] = 0;
    put_be16(r + 2, 0);
    put_be16(r + 2, csum(0, r, n));
    s->n_echo++;
    esc_eoe_queue(s, o, ETH + 20 + n);
}

static void tcp_send(struct esc_eoe *s, const uint8_t *f, const uint8_t *in, uint32_t seq,
                     uint32_t ack, uint8_t flags, const void *data, size_t n)
{
    uint8_t o[ECAT_EOE_FRAME_MAX];
    ip_hdr(s, o, f, 6, 20 + n);
    uint8_t *t = o + ETH + 20;
    memset(t, 0, 20);
    memcpy(t, in + 2, 2);                   /* our port: where it was sent */
    memcpy(t + 2, in, 2);
    put_be16(t + 4, (uint16_t)(seq >> 16));
    put_be16(t + 6, (uint16_t)seq);
    put_be16(t + 8, (uint16_t)(ack >> 16));
    put_be16(t + 10, (uint16_t)ack);
    t[12] = 5 << 4;
    t[13] = flags;
    put_be16(t + 14, 8192);                 /* window */
    if (n)
        memcpy(t + 20, data, n);
    uint8_t ph[12];                         /* pseudo-header */
    memcpy(ph, o + ETH + 12, 8);
    ph[8] = 0;
    ph[9] = 6;
    put_be16(ph + 10, (uint16_t)(20 + n));
    put_be16(t + 16, csum(csum_add(0, ph, 12), t, 20 + n));
    esc_eoe_queue(s, o, ETH + 40 + n);
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)get_be16(p) << 16 | get_be16(p + 2); }

/* The response to the request in c->req: the page for GET /, 404 otherwise. */
static void respond(struct esc_eoe *s, struct esc_eoe_tcp *c, const uint8_t *f, const uint8_t *t)
{
    char resp[1024];
    bool ok = !strncmp(c->req, "GET / ", 6) || !strncmp(c->req, "GET /index.html ", 16);
    const char *body = ok ? page_small : "not found\n";
    int n = snprintf(resp, sizeof resp, "HTTP/1.0 %s\r\nContent-Type: text/%s\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     ok ? "200 OK" : "404 Not Found", ok ? "html" : "plain", strlen(body), body);
    size_t len = n > 0 && (size_t)n < sizeof resp ? (size_t)n : 0;
    tcp_send(s, f, t, c->snd_nxt, c->rcv_nxt, TH_ACK | TH_PSH | TH_FIN, resp, len);
    c->snd_nxt += (uint32_t)len + 1;
    c->st = ESC_TCP_FIN_SENT;
    s->n_http++;
}

static void tcp(struct esc_eoe *s, const uint8_t *f, const uint8_t *t, size_t n)
{
    if (n < 20 || (size_t)(t[12] >> 4) * 4 < 20 || (size_t)(t[12] >> 4) * 4 > n) {
        s->n_dropped++;
        return;
    }
    size_t hl = (size_t)(t[12] >> 4) * 4, dl = n - hl;
    uint8_t fl = t[13];
    uint32_t seq = be32(t + 4), ack = be32(t + 8);
    struct esc_eoe_tcp *c = &s->tcp;
    const uint8_t *src_ip = f + ETH + 12;
    bool same = c->st != ESC_TCP_CLOSED && !memcmp(c->peer_ip, src_ip, 4) &&
                c->peer_port == get_be16(t);
    if (fl & TH_RST) {
        if (same)
            c->st = ESC_TCP_CLOSED;
        return;
    }
    if (fl & TH_SYN) {
        if (get_be16(t + 2) != 80 || (fl & TH_ACK)) {
            tcp_send(s, f, t, 0, seq + 1 + (uint32_t)dl, TH_RST | TH_ACK, NULL, 0);
            return;
        }
        /* a new connection replaces the old one: one at a time */
        *c = (struct esc_eoe_tcp){ .st = ESC_TCP_SYN_RCVD, .peer_port = get_be16(t),
                                   .iss = 0x74616B00u + s->ip_id, .rcv_nxt = seq + 1 };
        memcpy(c->peer_ip, src_ip, 4);
        memcpy(c->peer_mac, f + 6, 6);
        c->snd_nxt = c->iss + 1;
        tcp_send(s, f, t, c->iss, c->rcv_nxt, TH_SYN | TH_ACK, NULL, 0);
        return;
    }
    if (!same) {
        if (!(fl & TH_ACK))
            return;
        tcp_send(s, f, t, ack, 0, TH_RST, NULL, 0);
        return;
    }
    if (c->st == ESC_TCP_SYN_RCVD && (fl & TH_ACK) && ack == c->snd_nxt)
        c->st = ESC_TCP_ESTABLISHED;
    if (c->st == ESC_TCP_SYN_RCVD)
        return;
    bool in_order = seq == c->rcv_nxt;
    if (dl && in_order) {
        c->rcv_nxt += (uint32_t)dl;
        if (c->st == ESC_TCP_ESTABLISHED) {
            size_t k = dl < sizeof c->req - 1 - c->req_len ? dl : sizeof c->req - 1 - c->req_len;
            memcpy(c->req + c->req_len, t + hl, k);
            c->req_len += k;
            c->req[c->req_len] = 0;
        }
    }
    if ((fl & TH_FIN) && seq + (uint32_t)dl == c->rcv_nxt)
        c->rcv_nxt += 1;
    if (c->st == ESC_TCP_ESTABLISHED &&
        (strstr(c->req, "\r\n\r\n") || c->req_len == sizeof c->req - 1)) {
        respond(s, c, f, t);
        return;
    }
    if (dl || (fl & TH_FIN) || !in_order)   /* acknowledge what came (again, if repeated) */
        tcp_send(s, f, t, c->snd_nxt, c->rcv_nxt, TH_ACK, NULL, 0);
    if (c->st == ESC_TCP_FIN_SENT && (fl & TH_FIN))
        c->st = ESC_TCP_CLOSED;
}

void esc_eoe_ip_input(struct esc_eoe *s, const uint8_t *f, size_t len)
{
    static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    if (len < ETH || (memcmp(f, s->ip.mac, 6) && memcmp(f, bcast, 6))) {
        s->n_dropped++;
        return;
    }
    if (!(s->ip.flags & EOE_IP_IP)) {       /* no address yet: nothing to answer */
        s->n_dropped++;
        return;
    }
    uint16_t type = get_be16(f + 12);
    if (type == 0x0806) {
        arp(s, f, len);
        return;
    }
    const uint8_t *ip = f + ETH;
    size_t ihl = len >= ETH + 20 ? (size_t)(ip[0] & 0x0F) * 4 : 0;
    if (type != 0x0800 || ihl < 20 || (ip[0] >> 4) != 4 || len < ETH + ihl ||
        csum(0, ip, ihl) != 0 || memcmp(ip + 16, s->ip.ip, 4)) {
        s->n_dropped++;
        return;
    }
    size_t tot = get_be16(ip + 2);
    if (tot < ihl || tot > len - ETH || (get_be16(ip + 6) & 0x3FFF)) {   /* fragments: no */
        s->n_dropped++;
        return;
    }
    if (ip[9] == 1)
        icmp(s, f, ip + ihl, tot - ihl);
    else if (ip[9] == 6)
        tcp(s, f, ip + ihl, tot - ihl);
    else
        s->n_dropped++;
}
