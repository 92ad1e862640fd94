/* SDO sequence layer (EPSG DS 301 6.3; oplk sdoseq.c shows the states): 4-way connection
 * handshake, 6-bit frame numbering, acknowledge, retransmission on request (rcon 3) or
 * timeout, all driven by (frame, now) with no timers of its own. Also the payload
 * decoder and the abort code names. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plk/sdo_seq.h"
#include "plk/proto.h"
#include "util/wire.h"

#define SNR_NEXT(n) ((uint8_t)(((n) + 1) % PLK_SDO_SEQ_MOD))

void plk_sdo_timing_default(struct plk_sdo_timing *t)
{
    t->retransmit_ns = 100 * TAKT_NS_PER_MS;
    t->timeout_ns = (takt_ns_t)PLK_DEF_SDO_SEQ_TIMEOUT_MS * TAKT_NS_PER_MS;
    t->max_retries = 5;
    t->seg_size = PLK_SDO_SEG_MAX;
}

void plk_sdo_timing_for_cycle(struct plk_sdo_timing *t, uint32_t cycle_us)
{
    plk_sdo_timing_default(t);
    takt_ns_t cycles8 = 8 * (takt_ns_t)cycle_us * TAKT_NS_PER_US;
    if (cycles8 > t->retransmit_ns)
        t->retransmit_ns = cycles8;
}

int plk_sdo_decode(const uint8_t *p, size_t len, struct plk_sdo_hdr *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    if (len < PLK_SDO_SEQ_LEN) {
        if (err && errlen)
            snprintf(err, errlen, "SDO payload of %zu bytes, expected at least %d for the "
                     "sequence layer (frame offset 18)", len, PLK_SDO_SEQ_LEN);
        return -EPROTO;
    }
    h->rsnr = p[PLK_SDO_SEQ_OFF_RECV] >> 2;
    h->rcon = p[PLK_SDO_SEQ_OFF_RECV] & 3;
    h->ssnr = p[PLK_SDO_SEQ_OFF_SEND] >> 2;
    h->scon = p[PLK_SDO_SEQ_OFF_SEND] & 3;
    /* Padding of a short frame is zeros: a command header with size 0, command 0 and
     * no flags is no command at all (an ack). */
    if (len < PLK_SDO_DATA_OFF)
        return 0;
    const uint8_t *c = p + PLK_SDO_CMD_OFF;
    uint16_t seg = get_le16(p + PLK_SDO_CMD_OFF_SEGSIZE);
    if (c[2] == 0 && c[3] == 0 && seg == 0)
        return 0;
    if ((size_t)PLK_SDO_DATA_OFF + seg > len) {
        if (err && errlen)
            snprintf(err, errlen, "SDO command SegmentSize at frame offset %d is %u, but "
                     "only %zu data bytes arrived", 18 + PLK_SDO_CMD_OFF_SEGSIZE, seg,
                     len - PLK_SDO_DATA_OFF);
        return -EPROTO;
    }
    h->has_cmd = true;
    h->tid = p[PLK_SDO_CMD_OFF_TID];
    h->flags = p[PLK_SDO_CMD_OFF_FLAGS];
    h->cmd_id = p[PLK_SDO_CMD_OFF_ID];
    h->seg_size = seg;
    h->data = p + PLK_SDO_DATA_OFF;
    return 0;
}

void plk_sdo_seq_init(struct plk_sdo_seq *s, bool server)
{
    memset(s, 0, sizeof *s);
    s->server = server;
    s->state = PLK_SEQ_IDLE;
}

static void reset_numbers(struct plk_sdo_seq *s)
{
    s->my_snr = 0;
    s->peer_snr = 0;
    s->acked = 0;
    s->hist_n = 0;
    s->resend_due = false;
    s->ack_due = false;
    s->retrans_req_due = false;
    s->retries = 0;
    s->failed = false;
}

void plk_sdo_seq_open(struct plk_sdo_seq *s, takt_ns_t now)
{
    reset_numbers(s);
    s->state = PLK_SEQ_INIT1;     /* client: InitReq (rcon 0, scon 1) */
    s->hs_due = true;
    s->close_due = false;
    s->last_rx = now;
}

