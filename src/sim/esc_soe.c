/* SoE drive of the simulated slave (ETG.1000.6, Servo drive profile over EtherCAT, IDNs of IEC 61800-7-204): a read
 * request gets the requested elements in wire order (data state, name, attribute,
 * unit, min, max, value, default), fragmented when they exceed the read mailbox (the
 * Incomplete bit and the count of fragments to come, sent one after another as the
 * master empties the mailbox); write fragments are collected and only the last one is
 * answered. Refusals are responses with the Error bit and the code. Drive number 0. */
#include "sim/esc_soe.h"
#include <stdlib.h>
#include <string.h>
#include "ecat/soe.h"
#include "sim/esc.h"
#include "util/wire.h"

#define WP_CYCLIC (SOE_ATTR_WP_SAFEOP | SOE_ATTR_WP_OP)  /* set up in PREOP only */
#define RO        (SOE_ATTR_WP_PREOP | SOE_ATTR_WP_SAFEOP | SOE_ATTR_WP_OP)

struct esc_soe_idn {
    uint16_t idn;
    const char *name, *unit;       /* unit NULL: the IDN has none */
    uint32_t attr;
    bool     has_limits;
    int64_t  min, max, def;        /* fixed-size numeric values */
    const uint16_t *list;          /* lists of IDNs: the default items */
    unsigned n_list, max_list;     /* items now / at most */
    const char *text;              /* text lists: the default */
};

#define S(n) ((uint16_t)(n))
#define P(n) ((uint16_t)(0x8000u | (n)))
static const uint16_t at_list[] = { S(51), S(40) };     /* position and velocity feedback */
static const uint16_t mdt_list[] = { S(47), S(36) };    /* position and velocity command */
static const uint16_t all_list[] = { S(1), S(15), S(16), S(17), S(24), S(30), S(32), S(33),
                                     S(36), S(40), S(47), S(51), P(10) };

/* Attributes: item size, list, display format, decimals; write protection per state. */
static const struct esc_soe_idn idns[] = {
    { S(1), "NC cycle time (TNcyc)", "us", 0x00010000u | 1u << 20 | WP_CYCLIC, true, 125, 65000, 1000, NULL, 0, 0, NULL },
    { S(15), "Telegram type", NULL, 0x00010000u | 0u << 20 | WP_CYCLIC, true, 0, 7, 7, NULL, 0, 0, NULL },
    { S(16), "AT configuration list", NULL, 0x00010000u | SOE_ATTR_LIST | 5u << 20 | WP_CYCLIC, false, 0, 0, 0, at_list, 2, 8, NULL },
    { S(17), "IDN list of all operation data", NULL, 0x00010000u | SOE_ATTR_LIST | 5u << 20 | RO, false, 0, 0, 0, all_list, 13, 16, NULL },
    { S(24), "MDT configuration list", NULL, 0x00010000u | SOE_ATTR_LIST | 5u << 20 | WP_CYCLIC, false, 0, 0, 0, mdt_list, 2, 8, NULL },
    { S(30), "Manufacturer version", NULL, SOE_ATTR_LIST | 4u << 20 | RO, false, 0, 0, 0, NULL, 0, 64, "takt soe-drive 1.0" },
    { S(32), "Primary operation mode", NULL, 0x00010000u | 3u << 20 | WP_CYCLIC, false, 0, 0, 0x0003, NULL, 0, 0, NULL },
    { S(33), "Secondary operation mode 1", NULL, 0x00010000u | 3u << 20 | WP_CYCLIC, false, 0, 0, 0x0002, NULL, 0, 0, NULL },
    { S(36), "Velocity command value", "rpm", 0x00020000u | 2u << 20 | 4u << 24, true, -60000000, 60000000, 0, NULL, 0, 0, NULL },
    { S(40), "Velocity feedback value 1", "rpm", 0x00020000u | 2u << 20 | 4u << 24 | RO, false, 0, 0, 0, NULL, 0, 0, NULL },
    { S(47), "Position command value", "deg", 0x00020000u | 2u << 20 | 4u << 24, false, 0, 0, 0, NULL, 0, 0, NULL },
    { S(51), "Position feedback value 1", "deg", 0x00020000u | 2u << 20 | 4u << 24 | RO, false, 0, 0, 0, NULL, 0, 0, NULL },
    /* a long list, larger than any mailbox: traffic in fragments both ways */
    { P(10), "Trace buffer", NULL, 0x00010000u | SOE_ATTR_LIST | 1u << 20, false, 0, 0, 0, NULL, 300, 500, NULL },
};
_Static_assert(sizeof idns / sizeof idns[0] <= ESC_SOE_IDNS, "room for every IDN");
enum { N_IDNS = sizeof idns / sizeof idns[0] };

