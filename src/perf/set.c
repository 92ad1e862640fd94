/* Measurement sets: lock-free recording from the real-time thread into cumulative and
 * double-banked interval statistics, and the bank flip that hands a finished interval
 * to a reporter thread without copying anything in the cycle. */
#include <takt/perf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "perf/set.h"
#include "perf/rec.h"

int takt_perf_msmt_init(struct takt_perf_msmt *m, const char *name, int64_t lo, int64_t bin, uint32_t nbins)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->name, sizeof(m->name), "%s", name ? name : "");
    takt_perf_stat_reset(&m->total);
    takt_perf_stat_reset(&m->ival[0]);
    takt_perf_stat_reset(&m->ival[1]);
    int r = takt_perf_hist_init(&m->hist, lo, bin, nbins);
    if (!r)
        r = takt_perf_hist_init(&m->ihist[0], lo, bin, nbins);
    if (!r)
        r = takt_perf_hist_init(&m->ihist[1], lo, bin, nbins);
    if (r)
        takt_perf_msmt_free(m);
    return r;
}

void takt_perf_msmt_free(struct takt_perf_msmt *m)
{
    takt_perf_hist_free(&m->hist);
    takt_perf_hist_free(&m->ihist[0]);
    takt_perf_hist_free(&m->ihist[1]);
}

void takt_perf_set_init(struct takt_perf_set *s, bool threaded)
{
    memset(s, 0, sizeof(*s));
    s->threaded = threaded;
}

int takt_perf_set_create(bool threaded, struct takt_perf_set **out)
{
    struct takt_perf_set *s = malloc(sizeof *s);
    *out = s;
    if (!s)
        return -ENOMEM;
    takt_perf_set_init(s, threaded);
    return 0;
}

void takt_perf_set_destroy(struct takt_perf_set *s) { free(s); }

unsigned takt_perf_set_count(const struct takt_perf_set *s) { return s->n; }

struct takt_perf_msmt *takt_perf_set_msmt(const struct takt_perf_set *s, unsigned i)
{
    return i < s->n ? s->m[i] : NULL;
}

struct takt_perf_msmt *takt_perf_set_find(const struct takt_perf_set *s, const char *name)
{
    for (unsigned i = 0; i < s->n; i++)
        if (!strcmp(s->m[i]->name, name))
            return s->m[i];
    return NULL;
}

void takt_perf_set_on_flip(struct takt_perf_set *s, void (*fn)(void *arg), void *arg)
{
    s->on_flip_arg = arg;
    s->on_flip = fn;
}

int takt_perf_set_add(struct takt_perf_set *s, struct takt_perf_msmt *m)
{
    if (s->n >= TAKT_PERF_MAX_MSMT)
        return -ENOSPC;
    for (unsigned i = 0; i < s->n; i++)
        if (s->m[i] == m)
            return -EEXIST;
    s->m[s->n++] = m;
    return 0;
}

void takt_perf_record(struct takt_perf_set *s, struct takt_perf_msmt *m, int64_t v)
{
    /* `active` is written only by this (the recording) thread, so a plain read. */
    int b = s->active;
    struct takt_perf_stat *iv = &m->ival[b];
    struct takt_perf_hist *h = &m->hist, *ih = &m->ihist[b];
    perf_stat_add(&m->total, v);
    perf_stat_add(iv, v);
    h->total++;
    ih->total++;
    /* the two histograms have one layout (takt_perf_msmt_init): the bin is found once,
     * as takt_perf_hist_add finds it */
    if (v < h->lo) {
        h->under++;
        ih->under++;
        return;
    }
    uint64_t x = (uint64_t)v - (uint64_t)h->lo;
    if (x >= h->span) {
        h->over++;
        ih->over++;
        return;
    }
    uint64_t i = perf_hist_bin(h, x);
    h->bins[i]++;
    ih->bins[i]++;
}

void takt_perf_set_cycle_end(struct takt_perf_set *s)
{
    int req = __atomic_load_n(&s->flip_req, __ATOMIC_ACQUIRE);
    if (req == __atomic_load_n(&s->flip_ack, __ATOMIC_RELAXED))
        return;
    /* The acquire above orders the reporter's zeroing of the other bank (done in
     * takt_perf_set_release before it raised flip_req) before our first write into it. */
    if (s->on_flip)
        s->on_flip(s->on_flip_arg);
    s->active ^= 1;
    __atomic_store_n(&s->flip_ack, req, __ATOMIC_RELEASE);
}

static void sleep_100us(void)
{
    struct timespec ts = { 0, 100000 };
    nanosleep(&ts, NULL);
}

int takt_perf_set_snapshot(struct takt_perf_set *s, takt_ns_t timeout_ns)
{
    if (!s->threaded) {
        int done = s->active;
        if (s->on_flip)
            s->on_flip(s->on_flip_arg);
        s->active ^= 1;
        return done;
    }
    /* A request that timed out earlier stays pending: wait for that one instead of
     * raising another, so a bank is never flipped back into before it was released. */
    int req = __atomic_load_n(&s->flip_req, __ATOMIC_RELAXED);
    if (!s->pending) {
        req++;
        __atomic_store_n(&s->flip_req, req, __ATOMIC_RELEASE);
        s->pending = true;
    }
    for (takt_ns_t waited = 0;; waited += 100000) {
        if (__atomic_load_n(&s->flip_ack, __ATOMIC_ACQUIRE) == req)
            break;
        if (waited >= timeout_ns)
            return -ETIMEDOUT;
        sleep_100us();
    }
    s->pending = false;
    /* The RT side flipped and will not flip again before our next request. */
    return s->active ^ 1;
}

void takt_perf_set_release(struct takt_perf_set *s, int bank)
{
    if (bank != 0 && bank != 1)
        return;
    for (unsigned i = 0; i < s->n; i++) {
        takt_perf_stat_reset(&s->m[i]->ival[bank]);
        takt_perf_hist_reset(&s->m[i]->ihist[bank]);
    }
}

const struct takt_perf_stat *takt_perf_msmt_interval(const struct takt_perf_msmt *m, int bank,
                                           const struct takt_perf_hist **hist)
{
    if (bank != 0 && bank != 1)
        bank = 0;
    if (hist)
        *hist = &m->ihist[bank];
    return &m->ival[bank];
}
