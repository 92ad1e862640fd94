/* Recovery on a junction: two branches unplugged, their cables swapped, plugged back.
 * The master knows slaves by identity: same product with serial numbers - each slave's
 * configuration follows its device to the new position ("came back at position");
 * different products - refused with a message naming both. */
#include "master_rig.h"

static char events[8192];

static void drain(struct rig *r)
{
    char ev[256];
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev)) {
        printf("  event: %s\n", ev);
        strncat(events, ev, sizeof events - strlen(events) - 2);
        strcat(events, "\n");
    }
}

/* Slave 1 a coupler; slaves 2 and 3 on its ports 3 and 1. */
static struct rig *junction(bool same_product)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        io_desc(&r->desc[i], i);
        r->desc[i].serial = 100 + i;
    }
    if (same_product)
        r->desc[2].product = r->desc[1].product;
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = -1;
    char err[200];
    assert_int_equal(takt_sim_create_devices(devs, 3, &so, &r->sim), 0);
    assert_int_equal(takt_sim_set_topology(r->sim, "0:3,0:1", err, sizeof err), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = TAKT_NS_PER_MS;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    up(r, 3);
    events[0] = 0;
    return r;
}

/* Unplug both branches, let the master see it, swap the cables, plug back in. */
static void swap_branches(struct rig *r)
{
    takt_ns_t now = takt_now();
    assert_int_equal(takt_sim_break_port(r->sim, 0, 3, now), 0);
    assert_int_equal(takt_sim_break_port(r->sim, 0, 1, now), 0);
    cycles(r, 20);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_lost, 2);
    assert_int_equal(takt_sim_swap_ports(r->sim, 0, 3, 1, takt_now()), 0);
    assert_int_equal(takt_sim_heal(r->sim, takt_now()), 0);
}

static void same_product_follows_device(void **state)
{
    (void)state;
    struct rig *r = junction(true);
    swap_branches(r);
    struct takt_ecat_master_stats st;
    for (unsigned i = 0; i < 5000; i++) {
        cycles(r, 1);
        takt_ecat_master_get_stats(r->m, &st);
        if (st.slaves_returned == 2 && takt_ecat_master_state(r->m) == AL_OP)
            break;
    }
    drain(r);
    assert_int_equal(st.slaves_returned, 2);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    assert_non_null(strstr(events, "slave 1 (vendor 0x00000002 product 0x00004001 serial 101) came back at position 2"));
    assert_non_null(strstr(events, "slave 2 (vendor 0x00000002 product 0x00004001 serial 102) came back at position 1"));
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(r->m, 1, &si);
    assert_int_equal(si.position, 2);
    assert_int_equal(si.serial, 101);
    /* slave 1's outputs reach its device, now the third in the frame */
    struct takt_ecat_pd_entry e;
    assert_int_equal(takt_ecat_pd_find(r->m, 1, "Output", 0, 0, &e), 0);
    takt_ecat_pd_write(r->m, &e, 0xC0DE);
    cycles(r, 10);
    uint8_t mem[2];
    takt_sim_peek(r->sim, 2, 0x1000, mem, 2);
    if (getenv("DC_DEBUG"))
        for (unsigned p = 0; p < 3; p++) {
            uint8_t fm[16], st2[2], al[2];
            takt_sim_peek(r->sim, p, ESC_FMMU0, fm, 16);
            takt_sim_peek(r->sim, p, ESC_STATION_ADDR, st2, 2);
            takt_sim_peek(r->sim, p, ESC_AL_STATUS, al, 2);
            printf("  sim %u: station 0x%04X AL 0x%02X FMMU0 log 0x%08X len %u phys 0x%04X, out at %u\n", p,
                   get_le16(st2), al[0], get_le32(fm), get_le16(fm + 4), get_le16(fm + 8), e.byte_offset);
        }
    assert_int_equal(get_le16(mem), 0xC0DE);
    takt_ecat_master_get_stats(r->m, &st);
    rig_free(r);
}

static void different_products_refused(void **state)
{
    (void)state;
    struct rig *r = junction(false);
    swap_branches(r);
    for (unsigned i = 0; i < 2000 && !strstr(events, "different products"); i++) {
        takt_ecat_master_cycle(r->m, takt_now());
        drain(r);
    }
    const char *msg = takt_ecat_master_error(r->m);
    printf("  error: %s\n", msg);
    assert_non_null(strstr(msg, "came back at position"));
    assert_non_null(strstr(msg, "different products"));
    struct takt_ecat_master_stats st;
    cycles(r, 50);
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_returned, 0);
    assert_int_not_equal(takt_ecat_master_state(r->m), AL_OP);
    rig_free(r);
}

