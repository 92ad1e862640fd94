/* Process image and cyclic frames as the ENI lays them out (ETG.2100 Config/Cyclic):
 * an output image and an input image (each slave's data at its Send/Recv BitStart),
 * frames with the ENI's datagrams in order (LRW/LRD/LWR at their Addr, BRD of the AL
 * status, ARMW/FRMW of the DC reference time), each judged by its Cnt every cycle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "util/wire.h"

/* Room for takt's DC datagrams in frame 0 (FPWR/FRMW 0x0910 8 bytes, FPRD 0x092C 4). */
#define DC_ROOM (3 * (ECAT_DG_HDR + ECAT_DG_WKC) + 20)

enum dg_kind {
    DG_DATA,        /* the ENI's datagram, image in and out */
    DG_AL,          /* BRD 0x0130: also the master's presence check (m->mon_al) */
    DG_DC_READ,     /* NOP/reads of DC registers: sent unless dc.c runs DC */
    DG_SKIP,        /* writes of DC registers, ARMW/FRMW of the system time: dc.c's own */
    DG_DC_TIME,     /* ARMW/FRMW of the system time of an ENI that configures DC: sent as
                       written while DC runs, in place of dc.c's FRMW (m->dc.mon_ref) */
};

struct eni_dg {
    const struct ecat_eni_fcmd *c;
    struct ecat_req req;
    uint8_t  kind;
    unsigned frame, no;         /* frame index, datagram number in the frame */
    bool     out;               /* sent this cycle */
    bool     judged;            /* its WKC counts (state listed, all slaves present) */
    int      last_wkc;
    int      seen;              /* the WKC of its last frame judged, -1 lost or none */
    uint64_t wkc_errs;          /* takt_ecat_master_frames */
};

struct ecat_eni_cyc {
    unsigned n_dg, n_frames;
    struct eni_dg *dg;
    uint32_t out_bytes, in_bytes;
    bool     own_al;            /* the ENI has no BRD 0x0130: takt adds its own */
    bool     own_time;          /* the ENI distributes the reference time itself */
    uint8_t  scratch[ECAT_MAX_DG_DATA];   /* replies nobody reads (writes, NOP) */
    uint8_t  zeros[ECAT_MAX_DG_DATA];     /* what reads send */
};

static bool reads(uint8_t c)
{
    return c != ECAT_NOP && c != ECAT_APWR && c != ECAT_FPWR && c != ECAT_BWR && c != ECAT_LWR;
}

static bool logical(uint8_t c) { return c == ECAT_LRD || c == ECAT_LWR || c == ECAT_LRW; }

/* The command carries the output image to the slaves (ETG.1000.4 5.4: LWR and LRW
 * write, LRD only reads; the register writes likewise). */
static bool writes(uint8_t c)
{
    return c == ECAT_APWR || c == ECAT_FPWR || c == ECAT_BWR || c == ECAT_LWR || c == ECAT_LRW ||
           c == ECAT_APRW || c == ECAT_FPRW || c == ECAT_BRW;
}

static uint8_t kind_of(const struct ecat_core *m, const struct ecat_eni_fcmd *c)
{
    if (c->cmd == ECAT_BRD && c->ado == ESC_AL_STATUS && c->len >= 2)
        return DG_AL;
    /* the ENI configures DC: its own ARMW/FRMW of the reference time (ETG.1000.4 5.4.2,
     * 4 or 8 bytes) distributes it once dc.c has set offsets and delays */
    if (m->eni_dc && (c->cmd == ECAT_ARMW || c->cmd == ECAT_FRMW) && c->ado == ESC_DC_SYS_TIME &&
        (c->len == 4 || c->len == 8))
        return DG_DC_TIME;
    /* ARMW/FRMW write the reference time into every other clock: without takt's DC
     * set-up (offsets, delays) that feeds their drift control uncompensated offsets, and
     * with it dc.c sends its own FRMW */
    if (!logical(c->cmd) && (c->cmd == ECAT_NOP || (c->ado >= 0x0900 && c->ado <= 0x09FF)))
        return c->cmd == ECAT_NOP || (reads(c->cmd) && c->cmd != ECAT_ARMW && c->cmd != ECAT_FRMW &&
                                      c->cmd != ECAT_APRW && c->cmd != ECAT_FPRW && c->cmd != ECAT_BRW)
               ? DG_DC_READ : DG_SKIP;
    return DG_DATA;
}

