/* CoE server over raw mailbox bytes: every SDO transfer type, aborts, complete access,
 * mailbox errors, counters, emergencies and the SDO fault hook (ETG.1000.6 5.6 CoE). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_dev_util.h"

static uint8_t esc[0x1000];

/* A servo in PREOP with mailboxes of `mbx` bytes. */
static struct sim_device *servo(uint16_t mbx)
{
    struct sim_device *d = dev_new("servo");
    esc_mem_init(esc, d, mbx);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    return d;
}

static void expedited_upload(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t m[64], r[1024];
    size_t n = sdo_msg(m, 1, 0x40, 0x1018, 1, 0, NULL, 0);
    assert_int_equal(xfer(d, m, n, r), 16);
    assert_int_equal(get_le16(r), 10);                  /* mailbox length */
    assert_int_equal(r[5] & 0x0F, MBX_TYPE_COE);
    assert_int_equal(r[5] >> 4 & 7, 1);                 /* first reply counter */
    assert_int_equal(get_le16(r + 6) >> 12, COE_SDO_RES);
    assert_int_equal(r[8], 0x43);                       /* 4 bytes */
    assert_int_equal(get_le16(r + 9), 0x1018);
    assert_int_equal(r[11], 1);
    assert_int_equal(get_le32(r + 12), TAKT_SIM_VENDOR);
    n = sdo_msg(m, 2, 0x40, 0x6041, 0, 0, NULL, 0);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x4B);                       /* 2 bytes */
    assert_int_equal(r[5] >> 4 & 7, 2);
    n = sdo_msg(m, 3, 0x40, 0x6060, 0, 0, NULL, 0);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x4F);                       /* 1 byte */
    assert_int_equal(r[12], 8);                         /* csp by default */
    d->ops->destroy(d);
}

static void normal_and_segmented_upload(void **state)
{
    struct sim_device *d = servo(32);                   /* small mailbox forces segments */
    uint8_t m[64], r[1024];
    const char *name = "takt CiA 402 servo drive";
    size_t len = strlen(name);
    size_t n = sdo_msg(m, 1, 0x40, 0x1008, 0, 0, NULL, 0);
    assert_int_equal(xfer(d, m, n, r), 32);
    assert_int_equal(r[8], 0x41);
    assert_int_equal(get_le32(r + 12), len);
    assert_memory_equal(r + 16, name, 16);
    /* a segment with the wrong toggle aborts with 0x05030000 */
    n = sdo_msg(m, 2, 0x70, 0x1008, 0, 0, NULL, 0);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x80);
    assert_int_equal(get_le32(r + 12), 0x05030000);
    assert_int_equal(get_le16(r + 9), 0x1008);
    /* again, properly: 16 bytes, then one last segment of 8 */
    n = sdo_msg(m, 3, 0x40, 0x1008, 0, 0, NULL, 0);
    xfer(d, m, n, r);
    n = sdo_msg(m, 4, 0x60, 0, 0, 0, NULL, 0);
    assert_int_equal(xfer(d, m, n, r), 6 + 3 + 8);
    assert_int_equal(r[8], 0x01);                       /* toggle 0, last, 8 bytes */
    assert_memory_equal(r + 9, name + 16, 8);
    /* no transfer running: segment request is a bad command */
    n = sdo_msg(m, 5, 0x70, 0x1008, 0, 0, NULL, 0);
    xfer(d, m, n, r);
    assert_int_equal(get_le32(r + 12), 0x05040001);
    d->ops->destroy(d);
}

