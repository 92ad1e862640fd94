/* Recovery: the per-cycle BRD of 0x0130 counts the slaves that answer. In a line, a
 * cable break or a powered-off slave cuts off every slave behind it, so a drop from N to
 * K means positions K..N-1 are gone (reported in the same cycle); when the count rises
 * again those positions are scanned anew (address, identity) and driven back to the
 * network's target state, and that is reported too. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "util/wire.h"

static void lost(struct ecat_master *m, unsigned from, unsigned to)
{
    for (unsigned i = from; i < to && i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->info.present)
            continue;
        s->info.present = false;
        s->rejoin = false;
        /* drop whatever it was doing: its requests would only time out */
        for (unsigned k = 0; k < s->f.nreq; k++)
            if (ecat_req_busy(&s->f.req[k]) && s->f.req[k].st == REQ_SENT &&
                m->inflight[s->f.req[k].idx] == &s->f.req[k])
                m->inflight[s->f.req[k].idx] = NULL;
        ecat_pdu_unqueue(m, s->f.req, s->f.nreq);
        s->f.nreq = 0;
        s->f.state = SS_IDLE;
        s->info.al_state = 0;
        m->st.slaves_lost++;
        ecat_event(m, "slave %u (station 0x%04X, %s) lost: no longer answers", i, s->info.station,
                   s->info.name[0] ? s->info.name : "?");
    }
}

static void back(struct ecat_master *m, unsigned from, unsigned to, takt_ns_t now)
{
    for (unsigned i = from; i < to && i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->info.present || s->rejoin)
            continue;
        s->rejoin = true;
        s->old_vendor = s->info.vendor;
        s->old_product = s->info.product;
        ecat_event(m, "slave %u answers again: re-scanning it", i);
        ecat_slave_scan_start(m, s, now);
    }
}

/* Master timer: a re-scanned slave with the same identity goes back to the target. */
static void rejoin(struct ecat_master *m, takt_ns_t now)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->rejoin || (s->f.state != SS_IDLE && s->f.state != SS_FAILED))
            continue;
        s->rejoin = false;
        if (s->f.state == SS_FAILED || !s->scanned) {
            ecat_event(m, "slave %u: re-scan failed: %s", i, m->errmsg);
            continue;
        }
        if (s->info.vendor != s->old_vendor || s->info.product != s->old_product) {
            ecat_fail(m, -TAKT_ECONFIG, "slave %u: a different device came back: expected vendor "
                      "0x%08X product 0x%08X, found 0x%08X 0x%08X; not reconfigured", i,
                      s->old_vendor, s->old_product, s->info.vendor, s->info.product);
            continue;
        }
        s->info.present = true;
        s->returning = true;
        m->st.slaves_returned++;
        if (m->target)
            ecat_slave_goto(m, s, m->target, now);
    }
}

/* A slave that answers the BRD but no longer its station address was power-cycled
 * (address and configuration gone): scan it again by position like a returning one. */
static void readdress(struct ecat_master *m, takt_ns_t now)
{
    for (unsigned i = 0; i < m->present && i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->f.state != SS_FAILED || s->rejoin || !s->info.present ||
            (s->f.err != -TAKT_EWKC && s->f.err != -ETIMEDOUT) || now - s->f.t0 < 200 * TAKT_NS_PER_MS)
            continue;
        s->info.present = false;
        ecat_event(m, "slave %u (station 0x%04X) does not answer its address: re-scanning it", i,
                   s->info.station);
        back(m, i, i + 1, now);
    }
}

void ecat_recovery_check(struct ecat_master *m, takt_ns_t now)
{
    unsigned n = (unsigned)m->mon_al.wkc;
    if (n > m->n_slaves)
        n = m->n_slaves;         /* extra slaves are not configured; ignore them */
    if (n < m->present) {
        ecat_event(m, "%u of %u slaves answer (%u lost)", n, m->n_slaves, m->present - n);
        lost(m, n, m->present);
    } else if (n > m->present) {
        back(m, m->present, n, now);
    }
    m->present = n;
    if (m->target)
        readdress(m, now);
    rejoin(m, now);
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->returning && s->f.state == SS_IDLE && m->target &&
            (s->info.al_state & AL_STATE_MASK) == m->target) {
            s->returning = false;
            ecat_event(m, "slave %u (station 0x%04X) back in %s", i, s->info.station,
                       ecat_al_state_name(m->target));
        }
    }
    /* A slave that left the target state by itself (error, watchdog) is driven back,
     * one read of its AL status first, as long as its machine is idle. */
    uint8_t or = m->mon_al_buf[0];
    if (m->target && n == m->n_slaves && ((or & AL_ERROR) || (or & AL_STATE_MASK) != m->target)) {
        for (unsigned i = 0; i < m->n_slaves; i++) {
            struct ecat_slave *s = &m->slaves[i];
            if (s->f.state == SS_IDLE && !s->returning && (s->info.al_state & AL_STATE_MASK) == m->target &&
                now - s->f.t0 > 100 * TAKT_NS_PER_MS)
                ecat_slave_goto(m, s, m->target, now);
        }
    }
}
