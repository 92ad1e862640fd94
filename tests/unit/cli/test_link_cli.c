/* CLI argument errors of takt link / netns / demo: exit status 2 and a message that
 * names the option and the expected value; help works; a --cdc file that is no CDC.
 * Runs the real binary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/cli/takt_run.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *bin;

/* Run `takt ARGS`, capture stdout+stderr into out; return the exit status. */
static int run(const char *args, char *out, size_t n)
{
    return takt_run(bin, args, "2>&1", out, n);
}

#define expect(...) takt_expect(bin, __VA_ARGS__)

static void bad_values(void **state)
{
    expect("link bench -i x -c abc", 2, "-c/--cycle", "'abc'");
    expect("link bench -i x -c 5", 2, "-c/--cycle", "at least 50");
    expect("link bench -i x -t -1", 2, "-t/--time", "'-1'");
    expect("link bench -i x -p 100", 2, "-p/--prio", "1 to 99");
    expect("link bench -i x -a cpu0", 2, "-a/--cpu", "'cpu0'");
    expect("link bench -i x --perf=0", 2, "--perf", "'0'");
    expect("link bench -i x -s 10", 2, "-s/--size", "32 to 1514");
    expect("link echo -i x --ethertype 0x10", 2, "--ethertype", "'0x10'");
    expect("link echo -i x -n 0", 2, "-n/--count", "'0'");
    expect("link send -i x -b 65", 2, "-b/--batch", "1 to 64");
    expect("demo -t zero", 2, "-t/--time", "'zero'");
}

static void bad_usage(void **state)
{
    expect("link bench", 2, "-i/--iface", "interface name");
    expect("link echo --bogus", 2, "unknown option", "--bogus");
    expect("link bench -i", 2, "-i", "expects a value");
    expect("link nosuch", 2, "unknown verb 'nosuch'", "echo");
    expect("link", 2, "a verb is expected", NULL);
    expect("netns exec c -- true", 2, "side expects 'a' or 'b'", "'c'");
    expect("netns run", 2, "a command to run is expected", NULL);
    expect("netns exec b", 2, "expected a side", NULL);
}

static void runtime_errors(void **state)
{
    /* a well-formed command against a missing interface: exit 1, name and advice */
    expect("link echo -i tk-nosuch0 -t 1", 1, "no such interface 'tk-nosuch0'", "ip -br link");
    expect("link bench -i packet:tk-nosuch0 -t 1", 1, "tk-nosuch0", NULL);
    expect("link bench -i bogus:eth0 -t 1", 1, "unknown link kind", NULL);
}

/* Where namespaces are impossible (forced here): netns says why and exits 77, the demo
 * falls back to the mem link and still measures. */
static void without_namespaces(void **state)
{
    setenv("TAKT_NETNS", "off", 1);
    expect("netns check", 77, "unavailable", "TAKT_NETNS=off");
    expect("netns run -- true", 77, "TAKT_NETNS=off", NULL);
    /* runs long enough that a loaded host still brings all 40 slaves to OP (the summary
     * says the state the slaves reported) and holds most 1 ms cycles (a run where most
     * cycles overran ends with exit 1) */
    expect("demo -t 1 -c 1000", 0, "falling back to the in-process mem link", "PerfMsmt 'Task Duration'");
    unsetenv("TAKT_NETNS");
    expect("demo --mem -t 1", 0, "mem link", "Summary: state OP, slaves 40/40");
}

