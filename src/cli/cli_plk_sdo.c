/* takt plk sdo: read or write one object of a CN. Where takt plk mn runs on -i, the
 * transfer goes through its control socket to its SDO client (docs/control.md), and
 * what is written stays written on that network; else this command brings up its own
 * MN for the CN(s), waits until the CN is configured, runs the transfer through that
 * MN's SDO client and stops. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include <takt/wire.h>
#include "cli/cli.h"
#include "cli/cli_ctl.h"
#include "cli/cli_plk.h"

const struct cli_opt cli_plk_sdo_opts[] = {
    { "nodes", 'n', 1, "LIST", "CNs the MN boots, IDs and ranges such as 1,32,110 (default: just NODE)" },
    { "size", 0, 1, "BYTES", "write: value size 1, 2, 4 or 8 (default: the object's, from the CDC or the XDD/XDC next to it, else read first)" },
    { "string", 0, 0, NULL, "write: VALUE is a string" },
    { "boot-wait", 0, 1, "MS", "listen for another MN this long first (default 1000)" },
    { "config", 0, 1, "FILE", "network configuration instead of --nodes" },
    { "cdc", 0, 1, "FILE", "mnobd.cdc instead of --nodes" },
    { "chain", 0, 1, "LIST", "use PollResponse Chaining for these CNs" },
    { "mandatory", 0, 1, "LIST", "these CNs are mandatory" },
    { "pres-timeout", 0, 1, "US", "PRes timeout for every CN" },
    { "loss-threshold", 0, 1, "N", "every loss-of-frame threshold (as takt plk mn; 0: a lost frame resets no CN)" },
    { "udp", 0, 0, NULL, "SDO over UDP/IP to 192.168.100.NODE port 3819, carried in the async phase (default: ASnd)" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

/* n little-endian bytes as an unsigned integer */
static uint64_t le_uint(const uint8_t *d, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)d[i] << (8 * i);
    return v;
}

static void print_value(const uint8_t *d, size_t n)
{
    if (n == 1 || n == 2 || n == 4 || n == 8) {
        uint64_t v = le_uint(d, n);
        printf("0x%0*" PRIx64 " (%" PRIu64 ")\n", (int)(2 * n), v, v);
        return;
    }
    bool text = n > 0;
    for (size_t i = 0; i < n; i++)
        if ((d[i] < 0x20 || d[i] > 0x7e) && !(d[i] == 0 && i == n - 1))
            text = false;
    if (text) {
        printf("\"%.*s\"\n", (int)n, (const char *)d);
        return;
    }
    for (size_t i = 0; i < n; i++)
        printf("%02x%s", d[i], i + 1 < n ? " " : "\n");
    if (!n)
        printf("(empty)\n");
}

/* --json: what was transferred, as bytes in wire order and, for the integer sizes, as a
 * number (unsigned little-endian; the object's sign is not known here); a refusal carries
 * its abort code. Written to --json's file, or stdout for "-", in place of the text. */
static int sdo_json(struct cli_ctx *c, bool wr, long node, long idx, long sub, const uint8_t *d, size_t n,
                    const uint32_t *abort_code)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "node", json_object_new_int((int)node));
    json_object_object_add(o, "operation", json_object_new_string(wr ? "write" : "read"));
    json_object_object_add(o, "index", json_object_new_int((int)idx));
    json_object_object_add(o, "subindex", json_object_new_int((int)sub));
    if (abort_code) {
        json_object_object_add(o, "abort_code", json_object_new_int64(*abort_code));
        json_object_object_add(o, "abort", json_object_new_string(takt_plk_sdo_abort_text(*abort_code)));
    } else {
        char hex[2 * TAKT_PLK_SDO_DATA_MAX + 1];
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", d[i]);
        hex[2 * n] = 0;
        json_object_object_add(o, "size", json_object_new_int64((int64_t)n));
        json_object_object_add(o, "bytes", json_object_new_string(hex));
        json_object *v = NULL;
        if (n == 1 || n == 2 || n == 4 || n == 8)
            v = json_object_new_uint64(le_uint(d, n));
        json_object_object_add(o, "value", v);
    }
    int rc = cli_write_json(c, o);
    json_object_put(o);
    return rc;
}

/* Whether v (two's complement when negative) fits in n bytes: unsigned up to 2^(8n)-1,
 * signed down to -2^(8n-1). */
