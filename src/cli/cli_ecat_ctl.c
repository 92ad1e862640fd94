/* The verbs `takt ecat run` serves on its control socket (docs/control.md), in the
 * control thread. What does not change once the network is configured (the slaves'
 * identities and SII images, the process data layout) is copied before the cycle
 * starts; states come from the snapshot the cycle publishes (any thread); services
 * are queued with the _async functions, their completions (in the cycle) hand the
 * result back through the server's eventfd.
 *
 * The _async functions and takt_ecat_master_request_state are [thread: any]: from this
 * thread they post into the master's command ring, which the cycle drains at its start
 * (docs/architecture.md, "Thread contract"); a full ring answers -EAGAIN at once, so
 * the client gets an error and the cycle never waits on this thread. */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"
#include "cli/cli_ecat_view.h"

#include "cli/cli_ecat_ctl_int.h"

static bool arg_bool(struct ctl_call *k, const char *name)
{
    json_object *v;
    return json_object_object_get_ex(ctl_call_req(k), name, &v) && json_object_get_boolean(v);
}

/* --- read-only: from the copies and the published states ------------------------------ */

static int h_slaves(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    bool sii = arg_bool(k, "sii"), pdos = arg_bool(k, "pdos");
    json_object *r = json_object_new_object(), *arr = json_object_new_array();
    for (unsigned i = 0; i < x->n; i++) {
        struct takt_ecat_slave_info s = x->info[i];
        struct takt_ecat_slave_state st;
        /* the state is current even when the topology's wait timed out (-ETIMEDOUT) */
        if (takt_ecat_master_slave_state(x->m, i, &st) != -ENOENT) {
            s.al_state = st.al_state;
            s.al_code = st.al_code;
            s.present = st.present;
        }
        json_object *o = cli_ecat_info_wire(&s);
        if (sii)
            json_object_object_add(o, "sii", ctl_hex(x->sii[i], x->sii_len[i]));
        json_object_array_add(arr, o);
    }
    json_object_object_add(r, "slaves", arr);
    if (pdos) {
        json_object *pa = json_object_new_array();
        for (unsigned i = 0; i < x->n_pd; i++)
            json_object_array_add(pa, cli_ecat_pd_wire(&x->pd[i]));
        json_object_object_add(r, "pdos", pa);
    }
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

/* Answer r with the master's state in words, from its statistics s (stats also sends
 * their counters, states only the words). */
static int answer_state(struct ctl_call *k, json_object *r, const struct takt_ecat_master_stats *s)
{
    char st[200];
    json_object_object_add(r, "state_text", json_object_new_string(takt_ecat_master_state_text(s, st, sizeof st)));
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

static int h_states(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    json_object *r = json_object_new_object(), *arr = json_object_new_array();
    for (unsigned i = 0; i < x->n; i++) {
        struct takt_ecat_slave_state st = { 0 };
        takt_ecat_master_slave_state(x->m, i, &st);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "al_state", json_object_new_int(st.al_state));
        json_object_object_add(o, "al_code", json_object_new_int(st.al_code));
        json_object_object_add(o, "present", json_object_new_boolean(st.present));
        json_object_array_add(arr, o);
    }
    json_object_object_add(r, "slaves", arr);
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(x->m, &s);
    return answer_state(k, r, &s);
}

static int h_stats(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(x->m, &s);
    json_object *r = json_object_new_object();
#define S(f) json_object_object_add(r, #f, json_object_new_uint64((uint64_t)s.f));
    S(cycles) S(frames_sent) S(frames_received) S(frames_lost) S(cyc_frames_lost) S(frames_unmatched)
    S(frames_late) S(frames_duplicate) S(wkc_errors) S(slaves_lost) S(slaves_returned)
#undef S
    return answer_state(k, r, &s);
}

/* IgH's verbs (takt ecat master, data, domains, graph, cstruct, top): each answers the
 * whole view, taken now from the copies and what the cycle publishes, and the tool
 * renders it as it renders a view of its own (cli_ecat_view.h). */
static int h_view(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    struct ctl_view v;
    if (ctl_view_fill_copies(&v, x->m, x->cycle_ns, x->info, x->n, x->pd, x->n_pd))
        return ctl_call_error(k, "out of memory for the view");
    ctl_call_result(k, ctl_view_to_json(&v));
    ctl_view_free(&v);
    return CTL_ANSWERED;
}

/* --- services, through the cycle -------------------------------------------------------- */

/* In the cycle: the master's error text belongs to this moment (a later failure
 * rewrites it), so it is taken here, with the result. */
void ecat_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ctl_op *op = ctx;
    if (err) {
        const char *e = takt_ecat_master_error(op->user);
        snprintf(op->msg, sizeof op->msg, "%s", e && e[0] ? e : takt_strerror(err));
    }
    ctl_op_done(op, err, data, len);
}

