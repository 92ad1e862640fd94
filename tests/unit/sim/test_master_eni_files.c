/* Classes of real-world ENI the master and the simulator built from the ENI must run to
 * OP, each in a minimal file of its own (tests/data/eni): an LWR without InputOffs, a
 * slave with no PDO descriptions configured over CoE, a mailbox beyond 8 KiB of ESC
 * memory, DC set up by the ENI's own SYNC commands and cyclic ARMW without --dc (and
 * the shared fixtures the same way when present). */
#include <dirent.h>
#include "unit/sim/eni_rig.h"
#include "sim/net.h"

static const char *data_file(const char *name, char *buf, size_t len)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    snprintf(buf, len, "%s/tests/data/eni/%s", src ? src : ".", name);
    return buf;
}

static void run_data(const char *name)
{
    char path[512];
    run_fixture(data_file(name, path, sizeof path), path, false);
}

/* LWR of 16 bytes, no InputOffs, output image 16 bytes, input image 14. */
static void test_lwr_no_input(void **state) { (void)state; run_data("lwr_no_input.xml"); }

/* No RxPdo/TxPdo: the simulated device has the objects the CoE downloads configure, and
 * the mapping they write sizes its SMs as the ENI's ProcessData says. */
static void test_no_pdo_coe(void **state)
{
    (void)state;
    char path[512];
    data_file("no_pdo_coe.xml", path, sizeof path);
    struct erig *r = erig_new(path, path, false);
    r->recording = true;
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", takt_ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_IP, AL_PREOP);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    check_cyclic(r);
    /* the outputs the LRW wrote reach the slave's SM2 through the ENI's FMMU (the
     * variable by the ENI's name: takt knows no entry names the ENI does not give) */
    struct takt_ecat_pd_entry e;
    assert_int_equal(takt_ecat_pd_find_eni(r->m, "IO (X2).Outputs.Value", &e), 0);
    /* the master's mapping is the one the downloads configure: the object behind it */
    assert_int_equal(e.index, 0x7000);
    assert_int_equal(e.sub, 1);
    struct takt_ecat_pd_entry in;
    assert_int_equal(takt_ecat_pd_find_eni(r->m, "IO (X2).Inputs.Value", &in), 0);
    assert_int_equal(in.index, 0x6000);
    takt_ecat_pd_write(r->m, &e, 0xA55A);
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    uint8_t b[2] = { 0 };
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x1100, b, 2), 0);
    assert_int_equal(get_le16(b), 0xA55A);
    erig_free(r);
}

/* The same slave when the ENI only assigns 0x1600/0x1A00 and never maps them: the
 * device's PDOs carry what the ENI's ProcessData says the SMs carry. */
static void test_no_pdo_assign_only(void **state)
{
    (void)state;
    char src[512], path[64];
    size_t len;
    char *b = slurp(data_file("no_pdo_coe.xml", src, sizeof src), &len);
    snprintf(path, sizeof path, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    unsigned dropped = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "pdo 0x1600 entr") || strstr(line, "pdo 0x1A00 entr")) {
            dropped++;
            continue;
        }
        fprintf(f, "%s\n", line);
    }
    fclose(f);
    free(b);
    assert_int_equal(dropped, 6);
    struct erig *r = erig_new(path, path, false);
    r->recording = true;
    assert_int_equal(takt_ecat_master_configure_eni(r->m, path), 0);
    int rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", takt_ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_cyclic(r);
    erig_free(r);
    unlink(path);
}

/* Mailbox SMs at 0x4000/0x4800: the simulated ESC has the memory for them. */
static void test_mailbox_4000(void **state)
{
    (void)state;
    run_data("mailbox_4000.xml");
    char path[512];
    struct erig *r = erig_new(data_file("mailbox_4000.xml", path, sizeof path), path, false);
    uint8_t kb = 0;
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x0006, &kb, 1), 0);   /* RAM size, KiB */
    assert_true(kb * 1024u + 0x1000u >= 0x4900u);
    erig_free(r);
}

/* The ENI sets DC up: the network reaches OP without the master's DC option, SYNC0 as
 * the ENI's own commands wrote it (cycle 1 ms), its cyclic ARMW of 0x0910 on the wire
 * (and no FRMW of takt's own in its place), the clocks together. */
