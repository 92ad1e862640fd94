/* IgH's verbs for a running master (takt ecat master, data, domains, graph, cstruct, top,
 * alias, version) against the simulator in process. The renderers get a view filled from
 * a master brought to OP over a mem pair the simulator answers synchronously; the
 * counters that depend on how many cycles ran are then set to fixed figures, so the text
 * is compared whole. The commands run as the CLI runs them (cli_sim_run.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/ecat.h>
#include <takt/link.h>
#include <takt/sim.h>
#include "cli/cli.h"
#include "cli/cli_ecat_view.h"
#include "ecat/sii.h"
#include "sim/net.h"
#include "util/wire.h"

#include "unit/cli/cli_sim_run.h"

#define DEVICES "ek1100,el2004,el1004,el3102"

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

struct rig { struct takt_sim *sim; struct takt_link *a, *b; struct takt_ecat_master *m; struct ctl_view v; };

/* The network in OP, driven by this thread; the view filled from the master with the
 * run-dependent counters fixed. */
static void rig_up(struct rig *r)
{
    r->sim = make(DEVICES);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 256, NULL, NULL), 0);
    takt_sim_attach_mem(r->sim, r->b);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    char err[256];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->m, 5 * TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_configure(r->m), 0);
    if (takt_ecat_master_set_state(r->m, TAKT_ECAT_STATE_OP, 10 * TAKT_NS_PER_S))
        fail_msg("OP: %s", takt_ecat_master_error(r->m));
    /* outputs the process image shows: EL2004 channels 1 and 3 */
    size_t n;
    takt_ecat_master_image(r->m, &n)[0] = 0x05;
    takt_ns_t now = takt_now();
    for (int i = 0; i < 5; i++)
        takt_ecat_master_cycle(r->m, now += TAKT_NS_PER_MS);
    assert_int_equal(ctl_view_fill(&r->v, r->m, TAKT_NS_PER_MS), 0);
    struct takt_ecat_master_stats *s = &r->v.st;
    s->cycles = 1000;
    s->frames_sent = 1010;
    s->frames_received = 1009;
    s->frames_lost = s->cyc_frames_lost = 1;
    s->frames_late = s->frames_duplicate = s->frames_unmatched = 0;
    s->tx_rate[0] = s->tx_rate[1] = s->tx_rate[2] = 1000;
    s->loss_rate[0] = 0, s->loss_rate[1] = 0.1, s->loss_rate[2] = 0;
    s->wkc_errors = 0;
    memset(&r->v.loop, 0, sizeof r->v.loop);
    /* the outputs the cycle published; the inputs (analog values) fixed */
    assert_int_equal(r->v.image_len, 10);
    assert_int_equal(r->v.image[0], 0x05);
    memcpy(r->v.image, (uint8_t[10]){ 0x05, 0x09, 0x00, 0x80, 0x34, 0x12, 0x00, 0x40, 0xFF, 0x7F }, 10);
    snprintf(r->v.link, sizeof r->v.link, "mem:a");
    memcpy(r->v.mac, (uint8_t[6]){ 2, 0, 0, 0, 0, 1 }, 6);
}

static void rig_down(struct rig *r)
{
    ctl_view_free(&r->v);
    takt_ecat_master_close(r->m);
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
}

/* fn's output into buf */
static void render(char *buf, size_t n, int (*fn)(const struct ctl_view *, FILE *, void *), struct rig *r,
                   void *arg)
{
    FILE *f = fmemopen(buf, n, "w");
    assert_non_null(f);
    assert_int_equal(fn(&r->v, f, arg), 0);
    fclose(f);
}

static int r_master(const struct ctl_view *v, FILE *f, void *a) { (void)a; return ecat_verb_master(v, f); }
static int r_domains(const struct ctl_view *v, FILE *f, void *a) { (void)a; return ecat_verb_domains(v, f); }
static int r_data(const struct ctl_view *v, FILE *f, void *a) { return ecat_verb_data(v, f, a != NULL); }
static int r_graph(const struct ctl_view *v, FILE *f, void *a) { (void)a; return ecat_verb_graph(v, f); }
static int r_top(const struct ctl_view *v, FILE *f, void *a) { (void)a; return ecat_verb_top(v, f, false, "T"); }

