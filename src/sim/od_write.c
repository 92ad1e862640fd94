/* Writes into the object dictionary with CoE checks: length, value range, and the PDO
 * mapping / assignment rules (ETG.1000.6 5.6.7.4; CiA 301 7.5.2.35-36); complete access. */
#include <string.h>
#include "sim/od.h"
#include "util/wire.h"

static bool is_mapping(uint16_t i) { return (i >= 0x1600 && i <= 0x17FF) || (i >= 0x1A00 && i <= 0x1BFF); }
static bool is_assign(uint16_t i)  { return i >= 0x1C10 && i <= 0x1C2F; }

/* Mapping entry value index<<16 | sub<<8 | bits: the object must exist, be mappable in
 * this PDO's direction and have exactly that length; index 0 is a gap. */
static uint32_t check_map_entry(const struct sim_od *od, uint16_t pdo, uint32_t v)
{
    uint16_t index = (uint16_t)(v >> 16);
    uint8_t sub = (uint8_t)(v >> 8), bits = (uint8_t)v;
    if (!bits)
        return 0x06090030;            /* value range */
    if (!index)
        return 0;
    const struct od_entry *e = od_find_entry(od, index, sub);
    uint16_t need = pdo < 0x1A00 ? OD_RXPDO : OD_TXPDO;
    if (!e || !(e->access & need))
        return 0x06040041;            /* object cannot be mapped into the PDO */
    if (e->bits != bits)
        return 0x06040043;            /* general parameter incompatibility */
    return 0;
}

static unsigned entries_after_sub0(const struct od_object *o)
{
    return o->n && o->e[0].sub == 0 ? o->n - 1 : o->n;
}

/* sub0 = n of a mapping object: the first n entries must be set, their total within
 * the PDO limit (0x06040042 PDO length exceeded). */
static uint32_t check_map_sub0(const struct sim_od *od, const struct od_object *o, unsigned n,
                               const struct od_rules *r)
{
    unsigned bits = 0;
    if (n > entries_after_sub0(o))
        return 0x06090031;            /* value too high */
    for (unsigned k = 1; k <= n; k++) {
        const struct od_entry *e = od_entry(o, (uint8_t)k);
        uint32_t v = e ? (uint32_t)od_get(e) : 0;
        if (!v)
            return 0x06040043;
        uint32_t rc = check_map_entry(od, o->index, v);
        if (rc)
            return rc;
        bits += v & 0xFF;
    }
    if (r->max_pdo_bits && bits > r->max_pdo_bits)
        return 0x06040042;
    return 0;
}

/* Assigned PDOs must be mapping objects of the SM's direction (outputs: 0x16xx). */
static uint32_t check_assign_entry(const struct sim_od *od, uint16_t assign, uint16_t pdo)
{
    const struct od_object *p = od_find(od, pdo);
    bool rx = pdo >= 0x1600 && pdo <= 0x17FF, tx = pdo >= 0x1A00 && pdo <= 0x1BFF;
    uint16_t want_rx = od_get_u(od, 0x1C00, (uint8_t)(assign - 0x1C10 + 1)) == 3;
    if (!p || !(rx || tx) || (od_find(od, 0x1C00) && rx != want_rx))
        return 0x06090030;            /* value range of parameter exceeded */
    return 0;
}

static uint32_t check_assign_sub0(const struct sim_od *od, const struct od_object *o, unsigned n)
{
    if (n > entries_after_sub0(o))
        return 0x06090031;
    for (unsigned k = 1; k <= n; k++) {
        const struct od_entry *e = od_entry(o, (uint8_t)k);
        uint32_t rc = check_assign_entry(od, o->index, e ? (uint16_t)od_get(e) : 0);
        if (rc)
            return rc;
    }
    return 0;
}

static uint32_t check_pdo_rules(struct sim_od *od, struct od_object *o, struct od_entry *e,
                                uint64_t v, const struct od_rules *r)
{
    bool map = is_mapping(o->index), asg = is_assign(o->index);
    if (!map && !asg)
        return 0;
    if ((map && !r->pdo_config) || (asg && !r->pdo_assign))
        return 0x06010002;            /* fixed: read only */
    if (e->sub == 0)
        return map ? check_map_sub0(od, o, (unsigned)v, r) : check_assign_sub0(od, o, (unsigned)v);
    if (od_max_sub(o) != 0)
        return 0x06010003;            /* sub 0 must be 0 before entries change */
    return map ? check_map_entry(od, o->index, (uint32_t)v) : check_assign_entry(od, o->index, (uint16_t)v);
}

uint32_t od_write(struct sim_od *od, struct od_object *o, struct od_entry *e,
                  const uint8_t *data, size_t len, const struct od_rules *r)
{
    size_t need = od_bytes(e);
    bool str = e->dtype == OD_VSTRING || e->dtype == OD_OSTRING;
    if (len > need)
        return 0x06070012;
    if (len < need && !str)
        return 0x06070013;
    uint64_t v = 0;
    for (size_t i = 0; i < len && i < 8; i++)
        v |= (uint64_t)data[i] << (8 * i);
    if (!str && e->bits < 8 && v >> e->bits)
        return 0x06090030;            /* BOOL/BITn beyond its width */
    if (e->sub == 0 && o->code != OD_VAR && v > OD_MAX_SUB)
        return 0x06090031;
    uint32_t rc = check_pdo_rules(od, o, e, v, r);
    if (rc)
        return rc;
    memset(e->val, 0, need ? need : 1);
    memcpy(e->val, data, len);
    return 0;
}

