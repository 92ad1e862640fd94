/* Object dictionary (typed entries, access, ranges, defaults, hooks, CN profile) and
 * PDO copy maps built from 0x1600/0x1A00 (EPSG DS 301 object dictionary). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "plk/od.h"
#include "plk/pdo.h"
#include "plk/proto.h"

static struct plk_od_entry ent[300];
static uint8_t pool[8192];
static struct plk_od od;

static int setup(void **state)
{
    plk_od_init(&od, ent, 300, pool, sizeof pool);
    return 0;
}

static void add_find_sorted(void **state)
{
    setup(state);
    assert_int_equal(plk_od_add(&od, 0x2000, 2, PLK_OT_U16, PLK_OA_RW, 7), 0);
    assert_int_equal(plk_od_add(&od, 0x1000, 0, PLK_OT_U32, PLK_OA_CONST, 0x191), 0);
    assert_int_equal(plk_od_add(&od, 0x2000, 1, PLK_OT_I8, PLK_OA_RW, (uint64_t)-3), 0);
    assert_int_equal(plk_od_add(&od, 0x2000, 1, PLK_OT_U8, PLK_OA_RW, 0), -EEXIST);
    assert_int_equal(plk_od_add(&od, 0x2001, 0, PLK_OT_DOMAIN, PLK_OA_RW, 0), -EINVAL);
    assert_int_equal(od.n, 3);
    assert_int_equal(od.entries[0].index, 0x1000);
    assert_int_equal(od.entries[1].sub, 1);
    assert_int_equal(od.entries[2].sub, 2);
    assert_non_null(plk_od_find(&od, 0x2000, 2));
    assert_null(plk_od_find(&od, 0x2000, 3));
    assert_true(plk_od_has_index(&od, 0x2000));
    assert_false(plk_od_has_index(&od, 0x2001));
    uint64_t v;
    assert_int_equal(plk_od_get_u64(&od, 0x2000, 1, &v), 0);
    assert_int_equal((int64_t)v, -3);                 /* sign-extended */
    assert_int_equal(plk_od_u32(&od, 0x2000, 2, 0), 7);
    assert_int_equal(plk_od_u32(&od, 0x3000, 0, 99), 99);
    assert_memory_equal(plk_od_find(&od, 0x1000, 0)->data, "\x91\x01\x00\x00", 4);
}

static void remote_access_rules(void **state)
{
    setup(state);
    plk_od_add(&od, 0x1000, 0, PLK_OT_U32, PLK_OA_CONST, 1);
    plk_od_add(&od, 0x2000, 0, PLK_OT_U16, PLK_OA_WRITE, 0);
    plk_od_add(&od, 0x2001, 0, PLK_OT_U32, PLK_OA_RW, 500);
    plk_od_set_range(&od, 0x2001, 0, 400, 1000);
    plk_od_add(&od, 0x2002, 0, PLK_OT_I16, PLK_OA_RW, 0);
    plk_od_set_range(&od, 0x2002, 0, -10, 10);
    plk_od_add_buf(&od, 0x2003, 0, PLK_OT_VSTRING, PLK_OA_RW, 8, "abc", 3);
    uint8_t b[16];
    size_t n;
    uint32_t abort;
    assert_int_equal(plk_od_read(&od, 0x1000, 0, b, sizeof b, &n, &abort), 0);
    assert_int_equal(n, 4);
    assert_int_equal(plk_od_write(&od, 0x1000, 0, b, 4, &abort), -EPERM);
    assert_int_equal(abort, PLK_ABORT_READ_ONLY);
    assert_int_equal(plk_od_set_u64(&od, 0x1000, 0, 5), -EINVAL);  /* const even locally */
    assert_int_equal(plk_od_read(&od, 0x2000, 0, b, sizeof b, &n, &abort), -EPERM);
    assert_int_equal(abort, PLK_ABORT_WRITE_ONLY);
    assert_int_equal(plk_od_read(&od, 0x3000, 0, b, sizeof b, &n, &abort), -ENOENT);
    assert_int_equal(abort, PLK_ABORT_NO_OBJECT);
    assert_int_equal(plk_od_read(&od, 0x2000, 1, b, sizeof b, &n, &abort), -ENOENT);
    assert_int_equal(abort, PLK_ABORT_NO_SUBINDEX);
    assert_int_equal(plk_od_read(&od, 0x2001, 0, b, 2, &n, &abort), -EMSGSIZE);
    uint32_t v = 300;
    assert_int_equal(plk_od_write(&od, 0x2001, 0, &v, 4, &abort), -ERANGE);
    assert_int_equal(abort, PLK_ABORT_VALUE_LOW);
    v = 1001;
    assert_int_equal(plk_od_write(&od, 0x2001, 0, &v, 4, &abort), -ERANGE);
    assert_int_equal(abort, PLK_ABORT_VALUE_HIGH);
    v = 1000;
    assert_int_equal(plk_od_write(&od, 0x2001, 0, &v, 4, &abort), 0);
    assert_int_equal(plk_od_u32(&od, 0x2001, 0, 0), 1000);
    assert_int_equal(plk_od_write(&od, 0x2001, 0, &v, 3, &abort), -EMSGSIZE);
    assert_int_equal(abort, PLK_ABORT_LENGTH_LOW);
    assert_int_equal(plk_od_write(&od, 0x2001, 0, b, 5, &abort), -EMSGSIZE);
    assert_int_equal(abort, PLK_ABORT_LENGTH_HIGH);
    int16_t s = -11;
    assert_int_equal(plk_od_write(&od, 0x2002, 0, &s, 2, &abort), -ERANGE);
    assert_int_equal(abort, PLK_ABORT_VALUE_LOW);
    s = -10;
    assert_int_equal(plk_od_write(&od, 0x2002, 0, &s, 2, &abort), 0);
    /* strings: any length up to the capacity */
    assert_int_equal(plk_od_read(&od, 0x2003, 0, b, sizeof b, &n, &abort), 0);
    assert_int_equal(n, 3);
    assert_int_equal(plk_od_write(&od, 0x2003, 0, "takt-cn1", 8, &abort), 0);
    assert_int_equal(plk_od_write(&od, 0x2003, 0, "123456789", 9, &abort), -EMSGSIZE);
    assert_int_equal(plk_od_read(&od, 0x2003, 0, b, sizeof b, &n, &abort), 0);
    assert_int_equal(n, 8);
    assert_memory_equal(b, "takt-cn1", 8);
    plk_od_reset_defaults(&od);
    assert_int_equal(plk_od_u32(&od, 0x2001, 0, 0), 500);
    assert_int_equal(plk_od_find(&od, 0x2003, 0)->size, 0);
}

