/* Cable redundancy over the in-process link: the master on two mem pairs, the simulator
 * a ring whose last slave is wired back to the second pair. While the cycle runs the ring
 * breaks at every cable in turn (into slave 0 .. into slave N-1, and the one back to the
 * second port) and heals: no cycle may lose a frame or see a wrong WKC, every slave's
 * inputs and outputs must go through every cycle as in an unbroken ring, and each break
 * must be reported at its place, each healing too. The devices are echo devices: the
 * input counts the frames that passed the slave's process data, the application writes
 * it back as output, and the device judges how old the echo it gets is. Distributed
 * clocks across a break: test_master_redundancy_dc.c. */

#include "ring_rig.h"

static void breaks_everywhere(void **state)
{
    (void)state;
    struct ring *r = ring_new(true);
    for (unsigned i = 0; i < 20; i++)
        cycle(r);
    assert_int_equal(r->steps, 0);
    struct takt_ecat_redundancy rs;
    takt_ecat_master_redundancy(r->m, &rs);
    assert_true(rs.active);
    assert_false(rs.broken);
    for (unsigned k = 0; k <= N; k++) {
        char want[160];
        r->events[0] = 0;
        assert_int_equal(takt_sim_break(r->sim, k, takt_now()), 0);
        unsigned seen = 0;
        for (unsigned i = 0; i < 30; i++) {
            cycle(r);
            takt_ecat_master_redundancy(r->m, &rs);
            if (!seen && rs.broken && rs.break_after == (int)k)
                seen = i + 1;
        }
        printf("break into %u: reported after %u cycle(s)\n", k, seen);
        assert_true(seen >= 1 && seen <= 3);   /* a new state must be seen twice */
        if (k == 0)
            snprintf(want, sizeof want, "ring broken between the first port");
        else if (k == N)
            snprintf(want, sizeof want, "ring broken between slave %u and the second port", N - 1);
        else
            snprintf(want, sizeof want, "ring broken between slave %u and slave %u", k - 1, k);
        assert_non_null(strstr(r->events, want));
        assert_int_equal(takt_sim_heal(r->sim, takt_now()), 0);
        for (unsigned i = 0; i < 30; i++)
            cycle(r);
        takt_ecat_master_redundancy(r->m, &rs);
        assert_false(rs.broken);
        assert_non_null(strstr(r->events, "ring closed again"));
    }
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    struct takt_sim_echo_stats es;
    takt_sim_echo_stats(r->sim, &es);
    takt_ecat_master_redundancy(r->m, &rs);
    printf("frames lost %llu, cyclic lost %llu, wkc errors %llu; echoes %llu stale %llu age max %u; "
           "breaks %llu heals %llu, tx %llu/%llu rx %llu/%llu\n",
           (unsigned long long)st.frames_lost, (unsigned long long)st.cyc_frames_lost,
           (unsigned long long)st.wkc_errors, (unsigned long long)es.echoes,
           (unsigned long long)es.stale, es.age_max, (unsigned long long)rs.breaks,
           (unsigned long long)rs.heals, (unsigned long long)rs.tx[0], (unsigned long long)rs.tx[1],
           (unsigned long long)rs.rx[0], (unsigned long long)rs.rx[1]);
    assert_int_equal(st.frames_lost, 0);
    assert_int_equal(st.cyc_frames_lost, 0);
    assert_int_equal(st.wkc_errors, 0);
    assert_int_equal(r->steps, 0);           /* inputs: as in an unbroken ring */
    assert_int_equal(es.stale, 0);           /* outputs: every echo reached its slave */
    assert_true(es.age_max <= 1);
    assert_true(es.echoes >= 5 * 20 * (N + 1));
    assert_int_equal(takt_ecat_master_inputs_age(r->m), 0);
    assert_int_equal(rs.breaks, N + 1);
    assert_int_equal(rs.heals, N + 1);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    ring_free(r);
}

/* A line on one port: a break in it does lose the slaves behind it (the checks above
 * are able to fail). */
static void one_port_loses(void **state)
{
    (void)state;
    struct ring *r = ring_new(false);
    for (unsigned i = 0; i < 10; i++)
        cycle(r);
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    for (unsigned i = 0; i < 10; i++)
        cycle(r);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_true(st.wkc_errors > 0);
    assert_true(r->steps > 0);
    ring_free(r);
}

/* Merging: a copy of the second port's frame that went round an unbroken ring must not
 * add anything; bad set-ups are refused. */
static void refuses_same_port(void **state)
{
    (void)state;
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 8, NULL, NULL), 0);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.redundant = a;
    struct takt_ecat_master *m;
    char err[200];
    assert_int_not_equal(takt_ecat_master_open(&m, a, &o, err, sizeof err), 0);
    printf("  %s\n", err);
    assert_non_null(strstr(err, "two different ports"));
    o.redundant = b;                /* same MAC bytes 1..5 */
    memcpy(b->mac, a->mac, 6);
    assert_int_not_equal(takt_ecat_master_open(&m, a, &o, err, sizeof err), 0);
    printf("  %s\n", err);
    assert_non_null(strstr(err, "told apart"));
    takt_link_close(a);
    takt_link_close(b);
}

