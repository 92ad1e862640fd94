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

static int push_ts(int64_t **v, size_t *n, size_t *cap, int64_t ts)
{
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
    if (a->o.bin_ns <= 0)
        a->o.bin_ns = 1000;
    if (a->o.range_ns <= 0)
        a->o.range_ns = 100000;
    perf_stat_reset(&a->rtt);
    for (int n = 0; n <= AN_MAX_NODES; n++)
        perf_stat_reset(&a->node[n].lat);
    return 0;
}

void analyze_free(struct analyze *a)
{
    free(a->ts);
    for (unsigned i = 0; i < a->nkeys; i++)
        free(a->key_ts[i]);
    memset(a, 0, sizeof *a);
}

static bool is_logical(uint8_t cmd) { return cmd == ECAT_LRD || cmd == ECAT_LWR || cmd == ECAT_LRW; }

static void ecat_frame(struct analyze *a, int64_t ts, const uint8_t *f, size_t len, size_t off)
{
    /* ref §2: 2-byte EtherCAT header, then datagrams of 10 + len + 2 bytes */
    if (len < off + ECAT_FRAME_HDR + ECAT_DG_HDR + ECAT_DG_WKC) {
        a->malformed++;
        return;
    }
    uint16_t fh = get_le16(f + off);
    if ((fh >> 12) != ECAT_FRAME_TYPE_DG) {
        a->other_frames++;
        return;
    }
    const uint8_t *dg = f + off + ECAT_FRAME_HDR;
    uint16_t dlen = get_le16(dg + 6) & ECAT_LEN_MASK;
    if ((size_t)(dg - f) + ECAT_DG_HDR + dlen + ECAT_DG_WKC > len) {
        a->malformed++;
        return;
    }
    a->ecat_frames++;
    uint8_t cmd = dg[0], idx = dg[1];
    uint32_t addr = get_le32(dg + 2);
    bool logical = false;
    /* does any datagram of the frame address the process image? */
    for (const uint8_t *p = dg; (size_t)(p - f) + ECAT_DG_HDR + ECAT_DG_WKC <= len;) {
        uint16_t l = get_le16(p + 6);
        if (is_logical(p[0]))
            logical = true;
        if (!(l & ECAT_LEN_MORE))
            break;
        p += ECAT_DG_HDR + (l & ECAT_LEN_MASK) + ECAT_DG_WKC;
    }
    /* Sent or returned? The first ESC sets the U/L bit of the source MAC (ref §1), but a
     * master on a locally administered MAC (every veth) has it set already. So a frame is
     * a return only if it carries the U/L bit, answers an open request with the same
     * index, command and address, soon enough, and shows that it was processed: a
     * working counter above 0 (masters send 0) or a U/L bit its request did not have. */
    unsigned wkc_sum = 0;
    for (const uint8_t *p = dg; (size_t)(p - f) + ECAT_DG_HDR + ECAT_DG_WKC <= len;) {
        uint16_t l = get_le16(p + 6), dl = l & ECAT_LEN_MASK;
        if ((size_t)(p - f) + ECAT_DG_HDR + dl + ECAT_DG_WKC > len)
            break;
        wkc_sum += get_le16(p + ECAT_DG_HDR + dl);
        if (!(l & ECAT_LEN_MORE))
            break;
        p += ECAT_DG_HDR + dl + ECAT_DG_WKC;
    }
    bool returned = (f[6] & 0x02) && a->pend[idx].open && a->pend[idx].cmd == cmd && a->pend[idx].addr == addr &&
                    ts - a->pend[idx].ts < 100 * 1000000LL && (wkc_sum > 0 || !(a->pend[idx].mac0 & 0x02));
    if (returned) {
        a->ecat_returned++;
        perf_stat_add(&a->rtt, ts - a->pend[idx].ts);
        a->pend[idx].open = false;
        if (logical && get_le16(dg + ECAT_DG_HDR + dlen) == 0)
            a->wkc_zero++;
        return;
    }
    a->ecat_sent++;
    /* an open request with this index is superseded: analyze_finish counts it as lost */
    a->pend[idx].open = true;
    a->pend[idx].mac0 = f[6];
    a->pend[idx].cmd = cmd;
    a->pend[idx].addr = addr;
    a->pend[idx].ts = ts;
    if (!a->proto)
        a->proto = PROTO_ECAT;
    /* signature of the frame: its first datagram; logical frames are preferred later */
    unsigned k;
    for (k = 0; k < a->nkeys; k++)
        if (a->keys[k].cmd == cmd && a->keys[k].addr == addr && a->keys[k].len == dlen)
            break;
    if (k == a->nkeys) {
        if (a->nkeys == AN_MAX_KEYS)
            return;
        a->keys[k] = (struct an_key){ .cmd = cmd, .addr = addr, .len = dlen };
        a->nkeys++;
    }
    a->keys[k].count++;
    a->keys[k].pd |= logical;
    push_ts(&a->key_ts[k], &a->key_nts[k], &a->key_cap[k], ts);
}

static void plk_close_cycle(struct analyze *a)
{
    for (int n = 1; n <= AN_MAX_NODES; n++)
        if (a->node[n].last_preq) {
            a->node[n].lost++;
            a->node[n].last_preq = 0;
        }
}

