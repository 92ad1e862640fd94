/* POWERLINK frame codec: every frame kind pinned against the openPOWERLINK reference
 * bytes of frames openPOWERLINK sent, decoded back, and bad frames rejected with a reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "plk/frame.h"

static const uint8_t MN_MAC[6] = { 0x00, 0x60, 0x65, 0x00, 0x00, 0xF0 };
static const uint8_t CN_MAC[6] = { 0x00, 0x60, 0x65, 0x00, 0x00, 0x01 };

/* Expected frame: dst MAC, src MAC, 0x88AB, then `body` (bytes from offset 14), zero
 * padded to `total`. */
static void expect_frame(const uint8_t *got, int got_len, const uint8_t dst[6],
                         const uint8_t src[6], const uint8_t *body, size_t body_len,
                         int total)
{
    uint8_t want[1514] = { 0 };
    memcpy(want, dst, 6);
    memcpy(want + 6, src, 6);
    want[12] = 0x88;
    want[13] = 0xAB;
    memcpy(want + 14, body, body_len);
    assert_int_equal(got_len, total);
    assert_memory_equal(got, want, (size_t)total);
}

static void mcast(uint8_t m[6], int last) { plk_mcast_mac(m, (enum plk_mcast)last); }

static struct plk_msg msg(uint8_t mtyp, uint8_t dst, uint8_t src, const uint8_t *smac)
{
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    m.mtyp = mtyp;
    m.dst = dst;
    m.src = src;
    memcpy(m.src_mac, smac, 6);
    return m;
}

static void soc_reference(void **state)
{
    uint8_t f[1514], dst[6];
    struct plk_msg m = msg(PLK_MTYP_SOC, 255, 240, MN_MAC);
    m.u.soc.flags1 = PLK_F1_MC | PLK_F1_PS;
    m.u.soc.nettime_s = 0x11223344;
    m.u.soc.nettime_ns = 0x0055AABB;
    m.u.soc.relative_time = 0x0102030405060708ull;
    int n = plk_frame_encode(f, sizeof f, &m);
    const uint8_t body[] = { 0x01, 0xff, 0xf0, 0x00, 0xC0, 0x00,
                             0x44, 0x33, 0x22, 0x11, 0xBB, 0xAA, 0x55, 0x00,
                             0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
    mcast(dst, 1);
    expect_frame(f, n, dst, MN_MAC, body, sizeof body, 60);

    struct plk_msg d;
    char err[160];
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), 0);
    assert_int_equal(d.mtyp, PLK_MTYP_SOC);
    assert_int_equal(d.dst, 255);
    assert_int_equal(d.src, 240);
    assert_int_equal(d.u.soc.flags1, 0xC0);
    assert_int_equal(d.u.soc.nettime_s, 0x11223344);
    assert_int_equal(d.u.soc.nettime_ns, 0x0055AABB);
    assert_true(d.u.soc.relative_time == 0x0102030405060708ull);
    /* openPOWERLINK's raw-socket driver sends SoC unpadded (36 B): still decodes. */
    assert_int_equal(plk_frame_decode(f, 36, &d, err, sizeof err), 0);
    assert_int_equal(plk_frame_decode(f, 35, &d, err, sizeof err), -EMSGSIZE);
    assert_non_null(strstr(err, "SoC"));
}

static void soa_ident_and_status(void **state)
{
    uint8_t f[1514], dst[6];
    mcast(dst, 3);
    struct plk_msg m = msg(PLK_MTYP_SOA, 255, 240, MN_MAC);
    m.u.soa.nmt_state = PLK_NMT_PRE_OPERATIONAL_1;
    m.u.soa.svid = PLK_SOA_IDENT_REQUEST;
    m.u.soa.target = 1;
    m.u.soa.epl_version = PLK_EPL_VERSION;
    const uint8_t ident[] = { 0x05, 0xff, 0xf0, 0x1d, 0x00, 0x00, 0x01, 0x01, 0x20, 0x00 };
    expect_frame(f, plk_frame_encode(f, sizeof f, &m), dst, MN_MAC, ident, sizeof ident, 60);

    m.u.soa.nmt_state = PLK_NMT_OPERATIONAL;
    m.u.soa.flags1 = PLK_F1_ER;
    m.u.soa.svid = PLK_SOA_STATUS_REQUEST;
    const uint8_t status[] = { 0x05, 0xff, 0xf0, 0xfd, 0x02, 0x00, 0x02, 0x01, 0x20, 0x00 };
    int n = plk_frame_encode(f, sizeof f, &m);
    expect_frame(f, n, dst, MN_MAC, status, sizeof status, 60);

    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, 54, &d, NULL, 0), 0);   /* oplk's 54 B runt */
    assert_int_equal(d.u.soa.nmt_state, 0xFD);
    assert_int_equal(d.u.soa.flags1, PLK_F1_ER);
    assert_int_equal(d.u.soa.svid, PLK_SOA_STATUS_REQUEST);
    assert_int_equal(d.u.soa.target, 1);
    assert_int_equal(d.u.soa.epl_version, 0x20);
}

