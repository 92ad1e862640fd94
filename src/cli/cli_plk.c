/* takt plk: run a POWERLINK MN (`plk mn`), one or many simulated CNs (`plk cn`), and
 * SDO transfers to a CN (`plk sdo`): the network configuration the verbs share and the
 * verb table (the CN session is in cli_plk_cn.c). Parsing and printing only; the work is
 * in plk/. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <takt/wire.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"
#include "cli/cli_ctl.h"
#include "cli/metrics.h"

int cli_plk_open_link(struct cli_ctx *c, struct takt_link **out)
{
    /* IPv4 and ARP too: the virtual Ethernet's frames in the async phase (SDO over UDP) */
    static const uint16_t types[3] = { TAKT_ETHERTYPE_PLK, 0x0800, 0x0806 };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 3;
    o.join_plk_multicast = true;
    o.timestamps = true;    /* PRes latency and SoC loss by arrival, not by wake-up */
    o.txtime = true;        /* chained PRes left to the kernel where a qdisc keeps launch times */
    /* an MN running on -i (takt plk mn) is not to be disturbed by a second one: plk sdo
     * went through it before coming here, the others are refused */
    struct ctl_client *cl;
    int rc = c->link || !strcmp(c->cmd->verb, "cn") ? 0 : cli_ctl_attach(c, "plk-mn", false, &cl);
    if (rc)
        return rc;
    rc = cli_open_link(c, &o, "the interface the POWERLINK network is on", out);
    /* an MN or CN keeps running and may see the cable plugged in: a warning; an SDO
     * transfer cannot reach anything */
    if (!rc && cli_check_carrier(c, !strcmp(c->cmd->verb, "sdo"))) {
        takt_link_close(*out);
        return 1;
    }
    if (!rc)   /* the raw socket exists: CAP_NET_RAW is not needed again */
        cli_drop_caps(c, cli_caps_for_rt(c));
    return rc;
}

/* --cdc FILE that is no CDC. openCONFIGURATOR writes the binary mnobd.cdc and its text
 * rendering mnobd.txt side by side: a .txt given with its .cdc beside it, or a .cdc
 * with a .txt beside it, gets the name of the file to use. */

/* Whether path holds a concise DCF this reader accepts. */
static bool is_cdc(const char *path)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    bool ok = !cli_plk_read_file(path, &buf, &len) && !takt_plk_cdc_check(buf, len, NULL, 0);
    free(buf);
    return ok;
}

static int cdc_not_cdc(struct cli_ctx *c, const char *path, const char *why)
{
    char other[4096];
    size_t n = strlen(path);
    bool txt = n > 4 && !strcmp(path + n - 4, ".txt");
    bool cdc = n > 4 && !strcmp(path + n - 4, ".cdc");
    if ((txt || cdc) && n < sizeof other) {
        memcpy(other, path, n - 4);
        snprintf(other + n - 4, sizeof other - (n - 4), "%s", txt ? ".cdc" : ".txt");
    } else {
        other[0] = '\0';
    }
    bool there = other[0] && access(other, R_OK) == 0;
    if (txt && there && is_cdc(other))
        return cli_error(c, "%s is %s; use --cdc %s, the binary concise DCF openCONFIGURATOR "
                         "writes beside this text rendering", path, why, other);
    if (txt)
        return cli_error(c, "%s is %s; --cdc expects the binary mnobd.cdc openCONFIGURATOR "
                         "writes beside its text rendering mnobd.txt", path, why);
    if (cdc && there)
        return cli_error(c, "%s is %s; %s beside it is openCONFIGURATOR's text rendering, "
                         "not for --cdc either: export the binary mnobd.cdc again", path, why, other);
    return cli_error(c, "%s is %s; --cdc expects the binary mnobd.cdc openCONFIGURATOR writes",
                     path, why);
}

int cli_plk_read_file(const char *path, uint8_t **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) { free(b); b = NULL; }
            b = nb;
        }
    }
    fclose(f);
    if (!b)
        return -ENOMEM;
    *buf = b;
    *len = n;
    return 0;
}

