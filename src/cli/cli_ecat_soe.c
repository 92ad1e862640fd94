/* takt ecat soe read|write: IDNs of SoE drives (ETG.1000.6, Servo drive profile over EtherCAT, IEC 61800-7-204) from
 * the command line, values shown and parsed by the IDN's attribute (size, list, display
 * format, decimals) as IgH's `ethercat soe_read|soe_write` do. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <takt/wire.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

#define SOE_CAP 65536

static const struct cli_opt soe_opts[] = {
    { "elements", 'e', 1, "LIST", "read: elements, comma list of state, name, attribute, unit, "
      "min, max, value, default (default value)" },
    { "drive",    0,   1, "N",    "drive number in the slave, 0..7 (default 0)" },
    { "type",     0,   1, "T",    "int8..int64, uint8..uint64, string, idns or hex (default: "
      "from the IDN's attribute)" },
    { "repeat",   0,   1, "N",    "read: N times, the round-trip times (median, min, max) on stderr" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

struct soe_tool {
    struct cli_ecat_tool tt;    /* a master of its own, or the running one's socket */
    unsigned pos;
    uint8_t drive;
    uint16_t idn;
    char idn_s[TAKT_ECAT_SOE_IDN_STR];
};

static void tool_close(struct soe_tool *t) { cli_ecat_tool_close(&t->tt); }

/* POS and IDN, then the network up to PREOP (the mailbox) unless it is further. */
static int tool_open(struct cli_ctx *c, struct soe_tool *t)
{
    long v = 0;
    char err[256];
    if (cli_parse_long(c, "POS", c->argv[1], 0, 65535, &v))
        return 2;
    t->pos = (unsigned)v;
    if (takt_ecat_soe_idn_parse(c->argv[2], &t->idn, err, sizeof err))
        return cli_usage_error(c, "%s", err);
    takt_ecat_soe_idn_format(t->idn, t->idn_s);
    const char *d = cli_get(c, "drive");
    v = 0;
    if (d && cli_parse_long(c, "--drive", d, 0, 7, &v))
        return 2;
    t->drive = (uint8_t)v;
    /* through the master takt ecat run runs on -i, where one does */
    int rc = cli_ecat_tool_open(c, &t->tt, CLI_ECAT_TOOL_SERVED | CLI_ECAT_TOOL_NOSCAN);
    if (rc)
        return rc;
    if (t->tt.ctl) {
        if (t->pos >= t->tt.n) {
            tool_close(t);
            return cli_error(c, "POS expects a slave position 0..%d, got %u", (int)t->tt.n - 1, t->pos);
        }
        if (!(t->tt.info[t->pos].mbx_protocols & TAKT_ECAT_MBX_SOE)) {
            cli_error(c, "slave %u (%s) has no SoE (SII mailbox protocols 0x%04X)", t->pos,
                      t->tt.info[t->pos].name, t->tt.info[t->pos].mbx_protocols);
            tool_close(t);
            return 1;
        }
        return 0;
    }
    struct takt_link **l = &t->tt.l;
    struct takt_ecat_master **m = &t->tt.m;
    if ((rc = cli_ecat_open_ports(c, l, &t->tt.l2)))
        return rc;
    cli_drop_caps(c, 0);   /* the tools run no real-time thread */
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.keep_state = true;
    o.redundant = t->tt.l2;
    if (takt_ecat_master_open(m, *l, &o, err, sizeof err)) {
        tool_close(t);
        return cli_error(c, "%s", err);
    }
    if (takt_ecat_master_scan(*m, 5 * TAKT_NS_PER_S) || t->pos >= takt_ecat_master_slave_count(*m)) {
        if (!takt_ecat_master_error(*m)[0])
            cli_error(c, "POS expects a slave position 0..%d, got %u",
                      (int)takt_ecat_master_slave_count(*m) - 1, t->pos);
        else
            cli_error(c, "%s", takt_ecat_master_error(*m));
        tool_close(t);
        return 1;
    }
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(*m, t->pos, &si);
    if (!(si.mbx_protocols & TAKT_ECAT_MBX_SOE)) {
        cli_error(c, "slave %u (%s) has no SoE (SII mailbox protocols 0x%04X)", t->pos, si.name,
                  si.mbx_protocols);
        tool_close(t);
        return 1;
    }
    uint8_t st = si.al_state & TAKT_ECAT_STATE_MASK;
    if ((st == TAKT_ECAT_STATE_INIT || st == TAKT_ECAT_STATE_BOOT || st == 0) &&
        takt_ecat_slave_set_state(*m, t->pos, TAKT_ECAT_STATE_PREOP, 10 * TAKT_NS_PER_S)) {
        cli_error(c, "%s", takt_ecat_master_error(*m));
        tool_close(t);
        return 1;
    }
    return 0;
}