static bool fits(uint64_t v, bool negative, size_t n)
{
    if (n >= 8)
        return true;
    unsigned bits = 8 * (unsigned)n;
    if (negative)
        return (int64_t)v >= -((int64_t)1 << (bits - 1));
    return v >> bits == 0;
}

/* Wait until the MN has configured CN node (EnableReadyToOperate sent, or later), from
 * what the MN publishes of the node's boot: 0; 1 after a message when it never answered
 * an IdentRequest (the MN marks it missing after 3 unanswered over 3 s) or at limit. */
static int wait_configured(struct cli_ctx *c, struct takt_plk_mn *mn, long node, takt_ns_t limit)
{
    struct takt_plk_node_info ni = { .step = TAKT_PLK_STEP_UNIDENT };
    while (takt_now() < limit && !cli_interrupted) {
        if (takt_plk_mn_node_info(mn, (unsigned)node, &ni))
            return cli_error(c, "node %ld is not configured in the MN", node);
        if (ni.missing)
            return cli_error(c, "no IdentResponse from CN %ld in 3 s: is it on the network "
                             "(node ID switch, cable)?", node);
        if (ni.step >= TAKT_PLK_STEP_WAIT_READY && ni.step != TAKT_PLK_STEP_STOPPED)
            return 0;
        nanosleep(&(struct timespec){ 0, 5 * TAKT_NS_PER_MS }, NULL);
    }
    return cli_error(c, "node %ld: not booted within the time limit (state %s, step %s)", node,
                     ni.state ? takt_plk_nmt_name(ni.state) : "none seen", takt_plk_boot_step_name(ni.step));
}

/* Where a transfer goes: the MN of this command (mn), or the one takt plk mn runs on
 * -i through its control socket (cl). */
struct sdo_path {
    struct takt_plk_mn *mn;
    struct ctl_client *cl;
    uint32_t abort_code;      /* after -TAKT_ESDOABORT */
    char err[1024];           /* cl: why it failed */
};

static takt_ns_t left_of(takt_ns_t limit)
{
    takt_ns_t left = limit - takt_now();
    return left < TAKT_NS_PER_S ? TAKT_NS_PER_S : left;
}

/* One read (buf of cap bytes, *got) or write (buf, cap bytes): 0, -TAKT_ESDOABORT with
 * p->abort_code, or another error. */
static int path_xfer(struct cli_ctx *c, struct sdo_path *p, bool wr, long node, long idx, long sub,
                     uint8_t *buf, size_t cap, size_t *got, takt_ns_t timeout)
{
    (void)c;
    if (p->mn) {
        int rc = wr ? takt_plk_mn_sdo_write(p->mn, (unsigned)node, (uint16_t)idx, (uint8_t)sub, buf, cap, timeout)
                    : takt_plk_mn_sdo_read(p->mn, (unsigned)node, (uint16_t)idx, (uint8_t)sub, buf, cap, got, timeout);
        if (rc == -TAKT_ESDOABORT)
            p->abort_code = takt_plk_mn_sdo_abort_code(p->mn);
        return rc;
    }
    json_object *o = json_object_new_object(), *v;
    json_object_object_add(o, "verb", json_object_new_string(wr ? "sdo_write" : "sdo_read"));
    json_object_object_add(o, "node", json_object_new_int64(node));
    json_object_object_add(o, "index", json_object_new_int64(idx));
    json_object_object_add(o, "sub", json_object_new_int64(sub));
    json_object_object_add(o, "timeout_ms", json_object_new_int64(timeout / TAKT_NS_PER_MS));
    if (wr)
        json_object_object_add(o, "data", ctl_hex(buf, cap));
    json_object *r = ctl_client_call(p->cl, o, timeout + 5 * TAKT_NS_PER_S, p->err, sizeof p->err);
    json_object_put(o);
    if (!r)
        return -EIO;
    int rc = 0;
    size_t n = 0;
    if (json_object_object_get_ex(r, "abort_code", &v)) {
        p->abort_code = (uint32_t)json_object_get_int64(v);
        rc = -TAKT_ESDOABORT;
    } else if (!wr && (!json_object_object_get_ex(r, "data", &v) ||
                       ctl_unhex(json_object_get_string(v), buf, cap, &n))) {
        snprintf(p->err, sizeof p->err, "the MN's answer carries no data of at most %zu bytes", cap);
        rc = -EPROTO;
    }
    if (got)
        *got = n;
    json_object_put(r);
    return rc;
}

