/* takt's POWERLINK configuration text format (docs/powerlink.md): INI-like sections
 * [network], [node N], [nodes A-B] with key = value lines; table-driven parser and the
 * matching writer. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "plk/config.h"
#include "plk/config_int.h"
#include "util/wire.h"

#define fail plk_config_fail

enum kind { K_U32, K_U16, K_U8, K_BOOL, K_MAP_RX, K_MAP_TX, K_MAP_MN_RX, K_MAP_MN_TX, K_FLAG };

struct key {
    const char *name;
    enum kind kind;
    size_t off;            /* field offset in the section's struct */
    long long min, max;
    long long check_off;   /* offset of a bool set when the key is given; -1 none */
    uint32_t flag;         /* K_FLAG: assignment bit */
};

#define NET(f) offsetof(struct plk_net_config, f)
#define NODE(f) offsetof(struct plk_cfg_node, f)

static const struct key net_keys[] = {
    { "cycle_us", K_U32, NET(cycle_us), 1, 60000000, -1, 0 },
    { "mn_node", K_U8, NET(mn_node_id), 240, 240, -1, 0 },
    { "startup", K_U32, NET(startup), 0, UINT32_MAX, -1, 0 },
    { "async_mtu", K_U32, NET(async_mtu), PLK_ASYNC_MTU_MIN, PLK_ASYNC_MTU_MAX, -1, 0 },
    { "prescaler", K_U32, NET(prescaler), 0, 1000, -1, 0 },
    { "async_slot_timeout_ns", K_U32, NET(async_slot_timeout_ns), 0, UINT32_MAX, -1, 0 },
    { "wait_soc_preq_ns", K_U32, NET(wait_soc_preq_ns), 0, UINT32_MAX, -1, 0 },
    { "cycle_exceed_threshold", K_U32, NET(cycle_exceed_threshold), 0, UINT32_MAX, -1, 0 },
    { "loss_soc_tolerance_ns", K_U32, NET(loss_soc_tolerance_ns), 0, UINT32_MAX, -1, 0 },
    { "boot_wait_not_active_us", K_U32, NET(boot_time_us[1]), 0, UINT32_MAX, -1, 0 },
    { "boot_timeout_preop1_us", K_U32, NET(boot_time_us[2]), 0, UINT32_MAX, -1, 0 },
    { "boot_wait_preop1_us", K_U32, NET(boot_time_us[3]), 0, UINT32_MAX, -1, 0 },
    { "boot_timeout_preop2_us", K_U32, NET(boot_time_us[4]), 0, UINT32_MAX, -1, 0 },
    { "boot_timeout_ready_to_op_us", K_U32, NET(boot_time_us[5]), 0, UINT32_MAX, -1, 0 },
    { "pres_mn", K_BOOL, NET(pres_mn), 0, 1, -1, 0 },
    { "multiplexed_cycles", K_U8, NET(mux_cycles), 0, 255, -1, 0 },
    { "pres_mn_payload", K_U16, NET(pres_mn_payload), PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL, -1, 0 },
};

static const struct key node_keys[] = {
    { "mandatory", K_FLAG, NODE(mandatory), 0, 1, -1, PLK_NA_MANDATORY },
    { "chained", K_FLAG, NODE(chained), 0, 1, -1, PLK_NA_PRES_CHAINING },
    { "async_only", K_FLAG, NODE(async_only), 0, 1, -1, PLK_NA_ASYNC_ONLY },
    { "multiplexed", K_FLAG, NODE(multiplexed), 0, 1, -1, PLK_NA_MULTIPLEXED },
    { "mux_cycle", K_U8, NODE(mux_cycle), 0, 255, -1, 0 },
    { "device_type", K_U32, NODE(device_type), 0, UINT32_MAX, NODE(device_type_check), 0 },
    { "vendor_id", K_U32, NODE(vendor_id), 0, UINT32_MAX, NODE(vendor_check), 0 },
    { "product_code", K_U32, NODE(product_code), 0, UINT32_MAX, NODE(product_check), 0 },
    { "revision_no", K_U32, NODE(revision_no), 0, UINT32_MAX, NODE(revision_check), 0 },
    { "serial_no", K_U32, NODE(serial_no), 0, UINT32_MAX, NODE(serial_check), 0 },
    { "preq_payload", K_U16, NODE(preq_payload), PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL, -1, 0 },
    { "pres_payload", K_U16, NODE(pres_payload), PLK_PAYLOAD_LIMIT_MIN, PLK_ISOCHR_MAX_PAYL, -1, 0 },
    { "pres_timeout_ns", K_U32, NODE(pres_timeout_ns), 1, UINT32_MAX, -1, 0 },
    { "loss_pres_threshold", K_U32, NODE(loss_pres_threshold), 0, UINT32_MAX, -1, 0 },
    { "pres_time_first_ns", K_U32, NODE(pres_time_first_ns), 0, UINT32_MAX, -1, 0 },
    { "conf_date", K_U32, NODE(conf_date), 0, UINT32_MAX, -1, 0 },
    { "conf_time", K_U32, NODE(conf_time), 0, UINT32_MAX, -1, 0 },
    { "cn_loss_soc_threshold", K_U32, NODE(cn_loss_soc_threshold), 0, UINT32_MAX, -1, 0 },
    { "cn_loss_preq_threshold", K_U32, NODE(cn_loss_preq_threshold), 0, UINT32_MAX, -1, 0 },
    { "rx_map", K_MAP_RX, NODE(rx_map), 0, 0, -1, 0 },
    { "tx_map", K_MAP_TX, NODE(tx_map), 0, 0, -1, 0 },
    { "mn_rx_map", K_MAP_MN_RX, NODE(mn_rx_map), 0, 0, -1, 0 },
    { "mn_tx_map", K_MAP_MN_TX, NODE(mn_tx_map), 0, 0, -1, 0 },
};

