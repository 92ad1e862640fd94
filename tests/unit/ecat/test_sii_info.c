/* The public SII summary (takt_ecat_sii_info, takt_ecat_sii_checksum) through <takt/ecat.h>
 * alone, as a program outside the library sees it: the bootstrap mailbox of the
 * header, SyncManagers, FMMUs and the SDO-information bit of the General category. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/wire.h>

struct img { uint8_t b[512]; size_t pos; };

/* ETG.2010 header: words 0x14-0x17 the bootstrap mailbox, categories from word 0x40 */
static void img_start(struct img *m)
{
    memset(m, 0, sizeof *m);
    takt_put_le16(m->b + 2 * 0x14, 0x1000);
    takt_put_le16(m->b + 2 * 0x15, 244);
    takt_put_le16(m->b + 2 * 0x16, 0x1400);
    takt_put_le16(m->b + 2 * 0x17, 246);
    m->b[14] = takt_ecat_sii_checksum(m->b);
    m->pos = 2 * 0x40;
}

static void img_cat(struct img *m, uint16_t type, const uint8_t *d, size_t n)
{
    takt_put_le16(m->b + m->pos, type);
    takt_put_le16(m->b + m->pos + 2, (uint16_t)((n + 1) / 2));
    memcpy(m->b + m->pos + 4, d, n);
    m->pos += 4 + (n + 1) / 2 * 2;
}

static void img_end(struct img *m) { takt_put_le16(m->b + m->pos, 0xFFFF); m->pos += 2; }

static void build(struct img *m, uint8_t coe_details)
{
    img_start(m);
    uint8_t gen[32] = {0};
    gen[5] = coe_details;                              /* General (30): CoE details */
    img_cat(m, 30, gen, sizeof gen);
    static const uint8_t fmmu[] = { 1, 2 };            /* FMMU (40): outputs, inputs */
    img_cat(m, 40, fmmu, sizeof fmmu);
    static const uint8_t sm[] = { 0x00, 0x10, 0x80, 0, 0x26, 0, 1, 1,   /* SM (41) */
                                  0x00, 0x11, 0x04, 0, 0x64, 0, 0, 3 };
    img_cat(m, 41, sm, sizeof sm);
    img_end(m);
}

static void test_summary(void **state)
{
    (void)state;
    struct img m;
    struct takt_ecat_sii_info si;
    build(&m, 0x03);                                   /* SDO and SDO information */
    assert_int_equal(takt_ecat_sii_info(m.b, m.pos, &si), 0);
    assert_true(si.header);
    assert_int_equal(si.boot_out_start, 0x1000);
    assert_int_equal(si.boot_out_len, 244);
    assert_int_equal(si.boot_in_start, 0x1400);
    assert_int_equal(si.boot_in_len, 246);
    assert_true(si.categories);
    assert_int_equal(si.n_sm, 2);
    assert_int_equal(si.sm[0].start, 0x1000);
    assert_int_equal(si.sm[0].len, 0x80);
    assert_int_equal(si.sm[0].ctrl, 0x26);
    assert_int_equal(si.sm[0].enable, 1);
    assert_int_equal(si.sm[0].type, 1);
    assert_int_equal(si.sm[1].ctrl, 0x64);
    assert_int_equal(si.sm[1].enable, 0);
    assert_int_equal(si.sm[1].type, 3);
    assert_int_equal(si.n_fmmu, 2);
    assert_int_equal(si.fmmu[0], 1);
    assert_int_equal(si.fmmu[1], 2);
    assert_true(si.has_general);
    assert_true(si.sdo_info);

    build(&m, 0x01);                                   /* SDO without information */
    assert_int_equal(takt_ecat_sii_info(m.b, m.pos, &si), 0);
    assert_true(si.has_general);
    assert_false(si.sdo_info);
}

/* A corrupt category list: the header is still read, the broken category is skipped
 * and said, nothing is claimed from it. */
static void test_bad_categories(void **state)
{
    (void)state;
    struct img m;
    struct takt_ecat_sii_info si;
    build(&m, 0x03);
    takt_put_le16(m.b + 2 * 0x40 + 2, 0x7FFF);         /* General runs past the image */
    assert_int_equal(takt_ecat_sii_info(m.b, m.pos, &si), 0);
    assert_true(si.header);
    assert_int_equal(si.boot_out_len, 244);
    assert_false(si.has_general);
    assert_false(si.sdo_info);
    assert_true(si.n_warnings >= 1);
    assert_non_null(strstr(si.warning[0], "past") ? si.warning[0] : strstr(si.warning[0], "ends"));
    assert_string_equal(si.error, "");
}

/* CRC-8 (polynomial 0x07, initial 0xFF, no final XOR) over bytes 0-13 (ETG.2010): 14
 * zero bytes give 0x30, one 0x01 first gives 0xD5 (computed bit by bit apart from the
 * library). */
static void test_checksum(void **state)
{
    (void)state;
    uint8_t z[16] = {0};
    assert_int_equal(takt_ecat_sii_checksum(z), 0x30);
    z[0] = 1;
    assert_int_equal(takt_ecat_sii_checksum(z), 0xD5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_bad_categories),
        cmocka_unit_test(test_checksum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
