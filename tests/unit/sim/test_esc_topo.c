/* Simulated line: cable break and heal (power-loss semantics), power cycle,
 * scheduled and random faults, injected SDO aborts, mem-link attachment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "esc_testdev.h"

#define N 4
#define MS 1000000LL

static void break_and_heal(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(N, false, false, NULL);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, 0x0200), 0x0004, MS), N);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_AL_CONTROL), AL_PREOP, MS), N);
    assert_int_equal(tr16(s, 0x1004, ESC_AL_STATUS, MS), AL_PREOP);
    assert_int_equal(takt_sim_break(s, 2, 2 * MS), 0);
    uint8_t b[2] = { 0xAB, 0xCD };
    assert_int_equal(tdg(s, ECAT_BRD, FP(0, 0), b, 2, 3 * MS), 2);
    /* datagrams for the lost slaves come back untouched */
    b[0] = 0xAB;
    b[1] = 0xCD;
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1003, 0x0010), b, 2, 3 * MS), 0);
    assert_int_equal(b[0], 0xAB);
    assert_int_equal(b[1], 0xCD);
    /* slave 2: port 1 without link, loop closed; lost-link counter of port 1 */
    uint16_t dl = tr16(s, 0x1002, ESC_DL_STATUS, 3 * MS);
    assert_int_equal((dl >> 10) & 3, 1);
    assert_int_equal(dl & 0x20, 0);
    uint8_t ll = 0;
    tdg(s, ECAT_FPRD, FP(0x1002, 0x0311), &ll, 1, 3 * MS);
    assert_int_equal(ll, 1);
    /* heal: slaves 3 and 4 come back as after power loss - INIT, no address */
    assert_int_equal(takt_sim_heal(s, 4 * MS), 0);
    assert_int_equal(tdg(s, ECAT_BRD, FP(0, 0), b, 2, 5 * MS), N);
    assert_int_equal(tr16(s, 0x1003, 0x0010, 5 * MS), 0);     /* not found: no address */
    uint8_t a[2];
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-2, ESC_STATION_ADDR), a, 2, 5 * MS), 1);
    assert_int_equal(get_le16(a), 0);
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-2, 0x0200), a, 2, 5 * MS), 1);
    assert_int_equal(get_le16(a), 0);                        /* configuration cleared */
    assert_int_equal(tr16(s, 0x1002, 0x0200, 5 * MS), 0x0004);  /* slave 2 kept its own */
    /* the returned slaves are in INIT, the others stayed in PREOP */
    assert_int_equal(tdg(s, ECAT_APRD, FP((uint16_t)-3, ESC_AL_STATUS), a, 2, 5 * MS), 1);
    assert_int_equal(get_le16(a), AL_INIT);
    assert_int_equal(tr16(s, 0x1002, ESC_AL_STATUS, 5 * MS), AL_PREOP);
    /* and their port 0 and the parent's port 1 have link again (0x0110) */
    uint16_t dl2 = tr16(s, 0x1002, ESC_DL_STATUS, 5 * MS);
    assert_int_equal((dl2 >> 10) & 3, 2);
    assert_int_equal(dl2 & 0x20, 0x20);
    /* break before slave 1: nothing comes back */
    takt_sim_break(s, 0, 6 * MS);
    assert_int_equal(tdg(s, ECAT_BRD, FP(0, 0), b, 2, 7 * MS), -1);
    takt_sim_destroy(s);
}

