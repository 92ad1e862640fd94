/* The master's CoE over the mailbox against the in-process simulator: SDO transfer
 * types, aborts, PDO mapping over CoE, lost mailbox replies, emergencies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "sim/device.h"
#include "sim/device_ext.h"
#include "util/wire.h"
#include "sim/device_ext.h"
#include "unit/sim/master_rig.h"
#include "ecat/driver.h"

/* CoE through the mailbox of slave 1: expedited, normal and segmented uploads (a small
 * 48-byte mailbox forces segments for the long device name), a download read back,
 * and an abort for an object that does not exist, named in the message. */
static void test_coe(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        if (i == 1) {
            mbx_desc(&r->desc[i], i);
            r->desc[i].sm[0].len = r->desc[i].sm[1].len = 48;
            snprintf(r->desc[i].name, sizeof r->desc[i].name,
                     "A-device-name-long-enough-for-segments-0123456789-abcdef");
        } else {
            io_desc(&r->desc[i], i);
        }
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
    uint8_t buf[128];
    size_t len = 0;
    /* INIT: no mailbox yet */
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 1, false, buf, sizeof buf, &len), -EAGAIN);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "needs PREOP"));
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    /* expedited */
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 2, false, buf, sizeof buf, &len), 0);
    assert_int_equal(len, 4);
    assert_int_equal(get_le32(buf), 0x4001);
    /* segmented (56 bytes through a 48-byte mailbox) */
    memset(buf, 0, sizeof buf);
    int rc = takt_ecat_sdo_upload(r->m, 1, 0x1008, 0, false, buf, sizeof buf, &len);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(len, strlen(r->desc[1].name));
    assert_memory_equal(buf, r->desc[1].name, len);
    /* download, read back */
    uint8_t v[2];
    put_le16(v, 0x1234);
    rc = takt_ecat_sdo_download(r->m, 1, 0x7000, 1, false, v, 2);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x7000, 1, false, buf, sizeof buf, &len), 0);
    assert_int_equal(len, 2);
    assert_int_equal(get_le16(buf), 0x1234);
    /* a slave without mailbox */
    assert_int_equal(takt_ecat_sdo_upload(r->m, 0, 0x1018, 1, false, buf, sizeof buf, &len), -TAKT_EMBOX);
    /* SDO info: the object list contains 0x1018 */
    rc = takt_ecat_sdo_info(r->m, 1, TAKT_ECAT_SDO_INFO_ODLIST, 0, 0, buf, sizeof buf, &len);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    bool seen = false;
    for (size_t i = 2; i + 1 < len; i += 2)
        seen |= get_le16(buf + i) == 0x1018;
    assert_true(seen);
    /* still going to OP afterwards, with transfers done in between */
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 1, false, buf, sizeof buf, &len), 0);
    assert_int_equal(get_le32(buf), 2);
    rig_free(r);
}

/* An SDO abort from the slave (object 0x5555 does not exist): the error names the
 * object and the abort code; the next transfer works. */
static void test_coe_abort(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[1];
    mbx_desc(&r->desc[0], 0);
    assert_int_equal(sim_device_from_desc(&r->desc[0], &devs[0]), 0);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 1, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    uint8_t buf[16];
    size_t len;
    int rc = takt_ecat_sdo_upload(r->m, 0, 0x5555, 0, false, buf, sizeof buf, &len);
    printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, -TAKT_ESDOABORT);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "0x5555"));
    assert_non_null(strstr(takt_ecat_master_error(r->m), "06020000"));
    assert_int_equal(takt_ecat_sdo_upload(r->m, 0, 0x1018, 1, false, buf, sizeof buf, &len), 0);
    rig_free(r);
}

/* PDO mapping over CoE: read the servo's real assignment, switch it from the CSP to the
 * CSV PDO (0x1C12 = 0x1601), see the new layout and reach OP with it. */
static void test_pdo_coe(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[2];
    char err[200];
    assert_int_equal(sim_device_create("el1004", &devs[0], err, sizeof err), 0);
    assert_int_equal(sim_device_create("servo", &devs[1], err, sizeof err), 0);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 2, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dc = true;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_read_pdos_coe(r->m), 0);
    assert_int_equal(takt_ecat_master_configure(r->m), 0);
    struct takt_ecat_pd_entry e;
    assert_int_equal(takt_ecat_pd_find(r->m, 1, NULL, 0x607A, 0, &e), 0);    /* CSP target */
    assert_int_equal(takt_ecat_pd_find(r->m, 1, NULL, 0x60FF, 0, &e), -ENOENT);
    const uint16_t csv[] = { 0x1601 };
    int rc = takt_ecat_slave_pdo_assign(r->m, 1, 0x1C12, csv, 1);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(takt_ecat_master_read_pdos_coe(r->m), 0);
    assert_int_equal(takt_ecat_master_configure(r->m), 0);
    assert_int_equal(takt_ecat_pd_find(r->m, 1, NULL, 0x60FF, 0, &e), 0);    /* CSV target */
    assert_true(e.output);
    assert_int_equal(takt_ecat_pd_find(r->m, 1, NULL, 0x607A, 0, &e), -ENOENT);
    rc = takt_ecat_master_set_state(r->m, AL_OP, 3 * TAKT_NS_PER_S);
    if (rc)
        printf("  %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    cycles(r, 20);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, 0);
    rig_free(r);
}