void ecat_eni_cyc_free(struct ecat_core *m)
{
    if (m->eni_cyc)
        free(m->eni_cyc->dg);
    free(m->eni_cyc);
    m->eni_cyc = NULL;
}

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
        if ((s->send_bitlen || s->recv_bitlen) && !m->slaves[i].er) {
            snprintf(why, n, "slave %u (%s) has process data but no InitCmds to map it", i, s->name);
            return why;
        }
    }
    return NULL;
}

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

int ecat_eni_cyc_setup(struct ecat_core *m)
{
    const struct ecat_eni *e = m->eni;
    char why[200];
    ecat_eni_cyc_free(m);
    if (unfit(m, e, why, sizeof why)) {
        ECAT_EVT(m, TAKT_ECAT_EV_ENI_OWN_IMAGE, -1, RT_TXT(m->eni_path, why));
        return 0;
    }
    int rc = check_frames(m, e);
    if (rc || (rc = relocate(m, e)))
        return rc;
    unsigned n = 0;
    for (unsigned f = 0; f < e->n_frames; f++)
        n += e->frame[f].n_cmd;
    struct ecat_eni_cyc *y = calloc(1, sizeof *y);
    if (!y || !(y->dg = calloc(n ? n : 1, sizeof *y->dg))) {
        free(y);
        return -ENOMEM;
    }
    y->n_frames = e->n_frames;
    y->out_bytes = e->out_bytes;
    y->in_bytes = e->in_bytes;
    y->own_al = true;
    for (unsigned f = 0; f < e->n_frames; f++)
        for (unsigned k = 0; k < e->frame[f].n_cmd; k++) {
            struct eni_dg *d = &y->dg[y->n_dg++];
            d->c = &e->frame[f].cmd[k];
            d->kind = kind_of(m, d->c);
            d->frame = f;
            d->no = k;
            d->last_wkc = d->c->cnt;
            d->seen = -1;
            if (d->kind == DG_DC_TIME && !y->own_time)
                y->own_time = true;
            else if (d->kind == DG_DC_TIME)
                d->kind = DG_SKIP;      /* one distribution of the time per cycle */
            if (d->kind == DG_AL && y->own_al)
                y->own_al = false;
            else if (d->kind == DG_AL)
                d->kind = DG_DATA;      /* a second one is an ordinary datagram */
        }
    m->eni_cyc = y;
    return 0;
}

/* --- every cycle -------------------------------------------------------------------- */

static bool listed(const struct ecat_eni_fcmd *c, uint8_t state)
{ return (c->states >> (state ? state : AL_INIT)) & 1u; }

static void dc_head(struct ecat_core *m, uint8_t *buf, size_t *pos, takt_ns_t now, bool own_time)
{
    if (m->o.dc_mode == TAKT_ECAT_DC_REF_FOLLOWS_MASTER) {
        put_le64(m->dc.mon_wr_buf, (uint64_t)(now + m->dc.offset));
        ecat_req_init(&m->dc.mon_wr, ECAT_FPWR, m->slaves[m->dc.ref].info.station, ESC_DC_SYS_TIME,
                      m->dc.mon_wr_buf, 8);
        ecat_pdu_append(m, buf, pos, &m->dc.mon_wr, now);
    }
    if (own_time)
        return;
    ecat_req_init(&m->dc.mon_ref, ECAT_FRMW, m->slaves[m->dc.ref].info.station, ESC_DC_SYS_TIME,
                  m->dc.mon_ref_buf, 8);
    ecat_pdu_append(m, buf, pos, &m->dc.mon_ref, now);
}