static void run_dc_cmd(const char *path, uint32_t cycle, uint8_t time_cmd)
{
    struct erig *r = erig_new(path, path, false);
    /* clocks that drift apart (+-30 ppm): only the ENI's time distribution keeps them
     * together (300 ms would part them by 18 us) */
    for (unsigned i = 0; i < r->sim->n; i++)
        r->sim->sl[i].esc.dc.drift_ppb = i % 2 ? 30000.0 : -30000.0;
    r->recording = true;
    int rc = takt_ecat_master_configure_eni(r->m, path);
    if (!rc)
        rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", takt_ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    for (unsigned i = 0; i < r->eni->n_slaves; i++) {
        uint8_t act = 0, cyc[4] = { 0 }, start[8] = { 0 };
        assert_int_equal(takt_sim_peek(r->sim, i, 0x0981, &act, 1), 0);
        assert_int_equal(takt_sim_peek(r->sim, i, 0x09A0, cyc, 4), 0);
        assert_int_equal(takt_sim_peek(r->sim, i, 0x0990, start, 8), 0);
        assert_int_equal(act & 0x03, 0x03);
        assert_int_equal(get_le32(cyc), cycle);
        assert_true(get_le64(start) != 0);     /* the ENI's placeholder 0 replaced */
    }
    r->n_log = 0;
    struct takt_ecat_master_stats st;
    for (unsigned i = 0; i < 300; i++) {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        usleep(1000);
    }
    unsigned own = 0, other = 0;
    for (unsigned i = 0; i < r->n_log; i++) {
        if ((r->log[i].cmd == ECAT_ARMW || r->log[i].cmd == ECAT_FRMW) && r->log[i].ado == 0x0910)
            *(r->log[i].cmd == time_cmd ? &own : &other) += 1;
    }
    printf("  %u %s of 0x0910 as the ENI has it, %u other ARMW/FRMW in 300 cycles\n", own,
           ecat_cmd_name(time_cmd), other);
    assert_true(own >= 100 && own <= 300);     /* once a cycle, not beside takt's own */
    assert_int_equal(other, 0);
    takt_ecat_master_get_stats(r->m, &st);
    events(r->m);
    printf("  DC sync error %lld ns (max %lld ns)\n", (long long)st.dc_sync_err_ns,
           (long long)st.dc_sync_err_max_ns);
    assert_int_equal(st.wkc_errors, 0);
    assert_int_equal(st.state, AL_OP);
    assert_true(st.dc_sync_err_ns < 1000);
    erig_free(r);
}

static void run_dc(const char *path, uint32_t cycle) { run_dc_cmd(path, cycle, ECAT_ARMW); }

static void test_dc_sync(void **state)
{
    (void)state;
    char path[512];
    run_dc(data_file("dc_sync.xml", path, sizeof path), 1000000);
}

/* The same network as TwinCAT distributes the time: an 8-byte FRMW addressed to the
 * reference clock's station address. */
static void test_dc_sync_frmw8(void **state)
{
    (void)state;
    char src[512], path[64];
    size_t len;
    char *b = slurp(data_file("dc_sync.xml", src, sizeof src), &len);
    const char *armw = "<Cmd>13</Cmd><Adp>0</Adp><Ado>2320</Ado><DataLength>4</DataLength>";
    char *at = strstr(b, armw), *img = strstr(b, "<Inputs><ByteSize>10</ByteSize>");
    assert_non_null(at);
    assert_non_null(img);
    snprintf(path, sizeof path, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "%.*s<Cmd>14</Cmd><Adp>1001</Adp><Ado>2320</Ado><DataLength>8</DataLength>%.*s"
            "<Inputs><ByteSize>14</ByteSize>%s", (int)(at - b), b, (int)(img - at - strlen(armw)),
            at + strlen(armw), img + strlen("<Inputs><ByteSize>10</ByteSize>"));
    fclose(f);
    free(b);
    run_dc_cmd(path, 1000000, ECAT_FRMW);
    unlink(path);
}

/* The master from lwr_no_input.xml with each sub[2k] replaced by sub[2k+1] (NULL ends)
 * against the network of the file as it is: refused on the way to OP with the event
 * code `code`, the master's error holding `want`. */
