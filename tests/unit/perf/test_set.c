/* Measurement sets: interval banks flip and reset while the cumulative figures keep
 * going, and a real recording thread loses no count across concurrent snapshots. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <dlfcn.h>
#include <malloc.h>
#include <takt/perf.h>
#include "perf/set.h"   /* sets embedded on the stack, as the library embeds them */

/* Counts pthread mutex locks taken while `counting` (interposed: libtakt's objects are
 * linked into this executable, so their calls resolve here first). */
static int counting;
static unsigned mutex_locks;
int pthread_mutex_lock(pthread_mutex_t *m)
{
    static int (*real)(pthread_mutex_t *);
    if (!real)
        real = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    if (counting)
        mutex_locks++;
    return real(m);
}

static void test_msmt_init(void **state)
{
    struct takt_perf_msmt m;
    assert_int_equal(takt_perf_msmt_init(&m, "JOB_ProcessAllRxFrames", 0, 1000, 50), 0);
    assert_string_equal(m.name, "JOB_ProcessAllRxFrames");
    assert_int_equal(m.total.count, 0);
    assert_int_equal(m.hist.nbins, 50);
    assert_int_equal(m.ihist[1].nbins, 50);
    takt_perf_msmt_free(&m);
    /* an over-long name is cut, not overflowed */
    char name[100];
    memset(name, 'n', sizeof(name) - 1);
    name[99] = '\0';
    assert_int_equal(takt_perf_msmt_init(&m, name, 0, 1000, 5), 0);
    assert_int_equal(strlen(m.name), sizeof(m.name) - 1);
    takt_perf_msmt_free(&m);
    assert_int_equal(takt_perf_msmt_init(&m, "bad", 0, 0, 5), -EINVAL);
}

static void test_set_add_limits(void **state)
{
    struct takt_perf_set s;
    takt_perf_set_init(&s, false);
    static struct takt_perf_msmt ms[TAKT_PERF_MAX_MSMT + 1];
    for (unsigned i = 0; i < TAKT_PERF_MAX_MSMT; i++)
        assert_int_equal(takt_perf_set_add(&s, &ms[i]), 0);
    assert_int_equal(takt_perf_set_add(&s, &ms[TAKT_PERF_MAX_MSMT]), -ENOSPC);
    takt_perf_set_init(&s, false);
    assert_int_equal(takt_perf_set_add(&s, &ms[0]), 0);
    assert_int_equal(takt_perf_set_add(&s, &ms[0]), -EEXIST);
}

static void test_banks_unthreaded(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt a, b;
    takt_perf_set_init(&s, false);
    assert_int_equal(takt_perf_msmt_init(&a, "A", 0, 100, 100), 0);
    assert_int_equal(takt_perf_msmt_init(&b, "B", 0, 100, 100), 0);
    assert_int_equal(takt_perf_set_add(&s, &a), 0);
    assert_int_equal(takt_perf_set_add(&s, &b), 0);

    for (int i = 1; i <= 10; i++)
        takt_perf_record(&s, &a, i * 100);
    takt_perf_record(&s, &b, 7);
    takt_perf_set_cycle_end(&s);          /* no request: nothing flips */
    assert_int_equal(s.active, 0);

    int bank = takt_perf_set_snapshot(&s, 0);
    assert_int_equal(bank, 0);
    assert_int_equal(s.active, 1);
    const struct takt_perf_hist *h;
    const struct takt_perf_stat *st = takt_perf_msmt_interval(&a, bank, &h);
    assert_int_equal(st->count, 10);
    assert_int_equal(st->min, 100);
    assert_int_equal(st->max, 1000);
    assert_int_equal(perf_stat_avg(st), 550);
    assert_int_equal(h->total, 10);
    assert_int_equal(h->bins[1], 1);
    assert_int_equal(takt_perf_msmt_interval(&b, bank, NULL)->count, 1);

    /* the next interval goes to the other bank while the finished one is read */
    takt_perf_record(&s, &a, 5000);
    assert_int_equal(a.ival[1].count, 1);
    assert_int_equal(a.ival[0].count, 10);
    takt_perf_set_release(&s, bank);
    assert_int_equal(a.ival[0].count, 0);
    assert_int_equal(a.ihist[0].total, 0);
    assert_int_equal(b.ival[0].count, 0);

    bank = takt_perf_set_snapshot(&s, 0);
    assert_int_equal(bank, 1);
    assert_int_equal(a.ival[1].count, 1);
    assert_int_equal(a.ival[1].min, 5000);
    assert_int_equal(b.ival[1].count, 0);
    takt_perf_set_release(&s, bank);

    /* cumulative never resets */
    assert_int_equal(a.total.count, 11);
    assert_int_equal(a.total.max, 5000);
    assert_int_equal(a.hist.total, 11);
    assert_int_equal(b.total.count, 1);
    takt_perf_msmt_free(&a);
    takt_perf_msmt_free(&b);
}