void plk_sdo_seq_close(struct plk_sdo_seq *s)
{
    if (s->state != PLK_SEQ_IDLE)
        s->close_due = true;
    s->state = PLK_SEQ_IDLE;
    s->hs_due = false;
    s->hist_n = 0;
}

bool plk_sdo_seq_failed(const struct plk_sdo_seq *s) { return s->failed; }

/* Connection codes a handshake frame carries in each state (oplk eSdoSeqState). */
static void hs_codes(const struct plk_sdo_seq *s, uint8_t *rcon, uint8_t *scon)
{
    switch (s->state) {
    case PLK_SEQ_INIT1: *rcon = 0; *scon = 1; break;   /* client InitReq */
    case PLK_SEQ_INIT2: *rcon = 1; *scon = 1; break;   /* server InitAck */
    case PLK_SEQ_INIT3: *rcon = 1; *scon = 2; break;   /* client InitResp */
    default:            *rcon = 2; *scon = 2; break;   /* Valid */
    }
}

static int put_seq(uint8_t *buf, size_t cap, uint8_t rsnr, uint8_t rcon, uint8_t ssnr,
                   uint8_t scon)
{
    if (cap < PLK_SDO_SEQ_LEN)
        return -ENOSPC;
    buf[PLK_SDO_SEQ_OFF_RECV] = (uint8_t)(rsnr << 2 | rcon);
    buf[PLK_SDO_SEQ_OFF_SEND] = (uint8_t)(ssnr << 2 | scon);
    buf[2] = buf[3] = 0;
    return PLK_SDO_SEQ_LEN;
}

/* Drop history frames the peer acknowledged with rsnr (only numbers we sent count). */
static void ack_upto(struct plk_sdo_seq *s, uint8_t rsnr)
{
    unsigned k = 0;
    for (unsigned i = 0; i < s->hist_n; i++)
        if (s->hist[i].ssnr == rsnr)
            k = i + 1;
    if (!k)
        return;
    memmove(&s->hist[0], &s->hist[k], (s->hist_n - k) * sizeof s->hist[0]);
    s->hist_n -= k;
    s->acked = rsnr;
    s->retries = 0;
    if (s->resend_from >= k)
        s->resend_from -= k;
    else
        s->resend_from = 0;
    if (s->hist_n == 0)
        s->resend_due = false;
}

static int rx_handshake(struct plk_sdo_seq *s, const struct plk_sdo_hdr *h)
{
    uint8_t r = h->rcon, c = h->scon;
    if (r == 0 && c == 1) {                 /* InitReq: (re)start as server */
        if (!s->server)
            return 0;
        bool restart = s->state == PLK_SEQ_VALID;
        reset_numbers(s);
        s->peer_snr = h->ssnr;
        s->my_snr = h->rsnr;
        s->state = PLK_SEQ_INIT2;
        s->hs_due = true;
        return restart ? -ECONNRESET : 0;
    }
    if (s->state == PLK_SEQ_INIT1 && r == 1 && c == 1) {   /* InitAck */
        s->peer_snr = h->ssnr;
        s->state = PLK_SEQ_INIT3;
        s->hs_due = true;
        return 0;
    }
    if (s->state == PLK_SEQ_INIT2 && r == 1 && c == 2) {   /* InitResp */
        s->peer_snr = h->ssnr;
        s->state = PLK_SEQ_VALID;
        s->hs_due = true;                    /* Valid (rcon 2, scon 2) */
        return 0;
    }
    if (s->state == PLK_SEQ_VALID && s->server && r == 1 && c == 2) {
        s->hs_due = true;                    /* our Valid was lost: repeat it */
        return 0;
    }
    if (s->state == PLK_SEQ_INIT3 && r == 2 && c == 2) {   /* Valid */
        s->state = PLK_SEQ_VALID;
        s->hs_due = false;
        return 0;
    }
    return 0;                                /* repeated InitAck and the like */
}

