/* Recovery: the per-cycle BRD of 0x0130 counts the slaves that answer. In a line, a
 * cable break or a powered-off slave cuts off every slave behind it, so a drop from N to
 * K means positions K..N-1 are gone (reported in the same cycle); when the count rises
 * again those positions are scanned anew (address, identity) and driven back to the
 * network's target state, and that is reported too. A slave is known by its identity
 * (vendor, product, and serial number and alias where it has them), not its position:
 * when cables were swapped on a junction, a device can come back where another was.
 * Then its configuration follows it (same product: same layout) and this is reported
 * as "slave X came back at position Y"; a different product there, or a device nobody
 * expected, is never configured, and the position is re-scanned until the slave's own
 * device answers there again (reported once per device found). Slave
 * numbers (the API's pos) stay with the devices; info.position is where each is now.
 * In a tree, and in a redundant ring, the lost slaves need not be the last positions:
 * there the master asks every position for its station address before it decides (one
 * more cycle). A re-scan that
 * fails is tried again with back-off for as long as the master runs; every return is
 * counted against the loss before it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "util/wire.h"

#define ECAT_MOVED_MAX 256           /* slaves the swap detection looks at (stack: ~10 KiB);
                                      * a mismatch beyond them is refused */

static struct ecat_slave *at_position(struct ecat_core *m, unsigned pos)
{
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].info.position == pos)
            return &m->slaves[i];
    return NULL;
}

/* Every return is counted against a loss before it: slaves_lost - slaves_returned is the
 * number of slaves lost now. */
static void count_lost(struct ecat_core *m, struct ecat_slave *s)
{
    if (s->rec.counted_lost)
        return;
    s->rec.counted_lost = true;
    m->st.slaves_lost++;
}

static void lost_slave(struct ecat_core *m, struct ecat_slave *s)
{
    if (!s->info.present)
        return;
    s->info.present = false;
    ecat_al_changed(m);
    s->rec.rejoin = false;
    /* drop whatever it was doing: its requests would only time out */
    for (unsigned k = 0; k < s->esm.f.nreq; k++)
        if (ecat_req_busy(&s->esm.f.req[k]) && s->esm.f.req[k].st == REQ_SENT &&
            m->inflight[s->esm.f.req[k].idx] == &s->esm.f.req[k])
            m->inflight[s->esm.f.req[k].idx] = NULL;
    ecat_pdu_unqueue(m, s->esm.f.req, s->esm.f.nreq);
    s->esm.f.nreq = 0;
    if (s->dc.re) {                 /* lost again while its clock was being set up */
        for (unsigned k = 0; k < 3; k++)
            if (s->dc.req[k].st == REQ_SENT && m->inflight[s->dc.req[k].idx] == &s->dc.req[k])
                m->inflight[s->dc.req[k].idx] = NULL;
        ecat_pdu_unqueue(m, s->dc.req, 3);
        for (unsigned k = 0; k < 3; k++)
            s->dc.req[k].st = REQ_IDLE;
        s->dc.re = 0;
    }
    s->esm.f.state = SS_IDLE;
    s->info.al_state = 0;
    ecat_al_changed(m);
    count_lost(m, s);
    ECAT_EVT(m, TAKT_ECAT_EV_SLAVE_LOST, (int)(s - m->slaves), RT_TXT(s->info.name[0] ? s->info.name : "?"), s->info.station);
}

static void lost(struct ecat_core *m, unsigned from, unsigned to)
{
    for (unsigned p = from; p < to && p < m->n_slaves; p++) {
        struct ecat_slave *s = at_position(m, p);
        if (s)
            lost_slave(m, s);
    }
}

