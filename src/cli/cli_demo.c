/* takt demo: the EtherCAT demo (cli_ecat_demo.c): a simulated 40-slave network and the
 * master with DC across a veth pair in namespaces, or over the in-process mem link
 * where namespaces cannot be made. */
#include "cli/cli.h"

int cli_ecat_demo(struct cli_ctx *c, bool force_mem, bool ring);

static int run_demo(struct cli_ctx *c) { return cli_ecat_demo(c, cli_flag(c, "mem"), cli_flag(c, "ring")); }

static const struct cli_opt demo_opts[] = {
    { "mem", 0, 0, NULL, "use the in-process mem link even where namespaces work" },
    { "ring", 0, 0, NULL, "cable redundancy: the slaves form a ring over two master ports "
      "(in-process mem links); its middle cable breaks at 40 % of the run and is mended at 70 %" },
    { 0 }
};

static const struct cli_common_help demo_help[] = {
    { CLI_TIME, "run for S seconds (default 10)" },
    { 0 }
};

const struct cli_cmd cli_cmds_demo[] = {
    { NULL, "demo", NULL, "EtherCAT demo: 40 simulated slaves in OP with DC, live statistics",
      "Creates two network namespaces joined by a veth pair (inside an unprivileged user\n"
      "namespace when not root), simulates a 40-slave EtherCAT network on one end and runs\n"
      "the master with distributed clocks on the other ('takt ecat run --dc'): 1000 us\n"
      "cycle (-c) for 10 s (-t), PerfMsmt lines every second (--perf=S), then a summary\n"
      "(cycles, frames lost, WKC errors, DC sync error, CPU per cycle). Without namespaces\n"
      "it says why and uses the in-process mem link. --ring shows cable redundancy: the\n"
      "slaves form a ring over the master's two ports (as 'takt ecat run --redundant IF2'),\n"
      "the middle cable breaks and is mended while the cycle runs; where and when is\n"
      "reported, and the summary counts the cycles lost (none).",
      CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON, demo_opts, run_demo, demo_help },
    { 0 }
};
