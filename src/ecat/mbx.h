/* EtherCAT mailbox header codec (ETG.1000.4 mailbox): 6-byte header, counter 1..7 per direction,
 * error replies (type 0). Pure functions; used by the CoE client and the master. */
#ifndef TAKT_ECAT_MBX_H
#define TAKT_ECAT_MBX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>
#include "ecat/proto.h"

/* Mailbox header field offsets (ETG.1000.4 mailbox header). */
enum {
    MBX_OFF_LEN = 0,      /* u16: bytes after the 6-byte header */
    MBX_OFF_ADDR = 2,     /* u16: station address of the originator (0 = master) */
    MBX_OFF_CHPRIO = 4,   /* u8: channel bits 0-5, priority bits 6-7 */
    MBX_OFF_TYPECNT = 5,  /* u8: type bits 0-3, counter bits 4-6, bit 7 reserved */
};

struct ecat_mbx_hdr {
    uint16_t len;         /* payload length (after the header) */
    uint16_t addr;
    uint8_t  channel;     /* 0..63 */
    uint8_t  prio;        /* 0..3 */
    uint8_t  type;        /* MBX_TYPE_* */
    uint8_t  cnt;         /* 0..7; 0 = counter not used */
};

/* The mailbox of one slave (struct ecat_slave.mbx), owned by the master's mailbox
 * services: tx is the last counter the master sent, rx the last one it accepted from
 * the slave; repeat is the SM1 repeat request toggle it last wrote, polled when it last
 * looked into the idle send mailbox. Counters are zeroed when the slave passes through
 * INIT (its counter restarts; a stale rx would make its first reply look like a
 * repetition). */
struct ecat_mbx_chan {
    uint8_t tx;
    uint8_t rx;
    uint32_t rx_hash;               /* of the last accepted message (ecat_mbx_rx_dup_msg) */
    uint8_t repeat;                 /* SM1 repeat request toggle (0x080E bit 1) */
    takt_ns_t polled;               /* last idle poll of the send mailbox */
};

/* Repeat request (ETG.1000.4 SyncManager: SM1 0x080E bit 1 toggled, the slave answers
 * with the same toggle in 0x080F bit 1 once the last reply is back in its mailbox):
 * toggles and returns the byte to write to 0x080E (SM enabled, toggle in bit 1). */
uint8_t ecat_mbx_repeat_req(struct ecat_mbx_chan *ch);
/* True when the 0x080F byte read back acknowledges the last repeat request. */
bool ecat_mbx_repeat_acked(const struct ecat_mbx_chan *ch, uint8_t sm1_act);
/* True, and now noted as the poll time, when at least interval passed since the last
 * idle poll of the send mailbox (the time 0 before the first). */
bool ecat_mbx_poll_due(struct ecat_mbx_chan *ch, takt_ns_t now, takt_ns_t interval);

/* Decode the header of a mailbox message of n bytes. Returns 0, or -EMSGSIZE when n
 * is shorter than 6 or than 6 + hdr.len (the header is still filled in). */
int ecat_mbx_decode(const uint8_t *buf, size_t n, struct ecat_mbx_hdr *h);
/* Encode h into buf (6 bytes). */
void ecat_mbx_encode(uint8_t *buf, const struct ecat_mbx_hdr *h);

/* Next request counter for this slave: 1..7 cyclically, never 0 (ETG.1000.6 5.6: 0 means
 * "counter not used"). */
uint8_t ecat_mbx_next_cnt(struct ecat_mbx_chan *ch);
/* Judge the counter of a received message: returns true when it repeats the last
 * accepted counter (a duplicate after a repeat request, to be dropped), else records
 * it and returns false. Counter 0 is never a duplicate. */
bool ecat_mbx_rx_dup(struct ecat_mbx_chan *ch, uint8_t cnt);

/* The same judgement on a whole message: a repetition has the last counter AND the
 * same bytes. A slave that restarted its counter (power cycle, INIT) and reuses the
 * last counter with a new message is not mistaken for a repetition. */
bool ecat_mbx_rx_dup_msg(struct ecat_mbx_chan *ch, const uint8_t *buf, size_t n);

/* Mailbox error reply (type 0, ETG.1000.4 mailbox error reply): returns 0 and the detail code if buf is one,
 * -EPROTO otherwise. */
int ecat_mbx_error_decode(const uint8_t *buf, size_t n, uint16_t *detail);
/* Meaning of a mailbox error detail code ("syntax error", ... "unknown"). */
const char *ecat_mbx_error_text(uint16_t detail);
/* Name of a mailbox type ("CoE", "EoE", ...; "unknown" otherwise). */
const char *ecat_mbx_type_name(uint8_t type);

#endif
