/* The command line parsed in-process (cli_parse): a parse starts from nothing an
 * earlier parse left behind. Messages go to a temporary file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

static FILE *sink;

static int parse(struct cli_ctx *c, int argc, char **argv)
{
    FILE *out = stdout, *err = stderr;
    stdout = stderr = sink;
    int rc = cli_parse(argc, argv, c);
    stdout = out;
    stderr = err;
    return rc;
}

/* `takt link bench -hv` prints help and stops at -h, half-way through the cluster; a
 * parse after it must not take the rest of that cluster as its own option. */
static void test_parse_starts_over(void **state)
{
    (void)state;
    char a0[] = "takt", a1[] = "link", a2[] = "bench", a3[] = "-hv";
    char *first[] = { a0, a1, a2, a3, NULL };
    struct cli_ctx c;
    assert_int_equal(parse(&c, 4, first), 0);          /* help */
    char b0[] = "takt", b1[] = "check";
    char *second[] = { b0, b1, NULL };
    assert_int_equal(parse(&c, 2, second), -1);
    assert_string_equal(c.cmd->verb, "check");
    assert_int_equal(c.verbose, 0);
}

int main(void)
{
    sink = tmpfile();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_starts_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
