/* PDO mapping over CoE (ETG.1000.6 5.6.7.4: 0x1C12/0x1C13 assignment, 0x16xx/0x1Axx mapping):
 * read what a slave really uses, or write a new assignment, in PREOP before the
 * process image is laid out. Set-up time only (blocking through the SDO wrappers). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "ecat/sii.h"
#include "util/wire.h"

static int up_u8(struct takt_ecat_master *drv, unsigned pos, uint16_t idx, uint8_t sub, uint8_t *v)
{
    uint8_t b[4] = { 0 };
    size_t n;
    int rc = takt_ecat_sdo_upload(drv, pos, idx, sub, false, b, sizeof b, &n);
    *v = b[0];
    return rc;
}

static int up_u32(struct takt_ecat_master *drv, unsigned pos, uint16_t idx, uint8_t sub, uint32_t *v)
{
    uint8_t b[4] = { 0 };
    size_t n;
    int rc = takt_ecat_sdo_upload(drv, pos, idx, sub, false, b, sizeof b, &n);
    *v = n >= 4 ? get_le32(b) : n >= 2 ? get_le16(b) : b[0];
    return rc;
}

/* Name of an entry: what the SII calls it when it maps the same object. */
static const char *entry_name(const struct ecat_pdo_map *old, uint32_t map)
{
    for (unsigned i = 0; i < old->n_entries; i++)
        if (old->entry[i].index == (uint16_t)(map >> 16) && old->entry[i].subindex == (uint8_t)(map >> 8))
            return old->entry[i].name;
    return NULL;
}

/* One SM's assignment (0x1C10 + sm) and the mapping of each PDO in it (CiA 301 7.4.8:
 * mapping value = index << 16 | subindex << 8 | bit length). */
static int read_sm(struct takt_ecat_master *drv, unsigned pos, struct ecat_pdo_map *map,
                   const struct ecat_pdo_map *old, uint8_t sm, bool input)
{
    uint16_t asg = (uint16_t)(0x1C10 + sm);
    uint8_t npdo;
    int rc = up_u8(drv, pos, asg, 0, &npdo);
    if (rc)
        return rc;
    ecat_pdo_map_clear_sm(map, sm);
    for (unsigned k = 1; k <= npdo; k++) {
        uint32_t pdo;
        uint8_t ne;
        if ((rc = up_u32(drv, pos, asg, (uint8_t)k, &pdo)) || (rc = up_u8(drv, pos, (uint16_t)pdo, 0, &ne)))
            return rc;
        if ((rc = ecat_pdo_map_add_pdo(map, sm, input, (uint16_t)pdo, NULL)))
            return rc;
        for (unsigned e = 1; e <= ne; e++) {
            uint32_t v;
            if ((rc = up_u32(drv, pos, (uint16_t)pdo, (uint8_t)e, &v)))
                return rc;
            if ((rc = ecat_pdo_map_add_entry(map, v, 0, entry_name(old, v))))
                return rc;
        }
    }
    return 0;
}

int takt_ecat_master_read_pdos_coe(struct takt_ecat_master *drv)
{
    struct ecat_core *m = &drv->core;
    int first_err = 0;
    struct ecat_pdo_map *old = malloc(sizeof *old);    /* set-up time: allocation is fine */
    if (!old)
        return -ENOMEM;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        struct ecat_pdo_map *map = &m->maps[i];
        if (!(s->info.mbx_protocols & MBX_PROTO_COE) || !(s->scan.coe_details & ECAT_COE_DET_SDO))
            continue;
        if ((s->info.al_state & AL_STATE_MASK) != AL_PREOP)
            continue;
        *old = *map;
        int rc = 0;
        for (unsigned k = 0; !rc && k < map->n_sm; k++)
            if (map->sm[k].type == ECAT_SII_SM_OUTPUTS || map->sm[k].type == ECAT_SII_SM_INPUTS)
                rc = read_sm(drv, i, map, old, (uint8_t)k, map->sm[k].type == ECAT_SII_SM_INPUTS);
        if (rc) {
            /* keep the SII mapping: the slave may not implement the objects */
            ECAT_EVT(m, TAKT_ECAT_EV_PDO_COE_UNREADABLE, i, RT_TXT(takt_ecat_master_error(drv)));
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

int takt_ecat_slave_pdo_assign(struct takt_ecat_master *drv, unsigned pos, uint16_t sm_obj,
                          const uint16_t *pdos, unsigned n)
{
    struct ecat_core *m = &drv->core;
    if (pos >= m->n_slaves || sm_obj < 0x1C10 || sm_obj > 0x1C2F || n > 32)
        return -EINVAL;
    uint8_t zero = 0, cnt = (uint8_t)n;
    /* CiA 301: sub 0 to 0, entries, then sub 0 to the count (ETG.1020 PDO assign) */
    int rc = takt_ecat_sdo_download(drv, pos, sm_obj, 0, false, &zero, 1);
    for (unsigned k = 0; !rc && k < n; k++) {
        uint8_t b[2];
        put_le16(b, pdos[k]);
        rc = takt_ecat_sdo_download(drv, pos, sm_obj, (uint8_t)(k + 1), false, b, 2);
    }
    if (!rc)
        rc = takt_ecat_sdo_download(drv, pos, sm_obj, 0, false, &cnt, 1);
    m->configured = false;
    return rc;
}
