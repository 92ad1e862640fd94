/* takt analyze: the on-wire analyzer. Fed frames with capture timestamps, it finds the
 * cyclic traffic (EtherCAT: the master's cyclic frames; POWERLINK: SoC and PReq->PRes
 * pairs) and reports period, deviation histogram, loss, gaps and PRes latency per node. */
#ifndef TAKT_BENCH_ANALYZE_H
#define TAKT_BENCH_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <takt/perf.h>

#define AN_MAX_NODES  240
#define AN_MN_NODE    240
#define AN_TS_MAX     (1LL << 62)   /* stamps are clamped to [0, 2^62] ns */
#define AN_RTT_MAX    (10LL * 1000000000)  /* a return or PRes later than this answers nothing */    /* POWERLINK MN node ID (C_ADR_MN_DEF_NODE_ID, EPSG DS 301) */

struct an_opts {
    int64_t cycle_ns;        /* nominal cycle; 0 = median of the measured periods */
    int64_t bin_ns;          /* histogram bin width; 0 = about 1/200 of the span, rounded to 1, 2 or 5 x 10^n ns */
    int64_t range_ns;        /* deviation histogram covers +-range; outer bins beyond; 0 = 10 % of the nominal cycle */
    int64_t lo_ns, hi_ns;    /* explicit limits [lo, hi) instead of +-range (used when either is set) */
    int64_t from_ns, to_ns;  /* only frames with from <= ts < to (capture clock); 0 = unbounded */
    int64_t pres_timeout_ns; /* POWERLINK: the MN's PRes timeout, to count PRes after it (0: not known) */
};

struct an_node {             /* POWERLINK: per CN */
    uint64_t preq, pres, lost;
    uint64_t late;           /* PRes that came after the MN had moved on (its timeout): the MN counts them lost */
    struct takt_perf_stat lat;    /* PReq -> PRes of the PRes in time, ns */
    uint64_t after_timeout;  /* of those, later than pres_timeout_ns after the PReq: late by the MN's stamp
                              * rule, in time on the wire because the MN moved on late (its thread woke late) */
    int64_t last_preq;       /* ts of the PReq still waiting for its PRes, 0 = none */
    bool overdue;            /* the MN sent another frame since that PReq */
};

#define AN_PEND_WAYS 4
struct an_pend {             /* a request awaiting its return */
    uint8_t cmd, mac0;
    uint32_t addr;
    int64_t ts;
    bool open;
    uint32_t key;            /* its signature (index into keys), UINT32_MAX = none */
    uint64_t seq;            /* frames of that signature sent before it */
};

/* One EtherCAT frame signature: the first process-data datagram (pd) or else the first
 * datagram: command, address, length. */
struct an_key {
    uint8_t cmd;
    bool pd;
    uint32_t addr;
    uint16_t len;
    uint64_t count;          /* frames the master sent */
    uint64_t returned;       /* of those, came back */
    uint64_t late;           /* came back after the master had sent the next frame of this signature */
    uint64_t after_cycle;    /* came back before that, but more than a nominal cycle after its send */
    int64_t *ts;             /* send timestamps */
    size_t nts, cap;
    uint64_t orphans;        /* returns of this signature whose request is not in the file */
    int64_t *ots;            /* their timestamps: the stream of a capture that holds only returns */
    size_t nots, ocap;
};

