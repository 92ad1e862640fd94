/* takt sim ecat --list: each slave with its position, counted from 0 as the master
 * tools show it (IgH's `ethercat slaves`, takt ecat slaves), which is also the number
 * --fault, --foe and --topology take: one numbering, no counting from one to the other. */
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

static void list_shows_positions(void **state)
{
    (void)state;
    /* stdout only: one line per slave, the name second (scripts read it so) */
    int rc = takt_run(bin, "sim ecat --preset junction --list", "2>/dev/null", out, sizeof out);
    assert_int_equal(rc, 0);
    unsigned lines = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), lines++) {
        unsigned k;
        char name[64];
        if (sscanf(l, "%u %63s", &k, name) != 2)
            fail_msg("line %u: '%s' does not start with the position and name", lines, l);
        assert_int_equal(k, lines);
        if (strstr(l, "slave "))
            fail_msg("line '%s' speaks of a second numbering", l);
    }
    assert_int_equal(lines, 9);
    /* a slave on another hangs on it by its position */
    takt_run(bin, "sim ecat --preset junction --list", "2>/dev/null", out, sizeof out);
    if (!strstr(out, "on port 2 of position 3"))
        fail_msg("no 'on port 2 of position 3' in:\n%s", out);
    /* the legend, on stderr, says that --fault takes the position ecat slaves shows */
    takt_run(bin, "sim ecat --preset 3 --list", "2>&1 >/dev/null", out, sizeof out);
    if (!strstr(out, "--fault") || !strstr(out, "ecat slaves"))
        fail_msg("no legend naming --fault and ecat slaves on stderr:\n%s", out);
}

/* --topology and --fault take those positions: the docs' example tree is accepted,
 * a position past the last is refused naming the positions there are. */
static void specs_take_positions(void **state)
{
    (void)state;
    int rc = takt_run(bin, "sim ecat --devices ek1100,el1004,el2004,ek1100 --topology 0:3,1:1,0:1 --list",
                      "2>/dev/null", out, sizeof out);
    assert_int_equal(rc, 0);
    if (!strstr(out, "3  ek1100") || !strstr(out, "on port 1 of position 0"))
        fail_msg("position 3 not on port 1 of position 0:\n%s", out);
    rc = takt_run(bin, "sim ecat --preset 3 --fault power=3 --list", "2>&1", out, sizeof out);
    assert_int_not_equal(rc, 0);
    if (!strstr(out, "no slave at position 3 (the network has positions 0..2)"))
        fail_msg("power=3 on 3 slaves not refused by position:\n%s", out);
    rc = takt_run(bin, "sim ecat --preset 3 --fault power=0 --list", "2>/dev/null", out, sizeof out);
    assert_int_equal(rc, 0);
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    if (!bin) {
        fprintf(stderr, "SKIP: TAKT_BIN is set by ctest\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_shows_positions),
        cmocka_unit_test(specs_take_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
