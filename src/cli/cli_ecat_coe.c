/* takt ecat upload|download|sdos: CoE access from the command line (IgH `ethercat`
 * style), typed values in and out, the object dictionary through SDO information. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <takt/wire.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

/* coe: the CoE data type index (ETG.1000.6 Table 64 "Basic Data Types", as SDO
 * information gives it in an entry description) that --type T stands for. */
struct type_def { const char *name; unsigned bytes; char kind; uint16_t coe; };   /* i, u, f, s (string), o (octets) */
static const struct type_def types[] = {
    { "bool", 1, 'u', 0x0001 }, { "int8", 1, 'i', 0x0002 }, { "int16", 2, 'i', 0x0003 },
    { "int32", 4, 'i', 0x0004 }, { "int64", 8, 'i', 0x0015 }, { "uint8", 1, 'u', 0x0005 },
    { "uint16", 2, 'u', 0x0006 }, { "uint32", 4, 'u', 0x0007 }, { "uint64", 8, 'u', 0x001B },
    { "float", 4, 'f', 0x0008 }, { "double", 8, 'f', 0x0011 }, { "string", 0, 's', 0x0009 },
    { "octet_string", 0, 'o', 0x000A },
};

/* Ask the slave's object dictionary (SDO information, Get Entry Description) for the
 * type of IDX:SUB, as IgH's `ethercat download` does. 1 with *t set; 0 when the slave
 * gives no description (why in why); -1 when it gives a type --type has no name for. */
static int dict_type(struct cli_ctx *c, struct cli_ecat_tool *m, unsigned pos, uint16_t idx, uint8_t sub,
                     const struct type_def **t, uint16_t *coe, char *why, size_t n)
{
    uint8_t d[256];
    size_t len;
    struct takt_ecat_coe_entrydesc ed;
    const uint8_t *img = cli_ecat_tool_sii(m, pos, &len);
    if (!cli_ecat_has_sdo_info(img, len)) {    /* not asked: such a slave may not answer */
        snprintf(why, n, "its SII's CoE details do not list SDO information");
        return 0;
    }
    if (cli_ecat_tool_sdo_info(m, c, pos, TAKT_ECAT_SDO_INFO_ENTRY, idx, sub, d, sizeof d, &len)) {
        snprintf(why, n, "%s", cli_ecat_tool_error(m)[0] ? cli_ecat_tool_error(m) : "no answer");
        return 0;
    }
    if (takt_ecat_coe_entrydesc_parse(d, len, &ed)) {
        snprintf(why, n, "a malformed entry description");
        return 0;
    }
    *coe = ed.data_type;
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(types); i++)
        if (types[i].coe == ed.data_type) {
            *t = &types[i];
            return 1;
        }
    return -1;
}

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

/* Bring the network up to PREOP (mailbox) and parse POS IDX SUB; through the master
 * `takt ecat run` runs on -i where one does (its slaves are in PREOP or beyond). */
