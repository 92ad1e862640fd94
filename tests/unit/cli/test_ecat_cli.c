/* The takt ecat tools against the simulator, in process: each command runs with its
 * parsed options on one end of a mem pair whose other end the simulator answers
 * synchronously, so nothing here depends on timing. What they print is compared with
 * what the simulated network is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <takt/link.h>
#include <takt/sim.h>
#include "cli/cli.h"
#include "ecat/sii.h"
#include "sim/net.h"
#include "util/wire.h"

#include "unit/cli/cli_sim_run.h"

static struct takt_sim *make(const char *devices)
{
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    struct takt_sim *s;
    char err[256];
    if (takt_sim_create(devices, &o, &s, err, sizeof err))
        fail_msg("simulator '%s': %s", devices, err);
    return s;
}

/* --json -: one object per slave with the identity the simulator has */
static void slaves_json(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,el1004,el2004,servo");
    static char out[65536];
    int rc = run_on(sim, "ecat slaves --json -", out, sizeof out);
    if (rc != 0)
        fail_msg("exit %d:\n%s", rc, out);
    json_object *j = json_tokener_parse(out);
    if (!j)
        fail_msg("not JSON:\n%s", out);
    json_object *arr;
    assert_true(json_object_object_get_ex(j, "slaves", &arr));
    assert_int_equal(json_object_array_length(arr), 4);
    for (unsigned i = 0; i < 4; i++) {
        json_object *s = json_object_array_get_idx(arr, i), *v;
        assert_true(json_object_object_get_ex(s, "position", &v));
        assert_int_equal(json_object_get_int(v), i);
        assert_true(json_object_object_get_ex(s, "vendor", &v));
        assert_true(json_object_object_get_ex(s, "state", &v));
        assert_true(json_object_object_get_ex(s, "name", &v));
    }
    json_object *s3 = json_object_array_get_idx(arr, 3), *v;
    assert_true(json_object_object_get_ex(s3, "mailbox_protocols", &v));
    assert_non_null(strstr(json_object_to_json_string(v), "CoE"));
    json_object_put(j);
    takt_sim_destroy(sim);
}

/* -v names the mailbox protocols and the SM/FMMU access instead of a bare mask */
static void slaves_verbose_names(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,servo");
    static char out[65536];
    int rc = run_on(sim, "ecat slaves -v", out, sizeof out);
    if (rc != 0 || !strstr(out, "protocols CoE") || !strstr(out, "FoE"))
        fail_msg("exit %d, want 'protocols CoE ... FoE':\n%s", rc, out);
    if (!strstr(out, "SM0 0x1000/128  mailbox out, mailbox, master writes") ||
        !strstr(out, "inputs, 3 buffers, master reads") || !strstr(out, "FMMU0 outputs"))
        fail_msg("want the servo's SMs and FMMUs by name:\n%s", out);
    takt_sim_destroy(sim);
}

/* download without --type takes the type from the slave's object dictionary: the
 * object (UDINT) is written with its 4 bytes and reads back as written */
static void download_infers_type(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,servo");
    static char out[16384];
    int rc = run_on(sim, "ecat download 1 0x6065 0 5000", out, sizeof out);
    if (rc != 0)
        fail_msg("download without --type: exit %d:\n%s", rc, out);
    rc = run_on(sim, "ecat upload 1 0x6065 0", out, sizeof out);
    if (rc != 0 || !strstr(out, "0x00001388 5000"))
        fail_msg("upload after download: exit %d, want 0x00001388 5000:\n%s", rc, out);
    /* IgH's way of naming the slave: -p POS */
    rc = run_on(sim, "ecat upload -p 1 0x6065 0", out, sizeof out);
    if (rc != 0 || !strstr(out, "0x00001388 5000"))
        fail_msg("upload -p 1: exit %d, want 0x00001388 5000:\n%s", rc, out);
    /* --type still overrides: uint16 into the UDINT is 2 bytes, which the slave refuses */
    rc = run_on(sim, "ecat download --type uint16 1 0x6065 0 7", out, sizeof out);
    if (rc == 0)
        fail_msg("download --type uint16 into a UDINT: exit 0, want the slave's abort:\n%s", out);
    /* a value that does not fit the object's type is refused before anything is sent */
    rc = run_on(sim, "ecat download 1 0x6065 0 -- -1", out, sizeof out);
    if (rc == 0 || !strstr(out, "uint32"))
        fail_msg("download -1 into a UDINT: exit %d, want a refusal naming uint32:\n%s", rc, out);
    /* upload --json: the bytes and the type the dictionary gives */
    rc = run_on(sim, "ecat upload --json - 1 0x6065 0", out, sizeof out);
    json_object *j = json_tokener_parse(out), *v;
    if (rc != 0 || !j || !json_object_object_get_ex(j, "value", &v) || json_object_get_int64(v) != 5000)
        fail_msg("upload --json: exit %d:\n%s", rc, out);
    json_object_put(j);
    takt_sim_destroy(sim);
    /* no SDO information (no mailbox at all) and no --type: said, nothing written */
    sim = make("ek1100,el1004");
    rc = run_on(sim, "ecat download 1 0x7000 1 1", out, sizeof out);
    if (rc == 0 || !strstr(out, "gives no SDO information") || !strstr(out, "--type"))
        fail_msg("download on a slave without SDO information: exit %d:\n%s", rc, out);
    takt_sim_destroy(sim);
}

