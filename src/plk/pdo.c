/* PDO mapping: decoded 0x1600/0x1A00 entries -> a copy list built once, so the cycle
 * only runs memcpy between frame payload and object storage (EPSG DS 301 6.4). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plk/pdo.h"
#include "plk/od.h"
#include <takt/plk.h>

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

int plk_pdo_build(struct plk_pdo_map *m, const struct plk_pdo_entry *e, unsigned n,
                  uint16_t payload_limit, plk_pdo_resolve_fn resolve, void *ctx,
                  char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (n > PLK_PDO_MAX_ENTRIES)
        return fail(err, errlen, -EINVAL, "%u mapping entries, at most %d supported",
                    n, PLK_PDO_MAX_ENTRIES);
    for (unsigned i = 0; i < n; i++) {
        const struct plk_pdo_entry *x = &e[i];
        if (x->bit_len == 0)
            continue;          /* an unused entry (oplk skips zero lengths too) */
        bool bits = plk_pdo_entry_is_bits(x);
        if (!bits && x->bit_offset % 8)
            return fail(err, errlen, -EINVAL,
                        "mapping entry %u (0x%04X/%u): bit offset %u for a whole-byte object "
                        "of %u bits: whole-byte entries need bit offsets in multiples of 8",
                        i + 1, x->index, x->sub, x->bit_offset, x->bit_len);
        if (bits && x->bit_len > 63)
            return fail(err, errlen, -EINVAL,
                        "mapping entry %u (0x%04X/%u): %u bits, expected at most 63 for a "
                        "bit-packed entry", i + 1, x->index, x->sub, x->bit_len);
        uint32_t off = x->bit_offset / 8u, len = (x->bit_len + 7u) / 8u;
        uint32_t end = plk_pdo_entry_end(x);
        if (end > payload_limit)
            return fail(err, errlen, -EMSGSIZE,
                        "mapping entry %u (0x%04X/%u): bytes %u..%u exceed the payload "
                        "limit of %u", i + 1, x->index, x->sub, off, end - 1, payload_limit);
        uint32_t abort = 0;
        uint8_t *obj = resolve(ctx, x->index, x->sub, (uint16_t)len, &abort);
        if (!obj)
            return fail(err, errlen, -ENOENT,
                        "mapping entry %u: object 0x%04X/%u cannot be mapped with %u bytes "
                        "(abort 0x%08X)", i + 1, x->index, x->sub, len, abort);
        struct plk_pdo_copy *c = &m->copy[m->n++];
        c->frame_off = (uint16_t)off;
        c->len = (uint16_t)len;
        c->bit_off = bits ? x->bit_offset : 0;
        c->bit_len = bits ? (uint8_t)x->bit_len : 0;
        c->obj = obj;
        if (end > m->size)
            m->size = (uint16_t)end;
    }
    return 0;
}

static uint8_t *resolve_od(void *ctx, uint16_t index, uint8_t sub, uint16_t bytes,
                           uint32_t *abort)
{
    struct plk_od *od = ctx;
    struct plk_od_entry *e = plk_od_find(od, index, sub);
    if (!e) {
        *abort = plk_od_has_index(od, index) ? PLK_ABORT_NO_SUBINDEX : PLK_ABORT_NO_OBJECT;
        return NULL;
    }
    if (!(e->access & PLK_OA_PDO)) {
        *abort = PLK_ABORT_NOT_MAPPABLE;
        return NULL;
    }
    if (bytes > e->cap) {
        *abort = PLK_ABORT_PDO_TOO_LONG;
        return NULL;
    }
    return e->data;
}

