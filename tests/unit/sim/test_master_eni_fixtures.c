/* The master with an ENI driving start-up against the simulator built from the real
 * ENIs in $TAKT_FIXTURES (skipped without): TwinCAT's to OP, down to INIT, with frame
 * loss, after a cable cut and to BOOT; EC-Engineer's (4 drives, DC) to OP and what its
 * CoE commands wrote; both files unmodified on both sides. Then masters given copies of
 * TwinCAT's with one value changed: a bootstrap mailbox the slave does not have, a
 * validate that never matches, a wrong Cnt, CoE upload checks. */
#include "unit/sim/eni_rig.h"

static void test_mega_master(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    run_fixture(path, path, false);
}

/* Every 10th cyclic frame lost: each loss counted once, no WKC error, no slave lost. */
static void test_mega_loss(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path, false);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    struct takt_ecat_master_stats a, b;
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    takt_ecat_master_get_stats(r->m, &a);
    r->drop_every = 10;
    for (unsigned i = 0; i < 300; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    r->drop_every = 0;
    assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    takt_ecat_master_get_stats(r->m, &b);
    assert_int_equal(r->dropped, 30);
    assert_int_equal(b.cyc_frames_lost - a.cyc_frames_lost, r->dropped);
    assert_int_equal(b.wkc_errors, a.wkc_errors);
    assert_int_equal(b.slaves_lost, a.slaves_lost);
    assert_int_equal(b.state, AL_OP);
    erig_free(r);
}

/* INIT -> BOOT of the EL4002 (slave 2) with the ENI's IB commands (its bootstrap
 * mailbox SMs, the AL request of BOOT), then back to PREOP through BI and IP; boot_len
 * is the bootstrap mailbox length the slave answers in BOOT with. */
static void mutate(const char *src, const char *from, const char *to, char *out, size_t outlen);

static int boot(const char *sim_eni, const char *eni, uint16_t boot_len, char *msg, size_t len)
{
    struct erig *r = erig_new(sim_eni, eni, false);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, eni), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, 20 * TAKT_NS_PER_S), 0);
    r->recording = true;
    int rc = takt_ecat_slave_set_state(r->m, 2, AL_BOOT, 10 * TAKT_NS_PER_S);
    snprintf(msg, len, "%s", rc ? takt_ecat_master_error(r->m) : "");
    printf("  -> %d: %s\n", rc, rc ? msg : "BOOT");
    const struct ecat_eni_slave *es = &r->eni->slave[2];
    unsigned from = 0, n = 0;
    for (unsigned k = 0; k < es->n_init; k++) {
        const struct ecat_eni_cmd *c = &es->init[k];
        if (!(c->transitions & ECAT_TR_BIT(ECAT_TR_IB)) || skipped_by_master(c, AL_BOOT))
            continue;
        if (!seen(r, c, &from))
            fail_msg("IB command at line %u (%s, ado 0x%04X) not on the wire in order", c->line,
                     c->comment, c->ado);
        n++;
    }
    assert_true(n > 0);
    uint8_t sm0[8];
    assert_int_equal(takt_sim_peek(r->sim, 2, 0x0800, sm0, 8), 0);
    assert_int_equal(get_le16(sm0), 0x1000);
    assert_int_equal(get_le16(sm0 + 2), boot_len);     /* as the ENI wrote it */
    if (!rc) {
        int back = takt_ecat_slave_set_state(r->m, 2, AL_PREOP, 10 * TAKT_NS_PER_S);
        if (back)
            printf("%s\n", takt_ecat_master_error(r->m));
        assert_int_equal(back, 0);
        assert_int_equal(takt_sim_peek(r->sim, 2, 0x0800, sm0, 8), 0);
        assert_int_equal(get_le16(sm0 + 2), 128);      /* the standard mailbox again */
    }
    /* one slave's transitions: none of the master's broadcasts (they would clear the
     * others' station addresses, FMMUs and SMs) */
    for (unsigned i = 0; i < r->n_log; i++)
        if (r->log[i].cmd == ECAT_BWR)
            fail_msg("master broadcast BWR 0x%04X during one slave's BOOT", r->log[i].ado);
    erig_free(r);
    return rc;
}

