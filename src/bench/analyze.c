/* takt analyze core: classifies captured frames, tracks the cyclic stream and the
 * request/response pairs, then derives period statistics, the deviation histogram with
 * outer bins (the acontis histogram layout), loss and gaps. Offline: may allocate. */
#include "bench/analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "util/wire.h"

enum { PROTO_NONE, PROTO_ECAT, PROTO_PLK };
enum { PLK_SOC = 0x01, PLK_PREQ = 0x03, PLK_PRES = 0x04, PLK_SOA = 0x05, PLK_ASND = 0x06 };

/* Append a stream timestamp. A frame stamped before its predecessor (a merged or
 * re-ordered capture) is taken as simultaneous with it, so periods are never negative
 * and their sum never exceeds the capture's span. */
static int push_ts(struct analyze *a, int64_t **v, size_t *n, size_t *cap, int64_t ts)
{
    if (*n && ts < (*v)[*n - 1]) {
        ts = (*v)[*n - 1];
        a->backwards++;
    }
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        int64_t *nv = realloc(*v, nc * sizeof **v);
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = ts;
    return 0;
}

int analyze_init(struct analyze *a, const struct an_opts *o)
{
    memset(a, 0, sizeof *a);
    a->o = *o;
    if (a->o.bin_ns < 0)
        a->o.bin_ns = 0;
    if (a->o.range_ns < 0)
        a->o.range_ns = 0;
    a->stream = -1;
    takt_perf_stat_reset(&a->rtt);
    for (int n = 0; n <= AN_MAX_NODES; n++)
        takt_perf_stat_reset(&a->node[n].lat);
    return 0;
}

void analyze_free(struct analyze *a)
{
    free(a->ts);
    for (unsigned i = 0; i < a->nkeys; i++) {
        free(a->keys[i].ts);
        free(a->keys[i].ots);
    }
    free(a->keys);
    free(a->khash);
    memset(a, 0, sizeof *a);
}

static unsigned key_hash(uint8_t cmd, uint32_t addr, uint16_t len, unsigned cap)
{
    uint64_t h = ((uint64_t)cmd << 48 | (uint64_t)len << 32 | addr) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 32) & (cap - 1);
}

