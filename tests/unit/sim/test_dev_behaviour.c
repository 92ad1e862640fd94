/* Process behaviour: DI counter pattern, DO outputs visible, AI waveforms with status
 * bits, the CiA 402 drive (state machine, csp motion, following error) and the echo
 * device's frame numbers and echo ages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_dev_util.h"

#define MS TAKT_NS_PER_MS

static uint8_t esc[0x1000];

/* Bring a device to OP with SMs as its SII says (DC active for the servo). */
static struct sim_device *op(const char *name)
{
    struct sim_device *d = dev_new(name);
    size_t out, in;
    esc_mem_init(esc, d, 0);
    d->ops->pd_sizes(d, &out, &in);
    set_pd_sm_len(esc, d, SIM_SM_OUTPUTS, (uint16_t)out);
    set_pd_sm_len(esc, d, SIM_SM_INPUTS, (uint16_t)in);
    esc[ESC_DC_ACTIVATION] = 0x03;
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 1000000);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    return d;
}

static void digital_inputs_count(void **state)
{
    struct sim_device *d = op("el1004");
    uint8_t in = 0xFF;
    for (int64_t k = 0; k < 40; k++) {
        d->ops->process(d, NULL, 0, &in, 1, k * 10 * MS + 3 * MS);
        assert_int_equal(in, k & 0x0F);             /* a 4-bit counter, 10 ms per step */
    }
    d->ops->destroy(d);
}

static void digital_outputs_visible(void **state)
{
    struct sim_device *d = op("el2004");
    uint8_t out = 0x05, buf[4];
    d->ops->process(d, &out, 1, NULL, 0, 0);
    assert_int_equal(sim_device_outputs(d, buf, sizeof buf), 1);
    assert_int_equal(buf[0], 0x05);
    struct sim_od *od = sim_device_od(d);
    assert_int_equal(od_get_u(od, 0x7000, 1), 1);
    assert_int_equal(od_get_u(od, 0x7010, 1), 0);
    assert_int_equal(od_get_u(od, 0x7020, 1), 1);
    assert_int_equal(od_get_u(od, 0x7030, 1), 0);
    out = 0x0A;
    d->ops->process(d, &out, 1, NULL, 0, 0);
    assert_int_equal(od_get_u(od, 0x7000, 1), 0);
    assert_int_equal(od_get_u(od, 0x7030, 1), 1);
    /* in SAFEOP outputs are recorded but not applied */
    assert_int_equal(al(d, AL_OP, AL_SAFEOP, esc), 0);
    out = 0x0F;
    d->ops->process(d, &out, 1, NULL, 0, 0);
    sim_device_outputs(d, buf, sizeof buf);
    assert_int_equal(buf[0], 0x0F);
    assert_int_equal(od_get_u(od, 0x7000, 1), 0);
    d->ops->destroy(d);
}

static int16_t ai_value(const uint8_t *in, int ch) { return (int16_t)get_le16(in + 4 * ch + 2); }
static uint16_t ai_status(const uint8_t *in, int ch) { return get_le16(in + 4 * ch); }

static void analog_waveforms(void **state)
{
    struct sim_device *d = op("el3102");
    uint8_t in[8];
    /* channel 1: sine with a 1 s period; channel 2: triangle shifted by a quarter */
    d->ops->process(d, NULL, 0, in, 8, 0);
    assert_int_equal(ai_value(in, 0), 0);
    assert_int_equal(ai_status(in, 0) & 0x0047, 0x0001 * 0); /* no range bits at zero */
    d->ops->process(d, NULL, 0, in, 8, 250 * MS);
    assert_int_equal(ai_value(in, 0), 32767);         /* peak beyond full scale */
    uint16_t st = ai_status(in, 0);
    assert_int_equal(st & 0x03, 0x02);                /* overrange, not underrange */
    assert_int_equal(st & 0x40, 0x40);                /* error bit 6 (sub 7) */
    d->ops->process(d, NULL, 0, in, 8, 750 * MS);
    assert_int_equal(ai_value(in, 0), -32767);
    assert_int_equal(ai_status(in, 0) & 0x03, 0x01);   /* underrange */
    d->ops->process(d, NULL, 0, in, 8, 100 * MS);
    int16_t v = ai_value(in, 0);
    assert_true(v > 20000 && v < 20300);               /* 1.05*32767*sin(36 deg) = 20223 */
    assert_int_equal(ai_status(in, 0) & 0x43, 0);
    /* triangle: phase 0.25+0.1 -> 4*0.35-1 = 0.4 of 105 % */
    int16_t t = ai_value(in, 1);
    assert_true(t > 13600 && t < 13900);
    /* toggle bit (sub 0x10 -> bit 15) flips with each new value */
    uint16_t tog = ai_status(in, 0) & 0x8000;
    d->ops->process(d, NULL, 0, in, 8, 101 * MS);
    assert_int_not_equal(ai_status(in, 0) & 0x8000, tog);
    /* limits: enabled via CoE in PREOP; value > limit 2 (16000) gives 2 in bits 4-5 */
    assert_int_equal(al(d, AL_OP, AL_PREOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x8000, 2, 1, 1), 0);
    assert_int_equal(sdo_dl_u(d, 0x8000, 1, 1, 1), 0);
    d->ops->process(d, NULL, 0, in, 8, 100 * MS);
    assert_int_equal(ai_status(in, 0) >> 2 & 3, 2);    /* limit 1 (-16000): above */
    assert_int_equal(ai_status(in, 0) >> 4 & 3, 2);    /* limit 2 (16000): above */
    d->ops->process(d, NULL, 0, in, 8, 600 * MS);      /* -19 k: below both */
    assert_int_equal(ai_status(in, 0) >> 2 & 3, 1);
    assert_int_equal(ai_status(in, 0) >> 4 & 3, 1);
    d->ops->destroy(d);
}

