/* CoE client, SDO part (ETG.1000.6 5.6 CoE): request builders, reply parsing, emergencies and the
 * sans-I/O transfer state machine (expedited, normal, segmented, complete access).
 * One function per state; every failure names slave, object, expected and found. */
#include "ecat/coe.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <takt/takt.h>
#include "util/wire.h"
#include "ecat/coe_internal.h"

/* SDO command byte (ETG.1000.6 5.6.2; CiA 301 numbering): specifier in bits 5-7. */
enum {
    SDO_SIZE = 0x01, SDO_EXP = 0x02, SDO_CA = 0x10, SDO_TOGGLE = 0x10, SDO_LAST = 0x01,
    SDO_CCS_DOWN_SEG = 0x00, SDO_CCS_DOWN = 0x20, SDO_CCS_UP = 0x40, SDO_CCS_UP_SEG = 0x60,
    SDO_ABORT = 0x80,
    SDO_SCS_UP_SEG = 0x00, SDO_SCS_DOWN_SEG = 0x20, SDO_SCS_UP = 0x40, SDO_SCS_DOWN = 0x60,
    SDO_SPEC_MASK = 0xE0,
};
/* Bytes before the data in a normal (non-segment) SDO message: mbx 6 + CoE 2 + cmd 1 +
 * index 2 + sub 1 + size 4; segments: mbx 6 + CoE 2 + cmd 1. */
enum { SDO_NORMAL_HDR = COE_OFF_DATA + 4, SDO_SEG_HDR = COE_OFF_SEG_DATA, SDO_SEG_MIN = 7 };

int ecat_coe_i_fail(struct ecat_coe_xfer *x, int rc, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(x->msg, sizeof x->msg, "slave %u: 0x%04X:%02X: ", x->req.pos,
                     x->req.index, x->req.subindex);
    if (n < 0 || (size_t)n >= sizeof x->msg)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(x->msg + n, sizeof x->msg - (size_t)n, fmt, ap);
    va_end(ap);
    x->state = COE_ST_FAILED;
    return rc;
}

void ecat_coe_i_put_hdr(uint8_t *buf, uint16_t mbx_len, uint8_t cnt, uint8_t service)
{
    struct ecat_mbx_hdr h = { .len = mbx_len, .type = MBX_TYPE_COE, .cnt = cnt };
    ecat_mbx_encode(buf, &h);
    put_le16(buf + COE_OFF_HDR, (uint16_t)(service << 12));   /* number 0 */
}

int ecat_coe_parse(const uint8_t *buf, size_t n, struct ecat_coe_msg *m)
{
    memset(m, 0, sizeof *m);
    int rc = ecat_mbx_decode(buf, n, &m->mbx);
    if (rc < 0)
        return rc;
    if (m->mbx.type != MBX_TYPE_COE || m->mbx.len < 2)
        return -EPROTO;
    uint16_t h = get_le16(buf + COE_OFF_HDR);
    m->number = h & 0x01FF;
    m->service = (uint8_t)(h >> 12);
    m->body = buf + COE_OFF_HDR + 2;
    m->body_len = m->mbx.len - 2u;
    if (m->service == COE_SDO_REQ || m->service == COE_SDO_RES) {
        /* segments carry no index; still at least 10 bytes (ETG.1000.6 5.6.2) */
        if (m->mbx.len < 3)
            return -EPROTO;
        m->cmd = buf[COE_OFF_CMD];
        if (m->mbx.len >= 6) {
            m->index = get_le16(buf + COE_OFF_INDEX);
            m->subindex = buf[COE_OFF_SUB];
        }
    }
    return 0;
}

static int build_sdo(uint8_t *buf, size_t cap, uint8_t cnt, uint8_t cmd, uint16_t index,
                     uint8_t sub, const uint8_t data4[4])
{
    if (cap < MBX_HDR + COE_SDO_LEN)
        return -ENOSPC;
    ecat_coe_i_put_hdr(buf, COE_SDO_LEN, cnt, COE_SDO_REQ);
    buf[COE_OFF_CMD] = cmd;
    put_le16(buf + COE_OFF_INDEX, index);
    buf[COE_OFF_SUB] = sub;
    memset(buf + COE_OFF_DATA, 0, 4);
    if (data4)
        memcpy(buf + COE_OFF_DATA, data4, 4);
    return MBX_HDR + COE_SDO_LEN;
}

