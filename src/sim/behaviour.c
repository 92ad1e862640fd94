/* Process behaviour of the simple devices: digital inputs count, analog inputs follow a
 * sine or triangle with status bits, outputs stay visible, the echo device numbers its
 * frames and judges the echo; the servo is in behaviour_servo.c. */
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

/* Per analog channel, the entries it uses are cached in d->bh[] in this order. */
enum { A_VALUE, A_UNDER, A_OVER, A_ERROR, A_TXSTATE, A_TOGGLE, A_LIMIT1, A_LIMIT2,
       A_EN1, A_EN2, A_WAVE, A_PERIOD, A_L1, A_L2, A_N };
static const struct { bool settings; uint8_t sub; } ai_obj[] = {
    [A_VALUE] = { false, AI_VALUE }, [A_UNDER] = { false, AI_UNDER }, [A_OVER] = { false, AI_OVER },
    [A_ERROR] = { false, AI_ERROR }, [A_TXSTATE] = { false, AI_TXSTATE },
    [A_TOGGLE] = { false, AI_TOGGLE }, [A_LIMIT1] = { false, AI_LIMIT1 },
    [A_LIMIT2] = { false, AI_LIMIT2 }, [A_EN1] = { true, AIS_EN_LIMIT1 },
    [A_EN2] = { true, AIS_EN_LIMIT2 }, [A_WAVE] = { true, AIS_WAVEFORM },
    [A_PERIOD] = { true, AIS_PERIOD }, [A_L1] = { true, AIS_LIMIT1 }, [A_L2] = { true, AIS_LIMIT2 },
};
_Static_assert(sizeof ai_obj / sizeof ai_obj[0] == A_N, "one entry per analog object");

static const char *const beh_names[] = {
    [SIM_BEH_NONE] = "coupler", [SIM_BEH_DI] = "di", [SIM_BEH_DO] = "do",
    [SIM_BEH_AI] = "ai", [SIM_BEH_SERVO] = "servo", [SIM_BEH_ECHO] = "echo",
};
_Static_assert(sizeof beh_names / sizeof beh_names[0] == SIM_BEH_ECHO + 1, "one name per kind");

static uint64_t eget(const struct od_entry *e) { return e ? od_get(e) : 0; }
static void eset(struct od_entry *e, uint64_t v)
{
    if (e)
        od_set(e, v);
}

static void di_init(struct sim_dev *d)
{
    /* every BOOL input 0x6000.. in channel order: 0x60n0:01 is channel n */
    for (unsigned i = 0; i < d->od.n && d->n_bh < 64; i++) {
        struct od_object *o = &d->od.obj[i];
        if (o->index < 0x6000 || o->index > 0x6FFF)
            continue;
        for (unsigned k = 0; k < o->n && d->n_bh < 64; k++)
            if (o->e[k].dtype == OD_BOOL && (o->e[k].access & OD_TXPDO)) {
                d->bh[d->n_bh] = &o->e[k];
                d->bh_ch[d->n_bh++] = (uint8_t)((o->index - 0x6000) / 0x10 + o->e[k].sub - 1);
            }
    }
}

static void ai_init(struct sim_dev *d)
{
    for (unsigned ch = 0; (ch + 1) * A_N <= 64; ch++) {
        uint16_t in = (uint16_t)(0x6000 + 0x10 * ch), set = (uint16_t)(0x8000 + 0x10 * ch);
        if (!od_find_entry(&d->od, in, AI_VALUE))
            break;
        for (unsigned k = 0; k < A_N; k++)
            d->bh[ch * A_N + k] = od_find_entry(&d->od, ai_obj[k].settings ? set : in, ai_obj[k].sub);
        d->n_bh = (ch + 1) * A_N;
    }
}

void sim_behaviour_init(struct sim_dev *d)
{
    d->di_period_ns = 10 * TAKT_NS_PER_MS;
    d->di_next_ns = 0;
    d->di_count = UINT64_MAX;
    d->ai_period_ns = TAKT_NS_PER_S;
    d->n_bh = 0;
    d->beh = SIM_BEH_NONE;
    for (uint8_t b = 0; b < sizeof beh_names / sizeof beh_names[0]; b++)
        if (!strcmp(d->desc.behaviour, beh_names[b]))
            d->beh = b;
    if (d->beh == SIM_BEH_DI)
        di_init(d);
    else if (d->beh == SIM_BEH_AI)
        ai_init(d);
    else if (d->beh == SIM_BEH_ECHO)
        d->echo = (struct sim_echo){ .counter = od_find_entry(&d->od, 0x6000, 1),
                                     .echo = od_find_entry(&d->od, 0x7000, 1) };
    else if (d->beh == SIM_BEH_SERVO) {
        memset(&d->servo, 0, sizeof d->servo);
        sim_servo_init(d);
    }
}

