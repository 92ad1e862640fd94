/* takt link: echo, bench, send and recv, the first end-to-end commands over a real
 * link; echo and bench are also what `takt demo` runs (cli_link.h). */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>
#include <takt/rt.h>
#include <takt/wire.h>
#include "cli/cli.h"
#include "cli/cli_link.h"

const uint8_t link_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

int cli_link_ethertype(struct cli_ctx *c)
{
    const char *s = cli_get(c, "ethertype");
    long v = TAKT_ETHERTYPE_TEST;
    /* 0x0600: smallest EtherType; below it the field is an 802.3 length (IEEE 802.3 3.2.6) */
    if (s && cli_parse_long(c, "--ethertype", s, 0x600, 0xffff, &v))
        return -1;
    if (!cli_ethertype_granted((unsigned)v)) {
        char what[40];
        snprintf(what, sizeof what, "EtherType 0x%04lx", v);
        if (cli_need_root(c, what))
            return -1;
    }
    return (int)v;
}

int cli_link_open(struct cli_ctx *c, struct takt_link **out)
{
    int type = cli_link_ethertype(c);
    if (type < 0)
        return 2;
    uint16_t types[1] = { (uint16_t)type };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    o.qdisc_bypass = !cli_flag(c, "no-bypass");
    int rc = cli_open_link(c, &o, "an interface name", out);
    /* without a carrier every frame is dropped: a sender gives up, a listener warns */
    if (!rc && cli_check_carrier(c, strcmp(c->cmd->verb, "echo") && strcmp(c->cmd->verb, "recv"))) {
        takt_link_close(*out);
        return 1;
    }
    return rc;
}

