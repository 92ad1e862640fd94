/* The register sequences of independent masters (SOEM scan, ethercrab
 * reset, IgH's SII and DC widths) replayed against catalogue devices: every access
 * they rely on must execute with the WKC they expect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include "esc_testdev.h"

#define MS 1000000LL
static const char *const DEVS = "ek1100,el1004,el2004,el3102,servo";
#define N 5

static struct takt_sim *make(void)
{
    struct takt_sim *s = NULL;
    char err[256];
    if (takt_sim_create(DEVS, NULL, &s, err, sizeof err)) {
        print_message("%s\n", err);
        return NULL;
    }
    return s;
}

static int bw(struct takt_sim *s, uint16_t ado, const void *d, uint16_t len, takt_ns_t now)
{
    uint8_t b[64];
    memcpy(b, d, len);
    return tdg(s, ECAT_BWR, FP(0, ado), b, len, now);
}

static void soem_scan(void **state)
{
    (void)state;
    struct takt_sim *s = make();
    assert_non_null(s);
    takt_ns_t t = MS;
    uint8_t z[64] = { 0 };
    assert_int_equal(bw(s, 0x0103, z, 1, t), N);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_AL_CONTROL), AL_INIT | AL_ACK, t), N);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_AL_CONTROL), AL_INIT | AL_ACK, t), N);
    uint8_t b[2] = { 0 };
    assert_int_equal(tdg(s, ECAT_BRD, 0, b, 2, t), N);
    assert_int_equal(bw(s, 0x0101, z, 1, t), N);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, 0x0200), 0x0004, t), N);
    assert_int_equal(bw(s, 0x0300, z, 8, t), N);
    assert_int_equal(bw(s, ESC_FMMU0, z, 48, t), N);
    assert_int_equal(bw(s, ESC_SM0, z, 32, t), N);
    /* DC registers: only the DC-capable slaves count */
    int dc = bw(s, ESC_DC_ACTIVATION, z, 1, t);
    assert_true(dc >= 1 && dc <= N);
    assert_int_equal(bw(s, ESC_DC_SYS_TIME, z, 4, t), dc);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_DC_SPEED_START), 0x1000, t), dc);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_DC_DIFF_FILTER), 0x0C00, t), dc);
    assert_int_equal(tw8(s, ECAT_BWR, FP(0, ESC_SII_CONFIG), 2, t), N);
    assert_int_equal(tw8(s, ECAT_BWR, FP(0, ESC_SII_CONFIG), 0, t), N);
    for (unsigned k = 0; k < N; k++) {
        uint16_t adp = (uint16_t)-(int)k, st = (uint16_t)(0x1001 + k);
        uint8_t pdi = 0;
        assert_int_equal(tdg(s, ECAT_APRD, FP(adp, ESC_PDI_CONTROL), &pdi, 1, t), 1);
        assert_int_equal(tw16(s, ECAT_APWR, FP(adp, ESC_STATION_ADDR), st, t), 1);
        if (k == 0)
            assert_int_equal(tw8(s, ECAT_APWR, FP(adp, ESC_DL_CONTROL), 1, t), 1);
        uint8_t w[8];
        assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_STATION_ALIAS), w, 2, t), 1);
        assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_SII_CTRL), w, 2, t), 1);
        /* SII words the scan needs: command + address as one 6-byte write */
        static const uint16_t words[] = { 0x08, 0x0A, 0x0C, 0x0E, 0x18, 0x1A, 0x1C };
        for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) {
            uint8_t c[6];
            put_le16(c, SII_CMD_READ);
            put_le32(c + 2, words[i]);
            assert_int_equal(tdg(s, ECAT_FPWR, FP(st, ESC_SII_CTRL), c, 6, t), 1);
            assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_SII_CTRL), w, 2, t), 1);
            assert_int_equal(get_le16(w) & (SII_BUSY | SII_ERR_ACK), 0);
            assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_SII_DATA), w, 8, t), 1);
            if (words[i] == 0x08)
                assert_int_equal(get_le32(w), s->sl[k].dev->desc->vendor);
        }
        assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_FEATURES), w, 2, t), 1);
        assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_DL_STATUS), w, 2, t), 1);
        assert_int_equal((get_le16(w) >> 8) & 3, 2);      /* port 0: comm, open */
        assert_int_equal(tdg(s, ECAT_FPRD, FP(st, ESC_PORT_DESC), w, 1, t), 1);
    }
    /* SM0 + SM1 in one 16-byte FPWR for the mailbox slaves, then PREOP|ACK */
    for (unsigned k = 0; k < N; k++) {
        const struct sim_device_desc *d = s->sl[k].dev->desc;
        uint16_t st = (uint16_t)(0x1001 + k);
        if (d->sm[0].type == SIM_SM_MBX_OUT) {
            uint8_t r[16] = { 0 };
            put_le16(r, d->sm[0].start);
            put_le16(r + 2, d->sm[0].len);
            r[4] = 0x26;
            r[6] = 1;
            put_le16(r + 8, d->sm[1].start);
            put_le16(r + 10, d->sm[1].len);
            r[12] = 0x22;
            r[14] = 1;
            assert_int_equal(tdg(s, ECAT_FPWR, FP(st, ESC_SM0), r, 16, t), 1);
        }
        assert_int_equal(tw16(s, ECAT_FPWR, FP(st, ESC_AL_CONTROL), AL_PREOP | AL_ACK, t), 1);
        assert_int_equal(tr16(s, st, ESC_AL_STATUS, t), AL_PREOP);
    }
    takt_sim_destroy(s);
}

