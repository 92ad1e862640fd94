/* SoE, master against the in-process simulator's drive: reads of values, names, units
 * and several elements at once, writes checked by the drive, a list longer than the
 * mailbox read and written in fragments (also with lost mailbox replies), refusals
 * named by IDN and error, and a slave without SoE refused before any traffic. */
#include "ecat/soe.h"
#include "sim/esc_soe.h"
#include "sim/net.h"
#include "unit/sim/master_rig.h"

/* Slave 1 is an SoE drive whose process data are its default telegrams (MDT: master
 * control word, S-0-0047, S-0-0036; AT: drive status word, S-0-0051, S-0-0040). */
static void drive_desc(struct sim_device_desc *d)
{
    mbx_desc(d, 1);
    d->mbx_protocols = MBX_PROTO_SOE;
    d->coe_details = 0;
    d->rxpdo[0] = (struct sim_pdo){ .index = 0x1600, .sm = 2, .name = "MDT", .n = 3 };
    d->rxpdo[0].e[0] = (struct sim_pdo_entry){ 0x0086, 0, 16, 0x0006, "Master control word" };
    d->rxpdo[0].e[1] = (struct sim_pdo_entry){ 0x002F, 0, 32, 0x0004, "Position command value" };
    d->rxpdo[0].e[2] = (struct sim_pdo_entry){ 0x0024, 0, 32, 0x0004, "Velocity command value" };
    d->txpdo[0] = (struct sim_pdo){ .index = 0x1A00, .sm = 3, .name = "AT", .n = 3 };
    d->txpdo[0].e[0] = (struct sim_pdo_entry){ 0x0087, 0, 16, 0x0006, "Drive status word" };
    d->txpdo[0].e[1] = (struct sim_pdo_entry){ 0x0033, 0, 32, 0x0004, "Position feedback value 1" };
    d->txpdo[0].e[2] = (struct sim_pdo_entry){ 0x0028, 0, 32, 0x0004, "Velocity feedback value 1" };
}

/* Turn the SII's TxPDO/RxPDO categories (50/51) into NOPs: a drive whose EEPROM does
 * not describe its process data, which its IDNs do. */
static void strip_sii_pdos(uint8_t *sii, size_t len)
{
    for (size_t w = 0x40; 2 * w + 4 <= len && get_le16(sii + 2 * w) != 0xFFFF;
         w += 2 + get_le16(sii + 2 * w + 2))
        if (get_le16(sii + 2 * w) == 50 || get_le16(sii + 2 * w) == 51)
            put_le16(sii + 2 * w, 0);
}

static struct rig *soe_rig_pd(bool soe, bool drive)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        if (i == 1 && drive) {
            drive_desc(&r->desc[i]);
        } else if (i == 1) {
            mbx_desc(&r->desc[i], i);
            if (soe)
                r->desc[i].mbx_protocols |= MBX_PROTO_SOE;
        } else {
            io_desc(&r->desc[i], i);
        }
        assert_int_equal(sim_device_from_desc(&r->desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    assert_int_equal(takt_sim_create_devices(devs, 3, &so, &r->sim), 0);
    if (drive)
        strip_sii_pdos(r->sim->sl[1].esc.sii, r->sim->sl[1].esc.sii_bytes);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, NULL, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    return r;
}

static struct rig *soe_rig(bool soe) { return soe_rig_pd(soe, false); }

static void expect_err(struct rig *r, int rc, const char *text)
{
    const char *msg = takt_ecat_master_error(r->m);
    if (rc != -TAKT_EMBOX || !strstr(msg, text))
        printf("rc %d, message: %s\n", rc, msg);
    assert_int_equal(rc, -TAKT_EMBOX);
    assert_non_null(strstr(msg, text));
}

static void test_read_write(void **state)
{
    (void)state;
    struct rig *r = soe_rig(true);
    uint8_t b[512];
    size_t len = 0;
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 1, b, sizeof b, &len), 0);
    assert_int_equal(len, 2);
    assert_int_equal(get_le16(b), 1000);                       /* S-0-0001: 1000 us */
    /* name, attribute, unit and value of S-0-0036 in one response, in wire order */
    uint8_t el = SOE_EL_NAME | SOE_EL_ATTR | SOE_EL_UNIT | SOE_EL_VALUE;
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, el, 36, b, sizeof b, &len), 0);
    struct takt_ecat_soe_part p[8];
    char err[200];
    assert_int_equal(takt_ecat_soe_elements_split(b, len, el, 0, p, err, sizeof err), 0);
    assert_memory_equal(p[1].p + 4, "Velocity command value", 22);
    assert_int_equal(soe_attr_item(get_le32(p[2].p)), 4);
    assert_memory_equal(p[3].p + 4, "rpm", 3);
    /* write, read back; the drive holds it */
    uint8_t v[4];
    put_le32(v, (uint32_t)-123456);
    assert_int_equal(takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 36, v, 4), 0);
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 36, b, sizeof b, &len), 0);
    assert_int_equal((int32_t)get_le32(b), -123456);
    size_t n;
    const uint8_t *held = esc_soe_value(r->sim->sl[1].esc.soe, 36, &n);
    assert_int_equal(n, 4);
    assert_memory_equal(held, v, 4);
    /* the AT list as IDNs */
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, SOE_IDN_AT_LIST, b, sizeof b, &len), 0);
    assert_int_equal(len, 8);
    assert_int_equal(get_le16(b), 4);
    assert_int_equal(get_le16(b + 4), 51);
    assert_int_equal(get_le16(b + 6), 40);
    rig_free(r);
}

