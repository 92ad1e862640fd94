/* Fuzz target: the --foe spec of `takt sim ecat` (takt_sim_foe in src/sim/esc_foe_cfg.c:
 * ';'-separated K:SETTINGS, FILE, boot, ro, max=N, pw=N, size=N, busy=N, disk=N,
 * nocreate) on a line of a coupler and a servo with FoE, built once; each slave's FoE
 * server is reset before each input. A refusal must say why; what is accepted must
 * leave the server's files inside its limits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "sim/esc.h"
#include "sim/esc_foe.h"
#include "sim/net.h"

static struct takt_sim *net;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256] = "", spec[1100];
    if (!net && takt_sim_create("ek1100,servo", NULL, &net, err, sizeof err))
        abort();
    for (unsigned k = 0; k < net->n; k++)
        esc_foe_free(&net->sl[k].esc);
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, n);
    spec[n] = 0;
    if (takt_sim_foe(net, spec, err, sizeof err) && !err[0])
        abort();
    for (unsigned k = 0; k < net->n; k++) {
        const struct esc_foe *s = net->sl[k].esc.foe;
        if (!s)
            continue;
        size_t used = 0;
        for (int i = 0; i < ESC_FOE_FILES; i++) {
            if (!s->f[i].used)
                continue;
            if (s->f[i].len > s->f[i].max || (s->f[i].len && !s->f[i].data) ||
                strnlen(s->f[i].name, ESC_FOE_NAME) >= ESC_FOE_NAME)
                abort();
            used += s->f[i].len;
        }
        if (used != s->used || used > s->disk)
            abort();
    }
    return 0;
}
