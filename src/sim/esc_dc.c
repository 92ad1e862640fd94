/* Distributed clocks of the software ESC (ref §9): a local clock with its own drift,
 * receive-time latches, system time = local + offset, and the time-control loop a
 * write to 0x0910 drives (KickCAT dcTimeLoopWrite shape: bounded slew per write,
 * filtered difference in 0x092C), plus a rate correction like the ESC speed counter. */
#include <math.h>
#include <stdlib.h>
#include "sim/esc.h"
#include "util/wire.h"

#define MAX_CORR_PPB 500000.0          /* speed counter range, +-500 ppm */
#define RATE_WINDOW (128 * 1000000LL)  /* ns of writes the rate is judged over */
#define RATE_STEP 25000.0              /* ppb change per window at most */

/* inline in this file: the 0x0910 write of every slave calls it each cycle */
static inline int64_t dc_local(const struct sim_esc *e, takt_ns_t t)
{
    int64_t dt = t - e->dc.anchor_t;
    double adj = (double)dt * (e->dc.drift_ppb + e->dc.corr_ppb) * 1e-9;
    return e->dc.anchor_local + dt + (int64_t)(adj < 0 ? adj - 0.5 : adj + 0.5);
}

int64_t esc_dc_local(const struct sim_esc *e, takt_ns_t t)
{
    return dc_local(e, t);
}

/* Re-anchor before changing the rate so the clock stays continuous. */
static void reanchor(struct sim_esc *e, takt_ns_t t)
{
    e->dc.anchor_local = esc_dc_local(e, t);
    e->dc.anchor_t = t;
}

uint64_t esc_dc_systime(const struct sim_esc *e, takt_ns_t t)
{
    return (uint64_t)esc_dc_local(e, t) + e->dc.offset;
}

void esc_dc_read_refresh(struct sim_esc *e, uint32_t adr, uint32_t len, takt_ns_t t)
{
    uint32_t end = adr + len;
    if (adr < ESC_DC_SPEED_DIFF + 2 && end > ESC_DC_SYS_DIFF)
        esc_dc_sync_regs(e);
    if (adr < 0x0918 && end > 0x0910)
        put_le64(e->mem + ESC_DC_SYS_TIME, esc_dc_systime(e, t));
    if (adr < 0x098F && end > 0x0984) {
        /* 0x0984 activation status, 0x098E SYNC0 status: SYNC0 has started once the
         * system time passed the start time with cyclic operation + SYNC0 enabled */
        bool on = (e->mem[ESC_DC_ACTIVATION] & 0x03) == 0x03 &&
                  esc_dc_systime(e, t) >= e->dc.sync0_start;
        e->mem[0x0984] = on ? 0x01 : 0x00;
        e->mem[0x098E] = on ? 0x01 : 0x00;
    }
    if (adr < 0x0998 && end > 0x0990 && (e->mem[ESC_DC_ACTIVATION] & 0x03) == 0x03) {
        /* Once SYNC0 runs, 0x0990 reads as the next SYNC0 pulse. */
        uint64_t start = e->dc.sync0_start;
        uint32_t cyc = get_le32(e->mem + ESC_DC_SYNC0_CYCLE);
        uint64_t now = esc_dc_systime(e, t);
        put_le64(e->mem + ESC_DC_SYNC0_START,
                 cyc && now > start ? start + ((now - start) / cyc + 1) * cyc : start);
    }
}

void esc_dc_latch(struct sim_esc *e)
{
    /* Local time at which the frame passed each port; ports without link keep what
     * they had (ref §9 step 1). 0x0918 is the processing unit's time (port 0 in a
     * line). */
    for (unsigned p = 0; p < 4; p++)
        if (e->times.open & (1u << p))
            put_le32(e->mem + ESC_DC_RECV_TIME0 + 4 * p, (uint32_t)esc_dc_local(e, e->times.port[p]));
    put_le64(e->mem + ESC_DC_RECV_TIME_PU, (uint64_t)esc_dc_local(e, e->times.port[0]));
}

