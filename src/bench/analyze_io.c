/* takt analyze, file side and output: reads pcap/pcapng through libpcap at nanosecond
 * precision, tells the file's real timestamp resolution (so a microsecond capture is
 * reported as such), and prints the result as text (PerfMsmt lines) and JSON. */
#include "bench/analyze.h"

#include <errno.h>
#include <json-c/json.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "util/wire.h"

static uint32_t rd32(const uint8_t *p, bool be) { return be ? (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] : get_le32(p); }
static uint16_t rd16(const uint8_t *p, bool be) { return be ? (uint16_t)(p[0] << 8 | p[1]) : get_le16(p); }

/* Resolution (ns per tick, at least 1) and link types of a capture, from its headers
 * (draft-ietf-opsawg-pcapng and the libpcap file format: pcap magic, pcapng IDB option if_tsresol code 9). */
static int sniff(FILE *f, const char *path, int64_t *res_ns, char *err, size_t errlen)
{
    uint8_t h[24];
    if (fread(h, 1, sizeof h, f) != sizeof h)
        return snprintf(err, errlen, "'%s' is too short for a pcap or pcapng file", path), -EINVAL;
    uint32_t m = get_le32(h);
    int rc = 0;
    if (m == 0xA1B2C3D4 || m == 0xD4C3B2A1) {
        *res_ns = 1000;
    } else if (m == 0xA1B23C4D || m == 0x4D3CB2A1) {
        *res_ns = 1;
    } else if (m == 0x0A0D0D0A) {
        bool be = get_le32(h + 8) != 0x1A2B3C4D;
        int64_t worst = 0;
        int linktype = -1;
        long pos = 0;
        *res_ns = 1000;
        for (int blocks = 0; blocks < 100000; blocks++) {
            uint8_t bh[8];
            if (fseek(f, pos, SEEK_SET) || fread(bh, 1, 8, f) != 8)
                break;
            uint32_t type = rd32(bh, be), blen = rd32(bh + 4, be);
            if (blen < 12 || blen > (64u << 20))
                break;
            if (type == 1 && blen <= 4096) {  /* IDB: linktype u16, reserved u16, snaplen u32, options */
                uint8_t b[4096];
                if (fseek(f, pos, SEEK_SET) || fread(b, 1, blen, f) != blen)
                    break;
                int lt = rd16(b + 8, be);
                if (linktype >= 0 && lt != linktype) {
                    snprintf(err, errlen, "'%s' mixes link types %d and %d; expected one Ethernet interface "
                             "(split it with editcap or capture one interface)", path, linktype, lt);
                    return -EINVAL;
                }
                linktype = lt;
                int64_t res = 1000;   /* default: microseconds */
                for (uint32_t o = 16; o + 4 <= blen - 4;) {
                    uint16_t code = rd16(b + o, be), olen = rd16(b + o + 2, be);
                    if (code == 0)
                        break;
                    if (code == 9 && olen >= 1) {
                        uint8_t v = b[o + 4];
                        if (v & 0x80) {          /* 2^-n s */
                            int n = v & 0x7F;
                            res = n >= 30 ? 1 : (int64_t)(1000000000.0 / (double)(1ull << n) + 0.5);
                        } else {                  /* 10^-n s */
                            res = 1;
                            for (int k = v; k < 9; k++)
                                res *= 10;
                        }
                        if (res < 1)
                            res = 1;
                    }
                    o += 4 + ((olen + 3u) & ~3u);
                }
                if (res > worst)
                    worst = res;
            }
            pos += blen;
        }
        if (worst)
            *res_ns = worst;
    } else {
        snprintf(err, errlen, "'%s' is not a pcap or pcapng file (first word 0x%08x)", path, m);
        rc = -EINVAL;
    }
    return rc;
}

/* Link types a capture may have: Ethernet, or Linux "cooked" headers (tshark/dumpcap
 * -i any), which carry the EtherType and the sender's MAC but no destination. */
