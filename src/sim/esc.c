/* Software ESC: memory, power-on state, and the register access rules from the
 * EtherCAT side (which bits a master may write, and what a write sets off). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim/esc.h"
#include "sim/esc_foe.h"
#include "sim/esc_soe.h"
#include "sim/esc_eoe.h"
#include "util/wire.h"

/* Bits the EtherCAT side may write per register byte (ET1100/ET1200 register
 * descriptions, ESC datasheet Section II). Bytes absent here are read-only or unimplemented: a write
 * is ignored but still counts, as on a real ESC. SM and FMMU areas are handled
 * apart because their rules depend on state. */
static const uint8_t wmask[ESC_REGS] = {
    [0x0010 ... 0x0011] = 0xFF,             /* configured station address */
    [0x0100 ... 0x0103] = 0xFF,             /* DL control (0x0103 bit 0 alias enable) */
    [0x0108 ... 0x0109] = 0xFF,             /* physical read/write offset */
    [0x0120] = 0x3F, [0x0121] = 0xFF,       /* AL control */
    [0x0200 ... 0x0201] = 0xFF,             /* ECAT event mask */
    [0x0400 ... 0x0401] = 0xFF,             /* watchdog divider */
    [0x0410 ... 0x0411] = 0xFF,             /* watchdog time PDI */
    [0x0420 ... 0x0421] = 0xFF,             /* watchdog time process data */
    [0x0500] = 0x01,                        /* SII access owner */
    [0x0502] = 0x01, [0x0503] = 0x07,       /* SII write enable, command */
    [0x0504 ... 0x0507] = 0xFF,             /* SII address */
    [0x0508 ... 0x050F] = 0xFF,             /* SII data (for writes) */
    [0x0920 ... 0x092B] = 0xFF,             /* system time offset, delay */
    [0x0930 ... 0x0931] = 0xFF,             /* speed counter start */
    [0x0934 ... 0x0935] = 0xFF,             /* filter depths */
    [0x0980 ... 0x0981] = 0xFF,             /* cyclic unit control, activation */
    [0x0990 ... 0x0997] = 0xFF,             /* SYNC0 start time */
    [0x09A0 ... 0x09A7] = 0xFF,             /* SYNC0/SYNC1 cycle */
    [0x09A8 ... 0x09A9] = 0xFF,             /* latch control */
    [0x0F80 ... 0x0FFF] = 0xFF,             /* user RAM (ESC datasheet Section I 17.3.1) */
};

/* Register ranges whose writes have effects beyond storing bits. */
enum hook { H_NONE, H_AL, H_ERRCNT, H_EPUCNT, H_LOSTLINK, H_WDCNT, H_SII, H_DC_LATCH, H_DC_TIME,
            H_DC_FILTER, H_CACHED, H_SYNC0, H_COUNT };

int esc_init(struct sim_esc *e, struct sim_device *dev, uint32_t ram, bool sii_read8,
             uint8_t *block)
{
    memset(e, 0, sizeof *e);
    if (!ram)
        ram = ESC_RAM_DEFAULT;
    if (ram > 0xF000)
        return -EINVAL;           /* ADO is 16 bits: RAM must end below 64 KiB */
    e->mem_size = ESC_REGS + ram;
    e->external = block != NULL;
    e->mem = block ? block : calloc(1, e->mem_size);
    e->stage = block ? block + e->mem_size : calloc(1, ram);
    e->mbx_reply = calloc(1, ram);
    e->mbx_last = calloc(1, ram);
    e->sii_read8 = sii_read8;
    if (!e->mem || !e->stage || !e->mbx_reply || !e->mbx_last || esc_set_device(e, dev) != 0) {
        esc_free(e);
        return -ENOMEM;
    }
    return 0;
}

/* The device behind the ESC and what the ESC takes from it: the EEPROM image, the
 * SyncManager and FMMU counts, DC. Also when a device is swapped in on a live network. */