/* An MN of this command's own for the CN: created, started on -i, the CN configured. */
static int own_mn(struct cli_ctx *c, long node, struct takt_plk_mn **out, struct takt_link **link, takt_ns_t limit)
{
    struct takt_plk_net *nc;
    char nodes[16];
    if (!cli_get(c, "nodes") && !cli_get(c, "config") && !cli_get(c, "cdc")) {
        snprintf(nodes, sizeof nodes, "%ld", node);
        /* the option table's "nodes" slot is index 0 */
        c->extra[0] = nodes;
    }
    int rc = cli_plk_net_config(c, &nc);
    if (rc)
        return rc;
    struct takt_plk_net_node nn;
    if (takt_plk_net_node(nc, (unsigned)node, &nn)) {
        takt_plk_net_free(nc);
        return cli_usage_error(c, "node %ld is not in the configured network", node);
    }
    char err[320];
    struct takt_plk_mn *mn;
    rc = takt_plk_mn_create_net(nc, &mn, err, sizeof err);
    takt_plk_net_free(nc);
    if (rc)
        return cli_error(c, "%s", err);
    takt_plk_mn_sdo_udp(mn, cli_flag(c, "udp"));
    if ((rc = cli_plk_open_link(c, link))) {
        takt_plk_mn_destroy(mn);
        return rc;
    }
    struct takt_plk_run_opts o = { 0 };
    takt_rt_opts_default(&o.rt);
    o.rt.drop_caps = cli_caps_dropping();
    if ((rc = takt_plk_mn_start(mn, *link, &o))) {
        takt_link_close(*link);
        takt_plk_mn_destroy(mn);
        return cli_error(c, "cannot start the MN: %s", takt_strerror(rc));
    }
    cli_drop_caps(c, cli_caps_after_rt(c));
    if ((rc = wait_configured(c, mn, node, limit))) {
        takt_plk_mn_stop(mn);
        takt_plk_mn_join(mn);
        takt_link_close(*link);
        takt_plk_mn_destroy(mn);
        return rc;
    }
    *out = mn;
    return 0;
}

