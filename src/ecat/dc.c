/* Distributed clocks (ETG.1000.4; ESC datasheet Section I): latch port receive times, propagation delays (0x0928),
 * offsets (0x0920), static drift compensation (FRMW 0x0910 bursts), SYNC0 start/cycle
 * (0x0990, 0x09A0, 0x0981); then per cycle drift control and sync-error monitoring,
 * with either the master following the reference clock (PI on the cycle start) or the
 * reference clock following the master (FPWR of master time before the FRMW). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "util/wire.h"

#define DC_STATIC_ITER 1000        /* ethercrab defaults to 10 000; fewer suffice for a sim */
#define DC_START_DELAY (100 * TAKT_NS_PER_MS)

static uint64_t master_time(const struct ecat_core *m, takt_ns_t now)
{ return (uint64_t)(now + m->dc.offset); }

static bool busy(const struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_slaves; i++)
        for (unsigned k = 0; k < 3; k++)
            if (ecat_req_busy(&m->slaves[i].dc.req[k]))
                return true;
    for (unsigned k = 0; k < TAKT_ARRAY_SIZE(m->dc.frmw); k++)
        if (ecat_req_busy(&m->dc.frmw[k]))
            return true;
    return false;
}

static void req(struct ecat_core *m, struct ecat_slave *s, unsigned k, uint8_t cmd, uint16_t reg,
                const void *d, uint16_t len)
{
    if (d)
        memcpy(s->dc.buf[k], d, len);
    else
        memset(s->dc.buf[k], 0, len);
    ecat_req_init(&s->dc.req[k], cmd, s->info.station, reg, s->dc.buf[k], len);
    ecat_req_queue(m, &s->dc.req[k]);
}

static void dc_fail(struct ecat_core *m, const char *what, const struct ecat_slave *s, int wkc)
{
    ECAT_FAILT(m, -TAKT_EWKC, TAKT_ECAT_EV_DC_SETUP_WKC, s ? (int)s->info.position : -1, RT_TXT(what),
               s ? s->info.position : 0, s ? s->info.station : 0, wkc);
    m->dc.state = DC_FAILED;
}

static void enter_latch(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    /* ETG.1000.4 distributed clocks: one broadcast write to 0x0900 latches every DC ESC's port times */
    struct ecat_slave *s = &m->slaves[m->dc.ref];
    ecat_req_init(&s->dc.req[0], ECAT_BWR, 0, ESC_DC_RECV_TIME0, s->dc.buf[0], 4);
    memset(s->dc.buf[0], 0, 4);
    ecat_req_queue(m, &s->dc.req[0]);
    m->dc.state = DC_LATCH;
}

static void state_latch(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_slave *r = &m->slaves[m->dc.ref];
    if (r->dc.req[0].wkc < 1) {
        dc_fail(m, "BWR 0x0900 latch", r, r->dc.req[0].wkc);
        return;
    }
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->info.dc)
            continue;
        req(m, s, 0, ECAT_FPRD, ESC_DC_RECV_TIME0, NULL, 16);
        req(m, s, 1, ECAT_FPRD, ESC_DC_RECV_TIME_PU, NULL, 8);
    }
    m->dc.state = DC_READ;
    (void)now;
}

/* Loop time of a slave: latest minus earliest receive time over its ports that lead to a
 * slave. An open port without one is the last slave's of a redundant ring, wired to the
 * master's second port: the frame leaves there and never comes back, so what that port
 * latched belongs to no pass of this frame (ESC datasheet Section I, receive times). */
int64_t ecat_dc_loop_time(const struct ecat_slave *s)
{
    uint32_t lo = s->dc.port_time[0], hi = s->dc.port_time[0];
    for (int p = 1; p < 4; p++)
        if (s->dc.child_ports & (1u << p)) {
            uint32_t d = s->dc.port_time[p] - s->dc.port_time[0];   /* 32-bit wrap-safe */
            if (d > hi - lo)
                hi = s->dc.port_time[0] + d;
        }
    return (int64_t)(uint32_t)(hi - lo);
}

