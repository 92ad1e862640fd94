/* The events of a run in its --json (cli_events.c): each with its time since the run's
 * start, protocol, code and its name, unit, error, values and the text; the event line
 * on stderr is "LABEL: T s: text", and the JSON list stops at CLI_EVLOG_MAX, counting
 * the rest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <takt/ecat.h>
#include "cli/cli_events.h"

static void test_event_json(void **state)
{
    (void)state;
    struct takt_event ev = {
        .at = 3500000000LL, .proto = TAKT_EV_ECAT, .code = TAKT_ECAT_EV_SLAVE_LOST, .unit = 3,
        .nv = 1, .v = { 0x1003 }, .ntext = 1, .arg = "EL2004",
    };
    json_object *o = cli_event_json(&ev, 1000000000LL);
    char want[400];
    snprintf(want, sizeof want, "{ \"t_s\": 2.5, \"proto\": \"ecat\", \"code\": %d, \"name\": "
             "\"SLAVE_LOST\", \"unit\": 3, \"err\": 0, \"values\": [ 4099 ], \"text\": \"slave 3 "
             "(station 0x1003, EL2004) lost: no longer answers\" }", TAKT_ECAT_EV_SLAVE_LOST);
    assert_string_equal(json_object_to_json_string(o), want);
    json_object_put(o);
}

static void test_evlog(void **state)
{
    (void)state;
    struct cli_evlog l;
    cli_evlog_init(&l, "takt ecat run", 0, true);
    struct takt_event ev = { .proto = TAKT_EV_RING, .code = TAKT_EV_DROPPED, .unit = -1, .nv = 2, .v = { 4, 256 } };
    for (unsigned i = 0; i < CLI_EVLOG_MAX + 2; i++)
        cli_evlog_add(&l, &ev, i == 0, NULL);
    json_object *o = json_object_new_object();
    cli_evlog_to_json(&l, o);
    json_object *a, *n;
    assert_true(json_object_object_get_ex(o, "events", &a));
    assert_int_equal(json_object_array_length(a), CLI_EVLOG_MAX);
    assert_true(json_object_object_get_ex(o, "events_not_listed", &n));
    assert_int_equal(json_object_get_int(n), 2);
    json_object *first = json_object_array_get_idx(a, 0), *t;
    assert_true(json_object_object_get_ex(first, "text", &t));
    assert_string_equal(json_object_get_string(t),
                        "4 events dropped: the reader fell behind and the ring (256 events) was full");
    assert_true(json_object_object_get_ex(first, "name", &t));
    assert_string_equal(json_object_get_string(t), "DROPPED");
    cli_evlog_free(&l);
    json_object_put(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_json),
        cmocka_unit_test(test_evlog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
