/* takt plk cn: one or many simulated CNs on an interface, their faults and the NMT
 * request one of them may make; the session the demo and the benchmark reuse. Parsing
 * and printing only; the CNs are the library's (takt_sim_plk). */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"
#include "cli/metrics_cn.h"

/* After the run: what each CN counted; l is the link it ran on. */
static void cn_report(struct cli_ctx *c, const struct takt_sim_plk *s, const struct takt_link *l)
{
    json_object *arr = json_object_new_array();
    for (unsigned i = 0; i < takt_sim_plk_count(s); i++) {
        struct takt_sim_plk_node cn;
        takt_sim_plk_node(s, i, &cn);
        printf("  node %3u %-18s preq %" PRIu64 " pres %" PRIu64 " lossSoC %" PRIu64
               " lossPReq %" PRIu64 " cycleErr %" PRIu64 " nmt %" PRIu64 " sdo %" PRIu64
               " dropped %" PRIu64 " late %" PRIu64 " malformed %" PRIu64 " stale %" PRIu64
               " chained %d\n",
               cn.id, takt_plk_nmt_name(cn.state), cn.preq_rx, cn.pres_tx,
               cn.loss_soc, cn.loss_preq, cn.cycle_errors, cn.nmt_cmds,
               cn.sdo_rx, cn.dropped, cn.late, cn.malformed, cn.stale_dropped,
               cn.chained);
        json_object *n = json_object_new_object();
        json_object_object_add(n, "node", json_object_new_int(cn.id));
        json_object_object_add(n, "state", json_object_new_string(takt_plk_nmt_name(cn.state)));
        json_object_object_add(n, "preq_rx", json_object_new_uint64(cn.preq_rx));
        json_object_object_add(n, "pres_tx", json_object_new_uint64(cn.pres_tx));
        json_object_object_add(n, "loss_soc", json_object_new_uint64(cn.loss_soc));
        json_object_object_add(n, "loss_preq", json_object_new_uint64(cn.loss_preq));
        /* thresholds in effect: the power-on 15 or what the MN downloaded */
        json_object_object_add(n, "loss_soc_threshold", json_object_new_uint64(cn.loss_soc_threshold));
        json_object_object_add(n, "loss_preq_threshold", json_object_new_uint64(cn.loss_preq_threshold));
        json_object_object_add(n, "cycle_errors", json_object_new_uint64(cn.cycle_errors));
        json_object_object_add(n, "dropped", json_object_new_uint64(cn.dropped));
        json_object_object_add(n, "late", json_object_new_uint64(cn.late));
        json_object_object_add(n, "malformed", json_object_new_uint64(cn.malformed));
        json_object_object_add(n, "nmtreq_tx", json_object_new_uint64(cn.nmtreq_tx));
        json_object_object_add(n, "nmtreq_refused", json_object_new_uint64(cn.nmtreq_refused));
        json_object_object_add(n, "nmtreq_dropped", json_object_new_uint64(cn.nmtreq_dropped));
        json_object_object_add(n, "err_entries", json_object_new_uint64(cn.err_entries));
        json_object_object_add(n, "stale_dropped", json_object_new_uint64(cn.stale_dropped));
        json_object_object_add(n, "delayed", json_object_new_uint64(cn.delayed));
        json_object_object_add(n, "chained", json_object_new_boolean(cn.chained));
        /* --veth: frames to and from the host's TAP, lost for a full ring */
        json_object_object_add(n, "veth_to_host", json_object_new_uint64(cn.veth_to_host));
        json_object_object_add(n, "veth_to_net", json_object_new_uint64(cn.veth_to_net));
        json_object_object_add(n, "veth_dropped", json_object_new_uint64(cn.veth_dropped));
        json_object_array_add(arr, n);
    }
    struct takt_sim_plk_info si;
    takt_sim_plk_get_info(s, &si);
    if (l && l->txtime)
        printf("launched %" PRIu64 " time-triggered frames by the kernel (SO_TXTIME, %s qdisc)\n",
               si.launched_txtime, l->txtime_qdisc);
    else
        printf("launched %" PRIu64 " time-triggered frames, late by max %.1f us (no SO_TXTIME: sent from the loop)\n",
               si.launched, (double)si.launch_late_max / 1000.0);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "role", json_object_new_string("cn"));
        json_object_object_add(o, "vanished", json_object_new_uint64(si.vanished));
        json_object_object_add(o, "returned", json_object_new_uint64(si.returned));
        json_object_object_add(o, "launched", json_object_new_uint64(si.launched));
        json_object_object_add(o, "launch_late_max_ns", json_object_new_int64(si.launch_late_max));
        json_object_object_add(o, "launched_txtime", json_object_new_uint64(si.launched_txtime));
        json_object_object_add(o, "txtime_qdisc", json_object_new_string(l && l->txtime ? l->txtime_qdisc : ""));
        json_object_object_add(o, "nodes", arr);
        cli_write_json(c, o);
        json_object_put(o);
    } else {
        json_object_put(arr);
    }
}