/* The parent's open port the frame left through before it went out of port q: port 0
 * (the processing unit) for the first branch, else the previous one in the order
 * 0, 3, 1, 2 (ESC datasheet Section I, frame processing order). */
static int prev_port(const struct ecat_slave *p, unsigned q)
{
    static const uint8_t order[4] = { 0, 3, 1, 2 };
    int prev = 0;
    for (unsigned i = 1; i < 4 && order[i] != q; i++)
        if (p->dc.child_ports & (1u << order[i]))
            prev = order[i];
    return prev;
}

/* Propagation delay in a tree (ESC datasheet Section I). The frame leaves parent P towards child C after P received it
 * back on the previous port (t_prev); it returns on C's port q at t_q. In between lie
 * the way out, C's own loop time and the way back; the way out is taken as half of
 * what is not C's loop. So delay(C) = delay(P) + (t_prev - t_P0) + (t_q - t_prev -
 * loop(C)) / 2; in a line (prev = port 0) the familiar delay(P) + (loop(P) - loop(C))/2.
 * A parent without DC has no receive times: the nearest DC ancestor and the line
 * formula stand in (no better can be known). */
static int64_t tree_delay(const struct ecat_core *m, const struct ecat_slave *s)
{
    int p = s->info.parent;
    if (p >= 0 && m->slaves[p].info.dc && s->info.parent_port) {
        const struct ecat_slave *ps = &m->slaves[p];
        int q = s->info.parent_port, pr = prev_port(ps, (unsigned)q);
        int64_t before = (int64_t)(uint32_t)(ps->dc.port_time[pr] - ps->dc.port_time[0]);
        int64_t branch = (int64_t)(uint32_t)(ps->dc.port_time[q] - ps->dc.port_time[pr]);
        return ps->info.dc_delay_ns + before + (branch - ecat_dc_loop_time(s)) / 2;
    }
    while (p >= 0 && !m->slaves[p].info.dc)
        p = m->slaves[p].info.parent;
    if (p < 0)
        return 0;
    const struct ecat_slave *ps = &m->slaves[p];
    return ps->info.dc_delay_ns + (ecat_dc_loop_time(ps) - ecat_dc_loop_time(s)) / 2;
}

static void state_read(struct ecat_core *m, takt_ns_t now)
{
    uint64_t mt = master_time(m, now);
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->info.dc)
            continue;
        if (s->dc.req[0].wkc != 1 || s->dc.req[1].wkc != 1) {
            dc_fail(m, "FPRD 0x0900/0x0918", s, s->dc.req[0].wkc != 1 ? s->dc.req[0].wkc : s->dc.req[1].wkc);
            return;
        }
        for (int p = 0; p < 4; p++)
            s->dc.port_time[p] = get_le32(s->dc.buf[0] + 4 * p);
        s->dc.pu_time = get_le64(s->dc.buf[1]);
    }
    for (unsigned i = 0; i < m->n_slaves; i++)
        m->slaves[i].dc.child_ports = 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave *s = &m->slaves[i];
        if (s->info.parent >= 0 && (unsigned)s->info.parent < m->n_slaves && s->info.parent_port < 4)
            m->slaves[s->info.parent].dc.child_ports |= (uint8_t)(1u << s->info.parent_port);
    }
    /* the far side's delays of a broken ring are derived from these (redund_dc.c) only
     * if the ring was closed when they were latched */
    m->dc.latch_closed = !m->red_broken && !m->red_seen_broken;
    /* parents come before their children: one pass in position order */
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!s->info.dc)
            continue;
        int64_t d = (int)i == m->dc.ref ? 0 : tree_delay(m, s);
        if (d < 0)
            d = 0;
        s->info.dc_delay_ns = (int32_t)d;
        uint8_t b[12];
        /* ESC datasheet Section I, offset compensation: offset = master time - local receive time; delay to 0x0928 */
        put_le64(b, mt - s->dc.pu_time);
        put_le32(b + 8, (uint32_t)d);
        req(m, s, 0, ECAT_FPWR, ESC_DC_SYS_OFFSET, b, 8);
        req(m, s, 1, ECAT_FPWR, ESC_DC_SYS_DELAY, b + 8, 4);
    }
    m->dc.state = DC_WRITE;
}

