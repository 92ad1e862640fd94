/* AL state machine of the software ESC (ETG.1000.6 6.4): the checks slave
 * firmware makes on each requested transition, AL status codes with the error flag
 * held until acknowledged, and the SM watchdog that drops OP to SAFEOP. */
#include <string.h>
#include "sim/esc.h"
#include "util/wire.h"

enum { SM_CTRL = 4, SM_ACT = 6 };

static uint8_t *sm_reg(struct sim_esc *e, unsigned n) { return e->mem + ESC_SM0 + ESC_SM_SIZE * n; }

static void set_status(struct sim_esc *e, uint8_t state, bool err, uint16_t code)
{
    put_le16(e->mem + ESC_AL_STATUS, (uint16_t)(state | (err ? AL_ERROR : 0)));
    put_le16(e->mem + ESC_AL_STATUS_CODE, code);
}

void esc_al_set_error(struct sim_esc *e, uint8_t state, uint16_t code, takt_ns_t t)
{
    uint8_t old = e->al_state;
    e->al_state = state;
    if (state != old) {
        if (state == AL_INIT)
            esc_mbx_clear(e);
        esc_sm_apply_pdi(e);
        /* the device follows the ESC's own step down; it has no say in it */
        if (e->dev && e->dev->ops->al_change)
            (void)e->dev->ops->al_change(e->dev, old, state, e->mem, t);
    }
    set_status(e, state, true, code);
}

/* ETG.1000.6 Table 8: allowed transitions (same-state requests are always fine). */
static bool allowed(uint8_t from, uint8_t to)
{
    if (from == to || to == AL_INIT)
        return true;
    switch (from) {
    case AL_INIT:   return to == AL_PREOP || to == AL_BOOT;
    case AL_PREOP:  return to == AL_SAFEOP;
    case AL_SAFEOP: return to == AL_PREOP || to == AL_OP;
    case AL_OP:     return to == AL_PREOP || to == AL_SAFEOP;
    default:        return false;   /* BOOT leaves only to INIT */
    }
}

static bool has_mailbox(const struct sim_esc *e)
{
    if (!e->desc)
        return false;
    for (unsigned i = 0; i < e->desc->n_sm; i++)
        if (e->desc->sm[i].type == SIM_SM_MBX_OUT || e->desc->sm[i].type == SIM_SM_MBX_IN)
            return true;
    return false;
}

/* A mailbox SM as the firmware wants it: enabled, 1-buffer, right direction, inside
 * process RAM, big enough for a mailbox header. */
static bool mbx_sm_ok(struct sim_esc *e, unsigned n, bool ecat_writes)
{
    const uint8_t *r = sm_reg(e, n);
    uint16_t start = get_le16(r), len = get_le16(r + 2);
    return (r[SM_ACT] & 0x01) && (r[SM_CTRL] & 0x03) == ESC_SM_MBX &&
           (((r[SM_CTRL] >> 2) & 0x03) == 1) == ecat_writes &&
           len >= MBX_HDR + 2 && start >= ESC_REGS && (uint32_t)start + len <= e->mem_size;
}

static uint16_t check_mailbox(struct sim_esc *e)
{
    if (!has_mailbox(e))
        return 0;
    if (e->n_sm < 2 || !mbx_sm_ok(e, 0, true) || !mbx_sm_ok(e, 1, false))
        return 0x0016;
    uint16_t s0 = get_le16(sm_reg(e, 0)), l0 = get_le16(sm_reg(e, 0) + 2);
    uint16_t s1 = get_le16(sm_reg(e, 1)), l1 = get_le16(sm_reg(e, 1) + 2);
    if (s0 < s1 + l1 && s1 < s0 + l0)
        return 0x0016;              /* overlapping mailboxes */
    return 0;
}

/* INIT -> BOOT: SM0/SM1 must be mailboxes exactly where SII words 0x14-0x17 put the
 * bootstrap mailbox (ETG.1000.6 AL status 0x0015 "invalid mailbox configuration" in
 * BOOT; 0x0016 is the same for PREOP). */
