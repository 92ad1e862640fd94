/* Every encoded POWERLINK frame kind sent through takt's capture tap (pcapng) over an
 * in-process link and judged by tshark's epl dissector: no malformed frame, no expert
 * info, and the fields decode to the values set. Skips (77) without tshark. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <takt/link.h>
#include "plk/frame.h"
#include "plk/sdo.h"
#include "plk/od.h"

static const uint8_t MN_MAC[6] = { 0x00, 0x60, 0x65, 0x00, 0x00, 0xF0 };
static const uint8_t CN_MAC[6] = { 0x00, 0x60, 0x65, 0x00, 0x00, 0x01 };

static char cap_path[64];

static struct plk_msg msg(uint8_t mtyp, uint8_t dst, uint8_t src)
{
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.mtyp = mtyp;
    m.dst = dst;
    m.src = src;
    memcpy(m.src_mac, src == 240 ? MN_MAC : CN_MAC, 6);
    return m;
}

/* Frames go out through a capture tap on one end of a mem link pair. */
struct writer {
    struct takt_link *tap, *peer;
    takt_ns_t t;
};

static takt_ns_t wclock(void *ctx)
{
    struct writer *w = ctx;
    return w->t += 100 * TAKT_NS_PER_US;
}

static struct writer *writer_open(const char *path)
{
    static struct writer w;
    struct takt_link *a;
    char err[200];
    memset(&w, 0, sizeof w);
    w.t = TAKT_NS_PER_S;
    if (takt_link_mem_pair(&a, &w.peer, 16, wclock, &w))
        return NULL;
    if (takt_link_capture(a, path, &w.tap, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        takt_link_close(a);
        takt_link_close(w.peer);
        return NULL;
    }
    return &w;
}

static void writer_close(struct writer *w)
{
    takt_link_close(w->tap);
    takt_link_close(w->peer);
}

static void dump(struct writer *w, const struct plk_msg *m, int i)
{
    uint8_t f[1514], rb[TAKT_FRAME_BUF];
    int n = plk_frame_encode(f, sizeof f, m);
    assert_true(n >= 60);
    struct takt_frame fr = { .data = f, .len = (uint16_t)n, .cap = sizeof f };
    assert_int_equal(takt_link_send(w->tap, &fr, 1), 1);
    struct takt_frame rx = { .data = rb, .cap = sizeof rb };
    assert_int_equal(takt_link_recv(w->peer, &rx, 1, 0), 1);   /* keep the ring empty */
    assert_int_equal(rx.len, n);
    (void)i;
}

/* One frame of each kind, in a fixed order the field checks below rely on. */
static int write_capture(const char *path)
{
    struct writer *d = writer_open(path);
    if (!d)
        return -1;
    int i = 0;
    struct plk_msg m = msg(PLK_MTYP_SOC, 255, 240);
    m.u.soc.flags1 = PLK_F1_MC;
    m.u.soc.relative_time = 123456;
    dump(d, &m, i++);                                         /* 1 SoC */

    static const uint8_t out[4] = { 1, 2, 3, 4 };
    m = msg(PLK_MTYP_PREQ, 1, 240);
    memcpy(m.dst_mac, CN_MAC, 6);
    m.u.preq = (struct plk_preq){ .flags1 = PLK_F1_RD | PLK_F1_EA, .pdo_version = 0x10,
                                  .size = 4, .payload = out, .payload_limit = 36 };
    dump(d, &m, i++);                                         /* 2 PReq */

    m = msg(PLK_MTYP_PRES, 255, 1);
    m.u.pres = (struct plk_pres){ .nmt_state = PLK_NMT_OPERATIONAL, .flags1 = PLK_F1_RD | PLK_F1_EN,
                                  .flags2 = 3 << PLK_F2_PR_SHIFT | 2, .size = 4, .payload = out,
                                  .payload_limit = 36 };
    dump(d, &m, i++);                                         /* 3 PRes */

    m = msg(PLK_MTYP_SOA, 255, 240);
    m.u.soa = (struct plk_soa){ .nmt_state = PLK_NMT_OPERATIONAL, .flags1 = PLK_F1_ER,
                                .svid = PLK_SOA_STATUS_REQUEST, .target = 1,
                                .epl_version = PLK_EPL_VERSION };
    dump(d, &m, i++);                                         /* 4 SoA StatusRequest */

    m.u.soa.svid = PLK_SOA_SYNC_REQUEST;
    m.u.soa.sync.sync_control = PLK_SYNC_PRES_TIME_FIRST_VALID;
    m.u.soa.sync.pres_time_first = 5000;
    dump(d, &m, i++);                                         /* 5 SoA SyncRequest */

    m = msg(PLK_MTYP_ASND, 255, 1);
    m.u.asnd.svid = PLK_ASND_IDENT_RESPONSE;
    struct plk_ident_response *r = &m.u.asnd.u.ident;
    r->nmt_state = PLK_NMT_PRE_OPERATIONAL_1;
    r->profile_version = 0x20;
    r->feature_flags = PLK_FEAT_OPLK_DEMO_CN;
    r->mtu = 1500;
    r->poll_in_size = 36;
    r->poll_out_size = 36;
    r->response_time = 50000;
    r->device_type = PLK_OPLK_DEMO_DEVICE_TYPE;
    r->vendor_id = 0x1234;
    r->product_code = 0x5678;
    r->revision_no = 0x00020007;
    r->serial_no = 42;
    r->ip_address = 0xC0A86401;
    r->subnet_mask = 0xFFFFFF00;
    r->default_gateway = 0xC0A864FE;
    strcpy(r->hostname, "01-ffffffff");
    dump(d, &m, i++);                                         /* 6 IdentResponse */

    m = msg(PLK_MTYP_ASND, 255, 1);
    m.u.asnd.svid = PLK_ASND_STATUS_RESPONSE;
    m.u.asnd.u.status.nmt_state = PLK_NMT_PRE_OPERATIONAL_2;
    m.u.asnd.u.status.n_entries = 1;
    m.u.asnd.u.status.entries[0] = (struct plk_error_entry){ 0x1001, PLK_E_DLL_LOSS_SOC_TH, 0, 0 };
    dump(d, &m, i++);                                         /* 7 StatusResponse */

    m = msg(PLK_MTYP_ASND, 1, 240);
    m.u.asnd.svid = PLK_ASND_NMT_COMMAND;
    m.u.asnd.u.nmt_cmd.cmd = PLK_NMT_CMD_ENABLE_READY_TO_OP;
    dump(d, &m, i++);                                         /* 8 NMTCommand */

    m = msg(PLK_MTYP_ASND, 240, 1);
    m.u.asnd.svid = PLK_ASND_NMT_REQUEST;
    m.u.asnd.u.nmt_req.cmd = PLK_NMT_CMD_RESET_NODE;
    m.u.asnd.u.nmt_req.target = 1;
    dump(d, &m, i++);                                         /* 9 NMTRequest */

    static const uint8_t sdo[] = { 0x02, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08,
                                   0x00, 0x00, 0x00, 0x11, 0x10, 0x01, 0x00, 0x6c, 0x6f,
                                   0x61, 0x64 };
    m = msg(PLK_MTYP_ASND, 1, 240);
    m.u.asnd.svid = PLK_ASND_SDO;
    m.u.asnd.u.raw.data = sdo;
    m.u.asnd.u.raw.len = sizeof sdo;
    dump(d, &m, i++);                                         /* 10 SDO WriteByIndex */

    m = msg(PLK_MTYP_ASND, 240, 1);
    m.u.asnd.svid = PLK_ASND_SYNC_RESPONSE;
    m.u.asnd.u.sync.pres_time_first = 5000;
    dump(d, &m, i++);                                         /* 11 SyncResponse */
    writer_close(d);
    return i;
}

static int run(const char *cmd, char *out, size_t cap)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    return pclose(f);
}

