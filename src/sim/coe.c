/* CoE server: mailbox header checks, SDO upload/download (expedited, normal, segmented,
 * complete access) with abort codes, emergencies, and the reply queue (ETG.1000.6 5.6 CoE). */
#include "sim/coe.h"

#include <errno.h>
#include <string.h>
#include "ecat/proto.h"
#include "util/wire.h"

/* SDO command specifiers (bits 5-7 of the command byte, CiA 301 / ETG.1000.6 5.6.2) */
enum { CCS_DL_SEG = 0, CCS_DL_INIT = 1, CCS_UL_INIT = 2, CCS_UL_SEG = 3, CCS_ABORT = 4 };
#define SDO_CA 0x10
#define SDO_HDR 16                   /* mailbox 6 + CoE 2 + cmd 1 + index 2 + sub 1 + size 4 */

void coe_init(struct coe_server *s, struct sim_od *od, uint8_t details, uint16_t mbx_out,
              uint16_t mbx_in, const struct od_rules *rules)
{
    memset(s, 0, sizeof *s);
    s->od = od;
    s->details = details;
    s->mbx_out = mbx_out;
    s->mbx_in = mbx_in;
    s->rules = *rules;
    s->al = AL_PREOP;
}

void coe_reset(struct coe_server *s)
{
    s->xfer = XFER_NONE;
    s->q_n = 0;
    s->last_rx_cnt = 0;
    s->tx_cnt = 0;
}

/* Mailbox header for a reply of body_len bytes; the counter cycles 1..7 (ETG.1000.4 mailbox). */
size_t coe_hdr(struct coe_server *s, uint8_t *b, uint16_t body_len, uint8_t type)
{
    s->tx_cnt = (uint8_t)(s->tx_cnt % 7 + 1);
    put_le16(b, body_len);
    put_le16(b + 2, 0);
    b[4] = 0;
    b[5] = (uint8_t)(type | s->tx_cnt << 4);
    return MBX_HDR + body_len;
}

int coe_queue(struct coe_server *s, const uint8_t *b, size_t len)
{
    if (s->q_n == COE_QUEUE || len > COE_MBX_MAX)
        return -ENOBUFS;
    struct coe_msg *m = &s->q[(s->q_head + s->q_n) % COE_QUEUE];
    memcpy(m->b, b, len);
    m->len = (uint16_t)len;
    s->q_n++;
    return 0;
}

size_t coe_mbx_pending(struct coe_server *s, uint8_t *reply, size_t cap)
{
    if (!s->q_n)
        return 0;
    struct coe_msg *m = &s->q[s->q_head];
    if (m->len > cap)
        return 0;
    memcpy(reply, m->b, m->len);
    s->q_head = (s->q_head + 1) % COE_QUEUE;
    s->q_n--;
    return m->len;
}

static size_t mbx_error(struct coe_server *s, uint16_t detail, uint8_t *r, size_t cap)
{
    s->n_mbx_errors++;
    if (cap < MBX_HDR + 4)
        return 0;
    put_le16(r + 6, 0x0001);         /* type: mailbox command */
    put_le16(r + 8, detail);
    return coe_hdr(s, r, 4, MBX_TYPE_ERR);
}

static size_t sdo_reply(struct coe_server *s, uint8_t *r, uint8_t service, uint8_t cmd,
                        uint16_t index, uint8_t sub, uint16_t body)
{
    put_le16(r + 6, (uint16_t)(service << 12));
    r[8] = cmd;
    put_le16(r + 9, index);
    r[11] = sub;
    return coe_hdr(s, r, body, MBX_TYPE_COE);
}

static size_t sdo_abort(struct coe_server *s, uint8_t *r, uint16_t index, uint8_t sub, uint32_t code)
{
    s->n_aborts++;
    s->xfer = XFER_NONE;
    put_le32(r + 12, code);
    return sdo_reply(s, r, COE_SDO_REQ, 0x80, index, sub, 10);
}

