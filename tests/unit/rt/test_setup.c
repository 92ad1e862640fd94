/* takt_rt_setup as an unprivileged-like configuration: nothing asked gives no warning, an
 * impossible request gives exactly one warning naming the problem, and the run goes on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <takt/rt.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

struct warns {
    unsigned n;
    char last[320];
};

static void collect(void *ctx, const char *msg)
{
    struct warns *w = ctx;
    w->n++;
    snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void plain_opts(struct takt_rt_opts *o)
{
    takt_rt_opts_default(o);
    o->mlock = false;          /* process-wide; keep the test process as it is */
    o->dma_latency = false;
}

static void test_defaults(void **state)
{
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    assert_int_equal(o.cpu, -1);
    assert_int_equal(o.prio, 0);
    assert_true(o.mlock);
    assert_true(o.dma_latency);
    assert_int_equal(o.prefault_stack, 64 * 1024);
}

static void test_nothing_asked_no_warning(void **state)
{
    struct takt_rt_opts o;
    plain_opts(&o);
    struct takt_rt_state st;
    struct warns w = { 0 };
    takt_rt_setup(&o, &st, collect, &w);
    assert_int_equal(w.n, 0);
    assert_int_equal(st.warnings, 0);
    assert_false(st.affinity_ok);
    assert_false(st.fifo_ok);
    assert_int_equal(st.dma_fd, -1);
    takt_rt_teardown(&st);
}

static void test_impossible_cpu_one_warning(void **state)
{
    struct takt_rt_opts o;
    plain_opts(&o);
    o.cpu = 4000;
    struct takt_rt_state st;
    struct warns w = { 0 };
    takt_rt_setup(&o, &st, collect, &w);
    assert_int_equal(w.n, 1);
    assert_int_equal(st.warnings, 1);
    assert_false(st.affinity_ok);
    assert_non_null(strstr(w.last, "CPU 4000"));
    takt_rt_teardown(&st);
    /* the run goes on: the thread still works and can sleep on a deadline */
    struct takt_rt_cycle c;
    takt_rt_cycle_init(&c, 100000, takt_now() + 100000);
    takt_rt_cycle_wait(&c);
    assert_int_equal(c.cycles, 1);
}

static void test_bad_priority_one_warning(void **state)
{
    struct takt_rt_opts o;
    plain_opts(&o);
    o.prio = 1000;
    struct takt_rt_state st;
    struct warns w = { 0 };
    takt_rt_setup(&o, &st, collect, &w);
    assert_int_equal(w.n, 1);
    assert_false(st.fifo_ok);
    assert_non_null(strstr(w.last, "1000"));
    assert_non_null(strstr(w.last, "SCHED_OTHER"));
}

static void test_cpu0_pins(void **state)
{
    struct takt_rt_opts o;
    plain_opts(&o);
    o.cpu = 0;
    struct takt_rt_state st;
    struct warns w = { 0 };
    takt_rt_setup(&o, &st, collect, &w);
    /* CPU 0 may be outside a restricted cpuset: then one warning, never more */
    assert_true(w.n <= 1);
    assert_true(st.affinity_ok == (w.n == 0));
}

