/* Cable redundancy and distributed clocks: the system time delay (0x0928) of each DC
 * slave behind a break, for the path the reference's time takes to it while the ring is
 * broken, and the closed ring's delays back when it closes.
 *
 * While the ring is broken behind the reference clock, the second port's copy of the
 * cyclic frame writes the reference's time into the slaves behind the break (a BWR of
 * 0x0910, redund.c): the time as the first copy read it at the reference, advanced by the
 * master's clock from when that copy left to when the second leaves. So the value written
 * is the reference's time a first-side transit (master to reference) after the second
 * copy left. A slave takes a written 0x0910 as the sender's time plus its own 0x0928
 * (ETG.1000.4 distributed clocks; ESC datasheet Section I, system time: it compares
 * written value + delay with its own system time), and the closed ring's 0x0928 is the
 * first port's path to it. Its path now is the second port's: the frame enters the last
 * slave at port 1 and is forwarded, unprocessed, 1 -> 0 through every slave up to the
 * first one behind the break, whose closed port 0 loops it into its processing unit;
 * from there it is processed forwards, 0 -> processing unit -> 1, up to the last slave
 * and out to the second port (ESC datasheet Section I, 3.2, Table 9: two ports, "0 ->
 * processing unit -> 1 / 1 -> 0"; a closed port loops back; the simulator's ring,
 * src/sim/net_ring.c, is this model). The delay slave j needs is therefore
 *     far(j) = transit of the second copy to j  -  transit of the first copy to the reference
 * with both ports' cables taken as equal. From the closed ring's latch (receive times
 * 0x0900..0x090C and the delays D derived from them, dc.c; a_x the first copy at slave
 * x, b_x its return at x's port 1, with the frame going out and back through the line):
 *  - forwards between DC slaves: a_j - a_i = D(j) - D(i);
 *  - backwards from the ring's end: the latch's frame turned at the last DC slave Z and
 *    came back to the DC slave P before the break at b_P; b_P - a_Z = loop(P) - (D(Z) -
 *    D(P)), which is the far copy's way from the ring's end through the slaves behind
 *    the break into the processing unit of the first of them (L) when P = L - 1 (each
 *    slave forwarded the latch frame backwards as it forwards the far copy);
 *  - slaves without DC in the gap between P and the first DC slave Q at or after L, and
 *    before the reference, have no receive times: each counts the mean forwarding time
 *    of its DC neighbours (exact in a line of equal slaves).
 * So far(Q) = (b_P - a_Z) - back(P+1 .. L-1) + fwd(L .. Q), far(j) = far(Q) + D(j) - D(Q).
 * The writes are FPWRs of 0x0928 queued on the acyclic path (never in the cyclic frame);
 * a write counts only once its WKC said 1: one lost, late or refused is written again
 * with back-off while the slave is there, and said so in an event. */
#include "ecat/master_internal.h"
#include "util/wire.h"

#define FAR_RETRY_MIN (2 * TAKT_NS_PER_MS)
#define FAR_RETRY_MAX (1 * TAKT_NS_PER_S)

static int32_t delay_of(const struct ecat_core *m, int i) { return m->slaves[i].info.dc_delay_ns; }

/* The nearest DC slave from position `from` going by `step` (+1 or -1), -1 none. */
static int nearest_dc(const struct ecat_core *m, int from, int step)
{
    for (int i = from; i >= 0 && i < (int)m->n_slaves; i += step)
        if (m->slaves[i].info.dc)
            return i;
    return -1;
}

/* The far side's delays from position l on (false: they cannot be derived). */
static bool far_base(const struct ecat_core *m, unsigned l, int64_t *far_q, int *q_out)
{
    int r = m->dc.ref, p = nearest_dc(m, (int)l - 1, -1), q = nearest_dc(m, (int)l, 1);
    int z = nearest_dc(m, (int)m->n_slaves - 1, -1);
    if (r < 0 || p < r || q < 0 || z < q)
        return false;
    /* the mean forwarding time per slave between DC slaves, for those without DC */
    int64_t hop = z > r ? (delay_of(m, z) - delay_of(m, r)) / (z - r) : 0;
    int64_t back = ecat_dc_loop_time(&m->slaves[p]) - (delay_of(m, z) - delay_of(m, p));
    int64_t gap = delay_of(m, q) - delay_of(m, p);   /* forwards over q - p slaves */
    int64_t gap_back = q > p ? gap * ((int)l - 1 - p) / (q - p) : 0;
    int64_t gap_fwd = q > p ? gap * (q - (int)l) / (q - p) : 0;
    int64_t near = (int64_t)r * hop;                 /* non-DC slaves before the reference */
    *far_q = back - gap_back + gap_fwd - near;
    *q_out = q;
    return true;
}

/* What each DC slave's 0x0928 should hold in the ring's state as the master believes it
 * (redund_mon.c), and which of them must be written for it. */
