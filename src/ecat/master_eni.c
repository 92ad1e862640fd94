/* ENI (ETG.2100) and the master: check a scanned bus against the ENI (each mismatch by
 * position with expected and found identity), keep it for the start-up it drives
 * (eni_exec.c) and the image and frames it lays out (eni_cyclic.c), take the PDO mapping
 * from it, and write an ENI-like description of the scanned network (`takt ecat xml`). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "ecat/plan.h"
#include "ecat/sii.h"
#include "util/wire.h"

/* Slaves the ENI does not drive (no register InitCmds, e.g. an ENI `takt ecat xml`
 * wrote): its CoE init commands for INIT->PREOP and PREOP->SAFEOP as SDO downloads,
 * in file order, while the slave is in PREOP (ENI-driven slaves run theirs in the ESM). */
static int coe_init_cmds(struct takt_ecat_master *drv, unsigned pos, const struct ecat_eni_slave *es,
                         const char *path)
{
    struct ecat_core *m = &drv->core;
    const uint32_t when = ECAT_TR_BIT(ECAT_TR_IP) | ECAT_TR_BIT(ECAT_TR_PS);
    if ((m->slaves[pos].info.al_state & AL_STATE_MASK) != AL_PREOP || m->slaves[pos].esm.er)
        return 0;
    for (unsigned k = 0; k < es->n_coe; k++) {
        const struct ecat_eni_coe *c = &es->coe[k];
        if (!(c->transitions & when) || c->ccs != 1)
            continue;
        int rc = takt_ecat_sdo_download(drv, pos, c->index, c->subindex, c->complete_access, c->data, c->len);
        if (rc) {
            char why[256];
            snprintf(why, sizeof why, "%s", takt_ecat_master_error(drv));
            ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_COE_INIT, pos, RT_TXT(path, c->comment, why), c->line, c->index, c->subindex);
            return rc;
        }
    }
    return 0;
}

/* The cycle runs the ENI's own frames (not takt's layout of its slaves). */
static bool eni_frames(const struct ecat_core *m)
{ return ecat_plan_of(m) && ecat_plan_of(m)->source == PLAN_FROM_ENI; }

void ecat_master_drop_eni(struct ecat_core *m)
{
    if (m->eni_dc_set)
        m->o.dc = false;
    m->eni_dc = m->eni_sync = m->eni_dc_set = false;
    ecat_plan_cyc_free(m);
    if (m->slaves)
        ecat_eni_exec_free(m);
    if (m->eni)
        ecat_eni_free(m->eni);
    m->eni = NULL;
    free(m->eni_path);
    m->eni_path = NULL;
}

/* The ENI addresses slaves by its PhysAddr (FPxx commands, DC, mailbox): give each
 * slave that station address now (its IP commands write it again after INIT). */
static int stations(struct takt_ecat_master *drv, const struct ecat_eni *eni)
{
    struct ecat_core *m = &drv->core;
    for (unsigned i = 0; i < eni->n_slaves && i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        uint16_t phys = eni->slave[i].phys_addr;
        if (!phys || phys == s->info.station)
            continue;
        uint8_t b[2];
        put_le16(b, phys);
        int rc = takt_ecat_reg_write(drv, i, ESC_STATION_ADDR, b, 2);
        if (rc) {
            char why[200];
            snprintf(why, sizeof why, "%s", takt_ecat_master_error(drv));
            ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_STATION, i, RT_TXT(m->eni_path, why), phys, phys);
            return rc;
        }
        s->info.station = phys;
    }
    return 0;
}

static bool is_wr(const struct ecat_eni_cmd *c)
{ return (c->cmd == ECAT_APWR || c->cmd == ECAT_FPWR || c->cmd == ECAT_BWR) && c->data; }

/* The slave's init commands switch SYNC0 on (a non-zero 0x0981). */
static bool arms_sync(const struct ecat_eni_slave *s)
{
    for (unsigned k = 0; k < s->n_init; k++) {
        const struct ecat_eni_cmd *c = &s->init[k];
        if (is_wr(c) && c->ado <= ESC_DC_ACTIVATION && c->ado + c->len > ESC_DC_ACTIVATION &&
            c->data[ESC_DC_ACTIVATION - c->ado] != 0)
            return true;
    }
    return false;
}

int ecat_eni_sync_of(const struct ecat_core *m, unsigned pos)
{
    if (!m->eni || pos >= m->eni->n_slaves)
        return 0;
    const struct ecat_eni_slave *s = &m->eni->slave[pos];
    return arms_sync(s) ? 1 : s->has_dc && s->assign_activate ? 2 : 0;
}