enum { LT_ETHERNET = 1, LT_SLL = 113, LT_SLL2 = 276, CONV_CAP = 65536 + 16 };
static bool link_ok(int lt) { return lt == LT_ETHERNET || lt == LT_SLL || lt == LT_SLL2; }

/* Feed one frame; a cooked one is rewritten into conv as an Ethernet frame (destination
 * zero, source = the sender's address, same EtherType). Its packet type is not used for
 * the direction: at the receiving end a broadcast EtherCAT frame is "broadcast", not
 * "incoming", so the analyzer's own request/return rules are safer. */
static void feed(struct analyze *a, int lt, int64_t ts, const uint8_t *d, size_t len, int dir, uint8_t *conv)
{
    if (lt == LT_ETHERNET) {
        analyze_frame_dir(a, ts, d, len, dir);
        return;
    }
    /* SLL: pkttype, hatype, halen, addr[8], protocol (16 B); SLL2: protocol, reserved,
     * ifindex, hatype, pkttype, halen, addr[8] (20 B); all big-endian (libpcap sll.h) */
    size_t hdr = lt == LT_SLL ? 16 : 20;
    if (len < hdr) {
        analyze_frame_dir(a, ts, d, 0, 0);   /* counted as malformed */
        return;
    }
    size_t alen = lt == LT_SLL ? get_be16(d + 4) : d[11];
    const uint8_t *addr = d + (lt == LT_SLL ? 6 : 12);
    size_t n = len - hdr > CONV_CAP - 14 ? CONV_CAP - 14 : len - hdr;
    memset(conv, 0, 12);
    if (alen >= 6)
        memcpy(conv + 6, addr, 6);
    memcpy(conv + 12, d + (lt == LT_SLL ? 14 : 0), 2);
    memcpy(conv + 14, d + hdr, n);
    analyze_frame_dir(a, ts, conv, n + 14, 0);
}

/* pcapng read by takt itself: libpcap 1.10 does not hand out the EPB flags, and the
 * direction they carry (takt's --pcap tap writes it) tells requests from returns. */
enum { BLOCK_CAP = 1 << 18 };   /* any Ethernet frame's block; larger blocks are skipped */

/* One pcapng interface: link type, tick (decimal 10^-v s as an exact ns multiplier or
 * divisor, binary 2^-n s as a shift: floating point is off by hundreds of ns at 2^50
 * ticks) and if_tsoffset. */
struct ng_if {
    int lt;
    uint64_t mul, div;
    int shift;          /* -1: decimal */
    int64_t off_ns;
};

/* The next option of a block at offset *o (advanced past it); false at opt_endofopt or
 * where an option would run past the block. */
struct ng_opt { uint16_t code, len; const uint8_t *val; };

static bool ng_opt(const uint8_t *b, uint32_t blen, bool be, uint32_t *o, struct ng_opt *x)
{
    if (*o + 4 > blen - 4)
        return false;
    x->code = rd16(b + *o, be);
    x->len = rd16(b + *o + 2, be);
    if (x->code == 0 || *o + 4 + x->len > blen - 4)
        return false;
    x->val = b + *o + 4;
    *o += 4 + ((x->len + 3u) & ~3u);
    return true;
}

