/* What a user of takt's command line may rely on, run against the real binary:
 * `takt AREA --help` lists the area's verbs; values outside an option's documented
 * range (-p 0, -c below the floor, an -a CPU the machine lacks) and positional
 * arguments a command does not take are refused with exit status 2 and a message
 * naming what was expected; and no command's help contradicts itself about the
 * default of -p or -t (its text against its option table). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/cli/takt_run.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *bin;

static int run(const char *args, char *out, size_t n) { return takt_run(bin, args, "2>&1", out, n); }

#define expect(...) takt_expect(bin, __VA_ARGS__)

static void area_help(void **state)
{
    (void)state;
    expect("ecat --help", 0, "slaves", "scan the network and list the slaves");
    expect("ecat -h", 0, "upload", "bench");
    expect("plk --help", 0, "mn", "run a POWERLINK managing node");
    expect("help plk", 0, "sdo", "bench");
    expect("link --help", 0, "echo", "recv");
    expect("sim --help", 0, "ecat", NULL);
    expect("netns --help", 0, "exec", NULL);
}

static void out_of_range(void **state)
{
    (void)state;
    expect("link bench -i mem -t 0.2 -p 0", 2, "-p/--prio", "1 to 99, got '0'");
    expect("ecat run -i tk-nosuch0 -t 1 -c 10", 2, "-c/--cycle", "at least 50 us, got '10'");
    expect("plk mn -i tk-nosuch0 -t 1 -c 49", 2, "-c/--cycle", "at least 50 us");
    expect("bench --cycles 10,1000", 2, "--cycles", "from 50");
}

static void extra_positional(void **state)
{
    (void)state;
    expect("ecat run -i tk-nosuch0 -t 1 extra", 2, "unexpected argument 'extra'", NULL);
    expect("rt latency -t 0.1 now", 2, "unexpected argument 'now'", NULL);
    expect("ecat upload -i tk-nosuch0 0 0x1000 0 junk", 2, "unexpected argument 'junk'", NULL);
    expect("ecat sii -i tk-nosuch0 write 0 f.bin more", 2, "unexpected argument 'more'", NULL);
    expect("ecat states -i tk-nosuch0 OP PREOP", 2, "unexpected argument 'PREOP'", NULL);
    expect("plk sdo -i tk-nosuch0 write 1 0x6200 1 5 6", 2, "unexpected argument '6'", NULL);
}

static void missing_cpu(void **state)
{
    (void)state;
    long n = sysconf(_SC_NPROCESSORS_CONF);
    assert_true(n > 0 && n < 4095);
    char args[128], want[96];
    snprintf(args, sizeof args, "rt latency -c 1000 -t 0.05 -a %ld", n);
    snprintf(want, sizeof want, "CPU %ld does not exist (this machine has CPUs 0-%ld)", n, n - 1);
    expect(args, 2, want, "--cpu-optional");
    /* told so, it runs unpinned and says it */
    snprintf(args, sizeof args, "rt latency -c 1000 -t 0.05 -a %ld --cpu-optional", n);
    expect(args, 0, "without CPU affinity", "PerfMsmt");
    /* `takt check -a` audits a CPU (perhaps of a copied tree): it pins nothing */
    static char out[65536];
    snprintf(args, sizeof args, "check -a %ld", n);
    run(args, out, sizeof out);
    if (strstr(out, "does not exist (this machine"))
        fail_msg("takt %s was refused as a pinning:\n%s", args, out);
}

/* The default a text states for option `opt` ("-t ... default 10"), into tok; false if none. */
static bool text_default(const char *text, char opt, char *tok, size_t n)
{
    char flag[4] = { '-', opt, 0 };
    for (const char *p = strstr(text, flag); p; p = strstr(p + 1, flag)) {
        if (p > text && !strchr(" (/", p[-1]))
            continue;
        if (isalnum((unsigned char)p[2]) || p[2] == '-')
            continue;
        const char *end = strpbrk(p, ".\n");   /* the claim stays in its sentence and line */
        const char *d = strstr(p, "default ");
        if (!d || (end && d > end) || d - p > 60)
            continue;
        d += 8;
        size_t k = 0;
        while (k + 1 < n && (isdigit((unsigned char)d[k]) || d[k] == '.'))
            k++;
        if (!k)
            continue;
        memcpy(tok, d, k);
        tok[k] = 0;
        return true;
    }
    return false;
}

