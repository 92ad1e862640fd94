/* The per-value recording steps shared by hist.c and set.c, inline: takt_perf_record
 * runs several times a cycle, and finds a value's bin once for its two histograms. */
#ifndef TAKT_PERF_REC_H
#define TAKT_PERF_REC_H

#include <takt/perf.h>

static inline void perf_stat_add(struct takt_perf_stat *s, int64_t v)
{
    if (v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    /* wraps (two's complement) rather than overflow: only values near INT64_MIN/MAX,
     * which no measured duration reaches, can take it there */
    s->sum = (int64_t)((uint64_t)s->sum + (uint64_t)v);
    s->count++;
}

/* floor(x / h->bin) for x < h->span (so x < 2^63): a multiply by the rounded-up
 * reciprocal m = ceil(2^(63+l) / bin), 2^l >= bin, and a shift by 63 + l (the high
 * half of the product, then l - 1 more), exact for every x below 2^63 (Granlund and
 * Montgomery, "Division by invariant integers using multiplication", 1994, theorem
 * 4.2: 2^(N+l) <= m * bin <= 2^(N+l) + 2^l, N = 63); bins of 2^k take a shift alone.
 * No division per value. */
static inline uint64_t perf_hist_bin(const struct takt_perf_hist *h, uint64_t x)
{
    if (!h->mul)
        return x >> h->shift;
    return (uint64_t)(((unsigned __int128)x * h->mul) >> 64) >> h->shift;
}

#endif
