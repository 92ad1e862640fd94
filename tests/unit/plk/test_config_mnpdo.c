/* The MN's own PDO objects (0x1400/0x1600 for each node's PRes, 0x1800/0x1A00 for its
 * PReq) read from a CDC or the text file: they size the MN's process image, and a
 * mismatch with the CN's mapping is rejected with node, objects and sizes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "plk/cdc.h"
#include "plk/config.h"
#include "plk/mn.h"

static char err[300];
static struct plk_net_config cfg;

#define MAPE(idx, sub, off, bits) \
    ((uint64_t)(idx) | (uint64_t)(sub) << 16 | (uint64_t)(off) << 32 | (uint64_t)(bits) << 48)

/* CDC: node 1 (CN maps rx_bits of 0x6200/1 and tx_bits of 0x6000/1), MN RPDO channel 0
 * with mn_rx[] and TPDO channel 3 with mn_tx[] for node 1. */
static int build(uint8_t *b, size_t cap, unsigned rx_bits, unsigned tx_bits,
                 const uint64_t *mn_rx, unsigned n_mn_rx, const uint64_t *mn_tx, unsigned n_mn_tx)
{
    uint8_t d[256];
    int dl = plk_cdc_begin(d, sizeof d);
    if (rx_bits) {
        /* rx_bits > 64: a second entry (0x6200/2, 8 bits) follows 8 bits of 0x6200/1 */
        unsigned first = rx_bits > 64 ? 8 : rx_bits;
        dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1600, 1, MAPE(0x6200, 1, 0, first), 8);
        if (rx_bits > 64)
            dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1600, 2, MAPE(0x6200, 2, 8, 8), 8);
        dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1600, 0, rx_bits > 64 ? 2 : 1, 1);
    }
    if (tx_bits) {
        dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1A00, 1, MAPE(0x6000, 1, 0, tx_bits), 8);
        dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1A00, 0, 1, 1);
    }
    dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1006, 0, 1000, 4);
    int u = plk_cdc_begin(b, cap);
    u = plk_cdc_append_u(b, cap, (size_t)u, PLK_OD_NODE_ASSIGNMENT, 1, 0x80000007u, 4);
    u = plk_cdc_append_u(b, cap, (size_t)u, PLK_OD_CYCLE_LEN, 0, 1000, 4);
    u = plk_cdc_append(b, cap, (size_t)u, PLK_OD_CONCISE_DCF_LIST, 1, d, (uint32_t)dl);
    /* as openCONFIGURATOR writes them: count 0, node ID, entries, count */
    u = plk_cdc_append_u(b, cap, (size_t)u, 0x1600, 0, 0, 1);
    u = plk_cdc_append_u(b, cap, (size_t)u, 0x1400, 1, 1, 1);
    for (unsigned i = 0; i < n_mn_rx; i++)
        u = plk_cdc_append_u(b, cap, (size_t)u, 0x1600, (uint8_t)(i + 1), mn_rx[i], 8);
    u = plk_cdc_append_u(b, cap, (size_t)u, 0x1600, 0, n_mn_rx, 1);
    u = plk_cdc_append_u(b, cap, (size_t)u, 0x1803, 1, 1, 1);
    for (unsigned i = 0; i < n_mn_tx; i++)
        u = plk_cdc_append_u(b, cap, (size_t)u, 0x1A03, (uint8_t)(i + 1), mn_tx[i], 8);
    u = plk_cdc_append_u(b, cap, (size_t)u, 0x1A03, 0, n_mn_tx, 1);
    return u;
}

static int load(unsigned rx_bits, unsigned tx_bits, const uint64_t *mn_rx, unsigned n_mn_rx,
                const uint64_t *mn_tx, unsigned n_mn_tx)
{
    static uint8_t b[2048];
    int u = build(b, sizeof b, rx_bits, tx_bits, mn_rx, n_mn_rx, mn_tx, n_mn_tx);
    assert_true(u > 0);
    struct plk_cdc c;
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), 0);
    return plk_config_from_cdc(&cfg, &c, err, sizeof err);
}

static void sizes_from_mn_objects(void **state)
{
    (void)state;
    /* 4 bytes each way: two 16-bit MN variables into the PReq, one 32-bit from the PRes */
    const uint64_t rx[] = { MAPE(0xA4C0, 1, 0, 32) };
    const uint64_t tx[] = { MAPE(0xA040, 1, 0, 16), MAPE(0xA040, 2, 16, 16) };
    /* the CN maps one 32-bit object each way: its entries must meet the MN's */
    assert_int_equal(load(32, 32, rx, 1, tx, 2), -EINVAL);
    assert_non_null(strstr(err, "node 1: MN 0x1A03/1 maps 16 bits at bit 0 of its PReq"));
    assert_non_null(strstr(err, "(MN 4 bytes, CN 4 bytes)"));
    /* without a CN mapping the MN's objects alone size the image */
    assert_int_equal(load(0, 0, rx, 1, tx, 2), 0);
    const struct plk_cfg_node *n = &cfg.node[1];
    assert_true(n->has_mn_map);
    assert_false(n->has_mapping);
    assert_int_equal(n->n_mn_rx, 1);
    assert_int_equal(n->n_mn_tx, 2);
    assert_int_equal(n->mn_tx_map[1].index, 0xA040);
    assert_int_equal(n->mn_tx_map[1].bit_offset, 16);
    struct plk_mn mn;
    const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0xF0 };
    assert_int_equal(plk_mn_init(&mn, &cfg, mac, 0, err, sizeof err), 0);
    assert_int_equal(mn.node[1]->in_size, 4);
    assert_int_equal(mn.node[1]->out_size, 4);
    plk_mn_free(&mn);
}

