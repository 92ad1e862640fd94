/* Master DC against the simulator: topology (parent, port) and propagation delays on a
 * tree, convergence with drifting clocks there, and the two synchronisation modes -
 * master follows the reference clock (PI loop on the cycle start, driven in virtual
 * time) and reference follows the master (the reference's drift trimmed away). */
#include <math.h>
#include <time.h>
#include "master_rig.h"
#include "ecat/driver.h"
#include "sim/net.h"

#define MS TAKT_NS_PER_MS

/* The simulator's time for the responder: the real clock less VOFF, or a virtual one a
 * test advances itself from there (frames are answered at once, so each frame sees
 * that time). Virtual time must stay behind the real clock: the master stamps its
 * cyclic frames with the real one and would take frames stamped "in the future" of its
 * timer for lost. */
#define VOFF (100 * TAKT_NS_PER_S)
static takt_ns_t *vclock;

static void respond_v(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct rig *r = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    if (f->len > sizeof buf)
        return;
    memcpy(buf, f->data, f->len);
    size_t n = takt_sim_process(r->sim, buf, f->len, sizeof buf, vclock ? *vclock : takt_now() - VOFF, NULL);
    if (n) {
        struct takt_frame out = { .data = buf, .len = (uint16_t)n, .cap = sizeof buf };
        takt_link_send(ep, &out, 1);
    }
}

/* n DC-capable I/O slaves in the given topology (NULL = line), clocks drifting within
 * +-50 ppm, master with DC in the given mode. */
static struct rig *dc_rig(unsigned n, const char *topo, enum takt_ecat_dc_mode mode)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[64];
    for (unsigned i = 0; i < n; i++) {
        io_desc(&r->desc[i], i);
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = 50;
    so.seed = 11;
    char err[200];
    assert_int_equal(takt_sim_create_devices(devs, n, &so, &r->sim), 0);
    if (topo)
        assert_int_equal(takt_sim_set_topology(r->sim, topo, err, sizeof err), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond_v, r);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dc = true;
    o.dc_mode = mode;
    o.cycle_ns = MS;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    return r;
}

/* The junction preset's shape with I/O slaves; forwarding delays differ per slave. */
static void tree_topology_and_delays(void **state)
{
    (void)state;
    struct rig *r = dc_rig(9, TAKT_SIM_JUNCTION_TOPOLOGY, TAKT_ECAT_DC_MASTER_FOLLOWS_REF);
    assert_int_equal(takt_ecat_master_scan(r->m, 2 * TAKT_NS_PER_S), 0);
    for (unsigned k = 0; k < 9; k++) {
        struct takt_ecat_slave_info si;
        int p;
        unsigned pp;
        takt_ecat_master_slave_info(r->m, k, &si);
        takt_sim_get_parent(r->sim, k, &p, &pp);
        assert_int_equal(si.parent, p);
        assert_int_equal(si.parent_port, pp);
    }
    rig_free(r);
}

/* Delays against the simulator's truth (the offset at which the frame reaches each
 * slave's port 0, minus the reference's). With equal forwarding delays the estimate
 * is exact; with unequal ones off by half the differences on the way, as on real
 * hardware. Then DC convergence on the tree with drifting clocks. */
