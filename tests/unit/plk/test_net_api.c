/* The public network configuration (takt_plk_net_*): built from node ranges with the
 * openPOWERLINK defaults, read and changed through copied-out structs (a chained CN
 * turns the PResMN on), checked, loaded from takt's text file and from a concise DCF
 * (a damaged or foreign one refused saying why, a failed load leaving the old one),
 * and the object sizes a CDC writes into a CN; an MN made from it has its cycle and
 * nodes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <takt/plk.h>
#include "plk/cdc.h"

static char err[320];

static void ranges_and_settings(void **state)
{
    (void)state;
    struct takt_plk_net *net;
    assert_int_equal(takt_plk_net_create(&net), 0);
    struct takt_plk_net_info ni;
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.cycle_us, 1000);
    assert_int_equal(ni.async_mtu, 300);
    assert_int_equal(ni.cycle_exceed_threshold, 15);
    assert_int_equal(ni.boot_wait_us, 1000000);
    assert_int_equal(ni.n_nodes, 0);
    assert_false(ni.pres_mn);
    /* nothing to run yet: the check says so */
    assert_int_equal(takt_plk_net_check(net, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "no CN"));
    assert_int_equal(takt_plk_net_add_nodes(net, 0, 3, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "1-239"));
    assert_int_equal(takt_plk_net_add_nodes(net, 1, 3, err, sizeof err), 0);
    assert_int_equal(takt_plk_net_add_nodes(net, 110, 110, err, sizeof err), 0);
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.n_nodes, 4);
    assert_int_equal(ni.nodes[0], 1);
    assert_int_equal(ni.nodes[3], 110);
    struct takt_plk_net_node n;
    assert_int_equal(takt_plk_net_node(net, 4, &n), -ENOENT);
    assert_int_equal(takt_plk_net_node(net, 0, &n), -ENOENT);
    assert_int_equal(takt_plk_net_node(net, 110, &n), 0);
    assert_int_equal(n.id, 110);
    assert_int_equal(n.pres_timeout_ns, 25000);
    assert_int_equal(n.loss_pres_threshold, 15);
    assert_int_equal(n.preq_payload, 36);
    assert_false(n.chained || n.mandatory || n.async_only || n.multiplexed);
    n.chained = true;
    n.mandatory = true;
    n.pres_time_first_ns = 10000;
    n.pres_timeout_ns = 200000;
    n.cn_loss_soc_threshold = 80;
    assert_int_equal(takt_plk_net_set_node(net, &n), 0);
    struct takt_plk_net_node back;
    assert_int_equal(takt_plk_net_node(net, 110, &back), 0);
    assert_true(back.chained && back.mandatory);
    assert_int_equal(back.pres_time_first_ns, 10000);
    assert_int_equal(back.pres_timeout_ns, 200000);
    assert_int_equal(back.cn_loss_soc_threshold, 80);
    n.id = 5;
    assert_int_equal(takt_plk_net_set_node(net, &n), -ENOENT);
    takt_plk_net_get(net, &ni);
    assert_true(ni.pres_mn);      /* chaining needs the PResMN */
    ni.cycle_us = 2000;
    ni.boot_wait_us = 50000;
    ni.n_nodes = 0;               /* read only: ignored */
    takt_plk_net_set(net, &ni);
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.cycle_us, 2000);
    assert_int_equal(ni.boot_wait_us, 50000);
    assert_int_equal(ni.n_nodes, 4);
    assert_int_equal(takt_plk_net_check(net, err, sizeof err), 0);
    /* a PRes timeout beyond the cycle is refused, by the check and by the MN's creation */
    back.pres_timeout_ns = 3000000;
    assert_int_equal(takt_plk_net_set_node(net, &back), 0);
    struct takt_plk_mn *mn = NULL;
    assert_int_equal(takt_plk_mn_create_net(net, &mn, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "node 110, 0x1F92"));
    back.pres_timeout_ns = 200000;
    assert_int_equal(takt_plk_net_set_node(net, &back), 0);
    assert_int_equal(takt_plk_mn_create_net(net, &mn, err, sizeof err), 0);
    takt_plk_net_free(net);       /* the MN has its own copy */
    struct takt_plk_mn_info mi;
    takt_plk_mn_get_info(mn, &mi);
    assert_int_equal(mi.cycle_us, 2000);
    assert_int_equal(mi.n_nodes, 4);
    assert_int_equal(mi.nodes[3], 110);
    struct takt_plk_node_info nd;
    assert_int_equal(takt_plk_mn_node_info(mn, 110, &nd), 0);
    assert_true(nd.chained && nd.mandatory);
    assert_int_equal(nd.pres_timeout_ns, 200000);
    assert_int_equal(nd.step, TAKT_PLK_STEP_UNIDENT);
    takt_plk_mn_destroy(mn);
}

