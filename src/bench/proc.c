/* Child process handling for takt bench (see proc.h). */
#include "bench/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *bench_which(const char *prog, char *buf, size_t cap)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0 ? snprintf(buf, cap, "%s", prog), buf : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
    /* root's PATH on Debian holds sbin; an ordinary user's may not, but tools live there */
    char all[4096];
    snprintf(all, sizeof all, "%s:/usr/sbin:/sbin", path);
    for (char *save = NULL, *dir = strtok_r(all, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, cap, "%s/%s", dir, prog);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

const char *bench_package_of(const char *prog)
{
    static const struct { const char *prog, *pkg; } map[] = {
        { "cyclictest", "rt-tests" }, { "hackbench", "rt-tests" }, { "stress-ng", "stress-ng" },
        { "gnuplot", "gnuplot-nox" }, { "cc", "gcc" }, { "ping", "iputils-ping" },
        { "ip", "iproute2" },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].prog, prog))
            return map[i].pkg;
    return prog;
}

pid_t bench_spawn(char *const argv[], const struct takt_netns *ns, int side, const char *out_path)
{
    char exe[4096];
    if (!bench_which(argv[0], exe, sizeof exe))
        return -ENOENT;
    fflush(NULL);
    pid_t pid = ns ? takt_netns_fork(ns, side) : fork();
    if (pid < 0)
        return ns ? pid : -errno;
    if (pid > 0) {
        setpgid(pid, pid);
        return pid;
    }
    setpgid(0, 0);
    if (!out_path || strcmp(out_path, "-")) {
        int fd = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, STDIN_FILENO);
    execv(exe, argv);
    fprintf(stderr, "takt bench: cannot run %s: %s\n", exe, strerror(errno));
    _exit(127);
}

int bench_wait(pid_t pid, double timeout_s)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (r < 0 && errno != EINTR)
            return -errno;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (timeout_s >= 0 && el >= timeout_s)
            return -ETIMEDOUT;
        struct timespec ten_ms = { 0, 10000000 };
        nanosleep(&ten_ms, NULL);
    }
}

void bench_stop(pid_t pid, double grace_s)
{
    if (pid <= 0)
        return;
    kill(-pid, SIGTERM);
    kill(pid, SIGTERM);
    if (bench_wait(pid, grace_s) == -ETIMEDOUT) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        bench_wait(pid, -1);
    }
}
