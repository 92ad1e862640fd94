/* Ethernet over EtherCAT (EoE, ETG.1000.6, Ethernet over EtherCAT; mailbox type 2): the
 * wire codec shared by the master and the simulator, the fragmenter that cuts an
 * Ethernet frame into mailbox-sized fragments, the reassembler that puts them back
 * together with every check, and the set-IP-parameter / address-filter bodies. Pure
 * functions and caller-owned state: no clock, no socket. */
#ifndef TAKT_ECAT_EOE_H
#define TAKT_ECAT_EOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/ecat.h>
#include "ecat/mbx.h"

/* EoE header after the mailbox header, two u16 (ETG.1000.6, Ethernet over EtherCAT;
 * SOEM ec_EOEt, Wireshark packet-ecatmb.h ETHERCAT_EOE_HEADER):
 *   word 1: frame type bits 0-3, port bits 4-7, last fragment bit 8, time appended
 *           bit 9, time request bit 10;
 *   word 2: fragment number bits 0-5, bits 6-11 the complete size in 32-byte units
 *           (fragment 0) or this fragment's offset in 32-byte units (others), frame
 *           number bits 12-15. Responses to the services carry a result code there. */
#define EOE_HDR 4
enum {
    EOE_OFF_INFO1 = MBX_HDR,
    EOE_OFF_INFO2 = MBX_HDR + 2,
    EOE_OFF_DATA = MBX_HDR + EOE_HDR,
};
enum {
    EOE_T_FRAG = 0, EOE_T_TIMESTAMP = 1, EOE_T_SET_IP_REQ = 2, EOE_T_SET_IP_RES = 3,
    EOE_T_SET_FILTER_REQ = 4, EOE_T_SET_FILTER_RES = 5, EOE_T_GET_IP_REQ = 6,
    EOE_T_GET_IP_RES = 7, EOE_T_GET_FILTER_REQ = 8, EOE_T_GET_FILTER_RES = 9,
};
enum { EOE_F_LAST = 0x0100, EOE_F_TIME_APPENDED = 0x0200, EOE_F_TIME_REQUEST = 0x0400 };

/* Result codes of the service responses (SOEM EOE_RESULT_*). */
enum {
    EOE_RESULT_OK = 0x0000, EOE_RESULT_UNSPECIFIED = 0x0001, EOE_RESULT_UNSUPPORTED_TYPE = 0x0002,
    EOE_RESULT_NO_IP_SUPPORT = 0x0201, EOE_RESULT_NO_DHCP_SUPPORT = 0x0202,
    EOE_RESULT_NO_FILTER_SUPPORT = 0x0401,
};

/* Largest Ethernet frame carried (without FCS, with one VLAN tag). The complete size
 * field (6 bits of 32-byte units) could announce up to 2016 bytes. */
#define ECAT_EOE_FRAME_MAX 1518
#define EOE_UNIT 32

struct ecat_eoe_msg {
    struct ecat_mbx_hdr h;
    uint8_t  type, port;
    bool     last, time_appended, time_request;
    uint8_t  frag;             /* fragment number 0..63 */
    uint8_t  units;            /* fragment 0: complete size; others: offset (32-byte units) */
    uint8_t  frame_no;         /* 0..15 */
    uint16_t info2;            /* the raw second word (a response's result code) */
    const uint8_t *data;       /* after the EoE header */
    size_t   len;
};

/* Decode an EoE message of n bytes (mailbox header included): 0, -EMSGSIZE when
 * shorter than its header says or than the 4-byte EoE header, -EPROTO when not EoE. */
int ecat_eoe_decode(const uint8_t *buf, size_t n, struct ecat_eoe_msg *m);
/* Encode a whole message: header words info1 (type | port << 4 | EOE_F_*) and info2,
 * then len bytes. Returns its length, 0 if it does not fit in cap. */
size_t ecat_eoe_encode(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t info1, uint16_t info2,
                       const void *data, size_t len);
static inline uint16_t ecat_eoe_info1(uint8_t type, uint8_t port, uint16_t flags)
{ return (uint16_t)((type & 0x0F) | (port & 0x0F) << 4 | flags); }
static inline uint16_t ecat_eoe_info2(uint8_t frag, uint8_t units, uint8_t frame_no)
{ return (uint16_t)((frag & 0x3F) | (units & 0x3F) << 6 | (frame_no & 0x0F) << 12); }

const char *ecat_eoe_type_name(uint8_t type);
const char *ecat_eoe_result_text(uint16_t code);

/* --- fragmenting one frame (either side) --------------------------------------------- */
/* Every fragment but the last carries a multiple of 32 bytes, since the next one's
 * offset is counted in 32-byte units; the last carries the rest. */
struct ecat_eoe_tx {
    const uint8_t *frame;
    size_t   len, off;
    uint8_t  frag, frame_no, port;
    bool     active;
};
/* Begin sending frame (len bytes, 14..ECAT_EOE_FRAME_MAX) as frame number frame_no:
 * 0 or -EMSGSIZE. The frame must stay put until the last fragment went out. */
