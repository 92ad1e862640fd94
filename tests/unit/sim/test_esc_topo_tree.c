/* Simulated tree topology: positions in ESC port order 0-3-1-2, DL status per port,
 * receive-time latches of all four ports, forwarding delays per port pass, branch
 * breaks and heals, the topology spec's errors, the junction preset. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "esc_testdev.h"
#include "sim/net.h"

#define N 9
#define MS 1000000LL
#define D 500                           /* default forwarding delay per port pass */

/* parent (1-based, 0 = master) and port of slaves 1..9 in the junction preset */
static const int par[N] = { 0, 1, 2, 1, 4, 4, 6, 4, 8 };
static const int pport[N] = { 0, 3, 1, 1, 3, 1, 1, 2, 3 };

static struct takt_sim *tree(void)
{
    struct takt_sim *s = tnet(N, false, true, NULL);
    char err[200];
    assert_non_null(s);
    assert_int_equal(takt_sim_set_topology(s, TAKT_SIM_JUNCTION_TOPOLOGY, err, sizeof err), 0);
    /* tnet addressed the slaves by position: the same order as before (the spec's
     * order is the frame's order) */
    return s;
}

static unsigned open_ports(struct takt_sim *s, unsigned k, takt_ns_t now)
{
    uint16_t dl = tr16(s, (uint16_t)(0x1000 + k), ESC_DL_STATUS, now);
    unsigned o = 0;
    for (unsigned p = 0; p < 4; p++) {
        unsigned b = (dl >> (8 + 2 * p)) & 3;
        bool link = dl & (1u << (4 + p));
        if (b == 2) {                    /* communication, loop open */
            assert_true(link);
            o |= 1u << p;
        } else {
            assert_int_equal(b, 1);      /* loop closed, no communication */
            assert_false(link);
        }
    }
    return o;
}

static void order_and_ports(void **state)
{
    (void)state;
    struct takt_sim *s = tree();
    /* ports in use: the parent link (0) and each child's port */
    for (unsigned k = 1; k <= N; k++) {
        unsigned want = 1;
        for (unsigned c = 0; c < N; c++)
            if (par[c] == (int)k)
                want |= 1u << pport[c];
        assert_int_equal(open_ports(s, k, 2 * MS), want);
        int p;
        unsigned pp;
        assert_int_equal(takt_sim_get_parent(s, k - 1, &p, &pp), 0);
        assert_int_equal(p + 1, par[k - 1]);
        assert_int_equal((int)pp, pport[k - 1]);
    }
    /* auto-increment follows the frame: position 5 (ADP -4) is the junction's port-3
     * slave, the one APWR gave 0x1005 */
    uint8_t b[2];
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-4, ESC_STATION_ADDR), b, 2, 2 * MS), 1);
    assert_int_equal(get_le16(b), 0x1005);
    takt_sim_destroy(s);
}

/* Time the frame needs through the subtree of slave k (0-based): one forwarding delay
 * per port pass (processing unit, then after each open child port). */
static int64_t subtree(unsigned k)
{
    int64_t t = D;
    for (unsigned c = 0; c < N; c++)
        if (par[c] == (int)k + 1)
            t += subtree(c) + D;
    return t;
}

static void latches(void **state)
{
    (void)state;
    struct takt_sim *s = tree();
    uint8_t z[4] = { 0 };
    assert_int_equal(tdg(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), z, 4, 10 * MS), N);
    static const uint8_t order[3] = { 3, 1, 2 };
    for (unsigned k = 0; k < N; k++) {
        uint8_t t[16];
        assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001 + k, ESC_DC_RECV_TIME0), t, 16, 11 * MS), 1);
        uint32_t t0 = get_le32(t);
        /* each open port receives the frame back after the subtrees before it */
        int64_t off = D;
        for (unsigned i = 0; i < 3; i++) {
            unsigned p = order[i];
            for (unsigned c = 0; c < N; c++)
                if (par[c] == (int)k + 1 && pport[c] == (int)p) {
                    off += subtree(c);
                    int32_t got = (int32_t)(get_le32(t + 4 * p) - t0);
                    /* 50 ppm drift over a few microseconds: below 1 ns */
                    assert_true(llabs(got - off) <= 1);
                    off += D;
                }
        }
    }
    /* the junction's loop: port 2 returns last, after all three branches */
    uint8_t t[16];
    tdg(s, ECAT_FPRD, FP(0x1004, ESC_DC_RECV_TIME0), t, 16, 11 * MS);
    assert_true(llabs((int32_t)(get_le32(t + 8) - get_le32(t)) - 10 * D) <= 1);
    takt_sim_destroy(s);
}

