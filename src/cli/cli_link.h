/* Shared between `takt link echo|bench` and `takt demo`: the echo responder and the
 * round-trip benchmark, each working on an already opened link of any kind. */
#ifndef TAKT_CLI_LINK_H
#define TAKT_CLI_LINK_H

#include <stdio.h>
#include <takt/link.h>

/* Test frame (EtherType TAKT_ETHERTYPE_TEST), after the 14-byte Ethernet header:
 * "takt" magic, kind 'Q' (request) or 'R' (reply), pad, seq (le32), send time (le64). */
#define LT_MAGIC_OFF 14
#define LT_KIND_OFF  18
#define LT_SEQ_OFF   20
#define LT_TIME_OFF  24
#define LT_MIN_LEN   32

extern const uint8_t link_bcast[6];
void link_test_frame(uint8_t *b, unsigned len, const uint8_t *dst, const uint8_t *src,
                     uint16_t type, char kind, uint32_t seq, takt_ns_t t);

struct echo_result { uint64_t received, answered, ignored; };

/* Answer every request frame on l until *stop, time_s (0 = no limit) or `max` frames
 * (0 = no limit). Returns 0 or -errno of a failing link. */
int link_echo_loop(struct takt_link *l, double time_s, uint64_t max, volatile int *stop,
                   struct echo_result *res);

/* The same answer as a mem-link responder (takt_link_mem_set_responder; ctx is a
 * struct echo_result): every request is sent back through ep inside the sender's call. */
void link_echo_responder(void *ctx, struct takt_link *ep, const struct takt_frame *f);

struct bench_args {
    struct takt_link *link;
    int64_t cycle_ns;
    double time_s;          /* > 0 */
    double perf_s;          /* 0 = no interval lines */
    int cpu, prio;
    unsigned size;          /* frame length */
    const char *json;       /* NULL, "-" or a path */
    FILE *out;              /* text results */
    volatile int *stop;
    struct bench_result *res; /* NULL, or filled at the end (--compare) */
    bool keep_caps;         /* more links to open after this run (--compare) */
};
/* One run's figures, ns: process CPU per cycle (/proc's view), the loop thread's
 * per-cycle average, round trip p50/p99 (upper edges of 1 us bins). */
struct bench_result {
    int64_t cpu, thread_cpu, rtt_p50, rtt_p99;
    uint64_t cycles, sent, answered, lost;
};
/* One frame per cycle, wait for its echo; PerfMsmt lines to out, JSON to a->json.
 * Returns 0, 1 if no echo answered at all, or -errno. */
int link_bench(const struct bench_args *a);
struct cli_ctx;
/* takt link bench --compare N: N rounds of packet:IF, ring:IF and xdp:IF (where it
 * opens), the order reversed every round, then medians, spread and CPU ratios to the
 * packet link (text, and --json). */
int cli_link_compare(struct cli_ctx *c, long rounds, unsigned size);

struct cli_ctx;
/* Open c->iface for one EtherType (--ethertype, default the test type), behind a
 * capture tap when --pcap is given. Prints the reason and returns 1 on failure. */
int cli_link_open(struct cli_ctx *c, struct takt_link **out);
/* --ethertype value or TAKT_ETHERTYPE_TEST; -1 after a usage error was printed. */
int cli_link_ethertype(struct cli_ctx *c);

#endif
