/* SoE codec and client against hand-written bytes (ETG.1000.6, Servo drive profile over EtherCAT; SOEM ec_SoEt,
 * Wireshark TSOEHEADER): header bit layout, IDN text form, error names, element
 * splitting, read fragments collected, write fragments counted down, error responses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <takt/takt.h>
#include "ecat/soe.h"
#include "util/wire.h"

static void test_header_bytes(void **state)
{
    (void)state;
    uint8_t b[32], v[2] = { 0x34, 0x12 };
    /* write request, drive 2, value element, IDN P-1-0010, counter 3 */
    size_t n = ecat_soe_encode(b, sizeof b, 3, SOE_OP_WRITE_REQ, 0, 2, SOE_EL_VALUE, 0x900A, v, 2);
    const uint8_t want[] = { 0x06, 0x00, 0x00, 0x00, 0x00, 0x35,      /* len 6, type 5, cnt 3 */
                             0x43, 0x40, 0x0A, 0x90, 0x34, 0x12 };    /* op 3 | drive 2 << 5 */
    assert_int_equal(n, sizeof want);
    assert_memory_equal(b, want, sizeof want);
    /* an error response: read response, Error bit, code 0x7004 last */
    const uint8_t err[] = { 0x06, 0x00, 0x00, 0x10, 0x00, 0x15,
                            0x12, 0x40, 0x28, 0x00, 0x04, 0x70 };
    struct ecat_soe_msg m;
    assert_int_equal(ecat_soe_decode(err, sizeof err, &m), 0);
    assert_int_equal(m.op, SOE_OP_READ_RES);
    assert_true(m.error);
    assert_false(m.incomplete);
    assert_int_equal(m.drive, 0);
    assert_int_equal(m.idn, 40);
    assert_int_equal(m.err_code, 0x7004);
    /* Incomplete: bit 3; the IDN field counts the fragments to come */
    const uint8_t frag[] = { 0x04, 0x00, 0x00, 0x00, 0x00, 0x15, 0x0A, 0x40, 0x02, 0x00 };
    assert_int_equal(ecat_soe_decode(frag, sizeof frag, &m), 0);
    assert_true(m.incomplete);
    assert_int_equal(m.idn, 2);
    /* short, or not SoE */
    assert_int_equal(ecat_soe_decode(frag, 9, &m), -EMSGSIZE);
    uint8_t coe[10];
    memcpy(coe, frag, 10);
    coe[5] = 0x13;
    assert_int_equal(ecat_soe_decode(coe, 10, &m), -EPROTO);
    coe[5] = 0x15;
    coe[0] = 3;                                   /* shorter than the SoE header */
    assert_int_equal(ecat_soe_decode(coe, 10, &m), -EMSGSIZE);
}

static void test_idn_text(void **state)
{
    (void)state;
    char err[200], s[TAKT_ECAT_SOE_IDN_STR];
    uint16_t idn;
    assert_int_equal(takt_ecat_soe_idn_parse("S-0-0036", &idn, err, sizeof err), 0);
    assert_int_equal(idn, 36);
    assert_int_equal(takt_ecat_soe_idn_parse("p-7-4095", &idn, err, sizeof err), 0);
    assert_int_equal(idn, 0xFFFF);
    assert_int_equal(takt_ecat_soe_idn_parse("0x8024", &idn, err, sizeof err), 0);
    takt_ecat_soe_idn_format(idn, s);
    assert_string_equal(s, "P-0-0036");
    takt_ecat_soe_idn_format(0x1033, s);
    assert_string_equal(s, "S-1-0051");
    const char *bad[] = { "", "S-8-0001", "S-0-4096", "X-0-1", "S-0-", "S-0-12a", "70000", "S0001" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(takt_ecat_soe_idn_parse(bad[i], &idn, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "expected an IDN like S-0-0036"));
    }
    assert_string_equal(takt_ecat_soe_error_text(0x7004), "is read-only");
    assert_string_equal(takt_ecat_soe_error_text(0x1001), "no such IDN");
    assert_string_equal(takt_ecat_soe_error_text(0x1234), "unknown SoE error");
    uint8_t f;
    assert_int_equal(takt_ecat_soe_elements_parse("name,value,unit", &f, err, sizeof err), 0);
    assert_int_equal(f, SOE_EL_NAME | SOE_EL_VALUE | SOE_EL_UNIT);
    assert_int_equal(takt_ecat_soe_elements_parse("name,colour", &f, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "'colour'"));
}