static void queue_drift(struct ecat_core *m)
{
    const struct ecat_slave *r = &m->slaves[m->dc.ref];
    for (unsigned k = 0; k < TAKT_ARRAY_SIZE(m->dc.frmw) && m->dc.iter < DC_STATIC_ITER; k++, m->dc.iter++) {
        ecat_req_init(&m->dc.frmw[k], ECAT_FRMW, r->info.station, ESC_DC_SYS_TIME, m->dc.frmw_buf[k], 8);
        ecat_req_queue(m, &m->dc.frmw[k]);
    }
}

static void state_write(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (s->info.dc && (s->dc.req[0].wkc != 1 || s->dc.req[1].wkc != 1)) {
            dc_fail(m, "FPWR 0x0920/0x0928", s, s->dc.req[0].wkc != 1 ? s->dc.req[0].wkc : s->dc.req[1].wkc);
            return;
        }
        s->dc.far_have = s->dc.far_want = s->info.dc_delay_ns;   /* its WKC said so */
        s->dc.far_known = s->info.dc;
    }
    m->dc.far_planned = false;      /* redund_dc.c plans anew from these delays */
    m->dc.iter = 0;
    queue_drift(m);        /* ESC datasheet Section I: static drift compensation */
    m->dc.state = DC_DRIFT;
}

static void state_drift(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    if (m->dc.iter < DC_STATIC_ITER) {
        queue_drift(m);
        return;
    }
    struct ecat_slave *r = &m->slaves[m->dc.ref];
    req(m, r, 2, ECAT_FPRD, ESC_DC_SYS_TIME, NULL, 8);
    m->dc.state = DC_SYNC_READ;
}

static void run(struct ecat_core *m, const char *by)
{
    m->dc.state = DC_RUN;
    m->dc.rr = (unsigned)m->dc.ref;
    m->dc.active = true;
    if (by)
        ECAT_EVT(m, TAKT_ECAT_EV_DC_ARMED, m->dc.ref, RT_TXT(by), m->o.cycle_ns, m->dc.sync0_start);
    else
        ECAT_EV(m, TAKT_ECAT_EV_DC_SYNC0, m->dc.ref, m->o.cycle_ns, m->dc.sync0_start);
}

uint64_t ecat_dc_start_time(const struct ecat_core *m, takt_ns_t now, int64_t shift)
{
    uint64_t cyc = (uint64_t)m->o.cycle_ns, start = m->dc.sync0_start;
    uint64_t ref = m->dc.ref_time + (uint64_t)(now > m->dc.ref_at ? now - m->dc.ref_at : 0);
    if (start < ref + DC_START_DELAY)
        start += ((ref + DC_START_DELAY - start) / cyc + 1) * cyc;
    return start + (uint64_t)shift;
}

/* dc.c writes slave i's SYNC0: always with --dc alone; with an ENI whose commands arm
 * SYNC0, only for its slaves that ask for DC by <DC> AssignActivate alone. */
static bool takt_arms(const struct ecat_core *m, unsigned i)
{ return m->slaves[i].info.dc && (!m->eni_sync || ecat_eni_sync_of(m, i) == 2); }

