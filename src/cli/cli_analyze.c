/* takt analyze (the on-wire analyzer) and takt capture (kernel-timestamped pcapng of
 * an interface's EtherCAT/POWERLINK traffic). */
#include <errno.h>
#include <json-c/json.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <takt/link.h>
#include "bench/analyze.h"
#include "cli/cli.h"

static int run_analyze(struct cli_ctx *c)
{
    if (c->argc != 1)
        return cli_usage_error(c, "expects one capture file (pcap or pcapng), got %d arguments", c->argc);
    struct an_opts o = { 0 };
    double v;
    const char *s;
    if ((s = cli_get(c, "nominal"))) {
        if (cli_parse_double(c, "--nominal (microseconds)", s, 1, 1e7, &v)) return 2;
        o.cycle_ns = (int64_t)(v * 1000 + 0.5);
    }
    if ((s = cli_get(c, "bin"))) {
        if (cli_parse_double(c, "--bin (microseconds)", s, 0.001, 1e6, &v)) return 2;
        o.bin_ns = (int64_t)(v * 1000 + 0.5);
    }
    if ((s = cli_get(c, "range"))) {
        if (cli_parse_double(c, "--range (microseconds)", s, 0.001, 1e7, &v)) return 2;
        o.range_ns = (int64_t)(v * 1000 + 0.5);
    }
    if ((s = cli_get(c, "lo"))) {
        if (cli_parse_double(c, "--lo (microseconds, may be negative)", s, -1e7, 1e7, &v)) return 2;
        o.lo_ns = (int64_t)(v * 1000 + (v < 0 ? -0.5 : 0.5));
    }
    if ((s = cli_get(c, "hi"))) {
        if (cli_parse_double(c, "--hi (microseconds)", s, -1e7, 1e7, &v)) return 2;
        o.hi_ns = (int64_t)(v * 1000 + (v < 0 ? -0.5 : 0.5));
    }
    if ((cli_get(c, "lo") || cli_get(c, "hi")) && !(cli_get(c, "lo") && cli_get(c, "hi") && o.hi_ns > o.lo_ns))
        return cli_usage_error(c, "--lo and --hi go together, with --hi above --lo (got %s and %s)",
                               cli_get(c, "lo") ? cli_get(c, "lo") : "none", cli_get(c, "hi") ? cli_get(c, "hi") : "none");
    if ((s = cli_get(c, "pres-timeout"))) {
        if (cli_parse_double(c, "--pres-timeout (microseconds)", s, 0.001, 1e7, &v)) return 2;
        o.pres_timeout_ns = (int64_t)(v * 1000 + 0.5);
    }
    long long t;
    if ((s = cli_get(c, "from"))) {
        if (sscanf(s, "%lld", &t) != 1 || t < 0)
            return cli_usage_error(c, "--from expects a capture time in ns since 1970, got '%s'", s);
        o.from_ns = t;
    }
    if ((s = cli_get(c, "to"))) {
        if (sscanf(s, "%lld", &t) != 1 || t <= o.from_ns)
            return cli_usage_error(c, "--to expects a capture time in ns after --from, got '%s'", s);
        o.to_ns = t;
    }
    /* without --bin the bin follows the span (about 200 bins), and without a span the
     * analyzer caps the bins a small --bin makes */
    int64_t span = o.lo_ns || o.hi_ns ? o.hi_ns - o.lo_ns : 2 * o.range_ns;
    if (o.bin_ns && span / o.bin_ns > 10000000)
        return cli_usage_error(c, "--range/--lo/--hi with --bin give more than 10 million bins; use wider bins");
    struct analyze a;
    analyze_init(&a, &o);
    int64_t prec = 1;
    char err[512] = "";
    int rc = analyze_file(&a, c->argv[0], &prec, err, sizeof err);
    if (rc) {
        analyze_free(&a);
        return cli_error(c, "%s", err);
    }
    struct an_result r;
    rc = analyze_finish(&a, &r);
    if (rc == -ENODATA) {
        cli_error(c, "'%s': no cyclic frames found (%llu frames: EtherCAT %llu, POWERLINK %llu, other %llu); "
                  "expected EtherCAT frames sent by a master or POWERLINK SoC frames", c->argv[0],
                  (unsigned long long)a.frames, (unsigned long long)a.ecat_frames,
                  (unsigned long long)a.plk_frames, (unsigned long long)a.other_frames);
        analyze_free(&a);
        return 1;
    }
    if (rc) {
        analyze_free(&a);
        return cli_error(c, "analysis failed: %s", strerror(-rc));
    }
    if (prec == 1000)
        fprintf(stderr, "takt analyze: '%s' has microsecond timestamps: precision is 1 us\n", c->argv[0]);
    else if (prec > 1)
        fprintf(stderr, "takt analyze: '%s' has coarse timestamps: precision is %lld ns\n", c->argv[0], (long long)prec);
    if (*err)   /* read up to a damaged or truncated end */
        fprintf(stderr, "takt analyze: note: %s\n", err);
    if (!c->json || strcmp(c->json, "-"))
        analyze_print(stdout, &a, &r, prec);
    if (c->json) {
        json_object *j = analyze_to_json(&a, &r, prec);
        rc = cli_write_json(c, j);
        json_object_put(j);
    }
    analyze_result_free(&r);
    analyze_free(&a);
    return rc;
}