static void add(struct ecat_core *m, struct ecat_eni_cyc *y, struct eni_dg *d, uint8_t *buf,
                size_t *pos, takt_ns_t now)
{
    const struct ecat_eni_fcmd *c = d->c;
    uint8_t *img = m->image;
    uint16_t adp = logical(c->cmd) ? (uint16_t)c->addr : c->adp;
    uint16_t ado = logical(c->cmd) ? (uint16_t)(c->addr >> 16) : c->ado;
    if (d->kind == DG_AL) {
        memset(m->mon_al_buf, 0, sizeof m->mon_al_buf);
        ecat_req_init(&m->mon_al, ECAT_BRD, adp, ado, m->mon_al_buf, 2);
        ecat_pdu_append(m, buf, pos, &m->mon_al, now);
        d->out = true;
        return;
    }
    if (d->kind == DG_DC_TIME) {
        memset(m->dc.mon_ref_buf, 0, sizeof m->dc.mon_ref_buf);
        ecat_req_init(&m->dc.mon_ref, c->cmd, adp, ado, m->dc.mon_ref_buf, c->len);
        d->out = ecat_pdu_append(m, buf, pos, &m->dc.mon_ref, now);
        return;
    }
    /* outputs from the output image at OutputOffs where the command writes; a read
     * sends zeros (its OutputOffs need not lie inside the output image) */
    ecat_req_init(&d->req, c->cmd, adp, ado, writes(c->cmd) ? img + c->output_offs : y->zeros, c->len);
    /* inputs straight into the input image at InputOffs; replies of writes aside */
    d->req.rx = reads(c->cmd) ? img + y->out_bytes + c->input_offs : y->scratch;
    d->out = ecat_pdu_append(m, buf, pos, &d->req, now);
}

unsigned ecat_eni_cyc_build(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_eni_cyc *y = m->eni_cyc;
    uint8_t st = m->rec.low_state;
    bool dc = m->dc.active && m->dc.ref >= 0, all = m->rec.present == m->n_slaves;
    unsigned nb = 0;
    for (unsigned f = 0; f < y->n_frames; f++) {
        uint8_t *buf = m->cycbuf + (size_t)nb * TAKT_FRAME_BUF;
        size_t pos = ecat_pdu_frame_begin(m, buf, true), start = pos;
        if (f == 0 && dc)
            dc_head(m, buf, &pos, now, y->own_time);
        for (unsigned i = 0; i < y->n_dg; i++) {
            struct eni_dg *d = &y->dg[i];
            d->out = false;
            if (d->frame != f || d->kind == DG_SKIP || (d->kind == DG_DC_READ && dc) ||
                (d->kind == DG_DC_TIME && !dc))
                continue;
            /* the AL status goes out in every state: it is the presence check */
            if (d->kind != DG_AL && !listed(d->c, st))
                continue;
            /* process data counts in OP only (in SAFEOP the outputs are not written) */
            d->judged = d->c->has_cnt && all && listed(d->c, st) && (!logical(d->c->cmd) || st == AL_OP);
            add(m, y, d, buf, &pos, now);
        }
        if (f == 0 && y->own_al) {
            memset(m->mon_al_buf, 0, sizeof m->mon_al_buf);   /* slaves OR their state in */
            ecat_req_init(&m->mon_al, ECAT_BRD, 0, ESC_AL_STATUS, m->mon_al_buf, 2);
            ecat_pdu_append(m, buf, &pos, &m->mon_al, now);
        }
        if (f == 0 && dc) {
            ecat_req_init(&m->dc.mon_diff, ECAT_FPRD, m->slaves[m->dc.rr].info.station,
                          ESC_DC_SYS_DIFF, m->dc.mon_diff_buf, 4);
            ecat_pdu_append(m, buf, &pos, &m->dc.mon_diff, now);
        }
        if (pos == start)
            continue;
        m->txf[nb].data = buf;
        m->txf[nb].len = (uint16_t)ecat_frame_end(buf, pos);
        nb++;
    }
    m->st.cyc_frames_sent += nb;
    return nb;
}

/* The reference time the ENI's ARMW/FRMW brought back: into the input image at its
 * InputOffs, and whole (64 bits) for dc.c; a 4-byte one has the low half only, the
 * high half follows the last reading (the time moves on by far less than 2^31 ns a
 * cycle). */
static void dc_time(struct ecat_core *m, struct ecat_eni_cyc *y, const struct ecat_eni_fcmd *c)
{
    memcpy(m->image + y->out_bytes + c->input_offs, m->dc.mon_ref_buf, c->len);
    if (c->len == 8)
        return;
    uint64_t prev = m->dc.ref_time, t = (prev & ~(uint64_t)0xFFFFFFFF) | get_le32(m->dc.mon_ref_buf);
    if (t + 0x80000000u < prev)
        t += (uint64_t)1 << 32;                 /* the low half wrapped forwards */
    else if (t > prev + 0x80000000u && t >> 32)
        t -= (uint64_t)1 << 32;                 /* a reading just before the wrap */
    put_le64(m->dc.mon_ref_buf, t);
}

