/* Little-endian wire access: every protocol field goes through these helpers with its
 * byte offset, never through a packed struct cast over a buffer, whose layout would
 * depend on the compiler. The short names the library uses for the public helpers of
 * <takt/wire.h>. */
#ifndef TAKT_UTIL_WIRE_H
#define TAKT_UTIL_WIRE_H

#include <stdint.h>
#include <string.h>
#include <takt/takt.h>
#include <takt/wire.h>

static inline uint16_t get_le16(const uint8_t *p) { return takt_get_le16(p); }
static inline uint32_t get_le32(const uint8_t *p) { return takt_get_le32(p); }
static inline uint64_t get_le64(const uint8_t *p) { return takt_get_le64(p); }
static inline uint16_t get_be16(const uint8_t *p) { return takt_get_be16(p); }

static inline void put_le16(uint8_t *p, uint16_t v) { takt_put_le16(p, v); }
static inline void put_le32(uint8_t *p, uint32_t v) { takt_put_le32(p, v); }
static inline void put_le64(uint8_t *p, uint64_t v) { takt_put_le64(p, v); }
static inline void put_be16(uint8_t *p, uint16_t v) { takt_put_be16(p, v); }

#endif