/* --type: an attribute standing for it (item size, list, format). */
static int type_attr(struct cli_ctx *c, uint32_t *attr)
{
    static const struct { const char *n; unsigned bytes; bool list; unsigned fmt; } ty[] = {
        { "int8", 1, 0, TAKT_ECAT_SOE_FMT_INT }, { "int16", 2, 0, TAKT_ECAT_SOE_FMT_INT }, { "int32", 4, 0, TAKT_ECAT_SOE_FMT_INT },
        { "int64", 8, 0, TAKT_ECAT_SOE_FMT_INT }, { "uint8", 1, 0, TAKT_ECAT_SOE_FMT_UINT }, { "uint16", 2, 0, TAKT_ECAT_SOE_FMT_UINT },
        { "uint32", 4, 0, TAKT_ECAT_SOE_FMT_UINT }, { "uint64", 8, 0, TAKT_ECAT_SOE_FMT_UINT },
        { "string", 1, 1, TAKT_ECAT_SOE_FMT_TEXT }, { "idns", 2, 1, TAKT_ECAT_SOE_FMT_IDN }, { "hex", 1, 1, TAKT_ECAT_SOE_FMT_HEX },
    };
    const char *s = cli_get(c, "type");
    for (size_t i = 0; s && i < TAKT_ARRAY_SIZE(ty); i++)
        if (!strcmp(s, ty[i].n)) {
            *attr = ecat_soe_attr(ty[i].bytes, ty[i].list, ty[i].fmt, 0);
            return 1;
        }
    if (s)
        return cli_usage_error(c, "--type expects int8..int64, uint8..uint64, string, idns or hex, "
                               "got '%s'", s), -1;
    return 0;
}

/* The attribute from --type or from the drive (one more request). */
static int get_attr(struct cli_ctx *c, struct soe_tool *t, uint32_t *attr)
{
    int k = type_attr(c, attr);
    if (k)
        return k < 0 ? 2 : 0;
    uint8_t b[8];
    size_t n = 0;
    if (cli_ecat_tool_soe(&t->tt, false, t->pos, t->drive, TAKT_ECAT_SOE_EL_ATTR, t->idn, b, sizeof b, &n) || n != 4) {
        cli_error(c, "%s", n != 4 && !cli_ecat_tool_error(&t->tt)[0] ? "attribute is not 4 bytes"
                                                                 : cli_ecat_tool_error(&t->tt));
        return 1;
    }
    *attr = takt_get_le32(b);
    return 0;
}

static int64_t item_num(const uint8_t *p, unsigned n, bool sign)
{
    uint64_t x = 0;
    for (unsigned k = 0; k < n; k++)
        x |= (uint64_t)p[k] << (8 * k);
    if (sign && n < 8 && (x >> (8 * n - 1)) & 1)
        x |= ~0ull << (8 * n);
    return (int64_t)x;
}

/* One item as text by the attribute's display format and decimals. */
static void item_text(uint32_t attr, const uint8_t *p, unsigned n, char *out, size_t cap)
{
    unsigned fmt = ecat_soe_attr_fmt(attr), dec = ecat_soe_attr_decimals(attr);
    int64_t v = item_num(p, n, fmt == TAKT_ECAT_SOE_FMT_INT);
    if (fmt == TAKT_ECAT_SOE_FMT_IDN && n == 2) {
        char s[TAKT_ECAT_SOE_IDN_STR];
        takt_ecat_soe_idn_format((uint16_t)v, s);
        snprintf(out, cap, "%s", s);
    } else if (fmt == TAKT_ECAT_SOE_FMT_HEX || fmt == TAKT_ECAT_SOE_FMT_BIN) {
        snprintf(out, cap, "0x%0*" PRIX64, (int)(2 * n), (uint64_t)v);
    } else if (fmt == TAKT_ECAT_SOE_FMT_FLOAT && (n == 4 || n == 8)) {
        double d;
        if (n == 4) {
            float f;
            uint32_t u = (uint32_t)v;
            memcpy(&f, &u, 4);
            d = f;
        } else {
            memcpy(&d, &v, 8);
        }
        snprintf(out, cap, "%g", d);
    } else if (dec) {
        snprintf(out, cap, "%.*f", (int)dec, (double)v / pow(10, dec));
    } else if (fmt == TAKT_ECAT_SOE_FMT_INT) {
        snprintf(out, cap, "%" PRId64, v);
    } else {
        snprintf(out, cap, "%" PRIu64, (uint64_t)v);
    }
}

