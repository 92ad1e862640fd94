/* SoE codec (ETG.1000.6, Servo drive profile over EtherCAT) and the master's transfer logic: a read request answered by
 * one response or by fragments (Incomplete set, the IDN field counting the fragments
 * still to come) that the master collects without answering; a write sent in fragments
 * of mailbox size - 10 bytes, only the last one answered; errors as a response with the
 * Error bit and a u16 code. */
#include "ecat/soe.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/takt.h>
#include "util/wire.h"

int ecat_soe_decode(const uint8_t *buf, size_t n, struct ecat_soe_msg *m)
{
    *m = (struct ecat_soe_msg){0};
    if (ecat_mbx_decode(buf, n, &m->h) < 0)
        return -EMSGSIZE;
    if (m->h.type != MBX_TYPE_SOE)
        return -EPROTO;
    if (m->h.len < SOE_HDR)
        return -EMSGSIZE;
    uint8_t b = buf[SOE_OFF_OP];
    m->op = b & 0x07;
    m->incomplete = (b & SOE_F_INCOMPLETE) != 0;
    m->error = (b & SOE_F_ERROR) != 0;
    m->drive = b >> 5;
    m->elements = buf[SOE_OFF_ELEM];
    m->idn = get_le16(buf + SOE_OFF_IDN);
    m->data = buf + SOE_OFF_DATA;
    m->len = (size_t)m->h.len - SOE_HDR;
    /* the code is the response's last u16 (SOEM ecx_SoEread reads it there) */
    if (m->error && m->len >= 2)
        m->err_code = get_le16(m->data + m->len - 2);
    return 0;
}

size_t ecat_soe_encode(uint8_t *buf, size_t cap, uint8_t cnt, uint8_t op, uint8_t flags,
                       uint8_t drive, uint8_t elements, uint16_t idn, const void *data,
                       size_t len)
{
    size_t total = (size_t)MBX_HDR + SOE_HDR + len;
    if (total > cap || len > 0xFFFF - SOE_HDR)
        return 0;
    struct ecat_mbx_hdr h = { .len = (uint16_t)(SOE_HDR + len), .type = MBX_TYPE_SOE, .cnt = cnt };
    ecat_mbx_encode(buf, &h);
    buf[SOE_OFF_OP] = (uint8_t)((op & 0x07) | (flags & (SOE_F_INCOMPLETE | SOE_F_ERROR)) |
                                (drive & 0x07) << 5);
    buf[SOE_OFF_ELEM] = elements;
    put_le16(buf + SOE_OFF_IDN, idn);
    if (len)
        memcpy(buf + SOE_OFF_DATA, data, len);
    return total;
}

static const struct { uint16_t code; const char *text; } soe_err[] = {
    { 0x0000, "no error" },
    { 0x1001, "no such IDN" },
    { 0x1009, "element 1 (IDN) cannot be accessed" },
    { 0x2001, "IDN has no name" },
    { 0x2002, "name too short" },
    { 0x2003, "name too long" },
    { 0x2004, "name is read-only" },
    { 0x2005, "name is write-protected in this state" },
    { 0x3002, "attribute too short" },
    { 0x3003, "attribute too long" },
    { 0x3004, "attribute is read-only" },
    { 0x3005, "attribute is write-protected in this state" },
    { 0x4001, "IDN has no unit" },
    { 0x4002, "unit too short" },
    { 0x4003, "unit too long" },
    { 0x4004, "unit is read-only" },
    { 0x4005, "unit is write-protected in this state" },
    { 0x5001, "IDN has no minimum" },
    { 0x5002, "minimum too short" },
    { 0x5003, "minimum too long" },
    { 0x5004, "minimum is read-only" },
    { 0x5005, "minimum is write-protected in this state" },
    { 0x6001, "IDN has no maximum" },
    { 0x6002, "maximum too short" },
    { 0x6003, "maximum too long" },
    { 0x6004, "maximum is read-only" },
    { 0x6005, "maximum is write-protected in this state" },
    { 0x7002, "value too short" },
    { 0x7003, "value too long" },
    { 0x7004, "is read-only" },
    { 0x7005, "is write-protected in this state" },
    { 0x7006, "value below the minimum" },
    { 0x7007, "value above the maximum" },
    { 0x7008, "value invalid (names an IDN the drive does not support)" },
    { 0x7009, "is write-protected by a password" },
    { 0x700A, "is write-protected: configured for cyclic data" },
    { 0x700B, "invalid indirect addressing (data container or list)" },
    { 0x700C, "is write-protected by other settings" },
    { 0x7010, "procedure command already active" },
    { 0x7011, "procedure command cannot be interrupted" },
    { 0x7012, "procedure command cannot run in this state" },
    { 0x7013, "procedure command cannot run with these parameters" },
    { 0x7014, "IDN has no data state" },
    { 0x8001, "IDN has no default value" },
    { 0x8002, "default value too long" },
    { 0x8004, "default value is read-only" },
    { 0x800A, "no such drive number" },
    { 0x800B, "general error" },
    { 0x800C, "no element addressed" },
};

