/* CoE client: every SDO transfer type, SDO information, emergencies, aborts and
 * mailbox errors against hand-written bytes from the tables of ETG.1000.4 (mailbox) and ETG.1000.6 5.6 (CoE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <takt/takt.h>
#include "ecat/coe.h"
#include "util/wire.h"

static struct ecat_mbx_chan chan;
static struct ecat_coe_xfer x;
static uint8_t out[256];
static size_t out_len;
static uint8_t data[512];
static uint8_t slave_cnt;

static int setup(void **state)
{
    (void)state;
    memset(&chan, 0, sizeof chan);
    memset(data, 0, sizeof data);
    slave_cnt = 0;
    return 0;
}

/* A reply from the slave: mailbox header (counter advancing 1..7) + CoE bytes. */
static size_t reply(uint8_t *buf, uint8_t type, const uint8_t *body, size_t n)
{
    slave_cnt = (uint8_t)(slave_cnt % 7 + 1);
    put_le16(buf, (uint16_t)n);
    put_le16(buf + 2, 0x1001);
    buf[4] = 0;
    buf[5] = (uint8_t)(type | slave_cnt << 4);
    memcpy(buf + 6, body, n);
    return 6 + n;
}

static int feed(const uint8_t *body, size_t n)
{
    uint8_t buf[300];
    size_t len = reply(buf, MBX_TYPE_COE, body, n);
    return ecat_coe_xfer_on_reply(&x, buf, len, out, sizeof out, &out_len);
}

static struct ecat_coe_req req(enum ecat_coe_op op, uint16_t idx, uint8_t sub)
{
    return (struct ecat_coe_req){ .op = op, .pos = 3, .index = idx, .subindex = sub,
                                  .data = data, .cap = sizeof data, .mbx_out = 128, .mbx_in = 128 };
}

static void test_expedited_upload(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1018, 1);
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
    /* mbx len 10, addr 0, type CoE counter 1; CoE 0x2000 (SDO request); 0x40 upload */
    static const uint8_t want[] = { 0x0A, 0x00, 0x00, 0x00, 0x00, 0x13, 0x00, 0x20,
                                    0x40, 0x18, 0x10, 0x01, 0, 0, 0, 0 };
    assert_int_equal(out_len, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    /* 0x43: expedited, size indicated, 4 bytes */
    static const uint8_t res[] = { 0x00, 0x30, 0x43, 0x18, 0x10, 0x01, 0x02, 0x00, 0x00, 0x00 };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 4);
    assert_int_equal(get_le32(data), 2);
    /* 0x4F: one byte */
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
    assert_int_equal(out[5], 0x23);                         /* counter 2 */
    static const uint8_t res1[] = { 0x00, 0x30, 0x4F, 0x18, 0x10, 0x01, 0x7E, 0xAA, 0xBB, 0xCC };
    assert_int_equal(feed(res1, sizeof res1), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 1);
    assert_int_equal(data[0], 0x7E);
    /* 0x4B: two bytes */
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
    static const uint8_t res2[] = { 0x00, 0x30, 0x4B, 0x18, 0x10, 0x01, 0x34, 0x12, 0xBB, 0xCC };
    assert_int_equal(feed(res2, sizeof res2), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 2);
    assert_int_equal(get_le16(data), 0x1234);
}

static void test_normal_upload(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1008, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    /* 0x41: normal, size 6, data in the same message (mailbox length 10 + 6) */
    static const uint8_t res[] = { 0x00, 0x30, 0x41, 0x08, 0x10, 0x00, 0x06, 0, 0, 0,
                                   'E', 'L', '1', '0', '0', '4' };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 6);
    assert_memory_equal(data, "EL1004", 6);
}

static void test_segmented_upload(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1008, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    /* announces 16 bytes, carries 4 in the first message */
    static const uint8_t res[] = { 0x00, 0x30, 0x41, 0x08, 0x10, 0x00, 16, 0, 0, 0, 'a', 'b', 'c', 'd' };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_SEND);
    /* upload segment request 0x60 (toggle 0) */
    assert_int_equal(out_len, 16);
    assert_int_equal(get_le16(out), 10);
    assert_int_equal(out[8], 0x60);
    /* segment: toggle 0, 9 data bytes, not last */
    static const uint8_t s1[] = { 0x00, 0x30, 0x00, 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm' };
    assert_int_equal(feed(s1, sizeof s1), ECAT_COE_SEND);
    assert_int_equal(out[8], 0x70);                         /* toggle 1 */
    /* last segment with 3 bytes: padded to 7, (7-3)<<1 unused, toggle 1, last */
    static const uint8_t s2[] = { 0x00, 0x30, 0x10 | (4 << 1) | 1, 'n', 'o', 'p', 0, 0, 0, 0 };
    assert_int_equal(feed(s2, sizeof s2), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 16);
    assert_memory_equal(data, "abcdefghijklmnop", 16);
}

