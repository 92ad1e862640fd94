/* ENI (ETG.2100) and the master: check a scanned bus against the ENI (each mismatch by
 * position with expected and found identity), take the PDO mapping from it, and write an
 * ENI-like description of the scanned network (`takt ecat xml`). Set-up time only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "ecat/sii.h"
#include "util/wire.h"

/* The ENI's CoE init commands for INIT->PREOP and PREOP->SAFEOP (PDO assignment and
 * mapping, drive parameters) as SDO downloads, in file order, while the slave is in
 * PREOP. Uploads (checks) and the other transitions are not executed. */
static int coe_init_cmds(struct ecat_master *m, unsigned pos, const struct ecat_eni_slave *es,
                         const char *path)
{
    const uint32_t when = ECAT_TR_BIT(ECAT_TR_IP) | ECAT_TR_BIT(ECAT_TR_PS);
    if ((m->slaves[pos].info.al_state & AL_STATE_MASK) != AL_PREOP)
        return 0;
    for (unsigned k = 0; k < es->n_coe; k++) {
        const struct ecat_eni_coe *c = &es->coe[k];
        if (!(c->transitions & when) || c->ccs != 1)
            continue;
        int rc = ecat_sdo_download(m, pos, c->index, c->subindex, c->complete_access, c->data, c->len);
        if (rc) {
            char why[256];
            snprintf(why, sizeof why, "%s", ecat_master_error(m));
            ecat_fail(m, rc, "ENI %s line %u: slave %u CoE init command 0x%04X:%02X (%s): %s", path,
                      c->line, pos, c->index, c->subindex, c->comment, why);
            return rc;
        }
    }
    return 0;
}

int ecat_master_configure_eni(struct ecat_master *m, const char *path)
{
    char err[320];
    struct ecat_eni *eni;
    int rc = ecat_eni_load(path, &eni, err, sizeof err);
    if (rc) {
        ecat_fail(m, rc, "ENI %s: %s", path, err);
        return rc;
    }
    struct ecat_ident *id = calloc(m->n_slaves ? m->n_slaves : 1, sizeof *id);
    if (!id) {
        ecat_eni_free(eni);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave_info *s = &m->slaves[i].info;
        id[i] = (struct ecat_ident){ s->vendor, s->product, s->revision, s->serial };
    }
    struct ecat_eni_mismatch mm[8];
    unsigned k = ecat_eni_compare(eni, id, m->n_slaves, ECAT_CMP_REVISION, mm, TAKT_ARRAY_SIZE(mm));
    free(id);
    for (unsigned i = 0; i < k && i < TAKT_ARRAY_SIZE(mm); i++)
        ecat_event(m, "ENI %s: %s", path, mm[i].text);
    if (k) {
        ecat_fail(m, -TAKT_ECONFIG, "ENI %s: the network does not match (%u mismatch%s; first: %s)",
                  path, k, k == 1 ? "" : "es", mm[0].text);
        ecat_eni_free(eni);
        return -TAKT_ECONFIG;
    }
    for (unsigned i = 0; !rc && i < eni->n_slaves && i < m->n_slaves; i++)
        rc = coe_init_cmds(m, i, &eni->slave[i], path);
    for (unsigned i = 0; !rc && i < eni->n_slaves && i < m->n_slaves; i++) {
        if ((rc = ecat_eni_pdo_map(&eni->slave[i], &m->maps[i]))) {
            ecat_fail(m, rc, "ENI %s: slave %u (%s): PDO mapping does not fit", path, i,
                      eni->slave[i].name);
            break;
        }
        ecat_map_bits(&m->maps[i], &m->slaves[i].info.out_bits, &m->slaves[i].info.in_bits);
    }
    ecat_eni_free(eni);
    m->configured = false;
    return rc ? rc : ecat_layout(m);
}

int ecat_master_write_eni(struct ecat_master *m, const char *path)
{
    if (!m->configured) {
        int rc = ecat_layout(m);
        if (rc)
            return rc;
    }
    struct ecat_sii *sii = calloc(m->n_slaves ? m->n_slaves : 1, sizeof *sii);
    const struct ecat_sii **sp = calloc(m->n_slaves ? m->n_slaves : 1, sizeof *sp);
    uint16_t *phys = calloc(m->n_slaves ? m->n_slaves : 1, sizeof *phys);
    int rc = sii && sp && phys ? 0 : -ENOMEM;
    char err[200];
    for (unsigned i = 0; !rc && i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        rc = ecat_sii_decode(s->sii, s->sii_len, &sii[i], 0, err, sizeof err);
        if (rc)
            ecat_fail(m, rc, "slave %u: SII: %s", i, err);
        sp[i] = &sii[i];
        phys[i] = s->info.station;
    }
    struct ecat_eni *eni = NULL;
    if (!rc)
        rc = ecat_eni_from_scan(&eni, sp, phys, m->n_slaves, &m->img,
                                (uint32_t)(m->o.cycle_ns / TAKT_NS_PER_US));
    if (!rc && (rc = ecat_eni_write(path, eni, err, sizeof err)))
        ecat_fail(m, rc, "writing %s: %s", path, err);
    if (eni)
        ecat_eni_free(eni);
    free(sii);
    free(sp);
    free(phys);
    return rc;
}
