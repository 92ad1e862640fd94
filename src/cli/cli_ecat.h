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
    struct takt_link *redundant;    /* the ring's second port (--redundant), NULL none */
    bool dc;
    enum takt_ecat_dc_mode dc_mode;
    double scan_timeout_s;
    const char *label;          /* prefix of messages ("takt ecat run") */
};
int cli_ecat_run_link(struct cli_ctx *c, const struct ecat_run_args *a);

/* IgH's ALIAS:POS column (cli_ecat_pos.c): walk the slaves in position order, each gives
 * "alias:relative position" in buf; the error flag 'E' (AL error or status code) or '+'. */
struct cli_ecat_alias_walk { unsigned alias, base; };
void cli_ecat_alias_next(struct cli_ecat_alias_walk *w, unsigned pos, const struct takt_ecat_slave_info *s,
                         char *buf, size_t n);
char cli_ecat_error_flag(const struct takt_ecat_slave_info *s);
/* A slave given as POS or ALIAS:POS (IgH's addressing: POS counted from the first slave
 * whose SII gives it that alias; 0:POS is POS) on the scanned network. 0, or -1 after
 * an error naming what the network has. */
int cli_ecat_parse_pos(struct cli_ctx *c, struct takt_ecat_master *m, const char *s, unsigned *pos);
/* -p POS of a verb whose POS is positional (IgH's ethercat -p): put it in the arguments
 * at index at, in av (cap entries). 0, or 2 after a usage error. */
int cli_ecat_pos_option(struct cli_ctx *c, int at, char **av, int cap);
/* --eoe of takt ecat run (cli_ecat_eoe.c): open the EoE ports, set the slaves' IP
 * parameters, make the TAPs and start their threads (0 or an exit status; *out to be
 * closed either way); the summary's lines and JSON; close the TAPs before the master. */
struct cli_eoe_run;
struct json_object;
int cli_eoe_run_setup(struct cli_ctx *c, struct takt_ecat_master *m, struct cli_eoe_run **out);
struct json_object *cli_eoe_run_json(struct takt_ecat_master *m, const struct cli_eoe_run *r);
void cli_eoe_run_print(FILE *f, struct takt_ecat_master *m, const struct cli_eoe_run *r);
void cli_eoe_run_close(struct cli_eoe_run *r);

/* Cable redundancy's line in the summary and its JSON object (NULL with one port):
 * cli_ecat_red.c. */
void cli_ecat_red_print(FILE *f, struct takt_ecat_master *m);
/* --redundant IF2 opened (before -i: opening that drops the capability to open links),
 * captured beside --pcap FILE as FILE-2.EXT; 0 or the command's exit status. */
int cli_ecat_open_second(struct cli_ctx *c, struct takt_link **out);
/* -i, and the second port into *l2 where --redundant IF2 is given (else *l2 NULL): what
 * a verb that opens the bus itself passes as the master's link and its opts.redundant.
 * 0 or the command's exit status (then neither is open). */
int cli_ecat_open_ports(struct cli_ctx *c, struct takt_link **l, struct takt_link **l2);
/* The option of every verb that opens the bus itself. */
#define CLI_ECAT_REDUNDANT_OPT \
    { "redundant", 0, 1, "IF2", "cable redundancy: the ring's last slave is wired back to IF2; " \
      "every frame goes out of both ports (--pcap FILE: IF2's frames in FILE with -2 before " \
      "its extension)" }
struct json_object *cli_ecat_red_json(struct takt_ecat_master *m);

/* The tool verbs' access (cli_ecat_tool.c): a master of their own on -i, or the one
 * `takt ecat run` runs there, through its control socket (ctl set). Both fill the
 * same structs, so a verb prints the same either way. */
struct ctl_client;
struct cli_ecat_tool {
    struct takt_link *l;
    struct takt_link *l2;             /* --redundant: the ring's second port, else NULL */
    struct takt_ecat_master *m;       /* direct */
    struct ctl_client *ctl;           /* through a running master: the fields below */
    unsigned n, n_pd;
    struct takt_ecat_slave_info *info;
    uint8_t **sii;
    size_t *sii_len;
    struct takt_ecat_pd_entry *pd;
    char err[1024];
};
enum {
    CLI_ECAT_TOOL_SERVED = 1 << 0,    /* the verb can go through a running master */
    CLI_ECAT_TOOL_RESET  = 1 << 1,    /* direct: reset the slaves' states (not keep_state) */
    CLI_ECAT_TOOL_PDOS   = 1 << 2,    /* through a master: fetch the process data layout */
    CLI_ECAT_TOOL_NOSCAN = 1 << 3,    /* direct: open nothing (the verb does it itself) */
};
/* 0 (t->ctl set: through a master; else t->m scanned, unless NOSCAN) or an exit status. */
int  cli_ecat_tool_open(struct cli_ctx *c, struct cli_ecat_tool *t, unsigned flags);
void cli_ecat_tool_close(struct cli_ecat_tool *t);
unsigned cli_ecat_tool_count(const struct cli_ecat_tool *t);
int  cli_ecat_tool_info(const struct cli_ecat_tool *t, unsigned pos, struct takt_ecat_slave_info *s);
const uint8_t *cli_ecat_tool_sii(const struct cli_ecat_tool *t, unsigned pos, size_t *len);
const char *cli_ecat_tool_error(const struct cli_ecat_tool *t);
int  cli_ecat_tool_reg(struct cli_ecat_tool *t, struct cli_ctx *c, bool wr, unsigned pos, uint16_t reg,
                       uint8_t *buf, uint16_t len);
