/* What `takt ecat slaves` prints of what the SII holds: every decoder finding with
 * the slave's position (text, -v and JSON), names with control characters and
 * Latin-1 bytes escaped in text and valid UTF-8 in JSON. Against the simulator in
 * process, like test_ecat_cli.c. */
#include "unit/sim/master_rig.h"
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"

#include "unit/cli/cli_sim_run.h"

/* slave 1's RxPDO category claims 0x3000 words, more than its EEPROM holds */
static struct takt_sim *make_odd(bool broken)
{
    static struct sim_device_desc d[3];
    struct sim_device *devs[3];
    for (unsigned i = 0; i < 3; i++) {
        mbx_desc(&d[i], i);
        if (i == 0)
            snprintf(d[i].name, sizeof d[i].name, "Line\nTwo");
        if (i == 2)
            snprintf(d[i].name, sizeof d[i].name, "Caf\xE9 \\ 1");
        assert_int_equal(sim_device_from_desc(&d[i], &devs[i]), 0);
    }
    uint8_t *b = devs[1]->sii;
    size_t off = 2 * SII_W_CATEGORIES;
    while (broken && get_le16(b + off) != SII_CAT_RXPDO)
        off += 4 + 2u * get_le16(b + off + 2);
    if (broken)
        put_le16(b + off + 2, 0x3000);
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    struct takt_sim *sim;
    assert_int_equal(takt_sim_create_devices(devs, 3, &so, &sim), 0);
    return sim;
}

static void slaves_report_sii_warnings(void **state)
{
    (void)state;
    struct takt_sim *sim = make_odd(true);
    static char out[65536];
    static const char *const verbs[] = { "ecat slaves", "ecat slaves -v" };
    for (unsigned k = 0; k < 2; k++) {
        int rc = run_on(sim, verbs[k], out, sizeof out);
        if (rc != 0 || !strstr(out, "slave 1: SII category 51 at word") || !strstr(out, "skipped"))
            fail_msg("%s: exit %d, want slave 1's broken RxPDO category reported:\n%s", verbs[k], rc, out);
        if (strstr(out, "slave 0: SII") || strstr(out, "slave 2: SII"))
            fail_msg("%s: warnings for sound images:\n%s", verbs[k], out);
        if (!strstr(out, "IO1"))
            fail_msg("%s: the broken slave keeps its name:\n%s", verbs[k], out);
    }
    int rc = run_on(sim, "ecat slaves --json -", out, sizeof out);
    const char *js = strchr(out, '{');
    json_object *j = js ? json_tokener_parse(js) : NULL, *arr, *v;
    if (rc != 0 || !j || !json_object_object_get_ex(j, "slaves", &arr))
        fail_msg("--json -: exit %d:\n%s", rc, out);
    json_object *s1 = json_object_array_get_idx(arr, 1), *s0 = json_object_array_get_idx(arr, 0);
    assert_true(json_object_object_get_ex(s1, "sii_warnings", &v));
    assert_int_equal(json_object_array_length(v), 1);
    assert_non_null(strstr(json_object_get_string(json_object_array_get_idx(v, 0)), "category 51"));
    assert_true(json_object_object_get_ex(s0, "sii_warnings", &v));
    assert_int_equal(json_object_array_length(v), 0);
    json_object_put(j);
    takt_sim_destroy(sim);
}

static void slave_names_escaped(void **state)
{
    (void)state;
    struct takt_sim *sim = make_odd(false);
    static char out[65536];
    int rc = run_on(sim, "ecat slaves", out, sizeof out);
    if (rc != 0 || !strstr(out, "Line\\nTwo\n") || !strstr(out, "Caf\\xE9 \\\\ 1\n"))
        fail_msg("exit %d, want Line\\nTwo and Caf\\xE9 \\\\ 1 on their lines:\n%s", rc, out);
    rc = run_on(sim, "ecat slaves --json -", out, sizeof out);
    const char *js = strchr(out, '{');
    json_object *j = js ? json_tokener_parse(js) : NULL, *arr, *v;
    if (rc != 0 || !j || !json_object_object_get_ex(j, "slaves", &arr))
        fail_msg("--json -: exit %d:\n%s", rc, out);
    assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "name", &v));
    assert_string_equal(json_object_get_string(v), "Line\nTwo");
    assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 2), "name", &v));
    assert_string_equal(json_object_get_string(v), "Caf\xC3\xA9 \\ 1");   /* U+00E9 in UTF-8 */
    json_object_put(j);
    takt_sim_destroy(sim);
}