const char *takt_ecat_soe_error_text(uint16_t code)
{
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(soe_err); i++)
        if (soe_err[i].code == code)
            return soe_err[i].text;
    return "unknown SoE error";
}

const char *ecat_soe_op_name(uint8_t op)
{
    static const char *const n[] = { [SOE_OP_READ_REQ] = "read request",
        [SOE_OP_READ_RES] = "read response", [SOE_OP_WRITE_REQ] = "write request",
        [SOE_OP_WRITE_RES] = "write response", [SOE_OP_NOTIFY] = "notification",
        [SOE_OP_EMERGENCY] = "emergency" };
    return op < TAKT_ARRAY_SIZE(n) && n[op] ? n[op] : "unknown";
}

int takt_ecat_soe_idn_parse(const char *s, uint16_t *idn, char *err, size_t errlen)
{
    const char *what = "expected an IDN like S-0-0036 or P-0-0010 (S/P, parameter set 0-7, "
                       "number 0-4095) or a number 0..65535";
    if (!s || !*s) {
        snprintf(err, errlen, "empty IDN: %s", what);
        return -EINVAL;
    }
    char c = (char)toupper((unsigned char)s[0]);
    if ((c == 'S' || c == 'P') && s[1] == '-') {
        char *e;
        if (!isdigit((unsigned char)s[2]) || s[3] != '-' || !isdigit((unsigned char)s[4]))
            goto bad;
        unsigned set = (unsigned)(s[2] - '0');
        unsigned long num = strtoul(s + 4, &e, 10);
        if (*e || set > 7 || num > 4095)
            goto bad;
        *idn = (uint16_t)((c == 'P' ? 0x8000u : 0) | set << 12 | num);
        return 0;
    }
    if (isdigit((unsigned char)s[0])) {
        char *e;
        unsigned long v = strtoul(s, &e, 0);
        if (*e || v > 0xFFFF)
            goto bad;
        *idn = (uint16_t)v;
        return 0;
    }
bad:
    snprintf(err, errlen, "IDN '%s': %s", s, what);
    return -EINVAL;
}

void takt_ecat_soe_idn_format(uint16_t idn, char buf[TAKT_ECAT_SOE_IDN_STR])
{
    snprintf(buf, TAKT_ECAT_SOE_IDN_STR, "%c-%u-%04u", idn & 0x8000 ? 'P' : 'S', (idn >> 12) & 7,
             idn & 0x0FFF);
}

static const char *const el_names[8] = { "state", "name", "attribute", "unit", "min", "max",
                                         "value", "default" };

const char *takt_ecat_soe_element_name(uint8_t flag)
{
    for (unsigned i = 0; i < 8; i++)
        if (flag == 1u << i)
            return el_names[i];
    return "?";
}

int takt_ecat_soe_elements_parse(const char *s, uint8_t *flags, char *err, size_t errlen)
{
    *flags = 0;
    while (s && *s) {
        size_t n = strcspn(s, ",");
        unsigned i = 0;
        while (i < 8 && !(strlen(el_names[i]) == n && !strncmp(s, el_names[i], n)) &&
               !(n == 4 && i == 2 && !strncmp(s, "attr", 4)))
            i++;
        if (i == 8) {
            snprintf(err, errlen, "element '%.*s': expected a comma list of state, name, "
                     "attribute, unit, min, max, value, default", (int)n, s);
            return -EINVAL;
        }
        *flags |= (uint8_t)(1u << i);
        s += n;
        if (*s == ',')
            s++;
    }
    if (!*flags) {
        snprintf(err, errlen, "no element given: expected e.g. value or name,value,unit");
        return -EINVAL;
    }
    return 0;
}

/* A list element: u16 current length in bytes, u16 maximum, then the bytes. */
static int take_list(const uint8_t *d, size_t len, size_t *off, struct takt_ecat_soe_part *p)
{
    if (len - *off < 4)
        return -EPROTO;
    size_t cur = get_le16(d + *off);
    if (cur > len - *off - 4)
        return -EPROTO;
    p->p = d + *off;
    p->len = 4 + cur;
    *off += 4 + cur;
    return 0;
}