void esc_dc_reset_filter(struct sim_esc *e, takt_ns_t t)
{
    reanchor(e, t);
    e->dc.corr_ppb = 0;
    e->dc.filt = 0;
    e->dc.have_last = false;
    e->dc.win_dt = 0;
    e->dc.win_iv = 0;
    e->dc.win_r0 = 0;
    put_le32(e->mem + ESC_DC_SYS_DIFF, 0);
    put_le16(e->mem + ESC_DC_SPEED_DIFF, 0);
    e->dc_regs_stale = false;
}

static void put_diff(struct sim_esc *e, double d)
{
    /* 0x092C: bit 31 set when local >= received, bits 0-30 magnitude (ref §4). */
    double m = fabs(d);
    uint32_t mag = m > 0x7FFFFFFF ? 0x7FFFFFFF : (uint32_t)(m + 0.5);
    put_le32(e->mem + ESC_DC_SYS_DIFF, mag | (d >= 0 ? 0x80000000u : 0));
}

void esc_dc_sync_regs(struct sim_esc *e)
{
    if (!e->dc_regs_stale)
        return;
    put_diff(e, e->dc.filt);
    put_le16(e->mem + ESC_DC_SPEED_DIFF, (uint16_t)(int16_t)(e->dc.corr_ppb / 1000.0));
    e->dc_regs_stale = false;
}

void esc_dc_time_write(struct sim_esc *e, const uint8_t *val, unsigned off, unsigned n, takt_ns_t t)
{
    if (off != 0 || (n != 4 && n != 8))
        return;                     /* partial writes feed nothing */
    int64_t local = dc_local(e, t);
    uint64_t sys = (uint64_t)local + e->dc.offset - e->dc.delay;
    int64_t dt;
    if (n == 8)
        dt = (int64_t)(sys - get_le64(val));
    else                            /* IgH writes 4 bytes: compare the low word */
        dt = (int32_t)((uint32_t)sys - get_le32(val));
    e->dc.filt += ((double)dt - e->dc.filt) * e->dc.filt_gain;

    int64_t slew = e->dc.slew;
    int64_t step = dt > slew ? slew : dt < -slew ? -slew : dt;
    e->dc.anchor_local = local;     /* re-anchor: the rate may change below */
    e->dc.anchor_t = t;
    /* Rate, judged over a window of RATE_WINDOW: the steps taken in it plus the change
     * of what was left unstepped are exactly the drift over the window, whatever the
     * slew limit did (the writes' own timing errors cancel but for the two at its
     * ends). A long window because a master that writes its own time (reference
     * follows master) stamps it microseconds before the frame gets here: over one 1 ms
     * interval that alone would read as hundreds of ppm. Half the window's average goes
     * into the speed, at most RATE_STEP per window, so one late frame cannot throw the
     * clock off. */
    double rest = (double)(dt - step);
    if (!e->dc.have_last) {
        e->dc.win_dt = 0;
        e->dc.win_iv = 0;
        e->dc.win_r0 = rest;
        e->dc.have_last = true;
    } else {
        takt_ns_t iv = t - e->dc.last_write_t;
        if (iv > 0)
            e->dc.win_iv += iv;
        e->dc.win_dt += (double)step;
        if (e->dc.win_iv >= RATE_WINDOW) {
            double drift = e->dc.win_dt + rest - e->dc.win_r0;
            double d = 0.5 * drift * 1e9 / (double)e->dc.win_iv;
            d = d > RATE_STEP ? RATE_STEP : d < -RATE_STEP ? -RATE_STEP : d;
            double c = e->dc.corr_ppb - d;
            e->dc.corr_ppb = c > MAX_CORR_PPB ? MAX_CORR_PPB : c < -MAX_CORR_PPB ? -MAX_CORR_PPB : c;
            e->dc.win_dt = 0;
            e->dc.win_iv = 0;
            e->dc.win_r0 = rest;
        }
    }
    e->dc.anchor_local -= step;
    e->dc.last_write_t = t;
    e->dc_regs_stale = true;        /* 0x092C and 0x0932: esc_dc_sync_regs */
}