static void golden(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want))
        fail_msg("%s: got\n%s\nwant\n%s", what, got, want);
}

static const char want_master[] =
    "Master on mem:a\n"
    "  MAC address: 02:00:00:00:00:01\n"
    "  State: OP, slaves 4/4\n"
    "  Slaves: 4 scanned, 4 answering the last cycle (INIT 0, PREOP 0, BOOT 0, SAFEOP 0, OP 4, not answering 0)\n"
    "  Cycle: 1000 us, 1000 cycles\n"
    "  Frames: 1010 sent, 1009 back in time, 1 lost (1 cyclic), 0 late, 0 duplicate, 0 unmatched\n"
    "  Tx frame rate [1/s]: 1000 1000 1000 (over 1, 10, 60 s)\n"
    "  Loss rate [1/s]:     0.0 0.1 0.0\n"
    "  WKC errors: 0; slaves lost/returned: 0/0; CoE emergencies: 0\n";
static const char want_domains[] =
    "Cyclic frames: 1 datagrams, process image 10 bytes\n"
    "  Frame 0: LRW logical 0x00000000 10 bytes, slaves 1-3, WKC expected 4 seen 4, WKC errors 0\n";
static const char want_hex[] = "0000: 05 09 00 80 34 12 00 40 ff 7f\n";
static const char want_entries[] =
    "1   out    0.0  1  0x7000:01  0x1  Output\n"
    "1   out    0.1  1  0x7010:01  0x0  Output\n"
    "1   out    0.2  1  0x7020:01  0x1  Output\n"
    "1   out    0.3  1  0x7030:01  0x0  Output\n"
    "2   in     1.0  1  0x6000:01  0x1  Input\n"
    "2   in     1.1  1  0x6010:01  0x0  Input\n"
    "2   in     1.2  1  0x6020:01  0x0  Input\n"
    "2   in     1.3  1  0x6030:01  0x1  Input\n"
    "3   in     2.0  1  0x6000:01  0x0  Underrange\n"
    "3   in     2.1  1  0x6000:02  0x0  Overrange\n"
    "3   in     2.2  2  0x6000:03  0x0  Limit 1\n"
    "3   in     2.4  2  0x6000:05  0x0  Limit 2\n"
    "3   in     2.6  1  0x6000:07  0x0  Error\n"
    "3   in     3.6  1  0x6000:0F  0x0  TxPDO State\n"
    "3   in     3.7  1  0x6000:10  0x1  TxPDO Toggle\n"
    "3   in     4.0 16  0x6000:11  0x1234  Value\n"
    "3   in     6.0  1  0x6010:01  0x0  Underrange\n"
    "3   in     6.1  1  0x6010:02  0x0  Overrange\n"
    "3   in     6.2  2  0x6010:03  0x0  Limit 1\n"
    "3   in     6.4  2  0x6010:05  0x0  Limit 2\n"
    "3   in     6.6  1  0x6010:07  0x0  Error\n"
    "3   in     7.6  1  0x6010:0F  0x1  TxPDO State\n"
    "3   in     7.7  1  0x6010:10  0x0  TxPDO Toggle\n"
    "3   in     8.0 16  0x6010:11  0x7FFF  Value\n";
static const char want_graph[] =
    "/* EtherCAT network on mem:a, as scanned (takt ecat graph) */\n"
    "digraph takt {\n"
    "    rankdir=LR;\n"
    "    node [shape=box, fontname=\"Helvetica\"];\n"
    "    master [label=\"master\\nmem:a\", shape=doubleoctagon];\n"
    "    slave0 [label=\"0: takt-EK1100-like EtherCAT coupler\\n0x1000 OP\"];\n"
    "    slave1 [label=\"1: takt-EL2004-like 4Ch. digital output\\n0x1001 OP\"];\n"
    "    slave2 [label=\"2: takt-EL1004-like 4Ch. digital input\\n0x1002 OP\"];\n"
    "    slave3 [label=\"3: takt-EL3102-like 2Ch. analog input\\n0x1003 OP\"];\n"
    "    master -> slave0 [headlabel=\"0\"];\n"
    "    slave0 -> slave1 [taillabel=\"1\", headlabel=\"0\"];\n"
    "    slave1 -> slave2 [taillabel=\"1\", headlabel=\"0\"];\n"
    "    slave2 -> slave3 [taillabel=\"1\", headlabel=\"0\"];\n"
    "}\n";