int esc_set_device(struct sim_esc *e, struct sim_device *dev)
{
    uint8_t *sii = NULL;
    size_t rom = 0;
    if (dev && dev->sii && dev->sii_len) {
        /* The EEPROM is as big as word 0x3E says ((KiBit + 1) x 128 bytes), erased
         * (0xFF) beyond the image, so a master can write more than was built. */
        size_t img = dev->sii_len & ~(size_t)1;
        rom = img;
        if (img > 2 * SII_W_SIZE + 1) {
            size_t kbit = (size_t)(dev->sii[2 * SII_W_SIZE] | dev->sii[2 * SII_W_SIZE + 1] << 8);
            if ((kbit + 1) * 128 > rom && (kbit + 1) * 128 <= 65536)
                rom = (kbit + 1) * 128;
        }
        sii = malloc(rom);
        if (!sii)
            return -ENOMEM;
        memset(sii, 0xFF, rom);
        memcpy(sii, dev->sii, img);
    }
    free(e->sii);
    e->sii = sii;
    e->sii_bytes = rom;
    e->dev = dev;
    e->desc = dev ? dev->desc : NULL;
    e->n_sm = e->desc && e->desc->n_sm_hw ? e->desc->n_sm_hw : 8;
    e->n_fmmu = e->desc && e->desc->n_fmmu_hw ? e->desc->n_fmmu_hw : 8;
    if (e->n_sm > SIM_MAX_SM)
        e->n_sm = SIM_MAX_SM;
    if (e->n_fmmu > SIM_MAX_FMMU)
        e->n_fmmu = SIM_MAX_FMMU;
    e->sm_out = e->sm_in = -1;
    for (unsigned i = 0; e->desc && i < e->desc->n_sm && i < SIM_MAX_SM; i++) {
        if (e->desc->sm[i].type == SIM_SM_OUTPUTS && e->sm_out < 0)
            e->sm_out = (int8_t)i;
        if (e->desc->sm[i].type == SIM_SM_INPUTS && e->sm_in < 0)
            e->sm_in = (int8_t)i;
    }
    e->dc.present = !e->desc || (e->desc->features & 0x0004);
    return 0;
}

void esc_free(struct sim_esc *e)
{
    if (!e->external) {
        free(e->mem);
        free(e->stage);
    }
    free(e->mbx_reply);
    free(e->mbx_last);
    free(e->mbx_prev);
    esc_foe_free(e);
    esc_soe_free(e);
    esc_eoe_free(e);
    free(e->sii);
    e->mem = e->stage = e->mbx_reply = e->mbx_last = e->mbx_prev = e->sii = NULL;
}

void esc_update_dl_status(struct sim_esc *e)
{
    /* 0x0110: bit 0 PDI operational (EEPROM loaded), bit 1 PDI watchdog reloaded,
     * bits 4-7 physical link port 0-3, per port n bit 8+2n loop closed and bit 9+2n
     * communication established (ETG.1000.4 DL status). */
    uint16_t s = 0x0002;
    if (!(esc_reg16(e, ESC_SII_CTRL) & SII_ERR_CSUM))
        s |= 0x0001;
    for (unsigned p = 0; p < 4; p++) {
        if (e->times.open & (1u << p))
            s |= (uint16_t)(1u << (4 + p) | 1u << (9 + 2 * p));
        else
            s |= (uint16_t)(1u << (8 + 2 * p));
    }
    put_le16(e->mem + ESC_DL_STATUS, s);
}

