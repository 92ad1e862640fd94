/* The ecat tool verbs' access to the network: either a master of their own on -i
 * (scanned, driven by the blocking calls), or the master `takt ecat run` runs there,
 * through its control socket (docs/control.md). Both fill the same structs, so the verbs
 * print the same either way. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

/* --- a slave's description on the socket: every field of takt_ecat_slave_info ------- */
#define INFO_FIELDS(X) \
    X(position) X(station) X(alias) X(vendor) X(product) X(revision) X(serial) X(esc_type) \
    X(esc_rev) X(esc_features) X(dl_status) X(ports_open) X(parent) X(parent_port) \
    X(al_state) X(al_code) X(mbx_out_start) X(mbx_out_len) X(mbx_in_start) X(mbx_in_len) \
    X(mbx_protocols) X(dc) X(dc_delay_ns) X(out_bits) X(in_bits) X(out_offset) X(in_offset) \
    X(present)

struct json_object *cli_ecat_info_wire(const struct takt_ecat_slave_info *s)
{
    json_object *o = json_object_new_object();
#define PUT(f) json_object_object_add(o, #f, json_object_new_int64((int64_t)s->f));
    INFO_FIELDS(PUT)
#undef PUT
    json_object_object_add(o, "name", json_object_new_string_len(s->name, (int)strnlen(s->name, sizeof s->name)));
    return o;
}

int cli_ecat_info_unwire(struct json_object *o, struct takt_ecat_slave_info *s)
{
    memset(s, 0, sizeof *s);
    json_object *v;
    if (!json_object_is_type(o, json_type_object))
        return -1;
#define GET(f) if (!json_object_object_get_ex(o, #f, &v) || !json_object_is_type(v, json_type_int)) \
                   return -1; \
               s->f = (__typeof__(s->f))json_object_get_int64(v);
    INFO_FIELDS(GET)
#undef GET
    if (!json_object_object_get_ex(o, "name", &v) || !json_object_is_type(v, json_type_string))
        return -1;
    snprintf(s->name, sizeof s->name, "%s", json_object_get_string(v));
    return 0;
}

struct json_object *cli_ecat_pd_wire(const struct takt_ecat_pd_entry *e)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "position", json_object_new_int64(e->position));
    json_object_object_add(o, "index", json_object_new_int(e->index));
    json_object_object_add(o, "sub", json_object_new_int(e->sub));
    json_object_object_add(o, "bits", json_object_new_int(e->bits));
    json_object_object_add(o, "output", json_object_new_boolean(e->output));
    json_object_object_add(o, "byte_offset", json_object_new_int64(e->byte_offset));
    json_object_object_add(o, "bit_offset", json_object_new_int(e->bit_offset));
    json_object_object_add(o, "name", json_object_new_string(e->name));
    return o;
}

static int pd_unwire(json_object *o, struct takt_ecat_pd_entry *e)
{
    json_object *v;
    memset(e, 0, sizeof *e);
#define G(f) if (!json_object_object_get_ex(o, #f, &v)) return -1; \
             e->f = (__typeof__(e->f))json_object_get_int64(v);
    G(position) G(index) G(sub) G(bits) G(byte_offset) G(bit_offset)
#undef G
    e->output = json_object_object_get_ex(o, "output", &v) && json_object_get_boolean(v);
    if (json_object_object_get_ex(o, "name", &v))
        snprintf(e->name, sizeof e->name, "%s", json_object_get_string(v));
    return 0;
}

/* --- open and close ------------------------------------------------------------------- */

