/* Process image as the ENI lays it out (ETG.2100 Config/ProcessImage): an output image
 * and an input image, each slave's data at its Send/Recv BitStart. Its frames, their
 * datagrams and what takt adds to them are the ENI's plan (plan_eni.c, which alone judges
 * them), run by the one cyclic executor (plan_cyc.c) like takt's own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"

/* Every slave with process data must be set up by the ENI's own commands: its FMMUs
 * then map the logical addresses the ENI's frames use. */
static const char *unfit(const struct ecat_core *m, const struct ecat_eni *e, char *why, size_t n)
{
    if (ecat_plan_eni_frames_unusable(e, ECAT_MAX_CYC_DG, why, n))
        return why;
    for (unsigned i = 0; i < m->n_slaves && i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        if ((s->send_bitlen || s->recv_bitlen) && !m->slaves[i].esm.er) {
            snprintf(why, n, "slave %u (%s) has process data but no InitCmds to map it", i, s->name);
            return why;
        }
    }
    return NULL;
}

/* What plan_eni.c found wrong with the ENI's frames, said with the event code of its
 * kind (the values are the event's, the text is made on the reader's side). */
static int frames_fault(struct ecat_core *m, const struct ecat_eni_frames_check *ft, int rc, const char *why)
{
    if (ft->fault == ECAT_ENI_FRAMES_RANGE)
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_CYC_RANGE, -1, RT_TXT(m->eni_path), ft->line, ft->frame, ft->cmd,
                   ft->command, ft->output, ft->len, ft->output, ft->image, ft->end);
    else if (ft->fault == ECAT_ENI_FRAMES_SIZE)
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_CYC_FRAME, -1, RT_TXT(m->eni_path), ft->line, ft->frame, ft->room,
                   ft->used);
    else
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_INVALID, -1, RT_TXT(m->eni_path, why));
    return rc;
}

/* Move takt's per-slave packing to the ENI's BitStarts: outputs in [0, out_bytes),
 * inputs in [out_bytes, out_bytes + in_bytes) of the one image the API hands out. */
static int relocate(struct ecat_core *m, const struct ecat_eni *e)
{
    uint32_t ob = e->out_bytes;
    for (unsigned i = 0; i < m->n_slaves && i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        const struct ecat_pdo_slave *ps = &m->img.slave[i];
        if ((uint64_t)s->send_bitstart + s->send_bitlen > (uint64_t)e->out_bytes * 8 ||
            (uint64_t)s->recv_bitstart + s->recv_bitlen > (uint64_t)e->in_bytes * 8 ||
            ps->out_len * 8 > s->send_bitlen + 7 || ps->in_len * 8 > s->recv_bitlen + 7) {
            ECAT_FAILT(m, -TAKT_ECONFIG, TAKT_ECAT_EV_ENI_CYC_SLAVE, i, RT_TXT(m->eni_path, s->name), s->line, s->send_bitstart,
                       s->send_bitlen, s->recv_bitstart, s->recv_bitlen, ps->out_len, ps->in_len, e->out_bytes, e->in_bytes);
            return -TAKT_ECONFIG;
        }
    }
    for (unsigned v = 0; v < m->img.n_vars; v++) {
        struct ecat_pdo_var *var = &m->img.var[v];
        const struct ecat_eni_slave *s = &e->slave[var->pos];
        const struct ecat_pdo_slave *ps = &m->img.slave[var->pos];
        var->bit_off = var->input ? ob * 8 + s->recv_bitstart + (var->bit_off - ps->in_off * 8)
                                  : s->send_bitstart + (var->bit_off - ps->out_off * 8);
    }
    for (unsigned i = 0; i < m->n_slaves && i < e->n_slaves; i++) {
        struct ecat_pdo_slave *ps = &m->img.slave[i];
        ps->out_off = e->slave[i].send_bitstart / 8;
        ps->in_off = ob + e->slave[i].recv_bitstart / 8;
    }
    m->img.size = e->out_bytes + e->in_bytes;
    return 0;
}

int ecat_eni_cyc_setup(struct ecat_core *m, struct ecat_plan *p)
{
    const struct ecat_eni *e = m->eni;
    char why[300];
    if (unfit(m, e, why, sizeof why)) {
        ECAT_EVT(m, TAKT_ECAT_EV_ENI_OWN_IMAGE, -1, RT_TXT(m->eni_path, why));
        return 0;
    }
    struct ecat_eni_frames_check ft;
    int rc = ecat_plan_from_eni(p, e, &ft, why, sizeof why);
    if (rc)
        return frames_fault(m, &ft, rc, why);
    if ((rc = relocate(m, e))) {
        ecat_plan_free(p);
        return rc;
    }
    return 1;
}