int plk_sdo_seq_rx(struct plk_sdo_seq *s, const struct plk_sdo_hdr *h, takt_ns_t now)
{
    s->last_rx = now;
    if (h->rcon == 0 && h->scon == 0) {     /* peer closed the connection */
        bool was = s->state != PLK_SEQ_IDLE;
        s->state = PLK_SEQ_IDLE;
        s->hs_due = false;
        s->hist_n = 0;
        return was ? -ECONNRESET : 0;
    }
    if (s->state != PLK_SEQ_VALID || h->rcon == 1 || h->scon == 1) {
        int rc = rx_handshake(s, h);
        /* Handshake frames carry no command data; a data frame before the connection
         * is valid is dropped (the peer resends it once the handshake completes). */
        if (rc || s->state != PLK_SEQ_VALID || h->scon == 1 || h->rcon == 1) {
            if (h->has_cmd)
                s->rx_dropped++;
            return rc;
        }
    }
    /* Connected: acknowledge bookkeeping first, then the peer's own numbering. */
    ack_upto(s, h->rsnr);
    if (h->rcon == PLK_SDO_CON_ERROR && s->hist_n) {
        s->resend_due = true;                /* peer saw a gap: resend what is open */
        s->resend_from = 0;
    }
    if (h->scon == PLK_SDO_CON_ERROR)
        s->ack_due = true;                   /* peer asks for an acknowledge */
    if (h->ssnr == s->peer_snr) {
        if (h->has_cmd) {
            s->rx_dropped++;                 /* duplicate of a frame we already have */
            s->ack_due = true;
        }
        return 0;
    }
    if (h->ssnr != SNR_NEXT(s->peer_snr)) {
        s->rx_dropped++;                     /* gap: ask for retransmission */
        s->retrans_req_due = true;
        return 0;
    }
    s->peer_snr = h->ssnr;
    s->retrans_req_due = false;
    if (!h->has_cmd)
        return 0;
    s->ack_due = true;
    return 1;
}

bool plk_sdo_seq_can_send(const struct plk_sdo_seq *s)
{
    return s->state == PLK_SEQ_VALID && !s->hs_due && s->hist_n < PLK_SDO_HISTORY &&
           !s->resend_due;
}

static uint8_t rcon_now(const struct plk_sdo_seq *s)
{
    return s->retrans_req_due ? PLK_SDO_CON_ERROR : PLK_SDO_CON_VALID;
}

int plk_sdo_seq_tx_data(struct plk_sdo_seq *s, uint8_t *buf, size_t cap,
                        const uint8_t *cmd, size_t cmd_len, takt_ns_t now)
{
    if (!plk_sdo_seq_can_send(s))
        return -EAGAIN;
    if (cmd_len + PLK_SDO_SEQ_LEN > sizeof s->hist[0].buf || cmd_len + PLK_SDO_SEQ_LEN > cap)
        return -ENOSPC;
    s->my_snr = SNR_NEXT(s->my_snr);
    put_seq(buf, cap, s->peer_snr, rcon_now(s), s->my_snr, PLK_SDO_CON_VALID);
    memcpy(buf + PLK_SDO_SEQ_LEN, cmd, cmd_len);
    size_t len = PLK_SDO_SEQ_LEN + cmd_len;
    struct plk_sdo_hist *hh = &s->hist[s->hist_n++];
    memcpy(hh->buf, buf, len);
    hh->len = (uint16_t)len;
    hh->ssnr = s->my_snr;
    s->ack_due = false;                      /* the acknowledge rides on this frame */
    s->retrans_req_due = false;
    s->last_tx = now;
    return (int)len;
}

/* Retransmission timer: unacknowledged frames older than retransmit_ns are resent,
 * and so is an unanswered handshake frame; too many retries kill the connection. */