static void plk_frame(struct analyze *a, int64_t ts, const uint8_t *f, size_t len, size_t off)
{
    /* powerlink.md §2: MessageType, destination, source at offsets 0, 1, 2 after the EtherType */
    if (len < off + 3) {
        a->malformed++;
        return;
    }
    a->plk_frames++;
    uint8_t mtyp = f[off] & 0x7F, dst = f[off + 1], src = f[off + 2];
    switch (mtyp) {
    case PLK_SOC:
        a->soc++;
        plk_close_cycle(a);
        if (!a->proto)
            a->proto = PROTO_PLK;
        if (a->proto == PROTO_PLK)
            push_ts(&a->ts, &a->nts, &a->cap_ts, ts);
        break;
    case PLK_PREQ:
        if (dst >= 1 && dst <= AN_MAX_NODES) {
            if (a->node[dst].last_preq)
                a->node[dst].lost++;
            a->node[dst].preq++;
            a->node[dst].last_preq = ts;
        }
        break;
    case PLK_PRES:
        if (src >= 1 && src <= AN_MAX_NODES) {
            struct an_node *n = &a->node[src];
            n->pres++;
            if (n->last_preq) {
                perf_stat_add(&n->lat, ts - n->last_preq);
                n->last_preq = 0;
            }
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
    if ((a->o.from_ns && ts < a->o.from_ns) || (a->o.to_ns && ts >= a->o.to_ns)) {
        a->outside++;
        return;
    }
    a->frames++;
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
        ecat_frame(a, ts, f, len, off);
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

int analyze_finish(struct analyze *a, struct an_result *r)
{
    memset(r, 0, sizeof *r);
    r->proto = a->proto;
    if (a->proto == PROTO_ECAT) {
        /* the cyclic stream: most frequent signature among process-data frames, else overall */
        int best = -1;
        for (int pass = 0; pass < 2 && best < 0; pass++)
            for (unsigned k = 0; k < a->nkeys; k++)
                if ((pass || a->keys[k].pd) && (best < 0 || a->keys[k].count > a->keys[best].count))
                    best = (int)k;
        if (best >= 0) {
            free(a->ts);
            a->ts = a->key_ts[best];
            a->nts = a->key_nts[best];
            a->cap_ts = a->key_cap[best];
            a->key_ts[best] = NULL;
            a->key_nts[best] = a->key_cap[best] = 0;
            /* keep the chosen signature first for the report */
            struct an_key t = a->keys[0];
            a->keys[0] = a->keys[best];
            a->keys[best] = t;
            int64_t *tt = a->key_ts[0];
            a->key_ts[0] = a->key_ts[best];
            a->key_ts[best] = tt;
            size_t tn = a->key_nts[0], tc = a->key_cap[0];
            a->key_nts[0] = a->key_nts[best];
            a->key_cap[0] = a->key_cap[best];
            a->key_nts[best] = tn;
            a->key_cap[best] = tc;
        }
    }
    if (a->nts < 2)
        return -ENODATA;
    size_t n = a->nts - 1;
    int64_t *per = malloc(n * sizeof *per);
    if (!per)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        per[i] = a->ts[i + 1] - a->ts[i];
    int64_t *sorted = malloc(n * sizeof *sorted);
    if (!sorted) {
        free(per);
        return -ENOMEM;
    }
    memcpy(sorted, per, n * sizeof *per);
    qsort(sorted, n, sizeof *sorted, cmp_i64);
    r->nominal_ns = a->o.cycle_ns ? a->o.cycle_ns : pct(sorted, n, 50);
    r->p50 = pct(sorted, n, 50);
    r->p99 = pct(sorted, n, 99);
    r->p999 = pct(sorted, n, 99.9);
    r->p9999 = pct(sorted, n, 99.99);
    uint32_t nb = (uint32_t)(2 * a->o.range_ns / a->o.bin_ns);
    if (nb < 1)
        nb = 1;
    int rc = perf_hist_init(&r->dev, -a->o.range_ns, a->o.bin_ns, nb);
    if (rc) {
        free(per);
        free(sorted);
        return rc;
    }
    perf_stat_reset(&r->period);
    for (size_t i = 0; i < n; i++) {
        perf_stat_add(&r->period, per[i]);
        perf_hist_add(&r->dev, per[i] - r->nominal_ns);
        if (r->nominal_ns > 0 && per[i] * 2 > r->nominal_ns * 3) {
            r->gaps++;
            r->missing_cycles += (uint64_t)((per[i] + r->nominal_ns / 2) / r->nominal_ns) - 1;
        }
    }
    r->cycles = n;
    free(per);
    free(sorted);

    if (a->proto == PROTO_ECAT) {
        r->rtt = a->rtt;
        /* loss is measurable only when the capture holds both directions */
        if (a->ecat_returned) {
            int64_t last = a->ts[a->nts - 1];
            uint64_t open_tail = 0;
            for (int i = 0; i < 256; i++)
                if (a->pend[i].open && last - a->pend[i].ts < 2 * r->nominal_ns)
                    open_tail++;  /* still in flight when the capture stopped */
            uint64_t answered = a->rtt.count;
            r->lost = a->ecat_sent > answered + open_tail ? a->ecat_sent - answered - open_tail : 0;
        }
    } else {
        /* a node whose PRes never shows in the capture was not captured in that direction
         * (a CN sending with qdisc bypass is invisible on its own interface): not lost */
        for (int k = 1; k <= AN_MAX_NODES; k++)
            if (a->node[k].pres)
                r->lost += a->node[k].lost;
    }
    return 0;
}

void analyze_result_free(struct an_result *r)
{
    perf_hist_free(&r->dev);
}