int ecat_coe_build_upload(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t index, uint8_t sub, bool ca)
{
    return build_sdo(buf, cap, cnt, (uint8_t)(SDO_CCS_UP | (ca ? SDO_CA : 0)), index, sub, NULL);
}

int ecat_coe_build_download_exp(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t index,
                                uint8_t sub, const uint8_t *data, size_t n)
{
    if (n < 1 || n > 4)
        return -EINVAL;
    uint8_t d[4] = {0};
    memcpy(d, data, n);
    /* 0x23 | (4 - n) << 2: 0x2F one byte ... 0x23 four bytes (ETG.1000.6 5.6.2) */
    uint8_t cmd = (uint8_t)(SDO_CCS_DOWN | SDO_EXP | SDO_SIZE | (4 - n) << 2);
    return build_sdo(buf, cap, cnt, cmd, index, sub, d);
}

int ecat_coe_build_abort(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t index, uint8_t sub, uint32_t code)
{
    uint8_t d[4];
    put_le32(d, code);
    return build_sdo(buf, cap, cnt, SDO_ABORT, index, sub, d);
}

int ecat_coe_emcy_decode(const uint8_t *buf, size_t n, struct ecat_coe_emcy *e)
{
    struct ecat_coe_msg m;
    if (ecat_coe_parse(buf, n, &m) < 0 || m.service != COE_EMERGENCY || m.body_len < 8)
        return -EPROTO;
    e->code = get_le16(m.body);
    e->reg = m.body[2];
    memcpy(e->data, m.body + 3, 5);
    return 0;
}

const char *ecat_coe_emcy_text(uint16_t code)
{
    /* CiA 301 table 21 error code classes, by the high byte (or nibble) */
    switch (code >> 8) {
    case 0x00: return "error reset or no error";
    case 0x10: return "generic error";
    case 0x50: return "device hardware";
    case 0x61: return "internal software";
    case 0x62: return "user software";
    case 0x63: return "data set";
    case 0x70: return "additional modules";
    case 0x80: return "monitoring";
    case 0x81: return "communication";
    case 0x82: return "protocol error";
    case 0x90: return "external error";
    case 0xA0: return "EtherCAT state machine transition error";
    case 0xF0: return "additional functions";
    case 0xFF: return "device specific";
    }
    switch (code >> 12) {
    case 0x2: return "current";
    case 0x3: return "voltage";
    case 0x4: return "temperature";
    case 0x5: return "device hardware";
    case 0x6: return "device software";
    case 0x8: return "monitoring";
    default: return "unknown error class";
    }
}

/* --- transfer: sending side --------------------------------------------------- */

static uint8_t next_cnt(struct ecat_coe_xfer *x)
{
    x->sent_cnt = ecat_mbx_next_cnt(x->chan);
    return x->sent_cnt;
}

/* Client-side abort: fail with rc and put an abort request into out. */
int ecat_coe_i_abort(struct ecat_coe_xfer *x, int rc, uint32_t code, uint8_t *out, size_t cap,
              size_t *out_len)
{
    x->abort_code = code;
    int n = ecat_coe_build_abort(out, cap, next_cnt(x), x->req.index, x->req.subindex, code);
    *out_len = n > 0 ? (size_t)n : 0;
    x->state = COE_ST_FAILED;
    return rc;
}

/* Room for payload in one request to the slave's receive mailbox. */
static size_t mbx_room(const struct ecat_coe_xfer *x, size_t cap, size_t hdr)
{
    size_t lim = x->req.mbx_out ? x->req.mbx_out : cap;
    if (lim > cap)
        lim = cap;
    return lim > hdr ? lim - hdr : 0;
}

