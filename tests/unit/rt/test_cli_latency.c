/* `takt rt latency` end to end: its PerfMsmt lines, summary and JSON agree with each
 * other (cycle counts equal histogram totals), bad options say what was expected.
 * Needs the takt binary (env TAKT_BIN, set by CTest); skips without it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <json-c/json.h>

static const char *bin;

static int run(const char *args, char *out, size_t outlen)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", bin, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int64_t geti(json_object *o, const char *path1, const char *path2, const char *key)
{
    json_object *v = o;
    if (path1)
        assert_true(json_object_object_get_ex(v, path1, &v));
    if (path2)
        assert_true(json_object_object_get_ex(v, path2, &v));
    assert_true(json_object_object_get_ex(v, key, &v));
    return json_object_get_int64(v);
}

static void test_run_and_json(void **state)
{
    char json[] = "/tmp/takt-rt-latency-XXXXXX";
    int fd = mkstemp(json);
    assert_true(fd >= 0);
    close(fd);
    char args[256], out[8192];
    snprintf(args, sizeof(args), "rt latency -c 500 -t 0.3 --busy 20 --no-mlock --no-dma-latency --json %s", json);
    assert_int_equal(run(args, out, sizeof(out)), 0);
    assert_non_null(strstr(out, "PerfMsmt 'Cycle Time' (min/avg/max) [usec]: "));
    assert_non_null(strstr(out, "PerfMsmt 'Wake Deviation' (min/avg/max) [usec]: "));
    assert_non_null(strstr(out, "PerfMsmt 'Task Duration' (min/avg/max) [usec]: "));
    assert_non_null(strstr(out, "Percentiles 'Wake Deviation' [usec]: p50 "));
    const char *sum = strstr(out, "Cycles: ");
    assert_non_null(sum);
    unsigned long long cycles;
    assert_int_equal(sscanf(sum, "Cycles: %llu  Period [usec]:  500.0", &cycles), 1);

    json_object *o = json_object_from_file(json);
    unlink(json);
    assert_non_null(o);
    assert_int_equal(geti(o, NULL, NULL, "cycles"), (int64_t)cycles);
    assert_int_equal(geti(o, NULL, NULL, "period_ns"), 500000);
    assert_true(cycles > 0 && cycles <= 600);
    assert_int_equal(geti(o, "perf", "Wake Deviation", "count"), (int64_t)cycles);
    assert_int_equal(geti(o, "perf", "Task Duration", "count"), (int64_t)cycles);
    assert_int_equal(geti(o, "perf", "Cycle Time", "count"), (int64_t)cycles - 1);
    json_object *h;
    assert_true(json_object_object_get_ex(o, "perf", &h));
    assert_true(json_object_object_get_ex(h, "Task Duration", &h));
    assert_true(json_object_object_get_ex(h, "hist", &h));
    assert_int_equal(geti(h, NULL, NULL, "total"), (int64_t)cycles);
    /* --busy 20: every cycle's task took at least 20 us */
    assert_true(geti(o, "perf", "Task Duration", "min_ns") >= 20000);
    json_object_put(o);
}

static void test_bad_options(void **state)
{
    char out[4096];
    assert_int_equal(run("rt latency --busy abc", out, sizeof(out)), 2);
    assert_non_null(strstr(out, "--busy (microseconds) expects a number"));
    assert_non_null(strstr(out, "got 'abc'"));
    assert_int_equal(run("rt latency -c 0", out, sizeof(out)), 2);
    assert_non_null(strstr(out, "-c/--cycle"));
    assert_int_equal(run("rt latency --bogus", out, sizeof(out)), 2);
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "skipped: the takt binary (env TAKT_BIN) is not built\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_and_json),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
