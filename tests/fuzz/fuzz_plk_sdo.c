/* Fuzz target: SDO over ASnd. The input is a sequence of [len][payload] records fed
 * alternately to a server on a CN object dictionary and to a client with a transfer
 * running; both sides poll for frames in between. Nothing may crash or overrun. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plk/sdo.h"
#include "plk/od.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct plk_od_entry ent[256];
    static uint8_t pool[8192];
    static struct plk_od od;
    static struct plk_sdo_server sv;
    static struct plk_sdo_client cl;
    plk_od_init(&od, ent, 256, pool, sizeof pool);
    struct plk_od_cn_params p;
    plk_od_cn_params_default(&p, 1);
    plk_od_add_cn_profile(&od, &p);
    plk_od_add_buf(&od, 0x2000, 0, PLK_OT_DOMAIN, PLK_OA_RW, 2000, NULL, 0);
    plk_sdo_server_init(&sv, &od, NULL);
    plk_sdo_client_init(&cl, NULL);
    takt_ns_t now = 1000000;
    plk_sdo_client_read(&cl, 0x2000, 0, now);
    uint8_t out[PLK_SDO_PAYLOAD_MAX];
    char err[200];
    size_t pos = 0;
    for (unsigned k = 0; pos < size; k++) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        uint8_t *rec = malloc(n ? n : 1);   /* exact size: ASan catches overreads */
        memcpy(rec, data + pos, n);
        pos += n;
        if (k & 1)
            plk_sdo_client_rx(&cl, rec, n, now, err, sizeof err);
        else
            plk_sdo_server_rx(&sv, rec, n, now, err, sizeof err);
        free(rec);
        for (int i = 0; i < 4; i++) {
            int a = plk_sdo_server_tx(&sv, out, sizeof out, now);
            int b = plk_sdo_client_tx(&cl, out, sizeof out, now);
            if (a < 0 || b < 0 || a > (int)sizeof out || b > (int)sizeof out)
                abort();
        }
        now += 50 * TAKT_NS_PER_MS;
    }
    return 0;
}
