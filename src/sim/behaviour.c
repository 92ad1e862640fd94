/* Process behaviour of the simple devices: digital inputs count, analog inputs follow a
 * sine or triangle with status bits, outputs stay visible; the servo is in behaviour_servo.c. */
#include <math.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"

/* Analog status/value layout of the EL31xx-like device (object 0x6000 + 0x10 * channel) */
enum { AI_UNDER = 1, AI_OVER = 2, AI_LIMIT1 = 3, AI_LIMIT2 = 5, AI_ERROR = 7,
       AI_TXSTATE = 0x0F, AI_TOGGLE = 0x10, AI_VALUE = 0x11 };
/* settings 0x8000 + 0x10 * channel */
enum { AIS_EN_LIMIT1 = 1, AIS_EN_LIMIT2 = 2, AIS_WAVEFORM = 3, AIS_PERIOD = 4,
       AIS_LIMIT1 = 5, AIS_LIMIT2 = 6 };

static bool is(const struct sim_dev *d, const char *b) { return !strcmp(d->desc.behaviour, b); }

void sim_behaviour_init(struct sim_dev *d)
{
    d->di_period_ns = 10 * TAKT_NS_PER_MS;
    d->ai_period_ns = TAKT_NS_PER_S;
    d->n_bh = 0;
    if (is(d, "di")) {
        /* every BOOL input 0x6000.. in channel order: 0x60n0:01 is channel n */
        for (unsigned i = 0; i < d->od.n && d->n_bh < 32; i++) {
            struct od_object *o = &d->od.obj[i];
            if (o->index < 0x6000 || o->index > 0x6FFF)
                continue;
            for (unsigned k = 0; k < o->n && d->n_bh < 32; k++)
                if (o->e[k].dtype == OD_BOOL && (o->e[k].access & OD_TXPDO)) {
                    d->bh[d->n_bh] = &o->e[k];
                    d->bh_ch[d->n_bh++] = (uint8_t)((o->index - 0x6000) / 0x10 + o->e[k].sub - 1);
                }
        }
    }
    if (!strcmp(d->desc.behaviour, "servo"))
        memset(&d->servo, 0, sizeof d->servo);
}

static void di_step(struct sim_dev *d, takt_ns_t now)
{
    uint64_t count = (uint64_t)(now / d->di_period_ns);
    for (unsigned i = 0; i < d->n_bh; i++)
        d->bh[i]->val[0] = (uint8_t)(count >> (d->bh_ch[i] % 64) & 1);
}

static uint8_t limit_state(int v, int limit)
{
    return v < limit ? 1 : v > limit ? 2 : 3;
}

/* One analog channel: full scale is exceeded at the peaks of the waveform (amplitude
 * 105 %), which sets over/underrange and error the way a real input would. */
static void ai_channel(struct sim_dev *d, unsigned ch, takt_ns_t now)
{
    uint16_t in = (uint16_t)(0x6000 + 0x10 * ch), set = (uint16_t)(0x8000 + 0x10 * ch);
    struct od_entry *value = od_find_entry(&d->od, in, AI_VALUE);
    if (!value)
        return;
    int64_t period = (int64_t)od_get_u(&d->od, set, AIS_PERIOD) * TAKT_NS_PER_MS;
    if (period <= 0)
        period = d->ai_period_ns;
    double phase = (double)((now + (int64_t)ch * period / 4) % period) / (double)period;
    double x = od_get_u(&d->od, set, AIS_WAVEFORM) == 1
                   ? (phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase)
                   : sin(2 * M_PI * phase);
    double raw = 1.05 * 32767.0 * x;
    bool over = raw > 32767.0, under = raw < -32767.0;
    int v = over ? 32767 : under ? -32767 : (int)lround(raw);
    uint16_t old = (uint16_t)od_get(value);
    od_set(value, (uint16_t)(int16_t)v);
    od_set_u(&d->od, in, AI_UNDER, under);
    od_set_u(&d->od, in, AI_OVER, over);
    od_set_u(&d->od, in, AI_ERROR, over || under);
    od_set_u(&d->od, in, AI_TXSTATE, 0);
    int16_t l1 = (int16_t)od_get_u(&d->od, set, AIS_LIMIT1), l2 = (int16_t)od_get_u(&d->od, set, AIS_LIMIT2);
    od_set_u(&d->od, in, AI_LIMIT1, od_get_u(&d->od, set, AIS_EN_LIMIT1) ? limit_state(v, l1) : 0);
    od_set_u(&d->od, in, AI_LIMIT2, od_get_u(&d->od, set, AIS_EN_LIMIT2) ? limit_state(v, l2) : 0);
    if (old != (uint16_t)(int16_t)v)   /* TxPDO toggle: a new value was produced */
        od_set_u(&d->od, in, AI_TOGGLE, !od_get_u(&d->od, in, AI_TOGGLE));
}

void sim_behaviour_step(struct sim_dev *d, takt_ns_t now)
{
    if (d->n_bh)
        di_step(d, now);
    else if (is(d, "ai"))
        for (unsigned ch = 0; ch < 16 && od_find(&d->od, (uint16_t)(0x6000 + 0x10 * ch)); ch++)
            ai_channel(d, ch, now);
    else if (is(d, "servo"))
        sim_servo_step(d, now);
}
