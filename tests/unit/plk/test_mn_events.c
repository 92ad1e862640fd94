/* The MN's per-node events over the in-process segment, as the driver's RT thread
 * takes them after each cycle and a reporter prints them: a CN reaching Operational, a
 * CN reset by the loss-of-PRes threshold with its reason, and a configured CN that
 * never answers an IdentRequest reported missing once, within a bounded time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include "plk/events.h"
#include "plk/mn_events.h"
#include "test_mn_bus.h"

/* Run the segment to t_end, scanning after every cycle as the driver does; the text of
 * every event goes into log (one line each) with its time. */
static void run_scanned(struct bus *b, struct plk_mn_events *e, takt_ns_t t_end, char *log, size_t len)
{
    while (b->now < t_end) {
        bus_run(b, b->now + b->mn.cycle_ns);
        plk_mn_events_scan(e, &b->mn, b->now);
        struct takt_event r;
        while (rt_evring_next(&e->ring, &r)) {
            char line[200];
            plk_ev_format(&r, line, sizeof line);
            size_t at = strlen(log);
            snprintf(log + at, len - at, "%.3f %s\n", (double)r.at / 1e9, line);
        }
    }
}

static unsigned count(const char *log, const char *what)
{
    unsigned n = 0;
    for (const char *p = log; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void node_events(void **state)
{
    (void)state;
    static char log[1 << 16];
    log[0] = 0;
    struct plk_net_config cfg;
    bus_cfg(&cfg, 1000, 1, 3);        /* CNs 1..3 configured; only 1 and 2 on the wire */
    struct bus *b = bus_new(&cfg, 1, 2);
    struct plk_mn_events e;
    assert_int_equal(plk_mn_events_init(&e), 0);
    run_scanned(b, &e, 6 * TAKT_NS_PER_S, log, sizeof log);
    assert_non_null(strstr(log, "CN 1 OPERATIONAL\n"));
    assert_non_null(strstr(log, "CN 2 OPERATIONAL\n"));
    /* reported once, not before 3 s of unanswered IdentRequests, and well within 6 s */
    assert_int_equal(count(log, "CN 3 missing: no IdentResponse"), 1);
    assert_non_null(strstr(log, "in 3 s: is it on the network (node ID switch, cable)?"));
    assert_int_equal(count(log, "CN 1 missing"), 0);
    const char *m = strstr(log, "CN 3 missing");
    double at = strtod(m - 6, NULL);   /* "x.xxx " before it */
    assert_true(at >= 3.0 && at < 5.0);
    /* CN 2 falls silent: removed and reset for the loss-of-PRes threshold, said why */
    b->cn[1]->faults.vanished = true;
    run_scanned(b, &e, b->now + 50 * TAKT_NS_PER_MS, log, sizeof log);
    assert_non_null(strstr(log, "CN 2 reset: loss of PRes threshold (E_DLL_LOSS_PRES_TH 0x8243)"));
    plk_mn_events_free(&e);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
