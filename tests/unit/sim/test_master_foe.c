/* FoE and the BOOT state, master against the in-process simulator: reads and writes of
 * one, several and an exact multiple of segments, empty files, ERR codes named in the
 * message (not found, bootstrap only, not in bootstrap, password, read only), BUSY,
 * lost mailbox replies, INIT -> BOOT with the bootstrap mailbox, BOOT -> INIT, and BOOT
 * refused by a slave without FoE. */
#include "sim/esc_foe.h"
#include "sim/net.h"
#include "unit/sim/master_rig.h"

#define SEG (128 - 12)          /* data bytes per FoE packet through 128-byte mailboxes */

static struct rig *foe_rig_opts(bool foe, const struct takt_ecat_master_opts *o)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        if (i == 1) {
            mbx_desc(&r->desc[i], i);
            if (foe)
                r->desc[i].mbx_protocols |= MBX_PROTO_FOE;
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
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, o, err, sizeof err), 0);
    int rc = takt_ecat_master_scan(r->m, TAKT_NS_PER_S);
    if (rc)
        printf("scan: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    return r;
}

static struct rig *foe_rig(bool foe) { return foe_rig_opts(foe, NULL); }

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 31 + seed);
}

/* Write n bytes to name, read them back, compare; the simulator holds the same. */
static void round_trip(struct rig *r, const char *name, size_t n, unsigned seed)
{
    static uint8_t out[8192], in[8192];
    pattern(out, n, seed);
    int rc = takt_ecat_foe_write(r->m, 1, name, 0, out, n);
    if (rc)
        printf("write %s (%zu): %s\n", name, n, takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    const struct esc_foe *s = r->sim->sl[1].esc.foe;
    assert_non_null(s);
    int i = esc_foe_find(s, name);
    assert_true(i >= 0);
    assert_int_equal(s->f[i].len, n);
    if (n)
        assert_memory_equal(s->f[i].data, out, n);
    size_t len = 99999;
    memset(in, 0xEE, sizeof in);
    rc = takt_ecat_foe_read(r->m, 1, name, 0, in, sizeof in, &len);
    if (rc)
        printf("read %s: %s\n", name, takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(len, n);
    if (n)
        assert_memory_equal(in, out, n);
}

static void test_read_write(void **state)
{
    (void)state;
    struct rig *r = foe_rig(true);
    uint8_t b[16];
    size_t len;
    /* INIT: no mailbox */
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "x", 0, b, sizeof b, &len), -EAGAIN);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "FoE needs BOOT, PREOP"));
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    round_trip(r, "one.txt", 20, 1);                 /* one short packet */
    round_trip(r, "three.bin", 2 * SEG + 68, 2);     /* two full, one short */
    round_trip(r, "exact.bin", 2 * SEG, 3);          /* exact multiple: an empty last one */
    round_trip(r, "empty", 0, 4);                    /* one empty packet */
    round_trip(r, "big.bin", 8000, 5);               /* 69 packets */
    round_trip(r, "three.bin", 10, 6);               /* overwrite shrinks */
    /* the slave counted each transfer as complete */
    assert_int_equal(r->sim->sl[1].esc.foe->n_done, 12);
    /* the slave without FoE, and a position that does not exist */
    assert_int_equal(takt_ecat_foe_read(r->m, 0, "x", 0, b, sizeof b, &len), -TAKT_EMBOX);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "no FoE"));
    assert_int_equal(takt_ecat_foe_read(r->m, 7, "x", 0, b, sizeof b, &len), -ENOENT);
    /* CoE still works on the same mailbox afterwards */
    uint8_t v[4];
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 2, false, v, sizeof v, &len), 0);
    assert_int_equal(get_le32(v), 0x4001);
    rig_free(r);
}

