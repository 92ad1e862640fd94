/* The plan of takt's own set-up, from a scanned and laid-out network: what esm.c runs
 * (through the init-command executor, initx.h) before each transition (mailbox SMs before INIT -> PREOP, bootstrap SMs before
 * INIT -> BOOT, process-data SMs and FMMUs before PREOP -> SAFEOP), what dc.c arms
 * (SYNC0 start, cycle, activation), the image pdo.c laid out and the frames cyclic.c
 * sends: per frame an LRW (LRD + LWR where a slave forbids LRW), frame 0 led by the DC
 * datagrams and closed by the BRD of the AL status and the FPRD of 0x092C. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"
#include "util/wire.h"

/* States in which takt's own frames go out: every one (bit 1 << AL_x). */
#define ALL_STATES 0xFFFFu
#define SET_UP_RETRIES 3       /* esm.c: a set-up write is tried again 3 times */

static struct ecat_plan_cmd *reg(struct ecat_plan_slave *ps, uint32_t tr, uint16_t ado, const void *d,
                                 uint16_t len, const char *what)
{
    struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, tr, ECAT_FPWR, ps->station, ado, d, len);
    if (!c)
        return NULL;
    c->has_wkc = true;
    c->wkc = 1;
    c->retries = SET_UP_RETRIES;
    c->comment = what;
    return c;
}

/* The master's AL request of the transition and its wait for the state (ETG.1000.6
 * 6.4): the places the ENI marks with its 0x0120 write and 0x0130 read. */
static int al(struct ecat_plan_slave *ps, uint32_t tr, uint8_t state)
{
    uint8_t d[2] = { state, 0 }, mask[2] = { AL_STATE_MASK | AL_ERROR, 0 };
    struct ecat_plan_cmd *c = reg(ps, tr, ESC_AL_CONTROL, d, 2, "AL request");
    if (!c)
        return -ENOMEM;
    c->flags = PLAN_F_AL_REQ;
    if (!(c = ecat_plan_cmd_add(ps, tr, ECAT_FPRD, ps->station, ESC_AL_STATUS, NULL, 2)))
        return -ENOMEM;
    c->flags = PLAN_F_AL_CHECK;
    c->has_wkc = true;
    c->wkc = 1;
    c->validate = true;
    if (!(c->vdata = ecat_plan_bytes(ps, d, 2)) || !(c->vmask = ecat_plan_bytes(ps, mask, 2)))
        return -ENOMEM;
    c->comment = "AL status";
    return 0;
}

static int mbx_sm(struct ecat_plan_slave *ps, uint32_t tr, const uint8_t sm[16], const char *what)
{
    /* disabled first: an enabled SM's start, length and control are write-protected */
    if (!reg(ps, tr, ESC_SM0, NULL, 16, what) || !reg(ps, tr, ESC_SM0, sm, 16, what))
        return -ENOMEM;
    return 0;
}

