/* Single-producer/single-consumer log ring: free-running head/tail counters published
 * with release/acquire so a record is complete before the other side can see it. */
#include "rt/logring.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_logring_init_size(struct rt_logring *r, uint32_t capacity, size_t size)
{
    memset(r, 0, sizeof(*r));
    if (capacity == 0 || capacity > (1u << 24) || size == 0 || size > (1u << 16))
        return -EINVAL;
    uint32_t cap = 2;
    while (cap < capacity)
        cap <<= 1;
    r->rec = calloc(cap, size);
    if (!r->rec)
        return -ENOMEM;
    r->size = (uint32_t)size;
    r->mask = cap - 1;
    return 0;
}

int rt_logring_init(struct rt_logring *r, uint32_t capacity)
{
    return rt_logring_init_size(r, capacity, sizeof(struct rt_log_rec));
}

void rt_logring_free(struct rt_logring *r)
{
    free(r->rec);
    r->rec = NULL;
    r->mask = 0;
}

/* Producer: reserve the slot at head or count a drop. */
static void *slot_or_drop(struct rt_logring *r, uint32_t *h)
{
    *h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    uint32_t t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    if (!r->rec || *h - t > r->mask) {
        __atomic_store_n(&r->dropped, __atomic_load_n(&r->dropped, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELAXED);
        return NULL;
    }
    return r->rec + (size_t)(*h & r->mask) * r->size;
}

void *rt_logring_reserve(struct rt_logring *r)
{
    uint32_t h;
    return slot_or_drop(r, &h);
}

void rt_logring_commit(struct rt_logring *r)
{
    __atomic_store_n(&r->head, __atomic_load_n(&r->head, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

bool rt_logring_pop_into(struct rt_logring *r, void *out)
{
    uint32_t t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    uint32_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    if (h == t || !r->rec)
        return false;
    memcpy(out, r->rec + (size_t)(t & r->mask) * r->size, r->size);
    __atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
    return true;
}

bool rt_logring_push(struct rt_logring *r, const struct rt_log_rec *rec)
{
    uint32_t h;
    struct rt_log_rec *s = r->size == sizeof *rec ? slot_or_drop(r, &h) : NULL;
    if (!s)
        return false;
    *s = *rec;
    s->msg[RT_LOG_MSG_LEN - 1] = '\0';
    if (s->nd > RT_LOG_NDETAIL)
        s->nd = RT_LOG_NDETAIL;
    __atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
    return true;
}

bool rt_log(struct rt_logring *r, takt_ns_t time, enum rt_log_level level, int32_t code,
            const char *msg, const int64_t *d, unsigned nd)
{
    uint32_t h;
    struct rt_log_rec *s = r->size == sizeof *s ? slot_or_drop(r, &h) : NULL;
    if (!s)
        return false;
    s->time = time;
    s->level = level;
    s->code = code;
    if (nd > RT_LOG_NDETAIL || !d)
        nd = d ? RT_LOG_NDETAIL : 0;
    s->nd = (uint8_t)nd;
    for (unsigned i = 0; i < RT_LOG_NDETAIL; i++)
        s->d[i] = i < nd ? d[i] : 0;
    /* bounded copy without snprintf: no formatting in the real-time thread */
    size_t n = msg ? strnlen(msg, RT_LOG_MSG_LEN - 1) : 0;
    memcpy(s->msg, msg ? msg : "", n);
    s->msg[n] = '\0';
    __atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
    return true;
}

bool rt_logring_pop(struct rt_logring *r, struct rt_log_rec *out)
{
    return r->size == sizeof *out && rt_logring_pop_into(r, out);
}

uint64_t rt_logring_dropped(const struct rt_logring *r)
{
    return __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
}

uint32_t rt_logring_count(const struct rt_logring *r)
{
    return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

unsigned rt_logring_drain(struct rt_logring *r, FILE *f, const char *prefix)
{
    struct rt_log_rec rec;
    char line[256];
    unsigned n = 0;
    while (rt_logring_pop(r, &rec)) {
        rt_log_format(&rec, line, sizeof(line));
        fprintf(f, "%s%s\n", prefix ? prefix : "", line);
        n++;
    }
    uint64_t d = rt_logring_dropped(r);
    if (d != r->dropped_seen) {
        fprintf(f, "%s%llu log records dropped: the ring (%u records) was full\n",
                prefix ? prefix : "", (unsigned long long)(d - r->dropped_seen), r->mask + 1);
        r->dropped_seen = d;
    }
    return n;
}

static const char *const level_names[] = {
    [RT_LOG_ERR] = "ERR",
    [RT_LOG_WARN] = "WARN",
    [RT_LOG_INFO] = "INFO",
    [RT_LOG_DEBUG] = "DEBUG",
};
_Static_assert(sizeof(level_names) / sizeof(level_names[0]) == RT_LOG_NLEVELS,
               "every log level needs a name");

const char *rt_log_level_name(int level)
{
    return level >= 0 && level < RT_LOG_NLEVELS ? level_names[level] : "?";
}

int rt_log_format(const struct rt_log_rec *rec, char *buf, size_t len)
{
    char det[RT_LOG_NDETAIL * 22 + 4] = "";
    size_t o = 0;
    unsigned nd = rec->nd > RT_LOG_NDETAIL ? RT_LOG_NDETAIL : rec->nd;
    for (unsigned i = 0; i < nd; i++)
        o += (size_t)snprintf(det + o, sizeof(det) - o, "%s%" PRId64, i ? " " : ": ", rec->d[i]);
    char code[96] = "";
    if (rec->code)
        snprintf(code, sizeof(code), " (%" PRId32 ": %s)", rec->code, takt_strerror(rec->code));
    int64_t t = rec->time;
    return snprintf(buf, len, "%" PRId64 ".%06" PRId64 " %s %.*s%s%s",
                    (int64_t)(t / TAKT_NS_PER_S), (int64_t)((t < 0 ? -t : t) % TAKT_NS_PER_S / 1000),
                    rt_log_level_name(rec->level), RT_LOG_MSG_LEN, rec->msg, det, code);
}
