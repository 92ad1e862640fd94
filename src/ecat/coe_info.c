/* CoE client, SDO information part (ETG.1000.6 5.6.3): OD list, object and entry description
 * requests, fragmented responses collected into the caller's buffer, and parsers for
 * the collected results. */
#include <errno.h>
#include <string.h>
#include <takt/takt.h>
#include "ecat/coe_internal.h"
#include "util/wire.h"

/* SDO info header after the CoE header: opcode u8 (bit 7 incomplete), reserved u8,
 * fragments left u16 (ETG.1000.6 5.6.3; SOEM ec_SDOservicet). */
enum { INFO_INCOMPLETE = 0x80, INFO_OP_MASK = 0x7F, INFO_HDR = 4 };

static size_t info_req_payload(const struct ecat_coe_req *r, uint8_t *p, uint8_t *opcode)
{
    switch (r->op) {
    case ECAT_COE_ODLIST:
        *opcode = COE_INFO_ODLIST_REQ;
        put_le16(p, r->list_type);
        return 2;
    case ECAT_COE_OBJDESC:
        *opcode = COE_INFO_OBJ_REQ;
        put_le16(p, r->index);
        return 2;
    default:
        *opcode = COE_INFO_ENTRY_REQ;
        put_le16(p, r->index);
        p[2] = r->subindex;
        p[3] = r->value_info;
        return 4;
    }
}

int ecat_coe_i_info_start(struct ecat_coe_xfer *x, uint8_t cnt, uint8_t *out, size_t cap, size_t *out_len)
{
    uint8_t payload[4], opcode;
    size_t n = info_req_payload(&x->req, payload, &opcode);
    size_t total = COE_OFF_INFO_DATA + n;
    if (cap < total)
        return ecat_coe_i_fail(x, -ENOSPC, "no room for the SDO information request (%zu bytes)", cap);
    if (!x->req.data || !x->req.cap)
        return ecat_coe_i_fail(x, -EINVAL, "SDO information request without a result buffer");
    ecat_coe_i_put_hdr(out, (uint16_t)(total - MBX_HDR), cnt, COE_SDO_INFO);
    out[COE_OFF_INFO_OP] = opcode;
    out[COE_OFF_INFO_OP + 1] = 0;
    put_le16(out + COE_OFF_INFO_FRAG, 0);
    memcpy(out + COE_OFF_INFO_DATA, payload, n);
    *out_len = total;
    x->total = 0xFFFF;         /* fragments left: unknown until the first reply */
    x->state = COE_ST_INFO;
    return ECAT_COE_SEND;
}

int ecat_coe_i_info_reply(struct ecat_coe_xfer *x, const struct ecat_coe_msg *m, const uint8_t *in,
                   uint8_t *out, size_t cap, size_t *out_len)
{
    (void)out; (void)cap; (void)out_len;
    if (m->service != COE_SDO_INFO)
        return ecat_coe_i_fail(x, -EPROTO, "expected an SDO information reply (CoE service 8), found service %u",
                        m->service);
    if (m->mbx.len < 2 + INFO_HDR)
        return ecat_coe_i_fail(x, -EPROTO, "SDO information reply of %u bytes, expected >= %d", m->mbx.len, 2 + INFO_HDR);
    uint8_t op = in[COE_OFF_INFO_OP] & INFO_OP_MASK;
    bool more = in[COE_OFF_INFO_OP] & INFO_INCOMPLETE;
    uint16_t left = get_le16(in + COE_OFF_INFO_FRAG);
    const uint8_t *d = in + COE_OFF_INFO_DATA;
    size_t n = m->mbx.len - 2u - INFO_HDR;
    uint8_t want = (uint8_t)(x->req.op == ECAT_COE_ODLIST ? COE_INFO_ODLIST_RES
                   : x->req.op == ECAT_COE_OBJDESC ? COE_INFO_OBJ_RES : COE_INFO_ENTRY_RES);
    if (op == COE_INFO_ERROR) {
        x->abort_code = n >= 4 ? get_le32(d) : 0;
        return ecat_coe_i_fail(x, -TAKT_ESDOABORT, "SDO information error 0x%08X: %s", x->abort_code,
                        takt_ecat_sdo_abort_text(x->abort_code));
    }
    if (op != want)
        return ecat_coe_i_fail(x, -EPROTO, "SDO information: expected opcode %u, found %u", want, op);
    /* fragments count down to 0; a jump means one was lost */
    if (x->total != 0xFFFF && left + 1u != x->total)
        return ecat_coe_i_fail(x, -EPROTO, "SDO information fragment: expected %u fragments left, found %u",
                        x->total - 1u, left);
    x->total = left;
    if (x->result_len + n > x->req.cap)
        return ecat_coe_i_fail(x, -EMSGSIZE, "SDO information result exceeds the %zu-byte buffer", x->req.cap);
    memcpy(x->req.data + x->result_len, d, n);
    x->result_len += n;
    if (more || left > 0)
        return ECAT_COE_WAIT;  /* the slave queues the next fragment itself: read again */
    x->state = COE_ST_DONE;
    return ECAT_COE_DONE;
}

