/* The cyclic executor: frames built, sent and judged from the configuration plan alone,
 * whichever producer made it (takt's own layout or an ENI). Per cycle each frame's
 * datagrams go out in the plan's order where the state and DC allow them; on the next
 * cycle every datagram still in flight is reaped and its frame counted lost, inputs are
 * taken into the image, each datagram's WKC is judged against the plan's, and the
 * monitoring replies (AL status, reference time, sync difference) feed recovery and DC. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/plan.h"
#include "util/wire.h"

struct ecat_plan_run {
    struct ecat_req req;        /* DATA and DC_READ datagrams (the monitoring ones use
                                   the master's mon_* requests, which dc.c and recovery.c read) */
    bool     out;               /* sent this cycle */
    bool     judged;            /* its WKC counts (state listed, all slaves present) */
    int      last_wkc;
    int      seen;              /* the WKC of its last frame checked, -1 lost or none yet */
    uint64_t wkc_errs;          /* judged WKCs that were not the plan's (takt_ecat_master_frames) */
};

/* A stretch of a takt frame's reply that goes into the input image: one or more slaves'
 * inputs lying back to back in both (worked out once per plan, not per cycle). */
struct ecat_in_run {
    uint32_t img, rx, len;      /* image offset, offset in the reply's data, bytes */
};

/* A frame as last built datagram by datagram, kept for the cycles that send the same
 * datagrams (the same lowest state and DC) from the same buffer: the frame's bytes stay
 * there, and only what changes is written again -- the frame number, each datagram's
 * index, address and data, the WKCs back to 0 (ecat_pdu_refill). Frames with more
 * datagrams are always built anew. */
#define TMPL_MAX_DG 32
struct ecat_cyc_tmpl {
    bool     ok;
    bool     dc;                /* the key it was built for, with st and dc_mode */
    uint8_t  st, dc_mode;
    bool     skip;              /* an ENI frame with nothing to send: not sent */
    unsigned nb;                /* its buffer, m->cycbuf + nb * TAKT_FRAME_BUF */
    unsigned n;                 /* datagrams in it: their plan numbers and offsets in */
    uint16_t len;               /* tm_j, tm_at from the frame's first; the frame's length */
};

struct ecat_plan_exec {
    struct ecat_plan p;
    struct ecat_plan_run *run;  /* p.n_dg */
    struct ecat_cyc_tmpl *tm;   /* p.n_frames */
    unsigned *tm_j;             /* p.n_dg */
    uint16_t *tm_at;            /* p.n_dg */
    struct ecat_in_run *in;     /* datagram j's stretches: in[in_first[j] .. in_first[j + 1]) */
    unsigned *in_first;         /* p.n_dg + 1 */
    uint8_t  zeros[ECAT_MAX_DG_DATA];     /* what reads send */
    uint8_t  scratch[ECAT_MAX_DG_DATA];   /* replies nobody reads (writes, NOP) */
};

/* A cyclic request still in flight at the next cycle did not come back: take it out
 * of the index table (the caller counts its frame lost; a reply that comes afterwards is
 * late). */
bool ecat_cyc_reap(struct ecat_core *m, struct ecat_req *r)
{
    if (r->st != REQ_SENT)
        return false;
    if (m->inflight[r->idx] == r)
        m->inflight[r->idx] = NULL;
    r->st = REQ_DONE;
    r->wkc = -1;
    return true;
}

/* The executor and its plan (p: the plan it holds, or the caller's not yet taken). */
static void exec_free(struct ecat_plan_exec *x, struct ecat_plan *p)
{
    ecat_plan_free(p);
    free(x->run);
    free(x->in);
    free(x->in_first);
    free(x->tm);
    free(x->tm_j);
    free(x->tm_at);
    free(x);
}

void ecat_plan_cyc_free(struct ecat_core *m)
{
    if (!m->px)
        return;
    /* a datagram still in flight must not be matched to freed memory when it returns */
    for (unsigned j = 0; j < m->px->p.n_dg; j++)
        ecat_cyc_reap(m, &m->px->run[j].req);
    exec_free(m->px, &m->px->p);
    m->px = NULL;
}

const struct ecat_plan *ecat_plan_of(const struct ecat_core *m)
{ return m->px ? &m->px->p : NULL; }

