/* Software ESC: SyncManagers and FMMUs (ETG.1000.4 SyncManager and FMMU) - mailbox full/empty rules and the
 * hand-over to the device, repeat, 3-buffer outputs, FMMU bit mapping, LRW WKC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "esc_testdev.h"

#define MBX_W 0x1000
#define MBX_R 0x1080

static struct takt_sim *preop(unsigned n, struct tdev **d)
{
    struct takt_sim *s = tnet(n, true, false, d);
    for (unsigned i = 0; i < n; i++) {
        uint16_t st = (uint16_t)(0x1001 + i);
        tsm(s, st, 0, MBX_W, 128, 0x26, 1, 100);
        tsm(s, st, 1, MBX_R, 128, 0x22, 1, 100);
        tw16(s, ECAT_FPWR, FP(st, ESC_AL_CONTROL), AL_PREOP, 100);
        assert_int_equal(tr16(s, st, ESC_AL_STATUS, 100), AL_PREOP);
    }
    return s;
}

static int mbx_send(struct takt_sim *s, uint16_t st, uint8_t tag, takt_ns_t now)
{
    uint8_t m[128] = { 0 };
    put_le16(m, 10);
    m[5] = MBX_TYPE_COE | 1 << 4;
    m[6] = tag;
    return tdg(s, ECAT_FPWR, FP(st, MBX_W), m, 128, now);
}

static void mailbox_in_init_not_reachable(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    tsm(s, 0x1001, 0, MBX_W, 128, 0x26, 1, 100);
    tsm(s, 0x1001, 1, MBX_R, 128, 0x22, 1, 100);
    /* INIT: the PDI keeps mailbox SMs deactivated (0x0807 bit 0) */
    assert_int_equal(mbx_send(s, 0x1001, 1, 200), 0);
    uint8_t pdi = 0;
    tdg(s, ECAT_FPRD, FP(0x1001, 0x0807), &pdi, 1, 200);
    assert_int_equal(pdi & 1, 1);
    takt_sim_destroy(s);
}

/* ETG.1000.6 5.3: a master that wrote again because the reply to its write was lost
 * sends the same message with the same counter; the slave serves it once. The same
 * counter with other bytes is served (a new message from a master that does not count). */
static void mailbox_repeated_write_served_once(void **state)
{
    (void)state;
    struct tdev *d[1];
    struct takt_sim *s = preop(1, d);
    uint8_t r[128];
    assert_int_equal(mbx_send(s, 0x1001, 0x21, 200), 1);
    assert_int_equal(d[0]->n_mbx, 1);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 300), 1);
    assert_int_equal(mbx_send(s, 0x1001, 0x21, 400), 1);      /* the copy: taken, not served */
    assert_int_equal(d[0]->n_mbx, 1);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 500), 0);   /* no second reply */
    assert_int_equal(mbx_send(s, 0x1001, 0x22, 600), 1);      /* same counter, other bytes */
    assert_int_equal(d[0]->n_mbx, 2);
    takt_sim_destroy(s);
}

