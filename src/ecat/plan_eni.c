/* The plan of an ENI (ETG.2100): its InitCmds per transition (the slaves', then the
 * master's own), its mailbox init commands, its process image (outputs, then inputs at
 * the Send/Recv BitStarts), its Config/Cyclic frames and its DC. What eni_exec.c,
 * eni_cyclic.c and master_eni.c take from the file, and what they add: takt's own BRD of
 * the AL status where the ENI has none, the DC datagrams of frame 0, and which of the
 * ENI's DC datagrams give way to takt's DC. The one place that judges the ENI's frames
 * (check_frames). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/plan.h"
#include "ecat/proto.h"
#include "util/wire.h"

#define ALL_STATES ((1u << AL_INIT) | (1u << AL_PREOP) | (1u << AL_BOOT) | (1u << AL_SAFEOP) | (1u << AL_OP))
/* Room for takt's DC datagrams and its own BRD in frame 0 (FPWR/FRMW 0x0910 8 bytes,
 * FPRD 0x092C 4) */
#define DC_ROOM (3 * (ECAT_DG_HDR + ECAT_DG_WKC) + 20)

static bool is_logical(uint8_t c) { return c == ECAT_LRD || c == ECAT_LWR || c == ECAT_LRW; }

/* ETG.1000.4 5.4: the commands that carry data to the slaves, and those whose reply
 * carries data back. */
static bool writes(uint8_t c)
{
    return c == ECAT_APWR || c == ECAT_FPWR || c == ECAT_BWR || c == ECAT_LWR || c == ECAT_LRW ||
           c == ECAT_APRW || c == ECAT_FPRW || c == ECAT_BRW;
}
static bool reads(uint8_t c)
{ return c != ECAT_NOP && c != ECAT_APWR && c != ECAT_FPWR && c != ECAT_BWR && c != ECAT_LWR; }

/* The state each transition leads to (ETG.1000.6 6.4). */
static uint8_t target(unsigned tr)
{
    static const uint8_t t[ECAT_TR_COUNT] = {
        [ECAT_TR_IP] = AL_PREOP, [ECAT_TR_PS] = AL_SAFEOP, [ECAT_TR_PI] = AL_INIT,
        [ECAT_TR_SP] = AL_PREOP, [ECAT_TR_SO] = AL_OP, [ECAT_TR_SI] = AL_INIT,
        [ECAT_TR_OS] = AL_SAFEOP, [ECAT_TR_OP] = AL_PREOP, [ECAT_TR_OI] = AL_INIT,
        [ECAT_TR_IB] = AL_BOOT, [ECAT_TR_BI] = AL_INIT, [ECAT_TR_II] = AL_INIT,
        [ECAT_TR_PP] = AL_PREOP, [ECAT_TR_SS] = AL_SAFEOP,
    };
    return tr < ECAT_TR_COUNT ? t[tr] : 0;
}

static bool leads_to(uint32_t transitions, uint8_t state)
{
    for (unsigned t = 0; t < ECAT_TR_COUNT; t++)
        if ((transitions & ECAT_TR_BIT(t)) && target(t) == state)
            return true;
    return false;
}

/* The SYNC/LATCH unit (0x0980-0x09AF): eni_exec.c sync_unit, writes_start, needs_dc */
static bool sync_unit(const struct ecat_eni_cmd *c)
{ return !is_logical(c->cmd) && c->ado + c->len > 0x0980 && c->ado <= 0x09AF; }

static bool wr_data(const struct ecat_eni_cmd *c)
{ return (c->cmd == ECAT_APWR || c->cmd == ECAT_FPWR || c->cmd == ECAT_BWR) && c->data; }

/* The slave's init commands switch SYNC0 on (a non-zero 0x0981; master_eni.c). */
static bool arms_sync(const struct ecat_eni_slave *s)
{
    for (unsigned k = 0; k < s->n_init; k++) {
        const struct ecat_eni_cmd *c = &s->init[k];
        if (wr_data(c) && c->ado <= ESC_DC_ACTIVATION && c->ado + c->len > ESC_DC_ACTIVATION &&
            c->data[ESC_DC_ACTIVATION - c->ado] != 0)
            return true;
    }
    return false;
}

