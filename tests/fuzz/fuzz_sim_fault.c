/* Fuzz target: the fault-injection spec parser (takt_sim_fault) on arbitrary text,
 * then a few frames so scheduled faults fire. The network is built once and its
 * faults and topology are reset before each input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "sim/net.h"

static struct takt_sim *net;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256], spec[600];
    if (!net && takt_sim_create_preset("3", NULL, &net, err, sizeof err))
        abort();
    net->n_ev = 0;
    net->p_drop = net->p_corrupt = 0;
    net->delay = 0;
    net->have_t0 = false;
    takt_sim_heal(net, 0);
    for (unsigned k = 0; k < net->n; k++)
        memset(&net->sl[k].esc.fault, 0, sizeof net->sl[k].esc.fault);
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, n);
    spec[n] = 0;
    if (takt_sim_fault(net, spec, err, sizeof err) && !err[0])
        abort();                    /* a refusal must say why */
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[128];
    for (int i = 0; i < 8; i++) {
        size_t pos = ecat_frame_begin(buf, mac);
        ecat_frame_add(buf, sizeof buf, &pos, ECAT_BRD, 0, 0, 2, NULL);
        size_t len = ecat_frame_end(buf, pos);
        takt_sim_process(net, buf, len, sizeof buf, (takt_ns_t)i * 5000000, NULL);
    }
    return 0;
}
