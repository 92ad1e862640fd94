/* Fuzz target: SII image parser and the incremental-read length check. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <takt/takt.h>
#include "ecat/sii.h"

static struct ecat_sii sii;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[200];
    size_t need;
    int rc = ecat_sii_decode(data, size, &sii, size & 1 ? ECAT_SII_STRICT : 0, err, sizeof err);
    if (rc != 0 && rc != -TAKT_ESII)
        __builtin_trap();
    if (rc == 0) {
        /* every string index a category refers to must resolve inside the pool */
        for (unsigned i = 0; i < sii.n_pdo; i++)
            (void)strlen(ecat_sii_str(&sii, sii.pdo[i].name));
        for (unsigned i = 0; i < sii.n_entries; i++)
            (void)strlen(ecat_sii_str(&sii, sii.entry[i].name));
        (void)strlen(ecat_sii_name(&sii));
    }
    if (ecat_sii_need(data, size, &need) == 1 && need <= size)
        __builtin_trap();
    return 0;
}
