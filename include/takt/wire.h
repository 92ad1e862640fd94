/* takt wire access: little-endian (EtherCAT, POWERLINK) and big-endian (Ethernet
 * header) fields of a frame or an SDO/register buffer, read and written through their
 * byte offset, never through a packed struct cast whose layout would depend on the
 * compiler. Header only. */
#ifndef TAKT_WIRE_H
#define TAKT_WIRE_H

#include <stdint.h>

static inline uint16_t takt_get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t takt_get_le32(const uint8_t *p)
{ return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static inline uint64_t takt_get_le64(const uint8_t *p)
{ return (uint64_t)takt_get_le32(p) | (uint64_t)takt_get_le32(p + 4) << 32; }
static inline uint16_t takt_get_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static inline void takt_put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void takt_put_le32(uint8_t *p, uint32_t v)
{ p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static inline void takt_put_le64(uint8_t *p, uint64_t v)
{ takt_put_le32(p, (uint32_t)v); takt_put_le32(p + 4, (uint32_t)(v >> 32)); }
static inline void takt_put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

#endif