static const char want_top[] =
    "--- T\n"
    "takt ecat top on mem:a    cycle 1000 us  state OP, slaves 4/4\n"
    "cycles 1000  overruns 0  frames sent 1010 lost 1 (0.1/s over 10 s)  unmatched 0  WKC errors 0\n"
    "POS  STATE   ERR AL CODE  FRAME WKC       DC DIFF    NAME\n"
    "0    OP          0x0000   0     -         -          takt-EK1100-like EtherCAT coupler\n"
    "1    OP          0x0000   0     4/4       -          takt-EL2004-like 4Ch. digital output\n"
    "2    OP          0x0000   0     4/4       -          takt-EL1004-like 4Ch. digital input\n"
    "3    OP          0x0000   0     4/4       -          takt-EL3102-like 2Ch. analog input\n";

/* Each renderer's whole text for a known network. */
static void renderers_golden(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r);
    static char buf[65536];
    render(buf, sizeof buf, r_master, &r, NULL);
    golden("master", buf, want_master);
    render(buf, sizeof buf, r_domains, &r, NULL);
    golden("domains", buf, want_domains);
    render(buf, sizeof buf, r_data, &r, NULL);
    golden("data", buf, want_hex);
    render(buf, sizeof buf, r_data, &r, "");
    golden("data --entries", buf, want_entries);
    render(buf, sizeof buf, r_graph, &r, NULL);
    golden("graph", buf, want_graph);
    render(buf, sizeof buf, r_top, &r, NULL);
    golden("top", buf, want_top);
    /* a slave dropping off: top says so, domains marks the WKC */
    r.v.slaves[3].live.present = false;
    r.v.frames[0].wkc_last = 3;
    r.v.frames[0].wkc_errors = 7;
    render(buf, sizeof buf, r_top, &r, NULL);
    if (!strstr(buf, "3    gone") || !strstr(buf, "3/4"))
        fail_msg("top with slave 3 gone:\n%s", buf);
    render(buf, sizeof buf, r_domains, &r, NULL);
    if (!strstr(buf, "seen 3 (!), WKC errors 7"))
        fail_msg("domains with a WKC error:\n%s", buf);
    /* a cycle that published nothing within the wait: the frames and image shown are an
     * older copy, and every view that shows them says so */
    render(buf, sizeof buf, r_top, &r, NULL);
    if (strstr(buf, "older copy"))
        fail_msg("top says 'older copy' of a current view:\n%s", buf);
    r.v.stale = true;
    render(buf, sizeof buf, r_top, &r, NULL);
    if (!strstr(buf, "frames and image: an older copy"))
        fail_msg("top of a stale view:\n%s", buf);
    render(buf, sizeof buf, r_domains, &r, NULL);
    if (!strstr(buf, "an older copy"))
        fail_msg("domains of a stale view:\n%s", buf);
    json_object *j = ecat_view_data_json(&r.v);
    json_object *st = NULL;
    assert_true(json_object_object_get_ex(j, "stale", &st) && json_object_get_boolean(st));
    json_object_put(j);
    rig_down(&r);
}

