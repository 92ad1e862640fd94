/* takt ecat upload|download|sdos: CoE access from the command line (IgH `ethercat`
 * style), typed values in and out, the object dictionary through SDO information. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ecat.h"
#include "ecat/coe.h"
#include "ecat/sii.h"
#include "ecat/proto.h"
#include "util/wire.h"

struct type_def { const char *name; unsigned bytes; char kind; };   /* i, u, f, s (string), o (octets) */
static const struct type_def types[] = {
    { "bool", 1, 'u' }, { "int8", 1, 'i' }, { "int16", 2, 'i' }, { "int32", 4, 'i' },
    { "int64", 8, 'i' }, { "uint8", 1, 'u' }, { "uint16", 2, 'u' }, { "uint32", 4, 'u' },
    { "uint64", 8, 'u' }, { "float", 4, 'f' }, { "double", 8, 'f' }, { "string", 0, 's' },
    { "octet_string", 0, 'o' },
};

static const struct type_def *find_type(struct cli_ctx *c)
{
    const char *t = cli_get(c, "type");
    if (!t)
        return NULL;
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(types); i++)
        if (!strcmp(types[i].name, t))
            return &types[i];
    cli_usage_error(c, "--type expects bool, int8..int64, uint8..uint64, float, double, string or "
                    "octet_string, got '%s'", t);
    return (const struct type_def *)-1;
}

/* Bring the network up to PREOP (mailbox) and parse POS IDX SUB. */
static int coe_open(struct cli_ctx *c, int nargs, struct ecat_master **m, struct takt_link **l,
                    unsigned *pos, long *idx, long *sub)
{
    long v;
    if (c->argc < nargs)
        return cli_usage_error(c, "expected %s", c->cmd->args);
    if (cli_parse_long(c, "POS", c->argv[0], 0, 65535, &v))
        return 2;
    *pos = (unsigned)v;
    if (idx && cli_parse_long(c, "IDX", c->argv[1], 0, 0xFFFF, idx))
        return 2;
    if (sub && cli_parse_long(c, "SUB", c->argv[2], 0, 0xFF, sub))
        return 2;
    int rc = cli_ecat_open_link(c, l);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);   /* the tools run no real-time thread */
    struct ecat_master_opts o;
    ecat_master_opts_default(&o);
    o.keep_state = true;             /* a slave already in PREOP/SAFEOP/OP stays there */
    char err[256];
    if (ecat_master_open(m, *l, &o, err, sizeof err)) {
        takt_link_close(*l);
        return cli_error(c, "%s", err);
    }
    if (ecat_master_scan(*m, 5 * TAKT_NS_PER_S) || *pos >= ecat_master_slave_count(*m)) {
        if (*pos >= ecat_master_slave_count(*m) && !ecat_master_error(*m)[0])
            cli_error(c, "POS expects a slave position 0..%d, got %u", (int)ecat_master_slave_count(*m) - 1, *pos);
        else
            cli_error(c, "%s", ecat_master_error(*m));
        ecat_master_close(*m);
        takt_link_close(*l);
        return 1;
    }
    struct ecat_slave_info si;
    ecat_master_slave_info(*m, *pos, &si);
    uint8_t st = si.al_state & AL_STATE_MASK;
    if ((st == AL_INIT || st == AL_BOOT || st == 0) && ecat_master_set_state(*m, AL_PREOP, 10 * TAKT_NS_PER_S)) {
        ecat_master_slave_info(*m, *pos, &si);
        if ((si.al_state & AL_STATE_MASK) != AL_PREOP) {
            cli_error(c, "%s", ecat_master_error(*m));
            ecat_master_close(*m);
            takt_link_close(*l);
            return 1;
        }
    }
    return 0;
}