static void ethercrab_reset(void **state)
{
    (void)state;
    struct takt_sim *s = make();
    assert_non_null(s);
    takt_ns_t t = MS;
    uint8_t z[16] = { 0 };
    /* FMMU 0..15 and SM 0..15 blanked one at a time, also beyond what the ESC has */
    for (unsigned i = 0; i < 16; i++) {
        assert_int_equal(bw(s, (uint16_t)(ESC_FMMU0 + 16 * i), z, 16, t), N);
        assert_int_equal(bw(s, (uint16_t)(ESC_SM0 + 8 * i), z, 8, t), N);
    }
    int dc = bw(s, ESC_DC_SYS_TIME, z, 8, t);
    assert_true(dc >= 1);
    assert_int_equal(bw(s, ESC_DC_SYS_OFFSET, z, 8, t), dc);
    assert_int_equal(bw(s, ESC_DC_SYS_DELAY, z, 4, t), dc);
    assert_int_equal(bw(s, ESC_DC_SYS_DIFF, z, 4, t), dc);
    assert_int_equal(bw(s, ESC_DC_ACTIVATION, z, 1, t), dc);
    assert_int_equal(bw(s, ESC_DC_SYNC0_START, z, 8, t), dc);
    assert_int_equal(bw(s, ESC_DC_SYNC0_CYCLE, z, 8, t), dc);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_DC_DIFF_FILTER), 0x0C00, t), dc);
    assert_int_equal(tw16(s, ECAT_BWR, FP(0, ESC_DC_SPEED_START), 0x1000, t), dc);
    /* DC latch: WKC = DC-capable slaves (ethercrab checks it) */
    assert_int_equal(bw(s, ESC_DC_RECV_TIME0, z, 4, t), dc);
    takt_sim_destroy(s);
}

/* IgH: 4-byte SII command+address write, 1-byte BWR 0x0900, 24-byte FPRD from
 * 0x0910, 12-byte offset+delay write, 4-byte FRMW 0x0910, BRD 0x092C monitoring. */
static void igh_widths_and_dc(void **state)
{
    (void)state;
    struct takt_sim *s = make();
    assert_non_null(s);
    takt_ns_t t = MS;
    for (unsigned k = 0; k < N; k++)
        tw16(s, ECAT_APWR, FP((uint16_t)-(int)k, ESC_STATION_ADDR), (uint16_t)(k + 1), t);
    uint8_t c[4], w[24];
    put_le16(c, SII_CMD_READ);
    put_le16(c + 2, SII_W_PRODUCT);
    assert_int_equal(tdg(s, ECAT_FPWR, FP(5, ESC_SII_CTRL), c, 4, t), 1);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(5, ESC_SII_DATA), w, 4, t), 1);
    assert_int_equal(get_le32(w), s->sl[4].dev->desc->product);
    /* which slaves have DC, and the first of them is the reference */
    int ref = -1;
    unsigned ndc = 0;
    for (unsigned k = 0; k < N; k++)
        if (s->sl[k].esc.dc.present) {
            ndc++;
            if (ref < 0)
                ref = (int)k;
        }
    assert_true(ref >= 0 && ndc >= 2);
    assert_int_equal(tw8(s, ECAT_BWR, FP(0, ESC_DC_RECV_TIME0), 0, t), ndc);
    uint64_t app = 5000000000ull;
    for (unsigned k = 0; k < N; k++) {
        if (!s->sl[k].esc.dc.present)
            continue;
        assert_int_equal(tdg(s, ECAT_FPRD, FP(k + 1, ESC_DC_SYS_TIME), w, 24, t), 1);
        uint64_t pu = get_le64(w + 8);
        uint8_t od[12];
        put_le64(od, app - pu);
        put_le32(od + 8, (uint32_t)((k - (unsigned)ref) * s->opt.fwd_delay_ns));
        assert_int_equal(tdg(s, ECAT_FPWR, FP(k + 1, ESC_DC_SYS_OFFSET), od, 12, t), 1);
    }
    for (int i = 0; i < 3000; i++) {
        t += MS;
        uint8_t v[4] = { 0 };
        assert_int_equal(tdg(s, ECAT_FRMW, FP(ref + 1, ESC_DC_SYS_TIME), v, 4, t), (int)ndc);
    }
    uint8_t d[4] = { 0 };
    assert_int_equal(tdg(s, ECAT_BRD, FP(0, ESC_DC_SYS_DIFF), d, 4, t), ndc);
    /* OR of all sign-magnitude differences: small magnitudes only */
    assert_true((get_le32(d) & 0x7FFFFFFF) < 64);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(soem_scan),
        cmocka_unit_test(ethercrab_reset),
        cmocka_unit_test(igh_widths_and_dc),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
