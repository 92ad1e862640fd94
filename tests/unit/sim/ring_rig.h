/* The redundant ring of the cable redundancy tests (test_master_redundancy*.c): the
 * master on two mem pairs, the simulator a ring of N echo devices whose last slave is
 * wired back to the second pair; the application echoes each input counter and counts
 * the cycles whose counters did not all advance by one. */
#ifndef TAKT_TEST_RING_RIG_H
#define TAKT_TEST_RING_RIG_H

#include "master_rig.h"
#include "ecat/driver.h"   /* rx_deadline: what the real-time loop sets */
#include "sim/net.h"                /* the slaves' true system times */
#include <time.h>

#define N 5

struct ring {
    struct sim_device_desc desc[N];
    struct takt_sim *sim;
    struct takt_link *a[2], *b[2];
    struct takt_ecat_master *m;
    struct takt_ecat_pd_entry in[N], out[N];
    uint64_t last_in;
    unsigned steps;                 /* counters that did not advance by exactly 1 */
    unsigned uneven;                /* cycles whose slaves' counters differ */
    char events[16384];
};

static inline void echo_desc(struct sim_device_desc *d, unsigned i)
{
    io_desc(d, i);
    d->rxpdo[0].e[0] = (struct sim_pdo_entry){ 0x7000, 1, 32, 0x0007, "Output" };
    d->txpdo[0].e[0] = (struct sim_pdo_entry){ 0x6000, 1, 32, 0x0007, "Input" };
    snprintf(d->behaviour, sizeof d->behaviour, "echo");
}

static inline void drain_events(struct ring *r)
{
    char ev[300];
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev)) {
        printf("  event: %s\n", ev);
        size_t used = strlen(r->events);
        if (used + strlen(ev) + 2 <= sizeof r->events) {   /* a full log keeps its start */
            strcat(r->events, ev);
            strcat(r->events, "\n");
        }
    }
}

/* The application, inside the cycle: every slave's counter must have gone up by one
 * (each processed exactly one copy of the frame) and is echoed back. */
static inline void app(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)m;
    (void)now;
    struct ring *r = ctx;
    if (takt_ecat_master_state(r->m) != AL_OP)
        return;
    uint64_t v0 = takt_ecat_pd_read(r->m, &r->in[0]);
    for (unsigned i = 0; i < N; i++) {
        uint64_t v = takt_ecat_pd_read(r->m, &r->in[i]);
        r->uneven += v != v0;
        if (v != v0 || (r->last_in && v != r->last_in + 1)) {
            if (r->steps++ < 5)
                printf("  slave %u: input %llu, slave 0 %llu, last %llu\n", i,
                       (unsigned long long)v, (unsigned long long)v0, (unsigned long long)r->last_in);
        }
        takt_ecat_pd_write(r->m, &r->out[i], v);
    }
    r->last_in = v0;
}

static inline void cycle(struct ring *r)
{
    assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    drain_events(r);
}

/* no_dc: a bit per position whose slave has no DC unit (ESC features bit 2 clear) */
static inline struct ring *ring_new_dc_mask(bool redundant, bool dc, unsigned no_dc)
{
    struct ring *r = calloc(1, sizeof *r);
    struct sim_device *devs[N];
    for (unsigned i = 0; i < N; i++) {
        echo_desc(&r->desc[i], i);
        if (no_dc & (1u << i))
            r->desc[i].features &= (uint16_t)~0x0004u;
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = -1;
    char err[200];
    assert_int_equal(takt_sim_create_devices(devs, N, &so, &r->sim), 0);
    for (unsigned i = 0; dc && i < N; i++)   /* the reference fast, the others slow: the worst pair */
        if (!(no_dc & (1u << i)))
            assert_int_equal(takt_sim_set_clock(r->sim, i, 1000000 * (int64_t)i, i ? -50.0 : 50.0), 0);
    if (redundant)
        assert_int_equal(takt_sim_set_ring(r->sim, err, sizeof err), 0);
    for (int p = 0; p < 2; p++)
        assert_int_equal(takt_link_mem_pair(&r->a[p], &r->b[p], 64, NULL, NULL), 0);
    r->a[1]->mac[5] ^= 0x55;        /* two ports, two MACs */
    takt_sim_attach_mem_ring(r->sim, r->b[0], r->b[1]);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = TAKT_NS_PER_MS;
    o.redundant = redundant ? r->a[1] : NULL;
    o.dc = dc;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a[0], &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, 2 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_slave_count(r->m), N);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 5 * TAKT_NS_PER_S), 0);
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(takt_ecat_pd_find(r->m, i, "Input", 0, 0, &r->in[i]), 0);
        assert_int_equal(takt_ecat_pd_find(r->m, i, "Output", 0, 0, &r->out[i]), 0);
    }
    drain_events(r);
    r->events[0] = 0;
    takt_ecat_master_set_callback(r->m, app, r);
    return r;
}

static inline struct ring *ring_new_dc(bool redundant, bool dc)
{
    return ring_new_dc_mask(redundant, dc, 0);
}

static inline struct ring *ring_new(bool redundant)
{
    return ring_new_dc(redundant, false);
}

static inline void ring_free(struct ring *r)
{
    takt_ecat_master_close(r->m);
    for (int p = 0; p < 2; p++) {
        takt_link_close(r->a[p]);
        takt_link_close(r->b[p]);
    }
    takt_sim_destroy(r->sim);
    free(r);
}

#endif