int ecat_eoe_tx_start(struct ecat_eoe_tx *t, const void *frame, size_t len, uint8_t frame_no,
                      uint8_t port);
/* The next fragment into out, a mailbox of mbx_len bytes (cap >= mbx_len): its length,
 * or 0 when the frame is all out (or the mailbox holds less than 32 data bytes). */
size_t ecat_eoe_tx_next(struct ecat_eoe_tx *t, uint8_t cnt, uint8_t *out, size_t mbx_len);
/* Data bytes in each non-last fragment through a mailbox of mbx_len bytes. */
static inline size_t ecat_eoe_seg(size_t mbx_len)
{
    return mbx_len >= MBX_HDR + EOE_HDR + EOE_UNIT ? (mbx_len - MBX_HDR - EOE_HDR) / EOE_UNIT * EOE_UNIT : 0;
}

/* --- reassembly (either side) ------------------------------------------------------- */
struct ecat_eoe_rx_stats {
    uint64_t frames, frags;    /* completed frames, accepted fragments */
    uint64_t dropped;          /* frames given up, for any of the reasons below */
    uint64_t bad_order;        /* a fragment number other than the next one */
    uint64_t bad_frame_no;     /* a fragment of another frame than the one under way */
    uint64_t bad_offset;       /* an offset other than the bytes received so far */
    uint64_t overflow;         /* more bytes than announced or than a frame can have */
    uint64_t interrupted;      /* a new fragment 0 before the last one of a frame */
    uint64_t bad_size;         /* a completed frame too short to be Ethernet */
};
struct ecat_eoe_rx {
    uint8_t  buf[ECAT_EOE_FRAME_MAX + 4];   /* + a timestamp appended to the last fragment */
    size_t   len, size;        /* bytes so far, announced size (units * 32) */
    uint8_t  next_frag, frame_no, port;
    bool     busy;
    uint32_t timestamp;        /* when the last fragment had one */
    bool     has_timestamp;
    struct ecat_eoe_rx_stats st;
};
enum { ECAT_EOE_RX_MORE = 0, ECAT_EOE_RX_FRAME = 1 };
/* A fragment (m->type == EOE_T_FRAG). ECAT_EOE_RX_FRAME: a whole frame is in r->buf,
 * r->len bytes (timestamp removed), valid until the next call; ECAT_EOE_RX_MORE: more
 * to come; -EPROTO: the fragment (and the frame under way) was dropped and counted. */
int ecat_eoe_rx_put(struct ecat_eoe_rx *r, const struct ecat_eoe_msg *m);
void ecat_eoe_rx_reset(struct ecat_eoe_rx *r);

/* --- set IP parameter (init) ------------------------------------------------------- */
/* Body: u32 flags, MAC 6, IP, subnet mask, default gateway, DNS server (4 each, as a
 * little-endian u32 of the address: 10.0.0.1 is 01 00 00 0A, as SOEM and Wireshark
 * read it), DNS name 32 bytes; every field takes its place whether included or not. */
enum { EOE_IP_MAC = TAKT_ECAT_EOE_IP_MAC, EOE_IP_IP = TAKT_ECAT_EOE_IP_IP, EOE_IP_MASK = TAKT_ECAT_EOE_IP_MASK,
       EOE_IP_GW = TAKT_ECAT_EOE_IP_GW, EOE_IP_DNS = TAKT_ECAT_EOE_IP_DNS, EOE_IP_DNS_NAME = TAKT_ECAT_EOE_IP_DNS_NAME };
#define EOE_IP_BODY 58
#define EOE_DNS_NAME TAKT_ECAT_EOE_DNS_NAME
/* struct takt_ecat_eoe_ip and struct takt_ecat_eoe_filter: <takt/ecat.h> */
size_t ecat_eoe_ip_encode(uint8_t *body, const struct takt_ecat_eoe_ip *p);     /* EOE_IP_BODY */
/* 0, or -EMSGSIZE when len does not reach the last included field. */
int ecat_eoe_ip_decode(const uint8_t *body, size_t len, struct takt_ecat_eoe_ip *p);

/* --- set address filter ------------------------------------------------------------ */
/* Body: u16 options (MAC count bits 0-3, mask count bits 4-5, no broadcasts bit 7),
 * then 16 MAC addresses and 4 masks of 6 bytes (Wireshark packet-ecatmb.h
 * EoeMacFilter). */
#define EOE_FILTER_BODY (2 + 16 * 6 + 4 * 6)
size_t ecat_eoe_filter_encode(uint8_t *body, const struct takt_ecat_eoe_filter *f);
int ecat_eoe_filter_decode(const uint8_t *body, size_t len, struct takt_ecat_eoe_filter *f);

/* takt_ecat_eoe_ip_parse, takt_ecat_eoe_mac_parse: <takt/ecat.h> */

#endif