int takt_ecat_coe_odlist_parse(const uint8_t *d, size_t n, uint16_t *list_type, const uint8_t **first)
{
    if (n < 2 || n % 2)
        return -EPROTO;
    *list_type = get_le16(d);
    *first = d + 2;
    return (int)((n - 2) / 2);
}

static void copy_name(char *dst, size_t cap, const uint8_t *p, size_t n)
{
    size_t k = n < cap - 1 ? n : cap - 1;
    memcpy(dst, p, k);
    dst[k] = '\0';
    dst[strnlen(dst, k)] = '\0';
}

/* Object description (ETG.1000.6 SDO information): index u16, data type u16, max
 * subindex u8, object code u8, name. */
enum { OD_INDEX = 0, OD_TYPE = 2, OD_MAXSUB = 4, OD_CODE = 5, OD_NAME = 6 };

int takt_ecat_coe_objdesc_parse(const uint8_t *d, size_t n, struct takt_ecat_coe_objdesc *o)
{
    memset(o, 0, sizeof *o);
    if (n < OD_NAME)
        return -EPROTO;
    o->index = get_le16(d + OD_INDEX);
    o->data_type = get_le16(d + OD_TYPE);
    o->max_sub = d[OD_MAXSUB];
    o->obj_code = d[OD_CODE];
    copy_name(o->name, sizeof o->name, d + OD_NAME, n - OD_NAME);
    return 0;
}

/* Entry description: index u16, subindex u8, value info u8, data type u16, bit length
 * u16, access u16, [unit u32][default][min][max] per value info, name. */
enum { ED_INDEX = 0, ED_SUB = 2, ED_VINFO = 3, ED_TYPE = 4, ED_BITLEN = 6, ED_ACCESS = 8,
       ED_NAME = 10 };

int takt_ecat_coe_entrydesc_parse(const uint8_t *d, size_t n, struct takt_ecat_coe_entrydesc *e)
{
    memset(e, 0, sizeof *e);
    if (n < ED_NAME)
        return -EPROTO;
    e->index = get_le16(d + ED_INDEX);
    e->subindex = d[ED_SUB];
    e->value_info = d[ED_VINFO];
    e->data_type = get_le16(d + ED_TYPE);
    e->bitlen = get_le16(d + ED_BITLEN);
    e->access = get_le16(d + ED_ACCESS);
    /* unit (u32), then default, minimum and maximum of the entry's own size, then the
     * name; values wider than 64 bits (strings) are skipped */
    size_t off = ED_NAME, vlen = (e->bitlen + 7u) / 8u;
    if (e->value_info & COE_VI_UNIT) {
        if (off + 4 > n)
            return -EPROTO;
        e->unit = get_le32(d + off);
        off += 4;
    }
    static const uint8_t bits[3] = { COE_VI_DEFAULT, COE_VI_MIN, COE_VI_MAX };
    uint64_t *dst[3] = { &e->def, &e->min, &e->max };
    for (unsigned k = 0; k < 3; k++) {
        if (!(e->value_info & bits[k]))
            continue;
        if (off + vlen > n)
            return -EPROTO;
        for (size_t i = 0; i < vlen && i < 8; i++)
            *dst[k] |= (uint64_t)d[off + i] << (8 * i);
        off += vlen;
    }
    copy_name(e->name, sizeof e->name, d + off, n - off);
    return 0;
}
