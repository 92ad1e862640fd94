/* Software ESC: AL state machine (ETG.1000.6 6.4 ESM) - the checks on each transition, status
 * codes with the error flag held until acknowledged, refusals, SM watchdog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "esc_testdev.h"

#define ST 0x1001
#define MS 1000000LL

static uint16_t req(struct takt_sim *s, uint16_t v, takt_ns_t now)
{
    tw16(s, ECAT_FPWR, FP(ST, ESC_AL_CONTROL), v, now);
    return tr16(s, ST, ESC_AL_STATUS, now);
}

static uint16_t code(struct takt_sim *s, takt_ns_t now) { return tr16(s, ST, ESC_AL_STATUS_CODE, now); }

static void mbx(struct takt_sim *s)
{
    tsm(s, ST, 0, 0x1000, 128, 0x26, 1, 10);
    tsm(s, ST, 1, 0x1080, 128, 0x22, 1, 10);
}

static void pd(struct takt_sim *s, uint16_t out_len, uint16_t in_len, bool fmmus)
{
    tsm(s, ST, 2, 0x1100, out_len, 0x64, 1, 10);
    tsm(s, ST, 3, 0x1180, in_len, 0x20, 1, 10);
    if (fmmus) {
        tfmmu(s, ST, 0, 0x0, 2, 0, 7, 0x1100, 0, ESC_FMMU_W, 10);
        tfmmu(s, ST, 1, 0x2, 2, 0, 7, 0x1180, 0, ESC_FMMU_R, 10);
    }
}

static void init_to_preop_needs_mailbox(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    assert_int_equal(req(s, AL_PREOP, 10), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 10), 0x0016);
    mbx(s);
    /* the error must be acknowledged before going up */
    assert_int_equal(req(s, AL_PREOP, 20), AL_INIT | AL_ERROR);
    assert_int_equal(req(s, AL_PREOP | AL_ACK, 30), AL_PREOP);
    assert_int_equal(code(s, 30), 0);
    /* wrong direction on SM1 */
    assert_int_equal(req(s, AL_INIT, 40), AL_INIT);
    tsm(s, ST, 1, 0x1080, 128, 0x26, 1, 50);
    tsm(s, ST, 1, 0x1080, 128, 0x26, 0, 50);
    tsm(s, ST, 1, 0x1080, 128, 0x26, 1, 50);
    assert_int_equal(req(s, AL_PREOP, 60), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 60), 0x0016);
    takt_sim_destroy(s);
}

static void invalid_and_unknown(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    assert_int_equal(req(s, AL_OP, 10), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 10), 0x0011);
    assert_int_equal(req(s, AL_SAFEOP | AL_ACK, 20), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 20), 0x0011);
    assert_int_equal(req(s, 0x05 | AL_ACK, 30), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 30), 0x0012);
    /* BOOT needs a bootstrap mailbox in the SII (words 0x14-0x17; the test device has
     * none: no FoE) and SM0/SM1 set to exactly that mailbox */
    struct sim_esc *e = &s->sl[0].esc;
    assert_int_equal(get_le16(e->sii + 2 * SII_W_BOOT_RX_SIZE), 0);
    assert_int_equal(req(s, AL_BOOT | AL_ACK, 40), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 40), 0x0013);
    static const uint16_t boot[4] = { 0x1000, 0x80, 0x1080, 0x80 };
    for (unsigned i = 0; i < 4; i++)
        put_le16(e->sii + 2 * (SII_W_BOOT_RX_OFF + i), boot[i]);
    assert_int_equal(req(s, AL_BOOT | AL_ACK, 42), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 42), 0x0015);              /* no mailbox SMs */
    tsm(s, ST, 0, 0x1000, 64, 0x26, 1, 43);             /* SM0 shorter than the SII says */
    tsm(s, ST, 1, 0x1080, 128, 0x22, 1, 43);
    assert_int_equal(req(s, AL_BOOT | AL_ACK, 44), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 44), 0x0015);
    tsm(s, ST, 0, 0x1000, 64, 0x26, 0, 44);
    mbx(s);
    assert_int_equal(req(s, AL_BOOT | AL_ACK, 45), AL_BOOT);
    assert_int_equal(req(s, AL_PREOP, 46), AL_BOOT | AL_ERROR);   /* BOOT -> INIT only */
    assert_int_equal(code(s, 46), 0x0011);
    for (unsigned i = 0; i < 4; i++)
        put_le16(e->sii + 2 * (SII_W_BOOT_RX_OFF + i), 0);
    assert_int_equal(req(s, AL_INIT | AL_ACK, 50), AL_INIT);
    assert_int_equal(code(s, 50), 0);
    takt_sim_destroy(s);
}

