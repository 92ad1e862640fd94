/* SDO command layer, client side: WriteByIndex / ReadByIndex, expedited or segmented
 * (initiate, segment, complete), abort; carried by the sequence layer (sdo_seq.c).
 * Layout: EPSG DS 301 6.3 and Wireshark's epl dissector (initiate carries the u32 data size). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "plk/sdo_seq.h"
#include "plk/od.h"
#include "util/wire.h"

static void seq_setup(struct plk_sdo_seq *s, const struct plk_sdo_timing *t, bool server)
{
    plk_sdo_seq_init(s, server);
    s->retransmit_ns = t->retransmit_ns;
    s->max_retries = t->max_retries;
}

static uint16_t seg_size(const struct plk_sdo_timing *t)
{
    if (t->seg_size < 8 || t->seg_size > PLK_SDO_SEG_MAX)
        return PLK_SDO_SEG_MAX;
    return t->seg_size;
}

void plk_sdo_client_init(struct plk_sdo_client *c, const struct plk_sdo_timing *t)
{
    memset(c, 0, sizeof *c);
    if (t)
        c->tm = *t;
    else
        plk_sdo_timing_default(&c->tm);
    c->tm.seg_size = seg_size(&c->tm);
    c->tid = 0xFF;       /* start() increments: the first transfer has TID 0, as oplk's */
    seq_setup(&c->seq, &c->tm, false);
}

static int start(struct plk_sdo_client *c, uint8_t cmd, uint16_t index, uint8_t sub,
                 takt_ns_t now)
{
    if (c->status == PLK_SDO_BUSY)
        return -EBUSY;
    c->status = PLK_SDO_BUSY;
    c->cmd_id = cmd;
    c->index = index;
    c->sub = sub;
    c->tid++;
    c->done = 0;
    c->total = 0;
    c->abort_code = 0;
    c->abort_received = false;
    c->cmd_pending = true;
    c->started = now;
    c->seq.last_rx = now;
    if (c->seq.state == PLK_SEQ_IDLE || plk_sdo_seq_failed(&c->seq))
        plk_sdo_seq_open(&c->seq, now);
    return 0;
}

int plk_sdo_client_write(struct plk_sdo_client *c, uint16_t index, uint8_t sub,
                         const void *data, size_t len, takt_ns_t now)
{
    if (len > PLK_SDO_DATA_MAX)
        return -EMSGSIZE;
    if (c->status == PLK_SDO_BUSY)
        return -EBUSY;
    memcpy(c->data, data, len);
    c->len = (uint32_t)len;
    return start(c, PLK_SDO_CMD_WRITE_BY_INDEX, index, sub, now);
}

int plk_sdo_client_read(struct plk_sdo_client *c, uint16_t index, uint8_t sub, takt_ns_t now)
{
    c->len = 0;
    return start(c, PLK_SDO_CMD_READ_BY_INDEX, index, sub, now);
}

/* An abort goes out as the next command frame; the transfer ends at once. */
static void finish_abort(struct plk_sdo_client *c, uint32_t code, bool received)
{
    c->status = PLK_SDO_ABORTED;
    c->abort_code = code;
    c->abort_received = received;
    c->cmd_pending = !received;      /* our own abort still has to be sent */
}

void plk_sdo_client_abort(struct plk_sdo_client *c, uint32_t code)
{
    if (c->status == PLK_SDO_BUSY)
        finish_abort(c, code, false);
}

void plk_sdo_client_close(struct plk_sdo_client *c)
{
    plk_sdo_seq_close(&c->seq);
    if (c->status == PLK_SDO_BUSY)
        c->status = PLK_SDO_IDLE;
    c->cmd_pending = false;
}

/* Command header (8 bytes) into cmd[], returns data pointer. */
static uint8_t *cmd_hdr(uint8_t *cmd, uint8_t tid, uint8_t flags, uint8_t id, uint16_t seg)
{
    memset(cmd, 0, PLK_SDO_CMD_HDR);
    cmd[1] = tid;
    cmd[2] = flags;
    cmd[3] = id;
    put_le16(cmd + 4, seg);
    return cmd + PLK_SDO_CMD_HDR;
}

/* Next command-layer bytes of the running request; length, 0 if none left. */
static size_t next_cmd(struct plk_sdo_client *c, uint8_t *cmd)
{
    uint16_t seg = c->tm.seg_size;
    if (c->status == PLK_SDO_ABORTED) {
        uint8_t *d = cmd_hdr(cmd, c->tid, PLK_SDO_F_ABORT, c->cmd_id, 4);
        put_le32(d, c->abort_code);
        return PLK_SDO_CMD_HDR + 4;
    }
    if (c->cmd_id == PLK_SDO_CMD_READ_BY_INDEX || c->len + 4 <= seg) {
        uint16_t n = (uint16_t)(4 + (c->cmd_id == PLK_SDO_CMD_WRITE_BY_INDEX ? c->len : 0));
        uint8_t *d = cmd_hdr(cmd, c->tid, PLK_SDO_SEG_EXPEDITED << 4, c->cmd_id, n);
        put_le16(d, c->index);
        d[2] = c->sub;
        d[3] = 0;
        memcpy(d + 4, c->data, n - 4u);
        c->done = c->len;
        return PLK_SDO_CMD_HDR + n;
    }
    if (c->done == 0) {                      /* initiate: size, index, first bytes */
        uint32_t first = seg - 8u;
        uint8_t *d = cmd_hdr(cmd, c->tid, PLK_SDO_SEG_INITIATE << 4, c->cmd_id, seg);
        put_le32(d, c->len + 4);
        put_le16(d + 4, c->index);
        d[6] = c->sub;
        d[7] = 0;
        memcpy(d + 8, c->data, first);
        c->done = first;
        return PLK_SDO_CMD_HDR + seg;
    }
    uint32_t left = c->len - c->done;
    uint32_t n = left > seg ? seg : left;
    uint8_t type = left > seg ? PLK_SDO_SEG_SEGMENT : PLK_SDO_SEG_COMPLETE;
    uint8_t *d = cmd_hdr(cmd, c->tid, (uint8_t)(type << 4), c->cmd_id, (uint16_t)n);
    memcpy(d, c->data + c->done, n);
    c->done += n;
    return PLK_SDO_CMD_HDR + n;
}