/* Re-scan slave s at its (possibly new) position: address, ESC, SII, identity. */
static void back_slave(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (s->info.present || s->rec.rejoin)
        return;
    unsigned i = (unsigned)(s - m->slaves), p = s->info.position;
    s->rec.rejoin = true;
    m->rec.watch = true;
    s->rec.retry_at = 0;
    s->rec.old_vendor = s->info.vendor;
    s->rec.old_product = s->info.product;
    s->rec.old_serial = s->info.serial;
    s->rec.old_alias = s->info.alias;
    s->rec.old_station = s->info.station;
    s->rec.old_position = s->info.position;
    if (s->rec.wrong)
        ;                           /* said once when it was found; retried quietly */
    else if (s->rec.backoff_ns)
        ECAT_EV(m, TAKT_ECAT_EV_RESCAN_AGAIN, i);
    else if (i == p)
        ECAT_EV(m, TAKT_ECAT_EV_SLAVE_ANSWERS, i);
    else
        ECAT_EV(m, TAKT_ECAT_EV_POSITION_ANSWERS, i, p);
    ecat_slave_scan_start(m, s, now);
}

static void back(struct ecat_core *m, unsigned from, unsigned to, takt_ns_t now)
{
    for (unsigned p = from; p < to && p < m->n_slaves; p++) {
        struct ecat_slave *s = at_position(m, p);
        if (s)
            back_slave(m, s, now);
    }
}

/* --- trees: a break can take out a branch in the middle, and the slaves behind it move
 * up; the count alone does not say who is gone. So the master asks every position for
 * its station address (APRD 0x0010, one frame's worth of datagrams) and goes by that. */

static bool is_tree(const struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].info.parent >= 0 && m->slaves[i].info.parent_port != 1)
            return true;
    return false;
}

static void start_probe(struct ecat_core *m, unsigned n)
{
    for (unsigned p = 0; p < n; p++) {
        struct ecat_slave *s = &m->slaves[p];          /* its request slot, any will do */
        ecat_req_init(&s->rec.probe, ECAT_APRD, (uint16_t)(0u - p), ESC_STATION_ADDR, s->rec.probe_buf, 2);
        ecat_req_queue(m, &s->rec.probe);
    }
    m->rec.probing = true;
    m->rec.probe_n = n;
}

static bool probe_busy(const struct ecat_core *m)
{
    for (unsigned p = 0; p < m->rec.probe_n; p++)
        if (ecat_req_busy(&m->slaves[p].rec.probe))
            return true;
    return false;
}

/* A slave whose address answers at position p is there (it may have moved up or down);
 * a configured slave found nowhere is lost; a position with an unknown address (0 after
 * power loss) goes to a missing slave, in position order, to be re-scanned there - the
 * identity check then tells whose device it really is (moved() above). */
static void finish_probe(struct ecat_core *m, takt_ns_t now)
{
    unsigned n = m->n_slaves;
    m->rec.probing = false;
    for (unsigned i = 0; i < n; i++)
        m->slaves[i].rec.probe_seen = false;
    for (unsigned p = 0; p < m->rec.probe_n; p++) {
        const struct ecat_req *r = &m->slaves[p].rec.probe;
        uint16_t st = get_le16(m->slaves[p].rec.probe_buf);
        if (r->wkc != 1 || !st)
            continue;        /* changed again (the next probe sees it), or no address */
        unsigned i = 0;
        while (i < n && (m->slaves[i].info.station != st || m->slaves[i].rec.probe_seen))
            i++;
        if (i == n)
            continue;
        struct ecat_slave *s = &m->slaves[i];
        s->rec.probe_seen = true;
        if (s->info.position != p && s->info.present)
            ECAT_EV(m, TAKT_ECAT_EV_SLAVE_MOVED, i, st, p, s->info.position);
        s->info.position = p;
    }
    unsigned present = 0;
    for (unsigned i = 0; i < n; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->rec.probe_seen)
            lost_slave(m, s);
        else if (!s->info.present)
            back_slave(m, s, now);             /* back with its address: kept power */
        present += s->rec.probe_seen;
    }
    /* positions whose address nobody has (0 after power loss): the missing slave that
     * was earliest in the frame takes the earliest of them */
    for (unsigned p = 0; p < m->rec.probe_n; p++) {
        if (m->slaves[p].rec.probe.wkc != 1)
            continue;
        bool taken = false;
        for (unsigned i = 0; i < n && !taken; i++)
            taken = m->slaves[i].rec.probe_seen && m->slaves[i].info.position == p;
        if (taken)
            continue;
        struct ecat_slave *best = NULL;
        for (unsigned i = 0; i < n; i++) {
            struct ecat_slave *s = &m->slaves[i];
            if (!s->rec.probe_seen && !s->rec.rejoin && (!best || s->info.position < best->info.position))
                best = s;
        }
        if (!best) {
            ECAT_EV(m, TAKT_ECAT_EV_UNKNOWN_SLAVE, -1, p, get_le16(m->slaves[p].rec.probe_buf));
            continue;
        }
        best->rec.probe_seen = true;
        best->info.position = p;
        back_slave(m, best, now);
        present++;
    }
    m->rec.present = present;
}

