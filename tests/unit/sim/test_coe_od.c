/* Object dictionary basics: access rights per AL state, data type names and sizes,
 * value widths, bit copies of process data, complete-access layout of bit records. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_dev_util.h"

static void access_per_state(void **state)
{
    struct od_entry e = { .access = OD_RW_PREOP };
    assert_int_equal(od_check_access(&e, false, AL_OP), 0);
    assert_int_equal(od_check_access(&e, true, AL_PREOP), 0);
    assert_int_equal(od_check_access(&e, true, AL_SAFEOP), 0x08000022);
    assert_int_equal(od_check_access(&e, true, AL_OP), 0x08000022);
    e.access = OD_RO;
    assert_int_equal(od_check_access(&e, true, AL_PREOP), 0x06010002);
    e.access = OD_W_ALL;
    assert_int_equal(od_check_access(&e, false, AL_PREOP), 0x06010001);
    assert_int_equal(od_check_access(&e, true, AL_OP), 0);
    e.access = OD_R_PREOP | OD_W_OP;
    assert_int_equal(od_check_access(&e, false, AL_SAFEOP), 0x08000022);
    assert_int_equal(od_check_access(&e, true, AL_OP), 0);
}

static void types(void **state)
{
    uint16_t bits;
    assert_int_equal(od_type_from_name("UDINT", &bits), OD_UDINT);
    assert_int_equal(bits, 32);
    assert_int_equal(od_type_from_name("sint", &bits), OD_SINT);
    assert_int_equal(bits, 8);
    assert_int_equal(od_type_from_name("BIT3", &bits), OD_BIT1 + 2);
    assert_int_equal(bits, 3);
    assert_int_equal(od_type_from_name("STRING(12)", &bits), OD_VSTRING);
    assert_int_equal(bits, 96);
    assert_int_equal(od_type_from_name("ULINT", &bits), OD_ULINT);
    assert_int_equal(bits, 64);
    assert_int_equal(od_type_from_name("DT1018", &bits), 0);
    assert_int_equal(od_type_bits(OD_BIT1 + 7), 8);
    assert_true(od_is_numeric(OD_INT));
    assert_false(od_is_numeric(OD_VSTRING));
}

static void values_and_bits(void **state)
{
    struct sim_od od;
    od_init(&od);
    struct od_entry *e = od_add_var(&od, 0x2000, "x", OD_BIT1 + 2, 3, OD_RW, 0xFF);
    assert_int_equal(od_get(e), 7);                     /* masked to 3 bits */
    e = od_add_var(&od, 0x2001, "y", OD_LINT, 64, OD_RW, 0x8000000000000001ull);
    assert_true(od_get(e) == 0x8000000000000001ull);
    assert_null(od_add_var(&od, 0x2001, "dup", OD_UINT, 16, OD_RW, 0));
    assert_int_equal(od_get_u(&od, 0x2999, 0), 0);      /* absent reads as 0 */
    /* LSB-first bit copy across byte borders, as process data is laid out */
    uint8_t src[2] = { 0xB4, 0x01 }, dst[3] = { 0xFF, 0xFF, 0xFF };
    od_bitcopy(dst, 6, src, 2, 7);                      /* src bits 2..8: 1,0,1,1,0,1,1 */
    assert_int_equal(dst[0], 0x7F);                     /* bit 6 <- 1, bit 7 <- 0 */
    assert_int_equal(dst[1], 0xFB);                     /* bits 0..4 <- 1,1,0,1,1; 5..7 kept */
    assert_int_equal(dst[2], 0xFF);
    od_free(&od);
    assert_int_equal(od.n, 0);
}

static void complete_access_bit_record(void **state)
{
    /* 0x6000 of the analog input: BOOLs and BIT2s packed after the 16-bit sub 0 */
    struct sim_device *d = dev_new("el3102");
    struct od_object *o = od_find(sim_device_od(d), 0x6000);
    od_set(od_entry(o, 2), 1);                          /* overrange: bit 17 */
    od_set(od_entry(o, 5), 3);                          /* limit 2: bits 20-21 */
    od_set(od_entry(o, 0x11), 0x1234);
    uint8_t b[16];
    size_t n = od_ca_read(o, 0, b, sizeof b);
    assert_int_equal(n, 6);
    assert_int_equal(b[0], 0x11);
    assert_int_equal(b[2], 0x02 | 0x30);
    assert_int_equal(get_le16(b + 4), 0x1234);
    assert_int_equal(od_ca_size(o, 1), 4);              /* without sub 0 */
    assert_int_equal(od_ca_read(o, 0, b, 3), 6);        /* too small: size only */
    d->ops->destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(access_per_state),
        cmocka_unit_test(types),
        cmocka_unit_test(values_and_bits),
        cmocka_unit_test(complete_access_bit_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