static void branch_break_and_heal(void **state)
{
    (void)state;
    struct takt_sim *s = tree();
    uint8_t b[2] = { 0 };
    tw16(s, ECAT_FPWR, FP(0x1006, 0x0200), 0x0004, MS);
    tw16(s, ECAT_FPWR, FP(0x1005, 0x0200), 0x0004, MS);
    /* the junction's port-3 branch (slave 5) goes; everything else stays */
    assert_int_equal(takt_sim_break_port(s, 3, 3, 2 * MS), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 3 * MS), N - 1);
    assert_int_equal(open_ports(s, 4, 3 * MS), 0x1 | 0x2 | 0x4);
    uint8_t ll = 0;
    tdg(s, ECAT_FPRD, FP(0x1004, 0x0313), &ll, 1, 3 * MS);
    assert_int_equal(ll, 1);                         /* lost link, port 3 */
    /* positions close up: ADP -4 is now slave 6 */
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-4, ESC_STATION_ADDR), b, 2, 3 * MS), 1);
    assert_int_equal(get_le16(b), 0x1006);
    assert_int_equal(tr16(s, 0x1006, 0x0200, 3 * MS), 0x0004);
    /* a second branch by the fault language: port 2 of the junction (slaves 8, 9) */
    char err[200];
    assert_int_equal(takt_sim_fault(s, "break=3:2", err, sizeof err), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 4 * MS), N - 3);
    struct takt_sim_stats st;
    takt_sim_get_stats(s, &st);
    assert_int_equal(st.reachable, N - 3);
    /* heal: the cut-off slaves come back as after power loss, the others keep theirs */
    assert_int_equal(takt_sim_heal(s, 5 * MS), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 6 * MS), N);
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-4, ESC_STATION_ADDR), b, 2, 6 * MS), 1);
    assert_int_equal(get_le16(b), 0);
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-4, 0x0200), b, 2, 6 * MS), 1);
    assert_int_equal(get_le16(b), 0);
    assert_int_equal(tr16(s, 0x1006, 0x0200, 6 * MS), 0x0004);
    assert_int_equal(open_ports(s, 4, 6 * MS), 0xF);
    /* break=K in a tree: the cable into position K */
    assert_int_equal(takt_sim_break(s, 3, 7 * MS), 0);   /* position 3 and its subtree */
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 8 * MS), 3);
    assert_int_equal(takt_sim_break_port(s, 8, 1, 8 * MS), -ENOENT);
    takt_sim_destroy(s);
}

static void bad_specs(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(4, false, false, NULL);
    char err[200];
    /* position 2 on port 3 of position 0 would be reached before position 1 on port 1 */
    assert_int_equal(takt_sim_set_topology(s, "0:1,0:3,2:1", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "frame's order"));
    assert_int_equal(takt_sim_set_topology(s, "0:1,1:1", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "expected 3 items"));
    assert_int_equal(takt_sim_set_topology(s, "0:1,1:4,2:1", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "position 2"));
    assert_int_equal(takt_sim_set_topology(s, "0:1,2:1,0:3", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "earlier"));
    assert_int_equal(takt_sim_set_topology(s, "0:3,0:3,0:1", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "both on port 3"));
    assert_int_equal(takt_sim_set_topology(s, "x", err, sizeof err), -EINVAL);
    /* PARENT is a position counted from 0 (as takt ecat slaves shows it): position 1
     * cannot hang on position 1, and the message says which positions it could */
    assert_int_equal(takt_sim_set_topology(s, "1:3,1:1,3:1", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "position 1: expected PARENT:PORT with PARENT a position 0..0"));
    /* a failed spec leaves the line as it was */
    uint8_t b[2];
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, MS), 4);
    assert_int_equal(open_ports(s, 2, MS), 0x3);
    assert_int_equal(takt_sim_set_topology(s, "0:3,0:1,2:2", err, sizeof err), 0);
    assert_int_equal(open_ports(s, 1, MS), 0xB);
    assert_int_equal(open_ports(s, 3, MS), 0x5);
    assert_int_equal(takt_sim_set_topology(s, "line", err, sizeof err), 0);
    assert_int_equal(open_ports(s, 1, MS), 0x3);
    takt_sim_destroy(s);
}

