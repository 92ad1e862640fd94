/* takt ecat: shared between the ecat verbs (cli_ecat*.c) and `takt demo`. */
#ifndef TAKT_CLI_ECAT_H
#define TAKT_CLI_ECAT_H

#include <takt/ecat.h>
#include "cli/cli.h"

/* What `takt ecat run` does, on a link that is already open: scan, bring to OP, run
 * the cycle for c->time_s (0 = until Ctrl-C), print PerfMsmt lines every c->perf_s and
 * a summary; JSON to c->json. dc: distributed clocks. Returns the exit status. */
struct ecat_run_args {
    struct takt_link *link;
    bool dc;
    enum ecat_dc_mode dc_mode;
    double scan_timeout_s;
    const char *label;          /* prefix of messages ("takt ecat run") */
};
int cli_ecat_run_link(struct cli_ctx *c, const struct ecat_run_args *a);

/* Open -i IF (+ --pcap) for EtherCAT. Returns 0 or an exit status. */
int cli_ecat_open_link(struct cli_ctx *c, struct takt_link **out);

#endif
