/* SII EEPROM image parser (ETG.2010 layout): header words, then the category
 * list from word 0x40. Every read is bounds-checked; errors name the word address. */
#include "ecat/sii.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <takt/ecat.h>
#include <takt/takt.h>
#include "util/wire.h"

_Static_assert(ECAT_SII_MAX_IMAGE == TAKT_ECAT_SII_MAX_BYTES, "the public and the decoder's SII limit agree");
_Static_assert((int)MBX_PROTO_AOE == (int)TAKT_ECAT_MBX_AOE && (int)MBX_PROTO_EOE == (int)TAKT_ECAT_MBX_EOE && (int)MBX_PROTO_COE == (int)TAKT_ECAT_MBX_COE &&
               (int)MBX_PROTO_FOE == (int)TAKT_ECAT_MBX_FOE && (int)MBX_PROTO_SOE == (int)TAKT_ECAT_MBX_SOE && (int)MBX_PROTO_VOE == (int)TAKT_ECAT_MBX_VOE,
               "one set of mailbox protocol bits");

#define W(w) ((size_t)(w) * 2)       /* word address -> byte offset */
#define SII_HDR_BYTES W(SII_W_CATEGORIES)
#define SII_CAT_HDR 4                /* u16 type, u16 length in words */
/* header words proto.h does not name (ETG.2010) */
enum { SII_W_PDI_CFG = 0x01, SII_W_SYNC_IMPULSE = 0x02, SII_W_PDI_CFG2 = 0x03 };

/* Category body sizes (ETG.2010). */
enum { GEN_LEN = 32, SM_LEN = 8, PDO_LEN = 8, ENTRY_LEN = 8, DC_LEN = 24 };
/* SM category, per SM (ETG.2010): start u16, length u16, control, status, enable, type. */
enum { SM_START = 0, SM_LENGTH = 2, SM_CTRL = 4, SM_STATUS = 5, SM_ENABLE = 6, SM_TYPE = 7 };
/* TxPDO/RxPDO category (ETG.2010): PDO header, then per entry. */
enum { PDO_INDEX = 0, PDO_NENTRIES = 2, PDO_SM = 3, PDO_DCSYNC = 4, PDO_NAME = 5, PDO_FLAGS = 6 };
enum { ENT_INDEX = 0, ENT_SUB = 2, ENT_NAME = 3, ENT_TYPE = 4, ENT_BITLEN = 5, ENT_FLAGS = 6 };
/* DC category, per operation mode (ETG.2010 table "DC"). */
enum { DC_CYCLE0 = 0, DC_SHIFT0 = 4, DC_SHIFT1 = 8, DC_SYNC1_FACTOR = 12, DC_ASSIGN = 14,
       DC_SYNC0_FACTOR = 16, DC_NAME = 18, DC_DESC = 19 };
/* General category byte offsets (ETG.2010; SOEM ec_config.c reads +5..+13). */
enum { GEN_GROUP = 0, GEN_IMAGE = 1, GEN_ORDER = 2, GEN_NAME = 3, GEN_COE = 5, GEN_FOE = 6,
       GEN_EOE = 7, GEN_SOE = 8, GEN_DS402 = 9, GEN_SYSMAN = 10, GEN_FLAGS = 11,
       GEN_EBUS = 12, GEN_PORT = 16, GEN_PHYSMEM = 18 };

struct cat_ctx {
    struct ecat_sii *sii;
    const uint8_t *p;                /* category body */
    size_t len;                      /* body bytes */
    unsigned word;                   /* word address of the category header */
    char *err;
    size_t errlen;
};

static int fail(struct cat_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cat_ctx *c, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return -TAKT_ESII;
}

static void warn(struct ecat_sii *sii, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct ecat_sii *sii, const char *fmt, ...)
{
    if (sii->n_warnings < ECAT_SII_MAX_WARN) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sii->warning[sii->n_warnings], sizeof sii->warning[0], fmt, ap);
        va_end(ap);
    }
    sii->n_warnings++;
}