struct parser {
    struct plk_net_config *cfg;
    unsigned line;
    bool in_network;
    unsigned first, last;     /* node range of the current section; 0 = none */
    bool pres_mn_given;
    char *err;
    size_t errlen;
};

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static int parse_num(const char *s, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    if (*s == '-' && min >= 0)
        return -1;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s || *trim(end) || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *s, long long *out)
{
    static const char *const yes[] = { "yes", "true", "on", "1" };
    static const char *const no[] = { "no", "false", "off", "0" };
    for (unsigned i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) { *out = 1; return 0; }
        if (!strcasecmp(s, no[i])) { *out = 0; return 0; }
    }
    return -1;
}

/* "0x6200/1:8[@bitoffset], ..." -> entries; offsets default to the end of the previous. */
static int parse_map(struct parser *p, unsigned node, const char *key, char *v,
                     struct plk_pdo_entry *m, uint8_t *n)
{
    unsigned count = 0, next_bit = 0;
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        item = trim(item);
        int idx, sub, bits, off = 0, used = 0;
        int got = sscanf(item, "%i/%i:%i%n", &idx, &sub, &bits, &used);
        bool given = got == 3 && item[used] != '\0';     /* an explicit @BITOFFSET */
        if (got != 3 || (given && sscanf(item + used, "@%i%n", &off, &used) != 1) ||
            idx < 0 || idx > 0xFFFF || sub < 0 || sub > 0xFF || bits <= 0 || bits > 0xFFFF ||
            off < 0 || off > 0xFFFF)
            return fail(p->err, p->errlen, -EINVAL, "line %u: node %u, %s entry %u '%s': "
                        "expected INDEX/SUB:BITS[@BITOFFSET], e.g. 0x6200/1:8",
                        p->line, node, key, count + 1, item);
        if (count >= PLK_CFG_MAX_MAP)
            return fail(p->err, p->errlen, -EINVAL, "line %u: node %u, %s has more than %d "
                        "entries", p->line, node, key, PLK_CFG_MAX_MAP);
        /* without @: right after the previous entry; a whole-byte entry after bit
         * entries starts at the next byte */
        if (!given)
            off = bits % 8 ? (int)next_bit : (int)((next_bit + 7u) / 8u * 8u);
        m[count] = (struct plk_pdo_entry){ (uint16_t)idx, (uint8_t)sub, (uint16_t)off,
                                           (uint16_t)bits };
        next_bit = (unsigned)(off + bits);
        count++;
    }
    *n = (uint8_t)count;
    return 0;
}

static void store(void *base, const struct key *k, long long v)
{
    uint8_t *f = (uint8_t *)base + k->off;
    switch (k->kind) {
    case K_U32: *(uint32_t *)(void *)f = (uint32_t)v; break;
    case K_U16: *(uint16_t *)(void *)f = (uint16_t)v; break;
    case K_U8:  *f = (uint8_t)v; break;
    case K_BOOL: case K_FLAG: *(bool *)(void *)f = v != 0; break;
    default: break;
    }
    if (k->check_off >= 0)
        *(bool *)(void *)((uint8_t *)base + k->check_off) = true;
}

static const struct key *find_key(const struct key *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i];
    return NULL;
}

