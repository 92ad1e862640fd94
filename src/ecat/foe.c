/* FoE codec (ETG.1000.6, File access over EtherCAT) and the master's transfer logic: RRQ/WRQ, DATA segments of
 * mailbox size - 12 bytes, a shorter (possibly empty) last one, ACK per packet, BUSY
 * answered by sending the last request again, ERR with code and text. */
#include "ecat/foe.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <takt/takt.h>
#include "util/wire.h"

int ecat_foe_decode(const uint8_t *buf, size_t n, struct ecat_foe_msg *m)
{
    *m = (struct ecat_foe_msg){0};
    if (ecat_mbx_decode(buf, n, &m->h) < 0)
        return -EMSGSIZE;
    if (m->h.type != MBX_TYPE_FOE)
        return -EPROTO;
    if (m->h.len < FOE_HDR)
        return -EMSGSIZE;
    m->op = buf[FOE_OFF_OP];
    m->arg = get_le32(buf + FOE_OFF_ARG);
    m->done = get_le16(buf + FOE_OFF_ARG);
    m->entire = get_le16(buf + FOE_OFF_ARG + 2);
    m->data = buf + FOE_OFF_DATA;
    m->len = (size_t)m->h.len - FOE_HDR;
    return 0;
}

size_t ecat_foe_encode(uint8_t *buf, size_t cap, uint8_t cnt, uint8_t op, uint32_t arg,
                       const void *data, size_t len)
{
    size_t total = (size_t)MBX_HDR + FOE_HDR + len;
    if (total > cap || len > 0xFFFF - FOE_HDR)
        return 0;
    struct ecat_mbx_hdr h = { .len = (uint16_t)(FOE_HDR + len), .type = MBX_TYPE_FOE, .cnt = cnt };
    ecat_mbx_encode(buf, &h);
    buf[FOE_OFF_OP] = op;
    buf[FOE_OFF_RES] = 0;
    put_le32(buf + FOE_OFF_ARG, arg);
    if (len)
        memcpy(buf + FOE_OFF_DATA, data, len);
    return total;
}

static const char *const foe_err_text[] = {
    [0x0] = "not defined", [0x1] = "file not found", [0x2] = "access denied",
    [0x3] = "disk full", [0x4] = "illegal operation", [0x5] = "wrong packet number",
    [0x6] = "file already exists", [0x7] = "no user", [0x8] = "only in bootstrap state",
    [0x9] = "not in bootstrap state", [0xA] = "no rights (password)", [0xB] = "program error",
};
_Static_assert(TAKT_ARRAY_SIZE(foe_err_text) == 12, "FoE error codes 0x8000..0x800B");

const char *ecat_foe_error_text(uint32_t code)
{
    if (code >= FOE_ERR_NOT_DEFINED && code - FOE_ERR_NOT_DEFINED < TAKT_ARRAY_SIZE(foe_err_text))
        return foe_err_text[code - FOE_ERR_NOT_DEFINED];
    return "vendor-specific error";
}

const char *ecat_foe_op_name(uint8_t op)
{
    static const char *const n[] = { [FOE_OP_RRQ] = "RRQ", [FOE_OP_WRQ] = "WRQ",
        [FOE_OP_DATA] = "DATA", [FOE_OP_ACK] = "ACK", [FOE_OP_ERR] = "ERR", [FOE_OP_BUSY] = "BUSY" };
    return op < TAKT_ARRAY_SIZE(n) && n[op] ? n[op] : "unknown";
}

/* --- client ------------------------------------------------------------------------ */
enum { FS_IDLE, FS_RRQ, FS_WRQ, FS_WDATA, FS_DONE };

static const char *dir_name(const struct ecat_foe_xfer *x)
{
    return x->dir == ECAT_FOE_READ ? "read" : "write";
}

static int send(struct ecat_foe_xfer *x, uint8_t *out, size_t cap, size_t *out_len, uint8_t op,
                uint32_t arg, const void *data, size_t len)
{
    *out_len = ecat_foe_encode(out, cap, ecat_mbx_next_cnt(x->ch), op, arg, data, len);
    if (!*out_len) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE %s of '%s': %s of %zu bytes does not fit "
                 "the %zu-byte mailbox", x->pos, dir_name(x), x->name, ecat_foe_op_name(op),
                 len, cap);
        return -EMSGSIZE;
    }
    return ECAT_FOE_SEND;
}