static void test_upload_size_not_indicated(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1008, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    /* 0x40: neither expedited nor size indicated; data follows in segments */
    static const uint8_t res[] = { 0x00, 0x30, 0x40, 0x08, 0x10, 0x00, 0, 0, 0, 0 };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_SEND);
    assert_int_equal(out[8], 0x60);
    static const uint8_t s1[] = { 0x00, 0x30, 0x01 | (2 << 1), 'x', 'y', 'z', 'w', 'v', 0, 0 };
    assert_int_equal(feed(s1, sizeof s1), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 5);
    assert_memory_equal(data, "xyzwv", 5);
}

static void test_upload_toggle_error(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1008, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t res[] = { 0x00, 0x30, 0x41, 0x08, 0x10, 0x00, 20, 0, 0, 0, 'a' };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_SEND);
    static const uint8_t bad[] = { 0x00, 0x30, 0x10, 1, 2, 3, 4, 5, 6, 7 };   /* toggle 1, want 0 */
    assert_int_equal(feed(bad, sizeof bad), -EPROTO);
    assert_non_null(strstr(x.msg, "slave 3: 0x1008:00"));
    assert_non_null(strstr(x.msg, "expected toggle 0, found 1"));
    /* the client aborts the transfer with 0x05030000 */
    assert_int_equal(out_len, 16);
    assert_int_equal(out[8], 0x80);
    assert_int_equal(get_le32(out + 12), 0x05030000);
    assert_false(ecat_coe_xfer_busy(&x));
}

static void test_upload_too_large(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x2000, 0);
    r.cap = 8;
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t res[] = { 0x00, 0x30, 0x41, 0x00, 0x20, 0x00, 100, 0, 0, 0, 1, 2, 3 };
    assert_int_equal(feed(res, sizeof res), -EMSGSIZE);
    assert_int_equal(out[8], 0x80);
    assert_int_equal(get_le32(out + 12), 0x05040005);
    assert_non_null(strstr(x.msg, "100 bytes"));
}

static void test_expedited_download(void **state)
{
    (void)state;
    uint8_t v[2] = { 0x34, 0x12 };
    struct ecat_coe_req r = req(ECAT_COE_DOWNLOAD, 0x6040, 0);
    r.data = v;
    r.len = 2;
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
    /* 0x2B: expedited, size indicated, 2 bytes */
    static const uint8_t want[] = { 0x0A, 0, 0, 0, 0, 0x13, 0x00, 0x20, 0x2B, 0x40, 0x60, 0x00,
                                    0x34, 0x12, 0, 0 };
    assert_int_equal(out_len, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    static const uint8_t res[] = { 0x00, 0x30, 0x60, 0x40, 0x60, 0x00, 0, 0, 0, 0 };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_DONE);
    /* one-byte and four-byte specifiers */
    assert_int_equal(ecat_coe_build_download_exp(out, sizeof out, 1, 0x1C12, 0, v, 1), 16);
    assert_int_equal(out[8], 0x2F);
    uint8_t v4[4] = { 1, 2, 3, 4 };
    assert_int_equal(ecat_coe_build_download_exp(out, sizeof out, 1, 0x1C12, 0, v4, 4), 16);
    assert_int_equal(out[8], 0x23);
    assert_int_equal(ecat_coe_build_download_exp(out, sizeof out, 1, 0x1C12, 0, v4, 5), -EINVAL);
}