/* a DC servo that refuses SAFEOP with 0x0030 when DC is not set up: the message says
 * what to do */
static void dc_refusal_suggests_dc(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,servo");
    char err[256];
    assert_int_equal(takt_sim_fault(sim, "refuse=1:safeop=0x0030", err, sizeof err), 0);
    static char out[16384];
    int rc = run_on(sim, "ecat states -t 5 SAFEOP", out, sizeof out);
    if (rc == 0 || !strstr(out, "0x0030") || !strstr(out, "the slave wants distributed clocks: try --dc"))
        fail_msg("exit %d, want the refusal with 'try --dc':\n%s", rc, out);
    /* another refusal (by a slave without DC needs) does not speak of DC */
    struct takt_sim *sim2 = make("ek1100,el1004");
    assert_int_equal(takt_sim_fault(sim2, "refuse=1:safeop=0x001D", err, sizeof err), 0);
    rc = run_on(sim2, "ecat states -t 5 SAFEOP", out, sizeof out);
    if (rc == 0 || !strstr(out, "0x001D") || strstr(out, "try --dc"))
        fail_msg("exit %d, want the 0x001D refusal without DC advice:\n%s", rc, out);
    /* states --json: each slave's state and AL status code */
    rc = run_on(sim2, "ecat states --json -", out, sizeof out);
    char *brace = strchr(out, '{');
    json_object *j = brace ? json_tokener_parse(brace) : NULL, *arr;
    if (!j || !json_object_object_get_ex(j, "slaves", &arr) || json_object_array_length(arr) != 2)
        fail_msg("states --json: exit %d:\n%s", rc, out);
    json_object_put(j);
    takt_sim_destroy(sim);
    takt_sim_destroy(sim2);
}

/* pdos --json and sdos -v --json: the servo's entries and its dictionary */
static void pdos_sdos_json(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,servo");
    static char out[262144];
    int rc = run_on(sim, "ecat pdos --json -", out, sizeof out);
    json_object *j = json_tokener_parse(out), *arr, *ents, *v;
    if (rc != 0 || !j || !json_object_object_get_ex(j, "slaves", &arr) || json_object_array_length(arr) != 1 ||
        !json_object_object_get_ex(json_object_array_get_idx(arr, 0), "entries", &ents) ||
        json_object_array_length(ents) == 0)
        fail_msg("pdos --json: exit %d, want the servo's entries:\n%.2000s", rc, out);
    json_object_put(j);
    rc = run_on(sim, "ecat sdos -v --json - 1", out, sizeof out);
    j = json_tokener_parse(out);
    bool found = false;
    if (rc == 0 && j && json_object_object_get_ex(j, "objects", &arr))
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            json_object *o = json_object_array_get_idx(arr, i), *e;
            if (json_object_object_get_ex(o, "index", &v) && json_object_get_int(v) == 0x6065 &&
                json_object_object_get_ex(o, "entries", &ents) && (e = json_object_array_get_idx(ents, 0)) &&
                json_object_object_get_ex(e, "data_type", &v))
                found = !strcmp(json_object_get_string(v), "UDINT") || !strcmp(json_object_get_string(v), "UNSIGNED32");
        }
    if (!found)
        fail_msg("sdos -v --json: exit %d, want 0x6065 with its UDINT entry:\n%.3000s", rc, out);
    json_object_put(j);
    takt_sim_destroy(sim);
}

/* run --dc --json: the delays DC set-up measured, per slave (the reference's is 0, the
 * later ones on the line grow); slaves -v says no delay, a scan measures none */
static void run_dc_delays(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,el1004,servo");
    char path[] = "/tmp/takt-ecat-cli-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    static char out[65536], args[256];
    snprintf(args, sizeof args, "ecat run --dc -c 1000 -t 1 --json %s", path);
    int rc = run_on(sim, args, out, sizeof out);
    json_object *j = json_object_from_file(path), *arr;
    unlink(path);
    if (rc != 0 || !j || !json_object_object_get_ex(j, "dc_delays_ns", &arr) ||
        json_object_array_length(arr) != 3)
        fail_msg("run --dc --json: exit %d, want dc_delays_ns of 3 slaves:\n%s", rc, out);
    int64_t prev = -1;
    for (unsigned i = 0; i < 3; i++) {
        json_object *v = json_object_array_get_idx(arr, i);
        if (!v || json_object_get_int64(v) < prev || (i > 0 && json_object_get_int64(v) <= 0))
            fail_msg("dc_delays_ns %s: want 0 then growing delays", json_object_to_json_string(arr));
        prev = json_object_get_int64(v);
    }
    json_object_put(j);
    takt_sim_destroy(sim);
}

/* The alias a slave's EEPROM gives it (SII word 4, with the header checksum of word 7
 * made right again), as a configuration tool would have written it. */