/* PResTimeFirst of the k-th chained CN (0-based): 10 µs after the PResMN, then 5 µs
 * apart. A 60-byte PRes takes 0.7 µs at 1 Gbit/s; the software CN host sends every
 * PRes that is due in one batch, so close slots cost little and 40 chained CNs fit in
 * 0.2 ms of the cycle. */
uint32_t cli_plk_chain_slot(unsigned k) { return 10000u + 5000u * k; }

/* --nodes and the demo use the timing values openCONFIGURATOR's Demo_3CN project writes
 * (0x1F92 200 µs, 0x1C09 40, 0x1C02/3 40, CN 0x1C0B/0x1C0D 80) rather than the
 * bare OD defaults (25 µs, 15): a software MN on a non-RT kernel wakes late by tens of
 * µs now and then, and two late PRes must not reset a CN. Loss-of-SoC tolerance 500 µs
 * as openPOWERLINK's demo CN application writes it. */
void cli_plk_soft_timing(struct takt_plk_net *nc)
{
    struct takt_plk_net_info ni;
    takt_plk_net_get(nc, &ni);
    ni.cycle_exceed_threshold = 40;
    ni.loss_soc_tolerance_ns = 500000;
    takt_plk_net_set(nc, &ni);
    for (unsigned i = 0; i < ni.n_nodes; i++) {
        struct takt_plk_net_node n;
        takt_plk_net_node(nc, ni.nodes[i], &n);
        n.pres_timeout_ns = 200000;
        n.loss_pres_threshold = 40;
        n.cn_loss_soc_threshold = n.cn_loss_preq_threshold = 80;
        takt_plk_net_set_node(nc, &n);
    }
}

int cli_plk_default_net(struct cli_ctx *c, unsigned n, uint32_t cycle_us, uint32_t boot_wait_us,
                        bool chained, struct takt_plk_net **out)
{
    char err[256];
    struct takt_plk_net *nc;
    *out = NULL;
    if (takt_plk_net_create(&nc))
        return cli_error(c, "out of memory");
    struct takt_plk_net_info ni;
    takt_plk_net_get(nc, &ni);
    ni.cycle_us = cycle_us;
    ni.boot_wait_us = boot_wait_us;
    takt_plk_net_set(nc, &ni);
    if (takt_plk_net_add_nodes(nc, 1, n, err, sizeof err)) {
        takt_plk_net_free(nc);
        return cli_error(c, "%s", err);
    }
    cli_plk_soft_timing(nc);
    for (unsigned id = 1; chained && id <= n; id++) {
        struct takt_plk_net_node nn;
        takt_plk_net_node(nc, id, &nn);
        nn.chained = true;
        nn.pres_time_first_ns = cli_plk_chain_slot(id - 1);
        takt_plk_net_set_node(nc, &nn);
    }
    *out = nc;
    return 0;
}

/* The configuration --config, --cdc or --nodes gives. */
static int net_source(struct cli_ctx *c, struct takt_plk_net *nc)
{
    char err[320];
    const char *cfgf = cli_get(c, "config"), *cdcf = cli_get(c, "cdc"), *nodes = cli_get(c, "nodes");
    if ((cfgf != NULL) + (cdcf != NULL) + (nodes != NULL) != 1)
        return cli_usage_error(c, "exactly one of --config FILE, --cdc mnobd.cdc or --nodes LIST is expected");
    if (cfgf) {
        if (takt_plk_net_load(nc, cfgf, err, sizeof err))   /* err begins with the path */
            return cli_error(c, "%s", err);
    } else if (cdcf) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = cli_plk_read_file(cdcf, &buf, &len);
        if (r)
            return cli_error(c, "%s: %s", cdcf, strerror(-r));
        r = takt_plk_net_load_cdc(nc, buf, len, err, sizeof err);
        free(buf);
        if (r == -EBADMSG)
            return cdc_not_cdc(c, cdcf, err);
        if (r)
            return cli_error(c, "%s: %s", cdcf, err);
    } else {
        bool in[CLI_PLK_NODE_SLOTS];
        if (cli_plk_nodes(c, "--nodes", nodes, in, NULL, NULL) < 0)
            return 2;
        struct takt_plk_net_info ni;
        takt_plk_net_get(nc, &ni);
        ni.cycle_us = (uint32_t)(c->cycle_ns / 1000);
        takt_plk_net_set(nc, &ni);
        for (unsigned id = 1; id <= TAKT_PLK_MAX_NODES; id++)
            if (in[id] && takt_plk_net_add_nodes(nc, id, id, err, sizeof err))
                return cli_error(c, "%s", err);
        cli_plk_soft_timing(nc);
    }
    return 0;
}