/* A failed re-scan is never final: the slave is scanned again after a wait that starts
 * at a few cycles and doubles per failure up to ECAT_RETRY_MAX_NS, for as long as the
 * master runs (retry() below), and the wait starts short again once it answers. */
#define ECAT_RETRY_MIN_CYCLES 4
#define ECAT_RETRY_MAX_NS TAKT_NS_PER_S

/* quiet: a refusal said why, and says it again only when another device is found */
static void retry_later(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now, bool quiet)
{
    takt_ns_t min = ECAT_RETRY_MIN_CYCLES * m->o.cycle_ns;
    s->rec.backoff_ns = s->rec.backoff_ns ? 2 * s->rec.backoff_ns : min;
    if (s->rec.backoff_ns > ECAT_RETRY_MAX_NS)
        s->rec.backoff_ns = ECAT_RETRY_MAX_NS > min ? ECAT_RETRY_MAX_NS : min;
    s->rec.retry_at = now + s->rec.backoff_ns;
    m->rec.watch = true;
    if (!quiet)
        ECAT_EV(m, TAKT_ECAT_EV_RESCAN_FAILED, (int)(s - m->slaves), s->esm.f.err ? s->esm.f.err : -TAKT_ECONFIG, s->rec.backoff_ns / TAKT_NS_PER_MS);
}

/* The re-scan of s found a device that is not its own (vendor, product, serial found):
 * it is never configured or started (the slave's layout is not its layout), and the
 * slave stays missing (its number's identity is the one it was configured with), so the
 * position is re-scanned with the back-off of a failed re-scan until its own device
 * answers there. True if this device was not reported yet: the caller says what it is. */
static bool refuse(struct ecat_core *m, struct ecat_slave *s, uint32_t vendor, uint32_t product,
                   uint32_t serial, takt_ns_t now)
{
    bool news = !s->rec.wrong || s->rec.wrong_vendor != vendor || s->rec.wrong_product != product ||
                s->rec.wrong_serial != serial;
    s->rec.wrong = true;
    s->rec.wrong_vendor = vendor;
    s->rec.wrong_product = product;
    s->rec.wrong_serial = serial;
    s->info.vendor = s->rec.old_vendor;
    s->info.product = s->rec.old_product;
    s->info.serial = s->rec.old_serial;
    s->info.alias = s->rec.old_alias;
    s->info.present = false;        /* not the slave: "not answering" in the counts */
    ecat_al_changed(m);
    s->rec.rejoin = false;
    retry_later(m, s, now, true);
    return news;
}

/* Same device? Vendor and product must agree; serial number and alias too where both
 * sides have one (0 = the device has none). */
static bool same_device(const struct ecat_slave *was, const struct takt_ecat_slave_info *now)
{
    return was->rec.old_vendor == now->vendor && was->rec.old_product == now->product &&
           (!was->rec.old_serial || !now->serial || was->rec.old_serial == now->serial) &&
           (!was->rec.old_alias || !now->alias || was->rec.old_alias == now->alias);
}

