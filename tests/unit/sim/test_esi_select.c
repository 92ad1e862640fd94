/* ESI files as vendors ship them: packages of many devices (picked by name, product
 * code or revision: FILE@SEL in --devices and --esi-dir), dictionaries with an
 * array-typed SubItem that has its own SubIdx (Beckhoff EL30xx 0x1800:06) and
 * 512-byte array entries, and libxml2's messages without their newline. The fixture
 * is tests/fixtures/esi/takt-test-multi.xml. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <takt/sim.h>
#include "ecat/proto.h"
#include "ecat/sii.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "util/wire.h"

static char multi[4096];

static int setup(void **state)
{
    (void)state;
    const char *src = getenv("TAKT_SOURCE_DIR");
    snprintf(multi, sizeof multi, "%s/tests/fixtures/esi/takt-test-multi.xml", src ? src : ".");
    return access(multi, R_OK) ? -1 : 0;
}

static struct sim_device *create(const char *sel, char *err, size_t n)
{
    char name[4200];
    struct sim_device *d = NULL;
    snprintf(name, sizeof name, "%s%s", multi, sel);
    int rc = sim_device_create(name, &d, err, n);
    return rc ? NULL : d;
}

static uint32_t sii32(const struct sim_device *d, unsigned w) { return get_le32(d->sii + 2 * w); }

/* by Type, by <Name>, by product code, by revision; without a selection the first */
static void pick_a_device(void **state)
{
    (void)state;
    char err[512] = "";
    static const struct { const char *sel; uint32_t product, revision; } k[] = {
        { "", 0x03EC3052, 0x00100000 },
        { "@TT2004", 0x07D43052, 0x00100000 },
        { "@tt3102", 0x0C1E3052, 0x00100000 },
        { "@TT1004 4Ch. Dig. In, rev 1.2", 0x03EC3052, 0x00120000 },
        { "@#x07D43052", 0x07D43052, 0x00100000 },
        { "@0x0C1E3052", 0x0C1E3052, 0x00100000 },
        { "@TT1004:#x00120000", 0x03EC3052, 0x00120000 },
        { "@#x03EC3052:0x00130000", 0x03EC3052, 0x00130000 },
        { "@:#x00130000", 0x03EC3052, 0x00130000 },
    };
    /* revision 0 is a revision like any other once named */
    assert_null(create("@TT1004:0", err, sizeof err));
    assert_non_null(strstr(err, "TT1004:#x00000000"));
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        struct sim_device *d = create(k[i].sel, err, sizeof err);
        if (!d)
            fail_msg("'%s': %s", k[i].sel, err);
        assert_int_equal(sii32(d, SII_W_PRODUCT), k[i].product);
        assert_int_equal(sii32(d, SII_W_REVISION), k[i].revision);
        d->ops->destroy(d);
    }
    /* nothing matches: the message says what the file has */
    assert_null(create("@EL9999", err, sizeof err));
    assert_non_null(strstr(err, "no <Device> matching EL9999"));
    assert_non_null(strstr(err, "it has 5: TT1004 #x03EC3052:#x00100000"));
    assert_null(create("@TT1004:#x00990000", err, sizeof err));
    assert_non_null(strstr(err, "TT1004:#x00990000"));
    assert_null(create("@TT1004:rev", err, sizeof err));
    assert_non_null(strstr(err, "expected a revision number"));
    assert_null(create("@#xZZ", err, sizeof err));
    assert_non_null(strstr(err, "expected a product code"));
}

