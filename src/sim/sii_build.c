/* Builds a device's SII EEPROM image from its description: header words 0x00-0x3F
 * and the categories strings, general, FMMU, SM, TxPDO, RxPDO, DC (ETG.2010). */
#include <errno.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device.h"
#include "util/wire.h"

#define SII_MIN_BYTES 2048     /* a 16 kbit EEPROM, as on the EK1100 / EL2004 */
#define MAX_STRINGS   255

struct strtab {
    unsigned n;
    const char *s[MAX_STRINGS];
};

/* Index of s in the string category (1-based; 0 = none), added if new. */
static uint8_t str_idx(struct strtab *t, const char *s)
{
    if (!s || !*s)
        return 0;
    for (unsigned i = 0; i < t->n; i++)
        if (!strcmp(t->s[i], s))
            return (uint8_t)(i + 1);
    if (t->n == MAX_STRINGS)
        return 0;
    t->s[t->n++] = s;
    return (uint8_t)t->n;
}

struct out {
    uint8_t *buf;
    size_t cap, pos;
    bool overflow;
};

static uint8_t *take(struct out *o, size_t n)
{
    if (o->pos + n > o->cap) {
        o->overflow = true;
        return NULL;
    }
    uint8_t *p = o->buf + o->pos;
    memset(p, 0, n);
    o->pos += n;
    return p;
}

/* Category header (type, length in words) followed by `bytes` of data, padded. */
static uint8_t *category(struct out *o, uint16_t type, size_t bytes)
{
    size_t words = (bytes + 1) / 2;
    uint8_t *h = take(o, 4 + words * 2);
    if (!h)
        return NULL;
    put_le16(h, type);
    put_le16(h + 2, (uint16_t)words);
    if (bytes % 2)
        h[4 + bytes] = 0xFF;   /* pad byte, as in the Beckhoff dumps */
    return h + 4;
}

static int sm_of_type(const struct sim_device_desc *d, uint8_t type)
{
    for (unsigned i = 0; i < d->n_sm; i++)
        if (d->sm[i].type == type)
            return (int)i;
    return -1;
}

/* Words 0x00-0x3F (ETG.2010 layout). PDI control / ESC config: devices without a mailbox
 * are pure ESC I/O devices with device emulation (AL status follows AL control), like
 * the EK1100 dump (word 0 = 0x0D00); mailbox devices have a µC on SPI (0x05). */
static void header(const struct sim_device_desc *d, uint8_t *b, size_t total)
{
    int mo = sm_of_type(d, SIM_SM_MBX_OUT), mi = sm_of_type(d, SIM_SM_MBX_IN);
    bool mbx = mo >= 0 && mi >= 0;
    b[0] = mbx ? 0x05 : (d->n_sm ? 0x04 : 0x00);
    b[1] = mbx ? 0x0C : 0x0D;
    put_le16(b + 2 * SII_W_CHECKSUM, ecat_sii_crc(b, 14));
    put_le32(b + 2 * SII_W_VENDOR, d->vendor);
    put_le32(b + 2 * SII_W_PRODUCT, d->product);
    put_le32(b + 2 * SII_W_REVISION, d->revision);
    put_le32(b + 2 * SII_W_SERIAL, d->serial);
    if (mbx) {
        /* the bootstrap mailbox (words 0x14-0x17) only where FoE can take a firmware:
         * BOOT is refused with 0x0013 otherwise; it lies where the description says
         * (ENI/ESI BootStrap), else where the standard one does */
        bool own = d->boot_out_len && d->boot_in_len;
        uint16_t v[2][4] = {
            { d->sm[mo].start, d->sm[mo].len, d->sm[mi].start, d->sm[mi].len },
            { own ? d->boot_out_start : d->sm[mo].start, own ? d->boot_out_len : d->sm[mo].len,
              own ? d->boot_in_start : d->sm[mi].start, own ? d->boot_in_len : d->sm[mi].len },
        };
        static const uint16_t w[2] = { SII_W_STD_RX_OFF, SII_W_BOOT_RX_OFF };
        int nw = (d->mbx_protocols & MBX_PROTO_FOE) ? 2 : 1;
        for (int k = 0; k < nw; k++)
            for (int j = 0; j < 4; j++)
                put_le16(b + 2 * (w[k] + j), v[k][j]);
        put_le16(b + 2 * SII_W_MBX_PROTO, d->mbx_protocols);
    }
    put_le16(b + 2 * SII_W_SIZE, (uint16_t)(total * 8 / 1024 - 1)); /* kbit - 1 */
    put_le16(b + 2 * SII_W_VERSION, 1);
}

static void general(struct out *o, const struct sim_device_desc *d, struct strtab *t)
{
    uint8_t *g = category(o, SII_CAT_GENERAL, 32);
    if (!g)
        return;
    g[0] = str_idx(t, d->group);
    g[1] = 0;
    g[2] = str_idx(t, d->type);
    g[3] = str_idx(t, d->name);
    g[5] = d->coe_details;
    g[11] = 0;                 /* flags: none, as the EK1100/EL2004 dumps */
    /* physical ports (4 bits each): MII in, MII out (1 = MII) */
    put_le16(g + 16, 0x0011);
}

/* Does the SII describe PDO p of d? */
static bool in_sii(const struct sim_device_desc *d, const struct sim_pdo *p)
{
    return !d->sii_assigned_pdos_only || p->sm >= 0;
}

