/* The event ring (rt/event.h): order kept, a full ring's losses counted and returned
 * as one DROPPED record exactly where they happened, text arguments copied and cut
 * to fit, and the reader-side formatter's conversions. A producer thread against a
 * consumer thread keeps order and loses nothing uncounted (run under TAKT_TSAN too). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include "rt/event.h"

static void test_order_and_drops(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_ECAT, 4), 0);
    for (int64_t i = 0; i < 6; i++)   /* 4 fit, 2 dropped */
        RT_EV(&e, 100 + i, 7, (int32_t)i, 0, i, -i);
    assert_int_equal(rt_evring_dropped(&e), 2);
    struct takt_event ev;
    for (int64_t i = 0; i < 4; i++) {
        assert_true(rt_evring_next(&e, &ev));
        assert_int_equal(ev.proto, TAKT_EV_ECAT);
        assert_int_equal(ev.code, 7);
        assert_int_equal(ev.unit, i);
        assert_int_equal(ev.at, 100 + i);
        assert_int_equal(ev.nv, 2);
        assert_int_equal(ev.v[0], i);
        assert_int_equal(ev.v[1], -i);
    }
    /* the two lost after those four: reported once, at the time of the last read */
    assert_true(rt_evring_next(&e, &ev));
    assert_int_equal(ev.proto, TAKT_EV_RING);
    assert_int_equal(ev.code, TAKT_EV_DROPPED);
    assert_int_equal(ev.v[0], 2);
    assert_int_equal(ev.at, 103);
    char line[200];
    rt_ev_ring_format(&ev, line, sizeof line);
    assert_string_equal(line, "2 events dropped: the reader fell behind and the ring (4 events) was full");
    assert_false(rt_evring_next(&e, &ev));
    /* a loss between events comes back between them */
    RT_EV(&e, 200, 1, -1, 0);
    RT_EV(&e, 201, 2, -1, 0);
    RT_EV(&e, 202, 3, -1, 0);
    RT_EV(&e, 203, 4, -1, 0);
    RT_EV(&e, 204, 5, -1, 0);           /* dropped */
    assert_true(rt_evring_next(&e, &ev));
    assert_int_equal(ev.code, 1);
    RT_EV(&e, 205, 6, -1, 0);           /* fits again, after the drop */
    unsigned codes[8], n = 0;
    while (rt_evring_next(&e, &ev))
        codes[n++] = ev.proto == TAKT_EV_RING ? 100 + (unsigned)ev.v[0] : ev.code;
    assert_int_equal(n, 5);
    unsigned want[] = { 2, 3, 4, 101, 6 };
    assert_memory_equal(codes, want, sizeof want);
    rt_evring_free(&e);
}

static void test_texts(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_PLK, 2), 0);
    char big[TAKT_EVENT_ARG + 40];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    RT_EVT(&e, 1, 0, 3, -5, RT_TXT("eni.xml", "EL\n2004"), 1, 2);
    RT_EVT(&e, 2, 0, 3, 0, RT_TXT(big, "not kept"));
    struct takt_event ev;
    assert_true(rt_evring_next(&e, &ev));
    assert_int_equal(ev.err, -5);
    assert_int_equal(ev.ntext, 2);
    assert_string_equal(takt_event_text(&ev, 0), "eni.xml");
    assert_string_equal(takt_event_text(&ev, 1), "EL\n2004");
    assert_string_equal(takt_event_text(&ev, 2), "");
    char line[200];
    rt_ev_vformat(&ev, "%s: %s (%u) [%s] %u %u", NULL, line, sizeof line);
    assert_string_equal(line, "eni.xml: EL\\x0A2004 (1) [?] 2 ?");
    assert_true(rt_evring_next(&e, &ev));
    assert_int_equal(ev.ntext, 1);       /* the first filled the room; cut, terminated */
    assert_int_equal(strlen(takt_event_text(&ev, 0)), TAKT_EVENT_ARG - 1);
    rt_evring_free(&e);
}

static const char *conv(char c, int64_t v)
{
    return c == 'Q' ? (v ? "yes" : "no") : NULL;
}

static void test_conversions(void **state)
{
    (void)state;
    struct takt_event ev;
    rt_ev_fill(&ev, TAKT_EV_ECAT, 0, 0, 12, 0,
               (const int64_t[]){ 0x1A, -1, 7, 2, 1, -TAKT_EWKC, 18446744073709551LL, 9 }, 8, NULL);
    char line[300];
    rt_ev_vformat(&ev, "slave %U: 0x%04X %d %lld%% %{zero|one|two|more}%{a|b} %E %llu %Q %W|", conv,
                  line, sizeof line);
    assert_string_equal(line, "slave 12: 0x001A -1 7% twob working counter differs from the "
                              "expected value 18446744073709551 yes ?|");
    /* a negative int printed unsigned is its 32-bit pattern, as printf gave it */
    rt_ev_fill(&ev, TAKT_EV_ECAT, 0, 0, -1, 0, (const int64_t[]){ -1 }, 1, NULL);
    rt_ev_vformat(&ev, "%u %U", NULL, line, sizeof line);
    assert_string_equal(line, "4294967295 -1");
    /* a short buffer: cut and terminated, the full length returned */
    char tiny[8];
    assert_int_equal(rt_ev_vformat(&ev, "0123456789", NULL, tiny, sizeof tiny), 10);
    assert_string_equal(tiny, "0123456");
}

#define N_EV 200000
struct prod {
    struct rt_evring *e;
    uint64_t put;
};

static void *producer(void *arg)
{
    struct prod *p = arg;
    for (int64_t i = 0; i < N_EV; i++)
        if (RT_EVT(p->e, i, 1, (int32_t)(i & 0xFF), 0, RT_TXT("seq"), i, -i))
            __atomic_fetch_add(&p->put, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* The cycle's thread puts as fast as it can against a reader that may stall at any
 * point: every event read comes in order with its own values and text, and what was
 * put plus what was reported dropped is every event. */
static void test_threaded(void **state)
{
    (void)state;
    struct rt_evring e;
    assert_int_equal(rt_evring_init(&e, TAKT_EV_ECAT, 64), 0);
    struct prod p = { &e, 0 };
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, producer, &p), 0);
    uint64_t got = 0, dropped = 0;
    int64_t last = -1;
    bool done = false;
    struct takt_event ev;
    for (;;) {
        bool any = rt_evring_next(&e, &ev);
        if (!any) {
            if (done)
                break;
            /* the producer ended: one more pass takes what it put last */
            done = __atomic_load_n(&p.put, __ATOMIC_ACQUIRE) + rt_evring_dropped(&e) == N_EV;
            continue;
        }
        if (ev.proto == TAKT_EV_RING) {
            dropped += (uint64_t)ev.v[0];
            continue;
        }
        assert_true(ev.v[0] > last);
        assert_int_equal(ev.v[1], -ev.v[0]);
        assert_int_equal(ev.at, ev.v[0]);
        assert_int_equal(ev.unit, ev.v[0] & 0xFF);
        assert_string_equal(takt_event_text(&ev, 0), "seq");
        last = ev.v[0];
        got++;
    }
    pthread_join(th, NULL);
    while (rt_evring_next(&e, &ev))
        dropped += ev.proto == TAKT_EV_RING ? (uint64_t)ev.v[0] : (got++, 0);
    assert_int_equal(got, p.put);
    assert_int_equal(got + dropped, N_EV);
    assert_int_equal(dropped, rt_evring_dropped(&e));
    rt_evring_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_drops),
        cmocka_unit_test(test_texts),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_threaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