static unsigned count(const char *out, const char *s)
{
    unsigned n = 0;
    for (const char *p = strstr(out, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

/* The demo's output reads as a log: one state line per --perf interval (after that
 * interval's PerfMsmt lines), "all in OP" once, and the run's totals under a label of
 * their own, after the last interval and before the summary. */
static void demo_output_once(void **state)
{
    static char out[65536];
    int rc = run("demo --mem -t 2.5 -c 1000 --perf=1", out, sizeof out);
    const char *total = strstr(out, "--- PerfMsmt over the whole run (all cycles) ---");
    const char *last_state = NULL, *summary = strstr(out, "Summary: state");
    for (const char *p = strstr(out, "\nState "); p; p = strstr(p + 1, "\nState "))
        last_state = p;
    unsigned blocks = count(out, "PerfMsmt 'Task Duration'");
    /* exit 1: most cycles overran on a loaded host, which says nothing about the output;
     * an interval whose snapshot timed out prints its state line without PerfMsmt lines,
     * so the state lines are at most one per interval, not exactly */
    unsigned states = count(out, "\nState ");
    if ((rc != 0 && rc != 1) || !total || !summary || count(out, "--- PerfMsmt over the whole run") != 1 ||
        (last_state && last_state > total) || total > summary ||
        count(out, "all 40 slaves in OP after") != 1 || states < 1 || states > 2)
        fail_msg("exit %d; want the totals labelled once between the last state line and the summary, "
                 "one state line per interval (%u blocks, %u state lines), OP said once:\n%s", rc,
                 blocks, states, out);
}

/* --ring: the demo's ring breaks in its middle and is mended while the cycle runs; both
 * are reported at their place, and no frame is lost (the simulator answers in the send
 * call: a loaded host delays cycles, it loses no reply). */
static void demo_ring(void **state)
{
    static char out[65536];
    int rc = run("demo --ring -t 3 -c 1000", out, sizeof out);
    /* a frame counted lost must be one that came back late (a stalled host: the
     * simulator serves the ring from its own thread, and a sanitizer build is slow),
     * never one the break cost */
    const char *f = strstr(out, "  frames: ");
    unsigned long sent = 0, back = 0, lost = 0, cyc = 0, late = 0;
    bool counted = f && sscanf(f, "  frames: %lu sent, %lu back in time, %lu lost (%lu cyclic; %lu of the lost came back late",
                               &sent, &back, &lost, &cyc, &late) == 5;
    if ((rc != 0 && rc != 1) ||
        !strstr(out, "cable redundancy: ring broken between slave 19 and slave 20") ||
        !strstr(out, "cable redundancy: ring closed again") ||
        !counted || lost != late || !strstr(out, "WKC errors: 0;") ||
        !strstr(out, "1 breaks, 1 heals"))
        fail_msg("exit %d; want the break between slaves 19 and 20 and its mending reported, "
                 "no frame lost (%lu lost, %lu of them late), no WKC error:\n%s", rc, lost, late,
                 f ? f : out);
}

/* -i mem: the bench over an in-process pair, its far end answering in the send call */
static void bench_mem(void **state)
{
    expect("link bench -i mem -c 500 -t 0.5", 0, "--- mem:a (mem), cycle 500.0 us", "PerfMsmt 'Round Trip'");
    expect("link bench -i mem -c 1000 -t 0.3 --json -", 0, "\"link\":\"mem\"", "\"answered\"");
}

static void help(void **state)
{
    expect("help link bench", 0, "Usage: takt link bench", "--cycle");
    expect("link bench --help", 0, "Usage: takt link bench", "--perf");
    expect("help link", 0, "echo", "bench");
    expect("help demo", 0, "Usage: takt demo", "namespaces");
    expect("help netns run", 0, "TAKT_IF_A", NULL);
}

/* openCONFIGURATOR's text rendering (mnobd.txt) given as --cdc: said to be no CDC, and
 * the binary mnobd.cdc beside it named once it is there. */
static void cdc_text(void **state)
{
    (void)state;
    char dir[] = "/tmp/takt_cdc_XXXXXX", txt[64], cdc[64], args[256];
    assert_non_null(mkdtemp(dir));
    snprintf(txt, sizeof txt, "%s/mnobd.txt", dir);
    snprintf(cdc, sizeof cdc, "%s/mnobd.cdc", dir);
    FILE *f = fopen(txt, "w");
    assert_non_null(f);
    fputs("NumberOfEntries\n0x00000001\n", f);
    fclose(f);
    snprintf(args, sizeof args, "plk mn -i lo --cdc %s -t 1", txt);
    expect(args, 1, "mnobd.txt is not a concise DCF: its first 4 bytes give 1651340622 entries, "
           "more than its size allows", "--cdc expects the binary mnobd.cdc");
    f = fopen(cdc, "wb");     /* one entry: 0x1006/0 = 1000 us */
    assert_non_null(f);
    fwrite("\x01\x00\x00\x00\x06\x10\x00\x04\x00\x00\x00\xe8\x03\x00\x00", 1, 15, f);
    fclose(f);
    char want[128];
    snprintf(want, sizeof want, "use --cdc %s,", cdc);
    expect(args, 1, "mnobd.txt is not a concise DCF", want);
    unlink(txt);
    unlink(cdc);
    rmdir(dir);
}

/* A --config file that cannot be read: its path said once, then the reason. */
static void config_path_once(void **state)
{
    (void)state;
    char out[4096];
    int rc = run("plk mn -i lo --config /nonexistent/takt.conf -t 1", out, sizeof out);
    assert_int_equal(rc, 1);
    char *first = strstr(out, "/nonexistent/takt.conf");
    if (!first || strstr(first + 1, "/nonexistent/takt.conf") || !strstr(out, "No such file"))
        fail_msg("want the path once and the reason, got: %s", out);
}

int main(void)
{
    bin = getenv("TAKT_BIN");
    if (!bin || !*bin) {
        fprintf(stderr, "SKIP: TAKT_BIN is not set (run through ctest)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_values),
        cmocka_unit_test(bad_usage),
        cmocka_unit_test(runtime_errors),
        cmocka_unit_test(without_namespaces),
        cmocka_unit_test(bench_mem),
        cmocka_unit_test(demo_output_once),
        cmocka_unit_test(demo_ring),
        cmocka_unit_test(help),
        cmocka_unit_test(cdc_text),
        cmocka_unit_test(config_path_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
