/* The master with an ENI driving start-up, against the simulator built from the same
 * ENI: a small ENI of the test's own (no fixture needed): its commands on the wire in
 * file order, its image at BitStart 8 and its LWR through its FMMU into the slave, DC,
 * a validate that never matches and a transition that outlasts the ENI's timeout, both
 * named by file line, a cyclic WKC the slaves cannot give. */
#include "unit/sim/eni_rig.h"

/* A small ENI of its own (no fixture needed): one output slave the simulator describes
 * from the ENI, its byte at BitStart 8 (not where takt would pack it), an LWR at the
 * ENI's logical address 0x00010000 and the AL status BRD. %s: what the read-back of
 * the SM2 set-up (0x0810) must show; %u: the SAFEOP check's timeout; %s: a <DC> element;
 * %u: the LWR's expected working counter. */
static const char small_eni[] =
"<?xml version=\"1.0\"?>\n"
"<EtherCATConfig><Config>\n"
"<Master><Info><Name>t</Name><Destination>ffffffffffff</Destination><Source>020000000001</Source>"
"<EtherType>a488</EtherType></Info>\n"
"<InitCmds>\n"
"<InitCmd><Transition>IP</Transition><BeforeSlave>true</BeforeSlave><Comment>clear fmmu</Comment>"
"<Cmd>8</Cmd><Adp>0</Adp><Ado>1536</Ado><DataLength>32</DataLength></InitCmd>\n"
"</InitCmds></Master>\n"
"<Slave><Info><Name>Out (X1)</Name><PhysAddr>1001</PhysAddr><AutoIncAddr>0</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>1</ProductCode><RevisionNo>1</RevisionNo></Info>\n"
"<ProcessData><Send><BitStart>8</BitStart><BitLength>8</BitLength></Send>\n"
"<Sm2><Type>Outputs</Type><DefaultSize>1</DefaultSize><StartAddress>4096</StartAddress>"
"<ControlByte>100</ControlByte><Enable>1</Enable><Pdo>5632</Pdo></Sm2>\n"
"<RxPdo Fixed=\"1\" Sm=\"2\"><Index>#x1600</Index><Name>Out</Name><Entry><Index>#x7000</Index>"
"<SubIndex>1</SubIndex><BitLen>8</BitLen><Name>Value</Name><DataType>USINT</DataType></Entry></RxPdo>\n"
"</ProcessData>\n"
"<InitCmds>\n"
"<InitCmd><Transition>IP</Transition><Comment>set physical address</Comment><Cmd>2</Cmd><Adp>0</Adp>"
"<Ado>16</Ado><Data>e903</Data><Cnt>1</Cnt><Retries>3</Retries></InitCmd>\n"
"<InitCmd><Transition>IP</Transition><Comment>request PREOP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0200</Data><Cnt>1</Cnt><Timeout>3000</Timeout></InitCmd>\n"
"<InitCmd><Transition>IP</Transition><Comment>check PREOP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0200</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>set sm 2 (outputs)</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>2064</Ado><Data>0010010064000100</Data><Cnt>1</Cnt><Retries>3</Retries></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>check sm 2</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>2064</Ado><Data>0000000000000000</Data><Cnt>1</Cnt><Validate><Data>%s</Data>"
"<DataMask>ffffffffff00ff00</DataMask><Timeout>200</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>set fmmu 0 (outputs)</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>1536</Ado><Data>0100010001000007001000020100000000</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>request SAFEOP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0400</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>check SAFEOP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0400</Data><DataMask>1f00</DataMask>"
"<Timeout>%u</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>SO</Transition><Comment>request OP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0800</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>SO</Transition><Comment>check OP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0800</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"</InitCmds>%s</Slave>\n"
"<Cyclic><CycleTime>1000</CycleTime><Frame>\n"
"<Cmd><State>SAFEOP</State><State>OP</State><Comment>outputs</Comment><Cmd>11</Cmd><Addr>65536</Addr>"
"<DataLength>2</DataLength><Cnt>%u</Cnt><InputOffs>0</InputOffs><OutputOffs>0</OutputOffs></Cmd>\n"
"<Cmd><State>PREOP</State><State>SAFEOP</State><State>OP</State><Cmd>7</Cmd><Adp>0</Adp><Ado>304</Ado>"
"<DataLength>2</DataLength><Cnt>1</Cnt><InputOffs>2</InputOffs><OutputOffs>2</OutputOffs></Cmd>\n"
"</Frame></Cyclic>\n"
"<ProcessImage><Inputs><ByteSize>4</ByteSize></Inputs><Outputs><ByteSize>4</ByteSize><Variable>"
"<Name>Out (X1).Out.Value</Name><DataType>USINT</DataType><BitSize>8</BitSize><BitOffs>8</BitOffs>"
"</Variable></Outputs></ProcessImage>\n"
"</Config></EtherCATConfig>\n";