/* takt_perf_record finds a value's bin once for the cumulative and the interval
 * histogram: both must hold what the value's own division gives, with every value
 * under, in and over the range, in both banks; the figures are checked against a
 * reference the test keeps itself. */
static void test_record_matches_reference(void **state)
{
    (void)state;
    enum { NB = 50 };
    const int64_t lo = -500, bin = 1000;
    struct ref { int64_t min, max, sum; uint64_t count, under, over, bins[NB]; } tot, iv[2];
    memset(&tot, 0, sizeof tot);
    memset(iv, 0, sizeof iv);
    tot.min = iv[0].min = iv[1].min = INT64_MAX;
    tot.max = iv[0].max = iv[1].max = INT64_MIN;
    struct takt_perf_set s;
    struct takt_perf_msmt m;
    takt_perf_set_init(&s, false);
    assert_int_equal(takt_perf_msmt_init(&m, "M", lo, bin, NB), 0);
    assert_int_equal(takt_perf_set_add(&s, &m), 0);
    static const int64_t edge[] = { INT64_MIN, -501, -500, -499, 0, 499, 500, 501, 48499, 48500,
                                    49499, 49500, 49501, INT64_MAX };
    uint64_t seed = 42;
    for (unsigned i = 0; i < 20000; i++) {
        int64_t v;
        if (i < sizeof edge / sizeof edge[0])
            v = edge[i];
        else {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v = (int64_t)(seed >> 40) % 60000 - 5000;
        }
        if (i == 10000)
            takt_perf_set_snapshot(&s, 0);        /* the rest into the other bank */
        takt_perf_record(&s, &m, v);
        struct ref *r[2] = { &tot, &iv[s.active] };
        for (unsigned k = 0; k < 2; k++) {
            r[k]->min = v < r[k]->min ? v : r[k]->min;
            r[k]->max = v > r[k]->max ? v : r[k]->max;
            r[k]->sum = (int64_t)((uint64_t)r[k]->sum + (uint64_t)v);   /* wraps, as the library's */
            r[k]->count++;
            uint64_t x = (uint64_t)v - (uint64_t)lo;   /* v - lo, without overflow */
            if (v < lo)
                r[k]->under++;
            else if (x / (uint64_t)bin >= NB)
                r[k]->over++;
            else
                r[k]->bins[x / (uint64_t)bin]++;
        }
    }
    const struct takt_perf_stat *st[3] = { &m.total, &m.ival[0], &m.ival[1] };
    const struct takt_perf_hist *h[3] = { &m.hist, &m.ihist[0], &m.ihist[1] };
    const struct ref *want[3] = { &tot, &iv[0], &iv[1] };
    for (unsigned k = 0; k < 3; k++) {
        assert_true(want[k]->count > 1000);
        assert_int_equal(st[k]->min, want[k]->min);
        assert_int_equal(st[k]->max, want[k]->max);
        assert_int_equal(st[k]->sum, want[k]->sum);
        assert_int_equal(st[k]->count, want[k]->count);
        assert_int_equal(h[k]->total, want[k]->count);
        assert_int_equal(h[k]->under, want[k]->under);
        assert_int_equal(h[k]->over, want[k]->over);
        for (unsigned b = 0; b < NB; b++)
            assert_int_equal(h[k]->bins[b], want[k]->bins[b]);
    }
    takt_perf_msmt_free(&m);
}