/* --nmt-request CMD@TARGET[+S]: the first CN asks the MN for an NMT command S seconds
 * after it became Operational (DS 301 7.3.6; takt_sim_plk_request_nmt hands it over to
 * the CNs' thread, which sends it on the MN's NMTRequestInvite). */
struct cn_nmtreq_job {
    struct takt_sim_plk *sim;     /* its CN 0 asks */
    unsigned id;
    unsigned cmd, target;
    double after_s;
    int quit;                      /* atomic: the session ended */
    pthread_t t;
};

static bool job_sleep(struct cn_nmtreq_job *j, double s)
{
    takt_ns_t end = takt_now() + (takt_ns_t)(s * 1e9);
    while (takt_now() < end) {
        if (__atomic_load_n(&j->quit, __ATOMIC_ACQUIRE))
            return false;
        nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
    }
    return true;
}

static void *nmtreq_main(void *arg)
{
    struct cn_nmtreq_job *j = arg;
    while (takt_sim_plk_state(j->sim, 0) != TAKT_PLK_OPERATIONAL)
        if (!job_sleep(j, 0.01))
            return NULL;
    if (!job_sleep(j, j->after_s))
        return NULL;
    int r;
    while ((r = takt_sim_plk_request_nmt(j->sim, 0, (uint8_t)j->cmd, (uint8_t)j->target, NULL, 0)) == -EAGAIN)
        if (!job_sleep(j, 0.001))   /* the CN's command ring is full */
            return NULL;
    fprintf(stderr, "takt plk cn: node %u asks the MN for NMT command 0x%02X (%s) for node %u%s\n",
            j->id, j->cmd, takt_plk_nmt_cmd_name((uint8_t)j->cmd), j->target,
            r ? " -- refused by the CN" : "");
    return NULL;
}

/* --metrics-file, --metrics-listen: the CNs' figures for metrics_cn.c, filled in the
 * network's thread (into storage made before it runs) and after it stopped; the control
 * socket's copy is taken there too. */
struct cn_pub { struct cn_metrics *cm; struct mx_plk_cn_node *nodes; struct cli_plk_cn_ctl *ctl; };

static void cn_fill(const struct takt_sim_plk *s, struct mx_plk_cn_node *out)
{
    unsigned n = takt_sim_plk_count(s);
    for (unsigned i = 0; i < n; i++) {
        struct takt_sim_plk_node t;
        if (takt_sim_plk_node(s, i, &t))
            continue;
        struct mx_plk_cn_node *o = &out[i];
        o->id = t.id;
        o->state = t.state;
        uint64_t *c = o->c;
        c[MX_CN_PREQ_RX] = t.preq_rx;             c[MX_CN_PRES_TX] = t.pres_tx;
        c[MX_CN_SOC_RX] = t.soc_rx;               c[MX_CN_SOA_RX] = t.soa_rx;
        c[MX_CN_ASND_RX] = t.asnd_rx;             c[MX_CN_ASND_TX] = t.asnd_tx;
        c[MX_CN_LOSS_SOC] = t.loss_soc;           c[MX_CN_LOSS_PREQ] = t.loss_preq;
        c[MX_CN_CYCLE_ERRORS] = t.cycle_errors;   c[MX_CN_BAD_FRAMES] = t.bad_frames;
        c[MX_CN_SHORT_RX] = t.short_rx;           c[MX_CN_NMT_CMDS] = t.nmt_cmds;
        c[MX_CN_SDO_RX] = t.sdo_rx;               c[MX_CN_STALE_DROPPED] = t.stale_dropped;
        c[MX_CN_NMTREQ_TX] = t.nmtreq_tx;         c[MX_CN_NMTREQ_REFUSED] = t.nmtreq_refused;
        c[MX_CN_DROPPED] = t.dropped;             c[MX_CN_LATE] = t.late;
        c[MX_CN_MALFORMED] = t.malformed;
    }
}

