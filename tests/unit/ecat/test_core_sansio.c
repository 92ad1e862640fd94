/* The EtherCAT core on its own: no link and no clock. The test is the driver
 * (core_bench.h): it calls ecat_core_rx / _cycle / _tx / _timer with a time it
 * advances itself and passes the frames through the simulator's devices. It brings
 * three slaves to OP, exchanges process data, loses one cyclic reply, delivers one a
 * cycle late, and freezes for 5 s in one step; each must be counted exactly as it
 * happened. */
#include "unit/ecat/core_bench.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"

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

/* --- cyclic frames written again in place (plan_cyc.c) ------------------------------ */

/* Two cores on two identical networks, driven in lockstep with the same times and the
 * same outputs; b builds every cyclic frame anew (cyc_rebuild), a writes a frame sent
 * before again where only its number, indices, data and WKCs change. */
struct pair { struct bench *a, *b; unsigned cycles; };

static struct bench *bench_dc(bool dc)
{
    struct bench *b = bench_new();
    if (dc) {
        ecat_core_free(&b->c);
        struct takt_ecat_master_opts o;
        takt_ecat_master_opts_default(&o);
        o.cycle_ns = CYCLE;
        o.max_slaves = 8;
        o.dc = true;
        char err[200];
        assert_int_equal(ecat_core_init(&b->c, MAC, "test", &o, b->now, err, sizeof err), 0);
    }
    return b;
}

/* One cycle of both with new outputs; every cyclic frame the same, byte for byte. */
static void lockstep(struct pair *p)
{
    struct bench *x[2] = { p->a, p->b };
    p->cycles++;
    for (unsigned i = 0; i < 2; i++) {
        for (size_t o = 0; x[i]->c.image && o < x[i]->c.image_len; o++)
            if (x[i]->c.n_slaves && x[i]->c.configured)
                x[i]->c.image[o] = (uint8_t)(x[i]->c.image[o] + 1 + o);   /* the inputs come back over it */
        cycle(x[i]);
    }
    assert_int_equal(p->a->cyc_n, p->b->cyc_n);
    for (unsigned i = 0; i < p->a->cyc_n && i < 4; i++) {
        assert_int_equal(p->a->cyc[i].len, p->b->cyc[i].len);
        if (memcmp(p->a->cyc[i].d, p->b->cyc[i].d, p->a->cyc[i].len))
            fail_msg("cycle %u: cyclic frame %u differs from the one built anew", p->cycles, i);
    }
    assert_int_equal(p->a->c.frame_no, p->b->c.frame_no);
    assert_int_equal(p->a->c.next_idx, p->b->c.next_idx);
    assert_int_equal(p->a->c.st.cyc_frames_lost, p->b->c.st.cyc_frames_lost);
    assert_int_equal(p->a->c.st.wkc_errors, p->b->c.st.wkc_errors);
}

/* The same, with every datagram index but one taken (by requests the wire never
 * answers) from the cycle's check to its frame; given back afterwards. */
static void lockstep_starved(struct pair *p)
{
    struct bench *x[2] = { p->a, p->b };
    static struct ecat_req busy[256];
    p->cycles++;
    for (unsigned i = 0; i < 2; i++) {
        struct bench *b = x[i];
        for (unsigned k = 0; k < b->nq; k++)
            ecat_core_rx(&b->c, b->now, b->q[k].d, b->q[k].len, 0);
        b->nq = 0;
        ecat_core_cycle(&b->c, b->now);
        bool left = false;
        for (unsigned k = 0; k < 256; k++) {
            if (b->c.inflight[k])
                continue;
            if (!left) {
                left = true;            /* the one free */
                continue;
            }
            busy[k] = (struct ecat_req){ .st = REQ_SENT, .sent = b->now, .idx = (uint8_t)k };
            b->c.inflight[k] = &busy[k];
        }
        assert_true(left);
        unsigned n = ecat_core_tx(&b->c, b->now, b->out, MAXF);
        b->cyc_n = n;
        for (unsigned k = 0; k < n && k < 4; k++) {
            b->cyc[k].len = b->out[k].len;
            memcpy(b->cyc[k].d, b->out[k].data, b->out[k].len);
        }
        for (unsigned k = 0; k < 256; k++)
            if (b->c.inflight[k] == &busy[k])
                b->c.inflight[k] = NULL;
        wire(b, n, true);
        ecat_core_timer(&b->c, b->now);
        n = ecat_core_tx(&b->c, b->now, b->out, MAXF);
        wire(b, n, false);
        take_events(b);
        b->now += CYCLE;
    }
    assert_int_equal(p->a->cyc_n, p->b->cyc_n);
    for (unsigned i = 0; i < p->a->cyc_n && i < 4; i++) {
        assert_int_equal(p->a->cyc[i].len, p->b->cyc[i].len);
        if (memcmp(p->a->cyc[i].d, p->b->cyc[i].d, p->a->cyc[i].len))
            fail_msg("cycle %u: cyclic frame %u differs from the one built anew", p->cycles, i);
    }
    assert_int_equal(p->a->c.frame_no, p->b->c.frame_no);
    assert_int_equal(p->a->c.next_idx, p->b->c.next_idx);
}

