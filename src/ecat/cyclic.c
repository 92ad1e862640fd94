/* Process image and the plan of the cyclic frames: slaves are grouped into LRW
 * datagrams of at most one frame each ([outputs of the group][inputs of the group],
 * logical address == image offset), or laid out as an ENI says; either way the result
 * is a plan (plan.h) that plan_cyc.c runs every cycle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/plan.h"

/* Room left in the first frame for the monitoring datagrams (FRMW 0x0910, BRD 0x0130,
 * BRD 0x092C: 3 headers + 14 data bytes). */
#define MON_ROOM (3 * (ECAT_DG_HDR + ECAT_DG_WKC) + 14)
#define SEG_MAX  (ECAT_MAX_DG_DATA - MON_ROOM)

/* The layout itself is pdo.c's (SM lengths, one FMMU per contiguous SM run, bit-exact
 * variables, frames never splitting a slave); here it becomes cyclic datagrams, the
 * image and the per-slave entries the API looks up. */
int ecat_layout(struct ecat_core *m)
{
    char err[200];
    uint16_t *pos = calloc(m->n_slaves ? m->n_slaves : 1, sizeof *pos);
    if (!pos)
        return -ENOMEM;
    for (unsigned i = 0; i < m->n_slaves; i++)
        pos[i] = (uint16_t)i;
    ecat_pdo_image_free(&m->img);
    int rc = ecat_pdo_layout(&m->img, m->maps, pos, m->n_slaves, 0, SEG_MAX, err, sizeof err);
    free(pos);
    if (rc) {
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_IMAGE_INVALID, -1, RT_TXT(err));
        return rc;
    }
    /* an ENI moves each slave's data to its BitStart and brings its own frames */
    struct ecat_plan plan;
    int eni = m->eni ? ecat_eni_cyc_setup(m, &plan) : 0;
    if (eni < 0)
        return eni;
    if (m->img.n_frames > ECAT_MAX_CYC_DG) {
        if (eni)
            ecat_plan_free(&plan);
        ECAT_FAIL(m, -ENOSPC, TAKT_ECAT_EV_IMAGE_TOO_BIG, -1, m->img.size, m->img.n_frames, ECAT_MAX_CYC_DG);
        return -ENOSPC;
    }
    free(m->image);
    m->image_cap = m->img.size ? m->img.size : 1;
    if (!(m->image = calloc(1, m->image_cap))) {
        if (eni)
            ecat_plan_free(&plan);
        return -ENOMEM;
    }
    m->image_len = m->img.size;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        const struct ecat_pdo_slave *ps = &m->img.slave[i];
        s->seg = ps->frame;
        s->info.out_offset = ps->out_off;
        s->info.in_offset = ps->in_off;
        s->n_pd = 0;
        s->configured = true;
    }
    for (unsigned v = 0; v < m->img.n_vars; v++) {
        const struct ecat_pdo_var *var = &m->img.var[v];
        struct ecat_slave *s = &m->slaves[var->pos];
        if (s->n_pd >= ECAT_MAX_PDO_ENTRIES)
            continue;
        struct ecat_pd *d = &s->pd[s->n_pd++];
        d->index = var->index;
        d->sub = var->subindex;
        d->bits = var->bitlen;
        d->output = !var->input;
        d->abs_bit = var->bit_off;
        d->pdo = var->pdo;
        snprintf(d->name, sizeof d->name, "%s", var->name);
    }
    m->configured = true;
    /* takt's own plan from the layout just made (SII: LRW or LRD + LWR per frame) */
    if (!eni && (rc = ecat_plan_from_master(&plan, m)))
        return rc;
    return ecat_plan_cyc_take(m, &plan);
}
