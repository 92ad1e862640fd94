/* Building simulated networks: device lists, presets, ESI directories, ENI files
 * (catalogue devices and slaves described by the ENI itself), and the errors. The
 * identity a master reads from the SII must be what the source said. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>
#include "esc_testdev.h"

static uint32_t sii32(struct takt_sim *s, uint16_t st, uint16_t word, takt_ns_t now)
{
    uint8_t b[6];
    put_le16(b, SII_CMD_READ);
    put_le32(b + 2, word);
    tdg(s, ECAT_FPWR, FP(st, ESC_SII_CTRL), b, 6, now);
    uint8_t d[4] = { 0 };
    tdg(s, ECAT_FPRD, FP(st, ESC_SII_DATA), d, 4, now);
    return get_le32(d);
}

static void address_all(struct takt_sim *s)
{
    for (unsigned i = 0; i < takt_sim_slave_count(s); i++)
        tw16(s, ECAT_APWR, FP((uint16_t)-(int)i, ESC_STATION_ADDR), (uint16_t)(0x1001 + i), 1000);
}

static void device_list_and_preset(void **state)
{
    (void)state;
    struct takt_sim *s;
    char err[256];
    assert_int_equal(takt_sim_create("ek1100,el1004x3,servo", NULL, &s, err, sizeof err), 0);
    assert_int_equal(takt_sim_slave_count(s), 5);
    assert_string_equal(takt_sim_slave_name(s, 1), "el1004");
    assert_string_equal(takt_sim_slave_name(s, 4), "servo");
    uint8_t b[2] = { 0 };
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 1000), 5);
    address_all(s);
    assert_int_equal(sii32(s, 0x1005, SII_W_VENDOR, 2000), s->sl[4].dev->desc->vendor);
    assert_int_equal(sii32(s, 0x1005, SII_W_PRODUCT, 2000), s->sl[4].dev->desc->product);
    /* power cycle rebuilds the device from the catalogue: still a servo */
    assert_int_equal(takt_sim_power_cycle(s, 4, 3000), 0);
    assert_string_equal(takt_sim_slave_name(s, 4), "servo");
    takt_sim_destroy(s);

    assert_int_equal(takt_sim_create_preset("paper-40", NULL, &s, err, sizeof err), 0);
    assert_int_equal(takt_sim_slave_count(s), 40);
    assert_string_equal(takt_sim_slave_name(s, 0), "ek1100");
    assert_string_equal(takt_sim_slave_name(s, 1), "el1004");
    assert_string_equal(takt_sim_slave_name(s, 2), "el2004");
    assert_string_equal(takt_sim_slave_name(s, 39), "el1004");
    takt_sim_destroy(s);
    for (const char *const *p = (const char *const[]){ "3", "10", "20", NULL }; *p; p++) {
        assert_int_equal(takt_sim_create_preset(*p, NULL, &s, err, sizeof err), 0);
        assert_int_equal(takt_sim_slave_count(s), (unsigned)atoi(*p));
        takt_sim_destroy(s);
    }
}

static void errors_say_what(void **state)
{
    (void)state;
    struct takt_sim *s = (struct takt_sim *)1;
    char err[256];
    assert_int_not_equal(takt_sim_create("ek1100,frobnicator", NULL, &s, err, sizeof err), 0);
    assert_null(s);
    assert_non_null(strstr(err, "frobnicator"));
    assert_non_null(strstr(err, "slave at position 1"));
    assert_int_not_equal(takt_sim_create_preset("paper-x", NULL, &s, err, sizeof err), 0);
    assert_non_null(strstr(err, "paper-40"));
    assert_int_not_equal(takt_sim_create_esi_dir("/nonexistent-dir", NULL, &s, err, sizeof err), 0);
    assert_non_null(strstr(err, "/nonexistent-dir"));
    assert_int_not_equal(takt_sim_create_eni("/nonexistent.xml", NULL, &s, err, sizeof err), 0);
    assert_null(s);
}

static void esi_directory(void **state)
{
    (void)state;
    const char *src = getenv("TAKT_SOURCE_DIR");
    if (!src)
        skip();
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/data/esi", src);
    struct takt_sim *s;
    char err[256];
    assert_int_equal(takt_sim_create_esi_dir(dir, NULL, &s, err, sizeof err), 0);
    assert_int_equal(takt_sim_slave_count(s), 8);           /* one per *.xml, name order */
    assert_non_null(strstr(takt_sim_slave_name(s, 0), "echo"));    /* takt-echo.xml */
    assert_non_null(strstr(takt_sim_slave_name(s, 1), "EK1100"));
    assert_non_null(strstr(takt_sim_slave_name(s, 5), "EoE"));     /* takt-eoe-device.xml */
    takt_sim_destroy(s);
}

static void eni_fixtures(void **state)
{
    (void)state;
    const char *fx = getenv("TAKT_FIXTURES");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/eni/mega_master_eni.xml", fx ? fx : "");
    if (!fx || access(path, R_OK))
        skip();
    struct takt_sim *s;
    char err[512];
    assert_int_equal(takt_sim_create_eni(path, NULL, &s, err, sizeof err), 0);
    /* EK1100, EL2008, EL4002, EL1809 (Beckhoff, vendor 2) described from the ENI */
    assert_int_equal(takt_sim_slave_count(s), 4);
    assert_string_equal(takt_sim_slave_name(s, 1), "EL2008");
    address_all(s);
    static const uint32_t product[] = { 72100946, 131608658, 262287442, 118566994 };
    for (unsigned k = 0; k < 4; k++) {
        assert_int_equal(sii32(s, (uint16_t)(0x1001 + k), SII_W_VENDOR, 2000), 2);
        assert_int_equal(sii32(s, (uint16_t)(0x1001 + k), SII_W_PRODUCT, 2000), product[k]);
    }
    /* the EL2008 has 1 byte of outputs, the EL1809 2 bytes of inputs */
    size_t o = 0, i = 0;
    s->sl[1].dev->ops->pd_sizes(s->sl[1].dev, &o, &i);
    assert_int_equal(o, 1);
    s->sl[3].dev->ops->pd_sizes(s->sl[3].dev, &o, &i);
    assert_int_equal(i, 2);
    takt_sim_destroy(s);

    snprintf(path, sizeof path, "%s/eni/rocos-eni4.xml", fx);
    if (access(path, R_OK))
        return;
    assert_int_equal(takt_sim_create_eni(path, NULL, &s, err, sizeof err), 0);
    assert_int_equal(takt_sim_slave_count(s), 4);
    address_all(s);
    assert_int_equal(sii32(s, 0x1002, SII_W_VENDOR, 2000), 0x9A);
    assert_int_equal(sii32(s, 0x1002, SII_W_PRODUCT, 2000), 0x30924);
    /* a drive with a mailbox: SII advertises CoE */
    assert_int_equal(sii32(s, 0x1002, SII_W_MBX_PROTO, 2000) & MBX_PROTO_COE, MBX_PROTO_COE);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(device_list_and_preset),
        cmocka_unit_test(errors_say_what),
        cmocka_unit_test(esi_directory),
        cmocka_unit_test(eni_fixtures),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
