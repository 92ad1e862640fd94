/* The simulator's fast paths (skipping process() of idle devices, the whole-byte FMMU
 * path, the DC ARMW/FRMW loop) against the reference path: the same random traffic
 * through two identical networks must give byte-identical frames and ESC memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "esc_testdev.h"
#include "sim/device_ext.h"

#define NETS "ek1100,el1004x3,el2004x3,el3102,servo,el2004,el1004"
#define OUT_BASE 0x10000u
#define IN_BASE  0x20000u
#define SHIFT_BASE 0x30000u            /* a bit-shifted second input FMMU of slave 1 */

struct pair { struct takt_sim *s[2]; uint32_t out_len, in_len; uint64_t rng; };

static uint32_t rnd(struct pair *p)
{
    p->rng ^= p->rng << 13;
    p->rng ^= p->rng >> 7;
    p->rng ^= p->rng << 17;
    return (uint32_t)(p->rng >> 32);
}

/* One frame of up to three datagrams, the same bytes into both networks; the
 * returned frames must be identical. */
struct dgspec { uint8_t cmd; uint32_t addr; uint16_t len; const uint8_t *data; };

static void both(struct pair *p, const struct dgspec *d, unsigned n, takt_ns_t now)
{
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t f[2][TAKT_FRAME_BUF];
    size_t pos = ecat_frame_begin(f[0], mac);
    for (unsigned i = 0; i < n; i++)
        assert_true(ecat_frame_add(f[0], sizeof f[0], &pos, d[i].cmd, (uint8_t)i, d[i].addr, d[i].len, d[i].data));
    size_t fl = ecat_frame_end(f[0], pos);
    memcpy(f[1], f[0], fl);
    size_t r0 = takt_sim_process(p->s[0], f[0], fl, sizeof f[0], now, NULL);
    size_t r1 = takt_sim_process(p->s[1], f[1], fl, sizeof f[1], now, NULL);
    assert_int_equal(r0, r1);
    assert_memory_equal(f[0], f[1], fl);
}

static void one(struct pair *p, uint8_t cmd, uint32_t addr, const void *data, uint16_t len, takt_ns_t now)
{
    struct dgspec d = { cmd, addr, len, data };
    both(p, &d, 1, now);
}

static void same_memory(struct pair *p)
{
    static uint8_t a[ESC_REGS + ESC_RAM_DEFAULT], b[sizeof a];
    for (unsigned k = 0; k < takt_sim_slave_count(p->s[0]); k++) {
        uint32_t n = p->s[0]->sl[k].esc.mem_size;
        assert_int_equal(takt_sim_peek(p->s[0], k, 0, a, n), 0);
        assert_int_equal(takt_sim_peek(p->s[1], k, 0, b, n), 0);
        assert_memory_equal(a, b, n);
        /* what the device saw: last outputs and every dictionary value */
        struct sim_dev *da = sim_dev_of(p->s[0]->sl[k].dev), *db = sim_dev_of(p->s[1]->sl[k].dev);
        size_t la = sim_device_outputs(&da->base, a, sizeof a), lb = sim_device_outputs(&db->base, b, sizeof b);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        assert_memory_equal(da->vals, db->vals, sizeof da->vals);
    }
}

/* What a master does: addresses, SMs from the description with the device's image
 * sizes, one whole-byte FMMU per direction, slave 1 also a bit-shifted input FMMU. */