int plk_pdo_build_od(struct plk_pdo_map *m, struct plk_od *od, uint16_t comm_index,
                     uint16_t map_index, uint16_t payload_limit, char *err, size_t errlen)
{
    uint64_t count, v;
    struct plk_pdo_entry e[PLK_PDO_MAX_ENTRIES];
    if (plk_od_get_u64(od, map_index, 0, &count))
        return fail(err, errlen, -ENOENT, "mapping object 0x%04X/0 missing", map_index);
    if (count > PLK_PDO_MAX_ENTRIES)
        return fail(err, errlen, -EINVAL, "mapping object 0x%04X/0 = %llu, at most %d",
                    map_index, (unsigned long long)count, PLK_PDO_MAX_ENTRIES);
    for (unsigned i = 0; i < count; i++) {
        if (plk_od_get_u64(od, map_index, (uint8_t)(i + 1), &v))
            return fail(err, errlen, -ENOENT, "mapping object 0x%04X/%u missing", map_index, i + 1);
        e[i] = plk_pdo_entry_decode(v);
    }
    int rc = plk_pdo_build(m, e, (unsigned)count, payload_limit, resolve_od, od, err, errlen);
    if (rc)
        return rc;
    if (plk_od_get_u64(od, comm_index, 1, &v) == 0)
        m->node = (uint8_t)v;
    if (plk_od_get_u64(od, comm_index, 2, &v) == 0)
        m->version = (uint8_t)v;
    return 0;
}

uint64_t plk_pdo_get_bits(const uint8_t *buf, unsigned bit_off, unsigned bit_len)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bit_len && i < 64; i++) {
        unsigned b = bit_off + i;
        v |= (uint64_t)((buf[b / 8] >> (b % 8)) & 1u) << i;
    }
    return v;
}

void plk_pdo_put_bits(uint8_t *buf, unsigned bit_off, unsigned bit_len, uint64_t v)
{
    for (unsigned i = 0; i < bit_len && i < 64; i++) {
        unsigned b = bit_off + i;
        uint8_t mask = (uint8_t)(1u << (b % 8));
        buf[b / 8] = (uint8_t)((v >> i) & 1u ? buf[b / 8] | mask : buf[b / 8] & ~mask);
    }
}

/* An object's value, little-endian in its c->len bytes. */
static uint64_t obj_get(const struct plk_pdo_copy *c)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < c->len && i < 8; i++)
        v |= (uint64_t)c->obj[i] << (8 * i);
    return v;
}

static void obj_put(const struct plk_pdo_copy *c, uint64_t v)
{
    for (unsigned i = 0; i < c->len && i < 8; i++)
        c->obj[i] = (uint8_t)(v >> (8 * i));
}

void plk_pdo_to_frame(const struct plk_pdo_map *m, uint8_t *payload)
{
    for (unsigned i = 0; i < m->n; i++) {
        const struct plk_pdo_copy *c = &m->copy[i];
        if (c->bit_len)
            plk_pdo_put_bits(payload, c->bit_off, c->bit_len, obj_get(c));
        else
            memcpy(payload + c->frame_off, c->obj, c->len);
    }
}

int plk_pdo_from_frame(const struct plk_pdo_map *m, const uint8_t *payload, size_t len)
{
    if (len < m->size)
        return -EMSGSIZE;
    for (unsigned i = 0; i < m->n; i++) {
        const struct plk_pdo_copy *c = &m->copy[i];
        if (c->bit_len)
            obj_put(c, plk_pdo_get_bits(payload, c->bit_off, c->bit_len));
        else
            memcpy(c->obj, payload + c->frame_off, c->len);
    }
    return 0;
}

static bool bits_in(size_t len, unsigned bit_off, unsigned bit_len)
{
    return bit_len >= 1 && bit_len <= 64 && (uint64_t)bit_off + bit_len <= (uint64_t)len * 8u;
}

int takt_plk_get_bits(const uint8_t *img, size_t len, unsigned bit_off, unsigned bit_len,
                      uint64_t *v)
{
    if (!img || !v || !bits_in(len, bit_off, bit_len))
        return -ERANGE;
    *v = plk_pdo_get_bits(img, bit_off, bit_len);
    return 0;
}

int takt_plk_set_bits(uint8_t *img, size_t len, unsigned bit_off, unsigned bit_len, uint64_t v)
{
    if (!img || !bits_in(len, bit_off, bit_len))
        return -ERANGE;
    plk_pdo_put_bits(img, bit_off, bit_len, v);
    return 0;
}
