/* A reply is used only for the request it answers, in that request's cycle: replies held
 * back by one and by several datagram-index wraps, replies sent twice, and a frozen
 * network that then answers everything at once. The slaves' input is a counter that the
 * test steps every cycle; the application echoes it into the outputs. Neither the image
 * nor the echo may ever take a value from a reply that came back after its cycle. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "unit/ecat/master_fake.h"

#define HOLD_MAX 4096

/* Between master and the fake ESCs: requests pass straight through (the slaves act on
 * them at once, as on the wire), and their replies are held back `delay` cycles, or
 * until released, or sent twice. */
struct relay {
    struct fake_net net;
    struct takt_link *ep;       /* the slaves' end */
    unsigned delay;             /* cycles a reply is held back (0: none) */
    bool     freeze, dup;
    uint64_t cycle;
    struct held { uint64_t due; uint16_t len; uint8_t data[TAKT_FRAME_BUF]; } *q;
    unsigned head, tail;
    struct takt_link *cap_a, *cap_b;   /* the fake answers into this private pair */
    unsigned brd_dirty;         /* BRD 0x0130 requests that went out with data in them */
    bool     drop_fprd;         /* swallow the reply of every frame with an FPRD in it */
};

static bool has_fprd(const struct takt_frame *f)
{
    uint8_t buf[TAKT_FRAME_BUF];
    struct ecat_dg dg;
    size_t pos;
    memcpy(buf, f->data, f->len);
    for (int rc = ecat_frame_first(buf, f->len, &dg, &pos); rc == 0; rc = ecat_frame_next(buf, f->len, &dg, &pos))
        if (dg.cmd == ECAT_FPRD)
            return true;
    return false;
}

static void look_at_request(struct relay *r, const struct takt_frame *f)
{
    uint8_t buf[TAKT_FRAME_BUF];
    struct ecat_dg dg;
    size_t pos;
    memcpy(buf, f->data, f->len);
    for (int rc = ecat_frame_first(buf, f->len, &dg, &pos); rc == 0; rc = ecat_frame_next(buf, f->len, &dg, &pos))
        if (dg.cmd == ECAT_BRD && dg.ado == ESC_AL_STATUS && dg.len >= 2 && (dg.data[0] || dg.data[1]))
            r->brd_dirty++;
}

static void relay_respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct relay *r = ctx;
    r->ep = ep;
    look_at_request(r, f);
    if (r->drop_fprd && has_fprd(f))
        return;
    /* the fake answers into a private pair; the reply is then ours to hold or pass on */
    fake_respond(&r->net, r->cap_b, f);
    struct takt_frame rf = { .data = r->q[r->tail % HOLD_MAX].data, .cap = TAKT_FRAME_BUF };
    if (takt_link_recv(r->cap_a, &rf, 1, 0) != 1)
        return;
    if (!r->delay && !r->freeze) {
        rf.ts = 0;
        takt_link_send(ep, &rf, 1);
        if (r->dup)
            takt_link_send(ep, &rf, 1);
        return;
    }
    assert_true(r->tail - r->head < HOLD_MAX);
    r->q[r->tail % HOLD_MAX].len = rf.len;
    /* sent in cycle c, a reply is due for the master's receive in cycle c + 1; held back
     * `delay` cycles it reaches the master's receive in cycle c + 1 + delay */
    r->q[r->tail % HOLD_MAX].due = r->cycle + 1 + r->delay;
    r->tail++;
}

/* Release what is due (everything when `all`). */
static void relay_tick(struct relay *r, bool all)
{
    while (r->head != r->tail && !r->freeze && (all || r->q[r->head % HOLD_MAX].due <= r->cycle)) {
        struct held *h = &r->q[r->head % HOLD_MAX];
        struct takt_frame f = { .data = h->data, .len = h->len, .cap = TAKT_FRAME_BUF };
        takt_link_send(r->ep, &f, 1);
        r->head++;
    }
}

