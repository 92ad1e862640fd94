/* Bit-packed PDO mapping: BOOLEAN / BITn entries laid out bit-exactly (bit 0 of byte 0
 * first) next to whole-byte entries, checked against hand-computed payloads; the bit
 * access API; the configuration's acceptance and payload sizes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <takt/plk.h>
#include "plk/pdo.h"
#include "plk/config.h"
#include "plk/mn.h"

/* Object storage of the test: 0x6000/1..3, 0x6001/1, 0x6002/1, 0x6003/1. */
struct objs { uint8_t b1, bit3, b4, u8; uint8_t bit12[2]; uint8_t b30; };

static uint8_t *resolve(void *ctx, uint16_t index, uint8_t sub, uint16_t bytes, uint32_t *abort)
{
    struct objs *o = ctx;
    uint8_t *p = NULL;
    uint16_t cap = 1;
    if (index == 0x6000 && sub == 1) p = &o->b1;
    if (index == 0x6000 && sub == 2) p = &o->bit3;
    if (index == 0x6000 && sub == 3) p = &o->b4;
    if (index == 0x6001 && sub == 1) p = &o->u8;
    if (index == 0x6002 && sub == 1) { p = o->bit12; cap = 2; }
    if (index == 0x6003 && sub == 1) p = &o->b30;
    if (!p || bytes > cap) {
        *abort = 0x06020000;
        return NULL;
    }
    return p;
}

static const struct plk_pdo_entry layout[] = {
    { 0x6000, 1, 0, 1 },      /* BOOLEAN   bit 0 */
    { 0x6000, 2, 1, 3 },      /* BIT3      bits 1..3 */
    { 0x6000, 3, 4, 1 },      /* BOOLEAN   bit 4 */
    { 0x6001, 1, 8, 8 },      /* UNSIGNED8 byte 1 */
    { 0x6002, 1, 16, 12 },    /* BIT12     bits 16..27 (byte 2, low nibble of byte 3) */
    { 0x6003, 1, 30, 1 },     /* BOOLEAN   bit 30 */
};

static void bit_layout_tpdo_and_rpdo(void **state)
{
    (void)state;
    struct objs o = { .b1 = 1, .bit3 = 5, .b4 = 1, .u8 = 0xA5, .bit12 = { 0xBC, 0x0A }, .b30 = 1 };
    struct plk_pdo_map m;
    char err[200];
    assert_int_equal(plk_pdo_build(&m, layout, 6, 36, resolve, &o, err, sizeof err), 0);
    assert_int_equal(m.size, 4);       /* bit 30 lies in byte 3 */
    /* byte 0: 1 | 101 << 1 | 1 << 4 = 0x1B; byte 3: 0xA | 1 << 6 = 0x4A */
    uint8_t p[36];
    memset(p, 0, sizeof p);
    plk_pdo_to_frame(&m, p);
    assert_memory_equal(p, "\x1B\xA5\xBC\x4A", 4);
    /* unmapped bits are left as they were */
    memset(p, 0xFF, sizeof p);
    o.b1 = 0;
    o.bit3 = 2;
    plk_pdo_to_frame(&m, p);
    /* byte 0: 0 | 010 << 1 | 1 << 4 | 0xE0 = 0xF4; byte 3: 0xA | 0x30 | 0x40 | 0x80 */
    assert_memory_equal(p, "\xF4\xA5\xBC\xFA", 4);
    /* RPDO: the same layout back into the objects, high object bits cleared */
    const uint8_t in[4] = { 0x0E, 0x5A, 0x21, 0xB3 };
    memset(&o, 0xEE, sizeof o);
    assert_int_equal(plk_pdo_from_frame(&m, in, sizeof in), 0);
    assert_int_equal(o.b1, 0);            /* bit 0 of 0x0E */
    assert_int_equal(o.bit3, 7);          /* bits 1..3 of 0x0E */
    assert_int_equal(o.b4, 0);            /* bit 4 */
    assert_int_equal(o.u8, 0x5A);
    assert_int_equal(o.bit12[0], 0x21);   /* 0x321: low nibble 3 of 0xB3 */
    assert_int_equal(o.bit12[1], 0x03);
    assert_int_equal(o.b30, 0);           /* bit 6 of 0xB3 = 0 */
    const uint8_t in2[4] = { 0, 0, 0, 0x40 };
    assert_int_equal(plk_pdo_from_frame(&m, in2, sizeof in2), 0);
    assert_int_equal(o.b30, 1);
    assert_int_equal(plk_pdo_from_frame(&m, in2, 3), -EMSGSIZE);
}

