/* The software ESC's per-frame hot path as inline functions (internal to src/sim):
 * process-data SM access and whole-byte FMMU transfers, shared by esc_sm.c and the
 * network's LRW loop so the common case costs no calls. */
#ifndef TAKT_SIM_ESC_HOT_H
#define TAKT_SIM_ESC_HOT_H

#include <string.h>
#include "sim/esc.h"
#include "util/wire.h"

#define HOT static inline __attribute__((always_inline))
#define ESC_SM_STATUS_OFF 5           /* SM register byte 5: status (ETG.1000.4 SyncManager) */

/* Process images are a few bytes: loops beat library calls. */
static inline bool esc_bytes_differ(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return true;
    return false;
}

static inline void esc_copy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    if (n > 32) {
        memcpy(dst, src, n);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* The SM access bodies (esc_sm_read/esc_sm_write wrap them). */
HOT bool esc_sm_read_i(struct sim_esc *e, unsigned n, uint32_t adr, uint8_t *out, uint32_t len, bool or_into)
{
    struct esc_sm *s = &e->sm[n];
    uint8_t *st = e->mem + ESC_SM0 + ESC_SM_SIZE * n + ESC_SM_STATUS_OFF;
    if (s->mode == ESC_SM_MBX) {
        /* Only a full read mailbox can be read; reading its last byte empties it. */
        if (s->ecat_writes || !(*st & ESC_SM_STAT_FULL))
            return false;
        if (adr + len >= s->end) {
            *st &= (uint8_t)~ESC_SM_STAT_FULL;
            e->pdi_work = true;
        }
    } else if (n == (unsigned)e->sm_in || n == (unsigned)e->sm_out) {
        e->pd_touched = true;
        e->pdi_work = true;
    }
    const uint8_t *src = e->mem + adr;
    for (uint32_t i = 0; i < len; i++)
        out[i] = or_into ? (uint8_t)(out[i] | src[i]) : src[i];
    return true;
}

HOT bool esc_sm_write_i(struct sim_esc *e, unsigned n, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t)
{
    struct esc_sm *s = &e->sm[n];
    uint8_t *st = e->mem + ESC_SM0 + ESC_SM_SIZE * n + ESC_SM_STATUS_OFF;
    if (!s->ecat_writes)
        return false;
    if (s->mode == ESC_SM_MBX) {
        if (*st & ESC_SM_STAT_FULL)
            return false;             /* write to a full mailbox: not executed */
        memcpy(e->mem + adr, in, len);
        if (adr + len >= s->end) {
            *st |= ESC_SM_STAT_FULL;
            e->pdi_work = true;
        }
        return true;
    }
    /* 3-buffer: stage until the last byte arrives, then commit the whole buffer so the
     * PDI side never sees a torn write. */
    uint8_t *stage = e->stage + (s->start - ESC_REGS);
    /* Outputs that change (or any write into the input SM) make the next process()
     * run; rewriting the same outputs lets an idle device be skipped. */
    bool pd = n == (unsigned)e->sm_out || n == (unsigned)e->sm_in;
    if (adr == s->start && len == s->len) {
        /* the whole buffer in one access (the usual case): no staging copy needed */
        esc_copy(stage, in, len);
        if (pd && !e->pd_dirty && (n != (unsigned)e->sm_out || esc_bytes_differ(e->mem + adr, in, len)))
            e->pd_dirty = true;
        esc_copy(e->mem + adr, in, len);
    } else {
        esc_copy(e->stage + (adr - ESC_REGS), in, len);
        if (adr + len >= s->end) {
            if (pd && !e->pd_dirty && (n != (unsigned)e->sm_out || esc_bytes_differ(e->mem + s->start, stage, s->len)))
                e->pd_dirty = true;
            esc_copy(e->mem + s->start, stage, s->len);
        }
    }
    if (adr + len >= s->end) {
        s->last_commit = t;
        /* status from the shadow: the hot path only stores to the register line */
        uint8_t b = (uint8_t)((s->status >> 4) + 1);
        s->status = (uint8_t)((s->status & ~0x30) | (b >= 3 ? 0 : b) << 4 | 0x01);
        e->sm_stat_stale |= (uint8_t)(1u << n);   /* the register line: esc_sync_mem */
        if (!e->wd_ok) {
            e->mem[ESC_WD_STATUS_PD] |= 0x01;
            e->wd_ok = true;
        }
    }
    if (pd) {
        e->pd_touched = true;
        e->pdi_work = true;
    }
    return true;
}

/* A whole-byte FMMU straight into its SM buffer: what fmmu_xfer's aligned branch does,
 * in byte arithmetic (the datagram always starts on a byte). */
HOT bool esc_fmmu_bytes(struct sim_esc *e, const struct esc_fmmu_map *m, uint32_t lad, uint8_t *data,
                       uint16_t len, bool write, takt_ns_t t)
{
    if (!(m->type & (write ? ESC_FMMU_W : ESC_FMMU_R)))
        return false;
    uint64_t a = m->log0 > lad ? m->log0 : lad;
    uint64_t b = m->log_end < (uint64_t)lad + len ? m->log_end : (uint64_t)lad + len;
    if (a >= b)
        return false;
    uint32_t pa = m->phys0 + (uint32_t)(a - m->log0), n = (uint32_t)(b - a);
    return write ? esc_sm_write_i(e, (unsigned)m->sm, pa, data + (a - lad), n, t)
                 : esc_sm_read_i(e, (unsigned)m->sm, pa, data + (a - lad), n, false);
}

/* LRW/LRD/LWR on an ESC whose only FMMU is a whole-byte one (most I/O terminals):
 * esc_logical's result without its loops. */
HOT unsigned esc_logical1(struct sim_esc *e, uint8_t cmd, uint32_t lad, uint8_t *data, uint16_t len, takt_ns_t t)
{
    const struct esc_fmmu_map *m = &e->map[0];
    unsigned done = 0;
    if (cmd != ECAT_LRD && esc_fmmu_bytes(e, m, lad, data, len, true, t))
        done |= 2;              /* writes first, as in esc_logical (LRW order) */
    if (cmd != ECAT_LWR && esc_fmmu_bytes(e, m, lad, data, len, false, t))
        done |= 1;
    return done;
}

/* esc_pdi's path when all a frame left is process data of an idle device (no SII
 * command, no mailbox): returns false when esc_pdi must run. */
HOT bool esc_pdi_idle(struct sim_esc *e, takt_ns_t t)
{
    if (!e->pd_touched || e->sii_cmd_pending || e->mbx_active || !e->pd_valid || e->pd_dirty ||
        e->reference || e->no_process || !e->dev->ops->pd_idle || !e->dev->ops->pd_idle(e->dev, t))
        return false;
    e->pdi_work = e->pd_touched = false;
    return true;
}

/* The DC unit's local clock and its time-control loop, fed by every 0x0910 write: the
 * cyclic FRMW feeds every slave each frame (net.c dc_rmw), so no call per slave. */
#define ESC_DC_MAX_CORR_PPB 500000.0          /* speed counter range, +-500 ppm */
#define ESC_DC_RATE_WINDOW (128 * 1000000LL)  /* ns of writes the rate is judged over */
#define ESC_DC_RATE_STEP 25000.0              /* ppb change per window at most */

/* Local time: anchor plus elapsed time scaled by drift and correction. */
HOT int64_t esc_dc_local_i(const struct sim_esc *e, takt_ns_t t)
{
    int64_t dt = t - e->dc.anchor_t;
    double adj = (double)dt * (e->dc.drift_ppb + e->dc.corr_ppb) * 1e-9;
    return e->dc.anchor_local + dt + (int64_t)(adj < 0 ? adj - 0.5 : adj + 0.5);
}

HOT void esc_dc_time_write_i(struct sim_esc *e, const uint8_t *val, unsigned off, unsigned n, takt_ns_t t)
{
    if (off != 0 || (n != 4 && n != 8))
        return;                     /* partial writes feed nothing */
    int64_t local = esc_dc_local_i(e, t);
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
    /* Rate, judged over a window of ESC_DC_RATE_WINDOW: the steps taken in it plus the change
     * of what was left unstepped are exactly the drift over the window, whatever the
     * slew limit did (the writes' own timing errors cancel but for the two at its
     * ends). A long window because a master that writes its own time (reference
     * follows master) stamps it microseconds before the frame gets here: over one 1 ms
     * interval that alone would read as hundreds of ppm. Half the window's average goes
     * into the speed, at most ESC_DC_RATE_STEP per window, so one late frame cannot throw the
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
        if (e->dc.win_iv >= ESC_DC_RATE_WINDOW) {
            double drift = e->dc.win_dt + rest - e->dc.win_r0;
            double d = 0.5 * drift * 1e9 / (double)e->dc.win_iv;
            d = d > ESC_DC_RATE_STEP ? ESC_DC_RATE_STEP : d < -ESC_DC_RATE_STEP ? -ESC_DC_RATE_STEP : d;
            double c = e->dc.corr_ppb - d;
            e->dc.corr_ppb = c > ESC_DC_MAX_CORR_PPB ? ESC_DC_MAX_CORR_PPB : c < -ESC_DC_MAX_CORR_PPB ? -ESC_DC_MAX_CORR_PPB : c;
            e->dc.win_dt = 0;
            e->dc.win_iv = 0;
            e->dc.win_r0 = rest;
        }
    }
    e->dc.anchor_local -= step;
    e->dc.last_write_t = t;
    e->dc_regs_stale = true;        /* 0x092C and 0x0932: esc_dc_sync_regs */
}

#endif