struct rig {
    struct relay rl;
    struct takt_link *a, *b;
    struct takt_ecat_master *m;
    struct takt_ecat_pd_entry in[2], out[2];
    uint16_t counter;           /* what the slaves' inputs hold this cycle */
    uint16_t seen[2];           /* last input value the application saw per slave */
    unsigned stale_uses;        /* inputs changed to a value older than this cycle's */
    unsigned fresh_cycles, aged_cycles;
    takt_ns_t t0;               /* the cycles' clock: t0 + 1 ms per cycle */
};

static void app(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    struct rig *g = ctx;
    unsigned age = takt_ecat_master_inputs_age(m);
    if (age == 0)
        g->fresh_cycles++;
    else
        g->aged_cycles++;
    for (unsigned i = 0; i < 2; i++) {
        uint16_t v = (uint16_t)takt_ecat_pd_read(m, &g->in[i]);
        /* a new value must be the one the slaves held when the last cycle's frame passed
         * them (the counter moved on once since) */
        if (v != g->seen[i] && v != (uint16_t)(g->counter - 1) && v != g->counter)
            g->stale_uses++;
        if (v != g->seen[i] && age != 0)
            g->stale_uses++;          /* the image changed, but the master says it is old */
        g->seen[i] = v;
        takt_ecat_pd_write(m, &g->out[i], v);
    }
}

static struct rig *rig_new(void)
{
    struct rig *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->rl.q = calloc(HOLD_MAX, sizeof *g->rl.q);
    assert_non_null(g->rl.q);
    fake_init(&g->rl.net, 2);
    assert_int_equal(takt_link_mem_pair(&g->rl.cap_a, &g->rl.cap_b, 64, NULL, NULL), 0);
    assert_int_equal(takt_link_mem_pair(&g->a, &g->b, 4096, NULL, NULL), 0);
    takt_link_mem_set_responder(g->b, relay_respond, &g->rl);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 8;
    char err[200];
    assert_int_equal(takt_ecat_master_open(&g->m, g->a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(g->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(g->m, AL_OP, TAKT_NS_PER_S), 0);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(takt_ecat_pd_find(g->m, i, "Value", 0, 0, &g->in[i]), 0);
        assert_int_equal(takt_ecat_pd_find(g->m, i, NULL, 0x7000, 1, &g->out[i]), 0);
    }
    takt_ecat_master_set_callback(g->m, app, g);
    g->t0 = takt_now();
    return g;
}

static void rig_free(struct rig *g)
{
    takt_ecat_master_close(g->m);
    takt_link_close(g->a);
    takt_link_close(g->b);
    takt_link_close(g->rl.cap_a);
    takt_link_close(g->rl.cap_b);
    free(g->rl.q);
    free(g);
}

/* One cycle of 1 ms: step the slaves' counter, release what is due, run the master's cycle. */
static void cycle(struct rig *g)
{
    g->counter++;
    for (unsigned i = 0; i < 2; i++)
        put_le16(g->rl.net.s[i].mem + 0x1100, g->counter);
    g->rl.cycle++;
    relay_tick(&g->rl, false);
    assert_int_equal(takt_ecat_master_cycle(g->m, g->t0 + (takt_ns_t)g->rl.cycle * TAKT_NS_PER_MS), 0);
}

static void cycles(struct rig *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        cycle(g);
}

static void check_counters(const struct takt_ecat_master_stats *s)
{
    assert_true(s->frames_late <= s->frames_lost);
    assert_true(s->frames_received + s->frames_lost <= s->frames_sent);
}

/* Replies held back `delay` cycles: every one is late, none is used. */
static void held_back(unsigned delay)
{
    struct rig *g = rig_new();
    cycles(g, 20);
    assert_int_equal(g->stale_uses, 0);
    assert_true(g->fresh_cycles >= 18);
    g->rl.delay = delay;
    cycle(g);                 /* the reply of the frame sent before comes back in time */
    struct takt_ecat_master_stats s0, s1;
    takt_ecat_master_get_stats(g->m, &s0);
    uint16_t before = g->seen[0];
    unsigned window = 3 * delay + 300;
    g->fresh_cycles = 0;
    cycles(g, window);
    takt_ecat_master_get_stats(g->m, &s1);
    /* nothing came back in its cycle: not one fresh cycle, the inputs never moved */
    assert_int_equal(g->fresh_cycles, 0);
    assert_int_equal(g->stale_uses, 0);
    assert_int_equal(g->seen[0], before);
    assert_int_equal(s1.frames_received, s0.frames_received);
    assert_true(s1.frames_late - s0.frames_late >= window - delay - 2);
    assert_int_equal(s1.frames_unmatched, s0.frames_unmatched);
    check_counters(&s1);

    /* the delay ends: fresh inputs again, once the slaves, given up as lost while
     * nothing came back in time, are found again and back in OP */
    g->rl.delay = 0;
    relay_tick(&g->rl, true);
    unsigned back = 0;
    for (; back < 5000 && !(takt_ecat_master_state(g->m) == AL_OP && takt_ecat_master_inputs_age(g->m) == 0); back++)
        cycle(g);
    char ev[200];
    while (takt_ecat_master_next_event(g->m, ev, sizeof ev))
        if (getenv("V")) printf("  event: %s\n", ev);
    printf("delay %u cycles: back in OP with fresh inputs after %u cycles (state 0x%x age %u)\n", delay, back, takt_ecat_master_state(g->m), takt_ecat_master_inputs_age(g->m));
    g->fresh_cycles = 0;
    cycles(g, 50);
    assert_true(g->fresh_cycles >= 48);
    assert_int_equal(g->stale_uses, 0);
    assert_true(g->seen[0] == g->counter - 1 || g->seen[0] == g->counter);
    takt_ecat_master_get_stats(g->m, &s1);
    check_counters(&s1);
    rig_free(g);
}

static void test_delay_one_cycle(void **state) { (void)state; held_back(1); }
static void test_delay_index_wraps(void **state)
{
    (void)state;
    /* the master sends a handful of datagrams a cycle: an index comes round after
     * 256 / that many cycles; delays around one wrap and several */
    static const unsigned d[] = { 63, 64, 65, 85, 86, 127, 128, 129, 255, 256, 257, 600 };
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(d); i++)
        held_back(d[i]);
}