static int setup(void **state)
{
    snprintf(cap_path, sizeof cap_path, "/tmp/takt_plk_tshark_%d.pcapng", (int)getpid());
    return write_capture(cap_path) == 11 ? 0 : -1;
}

static int teardown(void **state)
{
    if (!getenv("TAKT_KEEP_CAPTURE")) unlink(cap_path);
    return 0;
}

static void no_malformed_no_expert(void **state)
{
    char cmd[256], out[8192];
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y '_ws.malformed || _ws.expert' 2>/dev/null", cap_path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    if (out[0])
        fprintf(stderr, "tshark complained:\n%s", out);
    assert_string_equal(out, "");
}

static void fields_decode(void **state)
{
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "tshark -r %s -T fields -E separator=, -e epl.mtyp -e epl.src "
             "-e epl.dest -e epl.asnd.svid -e epl.soa.svid -e epl.soa.svtg -e epl.pres.stat "
             "-e epl.asnd.nmtcommand.cid -e epl.asnd.sdo.cmd.data.index 2>/dev/null", cap_path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    const char *want =
        "1,240,255,,,,,,\n"
        "3,240,1,,,,,,\n"
        "4,1,255,,,,0xfd,,\n"
        "5,240,255,,2,1,,,\n"
        "5,240,255,,6,1,,,\n"
        "6,1,255,0x01,,,,,\n"
        "6,1,255,0x02,,,,,\n"
        "6,240,1,0x04,,,,0x24,\n"
        "6,1,240,0x03,,,,,\n"
        "6,240,1,0x05,,,,,0x1011\n"
        "6,1,240,0x06,,,,,\n";
    if (strcmp(out, want))
        fprintf(stderr, "tshark fields:\n%s", out);
    assert_string_equal(out, want);
}

