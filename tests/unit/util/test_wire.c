/* Little-endian helpers and error names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <takt/takt.h>
#include "util/wire.h"

static void le_roundtrip(void **state)
{
    uint8_t b[8];
    put_le16(b, 0x1234);
    assert_int_equal(b[0], 0x34);
    assert_int_equal(b[1], 0x12);
    assert_int_equal(get_le16(b), 0x1234);
    put_le32(b, 0xA1B2C3D4u);
    assert_memory_equal(b, "\xD4\xC3\xB2\xA1", 4);
    assert_int_equal(get_le32(b), 0xA1B2C3D4u);
    put_le64(b, 0x0102030405060708ull);
    assert_memory_equal(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    assert_true(get_le64(b) == 0x0102030405060708ull);
    put_be16(b, 0x88A4);
    assert_int_equal(b[0], 0x88);
    assert_int_equal(get_be16(b), 0x88A4);
}

static void errors_named(void **state)
{
    assert_string_equal(takt_strerror(-TAKT_EWKC), "working counter differs from the expected value");
    assert_string_equal(takt_strerror(-ETIMEDOUT), strerror(ETIMEDOUT));
    for (int e = TAKT_EBASE + 1; e < TAKT_EEND; e++)
        assert_non_null(takt_strerror(e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(le_roundtrip),
        cmocka_unit_test(errors_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