static size_t ca_start(const struct od_object *o, uint8_t from)
{
    if (from == 0)
        return 0;
    const struct od_entry *e = od_entry(o, from);
    return e ? e->bitoff : 16;
}

/* Bytes of the image of subindices from..upto (sub0 counts as 16 bits). */
static size_t ca_size_upto(const struct od_object *o, uint8_t from, unsigned upto)
{
    unsigned end = 0, start = (unsigned)ca_start(o, from);
    for (unsigned i = 0; i < o->n; i++) {
        const struct od_entry *e = &o->e[i];
        if (e->sub < from || e->sub > upto || (e->sub && e->bitoff < start))
            continue;                 /* (a layout that wrapped 16 bits is cut off) */
        unsigned stop = e->sub == 0 && o->code != OD_VAR ? 16 : e->bitoff + e->bits;
        if (stop > end)
            end = stop;
    }
    return end > start ? (end - start + 7) / 8 : 0;
}

/* An upload covers the entries up to the current value of sub 0 (the valid ones). */
size_t od_ca_size(const struct od_object *o, uint8_t from)
{
    return ca_size_upto(o, from, o->code == OD_VAR ? 0 : od_max_sub(o));
}

size_t od_ca_read(const struct od_object *o, uint8_t from, uint8_t *buf, size_t cap)
{
    size_t n = od_ca_size(o, from);
    unsigned start = (unsigned)ca_start(o, from);
    if (n > cap)
        return n;
    memset(buf, 0, n);
    unsigned upto = o->code == OD_VAR ? 0 : od_max_sub(o);
    for (unsigned i = 0; i < o->n; i++) {
        const struct od_entry *e = &o->e[i];
        if (e->sub >= from && e->sub <= upto && e->bitoff >= start &&
            e->bitoff - start + e->bits <= 8 * n)
            od_bitcopy(buf, e->bitoff - start, e->val, 0, e->bits);
    }
    return n;
}

/* Complete access download: for mapping and assignment objects this is the sequence
 * "sub0 = 0, entries, sub0 = n" with all checks; on failure nothing changes. */
uint32_t od_ca_write(struct sim_od *od, struct od_object *o, uint8_t from,
                     const uint8_t *data, size_t len, const struct od_rules *r)
{
    unsigned start = (unsigned)ca_start(o, from);
    uint8_t saved[8 * 64];
    size_t total = 0;
    for (unsigned i = 0; i < o->n; i++)
        total += od_bytes(&o->e[i]) ? od_bytes(&o->e[i]) : 1;
    if (total > sizeof saved)
        return 0x06010004;            /* too large for complete access here */
    bool seq = is_mapping(o->index) || is_assign(o->index);
    unsigned n_new = seq && from == 0 && len ? data[0] : od_max_sub(o);
    if (len > ca_size_upto(o, from, n_new))
        return 0x06070012;
    uint8_t *p = saved;
    for (unsigned i = 0; i < o->n; i++) {
        size_t b = od_bytes(&o->e[i]) ? od_bytes(&o->e[i]) : 1;
        memcpy(p, o->e[i].val, b);
        p += b;
    }
    uint32_t rc = 0;
    struct od_entry *sub0 = seq ? od_entry(o, 0) : NULL;
    if (sub0 && from == 0) {
        uint8_t z = 0;
        rc = od_write(od, o, sub0, &z, 1, r);
    }
    for (unsigned i = 0; !rc && i < o->n; i++) {
        struct od_entry *e = &o->e[i];
        if (e->sub == 0 || e->sub < from)
            continue;
        if (e->sub > n_new && o->code != OD_VAR)
            break;                    /* entries beyond n are not part of the image */
        if (e->bitoff < start)
            continue;                 /* a layout that wrapped 16 bits: not reachable */
        if (e->bitoff + e->bits - start > 8 * len) {
            rc = 0x06070013;          /* data too short for the announced entries */
            break;
        }
        if (!(e->access & OD_W_ALL))
            continue;
        uint8_t tmp[8] = { 0 };
        size_t b = od_bytes(e);
        if (b > sizeof tmp) {         /* strings and blobs: byte-aligned in the image */
            if ((e->bitoff - start) % 8 || (e->bitoff - start) / 8 + b > len) {
                rc = 0x06040047;
                break;
            }
            memcpy(e->val, data + (e->bitoff - start) / 8, b);
            continue;
        }
        od_bitcopy(tmp, 0, data, e->bitoff - start, e->bits);
        rc = od_write(od, o, e, tmp, b, r);
    }
    if (!rc && sub0 && from == 0) {
        uint8_t nb = (uint8_t)n_new;
        rc = od_write(od, o, sub0, &nb, 1, r);
    }
    if (rc) {                         /* roll back */
        p = saved;
        for (unsigned i = 0; i < o->n; i++) {
            size_t b = od_bytes(&o->e[i]) ? od_bytes(&o->e[i]) : 1;
            memcpy(o->e[i].val, p, b);
            p += b;
        }
    }
    return rc;
}
