/* SII parser: the four real EEPROM dumps (skipped without $TAKT_FIXTURES) and
 * hand-built images for every category, bad checksums and truncation. */
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

static size_t load_fixture(const char *name, uint8_t *buf, size_t cap)
{
    const char *dir = getenv("TAKT_FIXTURES");
    if (!dir)
        return 0;
    char path[512];
    snprintf(path, sizeof path, "%s/sii/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

#define LOAD_OR_SKIP(name, buf) \
    size_t n_##buf = load_fixture(name, buf, sizeof buf); \
    if (!n_##buf) { print_message("fixture %s absent (TAKT_FIXTURES), skipped\n", name); skip(); }

static void test_ek1100(void **state)
{
    (void)state;
    uint8_t img[4096];
    LOAD_OR_SKIP("ek1100-eeprom-dump.bin", img);
    assert_int_equal(ecat_sii_decode(img, n_img, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
    assert_true(sii.csum_ok);
    assert_int_equal(sii.id.vendor, 0x2);
    assert_int_equal(sii.id.product, 0x044C2C52);
    assert_int_equal(sii.id.revision, 0x00120000);
    assert_true(sii.has_general);
    assert_string_equal(ecat_sii_str(&sii, sii.gen.order), "EK1100");
    assert_string_equal(ecat_sii_name(&sii), "EK1100 EtherCAT-Koppler (2A E-Bus)");
    assert_int_equal(sii.gen.ebus_current_ma, -2000);   /* a coupler feeds the E-bus */
    assert_int_equal(sii.cats_seen, ECAT_SII_SEEN_STRINGS | ECAT_SII_SEEN_GENERAL | ECAT_SII_SEEN_END);
    assert_int_equal(sii.n_pdo, 0);
    assert_int_equal(sii.std_rx.size, 0);               /* no mailbox */
    assert_int_equal(sii.n_warnings, 0);
}

static void test_el2004(void **state)
{
    (void)state;
    uint8_t img[4096];
    LOAD_OR_SKIP("el2004-eeprom-dump.bin", img);
    assert_int_equal(ecat_sii_decode(img, n_img, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
    assert_int_equal(sii.id.vendor, 0x2);
    assert_int_equal(sii.id.product, 0x07D43052);
    assert_int_equal(sii.id.revision, 0x00100000);
    assert_int_equal(sii.n_fmmu, 1);
    assert_int_equal(sii.fmmu[0], ECAT_SII_FMMU_OUTPUTS);
    assert_int_equal(sii.n_sm, 1);
    assert_int_equal(sii.sm[0].start, 0x0F00);
    assert_int_equal(sii.sm[0].ctrl, 0x44);
    assert_int_equal(sii.sm[0].type, ECAT_SII_SM_OUTPUTS);
    assert_int_equal(sii.n_pdo, 4);
    for (unsigned i = 0; i < 4; i++) {
        const struct ecat_sii_pdo *p = &sii.pdo[i];
        assert_false(p->tx);
        assert_int_equal(p->index, 0x1600 + i);
        assert_int_equal(p->sm, 0);
        assert_int_equal(p->n_entries, 1);
        const struct ecat_sii_entry *e = &sii.entry[p->first_entry];
        assert_int_equal(e->index, 0x7000 + 0x10 * i);
        assert_int_equal(e->subindex, 1);
        assert_int_equal(e->bitlen, 1);
        assert_int_equal(e->data_type, 1);
        assert_string_equal(ecat_sii_str(&sii, e->name), "Output");
        char want[16];
        snprintf(want, sizeof want, "Channel %u", i + 1);
        assert_string_equal(ecat_sii_str(&sii, p->name), want);
    }
    assert_true(sii.cats_seen & ECAT_SII_SEEN_SYNCUNIT);
    assert_true(ecat_sii_lrw_ok(&sii));
}

static void check_outputs(const char *file, uint32_t product, unsigned n_out, unsigned n_sm)
{
    uint8_t img[4096];
    size_t n = load_fixture(file, img, sizeof img);
    if (!n) {
        print_message("fixture %s absent (TAKT_FIXTURES), skipped\n", file);
        skip();
    }
    assert_int_equal(ecat_sii_decode(img, n, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
    assert_int_equal(sii.id.product, product);
    assert_int_equal(sii.n_sm, n_sm);
    assert_int_equal(sii.n_pdo, n_out);
    unsigned bits = 0;
    for (unsigned i = 0; i < sii.n_pdo; i++) {
        assert_false(sii.pdo[i].tx);
        assert_int_equal(sii.pdo[i].index, 0x1600 + i);
        assert_int_equal(sii.pdo[i].sm, i / 8);          /* 8 channels per SM byte */
        bits += sii.entry[sii.pdo[i].first_entry].bitlen;
    }
    assert_int_equal(bits, n_out);
}

static void test_el2828(void **state) { (void)state; check_outputs("el2828.hex", 0x0B0C3052, 8, 1); }
static void test_el2889(void **state) { (void)state; check_outputs("el2889.hex", 0x0B493052, 16, 2); }

/* --- hand-built images ------------------------------------------------------- */

struct img { uint8_t b[1024]; size_t pos; };

static void img_start(struct img *m)
{
    memset(m->b, 0, sizeof m->b);
    put_le16(m->b + 2 * SII_W_ALIAS, 0x1234);
    put_le32(m->b + 2 * SII_W_VENDOR, 0xAB);
    put_le32(m->b + 2 * SII_W_PRODUCT, 0x11223344);
    put_le32(m->b + 2 * SII_W_REVISION, 7);
    put_le32(m->b + 2 * SII_W_SERIAL, 99);
    put_le16(m->b + 2 * SII_W_STD_RX_OFF, 0x1000);
    put_le16(m->b + 2 * SII_W_STD_RX_SIZE, 128);
    put_le16(m->b + 2 * SII_W_STD_TX_OFF, 0x1080);
    put_le16(m->b + 2 * SII_W_STD_TX_SIZE, 128);
    put_le16(m->b + 2 * SII_W_MBX_PROTO, MBX_PROTO_COE | MBX_PROTO_FOE);
    m->b[2 * SII_W_CHECKSUM] = ecat_sii_crc(m->b, 14);
    m->pos = 2 * SII_W_CATEGORIES;
}

static void img_cat(struct img *m, uint16_t type, const uint8_t *d, size_t n)
{
    put_le16(m->b + m->pos, type);
    put_le16(m->b + m->pos + 2, (uint16_t)((n + 1) / 2));
    memcpy(m->b + m->pos + 4, d, n);
    m->pos += 4 + (n + 1) / 2 * 2;
}

static void img_end(struct img *m) { put_le16(m->b + m->pos, 0xFFFF); m->pos += 2; }

static void build_full(struct img *m)
{
    img_start(m);
    static const uint8_t strings[] = { 3, 5, 'D', 'r', 'i', 'v', 'e', 6, 'S', 't', 'a', 't', 'u', 's',
                                       4, 'I', 'n', 'p', 't' };
    img_cat(m, SII_CAT_STRINGS, strings, sizeof strings);
    uint8_t gen[32] = {0};
    gen[3] = 1;                                          /* name: "Drive" */
    gen[5] = ECAT_COE_DET_SDO | ECAT_COE_DET_SDO_INFO | ECAT_COE_DET_COMPLETE_ACCESS;
    gen[11] = ECAT_SII_FLAG_NOT_LRW;
    put_le16(gen + 12, 200);
    img_cat(m, SII_CAT_GENERAL, gen, sizeof gen);
    static const uint8_t fmmu[] = { 1, 2, 3 };
    img_cat(m, SII_CAT_FMMU, fmmu, sizeof fmmu);         /* odd: padded with 0 by img_cat */
    static const uint8_t sm[] = { 0x00, 0x10, 0x80, 0, 0x26, 0, 1, 1,
                                  0x80, 0x10, 0x80, 0, 0x22, 0, 1, 2,
                                  0x00, 0x11, 0x00, 0, 0x64, 0, 1, 3,
                                  0x80, 0x11, 0x00, 0, 0x20, 0, 1, 4 };
    img_cat(m, SII_CAT_SM, sm, sizeof sm);
    static const uint8_t tx[] = { 0x00, 0x1A, 2, 3, 0, 3, 0, 0,
                                  0x41, 0x60, 0, 2, 6, 16, 0, 0,
                                  0x64, 0x60, 0, 0, 4, 32, 0, 0 };
    img_cat(m, SII_CAT_TXPDO, tx, sizeof tx);
    uint8_t dc[24] = {0};
    put_le32(dc, 1000000);
    put_le16(dc + 14, 0x0300);
    img_cat(m, SII_CAT_DC, dc, sizeof dc);
    img_end(m);
}

static void test_synthetic_all_categories(void **state)
{
    (void)state;
    struct img m;
    build_full(&m);
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
    assert_int_equal(sii.alias, 0x1234);
    assert_int_equal(sii.id.serial, 99);
    assert_int_equal(sii.std_rx.offset, 0x1000);
    assert_int_equal(sii.std_tx.offset, 0x1080);
    assert_int_equal(sii.std_tx.size, 128);
    assert_int_equal(sii.mbx_proto, MBX_PROTO_COE | MBX_PROTO_FOE);
    assert_string_equal(ecat_sii_name(&sii), "Drive");
    assert_int_equal(sii.gen.coe_details & ECAT_COE_DET_COMPLETE_ACCESS, ECAT_COE_DET_COMPLETE_ACCESS);
    assert_false(ecat_sii_lrw_ok(&sii));
    assert_int_equal(sii.n_fmmu, 4);                     /* 3 + the zero pad byte */
    assert_int_equal(sii.fmmu[2], ECAT_SII_FMMU_MBX_STATE);
    assert_int_equal(sii.n_sm, 4);
    assert_int_equal(sii.sm[2].start, 0x1100);
    assert_int_equal(sii.sm[3].type, ECAT_SII_SM_INPUTS);
    assert_int_equal(sii.n_pdo, 1);
    assert_true(sii.pdo[0].tx);
    assert_int_equal(sii.pdo[0].sm, 3);
    assert_string_equal(ecat_sii_str(&sii, sii.pdo[0].name), "Inpt");
    assert_int_equal(sii.entry[1].index, 0x6064);
    assert_int_equal(sii.entry[1].bitlen, 32);
    assert_string_equal(ecat_sii_str(&sii, sii.entry[0].name), "Status");
    assert_int_equal(sii.n_dc, 1);
    assert_int_equal(sii.dc[0].cycle0, 1000000);
    assert_int_equal(sii.dc[0].assign_activate, 0x0300);
    assert_string_equal(ecat_sii_str(&sii, 0), "");
    assert_string_equal(ecat_sii_str(&sii, 200), "");
}

static void test_bad_checksum(void **state)
{
    (void)state;
    struct img m;
    build_full(&m);
    uint8_t good = m.b[14];
    m.b[14] ^= 0x5A;
    /* default: accepted with a warning naming the word, expected and found */
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, 0, err, sizeof err), 0);
    assert_false(sii.csum_ok);
    assert_int_equal(sii.n_warnings, 1);
    char want[128];
    snprintf(want, sizeof want, "expected 0x%02X", good);
    assert_non_null(strstr(sii.warning[0], "word 0x0007"));
    assert_non_null(strstr(sii.warning[0], want));
    assert_int_equal(sii.id.product, 0x11223344);
    /* strict: refused */
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), -TAKT_ESII);
    assert_non_null(strstr(err, "word 0x0007"));
    /* repaired */
    ecat_sii_set_checksum(m.b);
    assert_int_equal(m.b[14], good);
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
}

/* strict: every broken category is refused, naming where and what */
static void test_truncated_category(void **state)
{
    (void)state;
    struct img m;
    build_full(&m);
    /* cut inside the TxPDO category: error names the category's word and the end */
    size_t cut = m.pos - 2 - (4 + 24) - 10;
    assert_int_equal(ecat_sii_decode(m.b, cut, &sii, ECAT_SII_STRICT, err, sizeof err), -TAKT_ESII);
    assert_non_null(strstr(err, "category 50 at word 0x"));
    assert_non_null(strstr(err, "image ends at word"));
    /* a PDO announcing more entries than its category holds */
    build_full(&m);
    size_t tx = 0;
    for (size_t off = 0x80; off < m.pos; off += 4 + 2u * get_le16(m.b + off + 2))
        if (get_le16(m.b + off) == SII_CAT_TXPDO) { tx = off; break; }
    assert_true(tx);
    m.b[tx + 4 + 2] = 9;
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), -TAKT_ESII);
    assert_non_null(strstr(err, "PDO 0x1A00 announces 9 entries"));
    /* a string running past its category */
    img_start(&m);
    static const uint8_t s[] = { 2, 3, 'a', 'b', 'c', 40, 'x' };
    img_cat(&m, SII_CAT_STRINGS, s, sizeof s);
    img_end(&m);
    assert_int_equal(ecat_sii_decode(m.b, m.pos, &sii, ECAT_SII_STRICT, err, sizeof err), -TAKT_ESII);
    assert_non_null(strstr(err, "string 2 needs 40 bytes"));
    /* header shorter than 128 bytes */
    assert_int_equal(ecat_sii_decode(m.b, 100, &sii, 0, err, sizeof err), -TAKT_ESII);
    assert_non_null(strstr(err, "found 100"));
}

static void test_missing_end_warns(void **state)
{
    (void)state;
    struct img m;
    build_full(&m);
    /* stop exactly after the DC category, without the end marker */
    assert_int_equal(ecat_sii_decode(m.b, m.pos - 2, &sii, 0, err, sizeof err), 0);
    assert_int_equal(sii.n_dc, 1);
    assert_int_equal(sii.n_warnings, 1);
    assert_non_null(strstr(sii.warning[0], "without the end category"));
}

static void test_need_incremental(void **state)
{
    (void)state;
    struct img m;
    build_full(&m);
    size_t have = 0, need = 0, steps = 0;
    /* read the way the master does: grow until ecat_sii_need says complete */
    have = 8;
    while (ecat_sii_need(m.b, have, &need) == 1) {
        assert_true(need > have);
        have = need;
        assert_true(++steps < 20);
    }
    assert_true(have >= m.pos);
    assert_int_equal(ecat_sii_decode(m.b, have, &sii, ECAT_SII_STRICT, err, sizeof err), 0);
    assert_int_equal(sii.cats_seen & ECAT_SII_SEEN_END, ECAT_SII_SEEN_END);
}

static void test_garbage_never_crashes(void **state)
{
    (void)state;
    uint8_t b[700];
    uint32_t x = 12345;
    for (int round = 0; round < 2000; round++) {
        for (size_t i = 0; i < sizeof b; i++) {
            x = x * 1103515245u + 12345u;
            b[i] = (uint8_t)(x >> 16);
        }
        if (round & 1) {            /* plausible category types with random lengths */
            put_le16(b + 0x80, (uint16_t)(round % 3 ? SII_CAT_TXPDO : SII_CAT_STRINGS));
        }
        size_t n = (x >> 8) % sizeof b, need;
        int rc = ecat_sii_decode(b, n, &sii, 0, err, sizeof err);
        assert_true(rc == 0 || rc == -TAKT_ESII);
        (void)ecat_sii_need(b, n, &need);
    }
}

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(takt_ecat_coe_type_name(7), "UDINT");
    assert_int_equal(ecat_coe_type_bits(7), 32);
    assert_string_equal(takt_ecat_coe_type_name(1), "BOOL");
    assert_string_equal(takt_ecat_coe_type_name(0x1234), "");
    assert_int_equal(ecat_coe_type_bits(0x1234), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ek1100),
        cmocka_unit_test(test_el2004),
        cmocka_unit_test(test_el2828),
        cmocka_unit_test(test_el2889),
        cmocka_unit_test(test_synthetic_all_categories),
        cmocka_unit_test(test_bad_checksum),
        cmocka_unit_test(test_truncated_category),
        cmocka_unit_test(test_missing_end_warns),
        cmocka_unit_test(test_need_incremental),
        cmocka_unit_test(test_garbage_never_crashes),
        cmocka_unit_test(test_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