static void mailbox_roundtrip_and_rules(void **state)
{
    (void)state;
    struct tdev *d[1];
    struct takt_sim *s = preop(1, d);
    uint8_t r[128];
    /* empty read mailbox: not executed, not counted */
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 200), 0);
    /* write: full until the PDI takes it at the end of the frame */
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[600], m[128] = { 0 };
    put_le16(m, 10);
    m[5] = MBX_TYPE_COE | 1 << 4;
    m[6] = 0x42;
    size_t pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 0, FP(0x1001, MBX_W), 128, m);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 1, FP(0x1001, MBX_W), 128, m);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPRD, 2, FP(0x1001, 0x0805), 1, NULL);
    size_t len = ecat_frame_end(buf, pos);
    assert_int_equal(takt_sim_process(s, buf, len, sizeof buf, 300, NULL), len);
    struct ecat_dg dg;
    ecat_frame_first(buf, len, &dg, &pos);
    assert_int_equal(get_le16(dg.wkc), 1);
    ecat_frame_next(buf, len, &dg, &pos);
    assert_int_equal(get_le16(dg.wkc), 0);          /* second write: mailbox full */
    ecat_frame_next(buf, len, &dg, &pos);
    assert_int_equal(dg.data[0] & 0x08, 0x08);      /* SM0 status: full */
    assert_int_equal(d[0]->n_mbx, 1);
    /* SM1 now full with the reply; read it, the last byte empties it */
    uint8_t st = 0;
    tdg(s, ECAT_FPRD, FP(0x1001, 0x080D), &st, 1, 400);
    assert_int_equal(st & 0x08, 0x08);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 400), 1);
    assert_int_equal(r[6], 0x42 ^ 0xFF);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 500), 0);
    /* a partial read (not the last byte) leaves it full */
    d[0]->pending = 1;
    takt_sim_tick(s, 600);
    mbx_send(s, 0x1001, 0x10, 600);   /* device reply + 1 queued */
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 16, 700), 1);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 700), 1);
    assert_int_equal(r[6], 0x10 ^ 0xFF);
    /* the queued reply follows once the mailbox emptied */
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 800), 1);
    assert_int_equal(r[6], 0xEE);
    takt_sim_destroy(s);
}

static void mailbox_full_on_last_byte(void **state)
{
    (void)state;
    /* the write mailbox is full (and handed over) only when its last byte is
     * written; a write that stops short leaves it open for the rest (ETG.1000.4 SyncManager) */
    struct tdev *d[1];
    struct takt_sim *s = preop(1, d);
    uint8_t m[128] = { 0 }, st = 0;
    put_le16(m, 10);
    m[5] = MBX_TYPE_COE | 1 << 4;
    m[6] = 0x5C;
    assert_int_equal(tdg(s, ECAT_FPWR, FP(0x1001, MBX_W), m, 16, 200), 1);
    tdg(s, ECAT_FPRD, FP(0x1001, 0x0805), &st, 1, 210);
    assert_int_equal(st & 0x08, 0);
    assert_int_equal(d[0]->n_mbx, 0);
    assert_int_equal(tdg(s, ECAT_FPWR, FP(0x1001, MBX_W + 16), m + 16, 112, 220), 1);
    assert_int_equal(d[0]->n_mbx, 1);
    uint8_t r[128];
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 230), 1);
    assert_int_equal(r[6], 0x5C ^ 0xFF);
    takt_sim_destroy(s);
}

static void mailbox_repeat(void **state)
{
    (void)state;
    struct takt_sim *s = preop(1, NULL);
    uint8_t r[128];
    mbx_send(s, 0x1001, 0x33, 200);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 300), 1);
    /* lost: toggle the repeat request (0x080E bit 1) like SOEM (2 bytes at 0x080D) */
    uint8_t b[2] = { 0, 0x03 };
    tdg(s, ECAT_FPWR, FP(0x1001, 0x080D), b, 2, 400);
    uint8_t pdi = 0;
    tdg(s, ECAT_FPRD, FP(0x1001, 0x080F), &pdi, 1, 500);
    assert_int_equal(pdi & 0x02, 0x02);             /* acknowledged */
    memset(r, 0, sizeof r);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, MBX_R), r, 128, 600), 1);
    assert_int_equal(r[6], 0x33 ^ 0xFF);
    takt_sim_destroy(s);
}

static void sm_locked_while_enabled(void **state)
{
    (void)state;
    struct takt_sim *s = preop(1, NULL);
    tsm(s, 0x1001, 0, 0x1400, 64, 0x26, 1, 200);    /* ignored: SM0 enabled */
    assert_int_equal(tr16(s, 0x1001, 0x0800, 200), MBX_W);
    tsm(s, 0x1001, 0, 0x1400, 64, 0x26, 0, 200);    /* disables, start still locked */
    assert_int_equal(tr16(s, 0x1001, 0x0800, 200), MBX_W);
    tsm(s, 0x1001, 0, 0x1400, 64, 0x26, 0, 200);    /* now disabled: accepted */
    assert_int_equal(tr16(s, 0x1001, 0x0800, 200), 0x1400);
    takt_sim_destroy(s);
}