int coe_emergency(struct coe_server *s, uint16_t code, uint8_t reg, const uint8_t data[5])
{
    uint8_t b[MBX_HDR + 10] = { 0 };
    put_le16(b + 6, COE_EMERGENCY << 12);
    put_le16(b + 8, code);
    b[10] = reg;
    if (data)
        memcpy(b + 11, data, 5);
    coe_hdr(s, b, 10, MBX_TYPE_COE);
    if (coe_queue(s, b, sizeof b))
        return -ENOBUFS;
    s->n_emergencies++;
    return 0;
}

/* Object and entry for an SDO access, or an abort code. */
static uint32_t lookup(struct coe_server *s, uint16_t index, uint8_t sub, bool ca,
                       struct od_object **po, struct od_entry **pe)
{
    struct od_object *o = od_find(s->od, index);
    if (!o)
        return 0x06020000;
    if (o->fault_abort)
        return o->fault_abort;
    if (ca && !(s->details & 0x20))
        return 0x06010004;           /* complete access not supported */
    if (ca && (sub > 1 || o->code == OD_VAR))
        return 0x06010004;
    *po = o;
    *pe = od_entry(o, sub);
    if (!*pe && !ca)
        return 0x06090011;
    if (s->al != AL_PREOP && s->al != AL_SAFEOP && s->al != AL_OP)
        return 0x08000022;
    return 0;
}

/* For complete access: every readable (writable) entry must be accessible now. */
static uint32_t ca_access(struct coe_server *s, struct od_object *o, uint8_t from, bool write)
{
    bool any = false;
    for (unsigned i = 0; i < o->n; i++) {
        struct od_entry *e = &o->e[i];
        if (e->sub < from || (write && (e->sub == 0 || !(e->access & OD_W_ALL))))
            continue;
        uint32_t rc = od_check_access(e, write, s->al);
        if (rc)
            return rc;
        any = true;
    }
    return any || !write ? 0 : 0x06010002;
}

static size_t upload_init(struct coe_server *s, const uint8_t *m, uint8_t *r, size_t cap)
{
    uint16_t index = get_le16(m + 9);
    uint8_t sub = m[11];
    bool ca = m[8] & SDO_CA;
    struct od_object *o = NULL;
    struct od_entry *e = NULL;
    uint32_t rc = lookup(s, index, sub, ca, &o, &e);
    if (!rc)
        rc = ca ? ca_access(s, o, sub, false) : od_check_access(e, false, s->al);
    if (rc)
        return sdo_abort(s, r, index, sub, rc);
    size_t n;
    if (ca)
        n = od_ca_read(o, sub, s->x_buf, sizeof s->x_buf);
    else {
        n = od_bytes(e);
        memcpy(s->x_buf, e->val, n < sizeof s->x_buf ? n : sizeof s->x_buf);
        while (e->dtype == OD_VSTRING && n > 1 && !s->x_buf[n - 1])
            n--;                     /* strings go without their trailing NULs */
    }
    if (n > sizeof s->x_buf)
        return sdo_abort(s, r, index, sub, 0x06010005);
    if (n <= 4) {                    /* expedited: 0x43 | (4-n)<<2 */
        memset(r + 12, 0, 4);
        memcpy(r + 12, s->x_buf, n);
        return sdo_reply(s, r, COE_SDO_RES, (uint8_t)(0x43 | (4 - n) << 2 | (ca ? SDO_CA : 0)),
                         index, sub, 10);
    }
    size_t room = cap - SDO_HDR;     /* normal: 0x41 + size + what fits */
    size_t first = n < room ? n : room;
    put_le32(r + 12, (uint32_t)n);
    memcpy(r + SDO_HDR, s->x_buf, first);
    if (first < n) {
        s->xfer = XFER_UPLOAD;
        s->x_index = index;
        s->x_sub = sub;
        s->x_len = n;
        s->x_pos = first;
        s->x_toggle = false;
    }
    return sdo_reply(s, r, COE_SDO_RES, (uint8_t)(0x41 | (ca ? SDO_CA : 0)), index, sub,
                     (uint16_t)(10 + first));
}