static void expect_err(struct rig *r, int rc, const char *code, const char *text, const char *name)
{
    const char *msg = takt_ecat_master_error(r->m);
    if (rc != -TAKT_EMBOX || !strstr(msg, code) || !strstr(msg, text) || !strstr(msg, name) ||
        !strstr(msg, "slave 1"))
        printf("rc %d, message: %s\n", rc, msg);
    assert_int_equal(rc, -TAKT_EMBOX);
    assert_non_null(strstr(msg, code));
    assert_non_null(strstr(msg, text));
    assert_non_null(strstr(msg, name));
    assert_non_null(strstr(msg, "slave 1"));
}

static void test_errors(void **state)
{
    (void)state;
    struct rig *r = foe_rig(true);
    char err[200];
    assert_int_equal(takt_sim_foe(r->sim, "1:secret.txt,pw=1234,size=50;1:rom.txt,ro,size=10",
                                  err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    uint8_t b[256];
    size_t len = 0;
    expect_err(r, takt_ecat_foe_read(r->m, 1, "missing.bin", 0, b, sizeof b, &len), "0x8001",
               "file not found", "missing.bin");
    expect_err(r, takt_ecat_foe_write(r->m, 1, "firmware.bin", 0, b, 10), "0x8008",
               "only in bootstrap", "firmware.bin");
    expect_err(r, takt_ecat_foe_read(r->m, 1, "secret.txt", 99, b, sizeof b, &len), "0x800A",
               "password", "secret.txt");
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "secret.txt", 1234, b, sizeof b, &len), 0);
    assert_int_equal(len, 50);
    for (size_t i = 0; i < len; i++)
        assert_int_equal(b[i], (uint8_t)(i * 7 + 1));
    expect_err(r, takt_ecat_foe_write(r->m, 1, "rom.txt", 0, b, 5), "0x8002", "access denied", "rom.txt");
    /* a file larger than the reader's buffer: the master stops with ERR, the slave too */
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "secret.txt", 1234, b, 20, &len), -ENOSPC);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "larger than the 20-byte buffer"));
    assert_int_equal(r->sim->sl[1].esc.foe->st, ESC_FOE_IDLE);
    /* the size limit of a file: disk full */
    assert_int_equal(takt_sim_foe(r->sim, "1:small.txt,max=100", err, sizeof err), 0);
    expect_err(r, takt_ecat_foe_write(r->m, 1, "small.txt", 0, b, 150), "0x8003", "disk full", "small.txt");
    /* bad specs are refused with a reason */
    assert_int_equal(takt_sim_foe(r->sim, "0:x.txt", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "has no FoE"));
    assert_int_equal(takt_sim_foe(r->sim, "1:busy=x", err, sizeof err), -EINVAL);
    assert_int_equal(takt_sim_foe(r->sim, "8:a", err, sizeof err), -EINVAL);
    rig_free(r);
}