static int send_download_seg(struct ecat_coe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t room = mbx_room(x, cap, SDO_SEG_HDR);
    size_t left = x->req.len - x->done;
    size_t n = left < room ? left : room;
    bool last = n == left;
    if (room < SDO_SEG_MIN || cap < SDO_SEG_HDR + SDO_SEG_MIN)
        return ecat_coe_i_fail(x, -ENOSPC, "mailbox of %zu bytes too small for a download segment", room + SDO_SEG_HDR);
    /* segments shorter than 7 bytes are padded to the minimum mailbox length of 10 and
     * say how many bytes are unused (ETG.1000.6 5.6.2; SOEM ecx_SDOwrite) */
    uint8_t cmd = (uint8_t)(SDO_CCS_DOWN_SEG | x->toggle | (last ? SDO_LAST : 0));
    size_t body = n;
    if (n < SDO_SEG_MIN) {
        cmd |= (uint8_t)((SDO_SEG_MIN - n) << 1);
        body = SDO_SEG_MIN;
    }
    ecat_coe_i_put_hdr(out, (uint16_t)(3 + body), next_cnt(x), COE_SDO_REQ);
    out[COE_OFF_CMD] = cmd;
    memset(out + SDO_SEG_HDR, 0, body);
    memcpy(out + SDO_SEG_HDR, x->req.data + x->done, n);
    x->done += n;
    *out_len = SDO_SEG_HDR + body;
    x->state = COE_ST_DOWN_SEG;
    return ECAT_COE_SEND;
}

static int start_download(struct ecat_coe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    const struct ecat_coe_req *r = &x->req;
    if (r->len == 0 || !r->data)
        return ecat_coe_i_fail(x, -EINVAL, "download of 0 bytes");
    x->total = (uint32_t)r->len;
    if (r->len <= 4 && !r->complete_access) {
        int n = ecat_coe_build_download_exp(out, cap, next_cnt(x), r->index, r->subindex, r->data, r->len);
        if (n < 0)
            return ecat_coe_i_fail(x, n, "no room for the request (%zu bytes)", cap);
        x->done = r->len;
        *out_len = (size_t)n;
        x->state = COE_ST_DOWN_INIT;
        return ECAT_COE_SEND;
    }
    size_t room = mbx_room(x, cap, SDO_NORMAL_HDR);
    if (room == 0 || cap < SDO_NORMAL_HDR)
        return ecat_coe_i_fail(x, -ENOSPC, "mailbox too small for a normal download");
    size_t n = r->len < room ? r->len : room;
    ecat_coe_i_put_hdr(out, (uint16_t)(SDO_NORMAL_HDR - MBX_HDR + n), next_cnt(x), COE_SDO_REQ);
    out[COE_OFF_CMD] = (uint8_t)(SDO_CCS_DOWN | SDO_SIZE | (r->complete_access ? SDO_CA : 0));
    put_le16(out + COE_OFF_INDEX, r->index);
    out[COE_OFF_SUB] = r->subindex;
    put_le32(out + COE_OFF_DATA, (uint32_t)r->len);
    memcpy(out + SDO_NORMAL_HDR, r->data, n);
    x->done = n;
    *out_len = SDO_NORMAL_HDR + n;
    x->state = COE_ST_DOWN_INIT;
    return ECAT_COE_SEND;
}

static int send_upload_seg(struct ecat_coe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    int n = build_sdo(out, cap, next_cnt(x), (uint8_t)(SDO_CCS_UP_SEG | x->toggle),
                      x->req.index, x->req.subindex, NULL);
    if (n < 0)
        return ecat_coe_i_fail(x, n, "no room for an upload segment request");
    *out_len = (size_t)n;
    x->state = COE_ST_UP_SEG;
    return ECAT_COE_SEND;
}

int ecat_coe_xfer_start(struct ecat_coe_xfer *x, const struct ecat_coe_req *r,
                        struct ecat_mbx_chan *chan, uint8_t *out, size_t cap, size_t *out_len)
{
    memset(x, 0, sizeof *x);
    x->req = *r;
    x->chan = chan;
    *out_len = 0;
    if (r->op != ECAT_COE_DOWNLOAD && r->cap && !r->data)
        return ecat_coe_i_fail(x, -EINVAL, "result buffer missing (cap %zu)", r->cap);
    if (r->complete_access && r->subindex > 1)
        return ecat_coe_i_fail(x, -EINVAL, "complete access needs subindex 0 or 1, got %u", r->subindex);
    switch (r->op) {
    case ECAT_COE_UPLOAD: {
        int n = ecat_coe_build_upload(out, cap, next_cnt(x), r->index, r->subindex, r->complete_access);
        if (n < 0)
            return ecat_coe_i_fail(x, n, "no room for the request (%zu bytes)", cap);
        *out_len = (size_t)n;
        x->state = COE_ST_UP_INIT;
        return ECAT_COE_SEND;
    }
    case ECAT_COE_DOWNLOAD:
        return start_download(x, out, cap, out_len);
    case ECAT_COE_ODLIST:
    case ECAT_COE_OBJDESC:
    case ECAT_COE_ENTRYDESC:
        return ecat_coe_i_info_start(x, next_cnt(x), out, cap, out_len);
    }
    return ecat_coe_i_fail(x, -EINVAL, "unknown operation %d", (int)r->op);
}