static uint8_t flags_of(const struct ecat_eni_cmd *c, bool by_cmds)
{
    uint8_t f = 0;
    bool w = writes(c->cmd);
    if (w && c->ado == ESC_AL_CONTROL && c->len >= 1 && c->data && leads_to(c->transitions, c->data[0] & AL_STATE_MASK))
        f |= PLAN_F_AL_REQ;
    if (!w && c->ado == ESC_AL_STATUS && c->validate && c->len >= 1 && c->vdata &&
        leads_to(c->transitions, c->vdata[0] & AL_STATE_MASK))
        f |= PLAN_F_AL_CHECK;
    if (sync_unit(c) && !by_cmds)
        f |= PLAN_F_DC_OWN;
    bool start = w && sync_unit(c) && c->ado <= ESC_DC_SYNC0_START && c->ado + c->len >= ESC_DC_SYNC0_START + 8;
    if (start)
        f |= PLAN_F_START | PLAN_F_NEEDS_DC;
    if (w && sync_unit(c) && c->data && c->ado <= ESC_DC_ACTIVATION && c->ado + c->len > ESC_DC_ACTIVATION &&
        c->data[ESC_DC_ACTIVATION - c->ado] != 0)
        f |= PLAN_F_NEEDS_DC;
    return f;
}

static int init_cmds(struct ecat_plan_slave *ps, const struct ecat_eni_cmd *cmd, unsigned n, bool by_cmds)
{
    for (unsigned k = 0; k < n; k++) {
        const struct ecat_eni_cmd *e = &cmd[k];
        uint16_t adp = is_logical(e->cmd) ? (uint16_t)e->addr : e->adp;
        uint16_t ado = is_logical(e->cmd) ? (uint16_t)(e->addr >> 16) : e->ado;
        struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, e->transitions, e->cmd, adp, ado, e->data, e->len);
        if (!c)
            return -ENOMEM;
        c->flags = flags_of(e, by_cmds);
        c->before_slave = e->before_slave;
        c->has_wkc = e->has_cnt;
        c->wkc = e->cnt;
        c->retries = e->retries;
        c->timeout_ms = e->timeout_ms;
        c->validate = e->validate;
        c->vtimeout_ms = e->vtimeout_ms;
        if (e->validate && e->vdata && !(c->vdata = malloc(e->len ? e->len : 1)))
            return -ENOMEM;
        if (c->vdata && e->len)
            memcpy(c->vdata, e->vdata, e->len);
        if (e->validate && e->vmask && !(c->vmask = malloc(e->len ? e->len : 1)))
            return -ENOMEM;
        if (c->vmask && e->len)
            memcpy(c->vmask, e->vmask, e->len);
        c->line = e->line;
        c->comment = e->comment ? e->comment : "";
    }
    return 0;
}

/* The mailbox init commands after the register ones: CoE, then SoE, then EoE, as the
 * runner takes them. */
static int mbx_cmds(struct ecat_plan_slave *ps, const struct ecat_eni_slave *s)
{
    for (unsigned k = 0; k < s->n_coe; k++) {
        const struct ecat_eni_coe *e = &s->coe[k];
        struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, e->transitions, 0, 0, 0, e->data, e->len);
        if (!c)
            return -ENOMEM;
        c->kind = PLAN_COE;
        c->ccs = e->ccs;
        c->index = e->index;
        c->subindex = e->subindex;
        c->complete_access = e->complete_access;
        c->timeout_ms = e->timeout_ms;
        c->line = e->line;
        c->comment = e->comment ? e->comment : "";
    }
    for (unsigned k = 0; k < s->n_soe; k++) {
        const struct ecat_eni_soe *e = &s->soe[k];
        struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, e->transitions, 0, 0, 0, e->data, e->len);
        if (!c)
            return -ENOMEM;
        c->kind = PLAN_SOE;
        c->drive = e->drive;
        c->elements = e->elements;
        c->idn = e->idn;
        c->timeout_ms = e->timeout_ms;
        c->line = e->line;
        c->comment = e->comment ? e->comment : "";
    }
    for (unsigned k = 0; k < s->n_eoe; k++) {
        const struct ecat_eni_eoe *e = &s->eoe[k];
        struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, e->transitions, 0, 0, 0, e->body, e->len);
        if (!c)
            return -ENOMEM;
        c->kind = PLAN_EOE;
        c->eoe_type = e->type;
        c->timeout_ms = e->timeout_ms;
        c->line = e->line;
        c->comment = e->comment ? e->comment : "";
    }
    return 0;
}

