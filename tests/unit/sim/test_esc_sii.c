/* Software ESC: SII EEPROM interface (ETG.1000.4 SII access) - command and address in one write,
 * 4/8-byte reads, busy, write enable error, reload, ownership, 0xFFFF past the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "esc_testdev.h"

static int sii_cmd(struct takt_sim *s, uint16_t st, uint16_t cmd, uint32_t word, takt_ns_t now)
{
    /* SOEM style: 0x0502 command + 0x0504 address as one 6-byte write */
    uint8_t b[6];
    put_le16(b, cmd);
    put_le32(b + 2, word);
    return tdg(s, ECAT_FPWR, FP(st, ESC_SII_CTRL), b, 6, now);
}

static void read8_and_read4(void **state)
{
    (void)state;
    struct tdev *d[1];
    struct takt_sim *s = tnet(1, true, false, d);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 1) & SII_READ8, SII_READ8);
    assert_int_equal(sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_VENDOR, 10), 1);
    uint8_t b[8];
    assert_int_equal(tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_DATA), b, 8, 20), 1);
    assert_int_equal(get_le32(b), 0x99);
    assert_int_equal(get_le32(b + 4), 0x1234);
    takt_sim_destroy(s);

    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    o.sii_read4 = true;
    struct tdev *t = tdev_new(true, false, false);
    struct sim_device *dv = &t->base;
    assert_int_equal(takt_sim_create_devices(&dv, 1, &o, &s), 0);
    tw16(s, ECAT_APWR, FP(0, ESC_STATION_ADDR), 0x1001, 1);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 1) & SII_READ8, 0);
    sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_PRODUCT, 10);
    memset(b, 0xAA, 8);
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_DATA), b, 8, 20);
    assert_int_equal(get_le32(b), 0x1234);
    assert_int_equal(get_le32(b + 4), 0);      /* only 4 bytes were loaded */
    takt_sim_destroy(s);
}

static void busy_within_the_frame(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[128], c[6];
    put_le16(c, SII_CMD_READ);
    put_le32(c + 2, SII_W_VENDOR);
    size_t pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 0, FP(0x1001, ESC_SII_CTRL), 6, c);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPRD, 1, FP(0x1001, ESC_SII_CTRL), 2, NULL);
    size_t len = ecat_frame_end(buf, pos);
    assert_int_equal(takt_sim_process(s, buf, len, sizeof buf, 10, NULL), len);
    struct ecat_dg dg;
    ecat_frame_first(buf, len, &dg, &pos);
    ecat_frame_next(buf, len, &dg, &pos);
    assert_int_equal(get_le16(dg.data) & SII_BUSY, SII_BUSY);
    /* finished by the end of the frame */
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 20) & (SII_BUSY | SII_CMD_MASK), 0);
    /* while busy a new command is ignored and the running one keeps its address:
     * a write command (with enable) and another address sent behind a read change
     * neither the EEPROM nor what is read */
    uint8_t c2[6], junk[2] = { 0xEF, 0xBE };
    put_le16(c2, SII_CMD_WRITE | SII_WRITE_EN);
    put_le32(c2 + 2, SII_W_PRODUCT);
    pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 0, FP(0x1001, ESC_SII_DATA), 2, junk);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 1, FP(0x1001, ESC_SII_CTRL), 6, c);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 2, FP(0x1001, ESC_SII_CTRL), 6, c2);
    len = ecat_frame_end(buf, pos);
    assert_int_equal(takt_sim_process(s, buf, len, sizeof buf, 30, NULL), len);
    ecat_frame_first(buf, len, &dg, &pos);
    ecat_frame_next(buf, len, &dg, &pos);
    ecat_frame_next(buf, len, &dg, &pos);
    assert_int_equal(get_le16(dg.wkc), 1);            /* ignored, but counted */
    uint8_t v[8] = { 0 };
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_DATA), v, 8, 40);
    assert_int_equal(get_le32(v), 0x99);              /* vendor (word 8) */
    assert_int_equal(get_le32(v + 4), 0x1234);        /* product, not overwritten */
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 40) & (SII_ERR_WE | SII_ERR_ACK | SII_BUSY), 0);
    takt_sim_destroy(s);
}

