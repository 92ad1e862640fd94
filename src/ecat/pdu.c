/* Datagram queue and reply matching: requests own their data, get a datagram index
 * while in flight and are found again by that index when the frame returns (no locks,
 * no allocation). Frames go out from the link's own MAC, padded to 60 bytes. */
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

void ecat_req_queue(struct ecat_master *m, struct ecat_req *r)
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
static int alloc_idx(struct ecat_master *m)
{
    for (int i = 0; i < 256; i++) {
        uint8_t idx = m->next_idx++;
        if (!m->inflight[idx])
            return idx;
    }
    return -1;
}

bool ecat_pdu_append(struct ecat_master *m, uint8_t *buf, size_t *pos, struct ecat_req *r,
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
    r->idx = (uint8_t)idx;
    m->reaped[idx] = false;
    r->st = REQ_SENT;
    r->sent = now;
    r->fno = m->frame_no;
    r->wkc = -1;
    m->inflight[idx] = r;
    return true;
}

unsigned ecat_pdu_build_acyc(struct ecat_master *m, takt_ns_t now)
{
    unsigned nf = 0;
    while (m->q_head && nf < m->o.acyc_frames) {
        uint8_t *buf = m->txbuf + (size_t)nf * TAKT_FRAME_BUF;
        m->frame_no++;
        size_t pos = ecat_frame_begin(buf, m->link->mac);
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

void ecat_pdu_receive(struct ecat_master *m, uint8_t *buf, size_t len)
{
    struct ecat_dg dg;
    size_t pos;
    /* ref §1: only frames that passed a slave come back with the U/L bit set in the
     * first source-MAC octet; our own outgoing copies (seen on some links) are ignored. */
    if (len < ECAT_ETH_HDR + ECAT_FRAME_HDR || !(buf[6] & 0x02) ||
        memcmp(buf + 7, m->link->mac + 1, 5) != 0)
        return;
    if (ecat_frame_first(buf, len, &dg, &pos) != 0) {
        m->st.frames_unmatched++;
        return;
    }
    bool any = false;
    if (m->reaped[dg.idx] && !m->inflight[dg.idx]) {
        /* a cyclic frame already counted as lost came back after its cycle */
        m->reaped[dg.idx] = false;
        m->st.frames_late++;
        return;
    }
    for (int rc = 0; rc == 0; rc = ecat_frame_next(buf, len, &dg, &pos)) {
        struct ecat_req *r = m->inflight[dg.idx];
        if (!r || r->st != REQ_SENT || r->cmd != dg.cmd || r->len != dg.len)
            continue;
        m->inflight[dg.idx] = NULL;
        uint8_t *to = r->rx ? r->rx : r->data;
        if (to && r->len)
            memcpy(to, dg.data, r->len);
        r->wkc = get_le16(dg.wkc);
        r->st = REQ_DONE;
        any = true;
    }
    if (!any)
        m->st.frames_unmatched++;
}

void ecat_pdu_expire(struct ecat_master *m, takt_ns_t now)
{
    /* Several requests share a frame: count a lost frame once per frame number. */
    uint32_t counted[8];
    unsigned nc = 0;
    for (int i = 0; i < 256; i++) {
        struct ecat_req *r = m->inflight[i];
        if (!r || now - r->sent < m->o.dg_timeout_ns)
            continue;
        m->inflight[i] = NULL;
        r->st = REQ_DONE;
        r->wkc = -1;
        bool seen = false;
        for (unsigned k = 0; k < nc; k++)
            seen |= counted[k] == r->fno;
        if (seen)
            continue;
        if (nc < TAKT_ARRAY_SIZE(counted))
            counted[nc++] = r->fno;
        m->st.frames_lost++;
        ecat_rate_add(&m->rate, now, 0, 1);
    }
}

void ecat_pdu_cancel_all(struct ecat_master *m)
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

void ecat_pdu_unqueue(struct ecat_master *m, struct ecat_req *r, unsigned n)
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