static void cn_publish(void *ctx, const struct takt_sim_plk *s)
{
    struct cn_pub *p = ctx;
    if (p->cm) {
        cn_fill(s, p->nodes);
        cn_metrics_publish(p->cm, p->nodes, takt_sim_plk_count(s));
    }
    cli_plk_cn_ctl_publish(p->ctl, s);
}

/* Serve the simulated CNs first..last on link until -t, Ctrl-C or *stop; req (may be
 * NULL) is the first CN's --nmt-request; own: takt plk cn itself (metrics and the
 * control socket), not the demo's or the benchmark's CNs. */
static int cn_session_req(struct cli_ctx *c, unsigned a, unsigned b,
                          const struct takt_sim_plk_faults *f, struct takt_link *link,
                          const volatile int *stop, struct cn_nmtreq_job *req, const bool *in,
                          bool own, struct cli_plk_veth *veth)
{
    char err[320];
    /* a list with gaps (1,32,110): the CNs between are not on the network */
    uint8_t ids[TAKT_PLK_MAX_NODES];
    unsigned n = 0;
    for (unsigned id = a; id <= b && id <= TAKT_PLK_MAX_NODES; id++)
        if (!in || in[id])
            ids[n++] = (uint8_t)id;
    if (a < 1 || b > TAKT_PLK_MAX_NODES || a > b)
        return cli_error(c, "node range %u-%u: CN node IDs are 1..239", a, b);
    struct takt_sim_plk *s;
    if (takt_sim_plk_create(ids, n, f, &s, err, sizeof err))
        return cli_error(c, "%s", err);
    unsigned count = takt_sim_plk_count(s);
    const char *lead = cli_get(c, "soc-lead");
    long lead_us = 0;
    if (lead && cli_parse_long(c, "--soc-lead (microseconds)", lead, 0, 100000, &lead_us)) {
        takt_sim_plk_destroy(s);
        return 2;
    }
    takt_sim_plk_set_soc_lead(s, lead_us * TAKT_NS_PER_US);
    /* the TAP's thread and the control thread before takt_rt_setup: they must not
     * inherit this thread's RT priority and affinity, which are the CNs' */
    int vrc = veth ? cli_plk_cn_veth_start(c, veth, s) : 0;
    if (vrc)
        fprintf(stderr, "takt plk cn: no virtual Ethernet thread: %s\n", strerror(-vrc));
    else if (veth)
        fprintf(stderr, "takt plk cn: virtual Ethernet %s up (192.168.100.%u)\n", veth->name, ids[0]);
    struct cli_plk_cn_ctl *ctl = NULL;
    if (own)
        cli_plk_cn_ctl_start(c, s, &ctl);
    struct takt_rt_opts ro;
    struct takt_rt_state st;
    takt_rt_opts_default(&ro);
    ro.cpu = c->cpu;
    ro.prio = c->prio;
    ro.drop_caps = cli_caps_dropping();   /* before the request thread: it inherits the dropped sets */
    takt_rt_setup(&ro, &st, NULL, NULL);
    const char *list = in ? cli_get(c, "nodes") : NULL;
    if (list)
        fprintf(stderr, "takt plk cn: %u simulated CN%s (%s) on %s\n", count, count > 1 ? "s" : "", list,
                link->name);
    else
        fprintf(stderr, "takt plk cn: %u simulated CN%s (%u-%u) on %s\n", count, count > 1 ? "s" : "",
                a, b, link->name);
    struct cn_pub pub = { NULL, calloc(count ? count : 1, sizeof *pub.nodes), ctl };
    int mrc = !pub.nodes ? cli_error(c, "out of memory") : 0;
    if (!mrc && own) {
        cn_fill(s, pub.nodes);
        mrc = cn_metrics_start(c, c->iface ? c->iface : link->name, pub.nodes, count, &pub.cm);
    }
    if (mrc) {
        if (veth)
            cli_plk_veth_close(veth);
        cli_plk_cn_ctl_stop(ctl);
        free(pub.nodes);
        takt_rt_teardown(&st);
        takt_sim_plk_destroy(s);
        return mrc;
    }
    if (pub.cm || pub.ctl)
        takt_sim_plk_set_publish(s, cn_publish, &pub);
    bool req_thread = false;
    if (req && req->cmd) {
        req->sim = s;
        req->id = ids[0];
        req_thread = pthread_create(&req->t, NULL, nmtreq_main, req) == 0;
    }
    int rc = takt_sim_plk_run(s, link, (takt_ns_t)(c->time_s * 1e9), stop);
    if (req_thread) {
        __atomic_store_n(&req->quit, 1, __ATOMIC_RELEASE);
        pthread_join(req->t, NULL);
    }
    cli_plk_cn_ctl_stop(pub.ctl);
    if (veth) {
        cli_plk_veth_close(veth);
        struct takt_sim_plk_node nd;
        takt_sim_plk_node(s, 0, &nd);
        printf("--- virtual Ethernet %s: %" PRIu64 " frames to the network, %" PRIu64 " to the host, "
               "%" PRIu64 " dropped\n", veth->name, veth->to_net, veth->to_host,
               veth->dropped + nd.veth_dropped);
    }
    if (pub.cm) {
        cn_fill(s, pub.nodes);
        cn_metrics_stop(pub.cm, pub.nodes, count);
    }
    free(pub.nodes);
    takt_rt_teardown(&st);
    if (rc)
        fprintf(stderr, "takt plk cn: receive failed on %s: %s\n", link->name, strerror(-rc));
    cn_report(c, s, link);
    takt_sim_plk_destroy(s);
    return rc ? 1 : 0;
}

