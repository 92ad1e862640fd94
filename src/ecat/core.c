/* The EtherCAT core's life and its entry points (core.h): what the driver calls with the
 * time and the frames. Nothing here touches a link or reads a clock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/core.h"
#include "ecat/sii.h"

int ecat_core_init(struct ecat_core *m, const uint8_t mac[6], const char *ifname,
                   const struct takt_ecat_master_opts *o, takt_ns_t now, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (o->max_slaves == 0 || o->max_slaves > 65535 || o->cycle_ns <= 0 ||
        o->acyc_frames == 0 || o->acyc_frames > 64) {
        snprintf(err, errlen, "ecat master: expected 1..65535 slaves, a positive cycle and "
                 "1..64 acyclic frames per cycle");
        return -EINVAL;
    }
    memcpy(m->mac, mac, 6);
    snprintf(m->ifname, sizeof m->ifname, "%s", ifname ? ifname : "");
    m->o = *o;
    m->redundant = o->redundant != NULL;
    m->o.redundant = NULL;          /* the driver's: the core holds no link */
    m->now = now;
    m->max_slaves = o->max_slaves;
    m->dc.ref = -1;
    m->slaves = calloc(o->max_slaves, sizeof *m->slaves);
    m->txbuf = calloc(o->acyc_frames, TAKT_FRAME_BUF);
    m->cycbuf = calloc(ECAT_MAX_CYC_DG, TAKT_FRAME_BUF);
    m->sii_scratch = calloc(1, sizeof *m->sii_scratch);
    m->maps = calloc(o->max_slaves, sizeof *m->maps);
    m->snap.slave = calloc(o->max_slaves, sizeof *m->snap.slave);
    m->cyc_rx = calloc(2 * ECAT_MAX_CYC_DG, ECAT_MAX_DG_DATA);   /* LRW/LRD, then LWR */
    m->txf = calloc(o->acyc_frames > ECAT_MAX_CYC_DG ? o->acyc_frames : ECAT_MAX_CYC_DG,
                    sizeof *m->txf);
    if (!m->slaves || !m->txbuf || !m->cycbuf || !m->txf || !m->sii_scratch || !m->maps ||
        !m->snap.slave || !m->cyc_rx || ecat_coe_init(m) || ecat_foe_init(m) || ecat_soe_init(m) ||
        ecat_pub_init(m) || rt_evring_init(&m->ev, TAKT_EV_ECAT, ECAT_EVENTS))
        goto nomem;
    for (unsigned i = 0; i < o->max_slaves; i++) {
        if (!(m->slaves[i].scan.sii = calloc(1, ECAT_SII_FIRST)) || ecat_esm_init(&m->slaves[i]))
            goto nomem;
        m->slaves[i].scan.sii_cap = ECAT_SII_FIRST;
    }
    return 0;
nomem:
    snprintf(err, errlen, "ecat master: out of memory for %u slaves", o->max_slaves);
    ecat_core_free(m);
    return -ENOMEM;
}

void ecat_core_free(struct ecat_core *m)
{
    ecat_master_drop_eni(m);
    rt_evring_free(&m->ev);
    for (unsigned i = 0; m->slaves && i < m->max_slaves; i++) {
        free(m->slaves[i].scan.sii);
        ecat_esm_free(&m->slaves[i]);
    }
    free(m->slaves);
    free(m->txbuf);
    free(m->cycbuf);
    free(m->sii_scratch);
    free(m->maps);
    free(m->snap.slave);
    ecat_pub_free(m);
    free(m->cyc_rx);
    ecat_pdo_image_free(&m->img);
    ecat_coe_free(m);
    ecat_foe_free(m);
    ecat_soe_free(m);
    ecat_eoe_free(m);
    free(m->txf);
    free(m->image);
    m->slaves = NULL;
    m->txbuf = m->cycbuf = m->cyc_rx = m->image = NULL;
    m->sii_scratch = NULL;
    m->maps = NULL;
    m->snap.slave = NULL;
    m->snap.topo = NULL;
    m->snap.dc_diff = NULL;
    m->snap.pw = NULL;
    m->txf = NULL;
}

void ecat_core_scan(struct ecat_core *m, takt_ns_t now)
{
    ecat_master_drop_eni(m);        /* a new bus: configure from the ENI again */
    ecat_scan_start(m, now);
}

/* A new request restarts each slave's machine, whose requests of the step under way
 * may still be queued or in flight: take them back first (as recovery does for a lost
 * slave), or re-initialising them would cut the acyclic queue behind them and strand
 * every request queued after them. */
static void drop_pending(struct ecat_core *m, struct ecat_slave *s)
{
    for (unsigned k = 0; k < s->esm.f.nreq; k++) {
        struct ecat_req *r = &s->esm.f.req[k];
        if (r->st == REQ_SENT && m->inflight[r->idx] == r)
            m->inflight[r->idx] = NULL;
    }
    ecat_pdu_unqueue(m, s->esm.f.req, s->esm.f.nreq);
    for (unsigned k = 0; k < s->esm.f.nreq; k++)
        if (ecat_req_busy(&s->esm.f.req[k]))
            s->esm.f.req[k].st = REQ_IDLE;
    s->esm.f.nreq = 0;
}

