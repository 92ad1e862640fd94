/* Supervision never ends and the state reported is the state observed: the master
 * against the in-process simulator on a hand-stepped clock (1 ms a cycle), with a
 * relay that holds back the replies of acyclic frames past the datagram timeout, a
 * network that goes silent for 20, 200 and 2000 cycles, power cycles, and garbage in
 * the DC readings, and another device plugged in where a slave was. */
#include "master_rig.h"

#define HOLD_MAX 4096
#define MS TAKT_NS_PER_MS

struct sup {
    struct rig r;               /* sim, links, master (master_rig.h) */
    takt_ns_t now;              /* the hand clock once the network is up (0: real clock) */
    uint64_t cycle;
    unsigned hold_acyc;         /* replies of acyclic frames held back this many cycles */
    bool silent;                /* the network answers nothing (a frozen simulator) */
    unsigned garble_dc;         /* every n-th reply of FPRD 0x092C reads all ones */
    uint32_t flip_once;         /* XORed into the next reply of FPRD 0x092C, once */
    unsigned dc_reads;
    struct takt_link *ep;
    struct held { uint64_t due; uint16_t len; uint8_t data[TAKT_FRAME_BUF]; } *q;
    unsigned head, tail;
    char events[65536];
};

static bool cyclic_frame(const uint8_t *buf, size_t len)
{
    struct ecat_dg dg;
    size_t p;
    for (int rc = ecat_frame_first((uint8_t *)buf, len, &dg, &p); rc == 0;
         rc = ecat_frame_next((uint8_t *)buf, len, &dg, &p))
        if (dg.cmd == ECAT_BRD && dg.ado == ESC_AL_STATUS)
            return true;
    return false;
}

static void garble(struct sup *g, uint8_t *buf, size_t len)
{
    struct ecat_dg dg;
    size_t p;
    for (int rc = ecat_frame_first(buf, len, &dg, &p); rc == 0; rc = ecat_frame_next(buf, len, &dg, &p))
        if (dg.cmd == ECAT_FPRD && dg.ado == ESC_DC_SYS_DIFF && dg.len == 4) {
            if (g->flip_once) {
                put_le32(dg.data, get_le32(dg.data) ^ g->flip_once);
                g->flip_once = 0;
            } else if (g->garble_dc && ++g->dc_reads % g->garble_dc == 0) {
                memset(dg.data, 0xFF, 4);
            }
        }
}

static void sup_respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct sup *g = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    g->ep = ep;
    if (g->silent || f->len > sizeof buf)
        return;
    memcpy(buf, f->data, f->len);
    size_t n = takt_sim_process(g->r.sim, buf, f->len, sizeof buf, g->now ? g->now : takt_now(), NULL);
    if (!n)
        return;
    if (g->garble_dc || g->flip_once)
        garble(g, buf, n);
    if (g->hold_acyc && !cyclic_frame(buf, n)) {
        assert_true(g->tail - g->head < HOLD_MAX);
        struct held *h = &g->q[g->tail++ % HOLD_MAX];
        memcpy(h->data, buf, n);
        h->len = (uint16_t)n;
        h->due = g->cycle + 1 + g->hold_acyc;
        return;
    }
    struct takt_frame out = { .data = buf, .len = (uint16_t)n, .cap = sizeof buf };
    takt_link_send(ep, &out, 1);
}

static void drain(struct sup *g)
{
    char ev[256];
    while (takt_ecat_master_next_event(g->r.m, ev, sizeof ev)) {
        if (getenv("V"))
            printf("  %llu event: %s\n", (unsigned long long)g->cycle, ev);
        size_t l = strlen(g->events);
        if (l + strlen(ev) + 2 < sizeof g->events) {
            strcat(g->events + l, ev);
            strcat(g->events + l, "\n");
        }
    }
}

/* n I/O slaves in a line, in OP, with serial numbers serial + i (0: none); from here on
 * the clock is the test's */