/* The stretches of the input image each takt datagram's reply fills: the slaves it
 * carries with inputs, neighbours whose inputs adjoin in both taken as one. */
static int in_runs(struct ecat_plan_exec *x)
{
    const struct ecat_plan *p = &x->p;
    unsigned n = 0;
    for (unsigned j = 0; j < p->n_dg; j++)
        n += p->dg[j].n_slaves;
    if (!(x->in_first = calloc(p->n_dg + 1, sizeof *x->in_first)) ||
        !(x->in = calloc(n ? n : 1, sizeof *x->in)) ||
        !(x->tm = calloc(p->n_frames ? p->n_frames : 1, sizeof *x->tm)) ||
        !(x->tm_j = calloc(p->n_dg ? p->n_dg : 1, sizeof *x->tm_j)) ||
        !(x->tm_at = calloc(p->n_dg ? p->n_dg : 1, sizeof *x->tm_at)))
        return -ENOMEM;
    n = 0;
    for (unsigned j = 0; j < p->n_dg; j++) {
        const struct ecat_plan_dg *d = &p->dg[j];
        x->in_first[j] = n;
        for (unsigned i = d->first_slave; i < d->first_slave + d->n_slaves && i < p->n_slaves; i++) {
            const struct ecat_plan_slave *s = &p->slave[i];
            if (!s->in_len)
                continue;
            uint32_t rx = s->in_off - (uint32_t)d->out_off;
            struct ecat_in_run *prev = n > x->in_first[j] ? &x->in[n - 1] : NULL;
            if (prev && prev->img + prev->len == s->in_off && prev->rx + prev->len == rx)
                prev->len += s->in_len;
            else
                x->in[n++] = (struct ecat_in_run){ s->in_off, rx, s->in_len };
        }
    }
    x->in_first[p->n_dg] = n;
    return 0;
}

/* Take a produced plan (its ownership) as the one the cycle runs. */
int ecat_plan_cyc_take(struct ecat_core *m, struct ecat_plan *p)
{
    struct ecat_plan_exec *x = calloc(1, sizeof *x);
    if (!x || !(x->run = calloc(p->n_dg ? p->n_dg : 1, sizeof *x->run))) {
        free(x);
        ecat_plan_free(p);
        return -ENOMEM;
    }
    x->p = *p;
    if (in_runs(x)) {
        exec_free(x, p);
        return -ENOMEM;
    }
    if (p->n_frames > ECAT_MAX_CYC_DG) {
        ECAT_FAIL(m, -ENOSPC, TAKT_ECAT_EV_IMAGE_TOO_BIG, -1, p->image_size, p->n_frames, ECAT_MAX_CYC_DG);
        exec_free(x, p);
        return -ENOSPC;
    }
    for (unsigned j = 0; j < p->n_dg; j++) {
        x->run[j].last_wkc = p->dg[j].wkc;
        x->run[j].seen = -1;
    }
    ecat_plan_cyc_free(m);
    m->px = x;
    return 0;
}

static bool goes_out(const struct ecat_core *m, const struct ecat_plan_dg *d, bool dc)
{
    switch (d->when) {
    case PLAN_W_ALWAYS: return true;
    case PLAN_W_DC: return dc;
    case PLAN_W_DC_FOLLOWS: return dc && m->o.dc_mode == TAKT_ECAT_DC_REF_FOLLOWS_MASTER;
    case PLAN_W_NO_DC: return !dc;
    default: return false;
    }
}

/* ENI <State> bits: a state outside them (0 counts as INIT) is not listed */
static bool listed(uint16_t mask, uint8_t st)
{
    st = st ? st : AL_INIT;
    return st < 16 && (mask >> st & 1);
}

static struct ecat_req *req_of(struct ecat_core *m, struct ecat_plan_exec *x, unsigned j)
{
    switch (x->p.dg[j].role) {
    case PLAN_DG_AL: return &m->mon_al;
    case PLAN_DG_DC_SET: return &m->dc.mon_wr;
    case PLAN_DG_DC_TIME: return &m->dc.mon_ref;
    case PLAN_DG_DC_DIFF: return &m->dc.mon_diff;
    default: return &x->run[j].req;
    }
}