static int open_direct(struct cli_ctx *c, struct cli_ecat_tool *t, bool keep_state)
{
    /* a closed ring on -i alone returns every frame to the other port: the verb needs
     * both */
    int rc = cli_ecat_open_ports(c, &t->l, &t->l2);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);   /* the tools run no real-time thread */
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = c->cycle_ns;
    o.keep_state = keep_state;
    o.redundant = t->l2;
    char err[256];
    if (takt_ecat_master_open(&t->m, t->l, &o, err, sizeof err)) {
        takt_link_close(t->l);
        takt_link_close(t->l2);
        t->l = t->l2 = NULL;
        return cli_error(c, "%s", err);
    }
    rc = takt_ecat_master_scan(t->m, 5 * TAKT_NS_PER_S);
    if (rc) {
        cli_error(c, "scan on %s failed: %s", c->iface, takt_ecat_master_error(t->m));
        takt_ecat_master_close(t->m);
        takt_link_close(t->l);
        takt_link_close(t->l2);
        t->m = NULL;
        t->l = t->l2 = NULL;
        return 1;
    }
    return 0;
}

/* the running master's slaves (and their SII images and the process data layout) */
static int fetch(struct cli_ctx *c, struct cli_ecat_tool *t, bool pdos)
{
    json_object *req = json_object_new_object();
    json_object_object_add(req, "verb", json_object_new_string("slaves"));
    json_object_object_add(req, "sii", json_object_new_boolean(true));
    json_object_object_add(req, "pdos", json_object_new_boolean(pdos));
    json_object *r = cli_ctl_call(c, t->ctl, req, 10);
    json_object_put(req);
    if (!r)
        return 1;
    json_object *arr, *pd;
    int rc = 0;
    if (!json_object_object_get_ex(r, "slaves", &arr) || !json_object_is_type(arr, json_type_array)) {
        json_object_put(r);
        return cli_error(c, "the master's answer to 'slaves' has no slave list");
    }
    t->n = (unsigned)json_object_array_length(arr);
    t->info = calloc(t->n + 1, sizeof *t->info);
    t->sii = calloc(t->n + 1, sizeof *t->sii);
    t->sii_len = calloc(t->n + 1, sizeof *t->sii_len);
    if (!t->info || !t->sii || !t->sii_len)
        rc = cli_error(c, "out of memory");
    for (unsigned i = 0; !rc && i < t->n; i++) {
        json_object *e = json_object_array_get_idx(arr, i), *h;
        if (cli_ecat_info_unwire(e, &t->info[i])) {
            rc = cli_error(c, "the master's answer describes slave %u incompletely", i);
            break;
        }
        const char *hex = json_object_object_get_ex(e, "sii", &h) ? json_object_get_string(h) : "";
        size_t hl = strlen(hex);
        if (!(t->sii[i] = malloc(hl / 2 + 1)) || ctl_unhex(hex, t->sii[i], hl / 2 + 1, &t->sii_len[i]))
            rc = cli_error(c, "the master's SII image of slave %u is not hex", i);
    }
    if (!rc && pdos && json_object_object_get_ex(r, "pdos", &pd) && json_object_is_type(pd, json_type_array)) {
        t->n_pd = (unsigned)json_object_array_length(pd);
        if (!(t->pd = calloc(t->n_pd + 1, sizeof *t->pd)))
            rc = cli_error(c, "out of memory");
        for (unsigned i = 0; !rc && i < t->n_pd; i++)
            if (pd_unwire(json_object_array_get_idx(pd, i), &t->pd[i]))
                rc = cli_error(c, "the master's process data entry %u is incomplete", i);
    }
    json_object_put(r);
    return rc;
}

int cli_ecat_tool_open(struct cli_ctx *c, struct cli_ecat_tool *t, unsigned flags)
{
    memset(t, 0, sizeof *t);
    int rc = cli_ctl_attach(c, "ecat", flags & CLI_ECAT_TOOL_SERVED, &t->ctl);
    if (rc)
        return rc;
    if (t->ctl) {
        if ((rc = fetch(c, t, flags & CLI_ECAT_TOOL_PDOS)))
            cli_ecat_tool_close(t);
        return rc;
    }
    if (flags & CLI_ECAT_TOOL_NOSCAN)
        return 0;
    return open_direct(c, t, !(flags & CLI_ECAT_TOOL_RESET));
}

