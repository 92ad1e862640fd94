/* takt sim ecat --list: each slave with the number --fault and --topology take (1-based)
 * and the position the master tools show (0-based, as IgH's `ethercat slaves`), so a
 * user can go from `takt ecat slaves` to a --fault item without counting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "takt_run.h"

static const char *bin;
static char out[65536];

static void list_shows_both_numbers(void **state)
{
    /* stdout only: one line per slave, the name second (scripts read it so) */
    int rc = takt_run(bin, "sim ecat --preset junction --list", "2>/dev/null", out, sizeof out);
    assert_int_equal(rc, 0);
    unsigned lines = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), lines++) {
        unsigned k, pos;
        char name[64];
        if (sscanf(l, "%u %63s", &k, name) != 2)
            fail_msg("line %u: '%s' does not start with the slave number and name", lines, l);
        const char *p = NULL;   /* the last "position N": the slave's own */
        for (const char *q = strstr(l, "position "); q; q = strstr(q + 1, "position "))
            p = q;
        if (!p || sscanf(p, "position %u", &pos) != 1)
            fail_msg("line '%s' has no 0-based position", l);
        assert_int_equal(k, lines + 1);
        assert_int_equal(pos, lines);
    }
    assert_int_equal(lines, 9);
    /* a slave on another hangs on it by both numbers */
    takt_run(bin, "sim ecat --preset junction --list", "2>/dev/null", out, sizeof out);
    if (!strstr(out, "on port 2 of slave 4 (position 3)"))
        fail_msg("no 'on port 2 of slave 4 (position 3)' in:\n%s", out);
    /* the legend, on stderr, says which number is which */
    takt_run(bin, "sim ecat --preset 3 --list", "2>&1 >/dev/null", out, sizeof out);
    if (!strstr(out, "--fault") || !strstr(out, "ecat slaves"))
        fail_msg("no legend naming --fault and ecat slaves on stderr:\n%s", out);
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    if (!bin) {
        fprintf(stderr, "SKIP: TAKT_BIN is set by ctest\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_shows_both_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
