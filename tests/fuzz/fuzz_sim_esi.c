/* Fuzz target: ESI XML bytes -> device description, dictionary, SII image and a device
 * instance that runs a few process cycles; nothing may crash or leak. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "util/wire.h"

static struct sim_esi_device esi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    if (sim_esi_parse((const char *)data, size, NULL, &esi, err, sizeof err))
        return 0;
    struct sim_device *d = NULL;
    if (!sim_device_new(&esi.desc, &esi.dict, &d)) {
        /* the SII it built carries a valid checksum and stays inside its length */
        if (d->sii_len < 128 || get_le16(d->sii + 14) != ecat_sii_crc(d->sii, 14))
            __builtin_trap();
        size_t out, in;
        d->ops->pd_sizes(d, &out, &in);
        if (out > SIM_PD_MAX || in > SIM_PD_MAX)
            __builtin_trap();
        /* complete access over every object of the (fuzzed) dictionary: read, then write
         * the same image back; sizes must agree and nothing may go out of bounds */
        struct sim_od *od = sim_device_od(d);
        static uint8_t img[8192];
        struct od_rules rules = { true, true, 2048 };
        for (unsigned k = 0; k < od->n; k++) {
            struct od_object *ob = &od->obj[k];
            if (ob->code == OD_VAR)
                continue;
            for (uint8_t from = 0; from < 2; from++) {
                size_t n = od_ca_read(ob, from, img, sizeof img);
                if (n != od_ca_size(ob, from))
                    __builtin_trap();
                if (n <= sizeof img)
                    (void)od_ca_write(od, ob, from, img, n, &rules);
            }
        }
        uint8_t o[SIM_PD_MAX], i[SIM_PD_MAX];
        memset(o, 0x5A, sizeof o);
        d->ops->al_change(d, AL_INIT, AL_PREOP, NULL, 0);
        d->ops->al_change(d, AL_PREOP, AL_SAFEOP, NULL, 0);
        d->ops->al_change(d, AL_SAFEOP, AL_OP, NULL, 0);
        for (int k = 0; k < 3; k++)
            d->ops->process(d, o, out, i, in, k * 1000000);
        d->ops->destroy(d);
    }
    sim_esi_free(&esi);
    return 0;
}