int takt_ecat_soe_elements_split(const uint8_t *data, size_t len, uint8_t elements, uint32_t attr,
                            struct takt_ecat_soe_part part[8], char *err, size_t errlen)
{
    size_t off = 0;
    bool have_attr = false;
    memset(part, 0, 8 * sizeof *part);
    for (unsigned i = 0; i < 8; i++) {
        uint8_t f = (uint8_t)(1u << i);
        if (!(elements & f))
            continue;
        int rc = 0;
        size_t fixed = 0;
        if (f == SOE_EL_NAME || f == SOE_EL_UNIT) {
            rc = take_list(data, len, &off, &part[i]);
        } else if (f == SOE_EL_STATE) {
            fixed = 2;
        } else if (f == SOE_EL_ATTR) {
            fixed = 4;
        } else if (!have_attr && !attr) {
            snprintf(err, errlen, "element %s: its size needs the IDN's attribute",
                     el_names[i]);
            return -EPROTO;
        } else if (soe_attr_list(attr)) {
            rc = take_list(data, len, &off, &part[i]);
        } else {
            fixed = soe_attr_item(attr);
        }
        if (fixed) {
            if (len - off < fixed) {
                rc = -EPROTO;
            } else {
                part[i] = (struct takt_ecat_soe_part){ data + off, fixed };
                if (f == SOE_EL_ATTR) {
                    attr = get_le32(data + off);
                    have_attr = true;
                }
                off += fixed;
            }
        }
        if (rc) {
            snprintf(err, errlen, "element %s does not fit: %zu bytes left at offset %zu of %zu",
                     el_names[i], len - off, off, len);
            return -EPROTO;
        }
    }
    if (off != len) {
        snprintf(err, errlen, "%zu bytes after the last element (%zu expected)", len - off, off);
        return -EPROTO;
    }
    return 0;
}

/* --- client ------------------------------------------------------------------------ */
enum { XS_IDLE, XS_WRITING, XS_WAIT, XS_DONE };

static const char *dir_name(const struct ecat_soe_xfer *x)
{
    return x->dir == ECAT_SOE_READ ? "read" : "write";
}

static int send_fragment(struct ecat_soe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t left = x->len - x->off;
    size_t n = left < x->seg ? left : x->seg;
    uint8_t flags = 0;
    uint16_t field = x->idn;
    if (n < left) {
        /* not the last: the IDN field counts the fragments that follow (ETG.1000.6, Servo drive profile over EtherCAT) */
        flags = SOE_F_INCOMPLETE;
        field = (uint16_t)((left - n + x->seg - 1) / x->seg);
    }
    *out_len = ecat_soe_encode(out, cap, ecat_mbx_next_cnt(x->ch), SOE_OP_WRITE_REQ, flags,
                               x->drive, x->elements, field, x->buf + x->off, n);
    if (!*out_len) {
        snprintf(x->msg, sizeof x->msg, "slave %u: SoE write: %zu bytes do not fit the %zu-byte "
                 "mailbox", x->pos, n, cap);
        return -EMSGSIZE;
    }
    x->off += n;
    return ECAT_SOE_SEND;
}

int ecat_soe_xfer_start(struct ecat_soe_xfer *x, enum ecat_soe_dir dir, unsigned pos,
                        uint8_t drive, uint8_t elements, uint16_t idn, uint8_t *buf, size_t cap,
                        size_t mbx_out, struct ecat_mbx_chan *ch, uint8_t *out, size_t *out_len)
{
    *x = (struct ecat_soe_xfer){ .dir = (uint8_t)dir, .pos = pos, .drive = drive,
                                 .elements = elements, .idn = idn, .buf = buf, .ch = ch };
    *out_len = 0;
    char s[TAKT_ECAT_SOE_IDN_STR];
    takt_ecat_soe_idn_format(idn, s);
    if (drive > 7 || !elements) {
        snprintf(x->msg, sizeof x->msg, "slave %u: SoE %s of %s: drive number must be 0..7 and "
                 "at least one element given (got drive %u, elements 0x%02X)", pos,
                 dir_name(x), s, drive, elements);
        return -EINVAL;
    }
    x->seg = ecat_soe_seg(mbx_out);
    if (!x->seg) {
        snprintf(x->msg, sizeof x->msg, "slave %u: mailbox of %zu bytes too small for SoE",
                 pos, mbx_out);
        return -EMSGSIZE;
    }
    if (dir == ECAT_SOE_READ) {
        x->cap = cap;
        x->state = XS_WAIT;
        *out_len = ecat_soe_encode(out, mbx_out, ecat_mbx_next_cnt(ch), SOE_OP_READ_REQ, 0, drive,
                                   elements, idn, NULL, 0);
        return ECAT_SOE_SEND;
    }
    x->len = cap;
    x->state = XS_WRITING;
    return send_fragment(x, out, mbx_out, out_len);
}