static void state_sync_read(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_slave *r = &m->slaves[m->dc.ref];
    if (r->dc.req[2].wkc != 1) {
        dc_fail(m, "FPRD 0x0910", r, r->dc.req[2].wkc);
        return;
    }
    uint64_t t = get_le64(r->dc.buf[2]);
    uint64_t cyc = (uint64_t)m->o.cycle_ns;
    /* as SOEM and IgH start SYNC0: a whole number of cycles at least 100 ms ahead, plus the shift */
    m->dc.sync0_start = ((t + DC_START_DELAY) / cyc + 1) * cyc + (uint64_t)m->o.sync0_shift_ns;
    m->dc.ref_time = t;
    m->dc.ref_at = now;
    /* with an ENI that arms SYNC0 its own commands do (eni_exec.c), each slave's start
     * time on this grid (ecat_dc_start_time) */
    bool any = false;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if (!takt_arms(m, i))
            continue;
        any = true;
        uint8_t b[16] = { 0 };
        put_le64(b, m->dc.sync0_start);
        put_le32(b + 8, (uint32_t)cyc);
        b[12] = 0x03;                          /* cyclic operation + SYNC0 */
        req(m, s, 0, ECAT_FPWR, ESC_DC_SYNC0_START, b, 8);
        req(m, s, 1, ECAT_FPWR, ESC_DC_SYNC0_CYCLE, b + 8, 4);
        req(m, s, 2, ECAT_FPWR, ESC_DC_ACTIVATION, b + 12, 1);
    }
    if (m->eni_sync && !any)
        run(m, "by the ENI's init commands");
    else
        m->dc.state = DC_SYNC_WRITE;
}

static void state_sync_write(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        for (unsigned k = 0; takt_arms(m, i) && k < 3; k++)
            if (s->dc.req[k].wkc != 1) {
                dc_fail(m, "SYNC0 set-up (0x0990/0x09A0/0x0981)", s, s->dc.req[k].wkc);
                return;
            }
    }
    run(m, m->eni_sync ? "by the ENI's init commands and takt (AssignActivate)" : NULL);
}

static void state_none(struct ecat_core *m, takt_ns_t now) { (void)m; (void)now; }

typedef void (*dc_fn)(struct ecat_core *m, takt_ns_t now);
static const dc_fn dc_states[DC_COUNT] = {
    [DC_IDLE] = state_none, [DC_LATCH] = state_latch, [DC_READ] = state_read,
    [DC_WRITE] = state_write, [DC_DRIFT] = state_drift, [DC_SYNC_READ] = state_sync_read,
    [DC_SYNC_WRITE] = state_sync_write, [DC_RUN] = state_none, [DC_FAILED] = state_none,
};
_Static_assert(TAKT_ARRAY_SIZE(dc_states) == DC_COUNT, "one function per DC state");

int ecat_dc_configure(struct ecat_core *m, takt_ns_t now)
{
    if (!m->scan.done || m->dc.state == DC_FAILED || m->dc.state == DC_RUN)
        return 0;
    if (m->dc.state == DC_IDLE) {
        m->dc.ref = -1;
        for (unsigned i = 0; i < m->n_slaves && m->dc.ref < 0; i++)
            if (m->slaves[i].info.dc)
                m->dc.ref = (int)i;
        if (m->dc.ref < 0) {
            ECAT_EV(m, TAKT_ECAT_EV_DC_NONE, -1);
            m->dc.state = DC_FAILED;
            m->dc.active = true;           /* let slaves waiting for SYNC0 proceed */
            return -ENODEV;
        }
        enter_latch(m, now);
        return 0;
    }
    if (!busy(m))
        dc_states[m->dc.state](m, now);
    return 0;
}

/* --- a DC slave that returned (power loss: offset, delay, loop and SYNC0 gone) ------- */

enum { RE_NONE, RE_READ, RE_WRITE, RE_SYNC };

bool ecat_dc_rejoin(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    (void)now;
    if (m->dc.state != DC_RUN || !s->info.dc || !m->target)
        return false;
    /* its system time and offset, read in the frame right after the cyclic one whose
     * FRMW reads the reference: the two are compared in the same cycle */
    req(m, s, 0, ECAT_FPRD, ESC_DC_SYS_TIME, NULL, 8);
    req(m, s, 1, ECAT_FPRD, ESC_DC_SYS_OFFSET, NULL, 8);
    s->dc.re = RE_READ;
    s->dc.far_known = false;       /* it writes the closed ring's delay: redund_dc.c follows */
    return true;
}