static bool request_left(const struct plk_sdo_client *c)
{
    return c->cmd_pending && (c->status == PLK_SDO_BUSY || c->status == PLK_SDO_ABORTED);
}

static void check_timeout(struct plk_sdo_client *c, takt_ns_t now)
{
    if (c->status != PLK_SDO_BUSY)
        return;
    if (plk_sdo_seq_failed(&c->seq) || now - c->seq.last_rx > c->tm.timeout_ns) {
        c->status = PLK_SDO_TIMEOUT;
        c->abort_code = PLK_ABORT_TIMEOUT;
        c->cmd_pending = false;
    }
}

int plk_sdo_client_tx(struct plk_sdo_client *c, uint8_t *buf, size_t cap, takt_ns_t now)
{
    check_timeout(c, now);
    int n = plk_sdo_seq_tx_ctrl(&c->seq, buf, cap, now, request_left(c));
    if (n != 0)
        return n;
    if (!request_left(c) || !plk_sdo_seq_can_send(&c->seq))
        return 0;
    uint8_t cmd[PLK_SDO_PAYLOAD_MAX];
    size_t len = next_cmd(c, cmd);
    if (c->status == PLK_SDO_ABORTED || c->done >= c->len)
        c->cmd_pending = false;              /* whole request handed to the sequence layer */
    return plk_sdo_seq_tx_data(&c->seq, buf, cap, cmd, len, now);
}

bool plk_sdo_client_tx_pending(const struct plk_sdo_client *c, takt_ns_t now)
{
    if (plk_sdo_seq_ctrl_due(&c->seq, now))
        return true;
    return request_left(c) && plk_sdo_seq_can_send(&c->seq);
}

/* A response of a segmented read: collect into data[]. */
static void rx_read_data(struct plk_sdo_client *c, uint8_t seg, const uint8_t *d, uint32_t n)
{
    if (seg == PLK_SDO_SEG_INITIATE) {
        if (n < 4) {
            finish_abort(c, PLK_ABORT_LENGTH, false);
            return;
        }
        c->total = get_le32(d);
        d += 4;
        n -= 4;
        c->len = 0;
    }
    if (seg == PLK_SDO_SEG_EXPEDITED)
        c->len = 0;
    if (c->len + n > PLK_SDO_DATA_MAX || (c->total && c->len + n > c->total)) {
        finish_abort(c, PLK_ABORT_OUT_OF_MEMORY, false);
        return;
    }
    memcpy(c->data + c->len, d, n);
    c->len += n;
    if (seg == PLK_SDO_SEG_EXPEDITED) {
        c->status = PLK_SDO_DONE;
    } else if (seg == PLK_SDO_SEG_COMPLETE) {
        if (c->len == c->total)
            c->status = PLK_SDO_DONE;
        else
            finish_abort(c, PLK_ABORT_LENGTH, false);
    }
}

static void rx_response(struct plk_sdo_client *c, const struct plk_sdo_hdr *h)
{
    if (c->status != PLK_SDO_BUSY || h->tid != c->tid || !(h->flags & PLK_SDO_F_RESPONSE)) {
        c->seq.rx_dropped++;                 /* stale or not for this transfer */
        return;
    }
    if (h->flags & PLK_SDO_F_ABORT) {
        finish_abort(c, h->seg_size >= 4 ? get_le32(h->data) : PLK_ABORT_GENERAL, true);
        return;
    }
    if (h->cmd_id != c->cmd_id) {
        finish_abort(c, PLK_ABORT_BAD_COMMAND, false);
        return;
    }
    uint8_t seg = (h->flags & PLK_SDO_F_SEG_MASK) >> PLK_SDO_F_SEG_SHIFT;
    if (c->cmd_id == PLK_SDO_CMD_WRITE_BY_INDEX) {
        if (!c->cmd_pending && c->done >= c->len)
            c->status = PLK_SDO_DONE;
        return;
    }
    rx_read_data(c, seg, h->data, h->seg_size);
}

int plk_sdo_client_rx(struct plk_sdo_client *c, const uint8_t *p, size_t len, takt_ns_t now,
                      char *err, size_t errlen)
{
    struct plk_sdo_hdr h;
    int rc = plk_sdo_decode(p, len, &h, err, errlen);
    if (rc) {
        c->seq.rx_dropped++;
        return rc;
    }
    rc = plk_sdo_seq_rx(&c->seq, &h, now);
    if (rc == -ECONNRESET) {
        if (c->status == PLK_SDO_BUSY) {
            c->status = PLK_SDO_ABORTED;
            c->abort_code = PLK_ABORT_DATA_TRANSFER;
            c->abort_received = true;
            c->cmd_pending = false;
        }
        return 0;
    }
    if (rc == 1)
        rx_response(c, &h);
    return 0;
}