static void write_small_full(char *path, size_t len, const char *sm_check, unsigned safeop_ms,
                             const char *dc, unsigned lwr_cnt)
{
    snprintf(path, len, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, small_eni, sm_check, safeop_ms, dc, lwr_cnt);
    fclose(f);
}

static void write_small_dc(char *path, size_t len, const char *sm_check, unsigned safeop_ms,
                           const char *dc)
{ write_small_full(path, len, sm_check, safeop_ms, dc, 1); }

static void write_small(char *path, size_t len, const char *sm_check, unsigned safeop_ms)
{ write_small_dc(path, len, sm_check, safeop_ms, ""); }

static void test_small_eni(void **state)
{
    (void)state;
    char path[64];
    write_small(path, sizeof path, "0010010064000100", 3000);
    struct erig *r = erig_new(path, path, false);
    r->recording = true;
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", takt_ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_IP, AL_PREOP);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    /* the master's broadcast came first, then the slave's own commands */
    unsigned bwr = r->n_log, apwr = r->n_log;
    for (unsigned i = 0; i < r->n_log; i++) {
        if (r->log[i].cmd == ECAT_BWR && r->log[i].ado == 0x0600 && bwr == r->n_log)
            bwr = i;
        if (r->log[i].cmd == ECAT_APWR && r->log[i].ado == 0x0010 && apwr == r->n_log)
            apwr = i;
    }
    assert_true(bwr < apwr && apwr < r->n_log);
    check_image(r);
    struct takt_ecat_pd_entry e;
    assert_int_equal(takt_ecat_pd_find(r->m, 0, "Value", 0, 0, &e), 0);
    assert_int_equal(e.byte_offset, 1);      /* BitStart 8, not takt's byte 0 */
    takt_ecat_pd_write(r->m, &e, 0x5A);
    check_cyclic(r);
    uint8_t b = 0;
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x1000, &b, 1), 0);
    assert_int_equal(b, 0x5A);                /* through the ENI's FMMU and LWR */
    erig_free(r);
    unlink(path);
}

/* The same slave with DC: the ENI's DC register commands are left to takt's own DC
 * set-up, which arms SYNC0 before SAFEOP; the ENI's frames carry takt's DC datagrams. */
static void test_small_eni_dc(void **state)
{
    (void)state;
    char path[64];
    write_small_dc(path, sizeof path, "0010010064000100", 3000,
                   "<DC><ReferenceClock>1</ReferenceClock><CycleTime0>1000000</CycleTime0>"
                   "<AssignActivate>#x0300</AssignActivate></DC>");
    struct erig *r = erig_new(path, path, true);
    r->recording = true;
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", takt_ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_cyclic(r);
    uint8_t act = 0;
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x0981, &act, 1), 0);
    assert_int_equal(act & 0x03, 0x03);       /* SYNC0 armed by takt's DC set-up */
    unsigned frmw = 0;
    for (unsigned i = 0; i < r->n_log; i++)
        frmw += r->log[i].cmd == ECAT_FRMW && r->log[i].ado == 0x0910;
    assert_true(frmw >= 10);                  /* drift control in every cycle */
    erig_free(r);
    unlink(path);
}

/* The ENI's frame expects a WKC the slaves cannot give: counted every cycle in OP, one
 * event naming the datagram, expected and found. */
static void test_small_cyclic_wkc(void **state)
{
    (void)state;
    char path[64], ev[256];
    write_small_full(path, sizeof path, "0010010064000100", 3000, "", 2);
    struct erig *r = erig_new(path, path, false);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S), 0);
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev))
        ;
    struct takt_ecat_master_stats a, b;
    takt_ecat_master_get_stats(r->m, &a);
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    takt_ecat_master_get_stats(r->m, &b);
    assert_true(b.wkc_errors - a.wkc_errors >= 19);
    unsigned hits = 0;
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev))
        hits += strstr(ev, "ENI cyclic frame 0 datagram 0 (LWR outputs 0x00010000, 2 bytes): "
                           "WKC expected 2, got 1") != NULL;
    assert_int_equal(hits, 1);                 /* once, not every cycle */
    erig_free(r);
    unlink(path);
}