/* DC as the ENI configures it (ETG.2100 Slave/DC, the SYNC unit in InitCmds), as
 * EC-Master does: no master option needed. Its init commands that switch SYNC0 on
 * (a non-zero 0x0981) arm it themselves; a slave with only <DC> AssignActivate is
 * armed by dc.c. */
static void eni_dc(struct ecat_core *m, const struct ecat_eni *e)
{
    unsigned sync = 0, dc = 0;
    uint32_t cycle = 0;             /* the ENI's SYNC0 cycle (0x09A0 or CycleTime0) */
    for (unsigned i = 0; i < e->n_slaves && i < m->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        for (unsigned k = 0; k < s->n_init && !cycle; k++) {
            const struct ecat_eni_cmd *c = &s->init[k];
            if (is_wr(c) && c->ado <= ESC_DC_SYNC0_CYCLE && c->ado + c->len >= ESC_DC_SYNC0_CYCLE + 4)
                cycle = get_le32(c->data + (ESC_DC_SYNC0_CYCLE - c->ado));
        }
        if (!cycle && s->has_dc)
            cycle = s->cycle0;
        int how = ecat_eni_sync_of(m, i);
        sync += how == 1;
        dc += how != 0;
    }
    if (!dc)
        return;
    m->eni_dc = true;
    m->eni_sync = sync > 0;
    if (!m->o.dc)
        m->o.dc = m->eni_dc_set = true;
    ECAT_EVT(m, TAKT_ECAT_EV_ENI_DC, -1, RT_TXT(m->eni_path), dc, m->eni_sync, m->eni_sync && sync < dc);
    /* SYNC0 starts on the master's cycle grid; a different SYNC0 cycle is the ENI's choice,
     * but worth a word (the drives then sample out of step with the frames) */
    if (cycle && m->o.cycle_ns && (takt_ns_t)cycle != m->o.cycle_ns)
        ECAT_EVT(m, TAKT_ECAT_EV_ENI_SYNC0, -1, RT_TXT(m->eni_path), cycle, m->o.cycle_ns);
}

/* Slaves the ENI drives start from INIT so that its IP commands run from their start. */
static int from_init(struct takt_ecat_master *drv)
{
    struct ecat_core *m = &drv->core;
    bool above = false;
    takt_ns_t longest = 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].info.al_state & AL_STATE_MASK;
        above |= m->slaves[i].esm.er && st != AL_INIT;
    }
    for (unsigned i = 0; i < m->eni->n_slaves; i++)
        for (unsigned k = 0; k < m->eni->slave[i].n_coe; k++)
            if ((takt_ns_t)m->eni->slave[i].coe[k].timeout_ms * TAKT_NS_PER_MS > longest)
                longest = (takt_ns_t)m->eni->slave[i].coe[k].timeout_ms * TAKT_NS_PER_MS;
    /* the ENI's CoE timeouts bound each init command; the transfer must not give up first */
    if (longest > m->o.sdo_timeout_ns)
        m->o.sdo_timeout_ns = longest;
    if (!above)
        return 0;
    int rc = takt_ecat_master_set_state(drv, AL_INIT, m->o.state_timeout_ns + TAKT_NS_PER_S);
    m->target = 0;
    /* the clocks are set up again on the way up (dc.c's DC_IDLE is 0): the ENI's
     * start-up readdresses the slaves and SYNC0 belongs after its IP commands */
    m->dc.state = 0;
    m->dc.active = false;
    return rc;
}

