/* The simulated slave's EoE endpoint (ETG.1000.6, Ethernet over EtherCAT; internal to
 * src/sim): fragments from the master reassembled into Ethernet frames for a tiny IP
 * stack of the slave's own (esc_eoe_ip.c: ARP for its address, ICMP echo, one TCP
 * connection at a time on port 80 serving a fixed HTTP page), its answers cut into
 * fragments that go out as the master empties the read mailbox; set-IP-parameter,
 * get-IP-parameter and set-address-filter answered. Sans-I/O like the rest of the ESC
 * model: it only sees mailbox bytes. */
#ifndef TAKT_SIM_ESC_EOE_H
#define TAKT_SIM_ESC_EOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/eoe.h"

#define ESC_EOE_OUTQ 24            /* frames waiting to go out (a page of several segments) */

struct esc_eoe_tcp {
    uint8_t  st;                   /* ESC_TCP_* (esc_eoe_ip.c) */
    uint8_t  peer_ip[4], peer_mac[6];
    uint16_t peer_port;
    uint32_t snd_nxt, rcv_nxt, iss;
    char     req[256];             /* the request line and headers, as far as they came */
    size_t   req_len;
};

struct esc_eoe {
    struct takt_ecat_eoe_ip ip;         /* set by the master (MAC has a default) */
    struct takt_ecat_eoe_filter filter;
    bool     has_filter;
    struct ecat_eoe_rx rx;
    /* frames for the master: a ring of whole frames, the head one being fragmented */
    uint8_t  q[ESC_EOE_OUTQ][ECAT_EOE_FRAME_MAX];
    uint16_t q_len[ESC_EOE_OUTQ];
    unsigned q_head, q_count;
    struct ecat_eoe_tx tx;
    uint8_t  tx_frame_no;
    struct esc_eoe_tcp tcp;
    uint16_t ip_id;
    /* statistics (tests) */
    unsigned n_set_ip, n_filter, n_frames_in, n_frames_out, n_arp, n_echo, n_http, n_dropped,
             n_queue_full;
};

struct sim_esc;
/* The endpoint of e, made with its default MAC 02:74:6B:74:HH:LL (station address)
 * when the device advertises EoE; NULL when it does not (or without memory). */
struct esc_eoe *esc_eoe_get(struct sim_esc *e);
void esc_eoe_free(struct sim_esc *e);
/* Forget frames in flight (INIT); the IP parameters stay. */
void esc_eoe_reset(struct sim_esc *e);
/* One EoE message from the write mailbox; a service reply (if any) into reply, cap
 * bytes. Returns the reply length or 0 (fragments are not answered). */
size_t esc_eoe_request(struct sim_esc *e, const uint8_t *msg, size_t len, uint8_t *reply,
                       size_t cap);
/* The next fragment of a frame for the master, when the read mailbox has emptied; 0 if
 * none. */
size_t esc_eoe_pending(struct sim_esc *e, uint8_t *reply, size_t cap);

/* esc_eoe_ip.c: one Ethernet frame into the slave's IP stack; its answers are queued
 * with esc_eoe_queue. */
void esc_eoe_ip_input(struct esc_eoe *s, const uint8_t *f, size_t len);
/* Queue a frame for the master; false (counted) when the queue is full. */
bool esc_eoe_queue(struct esc_eoe *s, const uint8_t *f, size_t len);

#endif
