/* ESI reader (ETG.2000 subset): identity, name, group, SMs, FMMUs, RxPdo/TxPdo entries,
 * mailbox/CoE flags and DC op modes of one <Device>, with libxml2. */
#include "sim/esi.h"
#include "sim/esi_xml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "ecat/proto.h"
#include "util/wire.h"

#define ESI_MAX_BYTES (64u << 20)

long long sim_esi_number(const char *s, int *ok)
{
    char *end;
    long long v;
    *ok = 0;
    if (!s)
        return 0;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    errno = 0;
    if ((s[0] == '#' && (s[1] == 'x' || s[1] == 'X')) || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
        v = (long long)strtoull(s + 2, &end, 16);
    else
        v = strtoll(s, &end, 10);
    if (end == s || errno)
        return 0;
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    *ok = !*end;
    return v;
}

static const char *attr(const xmlNode *n, const char *name, char *buf, size_t len)
{
    buf[0] = 0;
    xmlChar *v = n ? xmlGetProp(n, (const xmlChar *)name) : NULL;
    if (!v)
        return NULL;
    snprintf(buf, len, "%s", (const char *)v);
    xmlFree(v);
    return buf;
}

static bool attr_bool(const xmlNode *n, const char *name)
{
    char b[16];
    return attr(n, name, b, sizeof b) && (!strcasecmp(b, "true") || !strcmp(b, "1"));
}

/* Numeric attribute or child element; *ok = 0 if absent or not a number. */
static long long attr_num(const xmlNode *n, const char *name, long long dflt, int *ok)
{
    char b[64];
    int k;
    if (!attr(n, name, b, sizeof b)) {
        *ok = 1;
        return dflt;
    }
    long long v = sim_esi_number(b, &k);
    *ok = k;
    return k ? v : dflt;
}

static long long child_num(const xmlNode *n, const char *name, long long dflt, int *ok)
{
    char b[64];
    const xmlNode *c = esi_child(n, name);
    if (!c) {
        *ok = 1;
        return dflt;
    }
    return sim_esi_number(esi_text(c, b, sizeof b), ok);
}

/* <Name LcId="1033"> preferred, else the first <Name>. */
static void name_of(const xmlNode *n, char *buf, size_t len)
{
    const xmlNode *pick = NULL;
    char lc[16];
    for (xmlNode *c = n->children; c; c = c->next)
        if (esi_is(c, "Name")) {
            if (!pick)
                pick = c;
            if (attr(c, "LcId", lc, sizeof lc) && !strcmp(lc, "1033")) {
                pick = c;
                break;
            }
        }
    esi_text(pick, buf, len);
}

static int parse_sm(const xmlNode *dev, struct sim_device_desc *d, char *err, size_t errlen)
{
    static const char *const types[] = { "", "MBoxOut", "MBoxIn", "Outputs", "Inputs" };
    char b[64];
    for (xmlNode *c = dev->children; c; c = c->next) {
        if (!esi_is(c, "Sm"))
            continue;
        if (d->n_sm == SIM_MAX_SM)
            return esi_fail(err, errlen, -EINVAL, c, "more than %d <Sm> elements", SIM_MAX_SM);
        struct sim_sm_desc *s = &d->sm[d->n_sm++];
        int ok1, ok2, ok3, ok4;
        s->start = (uint16_t)attr_num(c, "StartAddress", 0, &ok1);
        s->len = (uint16_t)attr_num(c, "DefaultSize", 0, &ok2);
        s->control = (uint8_t)attr_num(c, "ControlByte", 0, &ok3);
        s->enable = (uint8_t)attr_num(c, "Enable", 0, &ok4);
        if (!ok1 || !ok2 || !ok3 || !ok4)
            return esi_fail(err, errlen, -EINVAL, c, "<Sm> attribute is not a number "
                        "(expected e.g. StartAddress=\"#x1000\")");
        esi_text(c, b, sizeof b);
        for (uint8_t t = 1; t < 5; t++)
            if (!strcmp(b, types[t]))
                s->type = t;
        if (!s->len && (s->type == SIM_SM_MBX_OUT || s->type == SIM_SM_MBX_IN))
            s->len = (uint16_t)attr_num(c, "MaxSize", 0, &ok2);   /* no DefaultSize given */
    }
    return 0;
}

static void parse_fmmu(const xmlNode *dev, struct sim_device_desc *d)
{
    char b[32];
    for (xmlNode *c = dev->children; c; c = c->next)
        if (esi_is(c, "Fmmu") && d->n_fmmu < SIM_MAX_FMMU) {
            esi_text(c, b, sizeof b);
            d->fmmu_use[d->n_fmmu++] = !strcmp(b, "Outputs") ? 1 : !strcmp(b, "Inputs") ? 2
                                     : !strcmp(b, "MBoxState") ? 3 : 0;
        }
}

static int parse_entry(const xmlNode *c, struct sim_pdo_entry *e, char *err, size_t errlen)
{
    char b[64];
    int ok1, ok2, ok3;
    e->index = (uint16_t)child_num(c, "Index", 0, &ok1);
    e->sub = (uint8_t)child_num(c, "SubIndex", 0, &ok2);
    long long bits = child_num(c, "BitLen", -1, &ok3);
    if (!ok1 || !ok2 || !ok3 || bits < 1 || bits > 255)
        return esi_fail(err, errlen, -EINVAL, c, "PDO <Entry> needs numeric Index, SubIndex "
                    "and BitLen 1..255");
    e->bits = (uint8_t)bits;
    esi_text(esi_child(c, "Name"), e->name, sizeof e->name);
    uint16_t tb;
    e->datatype = od_type_from_name(esi_text(esi_child(c, "DataType"), b, sizeof b), &tb);
    if (!e->datatype && e->index)
        e->datatype = e->bits == 1 ? OD_BOOL : e->bits <= 8 ? (uint16_t)(OD_BIT1 + e->bits - 1) : 0;
    return 0;
}

static int parse_pdos(const xmlNode *dev, const char *tag, struct sim_pdo *pdo, unsigned *np,
                      char *err, size_t errlen)
{
    for (xmlNode *c = dev->children; c; c = c->next) {
        if (!esi_is(c, tag))
            continue;
        if (*np == SIM_MAX_PDO)
            return esi_fail(err, errlen, -EINVAL, c, "more than %d <%s> elements", SIM_MAX_PDO, tag);
        struct sim_pdo *p = &pdo[(*np)++];
        int ok1, ok2;
        memset(p, 0, sizeof *p);
        p->index = (uint16_t)child_num(c, "Index", 0, &ok1);
        p->sm = (int8_t)attr_num(c, "Sm", -1, &ok2);
        if (!ok1 || !ok2 || !p->index)
            return esi_fail(err, errlen, -EINVAL, c, "<%s> needs a numeric <Index> (and Sm)", tag);
        p->fixed = attr_bool(c, "Fixed");
        p->mandatory = attr_bool(c, "Mandatory");
        name_of(c, p->name, sizeof p->name);
        for (xmlNode *e = c->children; e; e = e->next) {
            if (!esi_is(e, "Entry"))
                continue;
            if (p->n == SIM_MAX_PDO_ENTRY)
                return esi_fail(err, errlen, -EINVAL, e, "PDO 0x%04X has more than %d entries",
                            p->index, SIM_MAX_PDO_ENTRY);
            int rc = parse_entry(e, &p->e[p->n++], err, errlen);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static void parse_mailbox(const xmlNode *dev, struct sim_device_desc *d)
{
    const xmlNode *m = esi_child(dev, "Mailbox");
    if (!m)
        return;
    static const struct { const char *tag; uint8_t bit; } p[] = {
        { "AoE", MBX_PROTO_AOE }, { "EoE", MBX_PROTO_EOE }, { "CoE", MBX_PROTO_COE },
        { "FoE", MBX_PROTO_FOE }, { "SoE", MBX_PROTO_SOE }, { "VoE", MBX_PROTO_VOE } };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (esi_child(m, p[i].tag))
            d->mbx_protocols |= p[i].bit;
    const xmlNode *coe = esi_child(m, "CoE");
    if (!coe)
        return;
    d->coe_details = 0x01 | (attr_bool(coe, "SdoInfo") ? 0x02 : 0) |
                     (attr_bool(coe, "PdoAssign") ? 0x04 : 0) | (attr_bool(coe, "PdoConfig") ? 0x08 : 0) |
                     (attr_bool(coe, "PdoUpload") ? 0x10 : 0) | (attr_bool(coe, "CompleteAccess") ? 0x20 : 0);
}

/* <Eeprom><BootStrap>: the SII's bootstrap mailbox words 0x14-0x17 as 8 hex bytes,
 * little-endian words RX offset, RX size, TX offset, TX size (e.g. the EL4002's
 * "0010F400F410F400": 244 bytes at 0x1000 and at 0x10F4). */
static int parse_bootstrap(const xmlNode *dev, struct sim_device_desc *d, char *err, size_t errlen)
{
    const xmlNode *b = esi_child(esi_child(dev, "Eeprom"), "BootStrap");
    char t[64];
    int ok;
    /* Eeprom/ByteSize (ETG.2000): the EEPROM a device has, up to 64 KiB (512 KiBit) */
    long long size = child_num(esi_child(dev, "Eeprom"), "ByteSize", 0, &ok);
    if (!ok || size < 0 || size > 65536)
        return esi_fail(err, errlen, -EINVAL, esi_child(esi_child(dev, "Eeprom"), "ByteSize"),
                        "<Eeprom><ByteSize>: expected 0..65536 bytes");
    d->eeprom_bytes = (uint32_t)size;
    if (!b)
        return 0;
    esi_text(b, t, sizeof t);
    uint8_t v[8];
    size_t n = 0;
    for (const char *c = t; *c; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
            continue;
        int h = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
              : *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
        if (h < 0 || n >= 16)
            return esi_fail(err, errlen, -EINVAL, b, "<BootStrap>: expected 16 hex digits "
                            "(RX offset/size, TX offset/size), found '%s'", t);
        v[n / 2] = (uint8_t)(n % 2 ? v[n / 2] << 4 | h : h);
        n++;
    }
    if (n != 16)
        return esi_fail(err, errlen, -EINVAL, b, "<BootStrap>: expected 16 hex digits "
                        "(RX offset/size, TX offset/size), found '%s'", t);
    d->boot_out_start = get_le16(v);
    d->boot_out_len = get_le16(v + 2);
    d->boot_in_start = get_le16(v + 4);
    d->boot_in_len = get_le16(v + 6);
    return 0;
}

/* A device lists DC op modes; one that offers no mode without SYNC activation (no
 * free run) cannot run without DC: it is dc_required. */
static int parse_dc(const xmlNode *dev, struct sim_device_desc *d, char *err, size_t errlen)
{
    const xmlNode *dc = esi_child(dev, "Dc");
    bool free_run = false;
    for (xmlNode *c = dc ? dc->children : NULL; c; c = c->next) {
        if (!esi_is(c, "OpMode") || d->n_dc_opmode == 4)
            continue;
        struct sim_dc_opmode *m = &d->dc_opmode[d->n_dc_opmode++];
        int ok1, ok2, ok3;
        esi_text(esi_child(c, "Name"), m->name, sizeof m->name);
        m->assign_activate = (uint16_t)child_num(c, "AssignActivate", 0, &ok1);
        m->cycle0 = (uint32_t)child_num(c, "CycleTimeSync0", 0, &ok2);
        m->shift0 = (uint32_t)child_num(c, "ShiftTimeSync0", 0, &ok3);
        if (!ok1 || !ok2 || !ok3)
            return esi_fail(err, errlen, -EINVAL, c, "<OpMode> values must be numbers");
        free_run |= !(m->assign_activate & 0x0300);
    }
    d->dc_required = d->n_dc_opmode && !free_run;
    return 0;
}

/* takt's own files say which behaviour to run; other files get one from their shape. */
static void behaviour(const xmlNode *dev, struct sim_device_desc *d, const struct sim_od *od)
{
    char b[sizeof d->behaviour];
    const xmlNode *vs = esi_child(dev, "VendorSpecific");
    esi_text(esi_child(vs, "TaktBehaviour"), b, sizeof b);
    if (*b) {
        snprintf(d->behaviour, sizeof d->behaviour, "%s", b);
        return;
    }
    sim_desc_guess_behaviour(d, od);
}

void sim_desc_guess_behaviour(struct sim_device_desc *d, const struct sim_od *od)
{
    /* CiA 402: controlword 0x6040 and statusword 0x6041 as plain variables (a 16-channel
     * DI has a record 0x6040 for its fifth channel) or a controlword in an RxPDO */
    const struct od_object *cw = od ? od_find(od, 0x6040) : NULL, *sw = od ? od_find(od, 0x6041) : NULL;
    bool drive = cw && sw && cw->code == OD_VAR && sw->code == OD_VAR, analog = false, bools = false;
    for (unsigned i = 0; i < d->n_txpdo; i++)
        for (unsigned k = 0; k < d->txpdo[i].n; k++) {
            analog |= d->txpdo[i].e[k].bits >= 16;
            bools |= d->txpdo[i].e[k].bits == 1;
        }
    for (unsigned i = 0; i < d->n_rxpdo; i++)
        for (unsigned k = 0; k < d->rxpdo[i].n; k++)
            drive |= d->rxpdo[i].e[k].index == 0x6040 && d->rxpdo[i].e[k].sub == 0 &&
                     d->rxpdo[i].e[k].bits == 16;
    const char *beh = drive ? "servo" : analog ? "ai" : bools ? "di"
                    : d->n_rxpdo ? "do" : "coupler";
    snprintf(d->behaviour, sizeof d->behaviour, "%s", beh);
}

static int parse_device(const xmlNode *dev, uint32_t vendor, struct sim_esi_device *out,
                        char *err, size_t errlen)
{
    struct sim_device_desc *d = &out->desc;
    const xmlNode *type = esi_child(dev, "Type");
    int ok1, ok2;
    d->vendor = vendor;
    d->product = (uint32_t)attr_num(type, "ProductCode", 0, &ok1);
    d->revision = (uint32_t)attr_num(type, "RevisionNo", 0, &ok2);
    if (!ok1 || !ok2)
        return esi_fail(err, errlen, -EINVAL, type, "<Type> ProductCode/RevisionNo must be numbers");
    esi_text(type, d->type, sizeof d->type);
    name_of(dev, d->name, sizeof d->name);
    esi_text(esi_child(dev, "GroupType"), d->group, sizeof d->group);
    d->esc_type = 0x11;           /* ET1100-like register set */
    d->n_fmmu_hw = 8;
    d->n_sm_hw = 8;
    d->ram_kb = 8;
    d->features = 0x01CC;         /* DC + 64-bit DC (ESC datasheet Section II, 0x0008) */
    int rc = parse_sm(dev, d, err, errlen);
    if (!rc)
        rc = parse_pdos(dev, "RxPdo", d->rxpdo, &d->n_rxpdo, err, errlen);
    if (!rc)
        rc = parse_pdos(dev, "TxPdo", d->txpdo, &d->n_txpdo, err, errlen);
    if (!rc)
        rc = parse_dc(dev, d, err, errlen);
    if (!rc)
        rc = parse_bootstrap(dev, d, err, errlen);
    if (rc)
        return rc;
    parse_fmmu(dev, d);
    parse_mailbox(dev, d);
    const xmlNode *dict = esi_child(esi_child(dev, "Profile"), "Dictionary");
    if (dict && (rc = sim_esi_dictionary((xmlNode *)dict, &out->dict, err, errlen)))
        return rc;
    behaviour(dev, d, &out->dict);
    return 0;
}

/* Does any <Name> of the device (or its Type text) read s, case-insensitive? */
static bool named(const xmlNode *dev, const xmlNode *type, const char *s)
{
    char b[256];
    if (!strcasecmp(esi_text(type, b, sizeof b), s))
        return true;
    for (xmlNode *c = dev->children; c; c = c->next)
        if (esi_is(c, "Name") && !strcasecmp(esi_text(c, b, sizeof b), s))
            return true;
    return false;
}

static bool selected(const xmlNode *dev, const struct sim_esi_select *sel)
{
    char b[64];
    int ok;
    const xmlNode *type = esi_child(dev, "Type");
    if (!type)
        return false;
    if (sel && sel->type && strcmp(esi_text(type, b, sizeof b), sel->type))
        return false;
    if (sel && (sel->revision || sel->has_revision) &&
        (uint32_t)attr_num(type, "RevisionNo", 0, &ok) != sel->revision)
        return false;
    if (sel && sel->has_product && (uint32_t)attr_num(type, "ProductCode", 0, &ok) != sel->product)
        return false;
    if (sel && sel->name && !named(dev, type, sel->name))
        return false;
    return true;
}

int sim_esi_select_parse(const char *s, struct sim_esi_select *sel, char *buf, size_t len,
                         char *err, size_t errlen)
{
    memset(sel, 0, sizeof *sel);
    snprintf(buf, len, "%s", s);
    char *rev = strrchr(buf, ':');
    int ok = 1;
    if (rev) {
        *rev++ = 0;
        long long v = sim_esi_number(rev, &ok);
        if (!ok || v < 0 || v > UINT32_MAX)
            return esi_fail(err, errlen, -EINVAL, NULL, "device selection '%s': expected a revision "
                            "number after ':' (e.g. :#x00120000), got '%s'", s, rev);
        sel->revision = (uint32_t)v;
        sel->has_revision = true;
    }
    if ((buf[0] == '#' || buf[0] == '0') && (buf[1] == 'x' || buf[1] == 'X')) {
        long long v = sim_esi_number(buf, &ok);
        if (!ok || v < 0 || v > UINT32_MAX)
            return esi_fail(err, errlen, -EINVAL, NULL, "device selection '%s': expected a product "
                            "code like #x03F03052, got '%s'", s, buf);
        sel->product = (uint32_t)v;
        sel->has_product = true;
    } else if (buf[0]) {
        sel->name = buf;
    } else if (!rev) {
        return esi_fail(err, errlen, -EINVAL, NULL, "device selection is empty: expected a name "
                        "(EL1008), a product code (#x03F03052) and/or :REVISION");
    }
    return 0;
}

/* "EL1008 #x03F03052:#x00120000" of the selection, for messages. */
static const char *select_text(const struct sim_esi_select *sel, char *b, size_t n)
{
    int k = snprintf(b, n, "%s%s", sel && sel->type ? sel->type : "",
                     sel && sel->name ? sel->name : "");
    if (sel && sel->has_product && k >= 0 && (size_t)k < n)
        k += snprintf(b + k, n - (size_t)k, "%s#x%08X", k ? " " : "", sel->product);
    if (sel && (sel->revision || sel->has_revision) && k >= 0 && (size_t)k < n)
        k += snprintf(b + k, n - (size_t)k, ":#x%08X", sel->revision);
    if (k == 0)
        snprintf(b, n, "(any)");
    return b;
}

int sim_esi_parse(const char *xml, size_t len, const struct sim_esi_select *sel,
                  struct sim_esi_device *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    od_init(&out->dict);
    if (len > ESI_MAX_BYTES || len > (size_t)INT32_MAX)
        return esi_fail(err, errlen, -EINVAL, NULL, "ESI file too large (%zu bytes)", len);
    xmlDoc *doc = xmlReadMemory(xml, (int)len, NULL, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        /* libxml2's messages end with a newline: the line is ours to end */
        int ml = e && e->message ? (int)strcspn(e->message, "\r\n") : 0;
        return esi_fail(err, errlen, -TAKT_EXML, NULL, "not well-formed XML%s%.*s (line %d)",
                    ml ? ": " : "", ml, ml ? e->message : "", e ? e->line : 0);
    }
    int rc = 0;
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!esi_is(root, "EtherCATInfo")) {
        rc = esi_fail(err, errlen, -TAKT_EXML, root, "root element is <%s>, expected <EtherCATInfo>",
                  root ? (const char *)root->name : "(none)");
        goto out;
    }
    int ok;
    uint32_t vendor = (uint32_t)child_num(esi_child(root, "Vendor"), "Id", 0, &ok);
    if (!ok) {
        rc = esi_fail(err, errlen, -EINVAL, esi_child(root, "Vendor"), "<Vendor><Id> is not a number");
        goto out;
    }
    const xmlNode *devs = esi_child(esi_child(root, "Descriptions"), "Devices");
    for (xmlNode *d = devs ? devs->children : NULL; d; d = d->next)
        if (esi_is(d, "Device") && selected(d, sel)) {
            rc = parse_device(d, vendor, out, err, errlen);
            goto out;
        }
    /* say what the file has, so the user can pick */
    char have[200] = "", b[64], st[160];
    unsigned n = 0;
    size_t k = 0;
    for (xmlNode *d = devs ? devs->children : NULL; d; d = d->next) {
        if (!esi_is(d, "Device"))
            continue;
        if (n++ < 6 && k < sizeof have) {
            const xmlNode *t = esi_child(d, "Type");
            int ok1, ok2;
            uint32_t pc = (uint32_t)attr_num(t, "ProductCode", 0, &ok1), rv = (uint32_t)attr_num(t, "RevisionNo", 0, &ok2);
            int w = snprintf(have + k, sizeof have - k, "%s%s #x%08X:#x%08X", n > 1 ? ", " : "",
                             esi_text(t, b, sizeof b), pc, rv);
            k += w > 0 ? (size_t)w : 0;
        }
    }
    rc = esi_fail(err, errlen, -ENOENT, NULL, "no <Device> matching %s in the file; it has %u%s%s%s",
                  select_text(sel, st, sizeof st), n, n ? ": " : "", have, n > 6 ? ", ..." : "");
out:
    xmlFreeDoc(doc);
    if (rc)
        od_free(&out->dict);
    return rc;
}

int sim_esi_load(const char *path, const struct sim_esi_select *sel, struct sim_esi_device *out,
                 char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    memset(out, 0, sizeof *out);
    if (!f)
        return esi_fail(err, errlen, -errno, NULL, "cannot open ESI file %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > ESI_MAX_BYTES) {
                free(buf);
                fclose(f);
                return esi_fail(err, errlen, -EINVAL, NULL, "ESI file %s larger than %u bytes", path, ESI_MAX_BYTES);
            }
            char *p = realloc(buf, cap);
            if (!p) {
                free(buf);
                fclose(f);
                return -ENOMEM;
            }
            buf = p;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        if (!n)
            break;
        len += n;
    }
    fclose(f);
    int rc = sim_esi_parse(buf, len, sel, out, err, errlen);
    free(buf);
    if (rc && err && errlen) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
    }
    return rc;
}

void sim_esi_free(struct sim_esi_device *d)
{
    od_free(&d->dict);
}
