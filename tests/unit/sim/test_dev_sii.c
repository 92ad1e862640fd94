/* SII images built from device descriptions: header, checksum, categories — checked
 * with an independent reader that is first validated on real EEPROM dumps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "ecat/sii.h"
#include "sim/device.h"
#include "sim/esi.h"
#include "util/wire.h"

/* --- a small SII reader written from ETG.2010, independent of sii_build.c ------------ */
struct sii_view {
    unsigned ncat;
    uint16_t cat[32];
    size_t   cat_off[32], cat_len[32];      /* byte offset and length of data */
    char     str[64][128];
    unsigned nstr;
};

static int sii_read(const uint8_t *b, size_t len, struct sii_view *v)
{
    memset(v, 0, sizeof *v);
    size_t off = 0x80;
    while (off + 4 <= len && v->ncat < 32) {
        uint16_t type = get_le16(b + off), words = get_le16(b + off + 2);
        if (type == 0xFFFF) {
            v->cat[v->ncat++] = type;
            return 0;
        }
        if (off + 4 + 2u * words > len)
            return -EMSGSIZE;
        v->cat[v->ncat] = type;
        v->cat_off[v->ncat] = off + 4;
        v->cat_len[v->ncat] = 2u * words;
        if (type == SII_CAT_STRINGS) {
            const uint8_t *s = b + off + 4;
            size_t p = 1;
            for (unsigned i = 0; i < s[0] && i < 64; i++) {
                unsigned l = s[p];
                if (p + 1 + l > 2u * words)
                    return -EMSGSIZE;
                memcpy(v->str[i + 1], s + p + 1, l < 127 ? l : 127);
                p += 1 + l;
                v->nstr = i + 1;
            }
        }
        v->ncat++;
        off += 4 + 2u * words;
    }
    return -ENOENT;                          /* no end marker */
}

static int find_cat(const struct sii_view *v, uint16_t type)
{
    for (unsigned i = 0; i < v->ncat; i++)
        if (v->cat[i] == type)
            return (int)i;
    return -1;
}

static uint8_t *load(const char *rel, size_t *len)
{
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    if (!dir)
        return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *b = malloc(65536);
    *len = fread(b, 1, 65536, f);
    fclose(f);
    return b;
}

/* --- descriptions shaped like the real devices -------------------------------------- */
static void ek1100_like(struct sim_device_desc *d)
{
    memset(d, 0, sizeof *d);
    strcpy(d->name, "takt-EK1100-like EtherCAT coupler");
    strcpy(d->type, "takt-EK1100");
    strcpy(d->group, "SystemBk");
    strcpy(d->behaviour, "coupler");
    d->vendor = 0x00746B74;
    d->product = 0x00010001;
    d->revision = 0x00010000;
}

static void el2004_like(struct sim_device_desc *d)
{
    memset(d, 0, sizeof *d);
    strcpy(d->name, "takt-EL2004-like 4-channel digital output");
    strcpy(d->type, "takt-EL2004");
    strcpy(d->group, "DigOut");
    strcpy(d->behaviour, "do");
    d->vendor = 0x00746B74;
    d->product = 0x00020004;
    d->revision = 0x00010000;
    d->n_sm = 1;
    d->sm[0] = (struct sim_sm_desc){ 0x0F00, 1, 0x44, 0x01, SIM_SM_OUTPUTS };
    d->n_fmmu = 1;
    d->fmmu_use[0] = 1;
    d->n_rxpdo = 4;
    for (unsigned i = 0; i < 4; i++) {
        struct sim_pdo *p = &d->rxpdo[i];
        p->index = (uint16_t)(0x1600 + i);
        p->sm = 0;
        p->fixed = p->mandatory = true;
        snprintf(p->name, sizeof p->name, "Channel %u", i + 1);
        p->n = 1;
        p->e[0] = (struct sim_pdo_entry){ (uint16_t)(0x7000 + 0x10 * i), 1, 1, 0x0001, "Output" };
    }
}