static int find(uint16_t idn)
{
    for (int i = 0; i < N_IDNS; i++)
        if (idns[i].idn == idn)
            return i;
    return -1;
}

static size_t put_list(uint8_t *p, const void *items, size_t cur, size_t max)
{
    put_le16(p, (uint16_t)cur);
    put_le16(p + 2, (uint16_t)max);
    if (cur)
        memcpy(p + 4, items, cur);
    return 4 + cur;
}

/* The default value of IDN i, as on the wire (lists with their header). */
static size_t default_value(int i, uint8_t *v)
{
    const struct esc_soe_idn *d = &idns[i];
    unsigned item = soe_attr_item(d->attr);
    if (!soe_attr_list(d->attr)) {
        uint64_t x = (uint64_t)d->def;
        for (unsigned k = 0; k < item; k++)
            v[k] = (uint8_t)(x >> (8 * k));
        return item;
    }
    put_le16(v, (uint16_t)(d->n_list * item));
    put_le16(v + 2, (uint16_t)(d->max_list * item));
    if (d->text) {
        size_t n = strlen(d->text);
        put_le16(v, (uint16_t)n);
        memcpy(v + 4, d->text, n);
        return 4 + n;
    }
    for (unsigned k = 0; k < d->n_list; k++)
        put_le16(v + 4 + 2 * k, d->list ? d->list[k] : (uint16_t)(k * 7));
    return 4 + d->n_list * item;
}

struct esc_soe *esc_soe_get(struct sim_esc *e)
{
    if (e->soe || !e->desc || !(e->desc->mbx_protocols & MBX_PROTO_SOE))
        return e->soe;
    struct esc_soe *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    for (int i = 0; i < N_IDNS; i++)
        s->len[i] = (uint16_t)default_value(i, s->val[i]);
    e->soe = s;
    return s;
}

void esc_soe_free(struct sim_esc *e)
{
    free(e->soe);
    e->soe = NULL;
}

void esc_soe_reset(struct sim_esc *e)
{
    if (!e->soe)
        return;
    e->soe->out_len = e->soe->out_off = 0;
    e->soe->in_busy = false;
    e->soe->in_len = 0;
}

const uint8_t *esc_soe_value(const struct esc_soe *s, uint16_t idn, size_t *len)
{
    int i = find(idn);
    if (i < 0)
        return NULL;
    *len = s->len[i];
    return s->val[i];
}

/* --- one request ------------------------------------------------------------------- */

static size_t answer(struct sim_esc *e, uint8_t *r, size_t cap, uint8_t op, uint8_t flags,
                     uint8_t drive, uint8_t el, uint16_t idn, const void *data, size_t len)
{
    e->mbx_cnt = (uint8_t)(e->mbx_cnt % 7 + 1);
    return ecat_soe_encode(r, cap, e->mbx_cnt, op, flags, drive, el, idn, data, len);
}

static size_t refuse(struct sim_esc *e, uint8_t *r, size_t cap, const struct ecat_soe_msg *m,
                     uint8_t op, uint16_t code)
{
    uint8_t c[2];
    put_le16(c, code);
    e->soe->n_err++;
    return answer(e, r, cap, op, SOE_F_ERROR, m->drive, m->elements, m->idn, c, 2);
}

static int64_t value_num(const uint8_t *v, unsigned item)
{
    uint64_t x = 0;
    for (unsigned k = 0; k < item; k++)
        x |= (uint64_t)v[k] << (8 * k);
    if (item < 8 && (x >> (8 * item - 1)) & 1)
        x |= ~0ull << (8 * item);               /* signed display formats */
    return (int64_t)x;
}