/* servo image: out = cw u16, target i32, mode i8, pad; in = sw u16, pos i32, vel i32 */
static void cycle(struct sim_device *d, uint16_t cw, int32_t target, int64_t t, uint8_t *in)
{
    uint8_t out[8] = { 0 };
    put_le16(out, cw);
    put_le32(out + 2, (uint32_t)target);
    out[6] = 8;
    d->ops->process(d, out, 8, in, 10, t);
}

static void servo_state_machine(void **state)
{
    struct sim_device *d = op("servo");
    uint8_t in[10];
    cycle(d, 0x0000, 0, 0, in);
    assert_int_equal(get_le16(in) & 0x6F, 0x40);     /* switch on disabled */
    cycle(d, 0x0006, 0, 1 * MS, in);
    assert_int_equal(get_le16(in) & 0x6F, 0x21);     /* ready to switch on */
    cycle(d, 0x0007, 0, 2 * MS, in);
    assert_int_equal(get_le16(in) & 0x6F, 0x23);     /* switched on */
    cycle(d, 0x000F, 0, 3 * MS, in);
    assert_int_equal(get_le16(in) & 0x6F, 0x27);     /* operation enabled */
    assert_int_equal(get_le16(in) & 0x0200, 0x0200); /* remote */
    cycle(d, 0x0007, 0, 4 * MS, in);
    assert_int_equal(get_le16(in) & 0x6F, 0x23);     /* disable operation */
    cycle(d, 0x0000, 0, 5 * MS, in);
    assert_int_equal(get_le16(in) & 0x4F, 0x40);     /* disable voltage */
    cycle(d, 0x000F, 0, 6 * MS, in);
    assert_int_equal(get_le16(in) & 0x4F, 0x40);     /* enable from SOD: not allowed */
    assert_int_equal(od_get_u(sim_device_od(d), 0x6061, 0), 8);
    d->ops->destroy(d);
}

static void servo_motion(void **state)
{
    struct sim_device *d = op("servo");
    uint8_t in[10];
    int64_t t = 0;
    cycle(d, 0x06, 0, t += MS, in);
    cycle(d, 0x07, 0, t += MS, in);
    cycle(d, 0x0F, 0, t += MS, in);
    /* target 100000 counts, limit 0x6080 = 1e6 counts/s: 1000 counts per 1 ms cycle */
    cycle(d, 0x0F, 100000, t += MS, in);
    assert_int_equal((int32_t)get_le32(in + 2), 1000);
    assert_int_equal((int32_t)get_le32(in + 6), 1000000);
    assert_int_equal(get_le16(in) & 0x0400, 0);       /* not reached */
    for (int i = 0; i < 9; i++)
        cycle(d, 0x0F, 100000, t += MS, in);
    assert_int_equal((int32_t)get_le32(in + 2), 10000);
    for (int i = 0; i < 95; i++)
        cycle(d, 0x0F, 100000, t += MS, in);
    assert_int_equal((int32_t)get_le32(in + 2), 100000);
    assert_int_equal((int32_t)get_le32(in + 6), 0);
    assert_int_equal(get_le16(in) & 0x0400, 0x0400); /* target reached */
    /* small steps as a csp master sends them are followed exactly */
    cycle(d, 0x0F, 100250, t += MS, in);
    assert_int_equal((int32_t)get_le32(in + 2), 100250);
    assert_int_equal((int32_t)get_le32(in + 6), 250000);
    /* leaving OP powers the drive down */
    assert_int_equal(al(d, AL_OP, AL_SAFEOP, esc), 0);
    cycle(d, 0x0F, 100250, t += MS, in);
    assert_int_equal(get_le16(in) & 0x4F, 0x40);
    d->ops->destroy(d);
}

