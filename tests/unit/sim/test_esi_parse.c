/* ESI reader: takt's own device files, the real Beckhoff EK11xx file, broken input,
 * the catalogue and the device list syntax. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "util/wire.h"

static char dir[4096];

static int setup(void **state)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    if (src) {
        snprintf(dir, sizeof dir, "%s/data/esi", src);
        setenv("TAKT_ESI_DIR", dir, 1);
    } else if (sim_esi_dir(dir, sizeof dir))
        return -1;
    return 0;
}

static void load_own(const char *name, struct sim_esi_device *d)
{
    char path[4200], err[256] = "";
    snprintf(path, sizeof path, "%s/takt-%s.xml", dir, name);
    int rc = sim_esi_load(path, NULL, d, err, sizeof err);
    if (rc)
        fail_msg("%s: %s", name, err);
}

static void own_simple_devices(void **state)
{
    struct sim_esi_device *d = malloc(sizeof *d);
    load_own("ek1100", d);
    assert_int_equal(d->desc.vendor, TAKT_SIM_VENDOR);
    assert_int_equal(d->desc.product, 0x00010001);
    assert_int_equal(d->desc.n_sm, 0);
    assert_string_equal(d->desc.behaviour, "coupler");
    assert_string_equal(d->desc.type, "takt-EK1100");
    sim_esi_free(d);

    load_own("el1004", d);
    assert_int_equal(d->desc.n_sm, 4);
    assert_int_equal(d->desc.sm[3].type, SIM_SM_INPUTS);
    assert_int_equal(d->desc.sm[3].start, 0x1180);
    assert_int_equal(d->desc.sm[3].len, 1);
    assert_int_equal(d->desc.sm[0].type, SIM_SM_UNUSED);
    assert_int_equal(d->desc.n_txpdo, 4);
    assert_int_equal(d->desc.txpdo[2].index, 0x1A02);
    assert_int_equal(d->desc.txpdo[2].sm, 3);
    assert_true(d->desc.txpdo[2].fixed);
    assert_int_equal(d->desc.txpdo[2].e[0].index, 0x6020);
    assert_int_equal(d->desc.txpdo[2].e[0].datatype, OD_BOOL);
    assert_int_equal(d->desc.mbx_protocols, 0);
    assert_int_equal(d->desc.n_fmmu, 1);
    assert_int_equal(d->desc.fmmu_use[0], 2);
    sim_esi_free(d);

    load_own("el2004", d);
    assert_int_equal(d->desc.sm[2].type, SIM_SM_OUTPUTS);
    assert_int_equal(d->desc.sm[2].control, 0x44);
    assert_int_equal(d->desc.n_rxpdo, 4);
    assert_int_equal(d->desc.rxpdo[3].e[0].index, 0x7030);
    assert_string_equal(d->desc.behaviour, "do");
    sim_esi_free(d);
    free(d);
}

static void own_coe_devices(void **state)
{
    struct sim_esi_device *d = malloc(sizeof *d);
    load_own("el3102", d);
    assert_int_equal(d->desc.mbx_protocols, MBX_PROTO_COE);
    assert_int_equal(d->desc.coe_details, 0x01 | 0x02 | 0x04 | 0x10 | 0x20);
    assert_int_equal(d->desc.sm[0].type, SIM_SM_MBX_OUT);
    assert_int_equal(d->desc.sm[1].len, 128);
    assert_int_equal(d->desc.n_txpdo, 4);
    assert_int_equal(d->desc.txpdo[0].n, 9);            /* 8 entries + one 7-bit gap */
    assert_int_equal(d->desc.txpdo[0].e[5].index, 0);
    assert_int_equal(d->desc.txpdo[0].e[5].bits, 7);
    assert_int_equal(d->desc.txpdo[2].sm, -1);          /* compact PDO not assigned */
    assert_false(d->desc.dc_required);                  /* has a free-run mode */
    struct od_object *o = od_find(&d->dict, 0x8010);
    assert_non_null(o);
    assert_int_equal(o->code, OD_RECORD);
    assert_string_equal(o->name, "AI Settings Ch.2");
    assert_int_equal(od_max_sub(o), 6);
    struct od_entry *e = od_entry(o, 3);
    assert_string_equal(e->name, "Waveform");
    assert_int_equal(od_get(e), 1);                     /* DefaultValue per channel */
    assert_int_equal(e->access, OD_R_ALL | OD_W_PREOP); /* WriteRestrictions="PreOP" */
    assert_int_equal((int16_t)od_get(od_entry(o, 5)), -16000);
    e = od_find_entry(&d->dict, 0x6000, 0x11);
    assert_int_equal(e->dtype, OD_INT);
    assert_int_equal(e->access, OD_RO | OD_TXPDO);
    assert_int_equal(od_find_entry(&d->dict, 0x6000, 3)->dtype, OD_BIT1 + 1);
    sim_esi_free(d);

    load_own("servo", d);
    assert_true(d->desc.dc_required);
    assert_int_equal(d->desc.n_dc_opmode, 1);
    assert_int_equal(d->desc.dc_opmode[0].assign_activate, 0x0300);
    assert_int_equal(d->desc.dc_opmode[0].cycle0, 1000000);
    assert_int_equal(d->desc.coe_details & 0x0C, 0x0C);
    assert_int_equal(d->desc.rxpdo[0].index, 0x1600);
    assert_int_equal(d->desc.rxpdo[0].e[1].index, 0x607A);
    assert_int_equal(d->desc.rxpdo[1].sm, -1);
    assert_int_equal(od_get_u(&d->dict, 0x6065, 0), 0xFFFFFFFFu);
    assert_int_equal(od_find_entry(&d->dict, 0x6040, 0)->access, OD_RW | OD_RXPDO);
    assert_string_equal(d->desc.behaviour, "servo");
    sim_esi_free(d);
    free(d);
}

