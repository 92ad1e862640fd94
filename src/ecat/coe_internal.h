/* Shared between the SDO (coe.c) and SDO information (coe_info.c) halves of the CoE
 * client; not part of its interface. */
#ifndef TAKT_ECAT_COE_INTERNAL_H
#define TAKT_ECAT_COE_INTERNAL_H

#include "ecat/coe.h"

/* Record a failure "slave P: 0xIIII:SS: <text>", set the failed state, return rc. */
int ecat_coe_i_fail(struct ecat_coe_xfer *x, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Client abort: put an SDO abort request with code into out, fail with rc. */
int ecat_coe_i_abort(struct ecat_coe_xfer *x, int rc, uint32_t code, uint8_t *out, size_t cap, size_t *out_len);
/* Mailbox + CoE header for a request of mbx_len payload bytes. */
void ecat_coe_i_put_hdr(uint8_t *buf, uint16_t mbx_len, uint8_t cnt, uint8_t service);

int ecat_coe_i_info_start(struct ecat_coe_xfer *x, uint8_t cnt, uint8_t *out, size_t cap, size_t *out_len);
int ecat_coe_i_info_reply(struct ecat_coe_xfer *x, const struct ecat_coe_msg *m, const uint8_t *in,
                   uint8_t *out, size_t cap, size_t *out_len);

#endif
