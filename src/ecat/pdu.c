/* Datagram queue and reply matching: requests own their data, get a datagram index
 * while in flight and are found again by that index when the frame returns (no locks,
 * no allocation). Each frame carries its number in a leading NOP datagram, and a reply
 * completes only requests of the frame it answers: an index alone wraps after 256
 * datagrams, a frame number after 2^32 frames. Frames go out from the MAC the core was
 * created with, padded to 60 bytes. */
#include <errno.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "util/wire.h"

void ecat_req_init(struct ecat_req *r, uint8_t cmd, uint16_t adp, uint16_t ado,
                   uint8_t *data, uint16_t len)
{
    r->next = NULL;
    r->cmd = cmd;
    r->adp = adp;
    r->ado = ado;
    r->data = data;
    r->len = len;
    r->wkc = -1;
    r->st = REQ_IDLE;
    r->rx = NULL;
}

void ecat_req_queue(struct ecat_core *m, struct ecat_req *r)
{
    if (ecat_req_busy(r))
        return;
    r->st = REQ_QUEUED;
    r->wkc = -1;
    r->next = NULL;
    if (m->q_tail)
        m->q_tail->next = r;
    else
        m->q_head = r;
    m->q_tail = r;
}

/* A free datagram index; indices of requests still in flight are skipped so a late
 * reply can never complete the wrong request. */
static int alloc_idx(struct ecat_core *m)
{
    for (int i = 0; i < 256; i++) {
        uint8_t idx = m->next_idx++;
        if (!m->inflight[idx])
            return idx;
    }
    return -1;
}

uint32_t ecat_pdu_frame_number(struct ecat_core *m, bool cyclic)
{
    uint32_t fno = ++m->frame_no;
    m->gen[fno % ECAT_GEN_RING] = (struct ecat_gen){ .fno = fno, .st = GEN_SENT, .cyclic = cyclic };
    return fno;
}

size_t ecat_pdu_frame_begin(struct ecat_core *m, uint8_t *buf, bool cyclic)
{
    uint32_t fno = ecat_pdu_frame_number(m, cyclic);
    size_t pos = ecat_frame_begin(buf, m->mac);
    /* ETG.1000.4 commands: NOP, no slave executes it; ADP/ADO carry the number, 0 data bytes */
    ecat_frame_add(buf, TAKT_ETH_MAX_FRAME, &pos, ECAT_NOP, 0, fno, 0, NULL);
    return pos;
}

void ecat_pdu_frame_renew(struct ecat_core *m, uint8_t *buf, bool cyclic)
{
    uint32_t fno = ecat_pdu_frame_number(m, cyclic);
    /* the leading NOP as ecat_pdu_frame_begin wrote it, with the new number */
    ecat_frame_refill(buf, ECAT_ETH_HDR + ECAT_FRAME_HDR, ECAT_NOP, 0, fno, 0, NULL);
}

bool ecat_pdu_claim(struct ecat_core *m, struct ecat_req *const *rq, unsigned n, uint8_t *idx)
{
    uint8_t next = m->next_idx;
    for (unsigned i = 0; i < n; i++) {
        int k = alloc_idx(m);
        if (k < 0) {
            while (i--)
                m->inflight[idx[i]] = NULL;
            m->next_idx = next;
            return false;
        }
        idx[i] = (uint8_t)k;
        m->inflight[k] = rq[i];
    }
    return true;
}

static void sent(struct ecat_core *m, struct ecat_req *r, uint8_t idx, takt_ns_t now)
{
    r->idx = idx;
    r->st = REQ_SENT;
    r->sent = now;
    r->fno = m->frame_no;
    r->wkc = -1;
    m->inflight[idx] = r;
    if (!m->exp_armed || now < m->exp_oldest) {
        m->exp_oldest = now;
        m->exp_armed = true;
    }
}

void ecat_pdu_refill(struct ecat_core *m, uint8_t *buf, size_t at, struct ecat_req *r, uint8_t idx,
                     takt_ns_t now)
{
    ecat_frame_refill(buf, at, r->cmd, idx, (uint32_t)r->adp | (uint32_t)r->ado << 16, r->len, r->data);
    sent(m, r, idx, now);
}