static void beckhoff_ek1100(void **state)
{
    const char *fx = getenv("TAKT_FIXTURES");
    char path[4096], err[256] = "";
    if (!fx)
        skip();
    snprintf(path, sizeof path, "%s/esi/Beckhoff_EK11xx.xml", fx);
    FILE *f = fopen(path, "rb");
    if (!f)
        skip();
    fclose(f);
    struct sim_esi_device *d = malloc(sizeof *d);
    struct sim_esi_select sel = { .type = "EK1100", .revision = 0x00120000 };
    assert_int_equal(sim_esi_load(path, &sel, d, err, sizeof err), 0);
    assert_int_equal(d->desc.vendor, 2);
    assert_int_equal(d->desc.product, 0x044C2C52);
    assert_int_equal(d->desc.revision, 0x00120000);
    assert_string_equal(d->desc.name, "EK1100 EtherCAT Coupler (2A E-Bus)");
    assert_string_equal(d->desc.group, "SystemBk");
    assert_int_equal(d->desc.n_sm, 0);
    assert_string_equal(d->desc.behaviour, "coupler");
    /* build its SII and compare identity and categories with the real EK1100 dump */
    struct sim_device *dev = NULL;
    assert_int_equal(sim_device_new(&d->desc, &d->dict, &dev), 0);
    snprintf(path, sizeof path, "%s/sii/ek1100-eeprom-dump.bin", fx);
    f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t real[2048];
    assert_int_equal(fread(real, 1, sizeof real, f), 2048);
    fclose(f);
    assert_int_equal(dev->sii_len, 2048);
    assert_memory_equal(dev->sii + 16, real + 16, 8);          /* vendor, product, revision */
    assert_int_equal(dev->sii[1], real[1]);                     /* ESC config 0x0D */
    assert_int_equal(get_le16(dev->sii + 0x7C), get_le16(real + 0x7C)); /* size */
    size_t a = 0x80, b = 0x80;
    for (int k = 0; k < 3; k++) {                              /* 10, 30, 0xFFFF */
        assert_int_equal(get_le16(dev->sii + a), get_le16(real + b));
        a += 4 + 2u * get_le16(dev->sii + a + 2);
        b += 4 + 2u * get_le16(real + b + 2);
    }
    dev->ops->destroy(dev);
    sim_esi_free(d);
    /* without a selection the first device of the file is taken */
    assert_int_equal(sim_esi_load(path, NULL, d, err, sizeof err) != 0, 1); /* .bin is no XML */
    snprintf(path, sizeof path, "%s/esi/Beckhoff_EK11xx.xml", fx);
    assert_int_equal(sim_esi_load(path, NULL, d, err, sizeof err), 0);
    assert_int_equal(d->desc.product, 0x044C2C52);
    assert_int_equal(d->desc.revision, 0);
    sim_esi_free(d);
    sel.revision = 0x7FFFFFFF;
    assert_int_equal(sim_esi_load(path, &sel, d, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "EK1100"));
    free(d);
}