static void test_segmented_download(void **state)
{
    (void)state;
    uint8_t v[40];
    for (unsigned i = 0; i < sizeof v; i++)
        v[i] = (uint8_t)i;
    struct ecat_coe_req r = req(ECAT_COE_DOWNLOAD, 0x8000, 2);
    r.data = v;
    r.len = sizeof v;
    r.mbx_out = 32;          /* first message: 32 - 16 = 16 data bytes, segments 23 */
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
    assert_int_equal(out_len, 32);
    assert_int_equal(get_le16(out), 26);
    assert_int_equal(out[8], 0x21);                         /* normal, size indicated */
    assert_int_equal(get_le32(out + 12), 40);
    assert_memory_equal(out + 16, v, 16);
    static const uint8_t ack[] = { 0x00, 0x30, 0x60, 0x00, 0x80, 0x02, 0, 0, 0, 0 };
    assert_int_equal(feed(ack, sizeof ack), ECAT_COE_SEND);
    /* segment 1: toggle 0, 23 bytes, not last */
    assert_int_equal(out_len, 9 + 23);
    assert_int_equal(out[8], 0x00);
    assert_memory_equal(out + 9, v + 16, 23);
    static const uint8_t sack0[] = { 0x00, 0x30, 0x20, 0, 0, 0, 0, 0, 0, 0 };
    assert_int_equal(feed(sack0, sizeof sack0), ECAT_COE_SEND);
    /* segment 2: toggle 1, 1 byte, last: padded to 7, unused (7-1)<<1 */
    assert_int_equal(out_len, 16);
    assert_int_equal(get_le16(out), 10);
    assert_int_equal(out[8], 0x10 | (6 << 1) | 1);
    assert_int_equal(out[9], 39);
    /* a wrong toggle in the acknowledgement is refused */
    assert_int_equal(feed(sack0, sizeof sack0), -EPROTO);
    assert_int_equal(get_le32(out + 12), 0x05030000);
}

static void test_segmented_download_ok(void **state)
{
    (void)state;
    uint8_t v[20] = { 9 };
    struct ecat_coe_req r = req(ECAT_COE_DOWNLOAD, 0x8000, 2);
    r.data = v;
    r.len = sizeof v;
    r.mbx_out = 32;
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t ack[] = { 0x00, 0x30, 0x60, 0x00, 0x80, 0x02, 0, 0, 0, 0 };
    assert_int_equal(feed(ack, sizeof ack), ECAT_COE_SEND);
    assert_int_equal(out[8], 0x00 | (3 << 1) | 1);           /* 4 bytes left, last */
    static const uint8_t sack[] = { 0x00, 0x30, 0x20, 0, 0, 0, 0, 0, 0, 0 };
    assert_int_equal(feed(sack, sizeof sack), ECAT_COE_DONE);
}

static void test_complete_access(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1C12, 0);
    r.complete_access = true;
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    assert_int_equal(out[8], 0x50);
    /* whole object: sub0 = 2 (u8 + pad byte as the slave sends it), 0x1600, 0x1601 */
    static const uint8_t res[] = { 0x00, 0x30, 0x41, 0x12, 0x1C, 0x00, 6, 0, 0, 0,
                                   0x02, 0x00, 0x00, 0x16, 0x01, 0x16 };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 6);
    assert_int_equal(get_le16(data + 4), 0x1601);
    /* CA download is always normal (0x31), even for few bytes */
    uint8_t v[4] = { 1, 0, 0x00, 0x1A };
    r = req(ECAT_COE_DOWNLOAD, 0x1C13, 0);
    r.complete_access = true;
    r.data = v;
    r.len = 4;
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    assert_int_equal(out[8], 0x31);
    assert_int_equal(get_le32(out + 12), 4);
    /* subindex > 1 with CA is refused before anything is sent */
    r.subindex = 2;
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), -EINVAL);
    assert_int_equal(out_len, 0);
}

static void test_slave_abort(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x6099, 7);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    /* abort SDO transfer request: CoE service 2 (as ETG.1000.6 and IgH have it) */
    static const uint8_t res[] = { 0x00, 0x20, 0x80, 0x99, 0x60, 0x07, 0x00, 0x00, 0x02, 0x06 };
    assert_int_equal(feed(res, sizeof res), -TAKT_ESDOABORT);
    assert_int_equal(x.abort_code, 0x06020000);
    assert_non_null(strstr(x.msg, "slave 3: 0x6099:07: SDO abort 0x06020000"));
    assert_int_equal(out_len, 0);                           /* nothing to answer */
    /* service 3 with the abort specifier is accepted as well (SOEM does) */
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t res3[] = { 0x00, 0x30, 0x80, 0x99, 0x60, 0x07, 0x11, 0x00, 0x09, 0x06 };
    assert_int_equal(feed(res3, sizeof res3), -TAKT_ESDOABORT);
    assert_int_equal(x.abort_code, 0x06090011);
    /* but a service-2 message that is not an abort is not a reply */
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t req[] = { 0x00, 0x20, 0x40, 0x99, 0x60, 0x07, 0, 0, 0, 0 };
    assert_int_equal(feed(req, sizeof req), -EPROTO);
}