static void preop_to_safeop_checks(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    mbx(s);
    assert_int_equal(req(s, AL_PREOP, 10), AL_PREOP);
    assert_int_equal(req(s, AL_SAFEOP, 20), AL_PREOP | AL_ERROR);
    assert_int_equal(code(s, 20), 0x001D);                 /* no output SM */
    pd(s, 2, 1, false);
    assert_int_equal(req(s, AL_SAFEOP | AL_ACK, 30), AL_PREOP | AL_ERROR);
    assert_int_equal(code(s, 30), 0x001D);                 /* no output FMMU */
    tfmmu(s, ST, 0, 0x0, 2, 0, 7, 0x1100, 0, ESC_FMMU_W, 40);
    assert_int_equal(req(s, AL_SAFEOP | AL_ACK, 40), AL_PREOP | AL_ERROR);
    assert_int_equal(code(s, 40), 0x001E);                 /* input SM 1 byte, device 2 */
    tsm(s, ST, 3, 0x1180, 2, 0x20, 0, 50);
    tsm(s, ST, 3, 0x1180, 2, 0x20, 1, 50);
    tfmmu(s, ST, 1, 0x2, 2, 0, 7, 0x1180, 0, ESC_FMMU_R, 50);
    assert_int_equal(req(s, AL_SAFEOP | AL_ACK, 60), AL_SAFEOP);
    assert_int_equal(req(s, AL_OP, 70), AL_OP);
    /* OP -> PREOP and -> INIT are allowed downward steps */
    assert_int_equal(req(s, AL_PREOP, 80), AL_PREOP);
    assert_int_equal(req(s, AL_INIT, 90), AL_INIT);
    takt_sim_destroy(s);
}

static void dc_required(void **state)
{
    (void)state;
    struct tdev *t = tdev_new(true, true, true);
    struct sim_device *d = &t->base;
    struct takt_sim *s;
    assert_int_equal(takt_sim_create_devices(&d, 1, NULL, &s), 0);
    tw16(s, ECAT_APWR, FP(0, ESC_STATION_ADDR), ST, 1);
    mbx(s);
    pd(s, 2, 2, true);
    assert_int_equal(req(s, AL_PREOP, 10), AL_PREOP);
    assert_int_equal(req(s, AL_SAFEOP, 20), AL_PREOP | AL_ERROR);
    assert_int_equal(code(s, 20), 0x0030);
    uint8_t cyc[4];
    put_le32(cyc, 1000000);
    tdg(s, ECAT_FPWR, FP(ST, ESC_DC_SYNC0_CYCLE), cyc, 4, 30);
    tw8(s, ECAT_FPWR, FP(ST, ESC_DC_ACTIVATION), 0x03, 30);
    assert_int_equal(req(s, AL_SAFEOP | AL_ACK, 40), AL_SAFEOP);
    takt_sim_destroy(s);
}

static void device_and_fault_refusals(void **state)
{
    (void)state;
    struct tdev *d[1];
    struct takt_sim *s = tnet(1, true, false, d);
    mbx(s);
    d[0]->refuse = 0x0024;
    assert_int_equal(req(s, AL_PREOP, 10), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 10), 0x0024);
    d[0]->refuse = 0;
    assert_int_equal(req(s, AL_PREOP | AL_ACK, 20), AL_PREOP);
    char err[128];
    assert_int_equal(takt_sim_fault(s, "refuse=0:safeop=0x001A", err, sizeof err), 0);
    pd(s, 2, 2, true);
    assert_int_equal(req(s, AL_SAFEOP, 30), AL_PREOP | AL_ERROR);
    assert_int_equal(code(s, 30), 0x001A);
    /* bad specs say what was expected */
    assert_int_not_equal(takt_sim_fault(s, "refuse=0:running=0x1", err, sizeof err), 0);
    assert_non_null(strstr(err, "init/preop/boot/safeop/op"));
    assert_int_not_equal(takt_sim_fault(s, "refuse=8:op=0x1", err, sizeof err), 0);
    takt_sim_destroy(s);
}