static void put_mac(char *b, const uint8_t *m)
{
    snprintf(b, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* Fill a test frame: header, magic, kind, seq, time; the rest zero up to len. */
void link_test_frame(uint8_t *b, unsigned len, const uint8_t *dst, const uint8_t *src,
                       uint16_t type, char kind, uint32_t seq, takt_ns_t t)
{
    memset(b, 0, len);
    memcpy(b, dst, 6);
    memcpy(b + 6, src, 6);
    takt_put_be16(b + 12, type);
    memcpy(b + LT_MAGIC_OFF, "takt", 4);
    b[LT_KIND_OFF] = (uint8_t)kind;
    takt_put_le32(b + LT_SEQ_OFF, seq);
    takt_put_le64(b + LT_TIME_OFF, (uint64_t)t);
}

/* --- echo ---------------------------------------------------------------------- */

/* A request becomes a reply in place: back to its sender, from us, kind 'R'. Frames
 * already marked as replies are not answered, so two echoes never ping-pong. */
static bool make_reply(struct takt_link *l, struct takt_frame *f)
{
    if (f->len < LT_MIN_LEN || memcmp(f->data + LT_MAGIC_OFF, "takt", 4) || f->data[LT_KIND_OFF] == 'R')
        return false;
    memcpy(f->data, f->data + 6, 6);
    memcpy(f->data + 6, l->mac, 6);
    f->data[LT_KIND_OFF] = 'R';
    return true;
}

void link_echo_responder(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct echo_result *res = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame r = { .data = buf, .len = f->len, .cap = sizeof buf };
    memcpy(buf, f->data, f->len);
    res->received++;
    if (!make_reply(ep, &r))
        res->ignored++;
    else if (takt_link_send(ep, &r, 1) == 1)
        res->answered++;
}

int link_echo_loop(struct takt_link *l, double time_s, uint64_t max, volatile int *stop,
                   struct echo_result *res)
{
    uint8_t buf[16][TAKT_FRAME_BUF];
    struct takt_frame f[16], out[16];
    takt_ns_t end = time_s > 0 ? takt_now() + (takt_ns_t)(time_s * 1e9) : INT64_MAX;
    *res = (struct echo_result){ 0 };
    while (!*stop && takt_now() < end && (!max || res->received < max)) {
        for (int i = 0; i < 16; i++)
            f[i] = (struct takt_frame){ .data = buf[i], .cap = TAKT_FRAME_BUF };
        int n = takt_link_recv(l, f, 16, 50 * TAKT_NS_PER_MS);
        if (n < 0)
            return n;
        unsigned k = 0;
        for (int i = 0; i < n; i++) {
            res->received++;
            if (make_reply(l, &f[i]))
                out[k++] = f[i];
            else
                res->ignored++;
        }
        if (k) {
            int s = takt_link_send(l, out, k);
            if (s < 0)
                return s;
            res->answered += (uint64_t)s;
        }
    }
    return 0;
}

static int parse_count(struct cli_ctx *c, uint64_t *count)
{
    const char *s = cli_get(c, "count");
    long v = 0;
    if (s && cli_parse_long(c, "-n/--count", s, 1, 1000000000L, &v))
        return -1;
    *count = (uint64_t)v;
    return 0;
}

static json_object *stats_json(struct takt_link *l)
{
    struct takt_link_stats s;
    takt_link_get_stats(l, &s);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "tx_frames", json_object_new_uint64(s.tx_frames));
    json_object_object_add(o, "tx_errors", json_object_new_uint64(s.tx_errors));
    json_object_object_add(o, "rx_frames", json_object_new_uint64(s.rx_frames));
    json_object_object_add(o, "rx_dropped", json_object_new_uint64(s.rx_dropped));
    json_object_object_add(o, "rx_filtered", json_object_new_uint64(s.rx_filtered));
    return o;
}

static int run_echo(struct cli_ctx *c)
{
    uint64_t max;
    if (parse_count(c, &max))
        return 2;
    struct takt_link *l;
    int rc = cli_link_open(c, &l);
    if (rc)
        return rc;
    /* -a/-p: the echo's latency is half of what bench measures, so it may want RT too */
    struct takt_rt_state rts = { .dma_fd = -1 };
    bool rt = c->prio > 0 || c->cpu >= 0;
    if (rt) {
        struct takt_rt_opts ro;
        takt_rt_opts_default(&ro);
        ro.cpu = c->cpu;
        ro.prio = c->prio;
        ro.drop_caps = cli_caps_dropping();
        cli_drop_caps(c, cli_caps_for_rt(c));   /* the socket is open */
        takt_rt_setup(&ro, &rts, NULL, NULL);
    } else {
        cli_drop_caps(c, 0);
    }
    fprintf(stderr, "takt link echo: answering on %s (%s)\n", l->name, l->ops->kind);
    struct echo_result r;
    rc = link_echo_loop(l, c->time_s, max, &cli_interrupted, &r);
    if (rt)
        takt_rt_teardown(&rts);
    printf("echo %s: received %" PRIu64 ", answered %" PRIu64 ", ignored %" PRIu64 "\n",
           l->name, r.received, r.answered, r.ignored);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "interface", json_object_new_string(l->name));
    json_object_object_add(o, "received", json_object_new_uint64(r.received));
    json_object_object_add(o, "answered", json_object_new_uint64(r.answered));
    json_object_object_add(o, "ignored", json_object_new_uint64(r.ignored));
    json_object_object_add(o, "link", stats_json(l));
    takt_link_close(l);
    if (rc)
        return cli_error(c, "on %s: %s", c->iface, strerror(-rc));
    int jrc = cli_write_json(c, o);
    json_object_put(o);
    return jrc;
}

/* --- send / recv: building blocks for tests and quick checks ---------------------- */

static int run_send(struct cli_ctx *c)
{
    uint64_t count = 1;
    long size = 60, batch = 1;
    const char *s;
    if (cli_get(c, "count") && parse_count(c, &count))
        return 2;
    if ((s = cli_get(c, "size")) && cli_parse_long(c, "-s/--size (bytes)", s, LT_MIN_LEN, TAKT_ETH_MAX_FRAME, &size))
        return 2;
    if ((s = cli_get(c, "batch")) && cli_parse_long(c, "-b/--batch", s, 1, 64, &batch))
        return 2;
    int type = cli_link_ethertype(c);
    if (type < 0)
        return 2;
    struct takt_link *l;
    int rc = cli_link_open(c, &l);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);   /* the socket is open: nothing else needs a capability */
    static uint8_t buf[64][TAKT_FRAME_BUF];
    struct takt_frame f[64];
    uint64_t sent = 0;
    while (sent < count && !cli_interrupted) {
        unsigned k = (unsigned)(count - sent < (uint64_t)batch ? count - sent : (uint64_t)batch);
        for (unsigned i = 0; i < k; i++) {
            link_test_frame(buf[i], (unsigned)size, link_bcast, l->mac, (uint16_t)type, 'S', (uint32_t)(sent + i), takt_now());
            f[i] = (struct takt_frame){ .data = buf[i], .len = (uint16_t)size };
        }
        int n = takt_link_send(l, f, k);
        if (n < 0) {
            takt_link_close(l);
            return cli_error(c, "sending on %s: %s", c->iface, strerror(-n));
        }
        sent += (uint64_t)n;
    }
    printf("sent %" PRIu64 " frames of %ld bytes on %s\n", sent, size, l->name);
    takt_link_close(l);
    return 0;
}

