/* Software ESC: distributed clocks (ETG.1000.4; ESC datasheet Section I) - receive-time latching consistent with
 * the line's forwarding delays, system time = local + offset, the 0x092C sign-
 * magnitude difference, and a simulated master's drift compensation converging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>
#include "esc_testdev.h"

#define N 5
#define MS 1000000LL

static uint32_t rd32(struct takt_sim *s, uint16_t st, uint16_t ado, takt_ns_t now)
{
    uint8_t b[4] = { 0 };
    tdg(s, ECAT_FPRD, FP(st, ado), b, 4, now);
    return get_le32(b);
}

static uint64_t rd64(struct takt_sim *s, uint16_t st, uint16_t ado, takt_ns_t now)
{
    uint8_t b[8] = { 0 };
    tdg(s, ECAT_FPRD, FP(st, ado), b, 8, now);
    return get_le64(b);
}

static void wr64(struct takt_sim *s, uint16_t st, uint16_t ado, uint64_t v, takt_ns_t now)
{
    uint8_t b[8];
    put_le64(b, v);
    tdg(s, ECAT_FPWR, FP(st, ado), b, 8, now);
}

/* sum over hops 1..k of (fwd[j] - fwd[j-1]) / 2 = (fwd[k] - fwd[0]) / 2 */
static int64_t sum_half_diff(const takt_ns_t *fwd, unsigned k) { return (fwd[k] - fwd[0]) / 2; }

static void latch_and_delays(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(N, false, true, NULL);
    /* different forwarding delays per slave: hop k -> k+1 takes slave k's delay;
     * slaves 2 and 3 forward equally fast */
    static const takt_ns_t fwd[N] = { 700, 300, 300, 520, 610 };
    for (unsigned k = 0; k < N; k++)
        takt_sim_set_fwd_delay(s, k, fwd[k]);
    uint8_t z[4] = { 0 };
    /* one BWR to 0x0900 latches every DC slave; WKC = DC slaves */
    assert_int_equal(tdg(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), z, 4, 10 * MS), N);
    /* the SOEM computation: loop time t(port1) - t(port0) per slave, delay of slave k
     * = parent's delay + (parent loop - own loop) / 2; with equal forwarding delays
     * each hop is d */
    int64_t loop[N], delay = 0, truth = 0;
    for (unsigned k = 0; k < N; k++) {
        uint16_t st = (uint16_t)(0x1001 + k);
        uint32_t p0 = rd32(s, st, 0x0900, 11 * MS), p1 = rd32(s, st, 0x0904, 11 * MS);
        uint16_t dl = tr16(s, st, ESC_DL_STATUS, 11 * MS);
        bool open1 = ((dl >> 10) & 3) == 2;           /* port 1: comm, loop open */
        assert_int_equal(open1, k + 1 < N);
        loop[k] = open1 ? (int32_t)(p1 - p0) : 0;
        if (k > 0) {
            /* the port times are consistent with the line: between the two passes
             * of slave k-1 lie slave k-1's way out and slave k's way back (drift
             * over microseconds: below 1 ns at 50 ppm) */
            assert_true(llabs((loop[k - 1] - loop[k]) - (fwd[k - 1] + fwd[k])) <= 1);
            delay += (loop[k - 1] - loop[k]) / 2;
            truth += fwd[k - 1];
            /* the masters' estimate is exact where neighbours forward equally fast
             * and off by half their difference otherwise (as on real hardware) */
            assert_true(llabs(delay - truth) <= llabs(sum_half_diff(fwd, k)) + 1);
        }
        /* 0x0918 is the processing unit's local time: equal to port 0's here */
        assert_int_equal((uint32_t)rd64(s, st, ESC_DC_RECV_TIME_PU, 11 * MS), p0);
    }
    takt_sim_destroy(s);
}

static void non_dc_slave_does_not_count(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(2, false, false, NULL);
    uint8_t z[4] = { 0 };
    assert_int_equal(tdg(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), z, 4, MS), 0);
    assert_int_equal(tdg(s, ECAT_BRD, FP(0, ESC_DC_SYS_TIME), z, 4, MS), 0);
    takt_sim_destroy(s);
}

static void system_time_and_offset(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, false, true, NULL);
    takt_sim_set_clock(s, 0, 5000, 0);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYS_TIME, 1000), 6000);
    wr64(s, 0x1001, ESC_DC_SYS_OFFSET, 1000000, 1000);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYS_TIME, 2000), 1007000);
    /* drift: +100 ppm over 1 s = +100 us */
    takt_sim_set_clock(s, 0, 0, 100);
    wr64(s, 0x1001, ESC_DC_SYS_OFFSET, 0, 0);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYS_TIME, 1000 * MS), 1000 * MS + 100000);
    takt_sim_destroy(s);
}