static void back_to_target(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    s->info.present = true;
    ecat_al_changed(m);
    s->rec.returning = true;
    m->rec.watch = true;
    s->rec.backoff_ns = 0;              /* it answers: the next failure starts short again */
    s->rec.retry_at = 0;
    if (s->rec.wrong)
        ECAT_EV(m, TAKT_ECAT_EV_OWN_DEVICE, (int)(s - m->slaves), s->info.vendor, s->info.product, s->info.serial, s->info.position);
    s->rec.wrong = false;
    if (s->rec.counted_lost) {
        s->rec.counted_lost = false;
        m->st.slaves_returned++;
    }
    /* a DC slave gets its clock set up again first (dc.c sends it on) */
    if (m->target && !ecat_dc_rejoin(m, s, now))
        ecat_slave_goto(m, s, m->target, now);
}

/* The re-scan of slave i found, at its old position, the device that slave j (of the
 * same batch) was. Which j? -1 if none or more than one would fit. */
static int whose_device(struct ecat_core *m, unsigned i)
{
    int found = -1;
    for (unsigned j = 0; j < m->n_slaves; j++) {
        const struct ecat_slave *o = &m->slaves[j];
        if (j == i || !o->rec.rejoin || !o->scan.done || o->esm.f.state != SS_IDLE ||
            !same_device(o, &m->slaves[i].info))
            continue;
        if (found >= 0)
            return -1;
        found = (int)j;
    }
    return found;
}

static bool mismatch(const struct ecat_slave *s)
{
    return s->rec.rejoin && s->scan.done && s->esm.f.state == SS_IDLE && !same_device(s, &s->info);
}

/* Does following "whose device did k's scan find" from j come back to j, with one
 * product all along (so that one layout fits every device of the cycle)? */
static bool whole_cycle(const struct ecat_core *m, const int *src, unsigned j)
{
    unsigned k = j;
    for (unsigned len = 0; len <= m->n_slaves; len++) {
        int i = src[k];
        if (i < 0 || m->slaves[i].rec.old_product != m->slaves[j].rec.old_product ||
            m->slaves[i].rec.old_vendor != m->slaves[j].rec.old_vendor)
            return false;
        k = (unsigned)i;
        if (k == j)
            return true;
    }
    return false;
}

/* Slaves whose re-scan found another slave's device: the device of slave j sits at the
 * old position of slave i = src[j] (and answers i's station address, which the re-scan
 * gave it). Slaves of whole cycles take over position and address; the others are
 * refused, saying what was found where. */
