/* SII images as they come off real slaves: broken, misaligned, with unknown categories
 * and more than 4 KiB long. The decoder keeps what it can decode and reports every
 * finding (ETG.2010 layout); only strict mode refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/takt.h>
#include "ecat/sii.h"
#include "util/wire.h"

static struct ecat_sii sii;       /* large: keep off the stack */
static char err[256];

struct img { uint8_t b[16384]; size_t pos; };
static struct img m;

static void img_start(void)
{
    memset(m.b, 0xFF, sizeof m.b);
    memset(m.b, 0, 2 * SII_W_CATEGORIES);
    put_le32(m.b + 2 * SII_W_VENDOR, 0xAB);
    put_le32(m.b + 2 * SII_W_PRODUCT, 0x11223344);
    put_le16(m.b + 2 * SII_W_SIZE, 63);                  /* 64 KiBit = 8 KiB */
    m.b[2 * SII_W_CHECKSUM] = ecat_sii_crc(m.b, 14);
    m.pos = 2 * SII_W_CATEGORIES;
}

/* category of n bytes; words overrides the length word when nonzero */
static void img_cat(uint16_t type, const uint8_t *d, size_t n, unsigned words)
{
    put_le16(m.b + m.pos, type);
    put_le16(m.b + m.pos + 2, (uint16_t)(words ? words : (n + 1) / 2));
    if (d)
        memcpy(m.b + m.pos + 4, d, n);
    else
        memset(m.b + m.pos + 4, 0, n);
    m.pos += 4 + (n + 1) / 2 * 2;
}

static void img_end(void) { put_le16(m.b + m.pos, 0xFFFF); m.pos += 2; }

static const uint8_t strings[] = { 2, 5, 'D', 'r', 'i', 'v', 'e', 2, 'I', 'n' };
static const uint8_t tx[] = { 0x00, 0x1A, 1, 3, 0, 2, 0, 0,  0x00, 0x60, 1, 0, 6, 16, 0, 0 };
static const uint8_t rx[] = { 0x00, 0x16, 1, 2, 0, 0, 0, 0,  0x00, 0x70, 1, 0, 6, 16, 0, 0 };

static void general(void)
{
    uint8_t gen[32] = {0};
    gen[3] = 1;
    img_cat(SII_CAT_GENERAL, gen, sizeof gen, 0);
}

static bool has_warning(const char *a, const char *b)
{
    for (unsigned i = 0; i < sii.n_warnings && i < ECAT_SII_MAX_WARN; i++)
        if (strstr(sii.warning[i], a) && (!b || strstr(sii.warning[i], b)))
            return true;
    return false;
}

/* the last category claims more words than the image has: what came before it stays */
static void test_category_past_end_keeps_the_rest(void **state)
{
    (void)state;
    img_start();
    img_cat(SII_CAT_STRINGS, strings, sizeof strings, 0);
    general();
    img_cat(SII_CAT_TXPDO, tx, sizeof tx, 0);
    size_t rx_word = m.pos / 2;
    img_cat(SII_CAT_RXPDO, rx, sizeof rx, 0x0400);       /* 1024 words: past the end */
    img_end();
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, 0, err, sizeof err), 0);
    assert_string_equal(ecat_sii_name(&sii), "Drive");
    assert_int_equal(sii.n_pdo, 1);
    assert_true(sii.pdo[0].tx);
    char where[64];
    snprintf(where, sizeof where, "category 51 at word 0x%04zx", rx_word);
    assert_true(has_warning(where, "skipped"));
    /* strict: refused with the same words */
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), -TAKT_ESII);
    assert_non_null(strstr(err, where));
}

/* a string running past its category: the strings before it stay usable */
static void test_truncated_strings_warn(void **state)
{
    (void)state;
    img_start();
    static const uint8_t s[] = { 3, 5, 'D', 'r', 'i', 'v', 'e', 3, 'a', 'b', 'c', 40, 'x' };
    img_cat(SII_CAT_STRINGS, s, sizeof s, 0);
    general();
    img_cat(SII_CAT_TXPDO, tx, sizeof tx, 0);
    img_end();
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, 0, err, sizeof err), 0);
    assert_string_equal(ecat_sii_name(&sii), "Drive");
    assert_string_equal(ecat_sii_str(&sii, 2), "abc");
    assert_string_equal(ecat_sii_str(&sii, 3), "");
    assert_int_equal(sii.n_pdo, 1);
    assert_true(has_warning("string 3 needs 40 bytes", "rest of the category skipped"));
}

/* every finding is reported, not just the first */
static void test_all_warnings_kept(void **state)
{
    (void)state;
    img_start();
    m.b[2 * SII_W_CHECKSUM] ^= 0x55;
    img_cat(0x0123, NULL, 6, 0);                         /* not an ETG.2010 type */
    img_cat(SII_CAT_STRINGS, strings, sizeof strings, 0);
    general();
    static const uint8_t bad_tx[] = { 0x00, 0x1A, 9, 3, 0, 2, 0, 0 };   /* 9 entries, none there */
    img_cat(SII_CAT_TXPDO, bad_tx, sizeof bad_tx, 0);
    img_cat(SII_CAT_RXPDO, rx, sizeof rx, 0);
    img_end();
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, 0, err, sizeof err), 0);
    assert_int_equal(sii.n_warnings, 3);
    assert_true(has_warning("checksum at word 0x0007", NULL));
    assert_true(has_warning("category 291 at word 0x0040", "unknown type"));
    assert_true(has_warning("PDO 0x1A00 announces 9 entries", NULL));
    assert_int_equal(sii.n_pdo, 1);                      /* the RxPDO after it */
    assert_false(sii.pdo[0].tx);
}

/* categories that do not start at word 0x40 (an image read or written shifted by a
 * word): garbage types and lengths, never silence */
static void test_misaligned_is_reported(void **state)
{
    (void)state;
    img_start();
    m.pos += 2;
    img_cat(SII_CAT_STRINGS, strings, sizeof strings, 0);
    general();
    img_cat(SII_CAT_TXPDO, tx, sizeof tx, 0);
    img_end();
    put_le16(m.b + 0x80, 0x0000);                        /* what the shift left there */
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, 0, err, sizeof err), 0);
    assert_true(sii.n_warnings >= 1);
    assert_string_equal(ecat_sii_name(&sii), "");
    assert_true(has_warning("no general category", NULL));
}

/* an image over 4 KiB: the categories beyond word 0x0800 are read like any other */
static void test_image_over_4k(void **state)
{
    (void)state;
    img_start();
    img_cat(SII_CAT_STRINGS, strings, sizeof strings, 0);
    general();
    img_cat(1, NULL, 2 * 2100, 0);                       /* device specific, 4200 bytes */
    img_cat(SII_CAT_TXPDO, tx, sizeof tx, 0);
    size_t rx_off = m.pos;
    img_cat(SII_CAT_RXPDO, rx, sizeof rx, 0);
    img_end();
    assert_true(rx_off > 4096);
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
    assert_int_equal(sii.n_pdo, 2);
    assert_int_equal(sii.n_warnings, 0);
    assert_int_equal(sii.eeprom_kbit, 64);
    size_t have = 2 * SII_W_CATEGORIES, need;
    while (ecat_sii_need(m.b, have, &need) == 1)
        have = need;
    assert_true(have >= m.pos);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_category_past_end_keeps_the_rest),
        cmocka_unit_test(test_truncated_strings_warn),
        cmocka_unit_test(test_all_warnings_kept),
        cmocka_unit_test(test_misaligned_is_reported),
        cmocka_unit_test(test_image_over_4k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
