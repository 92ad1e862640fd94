/* PDO/SM/FMMU layout: SM lengths and FMMUs from real SIIs and CoE-style mappings,
 * bit-exact variable offsets, frame splitting past 1486 bytes, register encodings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include "ecat/pdo.h"
#include "util/wire.h"

static struct ecat_pdo_map maps[48];
static struct ecat_sii sii;
static struct ecat_pdo_image img;
static char err[256];

/* A CiA 402 drive as read over CoE: 0x1C12 = {0x1600}, 0x1C13 = {0x1A00}. */
static void drive_map(struct ecat_pdo_map *m)
{
    ecat_pdo_map_init(m);
    m->n_sm = 4;
    m->sm[0] = (struct ecat_pdo_sm){ .start = 0x1000, .ctrl = 0x26, .type = ECAT_SII_SM_MBX_OUT };
    m->sm[1] = (struct ecat_pdo_sm){ .start = 0x1080, .ctrl = 0x22, .type = ECAT_SII_SM_MBX_IN };
    m->sm[2] = (struct ecat_pdo_sm){ .start = 0x1100, .ctrl = 0x64, .type = ECAT_SII_SM_OUTPUTS };
    m->sm[3] = (struct ecat_pdo_sm){ .start = 0x1180, .ctrl = 0x20, .type = ECAT_SII_SM_INPUTS };
    m->n_fmmu = 3;
    assert_int_equal(ecat_pdo_map_add_pdo(m, 2, false, 0x1600, "Outputs"), 0);
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x60400010, 6, "Controlword"), 0);
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x607A0020, 4, "Target position"), 0);
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x00000008, 0, NULL), 0);          /* gap */
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x60600008, 2, "Modes of operation"), 0);
    assert_int_equal(ecat_pdo_map_add_pdo(m, 3, true, 0x1A00, "Inputs"), 0);
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x60410010, 6, "Statusword"), 0);
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x60640020, 4, "Position actual value"), 0);
}

static void test_drive_layout(void **state)
{
    (void)state;
    drive_map(&maps[0]);
    drive_map(&maps[1]);
    maps[1].no_lrw = true;                    /* SII "not LRW": the frame must say so */
    uint16_t pos[2] = { 1, 2 };
    assert_int_equal(ecat_pdo_layout(&img, maps, pos, 2, 0x10000000, 0, err, sizeof err), 0);
    assert_int_equal(img.size, 2 * (8 + 6));
    const struct ecat_pdo_slave *s = ecat_pdo_slave(&img, 2);
    assert_non_null(s);
    assert_int_equal(s->out_off, 14);
    assert_int_equal(s->out_len, 8);
    assert_int_equal(s->in_off, 22);
    assert_int_equal(s->in_len, 6);
    assert_int_equal(s->n_sm, 2);
    assert_int_equal(s->sm[0].index, 2);
    assert_int_equal(s->sm[0].len, 8);
    assert_int_equal(s->sm[0].enable, 1);
    assert_true(s->sm[1].input);
    /* SM2 and SM3 are not adjacent: one FMMU each */
    assert_int_equal(s->n_fmmu, 2);
    assert_int_equal(s->fmmu[0].log_start, 0x10000000 + 14);
    assert_int_equal(s->fmmu[0].phys_start, 0x1100);
    assert_int_equal(s->fmmu[0].type, 2);
    assert_int_equal(s->fmmu[1].log_start, 0x10000000 + 22);
    assert_int_equal(s->fmmu[1].len, 6);
    assert_int_equal(s->fmmu[1].type, 1);
    /* variables: the gap takes bits but has no variable */
    assert_int_equal(img.n_vars, 2 * 5);
    const struct ecat_pdo_var *v = ecat_pdo_find(&img, 2, "Modes of operation");
    assert_non_null(v);
    assert_int_equal(v->bit_off, 14 * 8 + 56);
    assert_int_equal(v->bitlen, 8);
    assert_ptr_equal(ecat_pdo_find_idx(&img, 2, 0x6060, 0), v);
    assert_ptr_equal(ecat_pdo_find(&img, 2, "Outputs.Modes of operation"), v);
    assert_null(ecat_pdo_find(&img, 2, "Inputs.Modes of operation"));
    assert_null(ecat_pdo_find(&img, 3, "Statusword"));
    v = ecat_pdo_find(&img, 1, "Position actual value");
    assert_int_equal(v->bit_off, 8 * 8 + 16);
    assert_true(v->input);
    /* one frame, LRW WKC 2 + 1 per slave */
    assert_int_equal(img.n_frames, 1);
    assert_int_equal(img.frame[0].len, 28);
    assert_int_equal(img.frame[0].wkc, 6);
    assert_int_equal(img.frame[0].n_out, 2);
    assert_int_equal(img.frame[0].n_in, 2);
    assert_true(img.frame[0].no_lrw);
    assert_true(ecat_pdo_slave(&img, 2)->no_lrw);
    assert_false(ecat_pdo_slave(&img, 1)->no_lrw);
    assert_int_equal(img.frame[0].log_start, 0x10000000);
    ecat_pdo_image_free(&img);
}