/* an EEPROM of 16 KiB whose PDO categories lie past word 0x0800: sii read gives the
 * whole image, sii write takes it back */
static void sii_read_write_over_4k(void **state)
{
    (void)state;
    static struct sim_device_desc d;
    struct sim_device *dev;
    mbx_desc(&d, 0);
    assert_int_equal(sim_device_from_desc(&d, &dev), 0);
    size_t n = 16384, at = 2 * SII_W_CATEGORIES;
    uint8_t *b = malloc(n);
    while (get_le16(dev->sii + at) != SII_CAT_TXPDO)
        at += 4 + 2u * get_le16(dev->sii + at + 2);
    memset(b, 0xFF, n);
    memcpy(b, dev->sii, at);
    put_le16(b + at, 1);                                 /* device specific, 2100 words */
    put_le16(b + at + 2, 2100);
    memset(b + at + 4, 0x5A, 4200);
    memcpy(b + at + 4204, dev->sii + at, dev->sii_len - at);
    put_le16(b + 2 * SII_W_SIZE, 127);                   /* 128 KiBit */
    free(dev->sii);
    dev->sii = b;
    dev->sii_len = n;
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    struct takt_sim *sim;
    assert_int_equal(takt_sim_create_devices(&dev, 1, &so, &sim), 0);
    char path[] = "/tmp/takt-sii-XXXXXX", args[128];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    static char out[65536];
    snprintf(args, sizeof args, "ecat sii read 0 -o %s", path);
    int rc = run_on(sim, args, out, sizeof out);
    struct stat st;
    if (rc != 0 || stat(path, &st) || st.st_size <= 4096)
        fail_msg("sii read: exit %d, %lld bytes, want the image past byte 4096:\n%s", rc,
                 (long long)st.st_size, out);
    snprintf(args, sizeof args, "ecat sii write 0 %s", path);
    rc = run_on(sim, args, out, sizeof out);
    if (rc != 0 || !strstr(out, "wrote"))
        fail_msg("sii write of %lld bytes: exit %d:\n%s", (long long)st.st_size, rc, out);
    unlink(path);
    takt_sim_destroy(sim);
}

/* the EEPROM dumps of real slaves (shared fixtures; skipped when absent), each served
 * by a simulated slave: ecat slaves shows the identity they hold, with no finding */
static void real_dumps(void **state)
{
    (void)state;
    static const char *const files[] = { "ek1100-eeprom-dump.bin", "el2004-eeprom-dump.bin",
                                         "el2828.hex", "el2889.hex" };
    const char *fx = getenv("TAKT_FIXTURES");
    struct sim_device *devs[4];
    static struct sim_device_desc d[4];
    unsigned n = 0;
    for (unsigned k = 0; fx && k < 4; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/sii/%s", fx, files[k]);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        uint8_t *b = malloc(65536);
        size_t len = fread(b, 1, 65536, f);
        fclose(f);
        mbx_desc(&d[n], n);
        assert_int_equal(sim_device_from_desc(&d[n], &devs[n]), 0);
        free(devs[n]->sii);
        devs[n]->sii = b;
        devs[n]->sii_len = len;
        n++;
    }
    if (!n) {
        print_message("no SII dump in $TAKT_FIXTURES/sii, skipped\n");
        skip();
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    struct takt_sim *sim;
    assert_int_equal(takt_sim_create_devices(devs, n, &so, &sim), 0);
    static char out[65536];
    int rc = run_on(sim, "ecat slaves --json -", out, sizeof out);
    json_object *j = json_tokener_parse(out), *arr, *v;
    if (rc != 0 || !j || !json_object_object_get_ex(j, "slaves", &arr))
        fail_msg("exit %d, want JSON alone (no SII finding on stderr):\n%s", rc, out);
    assert_int_equal(json_object_array_length(arr), n);
    for (unsigned k = 0; k < n; k++) {
        json_object *sl = json_object_array_get_idx(arr, k);
        assert_true(json_object_object_get_ex(sl, "product", &v));
        assert_int_equal(json_object_get_int64(v), get_le32(devs[k]->sii + 2 * SII_W_PRODUCT));
        assert_true(json_object_object_get_ex(sl, "name", &v));
        assert_true(strlen(json_object_get_string(v)) > 0);
    }
    json_object_put(j);
    takt_sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slaves_report_sii_warnings),
        cmocka_unit_test(slave_names_escaped),
        cmocka_unit_test(sii_read_write_over_4k),
        cmocka_unit_test(real_dumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
