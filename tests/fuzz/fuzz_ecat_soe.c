/* Fuzz target: SoE responses fed to the master's SoE transfer (read or write), the
 * element splitter and the IDN text parser. Input: byte 0 bit 0 picks read/write,
 * bits 1-7 the mailbox size (11..138); byte 1 the buffer size; byte 2 the elements;
 * then slave messages, each prefixed by a length byte. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <takt/takt.h>
#include "ecat/soe.h"
#include "util/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    static uint8_t buf[600], out[200];
    struct ecat_mbx_chan chan = {0};
    struct ecat_soe_xfer x;
    enum ecat_soe_dir dir = (data[0] & 1) ? ECAT_SOE_WRITE : ECAT_SOE_READ;
    size_t mbx = 11 + (data[0] >> 1), cap = (size_t)data[1] * 2;
    uint8_t el = data[2] ? data[2] : SOE_EL_VALUE;
    for (size_t i = 0; i < cap; i++)
        buf[i] = (uint8_t)i;
    size_t out_len;
    int rc = ecat_soe_xfer_start(&x, dir, 1, 0, el, 0x8010, buf, cap, mbx, &chan, out, &out_len);
    if (rc != ECAT_SOE_SEND)
        return 0;
    size_t sent = 0;
    while (rc == ECAT_SOE_SEND) {      /* the request, all write fragments */
        struct ecat_soe_msg m;
        if (out_len > mbx || ecat_soe_decode(out, out_len, &m) || m.len + 10 != out_len)
            __builtin_trap();          /* whatever the master sends is a well-formed SoE message */
        sent += m.len;
        rc = ecat_soe_xfer_sent(&x, out, mbx, &out_len);
    }
    if (rc != ECAT_SOE_WAIT || (dir == ECAT_SOE_WRITE && sent != cap))
        __builtin_trap();
    size_t pos = 3;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        rc = ecat_soe_xfer_on_reply(&x, data + pos, n);
        pos += n;
        if (dir == ECAT_SOE_READ && x.len > x.cap)
            __builtin_trap();
        if (rc != ECAT_SOE_WAIT)
            break;
    }
    if (rc == ECAT_SOE_DONE && dir == ECAT_SOE_READ) {
        struct takt_ecat_soe_part p[8];
        char err[200];
        if (!takt_ecat_soe_elements_split(buf, x.len, el, size > 6 ? get_le32(data + 3) : 0, p, err,
                                     sizeof err))
            for (unsigned i = 0; i < 8; i++)
                if (p[i].p && (p[i].p < buf || p[i].p + p[i].len > buf + x.len))
                    __builtin_trap();
    }
    struct ecat_soe_msg m;
    if (!ecat_soe_decode(data, size, &m))
        (void)takt_ecat_soe_error_text(m.err_code);
    char s[40], err[200];
    size_t k = size < sizeof s - 1 ? size : sizeof s - 1;
    memcpy(s, data, k);
    s[k] = 0;
    uint16_t idn;
    uint8_t f;
    if (!takt_ecat_soe_idn_parse(s, &idn, err, sizeof err)) {
        char t[TAKT_ECAT_SOE_IDN_STR];
        takt_ecat_soe_idn_format(idn, t);
    }
    (void)takt_ecat_soe_elements_parse(s, &f, err, sizeof err);
    return 0;
}