int cli_plk_cn_session(struct cli_ctx *c, unsigned a, unsigned b, const struct takt_sim_plk_faults *f,
                       struct takt_link *link, const volatile int *stop)
{
    return cn_session_req(c, a, b, f, link, stop, NULL, NULL, false, NULL);
}

/* Longest time a CN option takes (as -t): it becomes nanoseconds, and start plus
 * duration must still fit in takt_ns_t. */
#define CN_MAX_S 1e7

static int parse_faults(struct cli_ctx *c, struct takt_sim_plk_faults *f)
{
    long v;
    const char *s;
    memset(f, 0, sizeof *f);
    if ((s = cli_get(c, "drop")) && cli_parse_long(c, "--drop (permille)", s, 0, 1000, &v)) return 2;
    if (s) f->drop_permille = (uint32_t)v;
    if ((s = cli_get(c, "late")) && cli_parse_long(c, "--late (permille)", s, 0, 1000, &v)) return 2;
    if (s) f->late_permille = (uint32_t)v;
    f->late_ns = 200 * TAKT_NS_PER_US;
    if ((s = cli_get(c, "late-us")) && cli_parse_long(c, "--late-us", s, 1, 1000000, &v)) return 2;
    if (s) f->late_ns = v * TAKT_NS_PER_US;
    if ((s = cli_get(c, "malformed")) && cli_parse_long(c, "--malformed (permille)", s, 0, 1000, &v)) return 2;
    if (s) f->malformed_permille = (uint32_t)v;
    if ((s = cli_get(c, "wrong-id")) && cli_parse_long(c, "--wrong-id (node)", s, 1, 239, &v)) return 2;
    if (s) f->wrong_id_node = (uint8_t)v;
    if ((s = cli_get(c, "answer-delay"))) {
        long a, b;
        char *end;
        errno = 0;
        a = strtol(s, &end, 10);
        b = *end == '-' && end != s ? strtol(end + 1, &end, 10) : a;
        if (errno || end == s || *end || a < 0 || b < a || b > 1000000)
            return cli_usage_error(c, "--answer-delay expects US or MIN-MAX in microseconds "
                                   "(0..1000000) such as 150-210, got '%s'", s);
        f->answer_delay_min = a * TAKT_NS_PER_US;
        f->answer_delay_max = b * TAKT_NS_PER_US;
    }
    if ((s = cli_get(c, "vanish"))) {
        unsigned node;
        double at, dur = 0;
        int end = 0;
        /* all of it, and times that fit in nanoseconds (NaN fails both comparisons) */
        int n = sscanf(s, "%u@%lf%n+%lf%n", &node, &at, &end, &dur, &end);
        if (n < 2 || s[end] || node < 1 || node > 239 || !(at >= 0 && at <= CN_MAX_S) ||
            !(dur >= 0 && dur <= CN_MAX_S))
            return cli_usage_error(c, "--vanish expects NODE@START_S[+DURATION_S] such as 3@2+1.5 "
                                   "(node 1..239, seconds 0..%.0f), got '%s'", CN_MAX_S, s);
        f->vanish_node = (uint8_t)node;
        f->vanish_at = (takt_ns_t)(at * 1e9);
        f->vanish_for = (takt_ns_t)(dur * 1e9);
    }
    return 0;
}

