/* The EtherCAT master (include/takt/ecat.h) against the in-process simulator
 * (include/takt/sim.h) over a mem link: scan, OP, process data through the simulated
 * devices, WKC accounting, DC set-up and convergence with drifting clocks, refusal,
 * cable break and heal, frame loss. Lives under unit/sim because it needs both. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "sim/device.h"
#include "sim/device_ext.h"
#include "util/wire.h"
#include "unit/sim/master_rig.h"

static void test_scan_op(void **state)
{
    (void)state;
    struct rig *r = rig_new(10, false);
    up(r, 10);
    struct takt_ecat_slave_info si;
    assert_int_equal(takt_ecat_master_slave_info(r->m, 3, &si), 0);
    assert_string_equal(si.name, "IO3");
    assert_int_equal(si.product, 0x4003);
    assert_int_equal(si.out_bits, 16);
    uint8_t al = 0;
    takt_sim_peek(r->sim, 9, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_OP);
    /* outputs reach the simulated ESC's SM0 memory */
    struct takt_ecat_pd_entry out;
    assert_int_equal(takt_ecat_pd_find(r->m, 4, "Output", 0, 0, &out), 0);
    takt_ecat_pd_write(r->m, &out, 0xBEEF);
    cycles(r, 3);
    uint8_t mem[2];
    takt_sim_peek(r->sim, 4, 0x1000, mem, 2);
    if (get_le16(mem) != 0xBEEF) {
        uint8_t sm[16], fm[32];
        takt_sim_peek(r->sim, 4, ESC_SM0, sm, 16);
        takt_sim_peek(r->sim, 4, ESC_FMMU0, fm, 32);
        for (int i = 0; i < 16; i++) printf("%02X ", sm[i]);
        printf("\n");
        for (int i = 0; i < 32; i++) printf("%02X ", fm[i]);
        printf("\nout at %u\n", out.byte_offset);
    }
    assert_int_equal(get_le16(mem), 0xBEEF);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, 0);
    assert_int_equal(st.frames_lost, 0);
    rig_free(r);
}

/* A drive that needs SYNC0 refuses SAFEOP when the master runs without DC (AL 0x0030);
 * the message names the slave, the transition and the code with its meaning. */
static void test_refusal(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        if (i == 1)
            mbx_desc(&r->desc[i], i);
        else
            io_desc(&r->desc[i], i);
        r->desc[i].dc_required = i == 1;
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 3, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S);
    assert_int_equal(rc, -TAKT_EALSTATUS);
    const char *msg = takt_ecat_master_error(r->m);
    printf("  %s\n", msg);
    assert_non_null(strstr(msg, "slave 1"));
    assert_non_null(strstr(msg, "PREOP -> SAFEOP"));
    assert_non_null(strstr(msg, "0x0030"));
    uint8_t al = 0;
    takt_sim_peek(r->sim, 1, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_PREOP);                 /* error acknowledged */
    takt_sim_peek(r->sim, 2, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_OP);                    /* the others went on */
    rig_free(r);
}

static void test_break_heal(void **state)
{
    (void)state;
    struct rig *r = rig_new(6, false);
    up(r, 6);
    cycles(r, 5);
    print_events(r->m);
    takt_sim_break(r->sim, 3, takt_now());       /* after slave 3 (1-based) */
    cycles(r, 3);                                /* a new count is believed seen twice */
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_present, 3);
    assert_int_equal(st.slaves_lost, 3);
    uint8_t al = 0;
    takt_sim_peek(r->sim, 0, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_OP);
    cycles(r, 50);
    takt_sim_heal(r->sim, takt_now());
    for (takt_ns_t end = takt_now() + 3 * TAKT_NS_PER_S; takt_now() < end;) {
        cycles(r, 1);
        takt_ecat_master_get_stats(r->m, &st);
        if (st.slaves_returned == 3 && takt_ecat_master_state(r->m) == AL_OP)
            break;
    }
    print_events(r->m);
    assert_int_equal(st.slaves_returned, 3);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    takt_sim_peek(r->sim, 5, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_OP);
    rig_free(r);
}

static void test_power_cycle(void **state)
{
    (void)state;
    struct rig *r = rig_new(4, false);
    up(r, 4);
    cycles(r, 3);
    takt_sim_power_cycle(r->sim, 3, takt_now());      /* last slave: back in INIT */
    struct takt_ecat_master_stats st;
    uint8_t al = 0;
    takt_ns_t end = takt_now() + 3 * TAKT_NS_PER_S;
    cycles(r, 5);
    while (takt_now() < end) {
        cycles(r, 1);
        takt_sim_peek(r->sim, 3, ESC_AL_STATUS, &al, 1);
        if (al == AL_OP)
            break;
    }
    takt_ecat_master_get_stats(r->m, &st);
    print_events(r->m);
    assert_int_equal(al, AL_OP);
    rig_free(r);
}

static void test_frame_loss(void **state)
{
    (void)state;
    struct rig *r = rig_new(5, false);
    up(r, 5);
    cycles(r, 3);
    struct takt_ecat_master_stats s0, s1;
    takt_ecat_master_get_stats(r->m, &s0);
    unsigned d0 = r->dropped;
    r->drop_every = 100;                          /* 1 % loss */
    cycles(r, 1000);
    r->drop_every = 0;
    cycles(r, 3);
    takt_ecat_master_get_stats(r->m, &s1);
    assert_int_equal(s1.frames_lost - s0.frames_lost, r->dropped - d0);
    assert_true(r->dropped - d0 >= 9);
    assert_int_equal(s1.wkc_errors, 0);
    assert_int_equal(s1.slaves_lost, 0);
    assert_int_equal(takt_ecat_master_state(r->m), AL_OP);
    rig_free(r);
}