static void preq_reference(void **state)
{
    uint8_t f[1514];
    const uint8_t out = 0x10;
    struct plk_msg m = msg(PLK_MTYP_PREQ, 1, 240, MN_MAC);
    m.u.preq.flags1 = PLK_F1_RD;
    m.u.preq.size = 1;
    m.u.preq.payload = &out;
    m.u.preq.payload_limit = 36;
    /* A PReq must go to the CN's unicast MAC. */
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), -EINVAL);
    memcpy(m.dst_mac, CN_MAC, 6);
    const uint8_t body[] = { 0x03, 0x01, 0xf0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x10 };
    int n = plk_frame_encode(f, sizeof f, &m);
    expect_frame(f, n, CN_MAC, MN_MAC, body, sizeof body, 60);

    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.mtyp, PLK_MTYP_PREQ);
    assert_int_equal(d.u.preq.flags1, PLK_F1_RD);
    assert_int_equal(d.u.preq.size, 1);
    assert_int_equal(d.u.preq.payload[0], 0x10);

    /* Larger payload limit: frame = 24 + limit; size > limit grows the frame. */
    uint8_t big[100];
    memset(big, 0xA5, sizeof big);
    m.u.preq.payload = big;
    m.u.preq.size = 10;
    m.u.preq.payload_limit = 80;
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), 24 + 80);
    m.u.preq.size = 100;
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), 24 + 100);
    m.u.preq.size = 1491;
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), -EINVAL);
    m.u.preq.size = 10;
    assert_int_equal(plk_frame_encode(f, 59, &m), -ENOSPC);
    m.u.preq.flags1 = PLK_F1_MS | PLK_F1_EA | PLK_F1_RD;
    m.u.preq.pdo_version = 0x21;
    n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(f[18], 0x25);
    assert_int_equal(f[20], 0x21);
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.preq.flags1, 0x25);
    assert_int_equal(d.u.preq.pdo_version, 0x21);
}

static void pres_reference(void **state)
{
    uint8_t f[1514], dst[6];
    mcast(dst, 2);
    const uint8_t in = 0x01;
    struct plk_msg m = msg(PLK_MTYP_PRES, 255, 1, CN_MAC);
    m.u.pres.nmt_state = PLK_NMT_OPERATIONAL;
    m.u.pres.flags1 = PLK_F1_RD;
    m.u.pres.size = 1;
    m.u.pres.payload = &in;
    m.u.pres.payload_limit = 36;
    const uint8_t body[] = { 0x04, 0xff, 0x01, 0xfd, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01 };
    int n = plk_frame_encode(f, sizeof f, &m);
    expect_frame(f, n, dst, CN_MAC, body, sizeof body, 60);

    /* flags: MS, EN, RD; flag2 PR = 3 (generic), RS = 1 */
    m.u.pres.flags1 = PLK_F1_MS | PLK_F1_EN | PLK_F1_RD;
    m.u.pres.flags2 = (uint8_t)(PLK_PRIO_GENERIC << PLK_F2_PR_SHIFT | 1);
    n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(f[18], 0x31);
    assert_int_equal(f[19], 0x19);
    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.pres.nmt_state, 0xFD);
    assert_int_equal(d.u.pres.flags1, 0x31);
    assert_int_equal((d.u.pres.flags2 & PLK_F2_PR_MASK) >> PLK_F2_PR_SHIFT, 3);
    assert_int_equal(d.u.pres.flags2 & PLK_F2_RS_MASK, 1);
    assert_int_equal(d.u.pres.payload[0], 1);
    assert_int_equal(d.u.pres.payload_limit, 36);
}