/* The reader and the CRC rule hold on real dumps (skip without fixtures). */
static void real_dumps(void **state)
{
    size_t len = 0;
    uint8_t *b = load("sii/ek1100-eeprom-dump.bin", &len);
    if (!b)
        skip();
    struct sii_view v;
    assert_int_equal(len, 2048);
    assert_int_equal(get_le16(b + 14), ecat_sii_crc(b, 14));
    assert_int_equal(get_le32(b + 2 * SII_W_PRODUCT), 0x044C2C52);
    assert_int_equal(sii_read(b, len, &v), 0);
    assert_int_equal(v.ncat, 3);
    assert_int_equal(v.cat[0], SII_CAT_STRINGS);
    assert_int_equal(v.cat[1], SII_CAT_GENERAL);
    assert_int_equal(v.cat_len[1], 32);
    assert_string_equal(v.str[1], "EK1100");
    free(b);

    b = load("sii/el2004-eeprom-dump.bin", &len);
    assert_non_null(b);
    assert_int_equal(get_le16(b + 14), ecat_sii_crc(b, 14));
    assert_int_equal(sii_read(b, len, &v), 0);
    static const uint16_t want[] = { 10, 30, 40, 41, 43, 51, 0xFFFF };
    assert_int_equal(v.ncat, TAKT_ARRAY_SIZE(want));
    for (unsigned i = 0; i < v.ncat; i++)
        assert_int_equal(v.cat[i], want[i]);
    /* SM category: one output SM at 0x0F00, type 3 */
    int sm = find_cat(&v, SII_CAT_SM);
    assert_int_equal(v.cat_len[sm], 8);
    assert_int_equal(b[v.cat_off[sm] + 7], SIM_SM_OUTPUTS);
    free(b);
}

static void checksum_and_header(void **state)
{
    struct sim_device_desc d;
    uint8_t buf[8192];
    el2004_like(&d);
    int n = sim_sii_build(&d, buf, sizeof buf);
    assert_int_equal(n, 2048);
    assert_int_equal(get_le16(buf + 2 * SII_W_CHECKSUM), ecat_sii_crc(buf, 14));
    assert_int_equal(get_le32(buf + 2 * SII_W_VENDOR), 0x00746B74);
    assert_int_equal(get_le32(buf + 2 * SII_W_PRODUCT), 0x00020004);
    assert_int_equal(get_le32(buf + 2 * SII_W_REVISION), 0x00010000);
    assert_int_equal(get_le16(buf + 2 * SII_W_SIZE), 15);   /* 16 kbit, as the dumps */
    assert_int_equal(get_le16(buf + 2 * SII_W_MBX_PROTO), 0);
    /* a corrupted byte is caught by the checksum */
    buf[2] ^= 0x01;
    assert_int_not_equal(get_le16(buf + 2 * SII_W_CHECKSUM), ecat_sii_crc(buf, 14));
    /* too small a buffer is an error, not an overflow */
    assert_int_equal(sim_sii_build(&d, buf, 100), -ENOSPC);
    assert_int_equal(sim_sii_build(&d, buf, 1024), -ENOSPC);
}

static void categories_like_real(void **state)
{
    struct sim_device_desc d;
    uint8_t buf[8192];
    struct sii_view v;
    ek1100_like(&d);
    int n = sim_sii_build(&d, buf, sizeof buf);
    assert_true(n > 0);
    assert_int_equal(sii_read(buf, (size_t)n, &v), 0);
    /* the real EK1100 has exactly strings + general: so does ours */
    assert_int_equal(v.ncat, 3);
    assert_int_equal(v.cat[0], SII_CAT_STRINGS);
    assert_int_equal(v.cat[1], SII_CAT_GENERAL);
    assert_int_equal(v.cat_len[1], 32);
    const uint8_t *g = buf + v.cat_off[1];
    assert_string_equal(v.str[g[2]], "takt-EK1100");                 /* order */
    assert_string_equal(v.str[g[3]], "takt-EK1100-like EtherCAT coupler");
    assert_string_equal(v.str[g[0]], "SystemBk");
    assert_int_equal(buf[1], 0x0D);          /* ESC config as the real EK1100 word 0 */

    el2004_like(&d);
    n = sim_sii_build(&d, buf, sizeof buf);
    assert_int_equal(sii_read(buf, (size_t)n, &v), 0);
    int fm = find_cat(&v, SII_CAT_FMMU), sm = find_cat(&v, SII_CAT_SM), rx = find_cat(&v, SII_CAT_RXPDO);
    assert_true(fm > 0 && sm > fm && rx > sm);
    assert_int_equal(buf[v.cat_off[fm]], 1);            /* FMMU0 outputs */
    const uint8_t *s = buf + v.cat_off[sm];
    assert_int_equal(get_le16(s), 0x0F00);
    assert_int_equal(s[4], 0x44);
    assert_int_equal(s[7], SIM_SM_OUTPUTS);
    assert_int_equal(v.cat_len[rx], 4 * 16);            /* 4 PDOs of 1 entry, as real */
    const uint8_t *p = buf + v.cat_off[rx];
    assert_int_equal(get_le16(p), 0x1600);
    assert_int_equal(p[2], 1);
    assert_int_equal(get_le16(p + 8), 0x7000);
    assert_int_equal(p[8 + 2], 1);
    assert_int_equal(p[8 + 4], 0x01);                   /* BOOL */
    assert_int_equal(p[8 + 5], 1);
    assert_string_equal(v.str[p[5]], "Channel 1");
    assert_string_equal(v.str[p[8 + 3]], "Output");
    assert_int_equal(find_cat(&v, SII_CAT_TXPDO), -1);
}

