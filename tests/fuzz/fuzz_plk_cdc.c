/* Fuzz target: concise DCF (mnobd.cdc) parser, the per-node DCFs in 0x1F22, the
 * network configuration derived from it and applying it to a CN object dictionary. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cdc.h"
#include "plk/config.h"
#include "plk/od.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct plk_net_config cfg;
    static struct plk_od_entry ent[256];
    static uint8_t pool[8192];
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        return 0;
    memcpy(b, data, size);
    struct plk_cdc c, dcf;
    char err[300];
    if (plk_cdc_parse(&c, b, size, err, sizeof err) == 0) {
        struct plk_cdc_iter it;
        struct plk_cdc_entry e;
        uint64_t v;
        unsigned n = 0;
        plk_cdc_iter_init(&it, &c);
        while (plk_cdc_next(&it, &e)) {
            n++;
            if (e.offset + 7 + e.size > size)
                abort();
            plk_cdc_entry_u64(&e, &v);
            if (e.index == 0x1F22 && plk_cdc_node_dcf(&c, e.sub, &dcf, err, sizeof err) == 0) {
                struct plk_od od;
                plk_od_init(&od, ent, 256, pool, sizeof pool);
                struct plk_od_cn_params p;
                plk_od_cn_params_default(&p, 1);
                plk_od_add_cn_profile(&od, &p);
                plk_cdc_apply(&dcf, &od, err, sizeof err);
            }
        }
        if (n != c.count)
            abort();
        if (plk_config_from_cdc(&cfg, &c, err, sizeof err) == 0 &&
            plk_config_check(&cfg, err, sizeof err) != 0)
            abort();
    }
    free(b);
    return 0;
}
