/* Minimal pcapng writer (SHB, one IDB with nanosecond resolution, EPBs). libpcap 1.10
 * (Debian 12) can only *dump* classic pcap (pcap_dump_open); pcapng writing arrived in
 * no released 1.10 API, so takt writes the blocks itself (pcapng draft, IETF
 * draft-ietf-opsawg-pcapng) and tshark reads them back in the tests. */
#ifndef TAKT_LINK_PCAPNG_H
#define TAKT_LINK_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

#define PCAPNG_DIR_IN  1   /* epb_flags bits 0-1: 01 inbound */
#define PCAPNG_DIR_OUT 2   /* 10 outbound */

/* Encode blocks into buf (sized by the caller); each returns the block length. */
size_t pcapng_shb(uint8_t *buf, size_t cap, const char *userappl);
size_t pcapng_idb(uint8_t *buf, size_t cap, const char *ifname, uint32_t snaplen);
/* Enhanced Packet Block on interface 0; ts_ns = ns since 1970 (if_tsresol 9). */
size_t pcapng_epb(uint8_t *buf, size_t cap, uint64_t ts_ns, const uint8_t *data,
                  uint32_t len, int dir);

/* Worst-case block size of an EPB for a frame of len bytes. */
#define PCAPNG_EPB_MAX(len) (28u + (((len) + 3u) & ~3u) + 12u + 4u + 4u)

#endif