static void test_bit_access(void **state)
{
    (void)state;
    uint8_t im[16];
    memset(im, 0xA5, sizeof im);
    struct ecat_pdo_var v = { .bit_off = 13, .bitlen = 11 };
    ecat_pdo_set(im, &v, 0x5FF);
    assert_int_equal(ecat_pdo_get(im, &v), 0x5FF);
    assert_int_equal(im[1] & 0x1F, 0xA5 & 0x1F);             /* bits 8-12 untouched */
    assert_int_equal(im[3], 0xA5);
    struct ecat_pdo_var w = { .bit_off = 32, .bitlen = 32 };
    ecat_pdo_set(im, &w, 0x11223344);
    assert_int_equal(get_le32(im + 4), 0x11223344);
    assert_int_equal(ecat_pdo_get(im, &w), 0x11223344);
    struct ecat_pdo_var b = { .bit_off = 70, .bitlen = 1 };
    ecat_pdo_set(im, &b, 0);
    assert_int_equal(im[8], 0xA5 & ~0x40);
}

static void test_frames_split(void **state)
{
    (void)state;
    /* 40 slaves with 40 bytes out + 40 in: 18 fit into 1486 bytes */
    for (unsigned i = 0; i < 40; i++) {
        struct ecat_pdo_map *m = &maps[i];
        ecat_pdo_map_init(m);
        m->n_sm = 4;
        m->sm[2] = (struct ecat_pdo_sm){ .start = 0x1100, .ctrl = 0x64, .type = ECAT_SII_SM_OUTPUTS };
        m->sm[3] = (struct ecat_pdo_sm){ .start = 0x1180, .ctrl = 0x20, .type = ECAT_SII_SM_INPUTS };
        ecat_pdo_map_add_pdo(m, 2, false, 0x1600, "o");
        for (int k = 0; k < 10; k++)
            ecat_pdo_map_add_entry(m, ecat_pdo_mapping_value(0x7000, (uint8_t)(k + 1), 32), 7, "out");
        ecat_pdo_map_add_pdo(m, 3, true, 0x1A00, "i");
        for (int k = 0; k < 10; k++)
            ecat_pdo_map_add_entry(m, ecat_pdo_mapping_value(0x6000, (uint8_t)(k + 1), 32), 7, "in");
    }
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, 40, 0, 0, err, sizeof err), 0);
    assert_int_equal(img.size, 3200);
    assert_int_equal(img.n_frames, 3);
    assert_int_equal(img.frame[0].n_slaves, 18);
    assert_int_equal(img.frame[0].len, 1440);
    assert_int_equal(img.frame[0].wkc, 54);
    assert_int_equal(img.frame[1].first_slave, 18);
    assert_int_equal(img.frame[1].img_off, 1440);
    assert_int_equal(img.frame[2].n_slaves, 4);
    assert_int_equal(img.frame[2].len, 320);
    assert_int_equal(img.slave[39].frame, 2);
    unsigned total = 0;
    for (unsigned f = 0; f < img.n_frames; f++) {
        assert_true(img.frame[f].len <= 1486);
        total += img.frame[f].len;
    }
    assert_int_equal(total, img.size);
    ecat_pdo_image_free(&img);
    /* a smaller frame limit: one slave larger than a frame is refused by position */
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, 2, 0, 60, err, sizeof err), -EMSGSIZE);
    assert_non_null(strstr(err, "slave 0: 80 bytes"));
}

