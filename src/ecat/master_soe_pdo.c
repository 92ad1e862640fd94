/* Process data of SoE drives (IEC 61800-7-204 telegram configuration; SOEM
 * ecx_readIDNmap): with the application telegram (S-0-0015 = 7) the MDT carries the
 * master control word and the IDNs listed in S-0-0024, the AT the drive status word and
 * those in S-0-0016, each as long as its attribute says. Read in PREOP, before the image
 * is laid out, for drives without CoE (those give their PDOs over CoE). Set-up time only
 * (blocking through the SoE wrappers). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "ecat/soe.h"
#include "ecat/sii.h"
#include "util/wire.h"

#define SOE_TELEGRAM_APP 7              /* application telegram: S-0-0016/S-0-0024 apply */
#define SOE_IDN_CONTROL  134            /* S-0-0134 master control word, in every MDT */
#define SOE_IDN_STATUS   135            /* S-0-0135 drive status word, in every AT */
#define SOE_MAX_LIST     64

/* CoE data type for an item of this size and display format (for names and tools). */
static uint16_t coe_type(unsigned bytes, unsigned fmt)
{
    static const uint16_t s[] = { 0x0002, 0x0003, 0x0004, 0x0015 }, u[] = { 0x0005, 0x0006, 0x0007, 0x001B };
    unsigned k = bytes >= 8 ? 3 : bytes >= 4 ? 2 : bytes >= 2 ? 1 : 0;
    return fmt == SOE_FMT_INT ? s[k] : u[k];
}

/* One telegram: the PDO of SM sm with the control/status word and the listed IDNs. */
static int telegram(struct takt_ecat_master *drv, unsigned pos, struct ecat_pdo_map *map, uint8_t sm,
                    bool input, uint16_t list_idn)
{
    struct ecat_core *m = &drv->core;
    uint8_t b[4 + 2 * SOE_MAX_LIST], a[4], nb[80];
    size_t n;
    int rc = takt_ecat_soe_read(drv, pos, 0, SOE_EL_VALUE, list_idn, b, sizeof b, &n);
    if (rc)
        return rc;
    size_t cur = n >= 4 ? get_le16(b) : 0;
    if (n < 4 || cur > n - 4 || cur % 2) {
        ECAT_FAIL(m, -EPROTO, TAKT_ECAT_EV_SOE_LIST_MALFORMED, pos, list_idn, n, cur);
        return -EPROTO;
    }
    ecat_pdo_map_clear_sm(map, sm);
    if ((rc = ecat_pdo_map_add_pdo(map, sm, input, input ? 0x1A00 : 0x1600, input ? "AT" : "MDT")) ||
        (rc = ecat_pdo_map_add_entry(map, ecat_pdo_mapping_value(input ? SOE_IDN_STATUS : SOE_IDN_CONTROL,
                                     0, 16), 0x0006, input ? "Drive status word" : "Master control word")))
        return rc;
    for (size_t i = 0; i < cur; i += 2) {
        uint16_t idn = get_le16(b + 4 + i);
        char name[ECAT_PDO_NAME], s[TAKT_ECAT_SOE_IDN_STR];
        if ((rc = takt_ecat_soe_read(drv, pos, 0, SOE_EL_ATTR, idn, a, sizeof a, &n)))
            return rc;
        uint32_t attr = n == 4 ? get_le32(a) : 0;
        if (n != 4 || soe_attr_list(attr)) {
            takt_ecat_soe_idn_format(idn, s);
            ECAT_FAILT(m, -EPROTO, TAKT_ECAT_EV_SOE_NOT_FIXED, pos, RT_TXT(s), list_idn, n != 4);
            return -EPROTO;
        }
        /* its name from the drive; the IDN's text form when it has none */
        takt_ecat_soe_idn_format(idn, name);
        if (!takt_ecat_soe_read(drv, pos, 0, SOE_EL_NAME, idn, nb, sizeof nb, &n) && n >= 4 &&
            get_le16(nb) <= n - 4)
            snprintf(name, sizeof name, "%.*s", (int)get_le16(nb), (const char *)nb + 4);
        m->last_err = 0;
        unsigned bytes = soe_attr_item(attr);
        rc = ecat_pdo_map_add_entry(map, ecat_pdo_mapping_value(idn, 0, (uint8_t)(8 * bytes)),
                                    coe_type(bytes, soe_attr_fmt(attr)), name);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_drive(struct takt_ecat_master *drv, unsigned pos, struct ecat_pdo_map *map)
{
    struct ecat_core *m = &drv->core;
    uint8_t t[2];
    size_t n = 0;
    /* a drive without S-0-0015 is taken to use the lists (as SOEM does) */
    if (!takt_ecat_soe_read(drv, pos, 0, SOE_EL_VALUE, SOE_IDN_TELEGRAM, t, sizeof t, &n) && n == 2 &&
        get_le16(t) != SOE_TELEGRAM_APP) {
        ECAT_EV(m, TAKT_ECAT_EV_SOE_TELEGRAM, pos, get_le16(t));
        return 0;
    }
    m->last_err = 0;
    int rc = 0;
    for (unsigned k = 0; !rc && k < map->n_sm; k++) {
        if (map->sm[k].type == ECAT_SII_SM_OUTPUTS)
            rc = telegram(drv, pos, map, (uint8_t)k, false, SOE_IDN_MDT_LIST);
        else if (map->sm[k].type == ECAT_SII_SM_INPUTS)
            rc = telegram(drv, pos, map, (uint8_t)k, true, SOE_IDN_AT_LIST);
    }
    return rc;
}

int takt_ecat_master_read_pdos_soe(struct takt_ecat_master *drv)
{
    struct ecat_core *m = &drv->core;
    int first_err = 0;
    struct ecat_pdo_map *old = malloc(sizeof *old);    /* set-up time: allocation is fine */
    if (!old)
        return -ENOMEM;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        struct ecat_pdo_map *map = &m->maps[i];
        if (!(s->info.mbx_protocols & MBX_PROTO_SOE) || (s->info.mbx_protocols & MBX_PROTO_COE))
            continue;
        if ((s->info.al_state & AL_STATE_MASK) != AL_PREOP)
            continue;
        *old = *map;
        int rc = read_drive(drv, i, map);
        if (rc) {
            ECAT_EVT(m, TAKT_ECAT_EV_SOE_UNREADABLE, i, RT_TXT(takt_ecat_master_error(drv)));
            *map = *old;
            if (!first_err)
                first_err = rc;
            continue;
        }
        ecat_map_bits(map, &s->info.out_bits, &s->info.in_bits);
    }
    free(old);
    m->configured = false;              /* the layout must be computed again */
    return first_err;
}
