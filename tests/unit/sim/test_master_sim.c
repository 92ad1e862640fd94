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
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "sim/device.h"
#include "sim/device_ext.h"
#include "util/wire.h"

static void io_desc(struct sim_device_desc *d, unsigned i)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "IO%u", i);
    d->vendor = 2;
    d->product = 0x4000 + i;
    d->revision = 1;
    d->esc_type = 0x11;
    d->n_fmmu_hw = 4;
    d->n_sm_hw = 4;
    d->ram_kb = 8;
    d->features = 0x0004;
    d->n_sm = 2;
    d->sm[0] = (struct sim_sm_desc){ 0x1000, 0, 0x64, 1, SIM_SM_OUTPUTS };
    d->sm[1] = (struct sim_sm_desc){ 0x1100, 0, 0x20, 1, SIM_SM_INPUTS };
    d->n_fmmu = 2;
    d->fmmu_use[0] = 1;
    d->fmmu_use[1] = 2;
    d->n_rxpdo = d->n_txpdo = 1;
    d->rxpdo[0] = (struct sim_pdo){ .index = 0x1600, .sm = 0, .name = "Out", .n = 1 };
    d->rxpdo[0].e[0] = (struct sim_pdo_entry){ 0x7000, 1, 16, 0x0006, "Output" };
    d->txpdo[0] = (struct sim_pdo){ .index = 0x1A00, .sm = 1, .name = "In", .n = 1 };
    d->txpdo[0].e[0] = (struct sim_pdo_entry){ 0x6000, 1, 16, 0x0006, "Input" };
    snprintf(d->behaviour, sizeof d->behaviour, "do");
}

/* The same with a CoE mailbox (SM0/SM1), so it has an application layer of its own
 * (no device emulation) and can refuse state changes. */
static void mbx_desc(struct sim_device_desc *d, unsigned i)
{
    io_desc(d, i);
    d->n_sm = 4;
    d->sm[0] = (struct sim_sm_desc){ 0x1800, 128, 0x26, 1, SIM_SM_MBX_OUT };
    d->sm[1] = (struct sim_sm_desc){ 0x1C00, 128, 0x22, 1, SIM_SM_MBX_IN };
    d->sm[2] = (struct sim_sm_desc){ 0x1000, 0, 0x64, 1, SIM_SM_OUTPUTS };
    d->sm[3] = (struct sim_sm_desc){ 0x1100, 0, 0x20, 1, SIM_SM_INPUTS };
    d->rxpdo[0].sm = 2;
    d->txpdo[0].sm = 3;
    d->mbx_protocols = MBX_PROTO_COE;
    d->coe_details = 0x01 | 0x02;
}

struct rig {
    struct sim_device_desc desc[64];
    struct takt_sim *sim;
    struct takt_link *a, *b;
    struct ecat_master *m;
    unsigned drop_every, n_frames, dropped;
    unsigned drop_reply_every, replies_dropped;   /* processed by the slaves, reply lost */
    unsigned mbx_reads;
};

static void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct rig *r = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    if (f->len > sizeof buf)
        return;
    r->n_frames++;
    if (r->drop_every && r->n_frames % r->drop_every == 0) {
        r->dropped++;
        return;
    }
    memcpy(buf, f->data, f->len);
    size_t n = takt_sim_process(r->sim, buf, f->len, sizeof buf, takt_now(), NULL);
    if (n && r->drop_reply_every) {
        /* lose the replies of every n-th frame that read a send mailbox (SM1 0x1C00) */
        struct ecat_dg dg;
        size_t p;
        bool mbx_read = false;
        for (int rc = ecat_frame_first(buf, n, &dg, &p); rc == 0; rc = ecat_frame_next(buf, n, &dg, &p))
            mbx_read |= dg.cmd == ECAT_FPRD && dg.ado == 0x1C00;
        if (mbx_read && ++r->mbx_reads % r->drop_reply_every == 0) {
            r->replies_dropped++;
            return;
        }
    }
    if (n) {
        struct takt_frame out = { .data = buf, .len = (uint16_t)n, .cap = sizeof buf };
        takt_link_send(ep, &out, 1);
    }
}