/* BUSY before each ACK (a slave erasing flash): the master sends the packet again. */
static void test_busy(void **state)
{
    (void)state;
    struct rig *r = foe_rig(true);
    char err[200];
    assert_int_equal(takt_sim_foe(r->sim, "1:busy=2", err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    round_trip(r, "slow.bin", 2 * SEG + 1, 9);
    assert_int_equal(r->sim->sl[1].esc.foe->n_busy, 2 * 3);
    rig_free(r);
}

/* Every 3rd frame that reads the send mailbox loses its reply: the master asks for a
 * repetition (SM1 repeat request) and the transfer still completes intact. */
static void test_lost_replies(void **state)
{
    (void)state;
    struct rig *r = foe_rig(true);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    r->drop_reply_every = 3;
    round_trip(r, "lossy.bin", 3000, 11);
    assert_true(r->replies_dropped > 3);
    rig_free(r);
}

struct done { int n, err; size_t len; };

static void on_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct done *d = ctx;
    (void)data;
    d->n++;
    d->err = err;
    d->len = len;
}

/* The queued form from the application's own cycle: each takt_ecat_master_cycle() returns at
 * once, the transfers advance a step per cycle and call back once; a CoE upload queued
 * behind the FoE write waits for the mailbox and completes too. */
static void test_async(void **state)
{
    (void)state;
    struct rig *r = foe_rig(true);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    static uint8_t out[1000], in[1000];
    pattern(out, sizeof out, 77);
    struct done w = { 0 }, rd = { 0 }, sdo = { 0 };
    uint8_t v[4];
    assert_int_equal(takt_ecat_foe_write_async(r->m, 1, "async.bin", 0, out, sizeof out, on_done, &w), 0);
    assert_int_equal(takt_ecat_sdo_upload_async(r->m, 1, 0x1018, 2, false, v, sizeof v, on_done, &sdo), 0);
    unsigned cycles = 0;
    while ((!w.n || !sdo.n) && cycles < 2000) {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        cycles++;
    }
    assert_int_equal(w.n, 1);
    assert_int_equal(w.err, 0);
    assert_int_equal(sdo.n, 1);
    assert_int_equal(sdo.err, 0);
    assert_int_equal(get_le32(v), 0x4001);
    printf("  FoE write of %zu bytes (%zu packets) + SDO upload: %u cycles\n", sizeof out,
           sizeof out / SEG + 1, cycles);
    assert_int_equal(takt_ecat_foe_read_async(r->m, 1, "async.bin", 0, in, sizeof in, on_done, &rd), 0);
    for (cycles = 0; !rd.n && cycles < 2000; cycles++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    assert_int_equal(rd.n, 1);
    assert_int_equal(rd.err, 0);
    assert_int_equal(rd.len, sizeof out);
    assert_memory_equal(in, out, sizeof out);
    rig_free(r);
}

/* A slave that never answers: the transfer ends after the per-packet timeout with a
 * message naming slave, file and packet; the master is usable afterwards. */
static void test_timeout(void **state)
{
    (void)state;
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.sdo_timeout_ns = 300 * TAKT_NS_PER_MS;
    struct rig *r = foe_rig_opts(true, &o);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    uint8_t b[64];
    size_t len;
    r->drop_every = 1;
    takt_ns_t t0 = takt_now();
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "firmware.bin", 0, b, sizeof b, &len), -ETIMEDOUT);
    takt_ns_t took = takt_now() - t0;
    assert_true(took >= 300 * TAKT_NS_PER_MS && took < 3 * TAKT_NS_PER_S);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "slave 1: FoE read of 'firmware.bin': no answer within 300 ms"));
    r->drop_every = 0;
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "firmware.bin", 0, b, sizeof b, &len), 0);
    assert_int_equal(len, 0);
    rig_free(r);
}

static void test_boot(void **state)
{
    (void)state;
    struct rig *r = foe_rig(true);
    static uint8_t fw[3000], back[4000];
    pattern(fw, sizeof fw, 42);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    /* INIT -> BOOT for slave 1 only; slave 2 stays in PREOP */
    int rc = takt_ecat_slave_set_state(r->m, 1, AL_BOOT, TAKT_NS_PER_S);
    if (rc)
        printf("%s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    struct takt_ecat_slave_info si;
    assert_int_equal(takt_ecat_master_slave_info(r->m, 1, &si), 0);
    assert_int_equal(si.al_state, AL_BOOT);
    assert_int_equal(r->sim->sl[1].esc.al_state, AL_BOOT);
    assert_int_equal(r->sim->sl[2].esc.al_state, AL_PREOP);
    /* the firmware goes in BOOT; other files do not; CoE is not there */
    assert_int_equal(takt_ecat_foe_write(r->m, 1, "firmware.bin", 0, fw, sizeof fw), 0);
    uint8_t b[8];
    expect_err(r, takt_ecat_foe_write(r->m, 1, "notes.txt", 0, b, 4), "0x8009",
               "not in bootstrap", "notes.txt");
    size_t len;
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 2, false, b, sizeof b, &len), -EAGAIN);
    /* BOOT leaves only to INIT: a request for PREOP goes through INIT */
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_INIT, TAKT_NS_PER_S), 0);
    assert_int_equal(r->sim->sl[1].esc.al_state, AL_INIT);
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_PREOP, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "firmware.bin", 0, back, sizeof back, &len), 0);
    assert_int_equal(len, sizeof fw);
    assert_memory_equal(back, fw, sizeof fw);
    /* PREOP -> BOOT directly is not allowed: the master goes through INIT */
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_BOOT, TAKT_NS_PER_S), 0);
    assert_int_equal(r->sim->sl[1].esc.al_state, AL_BOOT);
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_PREOP, TAKT_NS_PER_S), 0);
    rig_free(r);
}