static void diff_sign_magnitude(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, false, true, NULL);
    takt_sim_set_clock(s, 0, 0, 0);
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_DC_DIFF_FILTER), 0, 0);   /* unfiltered */
    /* local 1 ms, delay 0: written 1 ms - 300 ns -> local ahead: bit 31, 300 */
    wr64(s, 0x1001, ESC_DC_SYS_TIME, 1 * MS - 300, 1 * MS);
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 1 * MS), 0x80000000u | 300);
    /* the loop stepped the clock back by those 300 ns; a value written ahead of
     * local time gives bit 31 clear: 2 ms - 300 vs 2 ms + 200 -> 500 */
    wr64(s, 0x1001, ESC_DC_SYS_TIME, 2 * MS + 200, 2 * MS);
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 2 * MS), 500);
    takt_sim_destroy(s);
}

/* A master: latch, compute delays, offsets from 0x0918, static drift compensation
 * then cyclic FRMW 0x0910 every 1 ms (ETG.1000.4 distributed clocks; the steps of ESC datasheet Section I). */
static void drift_compensation_converges(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(N, false, true, NULL);
    /* drifts of +-150 ppm (150 ns per 1 ms cycle when uncorrected) and offsets of
     * seconds */
    for (unsigned k = 0; k < N; k++)
        takt_sim_set_clock(s, k, (int64_t)k * 1234567891, (k & 1) ? 150.0 : -120.0 + 10.0 * k);
    takt_ns_t now = 100 * MS;
    uint8_t z[4] = { 0 };
    tdg(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), z, 4, now);
    int64_t loop[N], delay = 0;
    uint64_t master = 123456789000ull;        /* master's idea of system time at now */
    for (unsigned k = 0; k < N; k++) {
        uint16_t st = (uint16_t)(0x1001 + k);
        uint32_t p0 = rd32(s, st, 0x0900, now), p1 = rd32(s, st, 0x0904, now);
        loop[k] = k + 1 < N ? (int32_t)(p1 - p0) : 0;
        if (k)
            delay += (loop[k - 1] - loop[k]) / 2;
        uint64_t pu = rd64(s, st, ESC_DC_RECV_TIME_PU, now);
        wr64(s, st, ESC_DC_SYS_OFFSET, master - pu, now);
        uint8_t b[4];
        put_le32(b, (uint32_t)delay);
        tdg(s, ECAT_FPWR, FP(st, ESC_DC_SYS_DELAY), b, 4, now);
    }
    tw16(s, ECAT_BWR, FP(0, ESC_DC_DIFF_FILTER), 0x0C00, now);
    tw16(s, ECAT_BWR, FP(0, ESC_DC_SPEED_START), 0x1000, now);
    uint32_t first = 0;
    /* 3000 cycles of 1 ms */
    for (int i = 0; i < 3000; i++) {
        now += MS;
        uint8_t t[8] = { 0 };
        assert_int_equal(tdg(s, ECAT_FRMW, FP(0x1001, ESC_DC_SYS_TIME), t, 8, now), N);
        if (i == 0)
            first = rd32(s, 0x1005, ESC_DC_SYS_DIFF, now) & 0x7FFFFFFF;
    }
    for (unsigned k = 1; k < N; k++) {
        uint32_t diff = rd32(s, (uint16_t)(0x1001 + k), ESC_DC_SYS_DIFF, now) & 0x7FFFFFFF;
        assert_true(diff < 20);
    }
    assert_true(first > 100);
    /* and the clocks really agree: read all system times in one frame through BRD?
     * Compare slave N with slave 1 at the same instant, minus the propagation delay */
    /* the rate correction each clock settled on (0x0932, ppm) is the drift between
     * it and the reference clock, slave 1 (-120 ppm) */
    for (unsigned k = 1; k < N; k++) {
        double dk = (k & 1) ? 150.0 : -120.0 + 10.0 * k;
        int16_t corr = (int16_t)tr16(s, (uint16_t)(0x1001 + k), ESC_DC_SPEED_DIFF, now);
        if (fabs(corr - (-120.0 - dk)) > 5)
            fail_msg("slave %u: 0x0932 %d ppm, drift to the reference %.0f ppm", k + 1, corr, -120.0 - dk);
    }
    uint64_t t1 = esc_dc_systime(&s->sl[0].esc, now);
    uint64_t tn = esc_dc_systime(&s->sl[N - 1].esc, now);
    assert_true(llabs((int64_t)(tn - t1)) < 20);
    takt_sim_destroy(s);
}

static void sync0_next_pulse(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, false, true, NULL);
    takt_sim_set_clock(s, 0, 0, 0);
    wr64(s, 0x1001, ESC_DC_SYNC0_START, 10 * MS, 0);
    uint8_t c[4];
    put_le32(c, 1 * MS);
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_DC_SYNC0_CYCLE), c, 4, 0);
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_DC_ACTIVATION), 0x03, 0);
    uint8_t st = 0xFF;
    tdg(s, ECAT_FPRD, FP(0x1001, 0x0984), &st, 1, 5 * MS);
    assert_int_equal(st, 0);                     /* start time not reached */
    tdg(s, ECAT_FPRD, FP(0x1001, 0x098E), &st, 1, 11 * MS);
    assert_int_equal(st & 1, 1);                 /* SYNC0 running */
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYNC0_START, 5 * MS), 10 * MS);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYNC0_START, 12 * MS + 300), 13 * MS);
    /* the configured start stays the reference: still running, next pulse from it */
    tdg(s, ECAT_FPRD, FP(0x1001, 0x0984), &st, 1, 12 * MS + 400);
    assert_int_equal(st & 1, 1);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYNC0_START, 14 * MS + 1), 15 * MS);
    takt_sim_destroy(s);
}