static int coe_open(struct cli_ctx *c, int nargs, struct cli_ecat_tool *t, unsigned *pos, long *idx, long *sub)
{
    long v;
    if (c->argc < nargs)
        return cli_usage_error(c, "expected %s", c->cmd->args);
    /* POS now, ALIAS:POS once the scan knows the aliases */
    if (!strchr(c->argv[0], ':') && cli_parse_long(c, "POS", c->argv[0], 0, 65535, &v))
        return 2;
    if (idx && cli_parse_long(c, "IDX", c->argv[1], 0, 0xFFFF, idx))
        return 2;
    if (sub && cli_parse_long(c, "SUB", c->argv[2], 0, 0xFF, sub))
        return 2;
    int rc = cli_ecat_tool_open(c, t, CLI_ECAT_TOOL_SERVED | CLI_ECAT_TOOL_NOSCAN);
    if (rc)
        return rc;
    if (t->ctl) {
        if (cli_ecat_tool_parse_pos(c, t, c->argv[0], pos)) {
            cli_ecat_tool_close(t);
            return 1;
        }
        return 0;
    }
    rc = cli_ecat_open_ports(c, &t->l, &t->l2);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);   /* the tools run no real-time thread */
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.keep_state = true;             /* a slave already in PREOP/SAFEOP/OP stays there */
    o.redundant = t->l2;             /* NULL without --redundant */
    char err[256];
    if (takt_ecat_master_open(&t->m, t->l, &o, err, sizeof err)) {
        cli_ecat_tool_close(t);
        return cli_error(c, "%s", err);
    }
    struct takt_ecat_master *m = t->m;
    bool scanned = !takt_ecat_master_scan(m, 5 * TAKT_NS_PER_S);
    if (!scanned || cli_ecat_parse_pos(c, m, c->argv[0], pos)) {
        if (!scanned)
            cli_error(c, "%s", takt_ecat_master_error(m));
        cli_ecat_tool_close(t);
        return 1;
    }
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(m, *pos, &si);
    uint8_t st = si.al_state & TAKT_ECAT_STATE_MASK;
    if ((st == TAKT_ECAT_STATE_INIT || st == TAKT_ECAT_STATE_BOOT || st == 0) && takt_ecat_master_set_state(m, TAKT_ECAT_STATE_PREOP, 10 * TAKT_NS_PER_S)) {
        takt_ecat_master_slave_info(m, *pos, &si);
        if ((si.al_state & TAKT_ECAT_STATE_MASK) != TAKT_ECAT_STATE_PREOP) {
            cli_error(c, "%s", takt_ecat_master_error(m));
            cli_ecat_tool_close(t);
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
            uint64_t v = n == 1 ? b[0] : n == 2 ? takt_get_le16(b) : n == 4 ? takt_get_le32(b) : takt_get_le64(b);
            printf("  0x%0*" PRIX64 " %" PRIu64, (int)(2 * n), v, v);
        }
        printf("\n");
        return;
    }
    uint64_t v = n == 1 ? b[0] : n == 2 ? takt_get_le16(b) : n == 4 ? takt_get_le32(b) : takt_get_le64(b);
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

