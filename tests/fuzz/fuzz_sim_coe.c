/* Fuzz target: mailbox messages into the CoE server of the servo (PDO configuration)
 * or the analog input (bit records, fixed PDOs). Input: byte 0 picks the mailbox size,
 * AL state and device, then messages prefixed by a 1-byte length. Replies must be
 * well-formed and fit the mailbox. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "util/wire.h"

static struct sim_esi_device esi[2];
static int loaded;

static void check_reply(const uint8_t *r, size_t n, size_t cap)
{
    if (!n)
        return;
    if (n > cap || n < MBX_HDR || (size_t)get_le16(r) + MBX_HDR != n || !(r[5] >> 4 & 7))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256], dir[4096], path[4200];
    if (!loaded) {
        static const char *const names[2] = { "servo", "el3102" };
        loaded = 1;
        for (int k = 0; k < 2; k++) {
            err[0] = 0;
            if (sim_esi_dir(dir, sizeof dir))
                loaded = -1;
            snprintf(path, sizeof path, "%s/takt-%s.xml", dir, names[k]);
            if (loaded > 0 && sim_esi_load(path, NULL, &esi[k], err, sizeof err))
                loaded = -1;
        }
        if (loaded < 0)
            fprintf(stderr, "fuzz_sim_coe: takt's ESI files not found: %s\n", err);
    }
    if (loaded < 0 || !size)
        return 0;
    struct sim_device *d = NULL;
    const struct sim_esi_device *e = &esi[data[0] >> 5 & 1];
    if (sim_device_new(&e->desc, &e->dict, &d))
        return 0;
    static const uint16_t sizes[] = { 16, 24, 32, 64, 128, 256, 512, 1024 };
    static const uint8_t states[] = { AL_PREOP, AL_SAFEOP, AL_OP, AL_BOOT };
    size_t cap = sizes[data[0] & 7];
    struct sim_dev *sd = sim_dev_of(d);
    sd->coe.mbx_in = sd->coe.mbx_out = (uint16_t)cap;
    sd->coe.al = states[data[0] >> 3 & 3];
    uint8_t r[1024];
    size_t pos = 1;
    while (pos < size) {
        size_t len = data[pos++];
        if (len > size - pos)
            len = size - pos;
        check_reply(r, d->ops->mbx_write(d, data + pos, len, r, cap, 0), cap);
        pos += len;
        size_t n;
        while ((n = d->ops->mbx_pending(d, r, cap, 0)))
            check_reply(r, n, cap);
    }
    d->ops->destroy(d);
    return 0;
}