static void mailbox_words(void **state)
{
    struct sim_device_desc d;
    uint8_t buf[8192];
    el2004_like(&d);
    d.n_sm = 3;
    d.sm[0] = (struct sim_sm_desc){ 0x1000, 128, 0x26, 1, SIM_SM_MBX_OUT };
    d.sm[1] = (struct sim_sm_desc){ 0x1080, 128, 0x22, 1, SIM_SM_MBX_IN };
    d.sm[2] = (struct sim_sm_desc){ 0x1100, 1, 0x64, 1, SIM_SM_OUTPUTS };
    d.mbx_protocols = MBX_PROTO_COE;
    d.coe_details = 0x23;
    d.n_dc_opmode = 1;
    d.dc_opmode[0] = (struct sim_dc_opmode){ "DC", 0x0300, 1000000, 0 };
    int n = sim_sii_build(&d, buf, sizeof buf);
    assert_true(n > 0);
    assert_int_equal(get_le16(buf + 2 * SII_W_STD_RX_OFF), 0x1000);
    assert_int_equal(get_le16(buf + 2 * SII_W_STD_RX_SIZE), 128);
    assert_int_equal(get_le16(buf + 2 * SII_W_STD_TX_OFF), 0x1080);
    assert_int_equal(get_le16(buf + 2 * SII_W_STD_TX_SIZE), 128);
    assert_int_equal(get_le16(buf + 2 * SII_W_MBX_PROTO), MBX_PROTO_COE);
    struct sii_view v;
    assert_int_equal(sii_read(buf, (size_t)n, &v), 0);
    int g = find_cat(&v, SII_CAT_GENERAL), dc = find_cat(&v, SII_CAT_DC);
    assert_int_equal(buf[v.cat_off[g] + 5], 0x23);
    assert_true(dc > 0);
    assert_int_equal(get_le32(buf + v.cat_off[dc]), 1000000);
    assert_int_equal(get_le16(buf + v.cat_off[dc] + 14), 0x0300);
}

static void device_from_desc(void **state)
{
    struct sim_device_desc d;
    struct sim_device *dev = NULL;
    el2004_like(&d);
    assert_int_equal(sim_device_from_desc(&d, &dev), 0);
    assert_non_null(dev->sii);
    assert_int_equal(dev->sii_len, 2048);
    assert_int_equal(get_le32(dev->sii + 2 * SII_W_PRODUCT), 0x00020004);
    size_t out = 9, in = 9;
    dev->ops->pd_sizes(dev, &out, &in);
    assert_int_equal(out, 1);
    assert_int_equal(in, 0);
    dev->ops->destroy(dev);
}

/* The master's own SII parser (src/ecat/sii.c, written independently) reads every
 * catalogue device's image strictly and finds what the ESI described. */
/* CRC-8 of the SII configuration area written out here, not taken from src/ecat:
 * polynomial x^8 + x^2 + x + 1 (0x07), initial value 0xFF, MSB first, over bytes
 * 0-13 (ETG.2010). */
static uint8_t crc8_ref(const uint8_t *b, size_t n)
{
    uint8_t c = 0xFF;
    for (size_t i = 0; i < n; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++)
            c = (uint8_t)(c & 0x80 ? (c << 1) ^ 0x07 : c << 1);
    }
    return c;
}

/* Bit set of the category types (10 strings .. 60 DC) present from word 0x40. */
static uint64_t category_types(const uint8_t *sii, size_t len)
{
    uint64_t set = 0;
    for (size_t off = 2 * 0x40; off + 4 <= len;) {
        uint16_t type = get_le16(sii + off), words = get_le16(sii + off + 2);
        if (type == 0xFFFF)
            break;
        if (type < 64)
            set |= 1ull << type;
        off += 4 + 2u * words;
    }
    return set;
}

