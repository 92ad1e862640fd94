/* Fuzz target: arbitrary frames into a simulated line (coupler, DI, AI with mailbox,
 * servo with DC). Input = records of [len u16][flags u8][bytes]; flags bit 0 keeps
 * the bytes as a raw Ethernet frame, else they follow a valid Ethernet header so the
 * EtherCAT part gets explored. The ESCs are reset before each input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "sim/net.h"
#include "util/wire.h"

static struct takt_sim *net;   /* built once: parsing ESI files per input is too slow */

static void reset(void)
{
    for (unsigned k = 0; k < net->n; k++)
        esc_reset(&net->sl[k].esc, 0);
    net->reach = net->n;
    net->p_drop = net->p_corrupt = 0;
    sim_net_topology(net, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!net) {
        char err[256];
        if (takt_sim_create("ek1100,el1004,el3102,servo", NULL, &net, err, sizeof err) &&
            takt_sim_create_preset("3", NULL, &net, err, sizeof err))
            abort();
    }
    reset();
    uint8_t buf[TAKT_FRAME_BUF + 64];
    takt_ns_t now = 1000000;
    size_t p = 0;
    while (p + 3 <= size) {
        size_t len = get_le16(data + p) % (TAKT_FRAME_BUF + 1);
        uint8_t flags = data[p + 2];
        p += 3;
        if (len > size - p)
            len = size - p;
        size_t fl;
        if (flags & 1) {
            memcpy(buf, data + p, len);
            fl = len;
        } else {
            memset(buf, 0xFF, 6);
            memset(buf + 6, 0x10, 6);
            put_be16(buf + 12, 0x88A4);
            if (len > TAKT_FRAME_BUF - 14)
                len = TAKT_FRAME_BUF - 14;
            memcpy(buf + 14, data + p, len);
            fl = len + 14;
        }
        p += len;
        now += (flags >> 1) * 1000000LL;     /* let watchdogs and DC loops see time */
        size_t r = takt_sim_process(net, buf, fl, sizeof buf, now, NULL);
        if (r && r != fl)
            abort();                          /* a reply has the frame's own length */
        takt_sim_tick(net, now);
    }
    return 0;
}
