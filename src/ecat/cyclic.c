/* Process image and cyclic frames: slaves are grouped into LRW datagrams of at most
 * one frame each ([outputs of the group][inputs of the group], logical address ==
 * image offset); every cycle each frame's WKC is checked against the expected value
 * and frames that did not return are counted as lost. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "util/wire.h"

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
    if (m->eni && (rc = ecat_eni_cyc_setup(m)))
        return rc;
    if (m->img.n_frames > ECAT_MAX_CYC_DG) {
        ECAT_FAIL(m, -ENOSPC, TAKT_ECAT_EV_IMAGE_TOO_BIG, -1, m->img.size, m->img.n_frames, ECAT_MAX_CYC_DG);
        return -ENOSPC;
    }
    free(m->image);
    m->image_cap = m->img.size ? m->img.size : 1;
    if (!(m->image = calloc(1, m->image_cap)))
        return -ENOMEM;
    m->image_len = m->img.size;
    m->n_cyc = m->img.n_frames;
    for (unsigned k = 0; k < m->n_cyc; k++) {
        const struct ecat_pdo_frame *f = &m->img.frame[k];
        struct ecat_cyc *c = &m->cyc[k];
        memset(c, 0, sizeof *c);
        c->log = f->log_start;
        c->len = f->len;
        c->wkc_expected = f->wkc;
        c->last_wkc = f->wkc;
        c->wkc_seen = c->wkc_seen_wr = -1;
        c->first_slave = f->first_slave;
        c->n_slaves = f->n_slaves;
        /* SII general flag 'not LRW' (ETG.2010): LRD + LWR, each with its own WKC */
        c->no_lrw = f->no_lrw;
        if (f->no_lrw) {
            c->wkc_expected = c->last_wkc = f->n_in;
            c->wkc_wr = f->n_out;
        }
    }
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
    return 0;
}

/* Frame 0 carries the DC FRMW first (earliest in the frame), then its LRW, then the
 * BRD of the AL status (presence) and of the DC system time difference. */
unsigned ecat_cyc_build(struct ecat_core *m, takt_ns_t now)
{
    if (m->eni_cyc)
        return ecat_eni_cyc_build(m, now);
    unsigned nframes = m->n_cyc ? m->n_cyc : (m->n_slaves ? 1 : 0);
    for (unsigned k = 0; k < nframes; k++) {
        uint8_t *buf = m->cycbuf + (size_t)k * TAKT_FRAME_BUF;
        size_t pos = ecat_pdu_frame_begin(m, buf, true);
        if (k == 0 && m->dc.active && m->dc.ref >= 0 && m->o.dc_mode == TAKT_ECAT_DC_REF_FOLLOWS_MASTER) {
            /* as IgH ecrt_master_sync_reference_clock_to does: master time into the reference */
            put_le64(m->dc.mon_wr_buf, (uint64_t)(now + m->dc.offset));
            ecat_req_init(&m->dc.mon_wr, ECAT_FPWR, m->slaves[m->dc.ref].info.station,
                          ESC_DC_SYS_TIME, m->dc.mon_wr_buf, 8);
            ecat_pdu_append(m, buf, &pos, &m->dc.mon_wr, now);
        }
        if (k == 0 && m->dc.active && m->dc.ref >= 0) {
            ecat_req_init(&m->dc.mon_ref, ECAT_FRMW, m->slaves[m->dc.ref].info.station,
                          ESC_DC_SYS_TIME, m->dc.mon_ref_buf, 8);
            ecat_pdu_append(m, buf, &pos, &m->dc.mon_ref, now);
        }
        if (k < m->n_cyc && m->cyc[k].len) {
            struct ecat_cyc *c = &m->cyc[k];
            ecat_req_init(&c->req, c->no_lrw ? ECAT_LRD : ECAT_LRW, (uint16_t)c->log,
                          (uint16_t)(c->log >> 16), m->image + c->log, c->len);
            /* the reply lands aside: only the inputs go into the image (the application
             * owns the outputs) */
            c->req.rx = m->cyc_rx + (size_t)k * ECAT_MAX_DG_DATA;
            /* only frames sent while everything was in OP are judged by their WKC */
            c->sent_in_op = m->rec.low_state == AL_OP && m->rec.present == m->n_slaves;
            ecat_pdu_append(m, buf, &pos, &c->req, now);
            if (c->no_lrw) {
                ecat_req_init(&c->wr, ECAT_LWR, (uint16_t)c->log, (uint16_t)(c->log >> 16),
                              m->image + c->log, c->len);
                /* its reply holds nothing new: a slot of its own, never read */
                c->wr.rx = m->cyc_rx + (size_t)(ECAT_MAX_CYC_DG + k) * ECAT_MAX_DG_DATA;
                ecat_pdu_append(m, buf, &pos, &c->wr, now);
            }
        }
        if (k == 0) {
            /* ETG.1000.4 commands and working counter: BRD WKC = number of slaves that answered; data = OR of states, so it
             * must go out as zeros (the last reply's bits would stay set for ever) */
            memset(m->mon_al_buf, 0, sizeof m->mon_al_buf);
            ecat_req_init(&m->mon_al, ECAT_BRD, 0, ESC_AL_STATUS, m->mon_al_buf, 2);
            ecat_pdu_append(m, buf, &pos, &m->mon_al, now);
            if (m->dc.active) {
                /* one DC slave per cycle, in turn: a BRD would OR the values together */
                ecat_req_init(&m->dc.mon_diff, ECAT_FPRD, m->slaves[m->dc.rr].info.station,
                              ESC_DC_SYS_DIFF, m->dc.mon_diff_buf, 4);
                ecat_pdu_append(m, buf, &pos, &m->dc.mon_diff, now);
            }
        }
        m->txf[k].data = buf;
        m->txf[k].len = (uint16_t)ecat_frame_end(buf, pos);
    }
    m->st.cyc_frames_sent += nframes;
    return nframes;
}

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