/* Two slaves to OP with SOEM-like bit mapping: each has 2 output bytes and 2 input
 * bytes; slave 1 outputs at logical 0x0, slave 2 at logical bit 4 of byte 1... */
static struct takt_sim *op2(struct tdev **d)
{
    struct takt_sim *s = preop(2, d);
    for (unsigned i = 0; i < 2; i++) {
        uint16_t st = (uint16_t)(0x1001 + i);
        tsm(s, st, 2, 0x1100, 2, 0x64, 1, 200);
        tsm(s, st, 3, 0x1180, 2, 0x20, 1, 200);
    }
    /* slave 1: outputs logical 0x10000.0 .. 0x10001.7, inputs 0x10004.. */
    tfmmu(s, 0x1001, 0, 0x10000, 2, 0, 7, 0x1100, 0, ESC_FMMU_W, 200);
    tfmmu(s, 0x1001, 1, 0x10004, 2, 0, 7, 0x1180, 0, ESC_FMMU_R, 200);
    /* slave 2: 12 bits of outputs from logical bit 4 of 0x10002 (bit mapping), its
     * inputs 0x10006.. */
    tfmmu(s, 0x1002, 0, 0x10002, 2, 4, 7, 0x1100, 0, ESC_FMMU_W, 200);
    tfmmu(s, 0x1002, 1, 0x10006, 2, 0, 7, 0x1180, 0, ESC_FMMU_R, 200);
    for (unsigned i = 0; i < 2; i++) {
        uint16_t st = (uint16_t)(0x1001 + i);
        tw16(s, ECAT_FPWR, FP(st, ESC_AL_CONTROL), AL_SAFEOP, 300);
        assert_int_equal(tr16(s, st, ESC_AL_STATUS, 300), AL_SAFEOP);
        tw16(s, ECAT_FPWR, FP(st, ESC_AL_CONTROL), AL_OP, 300);
        assert_int_equal(tr16(s, st, ESC_AL_STATUS, 300), AL_OP);
    }
    return s;
}

static void lrw_bits_and_wkc(void **state)
{
    (void)state;
    struct tdev *d[2];
    struct takt_sim *s = op2(d);
    uint8_t img[8] = { 0x11, 0x22, 0xA0, 0xCB, 0, 0, 0, 0 };
    /* both slaves read and write: 2 x (1 + 2) */
    assert_int_equal(tdg(s, ECAT_LRW, 0x10000, img, 8, 1000), 6);
    assert_int_equal(d[0]->out[0], 0x11);
    assert_int_equal(d[0]->out[1], 0x22);
    /* slave 2: logical bits 0x10002.4 .. 0x10003.7 -> physical 0x1100.0 .. 0x1101.3 */
    assert_int_equal(d[1]->out[0], 0xBA);
    assert_int_equal(d[1]->out[1] & 0x0F, 0x0C);
    /* inputs follow one frame later (device updates after the frame) */
    assert_int_equal(tdg(s, ECAT_LRW, 0x10000, img, 8, 2000), 6);
    assert_int_equal(img[4], 0x12);
    assert_int_equal(img[5], 0x23);
    assert_int_equal(img[6], 0xBB);
    /* inputs only: LRD counts 1 per slave; outputs only: LWR counts 1 per slave */
    assert_int_equal(tdg(s, ECAT_LRD, 0x10004, img + 4, 4, 3000), 2);
    assert_int_equal(tdg(s, ECAT_LWR, 0x10000, img, 4, 3000), 2);
    /* LRW over only inputs: read +1 each */
    assert_int_equal(tdg(s, ECAT_LRW, 0x10004, img + 4, 4, 3000), 2);
    /* LRW over only outputs: write +2 each */
    assert_int_equal(tdg(s, ECAT_LRW, 0x10000, img, 4, 3000), 4);
    /* a datagram that covers only slave 2's first output byte writes bits, but the
     * SM buffer is not complete (last byte missing): the device still sees the last
     * complete buffer (0xBA), not a torn one (0xBF) */
    uint8_t one = 0xF0;
    assert_int_equal(tdg(s, ECAT_LWR, 0x10002, &one, 1, 3500), 1);
    assert_int_equal(d[1]->out[0], 0xBA);
    takt_sim_destroy(s);
}