static void set_alias(struct takt_sim *sim, unsigned pos, uint16_t alias)
{
    uint8_t *img = sim->sl[pos].esc.sii;
    put_le16(img + 2 * SII_W_ALIAS, alias);
    img[14] = ecat_sii_crc(img, 14);
}

/* ecat slaves as IgH's: position, ALIAS:POS, station, state, error flag; -p POS and
 * -p ALIAS:POS select one slave in slaves, states and pdos; JSON has the same fields. */
static void positions_as_igh(void **state)
{
    (void)state;
    struct takt_sim *sim = make("ek1100,el1004,el2004,el1004");
    set_alias(sim, 1, 7);
    static char out[65536];
    int rc = run_on(sim, "ecat states -t 5 PREOP", out, sizeof out);
    if (rc != 0)
        fail_msg("states PREOP: exit %d:\n%s", rc, out);
    /* position 2 then reports an error (a sync manager watchdog) */
    put_le16(sim->sl[2].esc.mem + ESC_AL_STATUS, AL_PREOP | AL_ERROR);
    put_le16(sim->sl[2].esc.mem + ESC_AL_STATUS_CODE, 0x001B);
    rc = run_on(sim, "ecat slaves", out, sizeof out);
    if (rc != 0 || !strstr(out, "0   0:0     0x1000  PREOP  +  ") ||
        !strstr(out, "1   7:0     0x1001  PREOP  +  ") || !strstr(out, "2   7:1     0x1002  PREOP  E  ") ||
        !strstr(out, "3   7:2     0x1003  PREOP  +  "))
        fail_msg("exit %d, want IgH's columns (alias 7 from position 1, E at position 2):\n%s", rc, out);
    rc = run_on(sim, "ecat slaves -p 7:2", out, sizeof out);
    if (rc != 0 || !strstr(out, "3   7:2 ") || strchr(out, '\n') != strrchr(out, '\n'))
        fail_msg("-p 7:2: exit %d, want position 3 alone:\n%s", rc, out);
    rc = run_on(sim, "ecat slaves -p 2 --json -", out, sizeof out);
    json_object *j = json_tokener_parse(out), *arr, *v;
    if (rc != 0 || !j || !json_object_object_get_ex(j, "slaves", &arr) || json_object_array_length(arr) != 1 ||
        !json_object_object_get_ex(json_object_array_get_idx(arr, 0), "alias_position", &v) ||
        strcmp(json_object_get_string(v), "7:1") ||
        !json_object_object_get_ex(json_object_array_get_idx(arr, 0), "error_flag", &v) ||
        !json_object_get_boolean(v))
        fail_msg("-p 2 --json: exit %d, want one slave, alias_position 7:1, error_flag true:\n%s", rc, out);
    json_object_put(j);
    rc = run_on(sim, "ecat states -p 3", out, sizeof out);
    if (rc != 0 || strncmp(out, "3   7:2     0x1003  PREOP", 25) || strchr(out, '\n') != strrchr(out, '\n'))
        fail_msg("states -p 3: exit %d, want position 3 alone, with its ALIAS:POS:\n%s", rc, out);
    rc = run_on(sim, "ecat states", out, sizeof out);
    if (rc != 0 || !strstr(out, "2   7:1     0x1002  PREOP  +ERR  AL status code 0x001B"))
        fail_msg("states: exit %d, want position 2 as 7:1 with its error and code:\n%s", rc, out);
    rc = run_on(sim, "ecat pdos -p 7:0", out, sizeof out);
    if (rc != 0 || !strstr(out, "slave 1 ") || strstr(out, "slave 3 "))
        fail_msg("pdos -p 7:0: exit %d, want position 1's entries alone:\n%s", rc, out);
    /* verbs whose POS is an argument take it as -p too, and ALIAS:POS */
    rc = run_on(sim, "ecat reg read -p 7:1 0x0010 2", out, sizeof out);
    if (rc != 0 || !strstr(out, "0x1002"))
        fail_msg("reg read -p 7:1 (position 2, station 0x1002): exit %d:\n%s", rc, out);
    rc = run_on(sim, "ecat sii read 7:2 -o -", out, sizeof out);
    if (rc != 0)
        fail_msg("sii read 7:2: exit %d:\n%s", rc, out);
    /* a position or alias the network does not have is an error that says so */
    rc = run_on(sim, "ecat slaves -p 4", out, sizeof out);
    if (rc == 0 || !strstr(out, "from 0 to 3"))
        fail_msg("-p 4 on 4 slaves: exit %d:\n%s", rc, out);
    rc = run_on(sim, "ecat slaves -p 9:0", out, sizeof out);
    if (rc == 0 || !strstr(out, "no slave") || !strstr(out, "alias 9"))
        fail_msg("-p 9:0 without alias 9: exit %d:\n%s", rc, out);
    takt_sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slaves_json),
        cmocka_unit_test(slaves_verbose_names),
        cmocka_unit_test(download_infers_type),
        cmocka_unit_test(dc_refusal_suggests_dc),
        cmocka_unit_test(pdos_sdos_json),
        cmocka_unit_test(run_dc_delays),
        cmocka_unit_test(positions_as_igh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
