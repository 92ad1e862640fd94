/* What takt bench reads beside its figures, from memory: the CPU model from
 * /proc/cpuinfo text (tabs, a line without its end, none at all), and cyclictest's
 * JSON (thread 0's figures and 1 µs histogram, the overflow bin) including JSON that
 * is not cyclictest's shape: a histogram that is not an object is no histogram (it
 * crashed the reader), a thread without cycles is refused. */
#include <errno.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "bench/sysenv.h"

static void test_cpu_model(void **state)
{
    (void)state;
    char m[64];
    bench_cpuinfo_model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) i7-8700 CPU\n"
                        "stepping\t: 10\n", m, sizeof m);
    assert_string_equal(m, "Intel(R) Core(TM) i7-8700 CPU");
    bench_cpuinfo_model("processor\t: 0\nBogoMIPS\t: 108.00\n", m, sizeof m);
    assert_string_equal(m, "");
    bench_cpuinfo_model("model name\t:", m, sizeof m);           /* the file's last bytes */
    assert_string_equal(m, "");
    bench_cpuinfo_model("model name : a very long model name that does not fit the buffer given", m, 16);
    assert_string_equal(m, "a very long mod");
}

static int parse(const char *text, struct bench_ct *ct)
{
    memset(ct, 0, sizeof *ct);
    json_object *j = json_tokener_parse(text);
    assert_non_null(j);
    int rc = bench_ct_parse(ct, j);
    json_object_put(j);
    return rc;
}

static void test_cyclictest_json(void **state)
{
    (void)state;
    static struct bench_ct ct;
    assert_int_equal(parse("{\"thread\": {\"0\": {\"histogram\": {\"0\": 12, \"1\": 4800, \"37\": 7, \"1000\": 1,"
                           " \"-3\": 2}, \"cycles\": 4822, \"min\": 0, \"max\": 1200, \"avg\": 1.12}}}", &ct), 0);
    assert_int_equal(ct.cycles, 4822);
    assert_true(ct.max_us == 1200 && ct.avg_us == 1.12);
    assert_int_equal(ct.hist[1], 4800);
    assert_int_equal(ct.hist[37], 7);
    assert_int_equal(ct.hist[1000], 3);                   /* 1000 and the negative key */
    /* a histogram that is not an object: the figures without one */
    assert_int_equal(parse("{\"thread\": {\"0\": {\"cycles\": 4, \"histogram\": 1}}}", &ct), 0);
    assert_int_equal(ct.cycles, 4);
    assert_int_equal(ct.hist[0] + ct.hist[1000], 0);
    assert_int_equal(parse("{\"thread\": {\"0\": {\"cycles\": 4, \"histogram\": [1, 2]}}}", &ct), 0);
    assert_int_equal(parse("{\"thread\": {\"0\": {\"min\": 3}}}", &ct), -EPROTO);
    assert_int_equal(parse("{\"thread\": 7}", &ct), -EPROTO);
    assert_int_equal(parse("[1]", &ct), -EPROTO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_model),
        cmocka_unit_test(test_cyclictest_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