static void ident_and_flags_decode(void **state)
{
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'epl.asnd.svid == 1' -T fields -E separator=, "
             "-e epl.asnd.ires.mtu -e epl.asnd.ires.pollinsize -e epl.asnd.ires.polloutsizes "
             "-e epl.asnd.ires.resptime -e epl.asnd.ires.vendorid -e epl.asnd.ires.productcode "
             "-e epl.asnd.ires.serialno -e epl.asnd.ires.ip -e epl.asnd.ires.hostname 2>/dev/null",
             cap_path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    if (!strstr(out, "1500,36,36,50000,4660,22136,42,192.168.100.1,01-ffffffff"))
        fprintf(stderr, "ident fields: %s", out);
    assert_non_null(strstr(out, "1500,36,36,50000,4660,22136,42,"
                                "192.168.100.1,01-ffffffff"));
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'epl.mtyp == 3 || epl.mtyp == 4' -T fields "
             "-E separator=, -e epl.preq.rd -e epl.preq.ea -e epl.preq.size -e epl.pres.rd "
             "-e epl.pres.en -e epl.pres.pr -e epl.pres.rs -e epl.pres.size 2>/dev/null", cap_path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    if (!strstr(out, "1,1,4,,,,,\n,,,1,1,3,2,4\n"))
        fprintf(stderr, "preq/pres fields: %s", out);
    assert_non_null(strstr(out, "1,1,4,,,,,\n,,,1,1,3,2,4\n"));
}


/* A whole SDO conversation (handshake, segmented write, expedited and segmented read,
 * an abort, acknowledges) as MN 240 <-> CN 1 ASnd frames: Wireshark follows the
 * sequence numbers and must find nothing invalid or duplicated. */
static void sdo_frame(struct writer *d, const uint8_t *p, int n, bool to_cn, int *i)
{
    struct plk_msg m = to_cn ? msg(PLK_MTYP_ASND, 1, 240) : msg(PLK_MTYP_ASND, 240, 1);
    m.u.asnd.svid = PLK_ASND_SDO;
    m.u.asnd.u.raw.data = p;
    m.u.asnd.u.raw.len = (uint16_t)n;
    dump(d, &m, (*i)++);
}

