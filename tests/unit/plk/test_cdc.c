/* Concise DCF: openCONFIGURATOR's Demo_3CN mnobd.cdc parsed and compared entry by entry
 * with its text form mnobd.txt (fixtures; skipped when absent), its per-CN DCFs applied
 * to a CN object dictionary, broken variants rejected with entry and offset. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cdc.h"
#include "plk/od.h"
#include "plk/proto.h"
#include "util/wire.h"

static uint8_t cdc_buf[4096];
static size_t cdc_len;
static char txt[16384];

static int load(const char *name, void *buf, size_t cap, size_t *len)
{
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    if (!dir)
        return -1;
    snprintf(path, sizeof path, "%s/powerlink-config/Demo_3CN/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    *len = fread(buf, 1, cap - 1, f);
    fclose(f);
    return 0;
}

static void need_fixture(void)
{
    size_t n = 0; /* skip() leaves by longjmp; the compiler cannot know */
    if (load("mnobd.cdc", cdc_buf, sizeof cdc_buf, &cdc_len) || load("mnobd.txt", txt, sizeof txt, &n)) {
        fprintf(stderr, "skip: $TAKT_FIXTURES/powerlink-config/Demo_3CN not found\n");
        skip();
    }
    txt[n] = '\0';
}

static void demo_3cn_header(void **state)
{
    need_fixture();
    struct plk_cdc c;
    char err[200];
    assert_int_equal(cdc_len, 951);
    assert_int_equal(plk_cdc_parse(&c, cdc_buf, cdc_len, err, sizeof err), 0);
    assert_int_equal(c.count, 49);
    struct plk_cdc_entry e;
    uint64_t v;
    assert_int_equal(plk_cdc_find(&c, 0x1F81, 1, &e), 0);
    assert_int_equal(plk_cdc_entry_u64(&e, &v), 0);
    assert_int_equal(v, 0x80000007u);        /* the later "reassignment" entry wins */
    struct plk_cdc_iter it;
    plk_cdc_iter_init(&it, &c);
    assert_int_equal(plk_cdc_next(&it, &e), 1);
    assert_int_equal(e.index, 0x1F81);       /* first entry: 0x1F81/01 := 7 */
    assert_int_equal(e.sub, 1);
    assert_int_equal(e.size, 4);
    plk_cdc_entry_u64(&e, &v);
    assert_int_equal(v, 7);
    assert_int_equal(e.offset, 4);
    assert_int_equal(plk_cdc_find(&c, 0x1006, 0, &e), 0);
    plk_cdc_entry_u64(&e, &v);
    assert_int_equal(v, 50000);
    assert_int_equal(plk_cdc_find(&c, 0x1C14, 0, &e), 0);
    plk_cdc_entry_u64(&e, &v);
    assert_int_equal(v, 50000000);
    assert_int_equal(plk_cdc_find(&c, 0x1234, 0, &e), -ENOENT);
}

/* Walk mnobd.txt and the binary side by side: every top-level entry and every entry
 * of every 0x1F22 DCF must match in index, subindex, size and value. */
static void demo_3cn_matches_txt(void **state)
{
    need_fixture();
    struct plk_cdc c, dcf;
    char err[200];
    assert_int_equal(plk_cdc_parse(&c, cdc_buf, cdc_len, err, sizeof err), 0);
    struct plk_cdc_iter top, inner;
    struct plk_cdc_entry e;
    plk_cdc_iter_init(&top, &c);
    unsigned nested_left = 0, top_seen = 0, nested_seen = 0;
    bool want_count = false;
    char *save = NULL;
    for (char *line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '/' || line[0] == '\r' || line[0] == '\0')
            continue;
        unsigned idx, sub, size;
        unsigned long long val;
        int f = sscanf(line, "%x %x %x %llx", &idx, &sub, &size, &val);
        if (want_count) {                    /* the DCF's own entry count */
            assert_int_equal(f, 1);
            assert_int_equal(idx, dcf.count);
            nested_left = idx;
            want_count = false;
            plk_cdc_iter_init(&inner, &dcf);
            continue;
        }
        if (f == 1 && top_seen == 0)
            continue;                        /* the file's own count line (00000031) */
        if (nested_left) {
            assert_int_equal(f, 4);
            assert_int_equal(plk_cdc_next(&inner, &e), 1);
            nested_left--;
            nested_seen++;
        } else {
            assert_true(f == 4 || f == 3);
            assert_int_equal(plk_cdc_next(&top, &e), 1);
            top_seen++;
        }
        assert_int_equal(e.index, idx);
        assert_int_equal(e.sub, sub);
        assert_int_equal(e.size, size);
        if (f == 3) {                        /* 0x1F22/n DOMAIN: the DCF follows */
            assert_int_equal(idx, 0x1F22);
            assert_int_equal(plk_cdc_node_dcf(&c, (uint8_t)sub, &dcf, err, sizeof err), 0);
            want_count = true;
            continue;
        }
        uint64_t v;
        assert_int_equal(plk_cdc_entry_u64(&e, &v), 0);
        assert_true(v == val);
    }
    assert_int_equal(top_seen, 49);
    assert_int_equal(nested_seen, 3 * 14);
    assert_int_equal(plk_cdc_next(&top, &e), 0);
}