/* --- transfer: receiving side, one function per state ------------------------- */

static int store(struct ecat_coe_xfer *x, const uint8_t *p, size_t n, uint8_t *out, size_t cap,
                 size_t *out_len)
{
    if (x->result_len + n > x->req.cap) {
        ecat_coe_i_abort(x, -EMSGSIZE, COE_ABORT_NOMEM, out, cap, out_len);
        return ecat_coe_i_fail(x, -EMSGSIZE, "upload of %zu bytes does not fit the %zu-byte buffer",
                        x->total ? (size_t)x->total : x->result_len + n, x->req.cap);
    }
    memcpy(x->req.data + x->result_len, p, n);
    x->result_len += n;
    return 0;
}

static int state_up_init(struct ecat_coe_xfer *x, const struct ecat_coe_msg *m, const uint8_t *in,
                         uint8_t *out, size_t cap, size_t *out_len)
{
    if ((m->cmd & SDO_SPEC_MASK) != SDO_SCS_UP)
        return ecat_coe_i_fail(x, -EPROTO, "upload: expected response command 0x4x, found 0x%02X", m->cmd);
    if (m->mbx.len < COE_SDO_LEN)
        return ecat_coe_i_fail(x, -EPROTO, "upload response: mailbox length %u, expected >= %d", m->mbx.len, COE_SDO_LEN);
    if (m->cmd & SDO_EXP) {
        /* expedited: 1..4 bytes in the 4 data bytes; without size indicated, all 4 */
        size_t n = m->cmd & SDO_SIZE ? 4u - ((m->cmd >> 2) & 3u) : 4u;
        x->total = (uint32_t)n;
        int rc = store(x, in + COE_OFF_DATA, n, out, cap, out_len);
        if (rc < 0)
            return rc;
        x->state = COE_ST_DONE;
        return ECAT_COE_DONE;
    }
    if (!(m->cmd & SDO_SIZE)) {
        /* size not indicated (CiA 301 e = 0, s = 0): everything comes in segments */
        x->total = 0;
        x->toggle = 0;
        return send_upload_seg(x, out, cap, out_len);
    }
    x->total = get_le32(in + COE_OFF_DATA);
    if (x->total > x->req.cap) {
        ecat_coe_i_abort(x, -EMSGSIZE, COE_ABORT_NOMEM, out, cap, out_len);
        return ecat_coe_i_fail(x, -EMSGSIZE, "upload of %u bytes does not fit the %zu-byte buffer",
                        x->total, x->req.cap);
    }
    if (m->mbx.len < SDO_NORMAL_HDR - MBX_HDR)
        return ecat_coe_i_fail(x, -EPROTO, "normal upload response of %u bytes, expected >= %d",
                        m->mbx.len, SDO_NORMAL_HDR - MBX_HDR);
    size_t n = m->mbx.len - (SDO_NORMAL_HDR - MBX_HDR);
    if (n > x->total)
        n = x->total;          /* padding after the object's data */
    int rc = store(x, in + SDO_NORMAL_HDR, n, out, cap, out_len);
    if (rc < 0)
        return rc;
    if (x->result_len >= x->total) {
        x->state = COE_ST_DONE;
        return ECAT_COE_DONE;
    }
    x->toggle = 0;             /* the first segment request carries toggle 0 (ETG.1000.6 5.6.2) */
    return send_upload_seg(x, out, cap, out_len);
}