static void test_mailbox_error(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1000, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    uint8_t buf[32];
    static const uint8_t body[] = { 0x01, 0x00, 0x06, 0x00 };   /* type 1, detail 6 */
    size_t n = reply(buf, MBX_TYPE_ERR, body, sizeof body);
    assert_int_equal(ecat_coe_xfer_on_reply(&x, buf, n, out, sizeof out, &out_len), -TAKT_EMBOX);
    assert_int_equal(x.mbx_error, 6);
    assert_non_null(strstr(x.msg, "too short"));
    assert_string_equal(ecat_mbx_error_text(2), "mailbox protocol not supported");
    assert_string_equal(ecat_mbx_error_text(99), "unknown mailbox error");
}

static void test_emergency_and_duplicates(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1000, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t emcy[] = { 0x00, 0x10, 0x10, 0x82, 0x11, 1, 2, 3, 4, 5 };
    assert_int_equal(feed(emcy, sizeof emcy), ECAT_COE_WAIT);
    assert_int_equal(x.n_emcy, 1);
    assert_int_equal(x.emcy.code, 0x8210);
    assert_int_equal(x.emcy.reg, 0x11);
    assert_int_equal(x.emcy.data[4], 5);
    assert_string_equal(ecat_coe_emcy_text(0x8210), "protocol error");
    assert_string_equal(ecat_coe_emcy_text(0x2310), "current");
    /* the same counter again (repeated reply) is dropped */
    uint8_t buf[32];
    size_t n = reply(buf, MBX_TYPE_COE, emcy, sizeof emcy);
    assert_int_equal(ecat_coe_xfer_on_reply(&x, buf, n, out, sizeof out, &out_len), ECAT_COE_WAIT);
    assert_int_equal(x.n_emcy, 2);
    assert_int_equal(ecat_coe_xfer_on_reply(&x, buf, n, out, sizeof out, &out_len), ECAT_COE_WAIT);
    assert_int_equal(x.n_emcy, 2);
    /* the same counter with other bytes is a new message (the slave restarted) */
    static const uint8_t emcy2[] = { 0x00, 0x10, 0x30, 0x42, 0x08, 1, 2, 3, 4, 5 };
    uint8_t buf2[32];
    memcpy(buf2, buf, 6);
    memcpy(buf2 + 6, emcy2, sizeof emcy2);
    assert_int_equal(ecat_coe_xfer_on_reply(&x, buf2, n, out, sizeof out, &out_len), ECAT_COE_WAIT);
    assert_int_equal(x.n_emcy, 3);
    assert_int_equal(x.emcy.code, 0x4230);
    /* other protocols are not ours */
    n = reply(buf, MBX_TYPE_EOE, emcy, sizeof emcy);
    assert_int_equal(ecat_coe_xfer_on_reply(&x, buf, n, out, sizeof out, &out_len), ECAT_COE_WAIT);
    static const uint8_t res[] = { 0x00, 0x30, 0x43, 0x00, 0x10, 0x00, 0x91, 0x01, 0x02, 0x00 };
    assert_int_equal(feed(res, sizeof res), ECAT_COE_DONE);
}

static void test_wrong_object_and_garbage(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1000, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t res[] = { 0x00, 0x30, 0x43, 0x01, 0x10, 0x00, 1, 0, 0, 0 };
    assert_int_equal(feed(res, sizeof res), -EPROTO);
    assert_non_null(strstr(x.msg, "response for object 0x1001:00, expected 0x1000"));
    /* header announcing more than was read */
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    uint8_t buf[16] = { 0x40, 0x00, 0, 0, 0, 0x13, 0x00, 0x30 };
    assert_int_equal(ecat_coe_xfer_on_reply(&x, buf, sizeof buf, out, sizeof out, &out_len), -EPROTO);
    assert_non_null(strstr(x.msg, "announces 64 bytes"));
    /* random bytes: never a crash, always a defined result */
    uint32_t s = 99;
    for (int i = 0; i < 5000; i++) {
        ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
        uint8_t g[64];
        for (size_t k = 0; k < sizeof g; k++) {
            s = s * 1664525u + 1013904223u;
            g[k] = (uint8_t)(s >> 24);
        }
        g[5] = (uint8_t)((g[5] & 0xF0) | (i & 1 ? MBX_TYPE_COE : g[5] & 0x0F));
        put_le16(g, (uint16_t)(g[0] % 60));
        int rc = ecat_coe_xfer_on_reply(&x, g, 6 + g[0] % 58, out, sizeof out, &out_len);
        assert_true(rc >= ECAT_COE_DONE || rc == -EPROTO || rc == -TAKT_ESDOABORT ||
                    rc == -TAKT_EMBOX || rc == -EMSGSIZE);
        assert_true(out_len <= sizeof out);
    }
}