/* A value element (fixed item or list) as text; lists of text as the string. */
static void value_text(uint32_t attr, const uint8_t *p, size_t len, char *out, size_t cap)
{
    unsigned item = ecat_soe_attr_item(attr);
    size_t k = 0;
    out[0] = 0;
    if (!ecat_soe_attr_list(attr)) {
        item_text(attr, p, item, out, cap);
        return;
    }
    size_t cur = len >= 4 ? takt_get_le16(p) : 0;
    if (cur > len - 4)
        cur = len >= 4 ? len - 4 : 0;
    if (ecat_soe_attr_fmt(attr) == TAKT_ECAT_SOE_FMT_TEXT) {
        snprintf(out, cap, "%.*s", (int)cur, (const char *)p + 4);
        return;
    }
    for (size_t i = 0; i + item <= cur && k + 24 < cap; i += item) {
        char s[32];
        item_text(attr, p + 4 + i, item, s, sizeof s);
        k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "," : "", s);
    }
}

static int cmp_ns(const void *a, const void *b)
{
    takt_ns_t x = *(const takt_ns_t *)a, y = *(const takt_ns_t *)b;
    return x < y ? -1 : x > y;
}

static int soe_read(struct cli_ctx *c)
{
    uint8_t el = TAKT_ECAT_SOE_EL_VALUE;
    char err[256];
    const char *es = cli_get(c, "elements"), *rs = cli_get(c, "repeat");
    long repeat = 1;
    if (es && takt_ecat_soe_elements_parse(es, &el, err, sizeof err))
        return cli_usage_error(c, "--elements: %s", err);
    if (rs && cli_parse_long(c, "--repeat", rs, 1, 100000, &repeat))
        return 2;
    struct soe_tool t;
    int rc = tool_open(c, &t);
    if (rc)
        return rc;
    uint32_t attr = 0;
    bool sized = el & (TAKT_ECAT_SOE_EL_MIN | TAKT_ECAT_SOE_EL_MAX | TAKT_ECAT_SOE_EL_VALUE | TAKT_ECAT_SOE_EL_DEFAULT);
    if (sized && !(el & TAKT_ECAT_SOE_EL_ATTR) && (rc = get_attr(c, &t, &attr))) {
        tool_close(&t);
        return rc;
    }
    static uint8_t buf[SOE_CAP];
    size_t len = 0;
    takt_ns_t *rtt = calloc((size_t)repeat, sizeof *rtt);
    for (long i = 0; rtt && i < repeat && !rc; i++) {
        takt_ns_t t0 = takt_now();
        rc = cli_ecat_tool_soe(&t.tt, false, t.pos, t.drive, el, t.idn, buf, sizeof buf, &len);
        rtt[i] = takt_now() - t0;
    }
    if (!rtt || rc) {
        cli_error(c, "%s", rtt ? cli_ecat_tool_error(&t.tt) : "no memory");
        free(rtt);
        tool_close(&t);
        return 1;
    }
    if (repeat > 1) {
        qsort(rtt, (size_t)repeat, sizeof *rtt, cmp_ns);
        fprintf(stderr, "slave %u: %ld reads of %s: round trip median %.1f us, min %.1f us, "
                "max %.1f us\n", t.pos, repeat, t.idn_s, rtt[repeat / 2] / 1e3, rtt[0] / 1e3,
                rtt[repeat - 1] / 1e3);
    }
    struct takt_ecat_soe_part part[8];
    rc = takt_ecat_soe_elements_split(buf, len, el, attr, part, err, sizeof err);
    if (rc) {
        cli_error(c, "slave %u: IDN %s: malformed response: %s", t.pos, t.idn_s, err);
        free(rtt);
        tool_close(&t);
        return 1;
    }
    if (part[2].p)
        attr = takt_get_le32(part[2].p);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "position", json_object_new_int((int)t.pos));
    json_object_object_add(o, "drive", json_object_new_int(t.drive));
    json_object_object_add(o, "idn", json_object_new_string(t.idn_s));
    bool one = !(el & (el - 1));
    for (unsigned i = 0; i < 8; i++) {
        if (!part[i].p)
            continue;
        uint8_t f = (uint8_t)(1u << i);
        static char text[SOE_CAP * 3];
        const uint8_t *p = part[i].p;
        size_t n = part[i].len;
        if (f == TAKT_ECAT_SOE_EL_NAME || f == TAKT_ECAT_SOE_EL_UNIT) {
            size_t cur = takt_get_le16(p);
            snprintf(text, sizeof text, "%.*s", (int)cur, (const char *)p + 4);
        } else if (f == TAKT_ECAT_SOE_EL_STATE) {
            snprintf(text, sizeof text, "0x%04X", takt_get_le16(p));
        } else if (f == TAKT_ECAT_SOE_EL_ATTR) {
            snprintf(text, sizeof text, "0x%08X", takt_get_le32(p));
        } else {
            value_text(attr, p, n, text, sizeof text);
        }
        if (!c->json || strcmp(c->json, "-"))
            printf(one ? "%s\n" : "%-9s %s\n", one ? text : takt_ecat_soe_element_name(f), one ? "" : text);
        json_object_object_add(o, takt_ecat_soe_element_name(f), json_object_new_string(text));
    }
    if (repeat > 1) {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "reads", json_object_new_int64(repeat));
        json_object_object_add(r, "median_ns", json_object_new_int64(rtt[repeat / 2]));
        json_object_object_add(r, "min_ns", json_object_new_int64(rtt[0]));
        json_object_object_add(r, "max_ns", json_object_new_int64(rtt[repeat - 1]));
        json_object_object_add(o, "round_trip", r);
    }
    rc = c->json ? cli_write_json(c, o) : 0;
    json_object_put(o);
    free(rtt);
    tool_close(&t);
    return rc;
}