/* The counter only changes every di_period_ns: most cycles have nothing to do. */
static void di_step(struct sim_dev *d, takt_ns_t now)
{
    if (now < d->di_next_ns && now >= d->di_next_ns - d->di_period_ns)
        return;
    uint64_t count = (uint64_t)(now / d->di_period_ns);
    d->di_next_ns = ((int64_t)count + 1) * d->di_period_ns;
    if (count == d->di_count)
        return;
    d->di_count = count;
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
    struct od_entry **e = &d->bh[ch * A_N];
    int64_t period = (int64_t)eget(e[A_PERIOD]) * TAKT_NS_PER_MS;
    if (period <= 0)
        period = d->ai_period_ns;
    double phase = (double)((now + (int64_t)ch * period / 4) % period) / (double)period;
    if (phase < 0)
        phase += 1.0;
    double x = eget(e[A_WAVE]) == 1 ? (phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase)
                                     : sin(2 * M_PI * phase);
    double raw = 1.05 * 32767.0 * x;
    bool over = raw > 32767.0, under = raw < -32767.0;
    int v = over ? 32767 : under ? -32767 : (int)lround(raw);
    uint64_t old = eget(e[A_VALUE]);
    eset(e[A_VALUE], (uint16_t)(int16_t)v);
    eset(e[A_UNDER], under);
    eset(e[A_OVER], over);
    eset(e[A_ERROR], over || under);
    eset(e[A_TXSTATE], 0);
    int16_t l1 = (int16_t)eget(e[A_L1]), l2 = (int16_t)eget(e[A_L2]);
    eset(e[A_LIMIT1], eget(e[A_EN1]) ? limit_state(v, l1) : 0);
    eset(e[A_LIMIT2], eget(e[A_EN2]) ? limit_state(v, l2) : 0);
    if (old != (uint16_t)(int16_t)v)   /* TxPDO toggle: a new value was produced */
        eset(e[A_TOGGLE], !eget(e[A_TOGGLE]));
}

/* Echo device, once per frame that accessed its process data (the ESC's PDI runs after
 * the frame: the outputs are this frame's, the inputs go out in the next one). Frames are
 * numbered 1, 2, ...; the counter input is set to the number of the frame that will carry
 * it back, so an echo v arriving in frame F is F - v frames old. The application runs
 * between the reply of frame F-1 and the sending of frame F: an echo of the newest reply
 * is exactly 1 frame old, one older than that came from a reply that was not the newest
 * (docs/devices.md). Values are judged once, when they change; 0 (outputs never written,
 * or SAFEOP, where outputs are not applied) is not an echo, and neither is the first
 * value after a 0: an application that holds its outputs in a cycle without fresh
 * inputs keeps the value it wrote before, and the slave shows that held value only when
 * it starts applying outputs (SAFEOP to OP), frames later than it was written. */
static void echo_step(struct sim_dev *d)
{
    struct sim_echo *e = &d->echo;
    uint32_t f = ++e->frame;
    uint32_t v = (uint32_t)eget(e->echo);
    if (v != e->last && v != 0 && e->last != 0) {
        uint32_t age = f - v;              /* an echo from the future wraps: huge, stale */
        e->echoes++;
        if (age > e->age_max)
            e->age_max = age;
        if (age > 1 && e->stale++ == 0) {
            e->stale_first_age = age;
            e->stale_first_frame = f;
        }
    }
    e->last = v;
    eset(e->counter, f + 1);
}

bool sim_device_echo_get(const struct sim_device *sd, struct sim_echo *out)
{
    const struct sim_dev *d = (const struct sim_dev *)sd;
    if (!sd || !sd->desc || strcmp(sd->desc->behaviour, "echo") || d->beh != SIM_BEH_ECHO)
        return false;
    *out = d->echo;
    return true;
}

void sim_behaviour_step(struct sim_dev *d, takt_ns_t now)
{
    switch (d->beh) {
    case SIM_BEH_DI:
        di_step(d, now);
        break;
    case SIM_BEH_AI:
        for (unsigned ch = 0; ch < d->n_bh / A_N; ch++)
            ai_channel(d, ch, now);
        break;
    case SIM_BEH_SERVO:
        sim_servo_step(d, now);
        break;
    case SIM_BEH_ECHO:
        echo_step(d);
        break;
    default:
        break;
    }
}