static void sm_status_through_fmmu(void **state)
{
    (void)state;
    /* SOEM 2.0 maps SM1's status byte (0x080D) into the process image */
    struct tdev *d[2];
    struct takt_sim *s = op2(d);
    tfmmu(s, 0x1001, 2, 0x20000, 1, 0, 7, 0x080D, 0, ESC_FMMU_R, 3000);
    uint8_t b = 0;
    assert_int_equal(tdg(s, ECAT_LRD, 0x20000, &b, 1, 3100), 1);
    assert_int_equal(b & 0x08, 0);
    mbx_send(s, 0x1001, 0x01, 3200);
    assert_int_equal(tdg(s, ECAT_LRD, 0x20000, &b, 1, 3300), 1);
    assert_int_equal(b & 0x08, 0x08);
    takt_sim_destroy(s);
}

static void fmmu_wkc_once_per_direction(void **state)
{
    (void)state;
    /* one increment per direction per slave however many FMMUs match (ETG.1000.4 commands and working counter) */
    struct tdev *d[2];
    struct takt_sim *s = op2(d);
    /* a second read FMMU of slave 1 onto the same inputs, at logical 0x10008 */
    tfmmu(s, 0x1001, 2, 0x10008, 2, 0, 7, 0x1180, 0, ESC_FMMU_R, 3000);
    uint8_t img[10] = { 0 };
    /* LRD over both of slave 1's read FMMUs and slave 2's: 1 + 1 */
    assert_int_equal(tdg(s, ECAT_LRD, 0x10004, img, 6, 3100), 2);
    assert_int_equal(img[4], img[0]);                  /* same inputs, twice */
    assert_int_equal(img[5], img[1]);
    /* LRW over everything: each slave read +1 and write +2 once */
    uint8_t all[10] = { 0 };
    assert_int_equal(tdg(s, ECAT_LRW, 0x10000, all, 10, 3200), 6);
    takt_sim_destroy(s);
}

static void lrw_overlapping_in_out(void **state)
{
    (void)state;
    /* inputs and outputs on the same logical bytes (SOEM's overlapped IO map): the
     * slave writes its outputs from the data as it arrived and puts its inputs in
     * the frame (ETG.1000.4 commands, LRW); WKC 3 */
    struct tdev *d[1];
    struct takt_sim *s = preop(1, d);
    tsm(s, 0x1001, 2, 0x1100, 2, 0x64, 1, 200);
    tsm(s, 0x1001, 3, 0x1180, 2, 0x20, 1, 200);
    tfmmu(s, 0x1001, 0, 0x4000, 2, 0, 7, 0x1100, 0, ESC_FMMU_W, 200);
    tfmmu(s, 0x1001, 1, 0x4000, 2, 0, 7, 0x1180, 0, ESC_FMMU_R, 200);
    tw16(s, ECAT_FPWR, FP(0x1001, ESC_AL_CONTROL), AL_SAFEOP, 300);
    tw16(s, ECAT_FPWR, FP(0x1001, ESC_AL_CONTROL), AL_OP, 300);
    assert_int_equal(tr16(s, 0x1001, ESC_AL_STATUS, 300), AL_OP);
    uint8_t img[2] = { 0x40, 0x50 };
    assert_int_equal(tdg(s, ECAT_LRW, 0x4000, img, 2, 1000), 3);
    assert_int_equal(d[0]->out[0], 0x40);
    assert_int_equal(d[0]->out[1], 0x50);
    img[0] = 0x07;
    img[1] = 0x08;
    assert_int_equal(tdg(s, ECAT_LRW, 0x4000, img, 2, 2000), 3);
    assert_int_equal(img[0], 0x41);                    /* inputs = previous outputs + 1 */
    assert_int_equal(img[1], 0x51);
    assert_int_equal(d[0]->out[0], 0x07);
    takt_sim_destroy(s);
}