static void test_split(void **state)
{
    (void)state;
    /* name "Vel", attribute (4 bytes, signed, 4 decimals), unit "rpm", value -2 */
    uint32_t attr = soe_attr(4, false, SOE_FMT_INT, 4);
    assert_int_equal(attr, 0x04220000);
    uint8_t d[] = { 3, 0, 8, 0, 'V', 'e', 'l', 0, 0, 0x22, 0x04, 3, 0, 3, 0, 'r', 'p', 'm',
                    0xFE, 0xFF, 0xFF, 0xFF };
    put_le32(d + 7, attr);
    struct takt_ecat_soe_part p[8];
    char err[200];
    uint8_t el = SOE_EL_NAME | SOE_EL_ATTR | SOE_EL_UNIT | SOE_EL_VALUE;
    assert_int_equal(takt_ecat_soe_elements_split(d, sizeof d, el, 0, p, err, sizeof err), 0);
    assert_int_equal(p[1].len, 7);
    assert_int_equal(get_le32(p[2].p), attr);
    assert_memory_equal(p[3].p + 4, "rpm", 3);
    assert_int_equal((int32_t)get_le32(p[6].p), -2);
    /* the value alone needs the attribute from elsewhere */
    assert_int_equal(takt_ecat_soe_elements_split(d + 18, 4, SOE_EL_VALUE, 0, p, err, sizeof err), -EPROTO);
    assert_int_equal(takt_ecat_soe_elements_split(d + 18, 4, SOE_EL_VALUE, attr, p, err, sizeof err), 0);
    /* a list whose length runs past the end, and bytes left over */
    uint8_t l[] = { 10, 0, 10, 0, 1, 2 };
    assert_int_equal(takt_ecat_soe_elements_split(l, sizeof l, SOE_EL_VALUE, soe_attr(2, true, 5, 0), p,
                                             err, sizeof err), -EPROTO);
    assert_int_equal(takt_ecat_soe_elements_split(d + 18, 4, SOE_EL_VALUE, soe_attr(2, false, 1, 0), p,
                                             err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "after the last element"));
}

static uint8_t out[64], in[64];
static size_t out_len;

/* A read answered in three fragments through a 20-byte mailbox (10 data bytes each). */
static void test_read_fragments(void **state)
{
    (void)state;
    struct ecat_mbx_chan ch = {0};
    struct ecat_soe_xfer x;
    uint8_t buf[64];
    assert_int_equal(ecat_soe_xfer_start(&x, ECAT_SOE_READ, 1, 0, SOE_EL_VALUE, 0x800A, buf,
                                         sizeof buf, 20, &ch, out, &out_len), ECAT_SOE_SEND);
    const uint8_t req[] = { 4, 0, 0, 0, 0, 0x15, 0x01, 0x40, 0x0A, 0x80 };
    assert_int_equal(out_len, sizeof req);
    assert_memory_equal(out, req, sizeof req);
    assert_int_equal(ecat_soe_xfer_sent(&x, out, 20, &out_len), ECAT_SOE_WAIT);
    for (unsigned k = 0; k < 3; k++) {
        uint8_t d[10];
        memset(d, (int)k + 1, sizeof d);
        size_t n = ecat_soe_encode(in, sizeof in, (uint8_t)(k + 1), SOE_OP_READ_RES,
                                   k < 2 ? SOE_F_INCOMPLETE : 0, 0, SOE_EL_VALUE,
                                   k < 2 ? (uint16_t)(2 - k) : 0x800A, d, k < 2 ? 10 : 4);
        int rc = ecat_soe_xfer_on_reply(&x, in, n);
        assert_int_equal(rc, k < 2 ? ECAT_SOE_WAIT : ECAT_SOE_DONE);
        if (k == 0)      /* the same message again (a repeated mailbox read): dropped */
            assert_int_equal(ecat_soe_xfer_on_reply(&x, in, n), ECAT_SOE_WAIT);
    }
    assert_int_equal(x.len, 24);
    assert_int_equal(x.frags, 3);
    assert_int_equal(buf[0], 1);
    assert_int_equal(buf[10], 2);
    assert_int_equal(buf[23], 3);
    /* too much for the buffer */
    assert_int_equal(ecat_soe_xfer_start(&x, ECAT_SOE_READ, 1, 0, SOE_EL_VALUE, 1, buf, 3, 20, &ch,
                                         out, &out_len), ECAT_SOE_SEND);
    size_t n = ecat_soe_encode(in, sizeof in, 5, SOE_OP_READ_RES, 0, 0, SOE_EL_VALUE, 1, buf, 4);
    assert_int_equal(ecat_soe_xfer_on_reply(&x, in, n), -ENOSPC);
    assert_non_null(strstr(x.msg, "larger than the 3-byte buffer"));
}

