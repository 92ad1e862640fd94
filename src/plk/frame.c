/* POWERLINK frame encoder and decoder. Offsets and sizes: EPSG DS 301 frame formats, DS 302-C (proto.h);
 * every field through the wire.h helpers, every frame zero-padded to 60 bytes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plk/frame.h"
#include "util/wire.h"

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

void plk_mcast_mac(uint8_t mac[6], enum plk_mcast last)
{
    static const uint8_t base[6] = PLK_MCAST_MAC(0);
    memcpy(mac, base, 6);
    mac[5] = (uint8_t)last;
}

enum plk_mcast plk_mtyp_mcast(uint8_t mtyp)
{
    switch (mtyp) {
    case PLK_MTYP_SOC:  return PLK_MCAST_SOC;
    case PLK_MTYP_PRES: return PLK_MCAST_PRES;
    case PLK_MTYP_SOA:  return PLK_MCAST_SOA;
    case PLK_MTYP_ASND: return PLK_MCAST_ASND;
    case PLK_MTYP_AMNI: return PLK_MCAST_AMNI;
    default:            return 0;
    }
}

static bool mac_zero(const uint8_t m[6])
{
    static const uint8_t z[6];
    return memcmp(m, z, 6) == 0;
}

/* ---------------------------------------------------------------- encoders ---- */

/* Each returns the unpadded length or -errno; the caller zeroed buf beforehand. */

static int enc_soc(uint8_t *b, size_t cap, const struct plk_soc *s)
{
    (void)cap;
    b[PLK_SOC_OFF_FLAGS1] = s->flags1;
    put_le32(b + PLK_SOC_OFF_NETTIME_S, s->nettime_s);
    put_le32(b + PLK_SOC_OFF_NETTIME_NS, s->nettime_ns);
    put_le64(b + PLK_SOC_OFF_RELTIME, s->relative_time);
    return PLK_SOC_LEN;
}

/* PReq and PRes: the frame carries max(size, payload_limit) payload bytes (EPSG DS 301 frame sizes). */
static int enc_pdo_frame(uint8_t *b, size_t cap, uint16_t size, const uint8_t *payload,
                         uint16_t limit)
{
    size_t room = (size > limit ? size : limit);
    if (size > PLK_ISOCHR_MAX_PAYL || room > PLK_ISOCHR_MAX_PAYL)
        return -EINVAL;
    if (size && !payload)
        return -EINVAL;
    if (PLK_PREQ_OFF_PAYLOAD + room > cap)
        return -ENOSPC;
    put_le16(b + PLK_PREQ_OFF_SIZE, size);
    if (size)
        memcpy(b + PLK_PREQ_OFF_PAYLOAD, payload, size);
    return (int)(PLK_PREQ_OFF_PAYLOAD + room);
}

static int enc_preq(uint8_t *b, size_t cap, const struct plk_preq *p)
{
    b[PLK_PREQ_OFF_FLAGS1] = p->flags1;
    b[PLK_PREQ_OFF_PDOV] = p->pdo_version;
    return enc_pdo_frame(b, cap, p->size, p->payload, p->payload_limit);
}

static int enc_pres(uint8_t *b, size_t cap, const struct plk_pres *p)
{
    b[PLK_PRES_OFF_NMTSTATE] = p->nmt_state;
    b[PLK_PRES_OFF_FLAGS1] = p->flags1;
    b[PLK_PRES_OFF_FLAGS2] = p->flags2;
    b[PLK_PRES_OFF_PDOV] = p->pdo_version;
    return enc_pdo_frame(b, cap, p->size, p->payload, p->payload_limit);
}

static void enc_sync_request(uint8_t *b, const struct plk_sync_request *s)
{
    uint8_t *p = b + PLK_SOA_OFF_SYNC;
    put_le32(p + 0, s->sync_control);
    put_le32(p + 4, s->pres_time_first);
    put_le32(p + 8, s->pres_time_second);
    put_le32(p + 12, s->sync_mn_delay_first);
    put_le32(p + 16, s->sync_mn_delay_second);
    put_le32(p + 20, s->pres_fallback_timeout);
    memcpy(p + 24, s->dest_mac, 6);
}

