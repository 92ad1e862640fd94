/* Concise DCF (mnobd.cdc) reader and writer: validate once, iterate in place, apply to
 * an object dictionary (CiA 302-3 concise DCF, oplk obdcdc.c / oplkdefs.h CDC_OFFSET_*). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plk/cdc.h"
#include "plk/od.h"
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

int plk_cdc_parse(struct plk_cdc *c, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!buf || len < PLK_CDC_HDR)
        return fail(err, errlen, -EPROTO, "CDC of %zu bytes, expected at least %d for the "
                    "entry count", len, PLK_CDC_HDR);
    uint32_t count = get_le32(buf);
    if (count == 0)
        return fail(err, errlen, -ENODATA, "CDC entry count at offset 0 is 0 (no "
                    "configuration data)");
    /* every entry takes at least its header: a count the size cannot hold is not a
     * damaged CDC but another file (text reads as a count of about 10^9) */
    size_t most = (len - PLK_CDC_HDR) / PLK_CDC_ENTRY_HDR;
    if (count > most)
        return fail(err, errlen, -EBADMSG, "not a concise DCF: its first 4 bytes give %u entries, "
                    "more than its size allows (%zu bytes hold at most %zu entries of %d bytes "
                    "or more)", count, len, most, PLK_CDC_ENTRY_HDR);
    size_t pos = PLK_CDC_HDR;
    for (uint32_t i = 0; i < count; i++) {
        if (len - pos < PLK_CDC_ENTRY_HDR)
            return fail(err, errlen, -EPROTO, "CDC entry %u of %u at offset %zu: header "
                        "needs %d bytes, only %zu left", i + 1, count, pos,
                        PLK_CDC_ENTRY_HDR, len - pos);
        uint32_t size = get_le32(buf + pos + 3);
        size_t data = pos + PLK_CDC_ENTRY_HDR;
        if (size > len - data)
            return fail(err, errlen, -EPROTO, "CDC entry %u of %u (0x%04X/%u) at offset %zu: "
                        "size %u runs past the end (%zu bytes left)", i + 1, count,
                        get_le16(buf + pos), buf[pos + 2], pos, size, len - data);
        pos = data + size;
    }
    if (pos != len)
        return fail(err, errlen, -EPROTO, "CDC has %zu bytes after its %u entries (offset "
                    "%zu), expected none", len - pos, count, pos);
    c->buf = buf;
    c->len = len;
    c->count = count;
    return 0;
}

void plk_cdc_iter_init(struct plk_cdc_iter *it, const struct plk_cdc *c)
{
    it->cdc = c;
    it->pos = PLK_CDC_HDR;
    it->n = 0;
}

int plk_cdc_next(struct plk_cdc_iter *it, struct plk_cdc_entry *e)
{
    const struct plk_cdc *c = it->cdc;
    if (!c->buf || it->n >= c->count)
        return 0;
    const uint8_t *p = c->buf + it->pos;
    e->index = get_le16(p);
    e->sub = p[2];
    e->size = get_le32(p + 3);
    e->data = p + PLK_CDC_ENTRY_HDR;
    e->offset = it->pos;
    it->pos += PLK_CDC_ENTRY_HDR + e->size;
    it->n++;
    return 1;
}

int plk_cdc_find(const struct plk_cdc *c, uint16_t index, uint8_t sub, struct plk_cdc_entry *e)
{
    struct plk_cdc_iter it;
    struct plk_cdc_entry x;
    int found = -ENOENT;
    plk_cdc_iter_init(&it, c);
    while (plk_cdc_next(&it, &x))
        if (x.index == index && x.sub == sub) {
            *e = x;
            found = 0;
        }
    return found;
}

int plk_cdc_entry_u64(const struct plk_cdc_entry *e, uint64_t *v)
{
    if (e->size == 0 || e->size > 8)
        return -EINVAL;
    *v = 0;
    for (uint32_t i = 0; i < e->size; i++)
        *v |= (uint64_t)e->data[i] << (8 * i);
    return 0;
}

int plk_cdc_node_dcf(const struct plk_cdc *c, uint8_t node, struct plk_cdc *out,
                     char *err, size_t errlen)
{
    struct plk_cdc_entry e;
    if (plk_cdc_find(c, 0x1F22, node, &e))
        return fail(err, errlen, -ENOENT, "CDC has no 0x1F22/%u (DCF of node %u)", node, node);
    char sub[200];
    int rc = plk_cdc_parse(out, e.data, e.size, sub, sizeof sub);
    /* the file around it is a CDC: a nested DCF that is none is a broken entry of it */
    if (rc)
        return fail(err, errlen, rc == -EBADMSG ? -EPROTO : rc, "0x1F22/%u at offset %zu: %s",
                    node, e.offset, sub);
    return 0;
}

int plk_cdc_apply(const struct plk_cdc *c, struct plk_od *od, char *err, size_t errlen)
{
    struct plk_cdc_iter it;
    struct plk_cdc_entry e;
    plk_cdc_iter_init(&it, c);
    while (plk_cdc_next(&it, &e)) {
        uint32_t abort = 0;
        struct plk_od_entry *x = plk_od_find(od, e.index, e.sub);
        int rc;
        /* Domains such as 0x1F22 take the bytes whatever their size; numeric entries are
         * written locally (the MN configures its own read-only objects this way too). */
        if (x && plk_od_type_size(x->type)) {
            if (e.size != plk_od_type_size(x->type)) {
                abort = PLK_ABORT_LENGTH;
                rc = -EMSGSIZE;
            } else {
                uint64_t v = 0;
                plk_cdc_entry_u64(&e, &v);
                rc = plk_od_set_u64(od, e.index, e.sub, v);
                if (rc)
                    abort = PLK_ABORT_READ_ONLY;
            }
        } else {
            rc = plk_od_write(od, e.index, e.sub, e.data, e.size, &abort);
        }
        if (rc)
            return fail(err, errlen, rc, "CDC entry %u (0x%04X/%u, %u bytes at offset %zu) "
                        "rejected: abort 0x%08X", it.n, e.index, e.sub, e.size, e.offset, abort);
    }
    return 0;
}

int plk_cdc_begin(uint8_t *buf, size_t cap)
{
    if (cap < PLK_CDC_HDR)
        return -ENOSPC;
    put_le32(buf, 0);
    return PLK_CDC_HDR;
}

int plk_cdc_append(uint8_t *buf, size_t cap, size_t used, uint16_t index, uint8_t sub,
                   const void *data, uint32_t size)
{
    if (used < PLK_CDC_HDR || used > cap || cap - used < PLK_CDC_ENTRY_HDR + (size_t)size)
        return -ENOSPC;
    uint8_t *p = buf + used;
    put_le16(p, index);
    p[2] = sub;
    put_le32(p + 3, size);
    if (size)
        memcpy(p + PLK_CDC_ENTRY_HDR, data, size);
    put_le32(buf, get_le32(buf) + 1);
    return (int)(used + PLK_CDC_ENTRY_HDR + size);
}

int plk_cdc_append_u(uint8_t *buf, size_t cap, size_t used, uint16_t index, uint8_t sub,
                     uint64_t v, uint32_t size)
{
    uint8_t b[8];
    if (size == 0 || size > 8)
        return -EINVAL;
    for (uint32_t i = 0; i < size; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return plk_cdc_append(buf, cap, used, index, sub, b, size);
}
