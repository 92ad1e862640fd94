/* takt ecat master, data, domains, top, graph, cstruct, rescan, alias, version: IgH's
 * verbs for a running master. Where `takt ecat run` runs on -i (or --master SOCKET),
 * each asks it for the view of cli_ecat_view.h through its control socket; where none
 * runs, it fills the view from a master this command opens on -i itself (master, data,
 * domains and top run the network in OP for -t seconds). Either view goes to the same
 * renderer. rescan asks the running master to scan again; alias goes through it
 * (docs/tools.md). */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <takt/wire.h>
#include "cli/cli_ecat.h"
#include "cli/cli_ctl.h"
#include "cli/cli_ecat_view.h"

struct live { struct takt_link *l; struct takt_ecat_master *m; bool started; };

static void live_close(struct live *lv)
{
    if (lv->started) {
        takt_ecat_master_stop(lv->m);
        takt_ecat_master_join(lv->m);
    }
    takt_ecat_master_close(lv->m);
    takt_link_close(lv->l);
}

/* Open -i, a master and scan; keep: leave the slaves in their states. */
static int live_scan(struct cli_ctx *c, struct live *lv, bool keep)
{
    memset(lv, 0, sizeof *lv);
    int rc = cli_ecat_open_link(c, &lv->l);
    if (rc)
        return rc;
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = c->cycle_ns;
    o.keep_state = keep;
    char err[256];
    if (takt_ecat_master_open(&lv->m, lv->l, &o, err, sizeof err)) {
        takt_link_close(lv->l);
        return cli_error(c, "%s", err);
    }
    if (takt_ecat_master_scan(lv->m, 5 * TAKT_NS_PER_S) || !takt_ecat_master_slave_count(lv->m)) {
        cli_error(c, "scan on %s: %s", lv->l->name,
                  takt_ecat_master_slave_count(lv->m) ? takt_ecat_master_error(lv->m) : "no slave answered");
        live_close(lv);
        return 1;
    }
    return 0;
}

/* Scan, lay the image out (CoE where the slaves tell their mapping), fill v, and with
 * op bring the network to OP in a cycle thread of its own. */
static int live_open(struct cli_ctx *c, struct live *lv, struct ctl_view *v, bool op)
{
    int rc = live_scan(c, lv, !op);
    if (rc)
        return rc;
    if (op && takt_ecat_master_set_state(lv->m, TAKT_ECAT_STATE_PREOP, 15 * TAKT_NS_PER_S) == 0)
        takt_ecat_master_read_pdos_coe(lv->m);
    if (takt_ecat_master_configure(lv->m) || (op && takt_ecat_master_request_state(lv->m, TAKT_ECAT_STATE_OP))) {
        cli_error(c, "%s", takt_ecat_master_error(lv->m));
        live_close(lv);
        return 1;
    }
    if (ctl_view_fill(v, lv->m, c->cycle_ns)) {
        live_close(lv);
        return cli_error(c, "out of memory");
    }
    if (!op)
        return 0;
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    ro.cpu = c->cpu;
    ro.prio = c->prio;
    if ((rc = takt_ecat_master_start(lv->m, &ro, 0))) {
        ctl_view_free(v);
        live_close(lv);
        return cli_error(c, "cannot start the cycle thread: %s", takt_strerror(rc));
    }
    lv->started = true;
    /* wait for OP, or the state request's own limit */
    takt_ns_t end = takt_now() + 15 * TAKT_NS_PER_S;
    while (takt_ecat_master_state(lv->m) != TAKT_ECAT_STATE_OP && takt_now() < end && !cli_interrupted)
        nanosleep(&(struct timespec){ 0, 10 * TAKT_NS_PER_MS }, NULL);
    if (takt_ecat_master_state(lv->m) != TAKT_ECAT_STATE_OP) {
        char buf[512];
        while (takt_ecat_master_next_event(lv->m, buf, sizeof buf))
            fprintf(stderr, "%s: %s\n", c->cmd->verb, buf);
        fprintf(stderr, "takt ecat %s: the network did not reach OP; showing it as it is\n", c->cmd->verb);
    }
    return 0;
}