static void run_timer(struct plk_sdo_seq *s, takt_ns_t now)
{
    bool waiting = s->hist_n > 0 || s->state == PLK_SEQ_INIT1 || s->state == PLK_SEQ_INIT3;
    if (!waiting || s->resend_due || s->hs_due || s->retransmit_ns <= 0)
        return;
    if (now - s->last_tx < s->retransmit_ns)
        return;
    if (++s->retries > s->max_retries) {
        s->failed = true;
        plk_sdo_seq_close(s);
        return;
    }
    if (s->hist_n) {
        s->resend_due = true;
        s->resend_from = 0;
    } else {
        s->hs_due = true;
    }
}

bool plk_sdo_seq_ctrl_due(const struct plk_sdo_seq *s, takt_ns_t now)
{
    if (s->close_due || s->hs_due || s->resend_due || s->ack_due || s->retrans_req_due)
        return true;
    bool waiting = s->hist_n > 0 || s->state == PLK_SEQ_INIT1 || s->state == PLK_SEQ_INIT3;
    return waiting && s->retransmit_ns > 0 && now - s->last_tx >= s->retransmit_ns;
}

int plk_sdo_seq_tx_ctrl(struct plk_sdo_seq *s, uint8_t *buf, size_t cap, takt_ns_t now,
                        bool urgent_only)
{
    run_timer(s, now);
    if (s->close_due) {
        s->close_due = false;
        s->last_tx = now;
        return put_seq(buf, cap, s->peer_snr, 0, s->my_snr, 0);
    }
    if (s->hs_due) {
        uint8_t r, c;
        hs_codes(s, &r, &c);
        s->hs_due = false;
        s->last_tx = now;
        return put_seq(buf, cap, s->peer_snr, r, s->my_snr, c);
    }
    if (s->resend_due && s->resend_from < s->hist_n) {
        struct plk_sdo_hist *hh = &s->hist[s->resend_from++];
        if (hh->len > cap)
            return -ENOSPC;
        memcpy(buf, hh->buf, hh->len);
        /* fresh acknowledge information on the resent frame */
        buf[PLK_SDO_SEQ_OFF_RECV] = (uint8_t)(s->peer_snr << 2 | rcon_now(s));
        if (s->resend_from >= s->hist_n)
            s->resend_due = false;
        s->retransmissions++;
        s->ack_due = false;
        s->last_tx = now;
        return hh->len;
    }
    s->resend_due = false;
    if (s->retrans_req_due || (s->ack_due && !urgent_only)) {
        uint8_t r = rcon_now(s);
        s->ack_due = false;
        s->retrans_req_due = false;
        s->last_tx = now;
        return put_seq(buf, cap, s->peer_snr, r, s->my_snr, PLK_SDO_CON_VALID);
    }
    return 0;
}

const char *plk_sdo_abort_name(uint32_t code)
{
    switch (code) {
    case 0x05030000: return "toggle bit not alternated";
    case 0x05040000: return "SDO protocol timed out";
    case 0x05040001: return "command specifier not valid or unknown";
    case 0x05040002: return "invalid block size";
    case 0x05040003: return "invalid sequence number";
    case 0x05040005: return "out of memory";
    case 0x06010000: return "unsupported access to an object";
    case 0x06010001: return "attempt to read a write-only object";
    case 0x06010002: return "attempt to write a read-only object";
    case 0x06020000: return "object does not exist in the object dictionary";
    case 0x06040041: return "object cannot be mapped to the PDO";
    case 0x06040042: return "number and length of objects would exceed PDO length";
    case 0x06040043: return "general parameter incompatibility";
    case 0x06060000: return "access failed due to a hardware error";
    case 0x06070010: return "data type does not match, length does not match";
    case 0x06070012: return "data type does not match, length too high";
    case 0x06070013: return "data type does not match, length too low";
    case 0x06090011: return "subindex does not exist";
    case 0x06090030: return "value range of parameter exceeded";
    case 0x06090031: return "value of parameter written too high";
    case 0x06090032: return "value of parameter written too low";
    case 0x08000000: return "general error";
    case 0x08000020: return "data cannot be transferred or stored";
    case 0x08000021: return "data cannot be transferred because of local control";
    case 0x08000022: return "data cannot be transferred in the present device state";
    default:         return "unknown abort code";
    }
}