void cli_ecat_tool_close(struct cli_ecat_tool *t)
{
    if (t->m)
        takt_ecat_master_close(t->m);
    if (t->l)
        takt_link_close(t->l);
    if (t->l2)
        takt_link_close(t->l2);
    ctl_client_close(t->ctl);
    for (unsigned i = 0; t->sii && i < t->n; i++)
        free(t->sii[i]);
    free(t->sii);
    free(t->sii_len);
    free(t->info);
    free(t->pd);
    memset(t, 0, sizeof *t);
}

/* --- what the verbs ask ---------------------------------------------------------------- */

unsigned cli_ecat_tool_count(const struct cli_ecat_tool *t)
{
    return t->ctl ? t->n : takt_ecat_master_slave_count(t->m);
}

int cli_ecat_tool_info(const struct cli_ecat_tool *t, unsigned pos, struct takt_ecat_slave_info *s)
{
    if (!t->ctl)
        return takt_ecat_master_slave_info(t->m, pos, s);
    if (pos >= t->n)
        return -ENOENT;
    *s = t->info[pos];
    return 0;
}

const uint8_t *cli_ecat_tool_sii(const struct cli_ecat_tool *t, unsigned pos, size_t *len)
{
    if (!t->ctl)
        return takt_ecat_slave_sii(t->m, pos, len);
    *len = pos < t->n ? t->sii_len[pos] : 0;
    return pos < t->n ? t->sii[pos] : NULL;
}

const char *cli_ecat_tool_error(const struct cli_ecat_tool *t)
{
    return t->ctl ? t->err : takt_ecat_master_error(t->m);
}

/* one request that moves bytes: args in req (taken), the answer's "data" into buf */
static int remote(struct cli_ecat_tool *t, struct cli_ctx *c, json_object *req, uint8_t *buf, size_t cap,
                  size_t *len, double timeout_s)
{
    char err[1024];
    json_object *r = ctl_client_call(t->ctl, req, (takt_ns_t)(timeout_s * 1e9), err, sizeof err);
    json_object_put(req);
    (void)c;
    if (!r) {
        snprintf(t->err, sizeof t->err, "%s", err);
        return -EIO;
    }
    json_object *d;
    size_t n = 0;
    int rc = 0;
    if (buf && json_object_object_get_ex(r, "data", &d) &&
        ctl_unhex(json_object_get_string(d), buf, cap, &n)) {
        snprintf(t->err, sizeof t->err, "the master's answer carries no data that fits %zu bytes", cap);
        rc = -EPROTO;
    }
    if (len)
        *len = n;
    json_object_put(r);
    return rc;
}

static json_object *req_new(const char *verb, unsigned pos)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verb", json_object_new_string(verb));
    json_object_object_add(o, "pos", json_object_new_int64(pos));
    return o;
}

static void add_int(json_object *o, const char *k, int64_t v) { json_object_object_add(o, k, json_object_new_int64(v)); }

int cli_ecat_tool_reg(struct cli_ecat_tool *t, struct cli_ctx *c, bool wr, unsigned pos, uint16_t reg,
                      uint8_t *buf, uint16_t len)
{
    if (!t->ctl)
        return wr ? takt_ecat_reg_write(t->m, pos, reg, buf, len) : takt_ecat_reg_read(t->m, pos, reg, buf, len);
    json_object *o = req_new(wr ? "reg_write" : "reg_read", pos);
    add_int(o, "reg", reg);
    if (wr)
        json_object_object_add(o, "data", ctl_hex(buf, len));
    else
        add_int(o, "len", len);
    size_t got = 0;
    int rc = remote(t, c, o, wr ? NULL : buf, len, &got, 10);
    if (!rc && !wr && got != len) {
        snprintf(t->err, sizeof t->err, "the master read %zu bytes, not %u", got, len);
        rc = -EPROTO;
    }
    return rc;
}

int cli_ecat_tool_upload(struct cli_ecat_tool *t, struct cli_ctx *c, unsigned pos, uint16_t idx, uint8_t sub,
                         bool ca, uint8_t *buf, size_t cap, size_t *len)
{
    if (!t->ctl)
        return takt_ecat_sdo_upload(t->m, pos, idx, sub, ca, buf, cap, len);
    json_object *o = req_new("upload", pos);
    add_int(o, "index", idx);
    add_int(o, "sub", sub);
    add_int(o, "cap", (int64_t)cap);
    json_object_object_add(o, "complete", json_object_new_boolean(ca));
    return remote(t, c, o, buf, cap, len, 30);
}

