/* NMTRequests posted to a CN from several threads at once while the CN's own thread
 * takes them (plk_cn_post_nmt_request / plk_cn_nmtreq_take): every request accepted is
 * taken exactly once, queued or dropped and counted, none lost between two posters.
 * Run under ThreadSanitizer too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "plk/cn.h"
#include "plk/cn_int.h"

#define NTHR 4
#define NPOST 20000

static const uint8_t CN_MAC[6] = { 2, 0, 0, 0, 1, 7 };

struct shared { struct plk_cn cn; atomic_int posters_left; atomic_uint accepted, full; };

static void *poster(void *arg)
{
    struct shared *x = arg;
    for (unsigned i = 0; i < NPOST; i++) {
        int rc;
        while ((rc = plk_cn_post_nmt_request(&x->cn, PLK_NMT_CMD_RESET_NODE, 3, NULL, 0)) != 0) {
            assert_true(rc == -EAGAIN || rc == -EBUSY);
            atomic_fetch_add(&x->full, 1);
            sched_yield();
        }
        atomic_fetch_add(&x->accepted, 1);
    }
    atomic_fetch_sub(&x->posters_left, 1);
    return NULL;
}

/* the CN's thread: takes what was posted, and empties its own queue as if each
 * request had been sent on an invite */
static void *cn_thread(void *arg)
{
    struct shared *x = arg;
    for (;;) {
        bool last = atomic_load(&x->posters_left) == 0;
        plk_cn_nmtreq_take(&x->cn);
        x->cn.n_nmtreq = 0;
        if (last)
            return NULL;
        sched_yield();
    }
}

static void posters_against_the_cn_thread(void **state)
{
    (void)state;
    struct shared *x = calloc(1, sizeof *x);
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, 7);
    assert_int_equal(plk_cn_init(&x->cn, &c, CN_MAC, 0), 0);
    atomic_store(&x->posters_left, NTHR);
    pthread_t t[NTHR], cn;
    assert_int_equal(pthread_create(&cn, NULL, cn_thread, x), 0);
    for (unsigned i = 0; i < NTHR; i++)
        assert_int_equal(pthread_create(&t[i], NULL, poster, x), 0);
    for (unsigned i = 0; i < NTHR; i++)
        pthread_join(t[i], NULL);
    pthread_join(cn, NULL);
    assert_int_equal(atomic_load(&x->accepted), NTHR * NPOST);
    /* not in PreOp1..Operational, so each is dropped and counted: once */
    assert_int_equal(x->cn.st.nmtreq_queued + x->cn.st.nmtreq_dropped, NTHR * NPOST);
    plk_cn_free(&x->cn);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(posters_against_the_cn_thread) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