static void bit_layout_errors(void **state)
{
    (void)state;
    struct objs o;
    struct plk_pdo_map m;
    char err[200];
    /* a whole-byte object off a byte boundary */
    struct plk_pdo_entry e = { 0x6001, 1, 4, 8 };
    assert_int_equal(plk_pdo_build(&m, &e, 1, 36, resolve, &o, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "multiples of 8"));
    assert_non_null(strstr(err, "0x6001/1"));
    /* a bit entry longer than 63 bits */
    e = (struct plk_pdo_entry){ 0x6002, 1, 0, 65 };
    assert_int_equal(plk_pdo_build(&m, &e, 1, 36, resolve, &o, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "65 bits"));
    /* the last bit beyond the payload limit */
    e = (struct plk_pdo_entry){ 0x6003, 1, 36 * 8, 1 };
    assert_int_equal(plk_pdo_build(&m, &e, 1, 36, resolve, &o, err, sizeof err), -EMSGSIZE);
    /* BIT12 needs 2 object bytes: a 1-byte object refuses it */
    e = (struct plk_pdo_entry){ 0x6003, 1, 0, 12 };
    assert_int_equal(plk_pdo_build(&m, &e, 1, 36, resolve, &o, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "2 bytes"));
}

static void bit_api(void **state)
{
    (void)state;
    uint8_t img[4] = { 0 };
    uint64_t v;
    assert_int_equal(takt_plk_set_bits(img, sizeof img, 3, 1, 1), 0);
    assert_int_equal(takt_plk_set_bits(img, sizeof img, 12, 12, 0xABC), 0);
    assert_memory_equal(img, "\x08\xC0\xAB\x00", 4);
    assert_int_equal(takt_plk_get_bits(img, sizeof img, 12, 12, &v), 0);
    assert_int_equal(v, 0xABC);
    assert_int_equal(takt_plk_get_bits(img, sizeof img, 3, 1, &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(takt_plk_set_bits(img, sizeof img, 3, 1, 0), 0);
    assert_int_equal(img[0], 0);
    assert_int_equal(takt_plk_get_bits(img, sizeof img, 0, 32, &v), 0);
    assert_int_equal(v, 0x00ABC000);
    /* out of range: never touches memory beyond len */
    assert_int_equal(takt_plk_get_bits(img, sizeof img, 25, 8, &v), -ERANGE);
    assert_int_equal(takt_plk_set_bits(img, sizeof img, 31, 2, 3), -ERANGE);
    assert_int_equal(takt_plk_get_bits(img, sizeof img, 0, 0, &v), -ERANGE);
    assert_int_equal(takt_plk_get_bits(img, sizeof img, 0, 65, &v), -ERANGE);
    assert_int_equal(takt_plk_get_bits(NULL, 4, 0, 1, &v), -ERANGE);
}

static void config_accepts_bit_maps(void **state)
{
    (void)state;
    struct plk_net_config cfg;
    char err[200];
    /* offsets follow on; the UNSIGNED8 after the bits moves to the next byte */
    const char *txt = "[node 1]\ntx_map = 0x6000/1:1, 0x6000/2:3, 0x6000/3:1, 0x6001/1:8, "
                      "0x6002/1:12, 0x6003/1:1@30\nrx_map = 0x6200/1:1, 0x6200/2:1\n";
    assert_int_equal(plk_config_parse(&cfg, txt, strlen(txt), err, sizeof err), 0);
    const struct plk_cfg_node *n = &cfg.node[1];
    assert_int_equal(n->n_tx, 6);
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(n->tx_map[i].bit_offset, layout[i].bit_offset);
        assert_int_equal(n->tx_map[i].bit_len, layout[i].bit_len);
    }
    assert_int_equal(n->rx_map[1].bit_offset, 1);
    /* the MN's process image of the node rounds the last partial byte up */
    struct plk_mn mn;
    const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0xF0 };
    assert_int_equal(plk_mn_init(&mn, &cfg, mac, 0, err, sizeof err), 0);
    assert_int_equal(mn.node[1]->in_size, 4);
    assert_int_equal(mn.node[1]->out_size, 1);
    plk_mn_free(&mn);
    /* overlapping bits are named */
    const char *ovl = "[node 1]\ntx_map = 0x6000/1:3@0, 0x6000/2:1@2\n";
    assert_int_equal(plk_config_parse(&cfg, ovl, strlen(ovl), err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "overlaps"));
    const char *unal = "[node 1]\ntx_map = 0x6001/1:16@4\n";
    assert_int_equal(plk_config_parse(&cfg, unal, strlen(unal), err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "node 1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bit_layout_tpdo_and_rpdo),
        cmocka_unit_test(bit_layout_errors),
        cmocka_unit_test(bit_api),
        cmocka_unit_test(config_accepts_bit_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
