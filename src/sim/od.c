/* Object dictionary storage and lookup for simulated devices: objects sorted by index,
 * entries with typed little-endian values, data type table (ETG.1000.6 5.6). */
#include "sim/od.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ecat/proto.h"
#include "util/wire.h"

void od_init(struct sim_od *od)
{
    memset(od, 0, sizeof *od);
}

static bool in_block(const struct sim_od *od, const uint8_t *p)
{
    return od->block && p >= od->block && p < od->block + od->block_len;
}

void od_free(struct sim_od *od)
{
    for (unsigned i = 0; i < od->n; i++) {
        struct od_object *o = &od->obj[i];
        for (unsigned k = 0; k < o->n; k++)
            if (!in_block(od, o->e[k].val))
                free(o->e[k].val);
        free(o->e);
    }
    free(od->obj);
    if (od->block_owned)
        free(od->block);
    od_init(od);
}

static size_t val_size(const struct od_entry *e)
{
    return e->bits ? (e->bits + 7u) / 8u : 1;
}

int od_compact(struct sim_od *od, uint8_t *buf, size_t cap)
{
    size_t total = 0;
    for (unsigned i = 0; i < od->n; i++)
        for (unsigned k = 0; k < od->obj[i].n; k++)
            total += val_size(&od->obj[i].e[k]);
    bool own = !buf || total > cap;
    uint8_t *b = own ? malloc(total ? total : 1) : buf, *p = b;
    if (!b)
        return -ENOMEM;
    for (int pass = 0; pass < 2; pass++)       /* mappable entries first */
        for (unsigned i = 0; i < od->n; i++)
            for (unsigned k = 0; k < od->obj[i].n; k++) {
                struct od_entry *e = &od->obj[i].e[k];
                bool hot = e->access & (OD_RXPDO | OD_TXPDO);
                if (hot != !pass)
                    continue;
                memcpy(p, e->val, val_size(e));
                if (!in_block(od, e->val))
                    free(e->val);
                e->val = p;
                p += val_size(e);
            }
    if (od->block_owned)
        free(od->block);
    od->block = b;
    od->block_len = total;
    od->block_owned = own;
    return 0;
}

int od_clone(struct sim_od *dst, const struct sim_od *src)
{
    od_init(dst);
    for (unsigned i = 0; i < src->n; i++) {
        const struct od_object *s = &src->obj[i];
        struct od_object *o = od_add_object(dst, s->index, s->code, s->dtype, s->name);
        if (!o)
            goto nomem;
        o->fault_abort = s->fault_abort;
        for (unsigned k = 0; k < s->n; k++) {
            const struct od_entry *se = &s->e[k];
            struct od_entry *e = od_add_entry(o, se->sub, se->dtype, se->bits, se->access, se->name);
            if (!e)
                goto nomem;
            e->bitoff = se->bitoff;
            memcpy(e->val, se->val, od_bytes(se) ? od_bytes(se) : 1);
        }
    }
    return 0;
nomem:
    od_free(dst);
    return -ENOMEM;
}

struct od_object *od_add_object(struct sim_od *od, uint16_t index, uint8_t code,
                                uint16_t dtype, const char *name)
{
    unsigned pos = 0;
    while (pos < od->n && od->obj[pos].index < index)
        pos++;
    if (pos < od->n && od->obj[pos].index == index)
        return NULL;
    if (od->n == od->cap) {
        unsigned cap = od->cap ? od->cap * 2 : 32;
        struct od_object *p = realloc(od->obj, cap * sizeof *p);
        if (!p)
            return NULL;
        od->obj = p;
        od->cap = cap;
    }
    memmove(&od->obj[pos + 1], &od->obj[pos], (od->n - pos) * sizeof od->obj[0]);
    od->n++;
    struct od_object *o = &od->obj[pos];
    memset(o, 0, sizeof *o);
    o->index = index;
    o->code = code;
    o->dtype = dtype;
    strncpy(o->name, name ? name : "", OD_NAME - 1);
    return o;
}

struct od_entry *od_add_entry(struct od_object *o, uint8_t sub, uint16_t dtype, uint16_t bits,
                              uint16_t access, const char *name)
{
    unsigned pos = 0;
    while (pos < o->n && o->e[pos].sub < sub)
        pos++;
    if (pos < o->n && o->e[pos].sub == sub)
        return NULL;
    struct od_entry *p = realloc(o->e, (o->n + 1) * sizeof *p);
    if (!p)
        return NULL;
    o->e = p;
    uint8_t *val = calloc(1, bits ? (bits + 7u) / 8u : 1);
    if (!val)
        return NULL;
    memmove(&o->e[pos + 1], &o->e[pos], (o->n - pos) * sizeof o->e[0]);
    o->n++;
    struct od_entry *e = &o->e[pos];
    memset(e, 0, sizeof *e);
    e->sub = sub;
    e->dtype = dtype;
    e->bits = bits;
    e->access = access;
    e->val = val;
    strncpy(e->name, name ? name : "", OD_NAME - 1);
    return e;
}

struct od_entry *od_add_var(struct sim_od *od, uint16_t index, const char *name, uint16_t dtype,
                            uint16_t bits, uint16_t access, uint64_t value)
{
    struct od_object *o = od_add_object(od, index, OD_VAR, dtype, name);
    if (!o)
        return NULL;
    struct od_entry *e = od_add_entry(o, 0, dtype, bits, access, name);
    if (e)
        od_set(e, value);
    return e;
}