static void idb_parse(const uint8_t *b, uint32_t blen, bool be, struct ng_if *i)
{
    *i = (struct ng_if){ .lt = rd16(b + 8, be), .mul = 1000, .div = 1, .shift = -1 };  /* default: us */
    struct ng_opt x;
    for (uint32_t o = 16; ng_opt(b, blen, be, &o, &x);) {
        const uint8_t *v = x.val;
        if (x.code == 9 && x.len >= 1) {          /* if_tsresol */
            i->mul = i->div = 1;
            i->shift = (v[0] & 0x80) ? (v[0] & 0x7F) : -1;
            for (int k = 9; !(v[0] & 0x80) && k > v[0]; k--)
                i->mul *= 10;
            for (int k = 9; !(v[0] & 0x80) && k < v[0] && k < 27; k++)
                i->div *= 10;   /* beyond 10^-27 s every tick count is 0 ns anyway */
            if (i->div > 1000000000000000000ull)
                i->div = 1000000000000000000ull;
        }
        if (x.code == 14 && x.len == 8) {         /* if_tsoffset, s (pcapng draft 4.2) */
            int64_t sec = (int64_t)((uint64_t)rd32(v + (be ? 0 : 4), be) << 32 | rd32(v + (be ? 4 : 0), be));
            if (sec > -(INT64_MAX / 1000000000) && sec < INT64_MAX / 1000000000 / 2)
                i->off_ns = sec * 1000000000;
        }
    }
}

static int64_t ng_ts(const struct ng_if *i, uint64_t ticks)
{
    unsigned __int128 ns = (unsigned __int128)ticks * i->mul;
    if (i->shift >= 0)
        ns = i->shift < 127 ? (ns * 1000000000u) >> i->shift : 0;
    ns /= i->div;
    return (ns > (unsigned __int128)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)ns) + i->off_ns;
}

/* Direction from the EPB's epb_flags (1 inbound, 2 outbound), 0 when absent. */
static int epb_dir(const uint8_t *b, uint32_t blen, uint32_t caplen, bool be)
{
    int dir = 0;
    struct ng_opt x;
    for (uint32_t o = 28 + ((caplen + 3u) & ~3u); ng_opt(b, blen, be, &o, &x);)
        if (x.code == 2 && x.len == 4)
            dir = (int)(rd32(x.val, be) & 3);
    return dir;
}

static int read_pcapng(struct analyze *a, FILE *f, uint8_t *b, uint8_t *conv, const char *path, char *err,
                       size_t errlen)
{
    struct ng_if ifs[64];
    bool be = false;
    int nif = 0;
    for (;;) {
        uint8_t bh[8];
        size_t got = fread(bh, 1, 8, f);
        if (got == 0)
            break;
        uint32_t type = be ? rd32(bh, true) : get_le32(bh);
        if (type == 0x0A0D0D0A) {  /* SHB: its byte-order magic decides how to read the rest */
            uint8_t m[4];
            if (got == 8 && fread(m, 1, 4, f) == 4)
                be = get_le32(m) != 0x1A2B3C4D;
            fseek(f, -12, SEEK_CUR);
            if (fread(bh, 1, 8, f) != 8)
                break;
            nif = 0;
        }
        uint32_t blen = rd32(bh + 4, be);
        if (got != 8 || blen < 12 || blen % 4 || blen > (64u << 20)) {
            a->truncated = got != 0;
            break;
        }
        if (blen > BLOCK_CAP) {
            if (fseek(f, (long)blen - 8, SEEK_CUR)) {
                a->truncated = true;
                break;
            }
            continue;
        }
        memcpy(b, bh, 8);
        if (fread(b + 8, 1, blen - 8, f) != blen - 8) {
            a->truncated = true;
            break;
        }
        type = rd32(b, be);
        if (type == 1 && nif < 64) {          /* IDB */
            idb_parse(b, blen, be, &ifs[nif]);
            if (!link_ok(ifs[nif].lt))
                return snprintf(err, errlen, "'%s': interface %d has link type %d; expected Ethernet (1) or Linux "
                                "cooked (113, 276)", path, nif, ifs[nif].lt), -EINVAL;
            nif++;
        } else if (type == 6 && blen >= 32) {  /* EPB */
            uint32_t ifid = rd32(b + 8, be), caplen = rd32(b + 20, be);
            if (ifid >= (uint32_t)nif || caplen > blen - 32)   /* blen >= 32: no wrap-around */
                return snprintf(err, errlen, "'%s' is damaged after %llu frames: a packet block names interface %u "
                                "or is longer than its block", path, (unsigned long long)a->frames, ifid), -EINVAL;
            int64_t ts = ng_ts(&ifs[ifid], (uint64_t)rd32(b + 12, be) << 32 | rd32(b + 16, be));
            feed(a, ifs[ifid].lt, ts, b + 28, caplen, epb_dir(b, blen, caplen, be), conv);
        }
    }
    if (a->truncated && !a->frames)
        return snprintf(err, errlen, "'%s' ends inside its first block", path), -EINVAL;
    if (a->truncated)
        snprintf(err, errlen, "'%s' is truncated after %llu frames", path, (unsigned long long)a->frames);
    return 0;
}