/* Datagram j of frame k made ready to go out: its request as the role wants it. The
 * same whether the frame is built anew or written again. */
static struct ecat_req *prep(struct ecat_core *m, struct ecat_plan_exec *x, unsigned k, unsigned j,
                             takt_ns_t now)
{
    const struct ecat_plan_dg *d = &x->p.dg[j];
    struct ecat_req *r = req_of(m, x, j);
    switch (d->role) {
    case PLAN_DG_DC_SET: case PLAN_DG_DC_TIME:
        break;
    case PLAN_DG_AL:
        /* ETG.1000.4 commands and working counter: BRD WKC = number of slaves that
         * answered; data = OR of states, so it must go out as zeros (the last reply's
         * bits would stay set for ever) */
        memset(m->mon_al_buf, 0, sizeof m->mon_al_buf);
        ecat_req_init(r, ECAT_BRD, d->adp, d->ado, m->mon_al_buf, 2);
        return r;
    case PLAN_DG_DC_DIFF:
        /* one DC slave per cycle, in turn: a BRD would OR the values together */
        ecat_req_init(r, ECAT_FPRD, m->slaves[m->dc.rr].info.station, d->ado, m->dc.mon_diff_buf, 4);
        return r;
    default:
        ecat_req_init(r, d->cmd, d->adp, d->ado, d->out_off >= 0 ? m->image + d->out_off : x->zeros, d->len);
        if (d->n_slaves)
            /* takt's frames: the reply lands aside and only the slaves' inputs go into
             * the image (the application owns the outputs between the two) */
            r->rx = m->cyc_rx + (size_t)(d->in_off >= 0 ? k : ECAT_MAX_CYC_DG + k) * ECAT_MAX_DG_DATA;
        else
            r->rx = d->in_off >= 0 ? m->image + d->in_off : x->scratch;
        return r;
    }
    uint16_t ref = m->slaves[m->dc.ref >= 0 ? m->dc.ref : 0].info.station;
    if (d->role == PLAN_DG_DC_SET) {
        /* as IgH ecrt_master_sync_reference_clock_to does: master time into the reference */
        put_le64(m->dc.mon_wr_buf, (uint64_t)(now + m->dc.offset));
        ecat_req_init(r, ECAT_FPWR, ref, d->ado, m->dc.mon_wr_buf, 8);
    } else if (d->no < 0) {             /* takt's FRMW from the reference clock */
        ecat_req_init(r, ECAT_FRMW, ref, d->ado, m->dc.mon_ref_buf, 8);
    } else {
        memset(m->dc.mon_ref_buf, 0, sizeof m->dc.mon_ref_buf);   /* the ENI's ARMW/FRMW as written */
        ecat_req_init(r, d->cmd, d->adp, d->ado, m->dc.mon_ref_buf, d->len);
    }
    return r;
}

/* Frame k written again into buffer nb from its template; false (nothing changed but
 * the requests made ready) when not every datagram gets an index: it is then built anew. */
static bool refill(struct ecat_core *m, struct ecat_plan_exec *x, unsigned k, uint8_t *buf, uint8_t st,
                   bool all, takt_ns_t now)
{
    const struct ecat_cyc_tmpl *t = &x->tm[k];
    unsigned first = x->p.frame[k].first;
    struct ecat_req *rq[TMPL_MAX_DG];
    uint8_t idx[TMPL_MAX_DG];
    for (unsigned i = 0; i < t->n; i++)
        rq[i] = prep(m, x, k, x->tm_j[first + i], now);
    if (!ecat_pdu_claim(m, rq, t->n, idx))
        return false;
    ecat_pdu_frame_renew(m, buf, true);
    for (unsigned i = 0; i < t->n; i++) {
        unsigned j = x->tm_j[first + i];
        const struct ecat_plan_dg *d = &x->p.dg[j];
        ecat_pdu_refill(m, buf, x->tm_at[first + i], rq[i], idx[i], now);
        x->run[j].out = true;
        x->run[j].judged = d->has_wkc && all && listed(d->judged, st);
    }
    return true;
}