static int parse_nmtreq(struct cli_ctx *c, unsigned *cmd, unsigned *target, double *after_s)
{
    const char *s = cli_get(c, "nmt-request");
    *cmd = *target = 0;
    *after_s = 1.0;
    if (!s)
        return 0;
    int end = 0;
    int n = sscanf(s, "%i@%u%n+%lf%n", (int *)cmd, target, &end, after_s, &end);
    if (n < 2 || s[end] || *cmd < 1 || *cmd > 0xFE || *target > 255 || !(*after_s >= 0 && *after_s <= CN_MAX_S))
        return cli_usage_error(c, "--nmt-request expects CMD@TARGET[+S] such as 0x22@1+2 "
                               "(command 1..0xFE, target node 0..255, seconds 0..%.0f), got '%s'", CN_MAX_S, s);
    return 0;
}

int cli_plk_cn_options(struct cli_ctx *c, unsigned *a, unsigned *b, struct takt_sim_plk_faults *f,
                       unsigned *nmt_cmd, unsigned *nmt_target, double *nmt_after_s)
{
    const char *one = cli_get(c, "node"), *many = cli_get(c, "nodes");
    if ((one != NULL) == (many != NULL))
        return cli_usage_error(c, "exactly one of --node N or --nodes LIST is expected");
    bool in[CLI_PLK_NODE_SLOTS];
    if (one && (cli_parse_long(c, "--node", one, 1, 239, &(long){ 0 })))
        return 2;
    if (cli_plk_nodes(c, one ? "--node" : "--nodes", one ? one : many, in, a, b) < 0)
        return 2;
    int rc = parse_faults(c, f);
    return rc ? rc : parse_nmtreq(c, nmt_cmd, nmt_target, nmt_after_s);
}

int cli_plk_cn_run(struct cli_ctx *c)
{
    unsigned a, b;
    struct takt_sim_plk_faults f;
    struct cn_nmtreq_job req = { 0 };
    int rc = cli_plk_cn_options(c, &a, &b, &f, &req.cmd, &req.target, &req.after_s);
    if (rc)
        return rc;
    bool in[CLI_PLK_NODE_SLOTS];
    const char *many = cli_get(c, "nodes");
    if (many && cli_plk_nodes(c, "--nodes", many, in, NULL, NULL) < 0)
        return 2;
    /* one CN's IP interface on this host: the TAP takes that CN's MAC and address */
    if (cli_get(c, "veth") && a != b)
        return cli_usage_error(c, "--veth expects one CN (--node N): the virtual Ethernet is one "
                               "node's IP interface, got %u-%u", a, b);
    struct cli_plk_veth veth = { .fd = -1 };
    if ((rc = cli_plk_cn_veth_opts(c, &veth, a)))   /* before the link: its opening drops CAP_NET_ADMIN */
        return rc;
    struct takt_link *link;
    if ((rc = cli_plk_open_link(c, &link))) {
        cli_plk_veth_close(&veth);
        return rc;
    }
    rc = cn_session_req(c, a, b, &f, link, &cli_interrupted, &req, many ? in : NULL, true,
                        veth.fd >= 0 ? &veth : NULL);
    cli_plk_veth_close(&veth);
    takt_link_close(link);
    return rc;
}