static int hook_calls;
static uint16_t hook_index;
static void hook(void *ctx, struct plk_od *o, const struct plk_od_entry *e)
{
    hook_calls++;
    hook_index = e->index;
}

static void hook_and_full(void **state)
{
    static struct plk_od_entry small[2];
    static uint8_t tiny[6];
    struct plk_od o;
    plk_od_init(&o, small, 2, tiny, sizeof tiny);
    plk_od_set_hook(&o, hook, NULL);
    assert_int_equal(plk_od_add(&o, 0x1006, 0, PLK_OT_U32, PLK_OA_RW, 0), 0);
    assert_int_equal(plk_od_add(&o, 0x1007, 0, PLK_OT_U32, PLK_OA_RW, 0), -ENOSPC); /* pool */
    assert_int_equal(plk_od_add(&o, 0x1007, 0, PLK_OT_U16, PLK_OA_RW, 0), 0);
    assert_int_equal(plk_od_add(&o, 0x1008, 0, PLK_OT_U8, PLK_OA_RW, 0), -ENOSPC);  /* entries */
    uint32_t v = 9, abort;
    hook_calls = 0;
    assert_int_equal(plk_od_write(&o, 0x1006, 0, &v, 4, &abort), 0);
    assert_int_equal(hook_calls, 1);
    assert_int_equal(hook_index, 0x1006);
    assert_int_equal(plk_od_write(&o, 0x1006, 0, &v, 2, &abort), -EMSGSIZE);
    assert_int_equal(hook_calls, 1);                 /* failed writes do not call it */
}

static void cn_profile(void **state)
{
    setup(state);
    struct plk_od_cn_params p;
    plk_od_cn_params_default(&p, 12);
    assert_int_equal(plk_od_add_cn_profile(&od, &p), 0);
    assert_int_equal(plk_od_u32(&od, PLK_OD_DEVICE_TYPE, 0, 0), 0x000F0191);
    assert_int_equal(plk_od_u32(&od, PLK_OD_CYCLE_LEN, 0, 0), 50000);
    assert_int_equal(plk_od_u32(&od, PLK_OD_IDENTITY, 0, 0), 4);
    assert_int_equal(plk_od_u32(&od, PLK_OD_IDENTITY, 3, 0), 0x00020007);
    assert_int_equal(plk_od_u32(&od, PLK_OD_FEATURE_FLAGS, 0, 0), PLK_FEAT_OPLK_DEMO_CN);
    assert_int_equal(plk_od_u32(&od, PLK_OD_EPL_NODE_ID, 1, 0), 12);
    assert_int_equal(plk_od_u32(&od, PLK_OD_CN_LOSS_SOC, 3, 0), 15);
    assert_int_equal(plk_od_u32(&od, PLK_OD_LOSS_SOC_TOLERANCE, 0, 0), 100000);
    assert_int_equal(plk_od_u32(&od, PLK_OD_CYCLE_TIMING, PLK_CT_PRES_ACT_PAYLOAD, 0), 36);
    assert_int_equal(plk_od_u32(&od, PLK_OD_RPDO_MAP, 0, 9), 0);   /* empty mapping */
    assert_non_null(plk_od_find(&od, PLK_OD_TPDO_MAP, 25));
    assert_int_equal(plk_od_u32(&od, PLK_OD_CN_BASIC_ETH_TIMEOUT, 0, 0), 5000000);
    uint8_t c = 26;
    uint32_t abort;
    assert_int_equal(plk_od_write(&od, PLK_OD_RPDO_MAP, 0, &c, 1, &abort), -ERANGE);
    assert_int_equal(abort, PLK_ABORT_VALUE_HIGH);
    assert_int_equal(plk_od_add_cn_profile(&od, &p), -EEXIST);
    p.node_id = 0;
    assert_int_equal(plk_od_add_cn_profile(&od, &p), -EINVAL);
}