static void parse_header(struct ecat_sii *sii, const uint8_t *img)
{
    sii->pdi_ctrl = get_le16(img + W(SII_W_PDI_CTRL));
    sii->pdi_cfg = get_le16(img + W(SII_W_PDI_CFG));
    sii->sync_impulse = get_le16(img + W(SII_W_SYNC_IMPULSE));
    sii->pdi_cfg2 = get_le16(img + W(SII_W_PDI_CFG2));
    sii->alias = get_le16(img + W(SII_W_ALIAS));
    sii->csum_stored = img[W(SII_W_CHECKSUM)];
    sii->csum_calc = ecat_sii_crc(img, 14);      /* CRC-8 over words 0-6 (ETG.2010) */
    sii->csum_ok = sii->csum_stored == sii->csum_calc;
    sii->id.vendor = get_le32(img + W(SII_W_VENDOR));
    sii->id.product = get_le32(img + W(SII_W_PRODUCT));
    sii->id.revision = get_le32(img + W(SII_W_REVISION));
    sii->id.serial = get_le32(img + W(SII_W_SERIAL));
    sii->boot_rx = (struct ecat_sii_mbx){ get_le16(img + W(SII_W_BOOT_RX_OFF)), get_le16(img + W(SII_W_BOOT_RX_SIZE)) };
    sii->boot_tx = (struct ecat_sii_mbx){ get_le16(img + W(SII_W_BOOT_TX_OFF)), get_le16(img + W(SII_W_BOOT_TX_SIZE)) };
    sii->std_rx = (struct ecat_sii_mbx){ get_le16(img + W(SII_W_STD_RX_OFF)), get_le16(img + W(SII_W_STD_RX_SIZE)) };
    sii->std_tx = (struct ecat_sii_mbx){ get_le16(img + W(SII_W_STD_TX_OFF)), get_le16(img + W(SII_W_STD_TX_SIZE)) };
    sii->mbx_proto = get_le16(img + W(SII_W_MBX_PROTO));
    sii->eeprom_kbit = (uint16_t)(get_le16(img + W(SII_W_SIZE)) + 1);
    sii->version = get_le16(img + W(SII_W_VERSION));
}

/* Strings: u8 count, then per string u8 length + chars (ETG.2010). */
static int cat_strings(struct cat_ctx *c)
{
    struct ecat_sii *sii = c->sii;
    if (c->len < 1)
        return fail(c, "SII strings category at word 0x%04x: expected a count byte, found an empty category", c->word);
    unsigned count = c->p[0];
    size_t off = 1, pool = 1;        /* pool[0] = '\0' serves index 0 and missing strings */
    sii->strpool[0] = '\0';
    for (unsigned i = 1; i <= count; i++) {
        if (off >= c->len)
            return fail(c, "SII strings category at word 0x%04x: %u strings announced, data ends after %u",
                        c->word, count, i - 1);
        unsigned n = c->p[off++];
        if (off + n > c->len)
            return fail(c, "SII strings category at word 0x%04x: string %u needs %u bytes, %zu left",
                        c->word, i, n, c->len - off);
        if (pool + n + 1 > sizeof sii->strpool)
            return fail(c, "SII strings category at word 0x%04x: strings exceed %zu bytes",
                        c->word, sizeof sii->strpool);
        memcpy(sii->strpool + pool, c->p + off, n);
        sii->strpool[pool + n] = '\0';
        sii->str_off[i] = (uint16_t)pool;
        sii->n_strings = i;          /* a broken category keeps the strings before it */
        pool += n + 1;
        off += n;
    }
    return 0;
}

static int cat_general(struct cat_ctx *c)
{
    struct ecat_sii *sii = c->sii;
    const uint8_t *p = c->p;
    /* some old devices carry a shorter general category; read what is there */
    if (c->len < GEN_EBUS + 2)
        return fail(c, "SII general category at word 0x%04x: expected %d bytes, found %zu",
                    c->word, GEN_LEN, c->len);
    struct ecat_sii_general *g = &sii->gen;
    g->group = p[GEN_GROUP];
    g->image = p[GEN_IMAGE];
    g->order = p[GEN_ORDER];
    g->name = p[GEN_NAME];
    g->coe_details = p[GEN_COE];
    g->foe_details = p[GEN_FOE];
    g->eoe_details = p[GEN_EOE];
    g->soe_channels = p[GEN_SOE];
    g->ds402_channels = p[GEN_DS402];
    g->sysman_class = p[GEN_SYSMAN];
    g->flags = p[GEN_FLAGS];
    g->ebus_current_ma = (int16_t)get_le16(p + GEN_EBUS);
    if (c->len >= GEN_PHYSMEM + 2) {
        g->physical_port = get_le16(p + GEN_PORT);
        g->phys_mem_addr = get_le16(p + GEN_PHYSMEM);
    }
    sii->has_general = true;
    return 0;
}

static int cat_fmmu(struct cat_ctx *c)
{
    struct ecat_sii *sii = c->sii;
    for (size_t i = 0; i < c->len; i++) {
        if (c->p[i] == 0xFF && i + 1 == c->len)
            break;                   /* pad byte of an odd FMMU count */
        if (sii->n_fmmu >= ECAT_SII_MAX_FMMU)
            return fail(c, "SII FMMU category at word 0x%04x: more than %d FMMUs", c->word, ECAT_SII_MAX_FMMU);
        sii->fmmu[sii->n_fmmu++] = c->p[i];
    }
    return 0;
}