static void test_mega_boot(void **state)
{
    (void)state;
    char path[512], one[64], two[64];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    /* as written: 244-byte bootstrap mailboxes (Mailbox/BootStrap), which the
     * simulated EL4002's SII carries in words 0x14-0x17: BOOT and back */
    char msg[300];
    assert_int_equal(boot(path, path, 244, msg, sizeof msg), 0);
    /* a master whose ENI puts the bootstrap mailbox elsewhere (the standard one's
     * 128 bytes) is refused with 0x0015, which the master names */
    mutate(path, "<Data>0010f40026000100</Data>", "<Data>0010800026000100</Data>", one, sizeof one);
    mutate(one, "<Data>f410f40022000100</Data>", "<Data>8010800022000100</Data>", two, sizeof two);
    assert_int_equal(boot(path, two, 128, msg, sizeof msg), -TAKT_EALSTATUS);
    assert_non_null(strstr(msg, "slave 2 (station 0x03EB, EL4002): refused INIT -> BOOT"));
    assert_non_null(strstr(msg, "code 0x0015"));
    unlink(one);
}

/* Down again: OP -> INIT runs the ENI's OI commands, the master's broadcast ones (clear
 * FMMUs) before the slaves' AL request. */
static void test_mega_down(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path, false);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    r->recording = true;
    int rc = takt_ecat_master_set_state(r->m, AL_INIT, 20 * TAKT_NS_PER_S);
    if (rc)
        printf("%s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.state, AL_INIT);
    unsigned from = 0, n = 0;
    const struct ecat_eni *e = r->eni;
    for (unsigned k = 0; k < e->n_master_init; k++) {
        const struct ecat_eni_cmd *c = &e->master_init[k];
        if (!(c->transitions & ECAT_TR_BIT(ECAT_TR_OI)))
            continue;
        if (!seen(r, c, &from))
            fail_msg("master OI command at line %u (%s) not on the wire", c->line, c->comment);
        n++;
    }
    assert_true(n > 0);
    /* ... and before any slave's AL control write of INIT */
    for (unsigned i = 0; i < from; i++)
        assert_false(r->log[i].ado == 0x0120 && r->log[i].len && (r->log[i].data[0] & 0x0F) == AL_INIT &&
                     r->log[i].cmd != ECAT_BWR);
    erig_free(r);
}

/* The EC-Engineer fixture to OP, simulator and master from the file as it is (with DC:
 * the drives run SYNC0). */
static void test_rocos(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("rocos-eni4.xml", path, sizeof path))
        skip();
    run_fixture(path, path, true);
}

/* What the ENI's CoE init commands wrote is in the simulated drives' dictionaries, read
 * back over CoE in OP: the cycle time 0x60C2:01 (its 0x6060 is mapped: the outputs
 * overwrite it), the assignment with
 * 0x161C (beyond the 16 RxPDOs the simulator once held) at 0x1C12:05; a mapping the ENI only lists
 * (0x1A1F, current actual value) is offered too. */
static void test_rocos_dictionary(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("rocos-eni4.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path, true);      /* the drives need SYNC0 for SAFEOP */
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, 5 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    static const struct { uint16_t index; uint8_t sub; uint32_t want; size_t len; } obj[] = {
        { 0x60C2, 1, 0x01, 1 }, { 0x1C12, 0, 5, 1 },
        { 0x1C12, 5, 0x161C, 2 }, { 0x1C13, 5, 0x1A1D, 2 }, { 0x1A1F, 1, 0x60780010, 4 },
    };
    for (unsigned k = 0; k < r->eni->n_slaves; k++)
        for (size_t i = 0; i < sizeof obj / sizeof obj[0]; i++) {
            uint8_t v[8] = { 0 };
            size_t n = 0;
            int rc = takt_ecat_sdo_upload(r->m, k, obj[i].index, obj[i].sub, false, v, sizeof v, &n);
            if (rc)
                fail_msg("slave %u 0x%04X:%02X: %s", k, obj[i].index, obj[i].sub, takt_ecat_master_error(r->m));
            assert_int_equal(n, obj[i].len);
            assert_int_equal(get_le32(v), obj[i].want);
        }
    erig_free(r);
}

/* A cable cut after slave 2 and its heal: the slaves behind it are reported lost, come
 * back through the ENI's own INIT -> OP commands (no master broadcasts: the others keep
 * running) and the cyclic frames are judged again without a WKC error. */
static void test_recovery(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path, false);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    struct takt_ecat_master_stats st;
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    for (unsigned i = 0; i < 20; i++) {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        usleep(1000);
    }
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_present, 2);
    assert_true(st.slaves_lost >= 1);
    assert_int_equal(takt_sim_heal(r->sim, takt_now()), 0);
    r->n_log = 0;
    r->recording = true;
    takt_ns_t end = takt_now() + 10 * TAKT_NS_PER_S;
    do {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        usleep(1000);
        takt_ecat_master_get_stats(r->m, &st);
    } while ((st.state != AL_OP || st.slaves_present != 4 || st.slaves_returned < 1) && takt_now() < end);
    if (st.state != AL_OP)
        events(r->m);
    assert_int_equal(st.state, AL_OP);
    assert_int_equal(st.slaves_present, 4);
    /* the returning slaves' IP commands went out again, the master's broadcasts did not */
    unsigned from = 0, bwr = 0;
    const struct ecat_eni_slave *es = &r->eni->slave[2];
    for (unsigned k = 0; k < es->n_init; k++)
        if (es->init[k].ado == 0x0010 && (es->init[k].transitions & ECAT_TR_BIT(ECAT_TR_IP)))
            assert_true(seen(r, &es->init[k], &from));
    for (unsigned i = 0; i < r->n_log; i++)
        bwr += r->log[i].cmd == ECAT_BWR && r->log[i].ado == 0x0010;
    assert_int_equal(bwr, 0);
    uint64_t wkc0 = st.wkc_errors;
    for (unsigned i = 0; i < 50; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, wkc0);
    erig_free(r);
}

