/* SDO information service (ETG.1000.6 5.6.3): object list, object description, entry
 * description and the SDO info error, fragmented over several mailbox replies. */
#include <string.h>
#include "ecat/proto.h"
#include "sim/coe.h"
#include "util/wire.h"

enum { INFO_LIST_REQ = 1, INFO_LIST_RES, INFO_OBJ_REQ, INFO_OBJ_RES, INFO_ENTRY_REQ,
       INFO_ENTRY_RES, INFO_ERROR };
#define INFO_HDR (MBX_HDR + 2 + 4)   /* mailbox, CoE, opcode + reserved + fragments left */
#define INFO_INCOMPLETE 0x80

static size_t info_msg(struct coe_server *s, uint8_t *r, uint8_t op, uint16_t frags, size_t body)
{
    put_le16(r + 6, COE_SDO_INFO << 12);
    r[8] = op;
    r[9] = 0;
    put_le16(r + 10, frags);
    return coe_hdr(s, r, (uint16_t)(6 + body), MBX_TYPE_COE);
}

static size_t info_error(struct coe_server *s, uint8_t *r, uint32_t code)
{
    s->n_aborts++;
    put_le32(r + INFO_HDR, code);
    return info_msg(s, r, INFO_ERROR, 0, 4);
}

static bool in_list(const struct od_object *o, unsigned type)
{
    if (type == 1)
        return true;
    uint16_t want = type == 2 ? OD_RXPDO : type == 3 ? OD_TXPDO : 0;
    for (unsigned i = 0; want && i < o->n; i++)
        if (o->e[i].access & want)
            return true;
    return false;                    /* 4 backup, 5 settings: none flagged */
}

/* OD list: list type 0 answers the five counts; 1..5 the indices, fragmented. The
 * first fragment goes out as the reply, the rest are queued. */
static size_t od_list(struct coe_server *s, const uint8_t *m, uint8_t *r, size_t cap)
{
    unsigned type = get_le16(m + INFO_HDR);
    uint16_t words[1 + 1024];
    size_t nw = 0;
    words[nw++] = (uint16_t)type;
    if (type > 5)
        return info_error(s, r, 0x06090030);
    if (type == 0) {
        for (unsigned t = 1; t <= 5; t++) {
            uint16_t c = 0;
            for (unsigned i = 0; i < s->od->n; i++)
                c += in_list(&s->od->obj[i], t);
            words[nw++] = c;
        }
    } else {
        for (unsigned i = 0; i < s->od->n && nw < sizeof words / sizeof words[0]; i++)
            if (in_list(&s->od->obj[i], type))
                words[nw++] = s->od->obj[i].index;
    }
    size_t per = (cap - INFO_HDR) / 2, frags = (nw + per - 1) / per;
    uint8_t tmp[COE_MBX_MAX];
    size_t first = 0;
    for (size_t f = 0, w = 0; f < frags; f++) {
        uint8_t *b = f ? tmp : r;
        size_t n = nw - w < per ? nw - w : per;
        memset(b, 0, INFO_HDR);
        for (size_t k = 0; k < n; k++)
            put_le16(b + INFO_HDR + 2 * k, words[w + k]);
        w += n;
        size_t len = info_msg(s, b, (uint8_t)(INFO_LIST_RES | (f + 1 < frags ? INFO_INCOMPLETE : 0)),
                              (uint16_t)(frags - f - 1), 2 * n);
        if (!f)
            first = len;
        else if (coe_queue(s, b, len))
            break;                   /* queue full: the master sees fragments missing */
    }
    return first;
}

/* Name after a fixed part of `fixed` bytes, cut to what the mailbox holds. */
static size_t name_into(uint8_t *dst, const char *name, size_t cap, size_t fixed)
{
    size_t n = strnlen(name, OD_NAME), room = cap > fixed ? cap - fixed : 0;
    if (n > room)
        n = room;
    memcpy(dst, name, n);
    return n;
}

static size_t obj_desc(struct coe_server *s, const uint8_t *m, uint8_t *r, size_t cap)
{
    uint16_t index = get_le16(m + INFO_HDR);
    const struct od_object *o = od_find(s->od, index);
    if (!o)
        return info_error(s, r, 0x06020000);
    if (cap < INFO_HDR + 6)
        return info_error(s, r, 0x06010005);   /* does not fit the mailbox */
    uint8_t *b = r + INFO_HDR;
    put_le16(b, index);
    put_le16(b + 2, o->dtype ? o->dtype : (o->n ? o->e[0].dtype : 0));
    b[4] = o->code == OD_VAR ? 0 : od_max_sub(o);
    b[5] = o->code;
    size_t n = name_into(b + 6, o->name, cap, INFO_HDR + 6);
    return info_msg(s, r, INFO_OBJ_RES, 0, 6 + n);
}

static size_t entry_desc(struct coe_server *s, const uint8_t *m, uint8_t *r, size_t cap)
{
    uint16_t index = get_le16(m + INFO_HDR);
    uint8_t sub = m[INFO_HDR + 2];
    const struct od_object *o = od_find(s->od, index);
    if (!o)
        return info_error(s, r, 0x06020000);
    const struct od_entry *e = od_entry(o, sub);
    if (!e)
        return info_error(s, r, 0x06090011);
    if (cap < INFO_HDR + 10)
        return info_error(s, r, 0x06010005);
    uint8_t *b = r + INFO_HDR;
    put_le16(b, index);
    b[2] = sub;
    b[3] = 0;                        /* value info: no unit/default/min/max follow */
    put_le16(b + 4, e->dtype);
    put_le16(b + 6, e->bits);
    put_le16(b + 8, e->access);
    size_t n = name_into(b + 10, e->name, cap, INFO_HDR + 10);
    return info_msg(s, r, INFO_ENTRY_RES, 0, 10 + n);
}

size_t coe_sdo_info(struct coe_server *s, const uint8_t *m, size_t mlen, uint8_t *r, size_t cap)
{
    memset(r, 0, INFO_HDR + 4);
    if (mlen < 6 + 2)
        return info_error(s, r, 0x05040001);
    switch (m[8] & 0x7F) {
    case INFO_LIST_REQ:  return od_list(s, m, r, cap);
    case INFO_OBJ_REQ:   return obj_desc(s, m, r, cap);
    case INFO_ENTRY_REQ:
        if (mlen < 6 + 4)
            return info_error(s, r, 0x05040001);
        return entry_desc(s, m, r, cap);
    default:             return info_error(s, r, 0x05040001);
    }
}