static void tree_dc(bool equal)
{
    struct rig *r = dc_rig(9, TAKT_SIM_JUNCTION_TOPOLOGY, TAKT_ECAT_DC_MASTER_FOLLOWS_REF);
    static const takt_ns_t fwd[9] = { 700, 300, 450, 900, 300, 520, 610, 800, 400 };
    takt_ns_t maxdiff = 0;
    for (unsigned k = 0; k < 9 && !equal; k++) {
        takt_sim_set_fwd_delay(r->sim, k, fwd[k]);
        for (unsigned j = 0; j < 9; j++)
            maxdiff = llabs(fwd[k] - fwd[j]) > maxdiff ? llabs(fwd[k] - fwd[j]) : maxdiff;
    }
    up(r, 9);
    for (unsigned k = 0; k < 9; k++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(r->m, k, &si);
        takt_ns_t truth = r->sim->sl[k].t_in - r->sim->sl[0].t_in;
        printf("  slave %u parent %d port %u: delay %d ns, true %lld ns\n", k, si.parent,
               si.parent_port, si.dc_delay_ns, (long long)truth);
        if (equal)
            assert_true(llabs(si.dc_delay_ns - truth) <= 2);
        else        /* half a difference per hop, 4 hops deep at most */
            assert_true(llabs(si.dc_delay_ns - truth) <= 2 * maxdiff + 2);
    }
    /* the same bound the line meets (test_master_sim test_dc): 50 ppm compensated */
    cycles(r, 2000);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    printf("  tree DC: sync error %lld ns (max in OP %lld)\n", (long long)st.dc_sync_err_ns,
           (long long)st.dc_sync_err_max_ns);
    assert_true(st.dc_sync_err_ns < 1000);
    rig_free(r);
}

static void tree_delays_equal(void **state) { (void)state; tree_dc(true); }
static void tree_delays_unequal(void **state) { (void)state; tree_dc(false); }

/* Random trees: each slave on a free port (1..3) of a random earlier one, numbered in
 * the frame's order (ports 3, 1, 2 after the processing unit); the master must find
 * every parent and port, and with equal forwarding delays every delay exactly. */
static unsigned rnd(unsigned *st) { *st = *st * 1103515245u + 12345u; return (*st >> 16) & 0x7FFF; }

static void preorder(int k, int n, const int *par, const int *port, int *order, int *no)
{
    order[k] = (*no)++;
    static const int po[3] = { 3, 1, 2 };
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < n; c++)
            if (par[c] == k && port[c] == po[i])
                preorder(c, n, par, port, order, no);
}

static void random_trees(void **state)
{
    (void)state;
    enum { NS = 12 };
    for (unsigned seed = 1; seed <= 6; seed++) {
        unsigned st = seed;
        int par[NS], port[NS], order[NS], no = 0;
        par[0] = -1;
        port[0] = 0;
        for (int k = 1; k < NS; k++) {
            for (;;) {
                int p = (int)(rnd(&st) % (unsigned)k), q = 1 + (int)(rnd(&st) % 3);
                bool used = false;
                for (int c = 1; c < k; c++)
                    used |= par[c] == p && port[c] == q;
                if (!used) {
                    par[k] = p;
                    port[k] = q;
                    break;
                }
            }
        }
        preorder(0, NS, par, port, order, &no);
        /* the spec in frame order: item for position j names its parent's position */
        char spec[256] = "";
        for (int j = 1; j < NS; j++) {
            int k = 0;
            while (order[k] != j)
                k++;
            char it[16];
            snprintf(it, sizeof it, "%s%d:%d", j > 1 ? "," : "", order[par[k]], port[k]);
            strcat(spec, it);
        }
        struct rig *r = dc_rig(NS, spec, TAKT_ECAT_DC_MASTER_FOLLOWS_REF);
        up(r, NS);
        for (unsigned k = 0; k < NS; k++) {
            struct takt_ecat_slave_info si;
            int p;
            unsigned pp;
            takt_ecat_master_slave_info(r->m, k, &si);
            takt_sim_get_parent(r->sim, k, &p, &pp);
            takt_ns_t truth = r->sim->sl[k].t_in - r->sim->sl[0].t_in;
            if (si.parent != p || si.parent_port != pp || llabs(si.dc_delay_ns - truth) > 2)
                printf("  tree %s: slave %u parent %d/%d port %u/%u delay %d/%lld\n", spec, k,
                       si.parent, p, si.parent_port, pp, si.dc_delay_ns, (long long)truth);
            assert_int_equal(si.parent, p);
            assert_int_equal(si.parent_port, pp);
            assert_true(llabs(si.dc_delay_ns - truth) <= 2);
        }
        rig_free(r);
    }
}