/* DC as the ENI configures it (master_eni.c eni_dc): the SYNC0 cycle its 0x09A0 write
 * or CycleTime0 gives; its own commands arm SYNC0, or takt does for <DC> AssignActivate. */
static void dc_of(struct ecat_plan *p, const struct ecat_eni *e)
{
    struct ecat_plan_dc *dc = &p->dc;
    int first = -1;
    for (unsigned i = 0; i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        struct ecat_plan_slave *ps = &p->slave[i];
        uint32_t cycle = 0;
        for (unsigned k = 0; k < s->n_init && !cycle; k++) {
            const struct ecat_eni_cmd *c = &s->init[k];
            if (wr_data(c) && c->ado <= ESC_DC_SYNC0_CYCLE && c->ado + c->len >= ESC_DC_SYNC0_CYCLE + 4)
                cycle = get_le32(c->data + (ESC_DC_SYNC0_CYCLE - c->ado));
        }
        if (!cycle && s->has_dc)
            cycle = s->cycle0;
        ps->sync_by_cmds = arms_sync(s);
        ps->dc = ps->sync_by_cmds || (s->has_dc && s->assign_activate);
        if (!ps->dc)
            continue;
        ps->sync0_cycle_ns = cycle;
        ps->sync1_cycle_ns = s->cycle1;
        ps->sync0_shift_ns = s->shift0;
        ps->sync1_shift_ns = s->shift1;
        dc->by_cmds |= ps->sync_by_cmds;
        if (!dc->on) {
            dc->on = true;
            dc->sync0_cycle_ns = cycle;
            dc->sync1_cycle_ns = s->cycle1;
            dc->sync0_shift_ns = s->shift0;
            dc->sync1_shift_ns = s->shift1;
        }
        if (first < 0)
            first = (int)i;
        if (s->ref_clock && dc->ref < 0)
            dc->ref = (int)i;
    }
    if (dc->on && dc->ref < 0)
        dc->ref = first;
    dc->start = dc->on ? PLAN_START_GRID_100MS : PLAN_START_NONE;
}

const char *ecat_plan_eni_frames_unusable(const struct ecat_eni *e, unsigned max, char *why, size_t n)
{
    if (!e->n_frames) {
        snprintf(why, n, "it has no <Cyclic> frames");
        return why;
    }
    if (e->n_frames > max) {
        snprintf(why, n, "it has %u cyclic frames, at most %u", e->n_frames, max);
        return why;
    }
    return NULL;
}

/* Every datagram inside the images, every frame inside one Ethernet frame (frame 0
 * keeps room for takt's DC datagrams and BRD): the one judge of the ENI's frames; the
 * master says what it finds with the event codes of ft->fault (eni_cyclic.c). */
static int check_frames(const struct ecat_eni *e, struct ecat_eni_frames_check *ft, char *err, size_t errlen)
{
    for (unsigned f = 0; f < e->n_frames; f++) {
        size_t room = ECAT_MAX_DG_DATA - (f == 0 ? DC_ROOM + ECAT_DG_HDR + ECAT_DG_WKC + 2 : 0), used = 0;
        for (unsigned k = 0; k < e->frame[f].n_cmd; k++) {
            const struct ecat_eni_fcmd *c = &e->frame[f].cmd[k];
            used += ECAT_DG_HDR + ECAT_DG_WKC + c->len;
            /* each direction only where the command has it: an LWR has no input,
             * an LRD no output (its InputOffs/OutputOffs for the other may be absent) */
            bool o = writes(c->cmd) && (uint64_t)c->output_offs + c->len > e->out_bytes;
            bool i = reads(c->cmd) && (uint64_t)c->input_offs + c->len > e->in_bytes;
            if (o || i) {
                *ft = (struct ecat_eni_frames_check){
                    .fault = ECAT_ENI_FRAMES_RANGE, .line = c->line, .frame = f, .cmd = k, .command = c->cmd,
                    .output = o, .len = c->len, .image = o ? e->out_bytes : e->in_bytes,
                    .end = (unsigned long long)(o ? c->output_offs : c->input_offs) + c->len };
                snprintf(err, errlen, "line %u: Cyclic/Frame %u/Cmd %u (%s): expected %s + DataLength %u "
                         "inside the %s image (%u bytes), found it ending at byte %llu", ft->line, f, k,
                         ecat_cmd_name(c->cmd), o ? "OutputOffs" : "InputOffs", c->len, o ? "output" : "input",
                         ft->image, ft->end);
                return -TAKT_ECONFIG;
            }
        }
        if (used > room) {
            *ft = (struct ecat_eni_frames_check){ .fault = ECAT_ENI_FRAMES_SIZE, .frame = f, .room = room,
                                                  .used = used,
                                                  .line = e->frame[f].n_cmd ? e->frame[f].cmd[0].line : 0 };
            snprintf(err, errlen, "line %u: Cyclic/Frame %u: expected at most %zu bytes of datagrams in "
                     "one frame, found %zu", ft->line, f, room, used);
            return -TAKT_ECONFIG;
        }
    }
    return 0;
}