/* The options that change every node of the configuration (or those of a list). */
static int net_options(struct cli_ctx *c, struct takt_plk_net *nc)
{
    struct takt_plk_net_info ni;
    takt_plk_net_get(nc, &ni);
    const char *chain = cli_get(c, "chain"), *mand = cli_get(c, "mandatory");
    bool chained[CLI_PLK_NODE_SLOTS] = { false }, mandatory[CLI_PLK_NODE_SLOTS] = { false };
    if (chain && cli_plk_nodes(c, "--chain", chain, chained, NULL, NULL) < 0)
        return 2;
    if (mand && cli_plk_nodes(c, "--mandatory", mand, mandatory, NULL, NULL) < 0)
        return 2;
    long us = 0, thr = 0, ms = 0;
    const char *to = cli_get(c, "pres-timeout"), *th = cli_get(c, "loss-threshold"),
               *wait = cli_get(c, "boot-wait");
    if (to && cli_parse_long(c, "--pres-timeout (us)", to, 1, 1000000, &us))
        return 2;
    /* one value for every loss-of-frame threshold the MN keeps or downloads: a host
     * that stalls for tens of ms (a shared VM) needs more than openCONFIGURATOR's */
    if (th && cli_parse_long(c, "--loss-threshold (0 disables)", th, 0, 1000000, &thr))
        return 2;
    if (wait && cli_parse_long(c, "--boot-wait (ms)", wait, 0, 60000, &ms))
        return 2;
    unsigned k = 0;
    for (unsigned i = 0; i < ni.n_nodes; i++) {
        struct takt_plk_net_node n;
        takt_plk_net_node(nc, ni.nodes[i], &n);
        if (chained[n.id]) {
            n.chained = true;   /* the PResMN comes with it */
            n.pres_time_first_ns = cli_plk_chain_slot(k++);
        }
        if (mandatory[n.id])
            n.mandatory = true;
        if (to)
            n.pres_timeout_ns = (uint32_t)us * 1000;
        if (th)
            n.loss_pres_threshold = n.cn_loss_soc_threshold = n.cn_loss_preq_threshold = (uint32_t)thr;
        takt_plk_net_set_node(nc, &n);
    }
    takt_plk_net_get(nc, &ni);
    if (th)
        ni.cycle_exceed_threshold = (uint32_t)thr;
    if (wait)
        ni.boot_wait_us = (uint32_t)ms * 1000;
    takt_plk_net_set(nc, &ni);
    return 0;
}

/* The network configuration from --config, --cdc or --nodes (plus --chain/--mandatory). */
int cli_plk_net_config(struct cli_ctx *c, struct takt_plk_net **out)
{
    char err[320];
    struct takt_plk_net *nc;
    *out = NULL;
    if (takt_plk_net_create(&nc))
        return cli_error(c, "out of memory");
    int rc = net_source(c, nc);
    if (!rc)
        rc = net_options(c, nc);
    if (!rc && takt_plk_net_check(nc, err, sizeof err))
        rc = cli_error(c, "%s", err);
    if (rc)
        takt_plk_net_free(nc);
    else
        *out = nc;
    return rc;
}

