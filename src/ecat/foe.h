/* File access over EtherCAT (FoE, ETG.1000.6): the wire codec shared by the master
 * and the simulator, and the master's sans-I/O transfer logic (read, write, BUSY, ERR). */
#ifndef TAKT_ECAT_FOE_H
#define TAKT_ECAT_FOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/mbx.h"

/* FoE header after the mailbox header (ETG.1000.6; Wireshark packet-ecatmb.h
 * TETHERCAT_FOE_HEADER): opcode u8, reserved u8, then u32 = password (RRQ, WRQ),
 * packet number (DATA, ACK), error code (ERR) or done u16 + entire u16 (BUSY). */
#define FOE_HDR 6
enum {
    FOE_OFF_OP = MBX_HDR,
    FOE_OFF_RES = MBX_HDR + 1,
    FOE_OFF_ARG = MBX_HDR + 2,
    FOE_OFF_DATA = MBX_HDR + FOE_HDR,   /* file name (RRQ, WRQ), data, error text */
};
enum { FOE_OP_RRQ = 1, FOE_OP_WRQ = 2, FOE_OP_DATA = 3, FOE_OP_ACK = 4, FOE_OP_ERR = 5,
       FOE_OP_BUSY = 6 };

/* FoE error codes (ETG.1000.6 Table 92; the SSC's ecatfoe.h uses the same values). */
enum {
    FOE_ERR_NOT_DEFINED = 0x8000, FOE_ERR_NOT_FOUND = 0x8001, FOE_ERR_ACCESS = 0x8002,
    FOE_ERR_DISK_FULL = 0x8003, FOE_ERR_ILLEGAL = 0x8004, FOE_ERR_PACKET_NO = 0x8005,
    FOE_ERR_EXISTS = 0x8006, FOE_ERR_NO_USER = 0x8007, FOE_ERR_BOOTSTRAP_ONLY = 0x8008,
    FOE_ERR_NOT_IN_BOOTSTRAP = 0x8009, FOE_ERR_NO_RIGHTS = 0x800A, FOE_ERR_PROGRAM = 0x800B,
};

#define ECAT_FOE_NAME_MAX 128   /* file name bytes takt sends or accepts */

/* Data bytes per DATA packet for a mailbox of mbx_len bytes (headers 6 + 6). */
static inline size_t ecat_foe_seg(size_t mbx_len)
{
    return mbx_len > MBX_HDR + FOE_HDR ? mbx_len - MBX_HDR - FOE_HDR : 0;
}

struct ecat_foe_msg {
    struct ecat_mbx_hdr h;
    uint8_t  op;
    uint32_t arg;              /* password, packet number or error code */
    uint16_t done, entire;     /* BUSY */
    const uint8_t *data;       /* after the FoE header */
    size_t   len;
};

/* Decode an FoE message of n bytes (mailbox header included). 0, or -EMSGSIZE when
 * shorter than its header says or than 12 bytes, -EPROTO when not FoE. */
int ecat_foe_decode(const uint8_t *buf, size_t n, struct ecat_foe_msg *m);
/* Encode a whole message; returns its length, 0 if it does not fit in cap. */
size_t ecat_foe_encode(uint8_t *buf, size_t cap, uint8_t cnt, uint8_t op, uint32_t arg,
                       const void *data, size_t len);
const char *ecat_foe_error_text(uint32_t code);
const char *ecat_foe_op_name(uint8_t op);

/* --- the master's side of one transfer (sans-I/O, like coe.h) ---------------------- */
enum { ECAT_FOE_SEND = 1, ECAT_FOE_WAIT = 2, ECAT_FOE_DONE = 3 };
enum ecat_foe_dir { ECAT_FOE_READ = 0, ECAT_FOE_WRITE = 1 };

struct ecat_foe_xfer {
    uint8_t   dir, state;
    char      name[ECAT_FOE_NAME_MAX + 1];
    uint32_t  password;
    uint8_t  *buf;             /* read: destination; write: source */
    size_t    cap, len;        /* read: capacity, bytes received; write: total */
    size_t    off;             /* write: bytes acknowledged */
    size_t    seg_out, seg_in; /* data per packet master->slave, slave->master */
    size_t    last_len;        /* data bytes in the last DATA sent */
    uint32_t  pkt;             /* packet number expected (read) or last sent (write) */
    bool      finish_on_send;  /* read: the ACK being sent ends the transfer */
    unsigned  busy;            /* BUSY replies seen */
    uint32_t  err_code;        /* FoE error code from the slave, 0 none */
    unsigned  pos;
    struct ecat_mbx_chan *ch;
    char      msg[400];        /* what went wrong (slave, file, code, text) */
};

/* Start: builds RRQ or WRQ into out (mbx_out bytes). Returns ECAT_FOE_SEND or -errno
 * (message in x->msg). For a read, buf/cap receive the file; for a write, buf/cap is
 * the file (cap = its length). */
int ecat_foe_xfer_start(struct ecat_foe_xfer *x, enum ecat_foe_dir dir, unsigned pos,
                        const char *name, uint32_t password, uint8_t *buf, size_t cap,
                        size_t mbx_out, size_t mbx_in, struct ecat_mbx_chan *ch,
                        uint8_t *out, size_t *out_len);
/* A message from the slave's send mailbox (in, n bytes). Returns ECAT_FOE_SEND (out
 * holds the next request), ECAT_FOE_WAIT (not for us / duplicate: poll again),
 * ECAT_FOE_DONE, or -TAKT_EMBOX / -EPROTO with x->msg. */
int ecat_foe_xfer_on_reply(struct ecat_foe_xfer *x, const uint8_t *in, size_t n,
                           uint8_t *out, size_t cap, size_t *out_len);
/* Bytes moved so far and the total (write: file size; read: 0 = unknown). */
void ecat_foe_xfer_progress(const struct ecat_foe_xfer *x, size_t *done, size_t *total);

#endif
