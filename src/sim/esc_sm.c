/* SyncManagers and FMMUs of the software ESC (ETG.1000.4 SyncManager and FMMU): who may touch process RAM,
 * mailbox full/empty rules, 3-buffer outputs that never tear, and the precomputed
 * FMMU maps the logical commands run through. */
#include <string.h>
#include "sim/esc.h"
#include "sim/esc_hot.h"
#include "util/wire.h"

/* SM register byte offsets (ETG.1000.4 SyncManager) */
enum { SM_START = 0, SM_LEN = 2, SM_CTRL = 4, SM_STATUS = 5, SM_ACT = 6, SM_PDI = 7 };
/* FMMU register byte offsets (ETG.1000.4 FMMU) */
enum { FM_LSTART = 0, FM_LEN = 4, FM_LSBIT = 6, FM_LEBIT = 7, FM_PSTART = 8, FM_PSBIT = 10,
       FM_TYPE = 11, FM_ACT = 12 };

static uint8_t *sm_reg(struct sim_esc *e, unsigned n) { return e->mem + ESC_SM0 + ESC_SM_SIZE * n; }

void esc_sm_refresh(struct sim_esc *e, unsigned n)
{
    const uint8_t *r = sm_reg(e, n);
    struct esc_sm *s = &e->sm[n];
    bool was = s->active;
    e->pd_valid = false;              /* layout may change: the next process() runs */
    s->start = get_le16(r + SM_START);
    s->len = get_le16(r + SM_LEN);
    s->end = (uint32_t)s->start + s->len;
    s->mode = r[SM_CTRL] & 0x03;
    s->ecat_writes = ((r[SM_CTRL] >> 2) & 0x03) == 1;
    s->wd = (r[SM_CTRL] & 0x40) != 0;
    s->active = (r[SM_ACT] & 0x01) && !(r[SM_PDI] & 0x01) && s->len &&
                s->start >= ESC_REGS && s->end <= e->mem_size;
    e->mbx_active = (uint8_t)((e->mbx_active & ~(1u << n)) |
                              ((s->active && s->mode == ESC_SM_MBX) ? 1u << n : 0));
    if (s->active != was) {
        /* (De)activation empties the buffer state (ESC datasheet, SM activate). */
        sm_reg(e, n)[SM_STATUS] = 0;
        s->status = 0;
        e->sm_stat_stale &= (uint8_t)~(1u << n);
        if (s->mode != ESC_SM_MBX)
            memset(e->stage + (s->active ? s->start - ESC_REGS : 0), 0, s->active ? s->len : 0);
    }
}

static void pdi_gate(struct sim_esc *e, unsigned n);

void esc_sm_reg_write(struct sim_esc *e, uint32_t adr, uint8_t v)
{
    unsigned n = (adr - ESC_SM0) / ESC_SM_SIZE, off = (adr - ESC_SM0) % ESC_SM_SIZE;
    uint8_t *r = sm_reg(e, n);
    if (off <= SM_CTRL) {
        /* Start, length and control are locked while the SM is enabled. */
        if (!(r[SM_ACT] & 0x01))
            r[off] = v;
    } else if (off == SM_ACT) {
        r[off] = (uint8_t)(v & 0xC3);   /* enable, repeat request, latch events */
    } else {
        return;                         /* status and PDI control are read-only */
    }
    pdi_gate(e, n);
    esc_sm_refresh(e, n);
    esc_fmmu_rebuild(e);
    e->pdi_work = true;                 /* repeat request, activation: PDI looks */
}

/* The PDI deactivates SMs the current AL state does not allow: mailbox SMs from
 * PREOP, process-data SMs from SAFEOP (what slave firmware does; KickCAT
 * processInternalLogic). */
static void pdi_gate(struct sim_esc *e, unsigned n)
{
    uint8_t *r = sm_reg(e, n), st = e->al_state;
    bool mbx = (r[SM_CTRL] & 0x03) == ESC_SM_MBX;
    bool allow = mbx ? (st != AL_INIT) : (st == AL_SAFEOP || st == AL_OP);
    r[SM_PDI] = (uint8_t)((r[SM_PDI] & ~0x01) | (allow ? 0 : 0x01));
}

void esc_sm_apply_pdi(struct sim_esc *e)
{
    for (unsigned n = 0; n < e->n_sm; n++) {
        pdi_gate(e, n);
        esc_sm_refresh(e, n);
    }
    esc_fmmu_rebuild(e);
}