static void test_fmmu_limits_and_clear(void **state)
{
    (void)state;
    drive_map(&maps[0]);
    maps[0].n_fmmu = 1;
    uint16_t pos = 7;
    assert_int_equal(ecat_pdo_layout(&img, maps, &pos, 1, 0, 0, err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "slave 7"));
    /* re-reading 0x1C12 over CoE: drop SM2's PDOs, keep SM3's */
    drive_map(&maps[0]);
    ecat_pdo_map_clear_sm(&maps[0], 2);
    assert_int_equal(maps[0].n_pdo, 1);
    assert_int_equal(maps[0].pdo[0].index, 0x1A00);
    assert_int_equal(maps[0].pdo[0].first, 0);
    assert_int_equal(maps[0].entry[1].index, 0x6064);
    assert_int_equal(ecat_pdo_map_add_pdo(&maps[0], 2, false, 0x1601, "Outputs"), 0);
    assert_int_equal(ecat_pdo_map_add_entry(&maps[0], 0x60FF0020, 4, "Target velocity"), 0);
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, 1, 0, 0, err, sizeof err), 0);
    assert_int_equal(img.slave[0].out_len, 4);
    assert_int_equal(img.slave[0].in_len, 6);
    /* outputs SM has no PDO now and would be 0: entry without a PDO is refused */
    ecat_pdo_image_free(&img);
    struct ecat_pdo_map *m = &maps[1];
    ecat_pdo_map_init(m);
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x60400010, 0, "x"), -EINVAL);
    ecat_pdo_map_add_pdo(m, 0, false, 0x1600, "p");
    assert_int_equal(ecat_pdo_map_add_entry(m, 0x60400000, 0, "zero bits"), -EINVAL);
}

static void test_sm_without_pdos(void **state)
{
    (void)state;
    /* an SII with an inputs SM of 2 bytes but no TxPDO category: the region is kept */
    struct ecat_pdo_map *m = &maps[0];
    ecat_pdo_map_init(m);
    m->n_sm = 4;
    m->sm[2] = (struct ecat_pdo_sm){ .start = 0x1100, .ctrl = 0x24, .type = ECAT_SII_SM_OUTPUTS };
    m->sm[3] = (struct ecat_pdo_sm){ .start = 0x1180, .ctrl = 0x20, .type = ECAT_SII_SM_INPUTS, .default_len = 2 };
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, 1, 0, 0, err, sizeof err), 0);
    assert_int_equal(img.slave[0].out_len, 0);
    assert_int_equal(img.slave[0].in_len, 2);
    assert_int_equal(img.slave[0].n_fmmu, 1);
    assert_int_equal(img.slave[0].fmmu[0].type, 1);
    assert_int_equal(img.slave[0].sm[0].enable, 0);          /* SM2: nothing, disabled */
    assert_int_equal(img.slave[0].sm[1].len, 2);
    assert_int_equal(img.n_vars, 0);
    assert_int_equal(img.frame[0].wkc, 1);
    ecat_pdo_image_free(&img);
}

