/* takt demo plk: an MN and 10 simulated CNs in a namespace pair (veth) at 1000 µs by
 * default, with live PerfMsmt statistics; falls back to the in-process mem link (CNs in
 * a thread) when namespaces cannot be made, saying why. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/netns.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"

#define DEMO_CNS 10

struct plk_demo {
    struct cli_ctx *c;
    struct takt_netns ns;
    struct takt_link *cn_link;
    volatile int cn_stop;
};

static int open_side(struct cli_ctx *c, const char *ifname, struct takt_link **l)
{
    const char *saved = c->iface;
    c->iface = ifname;
    int rc = cli_plk_open_link(c, l);
    c->iface = saved;
    return rc;
}

static int mn_side(struct plk_demo *d, struct takt_link *l)
{
    struct takt_plk_net *nc;
    int rc = cli_plk_default_net(d->c, DEMO_CNS, (uint32_t)(d->c->cycle_ns / 1000), 200000, false, &nc);
    if (rc)
        return rc;
    rc = cli_plk_mn_session(d->c, nc, l, NULL);   /* checks it first */
    takt_plk_net_free(nc);
    return rc;
}

/* Side B (child): the simulated CNs until SIGTERM. */
static void cn_side(struct plk_demo *d)
{
    struct takt_link *l;
    if (open_side(d->c, d->ns.ifname[1], &l))
        _exit(1);
    struct cli_ctx c = *d->c;
    c.json = NULL;
    c.time_s = 0;
    c.cpu = -1;
    int rc = cli_plk_cn_session(&c, 1, DEMO_CNS, NULL, l, &cli_interrupted);
    takt_link_close(l);
    _exit(rc);
}

static int mn_run(void *arg)
{
    struct plk_demo *d = arg;
    struct takt_link *l;
    int rc = open_side(d->c, d->ns.ifname[0], &l);
    if (rc)
        return rc;
    rc = mn_side(d, l);
    takt_link_close(l);
    return rc;
}

static int demo_netns(struct plk_demo *d)
{
    printf("takt demo plk: %s <-> %s, a veth pair between two network namespaces%s\n"
           "takt demo plk: side B runs %d simulated CNs, side A the MN (cycle %.0f us, %.0f s)\n\n",
           d->ns.ifname[0], d->ns.ifname[1], d->ns.userns ? " in an unprivileged user namespace" : "",
           DEMO_CNS, (double)d->c->cycle_ns / 1000.0, d->c->time_s);
    fflush(NULL);
    pid_t cn = takt_netns_fork(&d->ns, TAKT_NETNS_B);
    if (cn < 0)
        return cli_error(d->c, "cannot start the CN side: %s", strerror(-cn));
    if (cn == 0)
        cn_side(d);
    int rc = takt_netns_run(&d->ns, TAKT_NETNS_A, mn_run, d);
    kill(cn, SIGTERM);
    while (waitpid(cn, NULL, 0) < 0 && errno == EINTR)
        ;
    return rc < 0 ? cli_error(d->c, "MN side: %s", strerror(-rc)) : rc;
}

static void *cn_thread(void *arg)
{
    struct plk_demo *d = arg;
    struct cli_ctx c = *d->c;
    c.json = NULL;
    c.time_s = 0;
    c.cpu = -1;
    cli_plk_cn_session(&c, 1, DEMO_CNS, NULL, d->cn_link, &d->cn_stop);
    return NULL;
}

static int demo_mem(struct plk_demo *d)
{
    struct takt_link *a, *b;
    int rc = takt_link_mem_pair(&a, &b, 256, NULL, NULL);
    if (rc)
        return cli_error(d->c, "mem link: %s", strerror(-rc));
    /* distinct MACs so the MN's unicast PReq has a destination */
    b->mac[5] ^= 1;
    printf("takt demo plk: in-process mem link, %d CNs in a thread, MN on the cycle thread "
           "(cycle %.0f us)\n\n", DEMO_CNS, (double)d->c->cycle_ns / 1000.0);
    d->cn_link = b;
    pthread_t t;
    if ((rc = pthread_create(&t, NULL, cn_thread, d))) {
        takt_link_close(a);
        takt_link_close(b);
        return cli_error(d->c, "cannot start the CN thread: %s", strerror(rc));
    }
    rc = mn_side(d, a);
    d->cn_stop = 1;
    pthread_join(t, NULL);
    takt_link_close(a);
    takt_link_close(b);
    return rc;
}

int cli_plk_demo_run(struct cli_ctx *c)
{
    static struct plk_demo d;
    char why[256];
    d = (struct plk_demo){ .c = c };
    if (c->time_s <= 0)
        c->time_s = 10;
    if (c->perf_s <= 0)
        c->perf_s = 1;
    if (cli_flag(c, "mem"))
        return demo_mem(&d);
    if (takt_netns_create(&d.ns, why, sizeof why)) {
        printf("takt demo plk: network namespaces unavailable (%s);\n"
               "takt demo plk: falling back to the in-process mem link\n", why);
        return demo_mem(&d);
    }
    int rc = demo_netns(&d);
    takt_netns_destroy(&d.ns);
    return rc;
}