static uint16_t check_boot_mailbox(struct sim_esc *e)
{
    if (e->sii_bytes < 2 * (SII_W_BOOT_TX_SIZE + 1) || e->n_sm < 2 ||
        !mbx_sm_ok(e, 0, true) || !mbx_sm_ok(e, 1, false))
        return 0x0015;
    for (unsigned n = 0; n < 2; n++) {
        const uint8_t *r = sm_reg(e, n), *w = e->sii + 2 * (SII_W_BOOT_RX_OFF + 2 * n);
        if (get_le16(r) != get_le16(w) || get_le16(r + 2) != get_le16(w + 2))
            return 0x0015;
    }
    return 0;
}

/* Is the SM at physical start covered by an active FMMU of the given direction? */
static bool fmmu_covers(const struct sim_esc *e, uint16_t start, uint8_t type)
{
    for (unsigned n = 0; n < e->n_fmmu; n++) {
        const uint8_t *f = e->mem + ESC_FMMU0 + ESC_FMMU_SIZE * n;
        uint16_t ps = get_le16(f + 8), len = get_le16(f + 4);
        if ((f[12] & 1) && (f[11] & type) && start >= ps && start < ps + len)
            return true;
    }
    return false;
}

static uint16_t check_pd_sm(struct sim_esc *e, int n, size_t want, bool out)
{
    uint16_t code = out ? 0x001D : 0x001E;
    if (n < 0 || !want)
        return 0;
    const uint8_t *r = sm_reg(e, (unsigned)n);
    uint16_t start = get_le16(r), len = get_le16(r + 2);
    uint8_t mode = e->desc->sm[n].control & 0x03;
    if (!(r[SM_ACT] & 0x01) || len != want || (r[SM_CTRL] & 0x03) != mode ||
        ((((r[SM_CTRL] >> 2) & 0x03) == 1) != out) ||
        start < ESC_REGS || (uint32_t)start + len > e->mem_size)
        return code;
    if (!fmmu_covers(e, start, out ? ESC_FMMU_W : ESC_FMMU_R))
        return code;
    return 0;
}

static uint16_t check_process_data(struct sim_esc *e)
{
    size_t out = 0, in = 0;
    if (!e->dev || !e->dev->ops->pd_sizes)
        return 0;
    e->dev->ops->pd_sizes(e->dev, &out, &in);
    uint16_t c = check_pd_sm(e, e->sm_out, out, true);
    return c ? c : check_pd_sm(e, e->sm_in, in, false);
}

static uint16_t check_dc(struct sim_esc *e)
{
    if (!e->desc || !e->desc->dc_required)
        return 0;
    /* SYNC0 must be on: cyclic operation + SYNC0 (0x0981 bits 0,1) and a cycle time. */
    if ((e->mem[ESC_DC_ACTIVATION] & 0x03) != 0x03 || !get_le32(e->mem + ESC_DC_SYNC0_CYCLE))
        return 0x0030;
    return 0;
}

static uint16_t check_transition(struct sim_esc *e, uint8_t from, uint8_t to, takt_ns_t t)
{
    uint16_t c = 0;
    if (to == AL_BOOT && from == AL_INIT &&
        !(e->sii_bytes > 2 * SII_W_BOOT_RX_SIZE + 1 && get_le16(e->sii + 2 * SII_W_BOOT_RX_SIZE)))
        return 0x0013;
    if (to == AL_BOOT && from == AL_INIT)
        c = check_boot_mailbox(e);
    if (from == AL_INIT && to == AL_PREOP)
        c = check_mailbox(e);
    if (!c && from == AL_PREOP && to == AL_SAFEOP) {
        c = check_process_data(e);
        if (!c)
            c = check_dc(e);
    }
    if (!c && from != to && e->fault.refuse_state == to)
        c = e->fault.refuse_code;
    if (!c && from != to && e->dev && e->dev->ops->al_change)
        c = e->dev->ops->al_change(e->dev, from, to, e->mem, t);
    return c;
}

static bool known_state(uint8_t s)
{
    return s == AL_INIT || s == AL_PREOP || s == AL_BOOT || s == AL_SAFEOP || s == AL_OP;
}