/* One item from text: a number (with the attribute's decimals), or an IDN. */
static int parse_item(uint32_t attr, const char *s, uint8_t *p, char *err, size_t errlen)
{
    unsigned n = ecat_soe_attr_item(attr), dec = ecat_soe_attr_decimals(attr);
    uint16_t idn;
    if (ecat_soe_attr_fmt(attr) == TAKT_ECAT_SOE_FMT_IDN && !takt_ecat_soe_idn_parse(s, &idn, err, errlen)) {
        takt_put_le16(p, idn);
        return 0;
    }
    char *e;
    errno = 0;
    double d = strchr(s, '.') || dec ? strtod(s, &e) * pow(10, dec) : 0;
    int64_t v = 0;
    if (strchr(s, '.') || dec)
        v = (int64_t)llround(d);
    else if (s[0] == '-')
        v = strtoll(s, &e, 0);
    else
        v = (int64_t)strtoull(s, &e, 0);
    bool sign = ecat_soe_attr_fmt(attr) == TAKT_ECAT_SOE_FMT_INT;
    int64_t lo = sign ? (n < 8 ? -(1ll << (8 * n - 1)) : INT64_MIN) : 0;
    int64_t hi = n < 8 ? (sign ? (1ll << (8 * n - 1)) - 1 : (1ll << (8 * n)) - 1) : INT64_MAX;
    if (!*s || *e || errno || (n < 8 && (v < lo || v > hi)) || (!sign && s[0] == '-')) {
        snprintf(err, errlen, "'%s': expected a%s number of %u byte%s%s", s,
                 sign ? " signed" : "n unsigned", n, n == 1 ? "" : "s",
                 dec ? " (decimals allowed)" : "");
        return -EINVAL;
    }
    for (unsigned k = 0; k < n; k++)
        p[k] = (uint8_t)((uint64_t)v >> (8 * k));
    return 0;
}

/* VALUE into wire bytes by the attribute: one item, or a list (comma separated items,
 * text, or hex bytes) with its length header. */
