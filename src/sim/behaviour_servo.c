/* CiA 402 drive (IEC 61800-7-201): power state machine driven by the controlword,
 * statusword, and a motion model for cyclic synchronous position (csp, mode 8) and
 * velocity (csv, mode 9) with a velocity limit and following-error monitoring. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"
#include "util/wire.h"

/* The objects the drive uses, resolved once (a process cycle must not search the OD). */
enum { CW, SW, MODE, MODE_DISP, POS_ACT, FERR_WIN, VEL_ACT, POS_TARGET, MAX_SPEED, FERR_ACT,
       VEL_TARGET, ERROR_CODE, N_OBJ };
static const uint16_t obj_index[] = {
    [CW] = 0x6040, [SW] = 0x6041, [MODE] = 0x6060, [MODE_DISP] = 0x6061, [POS_ACT] = 0x6064,
    [FERR_WIN] = 0x6065, [VEL_ACT] = 0x606C, [POS_TARGET] = 0x607A, [MAX_SPEED] = 0x6080,
    [FERR_ACT] = 0x60F4, [VEL_TARGET] = 0x60FF, [ERROR_CODE] = 0x603F,
};
_Static_assert(sizeof obj_index / sizeof obj_index[0] == N_OBJ, "one index per object");

/* Statusword values of the states (bits 0-3, 5, 6), with voltage enabled (bit 4) where
 * the power stage is on, and remote (bit 9). */
enum { ST_SOD = 0x0040, ST_READY = 0x0031, ST_ON = 0x0033, ST_OPEN = 0x0037, ST_FAULT = 0x0008 };
#define SW_STATE_MASK  0x007F
#define SW_REMOTE      0x0200
#define SW_TARGET_REACHED 0x0400
#define SW_FOLLOWING   0x1000        /* csp: drive follows the command value */
#define SW_FERR        0x2000        /* csp: following error */
#define CW_FAULT_RESET 0x0080

void sim_servo_init(struct sim_dev *d)
{
    _Static_assert(N_OBJ <= sizeof d->bh / sizeof d->bh[0], "cache too small");
    for (unsigned i = 0; i < N_OBJ; i++)
        d->bh[i] = od_find_entry(&d->od, obj_index[i], 0);
}

static uint64_t get(struct sim_dev *d, unsigned i) { return d->bh[i] ? od_get(d->bh[i]) : 0; }
static void set(struct sim_dev *d, unsigned i, uint64_t v)
{
    if (d->bh[i])
        od_set(d->bh[i], v);
}

static uint16_t state_of(uint16_t sw)
{
    if (sw & 0x0008)
        return ST_FAULT;
    if (sw & 0x0040)
        return ST_SOD;
    if ((sw & 0x0007) == 0x0007)
        return ST_OPEN;
    if ((sw & 0x0003) == 0x0003)
        return ST_ON;
    return sw & 0x0001 ? ST_READY : ST_SOD;
}

/* Controlword command -> next state (CiA 402 Figure "state machine", transitions 2-12). */
static uint16_t next_state(uint16_t st, uint16_t cw, uint16_t last_cw)
{
    if (st == ST_FAULT)
        return (cw & CW_FAULT_RESET) && !(last_cw & CW_FAULT_RESET) ? ST_SOD : ST_FAULT; /* 15 */
    if (!(cw & 0x0002) || (cw & 0x0006) == 0x0002)
        return ST_SOD;                               /* disable voltage / quick stop: 7,9,10,12 */
    if ((cw & 0x0087) == 0x0006)
        return ST_READY;                             /* shutdown: 2, 6, 8 */
    if ((cw & 0x008F) == 0x0007)
        return st == ST_SOD ? st : ST_ON;            /* switch on: 3; disable operation: 5 */
    /* enable operation: 3+4, 4. Fault is handled above, so "not SOD" means ready,
     * switched on or enabled. (Spelled as a three-way comparison, GCC 12.2 -O2
     * miscompiled this into "always enabled"; test servo_state_machine catches it.) */
    if ((cw & 0x008F) == 0x000F)
        return st != ST_SOD ? ST_OPEN : st;
    return st;
}

static void fault(struct sim_dev *d, uint16_t code)
{
    uint8_t data[5] = { 0 };
    d->servo.fault = true;
    set(d, ERROR_CODE, code);
    set(d, SW, ST_FAULT | SW_REMOTE | (code == 0x8611 ? SW_FERR : 0));
    coe_emergency(&d->coe, code, 0x01 | (code == 0x8611 ? 0x20 : 0), data);
}

