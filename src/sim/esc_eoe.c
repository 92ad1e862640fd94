/* EoE endpoint of the simulated slave (ETG.1000.6, Ethernet over EtherCAT): fragments in,
 * reassembled with every check of ecat/eoe.c, whole frames to the IP stack; frames out
 * in fragments of the read mailbox's size, one per emptied mailbox; the IP parameter
 * and address filter services answered with their result code. */
#include "sim/esc_eoe.h"
#include <stdlib.h>
#include <string.h>
#include "sim/esc.h"
#include "util/wire.h"

struct esc_eoe *esc_eoe_get(struct sim_esc *e)
{
    if (e->eoe || !e->desc || !(e->desc->mbx_protocols & MBX_PROTO_EOE))
        return e->eoe;
    struct esc_eoe *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* a locally administered MAC until the master sets one */
    const uint8_t mac[6] = { 0x02, 0x74, 0x6B, 0x74, (uint8_t)(e->station >> 8), (uint8_t)e->station };
    memcpy(s->ip.mac, mac, 6);
    s->ip.flags = EOE_IP_MAC;
    e->eoe = s;
    return s;
}

void esc_eoe_free(struct sim_esc *e)
{
    free(e->eoe);
    e->eoe = NULL;
}

void esc_eoe_reset(struct sim_esc *e)
{
    struct esc_eoe *s = e->eoe;
    if (!s)
        return;
    ecat_eoe_rx_reset(&s->rx);
    s->q_head = s->q_count = 0;
    s->tx.active = false;
    s->tcp.st = 0;
}

bool esc_eoe_queue(struct esc_eoe *s, const uint8_t *f, size_t len)
{
    if (s->q_count == ESC_EOE_OUTQ || len < 14 || len > ECAT_EOE_FRAME_MAX) {
        s->n_queue_full++;
        return false;
    }
    unsigned i = (s->q_head + s->q_count) % ESC_EOE_OUTQ;
    memcpy(s->q[i], f, len);
    s->q_len[i] = (uint16_t)len;
    s->q_count++;
    return true;
}

static uint8_t next_cnt(struct sim_esc *e)
{
    e->mbx_cnt = (uint8_t)(e->mbx_cnt % 7 + 1);
    return e->mbx_cnt;
}

static size_t result(struct sim_esc *e, uint8_t *r, size_t cap, uint8_t type, uint8_t port,
                     uint16_t code)
{
    return ecat_eoe_encode(r, cap, next_cnt(e), ecat_eoe_info1(type, port, EOE_F_LAST), code,
                           NULL, 0);
}

size_t esc_eoe_request(struct sim_esc *e, const uint8_t *msg, size_t len, uint8_t *r, size_t cap)
{
    struct esc_eoe *s = esc_eoe_get(e);
    struct ecat_eoe_msg m;
    if (!s || ecat_eoe_decode(msg, len, &m) < 0)
        return 0;
    switch (m.type) {
    case EOE_T_FRAG:
        if (ecat_eoe_rx_put(&s->rx, &m) == ECAT_EOE_RX_FRAME) {
            s->n_frames_in++;
            esc_eoe_ip_input(s, s->rx.buf, s->rx.len);
        }
        return 0;
    case EOE_T_SET_IP_REQ: {
        struct takt_ecat_eoe_ip p;
        if (ecat_eoe_ip_decode(m.data, m.len, &p) < 0)
            return result(e, r, cap, EOE_T_SET_IP_RES, m.port, EOE_RESULT_UNSPECIFIED);
        /* only what the request includes changes */
        if (p.flags & EOE_IP_MAC)
            memcpy(s->ip.mac, p.mac, 6);
        if (p.flags & EOE_IP_IP)
            memcpy(s->ip.ip, p.ip, 4);
        if (p.flags & EOE_IP_MASK)
            memcpy(s->ip.mask, p.mask, 4);
        if (p.flags & EOE_IP_GW)
            memcpy(s->ip.gw, p.gw, 4);
        if (p.flags & EOE_IP_DNS)
            memcpy(s->ip.dns, p.dns, 4);
        if (p.flags & EOE_IP_DNS_NAME)
            memcpy(s->ip.dns_name, p.dns_name, sizeof s->ip.dns_name);
        s->ip.flags |= p.flags;
        s->n_set_ip++;
        return result(e, r, cap, EOE_T_SET_IP_RES, m.port, EOE_RESULT_OK);
    }
    case EOE_T_GET_IP_REQ: {
        uint8_t body[EOE_IP_BODY];
        ecat_eoe_ip_encode(body, &s->ip);
        return ecat_eoe_encode(r, cap, next_cnt(e),
                               ecat_eoe_info1(EOE_T_GET_IP_RES, m.port, EOE_F_LAST), 0, body,
                               sizeof body);
    }
    case EOE_T_SET_FILTER_REQ:
        if (ecat_eoe_filter_decode(m.data, m.len, &s->filter) < 0)
            return result(e, r, cap, EOE_T_SET_FILTER_RES, m.port, EOE_RESULT_UNSPECIFIED);
        s->has_filter = true;
        s->n_filter++;
        return result(e, r, cap, EOE_T_SET_FILTER_RES, m.port, EOE_RESULT_OK);
    case EOE_T_GET_FILTER_REQ:
        return result(e, r, cap, EOE_T_GET_FILTER_RES, m.port, EOE_RESULT_UNSUPPORTED_TYPE);
    default:
        return 0;                   /* responses and timestamps are not for a slave */
    }
}

size_t esc_eoe_pending(struct sim_esc *e, uint8_t *r, size_t cap)
{
    struct esc_eoe *s = e->eoe;
    if (!s)
        return 0;
    if (!s->tx.active) {
        if (!s->q_count)
            return 0;
        s->tx_frame_no = (uint8_t)((s->tx_frame_no + 1) & 0x0F);
        if (ecat_eoe_tx_start(&s->tx, s->q[s->q_head], s->q_len[s->q_head], s->tx_frame_no, 0)) {
            s->q_head = (s->q_head + 1) % ESC_EOE_OUTQ;
            s->q_count--;
            return 0;
        }
    }
    size_t n = ecat_eoe_tx_next(&s->tx, next_cnt(e), r, cap);
    if (!s->tx.active || !n) {          /* the frame is all out: its slot is free */
        s->tx.active = false;
        s->q_head = (s->q_head + 1) % ESC_EOE_OUTQ;
        s->q_count--;
        s->n_frames_out += n != 0;
    }
    return n;
}
