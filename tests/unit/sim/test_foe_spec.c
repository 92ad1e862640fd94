/* The --foe spec (takt_sim_foe): a file's size=N is refused when the slave's disk has no
 * room for it, before any memory is taken for its content: size=4000000000 on the 4 MiB
 * default disk must say "no room" at once, not allocate and fill 4 GB first (checked in
 * a child whose address space is limited to 1 GiB, where that allocation fails; under
 * a sanitizer, which reserves far more address space, without the limit). A file
 * named again keeps its content and takes the new flags; max=N below what the file
 * holds and disk=N below what the files hold are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <takt/sim.h>
#include "sim/esc_foe.h"
#include "sim/net.h"

/* sanitizers reserve far more address space than the limit */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

static void test_size_beyond_disk(void **state)
{
    (void)state;
    struct takt_sim *s;
    char err[256];
    assert_int_equal(takt_sim_create("ek1100,servo", NULL, &s, err, sizeof err), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
#ifndef UNDER_SANITIZER
        struct rlimit rl = { 1ul << 30, 1ul << 30 };
        setrlimit(RLIMIT_AS, &rl);
#endif
        err[0] = 0;
        int rc = takt_sim_foe(s, "1:big.bin,size=4000000000", err, sizeof err);
        if (rc != -ENOSPC || !strstr(err, "no room"))
            fprintf(stderr, "size=4000000000: rc %d, '%s'\n", rc, err);
        _exit(rc == -ENOSPC && strstr(err, "no room") ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    /* a disk of 100 bytes: a 100-byte file fits, growing it to 101 does not, and the
     * refusal leaves what was there */
    assert_int_equal(takt_sim_foe(s, "1:disk=100;1:a.bin,size=100", err, sizeof err), 0);
    assert_int_equal(takt_sim_foe(s, "1:a.bin,size=101", err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "no room"));
    const struct esc_foe *f = s->sl[1].esc.foe;
    int a = esc_foe_find(f, "a.bin");
    assert_true(a >= 0);
    assert_int_equal(f->f[a].len, 100);
    assert_int_equal(f->used, 100);
    /* named again, with a flag: the same 100 bytes, now read-only */
    assert_int_equal(takt_sim_foe(s, "1:a.bin,ro", err, sizeof err), 0);
    assert_int_equal(f->f[a].len, 100);
    assert_true(f->f[a].read_only);
    assert_int_equal(f->used, 100);
    /* nor can a file's limit be made smaller than what it holds */
    size_t max = f->f[a].max;
    assert_int_equal(takt_sim_foe(s, "1:a.bin,max=99", err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "max=99"));
    assert_int_equal(f->f[a].max, max);
    assert_int_equal(takt_sim_foe(s, "1:a.bin,max=100", err, sizeof err), 0);
    /* nor can the disk be made smaller than what its files hold */
    assert_int_equal(takt_sim_foe(s, "1:disk=10", err, sizeof err), -ENOSPC);
    assert_non_null(strstr(err, "disk=10"));
    assert_true(f->disk >= f->used);
    assert_int_equal(takt_sim_foe(s, "1:disk=100", err, sizeof err), 0);
    assert_int_equal(f->used, 100);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_beyond_disk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