static int set_value(struct parser *p, void *base, unsigned node, const struct key *k, char *v)
{
    long long x = 0;
    if (k->kind == K_MAP_MN_RX || k->kind == K_MAP_MN_TX) {
        struct plk_cfg_node *n = base;
        n->has_mn_map = true;
        return k->kind == K_MAP_MN_RX ? parse_map(p, node, k->name, v, n->mn_rx_map, &n->n_mn_rx)
                                      : parse_map(p, node, k->name, v, n->mn_tx_map, &n->n_mn_tx);
    }
    if (k->kind == K_MAP_RX || k->kind == K_MAP_TX) {
        struct plk_cfg_node *n = base;
        n->has_mapping = true;
        return k->kind == K_MAP_RX ? parse_map(p, node, k->name, v, n->rx_map, &n->n_rx)
                                   : parse_map(p, node, k->name, v, n->tx_map, &n->n_tx);
    }
    int bad = (k->kind == K_BOOL || k->kind == K_FLAG) ? parse_bool(v, &x)
                                                       : parse_num(v, k->min, k->max, &x);
    if (bad) {
        char where[24] = "[network]";
        if (node)
            snprintf(where, sizeof where, "node %u", node);
        if (k->kind == K_BOOL || k->kind == K_FLAG)
            return fail(p->err, p->errlen, -EINVAL, "line %u: %s, %s = '%s': expected yes "
                        "or no", p->line, where, k->name, v);
        return fail(p->err, p->errlen, -ERANGE, "line %u: %s, %s = '%s': expected a number "
                    "in %lld..%lld", p->line, where, k->name, v, k->min, k->max);
    }
    store(base, k, x);
    if (k->kind == K_FLAG) {
        struct plk_cfg_node *n = base;
        n->assignment = x ? n->assignment | k->flag : n->assignment & ~k->flag;
    }
    return 0;
}

static int section(struct parser *p, char *s)
{
    size_t n = strlen(s);
    if (s[n - 1] != ']')
        return fail(p->err, p->errlen, -EINVAL, "line %u: '%s': expected [network], "
                    "[node N] or [nodes A-B]", p->line, s);
    s[n - 1] = '\0';
    s = trim(s + 1);
    unsigned a, b;
    int used = 0;
    p->in_network = false;
    p->first = p->last = 0;
    if (!strcmp(s, "network")) {
        p->in_network = true;
        return 0;
    }
    if (sscanf(s, "node %u%n", &a, &used) == 1 && !s[used])
        b = a;
    else if (!(sscanf(s, "nodes %u-%u%n", &a, &b, &used) == 2 && !s[used]))
        return fail(p->err, p->errlen, -EINVAL, "line %u: section [%s]: expected [network], "
                    "[node N] or [nodes A-B]", p->line, s);
    if (a < PLK_NODE_CN_MIN || b > PLK_NODE_CN_MAX || a > b)
        return fail(p->err, p->errlen, -EINVAL, "line %u: section [%s]: node IDs must be "
                    "CNs within 1-239 (first <= last)", p->line, s);
    p->first = a;
    p->last = b;
    for (unsigned id = a; id <= b; id++)
        if (!p->cfg->node[id].present) {
            plk_config_node_default(p->cfg, &p->cfg->node[id], (uint8_t)id);
            p->cfg->n_nodes++;
        }
    return 0;
}

static int assignment(struct parser *p, char *s)
{
    char *eq = strchr(s, '=');
    if (!eq)
        return fail(p->err, p->errlen, -EINVAL, "line %u: '%s': expected key = value",
                    p->line, s);
    *eq = '\0';
    char *k = trim(s), *v = trim(eq + 1);
    if (p->in_network) {
        const struct key *key = find_key(net_keys, TAKT_ARRAY_SIZE(net_keys), k);
        if (!key)
            return fail(p->err, p->errlen, -EINVAL, "line %u: [network]: unknown key '%s'",
                        p->line, k);
        if (!strcmp(k, "pres_mn"))
            p->pres_mn_given = true;
        return set_value(p, p->cfg, 0, key, v);
    }
    if (!p->first)
        return fail(p->err, p->errlen, -EINVAL, "line %u: '%s' outside any section", p->line, k);
    const struct key *key = find_key(node_keys, TAKT_ARRAY_SIZE(node_keys), k);
    if (!key)
        return fail(p->err, p->errlen, -EINVAL, "line %u: node %u: unknown key '%s'",
                    p->line, p->first, k);
    for (unsigned id = p->first; id <= p->last; id++) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", v);   /* the map parser tokenizes in place */
        int rc = set_value(p, &p->cfg->node[id], id, key, copy);
        if (rc)
            return rc;
    }
    return 0;
}