static void sdo_conversation(void **state)
{
    static struct plk_od_entry ent[256];
    static uint8_t pool[8192];
    static struct plk_od od;
    static struct plk_sdo_client cl;
    static struct plk_sdo_server sv;
    plk_od_init(&od, ent, 256, pool, sizeof pool);
    struct plk_od_cn_params p;
    plk_od_cn_params_default(&p, 1);
    assert_int_equal(plk_od_add_cn_profile(&od, &p), 0);
    assert_int_equal(plk_od_add_buf(&od, 0x2000, 0, PLK_OT_DOMAIN, PLK_OA_RW, 1000, NULL, 0), 0);
    plk_sdo_client_init(&cl, NULL);
    plk_sdo_server_init(&sv, &od, NULL);
    char path[64], cmd[256], out[8192];
    snprintf(path, sizeof path, "/tmp/takt_plk_sdo_%d.pcapng", (int)getpid());
    struct writer *d = writer_open(path);
    assert_non_null(d);
    uint8_t big[700], buf[PLK_SDO_PAYLOAD_MAX];
    for (unsigned k = 0; k < sizeof big; k++)
        big[k] = (uint8_t)k;
    uint32_t v = 2000;
    takt_ns_t now = TAKT_NS_PER_S;
    int i = 0, step = 0;
    for (int t = 0; t < 4; t++) {
        if (t == 0) assert_int_equal(plk_sdo_client_write(&cl, 0x2000, 0, big, sizeof big, now), 0);
        if (t == 1) assert_int_equal(plk_sdo_client_read(&cl, 0x2000, 0, now), 0);
        if (t == 2) assert_int_equal(plk_sdo_client_write(&cl, 0x1006, 0, &v, 4, now), 0);
        if (t == 3) assert_int_equal(plk_sdo_client_write(&cl, 0x1000, 0, &v, 4, now), 0);
        for (step = 0; step < 40; step++) {
            int n = plk_sdo_client_tx(&cl, buf, sizeof buf, now);
            if (n > 0) {
                sdo_frame(d, buf, n, true, &i);
                plk_sdo_server_rx(&sv, buf, (size_t)n, now, NULL, 0);
            }
            n = plk_sdo_server_tx(&sv, buf, sizeof buf, now);
            if (n > 0) {
                sdo_frame(d, buf, n, false, &i);
                plk_sdo_client_rx(&cl, buf, (size_t)n, now, NULL, 0);
            }
            now += TAKT_NS_PER_MS;
            if (cl.status != PLK_SDO_BUSY && !plk_sdo_client_tx_pending(&cl, now) &&
                !plk_sdo_server_tx_pending(&sv, now))
                break;
        }
        assert_int_equal(cl.status, t == 3 ? PLK_SDO_ABORTED : PLK_SDO_DONE);
    }
    writer_close(d);
    assert_memory_equal(cl.data, "\xd0\x07", 2);
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y '_ws.malformed || _ws.expert' 2>/dev/null", path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    if (out[0])
        fprintf(stderr, "tshark complained about the SDO conversation:\n%s", out);
    assert_string_equal(out, "");
    /* tshark 4.0's epl.asnd.sdo.cmd.abort.code field shows one byte; its Info column
     * carries the full code */
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'epl.asnd.sdo.cmd.abort == 1' -T fields "
             "-e _ws.col.Info 2>/dev/null", path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "Abort:0x06010002"));
    snprintf(cmd, sizeof cmd, "tshark -r %s -Y 'epl.asnd.sdo.cmd.segmentation == 1' 2>/dev/null"
             " | wc -l", path);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_int_equal(atoi(out), 2);      /* the segmented write and the segmented read */
    if (!getenv("TAKT_KEEP_CAPTURE"))
        unlink(path);
}

int main(void)
{
    if (system("tshark -v >/dev/null 2>/dev/null") != 0) {
        fprintf(stderr, "skip: tshark not installed\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_malformed_no_expert),
        cmocka_unit_test(fields_decode),
        cmocka_unit_test(ident_and_flags_decode),
        cmocka_unit_test(sdo_conversation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
