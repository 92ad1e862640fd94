/* The simulated POWERLINK CN network as public API (<takt/sim.h>, takt_sim_plk_*): an
 * opaque wrapper around struct sim_plk_net with copied-out node figures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "sim/plk_net.h"

struct takt_sim_plk {
    struct sim_plk_net net;   /* first: the publish trampoline finds s from it */
    takt_sim_plk_publish_fn publish;
    void *publish_ctx;
};

int takt_sim_plk_create(const uint8_t *ids, unsigned n, const struct takt_sim_plk_faults *f,
                        struct takt_sim_plk **out, char *err, size_t errlen)
{
    *out = NULL;
    bool in[256] = { false };
    for (unsigned i = 0; i < n; i++) {
        if (ids[i] < 1 || ids[i] > TAKT_PLK_MAX_NODES || (i && ids[i] <= ids[i - 1])) {
            snprintf(err, errlen, "node ID %u (entry %u): expected CN node IDs 1..239, "
                     "ascending, each once", ids[i], i + 1);
            return -EINVAL;
        }
        in[ids[i]] = true;
    }
    if (!n) {
        snprintf(err, errlen, "no CN node ID given");
        return -EINVAL;
    }
    struct takt_sim_plk *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    struct sim_plk_faults sf = { 0 };
    if (f)
        sf = (struct sim_plk_faults){
            .drop_permille = f->drop_permille, .late_permille = f->late_permille,
            .late_ns = f->late_ns, .malformed_permille = f->malformed_permille,
            .vanish_node = f->vanish_node, .vanish_at = f->vanish_at,
            .vanish_for = f->vanish_for, .wrong_id_node = f->wrong_id_node,
            .answer_delay_min = f->answer_delay_min, .answer_delay_max = f->answer_delay_max,
        };
    int r = sim_plk_net_init(&s->net, ids[0], ids[n - 1], f ? &sf : NULL, err, errlen);
    if (r) {
        free(s);
        return r;
    }
    /* a list with gaps (1,32,110): the CNs between are not on the network */
    unsigned kept = 0;
    for (unsigned i = 0; i < s->net.n; i++) {
        if (!in[s->net.cn[i]->cfg.id])
            free(s->net.cn[i]);
        else
            s->net.cn[kept++] = s->net.cn[i];
    }
    s->net.n = kept;
    *out = s;
    return 0;
}

void takt_sim_plk_destroy(struct takt_sim_plk *s)
{
    if (!s)
        return;
    sim_plk_net_free(&s->net);
    free(s);
}

unsigned takt_sim_plk_count(const struct takt_sim_plk *s) { return s->net.n; }

int takt_sim_plk_run(struct takt_sim_plk *s, struct takt_link *link, takt_ns_t duration,
                     const volatile int *stop)
{
    return sim_plk_net_run(&s->net, link, duration, stop);
}

int takt_sim_plk_state(const struct takt_sim_plk *s, unsigned k)
{
    if (k >= s->net.n)
        return -ENOENT;
    return __atomic_load_n(&s->net.cn[k]->state, __ATOMIC_RELAXED);
}

int takt_sim_plk_request_nmt(struct takt_sim_plk *s, unsigned k, uint8_t cmd, uint8_t target,
                             const void *data, size_t len)
{
    if (k >= s->net.n)
        return -ENOENT;
    return plk_cn_post_nmt_request(s->net.cn[k], cmd, target, data, len);
}

int takt_sim_plk_veth(struct takt_sim_plk *s, unsigned k, bool on)
{
    if (k >= s->net.n)
        return -ENOENT;
    plk_cn_veth_on(s->net.cn[k], on);
    return 0;
}

int takt_sim_plk_send_eth(struct takt_sim_plk *s, unsigned k, const void *frame, size_t len)
{
    return k < s->net.n ? plk_cn_veth_send(s->net.cn[k], frame, len) : -ENOENT;
}

int takt_sim_plk_recv_eth(struct takt_sim_plk *s, unsigned k, void *buf, size_t cap)
{
    return k < s->net.n ? plk_cn_veth_recv(s->net.cn[k], buf, cap) : -ENOENT;
}

int takt_sim_plk_node(const struct takt_sim_plk *s, unsigned k, struct takt_sim_plk_node *o)
{
    if (k >= s->net.n)
        return -ENOENT;
    const struct plk_cn *cn = s->net.cn[k];
    *o = (struct takt_sim_plk_node){
        .id = cn->cfg.id,
        .state = cn->state,
        .chained = cn->chained,
        .preq_rx = cn->st.preq_rx,
        .pres_tx = cn->st.pres_tx,
        .soc_rx = cn->st.soc_rx,
        .soa_rx = cn->st.soa_rx,
        .asnd_rx = cn->st.asnd_rx,
        .asnd_tx = cn->st.asnd_tx,
        .bad_frames = cn->st.bad_frames,
        .short_rx = cn->st.short_rx,
        .loss_soc = cn->st.loss_soc,
        .loss_preq = cn->st.loss_preq,
        .loss_soc_threshold = cn->loss_soc.threshold,
        .loss_preq_threshold = cn->loss_preq.threshold,
        .cycle_errors = cn->st.cycle_errors,
        .nmt_cmds = cn->st.nmt_cmds,
        .sdo_rx = cn->st.sdo_rx,
        .dropped = cn->st.dropped,
        .late = cn->st.late,
        .malformed = cn->st.malformed,
        .delayed = cn->st.delayed,
        .stale_dropped = cn->st.stale_dropped,
        .nmtreq_tx = cn->st.nmtreq_tx,
        .nmtreq_refused = cn->st.nmtreq_refused,
        .nmtreq_dropped = cn->st.nmtreq_dropped,
        .err_entries = cn->st.err_entries,
        .veth_to_host = cn->veth.to_host,
        .veth_to_net = cn->veth.to_net,
        .veth_dropped = __atomic_load_n(&cn->veth.dropped, __ATOMIC_RELAXED),
    };
    return 0;
}

static void publish_tramp(void *ctx, const struct sim_plk_net *net)
{
    (void)net;
    const struct takt_sim_plk *s = ctx;
    s->publish(s->publish_ctx, s);
}

void takt_sim_plk_set_publish(struct takt_sim_plk *s, takt_sim_plk_publish_fn fn, void *ctx)
{
    s->publish = fn;
    s->publish_ctx = ctx;
    s->net.publish = fn ? publish_tramp : NULL;
    s->net.publish_ctx = fn ? s : NULL;
}

void takt_sim_plk_set_soc_lead(struct takt_sim_plk *s, takt_ns_t lead_ns)
{
    s->net.soc_lead_ns = lead_ns > 0 ? lead_ns : 0;
}

void takt_sim_plk_get_info(const struct takt_sim_plk *s, struct takt_sim_plk_info *i)
{
    *i = (struct takt_sim_plk_info){
        .vanished = s->net.vanish_count,
        .returned = s->net.return_count,
        .launched = s->net.host.launched,
        .launched_txtime = s->net.host.launched_txtime,
        .launch_late_max = s->net.host.launch_late_max,
    };
}