/* The elements of IDN i in wire order into out; 0 and *code on a missing element. */
static size_t gather(struct esc_soe *s, int i, uint8_t el, uint8_t *out, uint16_t *code)
{
    const struct esc_soe_idn *d = &idns[i];
    unsigned item = soe_attr_item(d->attr);
    bool numeric = !soe_attr_list(d->attr);
    size_t n = 0;
    for (unsigned b = 0; b < 8; b++) {
        uint8_t f = (uint8_t)(1u << b);
        if (!(el & f))
            continue;
        int64_t lim = 0;
        switch (f) {
        case SOE_EL_STATE:
            *code = 0x7014;                       /* no procedure commands here */
            return 0;
        case SOE_EL_NAME:
            n += put_list(out + n, d->name, strlen(d->name), 64);
            break;
        case SOE_EL_ATTR:
            put_le32(out + n, d->attr);
            n += 4;
            break;
        case SOE_EL_UNIT:
            if (!d->unit) {
                *code = SOE_ERR_NO_UNIT;
                return 0;
            }
            n += put_list(out + n, d->unit, strlen(d->unit), 16);
            break;
        case SOE_EL_MIN:
        case SOE_EL_MAX:
            if (!d->has_limits || !numeric) {
                *code = f == SOE_EL_MIN ? SOE_ERR_NO_MIN : SOE_ERR_NO_MAX;
                return 0;
            }
            lim = f == SOE_EL_MIN ? d->min : d->max;
            for (unsigned k = 0; k < item; k++)
                out[n + k] = (uint8_t)((uint64_t)lim >> (8 * k));
            n += item;
            break;
        case SOE_EL_VALUE:
            memcpy(out + n, s->val[i], s->len[i]);
            n += s->len[i];
            break;
        case SOE_EL_DEFAULT:
            if (d->attr & SOE_ATTR_WP_OP && !d->has_limits && numeric) {
                *code = SOE_ERR_NO_DEFAULT;       /* actual values have no default */
                return 0;
            }
            n += default_value(i, out + n);
            break;
        }
    }
    return n;
}

static size_t read_req(struct sim_esc *e, const struct ecat_soe_msg *m, uint8_t *r, size_t cap)
{
    struct esc_soe *s = e->soe;
    int i = find(m->idn);
    if (i < 0)
        return refuse(e, r, cap, m, SOE_OP_READ_RES, SOE_ERR_NO_IDN);
    uint16_t code = 0;
    size_t n = gather(s, i, m->elements, s->out, &code);
    if (code)
        return refuse(e, r, cap, m, SOE_OP_READ_RES, code);
    s->n_read++;
    s->out_len = n;
    s->out_off = 0;
    s->out_op = SOE_OP_READ_RES;
    s->out_drive = m->drive;
    s->out_elements = m->elements;
    s->out_idn = m->idn;
    return esc_soe_pending(e, r, cap);
}

size_t esc_soe_pending(struct sim_esc *e, uint8_t *r, size_t cap)
{
    struct esc_soe *s = e->soe;
    if (!s || !s->out_op)
        return 0;                                /* no response under way */
    size_t seg = ecat_soe_seg(cap), left = s->out_len - s->out_off;
    size_t n = left < seg ? left : seg;
    uint8_t flags = 0;
    uint16_t field = s->out_idn;
    if (n < left) {
        flags = SOE_F_INCOMPLETE;
        field = (uint16_t)((left - n + seg - 1) / seg);
        s->n_frag_out++;
    }
    size_t len = answer(e, r, cap, s->out_op, flags, s->out_drive, s->out_elements, field,
                        s->out + s->out_off, n);
    s->out_off += n;
    if (s->out_off >= s->out_len)
        s->out_len = s->out_off = 0, s->out_op = 0;
    return len;
}