int plk_config_parse(struct plk_net_config *cfg, const char *text, size_t len,
                     char *err, size_t errlen)
{
    struct parser p = { .cfg = cfg, .err = err, .errlen = errlen };
    plk_config_default(cfg);
    size_t pos = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        p.line++;
        char line[1024];
        if (memchr(text + pos, '\0', end - pos))
            return fail(err, errlen, -EINVAL, "line %u: contains a NUL byte, expected text",
                        p.line);
        if (end - pos >= sizeof line)
            return fail(err, errlen, -EINVAL, "line %u: longer than %zu characters", p.line,
                        sizeof line - 1);
        memcpy(line, text + pos, end - pos);
        line[end - pos] = '\0';
        pos = end + 1;
        char *hash = strpbrk(line, "#;");
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        int rc = *s == '[' ? section(&p, s) : assignment(&p, s);
        if (rc)
            return rc;
    }
    /* Chained nodes need the PResMN; switch it on unless the file said no. */
    for (unsigned id = 1; id <= PLK_NODE_CN_MAX && !p.pres_mn_given; id++)
        if (cfg->node[id].present && cfg->node[id].chained)
            cfg->pres_mn = true;
    return plk_config_check(cfg, err, errlen);
}

int plk_config_load(struct plk_net_config *cfg, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
    static const size_t cap = 1 << 20;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return fail(err, errlen, -ENOMEM, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, cap, f);
    bool big = n == cap;
    fclose(f);
    int rc;
    if (big) {
        rc = fail(err, errlen, -EFBIG, "%s: larger than 1 MiB, not a takt configuration", path);
    } else {
        char sub[240];
        rc = plk_config_parse(cfg, buf, n, sub, sizeof sub);
        if (rc)
            fail(err, errlen, rc, "%s: %s", path, sub);
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ writer ---- */

struct out {
    char *buf;
    size_t cap, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL,
                      o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static void put_keys(struct out *o, const void *base, const struct key *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *f = (const uint8_t *)base + t[i].off;
        switch (t[i].kind) {
        case K_U32: put(o, "%s = %u\n", t[i].name, *(const uint32_t *)(const void *)f); break;
        case K_U16: put(o, "%s = %u\n", t[i].name, *(const uint16_t *)(const void *)f); break;
        case K_U8:  put(o, "%s = %u\n", t[i].name, *f); break;
        case K_BOOL: case K_FLAG:
            put(o, "%s = %s\n", t[i].name, *(const bool *)(const void *)f ? "yes" : "no");
            break;
        default: break;
        }
    }
}

static void put_map(struct out *o, const char *name, const struct plk_pdo_entry *m, unsigned n)
{
    put(o, "%s = ", name);
    for (unsigned i = 0; i < n; i++)
        put(o, "%s0x%04X/%u:%u@%u", i ? ", " : "", m[i].index, m[i].sub, m[i].bit_len,
            m[i].bit_offset);
    put(o, "\n");
}

int plk_config_format(const struct plk_net_config *cfg, char *buf, size_t cap)
{
    struct out o = { buf, cap, 0 };
    if (cap)
        buf[0] = '\0';
    put(&o, "# takt POWERLINK network configuration\n[network]\n");
    put_keys(&o, cfg, net_keys, TAKT_ARRAY_SIZE(net_keys));
    for (unsigned id = PLK_NODE_CN_MIN; id <= PLK_NODE_CN_MAX; id++) {
        const struct plk_cfg_node *n = &cfg->node[id];
        if (!n->present)
            continue;
        put(&o, "\n[node %u]\n", id);
        for (size_t i = 0; i < TAKT_ARRAY_SIZE(node_keys); i++) {
            const struct key *k = &node_keys[i];
            /* identity keys only when they are checked, so a round trip keeps that */
            if (k->check_off >= 0 && !*(const bool *)(const void *)((const uint8_t *)n + k->check_off))
                continue;
            put_keys(&o, n, k, 1);
        }
        if (n->has_mapping) {
            put_map(&o, "rx_map", n->rx_map, n->n_rx);
            put_map(&o, "tx_map", n->tx_map, n->n_tx);
        }
        if (n->has_mn_map) {
            put_map(&o, "mn_rx_map", n->mn_rx_map, n->n_mn_rx);
            put_map(&o, "mn_tx_map", n->mn_tx_map, n->n_mn_tx);
        }
    }
    return o.len > (size_t)INT32_MAX ? -EOVERFLOW : (int)o.len;
}