void finish_data(struct ctl_call *k, struct ctl_op *op)
{
    if (op->err) {
        ctl_call_error(k, "%s", op->msg[0] ? op->msg : takt_strerror(op->err));
        return;
    }
    json_object *r = json_object_new_object();
    if (op->arg[0])      /* a read: the data */
        json_object_object_add(r, "data", ctl_hex(op->buf, op->len));
    ctl_call_result(k, r);
}

/* queued, or it never will be: answer now */
int queued(struct ctl_op *op, int rc)
{
    if (rc) {
        snprintf(op->msg, sizeof op->msg, "cannot queue it: %s", takt_strerror(rc));
        ctl_op_done(op, rc, NULL, 0);
    }
    return CTL_DEFERRED;
}

int pos_arg(struct ctl_call *k, struct cli_ecat_ctl *x, unsigned *pos)
{
    char e[256];
    int64_t v = 0;
    if (!x->n)
        return ctl_call_error(k, "the master has no slave"), -1;
    if (ctl_arg_int(ctl_call_req(k), "pos", true, 0, x->n - 1, &v, e, sizeof e))
        return ctl_call_error(k, "%s", e), -1;
    *pos = (unsigned)v;
    return 0;
}

static int h_reg(struct ctl_call *k, void *ctx, bool wr)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t reg = 0, len = 0;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("reg", true, 0, 0xFFFF, reg);
    uint8_t data[512];
    size_t dl = 0;
    char e[256];
    if (wr && ctl_arg_hex(ctl_call_req(k), "data", data, sizeof data, &dl, e, sizeof e))
        return ctl_call_error(k, "%s", e);
    if (!wr)
        ARG("len", true, 1, 512, len);
    struct ctl_op *op = ctl_call_defer(k, wr ? dl : (size_t)len, finish_data);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    op->arg[0] = !wr;
    if (wr)
        memcpy(op->buf, data, dl);
    return queued(op, wr ? takt_ecat_reg_write_async(x->m, pos, (uint16_t)reg, op->buf, (uint16_t)dl, ecat_done, op)
                         : takt_ecat_reg_read_async(x->m, pos, (uint16_t)reg, (uint16_t)len, ecat_done, op));
}
static int h_reg_read(struct ctl_call *k, void *ctx) { return h_reg(k, ctx, false); }
static int h_reg_write(struct ctl_call *k, void *ctx) { return h_reg(k, ctx, true); }

static int h_upload(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t idx = 0, sub = 0, cap = 4096;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("index", true, 0, 0xFFFF, idx);
    ARG("sub", true, 0, 0xFF, sub);
    ARG("cap", false, 1, 65536, cap);
    struct ctl_op *op = ctl_call_defer(k, (size_t)cap, finish_data);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    op->arg[0] = 1;
    return queued(op, takt_ecat_sdo_upload_async(x->m, pos, (uint16_t)idx, (uint8_t)sub, arg_bool(k, "complete"),
                                                 op->buf, op->cap, ecat_done, op));
}