static int enc_soa(uint8_t *b, size_t cap, const struct plk_soa *s)
{
    (void)cap;
    b[PLK_SOA_OFF_NMTSTATE] = s->nmt_state;
    b[PLK_SOA_OFF_FLAGS1] = s->flags1;
    b[PLK_SOA_OFF_SVID] = s->svid;
    b[PLK_SOA_OFF_TARGET] = s->target;
    b[PLK_SOA_OFF_EPLVER] = s->epl_version;
    b[PLK_SOA_OFF_FLAGS3] = s->flags3;
    if (s->svid == PLK_SOA_SYNC_REQUEST)
        enc_sync_request(b, &s->sync);
    return PLK_SOA_LEN;
}

static int enc_ident(uint8_t *b, const struct plk_ident_response *r)
{
    b[PLK_IRES_OFF_FLAGS1] = r->flags1;
    b[PLK_IRES_OFF_FLAGS2] = r->flags2;
    b[PLK_IRES_OFF_NMTSTATE] = r->nmt_state;
    b[PLK_IRES_OFF_IDENT_FLAGS] = r->ident_flags;
    b[PLK_IRES_OFF_PROFILE_VER] = r->profile_version;
    put_le32(b + PLK_IRES_OFF_FEATURES, r->feature_flags);
    put_le16(b + PLK_IRES_OFF_MTU, r->mtu);
    put_le16(b + PLK_IRES_OFF_POLLIN, r->poll_in_size);
    put_le16(b + PLK_IRES_OFF_POLLOUT, r->poll_out_size);
    put_le32(b + PLK_IRES_OFF_RESPTIME, r->response_time);
    put_le32(b + PLK_IRES_OFF_DEVTYPE, r->device_type);
    put_le32(b + PLK_IRES_OFF_VENDOR, r->vendor_id);
    put_le32(b + PLK_IRES_OFF_PRODUCT, r->product_code);
    put_le32(b + PLK_IRES_OFF_REVISION, r->revision_no);
    put_le32(b + PLK_IRES_OFF_SERIAL, r->serial_no);
    put_le64(b + PLK_IRES_OFF_VSEXT1, r->vendor_ext1);
    put_le32(b + PLK_IRES_OFF_CONF_DATE, r->conf_date);
    put_le32(b + PLK_IRES_OFF_CONF_TIME, r->conf_time);
    put_le32(b + PLK_IRES_OFF_APP_DATE, r->app_sw_date);
    put_le32(b + PLK_IRES_OFF_APP_TIME, r->app_sw_time);
    put_le32(b + PLK_IRES_OFF_IP, r->ip_address);
    put_le32(b + PLK_IRES_OFF_SUBNET, r->subnet_mask);
    put_le32(b + PLK_IRES_OFF_GATEWAY, r->default_gateway);
    memcpy(b + PLK_IRES_OFF_HOSTNAME, r->hostname, strnlen(r->hostname, PLK_IRES_HOSTNAME_LEN));
    memcpy(b + PLK_IRES_OFF_VSEXT2, r->vendor_ext2, PLK_IRES_VSEXT2_LEN);
    return PLK_IRES_LEN;
}

static int enc_status(uint8_t *b, size_t cap, const struct plk_status_response *r)
{
    if (r->n_entries > PLK_SRES_MAX_ENTRIES)
        return -EINVAL;
    size_t len = PLK_SRES_OFF_HISTORY + (size_t)r->n_entries * PLK_SRES_ENTRY_LEN;
    if (len < PLK_SRES_MIN_LEN)
        len = PLK_SRES_MIN_LEN;   /* zero entries: the list's terminator */
    if (len > cap)
        return -ENOSPC;
    b[PLK_SRES_OFF_FLAGS1] = r->flags1;
    b[PLK_SRES_OFF_FLAGS2] = r->flags2;
    b[PLK_SRES_OFF_NMTSTATE] = r->nmt_state;
    put_le64(b + PLK_SRES_OFF_STATIC_ERR, r->static_errors);
    for (unsigned i = 0; i < r->n_entries; i++) {
        uint8_t *e = b + PLK_SRES_OFF_HISTORY + i * PLK_SRES_ENTRY_LEN;
        put_le16(e + 0, r->entries[i].type);
        put_le16(e + 2, r->entries[i].code);
        put_le64(e + 4, r->entries[i].time);
        put_le64(e + 12, r->entries[i].info);
    }
    return (int)len;
}