static int khash_grow(struct analyze *a)
{
    unsigned cap = a->khash_cap ? a->khash_cap * 2 : 64;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -ENOMEM;
    for (unsigned i = 0; i < a->nkeys; i++) {
        const struct an_key *k = &a->keys[i];
        unsigned j = key_hash(k->cmd, k->addr, k->len, cap);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    free(a->khash);
    a->khash = h;
    a->khash_cap = cap;
    return 0;
}

/* The signature's index, added when new; UINT32_MAX when out of memory. */
static uint32_t key_get(struct analyze *a, uint8_t cmd, uint32_t addr, uint16_t len, bool pd)
{
    if ((a->nkeys + 1) * 2 > a->khash_cap && khash_grow(a))
        return UINT32_MAX;
    unsigned j = key_hash(cmd, addr, len, a->khash_cap);
    for (; a->khash[j]; j = (j + 1) & (a->khash_cap - 1)) {
        const struct an_key *k = &a->keys[a->khash[j] - 1];
        if (k->cmd == cmd && k->addr == addr && k->len == len)
            return a->khash[j] - 1;
    }
    if (a->nkeys == a->cap_keys) {
        unsigned nc = a->cap_keys ? a->cap_keys * 2 : 32;
        struct an_key *nk = realloc(a->keys, nc * sizeof *nk);
        if (!nk)
            return UINT32_MAX;
        a->keys = nk;
        a->cap_keys = nc;
    }
    a->keys[a->nkeys] = (struct an_key){ .cmd = cmd, .addr = addr, .len = len, .pd = pd };
    a->khash[j] = ++a->nkeys;
    return a->nkeys - 1;
}

static bool is_logical(uint8_t cmd) { return cmd == ECAT_LRD || cmd == ECAT_LWR || cmd == ECAT_LRW; }

/* The open request a return answers: the newest with the same index, command and
 * address among the index's ways (several frames may share an index: cyclic and acyclic
 * ones; an unanswered old one must not catch a newer one's return). */
static struct an_pend *pend_find(struct analyze *a, uint8_t idx, uint8_t cmd, uint32_t addr)
{
    struct an_pend *best = NULL;
    for (int w = 0; w < AN_PEND_WAYS; w++) {
        struct an_pend *p = &a->pend[idx][w];
        if (p->open && p->cmd == cmd && p->addr == addr && (!best || p->ts > best->ts))
            best = p;
    }
    return best;
}

/* A way for a new request: a free one, else the oldest (superseded: counted lost later). */
static struct an_pend *pend_slot(struct analyze *a, uint8_t idx)
{
    struct an_pend *best = &a->pend[idx][0];
    for (int w = 0; w < AN_PEND_WAYS; w++) {
        struct an_pend *p = &a->pend[idx][w];
        if (!p->open)
            return p;
        if (p->ts < best->ts)
            best = p;
    }
    return best;
}

/* One walk over a frame's datagrams: the sum of the working counters, and the first
 * process-data datagram (returned), whose command, logical address and length name the
 * cyclic frame however the master composes the rest of it (DC datagrams, status reads,
 * acyclic datagrams in the spare room). */
static const uint8_t *ecat_walk(const uint8_t *f, size_t len, const uint8_t *dg, unsigned *wkc_sum)
{
    const uint8_t *pd = NULL;
    for (const uint8_t *p = dg; (size_t)(p - f) + ECAT_DG_HDR + ECAT_DG_WKC <= len;) {
        uint16_t l = get_le16(p + 6), dl = l & ECAT_LEN_MASK;
        if ((size_t)(p - f) + ECAT_DG_HDR + dl + ECAT_DG_WKC > len)
            break;
        *wkc_sum += get_le16(p + ECAT_DG_HDR + dl);
        if (!pd && is_logical(p[0]))
            pd = p;
        if (!(l & ECAT_LEN_MORE))
            break;
        p += ECAT_DG_HDR + dl + ECAT_DG_WKC;
    }
    return pd;
}

static void ecat_on_return(struct analyze *a, struct an_pend *req, const uint8_t *pd, int64_t ts)
{
    a->ecat_returned++;
    takt_perf_stat_add(&a->rtt, ts - req->ts);
    req->open = false;
    if (pd && get_le16(pd + ECAT_DG_HDR + (get_le16(pd + 6) & ECAT_LEN_MASK)) == 0)
        a->wkc_zero++;
    if (req->key == UINT32_MAX)
        return;
    struct an_key *k = &a->keys[req->key];
    k->returned++;
    /* the master already sent this signature's next frame: its cycle (or timeout)
     * ended before this return came, so the master counted it lost */
    if (k->count > req->seq + 1) {
        k->late++;
        a->ecat_late++;
    } else if (a->o.cycle_ns > 0 && ts - req->ts > a->o.cycle_ns) {
        k->after_cycle++;
    }
}

static void ecat_frame(struct analyze *a, int64_t ts, const uint8_t *f, size_t len, size_t off, int dir)
{
    /* ETG.1000.4 frame structure: 2-byte EtherCAT header, then datagrams of 10 + len + 2 bytes */
    if (len < off + ECAT_FRAME_HDR + ECAT_DG_HDR + ECAT_DG_WKC) {
        a->malformed++;
        return;
    }
    if ((get_le16(f + off) >> 12) != ECAT_FRAME_TYPE_DG) {
        a->other_frames++;
        return;
    }
    const uint8_t *dg = f + off + ECAT_FRAME_HDR;
    if ((size_t)(dg - f) + ECAT_DG_HDR + (get_le16(dg + 6) & ECAT_LEN_MASK) + ECAT_DG_WKC > len) {
        a->malformed++;
        return;
    }
    a->ecat_frames++;
    /* A leading NOP without data names the frame (takt's master puts its frame number
     * there, always with index 0): it identifies no request, so a return is matched on the
     * datagram after it, as for a master that sends no such NOP. Left as it was, every
     * frame would claim index 0, and of two frames in flight the first's return would be
     * taken for a new request. */
    const uint8_t *first = dg;
    if (dg[0] == ECAT_NOP && (get_le16(dg + 6) & ECAT_LEN_MASK) == 0 && (get_le16(dg + 6) & ECAT_LEN_MORE) &&
        (size_t)(dg - f) + 2 * (ECAT_DG_HDR + ECAT_DG_WKC) <= len &&
        (size_t)(dg - f) + 2 * (ECAT_DG_HDR + ECAT_DG_WKC) + (get_le16(dg + 12 + 6) & ECAT_LEN_MASK) <= len)
        dg += ECAT_DG_HDR + ECAT_DG_WKC;
    uint8_t idx = dg[1], cmd = dg[0];
    /* every slave increments ADP of auto-increment and broadcast datagrams (ETG.1000.4 commands and working counter): a
     * return is matched on the register offset only */
    bool adp_moves = cmd == ECAT_APRD || cmd == ECAT_APWR || cmd == ECAT_APRW || cmd == ECAT_BRD ||
                     cmd == ECAT_BWR || cmd == ECAT_BRW || cmd == ECAT_ARMW;
    uint32_t addr = get_le32(dg + 2) & (adp_moves ? 0xFFFF0000u : 0xFFFFFFFFu);
    unsigned wkc_sum = 0;
    const uint8_t *pd = ecat_walk(f, len, first, &wkc_sum);
    /* Sent or returned? The first ESC sets the U/L bit of the source MAC (ESC datasheet Section I, frame processing), but a
     * master on a locally administered MAC (every veth) has it set already. So a frame is
     * a return only if it carries the U/L bit, answers an open request with the same
     * index, command and address, soon enough, and shows that it was processed: a
     * working counter above 0 (masters send 0) or a U/L bit its request did not have. */
    struct an_pend *req = (f[6] & 0x02) ? pend_find(a, idx, cmd, addr) : NULL;
    /* processed by a slave: a working counter above 0 (masters send 0) and the U/L bit */
    bool processed = wkc_sum > 0 && (f[6] & 0x02);
    bool is_return, orphan;
    if (dir) {
        /* the capture knows the direction: the master sent the first frame, so frames
         * going its way are requests, the others returns (a mailbox poll may come back
         * with working counter 0, which the heuristic below cannot tell from a resend).
         * A processed frame is not the master's, whichever way it was captured. */
        if (!a->master_dir && !processed)
            a->master_dir = dir;
        is_return = a->master_dir && dir != a->master_dir && req && ts >= req->ts && ts - req->ts < AN_RTT_MAX;
        orphan = !is_return && (a->master_dir ? dir != a->master_dir : processed);
    } else {
        is_return = req && ts >= req->ts && ts - req->ts < 100 * 1000000LL && (wkc_sum > 0 || !(req->mac0 & 0x02));
        orphan = !is_return && processed;
    }
    if (is_return) {
        ecat_on_return(a, req, pd, ts);
        return;
    }
    if (!a->proto)
        a->proto = PROTO_ECAT;
    const uint8_t *sig = pd ? pd : dg;
    uint32_t k = key_get(a, sig[0], get_le32(sig + 2), get_le16(sig + 6) & ECAT_LEN_MASK, pd != NULL);
    if (orphan) {
        /* A return answering no request in the file: sent before the capture started, or
         * never seen by it (a master's own frames bypass the qdisc, and with it every
         * capture, on its interface). Never a request: counted apart, and its stamps kept
         * for a capture that holds nothing else. */
        a->ecat_orphans++;
        if (!a->ecat_sent || ts - a->first_sent_ts < 100 * 1000000LL)
            a->ecat_orphans_head++;
        if (k != UINT32_MAX) {
            a->keys[k].orphans++;
            push_ts(a, &a->keys[k].ots, &a->keys[k].nots, &a->keys[k].ocap, ts);
        }
        return;
    }
    if (!a->ecat_sent++)
        a->first_sent_ts = ts;
    *pend_slot(a, idx) = (struct an_pend){ .cmd = cmd, .mac0 = f[6], .addr = addr, .ts = ts, .open = true,
                                           .key = k, .seq = k != UINT32_MAX ? a->keys[k].count : 0 };
    if (k == UINT32_MAX)
        return;
    a->keys[k].count++;
    push_ts(a, &a->keys[k].ts, &a->keys[k].nts, &a->keys[k].cap, ts);
}

static void plk_close_cycle(struct analyze *a)
{
    for (int n = 1; n <= AN_MAX_NODES; n++)
        if (a->node[n].last_preq) {
            a->node[n].lost++;
            a->node[n].last_preq = 0;
        }
}

/* The MN sends its next frame (PReq to the next CN, PResMN, SoA) only once the PRes it
 * waits for came or its PRes timeout passed: a PRes after that is late for the MN. */
static void plk_mn_moved_on(struct analyze *a)
{
    for (int n = 1; n <= AN_MAX_NODES; n++)
        if (a->node[n].last_preq)
            a->node[n].overdue = true;
}

static void plk_frame(struct analyze *a, int64_t ts, const uint8_t *f, size_t len, size_t off)
{
    /* EPSG DS 301 basic frame: MessageType, destination, source at offsets 0, 1, 2 after the EtherType */
    if (len < off + 3) {
        a->malformed++;
        return;
    }
    a->plk_frames++;
    uint8_t mtyp = f[off] & 0x7F, dst = f[off + 1], src = f[off + 2];
    if (src == AN_MN_NODE && mtyp != PLK_SOC)
        plk_mn_moved_on(a);
    switch (mtyp) {
    case PLK_SOC:
        a->soc++;
        plk_close_cycle(a);
        if (!a->proto)
            a->proto = PROTO_PLK;
        if (a->proto == PROTO_PLK)
            push_ts(a, &a->ts, &a->nts, &a->cap_ts, ts);
        break;
    case PLK_PREQ:
        if (dst >= 1 && dst <= AN_MAX_NODES) {
            if (a->node[dst].last_preq)
                a->node[dst].lost++;
            a->node[dst].preq++;
            a->node[dst].last_preq = ts;
            a->node[dst].overdue = false;
        }
        break;
    case PLK_PRES:
        if (src >= 1 && src < AN_MN_NODE) {   /* not the PResMN */
            struct an_node *n = &a->node[src];
            n->pres++;
            if (n->last_preq && n->overdue)
                n->late++;
            else if (n->last_preq && ts >= n->last_preq && ts - n->last_preq < AN_RTT_MAX) {
                takt_perf_stat_add(&n->lat, ts - n->last_preq);
                if (a->o.pres_timeout_ns > 0 && ts - n->last_preq > a->o.pres_timeout_ns)
                    n->after_timeout++;
            }
            n->last_preq = 0;
        }
        break;
    case PLK_SOA:
        a->soa++;
        break;
    default:
        break;
    }
}

void analyze_frame(struct analyze *a, int64_t ts, const uint8_t *f, size_t len)
{
    analyze_frame_dir(a, ts, f, len, AN_DIR_UNKNOWN);
}

void analyze_frame_dir(struct analyze *a, int64_t ts, const uint8_t *f, size_t len, int dir)
{
    if ((a->o.from_ns && ts < a->o.from_ns) || (a->o.to_ns && ts >= a->o.to_ns)) {
        a->outside++;
        return;
    }
    a->frames++;
    /* the capture clock from 1970 to 2116: keeps every difference of two stamps finite */
    if (ts < 0)
        ts = 0;
    if (ts > AN_TS_MAX)
        ts = AN_TS_MAX;
    if (len < 14) {
        a->malformed++;
        return;
    }
    size_t off = 12;
    uint16_t et = get_be16(f + off);
    if (et == 0x8100 && len >= 18) {   /* one VLAN tag */
        off += 4;
        et = get_be16(f + off);
    }
    off += 2;
    if (et == 0x88A4)
        ecat_frame(a, ts, f, len, off, dir);
    else if (et == 0x88AB)
        plk_frame(a, ts, f, len, off);
    else
        a->other_frames++;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* Exact percentile of a sorted array: value of rank ceil(p/100 * n). */
static int64_t pct(const int64_t *s, size_t n, double p)
{
    if (!n)
        return 0;
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return s[rank - 1];
}

/* A capture that holds the returns but not the master's frames (taken on the master's
 * own interface): more returns without their request than with one, and than frames
 * taken for requests (a return with working counter 0 looks like one). */
static bool replies_only(const struct analyze *a)
{
    return a->ecat_orphans > a->ecat_returned && a->ecat_orphans > a->ecat_sent;
}

static uint64_t key_frames(const struct an_key *k, bool replies) { return replies ? k->orphans : k->count; }

/* EtherCAT: the cyclic stream is the most frequent signature among process-data
 * frames, else overall; its timestamps become a->ts (bench.c reads them). Of a capture
 * holding only returns, the returns make the stream: their period is the master's. */
static void ecat_pick_stream(struct analyze *a)
{
    bool rep = replies_only(a);
    int best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (unsigned k = 0; k < a->nkeys; k++)
            if ((pass || a->keys[k].pd) && key_frames(&a->keys[k], rep) &&
                (best < 0 || key_frames(&a->keys[k], rep) > key_frames(&a->keys[best], rep)))
                best = (int)k;
    a->stream = best;
    if (best < 0)
        return;
    struct an_key *k = &a->keys[best];
    free(a->ts);
    if (rep) {
        a->ts = k->ots, a->nts = k->nots, a->cap_ts = k->ocap;
        k->ots = NULL, k->ocap = 0;
    } else {
        a->ts = k->ts, a->nts = k->nts, a->cap_ts = k->cap;
        k->ts = NULL, k->cap = 0;
    }
}

/* A bin width of 1, 2 or 5 x 10^n ns, at most raw (at least 1 ns). */
static int64_t readable_bin(int64_t raw)
{
    int64_t p = 1;
    while (p <= INT64_MAX / 10 && p * 10 <= raw)
        p *= 10;
    int64_t m = raw / p;
    return p * (m >= 5 ? 5 : m >= 2 ? 2 : 1);
}

/* The deviation histogram's window: --lo/--hi, or +-range; what is not given follows
 * the nominal cycle (+-10 % of it in about 200 readable bins: a fixed +-100 us would put
 * most periods of a 5 ms cycle in the outer bins). */
static void hist_window(const struct analyze *a, int64_t nominal, int64_t *lo, int64_t *bin, uint32_t *nb)
{
    int64_t l, h, b = a->o.bin_ns;
    if (a->o.lo_ns || a->o.hi_ns) {
        l = a->o.lo_ns;
        if (!b)
            b = readable_bin(a->o.hi_ns > l && (a->o.hi_ns - l) / 200 > a->prec_ns ? (a->o.hi_ns - l) / 200
                             : a->prec_ns > 0 ? a->prec_ns : 1000);
        h = a->o.hi_ns > l ? a->o.hi_ns : l + b;
    } else {
        int64_t range = a->o.range_ns;
        if (!range)
            range = nominal >= 10 ? nominal / 10 : 100000;
        if (!b)   /* no finer than the stamps: a 1 us capture would fill every fifth bin */
            b = readable_bin(range / 100 > a->prec_ns ? range / 100 : a->prec_ns);
        if (!a->o.range_ns) {
            if (range / b > 5000000)   /* a tiny --bin: at most 10 million bins */
                range = b * 5000000;
            range = (range + b - 1) / b * b;
        }
        l = -range;
        h = range;
    }
    int64_t n = (h - l + b - 1) / b;
    *lo = l;
    *bin = b;
    *nb = (uint32_t)(n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : n);
}

/* Periods of the stream: statistics, exact percentiles, the deviation histogram with
 * its outer bins, gaps. */
static int period_stats(const struct analyze *a, struct an_result *r)
{
    size_t n = a->nts - 1;
    int64_t *per = malloc(n * sizeof *per), *sorted = malloc(n * sizeof *sorted);
    if (!per || !sorted) {
        free(per);
        free(sorted);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        per[i] = a->ts[i + 1] - a->ts[i];
    memcpy(sorted, per, n * sizeof *per);
    qsort(sorted, n, sizeof *sorted, cmp_i64);
    r->nominal_ns = a->o.cycle_ns ? a->o.cycle_ns : pct(sorted, n, 50);
    r->p50 = pct(sorted, n, 50);
    r->p99 = pct(sorted, n, 99);
    r->p999 = pct(sorted, n, 99.9);
    r->p9999 = pct(sorted, n, 99.99);
    free(sorted);
    int64_t lo, bin;
    uint32_t nb;
    hist_window(a, r->nominal_ns, &lo, &bin, &nb);
    int rc = takt_perf_hist_init(&r->dev, lo, bin, nb);
    if (rc) {
        free(per);
        return rc;
    }
    takt_perf_stat_reset(&r->period);
    for (size_t i = 0; i < n; i++) {
        takt_perf_stat_add(&r->period, per[i]);
        takt_perf_hist_add(&r->dev, per[i] - r->nominal_ns);
        if (r->nominal_ns > 0 && per[i] > r->nominal_ns + r->nominal_ns / 2) {
            r->gaps++;
            r->missing_cycles += (uint64_t)((per[i] + r->nominal_ns / 2) / r->nominal_ns) - 1;
        }
    }
    r->cycles = n;
    free(per);
    return 0;
}

/* EtherCAT loss, measurable only when the capture holds both directions. Requests
 * still open within two cycles of the end were in flight when the capture stopped.
 * Round trips only where the stamps tell a request from its return: a capture stamping
 * both at once (or too coarsely) gives 0 for every one. */
static void ecat_loss(const struct analyze *a, struct an_result *r)
{
    r->rtt = a->rtt;
    r->replies_only = replies_only(a);
    r->rtt_measurable = a->rtt.count && a->rtt.max > 0;
    r->loss_measurable = a->ecat_returned && !r->replies_only;
    if (!r->loss_measurable)
        return;
    int64_t last = a->ts[a->nts - 1];
    uint64_t tail = 0, tail_stream = 0;
    for (int i = 0; i < 256; i++)
        for (int w = 0; w < AN_PEND_WAYS; w++) {
            const struct an_pend *p = &a->pend[i][w];
            if (p->open && last - p->ts < 2 * r->nominal_ns) {
                tail++;
                tail_stream += p->key == (uint32_t)a->stream;
            }
        }
    uint64_t answered = a->rtt.count;
    r->lost = a->ecat_sent > answered + tail ? a->ecat_sent - answered - tail : 0;
    r->late = a->ecat_late;
    const struct an_key *k = &a->keys[a->stream];
    r->stream_lost = k->count > k->returned + tail_stream ? k->count - k->returned - tail_stream : 0;
    r->stream_late = k->late;
    r->stream_after_cycle = k->after_cycle;
}

int analyze_finish(struct analyze *a, struct an_result *r)
{
    memset(r, 0, sizeof *r);
    r->proto = a->proto;
    if (a->proto == PROTO_ECAT)
        ecat_pick_stream(a);
    if (a->nts < 2)
        return -ENODATA;
    int rc = period_stats(a, r);
    if (rc)
        return rc;
    if (a->proto == PROTO_ECAT) {
        ecat_loss(a, r);
        return 0;
    }
    /* a node whose PRes never shows in the capture was not captured in that direction
     * (a CN sending with qdisc bypass is invisible on its own interface): not lost */
    for (int k = 1; k <= AN_MAX_NODES; k++)
        if (a->node[k].pres) {
            r->lost += a->node[k].lost;
            r->late += a->node[k].late;
            r->pres_after_timeout += a->node[k].after_timeout;
        }
    return 0;
}

void analyze_result_free(struct an_result *r)
{
    takt_perf_hist_free(&r->dev);
}