static bool rejoin_ok(struct ecat_core *m, struct ecat_slave *s, unsigned n, const char *what,
                      takt_ns_t now)
{
    for (unsigned k = 0; k < n; k++)
        if (s->dc.req[k].wkc != 1) {
            ECAT_EVT(m, TAKT_ECAT_EV_DC_RETURN_WKC, (int)(s - m->slaves), RT_TXT(what), s->dc.req[k].wkc);
            s->dc.re = RE_NONE;
            ecat_slave_goto(m, s, m->target, now);
            return false;
        }
    return true;
}

static void rejoin_step(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    for (unsigned k = 0; k < 3; k++)
        if (ecat_req_busy(&s->dc.req[k]))
            return;
    if (s->dc.re == RE_READ) {
        if (!rejoin_ok(m, s, 2, "FPRD 0x0910/0x0920", now))
            return;
        /* ESC datasheet Section I, offset compensation: the offset that makes its system time the reference's; the FPRD
         * left after the FRMW by the difference of their send times */
        uint64_t sys = get_le64(s->dc.buf[0]), off = get_le64(s->dc.buf[1]);
        int64_t lag = s->dc.req[0].sent - m->dc.mon_ref.sent;
        uint8_t b[12], filt[2] = { 0x00, 0x0C }, speed[2] = { 0x00, 0x10 };
        put_le64(b, off + (m->dc.ref_time + (uint64_t)lag - sys));
        put_le32(b + 8, (uint32_t)s->info.dc_delay_ns);
        req(m, s, 0, ECAT_FPWR, ESC_DC_SYS_OFFSET, b, 12);
        req(m, s, 1, ECAT_FPWR, ESC_DC_DIFF_FILTER, filt, 2);   /* as at scan (scan.c) */
        req(m, s, 2, ECAT_FPWR, ESC_DC_SPEED_START, speed, 2);
        s->dc.re = RE_WRITE;
    } else if (s->dc.re == RE_WRITE) {
        if (!rejoin_ok(m, s, 3, "FPWR 0x0920/0x0934/0x0930", now))
            return;
        /* SYNC0 on the network's grid, a whole number of cycles at least 100 ms ahead */
        uint64_t cyc = (uint64_t)m->o.cycle_ns, start = m->dc.sync0_start;
        if (m->dc.ref_time + DC_START_DELAY > start)
            start += ((m->dc.ref_time + DC_START_DELAY - start) / cyc + 1) * cyc;
        uint8_t b[13] = { 0 };
        put_le64(b, start);
        put_le32(b + 8, (uint32_t)cyc);
        b[12] = 0x03;
        req(m, s, 0, ECAT_FPWR, ESC_DC_SYNC0_START, b, 8);
        req(m, s, 1, ECAT_FPWR, ESC_DC_SYNC0_CYCLE, b + 8, 4);
        req(m, s, 2, ECAT_FPWR, ESC_DC_ACTIVATION, b + 12, 1);
        s->dc.re = RE_SYNC;
    } else if (s->dc.re == RE_SYNC) {
        if (!rejoin_ok(m, s, 3, "SYNC0 set-up (0x0990/0x09A0/0x0981)", now))
            return;
        s->dc.re = RE_NONE;
        ECAT_EV(m, TAKT_ECAT_EV_DC_AGAIN, (int)(s - m->slaves), s->info.dc_delay_ns);
        ecat_slave_goto(m, s, m->target, now);
    }
}

/* Per cycle, after the frames returned: PI loop on the phase of the reference clock
 * against SYNC0 (master follows reference), sync error from BRD 0x092C. */