int cli_ecat_tool_download(struct cli_ecat_tool *t, struct cli_ctx *c, unsigned pos, uint16_t idx, uint8_t sub,
                           bool ca, const uint8_t *data, size_t len)
{
    if (!t->ctl)
        return takt_ecat_sdo_download(t->m, pos, idx, sub, ca, data, len);
    json_object *o = req_new("download", pos);
    add_int(o, "index", idx);
    add_int(o, "sub", sub);
    json_object_object_add(o, "complete", json_object_new_boolean(ca));
    json_object_object_add(o, "data", ctl_hex(data, len));
    return remote(t, c, o, NULL, 0, NULL, 30);
}

int cli_ecat_tool_sdo_info(struct cli_ecat_tool *t, struct cli_ctx *c, unsigned pos, enum takt_ecat_sdo_info_op op,
                           uint16_t idx, uint8_t sub, uint8_t *buf, size_t cap, size_t *len)
{
    if (!t->ctl)
        return takt_ecat_sdo_info(t->m, pos, op, idx, sub, buf, cap, len);
    json_object *o = req_new("sdo_info", pos);
    add_int(o, "op", op);
    add_int(o, "index", idx);
    add_int(o, "sub", sub);
    add_int(o, "cap", (int64_t)cap);
    return remote(t, c, o, buf, cap, len, 30);
}

unsigned cli_ecat_tool_pd_count(const struct cli_ecat_tool *t)
{
    return t->ctl ? t->n_pd : takt_ecat_pd_count(t->m);
}

int cli_ecat_tool_pd_get(const struct cli_ecat_tool *t, unsigned i, struct takt_ecat_pd_entry *e)
{
    if (!t->ctl)
        return takt_ecat_pd_get(t->m, i, e);
    if (i >= t->n_pd)
        return -ENOENT;
    *e = t->pd[i];
    return 0;
}

/* SII bytes from word on: through a running master in chunks (each a request of its
 * own, so the line limit holds for any image), the slave's copy updated as it goes. */
int cli_ecat_tool_sii_write(struct cli_ecat_tool *t, unsigned pos, unsigned word, const uint8_t *data, size_t len)
{
    if (!t->ctl)
        return takt_ecat_sii_write_at(t->m, pos, word, data, len);
    for (size_t at = 0; at < len; at += CTL_SII_CHUNK) {
        size_t n = len - at < CTL_SII_CHUNK ? len - at : CTL_SII_CHUNK;
        json_object *o = req_new("sii_write", pos);
        add_int(o, "word", (int64_t)(word + at / 2));
        json_object_object_add(o, "data", ctl_hex(data + at, n));
        if (at + n < len)          /* the master refuses a rescan until the last chunk */
            json_object_object_add(o, "more", json_object_new_boolean(true));
        /* word by word through the cycle: a few cycles each */
        int rc = remote(t, NULL, o, NULL, 0, NULL, 300);
        if (rc)
            return rc;
        if (pos < t->n && 2 * (size_t)word + at + n <= t->sii_len[pos])
            memcpy(t->sii[pos] + 2 * (size_t)word + at, data + at, n);
    }
    return 0;
}

/* The running master's slaves' live states into t->info: 0 or -EIO (t->err). */
static int refresh_states(struct cli_ecat_tool *t)
{
    json_object *o = json_object_new_object(), *arr;
    json_object_object_add(o, "verb", json_object_new_string("states"));
    json_object *r = ctl_client_call(t->ctl, o, 10 * TAKT_NS_PER_S, t->err, sizeof t->err);
    json_object_put(o);
    if (!r)
        return -EIO;
    if (json_object_object_get_ex(r, "slaves", &arr) && json_object_is_type(arr, json_type_array))
        for (unsigned i = 0; i < t->n && i < json_object_array_length(arr); i++) {
            json_object *e = json_object_array_get_idx(arr, i), *v;
            if (json_object_object_get_ex(e, "al_state", &v))
                t->info[i].al_state = (uint8_t)json_object_get_int(v);
            if (json_object_object_get_ex(e, "al_code", &v))
                t->info[i].al_code = (uint16_t)json_object_get_int(v);
            if (json_object_object_get_ex(e, "present", &v))
                t->info[i].present = json_object_get_boolean(v);
        }
    json_object_put(r);
    return 0;
}

