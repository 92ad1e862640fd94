/* The simulated POWERLINK CNs as public API (takt_sim_plk_*): made from a list of node
 * IDs (gaps are not on the network; a bad list is refused saying what is expected), and
 * served on a mem link beside an MN made from a takt_plk_net until every CN is
 * Operational; the copied-out figures then show the exchange. Real time with generous
 * limits: a stalled host only makes it take longer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <takt/plk.h>
#include <takt/sim.h>

static char err[256];

static void ids_checked(void **state)
{
    (void)state;
    struct takt_sim_plk *s = (void *)1;
    static const uint8_t unsorted[] = { 3, 1 }, zero[] = { 0 }, big[] = { 240 }, twice[] = { 2, 2 };
    assert_int_equal(takt_sim_plk_create(unsorted, 2, NULL, &s, err, sizeof err), -EINVAL);
    assert_null(s);
    assert_non_null(strstr(err, "1..239, ascending"));
    assert_int_equal(takt_sim_plk_create(zero, 1, NULL, &s, err, sizeof err), -EINVAL);
    assert_int_equal(takt_sim_plk_create(big, 1, NULL, &s, err, sizeof err), -EINVAL);
    assert_int_equal(takt_sim_plk_create(twice, 2, NULL, &s, err, sizeof err), -EINVAL);
    assert_int_equal(takt_sim_plk_create(zero, 0, NULL, &s, err, sizeof err), -EINVAL);
    static const uint8_t gaps[] = { 1, 32, 110 };
    struct takt_sim_plk_faults f = { .wrong_id_node = 32 };
    assert_int_equal(takt_sim_plk_create(gaps, 3, &f, &s, err, sizeof err), 0);
    assert_int_equal(takt_sim_plk_count(s), 3);
    struct takt_sim_plk_node n;
    assert_int_equal(takt_sim_plk_node(s, 1, &n), 0);
    assert_int_equal(n.id, 32);
    assert_int_equal(n.preq_rx, 0);
    assert_int_equal(n.loss_soc_threshold, 15);   /* the power-on value */
    assert_int_equal(takt_sim_plk_node(s, 3, &n), -ENOENT);
    assert_int_equal(takt_sim_plk_state(s, 3), -ENOENT);
    assert_int_equal(takt_sim_plk_request_nmt(s, 3, 0x22, 1, NULL, 0), -ENOENT);
    assert_int_equal(takt_sim_plk_request_nmt(s, 0, 0, 1, NULL, 0), -EINVAL);
    takt_sim_plk_destroy(s);
}

struct served {
    struct takt_sim_plk *s;
    struct takt_link *l;
    volatile int stop;
    int rc;
};

static void *serve(void *arg)
{
    struct served *v = arg;
    v->rc = takt_sim_plk_run(v->s, v->l, 0, &v->stop);
    return NULL;
}

static void with_an_mn(void **state)
{
    (void)state;
    struct takt_link *mn_l, *cn_l;
    assert_int_equal(takt_link_mem_pair(&mn_l, &cn_l, 256, NULL, NULL), 0);
    cn_l->mac[5] ^= 1;
    struct takt_plk_net *net;
    assert_int_equal(takt_plk_net_create(&net), 0);
    assert_int_equal(takt_plk_net_add_nodes(net, 1, 1, err, sizeof err), 0);
    assert_int_equal(takt_plk_net_add_nodes(net, 3, 3, err, sizeof err), 0);
    struct takt_plk_net_info ni;
    takt_plk_net_get(net, &ni);
    ni.cycle_us = 2000;
    ni.boot_wait_us = 50000;
    ni.cycle_exceed_threshold = 0;   /* real time on a busy machine: count, don't reset */
    takt_plk_net_set(net, &ni);
    for (unsigned i = 0; i < ni.n_nodes; i++) {
        struct takt_plk_net_node n;
        takt_plk_net_node(net, ni.nodes[i], &n);
        n.pres_timeout_ns = 500000;
        n.loss_pres_threshold = n.cn_loss_soc_threshold = n.cn_loss_preq_threshold = 0;
        takt_plk_net_set_node(net, &n);
    }
    struct takt_plk_mn *mn;
    int rc = takt_plk_mn_create_net(net, &mn, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    takt_plk_net_free(net);
    static const uint8_t ids[] = { 1, 3 };
    struct served v = { .l = cn_l };
    assert_int_equal(takt_sim_plk_create(ids, 2, NULL, &v.s, err, sizeof err), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, serve, &v), 0);
    struct takt_plk_run_opts o = { 0 };
    takt_rt_opts_default(&o.rt);
    o.rt.mlock = false;
    o.rt.dma_latency = false;
    assert_int_equal(takt_plk_mn_start(mn, mn_l, &o), 0);
    struct takt_plk_mn_stats st;
    takt_ns_t end = takt_now() + 30 * TAKT_NS_PER_S;
    do {
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
        takt_plk_mn_get_stats(mn, &st);
    } while ((st.nodes_operational < 2 || takt_sim_plk_state(v.s, 0) != TAKT_PLK_OPERATIONAL ||
              takt_sim_plk_state(v.s, 1) != TAKT_PLK_OPERATIONAL) && takt_now() < end);
    assert_int_equal(st.nodes_operational, 2);
    assert_int_equal(takt_sim_plk_state(v.s, 1), TAKT_PLK_OPERATIONAL);
    takt_plk_mn_stop(mn);
    takt_plk_mn_join(mn);
    __atomic_store_n(&v.stop, 1, __ATOMIC_RELAXED);   /* read by the CN thread */
    pthread_join(t, NULL);
    assert_int_equal(v.rc, 0);
    struct takt_sim_plk_node n;
    assert_int_equal(takt_sim_plk_node(v.s, 1, &n), 0);
    assert_int_equal(n.id, 3);
    assert_true(n.preq_rx > 0 && n.pres_tx > 0);
    assert_int_equal(n.loss_soc_threshold, 0);    /* as the MN downloaded it */
    struct takt_sim_plk_info si;
    takt_sim_plk_get_info(v.s, &si);
    assert_int_equal(si.vanished, 0);
    takt_sim_plk_destroy(v.s);
    takt_plk_mn_destroy(mn);
    takt_link_close(mn_l);
    takt_link_close(cn_l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids_checked),
        cmocka_unit_test(with_an_mn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
