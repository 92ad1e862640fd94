/* Distributed clocks of the software ESC (ETG.1000.4; ESC datasheet Section I): a local clock with its own drift,
 * receive-time latches, system time = local + offset, and the time-control loop a
 * write to 0x0910 drives (KickCAT dcTimeLoopWrite shape: bounded slew per write,
 * filtered difference in 0x092C), plus a rate correction like the ESC speed counter. */
#include <math.h>
#include <stdlib.h>
#include "sim/esc_hot.h"
#include "util/wire.h"

int64_t esc_dc_local(const struct sim_esc *e, takt_ns_t t)
{
    return esc_dc_local_i(e, t);
}

/* Re-anchor before changing the rate so the clock stays continuous. */
static void reanchor(struct sim_esc *e, takt_ns_t t)
{
    e->dc.anchor_local = esc_dc_local_i(e, t);
    e->dc.anchor_t = t;
}

uint64_t esc_dc_systime(const struct sim_esc *e, takt_ns_t t)
{
    return (uint64_t)esc_dc_local_i(e, t) + e->dc.offset;
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
     * they had (ETG.1000.4 distributed clocks, receive times). 0x0918 is the processing unit's time (port 0 in a
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
    /* 0x092C: bit 31 set when local >= received, bits 0-30 magnitude (ESC datasheet Section II, 0x092C). */
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
    esc_dc_time_write_i(e, val, off, n, t);
}
