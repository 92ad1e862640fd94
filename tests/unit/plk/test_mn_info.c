/* What the MN publishes of each CN's boot for other threads (takt_plk_mn_node_info,
 * takt_plk_mn_get_info): before anything is published, the core's own values; once its
 * thread published, a reader sees what was published at the end of a cycle, not what
 * the core holds in the middle of the next one; a CN is missing after 3 IdentRequests
 * unanswered over 3 s while unidentified; the SDO abort code is that of the caller's
 * ended transfer only. The RT thread is played by the test (plk_mn_pub_update). */
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

static void sdo_abort_code(void **state)
{
    (void)state;
    struct takt_plk_mn *mn = make_mn();
    struct plk_mn_user_sdo *u = &plk_drv_mn_core(mn)->usdo;
    assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0);   /* no transfer yet */
    u->result = -TAKT_ESDOABORT;
    u->abort_code = 0x06020000;
    u->state = 2;                     /* still running: nothing to say */
    assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0);
    u->state = 3;
    assert_int_equal(takt_plk_mn_sdo_abort_code(mn), 0x06020000);
    u->result = -ETIMEDOUT;           /* a timeout carries the SDO layer's code, not an abort */
    u->abort_code = 0x05040000;
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
