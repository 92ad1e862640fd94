/* POWERLINK object dictionary: sorted entry table over a caller-given pool, typed
 * little-endian values, access and range checks that yield SDO abort codes. */
#include <errno.h>
#include <string.h>
#include "plk/od.h"
#include "util/wire.h"

unsigned plk_od_type_size(uint8_t type)
{
    switch (type) {
    case PLK_OT_BOOL: case PLK_OT_I8: case PLK_OT_U8:   return 1;
    case PLK_OT_I16: case PLK_OT_U16:                   return 2;
    case PLK_OT_I32: case PLK_OT_U32: case PLK_OT_REAL32: return 4;
    case PLK_OT_I64: case PLK_OT_U64: case PLK_OT_REAL64: return 8;
    default:                                            return 0;
    }
}

static bool type_signed(uint8_t type)
{
    return type == PLK_OT_I8 || type == PLK_OT_I16 || type == PLK_OT_I32 || type == PLK_OT_I64;
}

static bool type_buf(uint8_t type)
{
    return type == PLK_OT_VSTRING || type == PLK_OT_OSTRING || type == PLK_OT_DOMAIN;
}

static uint64_t get_val(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_val(uint8_t *p, unsigned size, uint64_t v)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int64_t as_signed(uint64_t v, unsigned size)
{
    if (size >= 8)
        return (int64_t)v;
    uint64_t sign = 1ull << (size * 8 - 1);
    return (int64_t)((v ^ sign) - sign);
}

void plk_od_init(struct plk_od *od, struct plk_od_entry *entries, unsigned cap,
                 uint8_t *pool, size_t pool_cap)
{
    memset(od, 0, sizeof *od);
    od->entries = entries;
    od->cap = cap;
    od->pool = pool;
    od->pool_cap = pool_cap;
}

void plk_od_set_hook(struct plk_od *od, plk_od_write_hook hook, void *ctx)
{
    od->hook = hook;
    od->hook_ctx = ctx;
}

static uint32_t key(uint16_t index, uint8_t sub) { return (uint32_t)index << 8 | sub; }

/* Position of the first entry with key >= k. */
static unsigned lower_bound(const struct plk_od *od, uint32_t k)
{
    unsigned lo = 0, hi = od->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (key(od->entries[mid].index, od->entries[mid].sub) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct plk_od_entry *plk_od_find(const struct plk_od *od, uint16_t index, uint8_t sub)
{
    unsigned i = lower_bound(od, key(index, sub));
    if (i < od->n && od->entries[i].index == index && od->entries[i].sub == sub)
        return &od->entries[i];
    return NULL;
}

bool plk_od_has_index(const struct plk_od *od, uint16_t index)
{
    unsigned i = lower_bound(od, key(index, 0));
    return i < od->n && od->entries[i].index == index;
}

/* Insert keeping the table sorted; setup time only, so the memmove is fine. */
static struct plk_od_entry *insert(struct plk_od *od, uint16_t index, uint8_t sub,
                                   uint32_t cap, int *rc)
{
    unsigned i = lower_bound(od, key(index, sub));
    if (i < od->n && od->entries[i].index == index && od->entries[i].sub == sub) {
        *rc = -EEXIST;
        return NULL;
    }
    if (od->n >= od->cap || od->pool_used + cap > od->pool_cap) {
        *rc = -ENOSPC;
        return NULL;
    }
    memmove(&od->entries[i + 1], &od->entries[i], (od->n - i) * sizeof od->entries[0]);
    od->n++;
    struct plk_od_entry *e = &od->entries[i];
    memset(e, 0, sizeof *e);
    e->index = index;
    e->sub = sub;
    e->cap = cap;
    e->data = od->pool + od->pool_used;
    od->pool_used += cap;
    memset(e->data, 0, cap);
    e->min = 1;
    e->max = 0;                /* no range */
    *rc = 0;
    return e;
}

int plk_od_add(struct plk_od *od, uint16_t index, uint8_t sub, uint8_t type,
               uint8_t access, uint64_t def)
{
    unsigned size = plk_od_type_size(type);
    if (!size)
        return -EINVAL;
    int rc;
    struct plk_od_entry *e = insert(od, index, sub, size, &rc);
    if (!e)
        return rc;
    e->type = type;
    e->access = access;
    e->size = size;
    e->def = def;
    put_val(e->data, size, def);
    return 0;
}

int plk_od_add_buf(struct plk_od *od, uint16_t index, uint8_t sub, uint8_t type,
                   uint8_t access, uint32_t cap, const void *init, uint32_t init_len)
{
    if (!type_buf(type) || init_len > cap || (init_len && !init))
        return -EINVAL;
    int rc;
    struct plk_od_entry *e = insert(od, index, sub, cap, &rc);
    if (!e)
        return rc;
    e->type = type;
    e->access = access;
    e->size = init_len;
    if (init_len)
        memcpy(e->data, init, init_len);
    return 0;
}

int plk_od_set_range(struct plk_od *od, uint16_t index, uint8_t sub, int64_t min, int64_t max)
{
    struct plk_od_entry *e = plk_od_find(od, index, sub);
    if (!e || type_buf(e->type))
        return -ENOENT;
    e->min = min;
    e->max = max;
    return 0;
}

int plk_od_add_array(struct plk_od *od, uint16_t index, uint8_t n, uint8_t sub0_access,
                     uint8_t type, uint8_t access, uint64_t def)
{
    int rc = plk_od_add(od, index, 0, PLK_OT_U8, sub0_access, n);
    if (rc)
        return rc;
    plk_od_set_range(od, index, 0, 0, n);
    for (unsigned s = 1; s <= n; s++)
        if ((rc = plk_od_add(od, index, (uint8_t)s, type, access, def)))
            return rc;
    return 0;
}

/* Absent entry: which abort code (object vs. subindex). */
static int missing(const struct plk_od *od, uint16_t index, uint32_t *abort)
{
    *abort = plk_od_has_index(od, index) ? PLK_ABORT_NO_SUBINDEX : PLK_ABORT_NO_OBJECT;
    return -ENOENT;
}

int plk_od_read(const struct plk_od *od, uint16_t index, uint8_t sub,
                void *buf, size_t cap, size_t *len, uint32_t *abort)
{
    uint32_t dummy;
    if (!abort)
        abort = &dummy;
    *abort = 0;
    *len = 0;
    const struct plk_od_entry *e = plk_od_find(od, index, sub);
    if (!e)
        return missing(od, index, abort);
    if (!(e->access & PLK_OA_READ)) {
        *abort = PLK_ABORT_WRITE_ONLY;
        return -EPERM;
    }
    if (e->size > cap) {
        *abort = PLK_ABORT_LENGTH_HIGH;
        return -EMSGSIZE;
    }
    memcpy(buf, e->data, e->size);
    *len = e->size;
    return 0;
}

static int check_range(const struct plk_od_entry *e, uint64_t v, uint32_t *abort)
{
    if (e->min > e->max)
        return 0;
    unsigned size = plk_od_type_size(e->type);
    bool low, high;
    if (type_signed(e->type)) {
        int64_t s = as_signed(v, size);
        low = s < e->min;
        high = s > e->max;
    } else {
        low = e->min > 0 && v < (uint64_t)e->min;
        high = e->max >= 0 && v > (uint64_t)e->max;
    }
    if (low || high) {
        *abort = high ? PLK_ABORT_VALUE_HIGH : PLK_ABORT_VALUE_LOW;
        return -ERANGE;
    }
    return 0;
}

static int store(struct plk_od *od, struct plk_od_entry *e, const void *data, size_t len,
                 uint32_t *abort)
{
    unsigned size = plk_od_type_size(e->type);
    if (size) {
        if (len != size) {
            *abort = len > size ? PLK_ABORT_LENGTH_HIGH : PLK_ABORT_LENGTH_LOW;
            return -EMSGSIZE;
        }
        int rc = check_range(e, get_val(data, size), abort);
        if (rc)
            return rc;
    } else if (len > e->cap) {
        *abort = PLK_ABORT_LENGTH_HIGH;
        return -EMSGSIZE;
    }
    if (len)
        memcpy(e->data, data, len);
    if (!size)
        e->size = (uint32_t)len;
    if (od->hook)
        od->hook(od->hook_ctx, od, e);
    return 0;
}

int plk_od_write(struct plk_od *od, uint16_t index, uint8_t sub,
                 const void *data, size_t len, uint32_t *abort)
{
    uint32_t dummy;
    if (!abort)
        abort = &dummy;
    *abort = 0;
    struct plk_od_entry *e = plk_od_find(od, index, sub);
    if (!e)
        return missing(od, index, abort);
    if (!(e->access & PLK_OA_WRITE) || (e->access & PLK_OA_CONST_FLAG)) {
        *abort = PLK_ABORT_READ_ONLY;
        return -EPERM;
    }
    return store(od, e, data, len, abort);
}

int plk_od_get_u64(const struct plk_od *od, uint16_t index, uint8_t sub, uint64_t *v)
{
    const struct plk_od_entry *e = plk_od_find(od, index, sub);
    if (!e)
        return -ENOENT;
    unsigned size = plk_od_type_size(e->type);
    if (!size)
        return -EINVAL;
    *v = get_val(e->data, size);
    if (type_signed(e->type))
        *v = (uint64_t)as_signed(*v, size);
    return 0;
}

int plk_od_set_u64(struct plk_od *od, uint16_t index, uint8_t sub, uint64_t v)
{
    struct plk_od_entry *e = plk_od_find(od, index, sub);
    if (!e)
        return -ENOENT;
    unsigned size = plk_od_type_size(e->type);
    if (!size || (e->access & PLK_OA_CONST_FLAG))
        return -EINVAL;
    put_val(e->data, size, v);
    if (od->hook)
        od->hook(od->hook_ctx, od, e);
    return 0;
}

uint32_t plk_od_u32(const struct plk_od *od, uint16_t index, uint8_t sub, uint32_t def)
{
    uint64_t v;
    return plk_od_get_u64(od, index, sub, &v) == 0 ? (uint32_t)v : def;
}

void plk_od_reset_defaults(struct plk_od *od)
{
    for (unsigned i = 0; i < od->n; i++) {
        struct plk_od_entry *e = &od->entries[i];
        unsigned size = plk_od_type_size(e->type);
        if (size)
            put_val(e->data, size, e->def);
        else
            e->size = 0;
    }
}
