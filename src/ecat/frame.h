/* EtherCAT frame and datagram codec (ETG.1000.4 frame structure and commands), used by master and simulator alike.
 * Frames are built in place in caller buffers; nothing allocates. */
#ifndef TAKT_ECAT_FRAME_H
#define TAKT_ECAT_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/proto.h"

/* A datagram as seen in a frame buffer (pointers into the buffer). */
struct ecat_dg {
    uint8_t  cmd, idx;
    uint16_t adp, ado;     /* for logical commands: lad = adp | ado << 16 */
    uint32_t lad;
    uint16_t len;          /* data length */
    bool     circ, more;
    uint16_t irq;
    uint8_t *hdr;          /* start of the 10-byte datagram header */
    uint8_t *data;
    uint8_t *wkc;          /* 2 bytes, little-endian */
};

/* Start a frame in buf (>= 60 bytes): Ethernet header (dst ff:ff:.., src mac,
 * 0x88A4) + EtherCAT header. Returns the write position (offset of the first datagram). */
size_t ecat_frame_begin(uint8_t *buf, const uint8_t src_mac[6]);
/* Append a datagram at *pos (updating the previous datagram's M bit and the frame
 * length); returns a pointer to its data (len bytes, copied from `data` if non-NULL,
 * else zeroed) or NULL if it does not fit into cap. */
uint8_t *ecat_frame_add(uint8_t *buf, size_t cap, size_t *pos, uint8_t cmd, uint8_t idx,
                        uint32_t addr, uint16_t len, const void *data);
/* A datagram that ecat_frame_add put at offset at with this length, written again in
 * place for another frame of the same layout: command, index, address, data (copied,
 * or zeroed for NULL) and WKC 0; its length, M bit and the frame's header stay.
 * Returns a pointer to its data. */
uint8_t *ecat_frame_refill(uint8_t *buf, size_t at, uint8_t cmd, uint8_t idx, uint32_t addr, uint16_t len,
                           const void *data);
/* Finish: returns the frame length padded to 60 bytes (padding zeroed). */
size_t ecat_frame_end(uint8_t *buf, size_t pos);

/* Iterate datagrams of a received frame. ecat_frame_first returns 0 and fills *dg,
 * or a negative errno: -EPROTO for a non-EtherCAT/type frame, -EMSGSIZE for a header
 * length that exceeds the frame. ecat_frame_next returns 0 with the next datagram,
 * 1 at the end, -EMSGSIZE for a truncated datagram. */
int ecat_frame_first(uint8_t *buf, size_t len, struct ecat_dg *dg, size_t *pos);
int ecat_frame_next(uint8_t *buf, size_t len, struct ecat_dg *dg, size_t *pos);

#endif