void esc_fmmu_rebuild(struct sim_esc *e)
{
    e->n_map = 0;
    e->map_types = 0;
    for (unsigned n = 0; n < e->n_fmmu; n++) {
        const uint8_t *f = e->mem + ESC_FMMU0 + ESC_FMMU_SIZE * n;
        uint16_t len = get_le16(f + FM_LEN);
        uint8_t type = f[FM_TYPE] & 0x03;
        if (!(f[FM_ACT] & 0x01) || !len || !type)
            continue;
        struct esc_fmmu_map *m = &e->map[e->n_map++];
        uint8_t sb = f[FM_LSBIT] & 7, eb = f[FM_LEBIT] & 7;
        m->log_bit0 = (uint64_t)get_le32(f + FM_LSTART) * 8 + sb;
        /* The last byte's end bit is inclusive: len bytes from start bit to end bit. */
        m->log_bit_end = ((uint64_t)get_le32(f + FM_LSTART) + len - 1) * 8 + eb + 1;
        if (m->log_bit_end <= m->log_bit0) {
            e->n_map--;
            continue;
        }
        m->phys_bit0 = (uint32_t)get_le16(f + FM_PSTART) * 8 + (f[FM_PSBIT] & 7);
        m->type = type;
        /* Precompute the SM the whole physical span lies in, for the fast path. */
        uint32_t p0 = m->phys_bit0 >> 3, p1 = (uint32_t)((m->phys_bit0 + (m->log_bit_end - m->log_bit0) - 1) >> 3);
        m->sm = -1;
        for (unsigned k = 0; k < e->n_sm; k++)
            if (e->sm[k].active && p0 >= e->sm[k].start && p1 < e->sm[k].end)
                m->sm = (int8_t)k;
        m->aligned = m->sm >= 0 && !(m->log_bit0 & 7) && !(m->log_bit_end & 7) && !(m->phys_bit0 & 7);
        m->phys0 = m->phys_bit0 >> 3;
        m->log0 = m->log_bit0 >> 3;
        m->log_end = m->log_bit_end >> 3;
        e->map_types |= m->type;
    }
}

/* True when a process-data SM shares bytes with another active SM or runs in
 * mailbox mode: then mailbox traffic could change its bytes, and process() is
 * never skipped. */
bool esc_pd_overlap(const struct sim_esc *e)
{
    for (int p = 0; p < 2; p++) {
        int k = p ? e->sm_in : e->sm_out;
        if (k < 0 || !e->sm[k].active)
            continue;
        if (e->sm[k].mode == ESC_SM_MBX)
            return true;
        for (unsigned n = 0; n < e->n_sm; n++)
            if ((int)n != k && e->sm[n].active && e->sm[n].start < e->sm[k].end &&
                e->sm[k].start < e->sm[n].end)
                return true;
    }
    return false;
}

static int sm_find(const struct sim_esc *e, uint32_t adr)
{
    for (unsigned n = 0; n < e->n_sm; n++)
        if (e->sm[n].active && adr >= e->sm[n].start && adr < e->sm[n].end)
            return (int)n;
    return -1;
}

bool esc_sm_read(struct sim_esc *e, unsigned n, uint32_t adr, uint8_t *out, uint32_t len, bool or_into)
{
    return esc_sm_read_i(e, n, adr, out, len, or_into);
}

bool esc_sm_write(struct sim_esc *e, unsigned n, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t)
{
    return esc_sm_write_i(e, n, adr, in, len, t);
}

/* Walk [adr, adr+len) of process RAM, SM window by SM window; bytes outside an
 * active SM are not executed (ETG.1000.4 SyncManager: RAM only through SM windows). */
bool esc_ram_read(struct sim_esc *e, uint32_t adr, uint8_t *out, uint32_t len, bool or_into, takt_ns_t t)
{
    bool any = false;
    uint32_t end = adr + len;
    while (adr < end && adr < e->mem_size) {
        int n = sm_find(e, adr);
        if (n < 0) {
            adr++;
            out++;
            continue;
        }
        uint32_t stop = e->sm[n].end < end ? e->sm[n].end : end;
        any |= esc_sm_read(e, (unsigned)n, adr, out, stop - adr, or_into);
        out += stop - adr;
        adr = stop;
    }
    return any;
}

bool esc_ram_write(struct sim_esc *e, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t)
{
    bool any = false;
    uint32_t end = adr + len;
    while (adr < end && adr < e->mem_size) {
        int n = sm_find(e, adr);
        if (n < 0) {
            adr++;
            in++;
            continue;
        }
        uint32_t stop = e->sm[n].end < end ? e->sm[n].end : end;
        any |= esc_sm_write(e, (unsigned)n, adr, in, stop - adr, t);
        in += stop - adr;
        adr = stop;
    }
    return any;
}

/* The byte a bit-granular FMMU write modifies: the staged output buffer where there
 * is one, so unmapped bits of a shared byte keep what the master wrote last. */
