/* PDO mapping and assignment over CoE (ETG.1000.6 5.6.7.4): the sub0 sequence, the checks
 * with their abort codes, and how a new mapping changes pd_sizes and the SAFEOP check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_dev_util.h"

static uint8_t esc[0x1000];

static struct sim_device *preop(const char *name)
{
    struct sim_device *d = dev_new(name);
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    return d;
}

static void sizes(struct sim_device *d, size_t out, size_t in)
{
    size_t o, i;
    d->ops->pd_sizes(d, &o, &i);
    assert_int_equal(o, out);
    assert_int_equal(i, in);
}

static void remap_txpdo(void **state)
{
    struct sim_device *d = preop("servo");
    sizes(d, 8, 10);
    /* entries cannot change while sub0 != 0 */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 1, 0x60410010, 4), 0x06010003);
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 0, 1), 0);
    assert_int_equal(sdo_dl_u(d, 0x1A00, 1, 0x60410010, 4), 0);
    assert_int_equal(sdo_dl_u(d, 0x1A00, 2, 0x60640020, 4), 0);
    /* checks on each entry */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 3, 0x607A0020, 4), 0x06040041); /* Rx-only object */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 3, 0x20000020, 4), 0x06040041); /* no such object */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 3, 0x60410020, 4), 0x06040043); /* wrong length */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 3, 0x60410000, 4), 0x06090030); /* zero length */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 17, 0x60410010, 4), 0x06090011); /* beyond slots */
    /* sub0 beyond the entries set, or beyond the slots */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 4, 1), 0x06040043);   /* slot 4 unset */
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 17, 1), 0x06090031);
    /* a PDO longer than the device supports (limit lowered to 40 bits for the test) */
    sim_dev_of(d)->coe.rules.max_pdo_bits = 40;
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 2, 1), 0x06040042);
    sim_dev_of(d)->coe.rules.max_pdo_bits = 2048;
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 2, 1), 0);
    sizes(d, 8, 6);
    /* the SAFEOP check now wants a 6-byte input SM */
    set_pd_sm_len(esc, d, SIM_SM_INPUTS, 10);
    esc[ESC_DC_ACTIVATION] = 0x03;
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 1000000);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0x001E);
    set_pd_sm_len(esc, d, SIM_SM_INPUTS, 6);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    /* and the process image carries statusword + position only */
    uint8_t out[8] = { 0 }, in[6];
    memset(in, 0xAA, sizeof in);
    d->ops->process(d, out, 8, in, 6, 1000);
    assert_int_equal(get_le16(in), 0x0240);            /* switch on disabled + remote */
    assert_int_equal(get_le32(in + 2), 0);
    d->ops->destroy(d);
}

static void reassign(void **state)
{
    struct sim_device *d = preop("servo");
    assert_int_equal(sdo_dl_u(d, 0x1C12, 1, 0x1601, 2), 0x06010003);
    assert_int_equal(sdo_dl_u(d, 0x1C12, 0, 0, 1), 0);
    sizes(d, 0, 10);
    assert_int_equal(sdo_dl_u(d, 0x1C12, 1, 0x1A00, 2), 0x06090030); /* TxPDO into outputs */
    assert_int_equal(sdo_dl_u(d, 0x1C12, 1, 0x1605, 2), 0x06090030); /* no such PDO */
    assert_int_equal(sdo_dl_u(d, 0x1C12, 1, 0x1601, 2), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C12, 0, 1, 1), 0);
    sizes(d, 8, 10);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 0, 0, 1), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 1, 0x1A01, 2), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 2, 0x1A00, 2), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 0, 2, 1), 0);
    sizes(d, 8, 12 + 10);
    /* complete access writes the whole assignment at once; a bad one changes nothing */
    uint8_t ca[6] = { 2, 0, 0x00, 0x1A, 0x00, 0x16 };
    uint8_t m[64], r[1024];
    size_t n = sdo_msg(m, next_cnt(), 0x31, 0x1C13, 0, 6, ca, 6);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x80);
    assert_int_equal(get_le32(r + 12), 0x06090030);
    sizes(d, 8, 22);
    ca[0] = 1;
    n = sdo_msg(m, next_cnt(), 0x31, 0x1C13, 0, 4, ca, 4);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x60);
    sizes(d, 8, 10);
    d->ops->destroy(d);
}

static void fixed_mapping(void **state)
{
    /* the analog input has fixed PDOs but a configurable assignment */
    struct sim_device *d = preop("el3102");
    sizes(d, 0, 8);
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 0, 1), 0x06010002);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 0, 0, 1), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 1, 0x1A02, 2), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 2, 0x1A03, 2), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 0, 2, 1), 0);
    sizes(d, 0, 4);
    d->ops->destroy(d);
    /* a device without CoE keeps its SII mapping */
    d = dev_new("el1004");
    sizes(d, 0, 1);
    d->ops->destroy(d);
}

static void al_checks(void **state)
{
    struct sim_device *d = dev_new("el2004");
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    set_pd_sm_len(esc, d, SIM_SM_OUTPUTS, 2);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0x001D);
    set_pd_sm_len(esc, d, SIM_SM_OUTPUTS, 1);
    esc[ESC_SM0 + 2 * ESC_SM_SIZE + 6] = 0;             /* SM2 not enabled */
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0x001D);
    esc[ESC_SM0 + 2 * ESC_SM_SIZE + 6] = 1;
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    /* no FoE: no bootstrap state */
    assert_int_equal(al(d, AL_INIT, AL_BOOT, esc), 0x0013);
    /* fault hook: refuse OP with a chosen code, then accept after clearing */
    sim_device_fault_al(d, AL_OP, 0x001B);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0x001B);
    sim_device_fault_al(d, AL_OP, 0);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    d->ops->destroy(d);

    /* mailbox SMs must be enabled and of usable size for PREOP */
    d = dev_new("el3102");
    esc_mem_init(esc, d, 0);
    esc[ESC_SM0 + 6] = 0;
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0x0016);
    esc_mem_init(esc, d, 8);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0x0016);
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    d->ops->destroy(d);

    /* the servo needs SYNC0 active with a usable cycle */
    d = dev_new("servo");
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0x0030);
    esc[ESC_DC_ACTIVATION] = 0x03;
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0x0036);
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 50000);            /* below 0x1C32:05 */
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0x0036);
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 250000);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    d->ops->destroy(d);
}

static void mapping_only_in_preop(void **state)
{
    (void)state;
    /* PDO mapping and assignment are writable in PREOP only (ETG.1000.6: abort
     * 0x08000022 "cannot be transferred because of the present device state") */
    struct sim_device *d = preop("servo");
    esc[ESC_DC_ACTIVATION] = 0x03;
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 1000000);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x1A00, 0, 0, 1), 0x08000022);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 0, 0, 1), 0x08000022);
    assert_int_equal(sdo_dl_u(d, 0x1600, 0, 0, 1), 0x08000022);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C12, 0, 0, 1), 0x08000022);
    /* back in PREOP they are writable again */
    assert_int_equal(al(d, AL_OP, AL_PREOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C13, 0, 0, 1), 0);
    d->ops->destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remap_txpdo),
        cmocka_unit_test(reassign),
        cmocka_unit_test(fixed_mapping),
        cmocka_unit_test(al_checks),
        cmocka_unit_test(mapping_only_in_preop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
