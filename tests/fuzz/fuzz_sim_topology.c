/* Fuzz target: the topology spec (takt_sim_set_topology) on arbitrary text, then a
 * branch fault and a cable swap chosen by the input's last bytes, then frames. The
 * walk must stay sane: the slaves reached are in position order, none twice. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "sim/net.h"

static struct takt_sim *net;

static void check(const struct takt_sim *s)
{
    if (s->reach > s->n)
        abort();
    for (unsigned i = 0; i < s->reach; i++)
        if (s->act[i] >= s->n || (i && s->act[i] <= s->act[i - 1]))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256], spec[600];
    if (!net && takt_sim_create_preset("junction", NULL, &net, err, sizeof err))
        abort();
    takt_sim_heal(net, 0);
    if (takt_sim_set_topology(net, TAKT_SIM_JUNCTION_TOPOLOGY, err, sizeof err))
        abort();
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, n);
    spec[n] = 0;
    if (takt_sim_set_topology(net, spec, err, sizeof err) && !err[0])
        abort();                    /* a refusal must say why */
    check(net);
    if (size >= 3) {
        uint8_t a = data[size - 3], b = data[size - 2], c = data[size - 1];
        takt_sim_break_port(net, a % 10u, b % 4u, 1000);
        check(net);
        takt_sim_swap_ports(net, c % 10u, 1u + (c >> 4) % 3u, 1u + b % 3u, 2000);
        check(net);
    }
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[128], z[4] = { 0 };
    for (int i = 0; i < 4; i++) {
        size_t pos = ecat_frame_begin(buf, mac);
        ecat_frame_add(buf, sizeof buf, &pos, i & 1 ? ECAT_BRD : ECAT_BWR, 0,
                       (uint32_t)ESC_DC_RECV_TIME0 << 16, 4, z);
        size_t len = ecat_frame_end(buf, pos);
        takt_sim_process(net, buf, len, sizeof buf, (takt_ns_t)(i + 1) * 1000000, NULL);
    }
    takt_sim_heal(net, 5000000);
    check(net);
    if (net->reach != net->n)
        abort();
    return 0;
}
