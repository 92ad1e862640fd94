/* The verbs `takt plk mn` serves on its control socket (docs/control.md), in the
 * control thread. SDO transfers go through the running MN's SDO client with the
 * blocking takt_plk_mn_sdo_read/write ([thread: host]: one caller at a time, which
 * this thread is); they wait for the CN, never the cycle for them. While one runs the
 * other connections wait (each transfer is bounded by its timeout). */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ctl.h"
#include "cli/cli_plk.h"

struct cli_plk_ctl {
    struct takt_plk_mn *mn;
    struct ctl_server *srv;
};

static int args(struct ctl_call *k, int64_t *node, int64_t *idx, int64_t *sub, int64_t *tmo_ms)
{
    char e[256];
    json_object *r = ctl_call_req(k);
    *tmo_ms = 10000;
    if (ctl_arg_int(r, "node", true, 1, 239, node, e, sizeof e) ||
        ctl_arg_int(r, "index", true, 0, 0xFFFF, idx, e, sizeof e) ||
        ctl_arg_int(r, "sub", true, 0, 0xFF, sub, e, sizeof e) ||
        ctl_arg_int(r, "timeout_ms", false, 100, 120000, tmo_ms, e, sizeof e))
        return ctl_call_error(k, "%s", e), -1;
    /* a stop of the MN waits for a transfer in progress: at most 10 s of that */
    if (*tmo_ms > 10000)
        *tmo_ms = 10000;
    return 0;
}

/* The transfer's outcome: the data, or the CN's abort (a result too: the tool says
 * it as the direct path does), or the failure. */
static void answer(struct ctl_call *k, struct cli_plk_ctl *x, int rc, const uint8_t *d, size_t n)
{
    if (rc && rc != -TAKT_ESDOABORT) {
        ctl_call_error(k, "%s", takt_strerror(rc));
        return;
    }
    json_object *r = json_object_new_object();
    if (rc)
        json_object_object_add(r, "abort_code", json_object_new_int64(takt_plk_mn_sdo_abort_code(x->mn)));
    else
        json_object_object_add(r, "data", ctl_hex(d, n));
    ctl_call_result(k, r);
}

static int h_sdo_read(struct ctl_call *k, void *ctx)
{
    struct cli_plk_ctl *x = ctx;
    int64_t node, idx, sub, tmo;
    if (args(k, &node, &idx, &sub, &tmo))
        return CTL_ANSWERED;
    uint8_t buf[TAKT_PLK_SDO_DATA_MAX];
    size_t got = 0;
    int rc = takt_plk_mn_sdo_read(x->mn, (unsigned)node, (uint16_t)idx, (uint8_t)sub, buf, sizeof buf, &got,
                                  tmo * TAKT_NS_PER_MS);
    answer(k, x, rc, buf, got);
    return CTL_ANSWERED;
}

static int h_sdo_write(struct ctl_call *k, void *ctx)
{
    struct cli_plk_ctl *x = ctx;
    int64_t node, idx, sub, tmo;
    if (args(k, &node, &idx, &sub, &tmo))
        return CTL_ANSWERED;
    uint8_t buf[TAKT_PLK_SDO_DATA_MAX];
    size_t n;
    char e[256];
    if (ctl_arg_hex(ctl_call_req(k), "data", buf, sizeof buf, &n, e, sizeof e))
        return ctl_call_error(k, "%s", e);
    int rc = takt_plk_mn_sdo_write(x->mn, (unsigned)node, (uint16_t)idx, (uint8_t)sub, buf, n, tmo * TAKT_NS_PER_MS);
    answer(k, x, rc, NULL, 0);
    return CTL_ANSWERED;
}