#define REF_PPM 80.0
/* Reference follows master runs on the real clock: the master stamps its time
 * microseconds before the simulator sees the frame, and under sanitizer
 * instrumentation that jitter is several times larger (seen: +-7 ppm means). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RATE_BOUND_PPM 15.0
#else
#define RATE_BOUND_PPM 5.0
#endif
#define SETTLE 500               /* cycles the loop may take (from up to half a cycle off) */
#define HOLD 1000                /* cycles it must then hold the bound */
#define PHASE_BOUND 100          /* ns */

/* Master follows the reference: the reference clock runs +80 ppm fast. The test drives
 * the cycle in virtual time like the RT thread would - each period the cycle time
 * plus the shift the loop asks for - and measures, from the simulator's own clock, the
 * phase of the reference's time at the frame against SYNC0. */
static void master_follows_reference(void **state)
{
    (void)state;
    struct rig *r = dc_rig(3, NULL, TAKT_ECAT_DC_MASTER_FOLLOWS_REF);
    takt_sim_set_clock(r->sim, 0, 123456789, REF_PPM);
    up(r, 3);
    struct sim_esc *ref = &r->sim->sl[0].esc;
    takt_ns_t v = takt_now() - VOFF;
    vclock = &v;
    int64_t worst = 0, first = 0;
    double period_sum = 0;
    for (unsigned i = 0; i < SETTLE + HOLD; i++) {
        /* the frame passes the reference at v: its phase against the SYNC0 grid,
         * 0 when half a cycle before the next pulse */
        uint64_t t = esc_dc_systime(ref, v);
        int64_t ph = (int64_t)((t - ref->dc.sync0_start) % MS) - MS / 2;
        if (i == 0)
            first = ph;
        if (i >= SETTLE) {
            worst = llabs(ph) > worst ? llabs(ph) : worst;
            period_sum += (double)MS;
        }
        assert_int_equal(takt_ecat_master_cycle(r->m, v), 0);
        int64_t shift = takt_ecat_master_dc_take_shift(r->m);
        if (i >= SETTLE)
            period_sum += (double)shift;
        v += MS + shift;
        if (getenv("DC_DEBUG") && (i % 50 == 0 || llabs(ph) > 1000))
            printf("    %u: ph %lld shift %lld master ph %lld\n", i, (long long)ph, (long long)shift,
                   (long long)takt_ecat_master_dc_phase(r->m));
    }
    vclock = NULL;
    /* the master's period in its own time; the reference's cycle is 1 ms of its time,
     * i.e. 1 ms / (1 + 80e-6) of the master's */
    double period = period_sum / HOLD, want = MS / (1.0 + REF_PPM * 1e-6);
    printf("  master follows: phase %lld ns at start, worst %lld ns over cycles %u..%u; "
           "period %.2f ns (reference's %.2f)\n", (long long)first, (long long)worst, SETTLE,
           SETTLE + HOLD, period, want);
    assert_true(worst < PHASE_BOUND);
    assert_true(fabs(period - want) < 2.0);
    assert_true(llabs(takt_ecat_master_dc_phase(r->m)) < PHASE_BOUND);
    rig_free(r);
}

/* Reference follows the master: the master writes its time into the reference every
 * cycle; the reference's control loop must trim its +80 ppm away. Real time on both
 * sides (the master stamps its frames with the real clock), cycles paced at 1 ms. */