unsigned ecat_cyc_build(struct ecat_core *m, takt_ns_t now)
{
    /* first cycle after a scan (or after an ENI was dropped): takt's own plan, once */
    if (!m->px) {
        struct ecat_plan p;
        if (!m->n_slaves || ecat_plan_from_master(&p, m) || ecat_plan_cyc_take(m, &p))
            return 0;
    }
    struct ecat_plan_exec *x = m->px;
    const struct ecat_plan *p = &x->p;
    uint8_t st = m->rec.low_state, dc_mode = (uint8_t)m->o.dc_mode;
    bool dc = m->dc.active && m->dc.ref >= 0, all = m->rec.present == m->n_slaves;
    unsigned nb = 0;
    bool dirty = false;                 /* buffer nb written by a frame not sent */
    for (unsigned k = 0; k < p->n_frames; k++) {
        uint8_t *buf = m->cycbuf + (size_t)nb * TAKT_FRAME_BUF;
        struct ecat_cyc_tmpl *t = &x->tm[k];
        /* the datagrams that go out depend on the state and DC alone: with the same
         * ones, in the same buffer, the frame there is the one to send again */
        if (t->ok && t->nb == nb && t->st == st && t->dc == dc && t->dc_mode == dc_mode && !dirty &&
            !m->cyc_rebuild) {
            if (t->skip) {
                ecat_pdu_frame_number(m, true);     /* as a frame begun and not sent */
                continue;
            }
            if (refill(m, x, k, buf, st, all, now)) {
                m->txf[nb].data = buf;
                m->txf[nb].len = t->len;
                nb++;
                m->cyc_refills++;
                continue;
            }
        }
        unsigned first = p->frame[k].first, n = 0;
        bool whole = true;              /* every datagram that goes out went in */
        size_t pos = ecat_pdu_frame_begin(m, buf, true), start = pos;
        for (unsigned j = first; j < first + p->frame[k].n; j++) {
            const struct ecat_plan_dg *d = &p->dg[j];
            struct ecat_plan_run *r = &x->run[j];
            r->out = false;
            if (!goes_out(m, d, dc))
                continue;
            /* the AL status goes out in every state: it is the presence check */
            if (d->role != PLAN_DG_AL && !listed(d->states, st))
                continue;
            /* judged only when sent while every slave answers, in a state the plan judges */
            r->judged = d->has_wkc && all && listed(d->judged, st);
            size_t at = pos;
            bool in = ecat_pdu_append(m, buf, &pos, prep(m, x, k, j, now), now);
            /* the AL status counts as sent even if it did not fit (the presence check
             * then finds it lost) */
            r->out = in || d->role == PLAN_DG_AL;
            if (in && n < TMPL_MAX_DG) {
                x->tm_j[first + n] = j;
                x->tm_at[first + n] = (uint16_t)at;
            }
            n += in;
            whole &= in;
        }
        *t = (struct ecat_cyc_tmpl){ .ok = whole && n <= TMPL_MAX_DG, .dc = dc, .st = st, .dc_mode = dc_mode,
                                     .nb = nb, .n = n };
        if (pos == start && p->source == PLAN_FROM_ENI) {
            t->skip = true;
            dirty = true;
            continue;
        }
        m->txf[nb].data = buf;
        m->txf[nb].len = t->len = (uint16_t)ecat_frame_end(buf, pos);
        nb++;
        dirty = false;
    }
    m->st.cyc_frames_sent += nb;
    return nb;
}

/* The reference time the ENI's ARMW/FRMW brought back: into the input image, and whole
 * (64 bits) for dc.c; a 4-byte one has the low half only, the high half follows the last
 * reading (the time moves on by far less than 2^31 ns a cycle). */
static void dc_time(struct ecat_core *m, const struct ecat_plan_dg *d)
{
    memcpy(m->image + d->in_off, m->dc.mon_ref_buf, d->len);
    if (d->len == 8)
        return;
    uint64_t prev = m->dc.ref_time, t = (prev & ~(uint64_t)0xFFFFFFFF) | get_le32(m->dc.mon_ref_buf);
    if (t + 0x80000000u < prev)
        t += (uint64_t)1 << 32;                 /* the low half wrapped forwards */
    else if (t > prev + 0x80000000u && t >> 32)
        t -= (uint64_t)1 << 32;                 /* a reading just before the wrap */
    put_le64(m->dc.mon_ref_buf, t);
}

