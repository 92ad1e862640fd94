/* SDO information service over raw mailbox bytes: object list (fragmented), object and
 * entry descriptions, SDO info errors (ETG.1000.6 5.6.3). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_dev_util.h"

static uint8_t esc[0x1000];

static size_t info_req(struct sim_device *d, uint8_t op, const uint8_t *data, size_t n, uint8_t *r)
{
    uint8_t body[16] = { 0 }, m[64];
    body[0] = op;
    memcpy(body + 4, data, n);
    size_t ml = mbx_build(m, next_cnt(), COE_SDO_INFO, body, 4 + n);
    return xfer(d, m, ml, r);
}

static struct sim_device *servo(uint16_t mbx)
{
    struct sim_device *d = dev_new("servo");
    esc_mem_init(esc, d, mbx);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    return d;
}

static void od_list_fragmented(void **state)
{
    struct sim_device *d = servo(32);          /* 10 indices per fragment */
    struct sim_od *od = sim_device_od(d);
    uint8_t r[1024], lt[2];
    put_le16(lt, 1);                           /* all objects */
    size_t rl = info_req(d, 1, lt, 2, r);
    assert_true(rl > 12);
    uint16_t got[512];
    size_t n = 0;
    unsigned frags = get_le16(r + 10), expect = frags;
    assert_true(frags > 0);
    for (;;) {
        assert_int_equal(get_le16(r + 6) >> 12, COE_SDO_INFO);
        assert_int_equal(r[8] & 0x7F, 2);
        assert_int_equal(get_le16(r + 10), expect);
        assert_int_equal(!!(r[8] & 0x80), expect > 0);
        size_t words = (get_le16(r) - 6) / 2, k = 0;
        if (n == 0) {
            assert_int_equal(get_le16(r + 12), 1); /* list type first */
            k = 1;
        }
        for (; k < words; k++)
            got[n++] = get_le16(r + 12 + 2 * k);
        if (!expect)
            break;
        expect--;
        rl = d->ops->mbx_pending(d, r, 32, 0);
        assert_true(rl > 0);
    }
    assert_int_equal(n, od->n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], od->obj[i].index);
    assert_int_equal(d->ops->mbx_pending(d, r, 32, 0), 0);
    d->ops->destroy(d);
}

static void od_list_counts(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t r[1024], lt[2] = { 0, 0 };
    assert_int_equal(info_req(d, 1, lt, 2, r), 6 + 6 + 12);
    assert_int_equal(get_le16(r + 12), 0);
    assert_int_equal(get_le16(r + 14), sim_device_od(d)->n);
    unsigned rx = get_le16(r + 16), tx = get_le16(r + 18);
    assert_int_equal(rx, 4);                    /* 0x6040 0x6060 0x607A 0x60FF */
    assert_true(tx >= 7);                       /* 0x603F 0x6041 0x6061 0x6064 0x606C 0x60F4 0x1C3x */
    put_le16(lt, 2);                            /* RxPDO-mappable only */
    info_req(d, 1, lt, 2, r);
    assert_int_equal(get_le16(r), 6 + 2 + 2 * rx);
    assert_int_equal(get_le16(r + 14), 0x6040);
    put_le16(lt, 9);
    info_req(d, 1, lt, 2, r);
    assert_int_equal(r[8], 7);
    d->ops->destroy(d);
}

static void descriptions(void **state)
{
    struct sim_device *d = servo(0);
    uint8_t r[1024], q[4];
    put_le16(q, 0x1018);
    size_t rl = info_req(d, 3, q, 2, r);
    assert_int_equal(r[8], 4);
    assert_int_equal(get_le16(r + 12), 0x1018);
    assert_int_equal(r[16], 4);                  /* max subindex */
    assert_int_equal(r[17], OD_RECORD);
    assert_int_equal(rl - 18, strlen("Identity"));
    assert_memory_equal(r + 18, "Identity", 8);
    put_le16(q, 0x6041);
    info_req(d, 3, q, 2, r);
    assert_int_equal(get_le16(r + 14), OD_UINT);
    assert_int_equal(r[17], OD_VAR);
    /* entry description: type, bits, access with PDO flags, name */
    put_le16(q, 0x6041);
    q[2] = 0;
    q[3] = 0;
    rl = info_req(d, 5, q, 4, r);
    assert_int_equal(r[8], 6);
    assert_int_equal(get_le16(r + 12), 0x6041);
    assert_int_equal(r[14], 0);
    assert_int_equal(get_le16(r + 16), OD_UINT);
    assert_int_equal(get_le16(r + 18), 16);
    assert_int_equal(get_le16(r + 20), OD_RO | OD_TXPDO);
    assert_memory_equal(r + 22, "Statusword", 10);
    assert_int_equal(rl, 22 + 10);
    put_le16(q, 0x1C12);
    q[2] = 1;
    info_req(d, 5, q, 4, r);
    assert_int_equal(get_le16(r + 20), OD_RW_PREOP);
    /* errors: SDO info error opcode 7 with the abort code */
    put_le16(q, 0x2000);
    info_req(d, 3, q, 2, r);
    assert_int_equal(r[8], 7);
    assert_int_equal(get_le32(r + 12), 0x06020000);
    put_le16(q, 0x1018);
    q[2] = 7;
    info_req(d, 5, q, 4, r);
    assert_int_equal(get_le32(r + 12), 0x06090011);
    info_req(d, 0x33, q, 4, r);
    assert_int_equal(r[8], 7);
    assert_int_equal(get_le32(r + 12), 0x05040001);
    d->ops->destroy(d);
}

static void not_supported(void **state)
{
    /* a device without SDO info in its ESI answers with a mailbox error */
    struct sim_device *d = servo(0);
    sim_dev_of(d)->coe.details &= (uint8_t)~0x02;
    uint8_t r[1024], q[2] = { 0x18, 0x10 };
    info_req(d, 3, q, 2, r);
    assert_int_equal(r[5] & 0x0F, MBX_TYPE_ERR);
    assert_int_equal(get_le16(r + 8), MBXERR_SERVICE_NOT_SUPPORTED);
    d->ops->destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(od_list_fragmented),
        cmocka_unit_test(od_list_counts),
        cmocka_unit_test(descriptions),
        cmocka_unit_test(not_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