static void mismatch_sizes_named(void **state)
{
    (void)state;
    const uint64_t rx8[] = { MAPE(0xA4C0, 1, 0, 8) };
    const uint64_t tx8[] = { MAPE(0xA040, 1, 0, 8) };
    /* CN sends 2 bytes in its PRes, the MN reads 1 */
    assert_int_equal(load(8, 16, rx8, 1, tx8, 1), -EINVAL);
    assert_non_null(strstr(err, "node 1"));
    assert_non_null(strstr(err, "0x1600"));
    assert_non_null(strstr(err, "0x1A00"));
    assert_non_null(strstr(err, "PRes"));
    /* CN reads 1 byte of the PReq, the MN sends 2 */
    const uint64_t tx16[] = { MAPE(0xA040, 1, 0, 8), MAPE(0xA040, 2, 8, 8) };
    assert_int_equal(load(8, 8, rx8, 1, tx16, 2), -EINVAL);
    assert_non_null(strstr(err, "MN 0x1A03/2 maps 8 bits at bit 8 of its PReq"));
    assert_non_null(strstr(err, "(MN 2 bytes, CN 1 bytes)"));
    /* the CN reads 16 bits where the MN sends 8 */
    assert_int_equal(load(16, 8, rx8, 1, tx8, 1), -EINVAL);
    assert_non_null(strstr(err, "MN 0x1A03/1 maps 8 bits at bit 0 of its PReq"));
    /* the MN's entry is met, but the CN reads a second byte the MN never sends */
    assert_int_equal(load(65, 8, rx8, 1, tx8, 1), -EINVAL);
    assert_non_null(strstr(err, "MN 0x1A03 covers 1 bytes of its PReq, the CN's 0x1600 2 bytes"));
    /* matching maps load */
    assert_int_equal(load(8, 8, rx8, 1, tx8, 1), 0);
    /* an MN entry beyond the PRes payload limit of 36 */
    const uint64_t far[] = { MAPE(0xA4C0, 1, 40 * 8, 8) };
    assert_int_equal(load(0, 0, far, 1, tx8, 1), -EINVAL);
    assert_non_null(strstr(err, "node 1, 0x1600/1"));
    assert_non_null(strstr(err, "36 bytes"));
}

static void text_keys_round_trip(void **state)
{
    (void)state;
    const char *t = "[node 5]\nmn_rx_map = 0xA4C0/1:8, 0xA4C1/1:1\nmn_tx_map = 0xA040/1:16\n";
    assert_int_equal(plk_config_parse(&cfg, t, strlen(t), err, sizeof err), 0);
    assert_true(cfg.node[5].has_mn_map);
    assert_int_equal(cfg.node[5].n_mn_rx, 2);
    assert_int_equal(cfg.node[5].mn_rx_map[1].bit_offset, 8);
    char out[8192];
    int n = plk_config_format(&cfg, out, sizeof out);
    assert_true(n > 0);
    assert_non_null(strstr(out, "mn_tx_map = 0xA040/1:16@0"));
    struct plk_net_config c2;
    assert_int_equal(plk_config_parse(&c2, out, (size_t)n, err, sizeof err), 0);
    assert_int_equal(c2.node[5].n_mn_rx, 2);
    assert_int_equal(c2.node[5].mn_rx_map[1].bit_len, 1);
}

static void demo_3cn_fixture(void **state)
{
    (void)state;
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/powerlink-config/Demo_3CN/mnobd.cdc", dir ? dir : "/nonexistent");
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "skip: %s not found\n", path);
        skip();
    }
    static uint8_t b[4096];
    size_t len = fread(b, 1, sizeof b, f);
    fclose(f);
    struct plk_cdc c;
    assert_int_equal(plk_cdc_parse(&c, b, len, err, sizeof err), 0);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), 0);
    /* mnobd.txt: 0x1400-02/1 = 1, 0x20, 0x6E; 0x1600-02/1 = 8 bits of 0xA4C0/1..3;
     * 0x1800-02 / 0x1A00-02 = 8 bits of 0xA040/1..3 */
    const uint8_t ids[3] = { 1, 32, 110 };
    for (unsigned i = 0; i < 3; i++) {
        const struct plk_cfg_node *n = &cfg.node[ids[i]];
        assert_true(n->has_mn_map);
        assert_int_equal(n->n_mn_rx, 1);
        assert_int_equal(n->mn_rx_map[0].index, 0xA4C0);
        assert_int_equal(n->mn_rx_map[0].sub, i + 1);
        assert_int_equal(n->mn_rx_map[0].bit_len, 8);
        assert_int_equal(n->mn_rx_chan, i);
        assert_int_equal(n->n_mn_tx, 1);
        assert_int_equal(n->mn_tx_map[0].index, 0xA040);
        assert_int_equal(n->mn_tx_map[0].sub, i + 1);
        assert_int_equal(n->mn_tx_chan, i);
    }
    struct plk_mn mn;
    const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0xF0 };
    assert_int_equal(plk_mn_init(&mn, &cfg, mac, 0, err, sizeof err), 0);
    assert_int_equal(mn.node[32]->in_size, 1);
    assert_int_equal(mn.node[32]->out_size, 1);
    plk_mn_free(&mn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_from_mn_objects),
        cmocka_unit_test(mismatch_sizes_named),
        cmocka_unit_test(text_keys_round_trip),
        cmocka_unit_test(demo_3cn_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