/* What takt_rt_setup says took effect did: the kernel's view of this thread and process. */
static void check_in_effect(const struct takt_rt_state *st)
{
    if (st->affinity_ok) {
        cpu_set_t set;
        assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
        assert_int_equal(CPU_COUNT(&set), 1);
        assert_true(CPU_ISSET(0, &set));
    }
    if (st->fifo_ok) {
        int pol;
        struct sched_param sp;
        assert_int_equal(pthread_getschedparam(pthread_self(), &pol, &sp), 0);
        assert_int_equal(pol, SCHED_FIFO);
        assert_int_equal(sp.sched_priority, 10);
    }
    if (st->mlock_ok && !SANITIZED) {             /* ASan's mlockall is a no-op */
        FILE *f = fopen("/proc/self/status", "r");
        char line[128];
        long kb = -1;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
                break;
        if (f)
            fclose(f);
        assert_true(kb > 0);
    }
    if (st->dma_latency_ok) {
        /* reading the device gives the request in force: ours (0) or a lower one */
        int32_t v = -1;
        int fd = open("/dev/cpu_dma_latency", O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(read(fd, &v, sizeof v), (ssize_t)sizeof v);
        close(fd);
        assert_int_equal(v, 0);
    }
}

static void test_full_setup_warns_at_most_once_each(void **state)
{
    /* Whatever privileges this process has, each of the four requests gives either
     * full success or exactly one warning (mlockall without MCL_FUTURE is a partial
     * success that warns); nothing aborts. */
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    o.cpu = 0;
    o.prio = 10;
    struct takt_rt_state st;
    struct warns w = { 0 };
    takt_rt_setup(&o, &st, collect, &w);
    unsigned ok = st.affinity_ok + st.fifo_ok + st.mlock_future + st.dma_latency_ok;
    assert_true(st.mlock_ok || !st.mlock_future);
    assert_int_equal(ok + w.n, 4);
    assert_true(st.dma_latency_ok == (st.dma_fd >= 0));
    check_in_effect(&st);
    takt_rt_teardown(&st);
    assert_int_equal(st.dma_fd, -1);
    /* back to SCHED_OTHER so later tests in this process are ordinary */
    struct sched_param sp = { 0 };
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

/* In a child made unprivileged (as root: RLIMIT_RTPRIO and RLIMIT_MEMLOCK 0, then
 * setuid(nobody), which drops every capability; otherwise the soft limits lowered):
 * every request is refused, each with one warning naming what is missing. */
static void pipe_warn(void *ctx, const char *msg)
{
    int fd = *(int *)ctx;
    char line[400];
    int n = snprintf(line, sizeof(line), "%s\n", msg);
    if (write(fd, line, (size_t)n) != n)
        _exit(3);
}

static void unprivileged_child(int fd)
{
    struct rlimit zero = { 0, 0 };
    if (getuid() == 0) {
        if (setrlimit(RLIMIT_RTPRIO, &zero) || setrlimit(RLIMIT_MEMLOCK, &zero) ||
            setgid(65534) || setuid(65534))
            _exit(2);
    } else {
        struct rlimit rl;
        getrlimit(RLIMIT_RTPRIO, &rl);
        rl.rlim_cur = 0;
        setrlimit(RLIMIT_RTPRIO, &rl);
        getrlimit(RLIMIT_MEMLOCK, &rl);
        rl.rlim_cur = 0;
        setrlimit(RLIMIT_MEMLOCK, &rl);
    }
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    o.prio = 80;
    struct takt_rt_state st;
    takt_rt_setup(&o, &st, pipe_warn, &fd);
    char line[64];
    int n = snprintf(line, sizeof(line), "STATE %d %d %d %u\n", st.fifo_ok, st.mlock_ok,
                     st.dma_latency_ok, st.warnings);
    if (write(fd, line, (size_t)n) != n)
        _exit(3);
    takt_rt_teardown(&st);
    _exit(0);
}

static void test_unprivileged_warnings(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        unprivileged_child(p[1]);
    }
    close(p[1]);
    char out[4096] = "";
    size_t len = 0;
    ssize_t n;
    while (len < sizeof(out) - 1 && (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(p[0]);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    print_message("%s", out);
    int fifo, mlock, dma;
    unsigned warnings;
    const char *st = strstr(out, "STATE ");
    assert_non_null(st);
    assert_int_equal(sscanf(st, "STATE %d %d %d %u", &fifo, &mlock, &dma, &warnings), 4);
    assert_false(fifo);
    /* ASan's interceptor makes mlockall a successful no-op; the warning about the
     * missing CAP_IPC_LOCK / RLIMIT_MEMLOCK comes either way */
    if (!SANITIZED)
        assert_false(mlock);
    /* /dev/cpu_dma_latency may be writable for a user through a udev rule */
    assert_int_equal(warnings, 2 + !dma);
    assert_non_null(strstr(out, "CAP_SYS_NICE"));
    assert_non_null(strstr(out, "RLIMIT_RTPRIO"));
    assert_non_null(strstr(out, "CAP_IPC_LOCK"));
    assert_non_null(strstr(out, "RLIMIT_MEMLOCK"));
    if (!dma)
        assert_non_null(strstr(out, "/dev/cpu_dma_latency"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_nothing_asked_no_warning),
        cmocka_unit_test(test_impossible_cpu_one_warning),
        cmocka_unit_test(test_bad_priority_one_warning),
        cmocka_unit_test(test_cpu0_pins),
        cmocka_unit_test(test_full_setup_warns_at_most_once_each),
        cmocka_unit_test(test_unprivileged_warnings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
