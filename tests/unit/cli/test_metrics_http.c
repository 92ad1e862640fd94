/* The --metrics-listen request reader and address syntax (metrics_http.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include "cli/metrics_http.h"

static int parse(const char *s, bool *head)
{
    return mx_http_parse(s, strlen(s), head);
}

static void test_requests(void **state)
{
    (void)state;
    bool head;
    assert_int_equal(parse("GET /metrics HTTP/1.0\r\n\r\n", &head), 200);
    assert_false(head);
    assert_int_equal(parse("GET /metrics?name[]=x HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n", &head), 200);
    assert_int_equal(parse("HEAD /metrics HTTP/1.0\n\n", &head), 200);
    assert_true(head);
    /* incomplete: wait for more */
    assert_int_equal(parse("GET /metrics HTTP/1.0\r\n", &head), 0);
    assert_int_equal(parse("", &head), 0);
    assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n", &head), 404);
    assert_int_equal(parse("GET /metricsx HTTP/1.0\r\n\r\n", &head), 404);
    assert_int_equal(parse("POST /metrics HTTP/1.0\r\n\r\n", &head), 405);
    assert_int_equal(parse("GET /metrics\r\n\r\n", &head), 400);           /* HTTP/0.9 */
    assert_int_equal(parse("GET metrics HTTP/1.0\r\n\r\n", &head), 400);
    assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", &head), 400);
    assert_int_equal(parse("GET /met\x01rics HTTP/1.0\r\n\r\n", &head), 400);
    assert_int_equal(parse(" /metrics HTTP/1.0\r\n\r\n", &head), 400);
    assert_int_equal(parse("\r\n\r\n", &head), 400);
    /* a head that never ends is refused once the buffer is full */
    char big[MX_HTTP_MAX];
    memset(big, 'a', sizeof big);
    assert_int_equal(mx_http_parse(big, sizeof big, &head), 431);
    assert_int_equal(mx_http_parse(big, sizeof big - 1, &head), 0);
}

static void test_addresses(void **state)
{
    (void)state;
    struct sockaddr_storage sa;
    socklen_t sl;
    bool wide;
    char err[200], text[64];
    assert_int_equal(mx_http_addr("9100", &sa, &sl, &wide, err, sizeof err), 0);
    const struct sockaddr_in *a4 = (const struct sockaddr_in *)&sa;
    assert_int_equal(sa.ss_family, AF_INET);
    assert_int_equal(ntohs(a4->sin_port), 9100);
    inet_ntop(AF_INET, &a4->sin_addr, text, sizeof text);
    assert_string_equal(text, "127.0.0.1");   /* the port alone: loopback */
    assert_false(wide);
    assert_int_equal(mx_http_addr("127.0.0.2:80", &sa, &sl, &wide, err, sizeof err), 0);
    assert_false(wide);
    assert_int_equal(mx_http_addr("0.0.0.0:9100", &sa, &sl, &wide, err, sizeof err), 0);
    assert_true(wide);                         /* given explicitly: allowed, said */
    assert_int_equal(mx_http_addr("[::1]:9100", &sa, &sl, &wide, err, sizeof err), 0);
    assert_int_equal(sa.ss_family, AF_INET6);
    assert_false(wide);
    assert_int_equal(mx_http_addr("[::]:9100", &sa, &sl, &wide, err, sizeof err), 0);
    assert_true(wide);
    const char *bad[] = { "", "0", "65536", "localhost:9100", "127.0.0.1:", ":9100", "[::1]9100",
                          "1.2.3.4:9x", "::1:9100", "[::1", "-5" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        if (mx_http_addr(bad[i], &sa, &sl, &wide, err, sizeof err) != -EINVAL)
            fail_msg("'%s' accepted", bad[i]);
        assert_non_null(strstr(err, "expects PORT"));
    }
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_addresses),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