/* A branch in the middle of a tree breaks: the count drops by one, but the slave gone
 * is the junction's port-3 slave (5), not the last; those behind it move up a position
 * and stay in OP. Healed, slave 5 comes back in OP and everyone is where they were. */
static void middle_branch(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[9];
    for (unsigned i = 0; i < 9; i++) {
        io_desc(&r->desc[i], i);
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = -1;
    char err[200];
    assert_int_equal(takt_sim_create_devices(devs, 9, &so, &r->sim), 0);
    assert_int_equal(takt_sim_set_topology(r->sim, TAKT_SIM_JUNCTION_TOPOLOGY, err, sizeof err), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    up(r, 9);
    events[0] = 0;
    assert_int_equal(takt_sim_break_port(r->sim, 3, 3, takt_now()), 0);
    cycles(r, 5);
    drain(r);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_lost, 1);
    assert_non_null(strstr(events, "slave 4 (station 0x1004, IO4) lost"));
    assert_non_null(strstr(events, "slave 8 (station 0x1008) now at position 7 (was 8)"));
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(r->m, 8, &si);
    assert_true(si.present);
    assert_int_equal(si.position, 7);
    assert_int_equal(si.al_state, AL_OP);
    takt_ecat_master_slave_info(r->m, 4, &si);
    assert_false(si.present);
    /* the others' process data still flows: slave 8's output reaches its device */
    struct takt_ecat_pd_entry e;
    assert_int_equal(takt_ecat_pd_find(r->m, 8, "Output", 0, 0, &e), 0);
    takt_ecat_pd_write(r->m, &e, 0xBEEF);
    cycles(r, 5);
    uint8_t mem[2];
    takt_sim_peek(r->sim, 8, 0x1000, mem, 2);
    assert_int_equal(get_le16(mem), 0xBEEF);
    assert_int_equal(takt_sim_heal(r->sim, takt_now()), 0);
    for (unsigned i = 0; i < 5000; i++) {
        cycles(r, 1);
        takt_ecat_master_get_stats(r->m, &st);
        if (st.slaves_returned == 1 && takt_ecat_master_state(r->m) == AL_OP)
            break;
    }
    drain(r);
    assert_int_equal(st.slaves_returned, 1);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    for (unsigned k = 0; k < 9; k++) {
        takt_ecat_master_slave_info(r->m, k, &si);
        assert_int_equal(si.position, k);
        assert_true(si.present);
    }
    rig_free(r);
}

/* A slave deep in a branch loses power (the count never drops: it answers again at
 * once, but without its address): found by its failing reads, re-scanned where it is,
 * back in OP; nobody else moves. */
static void power_cycle_in_branch(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[9];
    for (unsigned i = 0; i < 9; i++) {
        io_desc(&r->desc[i], i);
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = -1;
    char err[200];
    assert_int_equal(takt_sim_create_devices(devs, 9, &so, &r->sim), 0);
    assert_int_equal(takt_sim_set_topology(r->sim, TAKT_SIM_JUNCTION_TOPOLOGY, err, sizeof err), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    up(r, 9);
    events[0] = 0;
    assert_int_equal(takt_sim_power_cycle(r->sim, 6, takt_now()), 0);   /* behind the junction */
    struct takt_ecat_master_stats st;
    takt_ns_t end = takt_now() + 3 * TAKT_NS_PER_S;
    do {
        cycles(r, 1);
        takt_ecat_master_get_stats(r->m, &st);
    } while ((st.slaves_returned < 1 || takt_ecat_master_state(r->m) != AL_OP) && takt_now() < end);
    drain(r);
    assert_int_equal(st.slaves_returned, 1);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    assert_non_null(strstr(events, "slave 6 (station 0x1006) does not answer its address"));
    for (unsigned k = 0; k < 9; k++) {
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(r->m, k, &si);
        assert_int_equal(si.position, k);
    }
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(same_product_follows_device),
        cmocka_unit_test(different_products_refused),
        cmocka_unit_test(middle_branch),
        cmocka_unit_test(power_cycle_in_branch),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