/* A validate that never matches fails the slave in its own 200 ms, naming the line. */
static void test_small_validate(void **state)
{
    (void)state;
    char path[64], msg[300], want[32];
    write_small(path, sizeof path, "0010020064000100", 3000);   /* length 2: never */
    takt_ns_t t0 = takt_now();
    assert_int_not_equal(bring_up(path, path, msg, sizeof msg), 0);
    assert_true(takt_now() - t0 < 3 * TAKT_NS_PER_S);
    snprintf(want, sizeof want, "line %u:", line_of(path, 0, 0x0810, "check sm 2"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "slave 0 (Out (X1)), transition PS, command 'check sm 2' (FPRD 0x0810)"));
    assert_non_null(strstr(msg, "expected 0010020064000100 mask FFFFFFFFFF00FF00, found 001001006400"));
    unlink(path);
}

/* A slave that never shows SAFEOP: the transition fails after the ENI's validate
 * timeout of its SAFEOP check (300 ms), not the 10 s default, and says whose it is. */
static void test_small_timeout(void **state)
{
    (void)state;
    char path[64], err[300], want[96];
    write_small(path, sizeof path, "0010010064000100", 300);
    struct erig *r = erig_new(path, path, false);
    r->hide_safeop = true;
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    takt_ns_t t0 = takt_now();
    assert_int_equal(takt_ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S), -ETIMEDOUT);
    takt_ns_t took = takt_now() - t0;
    snprintf(err, sizeof err, "%s", takt_ecat_master_error(r->m));
    printf("  -> %s (%lld ms)\n", err, (long long)(took / TAKT_NS_PER_MS));
    assert_true(took > 300 * TAKT_NS_PER_MS && took < 3 * TAKT_NS_PER_S);
    assert_non_null(strstr(err, "still PREOP"));
    assert_non_null(strstr(err, "after requesting SAFEOP"));
    snprintf(want, sizeof want, "line %u, transition PS, command 'check SAFEOP'",
             line_of(path, 0, 0x0130, "check SAFEOP"));
    assert_non_null(strstr(err, want));
    erig_free(r);
    unlink(path);
}

/* An ENI that expects another vendor (0x746B74, a long slave name, a long path): the
 * error names both identities in full, and the mismatch is said once (the error and the
 * event that raised it), not cut by a fixed buffer nor repeated as a separate event. */
static void test_mismatch_full_identity(void **state)
{
    (void)state;
    char sim[64], path[200], ev[1024], want[512];
    write_small(sim, sizeof sim, "0010010064000100", 3000);
    snprintf(path, sizeof path, "/tmp/takt_eni_an_engineering_project_folder_with_a_long_name_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w"), *in = fopen(sim, "r");
    assert_non_null(in);
    char line[4096];
    while (fgets(line, sizeof line, in)) {    /* the sim's ENI with another identity */
        char *v = strstr(line, "<VendorId>2457</VendorId>"), *nm = strstr(line, "<Name>Out (X1)</Name>");
        if (v && nm) {
            fprintf(f, "%.*s<Name>Out (X1) digital output terminal, 8 channels 24 V DC</Name>%.*s"
                    "<VendorId>7629684</VendorId>%s", (int)(nm - line), line,
                    (int)(v - nm - 21), nm + 21, v + 25);
        } else {
            fputs(line, f);
        }
    }
    fclose(in);
    fclose(f);
    struct erig *r = erig_new(sim, path, false);
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), -TAKT_ECONFIG);
    const char *err = takt_ecat_master_error(r->m);
    printf("  -> %s\n", err);
    snprintf(want, sizeof want, "ENI %s does not match the network: slave 0: expected vendor 0x746B74 "
             "product 0x00000001 rev 0x00000001 (Out (X1) digital output terminal, 8 channels 24 V DC), "
             "found vendor 0x999 product 0x00000001 rev 0x00000001", path);
    assert_string_equal(err, want);
    unsigned said = 0;
    while (takt_ecat_master_next_event(r->m, ev, sizeof ev)) {
        printf("  event: %s\n", ev);
        if (strstr(ev, "slave 0: expected")) {
            assert_string_equal(ev, want);    /* whole, as the error */
            said++;
        }
    }
    assert_int_equal(said, 1);
    erig_free(r);
    unlink(sim);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_eni),
        cmocka_unit_test(test_small_validate),
        cmocka_unit_test(test_small_eni_dc),
        cmocka_unit_test(test_small_timeout),
        cmocka_unit_test(test_small_cyclic_wkc),
        cmocka_unit_test(test_mismatch_full_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