static size_t upload_seg(struct coe_server *s, const uint8_t *m, uint8_t *r, size_t cap)
{
    bool toggle = m[8] & 0x10;
    if (s->xfer != XFER_UPLOAD)
        return sdo_abort(s, r, get_le16(m + 9), m[11], 0x05040001);
    if (toggle != s->x_toggle)
        return sdo_abort(s, r, s->x_index, s->x_sub, 0x05030000);
    size_t room = cap - MBX_HDR - 3, left = s->x_len - s->x_pos;
    size_t n = left < room ? left : room;
    bool last = n == left;
    uint8_t cmd = (uint8_t)((toggle ? 0x10 : 0) | (last ? 0x01 : 0) | (n < 7 ? (7 - n) << 1 : 0));
    put_le16(r + 6, COE_SDO_RES << 12);
    r[8] = cmd;
    memset(r + 9, 0, 7);
    memcpy(r + 9, s->x_buf + s->x_pos, n);
    s->x_pos += n;
    s->x_toggle = !toggle;
    if (last)
        s->xfer = XFER_NONE;
    return coe_hdr(s, r, (uint16_t)(n < 7 ? 10 : 3 + n), MBX_TYPE_COE);
}

static uint32_t commit(struct coe_server *s, uint16_t index, uint8_t sub, bool ca,
                       const uint8_t *data, size_t len)
{
    struct od_object *o = NULL;
    struct od_entry *e = NULL;
    uint32_t rc = lookup(s, index, sub, ca, &o, &e);
    if (!rc)
        rc = ca ? ca_access(s, o, sub, true) : od_check_access(e, true, s->al);
    if (rc)
        return rc;
    return ca ? od_ca_write(s->od, o, sub, data, len, &s->rules)
              : od_write(s->od, o, e, data, len, &s->rules);
}

static size_t download_init(struct coe_server *s, const uint8_t *m, size_t mlen, uint8_t *r)
{
    uint8_t cmd = m[8];
    uint16_t index = get_le16(m + 9);
    uint8_t sub = m[11];
    bool ca = cmd & SDO_CA;
    uint32_t rc;
    if (cmd & 0x02) {                /* expedited */
        size_t n = cmd & 0x01 ? 4 - (cmd >> 2 & 3) : 4;
        if (!(cmd & 0x01)) {         /* size not indicated: take the entry's size */
            struct od_entry *e = od_find_entry(s->od, index, sub);
            if (e && od_bytes(e) < 4)
                n = od_bytes(e);
        }
        rc = commit(s, index, sub, ca, m + 12, n);
    } else {
        size_t total = get_le32(m + 12), here = mlen - 10;
        if (total > sizeof s->x_buf)
            return sdo_abort(s, r, index, sub, 0x05040005);
        if (here >= total)
            rc = commit(s, index, sub, ca, m + SDO_HDR, total);
        else {
            struct od_object *o = NULL;
            struct od_entry *e = NULL;
            rc = lookup(s, index, sub, ca, &o, &e);   /* fail early, before segments */
            if (!rc && !ca)
                rc = od_check_access(e, true, s->al);
            if (!rc) {
                memcpy(s->x_buf, m + SDO_HDR, here);
                s->xfer = XFER_DOWNLOAD;
                s->x_index = index;
                s->x_sub = sub;
                s->x_ca = ca;
                s->x_len = total;
                s->x_pos = here;
                s->x_toggle = false;
            }
        }
    }
    if (rc)
        return sdo_abort(s, r, index, sub, rc);
    memset(r + 12, 0, 4);
    return sdo_reply(s, r, COE_SDO_RES, 0x60, index, sub, 10);
}