int ecat_core_request_state(struct ecat_core *m, uint8_t state, takt_ns_t now)
{
    if (!m->scan.done)
        return -EAGAIN;
    if (state >= AL_SAFEOP && !m->configured) {
        int rc = ecat_layout(m);
        if (rc)
            return rc;
    }
    m->target = state;
    m->last_err = 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        drop_pending(m, &m->slaves[i]);
        ecat_slave_goto(m, &m->slaves[i], state, now);
    }
    return 0;
}

int ecat_core_request_slave_state(struct ecat_core *m, unsigned pos, uint8_t state, takt_ns_t now)
{
    if (!m->scan.done)
        return -EAGAIN;
    if (pos >= m->n_slaves) {
        ECAT_FAIL(m, -ENOENT, TAKT_ECAT_EV_NO_SLAVE, -1, 3, pos, m->n_slaves);
        return -ENOENT;
    }
    if (!state && !(state = m->target))
        return -EINVAL;                 /* back to the network's state: none requested */
    if (state >= AL_SAFEOP && !m->configured) {
        int rc = ecat_layout(m);
        if (rc)
            return rc;
    }
    m->last_err = 0;
    /* the network's target stays: the others keep their states (each slave has its
     * own AL control register 0x0120, ETG.1000.4) */
    ecat_slave_goto(m, &m->slaves[pos], state, now);
    return 0;
}

void ecat_core_rx(struct ecat_core *m, takt_ns_t now, uint8_t *buf, size_t len, takt_ns_t rx_ts)
{
    (void)now;                      /* a reply is judged by its stamp and its frame's fate */
    ecat_pdu_receive(m, buf, len, rx_ts);
}

void ecat_core_cycle(struct ecat_core *m, takt_ns_t now)
{
    m->now = now;
    ecat_cyc_check(m, now);
    m->cyc_due = true;
}

void ecat_core_close(struct ecat_core *m, takt_ns_t now)
{
    m->now = now;
    ecat_cyc_check(m, now);
    m->cyc_due = false;
}

takt_ns_t ecat_core_acyc_due(const struct ecat_core *m) { return ecat_pdu_acyc_due(m); }

void ecat_core_expire(struct ecat_core *m, takt_ns_t now)
{
    m->now = now;
    ecat_pdu_expire(m, now);
}

static uint8_t lowest_state(const struct ecat_core *m)
{
    static const uint8_t rank[16] = { [AL_INIT] = 1, [AL_PREOP] = 2, [AL_BOOT] = 2,
                                      [AL_SAFEOP] = 3, [AL_OP] = 4 };
    uint8_t low = 0;
    int lr = 99;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].info.al_state & AL_STATE_MASK;
        if (rank[st] < lr) {
            lr = rank[st];
            low = st;
        }
    }
    return low;
}

void ecat_core_timer(struct ecat_core *m, takt_ns_t now)
{
    m->now = now;
    ecat_pdu_expire(m, now);
    ecat_mfsm_step(m, now);
    ecat_eni_master_step(m, now);
    ecat_svc_poll(m, now);
    ecat_coe_poll(m, now);
    ecat_foe_poll(m, now);
    ecat_soe_poll(m, now);
    ecat_eoe_poll(m, now);
    for (unsigned i = 0; i < m->n_slaves; i++) {
        /* an idle or failed machine has no step to take (state_none): no call */
        uint8_t st = m->slaves[i].esm.f.state;
        if (st != SS_IDLE && st != SS_FAILED)
            ecat_sfsm_step(m, &m->slaves[i], now);
    }
    ecat_sii_turn_end(m);
    /* DC set-up addresses slaves by station: not while an ENI's IP commands readdress them */
    if (m->o.dc && m->target && !m->dc.active && !ecat_eni_settling(m))
        ecat_dc_configure(m, now);
    /* the slaves' states change only with a report or a loss, and each bumps al_gen
     * (ecat_al_changed): taken again only then, not over every slave every cycle */
    if (!m->low_known || m->low_gen != m->al_gen || m->low_n != m->n_slaves) {
        m->rec.low_state = lowest_state(m);
        m->low_gen = m->al_gen;
        m->low_n = m->n_slaves;
        m->low_known = true;
    }
    ecat_state_update(m);
}

unsigned ecat_core_tx(struct ecat_core *m, takt_ns_t now, struct takt_frame *out, unsigned max)
{
    unsigned n;
    if (m->cyc_due) {
        m->cyc_due = false;
        n = m->scan.done ? ecat_cyc_build(m, now) : 0;
    } else {
        n = ecat_pdu_build_acyc(m, m->now);
    }
    if (n > max)
        n = max;                    /* the caller's room: frames beyond it count lost */
    for (unsigned i = 0; i < n; i++)
        out[i] = m->txf[i];
    return n;
}