static int cat_sm(struct cat_ctx *c)
{
    struct ecat_sii *sii = c->sii;
    if (c->len % SM_LEN)
        return fail(c, "SII SM category at word 0x%04x: length %zu bytes is not a multiple of %d",
                    c->word, c->len, SM_LEN);
    for (size_t off = 0; off < c->len; off += SM_LEN) {
        if (sii->n_sm >= ECAT_SII_MAX_SM)
            return fail(c, "SII SM category at word 0x%04x: more than %d SMs", c->word, ECAT_SII_MAX_SM);
        const uint8_t *p = c->p + off;
        sii->sm[sii->n_sm++] = (struct ecat_sii_sm){
            .start = get_le16(p + SM_START), .len = get_le16(p + SM_LENGTH), .ctrl = p[SM_CTRL],
            .status = p[SM_STATUS], .enable = p[SM_ENABLE], .type = p[SM_TYPE] };
    }
    return 0;
}

/* TxPDO (50) / RxPDO (51): 8-byte PDO header then 8 bytes per entry (ETG.2010). */
static int cat_pdo(struct cat_ctx *c, bool tx)
{
    struct ecat_sii *sii = c->sii;
    size_t off = 0;
    while (off < c->len) {
        if (off + PDO_LEN > c->len)
            return fail(c, "SII %s category at word 0x%04x: PDO header at byte %zu needs %d bytes, %zu left",
                        tx ? "TxPDO" : "RxPDO", c->word, off, PDO_LEN, c->len - off);
        const uint8_t *p = c->p + off;
        unsigned n = p[PDO_NENTRIES];
        if (off + PDO_LEN + (size_t)n * ENTRY_LEN > c->len)
            return fail(c, "SII %s category at word 0x%04x: PDO 0x%04X announces %u entries (%u bytes), %zu bytes left",
                        tx ? "TxPDO" : "RxPDO", c->word, get_le16(p + PDO_INDEX), n, n * ENTRY_LEN, c->len - off - PDO_LEN);
        if (sii->n_pdo >= ECAT_SII_MAX_PDOS || sii->n_entries + n > ECAT_SII_MAX_ENTRIES)
            return fail(c, "SII %s category at word 0x%04x: more than %d PDOs or %d entries",
                        tx ? "TxPDO" : "RxPDO", c->word, ECAT_SII_MAX_PDOS, ECAT_SII_MAX_ENTRIES);
        sii->pdo[sii->n_pdo++] = (struct ecat_sii_pdo){
            .index = get_le16(p + PDO_INDEX), .n_entries = (uint8_t)n, .sm = p[PDO_SM],
            .dc_sync = p[PDO_DCSYNC], .name = p[PDO_NAME], .flags = get_le16(p + PDO_FLAGS), .tx = tx,
            .first_entry = (uint16_t)sii->n_entries };
        off += PDO_LEN;
        for (unsigned k = 0; k < n; k++, off += ENTRY_LEN) {
            const uint8_t *e = c->p + off;
            sii->entry[sii->n_entries++] = (struct ecat_sii_entry){
                .index = get_le16(e + ENT_INDEX), .subindex = e[ENT_SUB], .name = e[ENT_NAME],
                .data_type = e[ENT_TYPE], .bitlen = e[ENT_BITLEN], .flags = get_le16(e + ENT_FLAGS) };
        }
    }
    return 0;
}

static int cat_dc(struct cat_ctx *c)
{
    struct ecat_sii *sii = c->sii;
    for (size_t off = 0; off + DC_LEN <= c->len; off += DC_LEN) {
        if (sii->n_dc >= ECAT_SII_MAX_DC)
            return fail(c, "SII DC category at word 0x%04x: more than %d operation modes", c->word, ECAT_SII_MAX_DC);
        const uint8_t *p = c->p + off;
        sii->dc[sii->n_dc++] = (struct ecat_sii_dc){
            .cycle0 = get_le32(p + DC_CYCLE0), .shift0 = get_le32(p + DC_SHIFT0),
            .shift1 = get_le32(p + DC_SHIFT1), .sync1_factor = (int16_t)get_le16(p + DC_SYNC1_FACTOR),
            .assign_activate = get_le16(p + DC_ASSIGN), .sync0_factor = (int16_t)get_le16(p + DC_SYNC0_FACTOR),
            .name = p[DC_NAME], .desc = p[DC_DESC] };
    }
    if (c->len % DC_LEN)
        warn(sii, "SII DC category at word 0x%04x: %zu trailing bytes (not a multiple of %d) ignored",
             c->word, c->len % DC_LEN, DC_LEN);
    return 0;
}