int  cli_ecat_tool_upload(struct cli_ecat_tool *t, struct cli_ctx *c, unsigned pos, uint16_t idx, uint8_t sub,
                          bool ca, uint8_t *buf, size_t cap, size_t *len);
int  cli_ecat_tool_download(struct cli_ecat_tool *t, struct cli_ctx *c, unsigned pos, uint16_t idx, uint8_t sub,
                            bool ca, const uint8_t *data, size_t len);
int  cli_ecat_tool_sdo_info(struct cli_ecat_tool *t, struct cli_ctx *c, unsigned pos, enum takt_ecat_sdo_info_op op,
                            uint16_t idx, uint8_t sub, uint8_t *buf, size_t cap, size_t *len);
int  cli_ecat_tool_soe(struct cli_ecat_tool *t, bool wr, unsigned pos, uint8_t drive, uint8_t elements,
                       uint16_t idn, uint8_t *buf, size_t cap, size_t *len);
int  cli_ecat_tool_text(struct cli_ecat_tool *t, struct cli_ctx *c, const char *verb, const char *path);
/* through a master: request state for the network (pos -1) or one slave, wait until it is there */
int  cli_ecat_tool_set_state(struct cli_ecat_tool *t, struct cli_ctx *c, long pos, uint8_t state, double timeout_s);
/* SII write of len bytes from word on (directly, or through the master in chunks) */
int  cli_ecat_tool_sii_write(struct cli_ecat_tool *t, unsigned pos, unsigned word, const uint8_t *data, size_t len);
unsigned cli_ecat_tool_pd_count(const struct cli_ecat_tool *t);
int  cli_ecat_tool_pd_get(const struct cli_ecat_tool *t, unsigned i, struct takt_ecat_pd_entry *e);
/* cli_ecat_parse_pos over a tool's slaves */
int  cli_ecat_tool_parse_pos(struct cli_ctx *c, const struct cli_ecat_tool *t, const char *s, unsigned *pos);
/* A slave's description and a process data entry on the control socket. */
struct json_object *cli_ecat_info_wire(const struct takt_ecat_slave_info *s);
int  cli_ecat_info_unwire(struct json_object *o, struct takt_ecat_slave_info *s);
struct json_object *cli_ecat_pd_wire(const struct takt_ecat_pd_entry *e);
/* The verbs `takt ecat run` serves on its control socket (cli_ecat_ctl.c): started
 * with the master configured and its cycle not yet running. */
struct cli_ecat_ctl;
int  cli_ecat_ctl_start(struct cli_ctx *c, struct takt_ecat_master *m, struct cli_ecat_ctl **out);
void cli_ecat_ctl_stop(struct cli_ecat_ctl *x);    /* before the master is closed */
void cli_ecat_ctl_free(struct cli_ecat_ctl *x);    /* after */

/* Open -i IF (+ --pcap) for EtherCAT. Returns 0 or an exit status. */
int cli_ecat_open_link(struct cli_ctx *c, struct takt_link **out);

/* Names and JSON of what the ecat tools print (cli_ecat_json.c). Mailbox protocols of
 * SII word 0x001C as "CoE FoE" ("none" when none); object access of an SDO entry
 * description as IgH's "rwrwrw" (PREOP, SAFEOP, OP) plus mapping flags. */
const char *cli_ecat_protocols(uint16_t mask, char *buf, size_t n);
const char *cli_ecat_access(uint16_t access, char *buf, size_t n);
/* -v lines: the SMs and FMMUs of an SII image, their use and direction by name. */
void cli_ecat_print_sm_fmmu(const uint8_t *img, size_t len);
/* The SII's CoE details say the slave answers SDO information (true when unknown). */
bool cli_ecat_has_sdo_info(const uint8_t *img, size_t len);
struct json_object;
struct json_object *cli_ecat_slave_json(const struct takt_ecat_slave_info *s);
/* A slave name for text (control and non-UTF-8 bytes as C escapes) and for JSON
 * (valid UTF-8, other bytes read as Latin-1); buf of 4x the name's size suffices. */
const char *cli_ecat_name_text(const char *name, char *buf, size_t n);
const char *cli_ecat_name_utf8(const char *name, char *buf, size_t n);
/* The SII decoder's warnings for slave pos to stderr, and as "sii_warnings" into o. */
void cli_ecat_sii_warnings(const uint8_t *img, size_t len, unsigned pos, struct json_object *o);
struct json_object *cli_ecat_state_json(const struct takt_ecat_slave_info *s);
struct json_object *cli_ecat_pd_json(const struct takt_ecat_pd_entry *e);

/* takt ecat bench's attribution of a lost frame to the master's lateness (cli_ecat_bench.c) */
bool cli_ecat_bench_master_late(int64_t sent, int64_t seen, int64_t dev, int64_t cycle_ns, int64_t stall_thr);

#endif
