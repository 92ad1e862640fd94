/* Fuzz target: the options of `takt plk cn` that need no link (cli_plk_cn_options in
 * src/cli/cli_plk.c): --node/--nodes, the CN fault options --drop, --late, --late-us,
 * --malformed, --vanish N@S[+D], --wrong-id, and --nmt-request CMD@T[+S]. The input,
 * split at NUL bytes, is what follows `takt plk cn` on the command line; accepted values
 * must be inside the ranges the help gives, and times must fit takt_ns_t (the CN turns
 * them into nanoseconds). Messages go to /dev/null. */
#include "cli/cli.h"
#include "cli/cli_plk.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const prefix[] = { "takt", "plk", "cn" };
    struct fuzz_argv args;
    fuzz_argv_split(&args, data, size, prefix, 3);
    fuzz_quiet(&args);
    struct cli_ctx c;
    int rc = cli_parse(args.argc, args.argv, &c);
    if (rc == -1) {
        unsigned a, b, cmd, target;
        double after;
        struct takt_sim_plk_faults f;
        rc = cli_plk_cn_options(&c, &a, &b, &f, &cmd, &target, &after);
        if (rc == 0 && (a < 1 || b > 239 || a > b || f.drop_permille > 1000 || f.late_permille > 1000 ||
                        f.malformed_permille > 1000 || f.late_ns <= 0 || f.vanish_at < 0 ||
                        f.vanish_for < 0 || f.vanish_node > 239 || f.wrong_id_node > 239 ||
                        (cmd && (cmd > 0xFE || target > 255 || !(after >= 0 && after * 1e9 < 9e18)))))
            abort();
        if (rc != 0 && rc != 2)
            abort();
    }
    fuzz_loud(&args);
    fuzz_argv_free(&args);
    return 0;
}
