/* Classes of real-world ENI the master and the simulator built from the ENI must run to
 * OP, each in a minimal file of its own (tests/data/eni): an LWR without InputOffs. */
#include "unit/sim/eni_rig.h"

static const char *data_file(const char *name, char *buf, size_t len)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    snprintf(buf, len, "%s/tests/data/eni/%s", src ? src : ".", name);
    return buf;
}

static void run_data(const char *name)
{
    char path[512];
    run_fixture(data_file(name, path, sizeof path), path, false);
}

/* LWR of 16 bytes, no InputOffs, output image 16 bytes, input image 14. */
static void test_lwr_no_input(void **state) { (void)state; run_data("lwr_no_input.xml"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lwr_no_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