/* --- threaded: a recorder thread with its own cycle ends, a reporter snapshotting */
#define N_REC 2000000
struct rec_ctx {
    struct takt_perf_set *s;
    struct takt_perf_msmt *m;
    volatile int done;
};

static void *recorder(void *arg)
{
    struct rec_ctx *c = arg;
    for (int64_t i = 0; i < N_REC; i++) {
        takt_perf_record(c->s, c->m, i % 1000);
        if (i % 16 == 15)
            takt_perf_set_cycle_end(c->s);
    }
    takt_perf_set_cycle_end(c->s);
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_threaded_no_lost_counts(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt m;
    takt_perf_set_init(&s, true);
    assert_int_equal(takt_perf_msmt_init(&m, "X", 0, 1, 1000), 0);
    assert_int_equal(takt_perf_set_add(&s, &m), 0);
    struct rec_ctx c = { &s, &m, 0 };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, recorder, &c), 0);
    uint64_t sum = 0, hsum = 0;
    unsigned snaps = 0;
    while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE)) {
        int b = takt_perf_set_snapshot(&s, 100 * TAKT_NS_PER_MS);
        if (b == -ETIMEDOUT)
            continue;        /* recorder finished between the check and the request */
        assert_true(b == 0 || b == 1);
        const struct takt_perf_hist *h;
        const struct takt_perf_stat *st = takt_perf_msmt_interval(&m, b, &h);
        /* a bank is consistent: its histogram holds exactly its count */
        assert_int_equal(h->total, st->count);
        sum += st->count;
        hsum += h->total;
        takt_perf_set_release(&s, b);
        snaps++;
    }
    pthread_join(t, NULL);
    /* what was not reported yet sits in the banks not released: released banks are
     * zero, so both banks together hold exactly the unreported rest */
    sum += m.ival[0].count + m.ival[1].count;
    hsum += m.ihist[0].total + m.ihist[1].total;
    assert_int_equal(m.total.count, N_REC);
    assert_int_equal(m.hist.total, N_REC);
    assert_int_equal(sum, N_REC);
    assert_int_equal(hsum, N_REC);
    assert_true(snaps > 0);
    print_message("%u interval snapshots during %d records\n", snaps, N_REC);
    takt_perf_msmt_free(&m);
}

/* The flip hook runs on the RT side at the flip: counters the owner latches there
 * cover exactly the records of the finished bank, however late the reporter reads. */
struct latch_ctx {
    struct takt_perf_set *s;
    struct takt_perf_msmt *m;
    uint64_t records;       /* RT side's own counter */
    uint64_t at_flip;       /* latched by the hook */
    volatile int done;
};

static void latch(void *arg)
{
    struct latch_ctx *c = arg;
    c->at_flip = c->records;
}

static void *latch_recorder(void *arg)
{
    struct latch_ctx *c = arg;
    for (int64_t i = 0; i < N_REC / 4; i++) {
        takt_perf_record(c->s, c->m, i % 1000);
        c->records++;
        if (i % 8 == 7)
            takt_perf_set_cycle_end(c->s);
    }
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_flip_hook_latches_at_the_edge(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt m;
    takt_perf_set_init(&s, true);
    assert_int_equal(takt_perf_msmt_init(&m, "X", 0, 1, 1000), 0);
    assert_int_equal(takt_perf_set_add(&s, &m), 0);
    struct latch_ctx c = { .s = &s, .m = &m };
    takt_perf_set_on_flip(&s, latch, &c);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, latch_recorder, &c), 0);
    uint64_t prev = 0;
    unsigned snaps = 0;
    while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE)) {
        int b = takt_perf_set_snapshot(&s, 100 * TAKT_NS_PER_MS);
        if (b == -ETIMEDOUT)
            continue;
        /* the latch and the bank describe the same records, not "about the same" */
        assert_int_equal(takt_perf_msmt_interval(&m, b, NULL)->count, c.at_flip - prev);
        prev = c.at_flip;
        takt_perf_set_release(&s, b);
        snaps++;
    }
    pthread_join(t, NULL);
    assert_true(snaps > 0);
    /* an unthreaded set calls the hook at the snapshot itself */
    struct takt_perf_set u;
    takt_perf_set_init(&u, false);
    assert_int_equal(takt_perf_set_add(&u, &m), 0);
    c.records = 77;
    takt_perf_set_on_flip(&u, latch, &c);
    takt_perf_set_snapshot(&u, 0);
    assert_int_equal(c.at_flip, 77);
    takt_perf_msmt_free(&m);
    (void)state;
}

