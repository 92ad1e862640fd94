/* The one option vocabulary on every command `takt help` lists: help two ways (same
 * text), unknown options and bad values of each common option refused with exit 2 and
 * a message naming the option and what it expects, the same option column for a common
 * option everywhere (its description may give the command's own default), and common options a command does not take refused. Runs the
 * real binary (TAKT_BIN). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/cli/takt_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *bin;

#define MAX_CMDS 80
static char cmds[MAX_CMDS][32];
static int ncmds;

/* Run `takt ARGS` (stdout only, or with 2>&1); returns the exit status. */
static int run(const char *args, int both, char *out, size_t n)
{
    return takt_run(bin, args, both ? "2>&1" : "2>/dev/null", out, n);
}

#define expect(...) takt_expect(bin, __VA_ARGS__)

/* The command names from `takt help` ("  link bench     summary"). */
static int list_commands(void **state)
{
    static char out[16384];
    if (run("help", 0, out, sizeof out) != 0)
        return -1;
    char *p = strstr(out, "Commands:\n");
    if (!p)
        return -1;
    for (char *line = strtok(p + 10, "\n"); line && ncmds < MAX_CMDS; line = strtok(NULL, "\n")) {
        if (strncmp(line, "  ", 2) || strlen(line) < 23)
            break;
        char name[32];
        snprintf(name, sizeof name, "%.20s", line + 2);     /* "  %-20s %s" */
        for (size_t k = strlen(name); k && name[k - 1] == ' '; k--)
            name[k - 1] = 0;
        strcpy(cmds[ncmds++], name);
    }
    return 0;
}

static void every_command_listed(void **state)
{
    assert_true(ncmds >= 25);
    const char *must[] = { "link echo", "link bench", "rt latency", "netns run", "demo" };
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
        int found = 0;
        for (int k = 0; k < ncmds; k++)
            found |= !strcmp(cmds[k], must[i]);
        if (!found)
            fail_msg("'%s' is not in takt help", must[i]);
    }
}

static void version(void **state)
{
    char out[256], want[256];
    assert_int_equal(run("--version", 0, out, sizeof out), 0);
    assert_int_equal(strncmp(out, "takt ", 5), 0);
    assert_true(strlen(out) > 6 && out[5] >= '0' && out[5] <= '9');
    snprintf(want, sizeof want, "%s", out);
    assert_int_equal(run("version", 0, out, sizeof out), 0);
    assert_string_equal(out, want);
}

/* A common option: its help text marker, a bad value and what the message must say. */
struct common {
    const char *marker;     /* in the help line */
    const char *bad;        /* e.g. "-c abc" */
    const char *msg1, *msg2;
    const char *novalue;    /* the option at the end, without its value */
};
static const struct common commons[] = {
    { "-i, --iface IF",   NULL,         NULL,                   NULL,       "-i" },
    { "-c, --cycle US",   "-c abc",     "-c/--cycle",           "got 'abc'", "-c" },
    { "-c, --cycle US",   "-c 5",       "at least 50",              "got '5'",  NULL },
    { "-a, --cpu CPU",    "-a cpu0",    "-a/--cpu expects an integer", "got 'cpu0'", "-a" },
    { "-p, --prio PRIO",  "-p 100",     "-p/--prio expects an integer from 1 to 99", "got '100'", "-p" },
    { "-t, --time S",     "-t -1",      "-t/--time",            "got '-1'", "-t" },
    { "--perf[=S]",       "--perf=0",   "--perf",               "got '0'",  NULL },
    { "--json FILE",      NULL,         NULL,                   NULL,       "--json" },
    { "--pcap FILE",      NULL,         NULL,                   NULL,       "--pcap" },
};
/* The short or long option of a marker, to try it where the command does not take it. */
static const char *const not_taken[][2] = {
    { "--iface", "-i x" }, { "--cycle", "-c 100" }, { "--cpu", "-a 0" }, { "--prio", "-p 1" },
    { "--time", "-t 1" }, { "--perf", "--perf" }, { "--json", "--json x" }, { "--pcap", "--pcap x" },
};

/* The line of the Options section that starts with marker (after its indent). */
static const char *help_line(const char *help, const char *marker, char *line, size_t n)
{
    const char *p = strstr(help, "\nOptions:\n");
    if (!p)
        return NULL;
    for (p += 10; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        const char *q = p + strspn(p, " ");
        if (!strncmp(q, marker, strlen(marker))) {
            snprintf(line, n, "%.*s", (int)strcspn(p, "\n"), p);
            return line;
        }
    }
    return NULL;
}