void ecat_dc_cycle(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    if (m->dc.state != DC_RUN)
        return;
    if (m->dc.mon_diff.st == REQ_DONE && m->dc.mon_diff.wkc == 1) {
        /* ESC datasheet Section II: 0x092C bit 31 sign, bits 0-30 magnitude of one slave's filtered
         * difference to the reference; the largest over one round of all DC slaves is
         * the network's sync error. A magnitude of all ones is the register saturated
         * (or garbage): that clock is not synchronised, and the value is no measure of
         * by how much. Nor is a slave that is not in OP (its clock may be set up anew).
         * And 0x092C is a filtered value: it does not leap from one reading to the next.
         * A leap seen once is a bad reading (a flipped bit), so the sample is the smaller
         * of the slave's last two readings: a real error shows a round later, a single
         * bad reading never. */
        int64_t e = get_le32(m->dc.mon_diff_buf) & 0x7FFFFFFF;
        struct ecat_slave *sl = &m->slaves[m->dc.rr];
        if (e == 0x7FFFFFFF || !sl->info.present || (sl->info.al_state & AL_STATE_MASK) != AL_OP) {
            m->st.dc_sync_invalid++;
            sl->dc.diff_prev = 0;
        } else {
            int64_t prev = (int64_t)sl->dc.diff_prev - 1;
            sl->dc.diff_prev = (uint32_t)e + 1;
            if (prev >= 0) {
                e = e < prev ? e : prev;
                m->dc.round_samples++;
                if (e > m->dc.round_max)
                    m->dc.round_max = e;
            }
        }
    }
    unsigned next = m->dc.rr;
    for (unsigned k = 0; k < m->n_slaves; k++) {
        next = (next + 1) % m->n_slaves;
        if (m->slaves[next].info.dc && m->slaves[next].info.present)
            break;
    }
    if (next <= m->dc.rr) {                 /* a round is complete */
        if (m->dc.round_samples) {          /* else the last value stands */
            m->st.dc_sync_err_ns = m->dc.round_max;
            if (m->dc.round_max > m->st.dc_sync_err_max_ns && ecat_all_op(m))
                m->st.dc_sync_err_max_ns = m->dc.round_max;
        }
        m->dc.round_max = 0;
        m->dc.round_samples = 0;
    }
    m->dc.rr = next;
    if (m->dc.mon_ref.st != REQ_DONE || m->dc.mon_ref.wkc < 1)
        return;
    m->dc.ref_time = get_le64(m->dc.mon_ref_buf);
    m->dc.ref_at = now;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].dc.re)
            rejoin_step(m, &m->slaves[i], now);
    if (m->o.dc_mode != TAKT_ECAT_DC_MASTER_FOLLOWS_REF)
        return;
    int64_t cyc = m->o.cycle_ns;
    /* aim: the frame passes the reference clock half a cycle before the next SYNC0 */
    int64_t ph = (int64_t)((m->dc.ref_time - m->dc.sync0_start) % (uint64_t)cyc) - cyc / 2;
    if (ph >= cyc / 2)
        ph -= cyc;
    if (ph < -cyc / 2)
        ph += cyc;
    m->dc.integral += ph;
    int64_t lim = 100 * (int64_t)cyc;
    if (m->dc.integral > lim) m->dc.integral = lim;
    if (m->dc.integral < -lim) m->dc.integral = -lim;
    int64_t shift = -(ph / 10 + m->dc.integral / 200);
    if (shift > cyc / 20) shift = cyc / 20;
    if (shift < -cyc / 20) shift = -cyc / 20;
    m->dc.shift_ns = shift;
    m->dc.phase_ns = ph;
}

int64_t takt_ecat_master_dc_take_shift(struct takt_ecat_master *drv)
{
    struct ecat_core *m = &drv->core;
    int64_t s = m->dc.shift_ns;
    m->dc.shift_ns = 0;
    return s;
}

int64_t takt_ecat_master_dc_phase(const struct takt_ecat_master *drv) { return drv->core.dc.phase_ns; }

bool takt_ecat_master_dc_enabled(const struct takt_ecat_master *drv) { return drv->core.o.dc; }
