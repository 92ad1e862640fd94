/* Cable redundancy, the master's side: where the ring is broken, from how many slaves
 * each port's copy of the first cyclic frame counted in its BRD of the AL status (every
 * slave adds 1 to a broadcast's WKC, ETG.1000.4), reported as events when it changes. */
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/driver.h"

void takt_ecat_master_redundancy(const struct takt_ecat_master *drv, struct takt_ecat_redundancy *out)
{
    const struct ecat_core *m = &drv->core;
    if (!m->redundant) {
        memset(out, 0, sizeof *out);
        out->break_after = -1;
        return;
    }
    *out = m->red_st;
}

/* What the distributed clocks do across the break (redund.c explains the FRMW). */
static void dc_note(struct ecat_core *m, unsigned k, unsigned n)
{
    if (!m->dc.active || m->dc.ref < 0 || k >= n)
        return;
    if ((unsigned)m->dc.ref >= k && k == 0)
        ECAT_EV(m, TAKT_ECAT_EV_RED_REF_ALL, m->dc.ref);
    else if ((unsigned)m->dc.ref >= k)
        ECAT_EV(m, TAKT_ECAT_EV_RED_REF_BEHIND, m->dc.ref, k, n - 1, k - 1);
    else
        ECAT_EV(m, TAKT_ECAT_EV_RED_REF_WRITTEN, m->dc.ref, k, n - 1);
}

/* The ring was broken in two places (slaves red_first..n-red_second-1 unreachable) and
 * now a side reaches further: say which slaves each port reaches again. */
static void mended(struct ecat_core *m, unsigned first, unsigned second, unsigned n)
{
    unsigned a = m->red_first, b = n - m->red_second;   /* unreachable: a..b-1 */
    if (first > a)
        ECAT_EV(m, TAKT_ECAT_EV_RED_MENDED, -1, a, (first < b ? first : b) - 1);
    if (second > m->red_second && n - second < b)
        ECAT_EV(m, TAKT_ECAT_EV_RED_MENDED, -1, (n - second > a ? n - second : a), b - 1);
}

static void check(struct ecat_core *m, const struct takt_ecat_redundancy *port, takt_ns_t now)
{
    struct takt_ecat_redundancy s = *port;
    unsigned n = m->n_slaves;
    /* an FRMW noted by the link (redund_dg.c): the slaves on the other side of the
     * break from its reading slave */
    unsigned f1 = port->first_side;
    if (port->frmw_noted > m->red_st.frmw_noted && (port->frmw_side ? f1 >= 1 : f1 < n)) {
        unsigned lo = port->frmw_side ? 0 : f1, hi = port->frmw_side ? f1 - 1 : n - 1;
        ECAT_EV(m, TAKT_ECAT_EV_RED_FRMW_PARTIAL, -1, port->frmw_station, port->frmw_ado,
                port->frmw_side, lo, hi);
    }
    s.breaks = m->red_st.breaks;
    s.heals = m->red_st.heals;
    s.since = m->red_st.since;
    s.broke_at = m->red_st.broke_at;
    s.healed_at = m->red_st.healed_at;
    s.break_after = m->red_st.break_after;
    if (!n || !m->scan.done) {
        m->red_st = s;
        return;
    }
    /* a new state counts once two cycles in a row saw it: a copy that a stalled host
     * held back past one cycle must not be taken for a second break */
    bool same = s.broken == m->red_seen_broken && s.first_side == m->red_seen_first &&
                s.second_side == m->red_seen_second;
    m->red_seen_broken = s.broken;
    m->red_seen_first = s.first_side;
    m->red_seen_second = s.second_side;
    if (!same) {
        m->red_st = s;
        m->red_st.broken = m->red_broken;
        m->red_st.break_after = s.break_after;
        return;
    }
    if (s.broken && (!m->red_broken || s.first_side != m->red_first ||
                     s.second_side != m->red_second)) {
        unsigned k = s.first_side;
        if (m->red_broken && m->red_first + m->red_second < n)
            mended(m, k, s.second_side, n);
        if (k + s.second_side >= n) {
            s.break_after = (int)k;
            if (k == 0)
                ECAT_EVT(m, TAKT_ECAT_EV_RED_BROKEN_FIRST, -1, RT_TXT(m->ifname), n - 1);
            else if (k >= n)
                ECAT_EV(m, TAKT_ECAT_EV_RED_BROKEN_SECOND, -1, n - 1, n - 1);
            else
                ECAT_EV(m, TAKT_ECAT_EV_RED_BROKEN_BETWEEN, -1, k - 1, k, k - 1, k, n - 1);
        } else {
            s.break_after = -1;
            ECAT_EV(m, TAKT_ECAT_EV_RED_BROKEN_MORE, -1, k, n - s.second_side - 1, k, s.second_side);
        }
        if (!m->red_broken) {
            s.breaks++;
            s.broke_at = now;
            dc_note(m, k, n);
        }
        s.since = now;
        m->red_broken = true;
    } else if (!s.broken && m->red_broken) {
        if (m->red_first + m->red_second < n)   /* both breaks mended at once */
            mended(m, n, n, n);
        ECAT_EV(m, TAKT_ECAT_EV_RED_CLOSED, -1);
        s.heals++;
        s.healed_at = now;
        s.since = now;
        s.break_after = -1;
        m->red_broken = false;
    }
    if (!m->red_broken)
        s.break_after = -1;
    m->red_first = s.first_side;
    m->red_second = s.second_side;
    m->red_st = s;
}

void ecat_red_check(struct ecat_core *m, const struct takt_ecat_redundancy *port, takt_ns_t now)
{
    check(m, port, now);
    ecat_red_dc_step(m, now);       /* the DC slaves' delays for the state believed now */
}