static void move(struct sim_dev *d, double dt)
{
    /* without 0x6080 (a drive described by an ENI) the default limit applies */
    double vmax = d->bh[MAX_SPEED] ? (double)(uint32_t)get(d, MAX_SPEED) : 1e6;
    int mode = (int8_t)get(d, MODE_DISP);
    double target = (double)(int32_t)get(d, POS_TARGET), want;
    if (mode == 9)
        want = (double)(int32_t)get(d, VEL_TARGET);
    else
        want = dt > 0 ? (target - d->servo.pos) / dt : 0;
    if (want > vmax)
        want = vmax;
    if (want < -vmax)
        want = -vmax;
    d->servo.vel = want;
    d->servo.pos += want * dt;
    if (mode == 8 && fabs(target - d->servo.pos) < 0.5)
        d->servo.pos = target;
}

void sim_servo_step(struct sim_dev *d, takt_ns_t now)
{
    struct sim_servo *s = &d->servo;
    double dt = s->have_time && now > s->last_ns ? (double)(now - s->last_ns) / 1e9 : 0;
    s->last_ns = now;
    s->have_time = true;
    int8_t mode = (int8_t)get(d, MODE);
    if (mode == 8 || mode == 9)
        set(d, MODE_DISP, (uint8_t)mode);
    uint16_t cw = (uint16_t)get(d, CW);
    uint16_t st = s->fault ? ST_FAULT : state_of((uint16_t)get(d, SW));
    if (d->al != AL_OP && st != ST_FAULT)
        cw = 0;                                      /* no valid outputs: power off */
    uint16_t nst = next_state(st, cw, s->last_cw);
    s->last_cw = cw;
    if (st == ST_FAULT && nst == ST_SOD) {
        s->fault = false;
        set(d, ERROR_CODE, 0);
    }
    if (nst == ST_OPEN && st != ST_OPEN && (int8_t)get(d, MODE_DISP) == 8)
        set(d, POS_TARGET, (uint32_t)(int32_t)lround(s->pos)); /* no jump on enable */
    if (nst == ST_OPEN)
        move(d, dt);
    else
        s->vel = 0;
    int32_t pos = (int32_t)lround(s->pos), target = (int32_t)get(d, POS_TARGET);
    int64_t ferr = (int64_t)target - pos;
    set(d, POS_ACT, (uint32_t)pos);
    set(d, VEL_ACT, (uint32_t)(int32_t)lround(s->vel));
    set(d, FERR_ACT, (uint32_t)(int32_t)ferr);
    if (s->fault)
        return;
    uint32_t win = d->bh[FERR_WIN] ? (uint32_t)get(d, FERR_WIN) : 0xFFFFFFFFu;
    if (nst == ST_OPEN && win != 0xFFFFFFFFu && (uint64_t)llabs(ferr) > win) {
        fault(d, 0x8611);                            /* following error */
        return;
    }
    uint16_t sw = (uint16_t)(nst | SW_REMOTE);
    if (nst == ST_OPEN && llabs(ferr) <= 10)
        sw |= SW_TARGET_REACHED;
    if (nst == ST_OPEN)
        sw |= SW_FOLLOWING;
    set(d, SW, sw);
}

/* A drive that needs DC refuses SAFEOP until SYNC0 is active with a usable cycle
 * (AL 0x0030 invalid DC SYNC configuration, 0x0036 invalid SYNC0 cycle time). */
uint16_t sim_servo_al_check(struct sim_dev *d, uint8_t from, uint8_t to, const uint8_t *esc)
{
    if (to == AL_INIT || to == AL_PREOP) {
        if (d->servo.fault || (get(d, SW) & SW_STATE_MASK) != ST_SOD)
            set(d, SW, ST_SOD | SW_REMOTE);
        return 0;
    }
    if (!esc || !d->desc.dc_required || from != AL_PREOP || to != AL_SAFEOP)
        return 0;
    if ((esc[ESC_DC_ACTIVATION] & 0x03) != 0x03)
        return 0x0030;
    uint32_t cycle = get_le32(esc + ESC_DC_SYNC0_CYCLE);
    uint32_t min = (uint32_t)od_get_u(&d->od, 0x1C32, 5);
    if (!cycle || (min && cycle < min))
        return 0x0036;
    return 0;
}
