/* Servo drive profile over EtherCAT (SoE, ETG.1000.6; IDNs of IEC 61800-7-204,
 * the Sercos drive profile): the wire codec shared by the master and the simulator,
 * IDN text form, element layouts, error codes, and the master's sans-I/O transfer
 * logic (read, write, fragments). */
#ifndef TAKT_ECAT_SOE_H
#define TAKT_ECAT_SOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/mbx.h"
#include <takt/ecat.h>

/* SoE header after the mailbox header (ETG.1000.6, Servo drive profile over EtherCAT; Wireshark packet-ecatmb.h
 * TSOEHEADER; SOEM ec_SoEt): u8 opcode bits 0-2, Incomplete bit 3, Error bit 4, drive
 * number bits 5-7; u8 element flags; u16 IDN, or the fragments still to come when
 * Incomplete is set. */
#define SOE_HDR 4
enum {
    SOE_OFF_OP = MBX_HDR,
    SOE_OFF_ELEM = MBX_HDR + 1,
    SOE_OFF_IDN = MBX_HDR + 2,
    SOE_OFF_DATA = MBX_HDR + SOE_HDR,
};
enum { SOE_OP_READ_REQ = 1, SOE_OP_READ_RES = 2, SOE_OP_WRITE_REQ = 3, SOE_OP_WRITE_RES = 4,
       SOE_OP_NOTIFY = 5, SOE_OP_EMERGENCY = 6 };
enum { SOE_F_INCOMPLETE = 0x08, SOE_F_ERROR = 0x10 };

/* Element flags: which parts of an IDN a service carries, in this order on the wire
 * (IEC 61800-7-204 data block elements 1-7; SOEM EC_SOE_*_B). */
enum {
    SOE_EL_STATE = TAKT_ECAT_SOE_EL_STATE, SOE_EL_NAME = TAKT_ECAT_SOE_EL_NAME, SOE_EL_ATTR = TAKT_ECAT_SOE_EL_ATTR,
    SOE_EL_UNIT = TAKT_ECAT_SOE_EL_UNIT, SOE_EL_MIN = TAKT_ECAT_SOE_EL_MIN, SOE_EL_MAX = TAKT_ECAT_SOE_EL_MAX,
    SOE_EL_VALUE = TAKT_ECAT_SOE_EL_VALUE, SOE_EL_DEFAULT = TAKT_ECAT_SOE_EL_DEFAULT,
};

/* IDNs named by the drive profile that takt uses itself. */
enum { SOE_IDN_CYCLE_TIME = 1, SOE_IDN_TELEGRAM = 15, SOE_IDN_AT_LIST = 16,
       SOE_IDN_ALL_IDNS = 17, SOE_IDN_MDT_LIST = 24 };

/* SoE error codes (IEC 61800-7-204 / ETG.1000.6; the same values as IgH's
 * soe_errors.c and SOEM's ec_print.c list). */
enum {
    SOE_ERR_NO_IDN = 0x1001, SOE_ERR_NO_NAME = 0x2001, SOE_ERR_NO_UNIT = 0x4001,
    SOE_ERR_NO_MIN = 0x5001, SOE_ERR_NO_MAX = 0x6001,
    SOE_ERR_TOO_SHORT = 0x7002, SOE_ERR_TOO_LONG = 0x7003, SOE_ERR_READ_ONLY = 0x7004,
    SOE_ERR_WP_STATE = 0x7005, SOE_ERR_BELOW_MIN = 0x7006, SOE_ERR_ABOVE_MAX = 0x7007,
    SOE_ERR_NO_DEFAULT = 0x8001, SOE_ERR_DRIVE = 0x800A, SOE_ERR_GENERAL = 0x800B,
    SOE_ERR_NO_ELEMENT = 0x800C,
};

/* Attribute (element 3), u32: conversion factor bits 0-15, data length bits 16-18
 * (0 one byte, 1 two, 2 four, 3 eight; bit 18 set = variable-length list of such
 * items), bit 19 procedure command, display format bits 20-22, decimals bits 24-27,
 * write protection in PREOP/SAFEOP/OP bits 28-30 (IEC 61800-7-204; SOEM
 * ec_SoEattributet). */
enum { SOE_FMT_BIN = TAKT_ECAT_SOE_FMT_BIN, SOE_FMT_UINT = TAKT_ECAT_SOE_FMT_UINT, SOE_FMT_INT = TAKT_ECAT_SOE_FMT_INT,
       SOE_FMT_HEX = TAKT_ECAT_SOE_FMT_HEX, SOE_FMT_TEXT = TAKT_ECAT_SOE_FMT_TEXT, SOE_FMT_IDN = TAKT_ECAT_SOE_FMT_IDN,
       SOE_FMT_FLOAT = TAKT_ECAT_SOE_FMT_FLOAT };