static void configure(struct pair *p, takt_ns_t now)
{
    struct takt_sim *s = p->s[0];
    uint32_t lo = 0, li = 0;
    for (unsigned k = 0; k < s->n; k++) {
        uint16_t st = (uint16_t)(0x1001 + k);
        uint8_t a[2] = { (uint8_t)st, (uint8_t)(st >> 8) };
        one(p, ECAT_APWR, FP((uint16_t)-(int)k, ESC_STATION_ADDR), a, 2, now);
        size_t o = 0, i = 0;
        struct sim_device *dev = s->sl[k].dev;
        dev->ops->pd_sizes(dev, &o, &i);
        const struct sim_device_desc *d = dev->desc;
        unsigned f = 0;
        for (unsigned n = 0; n < d->n_sm; n++) {
            const struct sim_sm_desc *sm = &d->sm[n];
            bool w = sm->type == SIM_SM_OUTPUTS, r = sm->type == SIM_SM_INPUTS;
            uint16_t len = w ? (uint16_t)o : r ? (uint16_t)i : sm->len;
            if (!sm->type || !len)
                continue;
            uint8_t reg[8] = { 0 };
            put_le16(reg, sm->start);
            put_le16(reg + 2, len);
            reg[4] = sm->control;
            reg[6] = 1;
            one(p, ECAT_FPWR, FP(st, ESC_SM0 + 8 * n), reg, 8, now);
            for (int extra = 0; (w || r) && extra <= (k == 1 && r); extra++) {
                uint8_t fm[16] = { 0 };
                put_le32(fm, extra ? SHIFT_BASE : w ? OUT_BASE + lo : IN_BASE + li);
                put_le16(fm + 4, extra ? (uint16_t)(len + 1) : len);
                fm[6] = extra ? 3 : 0;          /* start bit 3: the bit-by-bit path */
                fm[7] = extra ? 2 : 7;
                put_le16(fm + 8, sm->start);
                fm[11] = w ? ESC_FMMU_W : ESC_FMMU_R;
                fm[12] = 1;
                one(p, ECAT_FPWR, FP(st, ESC_FMMU0 + 16 * f++), fm, 16, now);
            }
            lo += w ? len : 0;
            li += r ? len : 0;
        }
    }
    p->out_len = lo;
    p->in_len = li;
    static const uint8_t steps[] = { AL_PREOP, AL_SAFEOP, AL_OP };
    for (unsigned i = 0; i < sizeof steps; i++) {
        uint8_t v[2] = { (uint8_t)(steps[i] | 0x10), 0 };   /* with error acknowledge */
        one(p, ECAT_BWR, FP(0, ESC_AL_CONTROL), v, 2, now);
    }
}

static void traffic_step(struct pair *p, uint8_t *out, takt_ns_t now)
{
    uint32_t r = rnd(p);
    uint8_t in[256] = { 0 }, t8[8];
    uint16_t img = (uint16_t)(p->out_len + p->in_len);
    if (r % 4 == 0)                                 /* outputs change now and then */
        out[rnd(p) % p->out_len] ^= (uint8_t)(1u << (rnd(p) % 8));
    memcpy(in, out, p->out_len);
    put_le64(t8, now * 3);
    struct dgspec d[3] = {
        { ECAT_LRW, OUT_BASE, (uint16_t)p->out_len, in },
        { ECAT_LRD, IN_BASE, (uint16_t)p->in_len, NULL },
        { r & 0x10 ? ECAT_ARMW : ECAT_FRMW, r & 0x10 ? FP(0, ESC_DC_SYS_TIME) : FP(0x1001, ESC_DC_SYS_TIME),
          r & 0x20 ? 4 : 8, t8 },
    };
    switch ((r >> 8) % 8) {
    case 0:                                         /* one LRW over outputs and inputs */
        d[0].len = img;
        d[1] = (struct dgspec){ ECAT_LRD, SHIFT_BASE, 4, NULL };
        d[0].addr = OUT_BASE, d[1].cmd = ECAT_LRW;
        break;
    case 1: {                                       /* a part of the outputs, as LWR */
        uint16_t off = (uint16_t)(rnd(p) % p->out_len);
        d[0] = (struct dgspec){ ECAT_LWR, OUT_BASE + off, (uint16_t)(1 + rnd(p) % (p->out_len - off)), in + off };
        break;
    }
    case 2: {                                       /* outputs written physically */
        unsigned k = rnd(p) % p->s[0]->n;
        int so = p->s[0]->sl[k].esc.sm_out;
        if (so >= 0)
            d[1] = (struct dgspec){ ECAT_FPWR, FP(0x1001 + k, p->s[0]->sl[k].esc.sm[so].start), 1, in };
        break;
    }
    case 3:                                         /* a register read over the line */
        d[1] = (struct dgspec){ ECAT_BRD, FP(0, (uint16_t)(0x0130 + rnd(p) % 0x900)), 8, NULL };
        break;
    case 4:                                         /* latch receive times (DC after it) */
        d[1] = (struct dgspec){ ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), 4, NULL };
        break;
    default:
        break;
    }
    both(p, d, 3, now);
    if ((r >> 8) % 8 == 4) {                        /* what the latch saw */
        struct dgspec l = { ECAT_BRD, FP(0, ESC_DC_RECV_TIME0), 16, NULL };
        both(p, &l, 1, now);
    }
}