static uint32_t addr_of(const struct ecat_plan_dg *d) { return (uint32_t)d->adp | (uint32_t)d->ado << 16; }

/* An ENI's datagram: judged on its own against its Cnt. */
static void judge_dg(struct ecat_core *m, const struct ecat_plan_dg *d, struct ecat_plan_run *r,
                     unsigned k, int wkc)
{
    if (!r->judged || wkc < 0)
        return;
    if (wkc != d->wkc) {
        m->st.wkc_errors++;
        r->wkc_errs++;
        if (r->last_wkc == d->wkc)
            ECAT_EVT(m, TAKT_ECAT_EV_ENI_CYC_WKC, -1, RT_TXT(d->comment), k, d->no, d->cmd, d->comment[0] != 0,
                     addr_of(d), d->len, d->wkc, wkc);
    } else if (r->last_wkc != wkc) {
        ECAT_EV(m, TAKT_ECAT_EV_ENI_CYC_WKC_BACK, -1, k, d->no, d->wkc);
    }
    r->last_wkc = wkc;
}

/* takt's frame: its LRW (or LRD, with the LWR w) judged as one, while all are in OP. */
static void judge_frame(struct ecat_core *m, const struct ecat_plan_dg *d, struct ecat_plan_run *c,
                        const struct ecat_plan_dg *wd, struct ecat_plan_run *w, unsigned k, bool in_op)
{
    int wkc = c->req.wkc;
    unsigned last = d->first_slave + d->n_slaves - 1;
    in_op = in_op && c->judged;
    bool bad = in_op && wkc >= 0 && wkc != d->wkc;
    if (wd && in_op && w->req.st == REQ_DONE && w->req.wkc >= 0 && w->req.wkc != wd->wkc) {
        wkc = w->req.wkc;               /* report the LWR's */
        if (c->last_wkc == d->wkc)
            ECAT_EV(m, TAKT_ECAT_EV_LWR_WKC, -1, k, addr_of(d), d->first_slave, last, wd->wkc, wkc);
        m->st.wkc_errors++;
        w->wkc_errs++;
        c->last_wkc = d->wkc + 1000;    /* the next good frame reports the recovery */
        return;
    }
    if (bad) {
        m->st.wkc_errors++;
        c->wkc_errs++;
        if (c->last_wkc == d->wkc)
            ECAT_EV(m, TAKT_ECAT_EV_LRW_WKC, -1, k, addr_of(d), d->len, d->first_slave, last, d->wkc, wkc);
    } else if (in_op && wkc == d->wkc && c->last_wkc >= 0 && c->last_wkc != wkc) {
        ECAT_EV(m, TAKT_ECAT_EV_WKC_BACK, -1, k, d->wkc);
    }
    if (wkc >= 0)
        c->last_wkc = wkc;
}

/* The slaves' inputs from datagram j's reply (in frame k) into the image; the outputs
 * between them stay the application's. */
static void take_inputs(struct ecat_core *m, const struct ecat_plan_exec *x, unsigned j, unsigned k)
{
    const uint8_t *rx = m->cyc_rx + (size_t)k * ECAT_MAX_DG_DATA;
    for (unsigned r = x->in_first[j]; r < x->in_first[j + 1]; r++) {
        uint8_t *to = m->image + x->in[r].img;
        const uint8_t *from = rx + x->in[r].rx;
        /* most slaves' inputs are a word or two: a copy of known size is a move, not
         * a call */
        switch (x->in[r].len) {
        case 1: *to = *from; break;
        case 2: memcpy(to, from, 2); break;
        case 4: memcpy(to, from, 4); break;
        case 8: memcpy(to, from, 8); break;
        default: memcpy(to, from, x->in[r].len); break;
        }
    }
}