/* The header compiles with the system compiler, and its offsets are the image's. */
static void cstruct_compiles(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r);
    char dir[] = "/tmp/takt-cstruct-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char h[300], c[300], exe[300], cmd[1200];
    snprintf(h, sizeof h, "%s/pd.h", dir);
    snprintf(c, sizeof c, "%s/main.c", dir);
    snprintf(exe, sizeof exe, "%s/main", dir);
    FILE *f = fopen(h, "w");
    assert_non_null(f);
    assert_int_equal(ecat_verb_cstruct(&r.v, f, NULL), 0);
    fclose(f);
    f = fopen(c, "w");
    assert_non_null(f);
    fprintf(f, "#include <stddef.h>\n#include <stdio.h>\n#include \"pd.h\"\n"
            "int main(void) {\n"
            "  printf(\"%%zu %%zu %%zu %%d %%d %%zu\\n\",\n"
            "    TAKT_PD_S3_IN_OFFSET + offsetof(struct takt_pd_s3_in, Value),\n"
            "    TAKT_PD_S3_IN_OFFSET + offsetof(struct takt_pd_s3_in, Value_2),\n"
            "    TAKT_PD_S3_IN_OFFSET + offsetof(struct takt_pd_s3_in, TAKT_PD_S3_IN_TxPDO_Toggle_2_BYTE),\n"
            "    TAKT_PD_S3_IN_TxPDO_Toggle_2_BIT, TAKT_PD_S1_OUT_Output_3_BIT,\n"
            "    TAKT_PD_S2_IN_OFFSET + offsetof(struct takt_pd_s2_in, TAKT_PD_S2_IN_Input_4_BYTE));\n"
            "  return 0;\n}\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Wextra -Werror -pedantic-errors -Wno-error=pedantic "
             "-o %s %s 2>&1 && %s", exe, c, exe);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[4096] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    if (st)
        fail_msg("the header does not compile or run:\n%s", out);
    /* what the master's entries say: 0x6000:11 and 0x6010:11 of slave 3, 0x6010:10's byte and
     * bit, 0x7020:01's bit of slave 1, 0x6030:01's byte of slave 2 */
    struct takt_ecat_pd_entry v1, v2, t2, o3, i4;
    assert_int_equal(takt_ecat_pd_find(r.m, 3, NULL, 0x6000, 0x11, &v1), 0);
    assert_int_equal(takt_ecat_pd_find(r.m, 3, NULL, 0x6010, 0x11, &v2), 0);
    assert_int_equal(takt_ecat_pd_find(r.m, 3, NULL, 0x6010, 0x10, &t2), 0);
    assert_int_equal(takt_ecat_pd_find(r.m, 1, NULL, 0x7020, 0x01, &o3), 0);
    assert_int_equal(takt_ecat_pd_find(r.m, 2, NULL, 0x6030, 0x01, &i4), 0);
    char want[200];
    snprintf(want, sizeof want, "%u %u %u %u %u %u\n", v1.byte_offset, v2.byte_offset, t2.byte_offset,
             t2.bit_offset, o3.bit_offset, i4.byte_offset);
    if (strcmp(out, want))
        fail_msg("offsets from the header: %s, from the master: %s", out, want);
    rig_down(&r);
}

/* An entry of no bits (the decoder lets it through: it fits any image) at the first byte
 * of a slave's data has no bytes of its own: cstruct writes none for it and ends. */
static void cstruct_zero_bits(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r);
    bool set = false;
    for (unsigned i = 0; i < r.v.n_pd && !set; i++) {
        struct takt_ecat_pd_entry *e = &r.v.pd[i];
        if (e->position == 1 && e->output && e->index && e->byte_offset == r.v.slaves[1].id.out_offset) {
            e->bits = 0;
            e->bit_offset = 0;
            set = true;
        }
    }
    assert_true(set);
    alarm(10);                  /* a loop that does not end fails here */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(ecat_verb_cstruct(&r.v, f, NULL), 0);
    fclose(f);
    alarm(0);
    if (len > 64 * 1024)
        fail_msg("cstruct wrote %zu bytes for a 10-byte image", len);
    free(buf);
    rig_down(&r);
}