static void watchdog(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    mbx(s);
    pd(s, 2, 2, true);
    req(s, AL_PREOP, 0);
    req(s, AL_SAFEOP, 0);
    assert_int_equal(req(s, AL_OP, 0), AL_OP);
    uint8_t img[4] = { 0 };
    /* outputs every 10 ms keep OP */
    for (int i = 1; i <= 30; i++)
        assert_int_equal(tdg(s, ECAT_LRW, 0, img, 4, i * 10 * MS), 3);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 300 * MS), AL_OP);
    /* inputs only (no output write) for more than 100 ms: SAFEOP + ERROR, 0x001B */
    for (int i = 31; i <= 45; i++)
        tdg(s, ECAT_LRD, 2, img + 2, 2, i * 10 * MS);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 450 * MS), AL_SAFEOP | AL_ERROR);
    assert_int_equal(code(s, 450 * MS), 0x001B);
    uint8_t cnt = 0;
    tdg(s, ECAT_FPRD, FP(ST, ESC_WD_COUNTER_PD), &cnt, 1, 450 * MS);
    assert_int_equal(cnt, 1);
    /* ack and back to OP; then the timer alone (no frames) trips it */
    assert_int_equal(req(s, AL_SAFEOP | AL_ACK, 460 * MS), AL_SAFEOP);
    assert_int_equal(req(s, AL_OP, 460 * MS), AL_OP);
    takt_sim_tick(s, 500 * MS);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 500 * MS), AL_OP);
    takt_sim_tick(s, 600 * MS);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 600 * MS), AL_SAFEOP | AL_ERROR);
    /* a shorter watchdog: 0x0420 = 100 -> 10 ms */
    req(s, AL_SAFEOP | AL_ACK, 700 * MS);
    tw16(s, ECAT_FPWR, FP(ST, ESC_WD_TIME_PD), 100, 700 * MS);
    assert_int_equal(req(s, AL_OP, 700 * MS), AL_OP);
    takt_sim_tick(s, 709 * MS);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 709 * MS), AL_OP);
    takt_sim_tick(s, 711 * MS);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 711 * MS), AL_SAFEOP | AL_ERROR);
    takt_sim_destroy(s);
}

static void id_request(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    put_le16(s->sl[0].esc.mem + ESC_STATION_ALIAS, 0x0777);
    assert_int_equal(req(s, AL_INIT | AL_ID_REQ, 10), AL_INIT | AL_ID_REQ);
    assert_int_equal(code(s, 10), 0x0777);
    assert_int_equal(req(s, AL_INIT, 20), AL_INIT);
    assert_int_equal(code(s, 20), 0);
    takt_sim_destroy(s);
}

static void device_emulation(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, false, false, NULL);
    s->sl[0].esc.mem[ESC_ESC_CONFIG] |= 0x01;
    /* no firmware: AL status mirrors AL control, no checks */
    assert_int_equal(req(s, AL_SAFEOP, 10), AL_SAFEOP);
    assert_int_equal(req(s, AL_OP | AL_ACK, 10), AL_OP);
    /* an injected refusal holds even without firmware */
    char err[128];
    assert_int_equal(takt_sim_fault(s, "refuse=0:preop=0x0024", err, sizeof err), 0);
    assert_int_equal(req(s, AL_PREOP, 20), AL_OP | AL_ERROR);
    assert_int_equal(code(s, 20), 0x0024);
    assert_int_equal(req(s, AL_INIT, 30), AL_INIT);
    takt_sim_destroy(s);
}

/* Bring the slave from INIT to `to` the allowed way (BOOT: from INIT). */
static void go(struct takt_sim *s, uint8_t to, takt_ns_t now)
{
    static const uint8_t path[] = { AL_PREOP, AL_SAFEOP, AL_OP };
    assert_int_equal(req(s, AL_INIT | AL_ACK, now), AL_INIT);
    if (to == AL_BOOT) {
        assert_int_equal(req(s, AL_BOOT, now), AL_BOOT);
        return;
    }
    for (unsigned i = 0; i < 3 && to != AL_INIT; i++) {
        assert_int_equal(req(s, path[i], now), path[i]);
        if (path[i] == to)
            break;
    }
}