static void test_dc(void **state)
{
    (void)state;
    struct rig *r = rig_new(5, true);
    up(r, 5);
    for (unsigned i = 0; i < 5; i++) {
        uint8_t act = 0, cyc[4];
        takt_sim_peek(r->sim, i, ESC_DC_ACTIVATION, &act, 1);
        takt_sim_peek(r->sim, i, ESC_DC_SYNC0_CYCLE, cyc, 4);
        assert_int_equal(act, 0x03);
        assert_int_equal(get_le32(cyc), TAKT_NS_PER_MS);
    }
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(r->m, 4, &si);
    assert_true(si.dc_delay_ns > 0);
    cycles(r, 2000);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    printf("  DC: delay of slave 4 %d ns, sync error %lld ns (max %lld)\n", si.dc_delay_ns,
           (long long)st.dc_sync_err_ns, (long long)st.dc_sync_err_max_ns);
    assert_true(st.dc_sync_err_ns < 1000);         /* drift of 50 ppm compensated */
    rig_free(r);
}

/* ENI: the simulator builds the slaves a real TwinCAT ENI expects (fixture
 * mega_master_eni.xml: EK1100, EL2008, EL4002, EL1809), the master checks the bus against
 * the same file and takes the mapping from it; against a different bus each mismatch is
 * reported by position with expected and found identity. */
static void test_eni(void **state)
{
    (void)state;
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/eni/mega_master_eni.xml", dir ? dir : ".");
    FILE *f = fopen(path, "r");
    if (!f)
        skip();                          /* fixtures absent: a clone of the project alone */
    fclose(f);
    struct rig *r = calloc(1, sizeof *r);
    char err[300];
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    int rc = takt_sim_create_eni(path, &so, &r->sim, err, sizeof err);
    if (rc)
        printf("  sim: %s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    /* PREOP first: the ENI's CoE init commands (PDO assignment of the EL4002) go in */
    rc = takt_ecat_master_set_state(r->m, AL_PREOP, 2 * TAKT_NS_PER_S);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    rc = takt_ecat_master_configure_eni(r->m, path);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    size_t len;
    takt_ecat_master_image(r->m, &len);
    assert_true(len > 0);
    rc = takt_ecat_master_set_state(r->m, AL_OP, 3 * TAKT_NS_PER_S);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    cycles(r, 10);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, 0);
    rig_free(r);

    /* a broken ENI: the reader's message names the line */
    char bad[] = "/tmp/takt-test-bad-eni-XXXXXX";
    int fd = mkstemp(bad);
    assert_true(fd >= 0);
    static const char broken[] = "<?xml version=\"1.0\"?>\n<EtherCATConfig>\n<Config>\n<Slave>\n</Config>\n";
    assert_int_equal(write(fd, broken, sizeof broken - 1), (ssize_t)(sizeof broken - 1));
    close(fd);
    r = rig_new(2, false);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    rc = takt_ecat_master_configure_eni(r->m, bad);
    unlink(bad);
    printf("  %s\n", takt_ecat_master_error(r->m));
    assert_true(rc == -TAKT_EXML || rc == -TAKT_ECONFIG);
    assert_non_null(strstr(takt_ecat_master_error(r->m), bad));
    rig_free(r);

    /* a different bus: the ENI's EL2008 at position 1 is an IO1 here */
    r = rig_new(4, false);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    rc = takt_ecat_master_configure_eni(r->m, path);
    assert_int_equal(rc, -TAKT_ECONFIG);
    printf("  %s\n", takt_ecat_master_error(r->m));
    assert_non_null(strstr(takt_ecat_master_error(r->m), "slave 0"));
    assert_non_null(strstr(takt_ecat_master_error(r->m), "expected"));
    rig_free(r);
}

/* An image larger than one frame: 12 slaves with 128 bytes of outputs and 128 of inputs
 * each (3 KiB) go out as several LRW frames, each with its own expected WKC, and every
 * slave's outputs arrive. */
static void test_multi_frame(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[12];
    for (unsigned i = 0; i < 12; i++) {
        struct sim_device_desc *d = &r->desc[i];
        io_desc(d, i);
        d->rxpdo[0].n = d->txpdo[0].n = 32;
        for (unsigned k = 0; k < 32; k++) {
            d->rxpdo[0].e[k] = (struct sim_pdo_entry){ 0x7000, (uint8_t)(k + 1), 32, 0x0007, "Out" };
            d->txpdo[0].e[k] = (struct sim_pdo_entry){ 0x6000, (uint8_t)(k + 1), 32, 0x0007, "In" };
        }
        assert_int_equal(sim_device_from_desc(d, &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 12, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    up(r, 12);
    size_t len;
    takt_ecat_master_image(r->m, &len);
    assert_int_equal(len, 12 * 256);
    for (unsigned i = 0; i < 12; i++) {
        struct takt_ecat_pd_entry e;
        assert_int_equal(takt_ecat_pd_find(r->m, i, NULL, 0x7000, 32, &e), 0);
        takt_ecat_pd_write(r->m, &e, 0xC0DE0000u + i);
    }
    cycles(r, 5);
    for (unsigned i = 0; i < 12; i++) {
        uint8_t b[4];
        takt_sim_peek(r->sim, i, 0x1000 + 124, b, 4);
        assert_int_equal(get_le32(b), 0xC0DE0000u + i);
    }
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, 0);
    assert_true(st.cyc_frames_sent >= 5 * 3);     /* at least three frames per cycle */
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_op),
        cmocka_unit_test(test_refusal),
        cmocka_unit_test(test_break_heal),
        cmocka_unit_test(test_power_cycle),
        cmocka_unit_test(test_frame_loss),
        cmocka_unit_test(test_dc),
        cmocka_unit_test(test_eni),
        cmocka_unit_test(test_multi_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
