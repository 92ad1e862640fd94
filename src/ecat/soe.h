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
    SOE_EL_STATE = 0x01, SOE_EL_NAME = 0x02, SOE_EL_ATTR = 0x04, SOE_EL_UNIT = 0x08,
    SOE_EL_MIN = 0x10, SOE_EL_MAX = 0x20, SOE_EL_VALUE = 0x40, SOE_EL_DEFAULT = 0x80,
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
enum { SOE_FMT_BIN = 0, SOE_FMT_UINT = 1, SOE_FMT_INT = 2, SOE_FMT_HEX = 3, SOE_FMT_TEXT = 4,
       SOE_FMT_IDN = 5, SOE_FMT_FLOAT = 6 };
#define SOE_ATTR_LIST   (1u << 18)
#define SOE_ATTR_CMD    (1u << 19)
#define SOE_ATTR_WP_PREOP  (1u << 28)
#define SOE_ATTR_WP_SAFEOP (1u << 29)
#define SOE_ATTR_WP_OP     (1u << 30)
static inline unsigned soe_attr_item(uint32_t a) { return 1u << ((a >> 16) & 3); }  /* bytes */
static inline bool soe_attr_list(uint32_t a) { return (a & SOE_ATTR_LIST) != 0; }
static inline unsigned soe_attr_fmt(uint32_t a) { return (a >> 20) & 7; }
static inline unsigned soe_attr_decimals(uint32_t a) { return (a >> 24) & 15; }
static inline uint32_t soe_attr(unsigned item_bytes, bool list, unsigned fmt, unsigned dec)
{
    unsigned l = item_bytes >= 8 ? 3 : item_bytes >= 4 ? 2 : item_bytes >= 2 ? 1 : 0;
    return (uint32_t)l << 16 | (list ? SOE_ATTR_LIST : 0) | (uint32_t)(fmt & 7) << 20 |
           (uint32_t)(dec & 15) << 24;
}

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

const char *ecat_soe_error_text(uint16_t code);
const char *ecat_soe_op_name(uint8_t op);

/* IDN text form: "S-0-0036" / "P-1-0010" (S or P, parameter set 0-7, number 0-4095;
 * bit 15 = P, bits 12-14 set, bits 0-11 number), also a plain number ("36", "0x8024")
 * meaning the raw u16. Returns 0 or -EINVAL with what was expected in err. */
int ecat_soe_idn_parse(const char *s, uint16_t *idn, char *err, size_t errlen);
#define ECAT_SOE_IDN_STR 12
void ecat_soe_idn_format(uint16_t idn, char buf[ECAT_SOE_IDN_STR]);

/* Element names ("state", "name", "attribute", "unit", "min", "max", "value",
 * "default"): a comma list into flags; the name of one flag. */
int ecat_soe_elements_parse(const char *s, uint8_t *flags, char *err, size_t errlen);
const char *ecat_soe_element_name(uint8_t flag);

/* The elements of a read response split in wire order: data state u16, name and unit
 * as lists (u16 current length, u16 maximum, bytes), attribute u32, min/max/value/
 * default per the attribute (fixed items, or lists). attr is needed for min..default
 * and taken from the response when it carries one. Each part points into data.
 * Returns 0, or -EPROTO with what did not fit in err. */
struct ecat_soe_part { const uint8_t *p; size_t len; };
int ecat_soe_elements_split(const uint8_t *data, size_t len, uint8_t elements, uint32_t attr,
                            struct ecat_soe_part part[8], char *err, size_t errlen);

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
