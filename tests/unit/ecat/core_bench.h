/* A driver for the EtherCAT core made of the test itself (test_core_sansio.c,
 * test_recovery.c): no link and no clock. It calls ecat_core_rx / _cycle / _tx / _timer
 * with a time it advances itself, passes every frame tx gives through the simulator's
 * devices (takt_sim_process, in place) and hands their replies to rx at the next cycle,
 * as a wire would. A cyclic reply may be dropped or held back one cycle, an acyclic one
 * dropped. */
#ifndef TAKT_TEST_CORE_BENCH_H
#define TAKT_TEST_CORE_BENCH_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/sim.h>
#include "ecat/core.h"
#include "sim/device.h"
#include "util/wire.h"
#include "unit/sim/sim_io.h"

#define NSLAVES 3
#define CYCLE   TAKT_NS_PER_MS
#define MAXF    32

static const uint8_t MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

struct reply { size_t len; uint8_t d[TAKT_FRAME_BUF]; };

struct bench {
    struct ecat_core c;
    struct takt_sim *sim;
    takt_ns_t now;
    struct takt_frame out[MAXF];
    struct reply q[MAXF * 2];  /* replies on their way back: delivered next cycle */
    unsigned nq;
    struct reply held;         /* a cyclic reply held back one more cycle */
    bool have_held, release_held;
    bool drop_cyclic, hold_cyclic;   /* the next cyclic frame's reply: lost / held */
    bool drop_acyclic;         /* the next acyclic frame's reply: lost */
    unsigned cyc_seen;         /* cyclic frames the core gave */
    unsigned cyc_n;            /* the last cycle's cyclic frames, as the core gave them */
    struct reply cyc[4];
    char    (*evlog)[512];     /* the core's events as text, in order (the bench reads its ring) */
    unsigned nev, evcap;
};

static inline struct bench *bench_new(void)
{
    struct bench *b = calloc(1, sizeof *b);
    assert_non_null(b);
    static struct sim_device_desc desc[NSLAVES];
    b->sim = io_sim_new(desc, NSLAVES, -1);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = CYCLE;
    o.max_slaves = 8;
    b->now = 1000 * TAKT_NS_PER_S;       /* any origin: the core knows only what it is told */
    char err[200];
    assert_int_equal(ecat_core_init(&b->c, MAC, "test", &o, b->now, err, sizeof err), 0);
    return b;
}

static inline void bench_free(struct bench *b)
{
    free(b->evlog);
    ecat_core_free(&b->c);
    takt_sim_destroy(b->sim);
    free(b);
}

/* The frames tx gave go through the slaves now; their replies wait for the next cycle. */
static inline void wire(struct bench *b, unsigned n, bool cyclic)
{
    for (unsigned i = 0; i < n; i++) {
        assert_true(b->nq < MAXF * 2);
        struct reply *r = &b->q[b->nq];
        assert_true(b->out[i].len <= sizeof r->d);
        /* every frame leaves from the MAC the core was created with */
        assert_memory_equal(b->out[i].data + 6, MAC, 6);
        memcpy(r->d, b->out[i].data, b->out[i].len);
        r->len = takt_sim_process(b->sim, r->d, b->out[i].len, sizeof r->d, b->now, NULL);
        if (!r->len)
            continue;
        if (cyclic && i == 0 && b->drop_cyclic) {
            b->drop_cyclic = false;          /* processed by the slaves, reply lost */
            continue;
        }
        if (!cyclic && i == 0 && b->drop_acyclic) {
            b->drop_acyclic = false;
            continue;
        }
        if (cyclic && i == 0 && b->hold_cyclic) {
            b->hold_cyclic = false;
            b->held = *r;
            b->have_held = true;
            continue;
        }
        b->nq++;
    }
}