/* Copies held back past their cycle on a loaded host: the second port's replies of a
 * broken ring, three in a row out of every 7, come three cycles late. The frame must count as late (its data not used),
 * never be used with half its datagrams (a WKC error, inputs of half the slaves old),
 * and a held-back copy must not be taken for a second break. */
struct holder {
    struct takt_sim *sim;
    struct takt_link *b[2];
    bool on;
    unsigned n, held, nq, cycle;
    uint8_t q[16][TAKT_FRAME_BUF];
    uint16_t qlen[16];
    unsigned qdue[16];              /* the cycle after which the copy arrives */
};

static void hold_port(struct holder *h, unsigned port, const struct takt_frame *f)
{
    uint8_t buf[TAKT_FRAME_BUF];
    unsigned out;
    memcpy(buf, f->data, f->len);
    size_t r = takt_sim_process_port(h->sim, port, buf, f->len, sizeof buf, f->ts, NULL, &out);
    if (!r)
        return;
    if (h->on && port == 1 && out == 1 && ++h->n % 7 < 3 && h->nq < 16) {
        memcpy(h->q[h->nq], buf, r);
        h->qdue[h->nq] = h->cycle + 3;   /* three cycles late */
        h->qlen[h->nq++] = (uint16_t)r;
        h->held++;
        return;
    }
    struct takt_frame o = { .data = buf, .len = (uint16_t)r, .cap = sizeof buf };
    takt_link_send(h->b[out], &o, 1);
}
static void hold0(void *ctx, struct takt_link *ep, const struct takt_frame *f) { (void)ep; hold_port(ctx, 0, f); }
static void hold1(void *ctx, struct takt_link *ep, const struct takt_frame *f) { (void)ep; hold_port(ctx, 1, f); }

static void late_copies(void **state)
{
    (void)state;
    struct ring *r = ring_new(true);
    struct holder h = { .sim = r->sim, .b = { r->b[0], r->b[1] } };
    takt_link_mem_set_responder(r->b[0], hold0, &h);
    takt_link_mem_set_responder(r->b[1], hold1, &h);
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    for (unsigned i = 0; i < 10; i++)
        cycle(r);
    struct takt_ecat_master_stats st0, st;
    takt_ecat_master_get_stats(r->m, &st0);
    r->events[0] = 0;
    h.on = true;
    unsigned steps0 = r->steps;
    for (unsigned i = 0; i < 300; i++) {
        r->m->core.rx_deadline = takt_now();   /* replies stamped after this are late */
        cycle(r);
        r->m->core.rx_deadline = 0;
        /* the copies held back arrive now, cycles after their frame's cycle read the
         * replies */
        unsigned keep = 0;
        for (unsigned k = 0; k < h.nq; k++) {
            if (h.qdue[k] > h.cycle) {
                memmove(h.q[keep], h.q[k], h.qlen[k]);
                h.qlen[keep] = h.qlen[k];
                h.qdue[keep++] = h.qdue[k];
                continue;
            }
            struct takt_frame o = { .data = h.q[k], .len = h.qlen[k], .cap = TAKT_FRAME_BUF };
            takt_link_send(r->b[1], &o, 1);
        }
        h.nq = keep;
        h.cycle++;
    }
    takt_ecat_master_get_stats(r->m, &st);
    struct takt_ecat_redundancy rs;
    takt_ecat_master_redundancy(r->m, &rs);
    printf("held %u copies: frames late %llu, lost %llu, WKC errors %llu, copies late %llu, "
           "input steps %u, breaks %llu\n", h.held,
           (unsigned long long)(st.frames_late - st0.frames_late),
           (unsigned long long)(st.frames_lost - st0.frames_lost),
           (unsigned long long)(st.wkc_errors - st0.wkc_errors), (unsigned long long)rs.late,
           r->steps - steps0, (unsigned long long)rs.breaks);
    assert_true(h.held >= 20);
    assert_int_equal(st.wkc_errors - st0.wkc_errors, 0);
    assert_int_equal(r->uneven, 0);          /* no frame used with half its data */
    assert_true(st.frames_late - st0.frames_late >= 1);
    assert_int_equal(st.frames_lost - st0.frames_lost, st.frames_late - st0.frames_late);
    assert_null(strstr(r->events, "more than one place"));
    assert_true(rs.broken);
    assert_int_equal(rs.break_after, 2);
    assert_int_equal(rs.breaks, 1);
    ring_free(r);
}

