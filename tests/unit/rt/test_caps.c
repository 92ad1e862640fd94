/* Capability helpers (src/rt/caps.c): what the real-time set-up uses, what it still
 * needs afterwards and why, and that a drop empties every set of the calling thread.
 * Cases that need capabilities run in a forked child and skip without them (an
 * ordinary user's unit run); the process itself is left as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/rt.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define SKIP_CODE 77

/* Run fn in a child; its exit status: 0 pass, SKIP_CODE skip, else the failed step. */
static int in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn());
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static uint64_t status_field(const char *name)
{
    char line[256];
    uint64_t v = UINT64_MAX;
    FILE *f = fopen("/proc/thread-self/status", "r");
    if (!f)
        return v;
    size_t n = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == ':')
            v = strtoull(line + n + 1, NULL, 16);
    fclose(f);
    return v;
}

static void test_for_setup(void **state)
{
    (void)state;
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    assert_false(o.drop_caps);                       /* a library user opts in */
    assert_int_equal(takt_rt_caps_for_setup(&o), TAKT_RT_CAP(CAP_IPC_LOCK));
    o.prio = 10;
    assert_int_equal(takt_rt_caps_for_setup(&o), TAKT_RT_CAP(CAP_IPC_LOCK) | TAKT_RT_CAP(CAP_SYS_NICE));
    o.mlock = false;
    assert_int_equal(takt_rt_caps_for_setup(&o), TAKT_RT_CAP(CAP_SYS_NICE));
    o.prio = 0;
    assert_int_equal(takt_rt_caps_for_setup(&o), 0);
}

static int after_setup_child(void)
{
    if (!(takt_rt_caps_effective() & TAKT_RT_CAP(CAP_IPC_LOCK)))
        return SKIP_CODE;
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    struct rlimit rl = { 1 << 20, 1 << 20 };
    if (setrlimit(RLIMIT_MEMLOCK, &rl))
        return 1;
    if (takt_rt_caps_after_setup(&o) != TAKT_RT_CAP(CAP_IPC_LOCK))
        return 2;                                    /* finite limit: MCL_FUTURE needs it */
    o.mlock = false;
    if (takt_rt_caps_after_setup(&o) != 0)
        return 3;                                    /* no mlockall, nothing to keep */
    o.mlock = true;
    rl = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
    if (setrlimit(RLIMIT_MEMLOCK, &rl) == 0 && takt_rt_caps_after_setup(&o) != 0)
        return 4;                                    /* no limit: nothing to keep */
    return 0;
}

static void test_after_setup(void **state)
{
    (void)state;
    int rc = in_child(after_setup_child);
    if (rc == SKIP_CODE)
        skip();
    assert_int_equal(rc, 0);
}

/* The reason CAP_IPC_LOCK is kept: under MCL_FUTURE and a finite limit, a drop of it
 * makes a 16 MiB allocation fail; the drop takt_rt_caps_after_setup() asks for does not. */
static int alloc_after_drop(bool keep_what_is_needed)
{
    if (!(takt_rt_caps_effective() & TAKT_RT_CAP(CAP_IPC_LOCK)))
        return SKIP_CODE;
    struct rlimit rl = { 4 << 20, 4 << 20 };
    if (setrlimit(RLIMIT_MEMLOCK, &rl))
        return 1;
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    if (mlockall(MCL_CURRENT | MCL_FUTURE))
        return 2;
    if (takt_rt_caps_drop(keep_what_is_needed ? takt_rt_caps_after_setup(&o) : 0))
        return 3;
    size_t len = 16u << 20;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? 10 : 0;
}
static int alloc_keep(void) { return alloc_after_drop(true); }
static int alloc_all(void) { return alloc_after_drop(false); }

static void test_ipc_lock_kept_for_mcl_future(void **state)
{
    (void)state;
    if (SANITIZED)
        skip();                                      /* the sanitizers' mlockall is a no-op */
    int rc = in_child(alloc_keep);
    if (rc == SKIP_CODE)
        skip();
    assert_int_equal(rc, 0);
    assert_int_equal(in_child(alloc_all), 10);
}

static int drop_child(void)
{
    if (!takt_rt_caps_permitted())
        return SKIP_CODE;
    uint64_t keep = TAKT_RT_CAP(CAP_IPC_LOCK);
    bool had = takt_rt_caps_permitted() & keep;
    if (takt_rt_caps_drop(keep))
        return 1;
    if (takt_rt_caps_permitted() != (had ? keep : 0) || takt_rt_caps_effective() != (had ? keep : 0))
        return 2;
    if (status_field("CapInh") != 0 || status_field("CapAmb") != 0)
        return 3;
    if (takt_rt_caps_drop(0) || takt_rt_caps_permitted() || takt_rt_caps_effective())
        return 4;
    if (status_field("CapPrm") != 0 || status_field("CapEff") != 0)
        return 5;
    /* gone for good: asking for one back is refused */
    if (takt_rt_caps_drop(TAKT_RT_CAP(CAP_NET_RAW)) || takt_rt_caps_effective())
        return 6;
    return 0;
}

static void test_drop(void **state)
{
    (void)state;
    int rc = in_child(drop_child);
    if (rc == SKIP_CODE)
        skip();
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_for_setup),
        cmocka_unit_test(test_after_setup),
        cmocka_unit_test(test_ipc_lock_kept_for_mcl_future),
        cmocka_unit_test(test_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