static void broken_input(void **state)
{
    struct sim_esi_device *d = malloc(sizeof *d);
    char err[256];
    static const char *bad_xml = "<EtherCATInfo><Vendor><Id>2</Id></Vendor>";
    assert_int_equal(sim_esi_parse(bad_xml, strlen(bad_xml), NULL, d, err, sizeof err), -TAKT_EXML);
    assert_non_null(strstr(err, "XML"));
    static const char *root = "<Foo/>";
    assert_int_equal(sim_esi_parse(root, strlen(root), NULL, d, err, sizeof err), -TAKT_EXML);
    assert_non_null(strstr(err, "EtherCATInfo"));
    static const char *badnum =
        "<EtherCATInfo><Vendor><Id>2</Id></Vendor><Descriptions><Devices><Device>\n"
        "<Type ProductCode=\"#xZZ\" RevisionNo=\"1\">X</Type></Device></Devices></Descriptions></EtherCATInfo>";
    assert_int_equal(sim_esi_parse(badnum, strlen(badnum), NULL, d, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "line 2"));
    static const char *badentry =
        "<EtherCATInfo><Vendor><Id>2</Id></Vendor><Descriptions><Devices><Device>"
        "<Type ProductCode=\"1\" RevisionNo=\"1\">X</Type><TxPdo><Index>#x1a00</Index>"
        "<Entry><Index>#x6000</Index><SubIndex>1</SubIndex><BitLen>0</BitLen></Entry></TxPdo>"
        "</Device></Devices></Descriptions></EtherCATInfo>";
    assert_int_equal(sim_esi_parse(badentry, strlen(badentry), NULL, d, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "BitLen"));
    assert_int_equal(sim_esi_parse("", 0, NULL, d, err, sizeof err), -TAKT_EXML);
    /* a mailbox SM with only Min/MaxSize takes MaxSize */
    static const char *maxsize =
        "<EtherCATInfo><Vendor><Id>2</Id></Vendor><Descriptions><Devices><Device>"
        "<Type ProductCode=\"1\" RevisionNo=\"1\">X</Type>"
        "<Sm MinSize=\"34\" MaxSize=\"192\" StartAddress=\"#x1000\" ControlByte=\"#x26\" Enable=\"1\">MBoxOut</Sm>"
        "</Device></Devices></Descriptions></EtherCATInfo>";
    assert_int_equal(sim_esi_parse(maxsize, strlen(maxsize), NULL, d, err, sizeof err), 0);
    assert_int_equal(d->desc.sm[0].len, 192);
    sim_esi_free(d);
    free(d);
}

/* <Eeprom><BootStrap> puts the bootstrap mailbox into SII words 0x14-0x17 (here as
 * the EL4002's ESI: 244 bytes each at 0x1000/0x10F4), the standard one stays in
 * 0x18-0x1B; a malformed one is refused naming the element. */
