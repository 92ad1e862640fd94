/* The tree an ENI describes (each slave's <PreviousPort>: the previous slave's PhysAddr
 * and port letter A-D = ESC port 0-3) is the tree the simulator builds from that ENI:
 * a coupler, an EK1122-like junction with a slave on each of its ports B, C, D, one
 * more behind; the master finds them all. Wrong ports, unknown addresses and an order
 * the frame cannot take are refused naming the slave. */
#include "unit/sim/eni_rig.h"

/* %s x6: the PreviousPort elements of slaves 2..7 */
static const char topo_eni[] =
"<?xml version=\"1.0\"?>\n"
"<EtherCATConfig><Config>\n"
"<Master><Info><Name>t</Name><Destination>ffffffffffff</Destination><Source>020000000001</Source>"
"<EtherType>a488</EtherType></Info></Master>\n"
"<Slave><Info><Name>Coupler</Name><PhysAddr>1001</PhysAddr><AutoIncAddr>0</AutoIncAddr>"
"<Physics>YKY</Physics><VendorId>2457</VendorId><ProductCode>10</ProductCode><RevisionNo>1</RevisionNo>"
"</Info></Slave>\n"
"<Slave><Info><Name>Junction</Name><PhysAddr>1002</PhysAddr><AutoIncAddr>65535</AutoIncAddr>"
"<Physics>KKYY</Physics><VendorId>2457</VendorId><ProductCode>11</ProductCode><RevisionNo>1</RevisionNo>"
"</Info>%s</Slave>\n"
"<Slave><Info><Name>On D</Name><PhysAddr>1003</PhysAddr><AutoIncAddr>65534</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>12</ProductCode><RevisionNo>1</RevisionNo></Info>%s</Slave>\n"
"<Slave><Info><Name>On B</Name><PhysAddr>1004</PhysAddr><AutoIncAddr>65533</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>12</ProductCode><RevisionNo>1</RevisionNo></Info>%s</Slave>\n"
"<Slave><Info><Name>Behind B</Name><PhysAddr>1005</PhysAddr><AutoIncAddr>65532</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>12</ProductCode><RevisionNo>1</RevisionNo></Info>%s</Slave>\n"
"<Slave><Info><Name>On C</Name><PhysAddr>1006</PhysAddr><AutoIncAddr>65531</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>12</ProductCode><RevisionNo>1</RevisionNo></Info>%s</Slave>\n"
"<Slave><Info><Name>Line end</Name><PhysAddr>1007</PhysAddr><AutoIncAddr>65530</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>12</ProductCode><RevisionNo>1</RevisionNo></Info>%s</Slave>\n"
"</Config></EtherCATConfig>\n";

static char pp[6][160];

static void prev(unsigned slave, const char *port, unsigned phys)
{
    snprintf(pp[slave - 2], sizeof pp[0], "<PreviousPort Selected=\"1\"><Port>%s</Port><PhysAddr>%u"
             "</PhysAddr></PreviousPort>", port, phys);
}

/* The tree of the test: junction on the coupler's B, then its D, B (and one behind),
 * C subtrees in the frame's order (ESC ports 0, 3, 1, 2), the last on C of "On C". */
static void tree(void)
{
    prev(2, "B", 1002 - 1);
    prev(3, "D", 1002);
    prev(4, "B", 1002);
    prev(5, "B", 1004);
    prev(6, "C", 1002);
    prev(7, "C", 1006);
}

static void write_eni(char *path, size_t len)
{
    snprintf(path, len, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, topo_eni, pp[0], pp[1], pp[2], pp[3], pp[4], pp[5]);
    fclose(f);
}

static void junction_tree(void **state)
{
    (void)state;
    char path[64];
    tree();
    write_eni(path, sizeof path);
    struct erig *r = erig_new(path, path, false);     /* the master scans all 7 */
    static const int par[7] = { -1, 0, 1, 1, 3, 1, 5 };
    static const unsigned port[7] = { 0, 1, 3, 1, 1, 2, 2 };
    for (unsigned k = 0; k < 7; k++) {
        int p;
        unsigned n;
        assert_int_equal(takt_sim_get_parent(r->sim, k, &p, &n), 0);
        assert_int_equal(p, par[k]);
        assert_int_equal(n, port[k]);
    }
    /* DL status (0x0110, link bits 4-7, communication bits 9/11/13/15): the junction
     * has all four ports in use, the line's end only port 0 */
    uint8_t dl[2];
    assert_int_equal(takt_sim_peek(r->sim, 1, 0x0110, dl, 2), 0);
    assert_int_equal(dl[0] & 0xF0, 0xF0);
    assert_int_equal(dl[1], 0xAA);
    assert_int_equal(takt_sim_peek(r->sim, 6, 0x0110, dl, 2), 0);
    assert_int_equal(dl[0] & 0xF0, 0x10);
    erig_free(r);
    unlink(path);
}

/* Without any PreviousPort the ENI is a line, as before. */
static void no_previous_port_is_a_line(void **state)
{
    (void)state;
    char path[64], err[300];
    for (unsigned i = 0; i < 6; i++)
        pp[i][0] = 0;
    write_eni(path, sizeof path);
    struct takt_sim *s;
    assert_int_equal(takt_sim_create_eni(path, NULL, &s, err, sizeof err), 0);
    for (unsigned k = 1; k < 7; k++) {
        int p;
        unsigned n;
        assert_int_equal(takt_sim_get_parent(s, k, &p, &n), 0);
        assert_int_equal(p, (int)k - 1);
        assert_int_equal(n, 1);
    }
    takt_sim_destroy(s);
    unlink(path);
}

static void refused(const char *want)
{
    char path[64], err[300] = "";
    write_eni(path, sizeof path);
    struct takt_sim *s = NULL;
    int rc = takt_sim_create_eni(path, NULL, &s, err, sizeof err);
    printf("  -> %d: %s\n", rc, err);
    assert_int_equal(rc, -EINVAL);
    assert_null(s);
    assert_non_null(strstr(err, want));
    unlink(path);
}

static void bad_trees(void **state)
{
    (void)state;
    tree();
    prev(5, "B", 1009);
    refused("slave at position 4 <PreviousPort><PhysAddr>: expected the PhysAddr of an earlier slave, found '1009'");
    tree();
    prev(3, "A", 1002);
    refused("slave at position 2 <PreviousPort><Port>: expected B, C or D, found 'A'");
    tree();
    prev(3, "C", 1002);          /* C (port 2) before B (port 1): not the frame's order */
    prev(6, "D", 1002);
    refused("topology:");
    tree();
    prev(4, "D", 1002);          /* two slaves on one port */
    refused("both on port 3 of position 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(junction_tree),
        cmocka_unit_test(no_previous_port_is_a_line),
        cmocka_unit_test(bad_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