static void scheduled_faults(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(N, false, false, NULL);
    char err[200];
    assert_int_equal(takt_sim_fault(s, "break=1@10ms; heal=1@20ms; power=1@30ms", err, sizeof err), 0);
    uint8_t b[2];
    /* the first frame (in tnet, at 1 us) is time 0 */
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 5 * MS), N);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 11 * MS), 1);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, 21 * MS), N);
    for (unsigned i = 1; i < N; i++)                  /* healed slaves lost addresses */
        tw16(s, ECAT_APWR, FP((uint16_t)-(int)i, ESC_STATION_ADDR), (uint16_t)(0x1001 + i), 22 * MS);
    tw16(s, ECAT_FPWR, FP(0x1002, 0x0200), 0x0004, 25 * MS);
    assert_int_equal(tr16(s, 0x1002, 0x0200, 29 * MS), 0x0004);
    assert_int_equal(tr16(s, 0x1002, 0x0200, 31 * MS), 0);   /* power cycled: gone */
    struct takt_sim_stats st;
    takt_sim_get_stats(s, &st);
    assert_int_equal(st.reachable, N);
    /* errors say what was expected */
    assert_int_not_equal(takt_sim_fault(s, "explode=1", err, sizeof err), 0);
    assert_non_null(strstr(err, "expected"));
    assert_int_not_equal(takt_sim_fault(s, "drop=2", err, sizeof err), 0);
    assert_non_null(strstr(err, "0..1"));
    assert_int_not_equal(takt_sim_fault(s, "break=1@soon", err, sizeof err), 0);
    /* times that do not fit in ns (found by fuzz_sim_fault under UBSan) */
    assert_int_not_equal(takt_sim_fault(s, "break=1@1e19", err, sizeof err), 0);
    assert_non_null(strstr(err, "expected a time"));
    assert_int_not_equal(takt_sim_fault(s, "delay=nan", err, sizeof err), 0);
    assert_int_not_equal(takt_sim_fault(s, "heal=1@inf", err, sizeof err), 0);
    /* K is a position from 0, as takt ecat slaves shows it: 0 is the first slave,
     * N is past the last and refused saying which positions there are */
    assert_int_equal(takt_sim_fault(s, "power=0", err, sizeof err), 0);
    assert_int_not_equal(takt_sim_fault(s, "power=4", err, sizeof err), 0);
    assert_non_null(strstr(err, "no slave at position 4 (the network has positions 0..3)"));
    assert_int_not_equal(takt_sim_fault(s, "break=4", err, sizeof err), 0);
    assert_non_null(strstr(err, "no slave at position 4"));
    assert_int_not_equal(takt_sim_fault(s, "refuse=x:op=0x11", err, sizeof err), 0);
    assert_non_null(strstr(err, "expected a slave position 0..3"));
    takt_sim_destroy(s);
}

static void random_faults(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(2, false, false, NULL);
    char err[100];
    uint8_t b[2];
    assert_int_equal(takt_sim_fault(s, "drop=1", err, sizeof err), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, MS), -1);
    assert_int_equal(takt_sim_fault(s, "drop=0.25", err, sizeof err), 0);
    int lost = 0;
    for (int i = 0; i < 1000; i++)
        lost += tdg(s, ECAT_BRD, 0, b, 2, MS) < 0;
    assert_true(lost > 180 && lost < 320);
    /* crc: lost and counted as the first slave's invalid frame */
    assert_int_equal(takt_sim_fault(s, "drop=0;crc=1", err, sizeof err), 0);
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, MS), -1);
    s->p_crc = 0;
    /* a bad FCS: slave 1's port 0 invalid-frame counter and its processing unit's;
     * slave 2 sees the marked frame: forwarded error + processing unit (ESC
     * datasheet Section I, 14) */
    uint8_t c = 0;
    tdg(s, ECAT_FPRD, FP(0x1001, 0x0300), &c, 1, MS);
    assert_int_equal(c, 1);
    tdg(s, ECAT_FPRD, FP(0x1001, 0x030C), &c, 1, MS);
    assert_int_equal(c, 1);
    tdg(s, ECAT_FPRD, FP(0x1002, 0x0308), &c, 1, MS);
    assert_int_equal(c, 1);
    tdg(s, ECAT_FPRD, FP(0x1002, 0x030C), &c, 1, MS);
    assert_int_equal(c, 1);
    tdg(s, ECAT_FPRD, FP(0x1002, 0x0300), &c, 1, MS);
    assert_int_equal(c, 0);
    assert_int_equal(takt_sim_fault(s, "corrupt=1;delay=200us", err, sizeof err), 0);
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[128], ref[128];
    size_t pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPRD, 0, FP(0x7777, 0), 40, NULL);
    size_t len = ecat_frame_end(buf, pos);
    memcpy(ref, buf, len);
    ref[6] |= 2;
    takt_ns_t delay = 0;
    assert_int_equal(takt_sim_process(s, buf, len, sizeof buf, MS, &delay), len);
    assert_int_equal(delay, 200000);
    assert_memory_not_equal(buf, ref, len);
    struct takt_sim_stats st;
    takt_sim_get_stats(s, &st);
    assert_int_equal(st.corrupted, 1);
    takt_sim_destroy(s);
}