static int h_download(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t idx = 0, sub = 0;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("index", true, 0, 0xFFFF, idx);
    ARG("sub", true, 0, 0xFF, sub);
    json_object *d;
    size_t hl = json_object_object_get_ex(ctl_call_req(k), "data", &d) ? (size_t)json_object_get_string_len(d) : 0;
    struct ctl_op *op = ctl_call_defer(k, hl / 2 + 1, finish_data);
    if (!op)
        return CTL_ANSWERED;
    char e[256];
    size_t dl;
    if (ctl_arg_hex(ctl_call_req(k), "data", op->buf, op->cap, &dl, e, sizeof e)) {
        snprintf(op->msg, sizeof op->msg, "%s", e);
        ctl_op_done(op, -EINVAL, NULL, 0);
        return CTL_DEFERRED;
    }
    op->user = x->m;
    return queued(op, takt_ecat_sdo_download_async(x->m, pos, (uint16_t)idx, (uint8_t)sub, arg_bool(k, "complete"),
                                                   op->buf, dl, ecat_done, op));
}

static int h_sdo_info(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t opc = 0, idx = 0, sub = 0, cap = 4096;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("op", true, TAKT_ECAT_SDO_INFO_ODLIST, TAKT_ECAT_SDO_INFO_ENTRY, opc);
    ARG("index", false, 0, 0xFFFF, idx);
    ARG("sub", false, 0, 0xFF, sub);
    ARG("cap", false, 1, 65536, cap);
    struct ctl_op *op = ctl_call_defer(k, (size_t)cap, finish_data);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    op->arg[0] = 1;
    return queued(op, takt_ecat_sdo_info_async(x->m, pos, (enum takt_ecat_sdo_info_op)opc, (uint16_t)idx,
                                               (uint8_t)sub, op->buf, op->cap, ecat_done, op));
}

static int h_soe(struct ctl_call *k, void *ctx, bool wr)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t drive = 0, el = 0, idn = 0, cap = 4096;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("drive", false, 0, 7, drive);
    ARG("elements", true, 1, 0xFF, el);
    ARG("idn", true, 0, 0xFFFF, idn);
    ARG("cap", false, 1, 65536, cap);
    json_object *d;
    size_t hl = wr && json_object_object_get_ex(ctl_call_req(k), "data", &d) ? (size_t)json_object_get_string_len(d) : 0;
    struct ctl_op *op = ctl_call_defer(k, wr ? hl / 2 + 1 : (size_t)cap, finish_data);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    op->arg[0] = !wr;
    size_t dl = 0;
    char e[256];
    if (wr && ctl_arg_hex(ctl_call_req(k), "data", op->buf, op->cap, &dl, e, sizeof e)) {
        snprintf(op->msg, sizeof op->msg, "%s", e);
        ctl_op_done(op, -EINVAL, NULL, 0);
        return CTL_DEFERRED;
    }
    return queued(op, wr ? takt_ecat_soe_write_async(x->m, pos, (uint8_t)drive, (uint8_t)el, (uint16_t)idn, op->buf,
                                                     dl, ecat_done, op)
                         : takt_ecat_soe_read_async(x->m, pos, (uint8_t)drive, (uint8_t)el, (uint16_t)idn, op->buf,
                                                    op->cap, ecat_done, op));
}
static int h_soe_read(struct ctl_call *k, void *ctx) { return h_soe(k, ctx, false); }
static int h_soe_write(struct ctl_call *k, void *ctx) { return h_soe(k, ctx, true); }