static void long_segmented_upload(void **state)
{
    /* complete access of 0x1600 with all 16 slots in use: 2 + 64 bytes over a 24-byte
     * mailbox: first 8 bytes, then segments of 15 with alternating toggles */
    struct sim_device *d = servo(24);
    uint8_t m[64], r[1024], img[128];
    struct sim_od *od = sim_device_od(d);
    od_set_u(od, 0x1600, 0, 16);
    for (uint8_t k = 5; k <= 16; k++)
        od_set_u(od, 0x1600, k, 0x00000008);
    size_t n = sdo_msg(m, 1, 0x50, 0x1600, 0, 0, NULL, 0);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x51);
    size_t total = get_le32(r + 12), got = get_le16(r) - 10;
    assert_int_equal(total, 2 + 16 * 4);
    memcpy(img, r + 16, got);
    bool toggle = false;
    for (int i = 0; i < 10 && got < total; i++) {
        n = sdo_msg(m, next_cnt(), (uint8_t)(0x60 | (toggle ? 0x10 : 0)), 0, 0, 0, NULL, 0);
        size_t rl = xfer(d, m, n, r);
        assert_int_equal(r[8] & 0x10, toggle ? 0x10 : 0);
        size_t seg = get_le16(r) - 3;
        if (seg == 7)
            seg = 7 - (r[8] >> 1 & 7);
        assert_true(rl >= 16);
        memcpy(img + got, r + 9, seg);
        got += seg;
        assert_int_equal(!!(r[8] & 1), got == total);
        toggle = !toggle;
    }
    assert_int_equal(got, total);
    assert_int_equal(img[0], 16);
    assert_int_equal(get_le32(img + 2), 0x60400010);
    assert_int_equal(get_le32(img + 6), 0x607A0020);
    assert_int_equal(get_le32(img + 10), 0x60600008);
    assert_int_equal(get_le32(img + 14), 0x00000008);   /* gap */
    d->ops->destroy(d);
}

static void downloads(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t b[8];
    size_t n;
    /* expedited */
    assert_int_equal(sdo_dl_u(d, 0x6065, 0, 5000, 4), 0);
    assert_int_equal(od_get_u(sim_device_od(d), 0x6065, 0), 5000);
    assert_int_equal(sdo_dl_u(d, 0x6060, 0, 9, 1), 0);
    assert_int_equal(sdo_upload(d, 0x6060, 0, false, b, &n), 0);
    assert_int_equal(b[0], 9);
    /* normal with all data in the first frame */
    uint8_t m[64], r[1024], v[4] = { 0x11, 0x22, 0x33, 0x44 };
    size_t ml = sdo_msg(m, next_cnt(), 0x21, 0x6080, 0, 4, v, 4);
    xfer(d, m, ml, r);
    assert_int_equal(r[8], 0x60);
    assert_int_equal(od_get_u(sim_device_od(d), 0x6080, 0), 0x44332211);
    /* size not indicated (0x22): the object's size is taken */
    ml = sdo_msg(m, next_cnt(), 0x22, 0x6040, 0, 0x0006, NULL, 0);
    xfer(d, m, ml, r);
    assert_int_equal(r[8], 0x60);
    assert_int_equal(od_get_u(sim_device_od(d), 0x6040, 0), 6);
    d->ops->destroy(d);
}

static void segmented_download_complete_access(void **state)
{
    struct sim_device *d = servo(32);
    uint8_t m[64], r[1024], img[18];
    img[0] = 4;
    img[1] = 0;
    put_le32(img + 2, 0x60410010);
    put_le32(img + 6, 0x60640020);
    put_le32(img + 10, 0x60F40020);
    put_le32(img + 14, 0x603F0010);
    /* first frame: mailbox 32 carries 16 bytes after the size */
    size_t n = sdo_msg(m, next_cnt(), 0x31, 0x1A00, 0, 18, img, 16);
    assert_int_equal(xfer(d, m, n, r), 16);
    assert_int_equal(r[8], 0x60);
    /* wrong toggle first */
    uint8_t seg[10] = { 0 };
    seg[0] = 0x10 | (7 - 2) << 1 | 1;
    memcpy(seg + 1, img + 16, 2);
    n = mbx_build(m, next_cnt(), COE_SDO_REQ, seg, 8);
    xfer(d, m, n, r);
    assert_int_equal(r[8], 0x80);
    assert_int_equal(get_le32(r + 12), 0x05030000);
    /* again with the right toggle: last segment, 2 bytes, mailbox length 10 */
    n = sdo_msg(m, next_cnt(), 0x31, 0x1A00, 0, 18, img, 16);
    xfer(d, m, n, r);
    seg[0] = (7 - 2) << 1 | 1;
    n = mbx_build(m, next_cnt(), COE_SDO_REQ, seg, 8);
    assert_int_equal(xfer(d, m, n, r), 16);
    assert_int_equal(r[8], 0x20);
    struct sim_od *od = sim_device_od(d);
    assert_int_equal(od_get_u(od, 0x1A00, 0), 4);
    assert_int_equal(od_get_u(od, 0x1A00, 4), 0x603F0010);
    size_t out, in;
    d->ops->pd_sizes(d, &out, &in);
    assert_int_equal(in, 2 + 4 + 4 + 2);
    /* a segmented transfer longer than announced is refused */
    n = sdo_msg(m, next_cnt(), 0x31, 0x1A00, 0, 17, img, 16);
    xfer(d, m, n, r);
    seg[0] = (7 - 2) << 1 | 1;
    n = mbx_build(m, next_cnt(), COE_SDO_REQ, seg, 8);
    xfer(d, m, n, r);
    assert_int_equal(get_le32(r + 12), 0x06070012);
    assert_int_equal(od_get_u(od, 0x1A00, 0), 4);      /* unchanged */
    d->ops->destroy(d);
}