static void delay_slew_filter(void **state)
{
    (void)state;
    /* the time-control loop a write to 0x0910 drives (ETG.1000.4 distributed clocks): the written time is
     * compared with local + offset (0x0920) - delay (0x0928); the clock steps by at
     * most 0x0930 & 0x7FFF per write; 0x092C is the difference filtered with depth
     * 0x0934 & 0x0F; writing 0x0930..0x0935 resets the filter */
    struct takt_sim *s = tnet(1, false, true, NULL);
    takt_sim_set_clock(s, 0, 0, 0);
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_DC_DIFF_FILTER), 0, 0);
    tw16(s, ECAT_FPWR, FP(0x1001, ESC_DC_SPEED_START), 100, 0);      /* slew 100 ns */
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 0), 0);
    /* 1000 ns behind local time: 0x092C = local ahead, 1000; one step of 100 */
    wr64(s, 0x1001, ESC_DC_SYS_TIME, 1 * MS - 1000, 1 * MS);
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 1 * MS), 0x80000000u | 1000);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYS_TIME, 1 * MS), 1 * MS - 100);
    /* 0x8000 | slew: bit 15 is not part of the step */
    tw16(s, ECAT_FPWR, FP(0x1001, ESC_DC_SPEED_START), 0x8000 | 300, 2 * MS);
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 2 * MS), 0);  /* reset */
    wr64(s, 0x1001, ESC_DC_SYS_TIME, 2 * MS - 100 - 1000, 2 * MS);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYS_TIME, 2 * MS), 2 * MS - 400);
    /* delay: a value that left the reference 500 ns before it got here */
    uint8_t d[4];
    put_le32(d, 500);
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_DC_SYS_DELAY), d, 4, 3 * MS);
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_DC_DIFF_FILTER), 0, 3 * MS);
    uint64_t sys = rd64(s, 0x1001, ESC_DC_SYS_TIME, 3 * MS);
    wr64(s, 0x1001, ESC_DC_SYS_TIME, sys - 500, 3 * MS);
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 3 * MS) & 0x7FFFFFFF, 0);
    assert_int_equal(rd64(s, 0x1001, ESC_DC_SYS_TIME, 3 * MS), sys);  /* nothing to step */
    /* IgH's 4-byte write compares the low 32 bits the same way */
    uint8_t lo[4];
    put_le32(lo, (uint32_t)(sys - 500 - 50));
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_DC_SYS_TIME), lo, 4, 3 * MS);
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 3 * MS), 0x80000000u | 50);
    /* filter depth 2: a quarter of each new difference */
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_DC_DIFF_FILTER), 2, 4 * MS);
    sys = rd64(s, 0x1001, ESC_DC_SYS_TIME, 4 * MS);
    wr64(s, 0x1001, ESC_DC_SYS_TIME, sys - 500 + 800, 4 * MS);      /* local 800 behind */
    assert_int_equal(rd32(s, 0x1001, ESC_DC_SYS_DIFF, 4 * MS), 200);
    takt_sim_destroy(s);
}

static void latch_only_on_write_0900(void **state)
{
    (void)state;
    /* the receive times are latched by a write to 0x0900 alone; reads and writes
     * elsewhere leave them (ETG.1000.4 distributed clocks, receive times) */
    struct takt_sim *s = tnet(2, false, true, NULL);
    takt_sim_set_clock(s, 0, 0, 0);
    uint8_t z[4] = { 0 };
    assert_int_equal(tdg(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), z, 4, 1 * MS), 2);
    uint32_t p0 = rd32(s, 0x1001, 0x0900, 2 * MS);
    assert_int_equal(tdg(s, ECAT_BRD, FP(0, ESC_DC_RECV_TIME0), z, 4, 3 * MS), 2);
    assert_int_equal(tdg(s, ECAT_BWR, FP(0, 0x0904), z, 4, 3 * MS), 2);
    assert_int_equal(rd32(s, 0x1001, 0x0900, 4 * MS), p0);
    /* IgH's 1-byte write at 0x0900 latches too */
    assert_int_equal(tw8(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), 0, 5 * MS), 2);
    assert_int_equal(rd32(s, 0x1001, 0x0900, 6 * MS) - p0, 4 * MS);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(latch_and_delays),
        cmocka_unit_test(non_dc_slave_does_not_count),
        cmocka_unit_test(system_time_and_offset),
        cmocka_unit_test(diff_sign_magnitude),
        cmocka_unit_test(drift_compensation_converges),
        cmocka_unit_test(sync0_next_pulse),
        cmocka_unit_test(delay_slew_filter),
        cmocka_unit_test(latch_only_on_write_0900),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