int cli_plk_sdo_run(struct cli_ctx *c)
{
    if (c->argc < 4)
        return cli_usage_error(c, "expects read|write NODE INDEX SUB [VALUE], got %d arguments", c->argc);
    bool wr = !strcmp(c->argv[0], "write");
    if (!wr && strcmp(c->argv[0], "read"))
        return cli_usage_error(c, "expects 'read' or 'write', got '%s'", c->argv[0]);
    long node, idx, sub, size = 4;
    uint64_t ival = 0;
    bool negative = false;
    if (cli_parse_long(c, "NODE", c->argv[1], 1, 239, &node) ||
        cli_parse_long(c, "INDEX", c->argv[2], 0, 0xFFFF, &idx) ||
        cli_parse_long(c, "SUB", c->argv[3], 0, 0xFF, &sub))
        return 2;
    uint8_t val[TAKT_PLK_SDO_DATA_MAX];
    size_t vlen = 0;
    char from[1024] = "";   /* the file that gave the object's size */
    if (wr) {
        if (c->argc < 5)
            return cli_usage_error(c, "write expects a VALUE after SUB");
        if (cli_flag(c, "string")) {
            vlen = strlen(c->argv[4]);
            if (vlen > sizeof val)
                return cli_usage_error(c, "VALUE is longer than %zu bytes", sizeof val);
            memcpy(val, c->argv[4], vlen);
        } else {
            const char *s = cli_get(c, "size");
            if (s && cli_parse_long(c, "--size", s, 1, 8, &size))
                return 2;
            if (s && size != 1 && size != 2 && size != 4 && size != 8)
                return cli_usage_error(c, "--size expects 1, 2, 4 or 8, got %ld", size);
            size_t cs = 0;
            int k = s ? 1 : cli_plk_sdo_config_size(c, cli_get(c, "cdc"), (unsigned)node, (uint16_t)idx,
                                                    (uint8_t)sub, &cs, from, sizeof from);
            if (k < 0)
                return 1;
            if (k == 0 && cs != 1 && cs != 2 && cs != 4 && cs != 8)
                return cli_error(c, "%s gives 0x%04lX/%ld %zu bytes, not an integer of 1, 2, 4 or 8: "
                                 "give --size or --string", from, idx, sub, cs);
            if (k == 0)
                size = (long)cs;
            else if (!s)
                size = 0;   /* the object's: read it first */
            char *end;
            errno = 0;
            const char *v = c->argv[4];
            negative = v[0] == '-';
            if (negative)
                ival = (uint64_t)strtoll(v, &end, 0);
            else
                ival = strtoull(v, &end, 0);
            if (errno || *end || end == v || (!negative && v[0] == '+') || v[0] == ' ')
                return cli_usage_error(c, "VALUE expects an integer within 64 bits (or --string), got '%s'", v);
            if (size && !fits(ival, negative, (size_t)size) && from[0])
                return cli_error(c, "0x%04lX/%ld is %ld byte%s in %s; %s does not fit", idx, sub, size,
                                 size > 1 ? "s" : "", from, v);
            if (size && !fits(ival, negative, (size_t)size))
                return cli_usage_error(c, "VALUE %s does not fit in --size %ld bytes", v, size);
            vlen = (size_t)size;
        }
    }
    /* a running MN on -i (takt plk mn) does the transfer, and the value stays there;
     * else an MN of this command's own for the CN */
    struct sdo_path p = { 0 };
    int rc = cli_ctl_attach(c, "plk-mn", true, &p.cl);
    if (rc)
        return rc;
    takt_ns_t limit = takt_now() + (takt_ns_t)((c->time_s > 0 ? c->time_s : 20.0) * 1e9);
    struct takt_link *link = NULL;
    int result = 0;
    if (!p.cl && (result = own_mn(c, node, &p.mn, &link, limit)))
        return result;
    size_t got = 0;
    rc = 0;
    takt_ns_t left = left_of(limit);
    if (wr && !vlen && !cli_flag(c, "string")) {
        /* the object's size from reading it: an expedited or segmented write of
         * another length is refused (abort 0x06070010, DS 301 6.3.2.3.2) */
        uint8_t cur[TAKT_PLK_SDO_DATA_MAX];
        rc = path_xfer(c, &p, false, node, idx, sub, cur, sizeof cur, &got, left);
        if (!rc && got != 1 && got != 2 && got != 4 && got != 8)
            result = cli_error(c, "0x%04lX/%ld holds %zu bytes, not an integer of 1, 2, 4 or 8: "
                               "give --size or --string", idx, sub, got);
        else if (!rc && !fits(ival, negative, got))
            result = cli_error(c, "0x%04lX/%ld holds %zu byte%s; %s does not fit", idx, sub, got,
                               got > 1 ? "s" : "", c->argv[4]);
        vlen = got;
        left = left_of(limit);
    }
    if (wr && !cli_flag(c, "string"))
        takt_put_le64(val, ival);   /* the value's low vlen bytes, little-endian */
    if (!rc && !result)
        rc = path_xfer(c, &p, wr, node, idx, sub, val, wr ? vlen : sizeof val, &got, left);
    if (result) {
        ;   /* said above */
    } else if (rc == -TAKT_ESDOABORT) {
        uint32_t code = p.abort_code;
        if (c->json)
            sdo_json(c, wr, node, idx, sub, NULL, 0, &code);
        result = cli_error(c, "node %ld object 0x%04lX/%ld: aborted with 0x%08X (%s)", node, idx, sub,
                           code, takt_plk_sdo_abort_text(code));
    } else if (rc) {
        result = cli_error(c, "node %ld object 0x%04lX/%ld: %s", node, idx, sub, p.cl ? p.err : takt_strerror(rc));
    } else if (c->json) {
        result = sdo_json(c, wr, node, idx, sub, val, wr ? vlen : got, NULL) ? 1 : 0;
    } else if (wr) {
        printf("node %ld 0x%04lX/%ld written (%zu bytes%s%s%s)\n", node, idx, sub, vlen,
               from[0] ? ", the size " : "", from, from[0] ? " gives" : "");
    } else {
        print_value(val, got);
    }
    if (p.mn) {
        takt_plk_mn_stop(p.mn);
        takt_plk_mn_join(p.mn);
        takt_link_close(link);
        takt_plk_mn_destroy(p.mn);
    }
    ctl_client_close(p.cl);
    return result;
}
