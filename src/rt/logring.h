/* A lock-free single-producer/single-consumer ring of fixed-size log records: the
 * real-time thread records errors and events here instead of printing
 * (docs/architecture.md, Threads), a non-RT thread drains and prints them.
 *
 * Usage:
 *   struct rt_logring ring;
 *   rt_logring_init(&ring, 256);                        // setup: allocates once
 *   // RT thread (the only producer): never blocks, never allocates
 *   RT_LOGD(&ring, now, RT_LOG_ERR, -TAKT_EWKC, "WKC slave,expected,got", pos, 3, wkc);
 *   rt_log(&ring, now, RT_LOG_WARN, -ETIMEDOUT, "no reply", NULL, 0);
 *   // reporter thread (the only consumer)
 *   struct rt_log_rec rec; char line[200];
 *   while (rt_logring_pop(&ring, &rec)) { rt_log_format(&rec, line, sizeof(line)); ... }
 *   rt_logring_dropped(&ring);                          // records lost to a full ring
 *
 * Details are integers so the producer does no formatting: name them in the message
 * ("slave,register,expected,got") and put the values in d[0..n-1].
 *
 * The ring also carries records of another type and size (rt_logring_init_size with
 * rt_logring_reserve/commit and rt_logring_pop_into): the event rings of both stacks
 * (rt/event.h) are built on it. */
#ifndef TAKT_RT_LOGRING_H
#define TAKT_RT_LOGRING_H

#include <takt/takt.h>
#include <stdio.h>

enum rt_log_level {
    RT_LOG_ERR,
    RT_LOG_WARN,
    RT_LOG_INFO,
    RT_LOG_DEBUG,
    RT_LOG_NLEVELS
};

#define RT_LOG_NDETAIL 4
#define RT_LOG_MSG_LEN 48

struct rt_log_rec {
    takt_ns_t time;                 /* CLOCK_MONOTONIC ns, as given by the producer */
    int32_t   level;                /* enum rt_log_level */
    int32_t   code;                 /* 0, -errno or a takt code (takt_strerror) */
    int64_t   d[RT_LOG_NDETAIL];    /* detail values, meaning named in msg */
    uint8_t   nd;                   /* how many of d[] are used */
    char      msg[RT_LOG_MSG_LEN];  /* truncated, always NUL-terminated */
};

struct rt_logring {
    unsigned char *rec;             /* capacity records of `size` bytes */
    uint32_t size;                  /* bytes per record */
    uint32_t mask;                  /* capacity - 1; capacity is a power of two */
    uint32_t head;                  /* producer writes; atomic */
    uint32_t tail;                  /* consumer writes; atomic */
    uint64_t dropped;               /* producer writes; atomic; records lost when full */
    uint64_t dropped_seen;          /* consumer: drops already reported by drain */
};

/* capacity is rounded up to a power of two (>= 2). 0 or -ENOMEM/-EINVAL. */
int  rt_logring_init(struct rt_logring *r, uint32_t capacity);
void rt_logring_free(struct rt_logring *r);
/* A ring of records of `size` bytes each (setup: allocates once). */
int  rt_logring_init_size(struct rt_logring *r, uint32_t capacity, size_t size);

/* Producer side of a ring of any record size: the slot to fill, or NULL (and a counted
 * drop) if full; rt_logring_commit publishes it. Never blocks, never allocates. */
void *rt_logring_reserve(struct rt_logring *r);
void rt_logring_commit(struct rt_logring *r);
/* Consumer side: copy the oldest record (size bytes) to out and free its slot. */
bool rt_logring_pop_into(struct rt_logring *r, void *out);

/* Producer side (one thread). Copies *rec in; false (and a counted drop) if full. */
bool rt_logring_push(struct rt_logring *r, const struct rt_log_rec *rec);
/* Convenience: build the record in place from msg and nd (<= RT_LOG_NDETAIL) detail
 * values d (may be NULL when nd is 0). */
bool rt_log(struct rt_logring *r, takt_ns_t time, enum rt_log_level level, int32_t code,
            const char *msg, const int64_t *d, unsigned nd);
/* rt_log with the details as arguments (at least one):
 * RT_LOGD(r, now, RT_LOG_ERR, TAKT_EWKC, "WKC slave,expected,got", pos, 3, wkc) */
#define RT_LOGD(r, time, level, code, msg, ...)                                   \
    rt_log((r), (time), (level), (code), (msg), (const int64_t[]){ __VA_ARGS__ },  \
           (unsigned)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)))

/* Consumer side (one thread). true and *out filled if a record was there. */
bool rt_logring_pop(struct rt_logring *r, struct rt_log_rec *out);
uint64_t rt_logring_dropped(const struct rt_logring *r);
/* Records waiting (a snapshot; exact only from the consumer or producer thread). */
uint32_t rt_logring_count(const struct rt_logring *r);

/* Consumer convenience: pop every waiting record and print it as a line to f
 * (prefixed by `prefix` if not NULL), then one line for records dropped since the
 * last drain. Returns the number of records printed. */
unsigned rt_logring_drain(struct rt_logring *r, FILE *f, const char *prefix);

/* "ERR", "WARN", "INFO", "DEBUG" ("?" for others). */
const char *rt_log_level_name(int level);
/* `12.345678 ERR WKC slave,expected,got: 3 3 1 (-1001: working counter differs from
 * the expected value)`: time in s with us, message, details, code and its name if
 * non-zero. Returns snprintf's result. */
int  rt_log_format(const struct rt_log_rec *rec, char *buf, size_t len);

#endif
