/* takt netns: network-namespace pairs for shell tests (the library helper of
 * include/takt/netns.h, exposed as commands). Exit 77 = namespaces impossible here. */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/netns.h>
#include "cli/cli.h"

#define EXIT_SKIP 77   /* what test harnesses (CTest SKIP_RETURN_CODE, automake) read as skipped */

static int side_of(struct cli_ctx *c, const char *s)
{
    if (!strcmp(s, "a") || !strcmp(s, "A"))
        return TAKT_NETNS_A;
    if (!strcmp(s, "b") || !strcmp(s, "B"))
        return TAKT_NETNS_B;
    return cli_usage_error(c, "side expects 'a' or 'b', got '%s'", s), -1;
}

/* Wait for the command; a SIGINT/SIGTERM sent to takt alone (kill, timeout(1), a test
 * harness) is passed on to it once, so it can end cleanly and the pair be removed. */
static int wait_child(pid_t pid)
{
    int st;
    bool passed_on = false;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR)
            return 1;
        if (cli_interrupted && !passed_on) {
            kill(pid, cli_interrupted);
            passed_on = true;
        }
    }
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

static int run_run(struct cli_ctx *c)
{
    if (c->argc < 1)
        return cli_usage_error(c, "a command to run is expected after 'takt netns run --'");
    struct takt_netns ns;
    char why[256];
    if (takt_netns_create(&ns, why, sizeof why)) {
        fprintf(stderr, "takt netns run: network namespaces unavailable: %s\n", why);
        return EXIT_SKIP;
    }
    if (c->verbose)
        fprintf(stderr, "takt netns run: %s (side A) <-> %s (side B)%s\n", ns.ifname[0], ns.ifname[1],
                ns.userns ? " in a user namespace" : "");
    takt_netns_export(&ns);
    fflush(NULL);
    pid_t pid = takt_netns_fork(&ns, TAKT_NETNS_A);
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execvp(c->argv[0], c->argv);
        fprintf(stderr, "takt netns run: cannot run '%s': %s\n", c->argv[0], strerror(errno));
        _exit(127);
    }
    int rc = pid < 0 ? cli_error(c, "cannot start '%s' in side A: %s", c->argv[0], strerror(-pid))
                     : wait_child(pid);
    takt_netns_destroy(&ns);
    return rc;
}

static int run_exec(struct cli_ctx *c)
{
    if (c->argc < 2)
        return cli_usage_error(c, "expected a side (a or b) and a command, e.g. 'takt netns exec b -- CMD'");
    int side = side_of(c, c->argv[0]);
    if (side < 0)
        return 2;
    char **cmd = c->argv + 1;
    if (!strcmp(cmd[0], "--") && !*++cmd)   /* getopt stopped at the side, before "--" */
        return cli_usage_error(c, "a command is expected after 'takt netns exec %s --'", c->argv[0]);
    pid_t holder;
    bool userns;
    char why[256];
    if (takt_netns_from_env(side, &holder, &userns, why, sizeof why))
        return cli_error(c, "%s", why);
    int rc = takt_netns_enter(holder, userns);
    if (rc)
        return cli_error(c, "entering side %s (holder pid %d): %s", c->argv[0], (int)holder, strerror(-rc));
    execvp(cmd[0], cmd);
    fprintf(stderr, "takt netns exec: cannot run '%s': %s\n", cmd[0], strerror(errno));
    return 127;
}

static int run_check(struct cli_ctx *c)
{
    struct takt_netns ns;
    char why[256];
    if (takt_netns_create(&ns, why, sizeof why)) {
        printf("network namespaces unavailable: %s\n", why);
        return EXIT_SKIP;
    }
    printf("network namespaces available%s\n", ns.userns ? " (unprivileged user namespace)" : "");
    takt_netns_destroy(&ns);
    return 0;
}

const struct cli_cmd cli_cmds_netns[] = {
    { "netns", "run", "[--] CMD [ARG...]", "run CMD in side A of a fresh namespace pair joined by veth",
      "Creates two network namespaces joined by a veth pair (a user namespace when not\n"
      "root), runs CMD in side A with TAKT_IF_A / TAKT_IF_B (the veth ends) and\n"
      "TAKT_NETNS_PID_A/B, TAKT_NETNS_USERNS in the environment, and removes everything\n"
      "when CMD ends. Inside CMD, 'takt netns exec b -- CMD2' runs CMD2 in side B.\n"
      "Exit status: CMD's, or 77 (with the reason) when namespaces cannot be made.",
      0, NULL, run_run, NULL },
    { "netns", "exec", "a|b [--] CMD [ARG...]", "run CMD in side a or b of the pair of 'takt netns run'",
      NULL, 0, NULL, run_exec, NULL },
    { "netns", "check", NULL, "say whether namespace pairs can be made here (exit 77 if not, and why)",
      NULL, 0, NULL, run_check, NULL },
    { 0 }
};