static void master_reads_catalogue(void **state)
{
    char dir[4096], err[256];
    const char *src = getenv("TAKT_SOURCE_DIR");
    if (src) {
        snprintf(dir, sizeof dir, "%s/data/esi", src);
        setenv("TAKT_ESI_DIR", dir, 1);
    }
    static struct ecat_sii sii;
    for (unsigned i = 0; sim_device_names[i]; i++) {
        struct sim_device *dev = NULL;
        if (sim_device_create(sim_device_names[i], &dev, err, sizeof err))
            fail_msg("%s: %s", sim_device_names[i], err);
        const struct sim_device_desc *d = dev->desc;
        if (ecat_sii_decode(dev->sii, dev->sii_len, &sii, ECAT_SII_STRICT, err, sizeof err))
            fail_msg("%s: %s", sim_device_names[i], err);
        assert_int_equal(sii.n_warnings, 0);
        assert_true(sii.csum_ok);
        assert_int_equal(get_le16(dev->sii + 14), crc8_ref(dev->sii, 14));
        /* the categories each device needs: strings and general always, FMMU and SM
         * with process data or mailbox, TxPDO/RxPDO with PDOs, DC with op modes */
        uint64_t cats = category_types(dev->sii, dev->sii_len);
        assert_true(cats & (1ull << 10));
        assert_true(cats & (1ull << 30));
        assert_int_equal(!!(cats & (1ull << 40)), d->n_fmmu > 0);
        assert_int_equal(!!(cats & (1ull << 41)), d->n_sm > 0);
        assert_int_equal(!!(cats & (1ull << 50)), d->n_txpdo > 0);
        assert_int_equal(!!(cats & (1ull << 51)), d->n_rxpdo > 0);
        assert_int_equal(!!(cats & (1ull << 60)), d->n_dc_opmode > 0);
        assert_int_equal(sii.id.vendor, d->vendor);
        assert_int_equal(sii.id.product, d->product);
        assert_string_equal(ecat_sii_name(&sii), d->name);
        assert_int_equal(sii.gen.coe_details, d->coe_details);
        assert_int_equal(sii.mbx_proto, d->mbx_protocols);
        assert_int_equal(sii.n_sm, d->n_sm);
        for (unsigned k = 0; k < d->n_sm; k++) {
            assert_int_equal(sii.sm[k].start, d->sm[k].start);
            assert_int_equal(sii.sm[k].len, d->sm[k].len);
            assert_int_equal(sii.sm[k].type, d->sm[k].type);
        }
        assert_int_equal(sii.n_pdo, d->n_txpdo + d->n_rxpdo);
        for (unsigned k = 0; k < sii.n_pdo; k++) {
            const struct ecat_sii_pdo *p = &sii.pdo[k];
            const struct sim_pdo *q = p->tx ? &d->txpdo[k] : &d->rxpdo[k - d->n_txpdo];
            assert_int_equal(p->index, q->index);
            assert_int_equal(p->n_entries, q->n);
            assert_int_equal(p->sm, (uint8_t)q->sm);
            for (unsigned e = 0; e < q->n; e++) {
                assert_int_equal(sii.entry[p->first_entry + e].index, q->e[e].index);
                assert_int_equal(sii.entry[p->first_entry + e].bitlen, q->e[e].bits);
                assert_string_equal(ecat_sii_str(&sii, sii.entry[p->first_entry + e].name), q->e[e].name);
            }
        }
        assert_int_equal(sii.n_dc, d->n_dc_opmode);
        for (unsigned k = 0; k < d->n_dc_opmode; k++) {
            assert_int_equal(sii.dc[k].assign_activate, d->dc_opmode[k].assign_activate);
            assert_int_equal(sii.dc[k].cycle0, d->dc_opmode[k].cycle0);
        }
        if (d->mbx_protocols) {
            assert_int_equal(sii.std_rx.offset, d->sm[0].start);
            assert_int_equal(sii.std_tx.size, d->sm[1].len);
        }
        dev->ops->destroy(dev);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_dumps),
        cmocka_unit_test(checksum_and_header),
        cmocka_unit_test(categories_like_real),
        cmocka_unit_test(mailbox_words),
        cmocka_unit_test(device_from_desc),
        cmocka_unit_test(master_reads_catalogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
