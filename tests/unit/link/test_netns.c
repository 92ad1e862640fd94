/* Namespace pairs are always removed: when their creator is killed with SIGKILL (no
 * destructor runs) the holders exit and no process keeps either namespace, for the
 * library and for `takt netns run` (its command too); names are unique between live
 * pairs; where pairs cannot be made the reason is given. Skips (77) with the reason
 * when namespaces cannot be made here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <takt/netns.h>

/* Orphaned holders are re-parented to us (subreaper), so we can reap them and know. */
static int setup(void **state)
{
    struct takt_netns ns;
    char why[256];
    if (takt_netns_create(&ns, why, sizeof why)) {
        fprintf(stderr, "SKIP: network namespaces unavailable: %s\n", why);
        exit(77);
    }
    takt_netns_destroy(&ns);
    return prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static ino_t netns_ino(pid_t pid)
{
    char p[64];
    struct stat st;
    snprintf(p, sizeof p, "/proc/%d/ns/net", (int)pid);
    return stat(p, &st) ? 0 : st.st_ino;
}

/* Does any process still have the network namespace with inode ino? */
static bool ns_in_use(ino_t ino)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    bool used = false;
    while (d && (e = readdir(d)) && !used) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end == 0 && pid > 0 && netns_ino((pid_t)pid) == ino)
            used = true;
    }
    if (d)
        closedir(d);
    return used;
}

/* Reap pid (our child or an orphan re-parented to us) within 3 s; false if it lives. */
static bool reaped(pid_t pid)
{
    for (int i = 0; i < 300; i++) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD && kill(pid, 0) < 0))
            return true;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return false;
}

static void expect_gone(pid_t holder_a, pid_t holder_b, ino_t ino_a, ino_t ino_b)
{
    assert_true(reaped(holder_a));
    assert_true(reaped(holder_b));
    assert_false(ns_in_use(ino_a));
    assert_false(ns_in_use(ino_b));
}

static void creator_killed(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        struct takt_netns ns;
        char why[256];
        close(p[0]);
        if (takt_netns_create(&ns, why, sizeof why))
            _exit(1);
        pid_t h[2] = { ns.holder[0], ns.holder[1] };
        if (write(p[1], h, sizeof h) != sizeof h)
            _exit(1);
        pause();
        _exit(0);
    }
    close(p[1]);
    pid_t h[2];
    assert_int_equal(read(p[0], h, sizeof h), sizeof h);
    close(p[0]);
    ino_t a = netns_ino(h[0]), b = netns_ino(h[1]);
    assert_true(a && b && a != b && a != netns_ino(getpid()));
    kill(c, SIGKILL);
    assert_int_equal(waitpid(c, NULL, 0), c);
    expect_gone(h[0], h[1], a, b);
}

/* `takt netns run -- CMD` killed with SIGKILL: CMD, holders and namespaces go too. */
static void cli_run_killed(void **state)
{
    const char *bin = getenv("TAKT_BIN");
    if (!bin || access(bin, X_OK))
        skip();                                 /* TAKT_BIN unset or not built */
    char file[] = "/tmp/takt-netns-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    fflush(NULL);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "echo $TAKT_NETNS_PID_A $TAKT_NETNS_PID_B $$ >%s.tmp && mv %s.tmp %s && exec sleep 60",
                 file, file, file);
        execl(bin, bin, "netns", "run", "--", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int ha = 0, hb = 0, sh = 0;
    for (int i = 0; i < 500 && sh == 0; i++) {
        FILE *f = fopen(file, "r");
        if (f) {
            if (fscanf(f, "%d %d %d", &ha, &hb, &sh) != 3)
                sh = 0;
            fclose(f);
        }
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    unlink(file);
    assert_true(ha > 0 && hb > 0 && sh > 0);
    ino_t a = netns_ino(ha), b = netns_ino(hb);
    assert_true(a && b && a != b);
    assert_int_equal(netns_ino(sh), a);          /* CMD runs in side A */
    kill(c, SIGKILL);
    assert_int_equal(waitpid(c, NULL, 0), c);
    assert_true(reaped(sh));                     /* SIGTERM by PR_SET_PDEATHSIG */
    expect_gone(ha, hb, a, b);
}

static void destroy_and_unique_names(void **state)
{
    struct takt_netns n1, n2;
    char why[256];
    assert_int_equal(takt_netns_create(&n1, why, sizeof why), 0);
    assert_int_equal(takt_netns_create(&n2, why, sizeof why), 0);
    assert_string_not_equal(n1.ifname[0], n2.ifname[0]);
    assert_string_not_equal(n1.ifname[1], n2.ifname[1]);
    assert_string_not_equal(n1.ifname[0], n1.ifname[1]);
    pid_t h[2] = { n1.holder[0], n1.holder[1] };
    ino_t a = netns_ino(h[0]), b = netns_ino(h[1]);
    takt_netns_destroy(&n1);
    assert_int_equal(n1.holder[0], 0);
    assert_false(ns_in_use(a));
    assert_false(ns_in_use(b));
    assert_true(netns_ino(n2.holder[0]) != 0);  /* the other pair is untouched */
    takt_netns_destroy(&n2);
    (void)h;
}

static void refused_with_reason(void **state)
{
    struct takt_netns ns;
    char why[256] = "";
    setenv("TAKT_NETNS", "off", 1);
    int rc = takt_netns_create(&ns, why, sizeof why);
    unsetenv("TAKT_NETNS");
    assert_true(rc < 0);
    assert_non_null(strstr(why, "TAKT_NETNS=off"));
    takt_netns_destroy(&ns);                     /* harmless on a failed pair */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(creator_killed),
        cmocka_unit_test(cli_run_killed),
        cmocka_unit_test(destroy_and_unique_names),
        cmocka_unit_test(refused_with_reason),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