static void print_value(const struct type_def *t, const uint8_t *b, size_t n)
{
    if (t && t->kind == 's') {
        printf("%.*s\n", (int)n, (const char *)b);
        return;
    }
    if (!t || t->kind == 'o' || n != t->bytes) {
        for (size_t i = 0; i < n; i++)
            printf("%02X%s", b[i], i + 1 == n ? "" : " ");
        if (n == 1 || n == 2 || n == 4 || n == 8) {
            uint64_t v = n == 1 ? b[0] : n == 2 ? get_le16(b) : n == 4 ? get_le32(b) : get_le64(b);
            printf("  0x%0*" PRIX64 " %" PRIu64, (int)(2 * n), v, v);
        }
        printf("\n");
        return;
    }
    uint64_t v = n == 1 ? b[0] : n == 2 ? get_le16(b) : n == 4 ? get_le32(b) : get_le64(b);
    if (t->kind == 'u') {
        printf("0x%0*" PRIX64 " %" PRIu64 "\n", (int)(2 * n), v, v);
    } else if (t->kind == 'i') {
        int64_t s = n == 1 ? (int8_t)v : n == 2 ? (int16_t)v : n == 4 ? (int32_t)v : (int64_t)v;
        printf("%" PRId64 "\n", s);
    } else if (n == 4) {
        float f;
        uint32_t u = (uint32_t)v;
        memcpy(&f, &u, 4);
        printf("%g\n", f);
    } else {
        double d;
        memcpy(&d, &v, 8);
        printf("%g\n", d);
    }
}

static int run_upload(struct cli_ctx *c)
{
    const struct type_def *t = find_type(c);
    if (t == (const struct type_def *)-1)
        return 2;
    struct ecat_master *m;
    struct takt_link *l;
    unsigned pos;
    long idx, sub;
    int rc = coe_open(c, 3, &m, &l, &pos, &idx, &sub);
    if (rc)
        return rc;
    static uint8_t buf[65536];
    size_t len = 0;
    rc = ecat_sdo_upload(m, pos, (uint16_t)idx, (uint8_t)sub, cli_flag(c, "complete"), buf,
                         sizeof buf, &len);
    if (rc)
        cli_error(c, "%s", ecat_master_error(m)[0] ? ecat_master_error(m) : takt_strerror(rc));
    else
        print_value(t, buf, len);
    ecat_master_close(m);
    takt_link_close(l);
    return rc ? 1 : 0;
}