static struct sup *sup_new_serial(unsigned n, bool dc, uint32_t serial)
{
    struct sup *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->q = calloc(HOLD_MAX, sizeof *g->q);
    assert_non_null(g->q);
    struct sim_device *devs[8];
    for (unsigned i = 0; i < n; i++) {
        io_desc(&g->r.desc[i], i);
        g->r.desc[i].serial = serial ? serial + i : 0;
        assert_int_equal(sim_device_from_desc(&g->r.desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = dc ? 20 : -1;
    so.seed = 5;
    assert_int_equal(takt_sim_create_devices(devs, n, &so, &g->r.sim), 0);
    assert_int_equal(takt_link_mem_pair(&g->r.a, &g->r.b, 256, NULL, NULL), 0);
    takt_link_mem_set_responder(g->r.b, sup_respond, g);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dc = dc;
    o.cycle_ns = MS;
    char err[200];
    assert_int_equal(takt_ecat_master_open(&g->r.m, g->r.a, &o, err, sizeof err), 0);
    up(&g->r, n);
    g->now = takt_now();
    drain(g);
    g->events[0] = 0;
    return g;
}

static struct sup *sup_new(unsigned n, bool dc)
{
    return sup_new_serial(n, dc, 0);
}

static void sup_free(struct sup *g)
{
    takt_ecat_master_close(g->r.m);
    takt_link_close(g->r.a);
    takt_link_close(g->r.b);
    takt_sim_destroy(g->r.sim);
    free(g->q);
    free(g);
}

/* One cycle of 1 ms: release the replies that are due, then the master's cycle. */
static void step(struct sup *g)
{
    g->cycle++;
    g->now += MS;
    while (g->head != g->tail && g->q[g->head % HOLD_MAX].due <= g->cycle) {
        struct held *h = &g->q[g->head++ % HOLD_MAX];
        struct takt_frame f = { .data = h->data, .len = h->len, .cap = TAKT_FRAME_BUF };
        takt_link_send(g->ep, &f, 1);
    }
    assert_int_equal(takt_ecat_master_cycle(g->r.m, g->now), 0);
    drain(g);
}

static void steps(struct sup *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        step(g);
}

static struct takt_ecat_master_stats stats(struct sup *g)
{
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(g->r.m, &s);
    return s;
}

static const char *state_text(struct sup *g)
{
    static char buf[200];
    struct takt_ecat_master_stats s = stats(g);
    return takt_ecat_master_state_text(&s, buf, sizeof buf);
}

static bool all_op(struct sup *g)
{
    unsigned n = takt_ecat_master_slave_count(g->r.m);
    for (unsigned i = 0; i < n; i++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(g->r.m, i, &si);
        if (!si.present || (si.al_state & 0x1F) != AL_OP)
            return false;
    }
    return takt_ecat_master_state(g->r.m) == AL_OP;
}

/* Step until every slave is back in OP (at most max cycles); the cycles it took. */
static unsigned until_op(struct sup *g, unsigned max)
{
    unsigned k = 0;
    while (k < max && !all_op(g)) {
        step(g);
        k++;
    }
    return k;
}

/* Frames add up; every return has its loss before it. Settled (no re-scan under way):
 * what is not back is lost still. */
static void check_counters(struct sup *g, bool settled)
{
    struct takt_ecat_master_stats s = stats(g);
    assert_true(s.frames_late <= s.frames_lost);
    assert_true(s.frames_received + s.frames_lost <= s.frames_sent);
    assert_true(s.slaves_returned <= s.slaves_lost);
    if (!settled)
        return;
    unsigned out = 0, n = takt_ecat_master_slave_count(g->r.m);
    for (unsigned i = 0; i < n; i++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(g->r.m, i, &si);
        out += !si.present;
    }
    if (s.slaves_lost != s.slaves_returned + out)
        printf("slaves lost %llu, returned %llu, not present %u\n",
               (unsigned long long)s.slaves_lost, (unsigned long long)s.slaves_returned, out);
    assert_int_equal(s.slaves_lost, s.slaves_returned + out);
}

/* Slave 2 is power-cycled while the replies of acyclic frames come back later than the
 * datagram timeout: its AL status reads time out, its re-scan fails. Supervision goes on. */
static struct sup *failed_rescan(void)
{
    struct sup *g = sup_new(3, false);
    steps(g, 20);
    g->hold_acyc = 80;                       /* 80 ms: past the 50 ms datagram timeout */
    assert_int_equal(takt_sim_power_cycle(g->r.sim, 1, g->now), 0);
    unsigned k = 0;
    while (k < 5000 && !strstr(g->events, "re-scan failed")) {
        step(g);
        k++;
    }
    assert_non_null(strstr(g->events, "re-scan failed"));
    /* a while more of it: the retries back off, nothing comes back */
    steps(g, 3000);
    assert_false(all_op(g));
    check_counters(g, false);
    /* the slaves that answer nothing but the BRD are not in OP as far as anyone knows */
    printf("state after failed re-scans: %s\n", state_text(g));
    assert_int_equal(takt_ecat_master_state(g->r.m), 0);
    assert_true(!strncmp(state_text(g), "unknown: ", 9) || strstr(state_text(g), "not answering"));
    return g;
}

static void rescan_failed_then_answers(void **state)
{
    (void)state;
    struct sup *g = failed_rescan();
    g->hold_acyc = 0;                        /* replies in time again */
    unsigned k = until_op(g, 5000);
    printf("re-scan failed, replies in time again: slave back in OP after %u cycles (%u ms)\n", k, k);
    assert_true(all_op(g));
    assert_string_equal(state_text(g), "OP, slaves 3/3");
    /* at most one back-off period (1 s) and the held replies (80 ms) plus the re-scan */
    assert_true(k < 1500);
    check_counters(g, true);
    assert_true(stats(g).slaves_returned >= 1);
    sup_free(g);
}

static void rescan_failed_then_power_cycled(void **state)
{
    (void)state;
    struct sup *g = failed_rescan();
    g->hold_acyc = 0;
    assert_int_equal(takt_sim_power_cycle(g->r.sim, 1, g->now), 0);
    unsigned k = until_op(g, 5000);
    printf("re-scan failed, slave power-cycled again: back in OP after %u cycles (%u ms)\n", k, k);
    assert_true(all_op(g));
    assert_true(k < 1500);
    check_counters(g, true);
    sup_free(g);
}

/* A power cycle seen through a failing AL status read is a loss and a return. */
static void power_cycle_pairs_up(void **state)
{
    (void)state;
    struct sup *g = sup_new(3, false);
    steps(g, 20);
    assert_int_equal(takt_sim_power_cycle(g->r.sim, 2, g->now), 0);
    /* the BRD after the power cycle shows a slave in INIT: from then on the state is not
     * OP, though no slave has been read yet */
    steps(g, 2);
    printf("power cycle, 2 cycles on: %s\n", state_text(g));
    assert_int_not_equal(takt_ecat_master_state(g->r.m), AL_OP);
    assert_true(!strncmp(state_text(g), "unknown: ", 9));
    steps(g, 8);
    unsigned k = until_op(g, 5000);
    printf("power cycle: back in OP after %u cycles\n", k);
    assert_true(all_op(g));
    struct takt_ecat_master_stats s = stats(g);
    assert_int_equal(s.slaves_returned, 1);
    assert_int_equal(s.slaves_lost, 1);
    check_counters(g, true);
    sup_free(g);
}

/* Nothing returns for n cycles: an event within a few cycles, the state unknown while
 * it lasts, an event when frames return, and the network back in OP. */
static void silence(unsigned n)
{
    struct sup *g = sup_new(3, false);
    steps(g, 20);
    struct takt_ecat_master_stats s0 = stats(g);
    g->silent = true;
    unsigned k = 0;
    while (k < n && !strstr(g->events, "no frame returned for")) {
        step(g);
        k++;
    }
    /* the frame of the cycle before the silence came back; 3 cycles without, an event */
    assert_non_null(strstr(g->events, "no frame returned for 3 cycles"));
    assert_true(k <= 4);
    steps(g, n - k);
    /* the frame of the last of the n cycles is awaited still */
    char want[80];
    snprintf(want, sizeof want, "unknown: no frame returned for %u cycles", n - 1);
    assert_string_equal(state_text(g), want);
    assert_int_equal(takt_ecat_master_state(g->r.m), 0);
    assert_int_equal(stats(g).silent_cycles, n - 1);
    assert_null(strstr(g->events, "frames return again"));
    g->silent = false;
    step(g);                                 /* the frame sent last cycle is lost still */
    step(g);
    snprintf(want, sizeof want, "frames return again after %u cycles without", n);
    if (!strstr(g->events, want))
        printf("expected '%s' in:\n%s", want, g->events);
    assert_non_null(strstr(g->events, want));
    unsigned back = until_op(g, 5000);
    printf("silent %u cycles: back in OP %u cycles after frames returned\n", n, back);
    assert_true(all_op(g));
    assert_string_equal(state_text(g), "OP, slaves 3/3");
    struct takt_ecat_master_stats s1 = stats(g);
    assert_true(s1.cyc_frames_lost - s0.cyc_frames_lost >= n);
    check_counters(g, true);
    sup_free(g);
}

static void silent_20(void **state) { (void)state; silence(20); }
static void silent_200(void **state) { (void)state; silence(200); }
static void silent_2000(void **state) { (void)state; silence(2000); }

/* Half the line cut off: the state of those that answer, and how many do not; never
 * NONE. Healed: all back in OP. */
static void cut_off(void **state)
{
    (void)state;
    struct sup *g = sup_new(4, false);
    steps(g, 20);
    assert_string_equal(state_text(g), "OP, slaves 4/4");
    assert_int_equal(takt_sim_break(g->r.sim, 2, g->now), 0);
    steps(g, 20);
    printf("cut after slave 2: %s\n", state_text(g));
    assert_string_equal(state_text(g), "OP 2/4, 2 not answering");
    assert_int_equal(takt_ecat_master_state(g->r.m), 0);
    struct takt_ecat_master_stats s = stats(g);
    assert_int_equal(s.slaves_op, 2);
    assert_int_equal(s.slaves_not_answering, 2);
    assert_int_equal(s.slaves_lost, 2);
    assert_int_equal(takt_sim_heal(g->r.sim, g->now), 0);
    unsigned k = until_op(g, 5000);
    printf("healed: back in OP after %u cycles: %s\n", k, state_text(g));
    assert_string_equal(state_text(g), "OP, slaves 4/4");
    check_counters(g, true);
    sup_free(g);
}

/* A DC reading of all ones (saturated, or garbage) is not a sample of the sync error. */
static void dc_garbage_not_a_sample(void **state)
{
    (void)state;
    struct sup *g = sup_new(3, true);
    steps(g, 50);
    g->garble_dc = 5;
    steps(g, 500);
    struct takt_ecat_master_stats s = stats(g);
    printf("DC sync error under garbage: last %lld ns, max in OP %lld ns\n",
           (long long)s.dc_sync_err_ns, (long long)s.dc_sync_err_max_ns);
    assert_true(s.dc_sync_err_max_ns < 0x7FFFFFFF);
    assert_true(s.dc_sync_err_ns < 0x7FFFFFFF);
    sup_free(g);
}

/* One reading with a bit flipped (1 ms where the clocks agree within nanoseconds): a
 * filtered register does not leap, the reading is not the sync error. */
static void dc_one_bad_reading(void **state)
{
    (void)state;
    struct sup *g = sup_new(3, true);
    steps(g, 300);
    struct takt_ecat_master_stats s0 = stats(g);
    assert_true(s0.dc_sync_err_max_ns < 1000);
    g->flip_once = 0x000F4240;               /* 1 000 000 ns */
    steps(g, 50);
    struct takt_ecat_master_stats s = stats(g);
    printf("DC sync error, one reading with bits flipped: max in OP %lld ns before, %lld ns after\n",
           (long long)s0.dc_sync_err_max_ns, (long long)s.dc_sync_err_max_ns);
    assert_true(s.dc_sync_err_max_ns < 1000);
    sup_free(g);
}

/* Garbage on the wire (a bit flipped in three replies of ten, one of 100 lost): whatever the
 * master makes of it, the counters agree and no sentinel reaches a statistic. */
static void garbage_counters(void **state)
{
    (void)state;
    struct sup *g = sup_new(4, true);
    steps(g, 50);
    char err[200];
    assert_int_equal(takt_sim_fault(g->r.sim, "corrupt=0.3;drop=0.01", err, sizeof err), 0);
    for (unsigned k = 0; k < 30; k++) {
        steps(g, 100);
        check_counters(g, false);
        struct takt_ecat_master_stats s = stats(g);
        assert_true(s.dc_sync_err_max_ns < 0x7FFFFFFF && s.dc_sync_err_ns < 0x7FFFFFFF);
        assert_true(s.slaves == 4);
        assert_int_equal(s.slaves_init + s.slaves_preop + s.slaves_boot + s.slaves_safeop +
                         s.slaves_op + s.slaves_not_answering, 4);
    }
    struct takt_ecat_master_stats s = stats(g);
    printf("garbage: sent %llu, back %llu, lost %llu, late %llu, unmatched %llu, slaves lost/returned "
           "%llu/%llu, DC max %lld ns (%llu readings not a sample)\n",
           (unsigned long long)s.frames_sent, (unsigned long long)s.frames_received,
           (unsigned long long)s.frames_lost, (unsigned long long)s.frames_late,
           (unsigned long long)s.frames_unmatched, (unsigned long long)s.slaves_lost,
           (unsigned long long)s.slaves_returned, (long long)s.dc_sync_err_max_ns,
           (unsigned long long)s.dc_sync_invalid);
    /* a garbled BRD WKC is one reading: no slave is lost for it */
    assert_int_equal(s.slaves_lost, 0);
    assert_int_equal(takt_sim_fault(g->r.sim, "corrupt=0;drop=0", err, sizeof err), 0);
    unsigned k = until_op(g, 10000);
    printf("garbage ends: all in OP after %u cycles: %s\n", k, state_text(g));
    assert_true(all_op(g));
    check_counters(g, true);
    sup_free(g);
}

static unsigned count_of(const char *hay, const char *needle)
{
    unsigned c = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        c++;
    return c;
}

/* Slave 2 (number 1) is unplugged and another device plugged in at its place: another
 * product, or (serial_only) the same product with another serial number. It is never
 * configured, the event says what was expected and what was found, once; the state
 * says not all in OP. The position is re-scanned with back-off all along, so when the
 * right device is plugged back in it is driven back to OP and counted returned. */
static void wrong_device(bool serial_only)
{
    struct sup *g = sup_new_serial(3, false, serial_only ? 101 : 0);
    steps(g, 20);
    struct sim_device_desc other;
    io_desc(&other, 1);
    if (serial_only)
        other.serial = 999;
    else
        other.product = 0x4777;
    struct sim_device *d;
    assert_int_equal(sim_device_from_desc(&other, &d), 0);
    assert_int_equal(takt_sim_replace_device(g->r.sim, 1, d, g->now), 0);
    char want[200];
    if (serial_only)
        snprintf(want, sizeof want, "expected vendor 0x00000002 product 0x00004001 serial 102, "
                 "found 0x00000002 0x00004001 serial 999");
    else
        snprintf(want, sizeof want, "expected vendor 0x00000002 product 0x00004001 serial 0, "
                 "found 0x00000002 0x00004777 serial 0");
    unsigned k = 0;
    while (k < 5000 && !strstr(g->events, want)) {
        step(g);
        k++;
    }
    if (!strstr(g->events, want))
        printf("expected '%s' in:\n%s", want, g->events);
    assert_non_null(strstr(g->events, want));
    /* several seconds of it: the retries reach the 1 s cap; said once, never in OP */
    steps(g, 4000);
    printf("wrong device (%s) for 4 s: %s\n", serial_only ? "serial" : "product", state_text(g));
    assert_non_null(strstr(g->events, "slave 1: "));
    assert_int_equal(count_of(g->events, "expected vendor"), 1);
    assert_false(all_op(g));
    assert_int_not_equal(takt_ecat_master_state(g->r.m), AL_OP);
    assert_string_not_equal(state_text(g), "OP, slaves 3/3");
    assert_int_equal(stats(g).slaves_not_answering, 1);
    uint8_t al;
    assert_int_equal(takt_sim_peek(g->r.sim, 1, ESC_AL_STATUS, &al, 1), 0);
    assert_int_equal(al & 0x0F, AL_INIT);              /* never configured, never started */
    check_counters(g, true);
    uint64_t returned = stats(g).slaves_returned;
    /* the right device back */
    assert_int_equal(sim_device_from_desc(&g->r.desc[1], &d), 0);
    assert_int_equal(takt_sim_replace_device(g->r.sim, 1, d, g->now), 0);
    k = until_op(g, 5000);
    printf("right device (%s) back: all in OP after %u cycles (%u ms)\n",
           serial_only ? "serial" : "product", k, k);
    assert_true(all_op(g));
    assert_string_equal(state_text(g), "OP, slaves 3/3");
    /* at most one back-off period (1 s) plus the re-scan and the way to OP */
    assert_true(k < 1500);
    check_counters(g, true);
    assert_int_equal(stats(g).slaves_returned, returned + 1);
    for (k = 0; k < 100 && !strstr(g->events, "slave 1 (station 0x1001) back in OP"); k++)
        step(g);                            /* said by the recovery check after it */
    assert_non_null(strstr(g->events, "slave 1 (station 0x1001) back in OP"));
    assert_non_null(strstr(g->events, "slave 1: its own device"));
    sup_free(g);
}

static void wrong_product_then_right(void **state) { (void)state; wrong_device(false); }
static void wrong_serial_then_right(void **state) { (void)state; wrong_device(true); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rescan_failed_then_answers),
        cmocka_unit_test(rescan_failed_then_power_cycled),
        cmocka_unit_test(power_cycle_pairs_up),
        cmocka_unit_test(silent_20),
        cmocka_unit_test(silent_200),
        cmocka_unit_test(silent_2000),
        cmocka_unit_test(cut_off),
        cmocka_unit_test(dc_garbage_not_a_sample),
        cmocka_unit_test(dc_one_bad_reading),
        cmocka_unit_test(garbage_counters),
        cmocka_unit_test(wrong_product_then_right),
        cmocka_unit_test(wrong_serial_then_right),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
