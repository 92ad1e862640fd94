/* takt command line: finds the command in the area tables, parses the shared option
 * vocabulary plus the command's own options (cli_parse), and runs it (cli_main). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

volatile int cli_interrupted;

/* Every area's table; a new area adds one line here. */
static const struct cli_cmd *const areas[] = {
    cli_cmds_link,
    cli_cmds_plk,
    cli_cmds_ecat,
    cli_cmds_ecat_coe,
    cli_cmds_ecat_foe,
    cli_cmds_ecat_soe,
    cli_cmds_ecat_eoe,
    cli_cmds_ecat_igh,
    cli_cmds_rt,
    cli_cmds_netns,
    cli_cmds_demo,
    cli_cmds_check,
    cli_cmds_analyze,
    cli_cmds_bench,
    cli_cmds_sim,
    cli_cmds_ecat_bench,
};

struct common_def {
    unsigned bit;
    struct option opt;
    const char *metavar, *help;
};

static const struct common_def commons[] = {
    { CLI_IFACE, { "iface", required_argument, 0, 'i' }, "IF",   "network interface (or spec such as packet:IF, ring:IF, xdp:IF)" },
    { CLI_CYCLE, { "cycle", required_argument, 0, 'c' }, "US",   "cycle time in microseconds, at least 50 (default 1000)" },
    { CLI_CPU,   { "cpu",   required_argument, 0, 'a' }, "CPU",  "pin the real-time thread to this CPU (it must exist)" },
    /* only where -a pins a real-time thread (not `takt check -a`, which audits a CPU) */
    { CLI_RT,    { "cpu-optional", no_argument,  0, 'O' }, "",   "where the -a CPU cannot be had, warn and run unpinned" },
    { CLI_PRIO,  { "prio",  required_argument, 0, 'p' }, "PRIO", "SCHED_FIFO priority 1..99 (default: none, SCHED_OTHER)" },
    { CLI_TIME,  { "time",  required_argument, 0, 't' }, "S",    "run for S seconds (default: until Ctrl-C)" },
    { CLI_PERF,  { "perf",  optional_argument, 0, 'P' }, "[=S]", "print statistics every S seconds (default 1)" },
    { CLI_JSON,  { "json",  required_argument, 0, 'J' }, "FILE", "write results as JSON to FILE (- for stdout)" },
    { CLI_PCAP,  { "pcap",  required_argument, 0, 'W' }, "FILE", "capture every frame sent and received to pcapng" },
    /* every command that opens -i as a packet link has --pcap too */
    { CLI_IFACE | CLI_PCAP, { "no-qdisc-bypass", no_argument, 0, 'Q' }, "",
      "send through the qdisc, so captures on this interface (takt capture, Wireshark) see the frames sent" },
};

static void on_signal(int sig) { cli_interrupted = sig; }

const char *cli_common_help_text(const struct cli_cmd *cmd, unsigned bit)
{
    for (const struct cli_common_help *h = cmd->common_help; h && h->bit; h++)
        if (h->bit == bit)
            return h->help;
    for (size_t i = 0; i < sizeof commons / sizeof commons[0]; i++)
        if (commons[i].bit == bit)
            return commons[i].help;
    return "";
}

static void cmd_name(const struct cli_cmd *c, char *buf, size_t n)
{
    if (c->area)
        snprintf(buf, n, "%s %s", c->area, c->verb);
    else
        snprintf(buf, n, "%s", c->verb);
}

bool cli_progress_enabled(void) { return isatty(STDERR_FILENO); }

const char *cli_get(const struct cli_ctx *c, const char *name)
{
    const struct cli_opt *o = c->cmd->opts;
    for (int i = 0; o && o[i].name; i++)
        if (strcmp(o[i].name, name) == 0)
            return c->extra[i];
    return NULL;
}

bool cli_flag(const struct cli_ctx *c, const char *name) { return cli_get(c, name) != NULL; }

static void vmsg(const struct cli_ctx *c, const char *fmt, va_list ap)
{
    char n[64];
    cmd_name(c->cmd, n, sizeof n);
    fprintf(stderr, "takt %s: ", n);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const struct cli_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(c, fmt, ap);
    va_end(ap);
    return 1;
}

int cli_write_json(const struct cli_ctx *c, json_object *o)
{
    if (!c->json)
        return 0;
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
    FILE *f = strcmp(c->json, "-") ? fopen(c->json, "w") : stdout;
    int err = !f || fprintf(f, "%s\n", s) < 0 ? errno : 0;
    if (f == stdout)
        fflush(stdout);
    else if (f && fclose(f) && !err)
        err = errno;
    return err ? cli_error(c, "cannot write JSON to '%s': %s", c->json, strerror(err)) : 0;
}