static int run_mn(struct cli_ctx *c)
{
    struct takt_plk_net *nc;
    int rc = cli_plk_net_config(c, &nc);
    struct takt_link *link = NULL;
    struct cli_plk_veth veth = { .fd = -1 };
    struct takt_plk_net_info ni;
    if (!rc)
        takt_plk_net_get(nc, &ni);
    if (!rc)   /* before the link: its opening drops CAP_NET_ADMIN */
        rc = cli_plk_veth_opts(c, &veth, ni.async_mtu);
    if (!rc)
        rc = cli_plk_open_link(c, &link);
    if (!rc)
        rc = cli_plk_mn_session(c, nc, link, veth.fd >= 0 ? &veth : NULL);
    cli_plk_veth_close(&veth);
    if (link)
        takt_link_close(link);
    takt_plk_net_free(nc);
    return rc;
}

static const struct cli_opt mn_opts[] = {
    { "config", 0, 1, "FILE", "network configuration in takt's text format (docs/powerlink.md)" },
    { "cdc", 0, 1, "FILE", "openPOWERLINK concise device configuration (mnobd.cdc)" },
    { "nodes", 'n', 1, "LIST", "CNs with default settings (cycle from -c), IDs and ranges: 1,32,110 or 1-3,32" },
    { "chain", 0, 1, "LIST", "use PollResponse Chaining for these CNs" },
    { "mandatory", 0, 1, "LIST", "these CNs are mandatory" },
    { "pres-timeout", 0, 1, "US", "PRes timeout for every CN (0x1F92), microseconds" },
    { "boot-wait", 0, 1, "MS", "listen for another MN this long first (0x1F89/1, default 1000)" },
    { "loss-threshold", 0, 1, "N", "every loss-of-frame threshold (0x1C02/3, 0x1C09/n, CN 0x1C0B/3, 0x1C0D/3; +8 a loss, -1 a good cycle; 0 disables)" },
    { "measure", 0, 1, "S", "once every CN is Operational, measure S seconds and stop; statistics cover that window" },
    { "thread-cpu", 0, 0, NULL, "also measure the MN thread's CPU per cycle (the CPU per Cycle line; one system call a cycle)" },
    CLI_METRICS_OPTS,
    CLI_CTL_SERVER_OPTS,
    { "veth", 0, 2, "NAME", "virtual Ethernet: a TAP device (default takt-plk0) whose IP frames go in the MN's async slot; needs CAP_NET_ADMIN" },
    { "ip", 0, 1, "ADDR/LEN", "the virtual Ethernet's address (default 192.168.100.240/24)" },
    { 0 },
};

static const struct cli_opt cn_opts[] = {
    { "node", 0, 1, "N", "one CN with node ID N" },
    { "nodes", 'n', 1, "LIST", "simulated CNs in this process, IDs and ranges: 1,32,110 or 1-3,32" },
    { "drop", 0, 1, "PERMILLE", "fault: PRes not sent" },
    { "late", 0, 1, "PERMILLE", "fault: PRes sent late (see --late-us)" },
    { "late-us", 0, 1, "US", "lateness of a late PRes (default 200)" },
    { "malformed", 0, 1, "PERMILLE", "fault: PRes with an invalid Size field" },
    { "answer-delay", 0, 1, "US[-US]", "fault: every PRes leaves this long (random within MIN-MAX) after its PReq arrived" },
    { "vanish", 0, 1, "N@S[+D]", "fault: CN N goes silent S seconds after it is first Operational, for D seconds (0 = for good)" },
    { "wrong-id", 0, 1, "N", "fault: CN N answers IdentRequest with a wrong vendor ID" },
    { "soc-lead", 0, 1, "US", "poll for each SoC from US before it is due until it came (or US after), so the first PReq is answered without a wake-up's delay, as a CN in hardware; costs up to 2 x US of CPU a cycle (default 0, off)" },
    { "nmt-request", 0, 1, "CMD@T[+S]", "the first CN asks the MN for NMT command CMD for node T, S s (default 1) after it is Operational" },
    { "veth", 0, 2, "NAME", "virtual Ethernet of one CN (--node N): a TAP device (default takt-plkN) with the CN's MAC and 192.168.100.N/24 whose frames go in the CN's async slot; needs CAP_NET_ADMIN" },
    CLI_METRICS_OPTS,
    CLI_CTL_SERVER_OPTS,
    { 0 },
};

