/* The simulated slave's SoE drive (ETG.1000.6, Servo drive profile over EtherCAT; IDNs of IEC 61800-7-204; internal
 * to src/sim): a small IDN list per ESC with names, attributes, units, limits and
 * values, read and write with element flags, error codes, fragments both ways. */
#ifndef TAKT_SIM_ESC_SOE_H
#define TAKT_SIM_ESC_SOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ESC_SOE_IDNS    16
#define ESC_SOE_VAL_MAX 1028       /* bytes of the largest value (list header included) */
#define ESC_SOE_BUF     2048       /* a response or an incoming write, all fragments */

struct esc_soe_idn;                /* the drive's IDN descriptions (esc_soe.c) */

struct esc_soe {
    uint8_t  val[ESC_SOE_IDNS][ESC_SOE_VAL_MAX];   /* current values (lists: with header) */
    uint16_t len[ESC_SOE_IDNS];
    /* a response still going out in fragments */
    uint8_t  out[ESC_SOE_BUF];
    size_t   out_len, out_off;
    uint8_t  out_op, out_drive, out_elements;
    uint16_t out_idn;
    /* a write coming in fragments */
    uint8_t  in[ESC_SOE_BUF];
    size_t   in_len;
    bool     in_busy, in_overflow;
    /* statistics (tests) */
    unsigned n_read, n_write, n_err, n_frag_out, n_frag_in;
};

struct sim_esc;
/* The drive of e, made with its default values when the device advertises SoE; NULL
 * when it does not (or without memory). */
struct esc_soe *esc_soe_get(struct sim_esc *e);
void esc_soe_free(struct sim_esc *e);
/* Forget a transfer in progress (INIT); the values stay. */
void esc_soe_reset(struct sim_esc *e);
/* One SoE request from the write mailbox; the reply (if any) into reply, cap bytes (the
 * read mailbox). Returns the reply length or 0 (a write fragment is not answered). */
size_t esc_soe_request(struct sim_esc *e, const uint8_t *msg, size_t len, uint8_t *reply,
                       size_t cap);
/* The next fragment of a long response, when the read mailbox has emptied; 0 if none. */
size_t esc_soe_pending(struct sim_esc *e, uint8_t *reply, size_t cap);
/* A value by IDN (tests): its bytes and length, NULL when the drive lacks the IDN. */
const uint8_t *esc_soe_value(const struct esc_soe *s, uint16_t idn, size_t *len);

#endif