void esc_reset(struct sim_esc *e, takt_ns_t now)
{
    const struct sim_device_desc *d = e->desc;
    /* a device that outlives the reset (not rebuilt) learns it is back in INIT */
    if (e->al_state && e->al_state != AL_INIT && e->dev && e->dev->ops->al_change)
        (void)e->dev->ops->al_change(e->dev, e->al_state, AL_INIT, e->mem, now);
    uint32_t ram = e->mem_size - ESC_REGS;
    memset(e->mem, 0, e->mem_size);
    memset(e->stage, 0, ram);
    memset(e->sm, 0, sizeof e->sm);
    e->n_map = 0;
    e->mbx_reply_len = e->mbx_last_len = e->mbx_prev_len = 0;
    e->pdi_work = e->pd_touched = e->sii_cmd_pending = false;
    e->pd_valid = false;
    e->mbx_cnt = e->mbx_rx_cnt = 0;
    e->mem[ESC_TYPE] = d && d->esc_type ? (uint8_t)d->esc_type : 0x11;
    e->mem[ESC_REVISION] = 0x00;
    put_le16(e->mem + ESC_BUILD, 0x0003);
    e->mem[ESC_FMMU_COUNT] = (uint8_t)e->n_fmmu;
    e->mem[ESC_SM_COUNT] = (uint8_t)e->n_sm;
    e->mem[ESC_RAM_SIZE] = (uint8_t)(ram / 1024);
    e->mem[ESC_PORT_DESC] = 0x0F;                  /* ports 0 and 1: MII (ESC datasheet Section II, 0x0007) */
    put_le16(e->mem + ESC_FEATURES, d ? d->features : 0x01CC);
    e->mem[ESC_DL_CONTROL] = 0x01;                 /* forwarding rule */
    put_le16(e->mem + ESC_AL_CONTROL, AL_INIT);
    put_le16(e->mem + ESC_AL_STATUS, AL_INIT);
    put_le16(e->mem + ESC_WD_DIVIDER, 0x09C2);     /* 2498: (2498+2) x 40 ns = 100 us */
    put_le16(e->mem + ESC_WD_TIME_PDI, 0x03E8);
    put_le16(e->mem + ESC_WD_TIME_PD, 0x03E8);     /* 1000 x 100 us = 100 ms */
    /* read-only bits of 0x0502 (ESC datasheet section II, SII control/status): bit 6 the
     * read size (8 or 4 bytes), bit 7 the address algorithm, two address bytes for an
     * EEPROM over 16 KiBit */
    put_le16(e->mem + ESC_SII_CTRL, (uint16_t)((e->sii_read8 ? SII_READ8 : 0) |
                                               (e->sii_bytes > 2048 ? SII_ADDR2B : 0)));
    put_le16(e->mem + ESC_DC_SPEED_START, 0x1000);
    e->mem[ESC_DC_DIFF_FILTER] = 0x04;
    e->mem[ESC_DC_SPEED_FILTER] = 0x0C;
    e->al_state = AL_INIT;
    e->dc.anchor_t = now;
    e->dc.anchor_local = e->clock_offset + now;
    e->dc.corr_ppb = 0;
    e->dc.have_last = false;
    e->dc.filt = 0;
    e->dc_regs_stale = false;       /* the memset cleared 0x092C/0x0932 ... */
    e->sm_stat_stale = 0;           /* ... and the SM status bytes */
    e->dc.sync0_start = 0;
    esc_sii_load(e);
    esc_cache_regs(e);
    esc_sm_apply_pdi(e);
    esc_update_dl_status(e);
}

void esc_cache_regs(struct sim_esc *e)
{
    e->station = esc_reg16(e, ESC_STATION_ADDR);
    e->alias = esc_reg16(e, ESC_STATION_ALIAS);
    e->alias_en = e->mem[0x0103] & 0x01;
    uint16_t div = esc_reg16(e, ESC_WD_DIVIDER), cnt = esc_reg16(e, ESC_WD_TIME_PD);
    e->wd_pd_ns = (takt_ns_t)cnt * (div + 2) * 40;
    e->wd_ok = e->mem[ESC_WD_STATUS_PD] & 0x01;
    e->dc.offset = get_le64(e->mem + ESC_DC_SYS_OFFSET);
    e->dc.delay = get_le32(e->mem + ESC_DC_SYS_DELAY);
    e->dc.slew = esc_reg16(e, ESC_DC_SPEED_START) & 0x7FFF;
    e->dc_depth = e->mem[ESC_DC_DIFF_FILTER] & 0x0F;
    e->dc.filt_gain = 1.0 / (double)(1u << e->dc_depth);
}

static enum hook hook_of(uint32_t a)
{
    if (a >= 0x0120 && a <= 0x0121) return H_AL;
    if (a >= 0x0300 && a <= 0x030B) return H_ERRCNT;
    if (a == ESC_EPU_ERR || a == ESC_PDI_ERR) return H_EPUCNT;
    if (a >= 0x0310 && a <= 0x0313) return H_LOSTLINK;
    if (a >= 0x0442 && a <= 0x0443) return H_WDCNT;
    if (a >= 0x0502 && a <= 0x0503) return H_SII;
    if (a == 0x0900) return H_DC_LATCH;
    if (a >= 0x0910 && a <= 0x0917) return H_DC_TIME;
    if (a >= 0x0930 && a <= 0x0935) return H_DC_FILTER;
    if (a >= 0x0990 && a <= 0x0997) return H_SYNC0;
    if ((a >= 0x0010 && a <= 0x0013) || a == 0x0103 || (a >= 0x0400 && a <= 0x0401) ||
        (a >= 0x0420 && a <= 0x0421) || (a >= 0x0920 && a <= 0x092B))
        return H_CACHED;
    return H_NONE;
}

