/* Network-namespace pair for tests and the demo (see include/takt/netns.h): holder
 * processes keep two namespaces alive; a short-lived set-up child creates the veth. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/netns.h>
#include "link/link_internal.h"
#include "link/veth.h"

/* Child -> parent report: one byte '0' (ok) or '1' followed by a message. */
static void report(int fd, const char *msg)
{
    char b[300];
    int n = snprintf(b, sizeof b, "%c%s", msg ? '1' : '0', msg ? msg : "");
    if (write(fd, b, (size_t)(n < (int)sizeof b ? n : (int)sizeof b - 1)) < 0)
        _exit(1);
    close(fd);
}

/* Read the child's report to EOF; returns 0 when it said ok. */
static int read_report(int fd, char *why, size_t whylen)
{
    char b[300];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof b - 1 && (n = read(fd, b + got, sizeof b - 1 - got)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    b[got] = 0;
    if (got >= 1 && b[0] == '0')
        return 0;
    link_err(why, whylen, -EPERM, "%s", got > 1 ? b + 1 : "namespace helper process died");
    return -EPERM;
}

static long read_sysctl(const char *path)
{
    char b[32] = "";
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    return n > 0 ? strtol(b, NULL, 10) : -1;
}

/* Why an unprivileged user namespace could not be made, with the knob to turn. */
static void explain_userns(char *m, size_t n, int e)
{
    if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
        snprintf(m, n, "user namespaces are disabled (sysctl user.max_user_namespaces = 0)");
    else if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
        snprintf(m, n, "unprivileged user namespaces are disabled (sysctl kernel.unprivileged_userns_clone = 0)");
    else if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
        snprintf(m, n, "AppArmor restricts unprivileged user namespaces "
                       "(sysctl kernel.apparmor_restrict_unprivileged_userns = 1): %s", strerror(e));
    else
        snprintf(m, n, "cannot create a user namespace: %s (inside a container or seccomp sandbox?)", strerror(e));
}

static int write_file(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, s, strlen(s));
    int e = n < 0 ? -errno : 0;
    close(fd);
    return e;
}

/* Become root of a fresh user namespace: map our uid/gid to 0 (user_namespaces(7)). */
static int make_userns(char *m, size_t n)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER) < 0) {
        explain_userns(m, n, errno);
        return -1;
    }
    char map[64];
    snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
    int rc = write_file("/proc/self/uid_map", map);
    if (!rc)
        rc = write_file("/proc/self/setgroups", "deny");   /* required before gid_map */
    snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
    if (!rc)
        rc = write_file("/proc/self/gid_map", map);
    if (rc) {
        snprintf(m, n, "cannot write the uid/gid map of the new user namespace: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

static int open_ns(pid_t pid, const char *kind)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/ns/%s", (int)pid, kind);
    return open(p, O_RDONLY | O_CLOEXEC);
}

/* Holder: make the namespace (joining A's user namespace for side B), report, then
 * wait for EOF on ctl (creator closed it or died) and exit, dropping the namespace. */
/* A holder lives as long as the pair: it must not keep the creator's other files (a
 * pipe a caller waits on, a socket) open, nor its stdout. */
static void holder_close_fds(int keep1, int keep2)
{
    int lo = keep1 < keep2 ? keep1 : keep2, hi = keep1 < keep2 ? keep2 : keep1;
    if (lo > 3)
        close_range(3, (unsigned)lo - 1, 0);
    if (hi > lo + 1)
        close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
    close_range((unsigned)hi + 1, ~0U, 0);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        if (null != keep1 && null != keep2)
            close(null);
    }
}

static void holder_main(int side, pid_t a_pid, bool userns, int ctl_rd, int rep_wr, pid_t creator)
{
    char m[256];
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != creator)
        _exit(1);                              /* creator died before the prctl */
    holder_close_fds(ctl_rd, rep_wr);
    prctl(PR_SET_NAME, side == TAKT_NETNS_A ? "takt-netns-a" : "takt-netns-b");  /* for ps/top */
    /* Ctrl-C reaches the whole process group: the pair must outlive it until the
     * creator, finishing up, destroys it. */
    signal(SIGINT, SIG_IGN);
    if (userns && side == TAKT_NETNS_A && make_userns(m, sizeof m) < 0)
        goto fail;
    if (userns && side == TAKT_NETNS_B) {
        int fd = open_ns(a_pid, "user");
        if (fd < 0 || setns(fd, CLONE_NEWUSER) < 0) {
            snprintf(m, sizeof m, "joining the user namespace of side A: %s", strerror(errno));
            goto fail;
        }
        close(fd);
    }
    if (unshare(CLONE_NEWNET) < 0) {
        snprintf(m, sizeof m, "cannot create a network namespace: %s%s", strerror(errno),
                 userns ? "" : " (needs CAP_SYS_ADMIN)");
        goto fail;
    }
    report(rep_wr, NULL);
    char c;
    while (read(ctl_rd, &c, 1) != 0 && errno == EINTR)
        ;
    _exit(0);