static void help_both_ways(void **state)
{
    static char a[16384], b[16384];
    char args[128], want[96];
    for (int k = 0; k < ncmds; k++) {
        snprintf(args, sizeof args, "help %.31s", cmds[k]);
        assert_int_equal(run(args, 0, a, sizeof a), 0);
        snprintf(args, sizeof args, "%.31s --help", cmds[k]);
        assert_int_equal(run(args, 0, b, sizeof b), 0);
        if (strcmp(a, b))
            fail_msg("'takt help %s' and 'takt %s --help' differ", cmds[k], cmds[k]);
        snprintf(want, sizeof want, "Usage: takt %.31s ", cmds[k]);
        if (strncmp(a, want, strlen(want)) || !strstr(a, "-h, --help") || !strstr(a, "-v, --verbose"))
            fail_msg("help of '%s' lacks usage, -h or -v:\n%s", cmds[k], a);
        snprintf(args, sizeof args, "%.31s -h", cmds[k]);
        assert_int_equal(run(args, 0, b, sizeof b), 0);
        assert_string_equal(a, b);
    }
}

static void unknown_options(void **state)
{
    char args[128], see[96];
    for (int k = 0; k < ncmds; k++) {
        snprintf(see, sizeof see, "See 'takt help %.31s'", cmds[k]);
        snprintf(args, sizeof args, "%.31s --bogus", cmds[k]);
        expect(args, 2, "unknown option '--bogus'", see);
        snprintf(args, sizeof args, "%.31s -Z", cmds[k]);
        expect(args, 2, "unknown option '-Z'", see);
    }
}

static void common_options(void **state)
{
    static char help[16384];
    char ref[sizeof commons / sizeof commons[0]][200] = { { 0 } };
    char line[200], args[160];
    int used[sizeof commons / sizeof commons[0]] = { 0 };
    for (int k = 0; k < ncmds; k++) {
        snprintf(args, sizeof args, "help %.31s", cmds[k]);
        assert_int_equal(run(args, 0, help, sizeof help), 0);
        for (size_t i = 0; i < sizeof commons / sizeof commons[0]; i++) {
            const struct common *o = &commons[i];
            if (!help_line(help, o->marker, line, sizeof line))
                continue;
            used[i]++;
            if (!ref[i][0])
                strcpy(ref[i], line);
            else if (strncmp(ref[i], line, 29))   /* "  -t, --time S" column: a command may
                                                    * word the rest (its own default) */
                fail_msg("'%s' is described differently by '%s':\n  %s\nelsewhere:\n  %s", o->marker, cmds[k], line, ref[i]);
            if (o->bad) {
                snprintf(args, sizeof args, "%.31s %.31s", cmds[k], o->bad);
                expect(args, 2, o->msg1, o->msg2);
            }
            if (o->novalue) {
                snprintf(args, sizeof args, "%.31s %.31s", cmds[k], o->novalue);
                expect(args, 2, "expects a value", o->novalue);
            }
        }
        for (size_t i = 0; i < sizeof not_taken / sizeof not_taken[0]; i++) {
            char m[32];
            snprintf(m, sizeof m, "%s", not_taken[i][0]);
            const char *opts = strstr(help, "\nOptions:\n");
            if (!opts || strstr(opts, m))
                continue;
            /* the IgH-style ecat tools run no real-time thread: their -p is the slave
             * position, as IgH's ethercat -p */
            if (!strcmp(m, "--prio") && strstr(opts, "-p, --position POS"))
                continue;
            snprintf(args, sizeof args, "%.31s %.31s", cmds[k], not_taken[i][1]);
            expect(args, 2, "unknown option", NULL);
        }
    }
    for (size_t i = 0; i < sizeof commons / sizeof commons[0]; i++)
        if (!used[i])
            fail_msg("no command takes '%s'", commons[i].marker);
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    if (!bin || !*bin) {
        fprintf(stderr, "SKIP: TAKT_BIN is not set (run through ctest)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_command_listed),
        cmocka_unit_test(version),
        cmocka_unit_test(help_both_ways),
        cmocka_unit_test(unknown_options),
        cmocka_unit_test(common_options),
    };
    return cmocka_run_group_tests(tests, list_commands, NULL);
}