static bool dc_range(uint32_t a) { return a >= 0x0900 && a < 0x0A00; }

/* Register part of a write. Effects run after all bytes are stored, as the ESC
 * commits a frame's writes only after checking it. */
static bool reg_write(struct sim_esc *e, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t)
{
    bool hooks[H_COUNT] = { false };
    bool any = false, fmmu = false;
    uint32_t t_off = 0, t_n = 0;
    int sii_old = -1;
    uint8_t sii_new = 0;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t a = adr + i;
        if (dc_range(a) && !e->dc.present)
            continue;                 /* no DC unit: not executed, not counted */
        any = true;
        if (a >= ESC_SM0 && a < ESC_SM0 + ESC_SM_SIZE * SIM_MAX_SM) {
            if (a < ESC_SM0 + ESC_SM_SIZE * e->n_sm)
                esc_sm_reg_write(e, a, in[i]);
            continue;
        }
        if (a >= ESC_FMMU0 && a < ESC_FMMU0 + ESC_FMMU_SIZE * e->n_fmmu) {
            if ((a - ESC_FMMU0) % ESC_FMMU_SIZE < 13) {
                e->mem[a] = in[i];
                fmmu = true;
            }
            continue;
        }
        if (a == ESC_SII_CONFIG) {
            sii_old = e->mem[a];      /* bit 1 (force) acts, it is not stored */
            sii_new = in[i];
        }
        enum hook h = hook_of(a);
        if (h == H_SII && e->sii_cmd_pending)
            continue;                 /* busy: a new command is ignored (ETG.1000.4 SII access) */
        hooks[h] = true;
        if (h == H_DC_TIME) {
            if (!t_n)
                t_off = a - ESC_DC_SYS_TIME;
            t_n++;
            continue;                 /* the written value feeds the control loop */
        }
        e->mem[a] = (uint8_t)((e->mem[a] & ~wmask[a]) | (in[i] & wmask[a]));
    }
    if (fmmu)
        esc_fmmu_rebuild(e);
    if (hooks[H_ERRCNT])              /* a write to any error counter clears them all */
        memset(e->mem + 0x0300, 0, 0x0C);
    /* 0x030C and 0x030D are cleared each by a write to itself (Section II 3.35/3.36) */
    for (uint32_t a = ESC_EPU_ERR; hooks[H_EPUCNT] && a <= ESC_PDI_ERR; a++)
        if (a >= adr && a < adr + len)
            e->mem[a] = 0;
    if (hooks[H_LOSTLINK])
        memset(e->mem + 0x0310, 0, 4);
    if (hooks[H_WDCNT])
        memset(e->mem + 0x0442, 0, 2);
    if (hooks[H_CACHED] || hooks[H_DC_FILTER])
        esc_cache_regs(e);
    if (hooks[H_SYNC0])
        e->dc.sync0_start = get_le64(e->mem + ESC_DC_SYNC0_START);
    if (hooks[H_DC_LATCH])
        esc_dc_latch(e);
    if (hooks[H_DC_TIME])
        esc_dc_time_write(e, in + (ESC_DC_SYS_TIME + t_off - adr), t_off, t_n, t);
    if (hooks[H_DC_FILTER])
        esc_dc_reset_filter(e, t);
    if (sii_old >= 0)
        esc_sii_owner(e, (uint8_t)sii_old, sii_new);
    if (hooks[H_SII])
        esc_sii_command(e);
    if (hooks[H_AL])
        esc_al_control(e, t);
    return any;
}

void esc_sync_mem(struct sim_esc *e)
{
    esc_dc_sync_regs(e);
    for (unsigned n = 0; e->sm_stat_stale; n++)
        if (e->sm_stat_stale & (1u << n)) {
            e->mem[ESC_SM0 + ESC_SM_SIZE * n + 5] = e->sm[n].status;   /* byte 5: status */
            e->sm_stat_stale &= (uint8_t)~(1u << n);
        }
}

