/* Min/avg/max accumulators and fixed-bin histograms with percentiles: the recording
 * primitives of perf/. Everything here is O(1) per value and never allocates after init. */
#include <takt/perf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/rec.h"

void takt_perf_stat_reset(struct takt_perf_stat *s)
{
    s->min = INT64_MAX;   /* so that the first value sets both bounds */
    s->max = INT64_MIN;
    s->sum = 0;
    s->count = 0;
}

void takt_perf_stat_add(struct takt_perf_stat *s, int64_t v) { perf_stat_add(s, v); }

int takt_perf_hist_init(struct takt_perf_hist *h, int64_t lo, int64_t bin, uint32_t nbins)
{
    memset(h, 0, sizeof(*h));
    if (bin <= 0 || nbins == 0)
        return -EINVAL;
    /* The top edge lo + bin*nbins must be representable, or the over test overflows. */
    if ((unsigned __int128)bin * nbins + (lo > 0 ? (uint64_t)lo : 0) > (uint64_t)INT64_MAX)
        return -ERANGE;
    h->bins = calloc(nbins, sizeof(*h->bins));
    if (!h->bins)
        return -ENOMEM;
    h->lo = lo;
    h->bin = bin;
    h->nbins = nbins;
    h->span = (uint64_t)bin * nbins;
    /* the reciprocal perf_hist_bin multiplies by (perf/rec.h): l = ceil(log2 bin) */
    unsigned l = 0;
    while (((uint64_t)1 << l) < (uint64_t)bin)
        l++;
    if (((uint64_t)1 << l) == (uint64_t)bin) {
        h->mul = 0;
        h->shift = l;
    } else {
        unsigned __int128 p = (unsigned __int128)1 << (63 + l);
        h->mul = (uint64_t)((p + (uint64_t)bin - 1) / (uint64_t)bin);
        h->shift = l - 1;           /* after the high half: 63 + l in all (l >= 2) */
    }
    return 0;
}

void takt_perf_hist_free(struct takt_perf_hist *h)
{
    free(h->bins);
    h->bins = NULL;
    h->nbins = 0;
    h->span = 0;                /* every value over the top from now on, as no bins */
    h->total = h->under = h->over = 0;
}

void takt_perf_hist_reset(struct takt_perf_hist *h)
{
    if (h->bins)
        memset(h->bins, 0, (size_t)h->nbins * sizeof(*h->bins));
    h->under = h->over = h->total = 0;
}

void takt_perf_hist_add(struct takt_perf_hist *h, int64_t v)
{
    h->total++;
    if (v < h->lo) {
        h->under++;
        return;
    }
    /* Unsigned difference: v - lo cannot overflow even for lo < 0 and v near INT64_MAX. */
    uint64_t x = (uint64_t)v - (uint64_t)h->lo;
    if (x >= h->span)
        h->over++;
    else
        h->bins[perf_hist_bin(h, x)]++;
}

/* ceil(p/100 * total) in exact integer arithmetic: p is taken in millionths of a
 * percent, so 99.9 % of 10000 is rank 9990, not 9991 through a rounding error. */
static uint64_t rank_of(double p, uint64_t total)
{
    if (!(p > 0))          /* also NaN: never let it reach the integer conversion */
        return 1;
    if (p >= 100)
        return total;
    unsigned __int128 pm = (unsigned __int128)(p * 1e6 + 0.5);   /* 1e-6 % units */
    unsigned __int128 num = pm * total;
    const unsigned __int128 den = 100000000u;                     /* 100 % * 1e6 */
    uint64_t r = (uint64_t)((num + den - 1) / den);
    return r ? r : 1;
}

int64_t takt_perf_hist_percentile(const struct takt_perf_hist *h, double p)
{
    if (h->total == 0)
        return 0;
    uint64_t rank = rank_of(p, h->total);
    uint64_t seen = h->under;
    if (rank <= seen)
        return h->lo;
    for (uint32_t i = 0; i < h->nbins; i++) {
        seen += h->bins[i];
        if (rank <= seen)
            return h->lo + (int64_t)(i + 1) * h->bin;   /* upper edge: a safe bound */
    }
    return INT64_MAX;
}