static void moved(struct ecat_core *m, takt_ns_t now)
{
    unsigned n = m->n_slaves < ECAT_MOVED_MAX ? m->n_slaves : ECAT_MOVED_MAX;
    int src[ECAT_MOVED_MAX];
    bool any = false;
    for (unsigned j = 0; j < n; j++)
        src[j] = -1;
    for (unsigned i = 0; i < n; i++) {
        if (!mismatch(&m->slaves[i]))
            continue;
        any = true;
        int j = whose_device(m, i);
        if (j >= 0 && (unsigned)j < n && src[j] < 0)
            src[j] = (int)i;
    }
    if (!any)
        return;
    /* what each re-scan found where it ran, before any slave takes another's place */
    struct found { unsigned position; uint32_t serial; uint16_t station, alias, dl_status, al_code;
                   uint8_t ports_open, al_state; uint32_t vendor, product; };
    bool ok[ECAT_MOVED_MAX];
    struct found got[ECAT_MOVED_MAX];
    for (unsigned j = 0; j < n; j++) {
        const struct takt_ecat_slave_info *in = &m->slaves[j].info;
        ok[j] = mismatch(&m->slaves[j]) && whole_cycle(m, src, j);
        got[j] = (struct found){ in->position, in->serial, in->station, in->alias, in->dl_status,
                                 in->al_code, in->ports_open, in->al_state, in->vendor, in->product };
    }
    for (unsigned j = 0; j < n; j++) {
        struct ecat_slave *s = &m->slaves[j];
        if (!mismatch(s))
            continue;     /* its own device where it was scanned: back to target (rejoin()),
                           * even if one like it was found where another slave was */
        s->rec.rejoin = false;
        if (ok[j]) {
            const struct found *g = &got[src[j]];
            s->info.position = g->position;
            s->info.station = g->station;
            s->info.serial = g->serial;
            s->info.alias = g->alias;
            s->info.dl_status = g->dl_status;
            s->info.ports_open = g->ports_open;
            s->info.al_state = g->al_state;
            s->info.al_code = g->al_code;
            ecat_al_changed(m);
            s->info.vendor = s->rec.old_vendor;
            s->info.product = s->rec.old_product;
            ECAT_EV(m, TAKT_ECAT_EV_SLAVE_CAME_BACK, j, s->info.vendor, s->info.product, s->info.serial, s->info.position, s->rec.old_position);
            back_to_target(m, s, now);
        } else if (src[j] >= 0) {
            const struct ecat_slave *f = &m->slaves[src[j]];
            if (refuse(m, s, got[j].vendor, got[j].product, got[j].serial, now))
                ECAT_FAIL(m, -TAKT_ECONFIG, TAKT_ECAT_EV_CAME_BACK_OTHER, j, s->rec.old_vendor, s->rec.old_product, s->rec.old_serial,
                          f->rec.old_position, src[j], f->rec.old_product);
        } else if (refuse(m, s, got[j].vendor, got[j].product, got[j].serial, now)) {
            ECAT_FAIL(m, -TAKT_ECONFIG, TAKT_ECAT_EV_OTHER_DEVICE, j, got[j].position, s->rec.old_vendor, s->rec.old_product,
                      s->rec.old_serial, got[j].vendor, got[j].product, got[j].serial);
        }
    }
}

/* Slaves whose re-scan failed, due again: scanned again where the BRD count says a
 * slave answers (else the count rising brings them back, back() above). */
static void retry(struct ecat_core *m, takt_ns_t now)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->info.present || s->rec.rejoin || !s->rec.retry_at || now < s->rec.retry_at ||
            s->info.position >= m->rec.present || m->rec.probing)
            continue;
        back_slave(m, s, now);
    }
}

/* Master timer: re-scanned slaves go back to the target; once every re-scan of the batch
 * is done, since a device found at one position may be the one missing at another. */
static void rejoin(struct ecat_core *m, takt_ns_t now)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave *s = &m->slaves[i];
        if (s->rec.rejoin && s->esm.f.state != SS_IDLE && s->esm.f.state != SS_FAILED)
            return;
    }
    moved(m, now);
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->rec.rejoin)
            continue;
        s->rec.rejoin = false;
        if (s->esm.f.state == SS_FAILED || !s->scan.done) {
            s->rec.wrong = false;       /* what answers there now is not known: said anew */
            retry_later(m, s, now, false);
            continue;
        }
        if (!same_device(s, &s->info)) {        /* beyond what moved() looks at */
            uint32_t v = s->info.vendor, p = s->info.product, ser = s->info.serial;
            if (refuse(m, s, v, p, ser, now))
                ECAT_FAIL(m, -TAKT_ECONFIG, TAKT_ECAT_EV_OTHER_DEVICE, i, s->info.position, s->rec.old_vendor, s->rec.old_product,
                          s->rec.old_serial, v, p, ser);
            continue;
        }
        back_to_target(m, s, now);
    }
}

/* A slave that answers the BRD but no longer its station address was power-cycled
 * (address and configuration gone): scan it again by position like a returning one. */
static void readdress(struct ecat_core *m, takt_ns_t now)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->info.position >= m->rec.present)
            continue;
        if (s->esm.f.state != SS_FAILED || s->rec.rejoin || !s->info.present ||
            (s->esm.f.err != -TAKT_EWKC && s->esm.f.err != -ETIMEDOUT) || now - s->esm.f.t0 < 200 * TAKT_NS_PER_MS)
            continue;
        s->info.present = false;
        ecat_al_changed(m);
        count_lost(m, s);
        ECAT_EV(m, TAKT_ECAT_EV_ADDRESS_LOST, i, s->info.station);
        back(m, s->info.position, s->info.position + 1, now);
    }
}

