/* The core's recovery (recovery.c, struct ecat_recovery) with no link and no clock
 * (core_bench.h): the BRD 0x0130 of every first cyclic frame counts the slaves that
 * answer; a drop is a loss reported at once, a rise seen twice makes the core scan the
 * returned positions again, recognise each slave by its identity and drive it back to
 * the network's state. The test cuts the cable and heals it, and power-cycles a slave,
 * in the simulator between two cycles. */
#include "unit/ecat/core_bench.h"
#include "ecat/master_internal.h"

static unsigned cycles_until(struct bench *b, bool (*cond)(const struct ecat_core *), unsigned max)
{
    for (unsigned i = 0; i < max; i++) {
        if (cond(&b->c))
            return i;
        cycle(b);
    }
    print_events(b);
    fail_msg("condition not reached in %u cycles", max);
    return max;
}

static bool two_present(const struct ecat_core *c) { return c->rec.present == 2; }
static bool back_in_op(const struct ecat_core *c)
{ return c->rec.present == NSLAVES && all_settled(c) && ecat_all_op(c); }

/* A cut into slave 2: it is lost in the cycles that follow (one loss, one event), the
 * others stay in OP; healed, it is recognised, counted returned and brought back to
 * OP, and the count of present slaves is right again. */
static void test_cable_cut_and_heal(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    unsigned ev = events_mark(b);
    assert_int_equal(b->c.rec.present, NSLAVES);
    assert_int_equal(takt_sim_break(b->sim, 2, b->now), 0);
    unsigned n = cycles_until(b, two_present, 10);
    printf("  loss seen after %u cycles\n", n);
    for (int i = 0; i < 10; i++)
        cycle(b);
    assert_int_equal(b->c.rec.present, 2);
    assert_int_equal(b->c.st.slaves_lost, 1);
    assert_false(b->c.slaves[2].info.present);
    assert_true(b->c.slaves[0].info.present && b->c.slaves[1].info.present);
    assert_int_equal(b->c.slaves[0].info.al_state & AL_STATE_MASK, AL_OP);
    assert_int_equal(b->c.slaves[1].info.al_state & AL_STATE_MASK, AL_OP);
    assert_int_equal(events_since(b, ev, "slave 2"), 1);
    assert_int_equal(takt_sim_heal(b->sim, b->now), 0);
    n = cycles_until(b, back_in_op, 10000);
    printf("  back in OP after %u cycles\n", n);
    assert_int_equal(b->c.st.slaves_lost, 1);
    assert_int_equal(b->c.st.slaves_returned, 1);
    assert_true(b->c.slaves[2].info.present);
    bench_free(b);
}

/* A power cycle of slave 1: it answers the broadcast again at once, but in INIT with
 * its station address gone. The core finds it no longer answers its address (one
 * loss), scans it again, recognises the same device and brings it back to OP (one
 * return); the count of present slaves never drops, so nothing else is lost. */
static bool returned(const struct ecat_core *c)
{ return c->st.slaves_returned == 1 && back_in_op(c); }

static void test_power_cycle(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    unsigned ev = events_mark(b);
    assert_int_equal(takt_sim_power_cycle(b->sim, 1, b->now), 0);
    unsigned n = cycles_until(b, returned, 10000);
    printf("  back in OP after %u cycles\n", n);
    for (int i = 0; i < 20; i++)
        cycle(b);
    assert_true(back_in_op(&b->c));
    assert_int_equal(b->c.st.slaves_lost, 1);
    assert_int_equal(b->c.st.slaves_returned, 1);
    assert_int_equal(events_since(b, ev, "slave 1 (station 0x1001) back in OP"), 1);
    assert_int_equal(events_since(b, ev, "slave 0"), 0);
    assert_int_equal(events_since(b, ev, "slave 2"), 0);
    assert_int_equal(b->c.rec.present, NSLAVES);
    bench_free(b);
}

/* In a steady network nothing is pending, and the cycle's check skips the per-slave
 * look (rec.watch clear). A power cycle seen only by the failing slave machine (the
 * count of present slaves never drops) must still open it: the slave is readdressed,
 * re-scanned and back in OP, and the look is skipped again once it is. */
static void test_quiet_skips_look_failure_opens_it(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    for (int i = 0; i < 5; i++)
        cycle(b);
    assert_false(b->c.rec.watch);
    assert_int_equal(takt_sim_power_cycle(b->sim, 1, b->now), 0);
    bool seen_failed = false, watched = false;
    for (unsigned i = 0; i < 10000 && !returned(&b->c); i++) {
        cycle(b);
        seen_failed |= b->c.slaves[1].esm.f.state == SS_FAILED;
        watched |= b->c.rec.watch;
        assert_int_equal(b->c.rec.present, NSLAVES);
    }
    assert_true(seen_failed);
    assert_true(watched);
    assert_true(returned(&b->c));
    for (int i = 0; i < 5; i++)
        cycle(b);
    assert_false(b->c.rec.watch);
    assert_true(back_in_op(&b->c));
    bench_free(b);
}

/* The lowest AL state over all slaves (a lost one's 0), as the cyclic frames choose by
 * it: worked out here from the slaves' last reports, every cycle. */
static uint8_t lowest_now(const struct ecat_core *c)
{
    static const uint8_t rank[16] = { [AL_INIT] = 1, [AL_PREOP] = 2, [AL_BOOT] = 2,
                                      [AL_SAFEOP] = 3, [AL_OP] = 4 };
    uint8_t low = 0;
    int lr = 99;
    for (unsigned i = 0; i < c->n_slaves; i++) {
        uint8_t st = c->slaves[i].info.al_state & AL_STATE_MASK;
        if (rank[st] < lr) {
            lr = rank[st];
            low = st;
        }
    }
    return low;
}