static void reference_follows_master(void **state)
{
    (void)state;
    struct rig *r = dc_rig(3, NULL, TAKT_ECAT_DC_REF_FOLLOWS_MASTER);
    takt_sim_set_clock(r->sim, 0, 987654321, REF_PPM);
    up(r, 3);
    struct sim_esc *ref = &r->sim->sl[0].esc;
    takt_ns_t next = takt_now();
    /* the reference's rate against the master's clock (= the simulator's time): its
     * drift and the correction its loop settles on cancel. Averaged over the last
     * second: the correction is judged every 128 ms and dithers with the master's
     * time-stamp jitter (a few ppm; more under sanitizers) */
    double sum = 0;
    unsigned nsum = 0;
    for (unsigned i = 0; i < 3000; i++) {
        next += MS;
        struct timespec ts = { .tv_sec = next / TAKT_NS_PER_S, .tv_nsec = next % TAKT_NS_PER_S };
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        if (i >= 2000) {
            sum += (ref->dc.drift_ppb + ref->dc.corr_ppb) / 1000.0;
            nsum++;
        }
        if (getenv("DC_DEBUG") && i % 50 == 0)
            printf("    %u: corr %.1f ppm filt %.0f\n", i, ref->dc.corr_ppb / 1000.0, ref->dc.filt);
    }
    double rate_ppm = sum / nsum;
    uint8_t b[2];
    takt_sim_peek(r->sim, 0, ESC_DC_SPEED_DIFF, b, 2);
    /* and its time: the master's, at the same instant */
    takt_ns_t now = takt_now();
    int64_t off = (int64_t)(esc_dc_systime(ref, now - VOFF) - (uint64_t)(now + r->m->core.dc.offset));
    printf("  reference follows: residual rate %.3f ppm (mean over the last second; correction "
           "now %.1f ppm, 0x0932 %d), offset to master time %lld ns\n", rate_ppm,
           ref->dc.corr_ppb / 1000.0, (int16_t)get_le16(b), (long long)off);
    assert_true(fabs(rate_ppm) < RATE_BOUND_PPM);
    /* the speed counter register shows the correction (whole ppm) */
    assert_true(fabs((int16_t)get_le16(b) - ref->dc.corr_ppb / 1000.0) < 1.0);
    assert_true(llabs(off) < 20000);
    rig_free(r);
}

/* Slaves that come back after a break (power lost: offset, delay, loop filter and
 * SYNC0 gone) get their clock set up again before they return to OP; the sync error
 * comes back within the bound. */
static void dc_after_return(void **state)
{
    (void)state;
    struct rig *r = dc_rig(4, NULL, TAKT_ECAT_DC_MASTER_FOLLOWS_REF);
    up(r, 4);
    takt_sim_break(r->sim, 2, takt_now() - VOFF);
    cycles(r, 20);
    takt_sim_heal(r->sim, takt_now() - VOFF);
    struct takt_ecat_master_stats st;
    for (unsigned i = 0; i < 5000; i++) {
        cycles(r, 1);
        takt_ecat_master_get_stats(r->m, &st);
        if (st.slaves_returned == 2 && takt_ecat_master_state(r->m) == AL_OP)
            break;
    }
    print_events(r->m);
    assert_int_equal(st.slaves_returned, 2);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    for (unsigned k = 2; k < 4; k++) {
        uint8_t act = 0, cyc[4], slew[2];
        takt_sim_peek(r->sim, k, ESC_DC_ACTIVATION, &act, 1);
        takt_sim_peek(r->sim, k, ESC_DC_SYNC0_CYCLE, cyc, 4);
        takt_sim_peek(r->sim, k, ESC_DC_SPEED_START, slew, 2);
        assert_int_equal(act, 0x03);
        assert_int_equal(get_le32(cyc), MS);
        assert_int_equal(get_le16(slew), 0x1000);
    }
    cycles(r, 2000);
    takt_ecat_master_get_stats(r->m, &st);
    printf("  after return: sync error %lld ns\n", (long long)st.dc_sync_err_ns);
    assert_true(st.dc_sync_err_ns < 1000);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(tree_topology_and_delays),
        cmocka_unit_test(tree_delays_equal),
        cmocka_unit_test(tree_delays_unequal),
        cmocka_unit_test(random_trees),
        cmocka_unit_test(master_follows_reference),
        cmocka_unit_test(reference_follows_master),
        cmocka_unit_test(dc_after_return),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
