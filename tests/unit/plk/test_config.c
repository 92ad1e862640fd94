/* Network configuration: takt's text format (good, round trip, each kind of mistake
 * rejected with line, node, object and reason), the same configuration derived from
 * openCONFIGURATOR's Demo_3CN mnobd.cdc, and per-CN DCFs generated from it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cdc.h"
#include "plk/config.h"

static struct plk_net_config cfg, cfg2;
static char err[300];

static const char good[] =
    "# three CNs, one chained\n"
    "[network]\n"
    "cycle_us = 2000\n"
    "async_mtu = 1500   ; comment after a value\n"
    "cycle_exceed_threshold = 0x28\n"
    "\n"
    "[nodes 1-3]\n"
    "preq_payload = 40\n"
    "rx_map = 0x6200/1:8, 0x6200/2:8\n"
    "tx_map = 0x6000/1:8@16\n"
    "[node 2]\n"
    "mandatory = yes\n"
    "vendor_id = 0x12345678\n"
    "pres_timeout_ns = 40000\n"
    "[node 3]\n"
    "chained = yes\n"
    "pres_time_first_ns = 15000\n";

static void parse_good(void **state)
{
    assert_int_equal(plk_config_parse(&cfg, good, strlen(good), err, sizeof err), 0);
    assert_int_equal(cfg.cycle_us, 2000);
    assert_int_equal(cfg.async_mtu, 1500);
    assert_int_equal(cfg.cycle_exceed_threshold, 40);
    assert_int_equal(cfg.n_nodes, 3);
    assert_true(cfg.pres_mn);                       /* switched on by the chained node */
    const struct plk_cfg_node *n1 = &cfg.node[1], *n2 = &cfg.node[2], *n3 = &cfg.node[3];
    assert_true(n1->present && n2->present && n3->present);
    assert_false(cfg.node[4].present);
    assert_int_equal(n1->preq_payload, 40);
    assert_int_equal(n1->pres_payload, 36);
    assert_int_equal(n1->pres_timeout_ns, 25000);
    assert_false(n1->mandatory);
    assert_false(n1->vendor_check);
    assert_true(n2->mandatory);
    assert_true(n2->assignment & PLK_NA_MANDATORY);
    assert_true(n2->vendor_check);
    assert_int_equal(n2->vendor_id, 0x12345678);
    assert_int_equal(n2->pres_timeout_ns, 40000);
    assert_true(n3->chained);
    assert_true(n3->assignment & PLK_NA_PRES_CHAINING);
    assert_int_equal(n3->pres_time_first_ns, 15000);
    assert_true(n3->has_mapping);
    assert_int_equal(n3->n_rx, 2);
    assert_int_equal(n3->rx_map[1].index, 0x6200);
    assert_int_equal(n3->rx_map[1].sub, 2);
    assert_int_equal(n3->rx_map[1].bit_offset, 8);   /* follows the previous entry */
    assert_int_equal(n3->rx_map[1].bit_len, 8);
    assert_int_equal(n3->n_tx, 1);
    assert_int_equal(n3->tx_map[0].bit_offset, 16);
}

