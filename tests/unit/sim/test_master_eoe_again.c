/* EoE IP parameters survive a power cycle: the slave loses them with its power (the
 * simulated endpoint starts empty), the master sees it go through INIT and come back
 * and sends the last parameters it took again, with an event saying so. */
#include <unistd.h>
#include "ecat/eoe.h"
#include "sim/esc_eoe.h"
#include "sim/net.h"
#include "unit/sim/master_rig.h"

static void test_ip_after_power_cycle(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[2];
    io_desc(&r->desc[0], 0);
    mbx_desc(&r->desc[1], 1);
    r->desc[1].mbx_protocols |= MBX_PROTO_EOE;
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 2, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);

    struct takt_ecat_eoe_ip p = { .flags = TAKT_ECAT_EOE_IP_IP | TAKT_ECAT_EOE_IP_MASK,
                             .ip = { 10, 77, 0, 2 }, .mask = { 255, 255, 255, 0 } };
    assert_int_equal(takt_ecat_eoe_set_ip(r->m, 1, &p), 0);
    assert_memory_equal(r->sim->sl[1].esc.eoe->ip.ip, p.ip, 4);

    assert_int_equal(takt_sim_power_cycle(r->sim, 1, takt_now()), 0);
    assert_null(r->sim->sl[1].esc.eoe);             /* gone with the power */
    bool again = false, said = false;
    unsigned k = 0;
    char ev[300];
    for (takt_ns_t end = takt_now() + 20 * TAKT_NS_PER_S; takt_now() < end && !(again && said); k++) {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        usleep(200);
        const struct esc_eoe *e = r->sim->sl[1].esc.eoe;
        again = e && (e->ip.flags & TAKT_ECAT_EOE_IP_IP) && !memcmp(e->ip.ip, p.ip, 4) &&
                !memcmp(e->ip.mask, p.mask, 4);
        while (takt_ecat_master_next_event(r->m, ev, sizeof ev)) {
            printf("  event: %s\n", ev);
            said |= strstr(ev, "slave 1: EoE IP parameters set again after its return") != NULL;
        }
    }
    printf("  IP parameters back and acknowledged after %u cycles\n", k);
    assert_true(again);
    assert_true(said);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ip_after_power_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