static void nmt_start_node_reference(void **state)
{
    uint8_t f[1514], dst[6];
    mcast(dst, 4);
    struct plk_msg m = msg(PLK_MTYP_ASND, 1, 240, MN_MAC);
    m.u.asnd.svid = PLK_ASND_NMT_COMMAND;
    m.u.asnd.u.nmt_cmd.cmd = PLK_NMT_CMD_START_NODE;
    const uint8_t body[] = { 0x06, 0x01, 0xf0, 0x04, 0x21, 0x00 };
    int n = plk_frame_encode(f, sizeof f, &m);
    expect_frame(f, n, dst, MN_MAC, body, sizeof body, 60);
    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.asnd.svid, PLK_ASND_NMT_COMMAND);
    assert_int_equal(d.u.asnd.u.nmt_cmd.cmd, 0x21);

    /* Ex command with a node bit-field: 20 + 32 data bytes = 52, padded to 60 */
    m.dst = 255;
    m.u.asnd.u.nmt_cmd.cmd = PLK_NMT_CMD_RESET_NODE_EX;
    m.u.asnd.u.nmt_cmd.data_len = 32;
    m.u.asnd.u.nmt_cmd.data[0] = 0x06;   /* nodes 1, 2 */
    n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 60);
    assert_int_equal(f[20], 0x06);
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.asnd.u.nmt_cmd.cmd, 0x48);
    assert_int_equal(d.u.asnd.u.nmt_cmd.data[0], 0x06);
    m.u.asnd.u.nmt_cmd.data_len = 33;
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), -EINVAL);
}

static void sdo_reference(void **state)
{
    uint8_t f[1514], dst[6];
    mcast(dst, 4);
    const uint8_t sdo[] = { 0x02, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
                            0x00, 0x00, 0x11, 0x10, 0x01, 0x00, 0x6c, 0x6f, 0x61, 0x64 };
    struct plk_msg m = msg(PLK_MTYP_ASND, 1, 240, MN_MAC);
    m.u.asnd.svid = PLK_ASND_SDO;
    m.u.asnd.u.raw.data = sdo;
    m.u.asnd.u.raw.len = sizeof sdo;
    const uint8_t body[] = { 0x06, 0x01, 0xf0, 0x05, 0x02, 0x06, 0x00, 0x00, 0x00, 0x00,
                             0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x11, 0x10, 0x01, 0x00,
                             0x6c, 0x6f, 0x61, 0x64 };
    int n = plk_frame_encode(f, sizeof f, &m);
    expect_frame(f, n, dst, MN_MAC, body, sizeof body, 60);
    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.asnd.svid, PLK_ASND_SDO);
    assert_int_equal(d.u.asnd.u.raw.len, 60 - 18);
    assert_memory_equal(d.u.asnd.u.raw.data, sdo, sizeof sdo);
}