/* A slave behind a break is power-cycled while the ring is broken: it comes back without
 * station address, so only position addressing reaches it, and only through the second
 * port. The master's recovery must bring it back to OP. */
static bool ring_all_op(struct ring *r)
{
    for (unsigned i = 0; i < N; i++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(r->m, i, &si);
        if (!si.present || (si.al_state & 0x1F) != AL_OP)
            return false;
    }
    return takt_ecat_master_state(r->m) == AL_OP;
}

static void power_cycle_behind_break(void **state)
{
    (void)state;
    struct ring *r = ring_new(true);
    struct timespec ms = { 0, 1000000 };
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    for (unsigned i = 0; i < 30; i++)
        cycle(r);
    assert_true(ring_all_op(r));
    assert_int_equal(takt_sim_power_cycle(r->sim, 3, takt_now()), 0);
    for (unsigned i = 0; i < 30; i++)
        cycle(r);
    assert_false(ring_all_op(r));           /* seen lost */
    takt_ns_t end = takt_now() + 10 * TAKT_NS_PER_S;
    unsigned k = 0;
    while (takt_now() < end && !ring_all_op(r)) {
        cycle(r);
        nanosleep(&ms, NULL);
        k++;
    }
    struct takt_ecat_redundancy rs;
    takt_ecat_master_redundancy(r->m, &rs);
    printf("power-cycled behind the break: %s after %u cycles\n", ring_all_op(r) ? "back in OP" : "NOT back", k);
    assert_true(rs.broken);
    assert_true(ring_all_op(r));
    ring_free(r);
}


/* Two breaks: slaves 2-3 are cut off from both ports. The master must say which slaves
 * it cannot reach, between which positions, count their process data as lost (WKC
 * errors) and never show them in OP from data they no longer answer; the slaves on
 * either side go on. One break mended: said, the segment comes back. */
static void two_breaks(void **state)
{
    (void)state;
    struct ring *r = ring_new(true);
    for (unsigned i = 0; i < 20; i++)
        cycle(r);
    struct takt_ecat_master_stats st0, st;
    takt_ecat_master_get_stats(r->m, &st0);
    r->events[0] = 0;
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    assert_int_equal(takt_sim_break(r->sim, 4, takt_now()), 0);
    for (unsigned i = 0; i < 40; i++)
        cycle(r);
    struct takt_ecat_redundancy rs;
    takt_ecat_master_redundancy(r->m, &rs);
    takt_ecat_master_get_stats(r->m, &st);
    printf("two breaks: broken %d, sides %u/%u, break_after %d, WKC errors %llu, lost %llu\n",
           rs.broken, rs.first_side, rs.second_side, rs.break_after,
           (unsigned long long)(st.wkc_errors - st0.wkc_errors),
           (unsigned long long)(st.cyc_frames_lost - st0.cyc_frames_lost));
    assert_true(rs.broken);
    assert_int_equal(rs.first_side, 2);
    assert_int_equal(rs.second_side, 1);
    assert_int_equal(rs.break_after, -1);
    assert_non_null(strstr(r->events, "ring broken in more than one place: slaves 2-3 unreachable"));
    assert_true(st.wkc_errors > st0.wkc_errors);
    for (unsigned i = 0; i < N; i++) {
        struct takt_ecat_slave_info si;
        assert_int_equal(takt_ecat_master_slave_info(r->m, i, &si), 0);
        printf("  slave %u: present %d, AL state 0x%02x\n", i, si.present, si.al_state);
        if (i == 2 || i == 3) {
            assert_false(si.present);
            assert_int_not_equal(si.al_state & 0x0F, AL_OP);
        } else {
            assert_true(si.present);
        }
    }
    /* the cable into slave 4 mended (the simulator mends all; the other is cut again
     * before the next cycle) */
    r->events[0] = 0;
    assert_int_equal(takt_sim_heal(r->sim, takt_now()), 0);
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    for (unsigned i = 0; i < 40; i++)
        cycle(r);
    takt_ecat_master_redundancy(r->m, &rs);
    assert_true(rs.broken);
    assert_int_equal(rs.break_after, 2);
    assert_non_null(strstr(r->events, "ring broken between slave 1 and slave 2"));
    assert_non_null(strstr(r->events, "a break mended: slaves 2-3 reachable again"));
    takt_ns_t end = takt_now() + 10 * TAKT_NS_PER_S;
    struct timespec ms = { 0, 1000000 };
    while (takt_now() < end && !ring_all_op(r)) {
        cycle(r);
        nanosleep(&ms, NULL);
    }
    assert_true(ring_all_op(r));
    ring_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(breaks_everywhere),
        cmocka_unit_test(power_cycle_behind_break),
        cmocka_unit_test(late_copies),
        cmocka_unit_test(two_breaks),
        cmocka_unit_test(one_port_loses),
        cmocka_unit_test(refuses_same_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