static int state_up_seg(struct ecat_coe_xfer *x, const struct ecat_coe_msg *m, const uint8_t *in,
                        uint8_t *out, size_t cap, size_t *out_len)
{
    if ((m->cmd & SDO_SPEC_MASK) != SDO_SCS_UP_SEG) {
        ecat_coe_i_abort(x, -EPROTO, COE_ABORT_CMD, out, cap, out_len);
        return ecat_coe_i_fail(x, -EPROTO, "upload segment: expected response command 0x0x/0x1x, found 0x%02X", m->cmd);
    }
    if ((m->cmd & SDO_TOGGLE) != x->toggle) {
        ecat_coe_i_abort(x, -EPROTO, COE_ABORT_TOGGLE, out, cap, out_len);
        return ecat_coe_i_fail(x, -EPROTO, "upload segment %zu: expected toggle %u, found %u (command 0x%02X)",
                        x->result_len, x->toggle ? 1 : 0, m->cmd & SDO_TOGGLE ? 1 : 0, m->cmd);
    }
    size_t n = m->mbx.len - 3u;
    if (n == SDO_SEG_MIN)      /* the unused-bytes field applies to 7-byte segments (SOEM) */
        n -= (m->cmd >> 1) & 7u;
    int rc = store(x, in + SDO_SEG_HDR, n, out, cap, out_len);
    if (rc < 0)
        return rc;
    if (m->cmd & SDO_LAST) {
        if (x->total && x->result_len != x->total)
            return ecat_coe_i_fail(x, -EPROTO, "segmented upload ended after %zu bytes, the slave announced %u",
                            x->result_len, x->total);
        x->state = COE_ST_DONE;
        return ECAT_COE_DONE;
    }
    if (x->total && x->result_len >= x->total) {
        ecat_coe_i_abort(x, -EPROTO, COE_ABORT_GENERAL, out, cap, out_len);
        return ecat_coe_i_fail(x, -EPROTO, "segmented upload: %zu bytes received without the last-segment bit, %u announced",
                        x->result_len, x->total);
    }
    x->toggle ^= SDO_TOGGLE;
    return send_upload_seg(x, out, cap, out_len);
}

static int state_down_init(struct ecat_coe_xfer *x, const struct ecat_coe_msg *m, const uint8_t *in,
                           uint8_t *out, size_t cap, size_t *out_len)
{
    (void)in;
    if ((m->cmd & SDO_SPEC_MASK) != SDO_SCS_DOWN)
        return ecat_coe_i_fail(x, -EPROTO, "download: expected response command 0x60, found 0x%02X", m->cmd);
    if (m->subindex != x->req.subindex)
        return ecat_coe_i_fail(x, -EPROTO, "download response for subindex %u, expected %u", m->subindex, x->req.subindex);
    if (x->done >= x->req.len) {
        x->state = COE_ST_DONE;
        return ECAT_COE_DONE;
    }
    x->toggle = 0;
    return send_download_seg(x, out, cap, out_len);
}

static int state_down_seg(struct ecat_coe_xfer *x, const struct ecat_coe_msg *m, const uint8_t *in,
                          uint8_t *out, size_t cap, size_t *out_len)
{
    (void)in;
    if ((m->cmd & SDO_SPEC_MASK) != SDO_SCS_DOWN_SEG) {
        ecat_coe_i_abort(x, -EPROTO, COE_ABORT_CMD, out, cap, out_len);
        return ecat_coe_i_fail(x, -EPROTO, "download segment: expected response command 0x2x/0x3x, found 0x%02X", m->cmd);
    }
    if ((m->cmd & SDO_TOGGLE) != x->toggle) {
        ecat_coe_i_abort(x, -EPROTO, COE_ABORT_TOGGLE, out, cap, out_len);
        return ecat_coe_i_fail(x, -EPROTO, "download segment at byte %zu: expected toggle %u, found %u",
                        x->done, x->toggle ? 1 : 0, m->cmd & SDO_TOGGLE ? 1 : 0);
    }
    if (x->done >= x->req.len) {
        x->state = COE_ST_DONE;
        return ECAT_COE_DONE;
    }
    x->toggle ^= SDO_TOGGLE;
    return send_download_seg(x, out, cap, out_len);
}

typedef int (*sdo_state_fn)(struct ecat_coe_xfer *, const struct ecat_coe_msg *, const uint8_t *,
                            uint8_t *, size_t, size_t *);
static const sdo_state_fn sdo_states[COE_ST_COUNT] = {
    [COE_ST_UP_INIT] = state_up_init,
    [COE_ST_UP_SEG] = state_up_seg,
    [COE_ST_DOWN_INIT] = state_down_init,
    [COE_ST_DOWN_SEG] = state_down_seg,
};
_Static_assert(TAKT_ARRAY_SIZE(sdo_states) == COE_ST_COUNT, "one entry per state");