static void take_inputs(struct ecat_core *m, const struct ecat_cyc *c, unsigned k)
{
    const uint8_t *rx = m->cyc_rx + (size_t)k * ECAT_MAX_DG_DATA;
    for (unsigned i = c->first_slave; i < c->first_slave + c->n_slaves; i++) {
        const struct ecat_pdo_slave *ps = &m->img.slave[i];
        if (ps->in_len)
            memcpy(m->image + ps->in_off, rx + (ps->in_off - c->log), ps->in_len);
    }
}

static void check_wkc(struct ecat_core *m, struct ecat_cyc *c, unsigned k, bool in_op)
{
    int wkc = c->req.wkc;
    in_op = in_op && c->sent_in_op;
    bool bad = in_op && wkc >= 0 && wkc != c->wkc_expected;
    if (c->no_lrw && in_op && c->wr.st == REQ_DONE && c->wr.wkc >= 0 && c->wr.wkc != c->wkc_wr) {
        bad = true;
        wkc = c->wr.wkc;               /* report the LWR's */
        if (c->last_wkc == c->wkc_expected)
            ECAT_EV(m, TAKT_ECAT_EV_LWR_WKC, -1, k, c->log, c->first_slave, c->first_slave + c->n_slaves - 1, c->wkc_wr, wkc);
        m->st.wkc_errors++;
        c->wkc_errs_wr++;
        c->last_wkc = c->wkc_expected + 1000;   /* the next good frame reports the recovery */
        return;
    }
    if (bad) {
        m->st.wkc_errors++;
        c->wkc_errs++;
        if (c->last_wkc == c->wkc_expected)
            ECAT_EV(m, TAKT_ECAT_EV_LRW_WKC, -1, k, c->log, c->len, c->first_slave, c->first_slave + c->n_slaves - 1,
                    c->wkc_expected, wkc);
    } else if (in_op && wkc == c->wkc_expected && c->last_wkc >= 0 && c->last_wkc != wkc) {
        ECAT_EV(m, TAKT_ECAT_EV_WKC_BACK, -1, k, c->wkc_expected);
    }
    if (wkc >= 0)
        c->last_wkc = wkc;
}

void ecat_cyc_check(struct ecat_core *m, takt_ns_t now)
{
    if (m->eni_cyc) {
        ecat_eni_cyc_check(m, now);
        return;
    }
    unsigned lost = 0, sent = 0;
    bool in_op = m->rec.low_state == AL_OP && m->rec.present == m->n_slaves, fresh = m->n_cyc > 0;
    for (unsigned k = 0; k < m->n_cyc; k++) {
        struct ecat_cyc *c = &m->cyc[k];
        if (c->req.st == REQ_IDLE) {
            fresh = false;
            continue;
        }
        sent++;
        uint32_t fno = c->req.fno;
        bool l = ecat_cyc_reap(m, &c->req);
        if (c->no_lrw)
            l |= ecat_cyc_reap(m, &c->wr);
        if (k == 0) {
            l |= ecat_cyc_reap(m, &m->mon_al);
            ecat_cyc_reap(m, &m->dc.mon_ref);
            ecat_cyc_reap(m, &m->dc.mon_wr);
            ecat_cyc_reap(m, &m->dc.mon_diff);
        }
        c->wkc_seen = l ? -1 : c->req.wkc;
        c->wkc_seen_wr = l || !c->no_lrw ? -1 : c->wr.wkc;
        if (l) {
            ecat_pdu_frame_lost(m, now, fno);
            lost++;
            fresh = false;
            continue;
        }
        if (c->req.wkc >= 0)
            take_inputs(m, c, k);
        fresh &= c->req.wkc == c->wkc_expected && (!c->no_lrw || c->wr.wkc == c->wkc_wr);
        check_wkc(m, c, k, in_op);
    }
    if (m->n_cyc == 0 && m->mon_al.st != REQ_IDLE) {
        sent++;
        uint32_t fno = m->mon_al.fno;
        if (ecat_cyc_reap(m, &m->mon_al)) {
            ecat_pdu_frame_lost(m, now, fno);
            lost++;
        }
    }
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
