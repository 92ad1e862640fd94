/* takt check: the real-time tuning audit, printed as a verdict table or JSON. */
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bench/check.h"
#include "cli/cli.h"

static int run_check(struct cli_ctx *c)
{
    if (c->argc)
        return cli_usage_error(c, "no positional arguments expected, got '%s'", c->argv[0]);
    char exe[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    struct check_env env = { .root = cli_get(c, "root"), .iface = c->iface, .cpu = c->cpu,
                             .binary = *exe ? exe : NULL };
    struct check_report r;
    check_run(&env, &r);
    if (c->json) {
        json_object *j = check_to_json(&r);
        int rc = cli_write_json(c, j);
        json_object_put(j);
        if (rc)
            return rc;
    }
    if (!c->json || strcmp(c->json, "-"))
        check_print(stdout, &r, isatty(STDOUT_FILENO));
    return r.count[CHECK_FAIL] ? 1 : 0;
}

static const struct cli_opt check_opts[] = {
    { "root", 0, 1, "DIR", "read /proc and /sys below DIR (to audit a copied tree)" },
    { 0 }
};

const struct cli_cmd cli_cmds_check[] = {
    { NULL, "check", NULL, "audit the real-time tuning of this machine (kernel, CPUs, interface, privileges)",
      "Reads the kernel type, clock source, kernel command line, CPU governor, SMT, RT throttling,\n"
      "the interface's IRQ affinity and interrupt coalescing (-i), whether the cycle CPU (-a) is\n"
      "isolated, and the capabilities and limits of the current user. Each item gets a verdict\n"
      "(ok, info, warn, fail, unknown) and the concrete fix. Changes nothing.\n"
      "Exit status: 0, or 1 when an item fails (e.g. no PREEMPT_RT kernel).",
      CLI_IFACE | CLI_CPU | CLI_JSON, check_opts, run_check, NULL },
    { 0 }
};