extern const struct cli_opt cli_plk_sdo_opts[];
extern const struct cli_opt cli_plk_nodes_opts[];
int cli_plk_nodes_run(struct cli_ctx *c);
int cli_plk_cn_run(struct cli_ctx *c);
int cli_plk_sdo_run(struct cli_ctx *c);
int cli_plk_demo_run(struct cli_ctx *c);
int cli_plk_bench_run(struct cli_ctx *c);

static const struct cli_opt bench_opts[] = {
    { "cns", 0, 1, "N,N,..", "CN counts (default 3,10,20,40)" },
    { "cycles", 0, 1, "US,US,..", "cycle times (default 250,500,1000,2000,5000,10000)" },
    { "no-chained", 0, 0, NULL, "skip the chained row for the largest CN count" },
    { 0 },
};

static const struct cli_opt demo_opts[] = {
    { "mem", 0, 0, NULL, "use the in-process mem link even where namespaces work" },
    { 0 },
};

static const struct cli_common_help mn_help[] = {
    { CLI_TIME, "run for S seconds (default: until Ctrl-C; with --measure, its S + 60)" },
    { 0 }
};
static const struct cli_common_help sdo_help[] = {
    { CLI_TIME, "give up after S seconds (default 20)" },
    { 0 }
};
static const struct cli_common_help bench_help[] = {
    { CLI_TIME, "seconds of steady state measured per cell (default 5)" },
    { 0 }
};
static const struct cli_common_help demo_help[] = {
    { CLI_TIME, "run for S seconds (default 10)" },
    { 0 }
};