static int slave_cmds(struct ecat_plan_slave *ps, const struct ecat_core *m, unsigned i)
{
    const struct ecat_slave *s = &m->slaves[i];
    int rc;
    /* INIT -> PREOP: the standard mailbox  */
    if (s->info.mbx_out_len && s->info.mbx_in_len) {
        uint8_t sm[16] = { 0 };
        put_le16(sm + 0, s->info.mbx_out_start);
        put_le16(sm + 2, s->info.mbx_out_len);
        sm[4] = s->n_sm > 0 && s->sm[0].control ? s->sm[0].control : 0x26;
        sm[6] = 1;
        put_le16(sm + 8, s->info.mbx_in_start);
        put_le16(sm + 10, s->info.mbx_in_len);
        sm[12] = s->n_sm > 1 && s->sm[1].control ? s->sm[1].control : 0x22;
        sm[14] = (uint8_t)(1 | s->mbx.repeat << 1);
        if ((rc = mbx_sm(ps, ECAT_TR_BIT(ECAT_TR_IP), sm, "mailbox SM")))
            return rc;
    }
    if ((rc = al(ps, ECAT_TR_BIT(ECAT_TR_IP), AL_PREOP)))
        return rc;
    /* PREOP -> SAFEOP: the process data SMs and FMMUs as pdo.c laid them out (at most
     * as many as the slave machine's requests); none before the layout */
    static const struct ecat_pdo_slave none;
    const struct ecat_pdo_slave *ls = m->configured && i < m->img.n_slaves ? &m->img.slave[i] : &none;
    unsigned n = 0;
    for (unsigned k = 0; k < ls->n_sm && n < TAKT_ARRAY_SIZE(s->esm.f.req); k++, n++) {
        uint8_t b[8];
        ecat_sm_encode(b, &ls->sm[k]);
        if (!reg(ps, ECAT_TR_BIT(ECAT_TR_PS), (uint16_t)(ESC_SM0 + ESC_SM_SIZE * ls->sm[k].index), b, 8,
                 "SM/FMMU set-up"))
            return -ENOMEM;
    }
    for (unsigned k = 0; k < ls->n_fmmu && n < TAKT_ARRAY_SIZE(s->esm.f.req); k++, n++) {
        uint8_t b[16];
        ecat_fmmu_encode(b, &ls->fmmu[k]);
        if (!reg(ps, ECAT_TR_BIT(ECAT_TR_PS), (uint16_t)(ESC_FMMU0 + ESC_FMMU_SIZE * k), b, 16,
                 "SM/FMMU set-up"))
            return -ENOMEM;
    }
    /* SYNC0 before PREOP -> SAFEOP (else AL status 0x0030, ETG.1000.6 Table 11): dc.c
     * writes start time, cycle and activation once the clocks are set up, for all DC
     * slaves at once, so the commands are its own (the executor skips them) */
    if (ps->dc) {
        uint8_t b[16] = { 0 };
        put_le32(b + 8, (uint32_t)m->o.cycle_ns);
        b[12] = 0x03;                          /* cyclic operation + SYNC0 */
        struct ecat_plan_cmd *c = reg(ps, ECAT_TR_BIT(ECAT_TR_PS), ESC_DC_SYNC0_START, b, 8, "SYNC0 start");
        if (!c)
            return -ENOMEM;
        c->flags = PLAN_F_START | PLAN_F_NEEDS_DC | PLAN_F_DC_OWN;
        if (!(c = reg(ps, ECAT_TR_BIT(ECAT_TR_PS), ESC_DC_SYNC0_CYCLE, b + 8, 4, "SYNC0 cycle")))
            return -ENOMEM;
        c->flags = PLAN_F_DC_OWN;
        if (!(c = reg(ps, ECAT_TR_BIT(ECAT_TR_PS), ESC_DC_ACTIVATION, b + 12, 1, "SYNC0 activation")))
            return -ENOMEM;
        c->flags = PLAN_F_NEEDS_DC | PLAN_F_DC_OWN;
    }
    if ((rc = al(ps, ECAT_TR_BIT(ECAT_TR_PS), AL_SAFEOP)) || (rc = al(ps, ECAT_TR_BIT(ECAT_TR_SO), AL_OP)))
        return rc;
    /* INIT -> BOOT: the bootstrap mailbox of SII words 0x14-0x17  */
    struct ecat_sm_cfg b[2];
    if (ecat_slave_boot_mbx(s, b)) {
        uint8_t sm[16] = { 0 };
        put_le16(sm + 0, b[0].start);
        put_le16(sm + 2, b[0].len);
        sm[4] = 0x26;
        sm[6] = 1;
        put_le16(sm + 8, b[1].start);
        put_le16(sm + 10, b[1].len);
        sm[12] = 0x22;
        sm[14] = (uint8_t)(1 | s->mbx.repeat << 1);
        if ((rc = mbx_sm(ps, ECAT_TR_BIT(ECAT_TR_IB), sm, "bootstrap mailbox SM")))
            return rc;
    }
    return al(ps, ECAT_TR_BIT(ECAT_TR_IB), AL_BOOT);
}

static struct ecat_plan_dg *mon(struct ecat_plan *p, uint8_t cmd, uint8_t role, uint8_t when, uint16_t ado,
                                uint16_t len)
{
    struct ecat_plan_dg *d = ecat_plan_dg_add(p, cmd, role, 0, ado, len);
    if (d) {
        d->when = when;
        d->states = ALL_STATES;
    }
    return d;
}

static struct ecat_plan_dg *pd(struct ecat_plan *p, const struct ecat_pdo_frame *f, uint8_t cmd, uint16_t wkc)
{
    struct ecat_plan_dg *d = ecat_plan_dg_add(p, cmd, PLAN_DG_DATA, (uint16_t)f->log_start,
                                              (uint16_t)(f->log_start >> 16), f->len);
    if (!d)
        return NULL;
    d->states = ALL_STATES;
    d->judged = 1u << AL_OP;                  /* only frames sent while all are in OP */
    d->has_wkc = true;
    d->wkc = wkc;
    d->out_off = (int32_t)f->img_off;         /* logical address == image offset */
    d->in_off = cmd == ECAT_LWR ? -1 : (int32_t)f->img_off;
    d->first_slave = f->first_slave;
    d->n_slaves = f->n_slaves;
    return d;
}

