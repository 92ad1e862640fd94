/* Classes of real-world ENI the master and the simulator built from the ENI must run to
 * OP, each in a minimal file of its own (tests/data/eni): an LWR without InputOffs, a
 * mailbox beyond 8 KiB of ESC memory. */
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

/* Mailbox SMs at 0x4000/0x4800: the simulated ESC has the memory for them. */
static void test_mailbox_4000(void **state)
{
    (void)state;
    run_data("mailbox_4000.xml");
    char path[512];
    struct erig *r = erig_new(data_file("mailbox_4000.xml", path, sizeof path), path, false);
    uint8_t kb = 0;
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x0006, &kb, 1), 0);   /* RAM size, KiB */
    assert_true(kb * 1024u + 0x1000u >= 0x4900u);
    erig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lwr_no_input),
        cmocka_unit_test(test_mailbox_4000),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
