/* Process image as the ENI lays it out (ETG.2100 Config/ProcessImage): an output image
 * and an input image, each slave's data at its Send/Recv BitStart. Its frames, their
 * datagrams and what takt adds to them are the ENI's plan (plan_eni.c), run by the one
 * cyclic executor (plan_cyc.c) like takt's own. */
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
    if (!e->n_frames) {
        snprintf(why, n, "it has no <Cyclic> frames");
        return why;
    }
    if (e->n_frames > ECAT_MAX_CYC_DG) {
        snprintf(why, n, "it has %u cyclic frames, at most %d", e->n_frames, ECAT_MAX_CYC_DG);
        return why;
    }
    for (unsigned i = 0; i < m->n_slaves && i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        if ((s->send_bitlen || s->recv_bitlen) && !m->slaves[i].esm.er) {
            snprintf(why, n, "slave %u (%s) has process data but no InitCmds to map it", i, s->name);
            return why;
        }
    }
    return NULL;
}

/* Room for takt's DC datagrams in frame 0 (FPWR/FRMW 0x0910 8 bytes, FPRD 0x092C 4). */
#define DC_ROOM (3 * (ECAT_DG_HDR + ECAT_DG_WKC) + 20)

static bool reads(uint8_t c)
{
    return c != ECAT_NOP && c != ECAT_APWR && c != ECAT_FPWR && c != ECAT_BWR && c != ECAT_LWR;
}

/* The command carries the output image to the slaves (ETG.1000.4 5.4: LWR and LRW
 * write, LRD only reads; the register writes likewise). */
static bool writes(uint8_t c)
{
    return c == ECAT_APWR || c == ECAT_FPWR || c == ECAT_BWR || c == ECAT_LWR || c == ECAT_LRW ||
           c == ECAT_APRW || c == ECAT_FPRW || c == ECAT_BRW;
}

/* Every datagram inside the images, every frame inside one Ethernet frame (frame 0
 * keeps room for takt's DC datagrams and BRD). */
static int check_frames(struct ecat_core *m, const struct ecat_eni *e)
{
    for (unsigned f = 0; f < e->n_frames; f++) {
        size_t room = ECAT_MAX_DG_DATA - (f == 0 ? DC_ROOM + ECAT_DG_HDR + ECAT_DG_WKC + 2 : 0);
        size_t used = 0;
        for (unsigned k = 0; k < e->frame[f].n_cmd; k++) {
            const struct ecat_eni_fcmd *c = &e->frame[f].cmd[k];
            used += ECAT_DG_HDR + ECAT_DG_WKC + c->len;
            /* each direction only where the command has it: an LWR has no input,
             * an LRD no output (its InputOffs/OutputOffs for the other may be absent) */
            bool out = writes(c->cmd), in = reads(c->cmd);
            if ((out && (uint64_t)c->output_offs + c->len > e->out_bytes) ||
                (in && (uint64_t)c->input_offs + c->len > e->in_bytes)) {
                bool o = out && (uint64_t)c->output_offs + c->len > e->out_bytes;
                ECAT_FAILT(m, -TAKT_ECONFIG, TAKT_ECAT_EV_ENI_CYC_RANGE, -1, RT_TXT(m->eni_path), c->line, f, k, c->cmd, o, c->len, o,
                           o ? e->out_bytes : e->in_bytes, (o ? c->output_offs : c->input_offs) + c->len);
                return -TAKT_ECONFIG;
            }
        }
        if (used > room) {
            ECAT_FAILT(m, -TAKT_ECONFIG, TAKT_ECAT_EV_ENI_CYC_FRAME, -1, RT_TXT(m->eni_path),
                       e->frame[f].n_cmd ? e->frame[f].cmd[0].line : 0, f, room, used);
            return -TAKT_ECONFIG;
        }
    }
    return 0;
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
    /* what plan_eni.c would refuse, said first with its own event codes */
    int rc = check_frames(m, e);
    if (rc)
        return rc;
    if ((rc = ecat_plan_from_eni(p, e, why, sizeof why))) {
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_INVALID, -1, RT_TXT(m->eni_path, why));
        return rc;
    }
    if ((rc = relocate(m, e))) {
        ecat_plan_free(p);
        return rc;
    }
    return 1;
}