/* Frames lost on their way back while SDOs run: a lost mailbox read is recovered with
 * the SM1 repeat request, a lost write is sent again; every upload completes and
 * returns the right value. */
static void test_coe_loss(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[2];
    mbx_desc(&r->desc[0], 0);
    mbx_desc(&r->desc[1], 1);
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 2, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dg_timeout_ns = 5 * TAKT_NS_PER_MS;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    r->drop_reply_every = 4;
    for (unsigned k = 0; k < 30; k++) {
        uint8_t buf[64];
        size_t len;
        unsigned pos = k % 2;
        int rc = takt_ecat_sdo_upload(r->m, pos, 0x1018, 2, false, buf, sizeof buf, &len);
        if (rc)
            printf("  upload %u: %s\n", k, takt_ecat_master_error(r->m));
        assert_int_equal(rc, 0);
        assert_int_equal(get_le32(buf), 0x4000 + pos);
        rc = takt_ecat_sdo_upload(r->m, pos, 0x1008, 0, false, buf, sizeof buf, &len);
        assert_int_equal(rc, 0);
        assert_memory_equal(buf, r->desc[pos].name, strlen(r->desc[pos].name));
    }
    assert_true(r->replies_dropped >= 10);
    r->drop_reply_every = 0;
    rig_free(r);
}

/* An emergency the slave sends by itself, with no transfer running, is picked up by
 * the master's mailbox poll, counted and reported with its code and meaning. */
static void test_emergency(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[2];
    io_desc(&r->desc[0], 0);
    mbx_desc(&r->desc[1], 1);
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
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S), 0);
    char ev[256];
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev))
        ;
    static const uint8_t data[5] = { 1, 2, 3, 4, 5 };
    assert_int_equal(sim_device_emergency(devs[1], 0x8611, 0x21, data), 0);
    struct takt_ecat_master_stats st = { 0 };
    for (takt_ns_t end = takt_now() + TAKT_NS_PER_S; takt_now() < end && !st.emergencies;) {
        cycles(r, 1);
        takt_ecat_master_get_stats(r->m, &st);
    }
    assert_int_equal(st.emergencies, 1);
    bool seen = false;
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev))
        if (strstr(ev, "slave 1") && strstr(ev, "emergency 0x8611") && strstr(ev, "01 02 03 04 05")) {
            printf("  %s\n", ev);
            seen = true;
        }
    assert_true(seen);
    /* SDOs still work afterwards */
    uint8_t buf[8];
    size_t len;
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 1, false, buf, sizeof buf, &len), 0);
    assert_int_equal(get_le32(buf), 2);
    rig_free(r);
}


/* A second master (a new tool run) finds the slave in PREOP and sends, with a fresh
 * counter, the very request the first master sent last: the slave takes it for a
 * repetition and stays silent; the transfer is restarted with the next counter. */
static void test_coe_new_master(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[1];
    mbx_desc(&r->desc[0], 0);
    assert_int_equal(sim_device_from_desc(&r->desc[0], &devs[0]), 0);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 1, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    uint8_t buf[8];
    size_t len;
    for (int run = 0; run < 3; run++) {
        struct takt_ecat_master_opts o;
        takt_ecat_master_opts_default(&o);
        o.keep_state = run > 0;                  /* later runs look only, like the tools */
        assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
        assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
        if (run == 0)
            assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
        struct takt_ecat_slave_info si;
        takt_ecat_master_slave_info(r->m, 0, &si);
        assert_int_equal(si.al_state, AL_PREOP);
        int rc = takt_ecat_sdo_upload(r->m, 0, 0x1018, 2, false, buf, sizeof buf, &len);
        if (rc)
            printf("  run %d: %s\n", run, takt_ecat_master_error(r->m));
        assert_int_equal(rc, 0);
        assert_int_equal(get_le32(buf), 0x4000);
        takt_ecat_master_close(r->m);
        r->m = NULL;
    }
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
    free(r);
}

/* A blocking call whose own limit runs out before the service it waits for completes
 * (a segmented transfer whose every segment takes nearly its timeout can): the call
 * fails with -ETIMEDOUT and the master's error says so, never empty. */
static int never_completes(struct takt_ecat_master *m, const void *args, void *buf, size_t n,
                           takt_ecat_done_fn fn, void *ctx)
{
    (void)m, (void)args, (void)buf, (void)n, (void)fn, (void)ctx;
    return 0;
}

static void forget_none(struct ecat_core *m, const void *ctx) { (void)m, (void)ctx; }

static void test_call_timeout_said(void **state)
{
    (void)state;
    struct rig *r = rig_new(2, false);
    up(r, 2);
    uint8_t buf[8];
    size_t len = 0;
    int rc = ecat_block_run(r->m, &(struct ecat_block){ .start = never_completes, .buf = buf, .n = sizeof buf,
                                                         .len = &len, .timeout_ns = 50 * TAKT_NS_PER_MS,
                                                         .forget = forget_none });
    assert_int_equal(rc, -ETIMEDOUT);
    printf("  %s\n", takt_ecat_master_error(r->m));
    assert_non_null(strstr(takt_ecat_master_error(r->m), "the call's 50 ms ran out before the slave's mailbox service completed"));
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coe),
        cmocka_unit_test(test_call_timeout_said),
        cmocka_unit_test(test_coe_abort),
        cmocka_unit_test(test_pdo_coe),
        cmocka_unit_test(test_coe_loss),
        cmocka_unit_test(test_emergency),
        cmocka_unit_test(test_coe_new_master),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
