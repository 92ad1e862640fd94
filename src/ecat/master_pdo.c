/* PDO mapping over CoE (ref §7: 0x1C12/0x1C13 assignment, 0x16xx/0x1Axx mapping):
 * read what a slave really uses, or write a new assignment, in PREOP before the
 * process image is laid out. Set-up time only (blocking through the SDO wrappers). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/sii.h"
#include "util/wire.h"

static int up_u8(struct ecat_master *m, unsigned pos, uint16_t idx, uint8_t sub, uint8_t *v)
{
    uint8_t b[4] = { 0 };
    size_t n;
    int rc = ecat_sdo_upload(m, pos, idx, sub, false, b, sizeof b, &n);
    *v = b[0];
    return rc;
}

static int up_u32(struct ecat_master *m, unsigned pos, uint16_t idx, uint8_t sub, uint32_t *v)
{
    uint8_t b[4] = { 0 };
    size_t n;
    int rc = ecat_sdo_upload(m, pos, idx, sub, false, b, sizeof b, &n);
    *v = n >= 4 ? get_le32(b) : n >= 2 ? get_le16(b) : b[0];
    return rc;
}

/* Name of an entry: what the SII calls it when the SII has the same entry. */
static void entry_name(const struct ecat_slave *old, unsigned n_old, struct ecat_pd *d)
{
    for (unsigned i = 0; i < n_old; i++)
        if (old->pd[i].index == d->index && old->pd[i].sub == d->sub && old->pd[i].name[0]) {
            snprintf(d->name, sizeof d->name, "%s", old->pd[i].name);
            return;
        }
    if (d->index)
        snprintf(d->name, sizeof d->name, "0x%04X:%02X", d->index, d->sub);
}

/* One SM's assignment (0x1C10 + sm) and the mapping of each PDO in it. */
static int read_sm(struct ecat_master *m, struct ecat_slave *s, const struct ecat_slave *old,
                   int sm, bool output)
{
    unsigned pos = s->info.position;
    uint16_t asg = (uint16_t)(0x1C10 + sm);
    uint8_t npdo;
    int rc = up_u8(m, pos, asg, 0, &npdo);
    if (rc)
        return rc;
    uint32_t bit = 0;
    for (unsigned k = 1; k <= npdo; k++) {
        uint32_t pdo;
        if ((rc = up_u32(m, pos, asg, (uint8_t)k, &pdo)))
            return rc;
        uint8_t ne;
        if ((rc = up_u8(m, pos, (uint16_t)pdo, 0, &ne)))
            return rc;
        for (unsigned e = 1; e <= ne; e++) {
            uint32_t map;
            if ((rc = up_u32(m, pos, (uint16_t)pdo, (uint8_t)e, &map)))
                return rc;
            if (s->n_pd >= ECAT_MAX_PDO_ENTRIES)
                return -ENOSPC;
            /* mapping entry: index << 16 | subindex << 8 | bit length (CiA 301 7.4.8) */
            struct ecat_pd *d = &s->pd[s->n_pd++];
            memset(d, 0, sizeof *d);
            d->index = (uint16_t)(map >> 16);
            d->sub = (uint8_t)(map >> 8);
            d->bits = (uint8_t)map;
            d->output = output;
            d->pdo = (uint16_t)pdo;
            d->bit_pos = bit;
            bit += d->bits;
            entry_name(old, old->n_pd, d);
        }
    }
    if (output)
        s->info.out_bits = bit;
    else
        s->info.in_bits = bit;
    return 0;
}

static int find_sm(const struct ecat_slave *s, uint8_t type)
{
    for (unsigned i = 0; i < s->n_sm; i++)
        if (s->sm[i].type == type)
            return (int)i;
    return -1;
}

int ecat_master_read_pdos_coe(struct ecat_master *m)
{
    int first_err = 0;
    struct ecat_slave *old = malloc(sizeof *old);     /* set-up time: allocation is fine */
    if (!old)
        return -ENOMEM;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!(s->info.mbx_protocols & MBX_PROTO_COE) || !(s->coe_details & ECAT_COE_DET_SDO))
            continue;
        if ((s->info.al_state & AL_STATE_MASK) != AL_PREOP)
            continue;
        int so = find_sm(s, ECAT_SII_SM_OUTPUTS), si = find_sm(s, ECAT_SII_SM_INPUTS);
        *old = *s;
        s->n_pd = 0;
        int rc = 0;
        if (so >= 0)
            rc = read_sm(m, s, old, so, true);
        if (!rc && si >= 0)
            rc = read_sm(m, s, old, si, false);
        if (rc) {
            /* keep the SII layout: the slave may not implement the objects */
            ecat_event(m, "slave %u: PDO assignment over CoE not readable (%s); using the SII's",
                       i, ecat_master_error(m));
            s->n_pd = old->n_pd;
            memcpy(s->pd, old->pd, sizeof s->pd);
            s->info.out_bits = old->info.out_bits;
            s->info.in_bits = old->info.in_bits;
            if (!first_err)
                first_err = rc;
            continue;
        }
        s->sm_out = so;
        s->sm_in = si;
    }
    free(old);
    m->configured = false;              /* the layout must be computed again */
    return first_err;
}

int ecat_slave_pdo_assign(struct ecat_master *m, unsigned pos, uint16_t sm_obj,
                          const uint16_t *pdos, unsigned n)
{
    if (pos >= m->n_slaves || sm_obj < 0x1C10 || sm_obj > 0x1C2F || n > 32)
        return -EINVAL;
    uint8_t zero = 0, cnt = (uint8_t)n;
    /* CiA 301: sub 0 to 0, entries, then sub 0 to the count (ETG.1020 PDO assign) */
    int rc = ecat_sdo_download(m, pos, sm_obj, 0, false, &zero, 1);
    for (unsigned k = 0; !rc && k < n; k++) {
        uint8_t b[2];
        put_le16(b, pdos[k]);
        rc = ecat_sdo_download(m, pos, sm_obj, (uint8_t)(k + 1), false, b, 2);
    }
    if (!rc)
        rc = ecat_sdo_download(m, pos, sm_obj, 0, false, &cnt, 1);
    m->configured = false;
    return rc;
}