static void transition_table(void **state)
{
    (void)state;
    /* every requested state from every state (ETG.1000.6 Table 8; SOEM's
     * transition names IP PI PS SP SO OS OP SI OI IB BI II PP SS): allowed ones
     * reach the state with no error, the others stay with ERROR and 0x0011 */
    static const uint8_t st[] = { AL_INIT, AL_PREOP, AL_BOOT, AL_SAFEOP, AL_OP };
    static const bool ok[5][5] = {
        /* to:  INIT   PREOP  BOOT   SAFEOP OP */
        [0] = { true,  true,  true,  false, false },   /* from INIT */
        [1] = { true,  true,  false, true,  false },   /* from PREOP */
        [2] = { true,  false, true,  false, false },   /* from BOOT */
        [3] = { true,  true,  false, true,  true  },   /* from SAFEOP */
        [4] = { true,  true,  false, true,  true  },   /* from OP */
    };
    struct takt_sim *s = tnet(1, true, false, NULL);
    struct sim_esc *e = &s->sl[0].esc;
    /* a bootstrap mailbox in the SII where the standard one is, so BOOT is possible */
    static const uint16_t boot[4] = { 0x1000, 0x80, 0x1080, 0x80 };
    for (unsigned i = 0; i < 4; i++)
        put_le16(e->sii + 2 * (SII_W_BOOT_RX_OFF + i), boot[i]);
    mbx(s);
    pd(s, 2, 2, true);
    takt_ns_t now = 100;
    for (unsigned f = 0; f < 5; f++) {
        for (unsigned t = 0; t < 5; t++) {
            go(s, st[f], now);
            uint16_t got = req(s, st[t], now);
            uint16_t want = ok[f][t] ? st[t] : (uint16_t)(st[f] | AL_ERROR);
            if (got != want)
                fail_msg("0x%02X -> 0x%02X: AL status 0x%04X, expected 0x%04X", st[f], st[t], got, want);
            assert_int_equal(code(s, now), ok[f][t] ? 0 : 0x0011);
            now += 1000;
        }
    }
    takt_sim_destroy(s);
}

static void down_steps_close_sms(void **state)
{
    (void)state;
    /* going down the PDI closes what the new state does not allow: process-data SMs
     * below SAFEOP, mailbox SMs in INIT (0x0807 bit 0); outputs stop counting */
    struct takt_sim *s = tnet(1, true, false, NULL);
    mbx(s);
    pd(s, 2, 2, true);
    go(s, AL_OP, 10);
    uint8_t img[4] = { 0 }, pdi = 0;
    assert_int_equal(tdg(s, ECAT_LRW, 0, img, 4, 20), 3);
    assert_int_equal(req(s, AL_SAFEOP, 30), AL_SAFEOP);
    assert_int_equal(tdg(s, ECAT_LRW, 0, img, 4, 40), 3);   /* SAFEOP: SMs still open */
    assert_int_equal(req(s, AL_PREOP, 50), AL_PREOP);
    assert_int_equal(tdg(s, ECAT_LRW, 0, img, 4, 60), 0);
    tdg(s, ECAT_FPRD, FP(ST, ESC_SM0 + 8 * 2 + 7), &pdi, 1, 60);
    assert_int_equal(pdi & 1, 1);
    tdg(s, ECAT_FPRD, FP(ST, ESC_SM0 + 7), &pdi, 1, 60);
    assert_int_equal(pdi & 1, 0);                            /* mailbox open in PREOP */
    assert_int_equal(req(s, AL_INIT, 70), AL_INIT);
    tdg(s, ECAT_FPRD, FP(ST, ESC_SM0 + 7), &pdi, 1, 70);
    assert_int_equal(pdi & 1, 1);
    takt_sim_destroy(s);
}

static void error_flag_going_down(void **state)
{
    (void)state;
    /* with the error flag set a request for a lower state is executed and the flag
     * stays; only the acknowledge clears it (ETG.1000.6 6.4 ESM) */
    struct takt_sim *s = tnet(1, true, false, NULL);
    mbx(s);
    assert_int_equal(req(s, AL_PREOP, 10), AL_PREOP);
    assert_int_equal(req(s, AL_SAFEOP, 20), AL_PREOP | AL_ERROR);   /* no PD SMs */
    assert_int_equal(code(s, 20), 0x001D);
    assert_int_equal(req(s, AL_INIT, 30), AL_INIT | AL_ERROR);
    assert_int_equal(code(s, 30), 0x001D);
    assert_int_equal(req(s, AL_PREOP, 40), AL_INIT | AL_ERROR);     /* up: ignored */
    assert_int_equal(req(s, AL_INIT | AL_ACK, 50), AL_INIT);
    assert_int_equal(code(s, 50), 0);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(init_to_preop_needs_mailbox),
        cmocka_unit_test(invalid_and_unknown),
        cmocka_unit_test(preop_to_safeop_checks),
        cmocka_unit_test(dc_required),
        cmocka_unit_test(device_and_fault_refusals),
        cmocka_unit_test(watchdog),
        cmocka_unit_test(id_request),
        cmocka_unit_test(device_emulation),
        cmocka_unit_test(transition_table),
        cmocka_unit_test(down_steps_close_sms),
        cmocka_unit_test(error_flag_going_down),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