/* A bootstrap mailbox other than the standard one (64 instead of 128 bytes, as the SII
 * says): BOOT runs on it (52-byte segments), and PREOP afterwards on the standard one
 * again, although the SMs were still enabled (write-protected) with the boot layout. */
static void test_boot_mailbox_differs(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[2];
    for (unsigned i = 0; i < 2; i++) {
        mbx_desc(&r->desc[i], i);
        r->desc[i].mbx_protocols |= MBX_PROTO_FOE;
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 2, &so, &r->sim), 0);
    struct sim_esc *e = &r->sim->sl[1].esc;
    /* the SII as built: bootstrap mailbox = standard mailbox, FoE advertised */
    assert_int_equal(get_le16(e->sii + 2 * SII_W_BOOT_RX_OFF), get_le16(e->sii + 2 * SII_W_STD_RX_OFF));
    assert_int_equal(get_le16(e->sii + 2 * SII_W_BOOT_TX_SIZE), 128);
    assert_true(get_le16(e->sii + 2 * SII_W_MBX_PROTO) & MBX_PROTO_FOE);
    put_le16(e->sii + 2 * SII_W_BOOT_RX_SIZE, 64);
    put_le16(e->sii + 2 * SII_W_BOOT_TX_SIZE, 64);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_BOOT, TAKT_NS_PER_S), 0);
    assert_int_equal(get_le16(e->mem + ESC_SM0 + 2), 64);
    static uint8_t fw[1000], back[1000];
    pattern(fw, sizeof fw, 3);
    assert_int_equal(takt_ecat_foe_write(r->m, 1, "firmware.bin", 0, fw, sizeof fw), 0);
    assert_int_equal(takt_ecat_slave_set_state(r->m, 1, AL_PREOP, TAKT_NS_PER_S), 0);
    assert_int_equal(get_le16(e->mem + ESC_SM0 + 2), 128);
    size_t len;
    assert_int_equal(takt_ecat_foe_read(r->m, 1, "firmware.bin", 0, back, sizeof back, &len), 0);
    assert_int_equal(len, sizeof fw);
    assert_memory_equal(back, fw, sizeof fw);
    uint8_t v[4];
    assert_int_equal(takt_ecat_sdo_upload(r->m, 1, 0x1018, 2, false, v, sizeof v, &len), 0);
    rig_free(r);
}

/* A slave without FoE has no bootstrap mailbox in its SII: it refuses BOOT with AL
 * status code 0x0013, named in the message. */
static void test_boot_refused(void **state)
{
    (void)state;
    struct rig *r = foe_rig(false);
    for (unsigned w = SII_W_BOOT_RX_OFF; w <= SII_W_BOOT_TX_SIZE; w++)
        assert_int_equal(get_le16(r->sim->sl[1].esc.sii + 2 * w), 0);   /* none in the SII */
    int rc = takt_ecat_slave_set_state(r->m, 1, AL_BOOT, TAKT_NS_PER_S);
    assert_int_equal(rc, -TAKT_EALSTATUS);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "0x0013"));
    assert_non_null(strstr(takt_ecat_master_error(r->m), "bootstrap not supported"));
    assert_int_equal(r->sim->sl[1].esc.al_state, AL_INIT);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_busy),
        cmocka_unit_test(test_lost_replies),
        cmocka_unit_test(test_async),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_boot),
        cmocka_unit_test(test_boot_mailbox_differs),
        cmocka_unit_test(test_boot_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
