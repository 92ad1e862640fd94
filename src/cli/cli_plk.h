/* Helpers shared by the takt plk commands and `takt demo plk`. */
#ifndef TAKT_CLI_PLK_H
#define TAKT_CLI_PLK_H

#include <pthread.h>
#include <takt/link.h>
#include <takt/plk.h>
#include <takt/sim.h>
#include "cli/cli.h"

int cli_plk_open_link(struct cli_ctx *c, struct takt_link **out);
/* Slots of a node set: in[id] for CN node IDs 1..239. */
#define CLI_PLK_NODE_SLOTS 256
/* s as CN node IDs and ranges ("1,32,110", "1-3,32") into in[]; *first and *last (may be
 * NULL) the lowest and highest. The number of nodes, or -1 after a usage error naming
 * opt. */
int cli_plk_nodes(struct cli_ctx *c, const char *opt, const char *s, bool in[CLI_PLK_NODE_SLOTS],
                  unsigned *first, unsigned *last);
uint32_t cli_plk_chain_slot(unsigned k);
void cli_plk_soft_timing(struct takt_plk_net *nc);
/* CNs 1..n with the soft timing, cycle cycle_us, listening boot_wait_us for another MN
 * first; chained: every CN with PollResponse Chaining (the demo and takt plk bench).
 * 0 with *out (takt_plk_net_free it), or the exit status after a message. */
int cli_plk_default_net(struct cli_ctx *c, unsigned n, uint32_t cycle_us, uint32_t boot_wait_us,
                        bool chained, struct takt_plk_net **out);
/* The network configuration from --config, --cdc or --nodes and the options that change
 * it, checked: 0 with *out (takt_plk_net_free it), or the exit status after a message. */
int cli_plk_net_config(struct cli_ctx *c, struct takt_plk_net **out);
/* The whole file at path (malloc'd); 0 or -errno. */
int cli_plk_read_file(const char *path, uint8_t **buf, size_t *len);
/* takt plk sdo write: the byte size of node's object idx/sub as the configuration gives
 * it, before the CN is asked (cli_plk_sdo_size.c): the CDC's entry for the node, else the
 * data type in the XDD/XDC next to the CDC. 0 with *size and *from (the file it came
 * from) set; 1 when neither says; -1 after an error message naming the file. */
int cli_plk_sdo_config_size(struct cli_ctx *c, const char *cdc, unsigned node, uint16_t idx,
                            uint8_t sub, size_t *size, char *from, size_t fromlen);
/* Run an MN on link until -t / Ctrl-C with statistics; 0 if all CNs Operational, 3 if
 * not. */
struct cli_plk_veth;
/* veth: a virtual Ethernet opened with cli_plk_veth_open, or NULL; closed at the end. */
int cli_plk_mn_session(struct cli_ctx *c, const struct takt_plk_net *nc, struct takt_link *link,
                       struct cli_plk_veth *veth);
/* takt plk mn --veth (cli_plk_veth.c): the virtual Ethernet's TAP device on the host,
 * IP ip (A.B.C.D[/LEN]), the POWERLINK interface's MAC, MTU the async MTU; a thread
 * moves frames between it and a started MN. */
struct takt_plk_mn;
/* The control socket of takt plk mn (cli_plk_ctl.c): started once the MN runs (its SDO
 * client needs the cycle), stopped before the MN is. */
struct cli_plk_ctl;
void cli_plk_ctl_start(struct cli_ctx *c, struct takt_plk_mn *mn, struct cli_plk_ctl **out);
void cli_plk_ctl_stop(struct cli_plk_ctl *x);
/* takt plk cn's control socket (cli_plk_cn_ctl.c): started before the network runs,
 * fed by the publish hook in the network's thread (never waits), stopped after. */
struct cli_plk_cn_ctl;
void cli_plk_cn_ctl_start(struct cli_ctx *c, const struct takt_sim_plk *s, struct cli_plk_cn_ctl **out);
void cli_plk_cn_ctl_publish(struct cli_plk_cn_ctl *x, const struct takt_sim_plk *s);
void cli_plk_cn_ctl_stop(struct cli_plk_cn_ctl *x);
struct cli_plk_veth {
    int fd;
    char name[16], iface[16];
    uint8_t mac[6];
    struct takt_plk_mn *mn;
    /* the node the TAP's frames go to and come from: the MN's (cli_plk_veth_start) or
     * a CN's (cli_plk_cn_veth_start) hand-over functions */
    int (*send)(void *node, const void *frame, size_t len);
    int (*recv)(void *node, void *buf, size_t cap);
    void *node;
    pthread_t th;
    bool running;
    int stop;
    uint64_t to_net, to_host, dropped;
};
/* mac: the TAP's MAC (NULL: the one the kernel gave it) */
int  cli_plk_veth_open(struct cli_ctx *c, struct cli_plk_veth *v, const char *name, const char *ip,
                       const char *iface, unsigned mtu, const uint8_t *mac);
/* --veth[=NAME] and --ip of takt plk mn: opens the TAP when asked (0 also when not:
 * v->fd stays -1), or the exit status after a message. */
int  cli_plk_veth_opts(struct cli_ctx *c, struct cli_plk_veth *v, unsigned mtu);
int  cli_plk_veth_start(struct cli_ctx *c, struct cli_plk_veth *v, struct takt_plk_mn *mn);
void cli_plk_veth_close(struct cli_plk_veth *v);
/* takt plk cn --veth[=NAME] (one CN, node): a TAP device takt-plk<node> with the MAC of
 * -i IF and 192.168.100.<node>/24, MTU the minimum async MTU; opened before the link
 * (0 also when not asked: v->fd stays -1), or the exit status after a message. Started
 * on CN 0 of s once the link is open. */
int  cli_plk_cn_veth_opts(struct cli_ctx *c, struct cli_plk_veth *v, unsigned node);
int  cli_plk_cn_veth_start(struct cli_ctx *c, struct cli_plk_veth *v, struct takt_sim_plk *s);
/* The options of `plk cn` that need no link: node range a..b, the faults, the NMT
 * request (command 0: none). 0, or the exit status after a message on stderr. */
int cli_plk_cn_options(struct cli_ctx *c, unsigned *a, unsigned *b, struct takt_sim_plk_faults *f,
                       unsigned *nmt_cmd, unsigned *nmt_target, double *nmt_after_s);
/* Serve simulated CNs a..b on link until -t, Ctrl-C or *stop; f may be NULL. */
int cli_plk_cn_session(struct cli_ctx *c, unsigned a, unsigned b, const struct takt_sim_plk_faults *f,
                       struct takt_link *link, const volatile int *stop);

#endif