/* Recording and the cycle-end check allocate nothing and take no lock, also while a
 * reporter's request is pending (glibc's heap figures unchanged over 200 000 records). */
static void test_record_no_alloc_no_lock(void **state)
{
    struct takt_perf_set s;
    struct takt_perf_msmt m;
    takt_perf_set_init(&s, true);
    assert_int_equal(takt_perf_msmt_init(&m, "M", 0, 1000, 1000), 0);
    assert_int_equal(takt_perf_set_add(&s, &m), 0);
    struct mallinfo2 before = mallinfo2();
    counting = 1;
    for (int i = 0; i < 200000; i++) {
        takt_perf_record(&s, &m, (i * 7919) % 2000000 - 1000);
        if (i == 100000)
            __atomic_store_n(&s.flip_req, s.flip_req + 1, __ATOMIC_RELEASE);  /* as takt_perf_set_snapshot */
        takt_perf_set_cycle_end(&s);
    }
    counting = 0;
    struct mallinfo2 after = mallinfo2();
    assert_int_equal(mutex_locks, 0);
    assert_int_equal(after.uordblks, before.uordblks);
    assert_int_equal(after.hblkhd, before.hblkhd);
    assert_int_equal(m.total.count, 200000);
    assert_int_equal(s.active, 1);                  /* the request was served in the loop */
    takt_perf_msmt_free(&m);
}

/* A program's own set through the opaque API: made empty, its measurements listed in
 * the order added and found by name, and a snapshot of an unthreaded one flips at once. */
static void test_set_public(void **state)
{
    (void)state;
    struct takt_perf_set *s = NULL;
    assert_int_equal(takt_perf_set_create(false, &s), 0);
    assert_non_null(s);
    assert_int_equal(takt_perf_set_count(s), 0);
    assert_null(takt_perf_set_msmt(s, 0));
    assert_null(takt_perf_set_find(s, "JOB_A"));
    struct takt_perf_msmt a, b;
    assert_int_equal(takt_perf_msmt_init(&a, "JOB_A", 0, 100, 10), 0);
    assert_int_equal(takt_perf_msmt_init(&b, "JOB_B", 0, 100, 10), 0);
    assert_int_equal(takt_perf_set_add(s, &a), 0);
    assert_int_equal(takt_perf_set_add(s, &b), 0);
    assert_int_equal(takt_perf_set_count(s), 2);
    assert_ptr_equal(takt_perf_set_msmt(s, 0), &a);
    assert_ptr_equal(takt_perf_set_msmt(s, 1), &b);
    assert_null(takt_perf_set_msmt(s, 2));
    assert_ptr_equal(takt_perf_set_find(s, "JOB_B"), &b);
    assert_null(takt_perf_set_find(s, "JOB"));
    takt_perf_record(s, &b, 250);
    int bank = takt_perf_set_snapshot(s, TAKT_NS_PER_S);
    assert_true(bank == 0 || bank == 1);
    assert_int_equal(takt_perf_msmt_interval(&b, bank, NULL)->count, 1);
    takt_perf_set_release(s, bank);
    takt_perf_set_destroy(s);
    takt_perf_msmt_free(&a);
    takt_perf_msmt_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msmt_init),
        cmocka_unit_test(test_set_add_limits),
        cmocka_unit_test(test_set_public),
        cmocka_unit_test(test_banks_unthreaded),
        cmocka_unit_test(test_record_matches_reference),
        cmocka_unit_test(test_threaded_no_lost_counts),
        cmocka_unit_test(test_flip_hook_latches_at_the_edge),
        cmocka_unit_test(test_record_no_alloc_no_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
