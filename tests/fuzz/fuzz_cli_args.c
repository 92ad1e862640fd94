/* Fuzz target: the command line up to the run (cli_parse in src/cli/cli.c): the
 * command found in the area tables, `help`, then getopt_long over the common options
 * and the command's own table, with the numeric checks of -c, -a, -p, -t, --perf.
 * argv is the input split at NUL bytes (argv[0] = "takt"); nothing runs and nothing
 * is opened. What it prints (help, usage errors) goes to /dev/null. */
#include "cli/cli.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const prefix[] = { "takt" };
    struct fuzz_argv a;
    fuzz_argv_split(&a, data, size, prefix, 1);
    int argc = a.argc;
    char **argv = a.argv;
    fuzz_quiet(&a);
    struct cli_ctx c;
    int rc = cli_parse(argc, argv, &c);
    fuzz_loud(&a);
    if (rc == -1) {
        /* a command to run: its options are strings of argv, its positionals follow */
        if (!c.cmd || !c.cmd->run || c.argc < 0 || c.argc > argc || c.cycle_ns < 10000 || c.prio < 0 ||
            c.prio > 99 || c.cpu < -1 || c.time_s < 0 || c.perf_s < 0)
            abort();
        for (int i = 0; i < CLI_MAX_EXTRA; i++)
            if (c.extra[i])
                (void)strlen(c.extra[i]);
        for (int i = 0; i < c.argc; i++)
            (void)strlen(c.argv[i]);
    } else if (rc != 0 && rc != 2) {
        abort();
    }
    fuzz_argv_free(&a);
    return 0;
}
