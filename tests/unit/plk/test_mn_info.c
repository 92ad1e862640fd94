/* What the MN publishes of each CN's boot for other threads (takt_plk_mn_node_info,
 * takt_plk_mn_get_info): before anything is published, the core's own values; once its
 * thread published, a reader sees what was published at the end of a cycle, not what
 * the core holds in the middle of the next one; a CN is missing after 3 IdentRequests
 * unanswered over 3 s while unidentified; the SDO abort code is that of the transfer
 * that ended last. The RT thread is played by the test (plk_mn_pub_update). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <takt/plk.h>
#include "plk/driver.h"
#include "plk/mn_info.h"

static struct takt_plk_mn *make_mn(void)
{
    struct takt_plk_net *net;
    char err[256];
    assert_int_equal(takt_plk_net_create(&net), 0);
    assert_int_equal(takt_plk_net_add_nodes(net, 3, 4, err, sizeof err), 0);
    struct takt_plk_mn *mn;
    assert_int_equal(takt_plk_mn_create_net(net, &mn, err, sizeof err), 0);
    takt_plk_net_free(net);
    return mn;
}

static void published_not_core(void **state)
{
    (void)state;
    struct takt_plk_mn *mn = make_mn();
    struct plk_mn *core = plk_drv_mn_core(mn);
    struct plk_mn_node *n = core->node[3];
    struct takt_plk_node_info i;
    struct takt_plk_mn_info mi;
    assert_int_equal(takt_plk_mn_node_info(mn, 5, &i), -ENOENT);
    assert_int_equal(takt_plk_mn_node_info(mn, 300, &i), -ENOENT);
    /* nothing published: the core, which no thread runs yet */
    n->step = MNS_CONFIG;
    assert_int_equal(takt_plk_mn_node_info(mn, 3, &i), 0);
    assert_int_equal(i.id, 3);
    assert_int_equal(i.step, TAKT_PLK_STEP_CONFIG);
    assert_string_equal(takt_plk_boot_step_name(i.step), "configuring");
    /* the RT thread publishes at the end of a cycle ... */
    takt_ns_t now = 10 * TAKT_NS_PER_S;
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, now);
    /* ... and changes the core in the next: readers keep the cycle's end */
    n->step = MNS_OPERATIONAL;
    n->state = TAKT_PLK_OPERATIONAL;
    n->chain_active = true;
    n->lost_why = "loss of PRes threshold";
    snprintf(n->note, sizeof n->note, "node 3: configuration downloaded");
    snprintf(core->nmtreq_last, sizeof core->nmtreq_last, "node 4: NMTRequest refused");
    assert_int_equal(takt_plk_mn_node_info(mn, 3, &i), 0);
    assert_int_equal(i.step, TAKT_PLK_STEP_CONFIG);
    assert_int_equal(i.state, 0);
    assert_false(i.chain_active);
    assert_null(i.last_reset);
    assert_string_equal(i.note, "");
    takt_plk_mn_get_info(mn, &mi);
    assert_string_equal(mi.nmtreq_last_refused, "");
    assert_int_equal(mi.n_nodes, 2);
    assert_int_equal(mi.nodes[0], 3);
    assert_int_equal(mi.cycle_us, 1000);
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, now + TAKT_NS_PER_MS);
    assert_int_equal(takt_plk_mn_node_info(mn, 3, &i), 0);
    assert_int_equal(i.step, TAKT_PLK_STEP_OPERATIONAL);
    assert_int_equal(i.state, TAKT_PLK_OPERATIONAL);
    assert_true(i.chain_active);
    assert_string_equal(i.last_reset, "loss of PRes threshold");
    assert_string_equal(i.note, "node 3: configuration downloaded");
    takt_plk_mn_get_info(mn, &mi);
    assert_string_equal(mi.nmtreq_last_refused, "node 4: NMTRequest refused");
    /* a note that only changes its text is published too */
    snprintf(n->note, sizeof n->note, "node 3: configuration unchanged");
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, now + 2 * TAKT_NS_PER_MS);
    assert_int_equal(takt_plk_mn_node_info(mn, 3, &i), 0);
    assert_string_equal(i.note, "node 3: configuration unchanged");
    takt_plk_mn_destroy(mn);
}