/* Take what the core put on its event ring, as text (as the driver's readers do). */
static inline void take_events(struct bench *b)
{
    struct takt_event ev;
    while (rt_evring_next(&b->c.ev, &ev)) {
        if (b->nev == b->evcap) {
            b->evcap = b->evcap ? 2 * b->evcap : 64;
            b->evlog = realloc(b->evlog, b->evcap * sizeof *b->evlog);
            assert_non_null(b->evlog);
        }
        if (rt_ev_ring_format(&ev, b->evlog[b->nev], sizeof b->evlog[0]) < 0)
            ecat_ev_format(&ev, b->evlog[b->nev], sizeof b->evlog[0]);
        b->nev++;
    }
}

/* One cycle, in the order the driver (master.c) runs it. */
static inline void cycle(struct bench *b)
{
    for (unsigned i = 0; i < b->nq; i++)
        ecat_core_rx(&b->c, b->now, b->q[i].d, b->q[i].len, 0);
    b->nq = 0;
    ecat_core_cycle(&b->c, b->now);
    if (b->have_held && b->release_held) {
        /* after the cycle that judged its frame: late */
        ecat_core_rx(&b->c, b->now, b->held.d, b->held.len, 0);
        b->have_held = b->release_held = false;
    } else if (b->have_held) {
        b->release_held = true;
    }
    unsigned n = ecat_core_tx(&b->c, b->now, b->out, MAXF);
    b->cyc_seen += n;
    b->cyc_n = n;
    for (unsigned i = 0; i < n && i < 4; i++) {
        b->cyc[i].len = b->out[i].len;
        memcpy(b->cyc[i].d, b->out[i].data, b->out[i].len);
    }
    wire(b, n, true);
    ecat_core_timer(&b->c, b->now);
    n = ecat_core_tx(&b->c, b->now, b->out, MAXF);
    wire(b, n, false);
    take_events(b);
    b->now += CYCLE;
}

static inline bool all_settled(const struct ecat_core *c)
{
    for (unsigned i = 0; i < c->n_slaves; i++)
        if (c->slaves[i].esm.f.state != SS_IDLE && c->slaves[i].esm.f.state != SS_FAILED)
            return false;
    return true;
}

static inline void print_events(struct bench *b)
{
    take_events(b);
    for (unsigned t = 0; t < b->nev; t++)
        printf("  event: %s\n", b->evlog[t]);
}

/* How many events so far: a mark for events_since. */
static inline unsigned events_mark(struct bench *b)
{
    take_events(b);
    return b->nev;
}

static inline unsigned events_since(struct bench *b, unsigned from, const char *needle)
{
    take_events(b);
    unsigned n = 0;
    for (unsigned t = from; t < b->nev; t++)
        n += strstr(b->evlog[t], needle) != NULL;
    return n;
}

static inline void up(struct bench *b)
{
    ecat_core_scan(&b->c, b->now);
    for (unsigned i = 0; i < 5000 && !(b->c.scan.done && b->c.scan.state == MF_IDLE); i++)
        cycle(b);
    if (b->c.last_err)
        print_events(b);
    assert_int_equal(b->c.last_err, 0);
    assert_int_equal(b->c.n_slaves, NSLAVES);
    assert_int_equal(ecat_core_request_state(&b->c, AL_OP, b->now), 0);
    for (unsigned i = 0; i < 10000 && !(all_settled(&b->c) && ecat_all_op(&b->c)); i++)
        cycle(b);
    if (!ecat_all_op(&b->c))
        print_events(b);
    assert_true(ecat_all_op(&b->c));
    assert_int_equal(b->c.st.state, AL_OP);
}

static inline const struct ecat_pd *entry(const struct ecat_core *c, unsigned pos, bool output)
{
    for (unsigned i = 0; i < c->slaves[pos].n_pd; i++)
        if (c->slaves[pos].pd[i].output == output)
            return &c->slaves[pos].pd[i];
    fail_msg("slave %u has no %s entry", pos, output ? "output" : "input");
    return NULL;
}

#endif