/* Write the fixture with the first `from` replaced by `to` into a temporary file. */
static void mutate(const char *src, const char *from, const char *to, char *out, size_t outlen)
{
    size_t n;
    char *b = slurp(src, &n);
    char *at = strstr(b, from);
    assert_non_null(at);
    snprintf(out, outlen, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(b, 1, (size_t)(at - b), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    free(b);
}

static void test_validate_never_matches(void **state)
{
    (void)state;
    char path[512], bad[64], msg[300], want[64];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    /* the EK1100's product code check (SII word 0x0A via 0x0508) expects another code */
    mutate(path, "<Data>522c4c04</Data>", "<Data>522c4c05</Data>", bad, sizeof bad);
    assert_int_not_equal(bring_up(path, bad, msg, sizeof msg), 0);
    snprintf(want, sizeof want, "line %u:", line_of(bad, 0, 0x0508, "product code"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "slave 0 (Term 1 (EK1100))"));
    assert_non_null(strstr(msg, "transition IP"));
    assert_non_null(strstr(msg, "check product code"));
    assert_non_null(strstr(msg, "0x0508"));
    assert_non_null(strstr(msg, "expected 522C4C05, found 522C4C04"));
    unlink(bad);
}

static void test_wrong_cnt(void **state)
{
    (void)state;
    char path[512], bad[64], msg[300], want[64];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    /* the EK1100's station address write claims two slaves answer */
    mutate(path, "<Data>e903</Data>\n          <Cnt>1</Cnt>", "<Data>e903</Data>\n          <Cnt>2</Cnt>",
           bad, sizeof bad);
    assert_int_not_equal(bring_up(path, bad, msg, sizeof msg), 0);
    snprintf(want, sizeof want, "line %u:", line_of(bad, 0, 0x0010, "physical address"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "slave 0"));
    assert_non_null(strstr(msg, "'set physical address' (APWR adp 0x0000 ado 0x0010)"));
    assert_non_null(strstr(msg, "expected WKC 2, got 1"));
    unlink(bad);
}

/* A CoE upload init command of the EL4002 (slave 2): the vendor id 0x1018:01. */
static void coe_upload(const char *data, bool ok)
{
    char path[512], eni[64], msg[300], ins[400];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    snprintf(ins, sizeof ins, "</Profile>\n<InitCmds><InitCmd><Transition>PS</Transition><Comment>"
             "check vendor</Comment><Timeout>2000</Timeout><Ccs>2</Ccs><Index>#x1018</Index><SubIndex>1"
             "</SubIndex><Data>%s</Data></InitCmd></InitCmds>", data);
    mutate(path, "</Profile>", ins, eni, sizeof eni);
    int rc = bring_up(path, eni, msg, sizeof msg);
    if (ok) {
        assert_int_equal(rc, 0);
    } else {
        assert_int_not_equal(rc, 0);
        assert_non_null(strstr(msg, "slave 2 (Term 3 (EL4002)), transition PS, CoE upload 0x1018:01"));
        assert_non_null(strstr(msg, "expected 03000000 (4 bytes), found 02000000 (4 bytes)"));
    }
    unlink(eni);
}

static void test_coe_upload_match(void **state) { (void)state; coe_upload("02000000", true); }
static void test_coe_upload_mismatch(void **state) { (void)state; coe_upload("03000000", false); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mega_master),
        cmocka_unit_test(test_mega_down),
        cmocka_unit_test(test_mega_boot),
        cmocka_unit_test(test_mega_loss),
        cmocka_unit_test(test_rocos),
        cmocka_unit_test(test_rocos_dictionary),
        cmocka_unit_test(test_recovery),
        cmocka_unit_test(test_validate_never_matches),
        cmocka_unit_test(test_wrong_cnt),
        cmocka_unit_test(test_coe_upload_match),
        cmocka_unit_test(test_coe_upload_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