static void format_round_trip(void **state)
{
    static char a[16384], b[16384];
    assert_int_equal(plk_config_parse(&cfg, good, strlen(good), err, sizeof err), 0);
    int n = plk_config_format(&cfg, a, sizeof a);
    assert_true(n > 0 && (size_t)n < sizeof a);
    assert_int_equal(plk_config_parse(&cfg2, a, (size_t)n, err, sizeof err), 0);
    assert_int_equal(plk_config_format(&cfg2, b, sizeof b), n);
    assert_string_equal(a, b);
    assert_int_equal(cfg2.node[2].vendor_id, 0x12345678);
    assert_true(cfg2.node[2].vendor_check);
    assert_false(cfg2.node[1].vendor_check);
    assert_int_equal(cfg2.node[3].n_rx, 2);
    /* too small a buffer: the length needed is returned, output truncated safely */
    char tiny[16];
    assert_int_equal(plk_config_format(&cfg, tiny, sizeof tiny), n);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

/* Each bad file and a piece its message must contain. */
static void expect_bad(const char *text, const char *what1, const char *what2)
{
    int rc = plk_config_parse(&cfg, text, strlen(text), err, sizeof err);
    if (rc == 0 || !strstr(err, what1) || (what2 && !strstr(err, what2)))
        fprintf(stderr, "for:\n%s\ngot %d: %s\n", text, rc, err);
    assert_true(rc < 0);
    assert_non_null(strstr(err, what1));
    if (what2)
        assert_non_null(strstr(err, what2));
}

static void parse_bad(void **state)
{
    expect_bad("[network]\ncycle_us = 1000\n", "no CN configured", NULL);
    expect_bad("[network]\ncycle = 1000\n[node 1]\n", "line 2", "unknown key 'cycle'");
    expect_bad("[node 1]\nmandatory = maybe\n", "line 2: node 1, mandatory", "yes or no");
    expect_bad("[node 7]\npreq_payload = 20\n", "node 7, preq_payload", "36..1490");
    expect_bad("[node 7]\npreq_payload = 12abc\n", "node 7, preq_payload = '12abc'", NULL);
    expect_bad("[network]\nasync_mtu = 100\n[node 1]\n", "[network], async_mtu", NULL);
    expect_bad("[node 240]\n", "line 1", "1-239");
    expect_bad("[nodes 5-3]\n", "first <= last", NULL);
    expect_bad("[cn 1]\n", "section [cn 1]", NULL);
    expect_bad("[node 1\n", "line 1", "[network]");
    expect_bad("cycle_us = 5\n", "outside any section", NULL);
    expect_bad("[node 1]\nsomething\n", "line 2", "key = value");
    expect_bad("[node 4]\nrx_map = 0x6200-1\n", "node 4, rx_map entry 1 '0x6200-1'", NULL);
    /* a BIT4 entry is fine (bit-packed); an UNSIGNED8 off a byte boundary is not */
    expect_bad("[node 4]\nrx_map = 0x6200/1:8@4\n", "node 4, 0x1600/1", "whole number of bytes");
    expect_bad("[node 4]\nrx_map = 0x6200/1:70\n", "node 4, 0x1600/1", "1..63 bits");
    expect_bad("[node 4]\ntx_map = 0x6000/1:8@288\n", "node 4, 0x1A00/1", "beyond the PRes payload of 36");
    expect_bad("[node 4]\ntx_map = 0x6000/1:16, 0x6000/2:8@8\n", "node 4, 0x1A00/2", "overlaps");
    expect_bad("[network]\npres_mn = no\n[node 9]\nchained = yes\n", "node 9, 0x1F81", "PResMN");
    expect_bad("[node 9]\nchained = yes\nasync_only = yes\n", "node 9", "exclude");
    expect_bad("[network]\ncycle_us = 400\n[node 2]\npres_timeout_ns = 400000\n",
               "node 2, 0x1F92", "below the cycle");
    expect_bad("[network]\ncycle_us = 0\n", "cycle_us", "1..60000000");
    expect_bad("[network]\ncycle_us = -5\n", "cycle_us = '-5'", NULL);
    static const char nul[] = "[node 1]\nmandatory = yes\0\n";
    assert_int_equal(plk_config_parse(&cfg, nul, sizeof nul - 1, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "NUL"));
    assert_int_equal(plk_config_load(&cfg, "/nonexistent/x.conf", err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "/nonexistent/x.conf"));
}

static void node_range_and_dcf(void **state)
{
    plk_config_default(&cfg);
    assert_int_equal(plk_config_add_range(&cfg, 1, 40, err, sizeof err), 0);
    assert_int_equal(cfg.n_nodes, 40);
    assert_int_equal(plk_config_check(&cfg, err, sizeof err), 0);
    assert_int_equal(plk_config_add_range(&cfg, 0, 3, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "1-239"));
    cfg.node[5].has_mapping = true;
    cfg.node[5].n_rx = 1;
    cfg.node[5].rx_map[0] = (struct plk_pdo_entry){ 0x6200, 1, 0, 8 };
    uint8_t b[512];
    int n = plk_config_node_dcf(&cfg, 5, b, sizeof b);
    assert_true(n > 0);
    struct plk_cdc c;
    struct plk_cdc_entry e;
    uint64_t v;
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)n, err, sizeof err), 0);
    assert_int_equal(plk_cdc_find(&c, 0x1006, 0, &e), 0);
    plk_cdc_entry_u64(&e, &v);
    assert_int_equal(v, 1000);
    assert_int_equal(plk_cdc_find(&c, 0x1600, 1, &e), 0);
    plk_cdc_entry_u64(&e, &v);
    assert_true(v == 0x0008000000016200ull);
    assert_int_equal(plk_cdc_find(&c, 0x1600, 0, &e), 0);   /* last write of the count */
    plk_cdc_entry_u64(&e, &v);
    assert_int_equal(v, 1);
    assert_int_equal(plk_config_node_dcf(&cfg, 41, b, sizeof b), -ENOENT);
    assert_int_equal(plk_config_node_dcf(&cfg, 5, b, 20), -ENOSPC);
}

static uint8_t cdc_buf[4096];
static size_t cdc_len;

static void need_fixture(void)
{
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/powerlink-config/Demo_3CN/mnobd.cdc", dir ? dir : "/nonexistent");
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "skip: %s not found\n", path);
        skip();
    }
    cdc_len = fread(cdc_buf, 1, sizeof cdc_buf, f);
    fclose(f);
}