void od_layout(struct od_object *o)
{
    unsigned off = 0;
    for (unsigned i = 0; i < o->n; i++) {
        struct od_entry *e = &o->e[i];
        if (e->sub == 0 && o->code != OD_VAR) {
            e->bitoff = 0;
            off = 16;             /* sub 0 occupies 16 bits (ETG.1000.6 complete access) */
            continue;
        }
        if (e->bits >= 8 && off % 8)
            off = (off + 7) & ~7u;
        e->bitoff = (uint16_t)off;
        off += e->bits;
    }
}

struct od_object *od_find(const struct sim_od *od, uint16_t index)
{
    unsigned lo = 0, hi = od->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (od->obj[mid].index == index)
            return &od->obj[mid];
        if (od->obj[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct od_entry *od_entry(const struct od_object *o, uint8_t sub)
{
    for (unsigned i = 0; i < o->n; i++)
        if (o->e[i].sub == sub)
            return &o->e[i];
    return NULL;
}

struct od_entry *od_find_entry(const struct sim_od *od, uint16_t index, uint8_t sub)
{
    struct od_object *o = od_find(od, index);
    return o ? od_entry(o, sub) : NULL;
}

uint64_t od_get(const struct od_entry *e)
{
    uint64_t v = 0;
    unsigned n = od_bytes(e);
    if (n > 8)
        n = 8;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)e->val[i] << (8 * i);
    if (e->bits < 64)
        v &= (1ull << e->bits) - 1;
    return v;
}

void od_set(struct od_entry *e, uint64_t v)
{
    unsigned n = od_bytes(e);
    if (n > 8)
        n = 8;
    for (unsigned i = 0; i < n; i++)
        e->val[i] = (uint8_t)(v >> (8 * i));
}

uint64_t od_get_u(const struct sim_od *od, uint16_t index, uint8_t sub)
{
    const struct od_entry *e = od_find_entry(od, index, sub);
    return e ? od_get(e) : 0;
}

void od_set_u(const struct sim_od *od, uint16_t index, uint8_t sub, uint64_t v)
{
    struct od_entry *e = od_find_entry(od, index, sub);
    if (e)
        od_set(e, v);
}

uint8_t od_max_sub(const struct od_object *o)
{
    if (o->code == OD_VAR || !o->n || o->e[0].sub != 0)
        return 0;
    return o->e[0].val[0];
}

/* ETG.1000.6 Table 64 names as used in ESI <Type> elements */
static const struct { const char *name; uint16_t type, bits; } types[] = {
    { "BOOL", OD_BOOL, 1 }, { "BIT", OD_BOOL, 1 }, { "SINT", OD_SINT, 8 },
    { "INT", OD_INT, 16 }, { "DINT", OD_DINT, 32 }, { "USINT", OD_USINT, 8 },
    { "UINT", OD_UINT, 16 }, { "UDINT", OD_UDINT, 32 }, { "REAL", OD_REAL, 32 },
    { "LREAL", OD_LREAL, 64 }, { "LINT", OD_LINT, 64 }, { "ULINT", OD_ULINT, 64 },
    { "BYTE", OD_BYTE, 8 }, { "WORD", OD_WORD, 16 }, { "DWORD", OD_DWORD, 32 },
    { "INT8", OD_SINT, 8 }, { "INT16", OD_INT, 16 }, { "INT32", OD_DINT, 32 },
    { "UINT8", OD_USINT, 8 }, { "UINT16", OD_UINT, 16 }, { "UINT32", OD_UDINT, 32 },
};

uint16_t od_type_bits(uint16_t dtype)
{
    if (dtype >= OD_BIT1 && dtype <= OD_BIT8)
        return (uint16_t)(dtype - OD_BIT1 + 1);
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(types); i++)
        if (types[i].type == dtype)
            return types[i].bits;
    return 0;
}

uint16_t od_type_from_name(const char *name, uint16_t *bits)
{
    *bits = 0;
    if (!strncasecmp(name, "STRING(", 7)) {
        *bits = (uint16_t)(8 * strtoul(name + 7, NULL, 10));
        return OD_VSTRING;
    }
    if (!strncasecmp(name, "BIT", 3) && name[3] >= '1' && name[3] <= '8' && !name[4]) {
        *bits = (uint16_t)(name[3] - '0');
        return (uint16_t)(OD_BIT1 + name[3] - '1');
    }
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(types); i++)
        if (!strcasecmp(types[i].name, name)) {
            *bits = types[i].bits;
            return types[i].type;
        }
    return 0;
}

bool od_is_numeric(uint16_t dtype)
{
    return dtype != OD_VSTRING && dtype != OD_OSTRING && dtype != 0x000B && od_type_bits(dtype);
}

uint32_t od_check_access(const struct od_entry *e, bool write, uint8_t al)
{
    unsigned shift = al == AL_OP ? 2 : al == AL_SAFEOP ? 1 : 0;
    unsigned any = write ? OD_W_ALL : OD_R_ALL;
    unsigned need = (write ? OD_W_PREOP : OD_R_PREOP) << shift;
    if (!(e->access & any))
        return write ? 0x06010002 : 0x06010001;
    if (!(e->access & need))
        return 0x08000022;
    return 0;
}
