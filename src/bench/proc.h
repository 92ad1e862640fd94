/* Child processes for takt bench: the stack under test, the simulated network, load
 * generators and cyclictest, optionally inside one side of a namespace pair. */
#ifndef TAKT_BENCH_PROC_H
#define TAKT_BENCH_PROC_H

#include <stdbool.h>
#include <sys/types.h>
#include <takt/netns.h>

/* Full path of a program on PATH, or NULL (buf holds it). */
const char *bench_which(const char *prog, char *buf, size_t cap);
/* Debian package that provides a program takt bench uses ("rt-tests" for cyclictest). */
const char *bench_package_of(const char *prog);

/* Start argv (argv[0] looked up on PATH) in a new process group; inside side `side` of
 * ns when ns is non-NULL. stdout/stderr go to out_path (NULL: /dev/null; "-": inherit).
 * Returns the pid or -errno. */
pid_t bench_spawn(char *const argv[], const struct takt_netns *ns, int side, const char *out_path);
/* Wait for pid up to timeout_s (< 0: forever). Returns the exit status (0..255), 128+sig
 * when killed by a signal, or -ETIMEDOUT (the process keeps running). */
int bench_wait(pid_t pid, double timeout_s);
/* SIGTERM the process group, then SIGKILL after grace_s; reaps it. */
void bench_stop(pid_t pid, double grace_s);

#endif