/* A swapped cable: the subtrees on ports 3 and 1 of position 0 trade places. */
static void swap_cables(void **state)
{
    (void)state;
    struct tdev *d[4];
    struct takt_sim *s = tnet(4, false, false, d);
    char err[200];
    assert_int_equal(takt_sim_set_topology(s, "0:3,0:1,2:1", err, sizeof err), 0);
    tw16(s, ECAT_FPWR, FP(0x1002, 0x0200), 0x0004, MS);
    /* unplugged first (the master would see them go), swapped, plugged back */
    assert_int_equal(takt_sim_break_port(s, 0, 3, 2 * MS), 0);
    assert_int_equal(takt_sim_break_port(s, 0, 1, 2 * MS), 0);
    uint8_t b[2];
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 3 * MS), 1);
    assert_int_equal(takt_sim_swap_ports(s, 0, 3, 1, 3 * MS), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 3 * MS), 1);      /* still unplugged */
    assert_int_equal(takt_sim_heal(s, 4 * MS), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 5 * MS), 4);
    /* positions now: 1, the old 3 and 4 (port 3 first), the old 2 */
    static const unsigned was[4] = { 0, 2, 3, 1 };
    for (unsigned p = 0; p < 4; p++)
        assert_ptr_equal(s->sl[p].dev, &d[was[p]]->base);
    int pa;
    unsigned pp;
    takt_sim_get_parent(s, 3, &pa, &pp);
    assert_int_equal(pa, 0);
    assert_int_equal(pp, 1);
    takt_sim_get_parent(s, 2, &pa, &pp);
    assert_int_equal(pa, 1);
    assert_int_equal(open_ports(s, 1, 5 * MS), 0xB);
    /* all of them were cut off: back without address and configuration */
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-3, 0x0200), b, 2, 5 * MS), 1);
    assert_int_equal(get_le16(b), 0);
    /* swapped while connected: the re-plugged slaves restart at once */
    for (unsigned i = 0; i < 4; i++)
        tw16(s, ECAT_APWR, FP((uint16_t)-(int)i, ESC_STATION_ADDR), (uint16_t)(0x1001 + i), 6 * MS);
    assert_int_equal(takt_sim_swap_ports(s, 0, 3, 1, 7 * MS), 0);
    assert_int_equal(tr16(s, 0x1001, ESC_STATION_ADDR, 8 * MS), 0x1001);
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-1, ESC_STATION_ADDR), b, 2, 8 * MS), 1);
    assert_int_equal(get_le16(b), 0);
    for (unsigned p = 0; p < 4; p++)
        assert_ptr_equal(s->sl[p].dev, &d[p]->base);
    assert_int_equal(takt_sim_swap_ports(s, 0, 1, 1, 8 * MS), -EINVAL);
    takt_sim_destroy(s);
}

static void junction_preset(void **state)
{
    (void)state;
    struct takt_sim *s;
    char err[200];
    assert_int_equal(takt_sim_create_preset("junction", NULL, &s, err, sizeof err), 0);
    assert_int_equal(takt_sim_slave_count(s), N);
    assert_string_equal(takt_sim_slave_name(s, 3), "ek1100");
    int p;
    unsigned pp;
    assert_int_equal(takt_sim_get_parent(s, 7, &p, &pp), 0);
    assert_int_equal(p, 3);
    assert_int_equal(pp, 2);
    uint8_t b[2];
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, MS), N);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(order_and_ports),
        cmocka_unit_test(latches),
        cmocka_unit_test(branch_break_and_heal),
        cmocka_unit_test(bad_specs),
        cmocka_unit_test(swap_cables),
        cmocka_unit_test(junction_preset),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