static void fill(uint8_t *b, unsigned items, unsigned seed)
{
    put_le16(b, (uint16_t)(2 * items));
    put_le16(b + 2, 1000);
    for (unsigned i = 0; i < items; i++)
        put_le16(b + 4 + 2 * i, (uint16_t)(i * 31 + seed));
}

/* P-0-0010, a list of 300 u16 (604 bytes), through 128-byte mailboxes: 6 fragments. */
static void long_list(struct rig *r, unsigned items, unsigned seed)
{
    static uint8_t w[2048], b[2048];
    size_t len = 0, n = 4 + 2 * items;
    const struct esc_soe *s = r->sim->sl[1].esc.soe;
    unsigned frag_in = s ? s->n_frag_in : 0, frag_out = s ? s->n_frag_out : 0;
    fill(w, items, seed);
    int rc = takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 0x800A, w, n);
    if (rc)
        printf("write: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    s = r->sim->sl[1].esc.soe;
    assert_int_equal(s->n_frag_in - frag_in, (n + 117) / 118 - 1);
    rc = takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 0x800A, b, sizeof b, &len);
    if (rc)
        printf("read: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_int_equal(len, n);
    assert_memory_equal(b + 4, w + 4, n - 4);
    assert_int_equal(s->n_frag_out - frag_out, (n + 117) / 118 - 1);
}

static void test_fragments(void **state)
{
    (void)state;
    struct rig *r = soe_rig(true);
    uint8_t b[2048];
    size_t len = 0;
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 0x800A, b, sizeof b, &len), 0);
    assert_int_equal(len, 4 + 600);                            /* the default: 300 items */
    assert_int_equal(get_le16(b + 4 + 2 * 299), 299 * 7);
    long_list(r, 300, 1);
    long_list(r, 57, 2);                                       /* exactly one full mailbox */
    long_list(r, 500, 3);
    /* the buffer too small: the master stops, the drive's next request starts afresh */
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 0x800A, b, 100, &len), -ENOSPC);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "larger than the 100-byte buffer"));
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 1, b, sizeof b, &len), 0);
    assert_int_equal(get_le16(b), 1000);
    /* and a write right after an aborted read finds a stale fragment first */
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 0x800A, b, 100, &len), -ENOSPC);
    uint8_t v[4] = { 7, 0, 0, 0 };
    int rc = takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 36, v, 4);
    if (rc)
        printf("write after an aborted read: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    rig_free(r);
}

/* Every 3rd frame that reads the send mailbox loses its reply: repeat requests. */
static void test_lost_replies(void **state)
{
    (void)state;
    struct rig *r = soe_rig(true);
    r->drop_reply_every = 3;
    long_list(r, 400, 5);
    long_list(r, 10, 6);
    assert_true(r->replies_dropped > 3);
    rig_free(r);
}

static void test_errors(void **state)
{
    (void)state;
    struct rig *r = soe_rig(true);
    uint8_t b[64], v[4] = { 1, 0, 0, 0 };
    size_t len;
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 40, v, 4),
               "slave 1: IDN S-0-0040 is read-only (SoE error 0x7004");
    expect_err(r, takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 99, b, sizeof b, &len),
               "IDN S-0-0099: no such IDN (SoE error 0x1001");
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 36, v, 2), "value too short (SoE error 0x7002");
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 1, v, 4), "value too long (SoE error 0x7003");
    put_le16(v, 10);                                           /* below TNcyc's minimum 125 */
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 1, v, 2), "below the minimum");
    expect_err(r, takt_ecat_soe_read(r->m, 1, 0, SOE_EL_UNIT, 15, b, sizeof b, &len), "has no unit");
    expect_err(r, takt_ecat_soe_read(r->m, 1, 3, SOE_EL_VALUE, 1, b, sizeof b, &len), "no such drive");
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_NAME, 1, v, 2), "name is read-only");
    /* a list naming an IDN the drive lacks */
    uint8_t l[8] = { 4, 0, 8, 0, 51, 0, 99, 0 };
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, SOE_IDN_AT_LIST, l, 8), "0x7008");
    /* the cycle time is set up in PREOP only */
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_SAFEOP, TAKT_NS_PER_S), 0);
    put_le16(v, 2000);
    expect_err(r, takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, 1, v, 2),
               "IDN S-0-0001 is write-protected in this state");
    /* the drive still answers afterwards */
    assert_int_equal(takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 1, b, sizeof b, &len), 0);
    assert_int_equal(get_le16(b), 1000);
    rig_free(r);
}