static int enc_asnd(uint8_t *b, size_t cap, const struct plk_asnd *a)
{
    b[PLK_ASND_OFF_SVID] = a->svid;
    switch (a->svid) {
    case PLK_ASND_IDENT_RESPONSE:
        return cap < PLK_IRES_LEN ? -ENOSPC : enc_ident(b, &a->u.ident);
    case PLK_ASND_STATUS_RESPONSE:
        return enc_status(b, cap, &a->u.status);
    case PLK_ASND_NMT_COMMAND:
        if (a->u.nmt_cmd.data_len > PLK_NMTCMD_DATA_MAX)
            return -EINVAL;
        b[PLK_NMTCMD_OFF_ID] = a->u.nmt_cmd.cmd;
        memcpy(b + PLK_NMTCMD_OFF_DATA, a->u.nmt_cmd.data, a->u.nmt_cmd.data_len);
        return PLK_NMTCMD_LEN + (a->u.nmt_cmd.data_len ? PLK_NMTCMD_DATA_MAX : 0);
    case PLK_ASND_NMT_REQUEST:
        if (a->u.nmt_req.data_len > PLK_NMTCMD_DATA_MAX)
            return -EINVAL;
        b[PLK_NMTREQ_OFF_ID] = a->u.nmt_req.cmd;
        b[PLK_NMTREQ_OFF_TARGET] = a->u.nmt_req.target;
        memcpy(b + PLK_NMTREQ_OFF_DATA, a->u.nmt_req.data, a->u.nmt_req.data_len);
        return PLK_NMTREQ_OFF_DATA + a->u.nmt_req.data_len;
    case PLK_ASND_SYNC_RESPONSE:
        put_le32(b + PLK_SYNCRES_OFF_STATUS, a->u.sync.sync_status);
        put_le32(b + PLK_SYNCRES_OFF_LATENCY, a->u.sync.latency);
        put_le32(b + PLK_SYNCRES_OFF_NODE_NUMBER, a->u.sync.sync_node_number);
        put_le32(b + PLK_SYNCRES_OFF_DELAY, a->u.sync.sync_delay);
        put_le32(b + PLK_SYNCRES_OFF_PRES_FIRST, a->u.sync.pres_time_first);
        put_le32(b + PLK_SYNCRES_OFF_PRES_SECOND, a->u.sync.pres_time_second);
        return PLK_SYNCRES_LEN;
    default:
        if (a->u.raw.len && !a->u.raw.data)
            return -EINVAL;
        if ((size_t)PLK_ASND_OFF_PAYLOAD + a->u.raw.len > cap)
            return -ENOSPC;
        memcpy(b + PLK_ASND_OFF_PAYLOAD, a->u.raw.data, a->u.raw.len);
        return PLK_ASND_OFF_PAYLOAD + a->u.raw.len;
    }
}

/* Bytes an encoder may write for m (at least the 60-byte minimum). */
static size_t zero_len(const struct plk_msg *m)
{
    size_t n = PLK_MIN_FRAME;
    switch (m->mtyp) {
    case PLK_MTYP_PREQ:
        n = PLK_PREQ_OFF_PAYLOAD + (size_t)(m->u.preq.size > m->u.preq.payload_limit ?
                                            m->u.preq.size : m->u.preq.payload_limit);
        break;
    case PLK_MTYP_PRES:
        n = PLK_PRES_OFF_PAYLOAD + (size_t)(m->u.pres.size > m->u.pres.payload_limit ?
                                            m->u.pres.size : m->u.pres.payload_limit);
        break;
    case PLK_MTYP_ASND:
        if (m->u.asnd.svid == PLK_ASND_IDENT_RESPONSE)
            n = PLK_IRES_LEN;
        else if (m->u.asnd.svid == PLK_ASND_STATUS_RESPONSE) {
            n = PLK_SRES_OFF_HISTORY + (size_t)PLK_SRES_ENTRY_LEN *
                (m->u.asnd.u.status.n_entries > PLK_SRES_MAX_ENTRIES ? 0 : m->u.asnd.u.status.n_entries);
            if (n < PLK_SRES_MIN_LEN)
                n = PLK_SRES_MIN_LEN;   /* as enc_status: the terminator entry is zero */
        } else if (m->u.asnd.svid != PLK_ASND_NMT_COMMAND && m->u.asnd.svid != PLK_ASND_NMT_REQUEST &&
                 m->u.asnd.svid != PLK_ASND_SYNC_RESPONSE)
            n = PLK_ASND_OFF_PAYLOAD + (size_t)m->u.asnd.u.raw.len;
        break;
    default:
        break;
    }
    return n < PLK_MIN_FRAME ? PLK_MIN_FRAME : n;
}