int analyze_file(struct analyze *a, const char *path, int64_t *precision_ns, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(e));
        return -e;
    }
    return analyze_stream(a, f, path, precision_ns, err, errlen);
}

static int read_pcap(struct analyze *a, FILE *f, uint8_t *conv, const char *path, char *err, size_t errlen)
{
    char perr[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, perr);
    if (!p) {
        fclose(f);
        return snprintf(err, errlen, "cannot read '%s': %s", path, perr), -EINVAL;
    }
    int lt = pcap_datalink(p);
    if (!link_ok(lt)) {
        snprintf(err, errlen, "'%s' has link type %s; expected Ethernet (EN10MB) or Linux cooked (SLL, SLL2)", path,
                 pcap_datalink_val_to_name(pcap_datalink(p)) ? pcap_datalink_val_to_name(pcap_datalink(p)) : "?");
        pcap_close(p);
        return -EINVAL;
    }
    struct pcap_pkthdr *h;
    const u_char *data;
    int rc;
    while ((rc = pcap_next_ex(p, &h, &data)) == 1)
        feed(a, lt, (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec, data, h->caplen, 0, conv);
    if (rc == -1) {
        /* a capture killed while writing ends inside a record: keep what came before it */
        bool trunc = strstr(pcap_geterr(p), "truncated") != NULL;
        snprintf(err, errlen, "'%s' is %s after %llu frames: %s", path, trunc ? "truncated" : "damaged",
                 (unsigned long long)a->frames, pcap_geterr(p));
        pcap_close(p);
        if (trunc && a->frames) {
            a->truncated = true;
            return 0;
        }
        return -EINVAL;
    }
    pcap_close(p);   /* closes f */
    return 0;
}

int analyze_stream(struct analyze *a, FILE *f, const char *path, int64_t *precision_ns, char *err, size_t errlen)
{
    int rc = sniff(f, path, precision_ns, err, errlen);
    if (!rc)
        a->prec_ns = *precision_ns;
    uint8_t m[4] = { 0 };
    if (rc || fseek(f, 0, SEEK_SET) || fread(m, 1, 4, f) != 4 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        if (!rc)
            snprintf(err, errlen, "cannot read '%s' again from its start", path);
        return rc ? rc : -EIO;
    }
    uint8_t *conv = malloc(CONV_CAP);
    if (!conv) {
        fclose(f);
        return snprintf(err, errlen, "out of memory reading '%s'", path), -ENOMEM;
    }
    if (get_le32(m) != 0x0A0D0D0A) {
        rc = read_pcap(a, f, conv, path, err, errlen);
        free(conv);
        return rc;
    }
    uint8_t *b = malloc(BLOCK_CAP);
    rc = b ? read_pcapng(a, f, b, conv, path, err, errlen) : -ENOMEM;
    if (!b)
        snprintf(err, errlen, "out of memory reading '%s'", path);
    free(b);
    free(conv);
    fclose(f);
    return rc;
}

/* The other process-data frame signatures, most frequent first (a second cyclic frame,
 * another group's): up to max indices into out. */
/* Frames of a signature in the file: sent, and returns without their request. */
static uint64_t key_seen(const struct an_key *k) { return k->count + k->orphans; }

static unsigned other_streams(const struct analyze *a, unsigned *out, unsigned max)
{
    unsigned n = 0;
    for (unsigned k = 0; k < a->nkeys; k++) {
        if (!a->keys[k].pd || (int)k == a->stream)
            continue;
        unsigned i = n < max ? n++ : max;   /* insertion into the top max */
        while (i > 0 && key_seen(&a->keys[out[i - 1]]) < key_seen(&a->keys[k])) {
            if (i < max)
                out[i] = out[i - 1];
            i--;
        }
        if (i < max)
            out[i] = k;
    }
    return n;
}

static const char *proto_name(int p) { return p == 1 ? "EtherCAT" : p == 2 ? "POWERLINK" : "none"; }

void analyze_print(FILE *f, const struct analyze *a, const struct an_result *r, int64_t prec)
{
    fprintf(f, "frames: %llu (EtherCAT %llu, POWERLINK %llu, other %llu, malformed %llu); timestamps: %s\n",
            (unsigned long long)a->frames, (unsigned long long)a->ecat_frames, (unsigned long long)a->plk_frames,
            (unsigned long long)a->other_frames, (unsigned long long)a->malformed,
            prec <= 1 ? "ns" : prec == 1000 ? "us (precision 1 us)" : "coarse (precision above 1 us)");
    if (a->truncated)
        fprintf(f, "note: the file ends inside a frame block (capture killed while writing); analysed up to there\n");
    if (a->backwards)
        fprintf(f, "note: %llu cyclic frames were stamped before their predecessor (a merged or re-ordered "
                "capture); taken as simultaneous with it\n", (unsigned long long)a->backwards);
    if (r->proto == 1) {
        const struct an_key *k = &a->keys[a->stream];
        fprintf(f, "cyclic stream: EtherCAT %s %s addr 0x%08x len %u, %llu %s\n",
                k->pd ? "frames with process data," : "frames, first datagram", ecat_cmd_name(k->cmd),
                k->addr, k->len, (unsigned long long)(r->replies_only ? k->orphans : k->count),
                r->replies_only ? "returns (the master's frames are not in the file)" : "frames");
        if (!k->pd)
            fprintf(f, "note: no frame carries process data (LRD/LWR/LRW); the most frequent frame is taken as the "
                       "stream, which may not be cyclic at all (a bring-up or mailbox session)\n");
        unsigned o[5], no = other_streams(a, o, 5);
        for (unsigned i = 0; i < no; i++)
            fprintf(f, "other process-data frames: %s addr 0x%08x len %u, %llu frames\n", ecat_cmd_name(a->keys[o[i]].cmd),
                    a->keys[o[i]].addr, a->keys[o[i]].len, (unsigned long long)key_seen(&a->keys[o[i]]));
    } else
        fprintf(f, "cyclic stream: POWERLINK SoC, %llu frames\n", (unsigned long long)a->soc);
    fprintf(f, "nominal cycle: %.1f us%s\n", (double)r->nominal_ns / 1000.0, a->o.cycle_ns ? "" : " (median period)");
    takt_perf_print_line(f, "Cycle Time", &r->period);
    fprintf(f, "Cycle Time percentiles [usec]: p50 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f\n",
            (double)r->p50 / 1000, (double)r->p99 / 1000, (double)r->p999 / 1000, (double)r->p9999 / 1000);
    fprintf(f, "deviation from nominal, bins of %.1f us over [%+.1f, %+.1f) us (outer bins collect everything "
            "beyond):\n", (double)r->dev.bin / 1000, (double)r->dev.lo / 1000,
            (double)(r->dev.lo + r->dev.bin * (int64_t)r->dev.nbins) / 1000);
    fprintf(f, "  %12s  %llu\n", "< lower", (unsigned long long)r->dev.under);
    for (uint32_t i = 0; i < r->dev.nbins; i++)
        if (r->dev.bins[i])
            fprintf(f, "  %+9.1f us  %llu\n", (double)(r->dev.lo + (int64_t)i * r->dev.bin) / 1000,
                    (unsigned long long)r->dev.bins[i]);
    fprintf(f, "  %12s  %llu\n", ">= upper", (unsigned long long)r->dev.over);
    fprintf(f, "gaps: %llu (%llu cycles missing)\n", (unsigned long long)r->gaps, (unsigned long long)r->missing_cycles);
    if (r->proto == 1) {
        if (a->ecat_orphans_head && !r->replies_only)
            fprintf(f, "%llu returns without their request in the file (capture started while they were in flight); "
                    "not counted as sent\n", (unsigned long long)a->ecat_orphans_head);
        if (a->ecat_orphans > a->ecat_orphans_head && !r->replies_only)
            fprintf(f, "%llu more returns without their request in the file (their request was not captured); "
                    "not counted as sent\n", (unsigned long long)(a->ecat_orphans - a->ecat_orphans_head));
        if (r->loss_measurable) {
            const struct an_key *k = &a->keys[a->stream];
            fprintf(f, "frames lost: %llu of %llu sent; late: %llu (returned after the master had sent the next frame "
                    "of their kind, which a master counts as lost)\n", (unsigned long long)r->lost,
                    (unsigned long long)a->ecat_sent, (unsigned long long)r->late);
            fprintf(f, "cyclic stream: %llu sent, %llu returned, %llu late, %llu lost\n", (unsigned long long)k->count,
                    (unsigned long long)k->returned, (unsigned long long)r->stream_late,
                    (unsigned long long)r->stream_lost);
            if (r->stream_after_cycle)
                fprintf(f, "cyclic stream: %llu returned more than a nominal cycle after their send, before the next "
                        "send (late for a master that keeps its deadlines on the nominal grid)\n",
                        (unsigned long long)r->stream_after_cycle);
        } else if (r->replies_only) {
            fprintf(f, "frames lost: not measurable: the capture holds only the replies (the master's frames bypass "
                    "the capture on its own interface); %llu returns without their request, %llu frames that look "
                    "like requests. The period above is the returns'. For loss and round trips capture both "
                    "directions: the master's --pcap tap, or a mirror port or tap on the cable\n",
                    (unsigned long long)a->ecat_orphans, (unsigned long long)a->ecat_sent);
        } else {
            fprintf(f, "frames lost: not measurable: the capture holds only the master's frames, no returns (taken "
                    "where the replies' sender bypasses the capture, e.g. at the slaves' end of a veth). For loss "
                    "and round trips capture both directions: the master's --pcap tap, or a mirror port or tap on "
                    "the cable\n");
        }
        if (r->rtt_measurable)
            takt_perf_print_line(f, "Round Trip", &r->rtt);
        else if (r->rtt.count)
            fprintf(f, "Round Trip: not measurable: each of the %llu returns is stamped with its request's time (a "
                    "capture that stamps both at once, or too coarsely to show a round trip)\n",
                    (unsigned long long)r->rtt.count);
    } else {
        bool any_pres = false;
        for (int n = 1; n <= AN_MAX_NODES; n++)
            any_pres |= a->node[n].pres > 0;
        if (r->pres_after_timeout)
            fprintf(f, "PRes after the PRes timeout but before the MN moved on: %llu (late by the MN's rule, which "
                    "judges the PRes's stamp against the timeout)\n", (unsigned long long)r->pres_after_timeout);
        if (any_pres)
            fprintf(f, "PRes lost: %llu, late: %llu (after the MN had moved on to its next frame); nodes whose "
                    "PRes never appear are left out (not captured in that direction)\n",
                    (unsigned long long)r->lost, (unsigned long long)r->late);
        else
            fprintf(f, "PRes lost: not measurable: the capture holds no PRes (taken where the CNs send with qdisc "
                    "bypass, which hides their frames from it); capture both directions with the MN's --pcap "
                    "tap, or on a mirror port\n");
        fprintf(f, "%5s %8s %8s %6s %6s  %s\n", "node", "PReq", "PRes", "lost", "late",
                "PReq->PRes latency min/avg/max [usec]");
        for (int n = 1; n <= AN_MAX_NODES; n++) {
            const struct an_node *nd = &a->node[n];
            if (!nd->preq && !nd->pres)
                continue;
            fprintf(f, "%5d %8llu %8llu %6llu %6llu  %.1f/%.1f/%.1f\n", n, (unsigned long long)nd->preq,
                    (unsigned long long)nd->pres, (unsigned long long)nd->lost, (unsigned long long)nd->late, nd->lat.count ? (double)nd->lat.min / 1000 : 0.0,
                    (double)perf_stat_avg(&nd->lat) / 1000, nd->lat.count ? (double)nd->lat.max / 1000 : 0.0);
        }
    }
}

void *analyze_to_json(const struct analyze *a, const struct an_result *r, int64_t prec)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "protocol", json_object_new_string(proto_name(r->proto)));
    json_object_object_add(j, "timestamp_precision_ns", json_object_new_int64(prec));
    json_object_object_add(j, "frames", json_object_new_int64((int64_t)a->frames));
    json_object_object_add(j, "malformed", json_object_new_int64((int64_t)a->malformed));
    json_object_object_add(j, "truncated", json_object_new_boolean(a->truncated));
    json_object_object_add(j, "out_of_order", json_object_new_int64((int64_t)a->backwards));
    json_object_object_add(j, "nominal_cycle_ns", json_object_new_int64(r->nominal_ns));
    json_object_object_add(j, "cycles", json_object_new_int64((int64_t)r->cycles));
    json_object_object_add(j, "cycle_time", takt_perf_msmt_to_json(&r->period, NULL, "Cycle Time"));
    json_object *p = json_object_new_object();
    json_object_object_add(p, "p50_ns", json_object_new_int64(r->p50));
    json_object_object_add(p, "p99_ns", json_object_new_int64(r->p99));
    json_object_object_add(p, "p99_9_ns", json_object_new_int64(r->p999));
    json_object_object_add(p, "p99_99_ns", json_object_new_int64(r->p9999));
    json_object_object_add(j, "percentiles", p);
    json_object *h = json_object_new_object(), *bins = json_object_new_array();
    json_object_object_add(h, "bin_ns", json_object_new_int64(r->dev.bin));
    json_object_object_add(h, "lo_ns", json_object_new_int64(r->dev.lo));
    json_object_object_add(h, "hi_ns", json_object_new_int64(r->dev.lo + r->dev.bin * (int64_t)r->dev.nbins));
    json_object_object_add(h, "below", json_object_new_int64((int64_t)r->dev.under));
    json_object_object_add(h, "above", json_object_new_int64((int64_t)r->dev.over));
    for (uint32_t i = 0; i < r->dev.nbins; i++)
        if (r->dev.bins[i]) {
            json_object *b = json_object_new_array();
            json_object_array_add(b, json_object_new_int64(r->dev.lo + (int64_t)i * r->dev.bin));
            json_object_array_add(b, json_object_new_int64((int64_t)r->dev.bins[i]));
            json_object_array_add(bins, b);
        }
    json_object_object_add(h, "bins", bins);
    json_object_object_add(j, "deviation_histogram", h);
    json_object_object_add(j, "gaps", json_object_new_int64((int64_t)r->gaps));
    json_object_object_add(j, "missing_cycles", json_object_new_int64((int64_t)r->missing_cycles));
    if (r->proto == 1) {
        bool lm = r->loss_measurable;
        json_object_object_add(j, "sent", json_object_new_int64((int64_t)a->ecat_sent));
        json_object_object_add(j, "returned", json_object_new_int64((int64_t)a->ecat_returned));
        json_object_object_add(j, "returns_without_request", json_object_new_int64((int64_t)a->ecat_orphans));
        json_object_object_add(j, "replies_only", json_object_new_boolean(r->replies_only));
        json_object_object_add(j, "lost", lm ? json_object_new_int64((int64_t)r->lost) : NULL);
        json_object_object_add(j, "late", lm ? json_object_new_int64((int64_t)r->late) : NULL);
        const struct an_key *k = &a->keys[a->stream];
        json_object *st = json_object_new_object();
        json_object_object_add(st, "command", json_object_new_string(ecat_cmd_name(k->cmd)));
        json_object_object_add(st, "address", json_object_new_int64(k->addr));
        json_object_object_add(st, "length", json_object_new_int(k->len));
        json_object_object_add(st, "process_data", json_object_new_boolean(k->pd));
        json_object_object_add(st, "sent", json_object_new_int64((int64_t)k->count));
        json_object_object_add(st, "returned", json_object_new_int64((int64_t)k->returned));
        json_object_object_add(st, "returns_without_request", json_object_new_int64((int64_t)k->orphans));
        json_object_object_add(st, "late", lm ? json_object_new_int64((int64_t)r->stream_late) : NULL);
        json_object_object_add(st, "lost", lm ? json_object_new_int64((int64_t)r->stream_lost) : NULL);
        json_object_object_add(st, "after_cycle", lm && a->o.cycle_ns > 0
                                                      ? json_object_new_int64((int64_t)r->stream_after_cycle) : NULL);
        json_object_object_add(j, "stream", st);
        unsigned o[16], no = other_streams(a, o, 16);
        json_object *others = json_object_new_array();
        for (unsigned i = 0; i < no; i++) {
            json_object *x = json_object_new_object();
            json_object_object_add(x, "command", json_object_new_string(ecat_cmd_name(a->keys[o[i]].cmd)));
            json_object_object_add(x, "address", json_object_new_int64(a->keys[o[i]].addr));
            json_object_object_add(x, "length", json_object_new_int(a->keys[o[i]].len));
            json_object_object_add(x, "sent", json_object_new_int64((int64_t)a->keys[o[i]].count));
            json_object_object_add(x, "returns_without_request", json_object_new_int64((int64_t)a->keys[o[i]].orphans));
            json_object_array_add(others, x);
        }
        json_object_object_add(j, "other_process_data_frames", others);
        json_object_object_add(j, "round_trip", r->rtt_measurable ? takt_perf_msmt_to_json(&r->rtt, NULL, "Round Trip") : NULL);
    } else {
        json_object_object_add(j, "lost", json_object_new_int64((int64_t)r->lost));
        json_object_object_add(j, "late", json_object_new_int64((int64_t)r->late));
        json_object_object_add(j, "soc", json_object_new_int64((int64_t)a->soc));
        json_object_object_add(j, "pres_after_timeout", a->o.pres_timeout_ns > 0
                                                            ? json_object_new_int64((int64_t)r->pres_after_timeout) : NULL);
        json_object *nodes = json_object_new_array();
        for (int n = 1; n <= AN_MAX_NODES; n++) {
            const struct an_node *nd = &a->node[n];
            if (!nd->preq && !nd->pres)
                continue;
            json_object *o = json_object_new_object();
            json_object_object_add(o, "node", json_object_new_int(n));
            json_object_object_add(o, "preq", json_object_new_int64((int64_t)nd->preq));
            json_object_object_add(o, "pres", json_object_new_int64((int64_t)nd->pres));
            json_object_object_add(o, "lost", json_object_new_int64((int64_t)nd->lost));
            json_object_object_add(o, "late", json_object_new_int64((int64_t)nd->late));
            json_object_object_add(o, "after_timeout", a->o.pres_timeout_ns > 0
                                                           ? json_object_new_int64((int64_t)nd->after_timeout) : NULL);
            json_object_object_add(o, "latency", takt_perf_msmt_to_json(&nd->lat, NULL, "PRes Latency"));
            json_object_array_add(nodes, o);
        }
        json_object_object_add(j, "nodes", nodes);
    }
    return j;
}
