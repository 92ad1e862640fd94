/* The control socket of `takt plk cn` (docs/control.md): verbs `nodes` (the simulated
 * CNs' NMT states and counters) and `version`, served from the control thread.
 *
 * takt_sim_plk_node is for the network's thread only ([thread: idle] while it runs), so
 * the CNs are read there: in the publish hook (every input step, 100 ms) the network's
 * thread copies them into a buffer under a lock it only try-locks (a reader holding it
 * costs that publication, never a wait); the control thread answers from the buffer. */
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli_ctl.h"
#include "cli/cli_plk.h"

struct cli_plk_cn_ctl {
    struct ctl_server *srv;
    pthread_mutex_t lk;
    unsigned n;
    struct takt_sim_plk_node *nodes;   /* under lk */
    uint64_t published;                /* under lk: publications taken */
};

void cli_plk_cn_ctl_publish(struct cli_plk_cn_ctl *x, const struct takt_sim_plk *s)
{
    if (!x || pthread_mutex_trylock(&x->lk))
        return;
    for (unsigned i = 0; i < x->n; i++)
        takt_sim_plk_node(s, i, &x->nodes[i]);
    x->published++;
    pthread_mutex_unlock(&x->lk);
}

static int h_nodes(struct ctl_call *k, void *ctx)
{
    struct cli_plk_cn_ctl *x = ctx;
    json_object *r = json_object_new_object(), *arr = json_object_new_array();
    unsigned op = 0;
    pthread_mutex_lock(&x->lk);
    for (unsigned i = 0; i < x->n; i++) {
        const struct takt_sim_plk_node *t = &x->nodes[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "node", json_object_new_int(t->id));
        json_object_object_add(o, "state", json_object_new_string(takt_plk_nmt_name(t->state)));
        json_object_object_add(o, "state_code", json_object_new_int(t->state));
#define C(f) json_object_object_add(o, #f, json_object_new_uint64(t->f));
        C(preq_rx) C(pres_tx) C(soc_rx) C(soa_rx) C(asnd_rx) C(asnd_tx) C(bad_frames) C(short_rx)
        C(loss_soc) C(loss_preq) C(cycle_errors) C(nmt_cmds) C(sdo_rx) C(dropped) C(late) C(malformed)
        C(stale_dropped) C(nmtreq_tx) C(nmtreq_refused)
#undef C
        json_object_object_add(o, "chained", json_object_new_boolean(t->chained));
        json_object_array_add(arr, o);
        op += t->state == TAKT_PLK_OPERATIONAL;
    }
    json_object_object_add(r, "published", json_object_new_uint64(x->published));
    pthread_mutex_unlock(&x->lk);
    json_object_object_add(r, "nodes_operational", json_object_new_int((int)op));
    json_object_object_add(r, "nodes", arr);
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

static const struct ctl_verb cn_verbs[] = {
    { "nodes", h_nodes },
    { "version", ctl_verb_version },
    { 0 },
};

void cli_plk_cn_ctl_start(struct cli_ctx *c, const struct takt_sim_plk *s, struct cli_plk_cn_ctl **out)
{
    *out = NULL;
    struct cli_plk_cn_ctl *x = calloc(1, sizeof *x);
    if (!x)
        return;
    x->n = takt_sim_plk_count(s);
    x->nodes = calloc(x->n ? x->n : 1, sizeof *x->nodes);
    pthread_mutex_init(&x->lk, NULL);
    /* before the network runs: the states they start in */
    for (unsigned i = 0; x->nodes && i < x->n; i++)
        takt_sim_plk_node(s, i, &x->nodes[i]);
    if (x->nodes)
        cli_ctl_serve(c, "plk-cn", cn_verbs, x, &x->srv);
    if (!x->srv) {
        pthread_mutex_destroy(&x->lk);
        free(x->nodes);
        free(x);
        return;
    }
    *out = x;
}

void cli_plk_cn_ctl_stop(struct cli_plk_cn_ctl *x)
{
    if (!x)
        return;
    ctl_server_stop(x->srv);
    ctl_server_free(x->srv);
    pthread_mutex_destroy(&x->lk);
    free(x->nodes);
    free(x);
}