int cli_usage_error(const struct cli_ctx *c, const char *fmt, ...)
{
    char n[64];
    va_list ap;
    va_start(ap, fmt);
    vmsg(c, fmt, ap);
    va_end(ap);
    cmd_name(c->cmd, n, sizeof n);
    fprintf(stderr, "See 'takt help %s'.\n", n);
    return 2;
}

int cli_check_overruns(const struct cli_ctx *c, uint64_t cycles, uint64_t overruns, int64_t cycle_ns)
{
    if (!cycles || overruns * 2 <= cycles)
        return 0;
    return cli_error(c, "the machine could not hold a %.0f us cycle: %" PRIu64 " of %" PRIu64
                     " cycles overran (a longer -c, or -p/-a and 'takt check' for the tuning)",
                     (double)cycle_ns / 1e3, overruns, cycles);
}

/* The most positional arguments a synopsis takes; -1 for any number ("..."). */
static int max_args(const char *syn)
{
    if (!syn)
        return 0;
    if (strstr(syn, "..."))
        return -1;
    int best = 0, n = 0;
    bool in_word = false;
    for (const char *p = syn;; p++) {
        if (*p == '|' && p[1] == ' ' && p > syn && p[-1] == ' ') { /* " | ": another form */
            n = 0;
            in_word = false;
            continue;
        }
        if (!*p || *p == ' ') {
            in_word = false;
            if (n > best)
                best = n;
            if (!*p)
                return best;
            continue;
        }
        if (!in_word)
            n++;
        in_word = true;
    }
}

/* -a names a CPU this process can be pinned to: 0, or the exit status after a message. */
static int check_cpu(struct cli_ctx *c)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    const char *hint = "; --cpu-optional runs unpinned instead";
    if (ncpu > 0 && c->cpu >= ncpu)
        return cli_usage_error(c, "CPU %d does not exist (this machine has CPUs 0-%ld)%s", c->cpu, ncpu - 1, hint);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && c->cpu < CPU_SETSIZE && !CPU_ISSET(c->cpu, &set)) {
        char list[256] = "";
        for (int i = 0; i < CPU_SETSIZE && strlen(list) < sizeof list - 8; i++)
            if (CPU_ISSET(i, &set))
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", list[0] ? "," : "", i);
        return cli_usage_error(c, "CPU %d is not one this process may run on (its cpuset allows %s)%s",
                               c->cpu, list, hint);
    }
    return 0;
}

int cli_parse_long(const struct cli_ctx *c, const char *what, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || end == s || *end || v < lo || v > hi)
        return cli_usage_error(c, "%s expects an integer from %ld to %ld, got '%s'", what, lo, hi, s), -1;
    *out = v;
    return 0;
}

int cli_parse_double(const struct cli_ctx *c, const char *what, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return cli_usage_error(c, "%s expects a number from %g to %g, got '%s'", what, lo, hi, s), -1;
    *out = v;
    return 0;
}

static void print_cmd_help(FILE *f, const struct cli_cmd *c)
{
    char n[64];
    cmd_name(c, n, sizeof n);
    fprintf(f, "Usage: takt %s [OPTIONS]%s%s\n\n%s\n", n, c->args ? " " : "", c->args ? c->args : "", c->summary);
    if (c->help)
        fprintf(f, "\n%s\n", c->help);
    fprintf(f, "\nOptions:\n");
    for (size_t i = 0; i < sizeof commons / sizeof commons[0]; i++) {
        if ((c->common & commons[i].bit) != commons[i].bit)
            continue;
        char lhs[48];
        snprintf(lhs, sizeof lhs, "-%c, --%s%s%s", commons[i].opt.val < 'A' || commons[i].opt.val > 'Z' ? commons[i].opt.val : ' ',
                 commons[i].opt.name, commons[i].opt.has_arg == required_argument ? " " : "", commons[i].metavar);
        if (commons[i].opt.val >= 'A' && commons[i].opt.val <= 'Z') /* long-only */
            snprintf(lhs, sizeof lhs, "    --%s%s%s", commons[i].opt.name,
                     commons[i].opt.has_arg == required_argument ? " " : "", commons[i].metavar);
        fprintf(f, "  %-26s %s\n", lhs, cli_common_help_text(c, commons[i].bit)); /* the command's own line */
    }
    for (int i = 0; c->opts && c->opts[i].name; i++) {
        const struct cli_opt *o = &c->opts[i];
        char lhs[64], sh[8] = "    ";
        if (o->short_name)
            snprintf(sh, sizeof sh, "-%c, ", o->short_name);
        snprintf(lhs, sizeof lhs, "%s--%s%s%s", sh, o->name, o->arg == 1 ? " " : o->arg == 2 ? "[=" : "",
                 o->arg ? (o->metavar ? o->metavar : "ARG") : "");
        if (o->arg == 2)
            strncat(lhs, "]", sizeof lhs - strlen(lhs) - 1);
        fprintf(f, "  %-26s %s\n", lhs, o->help);
    }
    fprintf(f, "  %-26s %s\n  %-26s %s\n", "-v, --verbose", "more output (repeat for more)", "-h, --help", "this help");
}

