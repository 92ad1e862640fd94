/* The EtherCAT core on its own: no link and no clock. The test is the driver
 * (core_bench.h): it calls ecat_core_rx / _cycle / _tx / _timer with a time it
 * advances itself and passes the frames through the simulator's devices. It brings
 * three slaves to OP, exchanges process data, loses one cyclic reply, delivers one a
 * cycle late, and freezes for 5 s in one step; each must be counted exactly as it
 * happened. */
#include "unit/ecat/core_bench.h"
#include "ecat/master_internal.h"

/* Scan to OP and a process data exchange: outputs written into the core's image reach
 * every slave's SM0 memory, its inputs come back into the image, no WKC error. */
static void test_op_and_process_data(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    for (unsigned k = 0; k < NSLAVES; k++) {
        const struct ecat_pd *o = entry(&b->c, k, true);
        put_le16(b->c.image + o->abs_bit / 8, (uint16_t)(0xBE00 + k));
    }
    for (int i = 0; i < 3; i++)
        cycle(b);
    for (unsigned k = 0; k < NSLAVES; k++) {
        uint8_t mem[2], in[2];
        assert_int_equal(takt_sim_peek(b->sim, k, 0x1000, mem, 2), 0);
        assert_int_equal(get_le16(mem), 0xBE00 + k);
        assert_int_equal(takt_sim_peek(b->sim, k, 0x1100, in, 2), 0);
        const struct ecat_pd *i = entry(&b->c, k, false);
        assert_memory_equal(b->c.image + i->abs_bit / 8, in, 2);
    }
    assert_int_equal(b->c.st.wkc_errors, 0);
    assert_int_equal(b->c.st.frames_lost, 0);
    assert_int_equal(b->c.st.cyc_frames_lost, 0);
    assert_true(b->c.st.cyc_frames_sent > 0);
    assert_int_equal(b->c.st.cyc_frames_sent, b->cyc_seen);
    bench_free(b);
}

/* The reply of takt's LRW carries, between the slaves' inputs, the outputs as they were
 * sent. Only the inputs go into the image: outputs the application wrote since stay
 * as it wrote them, whatever the cycle's check takes in one copy. */
static void test_inputs_leave_outputs_alone(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    for (unsigned k = 0; k < NSLAVES; k++)
        put_le16(b->c.image + entry(&b->c, k, true)->abs_bit / 8, (uint16_t)(0xA000 + k));
    cycle(b);                                   /* the replies carry 0xA00k back */
    for (unsigned k = 0; k < NSLAVES; k++)
        put_le16(b->c.image + entry(&b->c, k, true)->abs_bit / 8, (uint16_t)(0xB000 + k));
    for (unsigned i = 0; i < b->nq; i++)        /* the next cycle's start: replies, check */
        ecat_core_rx(&b->c, b->now, b->q[i].d, b->q[i].len, 0);
    b->nq = 0;
    ecat_core_cycle(&b->c, b->now);
    assert_int_equal(b->c.inputs_age, 0);      /* the inputs were taken in */
    for (unsigned k = 0; k < NSLAVES; k++) {
        assert_int_equal(get_le16(b->c.image + entry(&b->c, k, true)->abs_bit / 8), 0xB000 + k);
        uint8_t in[2];
        assert_int_equal(takt_sim_peek(b->sim, k, 0x1100, in, 2), 0);
        assert_memory_equal(b->c.image + entry(&b->c, k, false)->abs_bit / 8, in, 2);
    }
    bench_free(b);
}

/* A cyclic reply the test drops is counted lost once, at the cycle that judges it, and
 * never again; nothing else is lost, no slave is taken for gone. */
static void test_lost_reply_counted_once(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    struct takt_ecat_master_stats before = b->c.st;
    unsigned ev = events_mark(b);
    b->drop_cyclic = true;
    cycle(b);                                  /* sends the frame whose reply is lost */
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost);
    cycle(b);                                  /* judges it */
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost + 1);
    assert_int_equal(b->c.st.frames_lost, before.frames_lost + 1);
    for (int i = 0; i < 50; i++)
        cycle(b);
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost + 1);
    assert_int_equal(b->c.st.frames_lost, before.frames_lost + 1);
    assert_int_equal(b->c.st.frames_late, before.frames_late);
    assert_int_equal(b->c.st.slaves_lost, before.slaves_lost);
    assert_int_equal(events_since(b, ev, "lost"), 0);
    assert_true(ecat_all_op(&b->c));
    bench_free(b);
}

/* A cyclic reply that comes back after its cycle was judged is counted lost (its data is
 * a cycle old and is not used) and then late, once each. */