static int parse_category(struct cat_ctx *c, unsigned type)
{
    struct ecat_sii *sii = c->sii;
    switch (type) {
    case SII_CAT_STRINGS: sii->cats_seen |= ECAT_SII_SEEN_STRINGS; return cat_strings(c);
    case SII_CAT_GENERAL: sii->cats_seen |= ECAT_SII_SEEN_GENERAL; return cat_general(c);
    case SII_CAT_FMMU:    sii->cats_seen |= ECAT_SII_SEEN_FMMU; return cat_fmmu(c);
    case SII_CAT_SM:      sii->cats_seen |= ECAT_SII_SEEN_SM; return cat_sm(c);
    case SII_CAT_TXPDO:   sii->cats_seen |= ECAT_SII_SEEN_TXPDO; return cat_pdo(c, true);
    case SII_CAT_RXPDO:   sii->cats_seen |= ECAT_SII_SEEN_RXPDO; return cat_pdo(c, false);
    case SII_CAT_DC:      sii->cats_seen |= ECAT_SII_SEEN_DC; return cat_dc(c);
    case SII_CAT_DATATYPES: sii->cats_seen |= ECAT_SII_SEEN_DATATYPES; return 0;
    case SII_CAT_FMMU_EX: sii->cats_seen |= ECAT_SII_SEEN_FMMU_EX; return 0;
    case SII_CAT_SYNCUNIT: sii->cats_seen |= ECAT_SII_SEEN_SYNCUNIT; return 0;
    case SII_CAT_NOP: return 0;
    default:
        /* device specific (1..9) and vendor categories (0x0800 and up, ETG.2010) are
         * legal and skipped; any other type is not one a master knows */
        if (type > 9 && type < 0x0800)
            warn(sii, "SII category %u at word 0x%04x (%zu words): unknown type, skipped",
                 type, c->word, c->len / 2);
        return 0;
    }
}

int ecat_sii_decode(const uint8_t *img, size_t len, struct ecat_sii *sii, unsigned flags,
                   char *err, size_t errlen)
{
    memset(sii, 0, sizeof *sii);
    char msg[ECAT_SII_WARN_LEN - 40];
    struct cat_ctx c = { .sii = sii, .err = err, .errlen = errlen };
    bool strict = flags & ECAT_SII_STRICT;
    if (err && errlen)
        err[0] = '\0';
    if (!img || len < SII_HDR_BYTES)
        return fail(&c, "SII image: expected at least %zu bytes (header words 0x00-0x3F), found %zu",
                    SII_HDR_BYTES, img ? len : 0);
    parse_header(sii, img);
    if (!sii->csum_ok) {
        if (strict)
            return fail(&c, "SII checksum at word 0x0007: expected 0x%02X (CRC-8 of words 0-6), found 0x%02X",
                        sii->csum_calc, sii->csum_stored);
        warn(sii, "SII checksum at word 0x0007: expected 0x%02X (CRC-8 of words 0-6), found 0x%02X",
             sii->csum_calc, sii->csum_stored);
    }
    /* category parsers write their complaint here; strict passes it on as the error,
     * otherwise it becomes a warning and decoding goes on after the category */
    c.err = msg;
    c.errlen = sizeof msg;
    size_t off = SII_HDR_BYTES;
    for (;;) {
        if (off + 2 > len) {
            warn(sii, "SII image ends at word 0x%04zx without the end category (0xFFFF)", off / 2);
            break;
        }
        unsigned type = get_le16(img + off);
        if (type == SII_CAT_END) {
            sii->cats_seen |= ECAT_SII_SEEN_END;
            break;
        }
        if (off + SII_CAT_HDR > len) {
            snprintf(msg, sizeof msg, "SII category %u at word 0x%04zx: header truncated, image ends at word 0x%04zx",
                     type, off / 2, len / 2);
            goto broken;
        }
        size_t words = get_le16(img + off + 2);
        c.word = (unsigned)(off / 2);
        c.p = img + off + SII_CAT_HDR;
        c.len = words * 2;
        if (off + SII_CAT_HDR + c.len > len) {
            snprintf(msg, sizeof msg, "SII category %u at word 0x%04x: length %zu words reaches word 0x%04zx, image ends at word 0x%04zx",
                     type, c.word, words, (off + SII_CAT_HDR + c.len) / 2, len / 2);
            goto broken;
        }
        if (parse_category(&c, type) < 0) {
            if (strict)
                goto refuse;
            warn(sii, "%s: rest of the category skipped", msg);
        }
        off += SII_CAT_HDR + c.len;
    }
    if (!sii->has_general)
        warn(sii, "SII has no general category (30): no device name, no CoE details");
    return 0;
broken:
    if (strict)
        goto refuse;
    warn(sii, "%s: skipped, decoding stops there", msg);
    if (!sii->has_general)
        warn(sii, "SII has no general category (30): no device name, no CoE details");
    return 0;
refuse:
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return -TAKT_ESII;
}