static void sdo_abort_injected(void **state)
{
    (void)state;
    struct tdev *d[1];
    struct takt_sim *s = tnet(1, true, false, d);
    tsm(s, 0x1001, 0, 0x1000, 128, 0x26, 1, MS);
    tsm(s, 0x1001, 1, 0x1080, 128, 0x22, 1, MS);
    tw16(s, ECAT_FPWR, FP(0x1001, ESC_AL_CONTROL), AL_PREOP, MS);
    char err[100];
    assert_int_equal(takt_sim_fault(s, "sdo-abort=0:0x6000:1=0x06010002", err, sizeof err), 0);
    /* SDO upload request 0x6000:01 */
    uint8_t m[128] = { 0 };
    put_le16(m, 10);
    put_le16(m + 2, 0x0000);
    m[5] = MBX_TYPE_COE | 2 << 4;
    put_le16(m + 6, COE_SDO_REQ << 12);
    m[8] = 0x40;
    put_le16(m + 9, 0x6000);
    m[11] = 1;
    assert_int_equal(tdg(s, ECAT_FPWR, FP(0x1001, 0x1000), m, 128, 2 * MS), 1);
    uint8_t r[128];
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, 0x1080), r, 128, 3 * MS), 1);
    assert_int_equal(d[0]->n_mbx, 0);                /* the device never saw it */
    assert_int_equal(get_le16(r), 10);
    assert_int_equal(r[5] & 0x0F, MBX_TYPE_COE);
    assert_int_equal(get_le16(r + 6) >> 12, COE_SDO_REQ);
    assert_int_equal(r[8], 0x80);
    assert_int_equal(get_le16(r + 9), 0x6000);
    assert_int_equal(r[11], 1);
    assert_int_equal(get_le32(r + 12), 0x06010002);
    /* another object passes through to the device */
    put_le16(m + 9, 0x6001);
    tdg(s, ECAT_FPWR, FP(0x1001, 0x1000), m, 128, 4 * MS);
    assert_int_equal(d[0]->n_mbx, 1);
    takt_sim_destroy(s);
}

static takt_ns_t fixed_clock(void *ctx) { return *(takt_ns_t *)ctx; }

static void over_mem_link(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(3, false, false, NULL);
    struct takt_link *a, *b;
    takt_ns_t now = 10 * MS;
    assert_int_equal(takt_link_mem_pair(&a, &b, 16, fixed_clock, &now), 0);
    takt_sim_attach_mem(s, b);
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[128], rx[TAKT_FRAME_BUF];
    size_t pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_BRD, 7, 0, 2, NULL);
    size_t len = ecat_frame_end(buf, pos);
    struct takt_frame f = { .data = buf, .len = (uint16_t)len };
    assert_int_equal(takt_link_send(a, &f, 1), 1);
    struct takt_frame r = { .data = rx, .cap = sizeof rx };
    assert_int_equal(takt_link_recv(a, &r, 1, 0), 1);
    struct ecat_dg dg;
    assert_int_equal(ecat_frame_first(rx, r.len, &dg, &pos), 0);
    assert_int_equal(dg.idx, 7);
    assert_int_equal(get_le16(dg.wkc), 3);
    assert_int_equal(rx[6], 0x12);
    takt_link_close(a);
    takt_link_close(b);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(break_and_heal),
        cmocka_unit_test(scheduled_faults),
        cmocka_unit_test(random_faults),
        cmocka_unit_test(sdo_abort_injected),
        cmocka_unit_test(over_mem_link),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
