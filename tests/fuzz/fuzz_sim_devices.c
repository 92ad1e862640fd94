/* Fuzz target: the --devices spec of `takt sim ecat` (sim_device_list_parse: names with
 * xN counts, comma-separated), then takt_sim_create for a list of at most 6 catalogue
 * slaves, and a BRD and an APRD served by the line built. A list naming a file (a path
 * or *.xml, with an @SELECTION of one of its devices) is parsed only: a path from the
 * input could name any file or device. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "sim/net.h"
#include "util/wire.h"

#define ITEMS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct sim_device_spec sp[ITEMS];
    char spec[512], err[256] = "";
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, n);
    spec[n] = 0;
    unsigned ni = 0;
    if (sim_device_list_parse(spec, sp, ITEMS, &ni, err, sizeof err)) {
        if (!err[0])
            abort();                         /* a refusal must say why */
        return 0;
    }
    unsigned total = 0;
    for (unsigned i = 0; i < ni; i++) {
        if (strlen(sp[i].name) >= sizeof sp[i].name)
            abort();
        /* FILE@SEL: the selection syntax is pure parsing; a refusal must say why */
        const char *at = strrchr(sp[i].name, '@');
        if (at) {
            struct sim_esi_select sel;
            char b[256];
            err[0] = 0;
            if (sim_esi_select_parse(at + 1, &sel, b, sizeof b, err, sizeof err) && !err[0])
                abort();
        }
        bool known = false;
        for (unsigned k = 0; sim_device_names[k]; k++)
            known |= !strcmp(sim_device_names[k], sp[i].name);
        if (!known)
            return 0;
        total += sp[i].count;
        if (total > 6)
            return 0;
    }
    struct takt_sim *s = NULL;
    err[0] = 0;
    if (takt_sim_create(spec, NULL, &s, err, sizeof err)) {
        if (!err[0] || s)
            abort();
        return 0;
    }
    if (s->n != total)
        abort();
    static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 };
    uint8_t buf[TAKT_FRAME_BUF];
    size_t pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_BRD, 0, ESC_AL_STATUS << 16, 2, NULL);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_APRD, 1, (uint32_t)(uint16_t)-(int)(total - 1), 8, NULL);
    size_t len = ecat_frame_end(buf, pos);
    size_t r = takt_sim_process(s, buf, len, sizeof buf, 1000000, NULL);
    struct ecat_dg dg;
    if (r && (ecat_frame_first(buf, r, &dg, &pos) || get_le16(dg.wkc) != total))
        abort();                             /* every slave answers the BRD */
    takt_sim_destroy(s);
    return 0;
}