/* A reply that is a mailbox error or not CoE at all. */
static int judge_non_coe(struct ecat_coe_xfer *x, const uint8_t *in, size_t n, int prc,
                         const struct ecat_mbx_hdr *h)
{
    uint16_t detail;
    if (prc == -EMSGSIZE)
        return ecat_coe_i_fail(x, -EPROTO, "reply mailbox header announces %u bytes, %zu present",
                        h->len, n >= MBX_HDR ? n - MBX_HDR : 0);
    if (ecat_mbx_error_decode(in, n, &detail) == 0) {
        x->mbx_error = detail;
        return ecat_coe_i_fail(x, -TAKT_EMBOX, "mailbox error reply %u: %s", detail, ecat_mbx_error_text(detail));
    }
    if (h->type != MBX_TYPE_COE && h->type != MBX_TYPE_ERR)
        return ECAT_COE_WAIT;  /* EoE/FoE/... traffic is someone else's */
    return ecat_coe_i_fail(x, -EPROTO, "malformed reply (mailbox type %u, length %u, %zu bytes)", h->type, h->len, n);
}

int ecat_coe_xfer_on_reply(struct ecat_coe_xfer *x, const uint8_t *in, size_t n,
                           uint8_t *out, size_t cap, size_t *out_len)
{
    *out_len = 0;
    if (!ecat_coe_xfer_busy(x))
        return ecat_coe_i_fail(x, -EINVAL, "reply fed to a transfer that is not running");
    struct ecat_coe_msg m;
    int prc = ecat_coe_parse(in, n, &m);
    if (prc < 0)
        return judge_non_coe(x, in, n, prc, &m.mbx);
    if (ecat_mbx_rx_dup_msg(x->chan, in, n))
        return ECAT_COE_WAIT;  /* a repeated reply (repeat request): already handled */
    if (m.service == COE_EMERGENCY) {
        if (ecat_coe_emcy_decode(in, n, &x->emcy) == 0)
            x->n_emcy++;
        return ECAT_COE_WAIT;
    }
    if (x->state == COE_ST_INFO)
        return ecat_coe_i_info_reply(x, &m, in, out, cap, out_len);
    /* a slave's abort is an "abort SDO transfer request": CoE service 2 (ETG.1000.6;
     * IgH fsm_coe checks for it); service 3 is accepted too, as SOEM does */
    bool sdo = m.service == COE_SDO_RES || m.service == COE_SDO_REQ;
    if (!sdo || (m.service == COE_SDO_REQ && m.cmd != SDO_ABORT))
        return ecat_coe_i_fail(x, -EPROTO, "expected an SDO response (CoE service 3), found service %u", m.service);
    if (m.cmd == SDO_ABORT) {
        x->abort_code = m.mbx.len >= COE_SDO_LEN ? get_le32(in + COE_OFF_DATA) : 0;
        return ecat_coe_i_fail(x, -TAKT_ESDOABORT, "SDO abort 0x%08X: %s", x->abort_code,
                        takt_ecat_sdo_abort_text(x->abort_code));
    }
    /* segment responses carry data, not the index; initiate responses echo it */
    bool initiate = x->state == COE_ST_UP_INIT || x->state == COE_ST_DOWN_INIT;
    if (initiate && m.index != x->req.index)
        return ecat_coe_i_fail(x, -EPROTO, "response for object 0x%04X:%02X, expected 0x%04X", m.index,
                        m.subindex, x->req.index);
    return sdo_states[x->state](x, &m, in, out, cap, out_len);
}

int ecat_coe_xfer_timeout(struct ecat_coe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    *out_len = 0;
    bool sdo = x->state != COE_ST_INFO;
    int rc = ecat_coe_i_fail(x, -ETIMEDOUT, "no reply in time (state %d, %zu bytes done)", (int)x->state,
                      x->result_len ? x->result_len : x->done);
    if (sdo) {
        x->abort_code = COE_ABORT_TIMEOUT;
        int n = ecat_coe_build_abort(out, cap, ecat_mbx_next_cnt(x->chan), x->req.index,
                                     x->req.subindex, COE_ABORT_TIMEOUT);
        *out_len = n > 0 ? (size_t)n : 0;
    }
    return rc;
}