static void print_overview(FILE *f)
{
    fprintf(f, "takt %s - real-time industrial Ethernet (EtherCAT, POWERLINK) for standard Linux\n\n"
               "Usage: takt COMMAND [OPTIONS]     takt help COMMAND     takt --version\n\nCommands:\n",
            takt_version());
    for (size_t a = 0; a < sizeof areas / sizeof areas[0]; a++)
        for (const struct cli_cmd *c = areas[a]; c->verb; c++) {
            char n[64];
            cmd_name(c, n, sizeof n);
            fprintf(f, "  %-20s %s\n", n, c->summary);
        }
    fprintf(f, "\nCommon options: -i IF, -c US, -a CPU, -p PRIO, -t S, --perf[=S], --json FILE, --pcap FILE,\n"
               "--no-qdisc-bypass, -v\n");
}

/* Find "area verb" or a top-level "verb" in argv; returns args consumed (0 = none).
 * Two words win over one wherever the tables list them ("demo plk" before "demo"). */
static int find_cmd(int argc, char **argv, const struct cli_cmd **out)
{
    for (int words = 2; words >= 1; words--)
        for (size_t a = 0; a < sizeof areas / sizeof areas[0]; a++)
            for (const struct cli_cmd *c = areas[a]; c->verb; c++) {
                if (words == 2 && c->area && argc >= 2 && strcmp(argv[0], c->area) == 0 &&
                    strcmp(argv[1], c->verb) == 0)
                    return *out = c, 2;
                if (words == 1 && !c->area && argc >= 1 && strcmp(argv[0], c->verb) == 0)
                    return *out = c, 1;
            }
    return 0;
}

static bool is_area(const char *s)
{
    for (size_t a = 0; a < sizeof areas / sizeof areas[0]; a++)
        for (const struct cli_cmd *c = areas[a]; c->verb; c++)
            if (c->area && strcmp(c->area, s) == 0)
                return true;
    return false;
}

static void print_area(FILE *f, const char *area)
{
    fprintf(f, "Usage: takt %s VERB [OPTIONS]\n\nVerbs:\n", area);
    for (size_t a = 0; a < sizeof areas / sizeof areas[0]; a++)
        for (const struct cli_cmd *c = areas[a]; c->verb; c++)
            if (c->area && strcmp(c->area, area) == 0)
                fprintf(f, "  %-12s %s\n", c->verb, c->summary);
    fprintf(f, "\nSee 'takt help %s VERB'.\n", area);
}

/* The options of cmd into *out; -1 when the command is to run, else the exit status
 * (help printed: 0, a usage error: 2). */
