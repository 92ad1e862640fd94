/* takt demo: at this stage, `takt link echo` and `takt link bench` across a veth pair
 * in two network namespaces (root or not), or over the in-process mem link when
 * namespaces cannot be made. The EtherCAT issue replaces the pair of programs run here;
 * the set-up (demo_netns / demo_mem) stays. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/netns.h>
#include <takt/rt.h>
#include "cli/cli.h"
#include "cli/cli_link.h"

#define DEMO_NO_LINK 3   /* bench side could not open its veth end: fall back */

struct demo {
    struct cli_ctx *c;
    struct takt_netns ns;
    struct takt_link *echo_link;   /* mem fallback: the echo thread's endpoint */
    volatile int echo_stop;
};

static struct bench_args bench_args(struct cli_ctx *c, struct takt_link *l)
{
    return (struct bench_args){
        .link = l, .cycle_ns = c->cycle_ns, .time_s = c->time_s > 0 ? c->time_s : 10,
        .perf_s = c->perf_s > 0 ? c->perf_s : 1, .cpu = c->cpu, .prio = c->prio, .size = 60,
        .json = c->json, .out = stdout, .stop = &cli_interrupted,
    };
}

static struct takt_link *open_test_link(const char *ifname, char *err, size_t errlen)
{
    static const uint16_t types[] = { TAKT_ETHERTYPE_TEST };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    struct takt_link *l = NULL;
    takt_link_open(ifname, &o, &l, err, errlen);
    return l;
}

/* Side B: answer until the parent's SIGTERM. */
static void echo_side(struct demo *d)
{
    char err[256];
    struct takt_link *l = open_test_link(d->ns.ifname[1], err, sizeof err);
    if (!l) {
        fprintf(stderr, "takt demo: echo side: %s\n", err);
        _exit(1);
    }
    struct rt_state rts = { .dma_fd = -1 };
    if (d->c->prio > 0) {          /* -p applies to both ends; -a only to the bench */
        struct rt_opts ro;
        rt_opts_default(&ro);
        ro.prio = d->c->prio;
        rt_setup(&ro, &rts, NULL, NULL);
    }
    struct echo_result r;
    int rc = link_echo_loop(l, 0, 0, &cli_interrupted, &r);
    rt_teardown(&rts);
    takt_link_close(l);
    fprintf(stderr, "takt demo: echo on %s answered %llu of %llu frames\n", d->ns.ifname[1],
            (unsigned long long)r.answered, (unsigned long long)r.received);
    _exit(rc ? 1 : 0);
}

/* Side A: the benchmark; the exit status carries link_bench's verdict. */
static int bench_side(void *arg)
{
    struct demo *d = arg;
    char err[256];
    struct takt_link *l = open_test_link(d->ns.ifname[0], err, sizeof err);
    if (!l) {
        fprintf(stderr, "takt demo: bench side: %s\n", err);
        return DEMO_NO_LINK;
    }
    struct bench_args a = bench_args(d->c, l);
    int rc = link_bench(&a);
    takt_link_close(l);
    if (rc)
        fprintf(stderr, "takt demo: bench on %s: %s\n", d->ns.ifname[0],
                rc == 1 ? "no echo answered" : takt_strerror(rc));
    return rc ? 1 : 0;
}

static int demo_netns(struct demo *d)
{
    printf("takt demo: %s <-> %s, a veth pair between two network namespaces%s\n",
           d->ns.ifname[0], d->ns.ifname[1], d->ns.userns ? " inside an unprivileged user namespace" : "");
    printf("takt demo: side B runs 'takt link echo', side A 'takt link bench' (cycle %.0f us, %.0f s)\n\n",
           (double)d->c->cycle_ns / 1000.0, d->c->time_s > 0 ? d->c->time_s : 10);
    fflush(NULL);
    pid_t echo = takt_netns_fork(&d->ns, TAKT_NETNS_B);
    if (echo < 0)
        return cli_error(d->c, "cannot start the echo side: %s", strerror(-echo));
    if (echo == 0)
        echo_side(d);
    int rc = takt_netns_run(&d->ns, TAKT_NETNS_A, bench_side, d);
    kill(echo, SIGTERM);
    while (waitpid(echo, NULL, 0) < 0 && errno == EINTR)
        ;
    return rc < 0 ? cli_error(d->c, "bench side: %s", strerror(-rc)) : rc;
}

static void *echo_thread(void *arg)
{
    struct demo *d = arg;
    struct echo_result r;
    link_echo_loop(d->echo_link, 0, 0, &d->echo_stop, &r);
    return NULL;
}

static int demo_mem(struct demo *d)
{
    struct takt_link *a, *b;
    int rc = takt_link_mem_pair(&a, &b, 64, NULL, NULL);
    if (rc)
        return cli_error(d->c, "mem link: %s", strerror(-rc));
    printf("takt demo: in-process mem link, echo in a thread, bench on the cycle thread "
           "(cycle %.0f us)\n\n", (double)d->c->cycle_ns / 1000.0);
    d->echo_link = b;
    pthread_t t;
    if ((rc = pthread_create(&t, NULL, echo_thread, d))) {
        takt_link_close(a);
        takt_link_close(b);
        return cli_error(d->c, "cannot start the echo thread: %s", strerror(rc));
    }
    struct bench_args args = bench_args(d->c, a);
    rc = link_bench(&args);
    d->echo_stop = 1;
    pthread_join(t, NULL);
    takt_link_close(a);
    takt_link_close(b);
    return rc ? cli_error(d->c, "bench: %s", rc == 1 ? "no echo answered" : takt_strerror(rc)) : 0;
}

static int run_demo(struct cli_ctx *c)
{
    static struct demo d;
    char why[256];
    d = (struct demo){ .c = c };
    if (cli_flag(c, "mem"))
        return demo_mem(&d);
    if (takt_netns_create(&d.ns, why, sizeof why)) {
        printf("takt demo: network namespaces unavailable (%s);\n"
               "takt demo: falling back to the in-process mem link\n", why);
        return demo_mem(&d);
    }
    int rc = demo_netns(&d);
    takt_netns_destroy(&d.ns);
    if (rc == DEMO_NO_LINK) {   /* e.g. a sandbox that allows namespaces but not raw sockets */
        printf("takt demo: the veth end could not be opened (above);\n"
               "takt demo: falling back to the in-process mem link\n");
        return demo_mem(&d);
    }
    return rc;
}

static const struct cli_opt demo_opts[] = {
    { "mem", 0, 0, NULL, "use the in-process mem link even where namespaces work" },
    { 0 }
};

const struct cli_cmd cli_cmds_demo[] = {
    { NULL, "demo", NULL, "link round-trip demo across a veth pair in namespaces (no root needed)",
      "Creates two network namespaces joined by a veth pair (inside an unprivileged\n"
      "user namespace when not root), runs 'takt link echo' in one and 'takt link\n"
      "bench' in the other for 10 s (-t), printing PerfMsmt statistics every second\n"
      "(--perf=S) and a summary. Without namespaces it says why and uses the mem link.",
      CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON, demo_opts, run_demo },
    { 0 }
};