static void ident_response_roundtrip(void **state)
{
    uint8_t f[1514];
    struct plk_msg m = msg(PLK_MTYP_ASND, 255, 1, CN_MAC);
    m.u.asnd.svid = PLK_ASND_IDENT_RESPONSE;
    struct plk_ident_response *r = &m.u.asnd.u.ident;
    r->flags1 = PLK_F1_EN;
    r->flags2 = 0x1B;
    r->nmt_state = PLK_NMT_PRE_OPERATIONAL_1;
    r->profile_version = 0x20;
    r->feature_flags = PLK_FEAT_OPLK_DEMO_CN;
    r->mtu = 1500;
    r->poll_in_size = 36;
    r->poll_out_size = 36;
    r->response_time = 50000;
    r->device_type = PLK_OPLK_DEMO_DEVICE_TYPE;
    r->vendor_id = 0x11223344;
    r->product_code = 0x55;
    r->revision_no = 0x00020007;
    r->serial_no = 0x99;
    r->vendor_ext1 = 0xAABBCCDDEEFF0011ull;
    r->conf_date = 0x3124;
    r->conf_time = 0x03735955;
    r->app_sw_date = 1;
    r->app_sw_time = 2;
    r->ip_address = 0xC0A86401;     /* 192.168.100.1 */
    r->subnet_mask = 0xFFFFFF00;
    r->default_gateway = 0xC0A864FE;
    strcpy(r->hostname, "01-ffffffff");
    r->vendor_ext2[47] = 0x77;
    int n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 176);
    assert_memory_equal(f + 84, "\x01\x64\xa8\xc0", 4);          /* IP little-endian, as openPOWERLINK's CN sends it */
    assert_memory_equal(f + 24, "\x65\x02\x01\x00", 4);          /* features */
    assert_memory_equal(f + 28, "\xdc\x05", 2);                  /* MTU 1500 */
    assert_memory_equal(f + 96, "01-ffffffff", 11);
    assert_int_equal(f[20], 0x1D);
    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    const struct plk_ident_response *x = &d.u.asnd.u.ident;
    assert_int_equal(x->flags1, PLK_F1_EN);
    assert_int_equal(x->flags2, 0x1B);
    assert_int_equal(x->nmt_state, 0x1D);
    assert_int_equal(x->profile_version, 0x20);
    assert_int_equal(x->feature_flags, PLK_FEAT_OPLK_DEMO_CN);
    assert_int_equal(x->mtu, 1500);
    assert_int_equal(x->poll_in_size, 36);
    assert_int_equal(x->poll_out_size, 36);
    assert_int_equal(x->response_time, 50000);
    assert_int_equal(x->device_type, 0x000F0191);
    assert_int_equal(x->vendor_id, 0x11223344);
    assert_int_equal(x->product_code, 0x55);
    assert_int_equal(x->revision_no, 0x00020007);
    assert_int_equal(x->serial_no, 0x99);
    assert_true(x->vendor_ext1 == 0xAABBCCDDEEFF0011ull);
    assert_int_equal(x->conf_date, 0x3124);
    assert_int_equal(x->conf_time, 0x03735955);
    assert_int_equal(x->app_sw_date, 1);
    assert_int_equal(x->app_sw_time, 2);
    assert_int_equal(x->ip_address, 0xC0A86401);
    assert_int_equal(x->subnet_mask, 0xFFFFFF00);
    assert_int_equal(x->default_gateway, 0xC0A864FE);
    assert_string_equal(x->hostname, "01-ffffffff");
    assert_int_equal(x->vendor_ext2[47], 0x77);
    char err[160];
    assert_int_equal(plk_frame_decode(f, 175, &d, err, sizeof err), -EMSGSIZE);
    assert_non_null(strstr(err, "IdentResponse"));
    assert_non_null(strstr(err, "176"));
}

static void status_response_roundtrip(void **state)
{
    uint8_t f[1514];
    struct plk_msg m = msg(PLK_MTYP_ASND, 255, 7, CN_MAC);
    m.u.asnd.svid = PLK_ASND_STATUS_RESPONSE;
    struct plk_status_response *r = &m.u.asnd.u.status;
    r->flags1 = PLK_F1_EC;
    r->flags2 = 0x3A;
    r->nmt_state = PLK_NMT_PRE_OPERATIONAL_2;
    r->static_errors = 0x0102;
    r->n_entries = 2;
    r->entries[0] = (struct plk_error_entry){ 0x1001, PLK_E_DLL_LOSS_SOC_TH, 0x55, 0x66 };
    r->entries[1] = (struct plk_error_entry){ 0x1001, PLK_E_PDO_SHORT_RX, 0x77, 0x88 };
    int n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 72);      /* 72 B, as openPOWERLINK's demo CN */
    assert_memory_equal(f + 32, "\x01\x10\x45\x82", 4);
    struct plk_msg d;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    const struct plk_status_response *x = &d.u.asnd.u.status;
    assert_int_equal(x->flags1, PLK_F1_EC);
    assert_int_equal(x->flags2, 0x3A);
    assert_int_equal(x->nmt_state, 0x5D);
    assert_true(x->static_errors == 0x0102);
    assert_int_equal(x->n_entries, 2);
    assert_int_equal(x->entries[1].code, 0x8210);
    assert_true(x->entries[1].time == 0x77);
    assert_true(x->entries[1].info == 0x88);
    /* no entries: still 72 B (oplk C_DLL_MINSIZE_STATUSRES; its MN takes a shorter one
     * for no answer), the zero entries are the list's terminator, not entries */
    r->n_entries = 0;
    n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 72);
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.asnd.u.status.n_entries, 0);
    r->n_entries = 14;
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), -EINVAL);
}