static void lockstep_until(struct pair *p, bool (*done)(const struct ecat_core *c), unsigned max)
{
    for (unsigned i = 0; i < max && !done(&p->a->c); i++)
        lockstep(p);
    assert_true(done(&p->a->c));
    assert_true(done(&p->b->c));
}

static bool scanned(const struct ecat_core *c) { return c->scan.done && c->scan.state == MF_IDLE; }
static bool in_op(const struct ecat_core *c) { return all_settled(c) && ecat_all_op(c); }
static bool in_preop(const struct ecat_core *c)
{ return all_settled(c) && c->rec.low_state == AL_PREOP; }
static bool in_safeop(const struct ecat_core *c)
{ return all_settled(c) && c->rec.low_state == AL_SAFEOP; }

/* From the scan through PREOP, SAFEOP and OP, back to SAFEOP and OP, a lost cyclic
 * reply, PREOP and OP again, and cycles in which one datagram index is free (the frame
 * then goes without the datagrams after the first): the frames written again are the frames built anew, with and without
 * DC. Fails if a frame is written again after the datagrams that go out changed (a
 * state change: no longer the same key) or when not all indices are free. */
static void run_refill_same_bytes(bool dc)
{
    struct pair p = { bench_dc(dc), bench_dc(dc), 0 };
    p.b->c.cyc_rebuild = true;
    ecat_core_scan(&p.a->c, p.a->now);
    ecat_core_scan(&p.b->c, p.b->now);
    lockstep_until(&p, scanned, 5000);
    assert_int_equal(ecat_core_request_state(&p.a->c, AL_OP, p.a->now), 0);
    assert_int_equal(ecat_core_request_state(&p.b->c, AL_OP, p.b->now), 0);
    lockstep_until(&p, in_op, 10000);
    for (int i = 0; i < 50; i++)
        lockstep(&p);
    p.a->drop_cyclic = p.b->drop_cyclic = true;
    for (int i = 0; i < 5; i++)
        lockstep(&p);
    assert_int_equal(p.a->c.st.cyc_frames_lost, 1);
    assert_int_equal(ecat_core_request_state(&p.a->c, AL_SAFEOP, p.a->now), 0);
    assert_int_equal(ecat_core_request_state(&p.b->c, AL_SAFEOP, p.b->now), 0);
    lockstep_until(&p, in_safeop, 10000);
    for (int i = 0; i < 20; i++)
        lockstep(&p);
    /* as an ENI may list them: the process data only in SAFEOP and OP, so that PREOP
     * sends another set of datagrams (takt's own plan sends them in every state) */
    for (unsigned i = 0; i < 2; i++) {
        struct ecat_plan *pl = (struct ecat_plan *)ecat_plan_of(i ? &p.b->c : &p.a->c);
        assert_non_null(pl);
        for (unsigned j = 0; j < pl->n_dg; j++)
            if (pl->dg[j].role == PLAN_DG_DATA)
                pl->dg[j].states = 1u << AL_SAFEOP | 1u << AL_OP;
    }
    assert_int_equal(ecat_core_request_state(&p.a->c, AL_PREOP, p.a->now), 0);
    assert_int_equal(ecat_core_request_state(&p.b->c, AL_PREOP, p.b->now), 0);
    lockstep_until(&p, in_preop, 10000);
    for (int i = 0; i < 20; i++)
        lockstep(&p);
    assert_int_equal(ecat_core_request_state(&p.a->c, AL_OP, p.a->now), 0);
    assert_int_equal(ecat_core_request_state(&p.b->c, AL_OP, p.b->now), 0);
    lockstep_until(&p, in_op, 10000);
    for (int i = 0; i < 5; i++)
        lockstep(&p);
    /* one datagram index free when the frame is made: it goes with its first datagram
     * only; then with all again */
    unsigned before = p.a->c.cyc_refills;
    size_t whole = p.a->cyc[0].len;
    for (int i = 0; i < 3; i++) {
        lockstep_starved(&p);
        assert_true(p.a->cyc[0].len < whole);
    }
    assert_int_equal(p.a->c.cyc_refills, before);
    for (int i = 0; i < 50; i++)
        lockstep(&p);
    assert_true(p.a->c.cyc_refills > before + 40);   /* a wrote them again */
    assert_int_equal(p.b->c.cyc_refills, 0);
    assert_true(in_op(&p.a->c));
    assert_int_equal(p.a->c.dc.active, dc);
    bench_free(p.a);
    bench_free(p.b);
}

static void test_refill_same_bytes(void **state)
{
    (void)state;
    run_refill_same_bytes(false);
}

static void test_refill_same_bytes_dc(void **state)
{
    (void)state;
    run_refill_same_bytes(true);
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
        cmocka_unit_test(test_refill_same_bytes),
        cmocka_unit_test(test_refill_same_bytes_dc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