static struct rig *rig_new(unsigned n, bool dc)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[64];
    for (unsigned i = 0; i < n; i++) {
        io_desc(&r->desc[i], i);
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = dc ? 50 : -1;
    so.seed = 7;
    assert_int_equal(takt_sim_create_devices(devs, n, &so, &r->sim), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    struct ecat_master_opts o;
    ecat_master_opts_default(&o);
    o.dc = dc;
    o.cycle_ns = TAKT_NS_PER_MS;
    char err[200];
    assert_int_equal(ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    return r;
}

static void rig_free(struct rig *r)
{
    ecat_master_close(r->m);
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
    free(r);
}

static void print_events(struct ecat_master *m)
{
    char ev[256];
    while (ecat_master_next_event(m, ev, sizeof ev))
        printf("  event: %s\n", ev);
}

static void up(struct rig *r, unsigned n)
{
    int rc = ecat_master_scan(r->m, 2 * TAKT_NS_PER_S);
    if (rc)
        print_events(r->m);
    assert_int_equal(rc, 0);
    assert_int_equal(ecat_master_slave_count(r->m), n);
    rc = ecat_master_set_state(r->m, AL_OP, 5 * TAKT_NS_PER_S);
    if (rc) {
        printf("set_state: %s\n", ecat_master_error(r->m));
        print_events(r->m);
    }
    assert_int_equal(rc, 0);
}

static void cycles(struct rig *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
}

static void test_scan_op(void **state)
{
    (void)state;
    struct rig *r = rig_new(10, false);
    up(r, 10);
    struct ecat_slave_info si;
    assert_int_equal(ecat_master_slave_info(r->m, 3, &si), 0);
    assert_string_equal(si.name, "IO3");
    assert_int_equal(si.product, 0x4003);
    assert_int_equal(si.out_bits, 16);
    uint8_t al = 0;
    takt_sim_peek(r->sim, 9, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_OP);
    /* outputs reach the simulated ESC's SM0 memory */
    struct ecat_pd_entry out;
    assert_int_equal(ecat_pd_find(r->m, 4, "Output", 0, 0, &out), 0);
    ecat_pd_write(r->m, &out, 0xBEEF);
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
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
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
    assert_int_equal(ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    int rc = ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S);
    assert_int_equal(rc, -TAKT_EALSTATUS);
    const char *msg = ecat_master_error(r->m);
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
    cycles(r, 2);
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_present, 3);
    assert_int_equal(st.slaves_lost, 3);
    uint8_t al = 0;
    takt_sim_peek(r->sim, 0, ESC_AL_STATUS, &al, 1);
    assert_int_equal(al, AL_OP);
    cycles(r, 50);
    takt_sim_heal(r->sim, takt_now());
    for (takt_ns_t end = takt_now() + 3 * TAKT_NS_PER_S; takt_now() < end;) {
        cycles(r, 1);
        ecat_master_get_stats(r->m, &st);
        if (st.slaves_returned == 3 && ecat_master_state(r->m) == AL_OP)
            break;
    }
    print_events(r->m);
    assert_int_equal(st.slaves_returned, 3);
    assert_int_equal(ecat_master_state(r->m), AL_OP);
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
    takt_sim_power_cycle(r->sim, 4, takt_now());      /* last slave: back in INIT */
    struct ecat_master_stats st;
    uint8_t al = 0;
    takt_ns_t end = takt_now() + 3 * TAKT_NS_PER_S;
    cycles(r, 5);
    while (takt_now() < end) {
        cycles(r, 1);
        takt_sim_peek(r->sim, 3, ESC_AL_STATUS, &al, 1);
        if (al == AL_OP)
            break;
    }
    ecat_master_get_stats(r->m, &st);
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
    struct ecat_master_stats s0, s1;
    ecat_master_get_stats(r->m, &s0);
    unsigned d0 = r->dropped;
    r->drop_every = 100;                          /* 1 % loss */
    cycles(r, 1000);
    r->drop_every = 0;
    cycles(r, 3);
    ecat_master_get_stats(r->m, &s1);
    assert_int_equal(s1.frames_lost - s0.frames_lost, r->dropped - d0);
    assert_true(r->dropped - d0 >= 9);
    assert_int_equal(s1.wkc_errors, 0);
    assert_int_equal(s1.slaves_lost, 0);
    assert_int_equal(ecat_master_state(r->m), AL_OP);
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
    struct ecat_slave_info si;
    ecat_master_slave_info(r->m, 4, &si);
    assert_true(si.dc_delay_ns > 0);
    cycles(r, 2000);
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
    printf("  DC: delay of slave 4 %d ns, sync error %lld ns (max %lld)\n", si.dc_delay_ns,
           (long long)st.dc_sync_err_ns, (long long)st.dc_sync_err_max_ns);
    assert_true(st.dc_sync_err_ns < 1000);         /* drift of 50 ppm compensated */
    rig_free(r);
}

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
    assert_int_equal(ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    uint8_t buf[128];
    size_t len = 0;
    /* INIT: no mailbox yet */
    assert_int_equal(ecat_sdo_upload(r->m, 1, 0x1018, 1, false, buf, sizeof buf, &len), -EAGAIN);
    assert_non_null(strstr(ecat_master_error(r->m), "needs PREOP"));
    assert_int_equal(ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    /* expedited */
    assert_int_equal(ecat_sdo_upload(r->m, 1, 0x1018, 2, false, buf, sizeof buf, &len), 0);
    assert_int_equal(len, 4);
    assert_int_equal(get_le32(buf), 0x4001);
    /* segmented (56 bytes through a 48-byte mailbox) */
    memset(buf, 0, sizeof buf);
    int rc = ecat_sdo_upload(r->m, 1, 0x1008, 0, false, buf, sizeof buf, &len);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(len, strlen(r->desc[1].name));
    assert_memory_equal(buf, r->desc[1].name, len);
    /* download, read back */
    uint8_t v[2];
    put_le16(v, 0x1234);
    rc = ecat_sdo_download(r->m, 1, 0x7000, 1, false, v, 2);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(ecat_sdo_upload(r->m, 1, 0x7000, 1, false, buf, sizeof buf, &len), 0);
    assert_int_equal(len, 2);
    assert_int_equal(get_le16(buf), 0x1234);
    /* a slave without mailbox */
    assert_int_equal(ecat_sdo_upload(r->m, 0, 0x1018, 1, false, buf, sizeof buf, &len), -TAKT_EMBOX);
    /* SDO info: the object list contains 0x1018 */
    rc = ecat_sdo_info(r->m, 1, ECAT_SDO_INFO_ODLIST, 0, 0, buf, sizeof buf, &len);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    bool seen = false;
    for (size_t i = 2; i + 1 < len; i += 2)
        seen |= get_le16(buf + i) == 0x1018;
    assert_true(seen);
    /* still going to OP afterwards, with transfers done in between */
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S), 0);
    assert_int_equal(ecat_sdo_upload(r->m, 1, 0x1018, 1, false, buf, sizeof buf, &len), 0);
    assert_int_equal(get_le32(buf), 2);
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
    struct ecat_master_opts o;
    ecat_master_opts_default(&o);
    o.dc = true;
    assert_int_equal(ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    assert_int_equal(ecat_master_read_pdos_coe(r->m), 0);
    assert_int_equal(ecat_master_configure(r->m), 0);
    struct ecat_pd_entry e;
    assert_int_equal(ecat_pd_find(r->m, 1, NULL, 0x607A, 0, &e), 0);    /* CSP target */
    assert_int_equal(ecat_pd_find(r->m, 1, NULL, 0x60FF, 0, &e), -ENOENT);
    const uint16_t csv[] = { 0x1601 };
    int rc = ecat_slave_pdo_assign(r->m, 1, 0x1C12, csv, 1);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(ecat_master_read_pdos_coe(r->m), 0);
    assert_int_equal(ecat_master_configure(r->m), 0);
    assert_int_equal(ecat_pd_find(r->m, 1, NULL, 0x60FF, 0, &e), 0);    /* CSV target */
    assert_true(e.output);
    assert_int_equal(ecat_pd_find(r->m, 1, NULL, 0x607A, 0, &e), -ENOENT);
    rc = ecat_master_set_state(r->m, AL_OP, 3 * TAKT_NS_PER_S);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    cycles(r, 20);
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
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
    struct ecat_master_opts o;
    ecat_master_opts_default(&o);
    o.dg_timeout_ns = 5 * TAKT_NS_PER_MS;
    assert_int_equal(ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    r->drop_reply_every = 4;
    for (unsigned k = 0; k < 30; k++) {
        uint8_t buf[64];
        size_t len;
        unsigned pos = k % 2;
        int rc = ecat_sdo_upload(r->m, pos, 0x1018, 2, false, buf, sizeof buf, &len);
        if (rc)
            printf("  upload %u: %s\n", k, ecat_master_error(r->m));
        assert_int_equal(rc, 0);
        assert_int_equal(get_le32(buf), 0x4000 + pos);
        rc = ecat_sdo_upload(r->m, pos, 0x1008, 0, false, buf, sizeof buf, &len);
        assert_int_equal(rc, 0);
        assert_memory_equal(buf, r->desc[pos].name, strlen(r->desc[pos].name));
    }
    assert_true(r->replies_dropped >= 10);
    r->drop_reply_every = 0;
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
    assert_int_equal(ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    uint8_t buf[16];
    size_t len;
    int rc = ecat_sdo_upload(r->m, 0, 0x5555, 0, false, buf, sizeof buf, &len);
    printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, -TAKT_ESDOABORT);
    assert_non_null(strstr(ecat_master_error(r->m), "0x5555"));
    assert_non_null(strstr(ecat_master_error(r->m), "06020000"));
    assert_int_equal(ecat_sdo_upload(r->m, 0, 0x1018, 1, false, buf, sizeof buf, &len), 0);
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
    assert_int_equal(ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    rc = ecat_master_configure_eni(r->m, path);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    size_t len;
    ecat_master_image(r->m, &len);
    assert_true(len > 0);
    rc = ecat_master_set_state(r->m, AL_OP, 3 * TAKT_NS_PER_S);
    if (rc)
        printf("  %s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    cycles(r, 10);
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, 0);
    rig_free(r);

    /* a different bus: the ENI's EL2008 at position 1 is an IO1 here */
    r = rig_new(4, false);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    rc = ecat_master_configure_eni(r->m, path);
    assert_int_equal(rc, -TAKT_ECONFIG);
    printf("  %s\n", ecat_master_error(r->m));
    assert_non_null(strstr(ecat_master_error(r->m), "slave 0"));
    assert_non_null(strstr(ecat_master_error(r->m), "expected"));
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
    assert_int_equal(ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S), 0);
    char ev[256];
    while (ecat_master_next_event(r->m, ev, sizeof ev))
        ;
    static const uint8_t data[5] = { 1, 2, 3, 4, 5 };
    assert_int_equal(sim_device_emergency(devs[1], 0x8611, 0x21, data), 0);
    struct ecat_master_stats st = { 0 };
    for (takt_ns_t end = takt_now() + TAKT_NS_PER_S; takt_now() < end && !st.emergencies;) {
        cycles(r, 1);
        ecat_master_get_stats(r->m, &st);
    }
    assert_int_equal(st.emergencies, 1);
    bool seen = false;
    while (ecat_master_next_event(r->m, ev, sizeof ev))
        if (strstr(ev, "slave 1") && strstr(ev, "emergency 0x8611") && strstr(ev, "01 02 03 04 05")) {
            printf("  %s\n", ev);
            seen = true;
        }
    assert_true(seen);
    /* SDOs still work afterwards */
    uint8_t buf[8];
    size_t len;
    assert_int_equal(ecat_sdo_upload(r->m, 1, 0x1018, 1, false, buf, sizeof buf, &len), 0);
    assert_int_equal(get_le32(buf), 2);
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
        cmocka_unit_test(test_coe),
        cmocka_unit_test(test_coe_abort),
        cmocka_unit_test(test_pdo_coe),
        cmocka_unit_test(test_coe_loss),
        cmocka_unit_test(test_eni),
        cmocka_unit_test(test_emergency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
