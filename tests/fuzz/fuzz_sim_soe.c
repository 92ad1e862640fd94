/* Fuzz target: mailbox messages into the simulated slave's SoE drive. Input: byte 0
 * picks the AL state (PREOP/SAFEOP/OP), byte 1 the read-mailbox size, then messages
 * prefixed by a 1-byte length; after each, the fragments still pending are drained.
 * Replies must be well-formed SoE (or nothing) that fit the mailbox, and every value
 * the drive holds must stay inside its buffer with a consistent list header. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "ecat/soe.h"
#include "sim/esc.h"
#include "sim/esc_soe.h"
#include "util/wire.h"

static struct sim_device_desc desc;
static struct sim_esc esc;

static void check(const uint8_t *r, size_t n, size_t cap)
{
    struct ecat_soe_msg m;
    if (n && (n > cap || ecat_soe_decode(r, n, &m) || m.len + MBX_HDR + SOE_HDR != n))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (!esc.desc) {
        desc.mbx_protocols = MBX_PROTO_SOE;
        esc.desc = &desc;
    }
    esc_soe_free(&esc);
    if (!esc_soe_get(&esc))
        return 0;
    static const uint8_t states[] = { AL_PREOP, AL_SAFEOP, AL_OP, AL_PREOP };
    esc.al_state = states[data[0] & 3];
    size_t cap = 11 + (data[1] & 0x7F);
    static uint8_t reply[200];
    size_t pos = 2;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        check(reply, esc_soe_request(&esc, data + pos, n, reply, cap), cap);
        for (unsigned k = 0; k < 64; k++) {       /* the rest of a long response */
            size_t r = esc_soe_pending(&esc, reply, cap);
            check(reply, r, cap);
            if (!r)
                break;
        }
        pos += n;
    }
    const struct esc_soe *s = esc.soe;
    for (uint16_t idn = 0; idn < 65; idn++) {
        size_t len;
        const uint8_t *v = esc_soe_value(s, idn < 64 ? idn : 0x800A, &len);
        if (v && (len > ESC_SOE_VAL_MAX || len == 0))
            __builtin_trap();
    }
    if (s->out_off > s->out_len || s->out_len > sizeof s->out || s->in_len > 0xFFFFFF)
        __builtin_trap();
    return 0;
}