static int run_capture(struct cli_ctx *c)
{
    const char *out = cli_get(c, "output");
    if (!c->iface || !out)
        return cli_usage_error(c, "expects -i IF and -o FILE");
    if (c->json && !strcmp(c->json, "-") && !strcmp(out, "-"))
        return cli_usage_error(c, "-o - and --json - both want stdout: give one of them a file");
    if (cli_flag(c, "all") && cli_need_root(c, "capturing all traffic"))
        return 1;
    char perr[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_create(c->iface, perr);
    if (!p)
        return cli_error(c, "%s: %s", c->iface, perr);
    pcap_set_snaplen(p, 65535);
    pcap_set_promisc(p, 1);
    pcap_set_immediate_mode(p, 1);
    pcap_set_timeout(p, 100);
    /* the kernel's receive stamps (libpcap's default "host" type on Linux: the packet
     * socket's ring timestamp), in ns where libpcap offers it */
    pcap_set_tstamp_type(p, PCAP_TSTAMP_HOST);
    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
    int rc = pcap_activate(p);
    if (rc < 0) {
        const char *why = rc == PCAP_ERROR_PERM_DENIED ? " (needs CAP_NET_RAW: run as root, or see the setcap line in README.md)"
                          : rc == PCAP_ERROR_NO_SUCH_DEVICE ? " (no such interface; `ip link` lists them)" : "";
        cli_error(c, "%s: %s%s", c->iface, pcap_geterr(p), why);
        pcap_close(p);
        return 1;
    }
    if (pcap_datalink(p) != DLT_EN10MB) {
        cli_error(c, "%s is not an Ethernet interface", c->iface);
        pcap_close(p);
        return 1;
    }
    /* the file says ns (if_tsresol 9) either way; microsecond stamps are scaled and said */
    uint64_t scale = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
    if (scale != 1)
        fprintf(stderr, "takt capture: %s: nanosecond timestamps not offered; precision 1 us\n", c->iface);
    struct bpf_program prog;
    const char *filter = cli_flag(c, "all") ? "" : "ether proto 0x88a4 or ether proto 0x88ab";
    if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) || pcap_setfilter(p, &prog)) {
        cli_error(c, "filter: %s", pcap_geterr(p));
        pcap_close(p);
        return 1;
    }
    pcap_freecode(&prog);
    if (pcap_setnonblock(p, 1, perr) < 0) {
        cli_error(c, "%s: %s", c->iface, perr);
        pcap_close(p);
        return 1;
    }
    cli_drop_caps(c, 0);   /* the socket is open and filtered: no capability is needed now */
    FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
    if (!f) {
        pcap_close(p);
        return cli_error(c, "cannot write '%s': %s", out, strerror(errno));
    }
    static uint8_t blk[TAKT_PCAPNG_EPB_MAX(65535)];
    size_t n = takt_pcapng_shb(blk, sizeof blk, "takt capture");
    fwrite(blk, 1, n, f);
    n = takt_pcapng_idb(blk, sizeof blk, c->iface, 65535);
    fwrite(blk, 1, n, f);
    fflush(f);   /* a non-empty file tells a waiting caller (takt bench) the capture is live */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long frames = 0;
    bool progress = cli_progress_enabled() && f != stdout;
    double last_shown = -1;
    while (!cli_interrupted) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (c->time_s > 0 && el >= c->time_s)
            break;
        /* poll, not a blocking read: in immediate mode libpcap may wait forever for a
         * frame, and a signal or the end of -t must end the capture cleanly */
        struct pollfd pfd = { .fd = pcap_get_selectable_fd(p), .events = POLLIN };
        if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
            break;
        struct pcap_pkthdr *h;
        const u_char *d;
        while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
            uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec * scale;
            n = takt_pcapng_epb(blk, sizeof blk, ts, d, h->caplen, 0);
            fwrite(blk, 1, n, f);
            frames++;
        }
        if (rc < 0)
            break;
        if (progress && el - last_shown >= 0.5) {
            fprintf(stderr, "\rtakt capture: %s: %llu frames, %.1f s", c->iface, frames, el);
            last_shown = el;
        }
    }
    if (progress)
        fputc('\n', stderr);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct pcap_stat st = { 0 };
    pcap_stats(p, &st);
    int status = 0;
    if (rc == PCAP_ERROR) {
        cli_error(c, "%s: %s (the capture ended there)", c->iface, pcap_geterr(p));
        status = 1;
    }
    pcap_close(p);
    if (f != stdout && fclose(f)) {
        cli_error(c, "writing '%s': %s", out, strerror(errno));
        status = 1;
    }
    fprintf(stderr, "takt capture: %llu frames written to %s, %u dropped by the kernel\n", frames, out, st.ps_drop);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "interface", json_object_new_string(c->iface));
        json_object_object_add(o, "file", json_object_new_string(out));
        json_object_object_add(o, "frames", json_object_new_uint64(frames));
        json_object_object_add(o, "kernel_drops", json_object_new_uint64(st.ps_drop));
        json_object_object_add(o, "seconds", json_object_new_double((double)(t1.tv_sec - t0.tv_sec) +
                                                                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9));
        json_object_object_add(o, "stamp_resolution_ns", json_object_new_int64((int64_t)scale));
        json_object_object_add(o, "all_frames", json_object_new_boolean(cli_flag(c, "all")));
        if (status)
            json_object_object_add(o, "error", json_object_new_boolean(1));
        if (cli_write_json(c, o))
            status = 1;
        json_object_put(o);
    }
    return status;
}