static void test_no_soe(void **state)
{
    (void)state;
    struct rig *r = soe_rig(false);
    uint8_t b[8];
    size_t len;
    expect_err(r, takt_ecat_soe_read(r->m, 1, 0, SOE_EL_VALUE, 1, b, sizeof b, &len),
               "slave 1 (");
    assert_non_null(strstr(takt_ecat_master_error(r->m), "has no SoE"));
    assert_int_equal(takt_ecat_soe_read(r->m, 7, 0, SOE_EL_VALUE, 1, b, sizeof b, &len), -ENOENT);
    rig_free(r);
}

/* Process data from the drive's telegram configuration: without it the SII (which
 * describes none) gives no process data and the drive refuses SAFEOP (0x001D); with it,
 * OP, entries named by the drive. A changed AT list changes the inputs the master lays
 * out (the simulated drive's image stays fixed, so it refuses: 0x001E). */
static void test_pdo_mapping(void **state)
{
    (void)state;
    struct rig *r = soe_rig_pd(true, true);
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(r->m, 1, &si);
    assert_int_equal(si.out_bits + si.in_bits, 0);              /* nothing from the SII */
    assert_int_not_equal(takt_ecat_master_set_state(r->m, AL_SAFEOP, TAKT_NS_PER_S), 0);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "0x001D"));
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_read_pdos_soe(r->m), 0);
    takt_ecat_master_slave_info(r->m, 1, &si);
    assert_int_equal(si.out_bits, 80);
    assert_int_equal(si.in_bits, 80);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 2 * TAKT_NS_PER_S);
    if (rc)
        printf("OP: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    struct takt_ecat_pd_entry e;
    assert_int_equal(takt_ecat_pd_find(r->m, 1, "Position feedback value 1", 0, 0, &e), 0);
    assert_int_equal(e.index, 51);
    assert_int_equal(e.bits, 32);
    assert_false(e.output);
    assert_int_equal(takt_ecat_pd_find(r->m, 1, "Velocity command value", 0, 0, &e), 0);
    assert_true(e.output);
    assert_int_equal(takt_ecat_pd_find(r->m, 1, "Drive status word", 0, 0, &e), 0);
    assert_int_equal(e.index, 135);
    rig_free(r);
    /* one more IDN in the AT: 12 bytes of inputs, which the simulated drive refuses */
    r = soe_rig_pd(true, true);
    uint8_t l[10] = { 6, 0, 16, 0, 51, 0, 40, 0, 1, 0 };
    assert_int_equal(takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, SOE_IDN_AT_LIST, l, sizeof l), 0);
    assert_int_equal(takt_ecat_master_read_pdos_soe(r->m), 0);
    takt_ecat_master_slave_info(r->m, 1, &si);
    assert_int_equal(si.in_bits, 96);
    assert_int_not_equal(takt_ecat_master_set_state(r->m, AL_SAFEOP, TAKT_NS_PER_S), 0);
    assert_non_null(strstr(takt_ecat_master_error(r->m), "0x001E"));
    rig_free(r);
}

/* A drive on a standard telegram: its lists do not apply, the SII's layout stays. */
static void test_pdo_standard_telegram(void **state)
{
    (void)state;
    struct rig *r = soe_rig_pd(true, false);
    uint8_t t[2] = { 4, 0 };
    assert_int_equal(takt_ecat_soe_write(r->m, 1, 0, SOE_EL_VALUE, SOE_IDN_TELEGRAM, t, 2), 0);
    struct takt_ecat_slave_info before, after;
    takt_ecat_master_slave_info(r->m, 1, &before);
    assert_int_equal(takt_ecat_master_read_pdos_soe(r->m), 0);
    takt_ecat_master_slave_info(r->m, 1, &after);
    assert_int_equal(after.in_bits, before.in_bits);
    assert_int_equal(after.out_bits, before.out_bits);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_write),
        cmocka_unit_test(test_fragments),
        cmocka_unit_test(test_lost_replies),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_no_soe),
        cmocka_unit_test(test_pdo_mapping),
        cmocka_unit_test(test_pdo_standard_telegram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
