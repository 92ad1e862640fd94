/* Fuzz target: ENI reader, then the helpers that walk what it produced. */
#include <stdint.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>
#include <takt/takt.h>
#include "ecat/eni.h"
#include "ecat/pdo.h"

static struct ecat_pdo_map map;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[300];
    struct ecat_eni *e = NULL;
    int rc = ecat_eni_parse((const char *)data, size, &e, err, sizeof err);
    if (rc != 0) {
        if (e || (rc != -TAKT_EXML && rc != -TAKT_ECONFIG && rc != -ENOMEM && rc != -EINVAL))
            __builtin_trap();
        return 0;
    }
    struct ecat_ident id[4] = {{0}};
    struct ecat_eni_mismatch mm[4];
    (void)ecat_eni_compare(e, id, 4, ECAT_CMP_REVISION, mm, 4);
    for (unsigned i = 0; i < e->n_slaves; i++) {
        if (ecat_eni_pdo_map(&e->slave[i], &map) == 0) {
            struct ecat_pdo_image img;
            if (ecat_pdo_layout(&img, &map, NULL, 1, 0, 0, err, sizeof err) == 0)
                ecat_pdo_image_free(&img);
        }
        for (unsigned k = 0; k < e->slave[i].n_init; k++)
            if (e->slave[i].init[k].len && !e->slave[i].init[k].data)
                __builtin_trap();
    }
    ecat_eni_free(e);
    return 0;
}
