/* takt command line: one option vocabulary for every command, a registry of commands
 * ("area verb"), help text. Area files (cli_link.c, ...) only parse and print. */
#ifndef TAKT_CLI_H
#define TAKT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <takt/takt.h>

/* Common options a command accepts (bitmask in struct cli_cmd.common). */
enum {
    CLI_IFACE = 1 << 0,   /* -i/--iface IF */
    CLI_CYCLE = 1 << 1,   /* -c/--cycle US */
    CLI_CPU   = 1 << 2,   /* -a/--cpu N */
    CLI_PRIO  = 1 << 3,   /* -p/--prio N */
    CLI_TIME  = 1 << 4,   /* -t/--time S */
    CLI_PERF  = 1 << 5,   /* --perf[=S] */
    CLI_JSON  = 1 << 6,   /* --json FILE */
    CLI_PCAP  = 1 << 7,   /* --pcap FILE */
    CLI_RT    = CLI_CPU | CLI_PRIO,
};

#define CLI_MAX_EXTRA 24

/* A command-specific option. arg: 0 none (flag), 1 required, 2 optional. */
struct cli_opt {
    const char *name;     /* long name without -- */
    char        short_name; /* 0 if none */
    int         arg;
    const char *metavar;  /* "FILE", "N", ... */
    const char *help;
};

struct cli_ctx;
struct takt_link;

/* A command's own help line for a common option whose default differs from the
 * generic one (bench's -p is 80 where the generic -p says "none"). */
struct cli_common_help {
    unsigned    bit;      /* CLI_* */
    const char *help;
};

/* The least cycle time -c accepts, in microseconds. Below it the cycle is of the order
 * of a standard Linux thread's wake-up latency plus one frame's round trip: every
 * cycle would overrun. */
#define CLI_MIN_CYCLE_US 50

/* The longest sleep of a run's reporting thread (plk mn, ecat run): it sleeps until the
 * cycle wakes it (an event, a state change, the loop's end), a signal comes or its next
 * periodic duty is due, and looks at least this often for what wakes it not (a signal
 * taken by another thread, a status text's counts). */
#define CLI_REPORT_IDLE_NS (250 * TAKT_NS_PER_MS)

struct cli_cmd {
    const char *area;       /* "link" (NULL for top-level commands like "demo") */
    const char *verb;       /* "bench" */
    const char *args;       /* positional synopsis, e.g. "IDX SUB [VALUE]"; NULL: none
                             * accepted. More words than the longest alternative (split at
                             * " | ") are refused unless it has "..." */
    const char *summary;    /* one line */
    const char *help;       /* paragraphs shown by `takt help CMD` */
    unsigned    common;     /* CLI_* */
    const struct cli_opt *opts; /* terminated by {0}; may be NULL */
    int (*run)(struct cli_ctx *c);
    const struct cli_common_help *common_help; /* terminated by {0}; may be NULL */
};

struct cli_ctx {
    const struct cli_cmd *cmd;
    /* common options, with defaults */
    const char *iface;
    int64_t cycle_ns;       /* default 1 ms */
    int cpu;                /* -1; a CPU that does not exist is refused at parse time
                             * unless cpu_optional */
    bool cpu_optional;      /* --cpu-optional: run unpinned where -a cannot be had */
    int prio;               /* 0 = SCHED_OTHER */
    double time_s;          /* 0 = until interrupted (or command default) */
    double perf_s;          /* 0 = off; --perf alone = 1 s */
    const char *json;
    const char *pcap;
    bool no_qdisc_bypass;   /* --no-qdisc-bypass: frames sent stay visible to captures on -i */
    int verbose;
    /* A link already open (in-process runs, e.g. over a simulator on a mem pair): the
     * EtherCAT tools use it instead of opening -i, and close it when done. */
    struct takt_link *link;
    bool link_taken;         /* a command took link (and closes it); else its giver does */
    /* command-specific options: value (or "" for a set flag), NULL if absent */
    const char *extra[CLI_MAX_EXTRA];
    /* positional arguments */
    int argc;
    char **argv;
};

/* The command line up to the run: the command found in the tables and its options
 * parsed into *c. Returns -1 when c->cmd is to run with *c, else the exit status (help
 * or version printed: 0; unknown command or a usage error, said on stderr: 2). Runs
 * nothing and opens nothing. */
int cli_parse(int argc, char **argv, struct cli_ctx *c);
/* cli_parse, then the command (SIGINT/SIGTERM set cli_interrupted); the exit status. */
int cli_main(int argc, char **argv);