static void test_duplicates(void **state)
{
    (void)state;
    struct rig *g = rig_new();
    cycles(g, 10);
    struct takt_ecat_master_stats s0, s1;
    takt_ecat_master_get_stats(g->m, &s0);
    g->rl.dup = true;
    cycles(g, 100);
    takt_ecat_master_get_stats(g->m, &s1);
    assert_int_equal(g->stale_uses, 0);
    /* every frame came back twice: one copy used, one counted as such (the last
     * cycle's is still on its way) */
    uint64_t sent = s1.frames_sent - s0.frames_sent;
    uint64_t got = s1.frames_received - s0.frames_received;
    uint64_t dup = s1.frames_duplicate - s0.frames_duplicate;
    assert_true(dup + 1 >= got && dup <= got);
    assert_true(got + 1 >= sent && got <= sent);
    assert_int_equal(s1.frames_lost, s0.frames_lost);
    rig_free(g);
}

/* The network holds everything for 2000 cycles, then answers it all at once. */
static void test_freeze_then_burst(void **state)
{
    (void)state;
    struct rig *g = rig_new();
    cycles(g, 10);
    g->rl.freeze = true;
    cycle(g);                 /* the reply of the frame sent before comes back in time */
    struct takt_ecat_master_stats s0, s1;
    takt_ecat_master_get_stats(g->m, &s0);
    uint16_t before = g->seen[1];
    cycles(g, 2000);
    g->rl.freeze = false;
    relay_tick(&g->rl, true);        /* the whole backlog arrives before the next cycle */
    cycles(g, 1);
    takt_ecat_master_get_stats(g->m, &s1);
    /* only the newest frame of the burst was still in its cycle: its value or none */
    assert_true(g->seen[1] == before || g->seen[1] == (uint16_t)(g->counter - 1));
    assert_int_equal(g->stale_uses, 0);
    assert_true(s1.frames_received - s0.frames_received <= 1);
    /* the ring remembers 4096 frames: the burst is counted late, not used */
    assert_true(s1.frames_late - s0.frames_late >= 2000);
    check_counters(&s1);
    cycles(g, 50);
    assert_int_equal(g->stale_uses, 0);
    assert_true(takt_ecat_master_inputs_age(g->m) == 0);
    rig_free(g);
}