static void test_register_encoding(void **state)
{
    (void)state;
    /* bytes EC-Engineer wrote for a drive's FMMU 0 and SM 2 (rocos-eni4.xml init commands) */
    static const uint8_t fmmu_want[16] = { 0x2a, 0x00, 0x00, 0x10, 0x0e, 0x00, 0x00, 0x07,
                                           0x00, 0x11, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00 };
    struct ecat_fmmu_cfg f = { .log_start = 0x1000002a, .len = 14, .log_end_bit = 7,
                               .phys_start = 0x1100, .type = 2, .activate = 1 };
    uint8_t b[16];
    ecat_fmmu_encode(b, &f);
    assert_memory_equal(b, fmmu_want, 16);
    static const uint8_t sm_want[8] = { 0x00, 0x11, 0x0e, 0x00, 0x64, 0x00, 0x01, 0x00 };
    struct ecat_sm_regs s = { .index = 2, .start = 0x1100, .len = 14, .ctrl = 0x64, .enable = 1 };
    ecat_sm_encode(b, &s);
    assert_memory_equal(b, sm_want, 8);
}

static size_t load_sii(const char *file)
{
    const char *dir = getenv("TAKT_FIXTURES");
    if (!dir)
        return 0;
    char path[512];
    snprintf(path, sizeof path, "%s/sii/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    static uint8_t buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return ecat_sii_decode(buf, n, &sii, 0, err, sizeof err) == 0 ? n : 0;
}

static void test_real_sii_layout(void **state)
{
    (void)state;
    static const char *const files[] = { "ek1100-eeprom-dump.bin", "el2004-eeprom-dump.bin",
                                         "el2889.hex", "el2828.hex" };
    for (unsigned i = 0; i < 4; i++) {
        if (!load_sii(files[i])) {
            print_message("fixture %s absent (TAKT_FIXTURES), skipped\n", files[i]);
            skip();
        }
        assert_int_equal(ecat_pdo_map_from_sii(&maps[i], &sii), 0);
    }
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, 4, 0x00010000, 0, err, sizeof err), 0);
    /* EK1100: nothing; EL2004: 4 bits -> 1 byte; EL2889: SM0+SM1 adjacent (0x0F00,
     * 0x0F01) -> 2 bytes in one FMMU; EL2828: 1 byte */
    assert_int_equal(img.slave[0].out_len + img.slave[0].in_len, 0);
    assert_int_equal(img.slave[1].out_len, 1);
    assert_int_equal(img.slave[1].sm[0].start, 0x0F00);
    assert_int_equal(img.slave[1].sm[0].ctrl, 0x44);
    assert_int_equal(img.slave[2].out_len, 2);
    assert_int_equal(img.slave[2].n_sm, 2);
    assert_int_equal(img.slave[2].n_fmmu, 1);
    assert_int_equal(img.slave[2].fmmu[0].len, 2);
    assert_int_equal(img.slave[2].fmmu[0].log_start, 0x00010001);
    assert_int_equal(img.slave[3].out_off, 3);
    assert_int_equal(img.size, 4);
    assert_int_equal(img.n_frames, 1);
    assert_int_equal(img.frame[0].wkc, 6);
    assert_int_equal(img.frame[0].n_out, 3);
    assert_int_equal(img.frame[0].n_in, 0);
    /* "Output" repeats per channel; the PDO name picks one */
    const struct ecat_pdo_var *v = ecat_pdo_find(&img, 2, "Channel 10.Output");
    assert_non_null(v);
    assert_int_equal(v->bit_off, 8 + 9);
    assert_int_equal(v->index, 0x7090);
    assert_int_equal(ecat_pdo_find_idx(&img, 1, 0x7030, 1)->bit_off, 3);
    assert_int_equal(img.n_vars, 4 + 16 + 8);
    ecat_pdo_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drive_layout),
        cmocka_unit_test(test_bit_access),
        cmocka_unit_test(test_frames_split),
        cmocka_unit_test(test_fmmu_limits_and_clear),
        cmocka_unit_test(test_sm_without_pdos),
        cmocka_unit_test(test_register_encoding),
        cmocka_unit_test(test_real_sii_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
