/* One `takt ecat` command run in process against a simulated network: the tests of
 * the ecat tools share it (test_ecat_cli.c, test_ecat_sii_cli.c). */
#ifndef TAKT_TEST_CLI_SIM_RUN_H
#define TAKT_TEST_CLI_SIM_RUN_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <takt/link.h>
#include <takt/sim.h>
#include "cli/cli.h"

/* Run `takt ARGS` (split at spaces) against sim; stdout and stderr into out. */
static int run_on(struct takt_sim *sim, const char *args, char *out, size_t n)
{
    char line[1024];
    snprintf(line, sizeof line, "takt %s", args);
    char *argv[40];
    int argc = 0;
    for (char *tok = strtok(line, " "); tok && argc < 39; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    struct cli_ctx c;
    FILE *cap = tmpfile();
    assert_non_null(cap);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    dup2(fileno(cap), 1);
    dup2(fileno(cap), 2);
    int rc = cli_parse(argc, argv, &c);
    struct takt_link *a = NULL, *b = NULL;
    if (rc < 0) {
        assert_int_equal(takt_link_mem_pair(&a, &b, 256, NULL, NULL), 0);
        takt_sim_attach_mem(sim, b);
        c.link = a;   /* a command that takes it closes it */
        c.link_taken = false;
        rc = c.cmd->run(&c);
        if (!c.link_taken)
            takt_link_close(a);   /* not taken: refused first, or a verb with no bus */
    }
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    if (b)
        takt_link_close(b);
    rewind(cap);
    size_t got = fread(out, 1, n - 1, cap);
    out[got] = 0;
    fclose(cap);
    return rc;
}

#endif