/* cyclic.c ecat_cyc_build, frame by frame */
static int frames(struct ecat_plan *p, const struct ecat_core *m)
{
    /* before the layout: frame 0 with the monitoring datagrams alone */
    unsigned nimg = m->configured ? m->img.n_frames : 0;
    unsigned nframes = nimg ? nimg : (m->n_slaves ? 1 : 0);
    for (unsigned k = 0; k < nframes; k++) {
        if (ecat_plan_frame_add(p))
            return -ENOMEM;
        if (k == 0 && (!mon(p, ECAT_FPWR, PLAN_DG_DC_SET, PLAN_W_DC_FOLLOWS, ESC_DC_SYS_TIME, 8) ||
                       !mon(p, ECAT_FRMW, PLAN_DG_DC_TIME, PLAN_W_DC, ESC_DC_SYS_TIME, 8)))
            return -ENOMEM;
        const struct ecat_pdo_frame *f = &m->img.frame[k];
        if (k < nimg && f->len) {
            if (!f->no_lrw && !pd(p, f, ECAT_LRW, f->wkc))
                return -ENOMEM;
            /* SII general flag 'not LRW' (ETG.2010): LRD + LWR, each with its own WKC */
            if (f->no_lrw && (!pd(p, f, ECAT_LRD, f->n_in) || !pd(p, f, ECAT_LWR, f->n_out)))
                return -ENOMEM;
        }
        /* ETG.1000.4 commands and working counter: the BRD's WKC counts the slaves that
         * answered, its data is the OR of their states (so it goes out as zeros) */
        if (k == 0 && (!mon(p, ECAT_BRD, PLAN_DG_AL, PLAN_W_ALWAYS, ESC_AL_STATUS, 2) ||
                       !mon(p, ECAT_FPRD, PLAN_DG_DC_DIFF, PLAN_W_DC, ESC_DC_SYS_DIFF, 4)))
            return -ENOMEM;
    }
    return 0;
}

int ecat_plan_sii_slave(struct ecat_plan *p, const struct ecat_core *m, unsigned i)
{
    bool reserved = p->slave && p->n_slaves == 1 && p->slave[0].pool;
    int rc = 0;
    if (reserved)
        ecat_plan_clear(p);         /* built again in the storage it has */
    else if ((rc = ecat_plan_alloc(p, 1)))
        return rc;
    p->source = PLAN_FROM_SII;
    struct ecat_plan_slave *ps = &p->slave[0];
    ps->pos = (int)i;
    ps->station = m->slaves[i].info.station;
    ps->dc = m->o.dc && m->slaves[i].info.dc;
    if ((rc = slave_cmds(ps, m, i))) {
        if (reserved)
            ecat_plan_clear(p);
        else
            ecat_plan_free(p);
    }
    return rc;
}

int ecat_plan_from_master(struct ecat_plan *p, const struct ecat_core *m)
{
    int rc = ecat_plan_alloc(p, m->n_slaves);
    if (rc)
        return rc;
    p->source = PLAN_FROM_SII;
    p->image_size = p->out_bytes = p->in_bytes = m->img.size;
    struct ecat_plan_dc *dc = &p->dc;
    dc->on = m->o.dc;
    dc->ref_follows_master = m->o.dc_mode == TAKT_ECAT_DC_REF_FOLLOWS_MASTER;
    dc->start = dc->on ? PLAN_START_GRID_100MS : PLAN_START_NONE;
    dc->sync0_cycle_ns = dc->on ? (uint32_t)m->o.cycle_ns : 0;
    dc->sync0_shift_ns = dc->on ? (int32_t)m->o.sync0_shift_ns : 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave *s = &m->slaves[i];
        struct ecat_plan_slave *ps = &p->slave[i];
        ps->station = s->info.station;
        bool laid = m->configured && i < m->img.n_slaves;
        if (laid) {
            const struct ecat_pdo_slave *ls = &m->img.slave[i];
            ps->out_off = ls->out_off;
            ps->out_len = ls->out_len;
            ps->in_off = ls->in_off;
            ps->in_len = ls->in_len;
        }
        /* dc.c: the first DC-capable slave is the reference clock */
        ps->dc = dc->on && s->info.dc;
        if (ps->dc && dc->ref < 0)
            dc->ref = (int)i;
        ps->sync0_cycle_ns = ps->dc ? dc->sync0_cycle_ns : 0;
        ps->sync0_shift_ns = ps->dc ? dc->sync0_shift_ns : 0;
        if (laid && (rc = slave_cmds(ps, m, i)))
            goto fail;
    }
    if ((rc = frames(p, m)))
        goto fail;
    return 0;
fail:
    ecat_plan_free(p);
    return rc;
}