/* 66 bytes through a 24-byte mailbox: 8 in the first frame, then segments of 15 with
 * alternating toggles, the last one short; the image is then read back. */
static void long_segmented_download(void **state)
{
    struct sim_device *d = servo(24);
    uint8_t img[66], m[64], r[1024], seg[24];
    img[0] = 16;
    img[1] = 0;
    for (unsigned k = 0; k < 16; k++)
        put_le32(img + 2 + 4 * k, k < 3 ? (uint32_t[]){ 0x60400010, 0x607A0020, 0x60600008 }[k]
                                        : 0x00000008);
    size_t n = sdo_msg(m, next_cnt(), 0x31, 0x1600, 0, sizeof img, img, 8);
    assert_int_equal(xfer(d, m, n, r), 16);
    assert_int_equal(r[8], 0x60);
    size_t pos = 8;
    bool toggle = false;
    while (pos < sizeof img) {
        size_t chunk = sizeof img - pos < 15 ? sizeof img - pos : 15;
        bool last = pos + chunk == sizeof img;
        memset(seg, 0, sizeof seg);
        seg[0] = (uint8_t)((toggle ? 0x10 : 0) | (last ? 1 : 0) | (chunk < 7 ? (7 - chunk) << 1 : 0));
        memcpy(seg + 1, img + pos, chunk);
        n = mbx_build(m, next_cnt(), COE_SDO_REQ, seg, chunk < 7 ? 8 : 1 + chunk);
        assert_int_equal(xfer(d, m, n, r), 16);
        assert_int_equal(r[8], 0x20 | (toggle ? 0x10 : 0));
        pos += chunk;
        toggle = !toggle;
    }
    struct sim_od *od = sim_device_od(d);
    assert_int_equal(od_get_u(od, 0x1600, 0), 16);
    assert_int_equal(od_get_u(od, 0x1600, 2), 0x607A0020);
    assert_int_equal(od_get_u(od, 0x1600, 16), 0x00000008);
    size_t out, in;
    d->ops->pd_sizes(d, &out, &in);
    assert_int_equal(out, (16 + 32 + 8 + 13 * 8) / 8);
    d->ops->destroy(d);
}

static void complete_access_upload(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t b[256];
    size_t n;
    assert_int_equal(sdo_upload(d, 0x1C12, 0, true, b, &n), 0);
    assert_int_equal(n, 4);                             /* n, pad, one UINT */
    assert_int_equal(b[0], 1);
    assert_int_equal(get_le16(b + 2), 0x1600);
    assert_int_equal(sdo_upload(d, 0x1018, 1, true, b, &n), 0);
    assert_int_equal(n, 16);                            /* from sub 1: no sub0 */
    assert_int_equal(get_le32(b), TAKT_SIM_VENDOR);
    assert_int_equal(get_le32(b + 4), 0x00040001);
    assert_int_equal(sdo_upload(d, 0x6041, 0, true, b, &n), 0x06010004); /* VAR */
    assert_int_equal(sdo_upload(d, 0x1018, 2, true, b, &n), 0x06010004); /* sub > 1 */
    d->ops->destroy(d);
}