void esc_al_control(struct sim_esc *e, takt_ns_t t)
{
    esc_sync_mem(e);                  /* the device's checks read ESC memory */
    uint16_t ctl = esc_reg16(e, ESC_AL_CONTROL);
    uint8_t to = ctl & AL_STATE_MASK, from = e->al_state;
    bool ack = ctl & AL_ACK;
    bool err = esc_reg16(e, ESC_AL_STATUS) & AL_ERROR;

    if (e->mem[ESC_ESC_CONFIG] & 0x01) {
        /* Device emulation (0x0141 bit 0): AL status follows AL control; the
         * device model is told, but has no say (there is no firmware). An injected
         * refusal (takt_sim_fault refuse=) applies all the same: it is the fault
         * asked for, a slave that stays where it is with the error flag. */
        if (to != from && e->fault.refuse_state == to) {
            esc_al_set_error(e, from, e->fault.refuse_code, t);
            return;
        }
        if (to != from && known_state(to) && e->dev && e->dev->ops->al_change)
            (void)e->dev->ops->al_change(e->dev, from, to, e->mem, t);
        if (to == AL_OP && e->al_state != AL_OP)
            for (unsigned n = 0; n < e->n_sm; n++)
                e->sm[n].last_commit = t;
        e->al_state = to;
        set_status(e, to, false, 0);
        esc_sm_apply_pdi(e);
        return;
    }
    if (err && !ack && to > from)
        return;                     /* an error must be acknowledged before going up */
    if (ack)
        err = false;
    if (!known_state(to)) {
        esc_al_set_error(e, from, 0x0012, t);
        return;
    }
    if (!allowed(from, to)) {
        esc_al_set_error(e, from, 0x0011, t);
        return;
    }
    uint16_t code = check_transition(e, from, to, t);
    if (code) {
        /* A refused step leaves the state as it was, with the error flag. */
        esc_al_set_error(e, from, code, t);
        return;
    }
    e->al_state = to;
    if (to == AL_INIT)
        esc_mbx_clear(e);
    if (to == AL_OP)
        for (unsigned n = 0; n < e->n_sm; n++)
            e->sm[n].last_commit = t;   /* the watchdog starts with OP */
    esc_sm_apply_pdi(e);
    set_status(e, to, err, err ? esc_reg16(e, ESC_AL_STATUS_CODE) : 0);
    if ((ctl & AL_ID_REQ) && !err) {
        /* Explicit device identification (ETG.1000.6): the ID (here the station
         * alias from the SII) in 0x0134 and "ID loaded" (bit 5) in AL status. */
        put_le16(e->mem + ESC_AL_STATUS, (uint16_t)(to | AL_ID_REQ));
        put_le16(e->mem + ESC_AL_STATUS_CODE, esc_reg16(e, ESC_STATION_ALIAS));
    }
}

/* Process-data watchdog (ESC datasheet Section II, 0x0400/0x0420): time = 0x0420 x (0x0400 + 2) x 40 ns.
 * An output SM with the watchdog trigger bit that sees no complete write for that
 * long expires (0x0440 bit 0 cleared, 0x0442 counts). With firmware, OP drops to
 * SAFEOP + ERROR, AL status code 0x001B; in device emulation (no firmware) the ESC
 * only resets the outputs, the AL state stays with the master. */
void esc_al_watchdog(struct sim_esc *e, takt_ns_t t)
{
    if (e->sm_out < 0 || e->al_state != AL_OP)
        return;
    const struct esc_sm *s = &e->sm[e->sm_out];
    if (!s->active || !s->wd || !e->wd_pd_ns || t - s->last_commit <= e->wd_pd_ns)
        return;
    bool emulation = e->mem[ESC_ESC_CONFIG] & 0x01;
    if (emulation && !(e->mem[ESC_WD_STATUS_PD] & 0x01))
        return;                     /* already expired, nothing more happens */
    e->mem[ESC_WD_STATUS_PD] &= (uint8_t)~0x01;
    e->wd_ok = false;
    if (e->mem[ESC_WD_COUNTER_PD] < 0xFF)
        e->mem[ESC_WD_COUNTER_PD]++;
    if (emulation) {
        memset(e->mem + s->start, 0, s->len);
        e->pd_touched = e->pdi_work = e->pd_dirty = true;
        return;
    }
    esc_al_set_error(e, AL_SAFEOP, 0x001B, t);
}