/* --json of upload: where, the bytes in wire order, and the value where the type is known */
static int upload_json(struct cli_ctx *c, const struct type_def *t, unsigned pos, uint16_t idx,
                       uint8_t sub, const uint8_t *b, size_t n)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "position", json_object_new_int((int)pos));
    json_object_object_add(o, "index", json_object_new_int(idx));
    json_object_object_add(o, "subindex", json_object_new_int(sub));
    json_object_object_add(o, "size", json_object_new_int64((int64_t)n));
    char *hex = malloc(2 * n + 1);
    if (!hex) {
        json_object_put(o);
        return cli_error(c, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02X", b[i]);
    hex[2 * n] = 0;
    json_object_object_add(o, "bytes", json_object_new_string(hex));
    free(hex);
    json_object_object_add(o, "type", t ? json_object_new_string(t->name) : NULL);
    json_object *v = NULL;
    if (t && t->kind == 's') {
        v = json_object_new_string_len((const char *)b, (int)n);
    } else if (t && t->kind != 'o' && n == t->bytes) {
        uint64_t u = n == 1 ? b[0] : n == 2 ? takt_get_le16(b) : n == 4 ? takt_get_le32(b) : takt_get_le64(b);
        if (t->kind == 'u') {
            v = json_object_new_uint64(u);
        } else if (t->kind == 'i') {
            v = json_object_new_int64(n == 1 ? (int8_t)u : n == 2 ? (int16_t)u : n == 4 ? (int32_t)u : (int64_t)u);
        } else if (n == 4) {
            float f;
            uint32_t w = (uint32_t)u;
            memcpy(&f, &w, 4);
            v = json_object_new_double(f);
        } else {
            double d;
            memcpy(&d, &u, 8);
            v = json_object_new_double(d);
        }
    }
    json_object_object_add(o, "value", v);
    int rc = cli_write_json(c, o);
    json_object_put(o);
    return rc;
}

static int run_upload(struct cli_ctx *c)
{
    char *av[8];
    if (cli_ecat_pos_option(c, 0, av, 8))
        return 2;
    const struct type_def *t = find_type(c);
    if (t == (const struct type_def *)-1)
        return 2;
    struct cli_ecat_tool tl, *m = &tl;
    unsigned pos = 0;
    long idx, sub;
    int rc = coe_open(c, 3, m, &pos, &idx, &sub);
    if (rc)
        return rc;
    static uint8_t buf[65536];
    size_t len = 0;
    char why[256];
    uint16_t coe = 0;
    bool ca = cli_flag(c, "complete");
    if (!t && !ca && dict_type(c, m, pos, (uint16_t)idx, (uint8_t)sub, &t, &coe, why, sizeof why) < 1)
        t = NULL;     /* no type known: bytes in hex, as without SDO information */
    rc = cli_ecat_tool_upload(m, c, pos, (uint16_t)idx, (uint8_t)sub, ca, buf, sizeof buf, &len);
    if (rc)
        cli_error(c, "%s", cli_ecat_tool_error(m)[0] ? cli_ecat_tool_error(m) : takt_strerror(rc));
    else if (!c->json || strcmp(c->json, "-"))
        print_value(t, buf, len);
    if (!rc && c->json)
        rc = upload_json(c, t, pos, (uint16_t)idx, (uint8_t)sub, buf, len);
    cli_ecat_tool_close(m);
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
    char *av[8];
    if (cli_ecat_pos_option(c, 0, av, 8))
        return 2;
    const struct type_def *t = find_type(c);
    if (t == (const struct type_def *)-1)
        return 2;
    if (c->argc < 4)
        return cli_usage_error(c, "expected POS IDX SUB VALUE");
    uint8_t buf[4096];
    size_t n;
    if (t && encode(c, t, c->argv[3], buf, sizeof buf, &n))
        return 2;
    struct cli_ecat_tool tl, *m = &tl;
    unsigned pos = 0;
    long idx, sub;
    int rc = coe_open(c, 4, m, &pos, &idx, &sub);
    if (rc)
        return rc;
    if (!t) {    /* the type from the object dictionary; --type only overrides it */
        char why[256];
        uint16_t coe = 0;
        int k = dict_type(c, m, pos, (uint16_t)idx, (uint8_t)sub, &t, &coe, why, sizeof why);
        if (k == 0)
            rc = cli_usage_error(c, "the data type of 0x%04lX:%02lX is unknown: slave %u gives no SDO "
                                 "information for it (%s); give it with --type (e.g. uint16)",
                                 idx, sub, pos, why);
        else if (k < 0)
            rc = cli_usage_error(c, "0x%04lX:%02lX has CoE data type 0x%04X (%s), which --type has no "
                                 "name for; give --type octet_string and the bytes in hex", idx, sub,
                                 coe, takt_ecat_coe_type_name(coe)[0] ? takt_ecat_coe_type_name(coe) : "unknown");
        else if (encode(c, t, c->argv[3], buf, sizeof buf, &n))
            rc = 2;
        if (rc) {
            cli_ecat_tool_close(m);
            return rc;
        }
    }
    rc = cli_ecat_tool_download(m, c, pos, (uint16_t)idx, (uint8_t)sub, cli_flag(c, "complete"), buf, n);
    if (rc)
        cli_error(c, "%s", cli_ecat_tool_error(m)[0] ? cli_ecat_tool_error(m) : takt_strerror(rc));
    cli_ecat_tool_close(m);
    return rc ? 1 : 0;
}

static const char *obj_code(uint8_t c)
{
    return c == 7 ? "VAR" : c == 8 ? "ARRAY" : c == 9 ? "RECORD" : "?";
}

static int run_sdos(struct cli_ctx *c)
{
    char *av[8];
    if (cli_ecat_pos_option(c, 0, av, 8))
        return 2;
    struct cli_ecat_tool tl, *m = &tl;
    unsigned pos = 0;
    int rc = coe_open(c, 1, m, &pos, NULL, NULL);
    if (rc)
        return rc;
    static uint8_t list[8192];
    size_t n;
    rc = cli_ecat_tool_sdo_info(m, c, pos, TAKT_ECAT_SDO_INFO_ODLIST, 0, 0, list, sizeof list, &n);
    uint16_t lt;
    const uint8_t *first;
    int cnt = rc ? -1 : takt_ecat_coe_odlist_parse(list, n, &lt, &first);
    if (rc || cnt < 0) {
        cli_error(c, "SDO information of slave %u: %s", pos, rc ? cli_ecat_tool_error(m) : "malformed object list");
        cli_ecat_tool_close(m);
        return 1;
    }
    bool quiet = c->json && !strcmp(c->json, "-");   /* stdout carries the JSON alone */
    json_object *objs = json_object_new_array();
    for (int i = 0; i < cnt; i++) {
        uint16_t idx = takt_get_le16(first + 2 * i);
        uint8_t d[256];
        struct takt_ecat_coe_objdesc od;
        json_object *oj = json_object_new_object();
        json_object_object_add(oj, "index", json_object_new_int(idx));
        json_object_array_add(objs, oj);
        if (cli_ecat_tool_sdo_info(m, c, pos, TAKT_ECAT_SDO_INFO_OBJECT, idx, 0, d, sizeof d, &n) ||
            takt_ecat_coe_objdesc_parse(d, n, &od)) {
            json_object_object_add(oj, "error", json_object_new_string(cli_ecat_tool_error(m)));
            if (!quiet)
                printf("0x%04X  (no description: %s)\n", idx, cli_ecat_tool_error(m));
            continue;
        }
        json_object_object_add(oj, "object_code", json_object_new_string(obj_code(od.obj_code)));
        json_object_object_add(oj, "name", json_object_new_string(od.name));
        json_object_object_add(oj, "max_sub", json_object_new_int(od.max_sub));
        json_object *ents = json_object_new_array();
        if (c->verbose)
            json_object_object_add(oj, "entries", ents);
        else
            json_object_put(ents);
        if (!quiet)
            printf("0x%04X  %-6s  %s  (max sub %u)\n", idx, obj_code(od.obj_code), od.name, od.max_sub);
        for (unsigned s = 0; c->verbose && s <= od.max_sub; s++) {
            struct takt_ecat_coe_entrydesc ed;
            if (cli_ecat_tool_sdo_info(m, c, pos, TAKT_ECAT_SDO_INFO_ENTRY, idx, (uint8_t)s, d, sizeof d, &n) ||
                takt_ecat_coe_entrydesc_parse(d, n, &ed))
                continue;
            char acc[48];
            const char *tn = takt_ecat_coe_type_name(ed.data_type)[0] ? takt_ecat_coe_type_name(ed.data_type) : "?";
            json_object *ej = json_object_new_object();
            json_object_object_add(ej, "subindex", json_object_new_int((int)s));
            json_object_object_add(ej, "data_type", json_object_new_string(tn));
            json_object_object_add(ej, "bits", json_object_new_int(ed.bitlen));
            json_object_object_add(ej, "access", json_object_new_string(cli_ecat_access(ed.access, acc, sizeof acc)));
            json_object_object_add(ej, "name", json_object_new_string(ed.name));
            json_object_array_add(ents, ej);
            if (!quiet)
                printf("    0x%04X:%02X  %-8s %3u bit  %s  %s\n", idx, s, tn, ed.bitlen, acc, ed.name);
        }
    }
    cli_ecat_tool_close(m);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "position", json_object_new_int((int)pos));
    json_object_object_add(o, "objects", objs);
    rc = cli_write_json(c, o);
    json_object_put(o);
    return rc;
}

