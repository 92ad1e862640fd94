/* Software ESC: the memory a master sees (ETG.1000.4 DL registers) - process RAM size (8 KiB default,
 * configurable) and where it ends, and the write rules of real registers: read-only
 * registers and bits keep their value, yet the write counts (the register area is
 * always accessible: ESC datasheet Section I 2.4), reserved bytes stay zero. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "esc_testdev.h"

#define ST 0x1001

static struct takt_sim *net1(uint32_t ram)
{
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    o.ram_bytes = ram;
    struct tdev *t = tdev_new(false, true, false);
    struct sim_device *d = &t->base;
    struct takt_sim *s = NULL;
    if (takt_sim_create_devices(&d, 1, &o, &s))
        return NULL;
    tw16(s, ECAT_APWR, FP(0, ESC_STATION_ADDR), ST, 10);
    /* PREOP (no mailbox device: nothing to check) lets a 1-buffer SM be active */
    tw16(s, ECAT_FPWR, FP(ST, ESC_AL_CONTROL), AL_PREOP, 10);
    assert_int_equal(tr16(s, ST, ESC_AL_STATUS, 10), AL_PREOP);
    return s;
}

/* A 16-byte write through a 1-buffer SM at start: the WKC says whether RAM is there. */
static int ram_probe(struct takt_sim *s, uint16_t start)
{
    tsm(s, ST, 0, start, 16, 0x26, 0, 20);
    tsm(s, ST, 0, start, 16, 0x26, 1, 20);
    uint8_t d[16] = { 1, 2, 3 };
    return tdg(s, ECAT_FPWR, FP(ST, start), d, 16, 30);
}

static void ram_size(void **state)
{
    (void)state;
    /* default: 8 KiB (0x0006 in KiB), 0x1000..0x2FFF */
    struct takt_sim *s = net1(0);
    uint8_t kb = 0;
    assert_int_equal(tdg(s, ECAT_FPRD, FP(ST, ESC_RAM_SIZE), &kb, 1, 20), 1);
    assert_int_equal(kb, 8);
    assert_int_equal(ram_probe(s, 0x2FF0), 1);
    assert_int_equal(ram_probe(s, 0x3000), 0);          /* past the end: no SM, no WKC */
    assert_int_equal(ram_probe(s, 0x2FF8), 0);          /* SM would end past the RAM */
    takt_sim_destroy(s);

    /* configured: 4 KiB */
    s = net1(4096);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(ST, ESC_RAM_SIZE), &kb, 1, 20), 1);
    assert_int_equal(kb, 4);
    assert_int_equal(ram_probe(s, 0x1FF0), 1);
    assert_int_equal(ram_probe(s, 0x2000), 0);
    takt_sim_destroy(s);

    /* 48 KiB: what a large IP core has */
    s = net1(48 * 1024);
    assert_int_equal(tdg(s, ECAT_FPRD, FP(ST, ESC_RAM_SIZE), &kb, 1, 20), 1);
    assert_int_equal(kb, 48);
    assert_int_equal(ram_probe(s, 0xCFF0), 1);
    takt_sim_destroy(s);

    /* ADO is 16 bits: RAM past 0xFFFF cannot be addressed and is refused */
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    o.ram_bytes = 0x10000;
    struct tdev *t = tdev_new(false, false, false);
    struct sim_device *d = &t->base;
    assert_int_equal(takt_sim_create_devices(&d, 1, &o, &s), -EINVAL);
}

/* Write v (len bytes) at ado; return the WKC and read the register back into back. */
static int wr_back(struct takt_sim *s, uint16_t ado, const uint8_t *v, uint16_t len, uint8_t *back)
{
    uint8_t b[16];
    memcpy(b, v, len);
    int w = tdg(s, ECAT_FPWR, FP(ST, ado), b, len, 40);
    memset(back, 0, len);
    tdg(s, ECAT_FPRD, FP(ST, ado), back, len, 40);
    return w;
}

static void read_only_kept_but_counted(void **state)
{
    (void)state;
    struct takt_sim *s = net1(0);
    static const uint8_t ff[16] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    /* whole read-only registers: ESC information, DL status, AL status and code,
     * SM status, DC receive times */
    static const struct { uint16_t ado, len; } ro[] = {
        { 0x0000, 10 }, { ESC_DL_STATUS, 2 }, { ESC_AL_STATUS, 2 }, { ESC_AL_STATUS_CODE, 2 },
        { 0x0805, 1 }, { 0x0807, 1 }, { 0x0904, 4 }, { 0x0918, 8 },
    };
    for (unsigned i = 0; i < sizeof ro / sizeof ro[0]; i++) {
        uint8_t before[16], after[16];
        memset(before, 0, sizeof before);
        tdg(s, ECAT_FPRD, FP(ST, ro[i].ado), before, ro[i].len, 40);
        assert_int_equal(wr_back(s, ro[i].ado, ff, ro[i].len, after), 1);
        if (memcmp(before, after, ro[i].len))
            fail_msg("register 0x%04X changed by an EtherCAT write", ro[i].ado);
    }
    /* partly writable registers keep their read-only bits */
    uint8_t b[2];
    assert_int_equal(wr_back(s, ESC_SII_CONFIG, ff, 1, b), 1);
    assert_int_equal(b[0] & 0xFE, 0);                   /* 0x0500: only bit 0 */
    tw8(s, ECAT_FPWR, FP(ST, ESC_SII_CONFIG), 0, 40);
    /* 0x0502: busy, errors, read-size bits are status; a write with no command bits
     * is a NOP that sets none of them */
    put_le16(b, SII_BUSY | SII_ERR_ACK | SII_ERR_WE | SII_ERR_CSUM);
    assert_int_equal(wr_back(s, ESC_SII_CTRL, b, 2, b), 1);
    assert_int_equal(get_le16(b) & (SII_BUSY | SII_ERR_ACK | SII_ERR_WE | SII_ERR_CSUM), 0);
    assert_int_equal(get_le16(b) & SII_READ8, SII_READ8);   /* as advertised, unchanged */
    /* FMMU bytes 13-15 are reserved: they read 0 whatever was written */
    uint8_t f[16];
    memset(f, 0xFF, 16);
    f[12] = 0;                                          /* not activated */
    assert_int_equal(wr_back(s, ESC_FMMU0, f, 16, f), 1);
    assert_int_equal(f[13] | f[14] | f[15], 0);
    assert_int_equal(f[0] & f[1] & f[2] & f[3], 0xFF);  /* the logical start is stored */
    /* writable registers take the value */
    put_le16(b, 0x0004);
    assert_int_equal(wr_back(s, 0x0200, b, 2, b), 1);
    assert_int_equal(get_le16(b), 0x0004);
    /* the user RAM 0x0F80-0x0FFF below process RAM is plain memory */
    uint8_t u[16];
    for (unsigned i = 0; i < 16; i++)
        u[i] = (uint8_t)(0xA0 + i);
    assert_int_equal(wr_back(s, 0x0FF0, u, 16, f), 1);
    assert_memory_equal(f, u, 16);
    takt_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(ram_size),
        cmocka_unit_test(read_only_kept_but_counted),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