/* Command tables of the areas, each terminated by {0}. */
extern const struct cli_cmd cli_cmds_link[];
extern const struct cli_cmd cli_cmds_plk[];
extern const struct cli_cmd cli_cmds_ecat[];
extern const struct cli_cmd cli_cmds_ecat_coe[];
extern const struct cli_cmd cli_cmds_ecat_foe[];
extern const struct cli_cmd cli_cmds_ecat_soe[];
extern const struct cli_cmd cli_cmds_ecat_eoe[];
extern const struct cli_cmd cli_cmds_ecat_igh[];
extern const struct cli_cmd cli_cmds_rt[];
extern const struct cli_cmd cli_cmds_netns[];
extern const struct cli_cmd cli_cmds_demo[];
extern const struct cli_cmd cli_cmds_check[];
extern const struct cli_cmd cli_cmds_analyze[];
extern const struct cli_cmd cli_cmds_bench[];
extern const struct cli_cmd cli_cmds_sim[];
extern const struct cli_cmd cli_cmds_ecat_bench[];

const char *cli_get(const struct cli_ctx *c, const char *name);
bool cli_flag(const struct cli_ctx *c, const char *name);
/* Parse helpers that print "takt AREA VERB: OPT expects ..., got '...'" and return -1. */
int cli_parse_long(const struct cli_ctx *c, const char *what, const char *s, long lo, long hi, long *out);
int cli_parse_double(const struct cli_ctx *c, const char *what, const char *s, double lo, double hi, double *out);
/* After a cyclic run: when more than half of `cycles` overran, say so on stderr and
 * return 1 (the run's figures are not the cycle asked for); else 0. */
int cli_check_overruns(const struct cli_ctx *c, uint64_t cycles, uint64_t overruns, int64_t cycle_ns);
/* The help line of common option `bit` as command cmd shows it. */
const char *cli_common_help_text(const struct cli_cmd *cmd, unsigned bit);
/* Print an error prefixed with the command name; returns 1 (exit status). */
int cli_error(const struct cli_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Usage error: message plus "see 'takt help AREA VERB'"; returns 2. */
int cli_usage_error(const struct cli_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Open -i with options o (and the --pcap tap): 0, or the exit status after a message;
 * what describes the interface expected ("the interface the EtherCAT network is on"). */
struct takt_link;
struct takt_link_opts;
int cli_open_link(struct cli_ctx *c, const struct takt_link_opts *o, const char *what,
                  struct takt_link **out);
/* -i up without a carrier (takt_link_carrier): "IF has no carrier (cable unplugged?)" on
 * stderr; returns 1 when fatal (the command cannot do anything without one), else warns
 * and returns 0. 0 when there is a carrier or nothing to say. */
int cli_check_carrier(struct cli_ctx *c, bool fatal);
/* Write o (pretty) to the --json path, "-" = stdout; nothing when --json was not given.
 * Does not consume o. Returns 0, or 1 after an error naming the file. */
struct json_object;
int cli_write_json(const struct cli_ctx *c, struct json_object *o);
/* Set (to the signal's number) by SIGINT/SIGTERM handlers installed by main; long runs
 * poll it. */
extern volatile int cli_interrupted;
/* Least privilege (cli_caps.c). An EtherType the file capabilities may be used for;
 * 0, or the exit status after "WHAT needs root: ..." when the process has only file
 * capabilities (neither real nor effective uid 0). */
bool cli_ethertype_granted(unsigned type);
int cli_need_root(const struct cli_ctx *c, const char *what);
/* Whether capabilities are dropped at all: with file capabilities only, not for root
 * (real or effective uid 0), whose powers are its own. */
bool cli_caps_dropping(void);
/* Drop every capability of the calling thread but keep (1 << CAP_X); a warning if it
 * fails; nothing for root. Call once every socket is open: CAP_NET_RAW is checked only
 * at socket(). */
void cli_drop_caps(const struct cli_ctx *c, uint64_t keep);
/* What the real-time set-up of -p/-a (takt_rt_opts_default otherwise) uses, and what it
 * still needs afterwards (takt_rt_caps_for_setup/takt_rt_caps_after_setup). */
uint64_t cli_caps_for_rt(const struct cli_ctx *c);
uint64_t cli_caps_after_rt(const struct cli_ctx *c);
/* Before a command runs: one without -i gives up the network capabilities (file
 * capabilities only; root is left alone, its benches open links in plain namespaces). */
void cli_caps_at_start(const struct cli_ctx *c);
/* True when stderr is a terminal: show progress; quiet when piped. */
bool cli_progress_enabled(void);

#endif
