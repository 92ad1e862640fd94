/* SDO sequence layer internals shared by the SDO client and server (sdo_client.c,
 * sdo_server.c); applications use sdo.h. */
#ifndef TAKT_PLK_SDO_SEQ_H
#define TAKT_PLK_SDO_SEQ_H

#include "plk/sdo.h"

void plk_sdo_seq_init(struct plk_sdo_seq *s, bool server);
/* Client: start the InitReq -> InitAck -> InitResp -> Valid handshake. */
void plk_sdo_seq_open(struct plk_sdo_seq *s, takt_ns_t now);
/* Queue a close frame (connection 0) and forget the connection. */
void plk_sdo_seq_close(struct plk_sdo_seq *s);

/* Judge a received header. Returns 1 when it carries new, in-order command data for
 * the command layer, 0 when not (handshake, ack, duplicate, gap), -ECONNRESET when
 * the peer restarted or closed the connection (command layer must drop its transfer). */
int plk_sdo_seq_rx(struct plk_sdo_seq *s, const struct plk_sdo_hdr *h, takt_ns_t now);

/* True when the connection is valid and the history has room for one more frame. */
bool plk_sdo_seq_can_send(const struct plk_sdo_seq *s);
/* Send cmd_len command-layer bytes as the next numbered frame (kept for resend). */
int plk_sdo_seq_tx_data(struct plk_sdo_seq *s, uint8_t *buf, size_t cap,
                        const uint8_t *cmd, size_t cmd_len, takt_ns_t now);
/* A handshake, resend, acknowledge or retransmission-request frame, if one is due;
 * 0 if none. Runs the retransmission timer. `urgent_only` leaves plain acknowledges
 * for later (they can ride on the next data frame). */
int plk_sdo_seq_tx_ctrl(struct plk_sdo_seq *s, uint8_t *buf, size_t cap, takt_ns_t now,
                        bool urgent_only);
bool plk_sdo_seq_ctrl_due(const struct plk_sdo_seq *s, takt_ns_t now);
/* Retransmission gave up (too many retries): the connection is dead. */
bool plk_sdo_seq_failed(const struct plk_sdo_seq *s);

#endif