static const struct cli_opt coe_opts[] = {
    { "position", 'p', 1, "POS", "the slave, as IgH's ethercat -p (then without POS among the arguments)" },
    { "type", 0, 1, "T", "bool, int8..int64, uint8..uint64, float, double, string, octet_string "
      "(default: the type the object dictionary gives)" },
    { "complete", 0, 0, NULL, "complete access (whole object; SUB 0 or 1)" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 }
};

static const struct cli_opt sdos_opts[] = {
    { "position", 'p', 1, "POS", "the slave, as IgH's ethercat -p (then without POS among the arguments)" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 }
};

const struct cli_cmd cli_cmds_ecat_coe[] = {
    { "ecat", "upload", "POS IDX SUB", "read an object over CoE (SDO upload)",
      "Brings the network to PREOP for the mailbox. The value is shown as the type the\n"
      "slave's object dictionary gives (SDO information) or --type; with neither, the bytes\n"
      "in hex and, for 1/2/4/8 bytes, as an unsigned number. --json: bytes, type, value.",
      CLI_IFACE | CLI_PCAP | CLI_JSON, coe_opts, run_upload, NULL },
    { "ecat", "download", "POS IDX SUB VALUE", "write an object over CoE (SDO download)",
      "VALUE is converted to the object's data type, which the slave's object dictionary\n"
      "gives (SDO information), and written little-endian; --type overrides it and is\n"
      "needed where the slave has no SDO information. Put -- before a negative VALUE\n"
      "(takt ecat download -i IF -- 4 0x607A 0 -1234).",
      CLI_IFACE | CLI_PCAP, coe_opts, run_download, NULL },
    { "ecat", "sdos", "POS", "list the object dictionary (SDO information)",
      "-v lists every entry with its data type, bit length and access (r/w in PREOP,\n"
      "SAFEOP, OP; PDO mapping). --json: the objects (with -v their entries). POS (here\n"
      "and in upload, download) is the position or ALIAS:POS, or given as -p POS.",
      CLI_IFACE | CLI_PCAP | CLI_JSON, sdos_opts, run_sdos, NULL },
    { 0 }
};