static int send_data(struct ecat_foe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t left = x->len - x->off;
    x->last_len = left < x->seg_out ? left : x->seg_out;
    return send(x, out, cap, out_len, FOE_OP_DATA, x->pkt, x->buf + x->off, x->last_len);
}

/* The request the slave answered with BUSY, once more (IgH fsm_foe, SOEM ecx_FOEwrite). */
static int resend(struct ecat_foe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    switch (x->state) {
    case FS_WRQ:
        return send(x, out, cap, out_len, FOE_OP_WRQ, x->password, x->name, strlen(x->name));
    case FS_WDATA:
        return send_data(x, out, cap, out_len);
    default:
        if (x->pkt <= 1)
            return send(x, out, cap, out_len, FOE_OP_RRQ, x->password, x->name, strlen(x->name));
        return send(x, out, cap, out_len, FOE_OP_ACK, x->pkt - 1, NULL, 0);
    }
}

/* The master gives up: an ERR tells the slave (out), the message tells the user. */
static int give_up(struct ecat_foe_xfer *x, uint8_t *out, size_t cap, size_t *out_len,
                   uint32_t code, int err)
{
    const char *t = ecat_foe_error_text(code);
    *out_len = ecat_foe_encode(out, cap, ecat_mbx_next_cnt(x->ch), FOE_OP_ERR, code, t, strlen(t));
    x->state = FS_DONE;
    return err;
}

int ecat_foe_xfer_start(struct ecat_foe_xfer *x, enum ecat_foe_dir dir, unsigned pos,
                        const char *name, uint32_t password, uint8_t *buf, size_t cap,
                        size_t mbx_out, size_t mbx_in, struct ecat_mbx_chan *ch,
                        uint8_t *out, size_t *out_len)
{
    *x = (struct ecat_foe_xfer){ .dir = (uint8_t)dir, .pos = pos, .password = password,
                                 .buf = buf, .ch = ch };
    *out_len = 0;
    size_t nl = name ? strlen(name) : 0;
    if (!nl || nl > ECAT_FOE_NAME_MAX) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE file name must have 1..%d bytes, got %zu",
                 pos, ECAT_FOE_NAME_MAX, nl);
        return -EINVAL;
    }
    memcpy(x->name, name, nl + 1);
    x->seg_out = ecat_foe_seg(mbx_out);
    x->seg_in = ecat_foe_seg(mbx_in);
    if (!x->seg_out || !x->seg_in || nl > x->seg_out) {
        snprintf(x->msg, sizeof x->msg, "slave %u: mailbox %zu/%zu bytes too small for FoE of '%s'",
                 pos, mbx_out, mbx_in, name);
        return -EMSGSIZE;
    }
    if (dir == ECAT_FOE_READ) {
        x->cap = cap;
        x->pkt = 1;
        x->state = FS_RRQ;
        return send(x, out, mbx_out, out_len, FOE_OP_RRQ, password, name, nl);
    }
    x->len = cap;
    x->pkt = 0;
    x->state = FS_WRQ;
    return send(x, out, mbx_out, out_len, FOE_OP_WRQ, password, name, nl);
}

static int on_error(struct ecat_foe_xfer *x, const struct ecat_foe_msg *m)
{
    char text[64] = "";
    size_t k = 0;
    for (size_t i = 0; i < m->len && k + 1 < sizeof text && m->data[i]; i++)
        text[k++] = (char)(m->data[i] >= 0x20 && m->data[i] < 0x7F ? m->data[i] : '?');
    text[k] = 0;
    x->err_code = m->arg;
    snprintf(x->msg, sizeof x->msg, "slave %u: FoE %s of '%s' refused: error 0x%04X (%s)%s%s%s",
             x->pos, dir_name(x), x->name, (unsigned)m->arg, ecat_foe_error_text(m->arg),
             k ? ", slave says \"" : "", text, k ? "\"" : "");
    x->state = FS_DONE;
    return -TAKT_EMBOX;
}