static size_t download_seg(struct coe_server *s, const uint8_t *m, size_t mlen, uint8_t *r)
{
    uint8_t cmd = m[8];
    bool toggle = cmd & 0x10, last = cmd & 0x01;
    if (s->xfer != XFER_DOWNLOAD)
        return sdo_abort(s, r, get_le16(m + 9), m[11], 0x05040001);
    if (toggle != s->x_toggle)
        return sdo_abort(s, r, s->x_index, s->x_sub, 0x05030000);
    size_t n = mlen - 3;
    if (n == 7)
        n = 7 - (cmd >> 1 & 7);      /* short final segment: unused bytes in the command */
    if (s->x_pos + n > s->x_len)
        return sdo_abort(s, r, s->x_index, s->x_sub, 0x06070012);
    memcpy(s->x_buf + s->x_pos, m + 9, n);
    s->x_pos += n;
    s->x_toggle = !toggle;
    if (last) {
        s->xfer = XFER_NONE;
        if (s->x_pos != s->x_len)
            return sdo_abort(s, r, s->x_index, s->x_sub, 0x06070010);
        uint32_t rc = commit(s, s->x_index, s->x_sub, s->x_ca, s->x_buf, s->x_len);
        if (rc)
            return sdo_abort(s, r, s->x_index, s->x_sub, rc);
    }
    put_le16(r + 6, COE_SDO_RES << 12);
    r[8] = (uint8_t)(0x20 | (toggle ? 0x10 : 0));
    memset(r + 9, 0, 7);
    return coe_hdr(s, r, 10, MBX_TYPE_COE);
}

static size_t sdo(struct coe_server *s, const uint8_t *m, size_t mlen, uint8_t *r, size_t cap)
{
    if (mlen < 10)
        return mbx_error(s, MBXERR_SIZE_TOO_SHORT, r, cap);
    switch (m[8] >> 5) {
    case CCS_DL_INIT: return download_init(s, m, mlen, r);
    case CCS_DL_SEG:  return download_seg(s, m, mlen, r);
    case CCS_UL_INIT: return upload_init(s, m, r, cap);
    case CCS_UL_SEG:  return upload_seg(s, m, r, cap);
    case CCS_ABORT:   s->xfer = XFER_NONE; return 0;
    default:          return sdo_abort(s, r, get_le16(m + 9), m[11], 0x05040001);
    }
}

static uint32_t fnv(const uint8_t *b, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

size_t coe_mbx_write(struct coe_server *s, const uint8_t *m, size_t len, uint8_t *r, size_t cap)
{
    if (s->mbx_in && cap > s->mbx_in)
        cap = s->mbx_in;
    if (cap > COE_MBX_MAX)
        cap = COE_MBX_MAX;
    if (cap < SDO_HDR)
        return 0;
    memset(r, 0, SDO_HDR);
    s->n_requests++;
    if (len < MBX_HDR + 2)
        return mbx_error(s, MBXERR_SIZE_TOO_SHORT, r, cap);
    size_t mlen = get_le16(m);
    if (mlen + MBX_HDR > len)
        return mbx_error(s, MBXERR_INVALID_SIZE, r, cap);
    if (mlen < 2)
        return mbx_error(s, MBXERR_SIZE_TOO_SHORT, r, cap);
    if (m[5] & 0x80)                 /* reserved bit of the type/counter byte */
        return mbx_error(s, MBXERR_INVALID_HEADER, r, cap);
    if (m[4] & 0x3F)
        return mbx_error(s, MBXERR_INVALID_CHANNEL, r, cap);
    if ((m[5] & 0x0F) != MBX_TYPE_COE)
        return mbx_error(s, MBXERR_UNSUPPORTED_PROTOCOL, r, cap);
    /* ETG.1000.4: a repeated request (same non-zero counter, same content) is a retry
     * of a message we already served; ignore it rather than execute it twice. */
    uint8_t cnt = m[5] >> 4 & 7;
    uint32_t h = fnv(m, MBX_HDR + mlen);
    if (cnt && cnt == s->last_rx_cnt && h == s->last_rx_hash) {
        s->n_dup++;
        return 0;
    }
    s->last_rx_cnt = cnt;
    s->last_rx_hash = h;
    switch (get_le16(m + 6) >> 12) {
    case COE_SDO_REQ:
        return sdo(s, m, mlen, r, cap);
    case COE_SDO_INFO:
        if (s->details & 0x02)
            return coe_sdo_info(s, m, mlen, r, cap);
        return mbx_error(s, MBXERR_SERVICE_NOT_SUPPORTED, r, cap);
    default:
        return mbx_error(s, MBXERR_SERVICE_NOT_SUPPORTED, r, cap);
    }
}