/* eni_cyclic.c kind_of: the role of one of the ENI's datagrams, and when it goes out */
static void role_of(const struct ecat_eni_fcmd *c, bool eni_dc, uint8_t *role, uint8_t *when)
{
    *role = PLAN_DG_DATA;
    *when = PLAN_W_ALWAYS;
    if (c->cmd == ECAT_BRD && c->ado == ESC_AL_STATUS && c->len >= 2) {
        *role = PLAN_DG_AL;
        return;
    }
    /* the ENI configures DC: its ARMW/FRMW of the reference time (ETG.1000.4 5.4.2, 4 or
     * 8 bytes) distributes it once takt's DC has set offsets and delays */
    if (eni_dc && (c->cmd == ECAT_ARMW || c->cmd == ECAT_FRMW) && c->ado == ESC_DC_SYS_TIME &&
        (c->len == 4 || c->len == 8)) {
        *role = PLAN_DG_DC_TIME;
        *when = PLAN_W_DC;
        return;
    }
    /* other DC registers: reads go out while takt runs no DC; writes (and ARMW/FRMW,
     * which would feed uncompensated offsets to the clocks) never */
    if (!is_logical(c->cmd) && (c->cmd == ECAT_NOP || (c->ado >= 0x0900 && c->ado <= 0x09FF))) {
        bool rd = c->cmd == ECAT_NOP || (reads(c->cmd) && c->cmd != ECAT_ARMW && c->cmd != ECAT_FRMW &&
                                         c->cmd != ECAT_APRW && c->cmd != ECAT_FPRW && c->cmd != ECAT_BRW);
        *role = rd ? PLAN_DG_DC_READ : PLAN_DG_DATA;
        *when = rd ? PLAN_W_NO_DC : PLAN_W_NEVER;
    }
}

static struct ecat_plan_dg *own(struct ecat_plan *p, uint8_t cmd, uint8_t role, uint8_t when, uint16_t ado,
                                uint16_t len)
{
    struct ecat_plan_dg *d = ecat_plan_dg_add(p, cmd, role, 0, ado, len);
    if (d) {
        d->when = when;
        d->states = ALL_STATES;
    }
    return d;
}