static uint8_t peek_for_write(struct sim_esc *e, uint32_t pa)
{
    if (pa >= ESC_REGS && pa < e->mem_size) {
        int n = sm_find(e, pa);
        if (n >= 0 && e->sm[n].mode != ESC_SM_MBX)
            return e->stage[pa - ESC_REGS];
    }
    return pa < e->mem_size ? e->mem[pa] : 0;
}

static inline unsigned get_bit(const uint8_t *b, uint64_t i) { return (b[i >> 3] >> (i & 7)) & 1u; }
static inline void put_bit(uint8_t *b, uint64_t i, unsigned v)
{
    b[i >> 3] = (uint8_t)((b[i >> 3] & ~(1u << (i & 7))) | (v << (i & 7)));
}

/* One FMMU over the datagram's logical bits [lo, hi): read (phys -> frame) or write
 * (frame -> phys). Byte-aligned spans go through memory-block access; other spans
 * bit by bit through a small window of physical bytes. */
static bool fmmu_xfer(struct sim_esc *e, const struct esc_fmmu_map *m, uint64_t dg_bit0,
                      uint8_t *data, uint64_t lo, uint64_t hi, bool write, takt_ns_t t)
{
    uint64_t pb = m->phys_bit0 + (lo - m->log_bit0);
    uint64_t fb = lo - dg_bit0;       /* bit offset inside the datagram data */
    uint64_t nbits = hi - lo;
    if (!(pb & 7) && !(fb & 7) && !(nbits & 7)) {
        uint32_t pa = (uint32_t)(pb >> 3), n = (uint32_t)(nbits >> 3);
        if (m->sm >= 0)             /* hot path: straight into the SM buffer */
            return write ? esc_sm_write(e, (unsigned)m->sm, pa, data + (fb >> 3), n, t)
                         : esc_sm_read(e, (unsigned)m->sm, pa, data + (fb >> 3), n, false);
        return write ? esc_write(e, pa, data + (fb >> 3), n, t)
                     : esc_read(e, pa, data + (fb >> 3), n, false, t);
    }
    /* Unaligned: work on the physical bytes the span covers, at most a datagram's. */
    uint32_t pa0 = (uint32_t)(pb >> 3), pa1 = (uint32_t)((pb + nbits - 1) >> 3);
    uint32_t np = pa1 - pa0 + 1;
    uint8_t win[ECAT_MAX_DG_DATA + 2];
    if (np > sizeof win)
        return false;
    if (write) {
        for (uint32_t i = 0; i < np; i++)
            win[i] = peek_for_write(e, pa0 + i);
        for (uint64_t i = 0; i < nbits; i++)
            put_bit(win, (pb & 7) + i, get_bit(data, fb + i));
        return esc_write(e, pa0, win, np, t);
    }
    if (!esc_read(e, pa0, win, np, false, t))
        return false;
    for (uint64_t i = 0; i < nbits; i++)
        put_bit(data, fb + i, get_bit(win, (pb & 7) + i));
    return true;
}

unsigned esc_logical(struct sim_esc *e, uint8_t cmd, uint32_t lad, uint8_t *data, uint16_t len, takt_ns_t t)
{
    uint64_t lo = (uint64_t)lad * 8, hi = lo + (uint64_t)len * 8;
    unsigned done = 0;
    /* LRW: writes take the data as it arrived, so they go first (ETG.1000.4 commands, LRW). */
    if ((cmd == ECAT_LWR || cmd == ECAT_LRW) && (e->map_types & ESC_FMMU_W)) {
        for (unsigned i = 0; i < e->n_map; i++) {
            const struct esc_fmmu_map *m = &e->map[i];
            if (m->aligned && !e->reference) {
                if (esc_fmmu_bytes(e, m, lad, data, len, true, t))
                    done |= 2;
                continue;
            }
            uint64_t a = m->log_bit0 > lo ? m->log_bit0 : lo;
            uint64_t b = m->log_bit_end < hi ? m->log_bit_end : hi;
            if (a < b && (m->type & ESC_FMMU_W) && fmmu_xfer(e, m, lo, data, a, b, true, t))
                done |= 2;
        }
    }
    if ((cmd == ECAT_LRD || cmd == ECAT_LRW) && (e->map_types & ESC_FMMU_R)) {
        for (unsigned i = 0; i < e->n_map; i++) {
            const struct esc_fmmu_map *m = &e->map[i];
            if (m->aligned && !e->reference) {
                if (esc_fmmu_bytes(e, m, lad, data, len, false, t))
                    done |= 1;
                continue;
            }
            uint64_t a = m->log_bit0 > lo ? m->log_bit0 : lo;
            uint64_t b = m->log_bit_end < hi ? m->log_bit_end : hi;
            if (a < b && (m->type & ESC_FMMU_R) && fmmu_xfer(e, m, lo, data, a, b, false, t))
                done |= 1;
        }
    }
    return done;
}