static int on_data(struct ecat_foe_xfer *x, const struct ecat_foe_msg *m, uint8_t *out,
                   size_t cap, size_t *out_len)
{
    if (m->arg != x->pkt || m->len > x->seg_in) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE read of '%s': expected DATA packet %u of "
                 "at most %zu bytes, got packet %u with %zu bytes", x->pos, x->name,
                 (unsigned)x->pkt, x->seg_in, (unsigned)m->arg, m->len);
        return give_up(x, out, cap, out_len, m->arg != x->pkt ? FOE_ERR_PACKET_NO : FOE_ERR_ILLEGAL,
                       -EPROTO);
    }
    if (m->len > x->cap - x->len) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE read of '%s': file larger than the %zu-byte "
                 "buffer (packet %u)", x->pos, x->name, x->cap, (unsigned)m->arg);
        return give_up(x, out, cap, out_len, FOE_ERR_DISK_FULL, -ENOSPC);
    }
    memcpy(x->buf + x->len, m->data, m->len);
    x->len += m->len;
    x->finish_on_send = m->len < x->seg_in;       /* a short (or empty) packet is the last */
    x->pkt++;
    return send(x, out, cap, out_len, FOE_OP_ACK, m->arg, NULL, 0);
}

static int on_ack(struct ecat_foe_xfer *x, const struct ecat_foe_msg *m, uint8_t *out,
                  size_t cap, size_t *out_len)
{
    if (m->arg != x->pkt) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE write of '%s': expected ACK of packet %u, "
                 "got ACK %u", x->pos, x->name, (unsigned)x->pkt, (unsigned)m->arg);
        return give_up(x, out, cap, out_len, FOE_ERR_PACKET_NO, -EPROTO);
    }
    if (x->state == FS_WDATA) {
        x->off += x->last_len;
        if (x->last_len < x->seg_out) {
            x->state = FS_DONE;
            return ECAT_FOE_DONE;
        }
    }
    x->state = FS_WDATA;
    x->pkt++;
    return send_data(x, out, cap, out_len);
}

int ecat_foe_xfer_on_reply(struct ecat_foe_xfer *x, const uint8_t *in, size_t n,
                           uint8_t *out, size_t cap, size_t *out_len)
{
    *out_len = 0;
    struct ecat_mbx_hdr h;
    uint16_t detail;
    if (ecat_mbx_decode(in, n, &h) < 0)
        return ECAT_FOE_WAIT;                       /* nothing readable: poll again */
    if (ecat_mbx_error_decode(in, n, &detail) == 0) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE %s of '%s': mailbox error %u (%s)", x->pos,
                 dir_name(x), x->name, detail, ecat_mbx_error_text(detail));
        x->state = FS_DONE;
        return -TAKT_EMBOX;
    }
    if (h.type != MBX_TYPE_FOE || ecat_mbx_rx_dup_msg(x->ch, in, n))
        return ECAT_FOE_WAIT;                       /* an emergency, or a repetition */
    struct ecat_foe_msg m;
    if (ecat_foe_decode(in, n, &m) < 0) {
        snprintf(x->msg, sizeof x->msg, "slave %u: FoE %s of '%s': reply of %u bytes is shorter "
                 "than the 6-byte FoE header", x->pos, dir_name(x), x->name, h.len);
        return give_up(x, out, cap, out_len, FOE_ERR_ILLEGAL, -EPROTO);
    }
    if (m.op == FOE_OP_ERR)
        return on_error(x, &m);
    if (m.op == FOE_OP_BUSY) {
        x->busy++;
        return resend(x, out, cap, out_len);
    }
    if (x->state == FS_RRQ && m.op == FOE_OP_DATA)
        return on_data(x, &m, out, cap, out_len);
    if ((x->state == FS_WRQ || x->state == FS_WDATA) && m.op == FOE_OP_ACK)
        return on_ack(x, &m, out, cap, out_len);
    snprintf(x->msg, sizeof x->msg, "slave %u: FoE %s of '%s': expected %s, got %s (opcode %u)",
             x->pos, dir_name(x), x->name, x->state == FS_RRQ ? "DATA" : "ACK",
             ecat_foe_op_name(m.op), m.op);
    return give_up(x, out, cap, out_len, FOE_ERR_ILLEGAL, -EPROTO);
}

void ecat_foe_xfer_progress(const struct ecat_foe_xfer *x, size_t *done, size_t *total)
{
    *done = x->dir == ECAT_FOE_READ ? x->len : x->off;
    *total = x->dir == ECAT_FOE_READ ? 0 : x->len;
}