static const struct cli_opt analyze_opts[] = {
    { "nominal", 0, 1, "US", "nominal cycle in us (default: the median period)" },
    { "bin", 0, 1, "US", "deviation histogram bin width in us (default: about 1/200 of the span, 1/2/5 x 10^n ns)" },
    { "range", 0, 1, "US", "histogram covers +-US around nominal; outer bins collect the rest (default: 10 % of "
                           "the nominal cycle)" },
    { "lo", 0, 1, "US", "lower histogram limit in us (with --hi, instead of --range; e.g. --lo=-50)" },
    { "hi", 0, 1, "US", "upper histogram limit in us" },
    { "from", 0, 1, "NS", "only frames captured at or after NS (ns since 1970, e.g. a stack's window start)" },
    { "to", 0, 1, "NS", "only frames captured before NS" },
    { "pres-timeout", 0, 1, "US", "POWERLINK: the MN's PRes timeout; PRes later than it that came before the MN "
                                  "moved on are counted apart (after_timeout)" },
    { 0 }
};

static const struct cli_opt capture_opts[] = {
    { "output", 'o', 1, "FILE", "pcapng file to write (- for stdout)" },
    { "all", 0, 0, NULL, "capture every frame, not only EtherCAT and POWERLINK (root only)" },
    { 0 }
};

const struct cli_cmd cli_cmds_analyze[] = {
    { NULL, "analyze", "FILE", "on-wire analysis of a capture: cycle period, deviation histogram, loss, PRes latency",
      "Reads a pcap or pcapng file (from --pcap, takt capture, tshark or dumpcap; Ethernet or Linux\n"
      "cooked, -i any), finds the cyclic traffic - EtherCAT: the master's process-data frames, paired\n"
      "with their returns by datagram index; POWERLINK: SoC, and PReq->PRes per node - and reports the\n"
      "cycle period (PerfMsmt line, percentiles), the deviation histogram with outer bins (--range, or\n"
      "--lo/--hi), gaps, lost and late frames (late: after the master had moved on to its next\n"
      "frame) and latencies. Microsecond captures are analysed with a note that precision is 1 us.\n"
      "What a capture cannot show is said, not guessed: one taken on the master's own interface holds\n"
      "only the returns (no loss figure; the period is theirs), returns whose request is not in the\n"
      "file are counted apart, and stamps equal for request and return give no round trip.",
      CLI_JSON, analyze_opts, run_analyze, NULL },
    { NULL, "capture", NULL, "capture EtherCAT/POWERLINK frames of an interface to pcapng with kernel timestamps",
      "Writes pcapng with nanosecond kernel receive timestamps (libpcap, immediate mode) for -t\n"
      "seconds or until Ctrl-C. Needs CAP_NET_RAW, held only until the capture is set up; --all\n"
      "needs root, which the file capabilities on takt do not grant.\n"
      "takt sends with PACKET_QDISC_BYPASS, which also passes by every capture on the sending\n"
      "interface: on the master's interface this (or Wireshark, tcpdump) records only the replies,\n"
      "and on the slaves' end of a veth only the master's frames. takt analyze then reports the\n"
      "period but no loss. For both directions run the master (and takt's other senders) with\n"
      "--no-qdisc-bypass, which sends through the qdisc where captures get their copy, or use the\n"
      "master's own --pcap tap, or a mirror port or tap on the cable.\n"
      "--json: interface, file, frames written, kernel drops, seconds, stamp resolution.",
      CLI_IFACE | CLI_TIME | CLI_JSON, capture_opts, run_capture, NULL },
    { 0 }
};