int ecat_soe_xfer_sent(struct ecat_soe_xfer *x, uint8_t *out, size_t cap, size_t *out_len)
{
    *out_len = 0;
    if (x->state == XS_WRITING && x->off < x->len)
        return send_fragment(x, out, cap, out_len);
    x->state = XS_WAIT;
    return ECAT_SOE_WAIT;
}

static int fail(struct ecat_soe_xfer *x, int err, const char *fmt, const char *detail)
{
    char s[TAKT_ECAT_SOE_IDN_STR];
    takt_ecat_soe_idn_format(x->idn, s);
    char what[200];
    snprintf(what, sizeof what, fmt, detail);
    snprintf(x->msg, sizeof x->msg, "slave %u: SoE %s of IDN %s (drive %u): %s", x->pos,
             dir_name(x), s, x->drive, what);
    x->state = XS_DONE;
    return err;
}

int ecat_soe_xfer_on_reply(struct ecat_soe_xfer *x, const uint8_t *in, size_t n)
{
    struct ecat_mbx_hdr h;
    uint16_t detail;
    char t[200];
    if (ecat_mbx_decode(in, n, &h) < 0)
        return ECAT_SOE_WAIT;                      /* nothing readable: poll again */
    if (ecat_mbx_error_decode(in, n, &detail) == 0) {
        snprintf(t, sizeof t, "mailbox error %u (%s)", detail, ecat_mbx_error_text(detail));
        return fail(x, -TAKT_EMBOX, "%s", t);
    }
    if (h.type != MBX_TYPE_SOE || ecat_mbx_rx_dup_msg(x->ch, in, n))
        return ECAT_SOE_WAIT;                      /* another protocol, or a repetition */
    struct ecat_soe_msg m;
    if (ecat_soe_decode(in, n, &m) < 0) {
        snprintf(t, sizeof t, "response of %u bytes is shorter than the 4-byte SoE header", h.len);
        return fail(x, -EPROTO, "%s", t);
    }
    if (m.op == SOE_OP_NOTIFY || m.op == SOE_OP_EMERGENCY)
        return ECAT_SOE_WAIT;                      /* unsolicited: not the answer */
    uint8_t want = x->dir == ECAT_SOE_READ ? SOE_OP_READ_RES : SOE_OP_WRITE_RES;
    if (m.error) {
        x->err_code = m.err_code;
        char s[TAKT_ECAT_SOE_IDN_STR];
        takt_ecat_soe_idn_format(x->idn, s);
        const char *e = takt_ecat_soe_error_text(m.err_code);
        /* "IDN S-0-0040 is read-only", "IDN S-0-0099: no such IDN" */
        snprintf(x->msg, sizeof x->msg, "slave %u: IDN %s%s%s (SoE error 0x%04X, drive %u, %s)",
                 x->pos, s, strncmp(e, "is ", 3) ? ": " : " ", e, m.err_code, x->drive,
                 dir_name(x));
        x->state = XS_DONE;
        return -TAKT_EMBOX;
    }
    if (x->dir == ECAT_SOE_WRITE && m.op == SOE_OP_READ_RES)
        return ECAT_SOE_WAIT;                      /* the rest of a read given up before */
    if (m.op != want || m.drive != x->drive || x->state != XS_WAIT) {
        snprintf(t, sizeof t, "expected a %s for drive %u, got a %s for drive %u",
                 ecat_soe_op_name(want), x->drive, ecat_soe_op_name(m.op), m.drive);
        return fail(x, -EPROTO, "%s", t);
    }
    if (x->dir == ECAT_SOE_WRITE) {
        x->state = XS_DONE;
        return ECAT_SOE_DONE;
    }
    /* A response to an earlier request that the master gave up (its buffer too small,
     * a timeout) may still be under way: the slave sends its fragments unasked. A
     * fragment that does not count down from the one before begins a new response, and
     * a last fragment for another IDN ends a stale one. */
    if (m.incomplete ? x->frags && m.idn != x->left - 1 : x->frags && x->left != 1)
        x->len = x->frags = 0;
    if (!m.incomplete && m.idn != x->idn) {
        x->len = x->frags = 0;
        return ECAT_SOE_WAIT;
    }
    x->left = m.incomplete ? m.idn : 0;
    if (m.len > x->cap - x->len) {
        snprintf(t, sizeof t, "the value is larger than the %zu-byte buffer", x->cap);
        return fail(x, -ENOSPC, "%s", t);
    }
    if (m.len)
        memcpy(x->buf + x->len, m.data, m.len);
    x->len += m.len;
    x->frags++;
    if (m.incomplete)
        return ECAT_SOE_WAIT;                      /* more fragments come unasked */
    x->state = XS_DONE;
    return ECAT_SOE_DONE;
}