static uint16_t check_write(struct sim_esc *e, int i, const uint8_t *v, size_t len)
{
    const struct esc_soe_idn *d = &idns[i];
    uint8_t st = e->al_state & 0x0F;
    if ((d->attr & RO) == RO)
        return SOE_ERR_READ_ONLY;
    if ((st == AL_PREOP && d->attr & SOE_ATTR_WP_PREOP) ||
        (st == AL_SAFEOP && d->attr & SOE_ATTR_WP_SAFEOP) || (st == AL_OP && d->attr & SOE_ATTR_WP_OP))
        return SOE_ERR_WP_STATE;
    unsigned item = soe_attr_item(d->attr);
    if (!soe_attr_list(d->attr)) {
        if (len != item)
            return len < item ? SOE_ERR_TOO_SHORT : SOE_ERR_TOO_LONG;
        int64_t x = value_num(v, item);
        if (d->has_limits && x < d->min)
            return SOE_ERR_BELOW_MIN;
        if (d->has_limits && x > d->max)
            return SOE_ERR_ABOVE_MAX;
        return 0;
    }
    if (len < 4 || get_le16(v) < len - 4)
        return SOE_ERR_TOO_LONG;
    if (get_le16(v) > len - 4)
        return SOE_ERR_TOO_SHORT;
    size_t cur = get_le16(v);
    if (cur % item || cur > (size_t)d->max_list * item)
        return cur % item ? SOE_ERR_TOO_SHORT : SOE_ERR_TOO_LONG;
    if (soe_attr_fmt(d->attr) == SOE_FMT_IDN && d->max_list)
        for (size_t k = 0; k < cur; k += 2)
            if (find(get_le16(v + 4 + k)) < 0)
                return 0x7008;                   /* names an IDN this drive lacks */
    return 0;
}

static size_t write_req(struct sim_esc *e, const struct ecat_soe_msg *m, uint8_t *r, size_t cap)
{
    struct esc_soe *s = e->soe;
    if (!s->in_busy) {
        s->in_busy = true;
        s->in_len = 0;
        s->in_overflow = false;
    }
    if (m->len > sizeof s->in - s->in_len)
        s->in_overflow = true;
    else if (m->len)
        memcpy(s->in + s->in_len, m->data, m->len);
    s->in_len += m->len;
    if (m->incomplete) {
        s->n_frag_in++;
        return 0;                                /* fragments are not answered */
    }
    s->in_busy = false;
    int i = find(m->idn);
    uint16_t code = 0;
    if (i < 0)
        code = SOE_ERR_NO_IDN;
    else if (m->elements != SOE_EL_VALUE)
        code = m->elements & SOE_EL_NAME ? 0x2004 : m->elements & SOE_EL_ATTR ? 0x3004 :
               m->elements & SOE_EL_UNIT ? 0x4004 : m->elements & SOE_EL_MIN ? 0x5004 :
               m->elements & SOE_EL_MAX ? 0x6004 : m->elements & SOE_EL_DEFAULT ? 0x8004 :
               SOE_ERR_NO_ELEMENT;
    else if (s->in_overflow || s->in_len > ESC_SOE_VAL_MAX)
        code = SOE_ERR_TOO_LONG;
    else
        code = check_write(e, i, s->in, s->in_len);
    if (code)
        return refuse(e, r, cap, m, SOE_OP_WRITE_RES, code);
    memcpy(s->val[i], s->in, s->in_len);
    s->len[i] = (uint16_t)s->in_len;
    s->n_write++;
    return answer(e, r, cap, SOE_OP_WRITE_RES, 0, m->drive, m->elements, m->idn, NULL, 0);
}

size_t esc_soe_request(struct sim_esc *e, const uint8_t *msg, size_t len, uint8_t *r, size_t cap)
{
    struct ecat_soe_msg m;
    if (!esc_soe_get(e) || ecat_soe_decode(msg, len, &m) < 0)
        return 0;
    e->soe->out_len = e->soe->out_off = 0;       /* a new request ends an old response */
    e->soe->out_op = 0;
    if (m.op != SOE_OP_READ_REQ && m.op != SOE_OP_WRITE_REQ) {
        uint8_t op = m.op == SOE_OP_WRITE_RES ? SOE_OP_WRITE_RES : SOE_OP_READ_RES;
        return refuse(e, r, cap, &m, op, SOE_ERR_GENERAL);
    }
    uint8_t op = m.op == SOE_OP_READ_REQ ? SOE_OP_READ_RES : SOE_OP_WRITE_RES;
    if (m.drive != 0)
        return refuse(e, r, cap, &m, op, SOE_ERR_DRIVE);
    if (!m.elements)
        return refuse(e, r, cap, &m, op, SOE_ERR_NO_ELEMENT);
    return m.op == SOE_OP_READ_REQ ? read_req(e, &m, r, cap) : write_req(e, &m, r, cap);
}