/* The MN's figures and each configured CN's, from what the cycle published. */
static int h_nodes(struct ctl_call *k, void *ctx)
{
    struct cli_plk_ctl *x = ctx;
    struct takt_plk_mn_stats s;
    takt_plk_mn_get_stats(x->mn, &s);
    json_object *r = json_object_new_object(), *arr = json_object_new_array();
    json_object_object_add(r, "state", json_object_new_string(takt_plk_nmt_name(s.state)));
    json_object_object_add(r, "cycles", json_object_new_uint64(s.cycles));
    json_object_object_add(r, "nodes_operational", json_object_new_int((int)s.nodes_operational));
    for (unsigned id = 1; id <= 239; id++) {
        struct takt_plk_node_stats ns;
        if (takt_plk_mn_node_stats(x->mn, id, &ns))
            continue;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "node", json_object_new_int((int)id));
        json_object_object_add(o, "state", json_object_new_string(takt_plk_nmt_name(ns.state)));
        json_object_object_add(o, "pres_ok", json_object_new_uint64(ns.pres_ok));
        json_object_object_add(o, "pres_lost", json_object_new_uint64(ns.pres_lost));
        json_object_object_add(o, "unexpected", json_object_new_uint64(ns.unexpected));
        json_object_array_add(arr, o);
    }
    json_object_object_add(r, "nodes", arr);
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

static const struct ctl_verb plk_verbs[] = {
    { "sdo_read", h_sdo_read },
    { "sdo_write", h_sdo_write },
    { "nodes", h_nodes },
    { 0 },
};

void cli_plk_ctl_start(struct cli_ctx *c, struct takt_plk_mn *mn, struct cli_plk_ctl **out)
{
    *out = NULL;
    struct cli_plk_ctl *x = calloc(1, sizeof *x);
    if (!x)
        return;
    x->mn = mn;
    cli_ctl_serve(c, "plk-mn", plk_verbs, x, &x->srv);
    if (!x->srv) {
        free(x);
        return;
    }
    *out = x;
}

void cli_plk_ctl_stop(struct cli_plk_ctl *x)
{
    if (!x)
        return;
    ctl_server_stop(x->srv);
    ctl_server_free(x->srv);
    free(x);
}

/* --- takt plk nodes: the client ------------------------------------------------------ */

const struct cli_opt cli_plk_nodes_opts[] = {
    { "master", 0, 1, "SOCKET", "the running MN's control socket (default: the one of -i)" },
    { 0 },
};

static uint64_t u64(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static const char *str(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : "?";
}

int cli_plk_nodes_run(struct cli_ctx *c)
{
    struct ctl_client *cl;
    int rc = cli_ctl_attach(c, "plk-mn", true, &cl);
    if (rc)
        return rc;
    if (!cl)
        return cli_error(c, "no MN answers on %s: plk nodes shows the CNs of a running takt plk mn "
                         "(-i IF, or --master SOCKET)", c->iface ? c->iface : "the interface (-i)");
    json_object *req = json_object_new_object(), *arr;
    json_object_object_add(req, "verb", json_object_new_string("nodes"));
    json_object *r = cli_ctl_call(c, cl, req, 10);
    json_object_put(req);
    ctl_client_close(cl);
    if (!r)
        return 1;
    if (!c->json || strcmp(c->json, "-")) {
        unsigned n = json_object_object_get_ex(r, "nodes", &arr) ? (unsigned)json_object_array_length(arr) : 0;
        printf("MN %s, %" PRIu64 " of %u CNs operational, %" PRIu64 " cycles\n", str(r, "state"),
               u64(r, "nodes_operational"), n, u64(r, "cycles"));
        for (unsigned i = 0; i < n; i++) {
            json_object *e = json_object_array_get_idx(arr, i);
            printf("  node %3" PRIu64 "  %-18s PRes ok %" PRIu64 " lost %" PRIu64 " unexpected %" PRIu64 "\n",
                   u64(e, "node"), str(e, "state"), u64(e, "pres_ok"), u64(e, "pres_lost"), u64(e, "unexpected"));
        }
    }
    rc = cli_write_json(c, r);
    json_object_put(r);
    return rc;
}