/* The core keeps the lowest state from one change of the slaves' reports to the next
 * instead of taking it over every slave each cycle: through a cut, the heal, the
 * re-scan of the returned slave and its way back to OP it must equal, after every
 * cycle, the lowest of the reports as they are then. */
static void test_low_state_follows_every_change(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    assert_int_equal(b->c.rec.low_state, AL_OP);
    assert_int_equal(takt_sim_break(b->sim, 2, b->now), 0);
    unsigned seen_zero = 0, seen_below_op = 0;
    for (unsigned i = 0; i < 20; i++) {
        cycle(b);
        assert_int_equal(b->c.rec.low_state, lowest_now(&b->c));
        seen_zero += b->c.rec.low_state == 0;
    }
    assert_int_equal(b->c.rec.present, 2);
    assert_true(seen_zero > 0);
    assert_int_equal(takt_sim_heal(b->sim, b->now), 0);
    for (unsigned i = 0; i < 10000 && !back_in_op(&b->c); i++) {
        cycle(b);
        assert_int_equal(b->c.rec.low_state, lowest_now(&b->c));
        seen_below_op += b->c.rec.low_state != AL_OP && b->c.rec.low_state != 0;
    }
    assert_true(back_in_op(&b->c));
    assert_true(seen_below_op > 0);              /* the returned slave came up through them */
    assert_int_equal(b->c.rec.low_state, AL_OP);
    bench_free(b);
}

/* A tool's SII write through the driver holds the EEPROM interface (ETG.1000.4 6.4)
 * when a power-cycled slave comes back: the core's re-read of its SII waits and sends
 * no SII command while the write has the interface (its data would go into the
 * EEPROM between the write's words). Given back, the read takes the interface for the
 * core, the slave comes back to OP, and the interface is free again. */
static bool sii_reading(const struct ecat_core *c)
{
    for (unsigned i = 0; i < c->n_slaves; i++)
        if (c->slaves[i].esm.f.state == SS_SII_CMD || c->slaves[i].esm.f.state == SS_SII_POLL)
            return true;
    return false;
}

static void test_sii_reread_waits_for_a_write(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    assert_int_equal(atomic_load(&b->c.sii_user), ECAT_SII_FREE);
    atomic_store(&b->c.sii_user, ECAT_SII_WRITE);          /* the tool's write has it */
    assert_int_equal(takt_sim_power_cycle(b->sim, 1, b->now), 0);
    unsigned waiting = 0;
    for (int i = 0; i < 2000; i++) {
        cycle(b);
        assert_false(sii_reading(&b->c));
        assert_int_equal(atomic_load(&b->c.sii_user), ECAT_SII_WRITE);
        waiting += b->c.slaves[1].esm.f.state == SS_SII_WAIT;
    }
    printf("  %u of 2000 cycles waiting for the interface\n", waiting);
    assert_true(waiting > 1000);
    assert_false(back_in_op(&b->c));
    atomic_store(&b->c.sii_user, ECAT_SII_FREE);           /* the write is done */
    unsigned core_had = 0;
    for (unsigned i = 0; i < 10000 && !returned(&b->c); i++) {
        cycle(b);
        if (sii_reading(&b->c)) {
            assert_int_equal(atomic_load(&b->c.sii_user), ECAT_SII_CORE);
            core_had++;
        }
    }
    assert_true(returned(&b->c));
    assert_true(core_had > 0);
    assert_int_equal(atomic_load(&b->c.sii_user), ECAT_SII_FREE);
    bench_free(b);
}

/* A user that never gives the EEPROM interface back (a write that hangs): the re-read
 * waits up to its limit (30 s), then fails with an event that says so instead of
 * waiting for ever. */
static void test_sii_wait_has_a_limit(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    unsigned ev = events_mark(b);
    atomic_store(&b->c.sii_user, ECAT_SII_WRITE);
    assert_int_equal(takt_sim_power_cycle(b->sim, 1, b->now), 0);
    takt_ns_t t0 = b->now, waited = 0;
    const char *said = "slave 1: SII not read: the EEPROM interface (0x0500) stayed with another user";
    while (!events_since(b, ev, said) && b->now - t0 < 40 * TAKT_NS_PER_S) {
        cycle(b);
        if (b->c.slaves[1].esm.f.state == SS_SII_WAIT && !waited)
            waited = b->now;
    }
    assert_true(waited > 0);
    printf("  failed after %.1f s of waiting\n", (b->now - waited) / 1e9);
    assert_int_equal(events_since(b, ev, said), 1);
    assert_true(b->now - waited >= ECAT_SII_WAIT_MAX_NS);
    assert_true(b->now - waited < ECAT_SII_WAIT_MAX_NS + TAKT_NS_PER_S);
    assert_int_equal(atomic_load(&b->c.sii_user), ECAT_SII_WRITE);   /* never taken from it */
    bench_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cable_cut_and_heal),
        cmocka_unit_test(test_power_cycle),
        cmocka_unit_test(test_quiet_skips_look_failure_opens_it),
        cmocka_unit_test(test_low_state_follows_every_change),
        cmocka_unit_test(test_sii_reread_waits_for_a_write),
        cmocka_unit_test(test_sii_wait_has_a_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
