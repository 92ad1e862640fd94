/* EoE codec (ETG.1000.6, Ethernet over EtherCAT): header words, fragmentation of an
 * Ethernet frame in 32-byte units, reassembly that drops a broken frame and counts why
 * instead of trusting any field, and the set-IP-parameter and address-filter bodies. */
#include "ecat/eoe.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/wire.h"

int ecat_eoe_decode(const uint8_t *buf, size_t n, struct ecat_eoe_msg *m)
{
    *m = (struct ecat_eoe_msg){0};
    if (ecat_mbx_decode(buf, n, &m->h) < 0)
        return -EMSGSIZE;
    if (m->h.type != MBX_TYPE_EOE)
        return -EPROTO;
    if (m->h.len < EOE_HDR)
        return -EMSGSIZE;
    uint16_t a = get_le16(buf + EOE_OFF_INFO1), b = get_le16(buf + EOE_OFF_INFO2);
    m->type = a & 0x0F;
    m->port = (a >> 4) & 0x0F;
    m->last = (a & EOE_F_LAST) != 0;
    m->time_appended = (a & EOE_F_TIME_APPENDED) != 0;
    m->time_request = (a & EOE_F_TIME_REQUEST) != 0;
    m->info2 = b;
    m->frag = b & 0x3F;
    m->units = (b >> 6) & 0x3F;
    m->frame_no = (b >> 12) & 0x0F;
    m->data = buf + EOE_OFF_DATA;
    m->len = (size_t)m->h.len - EOE_HDR;
    return 0;
}

size_t ecat_eoe_encode(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t info1, uint16_t info2,
                       const void *data, size_t len)
{
    size_t total = (size_t)MBX_HDR + EOE_HDR + len;
    if (total > cap || len > 0xFFFF - EOE_HDR)
        return 0;
    struct ecat_mbx_hdr h = { .len = (uint16_t)(EOE_HDR + len), .type = MBX_TYPE_EOE, .cnt = cnt };
    ecat_mbx_encode(buf, &h);
    put_le16(buf + EOE_OFF_INFO1, info1);
    put_le16(buf + EOE_OFF_INFO2, info2);
    if (len)
        memcpy(buf + EOE_OFF_DATA, data, len);
    return total;
}

const char *ecat_eoe_type_name(uint8_t type)
{
    static const char *const names[] = {
        "fragment", "timestamp", "set IP parameter request", "set IP parameter response",
        "set address filter request", "set address filter response", "get IP parameter request",
        "get IP parameter response", "get address filter request", "get address filter response",
    };
    return type < TAKT_ARRAY_SIZE(names) ? names[type] : "unknown";
}

const char *ecat_eoe_result_text(uint16_t code)
{
    switch (code) {
    case EOE_RESULT_OK: return "success";
    case EOE_RESULT_UNSPECIFIED: return "unspecified error";
    case EOE_RESULT_UNSUPPORTED_TYPE: return "unsupported frame type";
    case EOE_RESULT_NO_IP_SUPPORT: return "no IP support";
    case EOE_RESULT_NO_DHCP_SUPPORT: return "no DHCP support";
    case EOE_RESULT_NO_FILTER_SUPPORT: return "no filter support";
    default: return "unknown result";
    }
}

/* --- fragmenting -------------------------------------------------------------------- */

int ecat_eoe_tx_start(struct ecat_eoe_tx *t, const void *frame, size_t len, uint8_t frame_no,
                      uint8_t port)
{
    *t = (struct ecat_eoe_tx){0};
    if (len < 14 || len > ECAT_EOE_FRAME_MAX)
        return -EMSGSIZE;
    t->frame = frame;
    t->len = len;
    t->frame_no = frame_no & 0x0F;
    t->port = port & 0x0F;
    t->active = true;
    return 0;
}

size_t ecat_eoe_tx_next(struct ecat_eoe_tx *t, uint8_t cnt, uint8_t *out, size_t mbx_len)
{
    size_t seg = ecat_eoe_seg(mbx_len);
    if (!t->active || !seg)
        return 0;
    size_t left = t->len - t->off, room = mbx_len - MBX_HDR - EOE_HDR;
    bool last = left <= room;
    size_t n = last ? left : seg;
    /* fragment 0 announces the complete size, the others their offset (32-byte units) */
    uint8_t units = (uint8_t)(t->frag == 0 ? (t->len + EOE_UNIT - 1) / EOE_UNIT : t->off / EOE_UNIT);
    uint16_t i1 = ecat_eoe_info1(EOE_T_FRAG, t->port, last ? EOE_F_LAST : 0);
    uint16_t i2 = ecat_eoe_info2(t->frag, units, t->frame_no);
    size_t len = ecat_eoe_encode(out, mbx_len, cnt, i1, i2, t->frame + t->off, n);
    if (!len)
        return 0;
    t->off += n;
    t->frag++;
    if (last)
        t->active = false;
    return len;
}