static void aborts(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t b[64];
    size_t n;
    assert_int_equal(sdo_upload(d, 0x2000, 0, false, b, &n), 0x06020000);
    assert_int_equal(sdo_upload(d, 0x1018, 9, false, b, &n), 0x06090011);
    assert_int_equal(sdo_dl_u(d, 0x1018, 1, 1, 4), 0x06010002);
    assert_int_equal(sdo_dl_u(d, 0x6041, 0, 1, 2), 0x06010002);
    assert_int_equal(sdo_dl_u(d, 0x6065, 0, 1, 2), 0x06070013);   /* UDINT, 2 bytes */
    assert_int_equal(sdo_dl_u(d, 0x6040, 0, 1, 4), 0x06070012);   /* UINT, 4 bytes */
    assert_int_equal(sdo_dl_u(d, 0x1C12, 0, 300, 2), 0x06070012);
    /* state: mapping objects are writable in PREOP only */
    esc_mem_init(esc, d, 0);
    esc[ESC_DC_ACTIVATION] = 0x03;
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 1000000);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x1C12, 0, 0, 1), 0x08000022);
    assert_int_equal(sdo_dl_u(d, 0x6065, 0, 7, 4), 0);             /* rw in all states */
    /* a bad command specifier */
    uint8_t m[64], r[1024];
    size_t ml = sdo_msg(m, next_cnt(), 0xE0, 0x1000, 0, 0, NULL, 0);
    xfer(d, m, ml, r);
    assert_int_equal(get_le32(r + 12), 0x05040001);
    /* a master's abort ends a transfer without a reply */
    ml = sdo_msg(m, next_cnt(), 0x80, 0x1000, 0, 0x08000000, NULL, 0);
    assert_int_equal(xfer(d, m, ml, r), 0);
    /* fault hook: an object aborts with a chosen code until cleared */
    assert_int_equal(sim_device_fault_sdo(d, 0x6065, 0x06060000), 0);
    assert_int_equal(sdo_upload(d, 0x6065, 0, false, b, &n), 0x06060000);
    assert_int_equal(sdo_dl_u(d, 0x6065, 0, 7, 4), 0x06060000);
    assert_int_equal(sim_device_fault_sdo(d, 0x6065, 0), 0);
    assert_int_equal(sdo_upload(d, 0x6065, 0, false, b, &n), 0);
    assert_int_equal(sim_device_fault_sdo(d, 0x2345, 1), -ENOENT);
    /* reading a write-only entry */
    od_find_entry(sim_device_od(d), 0x6080, 0)->access = OD_W_ALL;
    assert_int_equal(sdo_upload(d, 0x6080, 0, false, b, &n), 0x06010001);
    d->ops->destroy(d);

    /* value range on a BOOL; read-only settings outside PREOP on the analog input */
    d = dev_new("el3102");
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x8000, 1, 2, 1), 0x06090030);
    assert_int_equal(sdo_dl_u(d, 0x8000, 1, 1, 1), 0);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(sdo_dl_u(d, 0x8000, 1, 0, 1), 0x08000022);
    assert_int_equal(sdo_upload(d, 0x8000, 1, false, b, &n), 0);
    assert_int_equal(b[0], 1);
    d->ops->destroy(d);
}

static size_t raw(struct sim_device *d, const uint8_t *m, size_t len, uint8_t *r)
{
    return d->ops->mbx_write(d, m, len, r, 1024, 0);
}

static void mailbox_errors(void **state)
{
    struct sim_device *d = servo(0);
    struct sim_dev *sd = sim_dev_of(d);
    uint8_t m[128], r[1024];
    /* too short for a header */
    memset(m, 0, sizeof m);
    assert_int_equal(raw(d, m, 4, r), 10);
    assert_int_equal(r[5] & 0x0F, MBX_TYPE_ERR);
    assert_int_equal(get_le16(r + 6), 1);
    assert_int_equal(get_le16(r + 8), MBXERR_SIZE_TOO_SHORT);
    /* length field beyond the data written */
    size_t n = sdo_msg(m, 1, 0x40, 0x1000, 0, 0, NULL, 0);
    put_le16(m, 200);
    raw(d, m, n, r);
    assert_int_equal(get_le16(r + 8), MBXERR_INVALID_SIZE);
    /* unsupported protocol (FoE) */
    n = sdo_msg(m, 2, 0x40, 0x1000, 0, 0, NULL, 0);
    m[5] = (uint8_t)(MBX_TYPE_FOE | 2 << 4);
    raw(d, m, n, r);
    assert_int_equal(get_le16(r + 8), MBXERR_UNSUPPORTED_PROTOCOL);
    /* bad channel */
    n = sdo_msg(m, 3, 0x40, 0x1000, 0, 0, NULL, 0);
    m[4] = 5;
    raw(d, m, n, r);
    assert_int_equal(get_le16(r + 8), MBXERR_INVALID_CHANNEL);
    /* reserved header bit set */
    n = sdo_msg(m, 3, 0x40, 0x1000, 0, 0, NULL, 0);
    m[5] |= 0x80;
    raw(d, m, n, r);
    assert_int_equal(get_le16(r + 8), MBXERR_INVALID_HEADER);
    /* unsupported CoE service (TxPDO remote request) */
    uint8_t body[8] = { 0 };
    n = mbx_build(m, 4, 6, body, 8);
    raw(d, m, n, r);
    assert_int_equal(get_le16(r + 8), MBXERR_SERVICE_NOT_SUPPORTED);
    /* SDO shorter than 10 bytes */
    n = mbx_build(m, 5, COE_SDO_REQ, body, 4);
    raw(d, m, n, r);
    assert_int_equal(get_le16(r + 8), MBXERR_SIZE_TOO_SHORT);
    assert_int_equal(sd->coe.n_mbx_errors, 7);
    /* the mailbox keeps working afterwards */
    size_t l;
    uint8_t v[8];
    assert_int_equal(sdo_upload(d, 0x1000, 0, false, v, &l), 0);
    assert_int_equal(get_le32(v), 0x00020192);
    d->ops->destroy(d);
}

