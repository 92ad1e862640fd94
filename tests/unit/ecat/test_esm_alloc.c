/* The cycle thread never allocates to bring a slave back: a power-cycled slave is lost,
 * scanned again, recognised and sent back to OP (recovery.c, esm.c), its set-up plan
 * built again each time it is sent to a state, all inside the core's entry points,
 * which run in the cycle thread. The test links with malloc, calloc and realloc
 * wrapped (tests/CMakeLists.txt) and counts the calls made while the core runs. */
#include "unit/ecat/core_bench.h"
#include "ecat/plan.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);

/* the wrappers have no context to carry them: the one place with file-scope state */
static bool counting;
static unsigned allocs;

void *__wrap_malloc(size_t n) { allocs += counting; return __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { allocs += counting; return __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { allocs += counting; return __real_realloc(p, n); }

/* One cycle as cycle() runs it, with the core's calls counted and the test's own
 * (the simulator, the event log) not. */
static void counted_cycle(struct bench *b)
{
    counting = true;
    for (unsigned i = 0; i < b->nq; i++)
        ecat_core_rx(&b->c, b->now, b->q[i].d, b->q[i].len, 0);
    b->nq = 0;
    ecat_core_cycle(&b->c, b->now);
    unsigned n = ecat_core_tx(&b->c, b->now, b->out, MAXF);
    counting = false;
    wire(b, n, true);
    counting = true;
    ecat_core_timer(&b->c, b->now);
    n = ecat_core_tx(&b->c, b->now, b->out, MAXF);
    counting = false;
    wire(b, n, false);
    take_events(b);
    b->now += CYCLE;
}

static bool back(const struct ecat_core *c)
{ return c->st.slaves_returned == 1 && c->rec.present == NSLAVES && all_settled(c) && ecat_all_op(c); }

static void test_recovery_allocates_nothing(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    assert_true(ecat_all_op(&b->c));
    allocs = 0;
    assert_int_equal(takt_sim_power_cycle(b->sim, 1, b->now), 0);
    unsigned i;
    for (i = 0; i < 10000 && !back(&b->c); i++)
        counted_cycle(b);
    if (!back(&b->c))
        print_events(b);
    assert_true(back(&b->c));
    printf("  back in OP after %u cycles, %u allocations\n", i, allocs);
    assert_int_equal(allocs, 0);
    bench_free(b);
}

/* The wrapper sees what the core allocates (a guard against a test that cannot fail):
 * a plan made the ordinary way is one allocation. */
static void test_counter_counts(void **state)
{
    (void)state;
    struct ecat_plan p;
    allocs = 0;
    counting = true;
    int rc = ecat_plan_alloc(&p, 1);
    counting = false;
    assert_int_equal(rc, 0);
    ecat_plan_free(&p);
    assert_int_equal(allocs, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_counts),
        cmocka_unit_test(test_recovery_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
