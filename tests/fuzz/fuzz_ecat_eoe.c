/* Fuzz target: EoE messages into the reassembler (the master's receive side), the
 * IP-parameter and address-filter body decoders and the text parsers. Input: byte 0
 * the mailbox size for the round trip (42..297), then messages prefixed by a length
 * byte. Every completed frame must be 14..1518 bytes; cut again into fragments and
 * reassembled it must come back byte for byte. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "ecat/eoe.h"

static struct ecat_eoe_rx rx, back;

static void round_trip(const uint8_t *f, size_t len, size_t mbx)
{
    struct ecat_eoe_tx t;
    uint8_t out[300];
    if (ecat_eoe_tx_start(&t, f, len, 3, 0))
        __builtin_trap();
    ecat_eoe_rx_reset(&back);
    int rc = ECAT_EOE_RX_MORE;
    size_t n;
    while ((n = ecat_eoe_tx_next(&t, 1, out, mbx)) > 0) {
        struct ecat_eoe_msg m;
        if (n > mbx || ecat_eoe_decode(out, n, &m))
            __builtin_trap();
        rc = ecat_eoe_rx_put(&back, &m);
        if (rc < 0)
            __builtin_trap();
    }
    if (rc != ECAT_EOE_RX_FRAME || back.len != len || memcmp(back.buf, f, len))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t mbx = 42 + data[0];
    ecat_eoe_rx_reset(&rx);
    size_t pos = 1;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        struct ecat_eoe_msg m;
        if (ecat_eoe_decode(data + pos, n, &m) == 0) {
            if (m.len > n)
                __builtin_trap();
            if (m.type == EOE_T_FRAG) {
                int rc = ecat_eoe_rx_put(&rx, &m);
                if (rx.len > ECAT_EOE_FRAME_MAX)
                    __builtin_trap();
                if (rc == ECAT_EOE_RX_FRAME) {
                    if (rx.len < 14)
                        __builtin_trap();
                    round_trip(rx.buf, rx.len, mbx);
                }
            } else {
                struct takt_ecat_eoe_ip ip;
                struct takt_ecat_eoe_filter f;
                (void)ecat_eoe_ip_decode(m.data, m.len, &ip);
                if (ecat_eoe_filter_decode(m.data, m.len, &f) == 0 && (f.n_mac > 15 || f.n_mask > 3))
                    __builtin_trap();
            }
        }
        char s[64];
        size_t k = n < sizeof s - 1 ? n : sizeof s - 1;
        memcpy(s, data + pos, k);
        s[k] = 0;
        uint8_t a[4], b[4], mac[6];
        bool has;
        char err[128];
        (void)takt_ecat_eoe_ip_parse(s, a, b, &has, err, sizeof err);
        (void)takt_ecat_eoe_mac_parse(s, mac, err, sizeof err);
        pos += n;
    }
    return 0;
}