static void test_timeout(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_UPLOAD, 0x1000, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    assert_int_equal(ecat_coe_xfer_timeout(&x, out, sizeof out, &out_len), -ETIMEDOUT);
    assert_int_equal(out_len, 16);
    assert_int_equal(out[8], 0x80);
    assert_int_equal(get_le32(out + 12), 0x05040000);
    assert_non_null(strstr(x.msg, "no reply in time"));
}

static void test_counter_cycle(void **state)
{
    (void)state;
    struct ecat_mbx_chan c = {0};
    for (int i = 0; i < 15; i++)
        assert_int_equal(ecat_mbx_next_cnt(&c), i % 7 + 1);
    struct ecat_mbx_hdr h = { .len = 10, .addr = 0x1002, .channel = 5, .prio = 2, .type = 3, .cnt = 6 }, g;
    uint8_t b[16] = {0};
    ecat_mbx_encode(b, &h);
    assert_int_equal(b[4], 5 | 2 << 6);
    assert_int_equal(b[5], 0x63);
    assert_int_equal(ecat_mbx_decode(b, 16, &g), 0);
    assert_memory_equal(&g, &h, sizeof h);
    assert_int_equal(ecat_mbx_decode(b, 15, &g), -EMSGSIZE);
    assert_int_equal(ecat_mbx_decode(b, 5, &g), -EMSGSIZE);
}

/* --- SDO information ------------------------------------------------------------ */

static void test_info_odlist_fragments(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_ODLIST, 0, 0);
    r.list_type = 1;
    assert_int_equal(ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len), ECAT_COE_SEND);
    /* mbx len 8: CoE 0x8000, opcode 1, reserved, fragments 0, list type 1 */
    static const uint8_t want[] = { 0x08, 0, 0, 0, 0, 0x13, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00 };
    assert_int_equal(out_len, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    /* fragment 1: incomplete, 1 left: list type + 0x1000, 0x1008 */
    static const uint8_t f1[] = { 0x00, 0x80, 0x82, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x10, 0x08, 0x10 };
    assert_int_equal(feed(f1, sizeof f1), ECAT_COE_WAIT);
    static const uint8_t f2[] = { 0x00, 0x80, 0x02, 0x00, 0x00, 0x00, 0x18, 0x10, 0x00, 0x1C };
    assert_int_equal(feed(f2, sizeof f2), ECAT_COE_DONE);
    uint16_t lt;
    const uint8_t *first;
    int n = takt_ecat_coe_odlist_parse(data, x.result_len, &lt, &first);
    assert_int_equal(n, 4);
    assert_int_equal(lt, 1);
    assert_int_equal(get_le16(first + 0), 0x1000);
    assert_int_equal(get_le16(first + 6), 0x1C00);
}

static void test_info_lost_fragment(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_ODLIST, 0, 0);
    r.list_type = 1;
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t f1[] = { 0x00, 0x80, 0x82, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x10 };
    assert_int_equal(feed(f1, sizeof f1), ECAT_COE_WAIT);
    static const uint8_t f3[] = { 0x00, 0x80, 0x02, 0x00, 0x00, 0x00, 0x18, 0x10 };
    assert_int_equal(feed(f3, sizeof f3), -EPROTO);
    assert_non_null(strstr(x.msg, "expected 1 fragments left, found 0"));
}