struct analyze {
    struct an_opts o;
    uint64_t frames, ecat_frames, plk_frames, other_frames, malformed;
    uint64_t outside;        /* frames outside [from_ns, to_ns) */
    int master_dir;          /* direction flag of the master's EtherCAT frames (the first one's), 0 unknown */
    int64_t prec_ns;         /* the file's timestamp resolution (0 unknown): no finer default bins */
    bool truncated;          /* the file ended inside a block (a killed capture): read up to there */
    uint64_t backwards;      /* stream frames stamped before their predecessor (taken as simultaneous) */
    /* the cyclic stream: timestamps of its frames (EtherCAT master-sent frames of the
     * chosen signature, or POWERLINK SoCs); stored so the nominal period can be the median */
    int64_t *ts;
    size_t nts, cap_ts;
    int proto;               /* 0 unknown, 1 EtherCAT, 2 POWERLINK (the first cyclic seen) */
    /* EtherCAT: every signature seen (a capture of a bring-up holds hundreds), found
     * through an open-addressing hash of (cmd, addr, len) */
    struct an_key *keys;
    unsigned nkeys, cap_keys;
    uint32_t *khash;         /* key index + 1, 0 = empty */
    unsigned khash_cap;      /* power of two */
    int stream;              /* key of the cyclic stream after analyze_finish, -1 none */
    uint64_t ecat_sent, ecat_returned, ecat_late;
    uint64_t ecat_orphans;   /* returns whose request is not in the file (never counted as sent) */
    uint64_t ecat_orphans_head; /* of those, the ones before or just after the first request: in flight at the start */
    int64_t first_sent_ts;   /* the first request's stamp, when ecat_sent > 0 */
    struct an_pend pend[256][AN_PEND_WAYS];
    struct takt_perf_stat rtt;            /* master-sent -> returned, by datagram index */
    uint64_t wkc_zero;               /* returned cyclic frames whose first datagram has WKC 0 */
    /* POWERLINK */
    struct an_node node[AN_MAX_NODES + 1];
    uint64_t soc, soa;
};

struct an_result {
    int proto;
    int64_t nominal_ns;
    uint64_t cycles;                  /* periods measured (frames of the stream - 1) */
    struct takt_perf_stat period;
    struct takt_perf_hist dev;             /* period - nominal, outer bins = under/over */
    uint64_t gaps;                    /* periods longer than 1.5 x nominal */
    uint64_t missing_cycles;          /* cycles missing in those gaps */
    uint64_t lost;                    /* EtherCAT: sent, never returned; POWERLINK: PRes missing */
    uint64_t late;                    /* returned/answered after the master moved on (it counts them lost) */
    uint64_t stream_lost, stream_late;/* EtherCAT: the same for the cyclic stream's frames only */
    uint64_t pres_after_timeout;      /* POWERLINK: sum of the nodes' after_timeout */
    uint64_t stream_after_cycle;      /* EtherCAT: stream returns more than a nominal cycle (--nominal) after
                                       * their send, before the next send: late for a master whose deadline is
                                       * its next cycle's start on the nominal grid, in time for one that waits
                                       * for its next send (its thread woke late) */
    struct takt_perf_stat rtt;
    bool replies_only;                /* EtherCAT: the capture holds the returns but not the master's frames */
    bool loss_measurable;             /* EtherCAT: requests and their returns are both in the file */
    bool rtt_measurable;              /* round trips were seen and their stamps differ (not stamped at once) */
    int64_t p50, p99, p999, p9999;    /* of the period */
    struct takt_perf_hist period_hist;     /* period histogram in bin_ns bins for the percentiles */
};

int  analyze_init(struct analyze *a, const struct an_opts *o);
void analyze_free(struct analyze *a);
/* One captured Ethernet frame (from the destination MAC) at ts ns. dir is the capture's
 * direction flag where it has one (pcapng epb_flags: 1 inbound, 2 outbound), else 0. */
enum { AN_DIR_UNKNOWN = 0, AN_DIR_IN = 1, AN_DIR_OUT = 2 };
void analyze_frame(struct analyze *a, int64_t ts, const uint8_t *f, size_t len);
void analyze_frame_dir(struct analyze *a, int64_t ts, const uint8_t *f, size_t len, int dir);
/* Compute the result; returns 0, or -ENODATA when no cyclic frames were found. */
int  analyze_finish(struct analyze *a, struct an_result *r);
void analyze_result_free(struct an_result *r);
void analyze_print(FILE *f, const struct analyze *a, const struct an_result *r, int64_t precision_ns);
void *analyze_to_json(const struct analyze *a, const struct an_result *r, int64_t precision_ns);

/* Read a pcap or pcapng file and feed every frame. precision_ns receives the file's
 * timestamp resolution (1 for ns, 1000 for us). err gets a message on failure; on
 * success it may hold a note (a truncated file was read up to its damage). */
int analyze_file(struct analyze *a, const char *path, int64_t *precision_ns, char *err, size_t errlen);
/* The same from an open stream (seekable: a file or fmemopen); name is for messages.
 * The stream is closed. */
int analyze_stream(struct analyze *a, FILE *f, const char *name, int64_t *precision_ns, char *err, size_t errlen);

#endif