static void test_late_reply_counted_late(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    struct takt_ecat_master_stats before = b->c.st;
    b->hold_cyclic = true;
    for (int i = 0; i < 4; i++)
        cycle(b);
    assert_false(b->have_held);
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost + 1);
    assert_int_equal(b->c.st.frames_late, before.frames_late + 1);
    assert_int_equal(b->c.st.frames_duplicate, before.frames_duplicate);
    for (int i = 0; i < 20; i++)
        cycle(b);
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost + 1);
    assert_int_equal(b->c.st.frames_late, before.frames_late + 1);
    assert_true(ecat_all_op(&b->c));
    bench_free(b);
}

/* A frozen driver: the time jumps by 5 s in one step. The replies of the last cycle were
 * back in time (they wait in the receive queue), so nothing is lost, no slave is gone,
 * no state machine times out, and the network stays in OP. */
static void test_time_jump(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    struct takt_ecat_master_stats before = b->c.st;
    unsigned ev = events_mark(b);
    cycle(b);
    b->now += 5 * TAKT_NS_PER_S;
    for (int i = 0; i < 50; i++)
        cycle(b);
    if (events_since(b, ev, ""))
        print_events(b);
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost);
    assert_int_equal(b->c.st.frames_lost, before.frames_lost);
    assert_int_equal(b->c.st.wkc_errors, before.wkc_errors);
    assert_int_equal(b->c.st.slaves_lost, before.slaves_lost);
    assert_int_equal(events_since(b, ev, ""), 0);
    for (unsigned k = 0; k < NSLAVES; k++)
        assert_int_not_equal(b->c.slaves[k].esm.f.state, SS_FAILED);
    assert_true(ecat_all_op(&b->c));
    bench_free(b);
}

/* Send r (an acyclic read of slave 0's AL status) in this cycle's acyclic frame, whose
 * reply the wire loses; its send time. */
static takt_ns_t send_lost(struct bench *b, struct ecat_req *r, uint8_t *buf)
{
    ecat_req_init(r, ECAT_FPRD, b->c.slaves[0].info.station, 0x0130, buf, 2);
    ecat_req_queue(&b->c, r);
    b->drop_acyclic = true;
    cycle(b);
    assert_false(b->drop_acyclic);
    assert_int_equal(r->st, REQ_SENT);
    return r->sent;
}

/* Acyclic datagrams whose frames never come back expire exactly at their timeout, each
 * counted lost once, while the cycles keep their own frames in flight: A at t0, B 10 ms
 * later. The timeout scan is skipped while nothing in flight can be due; this is what
 * it must still see (A in the cycle its timeout runs out, B 10 ms after, not later). */
static void test_acyclic_timeout_exact(void **state)
{
    (void)state;
    struct bench *b = bench_new();
    up(b);
    const takt_ns_t to = b->c.o.dg_timeout_ns;
    struct ecat_req ra, rb;
    uint8_t ba[2], bb[2];
    struct takt_ecat_master_stats before = b->c.st;
    takt_ns_t sa = send_lost(b, &ra, ba), sb = 0;
    bool a_done = false, b_done = false;
    for (unsigned i = 0; i < 200 && !b_done; i++) {
        if (b->now - sa == 10 * CYCLE)
            sb = send_lost(b, &rb, bb);
        takt_ns_t t = b->now;           /* the time this cycle's timer runs at */
        cycle(b);
        if (!a_done) {
            assert_int_equal(ra.st, t - sa >= to ? REQ_DONE : REQ_SENT);
            a_done = ra.st == REQ_DONE;
            if (a_done) {
                assert_int_equal(ra.wkc, -1);
                assert_int_equal(b->c.st.frames_lost, before.frames_lost + 1);
            }
        }
        if (sb) {
            assert_int_equal(rb.st, t - sb >= to ? REQ_DONE : REQ_SENT);
            b_done = rb.st == REQ_DONE;
        }
    }
    assert_true(a_done && b_done);
    assert_int_equal(rb.wkc, -1);
    assert_int_equal(b->c.st.frames_lost, before.frames_lost + 2);
    assert_int_equal(b->c.st.cyc_frames_lost, before.cyc_frames_lost);
    assert_true(ecat_all_op(&b->c));
    bench_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_and_process_data),
        cmocka_unit_test(test_inputs_leave_outputs_alone),
        cmocka_unit_test(test_lost_reply_counted_once),
        cmocka_unit_test(test_late_reply_counted_late),
        cmocka_unit_test(test_time_jump),
        cmocka_unit_test(test_acyclic_timeout_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