int plk_frame_encode(uint8_t *buf, size_t cap, const struct plk_msg *m)
{
    if (!buf || !m)
        return -EINVAL;
    if (cap < PLK_MIN_FRAME)
        return -ENOSPC;
    if (cap > PLK_MAX_FRAME)
        cap = PLK_MAX_FRAME;
    /* Zero the bytes this frame will have, so reserved fields and padding are 0; only
     * those, since the MN encodes a PReq per CN every cycle. */
    size_t need = zero_len(m);
    memset(buf, 0, need < cap ? need : cap);
    if (mac_zero(m->dst_mac)) {
        enum plk_mcast mc = plk_mtyp_mcast(m->mtyp);
        if (!mc)
            return -EINVAL;     /* PReq/unknown: needs an explicit unicast MAC */
        plk_mcast_mac(buf + PLK_OFF_DST_MAC, mc);
    } else {
        memcpy(buf + PLK_OFF_DST_MAC, m->dst_mac, 6);
    }
    memcpy(buf + PLK_OFF_SRC_MAC, m->src_mac, 6);
    put_be16(buf + PLK_OFF_ETHERTYPE, PLK_ETHERTYPE);
    buf[PLK_OFF_MTYP] = m->mtyp;
    buf[PLK_OFF_DST] = m->dst;
    buf[PLK_OFF_SRC] = m->src;

    int len;
    switch (m->mtyp) {
    case PLK_MTYP_SOC:  len = enc_soc(buf, cap, &m->u.soc); break;
    case PLK_MTYP_PREQ: len = enc_preq(buf, cap, &m->u.preq); break;
    case PLK_MTYP_PRES: len = enc_pres(buf, cap, &m->u.pres); break;
    case PLK_MTYP_SOA:  len = enc_soa(buf, cap, &m->u.soa); break;
    case PLK_MTYP_ASND: len = enc_asnd(buf, cap, &m->u.asnd); break;
    default:            return -EINVAL;
    }
    if (len < 0)
        return len;
    return len < PLK_MIN_FRAME ? PLK_MIN_FRAME : len;
}

/* ---------------------------------------------------------------- decoders ---- */

struct dec {
    const uint8_t *b;
    size_t len;
    char *err;
    size_t errlen;
};

static int need(const struct dec *d, size_t n, const char *what)
{
    if (d->len >= n)
        return 0;
    return fail(d->err, d->errlen, -EMSGSIZE,
                "%s from node %u: frame has %zu bytes, expected at least %zu",
                what, d->b[PLK_OFF_SRC], d->len, n);
}

static int dec_soc(const struct dec *d, struct plk_soc *s)
{
    int rc = need(d, PLK_SOC_LEN, "SoC");
    if (rc)
        return rc;
    s->flags1 = d->b[PLK_SOC_OFF_FLAGS1];
    s->nettime_s = get_le32(d->b + PLK_SOC_OFF_NETTIME_S);
    s->nettime_ns = get_le32(d->b + PLK_SOC_OFF_NETTIME_NS);
    s->relative_time = get_le64(d->b + PLK_SOC_OFF_RELTIME);
    return 0;
}

/* PReq/PRes: the Size field must fit in what arrived (Wireshark flags it otherwise). */
static int dec_pdo_size(const struct dec *d, const char *what, uint16_t *size,
                        const uint8_t **payload)
{
    int rc = need(d, PLK_PREQ_OFF_PAYLOAD, what);
    if (rc)
        return rc;
    *size = get_le16(d->b + PLK_PREQ_OFF_SIZE);
    if (*size > PLK_ISOCHR_MAX_PAYL || (size_t)PLK_PREQ_OFF_PAYLOAD + *size > d->len)
        return fail(d->err, d->errlen, -EPROTO,
                    "%s from node %u: Size at offset %d is %u, but only %zu payload "
                    "bytes arrived (max %d)", what, d->b[PLK_OFF_SRC], PLK_PREQ_OFF_SIZE,
                    *size, d->len - PLK_PREQ_OFF_PAYLOAD, PLK_ISOCHR_MAX_PAYL);
    *payload = d->b + PLK_PREQ_OFF_PAYLOAD;
    return 0;
}