static int h_xml(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    if (!x->eni)
        return ctl_call_error(k, "the master has no description of its network to give");
    json_object *r = json_object_new_object();
    json_object_object_add(r, "text", json_object_new_string(x->eni));
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

/* takt_ecat_master_write_eni is for a master whose cycle does not run: written once,
 * before it starts, into memory (a memfd by its /proc path) */
static char *eni_text(struct takt_ecat_master *m)
{
    int fd = memfd_create("takt-eni", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *t = NULL;
    off_t n;
    if (!takt_ecat_master_write_eni(m, path) && (n = lseek(fd, 0, SEEK_END)) > 0 && (t = malloc((size_t)n + 1))) {
        if (pread(fd, t, (size_t)n, 0) != n) {
            free(t);
            t = NULL;
        } else {
            t[n] = 0;
        }
    }
    close(fd);
    return t;
}

/* The network's state, or with "pos" one slave's (BOOT allowed for it: a firmware
 * update while the others keep running). */
static int h_request_state(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    int64_t st = 0, pos = -1;
    ARG("state", true, 1, 8, st);
    ARG("pos", false, 0, 65535, pos);
    bool boot = pos >= 0 && st == TAKT_ECAT_STATE_BOOT;
    if (st != TAKT_ECAT_STATE_INIT && st != TAKT_ECAT_STATE_PREOP && st != TAKT_ECAT_STATE_SAFEOP &&
        st != TAKT_ECAT_STATE_OP && !boot)
        return ctl_call_error(k, "'state' expects INIT (1), PREOP (2), SAFEOP (4) or OP (8) for the "
                              "network, BOOT (3) too for one slave, got %d", (int)st);
    if (pos >= (int64_t)x->n)
        return ctl_call_error(k, "'pos' expects a slave position 0..%d, got %d", (int)x->n - 1, (int)pos);
    int rc = pos >= 0 ? takt_ecat_slave_request_state(x->m, (unsigned)pos, (uint8_t)st)
                      : takt_ecat_master_request_state(x->m, (uint8_t)st);
    if (rc)
        return ctl_call_error(k, "cannot request %s: %s", takt_ecat_al_state_name((uint8_t)st), takt_strerror(rc));
    ctl_call_result(k, NULL);
    return CTL_ANSWERED;
}

/* The network scanned again by the running master (takt_ecat_master_rescan_async): the
 * count, and per slave what its SII says now against what was scanned. */
static void finish_rescan(struct ctl_call *k, struct ctl_op *op)
{
    const struct takt_ecat_rescan *res = (const void *)op->buf;
    if (op->err || op->len < sizeof *res) {
        ctl_call_error(k, "%s", op->err ? (op->msg[0] ? op->msg : takt_strerror(op->err))
                                        : "the rescan's record is short");
        return;
    }
    /* more slaves answering than the buffer holds: those beyond are not listed */
    size_t fits = (op->len - sizeof *res) / sizeof res->slave[0];
    unsigned n = res->n < fits ? res->n : (unsigned)fits;
    json_object *r = json_object_new_object(), *arr = json_object_new_array();
    json_object_object_add(r, "seen", json_object_new_int((int)res->seen));
    json_object_object_add(r, "expected", json_object_new_int((int)res->expected));
    for (unsigned i = 0; i < n; i++) {
        const struct takt_ecat_rescan_slave *e = &res->slave[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "position", json_object_new_int((int)i));
        json_object_object_add(o, "status", json_object_new_string(takt_ecat_rescan_status_name(e->status)));
#define U(f) json_object_object_add(o, #f, json_object_new_int64(e->f));
        if (e->status != TAKT_ECAT_RESCAN_NEW) {
            U(vendor) U(product) U(revision) U(serial)
        }
        if (e->status == TAKT_ECAT_RESCAN_SAME || e->status == TAKT_ECAT_RESCAN_CHANGED) {
            U(now_vendor) U(now_product) U(now_revision) U(now_serial)
        }
#undef U
        if (e->status == TAKT_ECAT_RESCAN_FAILED)
            json_object_object_add(o, "error", json_object_new_string(takt_strerror(e->err)));
        json_object_array_add(arr, o);
    }
    json_object_object_add(r, "slaves", arr);
    ctl_call_result(k, r);
}

static int h_rescan(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    char why[128];
    /* the EEPROM interface has one user at a time (ETG.1000.4 6.4) */
    if (ecat_ctl_sii_in_use(x, why, sizeof why))
        return ctl_call_error(k, "rescan refused: %s; ask again once it ended", why);
    /* room for the scanned slaves and as many unexpected ones (the library's bound) */
    size_t cap = sizeof(struct takt_ecat_rescan) + (2 * (size_t)x->n + 1) * sizeof(struct takt_ecat_rescan_slave);
    struct ctl_op *op = ctl_call_defer(k, cap, finish_rescan);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    return queued(op, takt_ecat_master_rescan_async(x->m, ecat_done, op));
}

/* One entry and one handler a verb (docs/control.md lists them). */
static const struct ctl_verb ecat_verbs[] = {
    { "slaves", h_slaves },
    { "states", h_states },
    { "stats", h_stats },
    { "request_state", h_request_state },
    { "reg_read", h_reg_read },
    { "reg_write", h_reg_write },
    { "upload", h_upload },
    { "download", h_download },
    { "sdo_info", h_sdo_info },
    { "xml", h_xml },
    { "soe_read", h_soe_read },
    { "soe_write", h_soe_write },
    { "sii_write", ecat_ctl_sii_write },
    { "foe_read", ecat_ctl_foe_read },
    { "foe_write", ecat_ctl_foe_write },
    { "view", h_view },
    { "master", h_view },
    { "data", h_view },
    { "domains", h_view },
    { "graph", h_view },
    { "cstruct", h_view },
    { "top", h_view },
    { "version", ctl_verb_version },
    { "rescan", h_rescan },
    { "eoe_set_ip", ecat_ctl_eoe_set_ip },
    { "eoe_set_filter", ecat_ctl_eoe_set_filter },
    { 0 },
};

int cli_ecat_ctl_start(struct cli_ctx *c, struct takt_ecat_master *m, struct cli_ecat_ctl **out)
{
    *out = NULL;
    if (cli_flag(c, "no-control") || c->link || !c->iface)
        return 0;
    struct cli_ecat_ctl *x = calloc(1, sizeof *x);
    if (!x)
        return 0;
    x->m = m;
    x->cycle_ns = c->cycle_ns;
    x->n = takt_ecat_master_slave_count(m);
    x->n_pd = takt_ecat_pd_count(m);
    x->info = calloc(x->n + 1, sizeof *x->info);
    x->sii = calloc(x->n + 1, sizeof *x->sii);
    x->sii_len = calloc(x->n + 1, sizeof *x->sii_len);
    x->pd = calloc(x->n_pd + 1, sizeof *x->pd);
    bool ok = x->info && x->sii && x->sii_len && x->pd;
    for (unsigned i = 0; ok && i < x->n; i++) {
        takt_ecat_master_slave_info(m, i, &x->info[i]);
        size_t l;
        const uint8_t *img = takt_ecat_slave_sii(m, i, &l);
        if (!(x->sii[i] = malloc(l + 1)))
            ok = false;
        else if (img)
            memcpy(x->sii[i], img, l), x->sii_len[i] = l;
    }
    for (unsigned i = 0; ok && i < x->n_pd; i++)
        takt_ecat_pd_get(m, i, &x->pd[i]);
    if (ok)
        x->eni = eni_text(m);
    if (ok)
        cli_ctl_serve(c, "ecat", ecat_verbs, x, &x->srv);
    if (!x->srv) {
        cli_ecat_ctl_free(x);
        return 0;
    }
    *out = x;
    return 0;
}

void cli_ecat_ctl_stop(struct cli_ecat_ctl *x)
{
    if (!x)
        return;
    ctl_server_stop(x->srv);
    ecat_ctl_job_join(x);
}

void cli_ecat_ctl_free(struct cli_ecat_ctl *x)
{
    if (!x)
        return;
    ctl_server_free(x->srv);
    for (unsigned i = 0; x->sii && i < x->n; i++)
        free(x->sii[i]);
    free(x->sii);
    free(x->sii_len);
    free(x->info);
    free(x->pd);
    free(x->eni);
    free(x);
}