static void nmt_request_and_sync(void **state)
{
    uint8_t f[1514];
    struct plk_msg d, m = msg(PLK_MTYP_ASND, 240, 3, CN_MAC);
    m.u.asnd.svid = PLK_ASND_NMT_REQUEST;
    m.u.asnd.u.nmt_req.cmd = PLK_NMT_CMD_RESET_NODE;
    m.u.asnd.u.nmt_req.target = 5;
    int n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 60);
    assert_int_equal(f[17], 3);
    assert_int_equal(f[18], 0x28);
    assert_int_equal(f[19], 5);
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, NULL, 0), 0);
    assert_int_equal(d.u.asnd.u.nmt_req.cmd, 0x28);
    assert_int_equal(d.u.asnd.u.nmt_req.target, 5);

    m.u.asnd.svid = PLK_ASND_SYNC_RESPONSE;
    m.u.asnd.u.sync = (struct plk_sync_response){ 0x3, 1000, 4, 200, 5000, 6000 };
    n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 60);
    assert_memory_equal(f + 36, "\x88\x13\x00\x00", 4);
    assert_int_equal(plk_frame_decode(f, 44, &d, NULL, 0), 0);
    assert_int_equal(d.u.asnd.u.sync.sync_status, 3);
    assert_int_equal(d.u.asnd.u.sync.latency, 1000);
    assert_int_equal(d.u.asnd.u.sync.sync_node_number, 4);
    assert_int_equal(d.u.asnd.u.sync.sync_delay, 200);
    assert_int_equal(d.u.asnd.u.sync.pres_time_first, 5000);
    assert_int_equal(d.u.asnd.u.sync.pres_time_second, 6000);
    assert_int_equal(plk_frame_decode(f, 43, &d, NULL, 0), -EMSGSIZE);

    /* SoA SyncRequest (EPSG DS 302-C) */
    struct plk_msg s = msg(PLK_MTYP_SOA, 255, 240, MN_MAC);
    s.u.soa.nmt_state = PLK_NMT_OPERATIONAL;
    s.u.soa.svid = PLK_SOA_SYNC_REQUEST;
    s.u.soa.target = 9;
    s.u.soa.epl_version = PLK_EPL_VERSION;
    s.u.soa.sync.sync_control = PLK_SYNC_PRES_TIME_FIRST_VALID | PLK_SYNC_DEST_MAC_VALID |
                                PLK_SYNC_PRES_MODE_SET;
    s.u.soa.sync.pres_time_first = 12345;
    s.u.soa.sync.pres_fallback_timeout = 777;
    memcpy(s.u.soa.sync.dest_mac, CN_MAC, 6);
    n = plk_frame_encode(f, sizeof f, &s);
    assert_int_equal(n, 60);
    assert_memory_equal(f + 24, "\x21\x00\x00\x80", 4);
    assert_memory_equal(f + 48, CN_MAC, 6);
    assert_int_equal(plk_frame_decode(f, 54, &d, NULL, 0), 0);
    assert_int_equal(d.u.soa.sync.sync_control, 0x80000021u);
    assert_int_equal(d.u.soa.sync.pres_time_first, 12345);
    assert_int_equal(d.u.soa.sync.pres_fallback_timeout, 777);
    assert_memory_equal(d.u.soa.sync.dest_mac, CN_MAC, 6);
    assert_int_equal(plk_frame_decode(f, 53, &d, NULL, 0), -EMSGSIZE);
}

static void bad_frames(void **state)
{
    uint8_t f[1514];
    char err[200];
    struct plk_msg d, m = msg(PLK_MTYP_PRES, 255, 4, CN_MAC);
    m.u.pres.payload_limit = 36;
    int n = plk_frame_encode(f, sizeof f, &m);
    assert_int_equal(n, 60);
    /* Size field larger than the payload that came */
    f[22] = 37;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "PRes from node 4"));
    assert_non_null(strstr(err, "offset 22"));
    assert_non_null(strstr(err, "37"));
    f[22] = 36;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), 0);
    /* wrong EtherType */
    f[13] = 0xA4;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), -ENOMSG);
    assert_non_null(strstr(err, "0x88A4"));
    f[13] = 0xAB;
    /* unknown message type */
    f[14] = 0x02;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "0x02"));
    /* unknown ASnd service */
    f[14] = PLK_MTYP_ASND;
    f[17] = 0x07;
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "ServiceID"));
    f[17] = 0xA5;   /* manufacturer specific: raw */
    assert_int_equal(plk_frame_decode(f, (size_t)n, &d, err, sizeof err), 0);
    assert_int_equal(d.u.asnd.u.raw.len, 42);
    /* too short for a header, NULL */
    assert_int_equal(plk_frame_decode(f, 16, &d, err, sizeof err), -EMSGSIZE);
    assert_int_equal(plk_frame_decode(NULL, 60, &d, err, sizeof err), -EINVAL);
    /* encoding an unknown type */
    m.mtyp = 0x02;
    assert_int_equal(plk_frame_encode(f, sizeof f, &m), -EINVAL);
}