static void refused_frames(const char *const *sub, unsigned code, const char *want)
{
    char src[512], path[64];
    size_t len;
    char *b = slurp(data_file("lwr_no_input.xml", src, sizeof src), &len);
    for (; *sub; sub += 2) {
        char *at = strstr(b, sub[0]), *n = calloc(1, strlen(b) + strlen(sub[1]) + 1);
        assert_non_null(at);
        assert_non_null(n);
        sprintf(n, "%.*s%s%s", (int)(at - b), b, sub[1], at + strlen(sub[0]));
        free(b);
        b = n;
    }
    eni_temp(path, sizeof path, b);
    free(b);
    struct erig *r = erig_new(src, path, false);
    int rc = takt_ecat_master_configure_eni(r->m, path);
    if (!rc)
        rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    assert_int_equal(rc, -TAKT_ECONFIG);
    const char *err = takt_ecat_master_error(r->m);
    printf("  -> %s\n", err);
    assert_non_null(strstr(err, want));
    struct takt_event ev;
    bool found = false;
    while (takt_ecat_master_next_ev(r->m, &ev))
        found |= ev.proto == TAKT_EV_ECAT && ev.code == code;
    assert_true(found);
    erig_free(r);
    unlink(path);
}

/* The ENI's frames are judged before they run, each fault with its own event code: a
 * datagram beyond its image, and a frame beyond one Ethernet frame. */
static void test_frames_refused(void **state)
{
    (void)state;
    const char *const range[] = { "<OutputOffs>0</OutputOffs>", "<OutputOffs>4</OutputOffs>", NULL };
    refused_frames(range, TAKT_ECAT_EV_ENI_CYC_RANGE,
                   " line 28: Cyclic/Frame 0/Cmd 1 (LWR): expected OutputOffs + DataLength 16 inside the "
                   "output image (16 bytes), found it ending at byte 20");
    const char *const size[] = { "<Addr>65536</Addr><DataLength>16</DataLength>",
                                 "<Addr>65536</Addr><DataLength>1400</DataLength>",
                                 "<Outputs><ByteSize>16</ByteSize>", "<Outputs><ByteSize>1400</ByteSize>", NULL };
    refused_frames(size, TAKT_ECAT_EV_ENI_CYC_FRAME,
                   " line 27: Cyclic/Frame 0: expected at most 1416 bytes of datagrams in one frame, found 1426");
}

/* Slave 2 asks for SYNC0 by <DC> AssignActivate alone, without SYNC commands: takt
 * arms it, the ENI's commands arm slave 1. */
static void test_dc_sync_mixed(void **state)
{
    (void)state;
    char src[512], path[64];
    size_t len;
    char *b = slurp(data_file("dc_sync.xml", src, sizeof src), &len);
    snprintf(path, sizeof path, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    unsigned dropped = 0, dcs = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "<Comment>set DC ") && strstr(line, "<Adp>1002</Adp>")) {
            dropped++;
            continue;
        }
        char *dc = strstr(line, "<ShiftTime>0</ShiftTime></DC>");
        if (dc && dcs++ == 1) {
            fprintf(f, "%.*s<AssignActivate>#x0300</AssignActivate>%s\n", (int)(dc - line), line, dc);
            continue;
        }
        fprintf(f, "%s\n", line);
    }
    fclose(f);
    free(b);
    assert_int_equal(dropped, 3);
    assert_int_equal(dcs, 2);
    run_dc(path, 1000000);
    unlink(path);
}

static void test_rocos_no_dc_option(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("rocos-eni4.xml", path, sizeof path))
        skip();
    run_dc(path, 1000000);
}

/* Every ENI of the shared fixtures (each *.xml in $TAKT_FIXTURES/eni) reaches OP from
 * the simulator built from it without the DC option (the DC of rocos-eni4.xml is
 * checked in detail by test_rocos_no_dc_option). */
static void test_shared_fixtures(void **state)
{
    (void)state;
    const char *fx = getenv("TAKT_FIXTURES");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/eni", fx ? fx : "/nonexistent");
    DIR *d = opendir(dir);
    if (!d)
        skip();
    unsigned ran = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".xml"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        printf("  %s\n", de->d_name);
        run_fixture(path, path, false);
        ran++;
    }
    closedir(d);
    if (!ran)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lwr_no_input),
        cmocka_unit_test(test_no_pdo_coe),
        cmocka_unit_test(test_no_pdo_assign_only),
        cmocka_unit_test(test_mailbox_4000),
        cmocka_unit_test(test_dc_sync),
        cmocka_unit_test(test_dc_sync_frmw8),
        cmocka_unit_test(test_dc_sync_mixed),
        cmocka_unit_test(test_frames_refused),
        cmocka_unit_test(test_rocos_no_dc_option),
        cmocka_unit_test(test_shared_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