static int encode(uint32_t attr, const char *s, uint8_t *b, size_t cap, size_t *len,
                  char *err, size_t errlen)
{
    if (!ecat_soe_attr_list(attr)) {
        *len = ecat_soe_attr_item(attr);
        return parse_item(attr, s, b, err, errlen);
    }
    size_t cur = 0, item = ecat_soe_attr_item(attr);
    unsigned fmt = ecat_soe_attr_fmt(attr);
    if (fmt == TAKT_ECAT_SOE_FMT_TEXT) {
        cur = strlen(s);
        if (cur > cap - 4)
            return snprintf(err, errlen, "text of %zu bytes too long", cur), -EINVAL;
        memcpy(b + 4, s, cur);
    } else if (fmt == TAKT_ECAT_SOE_FMT_HEX && item == 1 && !strchr(s, ',')) {
        for (; s[0] && s[1] && cur < cap - 4; s += 2, cur++) {
            char h[3] = { s[0], s[1], 0 }, *e;
            b[4 + cur] = (uint8_t)strtoul(h, &e, 16);
            if (*e)
                return snprintf(err, errlen, "expected hex digits in pairs"), -EINVAL;
        }
        if (*s)
            return snprintf(err, errlen, "expected hex digits in pairs"), -EINVAL;
    } else {
        char tmp[64];
        while (*s) {
            size_t n = strcspn(s, ",");
            if (n >= sizeof tmp || cur + item > cap - 4)
                return snprintf(err, errlen, "list item or list too long"), -EINVAL;
            memcpy(tmp, s, n);
            tmp[n] = 0;
            if (parse_item(attr, tmp, b + 4 + cur, err, errlen))
                return -EINVAL;
            cur += item;
            s += n + (s[n] == ',');
        }
    }
    takt_put_le16(b, (uint16_t)cur);
    takt_put_le16(b + 2, (uint16_t)cur);    /* the drive knows its maximum; it ignores this */
    *len = 4 + cur;
    return 0;
}

static int soe_write(struct cli_ctx *c)
{
    uint32_t attr = 0;
    char err[256];
    int k = type_attr(c, &attr);
    if (k < 0)
        return 2;
    static uint8_t buf[SOE_CAP];
    size_t len = 0;
    if (k && encode(attr, c->argv[3], buf, sizeof buf, &len, err, sizeof err))
        return cli_usage_error(c, "VALUE %s", err);
    struct soe_tool t;
    int rc = tool_open(c, &t);
    if (rc)
        return rc;
    if (!k) {
        if ((rc = get_attr(c, &t, &attr))) {
            tool_close(&t);
            return rc;
        }
        if (encode(attr, c->argv[3], buf, sizeof buf, &len, err, sizeof err)) {
            tool_close(&t);
            return cli_usage_error(c, "VALUE for IDN %s %s", t.idn_s, err);
        }
    }
    rc = cli_ecat_tool_soe(&t.tt, true, t.pos, t.drive, TAKT_ECAT_SOE_EL_VALUE, t.idn, buf, len, NULL);
    if (rc)
        cli_error(c, "%s", cli_ecat_tool_error(&t.tt));
    else if (c->verbose)
        fprintf(stderr, "slave %u: wrote IDN %s, %zu bytes\n", t.pos, t.idn_s, len);
    tool_close(&t);
    return rc ? 1 : 0;
}

static int run_soe(struct cli_ctx *c)
{
    bool rd = c->argc >= 1 && !strcmp(c->argv[0], "read");
    bool wr = c->argc >= 1 && !strcmp(c->argv[0], "write");
    if (!(rd && c->argc == 3) && !(wr && c->argc == 4))
        return cli_usage_error(c, "expected read POS IDN or write POS IDN VALUE, got %d argument%s"
                               "%s%s", c->argc, c->argc == 1 ? "" : "s",
                               c->argc ? " starting with " : "", c->argc ? c->argv[0] : "");
    if (wr && (cli_get(c, "elements") || cli_get(c, "repeat") || c->json))
        return cli_usage_error(c, "--elements, --repeat and --json are for read; write sets the value");
    return rd ? soe_read(c) : soe_write(c);
}

const struct cli_cmd cli_cmds_ecat_soe[] = {
    { "ecat", "soe", "read POS IDN | write POS IDN VALUE",
      "read or write an IDN of a drive over SoE (Sercos profile)",
      "IDN is S-x-nnnn or P-x-nnnn (parameter set x 0..7, number 0..4095; S-0-0036 is the\n"
      "velocity command) or the raw 16-bit number. read shows the value; --elements picks\n"
      "others (name,value,unit ...), one line each. Values follow the IDN's attribute: size,\n"
      "list, display format (decimal, hex, IDN, text) and decimals (1.2345); write parses\n"
      "VALUE the same way (lists comma separated: S-0-0051,S-0-0040). --type overrides the\n"
      "attribute. Values larger than the mailbox travel in fragments. A refusal names IDN\n"
      "and SoE error ('IDN S-0-0040 is read-only', 0x7004). --json: the elements read.",
      CLI_IFACE | CLI_PCAP | CLI_JSON, soe_opts, run_soe, NULL },
    { 0 },
};