bool ecat_pdu_frame_lost(struct ecat_core *m, takt_ns_t now, uint32_t fno)
{
    struct ecat_gen *g = &m->gen[fno % ECAT_GEN_RING];
    if (g->fno != fno || (g->st != GEN_SENT && g->st != GEN_ARRIVED_LATE))
        return false;
    if (g->st == GEN_ARRIVED_LATE)       /* came back, but after its time: late and lost */
        m->st.frames_late++;
    g->st = g->st == GEN_ARRIVED_LATE ? GEN_LATE : GEN_LOST;
    m->st.frames_lost++;
    ecat_rate_add(&m->rate, now, 0, 1);
    return true;
}

bool ecat_pdu_append(struct ecat_core *m, uint8_t *buf, size_t *pos, struct ecat_req *r,
                     takt_ns_t now)
{
    int idx = alloc_idx(m);
    if (idx < 0)
        return false;
    uint8_t *d = ecat_frame_add(buf, TAKT_ETH_MAX_FRAME, pos, r->cmd, (uint8_t)idx,
                                (uint32_t)r->adp | (uint32_t)r->ado << 16, r->len, r->data);
    if (!d) {
        m->next_idx--;          /* give the index back */
        return false;
    }
    sent(m, r, (uint8_t)idx, now);
    return true;
}

unsigned ecat_pdu_build_acyc(struct ecat_core *m, takt_ns_t now)
{
    unsigned nf = 0;
    while (m->q_head && nf < m->o.acyc_frames) {
        uint8_t *buf = m->txbuf + (size_t)nf * TAKT_FRAME_BUF;
        size_t pos = ecat_pdu_frame_begin(m, buf, false);
        size_t start = pos;
        while (m->q_head) {
            struct ecat_req *r = m->q_head;
            if (!ecat_pdu_append(m, buf, &pos, r, now))
                break;
            m->q_head = r->next;
            if (!m->q_head)
                m->q_tail = NULL;
            r->next = NULL;
        }
        if (pos == start) {       /* head does not fit an empty frame or no index left */
            struct ecat_req *r = m->q_head;
            if (r->len > ECAT_MAX_DG_DATA) {
                m->q_head = r->next;
                if (!m->q_head)
                    m->q_tail = NULL;
                r->st = REQ_DONE;
                r->wkc = -1;
            }
            break;
        }
        m->txf[nf].data = buf;
        m->txf[nf].len = (uint16_t)ecat_frame_end(buf, pos);
        nf++;
    }
    return nf;
}

/* The frame a reply answers, from its leading NOP; NULL: not one of ours, or older
 * than the ring remembers. */
static struct ecat_gen *answered(struct ecat_core *m, const struct ecat_dg *dg)
{
    if (dg->cmd != ECAT_NOP || dg->len != 0)
        return NULL;
    struct ecat_gen *g = &m->gen[dg->lad % ECAT_GEN_RING];
    return g->fno == dg->lad && g->st != GEN_FREE ? g : NULL;
}

void ecat_pdu_receive(struct ecat_core *m, uint8_t *buf, size_t len, takt_ns_t rx_ts)
{
    struct ecat_dg dg;
    size_t pos;
    /* ESC datasheet Section I, frame processing: only frames that passed a slave come back with the U/L bit set in the
     * first source-MAC octet; our own outgoing copies (seen on some links) are ignored. */
    if (len < ECAT_ETH_HDR + ECAT_FRAME_HDR || !(buf[6] & 0x02) ||
        memcmp(buf + 7, m->mac + 1, 5) != 0)
        return;
    struct ecat_gen *g = NULL;
    if (ecat_frame_first(buf, len, &dg, &pos) != 0 || !(g = answered(m, &dg))) {
        m->st.frames_unmatched++;
        return;
    }
    switch (g->st) {
    case GEN_SENT:
        break;
    case GEN_LOST:                       /* counted lost, came back after its time */
        g->st = GEN_LATE;
        m->st.frames_late++;
        return;
    default:                             /* a second copy of a frame already back */
        m->st.frames_duplicate++;
        return;
    }
    if (g->cyclic && m->rx_deadline && rx_ts > m->rx_deadline) {
        /* stamped after the cycle it belonged to: its data is a cycle old, not used;
         * the cycle check counts the frame lost, and then late */
        g->st = GEN_ARRIVED_LATE;
        return;
    }
    g->st = GEN_RECEIVED;
    m->st.frames_received++;
    while (ecat_frame_next(buf, len, &dg, &pos) == 0) {
        struct ecat_req *r = m->inflight[dg.idx];
        if (!r || r->st != REQ_SENT || r->fno != g->fno || r->cmd != dg.cmd || r->len != dg.len)
            continue;
        m->inflight[dg.idx] = NULL;
        uint8_t *to = r->rx ? r->rx : r->data;
        if (to && r->len)
            memcpy(to, dg.data, r->len);
        r->wkc = get_le16(dg.wkc);
        r->st = REQ_DONE;
    }
}