static json_object *frame_json(const struct takt_frame *f)
{
    char src[18], dst[18];
    json_object *o = json_object_new_object();
    put_mac(dst, f->data);
    put_mac(src, f->data + 6);
    json_object_object_add(o, "ts_ns", json_object_new_int64(f->ts));
    json_object_object_add(o, "len", json_object_new_int(f->len));
    json_object_object_add(o, "ethertype", json_object_new_int(takt_get_be16(f->data + 12)));
    json_object_object_add(o, "src", json_object_new_string(src));
    json_object_object_add(o, "dst", json_object_new_string(dst));
    if (f->len >= LT_MIN_LEN && !memcmp(f->data + LT_MAGIC_OFF, "takt", 4))
        json_object_object_add(o, "seq", json_object_new_int64(takt_get_le32(f->data + LT_SEQ_OFF)));
    return o;
}

static int run_recv(struct cli_ctx *c)
{
    uint64_t max;
    if (parse_count(c, &max))
        return 2;
    struct takt_link *l;
    int rc = cli_link_open(c, &l);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);
    fprintf(stderr, "takt link recv: listening on %s\n", l->name);
    json_object *frames = json_object_new_array();
    uint8_t buf[16][TAKT_FRAME_BUF];
    struct takt_frame f[16];
    uint64_t got = 0;
    takt_ns_t end = c->time_s > 0 ? takt_now() + (takt_ns_t)(c->time_s * 1e9) : INT64_MAX;
    while (!cli_interrupted && takt_now() < end && (!max || got < max)) {
        for (int i = 0; i < 16; i++)
            f[i] = (struct takt_frame){ .data = buf[i], .cap = TAKT_FRAME_BUF };
        unsigned want = max && max - got < 16 ? (unsigned)(max - got) : 16;
        int n = takt_link_recv(l, f, want, 50 * TAKT_NS_PER_MS);
        if (n < 0) {
            rc = cli_error(c, "receiving on %s: %s", c->iface, strerror(-n));
            break;
        }
        for (int i = 0; i < n; i++, got++) {
            json_object *fo = frame_json(&f[i]);
            json_object *seq = json_object_object_get(fo, "seq");
            printf("%" PRId64 " %u 0x%04x %s %s %s\n", f[i].ts, f[i].len, takt_get_be16(f[i].data + 12),
                   json_object_get_string(json_object_object_get(fo, "src")),
                   json_object_get_string(json_object_object_get(fo, "dst")),
                   seq ? json_object_get_string(seq) : "-");
            json_object_array_add(frames, fo);
        }
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "interface", json_object_new_string(l->name));
    json_object_object_add(o, "frames", frames);
    json_object_object_add(o, "link", stats_json(l));
    takt_link_close(l);
    int jrc = cli_write_json(c, o);
    json_object_put(o);
    return rc ? rc : jrc;
}

int cli_link_bench_cmd(struct cli_ctx *c);