static void pdo_entry_codec(void **state)
{
    struct plk_pdo_entry e = plk_pdo_entry_decode(0x0008000000016200ull);
    assert_int_equal(e.index, 0x6200);
    assert_int_equal(e.sub, 1);
    assert_int_equal(e.bit_offset, 0);
    assert_int_equal(e.bit_len, 8);
    e = (struct plk_pdo_entry){ 0x6000, 3, 24, 16 };
    assert_true(plk_pdo_entry_encode(&e) == 0x0010001800036000ull);
}

static void pdo_maps_from_od(void **state)
{
    setup(state);
    struct plk_od_cn_params p;
    plk_od_cn_params_default(&p, 1);
    plk_od_add_cn_profile(&od, &p);
    plk_od_add(&od, 0x6000, 1, PLK_OT_U8, PLK_OA_READ | PLK_OA_PDO, 0);
    plk_od_add(&od, 0x6000, 2, PLK_OT_U16, PLK_OA_READ | PLK_OA_PDO, 0);
    plk_od_add(&od, 0x6200, 1, PLK_OT_U8, PLK_OA_RW | PLK_OA_PDO, 0);
    plk_od_add(&od, 0x6300, 0, PLK_OT_U8, PLK_OA_RW, 0);              /* not mappable */
    /* TPDO: 0x6000/1 at byte 0, 0x6000/2 at byte 2 */
    plk_od_set_u64(&od, 0x1A00, 1, 0x0008000000016000ull);
    plk_od_set_u64(&od, 0x1A00, 2, 0x0010001000026000ull);
    plk_od_set_u64(&od, 0x1A00, 0, 2);
    plk_od_set_u64(&od, 0x1800, 2, 0x11);
    struct plk_pdo_map m;
    char err[200];
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1800, 0x1A00, 36, err, sizeof err), 0);
    assert_int_equal(m.n, 2);
    assert_int_equal(m.size, 4);
    assert_int_equal(m.version, 0x11);
    plk_od_set_u64(&od, 0x6000, 1, 0xA5);
    plk_od_set_u64(&od, 0x6000, 2, 0xBEEF);
    uint8_t payload[36] = { 0 };
    plk_pdo_to_frame(&m, payload);
    assert_memory_equal(payload, "\xA5\x00\xEF\xBE", 4);
    /* RPDO */
    plk_od_set_u64(&od, 0x1600, 1, 0x0008000000016200ull);
    plk_od_set_u64(&od, 0x1600, 0, 1);
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1400, 0x1600, 36, err, sizeof err), 0);
    uint8_t in[36] = { 0x3C };
    assert_int_equal(plk_pdo_from_frame(&m, in, sizeof in), 0);
    assert_int_equal(plk_od_u32(&od, 0x6200, 1, 0), 0x3C);
    assert_int_equal(plk_pdo_from_frame(&m, in, 0), -EMSGSIZE);     /* E_PDO_SHORT_RX */
    /* errors: not mappable, missing, unaligned, beyond the payload */
    plk_od_set_u64(&od, 0x1600, 1, 0x0008000000006300ull);
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1400, 0x1600, 36, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "0x6300/0"));
    assert_non_null(strstr(err, "0x06040041"));
    plk_od_set_u64(&od, 0x1600, 1, 0x0008000000017777ull);
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1400, 0x1600, 36, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "0x06020000"));
    plk_od_set_u64(&od, 0x1600, 1, 0x0008000400016200ull);
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1400, 0x1600, 36, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "multiples of 8"));
    plk_od_set_u64(&od, 0x1600, 1, 0x0008012000016200ull);     /* byte 36 */
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1400, 0x1600, 36, err, sizeof err), -EMSGSIZE);
    assert_non_null(strstr(err, "payload limit of 36"));
    plk_od_set_u64(&od, 0x1600, 1, 0x0010000000016200ull);     /* 16 bits into a U8 */
    assert_int_equal(plk_pdo_build_od(&m, &od, 0x1400, 0x1600, 36, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "0x06040042"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_find_sorted),
        cmocka_unit_test(remote_access_rules),
        cmocka_unit_test(hook_and_full),
        cmocka_unit_test(cn_profile),
        cmocka_unit_test(pdo_entry_codec),
        cmocka_unit_test(pdo_maps_from_od),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
