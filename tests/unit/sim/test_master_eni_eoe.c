/* EoE in an ENI (ETG.2100 Mailbox/EoE): the simulator built from the ENI has an EoE
 * endpoint for the slave, the master sends the ENI's set-IP-parameter request after
 * INIT -> PREOP and the network reaches OP with the slave holding those parameters;
 * broken EoE init commands are refused when the file is read; the ENI writer gives
 * them back. */
#include "unit/sim/eni_rig.h"
#include "sim/esc_eoe.h"
#include "sim/net.h"

static const char *data_file(const char *name, char *buf, size_t len)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    snprintf(buf, len, "%s/tests/data/eni/%s", src ? src : ".", name);
    return buf;
}

static void test_eoe_setip(void **state)
{
    (void)state;
    char path[512];
    data_file("eoe_setip.xml", path, sizeof path);
    run_fixture(path, path, false);
    struct erig *r = erig_new(path, path, false);
    assert_int_equal(r->eni->slave[0].n_eoe, 1);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc)
        printf("%s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    /* what `takt ecat run -f F --eoe 0` takes when the command line gives no address */
    struct takt_ecat_eoe_ip from;
    assert_int_equal(takt_ecat_master_eni_eoe_ip(r->m, 0, &from), 0);
    assert_int_equal(takt_ecat_master_eni_eoe_ip(r->m, 1, &from), -ENOENT);
    assert_int_equal(takt_ecat_master_eni_eoe_ip(r->m, 0, &from), 0);
    const struct esc_eoe *e = r->sim->sl[0].esc.eoe;
    assert_non_null(e);
    static const uint8_t ip[4] = { 10, 0, 3, 2 }, mask[4] = { 255, 255, 255, 0 }, gw[4] = { 10, 0, 3, 1 };
    assert_int_equal(e->ip.flags & (TAKT_ECAT_EOE_IP_IP | TAKT_ECAT_EOE_IP_MASK | TAKT_ECAT_EOE_IP_GW),
                     TAKT_ECAT_EOE_IP_IP | TAKT_ECAT_EOE_IP_MASK | TAKT_ECAT_EOE_IP_GW);
    assert_memory_equal(e->ip.ip, ip, 4);
    assert_memory_equal(e->ip.mask, mask, 4);
    assert_memory_equal(e->ip.gw, gw, 4);
    assert_memory_equal(from.ip, ip, 4);
    assert_memory_equal(from.mask, mask, 4);
    erig_free(r);
}

/* Broken EoE init commands: what was expected and what came. */
static void test_eoe_bad(void **state)
{
    (void)state;
    static const char *const data = "<Data>020100000e0000000000000000000203000a00ffffff0103000a</Data>";
    static const struct { const char *to, *want; } t[] = {
        { "<Data>010100000e0000000000000000000203000a00ffffff0103000a</Data>",
          "expected an EoE set-IP-parameter (type 2) or set-address-filter (type 4) request, found EoE type 1" },
        { "<Data>020100000e000000000000000000</Data>",
          "expected a set-IP-parameter body that holds every field its flags name, found 10 bytes" },
        { "<Data>0201</Data>", "expected an EoE header of 4 bytes and a body, found 2 bytes" },
        { "", "expected <Data> (an EoE header and body), found none" },
    };
    char src[512], path[64], err[300];
    size_t len;
    char *b = slurp(data_file("eoe_setip.xml", src, sizeof src), &len);
    char *at = strstr(b, data);
    assert_non_null(at);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        snprintf(path, sizeof path, "/tmp/takt_eni_XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fprintf(f, "%.*s%s%s", (int)(at - b), b, t[i].to, at + strlen(data));
        fclose(f);
        struct ecat_eni *e = NULL;
        assert_true(ecat_eni_load(path, &e, err, sizeof err) < 0);
        printf("  %s\n", err);
        assert_non_null(strstr(err, t[i].want));
        unlink(path);
    }
    free(b);
}

static void test_eoe_roundtrip(void **state)
{
    (void)state;
    char path[512], out[64], err[300];
    struct ecat_eni *a, *b;
    assert_int_equal(ecat_eni_load(data_file("eoe_setip.xml", path, sizeof path), &a, err, sizeof err), 0);
    snprintf(out, sizeof out, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ecat_eni_write(out, a, err, sizeof err), 0);
    assert_int_equal(ecat_eni_load(out, &b, err, sizeof err), 0);
    assert_int_equal(b->slave[0].n_eoe, 1);
    assert_true(b->slave[0].has_eoe);
    const struct ecat_eni_eoe *x = &a->slave[0].eoe[0], *y = &b->slave[0].eoe[0];
    assert_int_equal(x->transitions, y->transitions);
    assert_string_equal(x->comment, y->comment);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->timeout_ms, y->timeout_ms);
    assert_int_equal(x->len, y->len);
    assert_memory_equal(x->body, y->body, x->len);
    ecat_eni_free(a);
    ecat_eni_free(b);
    unlink(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eoe_setip),
        cmocka_unit_test(test_eoe_bad),
        cmocka_unit_test(test_eoe_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