static int encode(struct cli_ctx *c, const struct type_def *t, const char *s, uint8_t *b, size_t cap,
                  size_t *n)
{
    char *end;
    errno = 0;
    if (t->kind == 's') {
        *n = strlen(s) < cap ? strlen(s) : cap;
        memcpy(b, s, *n);
        return 0;
    }
    if (t->kind == 'o') {
        size_t hl = strlen(s);
        if (hl % 2 || hl / 2 > cap)
            return cli_usage_error(c, "VALUE of type octet_string expects hex digits in pairs, got '%s'", s), -1;
        for (size_t i = 0; i < hl / 2; i++) {
            char h[3] = { s[2 * i], s[2 * i + 1], 0 };
            b[i] = (uint8_t)strtoul(h, &end, 16);
            if (*end)
                return cli_usage_error(c, "VALUE expects hex digits, got '%s'", s), -1;
        }
        *n = hl / 2;
        return 0;
    }
    uint64_t v;
    if (t->kind == 'f') {
        double d = strtod(s, &end);
        if (*end || end == s)
            return cli_usage_error(c, "VALUE of type %s expects a number, got '%s'", t->name, s), -1;
        if (t->bytes == 4) {
            float f = (float)d;
            uint32_t u;
            memcpy(&u, &f, 4);
            v = u;
        } else {
            memcpy(&v, &d, 8);
        }
    } else if (t->kind == 'i') {
        long long x = strtoll(s, &end, 0);
        int bits = 8 * (int)t->bytes;
        if (*end || end == s || errno || (bits < 64 && (x < -(1LL << (bits - 1)) || x >= (1LL << (bits - 1)))))
            return cli_usage_error(c, "VALUE of type %s expects an integer in its range, got '%s'", t->name, s), -1;
        v = (uint64_t)x;
    } else {
        unsigned long long x = strtoull(s, &end, 0);
        int bits = 8 * (int)t->bytes;
        if (*end || end == s || errno || *s == '-' || (bits < 64 && x >> bits) ||
            (!strcmp(t->name, "bool") && x > 1))
            return cli_usage_error(c, "VALUE of type %s expects an unsigned integer in its range, got '%s'",
                                   t->name, s), -1;
        v = x;
    }
    for (unsigned i = 0; i < t->bytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    *n = t->bytes;
    return 0;
}

static int run_download(struct cli_ctx *c)
{
    const struct type_def *t = find_type(c);
    if (t == (const struct type_def *)-1)
        return 2;
    if (!t)
        return cli_usage_error(c, "--type expects the data type of the object (e.g. uint16), got none");
    if (c->argc < 4)
        return cli_usage_error(c, "expected POS IDX SUB VALUE");
    uint8_t buf[4096];
    size_t n;
    if (encode(c, t, c->argv[3], buf, sizeof buf, &n))
        return 2;
    struct ecat_master *m;
    struct takt_link *l;
    unsigned pos;
    long idx, sub;
    int rc = coe_open(c, 4, &m, &l, &pos, &idx, &sub);
    if (rc)
        return rc;
    rc = ecat_sdo_download(m, pos, (uint16_t)idx, (uint8_t)sub, cli_flag(c, "complete"), buf, n);
    if (rc)
        cli_error(c, "%s", ecat_master_error(m)[0] ? ecat_master_error(m) : takt_strerror(rc));
    ecat_master_close(m);
    takt_link_close(l);
    return rc ? 1 : 0;
}

static const char *obj_code(uint8_t c)
{
    return c == 7 ? "VAR" : c == 8 ? "ARRAY" : c == 9 ? "RECORD" : "?";
}

static int run_sdos(struct cli_ctx *c)
{
    struct ecat_master *m;
    struct takt_link *l;
    unsigned pos;
    int rc = coe_open(c, 1, &m, &l, &pos, NULL, NULL);
    if (rc)
        return rc;
    static uint8_t list[8192];
    size_t n;
    rc = ecat_sdo_info(m, pos, ECAT_SDO_INFO_ODLIST, 0, 0, list, sizeof list, &n);
    uint16_t lt;
    const uint8_t *first;
    int cnt = rc ? -1 : ecat_coe_odlist_parse(list, n, &lt, &first);
    if (rc || cnt < 0) {
        cli_error(c, "SDO information of slave %u: %s", pos, rc ? ecat_master_error(m) : "malformed object list");
        ecat_master_close(m);
        takt_link_close(l);
        return 1;
    }
    for (int i = 0; i < cnt; i++) {
        uint16_t idx = get_le16(first + 2 * i);
        uint8_t d[256];
        struct ecat_coe_objdesc od;
        if (ecat_sdo_info(m, pos, ECAT_SDO_INFO_OBJECT, idx, 0, d, sizeof d, &n) ||
            ecat_coe_objdesc_parse(d, n, &od)) {
            printf("0x%04X  (no description: %s)\n", idx, ecat_master_error(m));
            continue;
        }
        printf("0x%04X  %-6s  %s  (max sub %u)\n", idx, obj_code(od.obj_code), od.name, od.max_sub);
        for (unsigned s = 0; c->verbose && s <= od.max_sub; s++) {
            struct ecat_coe_entrydesc ed;
            if (ecat_sdo_info(m, pos, ECAT_SDO_INFO_ENTRY, idx, (uint8_t)s, d, sizeof d, &n) ||
                ecat_coe_entrydesc_parse(d, n, &ed))
                continue;
            printf("    0x%04X:%02X  %-8s %3u bit  access 0x%04X  %s\n", idx, s,
                   ecat_coe_type_name(ed.data_type)[0] ? ecat_coe_type_name(ed.data_type) : "?",
                   ed.bitlen, ed.access, ed.name);
        }
    }
    ecat_master_close(m);
    takt_link_close(l);
    return 0;
}

static const struct cli_opt coe_opts[] = {
    { "type", 0, 1, "T", "bool, int8..int64, uint8..uint64, float, double, string, octet_string" },
    { "complete", 0, 0, NULL, "complete access (whole object; SUB 0 or 1)" },
    { 0 }
};

const struct cli_cmd cli_cmds_ecat_coe[] = {
    { "ecat", "upload", "POS IDX SUB", "read an object over CoE (SDO upload)",
      "Brings the network to PREOP for the mailbox. Without --type the bytes are shown in\n"
      "hex and, for 1/2/4/8 bytes, as an unsigned number.",
      CLI_IFACE | CLI_PCAP, coe_opts, run_upload, NULL },
    { "ecat", "download", "POS IDX SUB VALUE", "write an object over CoE (SDO download)",
      "VALUE is converted to --type (required) and written little-endian; put -- before a\n"
      "negative VALUE (takt ecat download -i IF --type int32 -- 4 0x607A 0 -1234).",
      CLI_IFACE | CLI_PCAP, coe_opts, run_download, NULL },
    { "ecat", "sdos", "POS", "list the object dictionary (SDO information)",
      "-v lists every entry with its data type, bit length and access.", CLI_IFACE | CLI_PCAP,
      NULL, run_sdos, NULL },
    { 0 }
};