fail:
    report(rep_wr, m);
    _exit(1);
}

static pid_t start_holder(struct takt_netns *ns, int side, char *why, size_t whylen)
{
    int ctl[2], rep[2];
    if (pipe2(ctl, O_CLOEXEC) < 0)
        return link_err(why, whylen, -errno, "pipe: %s", strerror(errno));
    if (pipe2(rep, O_CLOEXEC) < 0) {
        close(ctl[0]);
        close(ctl[1]);
        return link_err(why, whylen, -errno, "pipe: %s", strerror(errno));
    }
    pid_t creator = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(ctl[1]);
        close(rep[0]);
        if (side == TAKT_NETNS_B && ns->ctl[TAKT_NETNS_A] >= 0)
            close(ns->ctl[TAKT_NETNS_A]);      /* or A would never see EOF while B lives */
        holder_main(side, ns->holder[TAKT_NETNS_A], ns->userns, ctl[0], rep[1], creator);
    }
    close(ctl[0]);
    close(rep[1]);
    if (pid < 0) {
        close(ctl[1]);
        close(rep[0]);
        return link_err(why, whylen, -errno, "fork: %s", strerror(errno));
    }
    ns->holder[side] = pid;
    ns->ctl[side] = ctl[1];
    return read_report(rep[0], why, whylen);
}

/* Set-up child: inside side A create the veth with its peer in B, set both up. */
static int setup_veth(const struct takt_netns *ns, char *why, size_t whylen)
{
    int rep[2];
    if (pipe2(rep, O_CLOEXEC) < 0)
        return link_err(why, whylen, -errno, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        char m[256];
        close(rep[0]);
        int fd_b = open_ns(ns->holder[TAKT_NETNS_B], "net");
        int rc = fd_b < 0 ? -errno : takt_netns_enter(ns->holder[TAKT_NETNS_A], ns->userns);
        if (rc)
            snprintf(m, sizeof m, "entering the namespaces: %s", strerror(-rc));
        if (!rc)
            rc = veth_create(ns->ifname[0], ns->ifname[1], fd_b, m, sizeof m);
        if (!rc)
            rc = link_set_up(ns->ifname[0], m, sizeof m);
        if (!rc && setns(fd_b, CLONE_NEWNET) < 0) {
            rc = -errno;
            snprintf(m, sizeof m, "entering side B: %s", strerror(errno));
        }
        if (!rc)
            rc = link_set_up(ns->ifname[1], m, sizeof m);
        report(rep[1], rc ? m : NULL);
        _exit(rc ? 1 : 0);
    }
    close(rep[1]);
    if (pid < 0) {
        close(rep[0]);
        return link_err(why, whylen, -errno, "fork: %s", strerror(errno));
    }
    int rc = read_report(rep[0], why, whylen);
    waitpid(pid, NULL, 0);
    return rc;
}

static int create_once(struct takt_netns *ns, bool userns, char *why, size_t whylen)
{
    *ns = (struct takt_netns){ .ctl = { -1, -1 }, .userns = userns };
    int rc = start_holder(ns, TAKT_NETNS_A, why, whylen);
    if (!rc)
        rc = start_holder(ns, TAKT_NETNS_B, why, whylen);
    if (!rc) {
        /* holder A's pid makes the names unique on this host */
        snprintf(ns->ifname[0], sizeof ns->ifname[0], "tk%da", (int)ns->holder[0]);
        snprintf(ns->ifname[1], sizeof ns->ifname[1], "tk%db", (int)ns->holder[0]);
        rc = setup_veth(ns, why, whylen);
    }
    if (rc)
        takt_netns_destroy(ns);
    return rc;
}