static int dec_preq(const struct dec *d, struct plk_preq *p)
{
    memset(p, 0, sizeof *p);
    int rc = dec_pdo_size(d, "PReq", &p->size, &p->payload);
    if (rc)
        return rc;
    p->flags1 = d->b[PLK_PREQ_OFF_FLAGS1];
    p->pdo_version = d->b[PLK_PREQ_OFF_PDOV];
    p->payload_limit = (uint16_t)(d->len - PLK_PREQ_OFF_PAYLOAD);
    return 0;
}

static int dec_pres(const struct dec *d, struct plk_pres *p)
{
    memset(p, 0, sizeof *p);
    int rc = dec_pdo_size(d, "PRes", &p->size, &p->payload);
    if (rc)
        return rc;
    p->nmt_state = d->b[PLK_PRES_OFF_NMTSTATE];
    p->flags1 = d->b[PLK_PRES_OFF_FLAGS1];
    p->flags2 = d->b[PLK_PRES_OFF_FLAGS2];
    p->pdo_version = d->b[PLK_PRES_OFF_PDOV];
    p->payload_limit = (uint16_t)(d->len - PLK_PRES_OFF_PAYLOAD);
    return 0;
}

static int dec_soa(const struct dec *d, struct plk_soa *s)
{
    memset(s, 0, sizeof *s);
    int rc = need(d, PLK_SOA_OFF_SYNC, "SoA");
    if (rc)
        return rc;
    s->nmt_state = d->b[PLK_SOA_OFF_NMTSTATE];
    s->flags1 = d->b[PLK_SOA_OFF_FLAGS1];
    s->svid = d->b[PLK_SOA_OFF_SVID];
    s->target = d->b[PLK_SOA_OFF_TARGET];
    s->epl_version = d->b[PLK_SOA_OFF_EPLVER];
    s->flags3 = d->b[PLK_SOA_OFF_FLAGS3];
    if (s->svid == PLK_SOA_SYNC_REQUEST) {
        if ((rc = need(d, PLK_SOA_LEN, "SoA SyncRequest")))
            return rc;
        const uint8_t *p = d->b + PLK_SOA_OFF_SYNC;
        s->sync.sync_control = get_le32(p + 0);
        s->sync.pres_time_first = get_le32(p + 4);
        s->sync.pres_time_second = get_le32(p + 8);
        s->sync.sync_mn_delay_first = get_le32(p + 12);
        s->sync.sync_mn_delay_second = get_le32(p + 16);
        s->sync.pres_fallback_timeout = get_le32(p + 20);
        memcpy(s->sync.dest_mac, p + 24, 6);
    }
    return 0;
}

static int dec_ident(const struct dec *d, struct plk_ident_response *r)
{
    int rc = need(d, PLK_IRES_LEN, "IdentResponse");
    if (rc)
        return rc;
    const uint8_t *b = d->b;
    r->flags1 = b[PLK_IRES_OFF_FLAGS1];
    r->flags2 = b[PLK_IRES_OFF_FLAGS2];
    r->nmt_state = b[PLK_IRES_OFF_NMTSTATE];
    r->ident_flags = b[PLK_IRES_OFF_IDENT_FLAGS];
    r->profile_version = b[PLK_IRES_OFF_PROFILE_VER];
    r->feature_flags = get_le32(b + PLK_IRES_OFF_FEATURES);
    r->mtu = get_le16(b + PLK_IRES_OFF_MTU);
    r->poll_in_size = get_le16(b + PLK_IRES_OFF_POLLIN);
    r->poll_out_size = get_le16(b + PLK_IRES_OFF_POLLOUT);
    r->response_time = get_le32(b + PLK_IRES_OFF_RESPTIME);
    r->device_type = get_le32(b + PLK_IRES_OFF_DEVTYPE);
    r->vendor_id = get_le32(b + PLK_IRES_OFF_VENDOR);
    r->product_code = get_le32(b + PLK_IRES_OFF_PRODUCT);
    r->revision_no = get_le32(b + PLK_IRES_OFF_REVISION);
    r->serial_no = get_le32(b + PLK_IRES_OFF_SERIAL);
    r->vendor_ext1 = get_le64(b + PLK_IRES_OFF_VSEXT1);
    r->conf_date = get_le32(b + PLK_IRES_OFF_CONF_DATE);
    r->conf_time = get_le32(b + PLK_IRES_OFF_CONF_TIME);
    r->app_sw_date = get_le32(b + PLK_IRES_OFF_APP_DATE);
    r->app_sw_time = get_le32(b + PLK_IRES_OFF_APP_TIME);
    r->ip_address = get_le32(b + PLK_IRES_OFF_IP);
    r->subnet_mask = get_le32(b + PLK_IRES_OFF_SUBNET);
    r->default_gateway = get_le32(b + PLK_IRES_OFF_GATEWAY);
    memcpy(r->hostname, b + PLK_IRES_OFF_HOSTNAME, PLK_IRES_HOSTNAME_LEN);
    r->hostname[PLK_IRES_HOSTNAME_LEN] = '\0';
    memcpy(r->vendor_ext2, b + PLK_IRES_OFF_VSEXT2, PLK_IRES_VSEXT2_LEN);
    return 0;
}