/* One frame's replies; false: it did not come back. */
static bool check_frame(struct ecat_core *m, struct ecat_plan_exec *x, unsigned k, bool in_op,
                        bool *fresh)
{
    const struct ecat_plan *p = &x->p;
    unsigned first = p->frame[k].first, end = first + p->frame[k].n;
    bool lost = false;
    for (unsigned j = first; j < end; j++)
        if (x->run[j].out)
            lost |= ecat_cyc_reap(m, req_of(m, x, j));
    if (lost) {
        for (unsigned j = first; j < end; j++) {
            x->run[j].seen = x->run[j].out ? -1 : x->run[j].seen;
            x->run[j].out = false;
        }
        return false;
    }
    for (unsigned j = first; j < end; j++) {
        const struct ecat_plan_dg *d = &p->dg[j];
        struct ecat_plan_run *r = &x->run[j];
        if (!r->out)
            continue;
        r->out = false;
        int wkc = req_of(m, x, j)->wkc;
        r->seen = wkc;
        *fresh &= !d->has_wkc || wkc == d->wkc;
        if (d->role == PLAN_DG_AL && d->in_off >= 0 && wkc >= 0)   /* the AL status into the image too */
            memcpy(m->image + d->in_off, m->mon_al_buf, 2);
        if (d->role == PLAN_DG_DC_TIME && d->no >= 0 && wkc >= 1)
            dc_time(m, d);
        if (d->role != PLAN_DG_DATA || !d->n_slaves) {
            if (p->source == PLAN_FROM_ENI)
                judge_dg(m, d, r, k, wkc);
            continue;
        }
        if (d->cmd == ECAT_LWR)
            continue;                   /* judged with its LRD */
        if (wkc >= 0)
            take_inputs(m, x, j, k);
        bool lwr = d->cmd == ECAT_LRD && j + 1 < end && p->dg[j + 1].cmd == ECAT_LWR;
        judge_frame(m, d, r, lwr ? &p->dg[j + 1] : NULL, lwr ? &x->run[j + 1] : NULL, k, in_op);
    }
    return true;
}

void ecat_cyc_check(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_plan_exec *x = m->px;
    unsigned lost = 0, sent = 0, data = 0;
    bool in_op = m->rec.low_state == AL_OP && m->rec.present == m->n_slaves, fresh = true;
    for (unsigned k = 0; x && k < x->p.n_frames; k++) {
        uint32_t fno = 0;
        bool out = false;
        for (unsigned j = x->p.frame[k].first; j < x->p.frame[k].first + x->p.frame[k].n; j++)
            if (x->run[j].out) {
                out = true;
                fno = req_of(m, x, j)->fno;
                data += x->p.dg[j].role == PLAN_DG_DATA && x->p.dg[j].has_wkc;
            }
        if (!out)
            continue;
        sent++;
        if (!check_frame(m, x, k, in_op, &fresh)) {
            ecat_pdu_frame_lost(m, now, fno);
            lost++;
        }
    }
    /* takt's own frames: fresh inputs need process data; an ENI's need a frame back */
    fresh = fresh && sent && !lost && (data || (x && x->p.source == PLAN_FROM_ENI));
    m->inputs_age = fresh ? 0 : m->inputs_age + 1;
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

/* The datagrams takt_ecat_master_frames lists: takt's LRW (or LRD and LWR) of each frame,
 * an ENI's process-data datagrams judged by a Cnt (first slave and count 0: the ENI does
 * not say), in frame order. */
unsigned ecat_plan_cyc_frames(const struct ecat_core *m, struct takt_ecat_frame_info *out, unsigned max)
{
    const struct ecat_plan_exec *x = m->px;
    unsigned n = 0;
    for (unsigned k = 0; x && k < x->p.n_frames; k++)
        for (unsigned j = x->p.frame[k].first; j < x->p.frame[k].first + x->p.frame[k].n && n < max; j++) {
            const struct ecat_plan_dg *d = &x->p.dg[j];
            const struct ecat_plan_run *r = &x->run[j];
            if (d->role != PLAN_DG_DATA || !d->has_wkc || d->when == PLAN_W_NEVER)
                continue;
            struct takt_ecat_frame_info *f = &out[n++];
            memset(f, 0, sizeof *f);
            f->cmd = d->cmd;
            f->frame = (uint8_t)k;
            f->len = d->len;
            f->logical = addr_of(d);
            f->wkc_expected = d->wkc;
            f->wkc_last = r->seen;
            f->wkc_errors = r->wkc_errs;
            f->first_slave = d->first_slave;
            f->n_slaves = d->n_slaves;
        }
    return n;
}