int takt_netns_create(struct takt_netns *ns, char *why, size_t whylen)
{
    /* A way to force the no-namespace paths (fallbacks, skips) for tests and users. */
    const char *env = getenv("TAKT_NETNS");
    if (env && !strcmp(env, "off")) {
        *ns = (struct takt_netns){ .ctl = { -1, -1 } };
        return link_err(why, whylen, -ENOTSUP, "turned off by the environment (TAKT_NETNS=off)");
    }
    /* root: plain network namespaces, so the sides keep real privileges (SCHED_FIFO);
     * otherwise, or if root is boxed in (no CAP_SYS_ADMIN), a user namespace. */
    if (geteuid() == 0 && create_once(ns, false, why, whylen) == 0)
        return 0;
    return create_once(ns, true, why, whylen);
}

void takt_netns_destroy(struct takt_netns *ns)
{
    for (int i = 0; i < 2; i++) {
        if (ns->ctl[i] >= 0)
            close(ns->ctl[i]);
        ns->ctl[i] = -1;
        if (ns->holder[i] > 0) {
            kill(ns->holder[i], SIGKILL);
            while (waitpid(ns->holder[i], NULL, 0) < 0 && errno == EINTR)
                ;
        }
        ns->holder[i] = 0;
    }
}

static bool same_ns(int fd, const char *self)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(self, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int takt_netns_enter(pid_t holder, bool userns)
{
    int ufd = -1, nfd = open_ns(holder, "net");
    if (nfd < 0)
        return -errno;
    if (userns && (ufd = open_ns(holder, "user")) < 0) {
        int e = errno;
        close(nfd);
        return -e;
    }
    int rc = 0;
    /* setns() into the user namespace we are already in is EINVAL: skip it */
    if (ufd >= 0 && !same_ns(ufd, "/proc/self/ns/user") && setns(ufd, CLONE_NEWUSER) < 0)
        rc = -errno;
    if (!rc && setns(nfd, CLONE_NEWNET) < 0)
        rc = -errno;
    if (ufd >= 0)
        close(ufd);
    close(nfd);
    return rc;
}

pid_t takt_netns_fork(const struct takt_netns *ns, int side)
{
    if (side != TAKT_NETNS_A && side != TAKT_NETNS_B)
        return -EINVAL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid > 0)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(1);
    for (int i = 0; i < 2; i++)
        if (ns->ctl[i] >= 0)
            close(ns->ctl[i]);
    int rc = takt_netns_enter(ns->holder[side], ns->userns);
    if (rc) {
        fprintf(stderr, "takt: entering namespace side %c: %s\n", 'A' + side, strerror(-rc));
        _exit(126);
    }
    return 0;
}

int takt_netns_run(const struct takt_netns *ns, int side, int (*fn)(void *), void *ctx)
{
    fflush(NULL);   /* or buffered output would be written twice */
    pid_t pid = takt_netns_fork(ns, side);
    if (pid < 0)
        return pid;
    if (pid == 0) {
        int rc = fn(ctx);
        fflush(NULL);
        _exit(rc & 0xff);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -EINTR;
}

int takt_netns_export(const struct takt_netns *ns)
{
    char v[32];
    int rc = 0;
    rc |= setenv("TAKT_IF_A", ns->ifname[0], 1);
    rc |= setenv("TAKT_IF_B", ns->ifname[1], 1);
    snprintf(v, sizeof v, "%d", (int)ns->holder[0]);
    rc |= setenv("TAKT_NETNS_PID_A", v, 1);
    snprintf(v, sizeof v, "%d", (int)ns->holder[1]);
    rc |= setenv("TAKT_NETNS_PID_B", v, 1);
    rc |= setenv("TAKT_NETNS_USERNS", ns->userns ? "1" : "0", 1);
    return rc ? -ENOMEM : 0;
}

int takt_netns_from_env(int side, pid_t *holder, bool *userns, char *why, size_t whylen)
{
    const char *name = side == TAKT_NETNS_A ? "TAKT_NETNS_PID_A" : "TAKT_NETNS_PID_B";
    const char *p = getenv(name), *u = getenv("TAKT_NETNS_USERNS");
    char *end;
    long v = p ? strtol(p, &end, 10) : 0;
    if (!p || *end || v <= 0 || !u)
        return link_err(why, whylen, -ENOENT,
                        "%s is not set: run this under 'takt netns run -- CMD' which sets it", name);
    *holder = (pid_t)v;
    *userns = strcmp(u, "1") == 0;
    return 0;
}
