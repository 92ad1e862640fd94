/* Shared by the CLI tests: run the takt binary with arguments through the shell and
 * capture what it prints. Header-only (each test is one program). */
#ifndef TAKT_TEST_RUN_H
#define TAKT_TEST_RUN_H

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Run `'BIN' ARGS REDIR </dev/null` (REDIR e.g. "2>&1" or "2>/dev/null"), keep the first
 * n-1 bytes of stdout in out (NUL-terminated) and return the exit status (-1 when it
 * did not exit). Everything is read, so a long output never dies of SIGPIPE. */
static inline int takt_run(const char *bin, const char *args, const char *redir, char *out, size_t n)
{
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "'%.1000s' %.1100s %.60s </dev/null", bin, args, redir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    char rest[4096];
    while (fread(rest, 1, sizeof rest, p) > 0)
        ;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Fail the test unless `'BIN' ARGS` (stdout and stderr) exits with status and prints s1
 * and s2 (NULL: anything), showing what it printed. The CLI tests' expect(). */
static inline void takt_expect(const char *bin, const char *args, int status, const char *s1,
                               const char *s2)
{
    static char out[65536];
    int rc = takt_run(bin, args, "2>&1", out, sizeof out);
    if (rc != status || (s1 && !strstr(out, s1)) || (s2 && !strstr(out, s2)))
        fail_msg("takt %s: exit %d (want %d), output:\n%s\n(want '%s' and '%s')", args, rc, status, out,
                 s1 ? s1 : "", s2 ? s2 : "");
}

#endif
