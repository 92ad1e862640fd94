/* Fuzz target: mailbox and CoE replies fed to the CoE client. Input: byte 0 picks the
 * operation, byte 1 the buffer size; then messages, each prefixed by a length byte. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <takt/takt.h>
#include "ecat/coe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static uint8_t result[600], dl[300], out[300];
    struct ecat_mbx_chan chan = {0};
    struct ecat_coe_xfer x;
    struct ecat_coe_req r = {
        .op = (enum ecat_coe_op)(data[0] % 5), .index = 0x1018, .subindex = data[0] >> 7,
        .complete_access = data[0] & 0x08, .data = data[0] % 5 == ECAT_COE_DOWNLOAD ? dl : result,
        .cap = 1 + data[1] * 2u, .len = 1 + data[1], .mbx_out = (uint16_t)(16 + (data[1] & 0x7F)),
        .list_type = 1,
    };
    if (r.cap > sizeof result)
        r.cap = sizeof result;
    size_t out_len;
    if (ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len) != ECAT_COE_SEND)
        return 0;
    size_t pos = 2;
    while (pos < size && ecat_coe_xfer_busy(&x)) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        int rc = ecat_coe_xfer_on_reply(&x, data + pos, n, out, sizeof out, &out_len);
        if (out_len > sizeof out || (rc == ECAT_COE_DONE && x.result_len > r.cap))
            __builtin_trap();
        pos += n;
        struct ecat_coe_emcy e;
        uint16_t d;
        (void)ecat_coe_emcy_decode(data + pos - n, n, &e);
        (void)ecat_mbx_error_decode(data + pos - n, n, &d);
    }
    if (x.state == COE_ST_DONE) {
        struct takt_ecat_coe_objdesc o;
        struct takt_ecat_coe_entrydesc e;
        uint16_t lt;
        const uint8_t *first;
        (void)takt_ecat_coe_objdesc_parse(result, x.result_len, &o);
        (void)takt_ecat_coe_entrydesc_parse(result, x.result_len, &e);
        (void)takt_ecat_coe_odlist_parse(result, x.result_len, &lt, &first);
    }
    return 0;
}