static void from_demo_3cn(void **state)
{
    need_fixture();
    struct plk_cdc c;
    assert_int_equal(plk_cdc_parse(&c, cdc_buf, cdc_len, err, sizeof err), 0);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), 0);
    assert_int_equal(cfg.cycle_us, 50000);
    assert_int_equal(cfg.n_nodes, 3);
    assert_int_equal(cfg.cycle_exceed_threshold, 40);
    assert_int_equal(cfg.loss_soc_tolerance_ns, 50000000);
    assert_int_equal(cfg.async_slot_timeout_ns, 500000);
    const uint8_t ids[3] = { 1, 32, 110 };
    for (int i = 0; i < 3; i++) {
        const struct plk_cfg_node *n = &cfg.node[ids[i]];
        assert_true(n->present);
        assert_int_equal(n->assignment, 0x80000007u);
        assert_false(n->mandatory);
        assert_false(n->chained);
        assert_int_equal(n->loss_pres_threshold, 40);
        assert_int_equal(n->pres_timeout_ns, 200000);
        assert_int_equal(n->conf_date, 0x3124);
        assert_int_equal(n->conf_time, 0x03735955);
        assert_int_equal(n->cn_loss_soc_threshold, 80);
        assert_int_equal(n->cn_loss_preq_threshold, 80);
        assert_int_equal(n->preq_payload, 36);
        assert_int_equal(n->pres_payload, 36);
        assert_true(n->has_mapping);
        assert_int_equal(n->n_rx, 1);
        assert_int_equal(n->rx_map[0].index, 0x6200);
        assert_int_equal(n->rx_map[0].sub, 1);
        assert_int_equal(n->rx_map[0].bit_len, 8);
        assert_int_equal(n->n_tx, 1);
        assert_int_equal(n->tx_map[0].index, 0x6000);
    }
    assert_false(cfg.node[2].present);
    /* The DCF takt would download matches the one openCONFIGURATOR made, value by value */
    uint8_t b[512];
    int len = plk_config_node_dcf(&cfg, 32, b, sizeof b);
    struct plk_cdc mine, theirs;
    assert_int_equal(plk_cdc_parse(&mine, b, (size_t)len, err, sizeof err), 0);
    assert_int_equal(plk_cdc_node_dcf(&c, 32, &theirs, err, sizeof err), 0);
    struct plk_cdc_iter it;
    struct plk_cdc_entry e, x;
    plk_cdc_iter_init(&it, &theirs);
    while (plk_cdc_next(&it, &e)) {
        uint64_t a, bb;
        assert_int_equal(plk_cdc_find(&mine, e.index, e.sub, &x), 0);
        assert_int_equal(x.size, e.size);
        plk_cdc_entry_u64(&e, &a);
        plk_cdc_entry_u64(&x, &bb);
        if (!(e.index == 0x1600 || e.index == 0x1A00) || e.sub)
            assert_true(a == bb);
    }
    assert_int_equal(mine.count, theirs.count);
}

static void from_broken_cdc(void **state)
{
    uint8_t b[256], d[64];
    struct plk_cdc c;
    int u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 250, 7, 4);
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "0x1F81/250"));
    /* a network with a redundant MN (node 241): refused, saying why */
    u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 1, 7, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 241, 7, 4);
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "entry 2 (0x1F81/241)"));
    assert_non_null(strstr(err, "redundant MNs are not supported"));
    u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 4, 7, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1006, 0, 1000, 2);
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "entry 2 (0x1006/0)"));
    assert_non_null(strstr(err, "size 2, expected 4"));
    /* the CN's DCF disagrees with the MN cycle */
    int dl = plk_cdc_begin(d, sizeof d);
    dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1006, 0, 2000, 4);
    u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 4, 7, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1006, 0, 1000, 4);
    u = plk_cdc_append(b, sizeof b, (size_t)u, 0x1F22, 4, d, (uint32_t)dl);
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), 0);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "node 4, 0x1F22/4"));
    assert_non_null(strstr(err, "2000"));
    /* a broken nested DCF: its count (at offset 4 + 11 + 11 + 7 of b) says 5 entries */
    b[33] = 5;
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "node 4"));
    /* 5 entries cannot fit in its 11 bytes; still a broken entry (-EPROTO) of the outer
     * CDC, which is a CDC */
    assert_non_null(strstr(err, "give 5 entries"));
    /* chaining from 0x1F81 requires the MN's PResMN bit (0x1F81/240 0x1000) */
    u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 4, 0x4007, 4);
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "PResMN"));
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 240, 0x1000, 4);
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_config_from_cdc(&cfg, &c, err, sizeof err), 0);
    assert_true(cfg.pres_mn);
    assert_true(cfg.node[4].chained);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_good),
        cmocka_unit_test(format_round_trip),
        cmocka_unit_test(parse_bad),
        cmocka_unit_test(node_range_and_dcf),
        cmocka_unit_test(from_demo_3cn),
        cmocka_unit_test(from_broken_cdc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
