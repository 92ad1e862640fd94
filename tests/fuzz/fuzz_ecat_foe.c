/* Fuzz target: FoE replies fed to the master's FoE transfer (read or write). Input:
 * byte 0 bit 0 picks read/write, bits 1-7 the mailbox size (13..140); byte 1 the file
 * buffer size; then slave messages, each prefixed by a length byte. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <takt/takt.h>
#include "ecat/foe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static uint8_t file[600], out[200];
    struct ecat_mbx_chan chan = {0};
    struct ecat_foe_xfer x;
    enum ecat_foe_dir dir = (data[0] & 1) ? ECAT_FOE_WRITE : ECAT_FOE_READ;
    size_t mbx = 13 + (data[0] >> 1), cap = (size_t)data[1] * 2;
    for (size_t i = 0; i < cap; i++)
        file[i] = (uint8_t)i;
    size_t out_len;
    int rc = ecat_foe_xfer_start(&x, dir, 1, "fuzz.bin", 7, file, cap, mbx, mbx, &chan, out, &out_len);
    if (rc != ECAT_FOE_SEND)
        return 0;
    size_t pos = 2;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        rc = ecat_foe_xfer_on_reply(&x, data + pos, n, out, mbx, &out_len);
        pos += n;
        if (out_len > mbx || x.len > (dir == ECAT_FOE_READ ? x.cap : cap) || x.off > x.len)
            __builtin_trap();
        if (out_len) {
            struct ecat_foe_msg m;
            if (ecat_foe_decode(out, out_len, &m) || m.len + 12 != out_len)
                __builtin_trap();       /* whatever the master sends is a well-formed FoE message */
        }
        if (rc != ECAT_FOE_SEND && rc != ECAT_FOE_WAIT)
            break;
    }
    struct ecat_foe_msg m;
    (void)ecat_foe_decode(data, size, &m);
    (void)ecat_foe_error_text(m.arg);
    return 0;
}