/* A master runs on -i (or at --master): 1 with *cl connected; 0: none, open -i; <0:
 * -(exit status) after a message. */
static int attached(struct cli_ctx *c, struct ctl_client **cl)
{
    int rc = cli_ctl_attach(c, "ecat", true, cl);
    return rc ? -rc : *cl != NULL;
}

/* The running master's view, as its verb answers it: 0, or the exit status after a
 * message. */
static int remote_view(struct cli_ctx *c, struct ctl_client *cl, struct ctl_view *v)
{
    json_object *req = json_object_new_object();
    json_object_object_add(req, "verb", json_object_new_string(c->cmd->verb));
    json_object *r = cli_ctl_call(c, cl, req, 10);
    json_object_put(req);
    if (!r)
        return 1;
    char err[512];
    int rc = ctl_view_from_json(r, v, err, sizeof err);
    json_object_put(r);
    return rc ? cli_error(c, "the master's answer: %s", err) : 0;
}

static void sleep_s(double s)
{
    takt_ns_t end = takt_now() + (takt_ns_t)(s * 1e9);
    while (takt_now() < end && !cli_interrupted)
        nanosleep(&(struct timespec){ 0, 10 * TAKT_NS_PER_MS }, NULL);
}

static bool json_only(const struct cli_ctx *c) { return c->json && !strcmp(c->json, "-"); }

enum view_verb { V_MASTER, V_DATA, V_DOMAINS };

static int run_view(struct cli_ctx *c, enum view_verb which)
{
    struct live lv = { 0 };
    struct ctl_view v;
    struct ctl_client *cl;
    int rc = attached(c, &cl);
    if (rc < 0)
        return -rc;
    if (cl) {   /* the running master's view as it is now */
        rc = remote_view(c, cl, &v);
        ctl_client_close(cl);
        if (rc)
            return rc;
    } else {
        if ((rc = live_open(c, &lv, &v, true)))
            return rc;
        sleep_s(c->time_s > 0 ? c->time_s : 1);
        ctl_view_refresh(&v, lv.m);
    }
    json_object *j = which == V_MASTER ? ecat_view_master_json(&v)
                   : which == V_DATA   ? ecat_view_data_json(&v) : ecat_view_domains_json(&v);
    if (!json_only(c))
        rc = which == V_MASTER ? ecat_verb_master(&v, stdout)
           : which == V_DATA   ? ecat_verb_data(&v, stdout, cli_flag(c, "entries"))
                               : ecat_verb_domains(&v, stdout);
    if (cli_write_json(c, j))
        rc = 1;
    json_object_put(j);
    ctl_view_free(&v);
    if (lv.m)
        live_close(&lv);
    return rc;
}

static int run_master(struct cli_ctx *c) { return run_view(c, V_MASTER); }
static int run_data(struct cli_ctx *c) { return run_view(c, V_DATA); }
static int run_domains(struct cli_ctx *c) { return run_view(c, V_DOMAINS); }

static int run_top(struct cli_ctx *c)
{
    double every = 1;
    const char *iv = cli_get(c, "interval");
    if (iv && cli_parse_double(c, "--interval (seconds)", iv, 0.05, 3600, &every))
        return 2;
    struct live lv = { 0 };
    struct ctl_view v = { 0 };
    struct ctl_client *cl;
    int rc = attached(c, &cl);
    if (rc < 0)
        return -rc;
    if (!cl && (rc = live_open(c, &lv, &v, true)))
        return rc;
    bool tty = isatty(STDOUT_FILENO);
    takt_ns_t end = c->time_s > 0 ? takt_now() + (takt_ns_t)(c->time_s * 1e9) : 0;
    for (;;) {
        if (!cl) {
            ctl_view_refresh(&v, lv.m);
        } else {   /* a fresh view from the running master each refresh */
            ctl_view_free(&v);
            if ((rc = remote_view(c, cl, &v)))
                break;
        }
        char stamp[40];
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        size_t k = strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
        snprintf(stamp + k, sizeof stamp - k, ".%03ld", ts.tv_nsec / 1000000);
        ecat_verb_top(&v, stdout, tty, stamp);
        if (cli_interrupted || (end && takt_now() >= end))
            break;
        sleep_s(end && takt_now() + (takt_ns_t)(every * 1e9) > end ? (double)(end - takt_now()) / 1e9 : every);
    }
    ctl_view_free(&v);
    if (cl)
        ctl_client_close(cl);
    else
        live_close(&lv);
    return rc;
}