static void test_info_descriptions(void **state)
{
    (void)state;
    struct ecat_coe_req r = req(ECAT_COE_OBJDESC, 0x1018, 0);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    assert_int_equal(out[8], COE_INFO_OBJ_REQ);
    assert_int_equal(get_le16(out + 12), 0x1018);
    static const uint8_t od[] = { 0x00, 0x80, 0x04, 0x00, 0x00, 0x00, 0x18, 0x10, 0x23, 0x00, 0x04, 0x09,
                                  'I', 'd', 'e', 'n', 't', 'i', 't', 'y' };
    assert_int_equal(feed(od, sizeof od), ECAT_COE_DONE);
    struct takt_ecat_coe_objdesc o;
    assert_int_equal(takt_ecat_coe_objdesc_parse(data, x.result_len, &o), 0);
    assert_int_equal(o.index, 0x1018);
    assert_int_equal(o.max_sub, 4);
    assert_int_equal(o.obj_code, 9);
    assert_string_equal(o.name, "Identity");

    r = req(ECAT_COE_ENTRYDESC, 0x1018, 1);
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    assert_int_equal(out[8], COE_INFO_ENTRY_REQ);
    assert_int_equal(out[14], 1);
    static const uint8_t ed[] = { 0x00, 0x80, 0x06, 0x00, 0x00, 0x00, 0x18, 0x10, 0x01, 0x00,
                                  0x07, 0x00, 0x20, 0x00, 0x07, 0x00, 'V', 'e', 'n', 'd', 'o', 'r' };
    assert_int_equal(feed(ed, sizeof ed), ECAT_COE_DONE);
    struct takt_ecat_coe_entrydesc e;
    assert_int_equal(takt_ecat_coe_entrydesc_parse(data, x.result_len, &e), 0);
    assert_int_equal(e.data_type, 7);
    assert_int_equal(e.bitlen, 32);
    assert_int_equal(e.access, 7);
    assert_string_equal(e.name, "Vendor");

    /* with unit, minimum and maximum requested (value info 0x68): u16 entry 0..1000 */
    static const uint8_t edv[] = { 0x00, 0x80, 0x06, 0x00, 0x00, 0x00, 0x40, 0x60, 0x00, 0x68,
                                   0x06, 0x00, 0x10, 0x00, 0x3F, 0x00,
                                   0x00, 0x00, 0x01, 0x00,          /* unit */
                                   0x00, 0x00, 0xE8, 0x03,          /* min 0, max 1000 */
                                   'C', 't', 'r', 'l' };
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    assert_int_equal(feed(edv, sizeof edv), ECAT_COE_DONE);
    assert_int_equal(takt_ecat_coe_entrydesc_parse(data, x.result_len, &e), 0);
    assert_int_equal(e.unit, 0x00010000);
    assert_int_equal(e.min, 0);
    assert_int_equal(e.max, 1000);
    assert_string_equal(e.name, "Ctrl");
    assert_int_equal(takt_ecat_coe_entrydesc_parse(data, 14, &e), -EPROTO);   /* cut in the unit */

    /* SDO information error (opcode 7) carries an abort code */
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t er[] = { 0x00, 0x80, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x06 };
    assert_int_equal(feed(er, sizeof er), -TAKT_ESDOABORT);
    assert_int_equal(x.abort_code, 0x06090000);
    /* an SDO response where an info reply is expected */
    ecat_coe_xfer_start(&x, &r, &chan, out, sizeof out, &out_len);
    static const uint8_t sdo[] = { 0x00, 0x30, 0x43, 0x18, 0x10, 0x01, 0, 0, 0, 0 };
    assert_int_equal(feed(sdo, sizeof sdo), -EPROTO);
    assert_non_null(strstr(x.msg, "CoE service 8"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_expedited_upload, setup),
        cmocka_unit_test_setup(test_normal_upload, setup),
        cmocka_unit_test_setup(test_segmented_upload, setup),
        cmocka_unit_test_setup(test_upload_size_not_indicated, setup),
        cmocka_unit_test_setup(test_upload_toggle_error, setup),
        cmocka_unit_test_setup(test_upload_too_large, setup),
        cmocka_unit_test_setup(test_expedited_download, setup),
        cmocka_unit_test_setup(test_segmented_download, setup),
        cmocka_unit_test_setup(test_segmented_download_ok, setup),
        cmocka_unit_test_setup(test_complete_access, setup),
        cmocka_unit_test_setup(test_slave_abort, setup),
        cmocka_unit_test_setup(test_mailbox_error, setup),
        cmocka_unit_test_setup(test_emergency_and_duplicates, setup),
        cmocka_unit_test_setup(test_wrong_object_and_garbage, setup),
        cmocka_unit_test_setup(test_timeout, setup),
        cmocka_unit_test_setup(test_counter_cycle, setup),
        cmocka_unit_test_setup(test_info_odlist_fragments, setup),
        cmocka_unit_test_setup(test_info_lost_fragment, setup),
        cmocka_unit_test_setup(test_info_descriptions, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