/* A rescan (master_rescan.c) read another identity from slave i's SII: a device was
 * replaced while it kept answering. Recovery takes it as it takes a slave that left and
 * came back: lost, re-scanned at its position, and (not its own device) refused. */
void ecat_recovery_replaced(struct ecat_core *m, unsigned i, takt_ns_t now)
{
    if (i >= m->n_slaves || !m->slaves[i].info.present || m->slaves[i].rec.rejoin)
        return;
    lost_slave(m, &m->slaves[i]);
    back_slave(m, &m->slaves[i], now);
}

/* The per-slave part of the cycle's check. Each of its steps acts only on a slave with
 * a re-scan pending or planned, on its way back, or whose machine failed; none such
 * (rec.watch clear) and the cycle skips the 40-odd slaves' look. */
static void watch(struct ecat_core *m, takt_ns_t now)
{
    if (m->target)
        readdress(m, now);
    retry(m, now);
    rejoin(m, now);
    bool more = false;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->rec.returning && s->esm.f.state == SS_IDLE && m->target &&
            (s->info.al_state & AL_STATE_MASK) == m->target) {
            s->rec.returning = false;
            ECAT_EV(m, TAKT_ECAT_EV_SLAVE_BACK, i, s->info.station, m->target);
        }
        more |= s->rec.rejoin || s->rec.returning || s->rec.retry_at || s->esm.f.state == SS_FAILED;
    }
    m->rec.watch = more;
}

void ecat_recovery_check(struct ecat_core *m, takt_ns_t now)
{
    unsigned n = (unsigned)m->mon_al.wkc;
    m->rec.brd_or = m->mon_al_buf[0];
    m->rec.brd_fno = m->mon_al.fno;
    if (n > m->n_slaves)
        n = m->n_slaves;         /* extra slaves are not configured; ignore them */
    /* A new count is believed when two cycles in a row agree: one reply with a garbled
     * WKC would otherwise cost a re-scan of every slave behind the position it names. */
    bool again = n == m->rec.count_seen;
    m->rec.count_seen = n;
    if (n != m->rec.present && !again)
        n = m->rec.present;
    if (m->rec.probing) {
        if (!probe_busy(m))
            finish_probe(m, now);
    } else if (n != m->rec.present && (is_tree(m) || m->redundant)) {
        /* a redundant ring broken in two places loses the slaves between the breaks,
         * not the last ones: ask as in a tree (redund.c counts the positions of the
         * far side on from the near side's) */
        if (n < m->rec.present)
            ECAT_EV(m, TAKT_ECAT_EV_ANSWER_COUNT_ASK, -1, n, m->n_slaves, m->rec.present - n);
        start_probe(m, n);
    } else {
        if (n < m->rec.present) {
            ECAT_EV(m, TAKT_ECAT_EV_ANSWER_COUNT, -1, n, m->n_slaves, m->rec.present - n);
            lost(m, n, m->rec.present);
        } else if (n > m->rec.present) {
            back(m, m->rec.present, n, now);
        }
        m->rec.present = n;
    }
    if (m->rec.watch)
        watch(m, now);
    /* A slave that left the target state by itself (error, watchdog) is driven back,
     * one read of its AL status first, as long as its machine is idle. */
    uint8_t or = m->mon_al_buf[0];
    if (m->target && n == m->n_slaves && ((or & AL_ERROR) || (or & AL_STATE_MASK) != m->target)) {
        for (unsigned i = 0; i < m->n_slaves; i++) {
            struct ecat_slave *s = &m->slaves[i];
            if (s->esm.f.state == SS_IDLE && !s->rec.returning && (s->info.al_state & AL_STATE_MASK) == m->target &&
                now - s->esm.f.t0 > 100 * TAKT_NS_PER_MS)
                ecat_slave_goto(m, s, m->target, now);
        }
    }
}