static void missing(void **state)
{
    (void)state;
    struct takt_plk_mn *mn = make_mn();
    struct plk_mn *core = plk_drv_mn_core(mn);
    struct plk_mn_node *n = core->node[4];
    struct takt_plk_node_info i;
    takt_ns_t t0 = 5 * TAKT_NS_PER_S;
    n->step = MNS_UNIDENT;
    n->ident_first = t0;
    n->idents_unanswered = 3;
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, t0 + 3 * TAKT_NS_PER_S - 1);
    takt_plk_mn_node_info(mn, 4, &i);
    assert_false(i.missing);          /* 3 requests, but not yet over 3 s */
    n->idents_unanswered = 2;
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, t0 + 4 * TAKT_NS_PER_S);
    takt_plk_mn_node_info(mn, 4, &i);
    assert_false(i.missing);          /* 3 s, but 2 requests */
    n->idents_unanswered = 3;
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, t0 + 4 * TAKT_NS_PER_S);
    takt_plk_mn_node_info(mn, 4, &i);
    assert_true(i.missing);
    n->step = MNS_IDENTIFIED;         /* it answered */
    plk_mn_pub_update(plk_drv_mn_pub(mn), core, t0 + 5 * TAKT_NS_PER_S);
    takt_plk_mn_node_info(mn, 4, &i);
    assert_false(i.missing);
    assert_int_equal(i.step, TAKT_PLK_STEP_IDENTIFIED);
    takt_plk_mn_destroy(mn);
}

static void sdo_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    (void)data;
    (void)len;
    *(int *)ctx = err;
}

/* One transfer through the hand-off as another thread posts it, ended by the core with
 * result (and abort code), taken back by the RT thread's next pump. */
static int sdo_transfer(struct takt_plk_mn *mn, int result, uint32_t abort_code,
                        uint32_t *code_while_running)
{
    struct plk_drv_sdo *q = plk_drv_mn_sdo(mn);
    struct plk_mn *core = plk_drv_mn_core(mn);
    uint8_t buf[8];
    int err = 1;
    struct rt_cmd c = { .op = PLK_DRV_SDO_READ, .target = 3, .arg = { 0x1000, 0 }, .ptr = buf,
                        .len = sizeof buf, .done = sdo_done, .ctx = &err };
    assert_int_equal(rt_cmdring_post(&q->ring, &c, NULL, 0), 0);
    plk_drv_sdo_pump(q, core);        /* the core's slot takes it */
    assert_int_equal(core->usdo.state, 1);
    core->usdo.result = result;
    core->usdo.abort_code = abort_code;
    core->usdo.state = 2;             /* under way */
    *code_while_running = takt_plk_mn_sdo_abort_code(mn);
    core->usdo.state = 3;             /* ended */
    plk_drv_sdo_pump(q, core);
    assert_int_equal(err, result);
    return err;
}

static void sdo_abort_code(void **state)
{
    (void)state;
    struct takt_plk_mn *mn = make_mn();
    uint32_t during;
    assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0);   /* no transfer yet */
    sdo_transfer(mn, -TAKT_ESDOABORT, 0x06020000, &during);
    assert_int_equal(during, 0);
    assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0x06020000);
    /* a timeout carries the SDO layer's code, not an abort; the next transfer's
     * result replaces the last one's, even while it runs */
    sdo_transfer(mn, -ETIMEDOUT, 0x05040000, &during);
    assert_int_equal(during, 0x06020000);
    assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0);
    takt_plk_mn_destroy(mn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_not_core),
        cmocka_unit_test(missing),
        cmocka_unit_test(sdo_abort_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