static void judge(struct ecat_core *m, struct eni_dg *d, int wkc)
{
    const struct ecat_eni_fcmd *c = d->c;
    if (!d->judged || wkc < 0)
        return;
    if (wkc != c->cnt) {
        m->st.wkc_errors++;
        d->wkc_errs++;
        if (d->last_wkc == c->cnt)
            ECAT_EVT(m, TAKT_ECAT_EV_ENI_CYC_WKC, -1, RT_TXT(c->comment), d->frame, d->no, c->cmd, c->comment[0] != 0,
                     logical(c->cmd) ? c->addr : (uint32_t)c->adp | (uint32_t)c->ado << 16, c->len, c->cnt, wkc);
    } else if (d->last_wkc != wkc) {
        ECAT_EV(m, TAKT_ECAT_EV_ENI_CYC_WKC_BACK, -1, d->frame, d->no, c->cnt);
    }
    d->last_wkc = wkc;
}

void ecat_eni_cyc_check(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_eni_cyc *y = m->eni_cyc;
    bool lost_f[ECAT_MAX_CYC_DG] = { false }, sent_f[ECAT_MAX_CYC_DG] = { false };
    uint32_t fno_f[ECAT_MAX_CYC_DG] = { 0 };
    bool fresh = true;
    for (unsigned i = 0; i < y->n_dg; i++) {
        struct eni_dg *d = &y->dg[i];
        if (!d->out)
            continue;
        struct ecat_req *r = d->kind == DG_AL ? &m->mon_al : d->kind == DG_DC_TIME ? &m->dc.mon_ref : &d->req;
        sent_f[d->frame] = true;
        fno_f[d->frame] = r->fno;
        if (ecat_cyc_reap(m, r)) {
            lost_f[d->frame] = true;
            d->seen = -1;
            continue;
        }
        d->seen = r->wkc;
        if (d->kind == DG_AL && r->wkc >= 0)   /* the AL status into the input image too */
            memcpy(m->image + y->out_bytes + d->c->input_offs, m->mon_al_buf, 2);
        if (d->kind == DG_DC_TIME && r->wkc >= 1)
            dc_time(m, y, d->c);
        fresh &= !d->c->has_cnt || r->wkc == d->c->cnt;
        judge(m, d, r->wkc);
        d->out = false;
    }
    if (m->mon_al.st == REQ_SENT) {             /* takt's own BRD */
        sent_f[0] = true;
        fno_f[0] = m->mon_al.fno;
        lost_f[0] |= ecat_cyc_reap(m, &m->mon_al);
    }
    ecat_cyc_reap(m, &m->dc.mon_ref);
    ecat_cyc_reap(m, &m->dc.mon_wr);
    ecat_cyc_reap(m, &m->dc.mon_diff);
    unsigned sent = 0, lost = 0;
    for (unsigned f = 0; f < y->n_frames; f++) {
        sent += sent_f[f];
        lost += lost_f[f];
        if (lost_f[f])
            ecat_pdu_frame_lost(m, now, fno_f[f]);
    }
    m->inputs_age = fresh && sent && !lost ? 0 : m->inputs_age + 1;
    if (sent) {
        m->st.cyc_frames_lost += lost;
        ecat_rate_add(&m->rate, now, sent, 0);
    }
    ecat_silence_note(m, sent, lost);
    if (m->mon_al.st == REQ_DONE && m->mon_al.wkc >= 0)
        ecat_recovery_check(m, now);
    if (m->dc.active)
        ecat_dc_cycle(m, now);
}

unsigned ecat_eni_cyc_frames(const struct ecat_core *m, struct takt_ecat_frame_info *out, unsigned max)
{
    const struct ecat_eni_cyc *y = m->eni_cyc;
    unsigned n = 0;
    for (unsigned i = 0; y && i < y->n_dg && n < max; i++) {
        const struct eni_dg *d = &y->dg[i];
        const struct ecat_eni_fcmd *c = d->c;
        if (d->kind != DG_DATA || !c->has_cnt)
            continue;
        struct takt_ecat_frame_info *f = &out[n++];
        memset(f, 0, sizeof *f);
        f->cmd = c->cmd;
        f->frame = (uint8_t)d->frame;
        f->len = c->len;
        f->logical = logical(c->cmd) ? c->addr : (uint32_t)c->adp | (uint32_t)c->ado << 16;
        f->wkc_expected = c->cnt;
        f->wkc_last = d->seen;
        f->wkc_errors = d->wkc_errs;
    }
    return n;
}
