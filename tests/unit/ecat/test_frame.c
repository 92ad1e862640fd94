/* Frame codec: building against known-good bytes, iterating, and rejecting
 * truncated or foreign frames (ETG.1000.4 frame structure). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "ecat/frame.h"
#include "util/wire.h"

static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };

static void build_known_bytes(void **state)
{
    (void)state;
    uint8_t buf[128];
    size_t pos = ecat_frame_begin(buf, mac);
    assert_int_equal(pos, 16);
    uint8_t *d = ecat_frame_add(buf, sizeof buf, &pos, ECAT_BRD, 0x42, 0x00000000, 2, NULL);
    assert_non_null(d);
    uint16_t v = 0x0004;
    d = ecat_frame_add(buf, sizeof buf, &pos, ECAT_FPWR, 0x43, 0x02001001, 2, &v);
    assert_non_null(d);
    size_t len = ecat_frame_end(buf, pos);
    assert_int_equal(len, 60);
    static const uint8_t want[] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x88, 0xa4,
        0x1c, 0x10,                                   /* 28 bytes of datagrams, type 1 */
        0x07, 0x42, 0x00, 0x00, 0x00, 0x00, 0x02, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x05, 0x43, 0x01, 0x10, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    };
    assert_memory_equal(buf, want, sizeof want);
    for (size_t i = sizeof want; i < 60; i++)
        assert_int_equal(buf[i], 0);
}

static void iterate(void **state)
{
    (void)state;
    uint8_t buf[256];
    size_t pos = ecat_frame_begin(buf, mac);
    for (int i = 0; i < 3; i++)
        assert_non_null(ecat_frame_add(buf, sizeof buf, &pos, ECAT_LRW, (uint8_t)i,
                                       0x10000 * (unsigned)i, (uint16_t)(4 + i), NULL));
    size_t len = ecat_frame_end(buf, pos);
    struct ecat_dg dg;
    size_t p;
    int n = 0;
    int rc = ecat_frame_first(buf, len, &dg, &p);
    while (rc == 0) {
        assert_int_equal(dg.idx, n);
        assert_int_equal(dg.cmd, ECAT_LRW);
        assert_int_equal(dg.len, 4 + n);
        assert_int_equal(dg.lad, 0x10000u * (unsigned)n);
        assert_int_equal(dg.more, n < 2);
        n++;
        rc = ecat_frame_next(buf, len, &dg, &p);
    }
    assert_int_equal(rc, 1);
    assert_int_equal(n, 3);
}

static void does_not_fit(void **state)
{
    (void)state;
    uint8_t buf[64];
    size_t pos = ecat_frame_begin(buf, mac);
    assert_null(ecat_frame_add(buf, sizeof buf, &pos, ECAT_LRD, 0, 0, 40, NULL));
    assert_int_equal(pos, 16);
    assert_non_null(ecat_frame_add(buf, sizeof buf, &pos, ECAT_LRD, 0, 0, 36, NULL));
}

static void rejects_bad(void **state)
{
    (void)state;
    uint8_t buf[128];
    struct ecat_dg dg;
    size_t p, pos = ecat_frame_begin(buf, mac);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_APRD, 0, 0, 8, NULL);
    ecat_frame_add(buf, sizeof buf, &pos, ECAT_APRD, 1, 0, 8, NULL);
    size_t len = ecat_frame_end(buf, pos);
    /* header length beyond the frame */
    assert_int_equal(ecat_frame_first(buf, 30, &dg, &p), -EMSGSIZE);
    /* wrong EtherType and wrong frame type */
    buf[12] = 0x08; buf[13] = 0x00;
    assert_int_equal(ecat_frame_first(buf, len, &dg, &p), -EPROTO);
    buf[12] = 0x88; buf[13] = 0xa4;
    put_le16(buf + 14, (uint16_t)((get_le16(buf + 14) & 0x7FF) | 0x4000));
    assert_int_equal(ecat_frame_first(buf, len, &dg, &p), -EPROTO);
    put_le16(buf + 14, (uint16_t)((get_le16(buf + 14) & 0x7FF) | 0x1000));
    /* second datagram claims more data than the header covers */
    put_le16(buf + 16 + 20 + 6, 200);
    assert_int_equal(ecat_frame_first(buf, len, &dg, &p), 0);
    assert_int_equal(ecat_frame_next(buf, len, &dg, &p), -EMSGSIZE);
    /* too short to hold a header at all */
    assert_int_equal(ecat_frame_first(buf, 10, &dg, &p), -EPROTO);
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(ecat_cmd_name(ECAT_FRMW), "FRMW");
    assert_string_equal(ecat_cmd_name(0x33), "unknown");
    assert_string_equal(takt_ecat_al_state_name(AL_SAFEOP | AL_ERROR), "SAFEOP");
    assert_string_equal(takt_ecat_al_status_text(0x001B), "sync manager watchdog");
    assert_string_equal(takt_ecat_sdo_abort_text(0x06020000), "object does not exist in the object dictionary");
    assert_string_equal(takt_ecat_sdo_abort_text(0x12345678), "unknown code");
}

/* A datagram written again in place (ecat_frame_refill) is the datagram ecat_frame_add
 * writes with those values: index, address, data (or zeros) and a WKC of 0 again, over
 * what a reply had left there; its length and M bit and the other datagram unchanged. */
static void refill_as_built(void **state)
{
    (void)state;
    uint8_t a[128], b[128];
    uint16_t v = 0x1234, w = 0xBEEF;
    size_t pa = ecat_frame_begin(a, mac), at = pa;
    ecat_frame_add(a, sizeof a, &pa, ECAT_FPWR, 0x10, 0x02001001, 2, &v);
    size_t at2 = pa;
    ecat_frame_add(a, sizeof a, &pa, ECAT_BRD, 0x11, 0x01300000, 2, NULL);
    size_t la = ecat_frame_end(a, pa);
    /* as a reply leaves the bytes: data and WKCs written over */
    memset(a + at + 10, 0xEE, 4);
    memset(a + at2 + 10, 0xEE, 4);
    ecat_frame_refill(a, at, ECAT_FPWR, 0x20, 0x02001002, 2, &w);
    ecat_frame_refill(a, at2, ECAT_BRD, 0x21, 0x01300000, 2, NULL);
    size_t pb = ecat_frame_begin(b, mac);
    ecat_frame_add(b, sizeof b, &pb, ECAT_FPWR, 0x20, 0x02001002, 2, &w);
    ecat_frame_add(b, sizeof b, &pb, ECAT_BRD, 0x21, 0x01300000, 2, NULL);
    size_t lb = ecat_frame_end(b, pb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(build_known_bytes), cmocka_unit_test(iterate),
        cmocka_unit_test(does_not_fit), cmocka_unit_test(rejects_bad), cmocka_unit_test(names), cmocka_unit_test(refill_as_built),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