static void names(void **state)
{
    assert_string_equal(plk_mtyp_name(PLK_MTYP_PRES), "PRes");
    assert_string_equal(plk_asnd_name(PLK_ASND_IDENT_RESPONSE), "IdentResponse");
    assert_string_equal(plk_soa_svid_name(PLK_SOA_UNSPEC_INVITE), "UnspecifiedInvite");
    assert_string_equal(takt_plk_nmt_name(0x5D), "PRE_OPERATIONAL_2");
    assert_string_equal(plk_nmt_cmd_name(0x24), "EnableReadyToOperate");
    assert_string_equal(plk_nmt_cmd_name(0x01), "unknown");
}


/* Encoding into a dirty buffer: every byte of the frame that no field sets is zero. */
static void padding_is_zero(void **state)
{
    static const uint8_t pl[3] = { 7, 8, 9 };
    struct plk_msg ms[8];
    ms[0] = msg(PLK_MTYP_SOC, 255, 240, MN_MAC);
    ms[1] = msg(PLK_MTYP_PREQ, 1, 240, MN_MAC);
    memcpy(ms[1].dst_mac, CN_MAC, 6);
    ms[1].u.preq = (struct plk_preq){ .size = 3, .payload = pl, .payload_limit = 100 };
    ms[2] = msg(PLK_MTYP_PRES, 255, 1, CN_MAC);
    ms[2].u.pres = (struct plk_pres){ .size = 3, .payload = pl, .payload_limit = 36 };
    ms[3] = msg(PLK_MTYP_SOA, 255, 240, MN_MAC);
    ms[4] = msg(PLK_MTYP_ASND, 255, 1, CN_MAC);
    ms[4].u.asnd.svid = PLK_ASND_IDENT_RESPONSE;
    ms[5] = msg(PLK_MTYP_ASND, 255, 1, CN_MAC);
    ms[5].u.asnd.svid = PLK_ASND_STATUS_RESPONSE;
    ms[5].u.asnd.u.status.n_entries = 3;
    ms[6] = msg(PLK_MTYP_ASND, 1, 240, MN_MAC);
    ms[6].u.asnd.svid = PLK_ASND_NMT_COMMAND;
    ms[6].u.asnd.u.nmt_cmd.data_len = 32;
    ms[7] = msg(PLK_MTYP_ASND, 1, 240, MN_MAC);
    ms[7].u.asnd.svid = PLK_ASND_SDO;
    ms[7].u.asnd.u.raw.data = pl;
    ms[7].u.asnd.u.raw.len = 3;
    const int want_len[8] = { 60, 124, 60, 60, 176, 92, 60, 60 };
    for (int k = 0; k < 8; k++) {
        uint8_t f[1514];
        memset(f, 0xEE, sizeof f);
        int n = plk_frame_encode(f, sizeof f, &ms[k]);
        assert_int_equal(n, want_len[k]);
        for (int i = 17; i < n; i++) {
            bool set = (k == 1 && i >= 24 && i < 27) || (k == 2 && i >= 24 && i < 27) ||
                       (k == 1 && i == 22) || (k == 2 && i == 22) ||
                       (k == 4 && i == 17) || (k == 5 && i == 17) || (k == 6 && i == 17) ||
                       (k == 7 && (i == 17 || (i >= 18 && i < 21)));
            if (!set && f[i] != 0)
                fail_msg("frame kind %d byte %d is 0x%02X, expected 0", k, i, f[i]);
        }
        assert_int_equal(f[n], 0xEE);      /* nothing written past the frame */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soc_reference),
        cmocka_unit_test(soa_ident_and_status),
        cmocka_unit_test(preq_reference),
        cmocka_unit_test(pres_reference),
        cmocka_unit_test(nmt_start_node_reference),
        cmocka_unit_test(sdo_reference),
        cmocka_unit_test(ident_response_roundtrip),
        cmocka_unit_test(status_response_roundtrip),
        cmocka_unit_test(nmt_request_and_sync),
        cmocka_unit_test(bad_frames),
        cmocka_unit_test(names),
        cmocka_unit_test(padding_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