static void plan(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_dc *dc = &m->dc;
    unsigned n = m->n_slaves;
    dc->far_planned = true;
    dc->far_broken = m->red_broken;
    dc->far_first = m->red_first;
    dc->far_from = m->red_broken && m->red_second <= n ? n - m->red_second : n;
    /* the reference on the first port's side and reachable there: the far side gets
     * its time by the master's BWR (redund.c); behind the break it gets it in the
     * frame as in the closed ring, so the closed ring's delays stand */
    bool far = dc->far_broken && dc->latch_closed && dc->ref >= 0 &&
               (unsigned)dc->ref < dc->far_first && dc->far_from < n;
    int64_t far_q = 0;
    int q = -1;
    if (far && !far_base(m, dc->far_from, &far_q, &q))
        far = false;
    dc->far_report = 0;
    dc->far_lo = dc->far_hi = dc->cl_lo = dc->cl_hi = -1;
    for (unsigned i = 0; i < n; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->info.dc)
            continue;
        bool here = far && i >= dc->far_from;
        int32_t closed = s->info.dc_delay_ns;
        int64_t v = here ? far_q + closed - delay_of(m, q) : closed;
        int32_t want = (int32_t)(v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : v);
        s->dc.far_want = want;
        s->dc.far_wait = false;
        if (s->dc.far_known && s->dc.far_have == want)
            continue;
        s->dc.far_fails = 0;
        s->dc.far_retry_at = now;
        if (!s->info.present)
            continue;               /* written when it is back; the event does not wait */
        s->dc.far_wait = true;
        dc->far_report++;
        if (!here) {
            dc->cl_lo = dc->cl_lo < 0 ? (int)i : dc->cl_lo;
            dc->cl_hi = (int)i;
            continue;
        }
        if (dc->far_lo < 0) {
            dc->far_lo = (int)i;
            dc->far_min = dc->far_max = want;
            dc->cl_min = dc->cl_max = closed;
        }
        dc->far_hi = (int)i;
        dc->far_min = want < dc->far_min ? want : dc->far_min;
        dc->far_max = want > dc->far_max ? want : dc->far_max;
        dc->cl_min = closed < dc->cl_min ? closed : dc->cl_min;
        dc->cl_max = closed > dc->cl_max ? closed : dc->cl_max;
    }
}

static void report(struct ecat_core *m)
{
    struct ecat_dc *dc = &m->dc;
    if (dc->far_lo >= 0)
        ECAT_EV(m, TAKT_ECAT_EV_RED_DC_FAR, -1, dc->far_lo, dc->far_hi, dc->far_min, dc->far_max,
                dc->cl_min, dc->cl_max);
    if (dc->cl_lo >= 0)
        ECAT_EV(m, TAKT_ECAT_EV_RED_DC_CLOSED, -1, dc->cl_lo, dc->cl_hi);
}

/* One slave: judge its finished write, write again what it does not hold yet. */
static void step_slave(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    struct ecat_req *r = &s->dc.far_req;
    if (ecat_req_busy(r))
        return;
    if (r->st == REQ_DONE) {
        r->st = REQ_IDLE;
        if (r->wkc == 1) {
            s->dc.far_have = s->dc.far_sent;
            s->dc.far_known = true;
            s->dc.far_fails = 0;
        } else {
            /* lost, late (its reply is not used: pdu.c) or not executed: the slave may or
             * may not hold it, so it is written again, never taken as written */
            s->dc.far_known = false;
            unsigned f = s->dc.far_fails < 16 ? s->dc.far_fails : 16;
            takt_ns_t wait = FAR_RETRY_MIN << f;
            wait = wait > FAR_RETRY_MAX ? FAR_RETRY_MAX : wait;
            s->dc.far_fails++;
            s->dc.far_retry_at = now + wait;
            if (s->dc.far_fails == 1 || s->dc.far_fails % 64 == 0)
                ECAT_EV(m, TAKT_ECAT_EV_RED_DC_WRITE, (int)(s - m->slaves), s->dc.far_sent, r->wkc,
                        r->wkc < 0, wait / TAKT_NS_PER_MS);
        }
    }
    if (s->dc.far_known && s->dc.far_have == s->dc.far_want) {
        if (s->dc.far_wait) {
            s->dc.far_wait = false;
            if (m->dc.far_report && !--m->dc.far_report)
                report(m);
        }
        return;
    }
    /* a slave being set up after its return writes 0x0928 itself (dc.c): after that */
    if (!s->info.present || s->dc.re || now < s->dc.far_retry_at)
        return;
    put_le32(s->dc.far_buf, (uint32_t)s->dc.far_want);
    s->dc.far_sent = s->dc.far_want;
    ecat_req_init(r, ECAT_FPWR, s->info.station, ESC_DC_SYS_DELAY, s->dc.far_buf, 4);
    ecat_req_queue(m, r);
}

void ecat_red_dc_step(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_dc *dc = &m->dc;
    if (!m->redundant || dc->state != DC_RUN)
        return;
    unsigned n = m->n_slaves;
    unsigned from = m->red_broken && m->red_second <= n ? n - m->red_second : n;
    if (!dc->far_planned || dc->far_broken != m->red_broken ||
        (m->red_broken && (dc->far_first != m->red_first || dc->far_from != from)))
        plan(m, now);
    if (!dc->far_broken && !dc->far_report)
        return;                     /* closed, and every write of the plan confirmed */
    for (unsigned i = 0; i < n; i++)
        if (m->slaves[i].info.dc)
            step_slave(m, &m->slaves[i], now);
}