static bool reg_read(struct sim_esc *e, uint32_t adr, uint8_t *out, uint32_t len, bool or_into, takt_ns_t t)
{
    uint32_t lo = adr, hi = adr + len;
    if (e->sm_stat_stale && lo < ESC_SM0 + ESC_SM_SIZE * SIM_MAX_SM && hi > ESC_SM0)
        esc_sync_mem(e);
    if (!e->dc.present) {
        /* Without a DC unit the 0x09xx block does not answer. */
        if (lo >= 0x0900 && hi <= 0x0A00)
            return false;
    } else if (lo < 0x0A00 && hi > 0x0900) {
        esc_dc_read_refresh(e, adr, len, t);
    }
    for (uint32_t i = 0; i < len; i++) {
        uint32_t a = adr + i;
        uint8_t v = (dc_range(a) && !e->dc.present) ? 0 : e->mem[a];
        out[i] = or_into ? (uint8_t)(out[i] | v) : v;
    }
    return true;
}

bool esc_read(struct sim_esc *e, uint32_t adr, uint8_t *out, uint32_t len, bool or_into, takt_ns_t t)
{
    bool any = false;
    if (adr == ESC_DC_SYS_TIME && len <= 8 && !or_into && e->dc.present) {
        /* hot path: the reference clock read of ARMW/FRMW */
        uint8_t v[8];
        put_le64(v, esc_dc_systime(e, t));
        memcpy(out, v, len);
        return true;
    }
    if (adr < ESC_REGS) {
        uint32_t n = len < ESC_REGS - adr ? len : ESC_REGS - adr;
        any = reg_read(e, adr, out, n, or_into, t);
        adr += n;
        out += n;
        len -= n;
    }
    if (len)
        any |= esc_ram_read(e, adr, out, len, or_into, t);
    return any;
}

bool esc_write(struct sim_esc *e, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t)
{
    bool any = false;
    if (adr == ESC_DC_SYS_TIME && (len == 4 || len == 8)) {
        /* hot path: cyclic drift compensation (ARMW/FRMW/FPWR on 0x0910) */
        if (!e->dc.present)
            return false;
        esc_dc_time_write(e, in, 0, len, t);
        return true;
    }
    if (adr < ESC_REGS) {
        uint32_t n = len < ESC_REGS - adr ? len : ESC_REGS - adr;
        any = reg_write(e, adr, in, n, t);
        adr += n;
        in += n;
        len -= n;
    }
    if (len)
        any |= esc_ram_write(e, adr, in, len, t);
    return any;
}

void esc_pdi(struct sim_esc *e, takt_ns_t t)
{
    e->pdi_work = false;
    if (e->sii_cmd_pending)
        esc_sii_complete(e);
    if (e->mbx_active)
        esc_mbx_pdi(e, t);
    if (e->pd_touched) {
        e->pd_touched = false;
        /* Skip a call that would change nothing: outputs and the input buffer as the
         * last call left them (no SM change, reset or write since) and the device
         * says its state and inputs would stay (DI counter between steps, DO).
         * pd_valid means the last call happened with this SM layout and device, so
         * this test can come before the checks that call passed. */
        if (e->pd_valid && !e->pd_dirty && !e->reference && !e->no_process &&
            e->dev->ops->pd_idle && e->dev->ops->pd_idle(e->dev, t))
            return;
        const struct esc_sm *so = e->sm_out >= 0 ? &e->sm[e->sm_out] : NULL;
        const struct esc_sm *si = e->sm_in >= 0 ? &e->sm[e->sm_in] : NULL;
        bool out_ok = so && so->active && so->end <= e->mem_size;
        bool in_ok = si && si->active && si->end <= e->mem_size;
        if (!(out_ok || in_ok) || e->no_process || !e->dev || !e->dev->ops->process) {
            e->pd_valid = false;
            return;
        }
        struct sim_device *d = e->dev;
        e->pd_dirty = false;
        e->pd_valid = !esc_pd_overlap(e);
        d->ops->process(d, out_ok ? e->mem + so->start : NULL, out_ok ? so->len : 0,
                        in_ok ? e->mem + si->start : NULL, in_ok ? si->len : 0, t);
    }
}

void esc_tick(struct sim_esc *e, takt_ns_t t)
{
    esc_al_watchdog(e, t);
}