int takt_ecat_master_configure_eni(struct takt_ecat_master *drv, const char *path)
{
    struct ecat_core *m = &drv->core;
    char err[320];
    struct ecat_eni *eni;
    int rc = ecat_eni_load(path, &eni, err, sizeof err);
    if (rc) {
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_INVALID, -1, RT_TXT(path, err));
        return rc;
    }
    struct ecat_ident *id = calloc(m->n_slaves ? m->n_slaves : 1, sizeof *id);
    if (!id) {
        ecat_eni_free(eni);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct takt_ecat_slave_info *s = &m->slaves[i].info;
        id[i] = (struct ecat_ident){ s->vendor, s->product, s->revision, s->serial };
    }
    struct ecat_eni_mismatch mm[8];
    unsigned k = ecat_eni_compare(eni, id, m->n_slaves, ECAT_CMP_REVISION, mm, TAKT_ARRAY_SIZE(mm));
    free(id);
    /* each mismatch said once: the first in the error (whole, with the count), the
     * others as events after it */
    if (k == 1)
        ECAT_FAILT(m, -TAKT_ECONFIG, TAKT_ECAT_EV_ENI_MISMATCH, -1, RT_TXT(path, mm[0].text));
    else if (k)
        ECAT_FAILT(m, -TAKT_ECONFIG, TAKT_ECAT_EV_ENI_MISMATCHES, -1, RT_TXT(path, mm[0].text), k);
    for (unsigned i = 1; i < k && i < TAKT_ARRAY_SIZE(mm); i++)
        ECAT_EVT(m, TAKT_ECAT_EV_ENI_TEXT, -1, RT_TXT(path, mm[i].text));
    if (k > TAKT_ARRAY_SIZE(mm))
        ECAT_EVT(m, TAKT_ECAT_EV_ENI_MISMATCH_MORE, -1, RT_TXT(path), k - (unsigned)TAKT_ARRAY_SIZE(mm));
    if (k) {
        ecat_eni_free(eni);
        return -TAKT_ECONFIG;
    }
    ecat_master_drop_eni(m);
    m->eni = eni;
    if (!(m->eni_path = strdup(path)))
        return -ENOMEM;
    eni_dc(m, eni);
    if ((rc = stations(drv, eni)) || (rc = ecat_eni_exec_setup(m)) || (rc = from_init(drv)))
        return rc;
    for (unsigned i = 0; !rc && i < eni->n_slaves && i < m->n_slaves; i++)
        rc = coe_init_cmds(drv, i, &eni->slave[i], path);
    for (unsigned i = 0; !rc && i < eni->n_slaves && i < m->n_slaves; i++) {
        if ((rc = ecat_eni_pdo_map(&eni->slave[i], &m->maps[i]))) {
            ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_PDO_FIT, i, RT_TXT(path, eni->slave[i].name));
            break;
        }
        ecat_map_bits(&m->maps[i], &m->slaves[i].info.out_bits, &m->slaves[i].info.in_bits);
    }
    m->configured = false;
    if (rc || (rc = ecat_layout(m)))
        return rc;
    unsigned driven = 0;
    for (unsigned i = 0; i < m->n_slaves; i++)
        driven += m->slaves[i].esm.er != NULL;
    ECAT_EVT(m, TAKT_ECAT_EV_ENI_STARTUP, -1, RT_TXT(path), driven, m->n_slaves, eni_frames(m));
    return 0;
}

int takt_ecat_pd_find_eni(const struct takt_ecat_master *drv, const char *name, struct takt_ecat_pd_entry *out)
{
    const struct ecat_core *m = &drv->core;
    const struct ecat_eni *e = m->eni;
    const struct ecat_eni_var *v = NULL;
    for (unsigned i = 0; e && i < e->n_vars && !v; i++)
        if (!strcmp(e->var[i].name, name))
            v = &e->var[i];
    int pos = v ? ecat_eni_var_slave(e, v) : -1;
    if (pos < 0 || (unsigned)pos >= m->n_slaves || !m->configured)
        return -ENOENT;
    const char *rest = v->name + strlen(e->slave[pos].name);
    if (*rest == '.')
        rest++;
    if (!eni_frames(m))                 /* takt's own layout: the entry by name */
        return takt_ecat_pd_find(drv, (unsigned)pos, rest, 0, 0, out);
    uint32_t bit = v->bitoffs + (v->input ? e->out_bytes * 8 : 0);
    memset(out, 0, sizeof *out);
    out->position = (unsigned)pos;
    out->bits = (uint8_t)v->bitsize;
    out->output = !v->input;
    out->byte_offset = bit / 8;
    out->bit_offset = (uint8_t)(bit % 8);
    snprintf(out->name, sizeof out->name, "%s", rest);
    for (unsigned i = 0; i < m->img.n_vars; i++) {
        const struct ecat_pdo_var *pv = &m->img.var[i];
        if (pv->pos == (unsigned)pos && pv->bit_off == bit && pv->input == v->input) {
            out->index = pv->index;
            out->sub = pv->subindex;
            break;
        }
    }
    return 0;
}

int takt_ecat_master_write_eni(struct takt_ecat_master *drv, const char *path)
{
    struct ecat_core *m = &drv->core;
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
        rc = ecat_sii_decode(s->scan.sii, s->scan.sii_len, &sii[i], 0, err, sizeof err);
        if (rc)
            ECAT_FAILT(m, rc, TAKT_ECAT_EV_SII_FILE, i, RT_TXT(err));
        sp[i] = &sii[i];
        phys[i] = s->info.station;
    }
    struct ecat_eni *eni = NULL;
    if (!rc)
        rc = ecat_eni_from_scan(&eni, sp, phys, m->n_slaves, &m->img,
                                (uint32_t)(m->o.cycle_ns / TAKT_NS_PER_US));
    if (!rc && (rc = ecat_eni_write(path, eni, err, sizeof err)))
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_SII_WRITE_FILE, -1, RT_TXT(path, err));
    if (eni)
        ecat_eni_free(eni);
    free(sii);
    free(sp);
    free(phys);
    return rc;
}
