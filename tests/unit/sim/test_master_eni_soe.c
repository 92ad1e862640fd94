/* SoE in an ENI (ETG.2100 Mailbox/SoE): the simulator built from the ENI has an SoE
 * drive for the slave, the master writes the ENI's SoE init commands at their transition
 * and the network reaches OP with the values in the drive; a write the drive refuses
 * stops the start-up with a message naming file, line, IDN and the drive's reason; the
 * ENI writer gives the commands back as it read them. */
#include "unit/sim/eni_rig.h"
#include "sim/esc_soe.h"
#include "sim/net.h"

static const char *data_file(const char *name, char *buf, size_t len)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    snprintf(buf, len, "%s/tests/data/eni/%s", src ? src : ".", name);
    return buf;
}

static uint16_t held16(const struct erig *r, uint16_t idn)
{
    size_t n = 0;
    const struct esc_soe *s = r->sim->sl[0].esc.soe;
    assert_non_null(s);
    const uint8_t *v = esc_soe_value(s, idn, &n);
    assert_non_null(v);
    assert_int_equal(n, 2);
    return get_le16(v);
}

/* OP with the ENI's order, image and frames; the drive holds what the ENI wrote. */
static void test_soe_initcmds(void **state)
{
    (void)state;
    char path[512];
    data_file("soe_initcmds.xml", path, sizeof path);
    run_fixture(path, path, false);
    struct erig *r = erig_new(path, path, false);
    assert_true(r->eni->slave[0].mbx_proto & MBX_PROTO_SOE);
    assert_int_equal(r->eni->slave[0].n_soe, 3);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc)
        printf("%s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(held16(r, 1), 1000);      /* S-0-0001 NC cycle time, default 1000 too */
    assert_int_equal(held16(r, 32), 0x000B);   /* S-0-0032, default 0x0003 */
    assert_int_equal(held16(r, 33), 0x000A);   /* S-0-0033, default 0x0002 */
    erig_free(r);
}

/* A slave whose ENI has an <SoE> element but no <Protocol>SoE</Protocol> is an SoE drive
 * in the simulator all the same. */
static void test_soe_element_alone(void **state)
{
    (void)state;
    char src[512], path[64];
    size_t len;
    char *b = slurp(data_file("soe_initcmds.xml", src, sizeof src), &len);
    char *p = strstr(b, "<Protocol>SoE</Protocol>");
    assert_non_null(p);
    memmove(p, p + strlen("<Protocol>SoE</Protocol>"), strlen(p + strlen("<Protocol>SoE</Protocol>")) + 1);
    eni_temp(path, sizeof path, b);
    free(b);
    struct erig *r = erig_new(path, path, false);
    assert_int_equal(r->eni->slave[0].mbx_proto & MBX_PROTO_SOE, 0);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc)
        printf("%s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(held16(r, 32), 0x000B);
    erig_free(r);
    unlink(path);
}

/* The drive refuses S-0-0040 (read-only): start-up stops in PREOP with file, line,
 * comment, IDN and the drive's own reason. */
static void test_soe_refused(void **state)
{
    (void)state;
    char path[512], msg[400], want[64];
    data_file("refused/soe_readonly.xml", path, sizeof path);
    char err[300];
    struct ecat_eni *e;
    assert_int_equal(ecat_eni_load(path, &e, err, sizeof err), 0);
    assert_int_equal(e->slave[0].n_soe, 4);
    snprintf(want, sizeof want, "line %u:", e->slave[0].soe[3].line);
    ecat_eni_free(e);
    assert_true(bring_up(path, path, msg, sizeof msg) != 0);
    assert_non_null(strstr(msg, "soe_readonly.xml"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "transition PS"));
    assert_non_null(strstr(msg, "velocity feedback (S-0-0040)"));
    assert_non_null(strstr(msg, "IDN S-0-0040 is read-only"));
}

/* Bad SoE init commands: what was expected and what came. */
static void test_soe_bad(void **state)
{
    (void)state;
    static const struct { const char *from, *to, *want; } t[] = {
        { "<OpCode>3</OpCode><DriveNo>0</DriveNo><IDN>32</IDN>", "<OpCode>1</OpCode><DriveNo>0</DriveNo><IDN>32</IDN>",
          "expected <OpCode>3</OpCode> (an IDN write), found 1" },
        { "<IDN>33</IDN>", "", "expected a <IDN> element, found none" },
        { "<Data>0a00</Data>", "", "expected <Data> for the write of IDN 33, found none" },
        { "<DriveNo>0</DriveNo><IDN>1</IDN>", "<DriveNo>9</DriveNo><IDN>1</IDN>", "DriveNo" },
    };
    char src[512], path[64], err[300];
    size_t len;
    char *b = slurp(data_file("soe_initcmds.xml", src, sizeof src), &len);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char *at = strstr(b, t[i].from);
        assert_non_null(at);
        snprintf(path, sizeof path, "/tmp/takt_eni_XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fprintf(f, "%.*s%s%s", (int)(at - b), b, t[i].to, at + strlen(t[i].from));
        fclose(f);
        struct ecat_eni *e = NULL;
        assert_true(ecat_eni_load(path, &e, err, sizeof err) < 0);
        printf("  %s\n", err);
        assert_non_null(strstr(err, t[i].want));
        unlink(path);
    }
    free(b);
}

/* The ENI writer keeps the SoE init commands: read, write, read gives the same. */
static void test_soe_roundtrip(void **state)
{
    (void)state;
    char path[512], out[64], err[300];
    struct ecat_eni *a, *b;
    assert_int_equal(ecat_eni_load(data_file("soe_initcmds.xml", path, sizeof path), &a, err, sizeof err), 0);
    snprintf(out, sizeof out, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ecat_eni_write(out, a, err, sizeof err), 0);
    assert_int_equal(ecat_eni_load(out, &b, err, sizeof err), 0);
    assert_int_equal(b->slave[0].n_soe, a->slave[0].n_soe);
    assert_true(b->slave[0].has_soe);
    for (unsigned i = 0; i < a->slave[0].n_soe; i++) {
        const struct ecat_eni_soe *x = &a->slave[0].soe[i], *y = &b->slave[0].soe[i];
        assert_int_equal(x->transitions, y->transitions);
        assert_string_equal(x->comment, y->comment);
        assert_int_equal(x->idn, y->idn);
        assert_int_equal(x->drive, y->drive);
        assert_int_equal(x->elements, y->elements);
        assert_int_equal(x->timeout_ms, y->timeout_ms);
        assert_int_equal(x->len, y->len);
        assert_memory_equal(x->data, y->data, x->len);
    }
    ecat_eni_free(a);
    ecat_eni_free(b);
    unlink(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soe_initcmds),
        cmocka_unit_test(test_soe_element_alone),
        cmocka_unit_test(test_soe_refused),
        cmocka_unit_test(test_soe_bad),
        cmocka_unit_test(test_soe_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
