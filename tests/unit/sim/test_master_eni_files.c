/* Classes of real-world ENI the master and the simulator built from the ENI must run to
 * OP, each in a minimal file of its own (tests/data/eni): an LWR without InputOffs, a
 * slave with no PDO descriptions configured over CoE, a mailbox beyond 8 KiB of ESC
 * memory. */
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

/* No RxPdo/TxPdo: the simulated device has the objects the CoE downloads configure, and
 * the mapping they write sizes its SMs as the ENI's ProcessData says. */
static void test_no_pdo_coe(void **state)
{
    (void)state;
    char path[512];
    data_file("no_pdo_coe.xml", path, sizeof path);
    struct erig *r = erig_new(path, path, false);
    r->recording = true;
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    int rc = ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_IP, AL_PREOP);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    check_cyclic(r);
    /* the outputs the LRW wrote reach the slave's SM2 through the ENI's FMMU (the
     * variable by the ENI's name: takt knows no entry names the ENI does not give) */
    struct ecat_pd_entry e;
    assert_int_equal(ecat_pd_find_eni(r->m, "IO (X2).Outputs.Value", &e), 0);
    ecat_pd_write(r->m, &e, 0xA55A);
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    uint8_t b[2] = { 0 };
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x1100, b, 2), 0);
    assert_int_equal(get_le16(b), 0xA55A);
    erig_free(r);
}

/* The same slave when the ENI only assigns 0x1600/0x1A00 and never maps them: the
 * device's PDOs carry what the ENI's ProcessData says the SMs carry. */
static void test_no_pdo_assign_only(void **state)
{
    (void)state;
    char src[512], path[64];
    size_t len;
    char *b = slurp(data_file("no_pdo_coe.xml", src, sizeof src), &len);
    snprintf(path, sizeof path, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    unsigned dropped = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "pdo 0x1600 entr") || strstr(line, "pdo 0x1A00 entr")) {
            dropped++;
            continue;
        }
        fprintf(f, "%s\n", line);
    }
    fclose(f);
    free(b);
    assert_int_equal(dropped, 6);
    struct erig *r = erig_new(path, path, false);
    r->recording = true;
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    int rc = ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_cyclic(r);
    erig_free(r);
    unlink(path);
}

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
        cmocka_unit_test(test_no_pdo_coe),
        cmocka_unit_test(test_no_pdo_assign_only),
        cmocka_unit_test(test_mailbox_4000),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