static void servo_following_error(void **state)
{
    struct sim_device *d = op("servo");
    uint8_t in[10], r[64];
    int64_t t = 0;
    assert_int_equal(al(d, AL_OP, AL_PREOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x6065, 0, 5000, 4), 0);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    cycle(d, 0x06, 0, t += MS, in);
    cycle(d, 0x07, 0, t += MS, in);
    cycle(d, 0x0F, 0, t += MS, in);
    cycle(d, 0x0F, 3000, t += MS, in);                 /* 2000 behind: fine */
    assert_int_equal(get_le16(in) & 0x08, 0);
    cycle(d, 0x0F, 50000, t += MS, in);                /* 48000 behind: fault */
    assert_int_equal(get_le16(in) & 0x4F, 0x08);
    assert_int_equal(get_le16(in) & 0x2000, 0x2000);
    assert_int_equal(od_get_u(sim_device_od(d), 0x603F, 0), 0x8611);
    assert_int_equal(d->ops->mbx_pending(d, r, sizeof r, 0), 16);
    assert_int_equal(get_le16(r + 6) >> 12, COE_EMERGENCY);
    assert_int_equal(get_le16(r + 8), 0x8611);
    /* fault stays until a rising edge of bit 7, then switch on disabled */
    cycle(d, 0x0F, 50000, t += MS, in);
    assert_int_equal(get_le16(in) & 0x4F, 0x08);
    cycle(d, 0x80, 50000, t += MS, in);
    assert_int_equal(get_le16(in) & 0x4F, 0x40);
    assert_int_equal(od_get_u(sim_device_od(d), 0x603F, 0), 0);
    /* position did not jump while faulted */
    assert_int_equal((int32_t)get_le32(in + 2), 2000);
    d->ops->destroy(d);
}

/* One frame through the echo device as an ESC runs it: the frame reads the inputs the
 * last PDI run left (what its reply carries), then the PDI runs with this frame's
 * outputs. Returns the Counter the reply carries. */
static uint32_t echo_frame(struct sim_device *d, uint8_t in[4], uint32_t echo)
{
    uint8_t out[4];
    put_le32(out, echo);
    uint32_t reply = get_le32(in);
    d->ops->process(d, out, 4, in, 4, 0);
    return reply;
}

static void echo_ages(void **state)
{
    struct sim_device *d = op("echo");
    uint8_t in[4] = { 0 };
    uint32_t reply[400] = { 0 };
    struct sim_echo e;
    /* an application that echoes the newest reply: every echo exactly 1 frame old */
    for (unsigned f = 1; f <= 200; f++)
        reply[f] = echo_frame(d, in, reply[f - 1]);
    assert_true(sim_device_echo_get(d, &e));
    assert_int_equal(e.frame, 200);
    assert_int_equal(reply[200], 200);             /* the number of the frame carrying it */
    assert_int_equal(e.echoes, 197);               /* replies of frames 3..199 (the first is
                                                      the first value after 0: not judged) */
    assert_int_equal(e.stale, 0);
    assert_int_equal(e.age_max, 1);
    /* one that takes a reply 128 frames old for the newest (an index wrap) */
    for (unsigned f = 201; f <= 210; f++)
        reply[f] = echo_frame(d, in, reply[f - 129]);
    assert_true(sim_device_echo_get(d, &e));
    assert_int_equal(e.stale, 10);
    assert_int_equal(e.age_max, 129);
    assert_int_equal(e.stale_first_age, 129);
    assert_int_equal(e.stale_first_frame, 201);
    /* SAFEOP: outputs are not applied, so nothing is judged */
    assert_int_equal(al(d, AL_OP, AL_SAFEOP, esc), 0);
    echo_frame(d, in, 5);
    assert_true(sim_device_echo_get(d, &e));
    assert_int_equal(e.echoes, 207);
    assert_int_equal(e.frame, 211);
    /* back to OP: outputs are applied again, and the first value shown is one the
     * application held since before (written frames ago, not from a stale reply): not
     * judged; the next one, the newest reply's, is */
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    uint32_t held = reply[208];
    echo_frame(d, in, 0);                          /* SAFEOP's 0 is what the ESC last showed */
    reply[213] = echo_frame(d, in, held);
    assert_true(sim_device_echo_get(d, &e));
    assert_int_equal(e.stale, 10);
    assert_int_equal(e.echoes, 207);
    echo_frame(d, in, reply[213]);
    assert_true(sim_device_echo_get(d, &e));
    assert_int_equal(e.stale, 10);
    assert_int_equal(e.echoes, 208);
    d->ops->destroy(d);
    /* other devices have no echo figures */
    d = op("el1004");
    assert_false(sim_device_echo_get(d, &e));
    d->ops->destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digital_inputs_count),
        cmocka_unit_test(digital_outputs_visible),
        cmocka_unit_test(analog_waveforms),
        cmocka_unit_test(servo_state_machine),
        cmocka_unit_test(servo_motion),
        cmocka_unit_test(servo_following_error),
        cmocka_unit_test(echo_ages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