static void dcf_applies_to_cn_od(void **state)
{
    need_fixture();
    struct plk_cdc c, dcf;
    char err[200];
    assert_int_equal(plk_cdc_parse(&c, cdc_buf, cdc_len, err, sizeof err), 0);
    assert_int_equal(plk_cdc_node_dcf(&c, 32, &dcf, err, sizeof err), 0);
    assert_int_equal(dcf.count, 14);
    static struct plk_od_entry ent[256];
    static uint8_t pool[4096];
    struct plk_od od;
    plk_od_init(&od, ent, 256, pool, sizeof pool);
    struct plk_od_cn_params p;
    plk_od_cn_params_default(&p, 32);
    assert_int_equal(plk_od_add_cn_profile(&od, &p), 0);
    assert_int_equal(plk_od_add(&od, 0x6000, 1, PLK_OT_U8, PLK_OA_READ | PLK_OA_PDO, 0), 0);
    assert_int_equal(plk_od_add(&od, 0x6200, 1, PLK_OT_U8, PLK_OA_RW | PLK_OA_PDO, 0), 0);
    assert_int_equal(plk_cdc_apply(&dcf, &od, err, sizeof err), 0);
    assert_int_equal(plk_od_u32(&od, 0x1006, 0, 0), 50000);
    assert_int_equal(plk_od_u32(&od, 0x1C0B, 3, 0), 80);
    assert_int_equal(plk_od_u32(&od, 0x1C0D, 3, 0), 80);
    assert_int_equal(plk_od_u32(&od, 0x1C14, 0, 0), 50000000);
    assert_int_equal(plk_od_u32(&od, 0x1F98, 4, 0), 36);
    assert_int_equal(plk_od_u32(&od, 0x1600, 0, 9), 1);
    uint64_t m;
    assert_int_equal(plk_od_get_u64(&od, 0x1600, 1, &m), 0);
    assert_true(m == 0x0008000000016200ull);
    assert_int_equal(plk_od_get_u64(&od, 0x1A00, 1, &m), 0);
    assert_true(m == 0x0008000000016000ull);
    /* the same DCF through the remote path (access and range checks, as the MN's SDO
     * downloads arrive at a CN) is accepted entry by entry */
    plk_od_reset_defaults(&od);
    struct plk_cdc_iter it;
    struct plk_cdc_entry e;
    plk_cdc_iter_init(&it, &dcf);
    while (plk_cdc_next(&it, &e)) {
        uint32_t abort = 0;
        if (plk_od_write(&od, e.index, e.sub, e.data, e.size, &abort))
            fail_msg("0x%04X/%u refused with abort 0x%08X", e.index, e.sub, abort);
    }
    assert_int_equal(plk_od_u32(&od, 0x1C14, 0, 0), 50000000);
    assert_int_equal(plk_od_u32(&od, 0x1A00, 0, 9), 1);
    /* no DCF for a node that is not configured */
    assert_int_equal(plk_cdc_node_dcf(&c, 2, &dcf, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "0x1F22/2"));
}

/* A text file given as a CDC (openCONFIGURATOR's mnobd.txt beside mnobd.cdc): its first
 * 4 bytes read as a count of about 10^9; the reader says the file is not a CDC at all
 * instead of failing at "entry 1 of 1819043176". */
