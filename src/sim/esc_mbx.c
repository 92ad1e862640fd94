/* The PDI side of the mailbox SyncManagers (ETG.1000.4 SyncManager and mailbox): hands a full write mailbox to
 * the device (FoE to the ESC's file server), places replies in the read mailbox as it empties, serves repeat
 * requests, and answers injected SDO aborts before the device sees the request. */
#include <stdlib.h>
#include <string.h>
#include "sim/esc.h"
#include "sim/esc_foe.h"
#include "sim/esc_soe.h"
#include "sim/esc_eoe.h"
#include "util/wire.h"

enum { SM_STATUS = 5, SM_ACT = 6, SM_PDI = 7 };

static int mbx_sm(const struct sim_esc *e, bool ecat_writes)
{
    for (unsigned n = 0; n < e->n_sm; n++) {
        const struct esc_sm *s = &e->sm[n];
        if (s->active && s->mode == ESC_SM_MBX && s->ecat_writes == ecat_writes)
            return (int)n;
    }
    return -1;
}

static uint8_t *status(struct sim_esc *e, int n) { return e->mem + ESC_SM0 + ESC_SM_SIZE * n + SM_STATUS; }

void esc_mbx_clear(struct sim_esc *e)
{
    e->mbx_reply_len = 0;
    e->mbx_last_len = 0;
    e->mbx_rx_cnt = 0;
    if (e->foe)
        e->foe->st = ESC_FOE_IDLE;   /* a transfer does not survive INIT (files do) */
    esc_soe_reset(e);
    esc_eoe_reset(e);
    for (unsigned n = 0; n < e->n_sm; n++)
        if ((e->mem[ESC_SM0 + ESC_SM_SIZE * n + 4] & 0x03) == ESC_SM_MBX)
            *status(e, (int)n) &= (uint8_t)~ESC_SM_STAT_FULL;
}

/* An SDO request on the faulted object gets an abort made here (ETG.1000.6 5.6.2.7:
 * Abort SDO Transfer Request, CoE service 2, command 0x80). */
static size_t sdo_abort_reply(struct sim_esc *e, const uint8_t *msg, size_t len, uint8_t *r)
{
    if (!e->fault.sdo_abort || len < MBX_HDR + 6 || (msg[5] & 0x0F) != MBX_TYPE_COE)
        return 0;
    const uint8_t *c = msg + MBX_HDR;
    if ((get_le16(c) >> 12) != COE_SDO_REQ)
        return 0;
    uint8_t ccs = c[2] >> 5;
    if (ccs != 1 && ccs != 2)        /* only initiate download/upload name an object */
        return 0;
    if (get_le16(c + 3) != e->fault.abort_index || c[5] != e->fault.abort_sub)
        return 0;
    memset(r, 0, MBX_HDR + 10);
    put_le16(r, 10);
    put_le16(r + 2, get_le16(msg + 2));
    e->mbx_cnt = (uint8_t)(e->mbx_cnt % 7 + 1);
    r[5] = (uint8_t)(MBX_TYPE_COE | e->mbx_cnt << 4);
    put_le16(r + 6, (uint16_t)(COE_SDO_REQ << 12));
    r[8] = 0x80;
    put_le16(r + 9, e->fault.abort_index);
    r[11] = e->fault.abort_sub;
    put_le32(r + 12, e->fault.abort_code);
    return MBX_HDR + 10;
}

/* In BOOT only FoE is served (ETG.1000.6: the bootstrap mailbox carries firmware
 * download); anything else gets a mailbox error "protocol not supported" (ETG.1000.4 mailbox error reply). */
static size_t boot_refusal(struct sim_esc *e, const uint8_t *msg, uint8_t *r)
{
    memset(r, 0, MBX_HDR + 4);
    put_le16(r, 4);
    put_le16(r + 2, get_le16(msg + 2));
    e->mbx_cnt = (uint8_t)(e->mbx_cnt % 7 + 1);
    r[5] = (uint8_t)(MBX_TYPE_ERR | e->mbx_cnt << 4);
    put_le16(r + MBX_HDR, 1);
    put_le16(r + MBX_HDR + 2, 2);
    return MBX_HDR + 4;
}

/* FoE goes to the ESC's file server (esc_foe.c), when the device has FoE. */
static size_t serve(struct sim_esc *e, const uint8_t *msg, size_t len, size_t mbx_w, size_t cap,
                    takt_ns_t t)
{
    size_t n = sdo_abort_reply(e, msg, len, e->mbx_reply);
    uint8_t type = len >= MBX_HDR ? msg[5] & 0x0F : 0xFF;
    if (n)
        return n;
    if (type == MBX_TYPE_FOE && esc_foe_get(e))
        return esc_foe_request(e, msg, len, mbx_w, e->mbx_reply, cap);
    if (e->al_state == AL_BOOT)
        return len >= MBX_HDR && cap >= MBX_HDR + 4 ? boot_refusal(e, msg, e->mbx_reply) : 0;
    if (type == MBX_TYPE_SOE && esc_soe_get(e))          /* the SoE drive (esc_soe.c) */
        return esc_soe_request(e, msg, len, e->mbx_reply, cap);
    if (type == MBX_TYPE_EOE && esc_eoe_get(e))          /* the EoE endpoint (esc_eoe.c) */
        return esc_eoe_request(e, msg, len, e->mbx_reply, cap);
    if (e->dev && e->dev->ops->mbx_write)
        return e->dev->ops->mbx_write(e->dev, msg, len, e->mbx_reply, cap, t);
    return 0;
}