/* --- reassembly --------------------------------------------------------------------- */

void ecat_eoe_rx_reset(struct ecat_eoe_rx *r)
{
    r->busy = false;
    r->len = r->size = 0;
    r->next_frag = 0;
}

static int drop(struct ecat_eoe_rx *r, uint64_t *why)
{
    (*why)++;
    r->st.dropped++;
    ecat_eoe_rx_reset(r);
    return -EPROTO;
}

int ecat_eoe_rx_put(struct ecat_eoe_rx *r, const struct ecat_eoe_msg *m)
{
    if (m->frag == 0) {
        if (r->busy)                   /* the frame under way never got its last fragment */
            drop(r, &r->st.interrupted);
        r->busy = true;
        r->len = 0;
        r->size = (size_t)m->units * EOE_UNIT;
        r->frame_no = m->frame_no;
        r->port = m->port;
        r->next_frag = 0;
    } else {
        if (!r->busy || m->frag != r->next_frag)
            return drop(r, &r->st.bad_order);
        if (m->frame_no != r->frame_no)
            return drop(r, &r->st.bad_frame_no);
        if ((size_t)m->units * EOE_UNIT != r->len)
            return drop(r, &r->st.bad_offset);
    }
    /* a non-last fragment must end on a 32-byte unit, or the next offset cannot match */
    size_t tail = m->last && m->time_appended ? 4 : 0;
    if (m->len < tail || (!m->last && m->len % EOE_UNIT))
        return drop(r, &r->st.bad_offset);
    size_t n = m->len - tail;
    if (r->len + n > r->size || r->len + n > ECAT_EOE_FRAME_MAX)
        return drop(r, &r->st.overflow);
    memcpy(r->buf + r->len, m->data, n);
    r->len += n;
    r->next_frag = (uint8_t)(m->frag + 1);
    r->st.frags++;
    if (!m->last) {
        if (r->next_frag > 0x3F)       /* fragment numbers have 6 bits */
            return drop(r, &r->st.overflow);
        return ECAT_EOE_RX_MORE;
    }
    r->has_timestamp = tail != 0;
    r->timestamp = tail ? get_le32(m->data + n) : 0;
    r->busy = false;
    r->next_frag = 0;
    if (r->len < 14) {
        r->st.bad_size++;
        r->st.dropped++;
        r->len = 0;
        return -EPROTO;
    }
    r->st.frames++;
    return ECAT_EOE_RX_FRAME;
}

/* --- set IP parameter --------------------------------------------------------------- */

static void put_ip(uint8_t *p, const uint8_t ip[4])
{
    for (int i = 0; i < 4; i++)
        p[i] = ip[3 - i];              /* little-endian u32 of the address */
}

static void get_ip(const uint8_t *p, uint8_t ip[4])
{
    for (int i = 0; i < 4; i++)
        ip[i] = p[3 - i];
}

size_t ecat_eoe_ip_encode(uint8_t *b, const struct takt_ecat_eoe_ip *p)
{
    memset(b, 0, EOE_IP_BODY);
    put_le32(b, p->flags & 0x3F);
    if (p->flags & EOE_IP_MAC)
        memcpy(b + 4, p->mac, 6);
    const uint8_t *ips[] = { p->ip, p->mask, p->gw, p->dns };
    for (unsigned i = 0; i < 4; i++)
        if (p->flags & (EOE_IP_IP << i))
            put_ip(b + 10 + 4 * i, ips[i]);
    if (p->flags & EOE_IP_DNS_NAME)
        memcpy(b + 26, p->dns_name, strnlen(p->dns_name, EOE_DNS_NAME));
    return EOE_IP_BODY;
}