/* Graphviz's dot on PATH? */
static bool have_dot(void)
{
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/dot", (int)n, p);
        if (n && access(buf, X_OK) == 0)
            return true;
        p += n + (e ? 1 : 0);
    }
    return false;
}

static int render_png(struct cli_ctx *c, const struct ctl_view *v, const char *file)
{
    if (!have_dot())
        return cli_error(c, "--png needs Graphviz's dot, which is not on PATH (Debian: apt install "
                         "graphviz); without --png the dot text goes to stdout");
    int fd[2];
    if (pipe(fd))
        return cli_error(c, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        return cli_error(c, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fd[0], 0);
        close(fd[0]);
        close(fd[1]);
        execlp("dot", "dot", "-Tpng", "-o", file, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    FILE *f = fdopen(fd[1], "w");
    if (f) {
        ecat_verb_graph(v, f);
        fclose(f);
    } else {
        close(fd[1]);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        return cli_error(c, "dot -Tpng -o %s failed (exit %d)", file, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    fprintf(stderr, "takt ecat graph: wrote %s\n", file);
    return 0;
}

static int run_graph(struct cli_ctx *c)
{
    const char *png = cli_get(c, "png");
    if (png && !*png)
        return cli_usage_error(c, "--png expects a file name, got ''");
    struct live lv;
    struct ctl_view v;
    struct ctl_client *cl;
    int rc = attached(c, &cl);
    if (rc < 0)
        return -rc;
    if (cl) {
        rc = remote_view(c, cl, &v);
        ctl_client_close(cl);
        if (rc)
            return rc;
    } else {
        if ((rc = live_scan(c, &lv, true)))
            return rc;
        if (ctl_view_fill(&v, lv.m, c->cycle_ns)) {
            live_close(&lv);
            return cli_error(c, "out of memory");
        }
        live_close(&lv);
    }
    rc = png ? render_png(c, &v, png) : ecat_verb_graph(&v, stdout);
    ctl_view_free(&v);
    return rc;
}

static int run_cstruct(struct cli_ctx *c)
{
    struct live lv;
    struct ctl_view v;
    struct ctl_client *cl;
    int rc = attached(c, &cl);
    if (rc < 0)
        return -rc;
    if (cl) {   /* the running master's layout, CoE mappings included where it read them */
        rc = remote_view(c, cl, &v);
        ctl_client_close(cl);
        if (rc)
            return rc;
    } else {
        if ((rc = live_open(c, &lv, &v, false)))
            return rc;
        live_close(&lv);
    }
    const char *out = cli_get(c, "output");
    FILE *f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
    if (!f)
        rc = cli_error(c, "cannot write '%s': %s", out, strerror(errno));
    else
        rc = ecat_verb_cstruct(&v, f, cli_get(c, "prefix"));
    if (f && f != stdout && fclose(f))
        rc = cli_error(c, "cannot write '%s': %s", out, strerror(errno));
    ctl_view_free(&v);
    return rc;
}

/* What the running master's rescan found (its "rescan" verb): the count as the
 * standalone rescan says it, then each slave that is not as it was scanned. */
static int print_rescan(struct cli_ctx *c, json_object *r)
{
    json_object *j, *arr;
    int seen = json_object_object_get_ex(r, "seen", &j) ? json_object_get_int(j) : 0;
    int expected = json_object_object_get_ex(r, "expected", &j) ? json_object_get_int(j) : 0;
    printf("scanned %d slaves on %s (%d configured)\n", seen, c->iface ? c->iface : cli_get(c, "master"),
           expected);
    unsigned diff = 0;
    size_t n = json_object_object_get_ex(r, "slaves", &arr) ? json_object_array_length(arr) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
#define G(f) (json_object_object_get_ex(o, f, &j) ? (uint32_t)json_object_get_int64(j) : 0u)
        const char *st = json_object_object_get_ex(o, "status", &j) ? json_object_get_string(j) : "?";
        if (!strcmp(st, "same"))
            continue;
        diff++;
        if (!strcmp(st, "changed"))
            printf("slave %zu: changed: vendor 0x%08X product 0x%08X revision 0x%08X serial %u, scanned "
                   "0x%08X 0x%08X 0x%08X serial %u\n", i, G("now_vendor"), G("now_product"),
                   G("now_revision"), G("now_serial"), G("vendor"), G("product"), G("revision"), G("serial"));
        else if (!strcmp(st, "missing"))
            printf("slave %zu: missing (vendor 0x%08X product 0x%08X does not answer)\n", i, G("vendor"),
                   G("product"));
        else if (!strcmp(st, "new"))
            printf("position %zu: a slave that was not scanned (not configured)\n", i);
        else
            printf("slave %zu: identity not read: %s\n", i,
                   json_object_object_get_ex(o, "error", &j) ? json_object_get_string(j) : st);
#undef G
    }
    if (!diff && seen == expected)
        printf("every slave as scanned\n");
    return 0;
}

/* Against a running master: through its socket, it scans while it runs; else a scan
 * of its own that leaves the slaves' states as they are. */
static int run_rescan(struct cli_ctx *c)
{
    struct ctl_client *cl;
    int rc = attached(c, &cl);
    if (rc < 0)
        return -rc;
    if (cl) {
        json_object *req = json_object_new_object();
        json_object_object_add(req, "verb", json_object_new_string("rescan"));
        json_object *r = cli_ctl_call(c, cl, req, 30);
        json_object_put(req);
        ctl_client_close(cl);
        if (!r)
            return 1;
        if (!json_only(c))
            print_rescan(c, r);
        rc = cli_write_json(c, r);
        json_object_put(r);
        return rc;
    }
    struct live lv;
    if ((rc = live_scan(c, &lv, true)))
        return rc;
    unsigned n = takt_ecat_master_slave_count(lv.m);
    if (!json_only(c))
        printf("scanned %u slaves on %s\n", n, lv.l->name);
    json_object *r = json_object_new_object();
    json_object_object_add(r, "seen", json_object_new_int((int)n));
    json_object_object_add(r, "expected", json_object_new_int((int)n));
    json_object_object_add(r, "slaves", json_object_new_array());
    rc = cli_write_json(c, r);
    json_object_put(r);
    live_close(&lv);
    return rc;
}

/* The alias lives in SII word 4; the ESC loads it into register 0x0012 when it reads
 * its EEPROM (ETG.1000.4, station alias; power-on or EEPROM reload), so a new one
 * counts from then on. The header checksum (word 7) covers it (ETG.2010). */
static int run_alias(struct cli_ctx *c)
{
    char *av[8];
    if (cli_ecat_pos_option(c, 0, av, 8))
        return 2;
    if (c->argc != 2)
        return cli_usage_error(c, "expected POS ALIAS (or -p POS ALIAS), got %d arguments", c->argc);
    long alias;
    if (cli_parse_long(c, "ALIAS", c->argv[1], 0, 0xFFFF, &alias))
        return 2;
    /* beside a running master: through it (it writes the words through its cycle) */
    struct cli_ecat_tool t;
    int rc = cli_ecat_tool_open(c, &t, CLI_ECAT_TOOL_SERVED);
    if (rc)
        return rc;
    unsigned pos;
    if (cli_ecat_tool_parse_pos(c, &t, c->argv[0], &pos)) {
        cli_ecat_tool_close(&t);
        return 2;
    }
    size_t n;
    const uint8_t *sii = cli_ecat_tool_sii(&t, pos, &n);
    if (!sii || n < 16) {
        cli_ecat_tool_close(&t);
        return cli_error(c, "slave %u: no SII header was read (%zu bytes), expected at least 16", pos,
                         sii ? n : 0);
    }
    /* words 4..7 only: the alias, two reserved words and the checksum over words 0..6 */
    uint8_t head[16];
    memcpy(head, sii, sizeof head);
    takt_put_le16(head + 8, (uint16_t)alias);
    head[14] = takt_ecat_sii_checksum(head);
    rc = cli_ecat_tool_sii_write(&t, pos, 4, head + 8, 8);
    if (rc)
        rc = cli_error(c, "%s", cli_ecat_tool_error(&t));
    else
        printf("slave %u: alias %ld written to the SII (word 4, checksum 0x%02X); the slave takes "
               "it at its next power-on\n", pos, alias, head[14]);
    cli_ecat_tool_close(&t);
    return rc;
}

/* With -i or --master: the running master's versions too, when one answers. */
static int run_version(struct cli_ctx *c)
{
    struct ctl_client *cl;
    int rc = attached(c, &cl);
    if (rc < 0)
        return -rc;
    ecat_verb_version(stdout);
    if (!cl)
        return 0;
    json_object *req = json_object_new_object(), *r, *j;
    json_object_object_add(req, "verb", json_object_new_string("version"));
    r = cli_ctl_call(c, cl, req, 10);
    json_object_put(req);
    ctl_client_close(cl);
    if (!r)
        return 1;
    const char *ver = json_object_object_get_ex(r, "version", &j) ? json_object_get_string(j) : "?";
    int proto = json_object_object_get_ex(r, "protocol", &j) ? json_object_get_int(j) : 0;
    int pid = json_object_object_get_ex(r, "pid", &j) ? json_object_get_int(j) : 0;
    printf("master on %s: takt %s (pid %d), control protocol %d\n",
           c->iface ? c->iface : cli_get(c, "master"), ver, pid, proto);
    json_object_put(r);
    return 0;
}

static const struct cli_opt data_opts[] = {
    { "entries", 'e', 0, NULL, "per PDO entry (slave, direction, byte.bit, bits, index:sub, value, "
      "name) instead of the image as hex" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_opt top_opts[] = {
    { "interval", 'n', 1, "S", "seconds between refreshes (default 1)" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_opt graph_opts[] = {
    { "png", 0, 1, "FILE", "render to a PNG with Graphviz's dot instead of printing the dot text" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_opt cstruct_opts[] = {
    { "output", 'o', 1, "FILE", "write the header to FILE (default: stdout)" },
    { "prefix", 0, 1, "NAME", "prefix of the header's names (default TAKT_PD)" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_opt alias_opts[] = {
    { "position", 'p', 1, "POS", "the slave, as IgH's ethercat alias -p (then ALIAS alone)" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_opt ctl_opts[] = {
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_common_help run_time_help[] = {
    { CLI_TIME, "seconds the network runs in OP before it is shown (default 1)" },
    { 0 },
};
static const struct cli_common_help top_time_help[] = {
    { CLI_TIME, "stop after S seconds (default: at Ctrl-C)" },
    { 0 },
};

#define LIVE (CLI_IFACE | CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PCAP)
const struct cli_cmd cli_cmds_ecat_igh[] = {
    { "ecat", "master", NULL, "the master: link, frames, loss rates, states, cycle",
      "Where takt ecat run runs on -i (or at --master SOCKET), asks it through its control\n"
      "socket; else brings the network to OP in a cycle of its own for -t S seconds. Shows the\n"
      "master as IgH's ethercat master does: link and MAC, state and slaves per state, cycles\n"
      "and overruns, frames sent, back, lost, late, unmatched, the frame and loss rates over\n"
      "1, 10 and 60 s, WKC errors, DC sync error. --json: the same figures (docs/tools.md).",
      LIVE | CLI_JSON, ctl_opts, run_master, run_time_help },
    { "ecat", "data", NULL, "the process image, as hex or per PDO entry",
      "Asks the master running on -i, else brings the network to OP for -t S seconds, and\n"
      "shows the image as the cycle last published it (never torn): hex lines of 16 bytes,\n"
      "or with -e one line per PDO entry with its value. --json: the image as hex and every entry with its value.",
      LIVE | CLI_JSON, data_opts, run_data, run_time_help },
    { "ecat", "domains", NULL, "the cyclic frames: command, address, WKC expected and seen",
      "Asks the master running on -i, else brings the network to OP for -t S seconds, and\n"
      "lists each cyclic datagram (LRW, or LRD + LWR where a slave forbids LRW): logical\n"
      "address, length, slaves, the WKC expected and the last one seen ('-': lost), and the cycles with a wrong WKC.",
      LIVE | CLI_JSON, ctl_opts, run_domains, run_time_help },
    { "ecat", "top", NULL, "a live view: per slave state, WKC, DC difference; the cycle",
      "Asks the master running on -i each refresh (else brings the network to OP itself);\n"
      "refreshes every --interval S: the master's state, cycles, overruns, frames lost,\n"
      " WKC errors, DC sync error, and per slave its state, error flag,\n"
      "AL status code, cyclic frame and its WKC (seen/expected), DC difference (|0x092C|).\n"
      "On a terminal the screen is redrawn; piped, each refresh opens with '--- TIME'.",
      LIVE, top_opts, run_top, top_time_help },
    { "ecat", "graph", NULL, "the topology as Graphviz dot",
      "From the master running on -i, else from a scan that changes no state, writes a\n"
      "digraph: the master, each slave (position, name, station, state) and an edge from the upstream port to each slave's port 0, as\n"
      "the ports' DL status tells them. --png FILE renders it with dot (graphviz).",
      CLI_IFACE | CLI_PCAP, graph_opts, run_graph, NULL },
    { "ecat", "cstruct", NULL, "a C header for the process image",
      "The image of the master running on -i, else laid out as ecat run does from SII (without\n"
      "CoE) by a scan of its own; writes a header: per slave and direction a packed struct at the _OFFSET byte of the image, members for\n"
      "entries of whole bytes, _BYTE/_BIT macros for bits, padding for gaps, names made C.",
      CLI_IFACE | CLI_PCAP, cstruct_opts, run_cstruct, NULL },
    { "ecat", "rescan", NULL, "scan the network again and count the slaves",
      "With a master running on -i (or --master SOCKET): that master counts the slaves again\n"
      "and reads each one's identity from its SII (vendor, product, revision, serial) beside\n"
      "the cyclic frames, in OP, and lists every slave that changed, is missing or is new; a\n"
      "changed one is refused by its recovery. Else counts and scans the slaves itself,\n"
      "leaving their states as they are. --json gives seen, expected and slaves[].",
      CLI_IFACE | CLI_PCAP | CLI_JSON, ctl_opts, run_rescan, NULL },
    { "ecat", "alias", "POS ALIAS", "write a slave's station alias into its SII",
      "Writes ALIAS (0..65535) into SII word 4 with a new header checksum; the ESC loads it\n"
      "into register 0x0012 at its next power-on (ETG.1000.4). POS is a position or\n"
      "ALIAS:POS, or given as -p POS. Where a master runs on -i (or --master SOCKET), its\n"
      "cycle writes the words (4..7) through its control socket.",
      CLI_IFACE | CLI_PCAP, alias_opts, run_alias, NULL },
    { "ecat", "version", NULL, "the versions of takt and of its library",
      "The takt tool's version and the library's it runs on; with -i (or --master SOCKET), also\n"
      "the running master's takt version and control protocol version.",
      CLI_IFACE, ctl_opts, run_version, NULL },
    { 0 }
};
