/* The public summary of an SII image (<takt/ecat.h> takt_ecat_sii_info): what a program
 * prints of a slave's EEPROM without the library's decoder structs. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <takt/ecat.h>
#include "ecat/proto.h"
#include "ecat/sii.h"
#include "util/wire.h"

_Static_assert(TAKT_ECAT_SII_INFO_MAX == ECAT_SII_MAX_SM && TAKT_ECAT_SII_INFO_MAX == ECAT_SII_MAX_FMMU,
               "takt_ecat_sii_info holds every SM and FMMU the decoder does");

int takt_ecat_sii_info(const uint8_t *img, size_t len, struct takt_ecat_sii_info *out)
{
    memset(out, 0, sizeof *out);
    if (!img)
        return -EINVAL;
    if (len >= 2 * (SII_W_BOOT_TX_SIZE + 1)) {
        out->header = true;
        out->boot_out_start = get_le16(img + 2 * SII_W_BOOT_RX_OFF);
        out->boot_out_len = get_le16(img + 2 * SII_W_BOOT_RX_SIZE);
        out->boot_in_start = get_le16(img + 2 * SII_W_BOOT_TX_OFF);
        out->boot_in_len = get_le16(img + 2 * SII_W_BOOT_TX_SIZE);
    }
    struct ecat_sii *sii = malloc(sizeof *sii);   /* large: not on a caller's stack */
    if (!sii)
        return -ENOMEM;
    int rc = ecat_sii_decode(img, len, sii, 0, out->error, sizeof out->error);
    if (rc == 0) {
        out->error[0] = 0;
        out->n_warnings = sii->n_warnings;
        for (unsigned i = 0; i < sii->n_warnings && i < TAKT_ECAT_SII_INFO_WARN && i < ECAT_SII_MAX_WARN; i++)
            snprintf(out->warning[i], sizeof out->warning[i], "%s", sii->warning[i]);
        out->categories = true;
        out->n_sm = sii->n_sm;
        for (unsigned i = 0; i < sii->n_sm; i++) {
            out->sm[i].start = sii->sm[i].start;
            out->sm[i].len = sii->sm[i].len;
            out->sm[i].ctrl = sii->sm[i].ctrl;
            out->sm[i].enable = sii->sm[i].enable;
            out->sm[i].type = sii->sm[i].type;
        }
        out->n_fmmu = sii->n_fmmu;
        memcpy(out->fmmu, sii->fmmu, sii->n_fmmu);
        out->has_general = sii->has_general;
        out->sdo_info = sii->has_general && (sii->gen.coe_details & ECAT_COE_DET_SDO_INFO);
    }
    free(sii);
    return rc;
}

uint8_t takt_ecat_sii_checksum(const uint8_t *img)
{
    return ecat_sii_crc(img, 14);
}