/* History entries run to the end of the frame; an entry of type 0 (padding) ends it. */
static int dec_status(const struct dec *d, struct plk_status_response *r)
{
    int rc = need(d, PLK_SRES_OFF_HISTORY, "StatusResponse");
    if (rc)
        return rc;
    r->flags1 = d->b[PLK_SRES_OFF_FLAGS1];
    r->flags2 = d->b[PLK_SRES_OFF_FLAGS2];
    r->nmt_state = d->b[PLK_SRES_OFF_NMTSTATE];
    r->static_errors = get_le64(d->b + PLK_SRES_OFF_STATIC_ERR);
    r->n_entries = 0;
    for (size_t off = PLK_SRES_OFF_HISTORY;
         off + PLK_SRES_ENTRY_LEN <= d->len && r->n_entries < PLK_SRES_MAX_ENTRIES;
         off += PLK_SRES_ENTRY_LEN) {
        struct plk_error_entry *e = &r->entries[r->n_entries];
        e->type = get_le16(d->b + off);
        if (e->type == 0)
            break;
        e->code = get_le16(d->b + off + 2);
        e->time = get_le64(d->b + off + 4);
        e->info = get_le64(d->b + off + 12);
        r->n_entries++;
    }
    return 0;
}

static int dec_asnd(const struct dec *d, struct plk_asnd *a)
{
    int rc = need(d, PLK_ASND_OFF_PAYLOAD, "ASnd");
    if (rc)
        return rc;
    memset(a, 0, sizeof *a);
    a->svid = d->b[PLK_ASND_OFF_SVID];
    switch (a->svid) {
    case PLK_ASND_IDENT_RESPONSE:
        return dec_ident(d, &a->u.ident);
    case PLK_ASND_STATUS_RESPONSE:
        return dec_status(d, &a->u.status);
    case PLK_ASND_NMT_COMMAND:
        if ((rc = need(d, PLK_NMTCMD_LEN, "ASnd NMTCommand")))
            return rc;
        a->u.nmt_cmd.cmd = d->b[PLK_NMTCMD_OFF_ID];
        a->u.nmt_cmd.data_len = (uint8_t)(d->len - PLK_NMTCMD_OFF_DATA > PLK_NMTCMD_DATA_MAX
                                ? PLK_NMTCMD_DATA_MAX : d->len - PLK_NMTCMD_OFF_DATA);
        memcpy(a->u.nmt_cmd.data, d->b + PLK_NMTCMD_OFF_DATA, a->u.nmt_cmd.data_len);
        return 0;
    case PLK_ASND_NMT_REQUEST:
        if ((rc = need(d, PLK_NMTREQ_OFF_DATA, "ASnd NMTRequest")))
            return rc;
        a->u.nmt_req.cmd = d->b[PLK_NMTREQ_OFF_ID];
        a->u.nmt_req.target = d->b[PLK_NMTREQ_OFF_TARGET];
        a->u.nmt_req.data_len = (uint8_t)(d->len - PLK_NMTREQ_OFF_DATA > PLK_NMTCMD_DATA_MAX
                                ? PLK_NMTCMD_DATA_MAX : d->len - PLK_NMTREQ_OFF_DATA);
        memcpy(a->u.nmt_req.data, d->b + PLK_NMTREQ_OFF_DATA, a->u.nmt_req.data_len);
        return 0;
    case PLK_ASND_SYNC_RESPONSE:
        if ((rc = need(d, PLK_SYNCRES_LEN, "ASnd SyncResponse")))
            return rc;
        a->u.sync.sync_status = get_le32(d->b + PLK_SYNCRES_OFF_STATUS);
        a->u.sync.latency = get_le32(d->b + PLK_SYNCRES_OFF_LATENCY);
        a->u.sync.sync_node_number = get_le32(d->b + PLK_SYNCRES_OFF_NODE_NUMBER);
        a->u.sync.sync_delay = get_le32(d->b + PLK_SYNCRES_OFF_DELAY);
        a->u.sync.pres_time_first = get_le32(d->b + PLK_SYNCRES_OFF_PRES_FIRST);
        a->u.sync.pres_time_second = get_le32(d->b + PLK_SYNCRES_OFF_PRES_SECOND);
        return 0;
    case PLK_ASND_SDO:
    default:
        if (a->svid != PLK_ASND_SDO && a->svid < PLK_ASND_MANUF_MIN)
            return fail(d->err, d->errlen, -EPROTO,
                        "ASnd from node %u: ServiceID at offset %d is 0x%02X, expected "
                        "1..6 or 0xA0..0xFE", d->b[PLK_OFF_SRC], PLK_ASND_OFF_SVID, a->svid);
        if (a->svid == PLK_ASND_MANUF_MAX + 1)
            return fail(d->err, d->errlen, -EPROTO,
                        "ASnd from node %u: ServiceID 0xFF at offset %d is reserved",
                        d->b[PLK_OFF_SRC], PLK_ASND_OFF_SVID);
        a->u.raw.data = d->b + PLK_ASND_OFF_PAYLOAD;
        a->u.raw.len = (uint16_t)(d->len - PLK_ASND_OFF_PAYLOAD);
        return 0;
    }
}

