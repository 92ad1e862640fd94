/* SII images read over the wire as they come off real slaves: over 4 KiB (categories
 * beyond word 0x0800, read 8 or 4 bytes at a time) and broken ones, which the master
 * keeps as far as they decode and reports, slave by slave, as events. */
#include "unit/sim/master_rig.h"
#include "ecat/sii.h"
#include "ecat/driver.h"

/* A rig whose slave 0 carries the image edit() makes of the built one. */
static struct rig *rig_sii(bool read4, void (*edit)(uint8_t **img, size_t *len))
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *dev;
    mbx_desc(&r->desc[0], 0);
    assert_int_equal(sim_device_from_desc(&r->desc[0], &dev), 0);
    edit(&dev->sii, &dev->sii_len);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = -1;
    so.sii_read4 = read4;
    assert_int_equal(takt_sim_create_devices(&dev, 1, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = TAKT_NS_PER_MS;
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    return r;
}

/* Byte offset of the first category of type t, 0 if none. */
static size_t find_cat(const uint8_t *b, size_t len, uint16_t t)
{
    for (size_t off = 2 * SII_W_CATEGORIES; off + 4 <= len; off += 4 + 2u * get_le16(b + off + 2)) {
        if (get_le16(b + off) == t)
            return off;
        if (get_le16(b + off) == 0xFFFF)
            break;
    }
    return 0;
}

/* 2100 words of a device-specific category (ETG.2010 type 1) before the PDO
 * categories: they start past byte 4096 (word 0x0800) of a 16 KiB EEPROM */
static void grow(uint8_t **img, size_t *len)
{
    size_t at = find_cat(*img, *len, SII_CAT_TXPDO), pad = 4 + 2 * 2100, n = 16384;
    assert_true(at);
    uint8_t *b = malloc(n);
    memset(b, 0xFF, n);
    memcpy(b, *img, at);
    put_le16(b + at, 1);
    put_le16(b + at + 2, 2100);
    memset(b + at + 4, 0x5A, pad - 4);
    memcpy(b + at + pad, *img + at, *len - at);
    put_le16(b + 2 * SII_W_SIZE, 127);                   /* 128 KiBit */
    free(*img);
    *img = b;
    *len = n;
    assert_true(find_cat(b, n, SII_CAT_RXPDO) > 4096);
}

static bool event_has(struct takt_ecat_master *m, const char *a, const char *b)
{
    char ev[512];
    bool found = false;
    while (takt_ecat_master_next_event(m, ev, sizeof ev)) {
        printf("  event: %s\n", ev);
        found |= strstr(ev, a) && (!b || strstr(ev, b));
    }
    return found;
}

static void big(bool read4)
{
    struct rig *r = rig_sii(read4, grow);
    up(r, 1);
    struct takt_ecat_slave_info si;
    assert_int_equal(takt_ecat_master_slave_info(r->m, 0, &si), 0);
    assert_string_equal(si.name, "IO0");
    assert_int_equal(si.out_bits, 16);
    assert_int_equal(si.in_bits, 16);
    size_t len;
    const uint8_t *img = takt_ecat_slave_sii(r->m, 0, &len);
    assert_true(len > 4096);
    assert_true(find_cat(img, len, SII_CAT_RXPDO) > 4096);
    /* 0x0502: read size (bit 6) and the two-byte address algorithm of a big EEPROM (bit 7) */
    uint8_t ctrl[2];
    takt_sim_peek(r->sim, 0, ESC_SII_CTRL, ctrl, 2);
    assert_int_equal(ctrl[0] & (SII_READ8 | SII_ADDR2B), (read4 ? 0 : SII_READ8) | SII_ADDR2B);
    assert_false(event_has(r->m, "SII", NULL));
    rig_free(r);
}

static void test_big_sii_8byte(void **state) { (void)state; big(false); }
static void test_big_sii_4byte(void **state) { (void)state; big(true); }

/* the RxPDO category claims 0x3000 words, more than the EEPROM has */
static void past_end(uint8_t **img, size_t *len)
{
    size_t at = find_cat(*img, *len, SII_CAT_RXPDO);
    assert_true(at);
    put_le16(*img + at + 2, 0x3000);
}

static void test_broken_sii_kept_and_reported(void **state)
{
    (void)state;
    struct rig *r = rig_sii(false, past_end);
    int rc = takt_ecat_master_scan(r->m, 2 * TAKT_NS_PER_S);
    if (rc)
        printf("scan: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    struct takt_ecat_slave_info si;
    assert_int_equal(takt_ecat_master_slave_info(r->m, 0, &si), 0);
    assert_string_equal(si.name, "IO0");                 /* what decodes is kept */
    assert_int_equal(si.in_bits, 16);
    assert_int_equal(si.out_bits, 0);                    /* the RxPDOs are lost */
    assert_true(event_has(r->m, "slave 0: SII category 51 at word", "skipped"));
    rig_free(r);
}

/* every category a word late: the master says so instead of a silent "no name" */
static void shifted(uint8_t **img, size_t *len)
{
    uint8_t *b = *img;
    memmove(b + 2 * SII_W_CATEGORIES + 2, b + 2 * SII_W_CATEGORIES, *len - 2 * SII_W_CATEGORIES - 2);
    put_le16(b + 2 * SII_W_CATEGORIES, 0);
}

static void test_misaligned_sii_reported(void **state)
{
    (void)state;
    struct rig *r = rig_sii(false, shifted);
    assert_int_equal(takt_ecat_master_scan(r->m, 2 * TAKT_NS_PER_S), 0);
    assert_true(event_has(r->m, "slave 0: SII", NULL));
    rig_free(r);
}

/* A slave name is wire data: a newline in it must not break an event line in two, nor
 * forge a second line; it comes out escaped, the rest of the name intact. */
static void test_event_lines_escape_control_bytes(void **state)
{
    (void)state;
    struct rig *r = rig_sii(false, shifted);
    ECAT_EVT(&r->m->core, TAKT_ECAT_EV_SLAVE_LOST, 0, RT_TXT("EL\n2004\x1b[2J"), 0x1000);
    ECAT_FAILT(&r->m->core, -EIO, TAKT_ECAT_EV_NO_EOE, 0, RT_TXT("EL\r\n2004"), 0);
    char ev[512];
    int n = 0;
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev)) {
        printf("  event: %s\n", ev);
        assert_null(strpbrk(ev, "\r\n\x1b"));
        assert_non_null(strstr(ev, "2004"));
        n++;
    }
    assert_int_equal(n, 2);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "EL\\x0D\\x0A2004"));
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_big_sii_8byte),
        cmocka_unit_test(test_big_sii_4byte),
        cmocka_unit_test(test_broken_sii_kept_and_reported),
        cmocka_unit_test(test_misaligned_sii_reported),
        cmocka_unit_test(test_event_lines_escape_control_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
