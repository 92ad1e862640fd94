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

/* Upload sub `sub` of index as an unsigned number (expedited or normal, <= 8 bytes). */
static uint64_t up_u(struct sim_device *d, uint16_t index, uint8_t sub)
{
    uint8_t b[512];
    size_t n = 0;
    uint32_t abort_code = sdo_upload(d, index, sub, false, b, &n);
    if (abort_code)
        fail_msg("upload 0x%04X:%02X aborted 0x%08X", index, sub, abort_code);
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static void standard_objects(void **state)
{
    (void)state;
    /* every CoE catalogue device: 0x1000, 0x1008/0x1009/0x100A, 0x1018 (= its SII
     * identity), 0x1C00 (SM types as the SII's SM category), 0x1C12/0x1C13 (the
     * default assignment) - uploaded over the mailbox bytes (ETG.1000.6 5.6 CoE) */
    static const char *const names[] = { "el3102", "servo" };
    static uint8_t esc[0x1000];
    for (unsigned k = 0; k < 2; k++) {
        struct sim_device *d = dev_new(names[k]);
        const struct sim_device_desc *ds = d->desc;
        esc_mem_init(esc, d, 0);
        assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
        uint32_t type = (uint32_t)up_u(d, 0x1000, 0);
        assert_int_equal(type & 0xFFFF, k ? 402 : 5001);      /* CiA 402 / MDP 5001 */
        uint8_t b[512];
        size_t n = 0;
        assert_int_equal(sdo_upload(d, 0x1008, 0, false, b, &n), 0);
        assert_int_equal(n, strlen(ds->name));
        assert_memory_equal(b, ds->name, n);
        assert_int_equal(sdo_upload(d, 0x1009, 0, false, b, &n), 0);
        assert_true(n > 0);
        assert_int_equal(sdo_upload(d, 0x100A, 0, false, b, &n), 0);
        assert_true(n > 0);
        assert_int_equal(up_u(d, 0x1018, 0), 4);
        assert_int_equal(up_u(d, 0x1018, 1), ds->vendor);
        assert_int_equal(up_u(d, 0x1018, 2), ds->product);
        assert_int_equal(up_u(d, 0x1018, 3), ds->revision);
        assert_int_equal(up_u(d, 0x1018, 4), get_le32(d->sii + 2 * SII_W_SERIAL));
        assert_int_equal(up_u(d, 0x1C00, 0), ds->n_sm);
        for (unsigned i = 0; i < ds->n_sm; i++)
            assert_int_equal(up_u(d, 0x1C00, (uint8_t)(i + 1)), ds->sm[i].type);
        /* 0x1C10 + SM: the PDOs assigned to it by default, in order */
        for (unsigned sm = 2; sm < ds->n_sm && sm < 4; sm++) {
            bool out = ds->sm[sm].type == SIM_SM_OUTPUTS;
            const struct sim_pdo *p = out ? ds->rxpdo : ds->txpdo;
            unsigned np = out ? ds->n_rxpdo : ds->n_txpdo, j = 0;
            for (unsigned i = 0; i < np; i++)
                if (p[i].sm == (int8_t)sm)
                    assert_int_equal(up_u(d, (uint16_t)(0x1C10 + sm), (uint8_t)++j), p[i].index);
            assert_int_equal(up_u(d, (uint16_t)(0x1C10 + sm), 0), j);
            assert_true(j > 0 || np == 0);
        }
        /* read-only: a download is refused with 0x06010002 */
        assert_int_equal(sdo_dl_u(d, 0x1018, 1, 1, 4), 0x06010002);
        assert_int_equal(sdo_dl_u(d, 0x1000, 0, 1, 4), 0x06010002);
        d->ops->destroy(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(access_per_state),
        cmocka_unit_test(types),
        cmocka_unit_test(values_and_bits),
        cmocka_unit_test(complete_access_bit_record),
        cmocka_unit_test(standard_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