/* The help of command cmd: its text (before "Options:") and its option line for opt. */
static void check_cmd(const char *cmd, char opt, const char *want)
{
    static char out[65536];
    char args[96];
    snprintf(args, sizeof args, "help %s", cmd);
    if (run(args, out, sizeof out) != 0)
        fail_msg("takt help %s failed:\n%s", cmd, out);
    char *opts = strstr(out, "\nOptions:\n");
    assert_non_null(opts);
    *opts = 0;
    char key[8];
    snprintf(key, sizeof key, "\n  -%c, ", opt);
    char *line = strstr(opts + 1, key);
    if (!line)
        return;   /* the command has no such option */
    char *eol = strchr(line + 1, '\n');
    if (eol)
        *eol = 0;
    char tok[32], needle[48];
    if (text_default(out, opt, tok, sizeof tok)) {
        snprintf(needle, sizeof needle, "default %s", tok);
        if (!strstr(line, needle))
            fail_msg("takt help %s: the text says -%c has default %s, its option line says:%s", cmd, opt, tok,
                     line);
    }
    if (want && !strstr(line, want))
        fail_msg("takt help %s: -%c runs with '%s' when absent, its option line says:%s", cmd, opt, want, line);
}

/* Every command of the overview, and what bench, ecat bench, ecat run and plk mn use
 * when -p or -t is absent (cli_bench.c, bench.c, cli_ecat_bench.c, cli_ecat_run.c,
 * cli_plk_mn.c) */
static void help_defaults(void **state)
{
    (void)state;
    check_cmd("bench", 'p', "default 80");
    check_cmd("bench", 't', "default 10");
    check_cmd("ecat bench", 'p', "default 80");
    check_cmd("ecat bench", 't', "default 60");
    check_cmd("ecat run", 't', "until Ctrl-C");
    check_cmd("ecat run", 'p', "default: none");
    check_cmd("plk mn", 't', "until Ctrl-C");
    check_cmd("plk mn", 'p', "default: none");
    check_cmd("plk bench", 't', "default 5");
    check_cmd("plk sdo", 't', "default 20");
    check_cmd("ecat states", 't', "default 15");
    check_cmd("link bench", 't', "default 10");
    check_cmd("demo", 't', "default 10");
    check_cmd("demo plk", 't', "default 10");
    static char list[16384];
    assert_int_equal(run("--help", list, sizeof list), 0);
    char *p = strstr(list, "Commands:\n");
    assert_non_null(p);
    for (char *save = NULL, *l = strtok_r(p + 10, "\n", &save); l && !strncmp(l, "  ", 2);
         l = strtok_r(NULL, "\n", &save)) {
        char a[32] = "", b[32] = "", name[70];
        if (sscanf(l, " %31s %31s", a, b) < 1)
            continue;
        /* "area verb" when the second word is a verb of the first, else a top-level command */
        char probe[96];
        static char tmp[16384];
        snprintf(probe, sizeof probe, "help %s %s", a, b);
        snprintf(name, sizeof name, "%s", a);
        if (run(probe, tmp, sizeof tmp) == 0 && strstr(tmp, "Usage: takt ") &&
            !strncmp(tmp + 12, a, strlen(a)) && tmp[12 + strlen(a)] == ' ' &&
            !strncmp(tmp + 13 + strlen(a), b, strlen(b)))
            snprintf(name, sizeof name, "%s %s", a, b);
        check_cmd(name, 'p', NULL);
        check_cmd(name, 't', NULL);
    }
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    if (!bin || !*bin) {
        fprintf(stderr, "SKIP: TAKT_BIN is not set (run through ctest)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(area_help),
        cmocka_unit_test(out_of_range),
        cmocka_unit_test(extra_positional),
        cmocka_unit_test(missing_cpu),
        cmocka_unit_test(help_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