static void past_end_and_errors(void **state)
{
    (void)state;
    struct tdev *d[1];
    struct takt_sim *s = tnet(1, true, false, d);
    uint8_t b[8];
    sii_cmd(s, 0x1001, SII_CMD_READ, 0x7FF0, 10);
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_DATA), b, 8, 20);
    for (int i = 0; i < 8; i++)
        assert_int_equal(b[i], 0xFF);
    /* write without write enable: 0x4000 error, EEPROM unchanged */
    uint8_t w[2] = { 0x34, 0x12 };
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_SII_DATA), w, 2, 30);
    sii_cmd(s, 0x1001, SII_CMD_WRITE, SII_W_ALIAS, 40);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 50) & SII_ERR_WE, SII_ERR_WE);
    /* NOP clears the error bits */
    sii_cmd(s, 0x1001, 0, 0, 60);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 70) & (SII_ERR_WE | SII_ERR_ACK), 0);
    /* two commands at once: command error */
    sii_cmd(s, 0x1001, SII_CMD_READ | SII_CMD_WRITE, 0, 80);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 90) & SII_ERR_ACK, SII_ERR_ACK);
    sii_cmd(s, 0x1001, 0, 0, 95);
    /* write with enable, then reload: the alias register follows, but the checksum
     * over words 0-6 no longer matches -> checksum error and no load */
    sii_cmd(s, 0x1001, SII_CMD_WRITE | SII_WRITE_EN, SII_W_ALIAS, 100);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 110) & SII_ERR_WE, 0);
    sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_ALIAS, 120);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_DATA, 130), 0x1234);
    sii_cmd(s, 0x1001, SII_CMD_RELOAD, 0, 140);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 150) & SII_ERR_CSUM, SII_ERR_CSUM);
    assert_int_equal(tr16(s, 0x1001, ESC_STATION_ALIAS, 150), 0);
    assert_int_equal(tr16(s, 0x1001, ESC_DL_STATUS, 150) & 0x0001, 0);   /* not loaded */
    /* fix the checksum in word 7 and reload: alias loaded */
    uint8_t img[14];
    for (unsigned i = 0; i < 7; i++) {
        sii_cmd(s, 0x1001, SII_CMD_READ, i, 160);
        put_le16(img + 2 * i, tr16(s, 0x1001, ESC_SII_DATA, 170));
    }
    sii_cmd(s, 0x1001, SII_CMD_READ, 7, 175);
    uint16_t w7 = (uint16_t)((tr16(s, 0x1001, ESC_SII_DATA, 176) & 0xFF00) | ecat_sii_crc(img, 14));
    put_le16(w, w7);
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_SII_DATA), w, 2, 180);
    sii_cmd(s, 0x1001, SII_CMD_WRITE | SII_WRITE_EN, 7, 190);
    sii_cmd(s, 0x1001, SII_CMD_RELOAD, 0, 200);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_CTRL, 210) & SII_ERR_CSUM, 0);
    assert_int_equal(tr16(s, 0x1001, ESC_STATION_ALIAS, 210), 0x1234);
    assert_int_equal(tr16(s, 0x1001, ESC_DL_STATUS, 210) & 0x0001, 0x0001);
    takt_sim_destroy(s);
}

static void pdi_owns_eeprom(void **state)
{
    (void)state;
    struct takt_sim *s = tnet(1, true, false, NULL);
    assert_int_equal(tw8(s, ECAT_FPWR, FP(0x1001, ESC_SII_CONFIG), 1, 10), 1);
    uint8_t z[8] = { 0 };
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_SII_DATA), z, 8, 15);
    sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_VENDOR, 20);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_DATA, 30), 0);   /* not executed */
    uint8_t pdi = 0;
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_PDI), &pdi, 1, 35);
    assert_int_equal(pdi, 0x01);                      /* 0x0501: the PDI took it */
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_SII_CONFIG), 0, 40);
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_PDI), &pdi, 1, 45);
    assert_int_equal(pdi, 0x00);                      /* offer ended: given back */
    sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_VENDOR, 50);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_DATA, 60), 0x99);
    /* offered again and taken; "force ECAT access" (0x0500 bit 1) takes it back
     * although the offer stands (SOEM writes 2 then 0 for this) */
    tw8(s, ECAT_FPWR, FP(0x1001, ESC_SII_CONFIG), 1, 70);
    tdg(s, ECAT_FPWR, FP(0x1001, ESC_SII_DATA), z, 8, 75);
    sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_PRODUCT, 80);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_DATA, 85), 0);
    assert_int_equal(tw8(s, ECAT_FPWR, FP(0x1001, ESC_SII_CONFIG), 3, 90), 1);
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_PDI), &pdi, 1, 95);
    assert_int_equal(pdi, 0x00);
    uint8_t cfg = 0;
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_CONFIG), &cfg, 1, 95);
    assert_int_equal(cfg, 0x01);                      /* force is an action, not stored */
    sii_cmd(s, 0x1001, SII_CMD_READ, SII_W_PRODUCT, 100);
    assert_int_equal(tr16(s, 0x1001, ESC_SII_DATA, 105), 0x1234);
    /* 0x0501 belongs to the PDI: an EtherCAT write is ignored (but counted) */
    assert_int_equal(tw8(s, ECAT_FPWR, FP(0x1001, ESC_SII_PDI), 1, 110), 1);
    tdg(s, ECAT_FPRD, FP(0x1001, ESC_SII_PDI), &pdi, 1, 115);
    assert_int_equal(pdi, 0x00);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(read8_and_read4),
        cmocka_unit_test(busy_within_the_frame),
        cmocka_unit_test(past_end_and_errors),
        cmocka_unit_test(pdi_owns_eeprom),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
