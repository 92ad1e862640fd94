/* The core's distributed clocks (dc.c, struct ecat_dc) in their running state, driven
 * with synthetic replies and times: the FRMW of the reference clock's system time
 * (0x0910) and one slave's System Time Difference (0x092C) per cycle, as if the first
 * cyclic frame had come back. No link, no clock, no simulator: the test plays the
 * reference clock. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/core.h"
#include "util/wire.h"

#define CYC TAKT_NS_PER_MS

static struct ecat_core *dc_core(unsigned n)
{
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dc = true;
    o.dc_mode = TAKT_ECAT_DC_MASTER_FOLLOWS_REF;
    o.cycle_ns = CYC;
    o.max_slaves = 4;
    struct ecat_core *c = calloc(1, sizeof *c);
    char err[200];
    assert_int_equal(ecat_core_init(c, mac, "test", &o, 1, err, sizeof err), 0);
    c->n_slaves = n;
    for (unsigned i = 0; i < n; i++) {
        c->slaves[i].info.dc = true;
        c->slaves[i].info.present = true;
        c->slaves[i].info.al_state = AL_OP;
        c->slaves[i].info.station = (uint16_t)(0x1001 + i);
    }
    c->rec.present = n;
    c->dc.ref = 0;
    c->dc.active = true;
    c->dc.state = DC_RUN;
    c->dc.sync0_start = 1000 * TAKT_NS_PER_S;
    return c;
}

static void dc_free(struct ecat_core *c)
{
    ecat_core_free(c);
    free(c);
}

/* The first cyclic frame came back: the reference clock's time and one 0x092C reading
 * (wkc 0: the datagram found no slave). */
static void reply(struct ecat_core *c, uint64_t ref_time, int ref_wkc, uint32_t diff, int diff_wkc)
{
    put_le64(c->dc.mon_ref_buf, ref_time);
    c->dc.mon_ref.st = REQ_DONE;
    c->dc.mon_ref.wkc = ref_wkc;
    put_le32(c->dc.mon_diff_buf, diff);
    c->dc.mon_diff.st = REQ_DONE;
    c->dc.mon_diff.wkc = diff_wkc;
}

/* Master follows the reference: the frame should pass the reference clock half a cycle
 * before SYNC0. Starting 300 us off, the proposed shifts (each at most a twentieth of
 * a cycle) bring the phase within 1 us, and keep it there. */
static void test_master_follows_reference(void **state)
{
    (void)state;
    struct ecat_core *c = dc_core(2);
    int64_t off = 300 * 1000;            /* reference time - (master time of the frame) */
    takt_ns_t t = 5 * TAKT_NS_PER_S;
    uint64_t base = c->dc.sync0_start + CYC / 2;   /* on target: half a cycle before SYNC0 */
    int64_t worst_late = 0;
    for (int k = 0; k < 3000; k++) {
        uint64_t ref = base + (uint64_t)(t - 5 * TAKT_NS_PER_S) + (uint64_t)off;
        reply(c, ref, 1, 10, 1);
        ecat_dc_cycle(c, t);
        assert_true(c->dc.shift_ns <= CYC / 20 && c->dc.shift_ns >= -CYC / 20);
        assert_int_equal(c->dc.ref_time, ref);
        assert_int_equal(c->dc.ref_at, t);
        t += CYC + c->dc.shift_ns;          /* the driver moves its next cycle */
        c->dc.shift_ns = 0;
        if (k > 2000) {
            int64_t p = c->dc.phase_ns < 0 ? -c->dc.phase_ns : c->dc.phase_ns;
            if (p > worst_late)
                worst_late = p;
        }
    }
    printf("  phase after 2000 cycles within %lld ns\n", (long long)worst_late);
    assert_true(worst_late < 1000);
    dc_free(c);
}

/* A reference reply that did not come (wkc 0, or still in flight) proposes nothing and
 * leaves the last reading; the time may jump meanwhile (a frozen driver). */
static void test_no_reference_no_shift(void **state)
{
    (void)state;
    struct ecat_core *c = dc_core(2);
    takt_ns_t t = 5 * TAKT_NS_PER_S;
    reply(c, c->dc.sync0_start + 123, 1, 10, 1);
    ecat_dc_cycle(c, t);
    uint64_t last = c->dc.ref_time;
    c->dc.shift_ns = 0;
    reply(c, 42, 0, 10, 1);                  /* no slave answered the FRMW */
    ecat_dc_cycle(c, t + 5 * TAKT_NS_PER_S);
    assert_int_equal(c->dc.shift_ns, 0);
    assert_int_equal(c->dc.ref_time, last);
    assert_int_equal(c->dc.ref_at, t);
    c->dc.mon_ref.st = REQ_SENT;             /* not back */
    ecat_dc_cycle(c, t + 6 * TAKT_NS_PER_S);
    assert_int_equal(c->dc.shift_ns, 0);
    assert_int_equal(c->dc.ref_time, last);
    dc_free(c);
}

/* 0x092C, one DC slave per cycle in turn: the sync error of a round is the largest
 * sample; a single leap in one reading is no sample (the smaller of a slave's last
 * two readings counts), a saturated register counts invalid, and a real error shows a
 * round later. */
static void test_sync_error_rounds(void **state)
{
    (void)state;
    struct ecat_core *c = dc_core(2);
    takt_ns_t t = 5 * TAKT_NS_PER_S;
    uint64_t ref = c->dc.sync0_start;
    /* two rounds of steady 40 / 60 ns */
    for (int k = 0; k < 4; k++) {
        reply(c, ref += CYC, 1, c->dc.rr == 0 ? 40 : 60, 1);
        ecat_dc_cycle(c, t += CYC);
    }
    assert_int_equal(c->st.dc_sync_err_ns, 60);
    /* one flipped bit on slave 1's reading: no sample of it */
    for (int k = 0; k < 2; k++) {
        reply(c, ref += CYC, 1, c->dc.rr == 0 ? 40 : 0x40000000u, 1);
        ecat_dc_cycle(c, t += CYC);
    }
    assert_int_equal(c->st.dc_sync_err_ns, 60);
    for (int k = 0; k < 2; k++) {
        reply(c, ref += CYC, 1, c->dc.rr == 0 ? 40 : 60, 1);
        ecat_dc_cycle(c, t += CYC);
    }
    assert_int_equal(c->st.dc_sync_err_ns, 60);
    /* saturated: invalid, not an error of 2 s */
    uint64_t inv = c->st.dc_sync_invalid;
    for (int k = 0; k < 2; k++) {
        reply(c, ref += CYC, 1, c->dc.rr == 0 ? 40 : 0x7FFFFFFFu, 1);
        ecat_dc_cycle(c, t += CYC);
    }
    assert_int_equal(c->st.dc_sync_invalid, inv + 1);
    assert_true(c->st.dc_sync_err_ns < 1000);
    /* a real error of 5 us on slave 0, every reading from now on: seen within two rounds */
    for (int k = 0; k < 6; k++) {
        reply(c, ref += CYC, 1, c->dc.rr == 0 ? 5000 : 60, 1);
        ecat_dc_cycle(c, t += CYC);
    }
    assert_int_equal(c->st.dc_sync_err_ns, 5000);
    dc_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_master_follows_reference),
        cmocka_unit_test(test_no_reference_no_shift),
        cmocka_unit_test(test_sync_error_rounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