static void disturb(struct pair *p, takt_ns_t now)
{
    uint32_t r = rnd(p);
    unsigned k = rnd(p) % p->s[0]->n;
    uint16_t st = (uint16_t)(0x1001 + k);
    if (r % 3 == 0) {                               /* SM2/SM3 off and on again */
        uint8_t v = 0, on = 1;
        unsigned n = 2 + rnd(p) % 2;
        one(p, ECAT_FPWR, FP(st, ESC_SM0 + 8 * n + 6), &v, 1, now);
        one(p, ECAT_FPWR, FP(st, ESC_SM0 + 8 * n + 6), &on, 1, now);
    } else if (r % 3 == 1) {                        /* a state change and back to OP */
        uint8_t v[2] = { AL_SAFEOP, 0 }, op[2] = { AL_OP, 0 };
        one(p, ECAT_FPWR, FP(st, ESC_AL_CONTROL), v, 2, now);
        one(p, ECAT_FPWR, FP(st, ESC_AL_CONTROL), op, 2, now);
    } else {
        assert_int_equal(takt_sim_power_cycle(p->s[0], k, now), 0);
        assert_int_equal(takt_sim_power_cycle(p->s[1], k, now), 0);
    }
}

static uint64_t processed(struct takt_sim *s)
{
    uint64_t n = 0;
    for (unsigned k = 0; k < s->n; k++)
        n += sim_dev_of(s->sl[k].dev)->n_process;
    return n;
}

static void fast_equals_reference(void **state)
{
    (void)state;
    struct pair p = { .rng = 0x2545F4914F6CDD1Dull };
    char err[256];
    for (int i = 0; i < 2; i++)
        assert_int_equal(takt_sim_create(NETS, NULL, &p.s[i], err, sizeof err), 0);
    struct takt_sim *ref = p.s[1];
    ref->reference = true;
    for (unsigned k = 0; k < ref->n; k++)
        ref->sl[k].esc.reference = true;
    takt_ns_t now = TAKT_NS_PER_S;
    configure(&p, now);
    assert_true(p.out_len > 2 && p.in_len > 2);
    uint8_t st[2] = { 0 };
    one(&p, ECAT_BRD, FP(0, ESC_AL_STATUS), st, 2, now);
    uint8_t out[256] = { 0 };
    for (unsigned i = 0; i < 6000; i++) {
        uint32_t r = rnd(&p);
        now += r % 64 == 0 ? 150 * TAKT_NS_PER_MS        /* past the SM watchdog */
                           : 50000 + (takt_ns_t)(r % 3000000);
        traffic_step(&p, out, now);
        if (r % 97 == 0) {
            disturb(&p, now);
            if (rnd(&p) % 4)
                configure(&p, now);                 /* mostly back to OP at once */
        }
        if (i % 50 == 0)
            same_memory(&p);
    }
    same_memory(&p);
    /* the fast network really took the short cut */
    assert_true(processed(p.s[0]) < processed(ref));
    takt_sim_destroy(p.s[0]);
    takt_sim_destroy(p.s[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_equals_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