static void text_file(void **state)
{
    (void)state;
    char path[] = "/tmp/takt-net-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char good[] = "[network]\ncycle_us = 2000\n\n[node 7]\n";
    assert_int_equal(write(fd, good, sizeof good - 1), (ssize_t)(sizeof good - 1));
    close(fd);
    struct takt_plk_net *net;
    assert_int_equal(takt_plk_net_create(&net), 0);
    int rc = takt_plk_net_load(net, path, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    struct takt_plk_net_info ni;
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.cycle_us, 2000);
    assert_int_equal(ni.n_nodes, 1);
    assert_int_equal(ni.nodes[0], 7);
    /* a bad file is refused with its path and line; what was loaded stays */
    FILE *f = fopen(path, "w");
    fputs("[network]\ncycle_us = fast\n", f);
    fclose(f);
    assert_true(takt_plk_net_load(net, path, err, sizeof err) < 0);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "line 2"));
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.cycle_us, 2000);
    assert_int_equal(ni.n_nodes, 1);
    unlink(path);
    assert_int_equal(takt_plk_net_load(net, path, err, sizeof err), -ENOENT);
    takt_plk_net_free(net);
}

static void cdc(void **state)
{
    (void)state;
    /* node 4's own DCF writes 0x1006 (4 bytes) and 0x6200/1 (1 byte) */
    uint8_t d[64], b[256];
    int dl = plk_cdc_begin(d, sizeof d);
    dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x1006, 0, 2000, 4);
    dl = plk_cdc_append_u(d, sizeof d, (size_t)dl, 0x6200, 1, 0, 1);
    int u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F81, 4, 7, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1006, 0, 2000, 4);
    u = plk_cdc_append(b, sizeof b, (size_t)u, 0x1F22, 4, d, (uint32_t)dl);
    assert_true(u > 0);
    assert_int_equal(takt_plk_cdc_check(b, (size_t)u, err, sizeof err), 0);
    struct takt_plk_net *net;
    assert_int_equal(takt_plk_net_create(&net), 0);
    int rc = takt_plk_net_load_cdc(net, b, (size_t)u, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    struct takt_plk_net_info ni;
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.cycle_us, 2000);
    assert_int_equal(ni.n_nodes, 1);
    assert_int_equal(ni.nodes[0], 4);
    size_t size = 0;
    assert_int_equal(takt_plk_cdc_object_size(b, (size_t)u, 4, 0x6200, 1, &size, err, sizeof err), 0);
    assert_int_equal(size, 1);
    assert_int_equal(takt_plk_cdc_object_size(b, (size_t)u, 4, 0x1006, 0, &size, err, sizeof err), 0);
    assert_int_equal(size, 4);
    assert_int_equal(takt_plk_cdc_object_size(b, (size_t)u, 4, 0x6000, 1, &size, err, sizeof err), -ENOENT);
    assert_int_equal(takt_plk_cdc_object_size(b, (size_t)u, 5, 0x6200, 1, &size, err, sizeof err), -ENOENT);
    assert_int_equal(takt_plk_cdc_object_size(b, (size_t)u, 240, 0x6200, 1, &size, err, sizeof err), -EINVAL);
    /* openCONFIGURATOR's text rendering is no concise DCF: -EBADMSG, saying so, and the
     * configuration stays */
    static const char txt[] = "0x1F81\t0x04\t0x00000004\t0x00000007\n";
    assert_int_equal(takt_plk_cdc_check(txt, sizeof txt - 1, err, sizeof err), -EBADMSG);
    assert_int_equal(takt_plk_net_load_cdc(net, txt, sizeof txt - 1, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "not a concise DCF"));
    /* cut short: damaged, not foreign */
    assert_true(takt_plk_net_load_cdc(net, b, (size_t)u - 3, err, sizeof err) < 0);
    assert_int_equal(takt_plk_cdc_object_size(b, (size_t)u - 3, 4, 0x6200, 1, &size, err, sizeof err),
                     takt_plk_cdc_check(b, (size_t)u - 3, NULL, 0));
    takt_plk_net_get(net, &ni);
    assert_int_equal(ni.n_nodes, 1);
    takt_plk_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranges_and_settings),
        cmocka_unit_test(text_file),
        cmocka_unit_test(cdc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