int ecat_sii_need(const uint8_t *img, size_t len, size_t *need)
{
    size_t off = SII_HDR_BYTES;
    if (len < off + 2) {
        *need = off + SII_CAT_HDR;
        return 1;
    }
    /* the category word addresses are 16 bit: nothing lies past 64 Ki words */
    const size_t max = (size_t)65536 * 2;
    while (off + 2 <= len) {
        if (get_le16(img + off) == SII_CAT_END)
            return 0;
        if (off + SII_CAT_HDR > len)
            break;
        off += SII_CAT_HDR + (size_t)get_le16(img + off + 2) * 2;
        if (off >= max)
            return 0;
    }
    *need = off + SII_CAT_HDR;
    if (*need < len + 2)
        *need = len + 2;
    return 1;
}

size_t ecat_sii_read_limit(const uint8_t *img)
{
    size_t declared = ((size_t)get_le16(img + W(SII_W_SIZE)) + 1) * 128;
    if (declared < 4096)
        return 4096;
    return declared < ECAT_SII_MAX_IMAGE ? declared : ECAT_SII_MAX_IMAGE;
}

void ecat_sii_set_checksum(uint8_t *img)
{
    img[W(SII_W_CHECKSUM)] = ecat_sii_crc(img, 14);
    img[W(SII_W_CHECKSUM) + 1] = 0;
}

const char *ecat_sii_str(const struct ecat_sii *sii, unsigned idx)
{
    if (idx == 0 || idx > sii->n_strings)
        return "";
    return sii->strpool + sii->str_off[idx];
}

const char *ecat_sii_name(const struct ecat_sii *sii)
{
    return sii->has_general ? ecat_sii_str(sii, sii->gen.name) : "";
}

/* CoE basic data types (ETG.1000.6 table 64 / CiA 301), as named in ESI/ENI files. */
static const struct { const char *name; unsigned bits; } coe_types[] = {
    [0x01] = { "BOOL", 1 },    [0x02] = { "SINT", 8 },   [0x03] = { "INT", 16 },
    [0x04] = { "DINT", 32 },   [0x05] = { "USINT", 8 },  [0x06] = { "UINT", 16 },
    [0x07] = { "UDINT", 32 },  [0x08] = { "REAL", 32 },  [0x09] = { "STRING", 0 },
    [0x0A] = { "OCTET_STRING", 0 }, [0x0B] = { "UNICODE_STRING", 0 },
    [0x0C] = { "TIME_OF_DAY", 48 }, [0x0D] = { "TIME_DIFFERENCE", 48 },
    [0x0F] = { "DOMAIN", 0 },  [0x10] = { "INT24", 24 }, [0x11] = { "LREAL", 64 },
    [0x12] = { "INT40", 40 },  [0x13] = { "INT48", 48 }, [0x14] = { "INT56", 56 },
    [0x15] = { "LINT", 64 },   [0x16] = { "UINT24", 24 }, [0x18] = { "UINT40", 40 },
    [0x19] = { "UINT48", 48 }, [0x1A] = { "UINT56", 56 }, [0x1B] = { "ULINT", 64 },
    [0x1E] = { "BYTE", 8 },    [0x1F] = { "WORD", 16 },  [0x20] = { "DWORD", 32 },
    [0x30] = { "BIT1", 1 },    [0x31] = { "BIT2", 2 },   [0x32] = { "BIT3", 3 },
    [0x33] = { "BIT4", 4 },    [0x34] = { "BIT5", 5 },   [0x35] = { "BIT6", 6 },
    [0x36] = { "BIT7", 7 },    [0x37] = { "BIT8", 8 },
};

const char *takt_ecat_coe_type_name(uint16_t type)
{
    if (type < TAKT_ARRAY_SIZE(coe_types) && coe_types[type].name)
        return coe_types[type].name;
    return "";
}

unsigned ecat_coe_type_bits(uint16_t type)
{
    if (type < TAKT_ARRAY_SIZE(coe_types))
        return coe_types[type].bits;
    return 0;
}