int ecat_eoe_ip_decode(const uint8_t *b, size_t len, struct takt_ecat_eoe_ip *p)
{
    *p = (struct takt_ecat_eoe_ip){0};
    if (len < 4)
        return -EMSGSIZE;
    p->flags = get_le32(b) & 0x3F;
    /* the end of the last field the flags include */
    size_t need = p->flags & EOE_IP_DNS_NAME ? 58 : p->flags & EOE_IP_DNS ? 26 :
                  p->flags & EOE_IP_GW ? 22 : p->flags & EOE_IP_MASK ? 18 :
                  p->flags & EOE_IP_IP ? 14 : p->flags & EOE_IP_MAC ? 10 : 4;
    if (len < need)
        return -EMSGSIZE;
    if (p->flags & EOE_IP_MAC)
        memcpy(p->mac, b + 4, 6);
    uint8_t *ips[] = { p->ip, p->mask, p->gw, p->dns };
    for (unsigned i = 0; i < 4; i++)
        if (p->flags & (EOE_IP_IP << i))
            get_ip(b + 10 + 4 * i, ips[i]);
    if (p->flags & EOE_IP_DNS_NAME)
        memcpy(p->dns_name, b + 26, EOE_DNS_NAME);   /* dns_name has room for the NUL */
    return 0;
}

/* --- address filter ----------------------------------------------------------------- */

size_t ecat_eoe_filter_encode(uint8_t *b, const struct takt_ecat_eoe_filter *f)
{
    memset(b, 0, EOE_FILTER_BODY);
    unsigned nm = f->n_mac > 15 ? 15 : f->n_mac, nk = f->n_mask > 3 ? 3 : f->n_mask;
    put_le16(b, (uint16_t)(nm & 0x0F) | (uint16_t)(nk << 4) | (f->no_broadcast ? 0x80 : 0));
    memcpy(b + 2, f->mac, 6 * (size_t)nm);
    memcpy(b + 2 + 96, f->mask, 6 * (size_t)nk);
    return EOE_FILTER_BODY;
}

int ecat_eoe_filter_decode(const uint8_t *b, size_t len, struct takt_ecat_eoe_filter *f)
{
    *f = (struct takt_ecat_eoe_filter){0};
    if (len < 2)
        return -EMSGSIZE;
    uint16_t o = get_le16(b);
    f->n_mac = o & 0x0F;
    f->n_mask = (o >> 4) & 0x03;
    f->no_broadcast = (o & 0x80) != 0;
    size_t need = 2 + 6 * (size_t)f->n_mac;
    if (f->n_mask)
        need = 2 + 96 + 6 * (size_t)f->n_mask;
    if (len < need)
        return -EMSGSIZE;
    memcpy(f->mac, b + 2, 6 * (size_t)f->n_mac);
    if (f->n_mask)
        memcpy(f->mask, b + 98, 6 * (size_t)f->n_mask);
    return 0;
}

/* --- text forms --------------------------------------------------------------------- */

int takt_ecat_eoe_ip_parse(const char *s, uint8_t ip[4], uint8_t mask[4], bool *has_mask, char *err,
                      size_t errlen)
{
    unsigned a[4], nn = 0;
    int used = 0;
    char tail = 0;
    if (has_mask)
        *has_mask = false;
    if (!s || sscanf(s, "%3u.%3u.%3u.%3u%n", &a[0], &a[1], &a[2], &a[3], &used) != 4 ||
        a[0] > 255 || a[1] > 255 || a[2] > 255 || a[3] > 255)
        goto bad;
    if (s[used] == '/') {
        int u2 = 0;
        if (!mask || sscanf(s + used + 1, "%2u%n%c", &nn, &u2, &tail) != 1 || !u2 || nn > 32 ||
            s[used + 1] < '0' || s[used + 1] > '9')
            goto bad;
        uint32_t m = nn ? 0xFFFFFFFFu << (32 - nn) : 0;
        for (int i = 0; i < 4; i++)
            mask[i] = (uint8_t)(m >> (24 - 8 * i));
        if (has_mask)
            *has_mask = true;
    } else if (s[used]) {
        goto bad;
    }
    for (int i = 0; i < 4; i++)
        ip[i] = (uint8_t)a[i];
    return 0;
bad:
    snprintf(err, errlen, "expected an IPv4 address A.B.C.D%s, got '%s'", mask ? " or A.B.C.D/NN" : "",
             s ? s : "");
    return -EINVAL;
}

int takt_ecat_eoe_mac_parse(const char *s, uint8_t mac[6], char *err, size_t errlen)
{
    unsigned v[6];
    int used = 0;
    if (s && strlen(s) == 17 &&
        sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &used) == 6 &&
        used == 17) {
        for (int i = 0; i < 6; i++)
            mac[i] = (uint8_t)v[i];
        return 0;
    }
    snprintf(err, errlen, "expected a MAC address aa:bb:cc:dd:ee:ff, got '%s'", s ? s : "");
    return -EINVAL;
}
