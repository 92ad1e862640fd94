/* PDO mapping: 0x1600+n / 0x1A00+n u64 entries (index, subindex, bit offset, bit length;
 * EPSG DS 301 6.4, oplk pdou.c) turned into copy lists between a frame payload and the objects'
 * storage, built at configuration time so the cycle only runs memcpy. */
#ifndef TAKT_PLK_PDO_H
#define TAKT_PLK_PDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plk_od;

#define PLK_PDO_MAX_ENTRIES 64   /* per mapping object: subs 1..254 allowed, 25 in oplk */

/* One decoded mapping entry. */
struct plk_pdo_entry {
    uint16_t index;
    uint8_t  sub;
    uint16_t bit_offset;     /* in the frame payload */
    uint16_t bit_len;
};

static inline struct plk_pdo_entry plk_pdo_entry_decode(uint64_t v)
{
    struct plk_pdo_entry e = {
        .index = (uint16_t)v, .sub = (uint8_t)(v >> 16),
        .bit_offset = (uint16_t)(v >> 32), .bit_len = (uint16_t)(v >> 48),
    };
    return e;
}
static inline uint64_t plk_pdo_entry_encode(const struct plk_pdo_entry *e)
{
    return (uint64_t)e->index | (uint64_t)e->sub << 16 |
           (uint64_t)e->bit_offset << 32 | (uint64_t)e->bit_len << 48;
}

/* Whole-byte entries are copied with memcpy; BOOLEAN / BITn entries (a length that is
 * not a multiple of 8) bit by bit at any bit offset. Bits count from bit 0 of payload
 * byte 0 upwards (little-endian, as CANopen/DS 301 map them); the object keeps the
 * value in its low bits. */
struct plk_pdo_copy {
    uint16_t frame_off;      /* bytes into the payload */
    uint16_t len;            /* bytes (object bytes for a bit entry) */
    uint16_t bit_off;        /* bit entry: bits into the payload */
    uint8_t  bit_len;        /* bit entry: 1..63 bits; 0 = whole bytes */
    uint8_t *obj;            /* object storage (OD entry data or process image) */
};

/* A built mapping: the copy list and the payload bytes it needs. */
struct plk_pdo_map {
    struct plk_pdo_copy copy[PLK_PDO_MAX_ENTRIES];
    unsigned n;
    uint16_t size;           /* payload bytes covered (highest end of any entry) */
    uint8_t  version;        /* mapping version from the comm object (sub 2) */
    uint8_t  node;           /* comm object sub 1 */
};

/* Resolve (index, sub, bytes) to storage; NULL with *abort set when impossible. */
typedef uint8_t *(*plk_pdo_resolve_fn)(void *ctx, uint16_t index, uint8_t sub,
                                       uint16_t bytes, uint32_t *abort);

/* Bits of a payload or process image, bit 0 of byte 0 first (bit_len 1..64). */
uint64_t plk_pdo_get_bits(const uint8_t *buf, unsigned bit_off, unsigned bit_len);
void     plk_pdo_put_bits(uint8_t *buf, unsigned bit_off, unsigned bit_len, uint64_t v);
/* True for an entry copied bit by bit (length not a whole number of bytes). */
static inline bool plk_pdo_entry_is_bits(const struct plk_pdo_entry *e)
{ return e->bit_len % 8 != 0; }
/* Payload bytes an entry reaches into (rounded up). */
static inline unsigned plk_pdo_entry_end(const struct plk_pdo_entry *e)
{ return ((unsigned)e->bit_offset + e->bit_len + 7u) / 8u; }

/* Build from n decoded entries. Whole-byte entries must be byte aligned, bit entries
 * are at most 63 bits; all must fit in payload_limit.
 * err names the entry number, object and reason. 0 or -EINVAL/-ENOENT/-EMSGSIZE. */
int plk_pdo_build(struct plk_pdo_map *m, const struct plk_pdo_entry *e, unsigned n,
                  uint16_t payload_limit, plk_pdo_resolve_fn resolve, void *ctx,
                  char *err, size_t errlen);
/* Build from the OD: mapping object map_index (0x1600+n or 0x1A00+n) with sub 0 = count,
 * comm object comm_index (0x1400+n / 0x1800+n) for node and version; objects must exist
 * in od and be PDO-mappable with a matching size. */
int plk_pdo_build_od(struct plk_pdo_map *m, struct plk_od *od, uint16_t comm_index,
                     uint16_t map_index, uint16_t payload_limit, char *err, size_t errlen);

/* TPDO: objects -> payload (payload must hold m->size bytes). */
void plk_pdo_to_frame(const struct plk_pdo_map *m, uint8_t *payload);
/* RPDO: payload -> objects. A payload shorter than the mapping copies nothing and
 * returns -EMSGSIZE (E_PDO_SHORT_RX, EPSG DS 301 6.4). */
int plk_pdo_from_frame(const struct plk_pdo_map *m, const uint8_t *payload, size_t len);

#endif