/* C identifiers from names as ESI files have them. */
static void c_identifiers(void **state)
{
    (void)state;
    static const char *cases[][2] = {
        { "Channel 1.Output", "Channel_1_Output" }, { "1st value", "_1st_value" }, { "", "entry" },
        { "--", "entry" }, { "Status__word (x)", "Status_word_x" }, { "Ä", "entry" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        ecat_c_ident(cases[i][0], buf, sizeof buf);
        if (strcmp(buf, cases[i][1]))
            fail_msg("'%s' -> '%s', want '%s'", cases[i][0], buf, cases[i][1]);
    }
}

/* The dot text is a graph Graphviz reads (dot -Tsvg where it is installed); without
 * it: every slave a node, each with exactly one edge into it, braces balanced. */
static void graph_valid(void **state)
{
    (void)state;
    struct rig r;
    rig_up(&r);
    static char buf[65536];
    render(buf, sizeof buf, r_graph, &r, NULL);
    if (system("command -v dot >/dev/null 2>&1") == 0) {
        FILE *p = popen("dot -Tsvg >/dev/null", "w");
        assert_non_null(p);
        fputs(buf, p);
        assert_int_equal(pclose(p), 0);
    }
    int depth = 0;
    for (const char *q = buf; *q; q++)
        depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
    assert_int_equal(depth, 0);
    for (unsigned i = 0; i < r.v.n_slaves; i++) {
        char node[32], edge[32];
        snprintf(node, sizeof node, "    slave%u [label=", i);
        snprintf(edge, sizeof edge, "-> slave%u [", i);
        const char *e = strstr(buf, edge);
        if (!strstr(buf, node) || !e || strstr(e + 1, edge))
            fail_msg("slave %u: want one node and one edge into it:\n%s", i, buf);
    }
    rig_down(&r);
}

/* The commands as the CLI runs them, each with a master of its own over the simulator. */
static void commands(void **state)
{
    (void)state;
    struct takt_sim *sim = make(DEVICES);
    static char out[65536];
    int rc = run_on(sim, "ecat master -t 0.2", out, sizeof out);
    if (rc || !strstr(out, "State: OP, slaves 4/4") || !strstr(out, "Tx frame rate"))
        fail_msg("ecat master: exit %d\n%s", rc, out);
    rc = run_on(sim, "ecat domains -t 0.1 --json -", out, sizeof out);
    json_object *j = json_tokener_parse(out), *arr, *d, *x;
    if (rc || !j || !json_object_object_get_ex(j, "datagrams", &arr) || json_object_array_length(arr) != 1 ||
        !(d = json_object_array_get_idx(arr, 0)) || !json_object_object_get_ex(d, "wkc_expected", &x) ||
        json_object_get_int(x) != 4)
        fail_msg("ecat domains --json: exit %d\n%s", rc, out);
    json_object_put(j);
    rc = run_on(sim, "ecat data -e -t 0.1", out, sizeof out);
    if (rc || !strstr(out, "0x7000:01") || !strstr(out, "0x6010:11"))
        fail_msg("ecat data -e: exit %d\n%s", rc, out);
    /* piped: every refresh opens with its time; -t ends it */
    rc = run_on(sim, "ecat top -t 0.3 -n 0.1", out, sizeof out);
    if (rc || strncmp(out, "--- ", 4) || !strstr(out, "POS  STATE") || strstr(out, "\033[H"))
        fail_msg("ecat top piped: exit %d\n%s", rc, out);
    rc = run_on(sim, "ecat version", out, sizeof out);
    if (rc || !strstr(out, takt_version()))
        fail_msg("ecat version: exit %d\n%s", rc, out);
    /* alias: SII word 4 and the header checksum the slave's EEPROM now holds */
    rc = run_on(sim, "ecat alias -p 2 0x1234", out, sizeof out);
    const uint8_t *img = sim->sl[2].esc.sii;
    if (rc || get_le16(img + 2 * SII_W_ALIAS) != 0x1234 || img[14] != ecat_sii_crc(img, 14))
        fail_msg("ecat alias: exit %d, word 4 0x%04X\n%s", rc, get_le16(img + 2 * SII_W_ALIAS), out);
    rc = run_on(sim, "ecat alias 2 70000", out, sizeof out);
    if (rc != 2 || !strstr(out, "ALIAS"))
        fail_msg("ecat alias out of range: exit %d\n%s", rc, out);
    if (system("command -v dot >/dev/null 2>&1") != 0) {
        rc = run_on(sim, "ecat graph --png /tmp/takt-graph-never.png", out, sizeof out);
        if (rc != 1 || !strstr(out, "needs Graphviz's dot"))
            fail_msg("ecat graph --png without dot: exit %d\n%s", rc, out);
    }
    takt_sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(renderers_golden),
        cmocka_unit_test(cstruct_compiles),
        cmocka_unit_test(cstruct_zero_bits),
        cmocka_unit_test(c_identifiers),
        cmocka_unit_test(graph_valid),
        cmocka_unit_test(commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