static void bootstrap(void **state)
{
    (void)state;
    struct sim_esi_device *d = malloc(sizeof *d);
    char err[256];
    char xml[1024];
    static const char *fmt =
        "<EtherCATInfo><Vendor><Id>2</Id></Vendor><Descriptions><Devices><Device>"
        "<Type ProductCode=\"1\" RevisionNo=\"1\">X</Type>"
        "<Sm DefaultSize=\"128\" StartAddress=\"#x1000\" ControlByte=\"#x26\" Enable=\"1\">MBoxOut</Sm>"
        "<Sm DefaultSize=\"128\" StartAddress=\"#x1080\" ControlByte=\"#x22\" Enable=\"1\">MBoxIn</Sm>"
        "<Mailbox><CoE/><FoE/></Mailbox>\n<Eeprom><ByteSize>2048</ByteSize><BootStrap>%s</BootStrap></Eeprom>"
        "</Device></Devices></Descriptions></EtherCATInfo>";
    snprintf(xml, sizeof xml, fmt, "0010F400F410F400");
    assert_int_equal(sim_esi_parse(xml, strlen(xml), NULL, d, err, sizeof err), 0);
    assert_int_equal(d->desc.boot_out_start, 0x1000);
    assert_int_equal(d->desc.boot_out_len, 244);
    assert_int_equal(d->desc.boot_in_start, 0x10F4);
    assert_int_equal(d->desc.boot_in_len, 244);
    struct sim_device *dev = NULL;
    assert_int_equal(sim_device_new(&d->desc, &d->dict, &dev), 0);
    static const uint16_t want[8] = { 0x1000, 244, 0x10F4, 244, 0x1000, 128, 0x1080, 128 };
    for (unsigned k = 0; k < 8; k++)
        assert_int_equal(get_le16(dev->sii + 2 * (0x14 + k)), want[k]);
    dev->ops->destroy(dev);
    sim_esi_free(d);
    snprintf(xml, sizeof xml, fmt, "0010F400F410");
    assert_int_equal(sim_esi_parse(xml, strlen(xml), NULL, d, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "line 2"));
    assert_non_null(strstr(err, "<BootStrap>: expected 16 hex digits"));
    assert_non_null(strstr(err, "'0010F400F410'"));
    snprintf(xml, sizeof xml, fmt, "0010F400F410F4zz");
    assert_int_equal(sim_esi_parse(xml, strlen(xml), NULL, d, err, sizeof err), -EINVAL);
    free(d);
}

/* DataTypes with an ArrayInfo subitem expand to one entry per element; defaults by
 * name, DefaultData bytes in memory order, DefaultValue numbers, DefaultString. */
static void dictionary_types(void **state)
{
    static const char *xml =
        "<EtherCATInfo><Vendor><Id>#x00746B74</Id></Vendor><Descriptions><Devices><Device>"
        "<Type ProductCode=\"#x9\" RevisionNo=\"#x1\">T</Type><Name>t</Name>"
        "<Profile><Dictionary><DataTypes>"
        "<DataType><Name>ARR</Name><BaseType>UINT</BaseType><BitSize>48</BitSize>"
        "<ArrayInfo><LBound>1</LBound><Elements>3</Elements></ArrayInfo></DataType>"
        "<DataType><Name>DT2000</Name><BitSize>64</BitSize>"
        "<SubItem><SubIdx>0</SubIdx><Name>SubIndex 000</Name><Type>USINT</Type><BitSize>8</BitSize>"
        "<BitOffs>0</BitOffs><Flags><Access>ro</Access></Flags></SubItem>"
        "<SubItem><Name>Elements</Name><Type>ARR</Type><BitSize>48</BitSize><BitOffs>16</BitOffs>"
        "<Flags><Access WriteRestrictions=\"PreOP\">rw</Access></Flags></SubItem></DataType>"
        "</DataTypes><Objects>"
        "<Object><Index>#x2000</Index><Name>Table</Name><Type>DT2000</Type><BitSize>64</BitSize>"
        "<Info><SubItem><Name>SubIndex 002</Name><Info><DefaultData>3412</DefaultData></Info></SubItem></Info>"
        "</Object>"
        "<Object><Index>#x2001</Index><Name>Offset</Name><Type>DINT</Type><BitSize>32</BitSize>"
        "<Info><DefaultValue>-5</DefaultValue></Info><Flags><Access>rw</Access><PdoMapping>R</PdoMapping></Flags></Object>"
        "<Object><Index>#x2002</Index><Name>Tag</Name><Type>STRING(8)</Type><BitSize>64</BitSize>"
        "<Info><DefaultString>abc</DefaultString></Info><Flags><Access>ro</Access></Flags></Object>"
        "</Objects></Dictionary></Profile></Device></Devices></Descriptions></EtherCATInfo>";
    struct sim_esi_device *d = malloc(sizeof *d);
    char err[256] = "";
    if (sim_esi_parse(xml, strlen(xml), NULL, d, err, sizeof err))
        fail_msg("%s", err);
    struct od_object *o = od_find(&d->dict, 0x2000);
    assert_non_null(o);
    assert_int_equal(o->code, OD_ARRAY);
    assert_int_equal(o->dtype, OD_UINT);
    assert_int_equal(o->n, 4);
    assert_int_equal(od_max_sub(o), 3);                 /* no default: highest subindex */
    assert_int_equal(od_entry(o, 2)->bitoff, 32);
    assert_int_equal(od_get(od_entry(o, 2)), 0x1234);
    assert_int_equal(od_entry(o, 3)->access, OD_R_ALL | OD_W_PREOP);
    assert_string_equal(od_entry(o, 3)->name, "SubIndex 003");
    struct od_entry *e = od_find_entry(&d->dict, 0x2001, 0);
    assert_int_equal((int32_t)od_get(e), -5);
    assert_int_equal(e->access, OD_RW | OD_RXPDO);
    e = od_find_entry(&d->dict, 0x2002, 0);
    assert_int_equal(e->dtype, OD_VSTRING);
    assert_memory_equal(e->val, "abc\0", 4);
    sim_esi_free(d);
    free(d);
}

