/* Mailbox + CoE server of a simulated device (sans-I/O, ETG.1000.6 5.6 CoE): SDO expedited, normal,
 * segmented and complete access, SDO information, aborts, emergencies, mailbox errors. */
#ifndef TAKT_SIM_COE_H
#define TAKT_SIM_COE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/od.h"

#define COE_QUEUE     8        /* queued replies (SDO info fragments, emergencies) */
#define COE_MBX_MAX   1024     /* largest mailbox we serve */
#define COE_XFER_MAX  4096     /* largest object a segmented transfer can carry */

/* Mailbox error detail codes (type 0 reply, ETG.1000.4 mailbox error reply) */
enum { MBXERR_SYNTAX = 1, MBXERR_UNSUPPORTED_PROTOCOL = 2, MBXERR_INVALID_CHANNEL = 3,
       MBXERR_SERVICE_NOT_SUPPORTED = 4, MBXERR_INVALID_HEADER = 5, MBXERR_SIZE_TOO_SHORT = 6,
       MBXERR_NO_MORE_MEMORY = 7, MBXERR_INVALID_SIZE = 8 };

struct coe_msg {
    uint16_t len;
    uint8_t  b[COE_MBX_MAX];
};

/* State of one CoE server. Everything is preallocated: no allocation after setup. */
struct coe_server {
    struct sim_od *od;
    struct od_rules rules;
    uint8_t  details;          /* SII CoE details (SDO info, CA, ...) */
    uint16_t mbx_out, mbx_in;  /* mailbox sizes (master->slave, slave->master) */
    uint8_t  al;               /* current AL state, for access rights */
    uint8_t  last_rx_cnt;      /* counter of the last accepted request (0 = none) */
    uint32_t last_rx_hash;     /* to recognise a repeated request */
    uint8_t  tx_cnt;           /* counter of the last reply we sent (1..7) */
    /* a segmented transfer in progress */
    enum { XFER_NONE, XFER_UPLOAD, XFER_DOWNLOAD } xfer;
    uint16_t x_index;
    uint8_t  x_sub;
    bool     x_ca, x_toggle;
    size_t   x_len, x_pos;
    uint8_t  x_buf[COE_XFER_MAX];
    /* reply queue */
    unsigned q_head, q_n;
    struct coe_msg q[COE_QUEUE];
    /* counters for tests and the CLI */
    unsigned n_requests, n_aborts, n_mbx_errors, n_emergencies, n_dup;
};

void coe_init(struct coe_server *s, struct sim_od *od, uint8_t details, uint16_t mbx_out,
              uint16_t mbx_in, const struct od_rules *rules);
/* Reset after INIT: drop transfers and queued replies, forget counters. */
void coe_reset(struct coe_server *s);
/* A complete mailbox message (6-byte header + data) written by the master. The reply,
 * if any, goes to `reply` (cap bytes); returns its length or 0. Further replies queue. */
size_t coe_mbx_write(struct coe_server *s, const uint8_t *msg, size_t len, uint8_t *reply,
                     size_t cap);
size_t coe_mbx_pending(struct coe_server *s, uint8_t *reply, size_t cap);
/* Queue a CoE emergency (error code, error register, 5 bytes of detail). 0 or -ENOBUFS. */
int coe_emergency(struct coe_server *s, uint16_t code, uint8_t reg, const uint8_t data[5]);

/* internals shared by coe.c and coe_info.c */
size_t coe_hdr(struct coe_server *s, uint8_t *b, uint16_t body_len, uint8_t type);
int    coe_queue(struct coe_server *s, const uint8_t *b, size_t len);
size_t coe_sdo_info(struct coe_server *s, const uint8_t *msg, size_t len, uint8_t *reply,
                    size_t cap);

#endif
