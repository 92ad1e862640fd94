/* openPOWERLINK concise DCF (mnobd.cdc): u32 entry count, then per entry index u16,
 * subindex u8, size u32, data (CiA 302-3 concise DCF). Parsing validates the whole buffer first and
 * then iterates over it in place; nothing is copied or allocated. */
#ifndef TAKT_PLK_CDC_H
#define TAKT_PLK_CDC_H

#include <stddef.h>
#include <stdint.h>

struct plk_od;

enum { PLK_CDC_HDR = 4, PLK_CDC_ENTRY_HDR = 7 };

struct plk_cdc_entry {
    uint16_t index;
    uint8_t  sub;
    uint32_t size;
    const uint8_t *data;    /* points into the parsed buffer */
    size_t   offset;        /* of the entry header in the buffer (for messages) */
};

struct plk_cdc {
    const uint8_t *buf;
    size_t   len;
    uint32_t count;
};

struct plk_cdc_iter {
    const struct plk_cdc *cdc;
    size_t   pos;
    uint32_t n;
};

/* Validate buf (kept by reference). Rejects count 0 (oplk kErrorObdNoConfigData),
 * truncated headers, sizes past the end and trailing bytes; err names the entry number,
 * its offset and the reason. Returns 0 or -EPROTO / -ENODATA, or -EBADMSG where the
 * count is more than the size could hold ("not a concise DCF: ...": text such as
 * openCONFIGURATOR's mnobd.txt, or another file). */
int plk_cdc_parse(struct plk_cdc *c, const uint8_t *buf, size_t len, char *err, size_t errlen);

void plk_cdc_iter_init(struct plk_cdc_iter *it, const struct plk_cdc *c);
/* 1 with *e filled, 0 at the end. Only for a buffer plk_cdc_parse accepted. */
int plk_cdc_next(struct plk_cdc_iter *it, struct plk_cdc_entry *e);

/* Last entry for (index, sub) (later entries override earlier ones, as when applied in
 * order); 0 found, -ENOENT. */
int plk_cdc_find(const struct plk_cdc *c, uint16_t index, uint8_t sub, struct plk_cdc_entry *e);
/* Numeric value of an entry of 1..8 bytes, little-endian. -EINVAL for other sizes. */
int plk_cdc_entry_u64(const struct plk_cdc_entry *e, uint64_t *v);
/* The per-CN concise DCF in 0x1F22/node, parsed. -ENOENT when absent. */
int plk_cdc_node_dcf(const struct plk_cdc *c, uint8_t node, struct plk_cdc *out,
                     char *err, size_t errlen);

/* Write every entry into od in order (as oplk's obdcdc does). Stops at the first
 * rejected entry with its number, object and abort code in err. */
int plk_cdc_apply(const struct plk_cdc *c, struct plk_od *od, char *err, size_t errlen);

/* Encode: start with a count placeholder, append entries, fix the count. For tests and
 * for building a CN's DCF from the takt configuration file. Return bytes used or
 * -ENOSPC. */
int plk_cdc_begin(uint8_t *buf, size_t cap);
int plk_cdc_append(uint8_t *buf, size_t cap, size_t used, uint16_t index, uint8_t sub,
                   const void *data, uint32_t size);
int plk_cdc_append_u(uint8_t *buf, size_t cap, size_t used, uint16_t index, uint8_t sub,
                     uint64_t v, uint32_t size);

#endif