static const struct cli_opt echo_opts[] = {
    { "ethertype", 0, 1, "TYPE", "EtherType to answer (default 0x88b5; types other than 0x88a4, 0x88ab and 0x88b5 need root)" },
    { "count", 'n', 1, "N", "stop after N frames" },
    { "no-bypass", 0, 0, NULL, "send through the qdisc (no PACKET_QDISC_BYPASS)" },
    { 0 }
};
static const struct cli_opt send_opts[] = {
    { "ethertype", 0, 1, "TYPE", "EtherType of the frames (default 0x88b5; types other than 0x88a4, 0x88ab and 0x88b5 need root)" },
    { "count", 'n', 1, "N", "frames to send (default 1)" },
    { "size", 's', 1, "BYTES", "frame length without FCS, 32..1514 (default 60)" },
    { "batch", 'b', 1, "N", "frames per send call, 1..64 (default 1)" },
    { "no-bypass", 0, 0, NULL, "send through the qdisc (no PACKET_QDISC_BYPASS)" },
    { 0 }
};
static const struct cli_opt recv_opts[] = {
    { "ethertype", 0, 1, "TYPE", "EtherType to receive (default 0x88b5; types other than 0x88a4, 0x88ab and 0x88b5 need root)" },
    { "count", 'n', 1, "N", "stop after N frames" },
    { "no-bypass", 0, 0, NULL, "(accepted for symmetry)" },
    { 0 }
};
static const struct cli_opt bench_opts[] = {
    { "size", 's', 1, "BYTES", "frame length without FCS, 32..1514 (default 60)" },
    { "compare", 0, 1, "N", "N rounds of packet:IF, ring:IF and xdp:IF (order swapped each round, -t S each run): medians, spread, CPU ratios" },
    { "no-bypass", 0, 0, NULL, "send through the qdisc (no PACKET_QDISC_BYPASS)" },
    { 0 }
};

static const struct cli_common_help bench_help[] = {
    { CLI_TIME, "run for S seconds (default 10)" },
    { 0 }
};

const struct cli_cmd cli_cmds_link[] = {
    { "link", "echo", NULL, "answer every test frame (EtherType 0x88b5) on an interface",
      "Swaps the addresses of each request frame and sends it back, until Ctrl-C, -t or\n"
      "-n. The counterpart of 'takt link bench'; -a/-p put it on a CPU at SCHED_FIFO,\n"
      "since its latency is half of the round trip bench measures.",
      CLI_IFACE | CLI_RT | CLI_TIME | CLI_JSON | CLI_PCAP, echo_opts, run_echo, NULL },
    { "link", "bench", NULL, "round-trip benchmark: one frame per cycle, wait for its echo",
      "Sends one test frame per cycle (absolute deadlines, takt_rt_loop) to a 'takt link echo'\n"
      "on the other end, waits for the answer within the cycle, and reports round-trip\n"
      "time, wake-up deviation, task duration and CPU time per cycle as PerfMsmt lines\n"
      "(every --perf S and at the end) and JSON (--json), plus frames lost. Runs 10 s\n"
      "unless -t says otherwise.\n"
      "With -i mem the frames go over an in-process mem link pair whose other end\n"
      "answers inside the send call: the loop's floor with no kernel in the path.\n"
      "--compare N runs the bench N times per link on the same interface, alternating\n"
      "the packet, ring and xdp links (packet:IF, ring:IF, xdp:IF; the order reversed\n"
      "every round, -t S each; xdp where it can be opened, else the reason is printed),\n"
      "and prints per link the median and min-max of CPU per cycle (process and loop\n"
      "thread), round trip p50 and p99, the frames lost, and the median CPU per cycle as\n"
      "a ratio to the packet link's (JSON with --json).\n"
      "Example: takt link bench -i veth0 -c 250 -t 10 -p 80 --json out.json",
      CLI_IFACE | CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON | CLI_PCAP, bench_opts,
      cli_link_bench_cmd, bench_help },
    { "link", "send", NULL, "send test frames (for checks and tests)",
      "Sends N broadcast test frames carrying a sequence number, in batches of -b.\n"
      "The file capabilities on takt (README) cover EtherCAT, POWERLINK and takt's test\n"
      "frames (0x88b5) only: any other --ethertype needs root. CAP_NET_RAW is dropped\n"
      "once the socket is open.",
      CLI_IFACE | CLI_PCAP, send_opts, run_send, NULL },
    { "link", "recv", NULL, "print received frames: ts_ns len type src dst seq",
      "Prints one line per frame of the EtherType (kernel receive time on\n"
      "CLOCK_MONOTONIC in ns, length, EtherType, source, destination, sequence number)\n"
      "until Ctrl-C, -t or -n; --json writes them all.",
      CLI_IFACE | CLI_TIME | CLI_JSON | CLI_PCAP, recv_opts, run_recv, NULL },
    { 0 }
};
