/* Fuzz target: mailbox messages into the simulated slave's FoE server. Input: byte 0
 * picks the AL state (PREOP/BOOT), byte 1 the read-mailbox size and BUSY count, then
 * messages prefixed by a 1-byte length. Replies must be well-formed FoE (or nothing),
 * fit the mailbox, and the server's bookkeeping must stay inside its files. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "ecat/foe.h"
#include "sim/esc.h"
#include "sim/esc_foe.h"

static struct sim_device_desc desc;
static struct sim_esc esc;

static void check(const struct esc_foe *s, const uint8_t *r, size_t n, size_t cap)
{
    struct ecat_foe_msg m;
    if (n && (n > cap || ecat_foe_decode(r, n, &m) || m.len + MBX_HDR + FOE_HDR != n))
        __builtin_trap();
    size_t used = 0;
    for (int i = 0; i < ESC_FOE_FILES; i++) {
        if (!s->f[i].used)
            continue;
        if (s->f[i].len > s->f[i].max || (s->f[i].len && !s->f[i].data))
            __builtin_trap();
        used += s->f[i].len;
    }
    if (used != s->used || used > s->disk ||
        (s->st == ESC_FOE_READING && (s->file < 0 || s->off > s->f[s->file].len)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (!esc.desc) {
        desc.mbx_protocols = MBX_PROTO_FOE | MBX_PROTO_COE;
        esc.desc = &desc;
    }
    esc_foe_free(&esc);
    struct esc_foe *s = esc_foe_get(&esc);
    if (!s)
        return 0;
    s->busy_per_packet = data[1] >> 6;
    s->disk = 4096;                          /* small: disk full is reachable */
    esc.al_state = (data[0] & 1) ? AL_BOOT : AL_PREOP;
    if (data[0] & 2)
        esc_foe_put(s, "pw", "secret", 6, 100, 0x1234, false, data[0] & 4);
    size_t cap = 13 + (data[1] & 0x3F) * 2;
    static uint8_t reply[200];
    size_t pos = 2;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        size_t r = esc_foe_request(&esc, data + pos, n, 13 + (data[0] >> 3), reply, cap);
        check(s, reply, r, cap);
        pos += n;
    }
    esc_foe_free(&esc);
    return 0;
}