static void catalogue(void **state)
{
    char err[256], found[4096];
    /* without TAKT_ESI_DIR the source tree's data/esi is found (build-tree runs) */
    char *saved = getenv("TAKT_ESI_DIR") ? strdup(getenv("TAKT_ESI_DIR")) : NULL;
    unsetenv("TAKT_ESI_DIR");
    int found_rc = sim_esi_dir(found, sizeof found);
    if (saved) {
        setenv("TAKT_ESI_DIR", saved, 1);
        free(saved);
    }
    assert_int_equal(found_rc, 0);
    assert_non_null(strstr(found, "data/esi"));
    for (unsigned i = 0; sim_device_names[i]; i++) {
        struct sim_device *dev = NULL;
        int rc = sim_device_create(sim_device_names[i], &dev, err, sizeof err);
        if (rc)
            fail_msg("%s: %s", sim_device_names[i], err);
        assert_int_equal(get_le16(dev->sii + 14), ecat_sii_crc(dev->sii, 14));
        assert_int_equal(get_le32(dev->sii + 16), TAKT_SIM_VENDOR);
        size_t out, in;
        dev->ops->pd_sizes(dev, &out, &in);
        static const size_t want[][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 0, 8 }, { 8, 10 }, { 4, 4 },
                                          { 10, 10 }, { 0, 0 } };
        assert_true(i < sizeof want / sizeof want[0]);
        assert_int_equal(out, want[i][0]);
        assert_int_equal(in, want[i][1]);
        dev->ops->destroy(dev);
    }
    struct sim_device *dev = NULL;
    assert_int_equal(sim_device_create("el9999", &dev, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "el9999"));
    assert_int_equal(sim_device_create("/nonexistent/x.xml", &dev, err, sizeof err), -ENOENT);
    assert_null(dev);
}

static void device_list(void **state)
{
    struct sim_device_spec s[8];
    unsigned n;
    char err[128];
    assert_int_equal(sim_device_list_parse("ek1100,el1004x4,servo", s, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(s[0].name, "ek1100");
    assert_int_equal(s[0].count, 1);
    assert_string_equal(s[1].name, "el1004");
    assert_int_equal(s[1].count, 4);
    assert_string_equal(s[2].name, "servo");
    assert_int_equal(sim_device_list_parse("/tmp/box.xmlx2", s, 8, &n, err, sizeof err), 0);
    assert_string_equal(s[0].name, "/tmp/box.xml");
    assert_int_equal(s[0].count, 2);
    assert_int_equal(sim_device_list_parse("el1004x0", s, 8, &n, err, sizeof err), -EINVAL);
    assert_int_equal(sim_device_list_parse("a,,b", s, 8, &n, err, sizeof err), -EINVAL);
    assert_int_equal(sim_device_list_parse("a,", s, 8, &n, err, sizeof err), -EINVAL);
    assert_int_equal(sim_device_list_parse("", s, 8, &n, err, sizeof err), -EINVAL);
    assert_int_equal(sim_device_list_parse("a,b,c", s, 2, &n, err, sizeof err), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_simple_devices),
        cmocka_unit_test(own_coe_devices),
        cmocka_unit_test(beckhoff_ek1100),
        cmocka_unit_test(broken_input),
        cmocka_unit_test(bootstrap),
        cmocka_unit_test(dictionary_types),
        cmocka_unit_test(catalogue),
        cmocka_unit_test(device_list),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