static int frames(struct ecat_plan *p, const struct ecat_eni *e)
{
    bool own_time = false, own_al = true;
    for (unsigned f = 0; f < e->n_frames; f++)
        for (unsigned k = 0; k < e->frame[f].n_cmd; k++) {
            uint8_t role, when;
            role_of(&e->frame[f].cmd[k], p->dc.on, &role, &when);
            own_time |= role == PLAN_DG_DC_TIME;
            own_al &= role != PLAN_DG_AL;
        }
    bool time_taken = false, al_taken = false;
    for (unsigned f = 0; f < e->n_frames; f++) {
        if (ecat_plan_frame_add(p))
            return -ENOMEM;
        if (f == 0 && (!own(p, ECAT_FPWR, PLAN_DG_DC_SET, PLAN_W_DC_FOLLOWS, ESC_DC_SYS_TIME, 8) ||
                       (!own_time && !own(p, ECAT_FRMW, PLAN_DG_DC_TIME, PLAN_W_DC, ESC_DC_SYS_TIME, 8))))
            return -ENOMEM;
        for (unsigned k = 0; k < e->frame[f].n_cmd; k++) {
            const struct ecat_eni_fcmd *c = &e->frame[f].cmd[k];
            uint8_t role, when;
            role_of(c, p->dc.on, &role, &when);
            /* one distribution of the time per cycle; a second AL status is plain data */
            if (role == PLAN_DG_DC_TIME && time_taken) {
                role = PLAN_DG_DATA;
                when = PLAN_W_NEVER;
            }
            if (role == PLAN_DG_AL && al_taken)
                role = PLAN_DG_DATA;
            time_taken |= role == PLAN_DG_DC_TIME;
            al_taken |= role == PLAN_DG_AL;
            struct ecat_plan_dg *d = ecat_plan_dg_add(p, c->cmd, role,
                                                      is_logical(c->cmd) ? (uint16_t)c->addr : c->adp,
                                                      is_logical(c->cmd) ? (uint16_t)(c->addr >> 16) : c->ado,
                                                      c->len);
            if (!d)
                return -ENOMEM;
            d->when = when;
            d->no = (int)k;
            d->line = c->line;
            d->comment = c->comment ? c->comment : "";
            /* the AL status goes out in every state: it is the presence check */
            d->states = role == PLAN_DG_AL ? ALL_STATES : c->states;
            d->has_wkc = c->has_cnt;
            d->wkc = c->cnt;
            /* process data counts in OP only (in SAFEOP the outputs are not written) */
            d->judged = !c->has_cnt ? 0 : is_logical(c->cmd) ? c->states & (1u << AL_OP) : c->states;
            /* outputs from the output image where the command writes, zeros otherwise;
             * replies of reads into the input image */
            if (writes(c->cmd) && role == PLAN_DG_DATA)
                d->out_off = (int32_t)c->output_offs;
            if (reads(c->cmd))
                d->in_off = (int32_t)(p->in_base + c->input_offs);
        }
        if (f == 0 && ((own_al && !own(p, ECAT_BRD, PLAN_DG_AL, PLAN_W_ALWAYS, ESC_AL_STATUS, 2)) ||
                       !own(p, ECAT_FPRD, PLAN_DG_DC_DIFF, PLAN_W_DC, ESC_DC_SYS_DIFF, 4)))
            return -ENOMEM;
    }
    return 0;
}

/* The slaves' init commands, layout and DC, and the master's commands. */
static int init_part(struct ecat_plan *p, const struct ecat_eni *e)
{
    int rc = ecat_plan_alloc(p, e->n_slaves);
    if (rc)
        return rc;
    p->source = PLAN_FROM_ENI;
    p->out_bytes = e->out_bytes;
    p->in_bytes = e->in_bytes;
    p->in_base = e->out_bytes;
    p->image_size = e->out_bytes + e->in_bytes;
    dc_of(p, e);
    for (unsigned i = 0; i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        struct ecat_plan_slave *ps = &p->slave[i];
        ps->station = s->phys_addr;
        ps->out_off = s->send_bitstart / 8;
        ps->out_len = (s->send_bitlen + 7) / 8;
        ps->in_off = e->out_bytes + s->recv_bitstart / 8;
        ps->in_len = (s->recv_bitlen + 7) / 8;
        if ((rc = init_cmds(ps, s->init, s->n_init, p->dc.by_cmds)) || (rc = mbx_cmds(ps, s)))
            goto fail;
    }
    if ((rc = init_cmds(ecat_plan_master(p), e->master_init, e->n_master_init, p->dc.by_cmds)))
        goto fail;
    return 0;
fail:
    ecat_plan_free(p);
    return rc;
}

int ecat_plan_from_eni_init(struct ecat_plan *p, const struct ecat_eni *e)
{ return init_part(p, e); }

int ecat_plan_from_eni(struct ecat_plan *p, const struct ecat_eni *e, struct ecat_eni_frames_check *ft,
                       char *err, size_t errlen)
{
    struct ecat_eni_frames_check own_ft;
    if (!ft)
        ft = &own_ft;
    *ft = (struct ecat_eni_frames_check){ 0 };
    int rc = init_part(p, e);
    if (rc) {
        snprintf(err, errlen, "no memory for the plan");
        return rc;
    }
    if ((rc = check_frames(e, ft, err, errlen)) || (rc = frames(p, e)))
        goto fail;
    return 0;
fail:
    if (rc == -ENOMEM)
        snprintf(err, errlen, "no memory for the plan");
    ecat_plan_free(p);
    return rc;
}