static void text_is_not_a_cdc(void **state)
{
    (void)state;
    static const char text[] = "////// Concise DCF written as text: 0x1006 0x00 0x0004 0x000003E8\n";
    struct plk_cdc c;
    char err[200];
    assert_int_equal(plk_cdc_parse(&c, (const uint8_t *)text, sizeof text - 1, err, sizeof err), -EBADMSG);
    printf("  %s\n", err);
    char want[200];
    snprintf(want, sizeof want, "not a concise DCF: its first 4 bytes give %u entries, more than its "
             "size allows", get_le32((const uint8_t *)text));
    assert_non_null(strstr(err, want));
    assert_null(strstr(err, "entry 1 of"));
}

static void broken_variants(void **state)
{
    uint8_t b[128];
    struct plk_cdc c;
    char err[200];
    int u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1006, 0, 1000, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1F98, 4, 36, 2);
    assert_int_equal(u, 4 + 11 + 9);
    assert_memory_equal(b, "\x02\x00\x00\x00\x06\x10\x00\x04\x00\x00\x00\xe8\x03\x00\x00", 15);
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), 0);
    assert_int_equal(c.count, 2);
    /* truncated inside the second entry's data */
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u - 1, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "entry 2 of 2"));
    assert_non_null(strstr(err, "0x1F98/4"));
    assert_non_null(strstr(err, "offset 15"));
    /* truncated inside the second header */
    assert_int_equal(plk_cdc_parse(&c, b, 18, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "entry 2 of 2"));
    assert_non_null(strstr(err, "header"));
    /* count 0 */
    uint8_t zero[4] = { 0 };
    assert_int_equal(plk_cdc_parse(&c, zero, 4, err, sizeof err), -ENODATA);
    assert_non_null(strstr(err, "count"));
    assert_int_equal(plk_cdc_parse(&c, zero, 3, err, sizeof err), -EPROTO);
    /* size past the end */
    b[18] = 0xFF;
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "past the end"));
    b[18] = 2;
    /* count larger than the entries present, and more than the size can hold */
    b[0] = 3;
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "give 3 entries"));
    /* trailing garbage */
    b[0] = 1;
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), -EPROTO);
    assert_non_null(strstr(err, "after its 1 entries"));
    /* iterating a rejected CDC yields nothing */
    struct plk_cdc_iter it;
    struct plk_cdc_entry e;
    plk_cdc_iter_init(&it, &c);
    assert_int_equal(plk_cdc_next(&it, &e), 0);
    assert_int_equal(plk_cdc_append(b, 10, 4, 0x1000, 0, "abcd", 4), -ENOSPC);
}

static void apply_rejects_with_entry(void **state)
{
    uint8_t b[64];
    struct plk_cdc c;
    char err[200];
    static struct plk_od_entry ent[8];
    static uint8_t pool[64];
    struct plk_od od;
    plk_od_init(&od, ent, 8, pool, sizeof pool);
    assert_int_equal(plk_od_add(&od, 0x1006, 0, PLK_OT_U32, PLK_OA_RW, 0), 0);
    int u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1006, 0, 1000, 4);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x1006, 0, 7, 2);     /* wrong size */
    assert_int_equal(plk_cdc_parse(&c, b, (size_t)u, err, sizeof err), 0);
    assert_int_equal(plk_cdc_apply(&c, &od, err, sizeof err), -EMSGSIZE);
    assert_non_null(strstr(err, "entry 2"));
    assert_non_null(strstr(err, "0x1006/0"));
    assert_int_equal(plk_od_u32(&od, 0x1006, 0, 0), 1000);
    u = plk_cdc_begin(b, sizeof b);
    u = plk_cdc_append_u(b, sizeof b, (size_t)u, 0x2000, 0, 1, 1);     /* no such object */
    plk_cdc_parse(&c, b, (size_t)u, err, sizeof err);
    assert_int_equal(plk_cdc_apply(&c, &od, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "0x06020000"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_3cn_header),
        cmocka_unit_test(demo_3cn_matches_txt),
        cmocka_unit_test(dcf_applies_to_cn_od),
        cmocka_unit_test(text_is_not_a_cdc),
        cmocka_unit_test(broken_variants),
        cmocka_unit_test(apply_rejects_with_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
