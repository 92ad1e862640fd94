/* The RT log ring: FIFO order, drops counted when full (never blocking), message
 * truncation, formatting, and a real producer thread against a consumer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt/logring.h"

static void test_init_bounds(void **state)
{
    struct rt_logring r;
    assert_int_equal(rt_logring_init(&r, 0), -EINVAL);
    assert_int_equal(rt_logring_init(&r, 5), 0);
    assert_int_equal(r.mask, 7);                /* rounded up to 8 */
    rt_logring_free(&r);
}

static void test_fifo_and_drops(void **state)
{
    struct rt_logring r;
    assert_int_equal(rt_logring_init(&r, 4), 0);
    for (int i = 0; i < 6; i++)
        assert_true(RT_LOGD(&r, 1000 + i, RT_LOG_INFO, 0, "n", i) == (i < 4));
    assert_int_equal(rt_logring_dropped(&r), 2);
    assert_int_equal(rt_logring_count(&r), 4);
    struct rt_log_rec rec;
    for (int i = 0; i < 4; i++) {
        assert_true(rt_logring_pop(&r, &rec));
        assert_int_equal(rec.time, 1000 + i);
        assert_int_equal(rec.nd, 1);
        assert_int_equal(rec.d[0], i);
    }
    assert_false(rt_logring_pop(&r, &rec));
    /* room again after draining */
    assert_true(rt_log(&r, 1, RT_LOG_ERR, -ETIMEDOUT, "again", NULL, 0));
    assert_true(rt_logring_pop(&r, &rec));
    assert_string_equal(rec.msg, "again");
    assert_int_equal(rec.nd, 0);
    rt_logring_free(&r);
}

static void test_truncation_and_details(void **state)
{
    struct rt_logring r;
    assert_int_equal(rt_logring_init(&r, 2), 0);
    char longmsg[100];
    memset(longmsg, 'x', sizeof(longmsg) - 1);
    longmsg[99] = '\0';
    int64_t d[6] = { 1, 2, 3, 4, 5, 6 };
    assert_true(rt_log(&r, 0, RT_LOG_WARN, 0, longmsg, d, 6));
    struct rt_log_rec rec;
    assert_true(rt_logring_pop(&r, &rec));
    assert_int_equal(strlen(rec.msg), RT_LOG_MSG_LEN - 1);
    assert_int_equal(rec.nd, RT_LOG_NDETAIL);
    assert_int_equal(rec.d[3], 4);
    /* push of a whole record also bounds nd and the message */
    rec.nd = 200;
    memset(rec.msg, 'y', sizeof(rec.msg));
    assert_true(rt_logring_push(&r, &rec));
    assert_true(rt_logring_pop(&r, &rec));
    assert_int_equal(rec.nd, RT_LOG_NDETAIL);
    assert_int_equal(strlen(rec.msg), RT_LOG_MSG_LEN - 1);
    rt_logring_free(&r);
}

static void test_format(void **state)
{
    struct rt_logring r;
    assert_int_equal(rt_logring_init(&r, 2), 0);
    RT_LOGD(&r, 12345678901LL, RT_LOG_ERR, -TAKT_EWKC, "WKC slave,expected,got", 3, 3, 1);
    struct rt_log_rec rec;
    assert_true(rt_logring_pop(&r, &rec));
    char line[200];
    rt_log_format(&rec, line, sizeof(line));
    assert_string_equal(line, "12.345678 ERR WKC slave,expected,got: 3 3 1 "
                              "(-1001: working counter differs from the expected value)");
    rec.code = 0;
    rec.nd = 0;
    rec.level = 99;
    rt_log_format(&rec, line, sizeof(line));
    assert_string_equal(line, "12.345678 ? WKC slave,expected,got");
    assert_string_equal(rt_log_level_name(RT_LOG_DEBUG), "DEBUG");
    rt_logring_free(&r);
}

static void test_drain(void **state)
{
    struct rt_logring r;
    assert_int_equal(rt_logring_init(&r, 2), 0);
    rt_log(&r, 1500000000, RT_LOG_WARN, 0, "first", NULL, 0);
    RT_LOGD(&r, 2000001000, RT_LOG_INFO, 0, "second", 7);
    rt_log(&r, 3, RT_LOG_INFO, 0, "lost", NULL, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(rt_logring_drain(&r, f, "master: "), 2);
    assert_int_equal(rt_logring_drain(&r, f, NULL), 0);      /* drops reported once */
    fclose(f);
    assert_string_equal(buf, "master: 1.500000 WARN first\n"
                             "master: 2.000001 INFO second: 7\n"
                             "master: 1 log records dropped: the ring (2 records) was full\n");
    free(buf);
    rt_logring_free(&r);
}

#define N_MSG 200000
struct prod {
    struct rt_logring *r;
    uint64_t pushed;
};

static void *producer(void *arg)
{
    struct prod *p = arg;
    for (int64_t i = 0; i < N_MSG; i++)
        p->pushed += RT_LOGD(p->r, i, RT_LOG_DEBUG, 0, "seq", i, -i);
    return NULL;
}

static void test_threaded(void **state)
{
    struct rt_logring r;
    assert_int_equal(rt_logring_init(&r, 64), 0);
    struct prod p = { &r, 0 };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, producer, &p), 0);
    uint64_t got = 0;
    int64_t last = -1;
    struct rt_log_rec rec;
    for (;;) {
        if (rt_logring_pop(&r, &rec)) {
            /* records arrive whole and in order; dropped ones leave gaps only */
            assert_true(rec.d[0] > last);
            assert_int_equal(rec.d[1], -rec.d[0]);
            assert_int_equal(rec.time, rec.d[0]);
            last = rec.d[0];
            got++;
            if (last == N_MSG - 1)
                break;
        } else if (pthread_tryjoin_np(t, NULL) == 0) {
            while (rt_logring_pop(&r, &rec))
                got++;
            goto joined;
        }
    }
    pthread_join(t, NULL);
joined:
    assert_int_equal(got, p.pushed);
    assert_int_equal(got + rt_logring_dropped(&r), N_MSG);
    rt_logring_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_bounds),
        cmocka_unit_test(test_fifo_and_drops),
        cmocka_unit_test(test_truncation_and_details),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_drain),
        cmocka_unit_test(test_threaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
