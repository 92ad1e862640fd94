/* The EtherCAT demo behind `takt demo`: a simulated 40-slave network on one end of a
 * veth pair between two network namespaces (unprivileged where possible), `takt ecat
 * run` with DC on the other end; the in-process mem link where namespaces cannot be
 * made; with --ring the network is a redundant ring whose cable breaks and is mended
 * while it runs (in process: a ring needs a second pair of ports). Live PerfMsmt lines,
 * then the summary of cli_ecat_run_link(). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/netns.h>
#include <takt/sim.h>
#include "cli/cli_ecat.h"

struct demo {
    struct cli_ctx *c;
    struct takt_netns ns;
    struct takt_sim *sim;
};

/* The simulator's 40-slave preset (EK1100 + EL1004/EL2004 alternating, like the
 * classic evaluation), with clocks that drift so that DC has work to do. */
static int make_sim(struct takt_sim **out, char *err, size_t errlen)
{
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    o.drift_ppm = 20;
    return takt_sim_create_preset("paper-40", &o, out, err, errlen);
}

static struct takt_link *open_ecat(const char *ifname, char *err, size_t errlen)
{
    static const uint16_t types[] = { TAKT_ETHERTYPE_ECAT };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    struct takt_link *l = NULL;
    takt_link_open(ifname, &o, &l, err, errlen);
    return l;
}

static volatile int sim_stop;
static void on_term(int sig) { (void)sig; sim_stop = 1; }

/* Side B: the simulated network answers until SIGTERM. */
static void sim_side(struct demo *d)
{
    char err[256];
    signal(SIGTERM, on_term);
    struct takt_link *l = open_ecat(d->ns.ifname[1], err, sizeof err);
    if (!l) {
        fprintf(stderr, "takt demo: simulator side: %s\n", err);
        _exit(1);
    }
    int rc = takt_sim_serve(d->sim, l, 0, &sim_stop);
    takt_link_close(l);
    _exit(rc < 0 ? 1 : 0);
}

static int master_side(void *arg)
{
    struct demo *d = arg;
    char err[256];
    struct takt_link *l = open_ecat(d->ns.ifname[0], err, sizeof err);
    if (!l) {
        fprintf(stderr, "takt demo: master side: %s\n", err);
        return 1;
    }
    struct ecat_run_args a = { .link = l, .dc = true, .label = "takt demo" };
    int rc = cli_ecat_run_link(d->c, &a);
    takt_link_close(l);
    return rc;
}

static int demo_netns(struct demo *d)
{
    printf("takt demo: %s <-> %s, a veth pair between two network namespaces%s\n",
           d->ns.ifname[0], d->ns.ifname[1], d->ns.userns ? " (unprivileged user namespace)" : "");
    printf("takt demo: side B simulates %u EtherCAT slaves, side A runs the master with DC "
           "(cycle %.0f us, %.0f s)\n\n", takt_sim_slave_count(d->sim), d->c->cycle_ns / 1e3,
           d->c->time_s);
    fflush(NULL);
    pid_t sim = takt_netns_fork(&d->ns, TAKT_NETNS_B);
    if (sim < 0)
        return cli_error(d->c, "cannot start the simulator side: %s", strerror(-sim));
    if (sim == 0)
        sim_side(d);
    usleep(100000);              /* let the simulator open its socket */
    int rc = takt_netns_run(&d->ns, TAKT_NETNS_A, master_side, d);
    kill(sim, SIGTERM);
    while (waitpid(sim, NULL, 0) < 0 && errno == EINTR)
        ;
    return rc < 0 ? cli_error(d->c, "master side: %s", strerror(-rc)) : rc;
}

static int demo_mem(struct demo *d)
{
    struct takt_link *a, *b;
    int rc = takt_link_mem_pair(&a, &b, 256, NULL, NULL);
    if (rc)
        return cli_error(d->c, "mem link: %s", strerror(-rc));
    takt_sim_attach_mem(d->sim, b);
    printf("takt demo: in-process mem link, %u simulated slaves answering at once, master with "
           "DC (cycle %.0f us, %.0f s)\n\n", takt_sim_slave_count(d->sim), d->c->cycle_ns / 1e3,
           d->c->time_s);
    struct ecat_run_args args = { .link = a, .dc = true, .label = "takt demo" };
    rc = cli_ecat_run_link(d->c, &args);
    takt_link_close(a);
    takt_link_close(b);
    return rc;
}

/* --ring: the 40 slaves closed into a ring over two mem pairs (the master's second port
 * on the last slave's port 1), broken at its middle at 40 % of the run and mended at
 * 70 %: the master reports where and when, and the summary shows no cycle lost. */
static int demo_ring(struct demo *d)
{
    struct takt_link *a[2], *b[2];
    char err[256];
    for (int p = 0; p < 2; p++) {
        int rc = takt_link_mem_pair(&a[p], &b[p], 256, NULL, NULL);
        if (rc) {
            if (p)
                takt_link_close(a[0]), takt_link_close(b[0]);
            return cli_error(d->c, "mem link: %s", strerror(-rc));
        }
    }
    a[1]->mac[5] ^= 0x55;           /* two ports, two MACs */
    unsigned n = takt_sim_slave_count(d->sim), k = n / 2;
    double t_break = d->c->time_s * 0.4, t_heal = d->c->time_s * 0.7;
    char spec[96];
    snprintf(spec, sizeof spec, "break=%u@%.3fs;heal=%u@%.3fs", k, t_break, k, t_heal);
    int rc = takt_sim_set_ring(d->sim, err, sizeof err);
    if (!rc)
        rc = takt_sim_fault(d->sim, spec, err, sizeof err);
    if (!rc) {
        takt_sim_attach_mem_ring(d->sim, b[0], b[1]);
        printf("takt demo: in-process mem links, %u simulated slaves in a ring over the master's "
               "two ports, DC (cycle %.0f us, %.0f s); the cable into slave %u breaks %.1f s and "
               "is mended %.1f s after the first frame\n\n", n, d->c->cycle_ns / 1e3,
               d->c->time_s, k, t_break, t_heal);
        struct ecat_run_args args = { .link = a[0], .redundant = a[1], .dc = true, .label = "takt demo" };
        rc = cli_ecat_run_link(d->c, &args);
    } else {
        rc = cli_error(d->c, "ring: %s", err);
    }
    for (int p = 0; p < 2; p++) {
        takt_link_close(a[p]);
        takt_link_close(b[p]);
    }
    return rc;
}

int cli_ecat_demo(struct cli_ctx *c, bool force_mem, bool ring);
int cli_ecat_demo(struct cli_ctx *c, bool force_mem, bool ring)
{
    static struct demo d;
    char why[256];
    d = (struct demo){ .c = c };
    if (c->time_s <= 0)
        c->time_s = 10;
    if (c->perf_s <= 0)
        c->perf_s = 1;
    if (make_sim(&d.sim, why, sizeof why))
        return cli_error(c, "%s", why);
    int rc;
    if (ring) {
        rc = demo_ring(&d);
    } else if (force_mem) {
        rc = demo_mem(&d);
    } else if (takt_netns_create(&d.ns, why, sizeof why)) {
        printf("takt demo: network namespaces unavailable (%s);\n"
               "takt demo: falling back to the in-process mem link\n", why);
        rc = demo_mem(&d);
    } else {
        rc = demo_netns(&d);
        takt_netns_destroy(&d.ns);
    }
    takt_sim_destroy(d.sim);
    return rc;
}
