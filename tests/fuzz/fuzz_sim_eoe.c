/* Fuzz target: mailbox messages into the simulated slave's EoE endpoint and its IP
 * stack. Input: byte 0 the read-mailbox size (42..169), then messages prefixed by a
 * 1-byte length; after each, the fragments waiting to go out are drained. Replies must
 * be well-formed EoE that fit the mailbox, every frame the slave sends must reassemble,
 * and the queue and the TCP request buffer stay inside their bounds. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "ecat/eoe.h"
#include "sim/esc.h"
#include "sim/esc_eoe.h"

static struct sim_device_desc desc;
static struct sim_esc esc;
static struct ecat_eoe_rx rx;

static void check(const uint8_t *r, size_t n, size_t cap)
{
    struct ecat_eoe_msg m;
    if (!n)
        return;
    if (n > cap || ecat_eoe_decode(r, n, &m) || m.len + MBX_HDR + EOE_HDR != n)
        __builtin_trap();
    if (m.type == EOE_T_FRAG && ecat_eoe_rx_put(&rx, &m) < 0)
        __builtin_trap();                    /* what the slave sends is never broken */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!esc.desc) {
        desc.mbx_protocols = MBX_PROTO_EOE;
        esc.desc = &desc;
    }
    esc_eoe_free(&esc);
    struct esc_eoe *s = esc_eoe_get(&esc);
    if (!s)
        return 0;
    /* an address, so that ARP, ICMP and TCP are answered */
    const uint8_t ip[4] = { 10, 0, 0, 2 };
    memcpy(s->ip.ip, ip, 4);
    s->ip.flags |= EOE_IP_IP;
    ecat_eoe_rx_reset(&rx);
    size_t cap = 42 + (data[0] & 0x7F);
    static uint8_t reply[200];
    size_t pos = 1;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        check(reply, esc_eoe_request(&esc, data + pos, n, reply, cap), cap);
        for (unsigned k = 0; k < 2000; k++) {
            size_t r = esc_eoe_pending(&esc, reply, cap);
            check(reply, r, cap);
            if (!r)
                break;
        }
        if (s->q_count > ESC_EOE_OUTQ || s->tcp.req_len >= sizeof s->tcp.req || s->rx.len > ECAT_EOE_FRAME_MAX)
            __builtin_trap();
        pos += n;
    }
    return 0;
}
