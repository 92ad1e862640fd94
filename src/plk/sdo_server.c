/* SDO command layer, server side on an object dictionary: expedited and segmented
 * WriteByIndex downloads and ReadByIndex uploads, aborts with CANopen codes. */
#include <errno.h>
#include <string.h>
#include "plk/sdo_seq.h"
#include "plk/od.h"
#include "util/wire.h"

void plk_sdo_server_init(struct plk_sdo_server *s, struct plk_od *od, const struct plk_sdo_timing *t)
{
    memset(s, 0, sizeof *s);
    if (t)
        s->tm = *t;
    else
        plk_sdo_timing_default(&s->tm);
    if (s->tm.seg_size < 8 || s->tm.seg_size > PLK_SDO_SEG_MAX)
        s->tm.seg_size = PLK_SDO_SEG_MAX;
    s->od = od;
    plk_sdo_server_reset(s);
}

void plk_sdo_server_reset(struct plk_sdo_server *s)
{
    uint64_t retrans = s->seq.retransmissions, dropped = s->seq.rx_dropped;
    plk_sdo_seq_init(&s->seq, true);
    s->seq.retransmit_ns = s->tm.retransmit_ns;
    s->seq.max_retries = s->tm.max_retries;
    s->seq.retransmissions = retrans;
    s->seq.rx_dropped = dropped;
    s->busy = s->reply_pending = s->uploading = s->reply_abort = false;
    s->len = s->done = s->total = 0;
}

static void reply_abort(struct plk_sdo_server *s, uint32_t code)
{
    s->busy = false;
    s->uploading = false;
    s->reply_pending = true;
    s->reply_abort = true;
    s->abort_code = code;
    s->aborts++;
}

static void reply_ok(struct plk_sdo_server *s)
{
    s->busy = false;
    s->reply_pending = true;
    s->reply_abort = false;
}

static void do_write(struct plk_sdo_server *s, uint16_t index, uint8_t sub,
                     const uint8_t *v, uint32_t n)
{
    uint32_t abort = 0;
    if (plk_od_write(s->od, index, sub, v, n, &abort)) {
        reply_abort(s, abort ? abort : PLK_ABORT_GENERAL);
        return;
    }
    s->writes++;
    reply_ok(s);
}

static void do_read(struct plk_sdo_server *s, uint16_t index, uint8_t sub)
{
    uint32_t abort = 0;
    size_t n = 0;
    if (plk_od_read(s->od, index, sub, s->data, sizeof s->data, &n, &abort)) {
        reply_abort(s, abort ? abort : PLK_ABORT_GENERAL);
        return;
    }
    s->reads++;
    s->len = (uint32_t)n;
    s->done = 0;
    s->uploading = n > s->tm.seg_size;   /* does not fit one frame: segmented upload */
    s->busy = s->uploading;
    s->reply_pending = true;
    s->reply_abort = false;
}

static void rx_expedited(struct plk_sdo_server *s, const struct plk_sdo_hdr *h)
{
    if (h->seg_size < 4) {
        reply_abort(s, PLK_ABORT_LENGTH);
        return;
    }
    uint16_t index = get_le16(h->data);
    uint8_t sub = h->data[2];
    if (h->cmd_id == PLK_SDO_CMD_WRITE_BY_INDEX)
        do_write(s, index, sub, h->data + 4, h->seg_size - 4u);
    else
        do_read(s, index, sub);
}

/* Segmented download: initiate announces the size and carries index/sub + data. */
static void rx_segment(struct plk_sdo_server *s, const struct plk_sdo_hdr *h, uint8_t seg)
{
    const uint8_t *d = h->data;
    uint32_t n = h->seg_size;
    if (seg == PLK_SDO_SEG_INITIATE) {
        if (n < 8) {
            reply_abort(s, PLK_ABORT_LENGTH);
            return;
        }
        uint32_t total = get_le32(d);
        if (total < 4 || total - 4 > PLK_SDO_DATA_MAX) {
            reply_abort(s, PLK_ABORT_OUT_OF_MEMORY);
            return;
        }
        s->busy = true;
        s->total = total - 4;
        s->index = get_le16(d + 4);
        s->sub = d[6];
        s->len = 0;
        d += 8;
        n -= 8;
    } else if (!s->busy || s->uploading || h->tid != s->tid) {
        reply_abort(s, PLK_ABORT_BAD_COMMAND);
        return;
    }
    if (s->len + n > s->total) {
        reply_abort(s, PLK_ABORT_LENGTH_HIGH);
        return;
    }
    memcpy(s->data + s->len, d, n);
    s->len += n;
    if (seg == PLK_SDO_SEG_COMPLETE) {
        if (s->len != s->total)
            reply_abort(s, PLK_ABORT_LENGTH_LOW);
        else
            do_write(s, s->index, s->sub, s->data, s->len);
    }
}