int plk_frame_decode(const uint8_t *buf, size_t len, struct plk_msg *m, char *err, size_t errlen)
{
    if (!buf || !m)
        return -EINVAL;
    if (len < PLK_OFF_DATA)
        return fail(err, errlen, -EMSGSIZE,
                    "frame of %zu bytes, expected at least %d for a POWERLINK header",
                    len, PLK_OFF_DATA);
    uint16_t et = get_be16(buf + PLK_OFF_ETHERTYPE);
    if (et != PLK_ETHERTYPE)
        return fail(err, errlen, -ENOMSG, "EtherType at offset %d is 0x%04X, expected 0x%04X",
                    PLK_OFF_ETHERTYPE, et, PLK_ETHERTYPE);
    if (len > PLK_MAX_FRAME)
        len = PLK_MAX_FRAME;   /* ignore anything past an Ethernet frame */
    memset(m, 0, offsetof(struct plk_msg, u));
    memcpy(m->dst_mac, buf + PLK_OFF_DST_MAC, 6);
    memcpy(m->src_mac, buf + PLK_OFF_SRC_MAC, 6);
    m->mtyp = buf[PLK_OFF_MTYP] & PLK_MTYP_MASK;
    m->dst = buf[PLK_OFF_DST];
    m->src = buf[PLK_OFF_SRC];
    struct dec d = { buf, len, err, errlen };
    switch (m->mtyp) {
    case PLK_MTYP_SOC:  return dec_soc(&d, &m->u.soc);
    case PLK_MTYP_PREQ: return dec_preq(&d, &m->u.preq);
    case PLK_MTYP_PRES: return dec_pres(&d, &m->u.pres);
    case PLK_MTYP_SOA:  return dec_soa(&d, &m->u.soa);
    case PLK_MTYP_ASND: return dec_asnd(&d, &m->u.asnd);
    default:
        return fail(err, errlen, -EPROTO,
                    "MessageType at offset %d from node %u is 0x%02X, expected SoC 0x01, "
                    "PReq 0x03, PRes 0x04, SoA 0x05 or ASnd 0x06",
                    PLK_OFF_MTYP, m->src, m->mtyp);
    }
}