const struct cli_cmd cli_cmds_plk[] = {
    { "plk", "mn", NULL, "run a POWERLINK managing node",
      "Boots every configured CN (IdentRequest, StatusRequest, SDO configuration,\n"
      "EnableReadyToOperate, StartNode) and runs the isochronous cycle on -i IF. Prints\n"
      "PerfMsmt lines (SoC wake-up deviation, SoC period, jobs, PRes latency per node; the\n"
      "MN thread's CPU per cycle with --thread-cpu) every --perf seconds and at the end; the\n"
      "summary's CPU per cycle is the process's over the run. Exit status 3 if not every CN\n"
      "reached Operational. With --config or --cdc the cycle comes from the file.\n"
      "--veth: the host gets POWERLINK's virtual Ethernet, a TAP device whose frames go\n"
      "in the MN's async slot (one per cycle); CNs are at 192.168.100.N (ping, SDO over\n"
      "UDP port 3819). arp_ignore is set to 1 on IF so the host answers no ARP there.\n"
      "While it runs it serves a control socket (--control, docs/control.md): takt plk\n"
      "sdo on -i goes through this MN instead of starting one of its own.",
      CLI_IFACE | CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON | CLI_PCAP, mn_opts, run_mn, mn_help },
    { "plk", "cn", NULL, "run POWERLINK CNs (one, or a simulated network)",
      "Each CN is a bus controller with a 4-channel digital input (changing every 100 ms)\n"
      "and a 4-channel digital output, answering as DS 301 asks. Faults can be injected.\n"
      "Only the current request is answered: a PReq or SoA invitation that queued while\n"
      "the CN could not run (its cycle ended, or a later SoC came) is dropped and\n"
      "counted (stale_dropped).\n"
      "Node N answers ARP and ping for 192.168.100.N and SDO over UDP port 3819, its IP\n"
      "frames sent when the MN invites it (SoA UnspecifiedInvite).\n"
      "--veth (with --node N): the host gets the CN's virtual Ethernet, a TAP device with\n"
      "the CN's MAC, 192.168.100.N/24 and MTU 300 (the minimum async MTU). Its frames wait\n"
      "for the CN's async slot; the IPv4 and ARP frames for the CN go to it, so the host's\n"
      "IP stack answers ARP and ping and serves TCP. SDO over UDP port 3819 stays with the\n"
      "CN. IPv6 is off on the TAP; arp_ignore and rp_filter are set to 1 on IF so the\n"
      "host takes no IP frame from IF itself.\n"
      "Time-triggered PRes (chaining) leave at their launch time: held by the kernel\n"
      "(SO_TXTIME) where IF has an etf, taprio or fq qdisc, else sent from the receive loop.\n"
      "A control socket serves the CNs' states and counters (takt plk nodes --cn; docs/control.md).",
      CLI_IFACE | CLI_RT | CLI_TIME | CLI_JSON | CLI_PCAP, cn_opts, cli_plk_cn_run, NULL },
    { "plk", "sdo", "read|write NODE INDEX SUB [VALUE]", "read or write an object of a CN over SDO",
      "Where takt plk mn runs on -i IF (or --master SOCKET), the transfer goes through its\n"
      "control socket and that MN's SDO client (docs/control.md). Else starts an MN on -i\n"
      "IF for the CN (or --nodes), waits until the CN is configured, then runs the\n"
      "transfer. VALUE: an integer, written with the object's size: with\n"
      "--cdc the CDC's entry for the node, else the data type in the XDD/XDC next to the\n"
      "CDC (NODE.xdc, or the only one there), else read from the CN first; --size\n"
      "overrides. Or a string with --string. A CN that answers no\n"
      "IdentRequest (3 over 3 s) ends the command with exit 1 after --boot-wait + 3 s.\n"
      "--json: node, object, size, the bytes in wire order and the value; a refusal gives\n"
      "its abort code and meaning there too (exit 1).\n"
      "--udp: the transfer goes over UDP/IP from 192.168.100.240 to 192.168.100.NODE port\n"
      "3819 in the async phase (EPSG DS 301 SDO via UDP/IP) instead of ASnd.",
      CLI_IFACE | CLI_CYCLE | CLI_TIME | CLI_PCAP | CLI_JSON, cli_plk_sdo_opts, cli_plk_sdo_run, sdo_help },
    { "plk", "nodes", NULL, "the CNs of a running MN: NMT state, PRes received and lost",
      "Asks the takt plk mn running on -i IF (or --master SOCKET) through its control\n"
      "socket (docs/control.md); without one running there it says so (exit 1).\n"
      "--json: the MN's state and cycles, and per CN node, state, pres_ok, pres_lost,\n"
      "unexpected. --cn asks a running takt plk cn instead: each simulated CN's NMT state\n"
      "and counters (PReq, PRes, loss of SoC/PReq, cycle errors, SDO).",
      CLI_IFACE | CLI_JSON, cli_plk_nodes_opts, cli_plk_nodes_run, NULL },
    { "plk", "bench", NULL, "MN CPU load, SoC deviation and losses for CN counts x cycle times",
      "For each CN count and cycle time: simulated CNs in one namespace, the MN in the\n"
      "other (veth), boot, then measure -t seconds (default 5) of steady state: MN CPU\n"
      "load in % (thread CPU time per cycle / cycle), SoC wake-up deviation min/max, PRes\n"
      "lost. N/A where more than 1 % of the cycles overran. Then the largest CN count with\n"
      "PollResponse Chaining. -a/-p apply to the MN.",
      CLI_CPU | CLI_PRIO | CLI_TIME | CLI_JSON, bench_opts, cli_plk_bench_run, bench_help },
    { "demo", "plk", NULL, "POWERLINK demo: MN and 10 simulated CNs across a veth pair (no root needed)",
      "Creates two network namespaces joined by a veth pair (inside an unprivileged user\n"
      "namespace when not root), runs 10 simulated CNs in one and the MN in the other at\n"
      "-c (default 1000 us) for -t (default 10 s), printing PerfMsmt statistics every\n"
      "--perf seconds (default 1). Without namespaces it says why and uses the mem link.",
      CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON | CLI_PCAP, demo_opts, cli_plk_demo_run, demo_help },
    { 0 },
};
