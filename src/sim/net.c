/* The simulated EtherCAT network: a frame passes the reachable slaves in position
 * order (the tree walked in port order 0-3-1-2, net_topo.c) and back; every
 * datagram is executed with its addressing and working-counter rule (ETG.1000.4 commands and working counter);
 * malformed frames are dropped and counted in the RX error counters (ETG.1000.4 RX error counters). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ecat/frame.h"
#include "sim/esc_hot.h"
#include "sim/device_ext.h"
#include "sim/net.h"
#include "util/wire.h"

void takt_sim_opts_default(struct takt_sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ram_bytes = ESC_RAM_DEFAULT;
    o->fwd_delay_ns = 500;
    o->drift_ppm = 50;
    o->seed = 1;
}

uint32_t sim_net_rand(struct takt_sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return (uint32_t)(s->rng >> 32);
}

/* Distance between two ESC blocks in the arena: whole cache lines, and an odd number
 * of them. Blocks a power-of-two multiple of lines apart would put the same register
 * (SM status, DC, process data) of every slave into the same few cache sets, and
 * 1000 slaves would evict each other every frame. */
static size_t block_stride(uint32_t ram)
{
    size_t lines = (ESC_BLOCK(ram) + 63) / 64;
    return 64 * (lines | 1);
}

int sim_net_alloc(struct takt_sim **out, unsigned n, const struct takt_sim_opts *o)
{
    struct takt_sim *s = calloc(1, sizeof *s);
    if (!s || !n || !(s->sl = aligned_alloc(64, n * sizeof *s->sl)) || !(s->act = calloc(n, sizeof *s->act)) ||
        !(s->scr_child = calloc(4 * (size_t)n, sizeof *s->scr_child)) ||
        !(s->scr_stk = calloc(n, sizeof *s->scr_stk)) || !(s->scr_pi = calloc(n, 1)) ||
        !(s->scr_flag = calloc(n, 1))) {
        if (s) {
            free(s->sl);
            free(s->act);
            free(s->scr_child);
            free(s->scr_stk);
            free(s->scr_pi);
        }
        free(s);
        return n ? -ENOMEM : -EINVAL;
    }
    memset(s->sl, 0, n * sizeof *s->sl);
    if (o)
        s->opt = *o;
    else
        takt_sim_opts_default(&s->opt);
    if (!s->opt.fwd_delay_ns)
        s->opt.fwd_delay_ns = 500;
    s->n = n;
    s->rng = 0x9E3779B97F4A7C15ull ^ s->opt.seed;
    if (!s->opt.ram_bytes)
        s->opt.ram_bytes = ESC_RAM_DEFAULT;
    /* One arena for all ESC memories: 1000 slaves touch ~3000 pages per frame, which
     * 4 KiB TLB entries cannot cover; transparent huge pages can. */
    s->arena_len = ((size_t)n * block_stride(s->opt.ram_bytes) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    s->arena = mmap(NULL, s->arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s->arena == MAP_FAILED) {
        s->arena = NULL;
        free(s->act);
        free(s->scr_child);
        free(s->scr_stk);
        free(s->scr_pi);
        free(s->scr_flag);
        free(s->sl);
        free(s);
        return -ENOMEM;
    }
    madvise(s->arena, s->arena_len, MADV_HUGEPAGE);   /* a hint: fine if refused */
    for (unsigned k = 0; k < n; k++) {          /* a line until told otherwise */
        s->sl[k].parent = (int)k - 1;
        s->sl[k].pport = 1;
    }
    *out = s;
    return 0;
}

/* Clock of slave k: an offset of up to a few seconds and a drift inside +-drift_ppm,
 * reproducible from the seed, so no two ESCs agree until a master aligns them. */
int sim_net_add(struct takt_sim *s, unsigned pos, struct sim_device *dev, const char *name)
{
    struct sim_slave *sl = &s->sl[pos];
    int rc = esc_init(&sl->esc, dev, s->opt.ram_bytes, !s->opt.sii_read4,
                      s->arena + (size_t)pos * block_stride(s->opt.ram_bytes));
    if (rc)
        return rc;
    sl->dev = dev;
    sl->fwd = s->opt.fwd_delay_ns;
    snprintf(sl->name, sizeof sl->name, "%s", name ? name : (dev && dev->desc ? dev->desc->name : "?"));
    sl->esc.clock_offset = (int64_t)(sim_net_rand(s) % 4000000000u);
    if (s->opt.drift_ppm > 0)
        sl->esc.dc.drift_ppb = ((double)(sim_net_rand(s) % 2000001u) / 1000000.0 - 1.0) * s->opt.drift_ppm * 1000.0;
    esc_reset(&sl->esc, 0);
    return 0;
}

int takt_sim_set_fwd_delay(struct takt_sim *s, unsigned pos, takt_ns_t ns)
{
    if (pos >= s->n || ns < 0)
        return -EINVAL;
    s->sl[pos].fwd = ns;
    sim_net_topology(s, 0);
    return 0;
}

void takt_sim_destroy(struct takt_sim *s)
{
    if (!s)
        return;
    for (unsigned k = 0; k < s->n; k++) {
        esc_free(&s->sl[k].esc);
        if (s->sl[k].dev && s->sl[k].dev->ops && s->sl[k].dev->ops->destroy)
            s->sl[k].dev->ops->destroy(s->sl[k].dev);
    }
    if (s->arena)
        munmap(s->arena, s->arena_len);
    free(s->act);
    free(s->scr_child);
    free(s->scr_stk);
    free(s->scr_pi);
    free(s->scr_flag);
    free(s->act2);
    free(s->sl);
    free(s);
}

unsigned takt_sim_slave_count(const struct takt_sim *s) { return s->n; }

const char *takt_sim_slave_name(const struct takt_sim *s, unsigned pos)
{
    if (pos >= s->n)
        return NULL;
    /* devices loaded from a file path are shown by their ESI name */
    const struct sim_slave *sl = &s->sl[pos];
    return strchr(sl->name, '/') && sl->dev && sl->dev->desc ? sl->dev->desc->name : sl->name;
}

static inline void wkc_add(struct ecat_dg *dg, unsigned n)
{
    unsigned w = get_le16(dg->wkc) + n;
    put_le16(dg->wkc, (uint16_t)(w > 0xFFFF ? 0xFFFF : w));
}

static inline takt_ns_t at(const struct takt_sim *s, unsigned k, takt_ns_t now)
{
    return now + s->sl[k].t_in;
}

/* Set the times this slave latches for the frame now passing it (each port's). */
static inline void pass(struct takt_sim *s, unsigned k, takt_ns_t now)
{
    const struct sim_slave *sl = &s->sl[k];
    struct sim_esc *e = &s->sl[k].esc;
    for (unsigned p = 0; p < 4; p++)
        e->times.port[p] = now + sl->t_port[p];
}

static inline bool fp_match(const struct sim_esc *e, uint16_t adp)
{
    /* Alias only when DL control bit 24 (0x0103 bit 0) is set (ETG.1000.4 DL control). */
    return e->station == adp || (e->alias_en && e->alias == adp);
}

/* One slave executes a physical-address datagram: r/w bits, OR-ing for broadcast. */
static unsigned phys(struct takt_sim *s, unsigned k, struct ecat_dg *dg, bool rd, bool wr,
                     bool bcast, takt_ns_t now)
{
    struct sim_esc *e = &s->sl[k].esc;
    takt_ns_t t = at(s, k, now);
    unsigned w = 0;
    /* the port times matter only to the latch a write to 0x0900 triggers (ETG.1000.4 distributed clocks, receive times) */
    if (wr && dg->ado <= ESC_DC_RECV_TIME0 && dg->ado + dg->len > ESC_DC_RECV_TIME0)
        pass(s, k, now);
    if (rd && wr) {
        memcpy(s->scratch, dg->data, dg->len);   /* write what arrived, read the old */
        if (esc_read(e, dg->ado, dg->data, dg->len, bcast, t))
            w += 1;
        if (esc_write(e, dg->ado, s->scratch, dg->len, t))
            w += 2;
    } else if (rd) {
        w = esc_read(e, dg->ado, dg->data, dg->len, bcast, t) ? 1 : 0;
    } else if (wr) {
        w = esc_write(e, dg->ado, dg->data, dg->len, t) ? 1 : 0;
    }
    return w;
}

/* ARMW/FRMW on the system time (0x0910, 4 or 8 bytes), the cyclic DC datagram: the
 * addressed slave's time is read, every other slave's control loop is fed. The same
 * as phys() with esc_read/esc_write's 0x0910 branches, without the generic walk. */
static unsigned dc_rmw(struct takt_sim *s, struct ecat_dg *dg, takt_ns_t now)
{
    unsigned r = s->reach, w = 0;
    uint16_t adp = dg->adp;
    bool fp = dg->cmd == ECAT_FRMW;
    for (unsigned i = 0; i < r; i++, adp++) {
        unsigned k = s->act[i];
        struct sim_esc *e = &s->sl[k].esc;
        bool me = fp ? fp_match(e, dg->adp) : adp == 0;
        if (!e->dc.present)
            continue;               /* no DC unit: neither read nor written */
        if (me) {
            uint8_t v[8];
            put_le64(v, esc_dc_systime(e, at(s, k, now)));
            memcpy(dg->data, v, dg->len);
        } else {
            esc_dc_time_write_i(e, dg->data, 0, dg->len, at(s, k, now));
        }
        w++;
    }
    if (!fp)
        put_le16(dg->hdr + 2, adp);
    return w;
}

static void exec_dg(struct takt_sim *s, struct ecat_dg *dg, takt_ns_t now)
{
    unsigned r = s->reach, w = 0;
    uint16_t adp = dg->adp;
    uint8_t c = dg->cmd;
    if (!s->reference && (c == ECAT_FRMW || c == ECAT_ARMW) && dg->ado == ESC_DC_SYS_TIME && (dg->len == 4 || dg->len == 8))
        c = ECAT_NOP, w = dc_rmw(s, dg, now);
    switch (c) {
    case ECAT_APRD: case ECAT_APWR: case ECAT_APRW: case ECAT_ARMW:
        /* Every slave increments ADP; the one that sees 0 executes (ETG.1000.4 commands and working counter). */
        for (unsigned i = 0; i < r; i++, adp++) {
            if (c == ECAT_ARMW)
                w += phys(s, s->act[i], dg, adp == 0, adp != 0, false, now);
            else if (adp == 0)
                w += phys(s, s->act[i], dg, c != ECAT_APWR, c != ECAT_APRD, false, now);
        }
        put_le16(dg->hdr + 2, adp);
        break;
    case ECAT_FPRD: case ECAT_FPWR: case ECAT_FPRW: case ECAT_FRMW:
        for (unsigned i = 0; i < r; i++) {
            unsigned k = s->act[i];
            bool me = fp_match(&s->sl[k].esc, adp);
            if (c == ECAT_FRMW)
                w += phys(s, k, dg, me, !me, false, now);
            else if (me)
                w += phys(s, k, dg, c != ECAT_FPWR, c != ECAT_FPRD, false, now);
        }
        break;
    case ECAT_BRD: case ECAT_BWR: case ECAT_BRW:
        for (unsigned i = 0; i < r; i++, adp++)
            w += phys(s, s->act[i], dg, c != ECAT_BWR, c != ECAT_BRD, true, now);
        put_le16(dg->hdr + 2, adp);
        break;
    case ECAT_LRD: case ECAT_LWR: case ECAT_LRW:
        for (const unsigned *k = s->act, *end = k + r; k < end; k++) {
            struct sim_slave *sl = &s->sl[*k];
            struct sim_esc *e = &sl->esc;
            if (!e->n_map)
                continue;
            unsigned d = e->n_map == 1 && e->map[0].aligned && !e->reference
                       ? esc_logical1(e, c, dg->lad, dg->data, dg->len, now + sl->t_in)
                       : esc_logical(e, c, dg->lad, dg->data, dg->len, now + sl->t_in);
            /* LRD/LWR count 1; LRW counts read 1 + write 2 (ETG.1000.4 commands and working counter). */
            w += c == ECAT_LRW ? ((d & 1) ? 1u : 0u) + ((d & 2) ? 2u : 0u) : (d ? 1u : 0u);
        }
        break;
    default:                        /* NOP: nobody executes */
        break;
    }
    if (w)
        wkc_add(dg, w);
}

static void count_up(uint8_t *m)
{
    if (*m < 0xFF)
        (*m)++;                     /* error counters saturate at 0xFF */
}

/* Where a broken frame is counted (Beckhoff ESC datasheet Section I, 14 "Error
 * counters", Tables 50/51). The ESC that finds the error spoils the frame's FCS and
 * marks it; every later ESC counts it as forwarded error on port 0 (0x0308), and
 * since it passes their processing unit, also in 0x030C. The first ESC counts a bad
 * FCS (fcs = true) in its port 0 invalid-frame counter 0x0300 and 0x030C; a bad
 * datagram structure (length errors, unknown command) is found by the processing
 * unit alone: 0x030C. */
static void count_rx_error(struct takt_sim *s, bool fcs)
{
    for (unsigned i = 0; i < s->reach; i++) {
        uint8_t *m = s->sl[s->act[i]].esc.mem;
        if (i > 0)
            count_up(m + ESC_FWD_ERR0);
        else if (fcs)
            count_up(m + ESC_RX_ERR);
        count_up(m + ESC_EPU_ERR);
    }
}

/* The whole frame is checked before anything executes: an ESC commits a frame's
 * writes only once the frame proved good. */
static int validate(uint8_t *buf, size_t len)
{
    struct ecat_dg dg;
    size_t pos;
    int rc = ecat_frame_first(buf, len, &dg, &pos);
    unsigned n = 0;
    while (rc == 0) {
        if (dg.cmd >= ECAT_CMD_COUNT)
            return -EPROTO;
        if (dg.len > ECAT_MAX_DG_DATA)
            return -EMSGSIZE;       /* longer than any standard frame can carry */
        n++;
        rc = ecat_frame_next(buf, len, &dg, &pos);
    }
    return rc < 0 ? rc : (int)n;
}

static void corrupt(struct takt_sim *s, uint8_t *buf, size_t len)
{
    if (len <= ECAT_ETH_HDR + ECAT_FRAME_HDR)
        return;
    size_t i = ECAT_ETH_HDR + ECAT_FRAME_HDR + sim_net_rand(s) % (len - ECAT_ETH_HDR - ECAT_FRAME_HDR);
    buf[i] ^= (uint8_t)(1u << (sim_net_rand(s) % 8));
}

static bool chance(struct takt_sim *s, double p)
{
    return p > 0 && (double)sim_net_rand(s) / 4294967296.0 < p;
}

size_t takt_sim_process(struct takt_sim *s, uint8_t *buf, size_t len, size_t cap,
                        takt_ns_t now, takt_ns_t *delay_ns)
{
    (void)cap;
    if (delay_ns)
        *delay_ns = 0;
    s->st.frames++;
    if (!s->have_t0) {
        s->have_t0 = true;
        s->t0 = now;
    }
    sim_net_events(s, now);
    if (len < ECAT_ETH_HDR + ECAT_FRAME_HDR || get_be16(buf + 12) != 0x88A4 ||
        (get_le16(buf + ECAT_ETH_HDR) >> 12) != ECAT_FRAME_TYPE_DG) {
        s->st.not_ecat++;
        return 0;
    }
    if (!s->reach) {
        s->st.lost++;
        return 0;
    }
    if (chance(s, s->p_drop)) {
        s->st.dropped++;
        return 0;
    }
    if (chance(s, s->p_crc)) {
        /* a bit error on the wire: slave 1 sees a bad FCS, the frame is lost */
        s->st.crc++;
        count_rx_error(s, true);
        return 0;
    }
    int n = validate(buf, len);
    if (n < 0) {
        s->st.malformed++;
        count_rx_error(s, false);
        return 0;
    }
    struct ecat_dg dg;
    size_t pos;
    int rc = ecat_frame_first(buf, len, &dg, &pos);
    while (rc == 0) {
        s->st.datagrams++;
        exec_dg(s, &dg, now);
        rc = ecat_frame_next(buf, len, &dg, &pos);
    }
    for (const unsigned *k = s->act, *end = k + s->reach; k < end; k++) {
        struct sim_slave *sl = &s->sl[*k];
        struct sim_esc *e = &sl->esc;
        if (e->pdi_work && !esc_pdi_idle(e, now + sl->t_in))
            esc_pdi(e, now + sl->t_in);
        /* the watchdog's own first test, inline: most cycles it has not expired */
        if (e->al_state == AL_OP && e->sm_out >= 0 && e->sm[e->sm_out].wd &&
            now + sl->t_in - e->sm[e->sm_out].last_commit > e->wd_pd_ns)
            esc_al_watchdog(e, now + sl->t_in);
    }
    buf[6] |= 0x02;                 /* U/L bit on the way back (ESC datasheet Section I, frame processing) */
    if (chance(s, s->p_corrupt)) {
        s->st.corrupted++;
        corrupt(s, buf, len);
    }
    if (s->delay && delay_ns) {
        *delay_ns = s->delay;
        s->st.delayed++;
    }
    s->st.replies++;
    return len;
}

void takt_sim_tick(struct takt_sim *s, takt_ns_t now)
{
    if (s->have_t0)
        sim_net_events(s, now);
    for (unsigned i = 0; i < s->reach; i++)
        esc_tick(&s->sl[s->act[i]].esc, now);
    for (unsigned i = 0; s->ring && i < s->reach2; i++)
        esc_tick(&s->sl[s->act2[i]].esc, now);
}

void takt_sim_get_stats(const struct takt_sim *s, struct takt_sim_stats *st)
{
    *st = s->st;
    st->reachable = s->reach;
}

unsigned takt_sim_echo_stats(const struct takt_sim *s, struct takt_sim_echo_stats *st)
{
    unsigned n = 0;
    *st = (struct takt_sim_echo_stats){ 0 };
    for (unsigned k = 0; k < s->n; k++) {
        struct sim_echo e;
        if (!sim_device_echo_get(s->sl[k].dev, &e))
            continue;
        if (n++ == 0)
            st->frames = e.frame;
        st->echoes += e.echoes;
        if (e.stale && !st->stale) {
            st->stale_first_age = e.stale_first_age;
            st->stale_first_frame = e.stale_first_frame;
        }
        st->stale += e.stale;
        st->age_max = e.age_max > st->age_max ? e.age_max : st->age_max;
    }
    return n;
}

int takt_sim_peek(const struct takt_sim *s, unsigned pos, uint16_t adr, void *buf, size_t len)
{
    if (pos >= s->n || (size_t)adr + len > s->sl[pos].esc.mem_size)
        return -EINVAL;
    esc_sync_mem(&((struct takt_sim *)s)->sl[pos].esc);  /* memory as a read shows it */
    memcpy(buf, s->sl[pos].esc.mem + adr, len);
    return 0;
}

int takt_sim_set_clock(struct takt_sim *s, unsigned pos, int64_t offset_ns, double drift_ppm)
{
    if (pos >= s->n)
        return -EINVAL;
    struct sim_esc *e = &s->sl[pos].esc;
    esc_dc_sync_regs(e);            /* 0x0932 keeps the rate it showed */
    e->clock_offset = offset_ns;
    e->dc.drift_ppb = drift_ppm * 1000.0;
    e->dc.anchor_t = 0;
    e->dc.anchor_local = offset_ns;
    e->dc.corr_ppb = 0;
    return 0;
}

int takt_sim_create_devices(struct sim_device **devs, unsigned n, const struct takt_sim_opts *o,
                            struct takt_sim **out)
{
    struct takt_sim *s;
    *out = NULL;
    int rc = sim_net_alloc(&s, n, o);
    if (rc)
        return rc;
    for (unsigned k = 0; k < n; k++) {
        rc = sim_net_add(s, k, devs[k], NULL);
        if (rc) {
            /* the network owns the devices: free the ones not yet added too */
            for (unsigned j = k; j < n; j++)
                if (devs[j] && devs[j]->ops->destroy)
                    devs[j]->ops->destroy(devs[j]);
            takt_sim_destroy(s);
            return rc;
        }
    }
    s->reach = n;
    sim_net_topology(s, 0);
    *out = s;
    return 0;
}