#define SOE_ATTR_LIST   (1u << 18)
#define SOE_ATTR_CMD    (1u << 19)
#define SOE_ATTR_WP_PREOP  (1u << 28)
#define SOE_ATTR_WP_SAFEOP (1u << 29)
#define SOE_ATTR_WP_OP     (1u << 30)
#define soe_attr_item ecat_soe_attr_item
#define soe_attr_list ecat_soe_attr_list
#define soe_attr_fmt ecat_soe_attr_fmt
#define soe_attr_decimals ecat_soe_attr_decimals
#define soe_attr ecat_soe_attr

struct ecat_soe_msg {
    struct ecat_mbx_hdr h;
    uint8_t  op, drive, elements;
    bool     incomplete, error;
    uint16_t idn;              /* or fragments left, when incomplete */
    uint16_t err_code;         /* error responses: the u16 after the header */
    const uint8_t *data;       /* after the SoE header */
    size_t   len;
};

/* Decode an SoE message of n bytes (mailbox header included). 0, or -EMSGSIZE when
 * shorter than its header says or than the 4-byte SoE header, -EPROTO when not SoE. */
int ecat_soe_decode(const uint8_t *buf, size_t n, struct ecat_soe_msg *m);
/* Encode a whole message; flags = SOE_F_*. Returns its length, 0 if it does not fit. */
size_t ecat_soe_encode(uint8_t *buf, size_t cap, uint8_t cnt, uint8_t op, uint8_t flags,
                       uint8_t drive, uint8_t elements, uint16_t idn, const void *data,
                       size_t len);
/* Data bytes per fragment through a mailbox of mbx_len bytes (headers 6 + 4). */
static inline size_t ecat_soe_seg(size_t mbx_len)
{
    return mbx_len > MBX_HDR + SOE_HDR ? mbx_len - MBX_HDR - SOE_HDR : 0;
}

const char *ecat_soe_op_name(uint8_t op);

/* The IDN text form, element names and the split of a read response: <takt/ecat.h>. */

/* --- the master's side of one read or write (sans-I/O, like foe.h) ------------------ */
enum { ECAT_SOE_SEND = 1, ECAT_SOE_WAIT = 2, ECAT_SOE_DONE = 3 };
enum ecat_soe_dir { ECAT_SOE_READ = 0, ECAT_SOE_WRITE = 1 };

struct ecat_soe_xfer {
    uint8_t   dir, state, drive, elements;
    uint16_t  idn;
    uint8_t  *buf;             /* read: destination; write: source */
    size_t    cap, len;        /* read: capacity, bytes received; write: total */
    size_t    off;             /* write: bytes sent */
    size_t    seg;             /* data per write fragment */
    uint16_t  err_code;        /* SoE error code from the slave, 0 none */
    unsigned  pos, frags;      /* fragments received (read) */
    uint16_t  left;            /* read: fragments to come, as the last fragment said */
    struct ecat_mbx_chan *ch;
    char      msg[300];
};

/* Start: builds the (first) request into out (mbx_out bytes). Returns ECAT_SOE_SEND or
 * -errno (message in x->msg). */
int ecat_soe_xfer_start(struct ecat_soe_xfer *x, enum ecat_soe_dir dir, unsigned pos,
                        uint8_t drive, uint8_t elements, uint16_t idn, uint8_t *buf, size_t cap,
                        size_t mbx_out, struct ecat_mbx_chan *ch, uint8_t *out, size_t *out_len);
/* The request in out was delivered: ECAT_SOE_SEND with the next write fragment in out
 * (a fragment is not answered: ETG.1000.6, Servo drive profile over EtherCAT), or ECAT_SOE_WAIT for the response. */
int ecat_soe_xfer_sent(struct ecat_soe_xfer *x, uint8_t *out, size_t cap, size_t *out_len);
/* A message from the slave's send mailbox. ECAT_SOE_WAIT (not ours, a duplicate, or a
 * read fragment with more to come: poll again), ECAT_SOE_DONE, or -TAKT_EMBOX (an SoE
 * error or mailbox error) / -EPROTO / -ENOSPC with x->msg. */
int ecat_soe_xfer_on_reply(struct ecat_soe_xfer *x, const uint8_t *in, size_t n);

#endif