int cli_ecat_tool_set_state(struct cli_ecat_tool *t, struct cli_ctx *c, long pos, uint8_t state, double timeout_s)
{
    (void)c;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verb", json_object_new_string("request_state"));
    json_object_object_add(o, "state", json_object_new_int(state));
    if (pos >= 0)
        add_int(o, "pos", pos);
    int rc = remote(t, c, o, NULL, 0, NULL, 10);
    if (rc)
        return rc;
    /* the master's cycle walks the slaves there; wait for what it publishes */
    takt_ns_t limit = takt_now() + (takt_ns_t)(timeout_s * 1e9);
    for (;;) {
        if (refresh_states(t))
            return -EIO;
        unsigned at = 0, of = pos >= 0 ? 1 : t->n;
        for (unsigned i = 0; i < t->n; i++)
            at += (pos < 0 || i == (unsigned long)pos) &&
                  (t->info[i].al_state & TAKT_ECAT_STATE_MASK) == state && !(t->info[i].al_state & TAKT_ECAT_STATE_ERROR);
        if (at == of)
            return 0;
        if (takt_now() >= limit) {
            snprintf(t->err, sizeof t->err, "%u of %u slaves in %s after %.0f s", at, of,
                     takt_ecat_al_state_name(state), timeout_s);
            return -ETIMEDOUT;
        }
        nanosleep(&(struct timespec){ 0, 50 * TAKT_NS_PER_MS }, NULL);
    }
}

/* SoE (ETG.1000.6 5.6): a read of elements into buf (cap, *len), or a write of len
 * bytes of buf (len in cap). */
int cli_ecat_tool_soe(struct cli_ecat_tool *t, bool wr, unsigned pos, uint8_t drive, uint8_t elements,
                      uint16_t idn, uint8_t *buf, size_t cap, size_t *len)
{
    if (!t->ctl)
        return wr ? takt_ecat_soe_write(t->m, pos, drive, elements, idn, buf, cap)
                  : takt_ecat_soe_read(t->m, pos, drive, elements, idn, buf, cap, len);
    json_object *o = req_new(wr ? "soe_write" : "soe_read", pos);
    add_int(o, "drive", drive);
    add_int(o, "elements", elements);
    add_int(o, "idn", idn);
    if (wr)
        json_object_object_add(o, "data", ctl_hex(buf, cap));
    else
        add_int(o, "cap", (int64_t)cap);
    return remote(t, NULL, o, wr ? NULL : buf, cap, len, 30);
}

/* A verb whose answer is a text ("text"), written to path: 0, or 1 after the error. */
int cli_ecat_tool_text(struct cli_ecat_tool *t, struct cli_ctx *c, const char *verb, const char *path)
{
    json_object *o = json_object_new_object(), *v;
    json_object_object_add(o, "verb", json_object_new_string(verb));
    json_object *r = cli_ctl_call(c, t->ctl, o, 10);
    json_object_put(o);
    if (!r)
        return 1;
    int rc = 0;
    const char *txt = json_object_object_get_ex(r, "text", &v) ? json_object_get_string(v) : NULL;
    FILE *f = txt ? fopen(path, "w") : NULL;
    if (!txt)
        rc = cli_error(c, "the master's answer to '%s' has no text", verb);
    else if (!f || fputs(txt, f) < 0)
        rc = cli_error(c, "cannot write '%s': %s", path, strerror(errno));
    if (f && fclose(f) && !rc)
        rc = cli_error(c, "cannot write '%s': %s", path, strerror(errno));
    json_object_put(r);
    return rc;
}