takt_ns_t ecat_pdu_acyc_due(const struct ecat_core *m)
{
    takt_ns_t due = 0;
    for (int i = 0; i < 256; i++) {
        const struct ecat_req *r = m->inflight[i];
        if (r && r->sent + m->o.dg_timeout_ns > due)
            due = r->sent + m->o.dg_timeout_ns;
    }
    return due;
}

void ecat_pdu_expire(struct ecat_core *m, takt_ns_t now)
{
    /* Nothing in flight was sent before exp_oldest: while that is less than the timeout
     * ago, no request can be due and the 256 slots need no look (the check below, for
     * the oldest, holds for every one). Requests that left the table since only make
     * the bound earlier than it need be. */
    if (!m->exp_armed || now - m->exp_oldest < m->o.dg_timeout_ns)
        return;
    uint32_t gone[256];                          /* frames counted here whose record was reused */
    unsigned n_gone = 0;
    takt_ns_t oldest = 0;
    bool armed = false;
    for (int i = 0; i < 256; i++) {
        struct ecat_req *r = m->inflight[i];
        if (!r)
            continue;
        /* cyclic requests are judged by their cycle (ecat_cyc_reap), not by a timeout;
         * a record that another frame took since (the ring wrapped: more frames went
         * out than it holds) no longer says what this request's frame was */
        const struct ecat_gen *g = &m->gen[r->fno % ECAT_GEN_RING];
        bool own = g->fno == r->fno;
        if ((own && g->cyclic) || now - r->sent < m->o.dg_timeout_ns) {
            if (!armed || r->sent < oldest)      /* still in flight: the next bound */
                oldest = r->sent;
            armed = true;
            continue;
        }
        m->inflight[i] = NULL;
        r->st = REQ_DONE;
        r->wkc = -1;
        if (own) {
            ecat_pdu_frame_lost(m, now, r->fno); /* once per frame, whatever it carried */
            continue;
        }
        unsigned k = 0;
        while (k < n_gone && gone[k] != r->fno)
            k++;
        if (k == n_gone) {                       /* lost, and counted once */
            gone[n_gone++] = r->fno;
            m->st.frames_lost++;
            ecat_rate_add(&m->rate, now, 0, 1);
        }
    }
    m->exp_oldest = oldest;
    m->exp_armed = armed;
}

void ecat_pdu_cancel_all(struct ecat_core *m)
{
    for (int i = 0; i < 256; i++)
        if (m->inflight[i]) {
            m->inflight[i]->st = REQ_DONE;
            m->inflight[i] = NULL;
        }
    for (struct ecat_req *r = m->q_head; r; r = r->next)
        r->st = REQ_DONE;
    m->q_head = m->q_tail = NULL;
}

void ecat_pdu_unqueue(struct ecat_core *m, struct ecat_req *r, unsigned n)
{
    struct ecat_req **pp = &m->q_head, *last = NULL;
    while (*pp) {
        struct ecat_req *q = *pp;
        if (q >= r && q < r + n) {
            *pp = q->next;
            q->st = REQ_IDLE;
            q->next = NULL;
            continue;
        }
        last = q;
        pp = &q->next;
    }
    m->q_tail = last;
}