/* The presence/AL-status BRD goes out as zeros every cycle: the slaves OR their state
 * into it, so a reply's bits carried into the next request would never clear. */
static void test_al_brd_zeroed(void **state)
{
    (void)state;
    struct rig *g = rig_new();
    cycles(g, 5);
    g->rl.net.s[1].mem[ESC_AL_STATUS] = AL_OP | AL_ERROR;    /* an error bit, once */
    cycles(g, 1);
    g->rl.net.s[1].mem[ESC_AL_STATUS] = AL_OP;
    cycles(g, 100);
    assert_int_equal(g->rl.brd_dirty, 0);
    assert_int_equal(takt_ecat_master_state(g->m), AL_OP);
    rig_free(g);
}

static void read_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    (void)data;
    (void)len;
    int *res = ctx;
    *res = err ? err : 1;
}

/* An acyclic request whose reply never comes must time out even when more frames than
 * the frame-number ring holds went out meanwhile (short cycles, several cyclic frames
 * each): its frame's record has been taken by a cyclic frame by then, and the request
 * must not be mistaken for a cyclic one that waits for its cycle's verdict. */
static void test_lost_acyclic_expires_after_ring_wrap(void **state)
{
    (void)state;
    struct rig *g = rig_new();
    cycles(g, 5);
    struct takt_ecat_master_stats s0, s1;
    takt_ecat_master_get_stats(g->m, &s0);
    int res = 0;
    g->rl.drop_fprd = true;
    assert_int_equal(takt_ecat_reg_read_async(g->m, 0, 0x0130, 2, read_done, &res), 0);
    /* 10 us cycles: 4500 frames go out within 45 ms, before the 50 ms datagram timeout */
    takt_ns_t t = g->t0 + (takt_ns_t)g->rl.cycle * TAKT_NS_PER_MS;
    for (unsigned i = 0; i < 4500; i++) {
        t += 10 * TAKT_NS_PER_US;
        assert_int_equal(takt_ecat_master_cycle(g->m, t), 0);
    }
    takt_ecat_master_get_stats(g->m, &s1);
    assert_true(s1.frames_sent - s0.frames_sent > 4096);
    assert_int_equal(res, 0);                /* not yet: its timeout has not passed */
    /* the service sends a lost read three times, 50 ms each: give it 3 s of cycles */
    for (unsigned i = 0; i < 3000 && !res; i++) {
        t += TAKT_NS_PER_MS;
        assert_int_equal(takt_ecat_master_cycle(g->m, t), 0);
    }
    assert_int_equal(res, -ETIMEDOUT);       /* given up, with an error */
    takt_ecat_master_get_stats(g->m, &s1);
    assert_true(s1.frames_lost > s0.frames_lost);   /* and its frame counted lost */
    check_counters(&s1);
    rig_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delay_one_cycle),
        cmocka_unit_test(test_delay_index_wraps),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_freeze_then_burst),
        cmocka_unit_test(test_al_brd_zeroed),
        cmocka_unit_test(test_lost_acyclic_expires_after_ring_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