/* A write of 25 bytes through a 20-byte mailbox: fragments of 10, 10, 5 with 2, 1
 * fragments to come, then the IDN; only the last is answered. An error names the IDN. */
static void test_write_fragments(void **state)
{
    (void)state;
    struct ecat_mbx_chan ch = {0};
    struct ecat_soe_xfer x;
    uint8_t data[25];
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)i;
    int rc = ecat_soe_xfer_start(&x, ECAT_SOE_WRITE, 3, 1, SOE_EL_VALUE, 40, data, sizeof data, 20,
                                 &ch, out, &out_len);
    struct ecat_soe_msg m;
    for (unsigned k = 0; k < 3; k++) {
        assert_int_equal(rc, ECAT_SOE_SEND);
        assert_int_equal(ecat_soe_decode(out, out_len, &m), 0);
        assert_int_equal(m.op, SOE_OP_WRITE_REQ);
        assert_int_equal(m.drive, 1);
        assert_int_equal(m.incomplete, k < 2);
        assert_int_equal(m.idn, k < 2 ? 2 - k : 40);
        assert_int_equal(m.len, k < 2 ? 10 : 5);
        assert_int_equal(m.data[0], 10 * k);
        rc = ecat_soe_xfer_sent(&x, out, 20, &out_len);
    }
    assert_int_equal(rc, ECAT_SOE_WAIT);
    uint8_t code[2] = { 0x04, 0x70 };
    size_t n = ecat_soe_encode(in, sizeof in, 1, SOE_OP_WRITE_RES, SOE_F_ERROR, 1, SOE_EL_VALUE, 40,
                               code, 2);
    assert_int_equal(ecat_soe_xfer_on_reply(&x, in, n), -TAKT_EMBOX);
    assert_int_equal(x.err_code, 0x7004);
    assert_non_null(strstr(x.msg, "slave 3: IDN S-0-0040 is read-only (SoE error 0x7004"));
    /* a mailbox error reply, and a response of the wrong kind */
    ecat_soe_xfer_start(&x, ECAT_SOE_WRITE, 3, 0, SOE_EL_VALUE, 40, data, 2, 20, &ch, out, &out_len);
    ecat_soe_xfer_sent(&x, out, 20, &out_len);
    const uint8_t mbxerr[] = { 4, 0, 0, 0, 0, 0x20, 1, 0, 2, 0 };
    assert_int_equal(ecat_soe_xfer_on_reply(&x, mbxerr, sizeof mbxerr), -TAKT_EMBOX);
    assert_non_null(strstr(x.msg, "protocol not supported"));
    ecat_soe_xfer_start(&x, ECAT_SOE_WRITE, 3, 0, SOE_EL_VALUE, 40, data, 2, 20, &ch, out, &out_len);
    ecat_soe_xfer_sent(&x, out, 20, &out_len);
    /* a read response: the rest of a read given up before, not the answer */
    n = ecat_soe_encode(in, sizeof in, 3, SOE_OP_READ_RES, 0, 0, SOE_EL_VALUE, 40, NULL, 0);
    assert_int_equal(ecat_soe_xfer_on_reply(&x, in, n), ECAT_SOE_WAIT);
    n = ecat_soe_encode(in, sizeof in, 4, SOE_OP_WRITE_REQ, 0, 0, SOE_EL_VALUE, 40, NULL, 0);
    assert_int_equal(ecat_soe_xfer_on_reply(&x, in, n), -EPROTO);
    assert_non_null(strstr(x.msg, "expected a write response"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_bytes),
        cmocka_unit_test(test_idn_text),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_read_fragments),
        cmocka_unit_test(test_write_fragments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