static void place(struct sim_esc *e, int n, const uint8_t *msg, size_t len)
{
    const struct esc_sm *s = &e->sm[n];
    if (len > s->len)
        len = s->len;
    memcpy(e->mem + s->start, msg, len);
    memset(e->mem + s->start + len, 0, s->len - len);
    if (msg != e->mbx_last) {
        /* SoE drives and EoE endpoints send fragments unasked: keep the one before,
         * for a repeat */
        if ((e->soe || e->eoe) && !e->mbx_prev)
            e->mbx_prev = malloc(e->mem_size);
        if (e->mbx_prev) {
            uint8_t *t = e->mbx_prev;
            e->mbx_prev = e->mbx_last;
            e->mbx_prev_len = e->mbx_last_len;
            e->mbx_last = t;
        }
        memcpy(e->mbx_last, msg, len);
        e->mbx_last_len = len;
    }
    *status(e, n) |= ESC_SM_STAT_FULL;
}

static void take_request(struct sim_esc *e, int w, int r, takt_ns_t t)
{
    const struct esc_sm *s = &e->sm[w];
    const uint8_t *msg = e->mem + s->start;
    size_t len = MBX_HDR + get_le16(msg);
    if (len > s->len)
        len = s->len;
    if (e->mbx_reply_len)
        return;                   /* previous reply still held: SM0 stays full */
    *status(e, w) &= (uint8_t)~ESC_SM_STAT_FULL;   /* the PDI has read it */
    /* ETG.1000.6 5.3 (mailbox header, Cnt): a write with the counter of the write before
     * it is a repetition - the master wrote again because the frame's reply was lost or
     * late, though the first copy arrived - and is not served twice (a second FoE ACK
     * of one packet would read as a wrong packet number). Counter 0: not used. Only a
     * copy is a repetition: the same counter with other bytes is served (a master that
     * does not count). */
    uint8_t cnt = len >= MBX_HDR ? (uint8_t)((msg[5] >> 4) & 0x07) : 0;
    uint32_t hash = 2166136261u;                   /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ msg[i]) * 16777619u;
    if (cnt && cnt == e->mbx_rx_cnt && hash == e->mbx_rx_hash)
        return;
    e->mbx_rx_cnt = cnt;
    e->mbx_rx_hash = hash;
    size_t cap = r >= 0 ? e->sm[r].len : e->mem_size - ESC_REGS;
    size_t n = serve(e, msg, len, s->len, cap, t);
    e->mbx_reply_len = n <= cap ? n : 0;
}

void esc_mbx_pdi(struct sim_esc *e, takt_ns_t t)
{
    if (!e->mbx_active)
        return;
    int w = mbx_sm(e, true), r = mbx_sm(e, false);
    if (w >= 0 && (*status(e, w) & ESC_SM_STAT_FULL) && !e->mbx_reply_len)
        take_request(e, w, r, t);
    if (r < 0)
        return;
    uint8_t *reg = e->mem + ESC_SM0 + ESC_SM_SIZE * r;
    /* Repeat: the master toggled 0x0806 bit 1; put the last reply back and mirror the
     * toggle into 0x0807 bit 1 as the acknowledgement (ETG.1000.4 SyncManager repeat request). */
    if (((reg[SM_ACT] ^ reg[SM_PDI]) & 0x02)) {
        if ((*status(e, r) & ESC_SM_STAT_FULL) && e->mbx_prev_len && !e->mbx_reply_len) {
            /* a newer message went in after the lost one (the next SoE fragment): it
             * waits again, the lost one goes first (as the SSC's repeat handling does) */
            memcpy(e->mbx_reply, e->mbx_last, e->mbx_last_len);
            e->mbx_reply_len = e->mbx_last_len;
            uint8_t *newer = e->mbx_last;
            e->mbx_last = e->mbx_prev;
            e->mbx_last_len = e->mbx_prev_len;
            e->mbx_prev = newer;
            e->mbx_prev_len = 0;
        }
        if (e->mbx_last_len)
            place(e, r, e->mbx_last, e->mbx_last_len);
        reg[SM_PDI] = (uint8_t)((reg[SM_PDI] & ~0x02) | (reg[SM_ACT] & 0x02));
        return;
    }
    if (*status(e, r) & ESC_SM_STAT_FULL)
        return;
    if (e->mbx_reply_len) {
        place(e, r, e->mbx_reply, e->mbx_reply_len);
        e->mbx_reply_len = 0;
        if (w >= 0 && (*status(e, w) & ESC_SM_STAT_FULL))
            take_request(e, w, r, t);
        return;
    }
    size_t soe = esc_soe_pending(e, e->mbx_reply, e->sm[r].len);   /* next SoE fragment */
    if (soe) {
        place(e, r, e->mbx_reply, soe);
        return;
    }
    size_t eoe = esc_eoe_pending(e, e->mbx_reply, e->sm[r].len);   /* next EoE fragment */
    if (eoe) {
        place(e, r, e->mbx_reply, eoe);
        return;
    }
    if (e->dev && e->dev->ops->mbx_pending) {
        size_t n = e->dev->ops->mbx_pending(e->dev, e->mbx_reply, e->sm[r].len, t);
        if (n && n <= e->sm[r].len)
            place(e, r, e->mbx_reply, n);
    }
}