/* the count suffix still works after a selection, and a hex selection is no count */
static void device_list_with_selection(void **state)
{
    (void)state;
    struct sim_device_spec sp[4];
    unsigned n;
    char err[256];
    assert_int_equal(sim_device_list_parse("a.xml@0x1000,a.xml@0x1000x2,a.xml@#x10,a.xml@TT1004:0x20x3",
                                           sp, 4, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(sp[0].name, "a.xml@0x1000");
    assert_int_equal(sp[0].count, 1);
    assert_string_equal(sp[1].name, "a.xml@0x1000");
    assert_int_equal(sp[1].count, 2);
    assert_string_equal(sp[2].name, "a.xml@#x10");
    assert_int_equal(sp[2].count, 1);
    assert_string_equal(sp[3].name, "a.xml@TT1004:0x20");
    assert_int_equal(sp[3].count, 3);
}

/* --esi-dir DIR@SEL: the device SEL picks from every file that has it */
static void esi_dir_with_selection(void **state)
{
    (void)state;
    char dir[] = "/tmp/takt-esi-XXXXXX", path[4200], spec[4200], err[512] = "";
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.xml", dir);
    assert_int_equal(symlink(multi, path), 0);
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    struct takt_sim *sim = NULL;
    snprintf(spec, sizeof spec, "%s@TT3102", dir);
    if (takt_sim_create_esi_dir(spec, &o, &sim, err, sizeof err))
        fail_msg("%s: %s", spec, err);
    assert_int_equal(takt_sim_slave_count(sim), 1);
    uint8_t id[4];
    takt_sim_peek(sim, 0, 0x0000, id, 1);                /* the ESC answers */
    takt_sim_destroy(sim);
    snprintf(spec, sizeof spec, "%s@EL9999", dir);
    assert_int_equal(takt_sim_create_esi_dir(spec, &o, &sim, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "matching EL9999"));
    unlink(path);
    rmdir(dir);
}

/* Beckhoff EL30xx: DT1800 has SubIdx 6 typed ARRAY [0..15] OF BOOL and SubIdx 7 BOOL;
 * a servo's 0x2000:01 is ARRAY [0..511] OF BYTE; 0x2001 is typed with the array itself */
static void array_subitems_are_one_entry(void **state)
{
    (void)state;
    struct sim_esi_device *d = malloc(sizeof *d);
    struct sim_esi_select sel = { .name = "TT3102" };
    char err[512] = "";
    if (sim_esi_load(multi, &sel, d, err, sizeof err))
        fail_msg("%s", err);
    struct od_object *o = od_find(&d->dict, 0x1800);
    assert_non_null(o);
    assert_int_equal(o->code, OD_RECORD);
    assert_int_equal(o->n, 4);                           /* 0, 6, 7, 9 */
    assert_int_equal(od_entry(o, 6)->bits, 16);
    assert_int_equal(od_entry(o, 6)->bitoff, 16);
    assert_string_equal(od_entry(o, 6)->name, "Exclude TxPDOs");
    assert_int_equal(od_entry(o, 7)->bits, 1);
    assert_int_equal(od_get(od_entry(o, 0)), 9);
    struct od_entry *e = od_find_entry(&d->dict, 0x2000, 1);
    assert_non_null(e);
    assert_int_equal(e->bits, 4096);
    e = od_find_entry(&d->dict, 0x2001, 0);
    assert_non_null(e);
    assert_int_equal(e->bits, 4096);
    sim_esi_free(d);
    /* an array without SubIdx whose elements do not fit subindices 1..255 is one entry
     * too; one that fits still expands (0x1C12-like) */
    static const char *xml =
        "<EtherCATInfo><Vendor><Id>2</Id></Vendor><Descriptions><Devices><Device>"
        "<Type ProductCode=\"1\" RevisionNo=\"1\">X</Type><Profile><Dictionary><DataTypes>"
        "<DataType><Name>A512</Name><BaseType>BYTE</BaseType><BitSize>4096</BitSize>"
        "<ArrayInfo><LBound>1</LBound><Elements>512</Elements></ArrayInfo></DataType>"
        "<DataType><Name>DT</Name><BitSize>4112</BitSize>"
        "<SubItem><SubIdx>0</SubIdx><Name>SubIndex 000</Name><Type>USINT</Type><BitSize>8</BitSize><BitOffs>0</BitOffs></SubItem>"
        "<SubItem><Name>Data</Name><Type>A512</Type><BitSize>4096</BitSize><BitOffs>16</BitOffs></SubItem>"
        "</DataType></DataTypes><Objects>"
        "<Object><Index>#x3000</Index><Name>Blob</Name><Type>DT</Type><BitSize>4112</BitSize></Object>"
        "</Objects></Dictionary></Profile></Device></Devices></Descriptions></EtherCATInfo>";
    if (sim_esi_parse(xml, strlen(xml), NULL, d, err, sizeof err))
        fail_msg("%s", err);
    e = od_find_entry(&d->dict, 0x3000, 1);
    assert_non_null(e);
    assert_int_equal(e->bits, 4096);
    assert_int_equal(od_find(&d->dict, 0x3000)->code, OD_RECORD);
    sim_esi_free(d);
    free(d);
}

/* TT1004-BIG: the SII the simulator builds holds its PDO categories past word 0x0800 */
static void big_eeprom(void **state)
{
    (void)state;
    char err[512] = "";
    struct sim_device *d = create("@TT1004-BIG", err, sizeof err);
    if (!d)
        fail_msg("%s", err);
    assert_true(d->sii_len > 4096);
    static struct ecat_sii sii;
    if (ecat_sii_decode(d->sii, d->sii_len, &sii, ECAT_SII_STRICT, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(sii.n_pdo, 19);
    assert_int_equal(sii.eeprom_kbit * 128u, d->sii_len);
    d->ops->destroy(d);
    /* Eeprom/ByteSize sizes the EEPROM (word 0x003E) even where the image is small */
    static const char *fmt =
        "<EtherCATInfo><Vendor><Id>2</Id></Vendor><Descriptions><Devices><Device>"
        "<Type ProductCode=\"1\" RevisionNo=\"1\">X</Type>\n<Eeprom><ByteSize>%s</ByteSize></Eeprom>"
        "</Device></Devices></Descriptions></EtherCATInfo>";
    char xml[512];
    struct sim_esi_device *e = malloc(sizeof *e);
    snprintf(xml, sizeof xml, fmt, "16384");
    assert_int_equal(sim_esi_parse(xml, strlen(xml), NULL, e, err, sizeof err), 0);
    assert_int_equal(sim_device_new(&e->desc, &e->dict, &d), 0);
    assert_int_equal(d->sii_len, 16384);
    assert_int_equal(get_le16(d->sii + 2 * SII_W_SIZE), 127);      /* 128 KiBit - 1 */
    d->ops->destroy(d);
    sim_esi_free(e);
    snprintf(xml, sizeof xml, fmt, "131072");
    assert_int_equal(sim_esi_parse(xml, strlen(xml), NULL, e, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "line 2: <Eeprom><ByteSize>: expected 0..65536"));
    free(e);
}

/* libxml2 ends its messages with a newline; the error is one line */
static void xml_error_one_line(void **state)
{
    (void)state;
    struct sim_esi_device *d = malloc(sizeof *d);
    char err[512];
    static const char *bad = "<EtherCATInfo><Vendor>\n<Id>2</Id></Vendr>";
    assert_int_equal(sim_esi_parse(bad, strlen(bad), NULL, d, err, sizeof err), -TAKT_EXML);
    assert_non_null(strstr(err, "not well-formed XML: "));
    assert_null(strchr(err, '\n'));
    assert_non_null(strstr(err, "(line 2)"));
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pick_a_device),
        cmocka_unit_test(device_list_with_selection),
        cmocka_unit_test(esi_dir_with_selection),
        cmocka_unit_test(array_subitems_are_one_entry),
        cmocka_unit_test(big_eeprom),
        cmocka_unit_test(xml_error_one_line),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