static int parse_opts(const struct cli_cmd *cmd, int argc, char **argv, struct cli_ctx *out)
{
    struct cli_ctx c = { .cmd = cmd, .cycle_ns = 1000000, .cpu = -1 };
    struct option lo[64];
    char so[160] = ":hv";  /* ":" first: a missing value returns ':'; GNU order: options may follow
                             * positional arguments, "--" ends the options */
    int n = 0;
    for (size_t i = 0; i < sizeof commons / sizeof commons[0]; i++) {
        if ((cmd->common & commons[i].bit) != commons[i].bit)
            continue;
        lo[n++] = commons[i].opt;
        if (commons[i].opt.val >= 'a' && commons[i].opt.val <= 'z') {
            char s[3] = { (char)commons[i].opt.val, ':', 0 };
            strcat(so, s);
        }
    }
    int nextra = 0;
    for (int i = 0; cmd->opts && cmd->opts[i].name && i < CLI_MAX_EXTRA; i++, nextra++) {
        const struct cli_opt *o = &cmd->opts[i];
        lo[n++] = (struct option){ o->name, o->arg == 0 ? no_argument : o->arg == 1 ? required_argument : optional_argument, 0, 1000 + i };
        if (o->short_name) {
            size_t l = strlen(so);
            so[l] = o->short_name;
            so[l + 1] = 0;
            if (o->arg == 1)
                strcat(so, ":");
            else if (o->arg == 2)
                strcat(so, "::");
        }
    }
    lo[n++] = (struct option){ "help", no_argument, 0, 'h' };
    lo[n++] = (struct option){ "verbose", no_argument, 0, 'v' };
    lo[n] = (struct option){ 0, 0, 0, 0 };

    optind = 0;    /* GNU getopt starts over: nothing of an earlier parse (a cluster such
                    * as -vh read half-way) is carried into this one */
    opterr = 0;
    int ch;
    long lv;
    double dv;
    while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        int extra_idx = -1;
        if (ch >= 1000)
            extra_idx = ch - 1000;
        else
            for (int i = 0; i < nextra; i++)
                if (cmd->opts[i].short_name && cmd->opts[i].short_name == ch)
                    extra_idx = i;
        if (extra_idx >= 0) { /* command-specific short names never reuse common ones */
            c.extra[extra_idx] = optarg ? optarg : "";
            continue;
        }
        switch (ch) {
        case 'h': print_cmd_help(stdout, cmd); return 0;
        case 'v': c.verbose++; break;
        case 'i': c.iface = optarg; break;
        case 'c':
        {
            char *end;
            double v = strtod(optarg, &end);
            if (end != optarg && !*end && v < CLI_MIN_CYCLE_US) /* a number, but too short: say why */
                return cli_usage_error(&c, "-c/--cycle expects at least %d us, got '%s': a shorter cycle is "
                                       "of the order of a Linux thread's wake-up latency plus a frame's "
                                       "round trip, so every cycle would overrun", CLI_MIN_CYCLE_US, optarg);
            if (cli_parse_double(&c, "-c/--cycle (microseconds)", optarg, CLI_MIN_CYCLE_US, 10000000, &dv)) return 2;
        }
            c.cycle_ns = (int64_t)(dv * 1000.0 + 0.5);
            break;
        case 'a':
            if (cli_parse_long(&c, "-a/--cpu", optarg, 0, 4095, &lv)) return 2;
            c.cpu = (int)lv;
            break;
        case 'p':
            if (cli_parse_long(&c, "-p/--prio", optarg, 1, 99, &lv)) return 2;
            c.prio = (int)lv;
            break;
        case 't':
            if (cli_parse_double(&c, "-t/--time (seconds)", optarg, 0.001, 1e7, &c.time_s)) return 2;
            break;
        case 'P':
            c.perf_s = 1.0;
            if (optarg && cli_parse_double(&c, "--perf (seconds)", optarg, 0.01, 3600, &c.perf_s)) return 2;
            break;
        case 'O': c.cpu_optional = true; break;
        case 'J': c.json = optarg; break;
        case 'W': c.pcap = optarg; break;
        case 'Q': c.no_qdisc_bypass = true; break;
        case ':':
            return cli_usage_error(&c, "option %s expects a value", argv[optind - 1]);
        case '?':
        default:
            if (optopt)
                return cli_usage_error(&c, "unknown option '-%c'", optopt);
            return cli_usage_error(&c, "unknown option '%s'", argv[optind - 1]);
        }
    }
    c.argc = argc - optind;
    c.argv = argv + optind;
    int max = max_args(cmd->args);
    if (max >= 0 && c.argc > max)
        return cli_usage_error(&c, "unexpected argument '%s'", c.argv[max]);
    if ((cmd->common & CLI_RT) == CLI_RT && c.cpu >= 0 && !c.cpu_optional && check_cpu(&c))
        return 2;
    *out = c;
    return -1;
}

int cli_parse(int argc, char **argv, struct cli_ctx *c)
{
    if (argc < 2) {
        print_overview(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("takt %s\n", takt_version());
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        print_overview(stdout);
        return 0;
    }
    const struct cli_cmd *cmd = NULL;
    if (!strcmp(argv[1], "help")) {
        if (argc == 2) {
            print_overview(stdout);
            return 0;
        }
        if (find_cmd(argc - 2, argv + 2, &cmd)) {
            print_cmd_help(stdout, cmd);
            return 0;
        }
        if (is_area(argv[2])) {
            print_area(stdout, argv[2]);
            return 0;
        }
        fprintf(stderr, "takt help: unknown command '%s'; 'takt help' lists them\n", argv[2]);
        return 2;
    }
    int used = find_cmd(argc - 1, argv + 1, &cmd);
    if (!used) {
        if (is_area(argv[1])) {
            if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h") || !strcmp(argv[2], "help"))) {
                print_area(stdout, argv[1]);
                return 0;
            }
            if (argc == 2)
                fprintf(stderr, "takt %s: a verb is expected\n", argv[1]);
            else
                fprintf(stderr, "takt %s: unknown verb '%s'\n", argv[1], argv[2]);
            print_area(stderr, argv[1]);
        } else {
            fprintf(stderr, "takt: unknown command '%s'; 'takt help' lists them\n", argv[1]);
        }
        return 2;
    }
    /* argv for getopt: program name slot + the command's own arguments */
    return parse_opts(cmd, argc - used, argv + used, c);
}

int cli_main(int argc, char **argv)
{
    struct cli_ctx c;
    int rc = cli_parse(argc, argv, &c);
    if (rc >= 0)
        return rc;
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    cli_caps_at_start(&c);
    return c.cmd->run(&c);
}