static void pdos(struct out *o, const struct sim_device_desc *d, uint16_t cat, const struct sim_pdo *p,
                 unsigned n, struct strtab *t)
{
    size_t bytes = 0;
    for (unsigned i = 0; i < n; i++)
        bytes += in_sii(d, &p[i]) ? 8 + 8 * (size_t)p[i].n : 0;
    if (!bytes)
        return;
    uint8_t *c = category(o, cat, bytes);
    if (!c)
        return;
    for (unsigned i = 0; i < n; i++) {
        if (!in_sii(d, &p[i]))
            continue;
        put_le16(c, p[i].index);
        c[2] = (uint8_t)p[i].n;
        c[3] = (uint8_t)p[i].sm;       /* -1 -> 0xFF: not assigned by default */
        c[5] = str_idx(t, p[i].name);
        put_le16(c + 6, (uint16_t)((p[i].mandatory ? 0x0001 : 0) | (p[i].fixed ? 0x0010 : 0)));
        for (unsigned k = 0; k < p[i].n; k++) {
            const struct sim_pdo_entry *e = &p[i].e[k];
            c += 8;
            put_le16(c, e->index);
            c[2] = e->sub;
            c[3] = str_idx(t, e->name);
            c[4] = (uint8_t)e->datatype;
            c[5] = e->bits;
        }
        c += 8;
    }
}

static void strings(struct out *o, const struct strtab *t)
{
    size_t bytes = 1;
    for (unsigned i = 0; i < t->n; i++)
        bytes += 1 + strnlen(t->s[i], 255);
    uint8_t *c = category(o, SII_CAT_STRINGS, bytes);
    if (!c)
        return;
    *c++ = (uint8_t)t->n;
    for (unsigned i = 0; i < t->n; i++) {
        size_t l = strnlen(t->s[i], 255);
        *c++ = (uint8_t)l;
        memcpy(c, t->s[i], l);
        c += l;
    }
}

/* Strings come first in the image, so every string the other categories use is
 * registered before anything is written. */
static void collect_strings(const struct sim_device_desc *d, struct strtab *t)
{
    str_idx(t, d->type);
    str_idx(t, d->group);
    str_idx(t, d->name);
    for (int dir = 0; dir < 2; dir++) {
        const struct sim_pdo *p = dir ? d->rxpdo : d->txpdo;
        unsigned n = dir ? d->n_rxpdo : d->n_txpdo;
        for (unsigned i = 0; i < n; i++) {
            if (!in_sii(d, &p[i]))
                continue;
            str_idx(t, p[i].name);
            for (unsigned k = 0; k < p[i].n; k++)
                str_idx(t, p[i].e[k].name);
        }
    }
    for (unsigned i = 0; i < d->n_dc_opmode; i++)
        str_idx(t, d->dc_opmode[i].name);
}

static void body(struct out *o, const struct sim_device_desc *d, struct strtab *t)
{
    general(o, d, t);
    if (d->n_fmmu) {
        uint8_t *c = category(o, SII_CAT_FMMU, d->n_fmmu);
        if (c)
            memcpy(c, d->fmmu_use, d->n_fmmu);
    }
    if (d->n_sm) {
        uint8_t *c = category(o, SII_CAT_SM, 8 * (size_t)d->n_sm);
        for (unsigned i = 0; c && i < d->n_sm; i++, c += 8) {
            put_le16(c, d->sm[i].start);
            put_le16(c + 2, d->sm[i].len);
            c[4] = d->sm[i].control;
            c[6] = d->sm[i].enable;
            c[7] = d->sm[i].type;
        }
    }
    pdos(o, d, SII_CAT_TXPDO, d->txpdo, d->n_txpdo, t);
    pdos(o, d, SII_CAT_RXPDO, d->rxpdo, d->n_rxpdo, t);
    if (d->n_dc_opmode) {
        /* ETG.2010 DC category: 24 bytes per op mode */
        uint8_t *c = category(o, SII_CAT_DC, 24 * (size_t)d->n_dc_opmode);
        for (unsigned i = 0; c && i < d->n_dc_opmode; i++, c += 24) {
            put_le32(c, d->dc_opmode[i].cycle0);
            put_le32(c + 4, d->dc_opmode[i].shift0);
            put_le16(c + 14, d->dc_opmode[i].assign_activate);
            c[18] = str_idx(t, d->dc_opmode[i].name);
        }
    }
}

int sim_sii_build(const struct sim_device_desc *d, uint8_t *buf, size_t cap)
{
    struct strtab t = { 0 };
    if (cap < 2 * SII_W_CATEGORIES + 2)
        return -ENOSPC;
    collect_strings(d, &t);
    memset(buf, 0, 2 * SII_W_CATEGORIES);
    struct out o = { buf, cap, 2 * SII_W_CATEGORIES, false };
    strings(&o, &t);
    body(&o, d, &t);
    uint8_t *end = take(&o, 2);
    if (o.overflow || !end)
        return -ENOSPC;
    put_le16(end, SII_CAT_END);
    /* EEPROMs come in powers of two: the smallest that holds the image and is as big as
     * the description says */
    size_t total = SII_MIN_BYTES;
    while (total < o.pos || total < d->eeprom_bytes)
        total *= 2;
    if (cap < total)
        return -ENOSPC;
    memset(buf + o.pos, 0xFF, total - o.pos);
    header(d, buf, total);
    return (int)total;
}