static void rx_command(struct plk_sdo_server *s, const struct plk_sdo_hdr *h)
{
    if (h->flags & PLK_SDO_F_RESPONSE) {
        s->seq.rx_dropped++;                 /* a server takes no responses */
        return;
    }
    if (h->flags & PLK_SDO_F_ABORT) {        /* client gave up: forget the transfer */
        s->busy = false;
        s->uploading = false;
        s->reply_pending = false;
        return;
    }
    uint8_t seg = (h->flags & PLK_SDO_F_SEG_MASK) >> PLK_SDO_F_SEG_SHIFT;
    if (seg == PLK_SDO_SEG_EXPEDITED || seg == PLK_SDO_SEG_INITIATE) {
        s->tid = h->tid;
        s->cmd_id = h->cmd_id;
        s->busy = false;
        s->uploading = false;
    }
    if (h->cmd_id != PLK_SDO_CMD_WRITE_BY_INDEX && h->cmd_id != PLK_SDO_CMD_READ_BY_INDEX) {
        reply_abort(s, PLK_ABORT_BAD_COMMAND);
        return;
    }
    if (seg == PLK_SDO_SEG_EXPEDITED)
        rx_expedited(s, h);
    else if (h->cmd_id == PLK_SDO_CMD_WRITE_BY_INDEX)
        rx_segment(s, h, seg);
    else
        reply_abort(s, PLK_ABORT_BAD_COMMAND);   /* a read request is never segmented */
}

int plk_sdo_server_rx(struct plk_sdo_server *s, const uint8_t *p, size_t len, takt_ns_t now,
                      char *err, size_t errlen)
{
    struct plk_sdo_hdr h;
    int rc = plk_sdo_decode(p, len, &h, err, errlen);
    if (rc) {
        s->seq.rx_dropped++;
        return rc;
    }
    rc = plk_sdo_seq_rx(&s->seq, &h, now);
    if (rc == -ECONNRESET) {                 /* client restarted or closed */
        s->busy = false;
        s->uploading = false;
        s->reply_pending = false;
        return 0;
    }
    if (rc == 1)
        rx_command(s, &h);
    return 0;
}

static size_t put_hdr(uint8_t *cmd, const struct plk_sdo_server *s, uint8_t flags, uint16_t seg)
{
    memset(cmd, 0, PLK_SDO_CMD_HDR);
    cmd[1] = s->tid;
    cmd[2] = (uint8_t)(PLK_SDO_F_RESPONSE | flags);
    cmd[3] = s->cmd_id;
    put_le16(cmd + 4, seg);
    return PLK_SDO_CMD_HDR;
}

/* The next response frame's command bytes. */
static size_t build_reply(struct plk_sdo_server *s, uint8_t *cmd)
{
    uint16_t seg = s->tm.seg_size;
    if (s->reply_abort) {
        put_hdr(cmd, s, PLK_SDO_F_ABORT, 4);
        put_le32(cmd + PLK_SDO_CMD_HDR, s->abort_code);
        s->reply_abort = false;
        s->reply_pending = false;
        return PLK_SDO_CMD_HDR + 4;
    }
    if (!s->uploading) {                      /* write ack or expedited read response */
        uint16_t n = (uint16_t)(s->cmd_id == PLK_SDO_CMD_READ_BY_INDEX ? s->len : 0);
        put_hdr(cmd, s, 0, n);
        memcpy(cmd + PLK_SDO_CMD_HDR, s->data, n);
        s->reply_pending = false;
        return PLK_SDO_CMD_HDR + n;
    }
    if (s->done == 0) {
        uint32_t first = seg - 4u;
        put_hdr(cmd, s, PLK_SDO_SEG_INITIATE << 4, seg);
        put_le32(cmd + PLK_SDO_CMD_HDR, s->len);
        memcpy(cmd + PLK_SDO_CMD_HDR + 4, s->data, first);
        s->done = first;
        return PLK_SDO_CMD_HDR + seg;
    }
    uint32_t left = s->len - s->done;
    uint32_t n = left > seg ? seg : left;
    put_hdr(cmd, s, (uint8_t)((left > seg ? PLK_SDO_SEG_SEGMENT : PLK_SDO_SEG_COMPLETE) << 4),
            (uint16_t)n);
    memcpy(cmd + PLK_SDO_CMD_HDR, s->data + s->done, n);
    s->done += n;
    if (s->done >= s->len) {
        s->uploading = false;
        s->busy = false;
        s->reply_pending = false;
    }
    return PLK_SDO_CMD_HDR + n;
}

int plk_sdo_server_tx(struct plk_sdo_server *s, uint8_t *buf, size_t cap, takt_ns_t now)
{
    if (s->seq.state == PLK_SEQ_VALID && now - s->seq.last_rx > s->tm.timeout_ns) {
        plk_sdo_seq_close(&s->seq);          /* client silent too long: drop it */
        s->busy = s->uploading = s->reply_pending = false;
    }
    int n = plk_sdo_seq_tx_ctrl(&s->seq, buf, cap, now, s->reply_pending);
    if (n != 0 || !s->reply_pending || !plk_sdo_seq_can_send(&s->seq))
        return n;
    uint8_t cmd[PLK_SDO_PAYLOAD_MAX];
    size_t len = build_reply(s, cmd);
    return plk_sdo_seq_tx_data(&s->seq, buf, cap, cmd, len, now);
}

bool plk_sdo_server_tx_pending(const struct plk_sdo_server *s, takt_ns_t now)
{
    if (plk_sdo_seq_ctrl_due(&s->seq, now))
        return true;
    return s->reply_pending && plk_sdo_seq_can_send(&s->seq);
}