static void fmmu_bit_read_packing(void **state)
{
    (void)state;
    /* two slaves' 4-bit inputs packed into one logical byte: slave 1 bits 0-3,
     * slave 2 bits 4-7; a read FMMU changes only its own bits of the frame */
    struct tdev *d[2];
    struct takt_sim *s = op2(d);
    tfmmu(s, 0x1001, 2, 0x30000, 1, 0, 3, 0x1180, 0, ESC_FMMU_R, 3000);
    tfmmu(s, 0x1002, 2, 0x30000, 1, 4, 7, 0x1180, 4, ESC_FMMU_R, 3000);
    /* outputs 0x0A and 0xB0: inputs 0x0B (low nibble B) and 0xB1 (high nibble B) */
    uint8_t o1[2] = { 0x0A, 0 }, o2[2] = { 0, 0 };
    tdg(s, ECAT_LWR, 0x10000, o1, 2, 3100);
    /* slave 2's outputs start at logical bit 0x10002.4: its out[0] bits 4-7 are
     * logical 0x10003 bits 0-3 */
    uint8_t bits[2] = { 0x00, 0x0B };
    tdg(s, ECAT_LWR, 0x10002, bits, 2, 3100);
    assert_int_equal(d[1]->out[0] & 0xF0, 0xB0);
    tdg(s, ECAT_LRD, 0x10004, o2, 2, 3200);              /* let the inputs follow */
    uint8_t b = 0x00;
    assert_int_equal(tdg(s, ECAT_LRD, 0x30000, &b, 1, 3300), 2);
    assert_int_equal(b, 0xBB);                         /* 0x0B low nibble, 0xB1 high */
    /* only slave 1's FMMU: bits 4-7 stay as the master sent them */
    tfmmu(s, 0x1002, 2, 0x30000, 1, 4, 7, 0x1180, 4, 0, 3400);
    b = 0x50;
    assert_int_equal(tdg(s, ECAT_LRD, 0x30000, &b, 1, 3500), 1);
    assert_int_equal(b, 0x5B);
    takt_sim_destroy(s);
}

static void fmmu_without_sm_not_counted(void **state)
{
    (void)state;
    /* an FMMU onto process RAM no active SM covers: not executed, not counted
     * (ETG.1000.4 working counter: RAM not covered by an enabled SM) */
    struct tdev *d[2];
    struct takt_sim *s = op2(d);
    tfmmu(s, 0x1001, 2, 0x40000, 4, 0, 7, 0x1800, 0, ESC_FMMU_R | ESC_FMMU_W, 3000);
    uint8_t b[4] = { 1, 2, 3, 4 };
    assert_int_equal(tdg(s, ECAT_LRW, 0x40000, b, 4, 3100), 0);
    assert_int_equal(b[0], 1);
    /* an FMMU that is not activated maps nothing */
    uint8_t f[16] = { 0 };
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_FMMU0 + 16 * 1), f, 16, 3200);
    uint8_t in[4] = { 0x77, 0x77, 0, 0 };
    assert_int_equal(tdg(s, ECAT_LRD, 0x10004, in, 4, 3300), 1);   /* slave 2's only */
    assert_int_equal(in[0], 0x77);                     /* slave 1's bytes untouched */
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(mailbox_in_init_not_reachable),
        cmocka_unit_test(mailbox_roundtrip_and_rules),
        cmocka_unit_test(mailbox_repeated_write_served_once),
        cmocka_unit_test(mailbox_full_on_last_byte),
        cmocka_unit_test(mailbox_repeat),
        cmocka_unit_test(sm_locked_while_enabled),
        cmocka_unit_test(lrw_bits_and_wkc),
        cmocka_unit_test(sm_status_through_fmmu),
        cmocka_unit_test(fmmu_wkc_once_per_direction),
        cmocka_unit_test(lrw_overlapping_in_out),
        cmocka_unit_test(fmmu_bit_read_packing),
        cmocka_unit_test(fmmu_without_sm_not_counted),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