static void counters_and_repeats(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t m[64], r[1024];
    for (unsigned i = 0; i < 9; i++) {
        size_t n = sdo_msg(m, (uint8_t)(i % 7 + 1), 0x40, 0x1000, 0, 0, NULL, 0);
        assert_int_equal(xfer(d, m, n, r), 16);
        assert_int_equal(r[5] >> 4, i % 7 + 1);        /* 1..7, then 1 again; never 0 */
    }
    /* the same request with the same counter again is a retry: not executed twice */
    uint8_t v[4] = { 1, 0, 0, 0 };
    size_t n = sdo_msg(m, 5, 0x2F, 0x6060, 0, 0, v, 0);
    m[12] = 9;
    assert_int_equal(xfer(d, m, n, r), 16);
    assert_int_equal(xfer(d, m, n, r), 0);
    assert_int_equal(sim_dev_of(d)->coe.n_dup, 1);
    /* counter 0 means "no counter": always executed */
    n = sdo_msg(m, 0, 0x40, 0x1000, 0, 0, NULL, 0);
    assert_int_equal(xfer(d, m, n, r), 16);
    assert_int_equal(xfer(d, m, n, r), 16);
    d->ops->destroy(d);
}

static void emergency(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t r[1024], data[5] = { 1, 2, 3, 4, 5 };
    assert_int_equal(d->ops->mbx_pending(d, r, sizeof r, 0), 0);
    assert_int_equal(sim_device_emergency(d, 0x5530, 0x81, data), 0);
    assert_int_equal(d->ops->mbx_pending(d, r, sizeof r, 0), 16);
    assert_int_equal(get_le16(r), 10);
    assert_int_equal(r[5] & 0x0F, MBX_TYPE_COE);
    assert_int_equal(get_le16(r + 6) >> 12, COE_EMERGENCY);
    assert_int_equal(get_le16(r + 8), 0x5530);
    assert_int_equal(r[10], 0x81);
    assert_memory_equal(r + 11, data, 5);
    assert_int_equal(d->ops->mbx_pending(d, r, sizeof r, 0), 0);
    for (int i = 0; i < COE_QUEUE; i++)
        assert_int_equal(sim_device_emergency(d, 0x1000, 1, data), 0);
    assert_int_equal(sim_device_emergency(d, 0x1000, 1, data), -ENOBUFS);
    /* going to INIT drops the queue */
    assert_int_equal(al(d, AL_PREOP, AL_INIT, NULL), 0);
    assert_int_equal(d->ops->mbx_pending(d, r, sizeof r, 0), 0);
    d->ops->destroy(d);
    /* devices without CoE cannot send one */
    d = dev_new("el1004");
    assert_int_equal(sim_device_emergency(d, 0x1000, 1, data), -EINVAL);
    d->ops->destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expedited_upload),
        cmocka_unit_test(normal_and_segmented_upload),
        cmocka_unit_test(long_segmented_upload),
        cmocka_unit_test(downloads),
        cmocka_unit_test(segmented_download_complete_access),
        cmocka_unit_test(long_segmented_download),
        cmocka_unit_test(complete_access_upload),
        cmocka_unit_test(aborts),
        cmocka_unit_test(mailbox_errors),
        cmocka_unit_test(counters_and_repeats),
        cmocka_unit_test(emergency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
