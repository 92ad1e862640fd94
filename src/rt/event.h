/* The event ring of both stacks (include/takt/event.h): struct takt_event records on an
 * rt_logring. One producer, the thread that drives the cycle, puts codes, values and
 * copied text arguments (never formatting, never allocating); one consumer takes them
 * and makes the text with a format per code (rt_ev_format and a protocol's table).
 *
 *   struct rt_evring ring;
 *   rt_evring_init(&ring, TAKT_EV_ECAT, 256);            // setup: allocates once
 *   RT_EV(&ring, now, TAKT_ECAT_EV_NO_FRAME, -1, 0, 1000);            // cycle
 *   RT_EVT(&ring, now, CODE, pos, 0, RT_TXT(name), station);          // with text
 *   struct takt_event ev;                                              // reader
 *   while (rt_evring_next(&ring, &ev)) ...
 *
 * Drops: a full ring counts the event lost; the next record after the loss carries the
 * count, so the reader returns one TAKT_EV_DROPPED record exactly where events went
 * missing (and one at the end when the loss is the newest thing).
 *
 * Waking the reader: instead of looking every few milliseconds, the reader may sleep in
 * rt_evring_wait; the producer calls rt_evring_notify once after each batch (the end of
 * its cycle, after it published what the reader reads beside the events). An event
 * count: notify bumps a generation when events came or the key it is given changed, and
 * makes a FUTEX_WAKE only when the reader sleeps, so a producer pays one compare per
 * cycle while nothing happens and no system call while nobody waits.
 *   while (running) {                                    // reader
 *       ... look at the published state, periodic work ...
 *       rt_evring_wait(&ring, next_periodic - now);
 *       while (rt_evring_next(&ring, &ev)) ...
 *   } */
#ifndef TAKT_RT_EVENT_H
#define TAKT_RT_EVENT_H

#include <takt/event.h>
#include "rt/logring.h"

struct rt_evring {
    struct rt_logring r;
    uint16_t proto;
    uint64_t reported;      /* consumer: drops already returned as TAKT_EV_DROPPED */
    takt_ns_t last_at;      /* consumer: the time of the last record returned */
    uint32_t gen;           /* atomic: bumped by notify (events or a new key) and wake */
    uint32_t sleeping;      /* atomic: 1 while the consumer is in rt_evring_wait */
    uint32_t seen;          /* consumer: gen when it last returned from rt_evring_wait */
    uint32_t note_head;     /* producer: head at the last notify */
    uint32_t note_key;      /* producer: key at the last notify */
};

int  rt_evring_init(struct rt_evring *e, uint16_t proto, uint32_t capacity);
void rt_evring_free(struct rt_evring *e);

/* Producer. v: nv values (at most TAKT_EVENT_NV; more are cut), txt: NULL or a
 * NULL-terminated list of strings copied into arg in order (each cut to what fits).
 * false when the ring was full (the event is counted as dropped). */
bool rt_ev_put(struct rt_evring *e, takt_ns_t at, unsigned code, int32_t unit, int32_t err,
               const int64_t *v, unsigned nv, const char *const *txt);
/* The same into a record of one's own (proto given), and a push of such a record. */
void rt_ev_fill(struct takt_event *ev, uint16_t proto, takt_ns_t at, unsigned code, int32_t unit,
                int32_t err, const int64_t *v, unsigned nv, const char *const *txt);
bool rt_evring_push(struct rt_evring *e, const struct takt_event *ev);
#define RT_TXT(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define RT_EV_VALS(...) (const int64_t[]){ 0, ##__VA_ARGS__ } + 1, \
    (unsigned)(sizeof((const int64_t[]){ 0, ##__VA_ARGS__ }) / sizeof(int64_t) - 1)
/* RT_EV(e, at, code, unit, err, values...) and RT_EVT(..., RT_TXT(texts...), values...) */
#define RT_EV(e, at, code, unit, err, ...) \
    rt_ev_put((e), (at), (code), (unit), (err), RT_EV_VALS(__VA_ARGS__), NULL)
#define RT_EVT(e, at, code, unit, err, txt, ...) \
    rt_ev_put((e), (at), (code), (unit), (err), RT_EV_VALS(__VA_ARGS__), (txt))

/* Consumer: the next event (or a TAKT_EV_DROPPED record); false when there is none. */
bool rt_evring_next(struct rt_evring *e, struct takt_event *out);
/* Events lost to a full ring so far (any thread; a snapshot). */
uint64_t rt_evring_dropped(const struct rt_evring *e);

/* Producer, after a batch of puts and after publishing what the reader looks at beside
 * the events: wakes a consumer sleeping in rt_evring_wait when events were put since
 * the last call or key (a state the reader acts on, folded into a word) differs from the
 * last call's. Only the producer calls it. */
void rt_evring_notify_slow(struct rt_evring *e, uint32_t key);
static inline void rt_evring_notify(struct rt_evring *e, uint32_t key)
{
    /* head is this thread's own: a plain compare in a cycle with nothing new */
    if (__atomic_load_n(&e->r.head, __ATOMIC_RELAXED) != e->note_head || key != e->note_key)
        rt_evring_notify_slow(e, key);
}
/* Any thread: wake a sleeping consumer (the producer's cycle ended, say). */
void rt_evring_wake(struct rt_evring *e);
void rt_evring_wake_fn(void *ring);   /* the same as a callback (takt_rt_loop's on_end) */
/* Consumer: sleep until a notify that found something or a wake since this consumer's
 * last return from here, a signal, or timeout_ns; returns at once when one came
 * already or an event waits unread. 1 when woken or an event waits, 0 on the timeout,
 * -EINTR when a signal handler ran. */
int rt_evring_wait(struct rt_evring *e, takt_ns_t timeout_ns);

/* Format an event by fmt, a printf-like format: integer conversions (d i u x X c, with
 * flags, width, precision; length modifiers are ignored) take the next value, %s the
 * next text argument (control bytes escaped), %U the unit, %E takt_strerror of the next
 * value, %.nD the next value's n low bytes as hex, the lowest first ("0A 00 ..."), %{a|b|c} the alternative the next value picks, %% a percent sign; any other
 * letter L takes the next value and prints conv(ctx, L, value) (a name: NMT state, AL
 * status text ...). Returns snprintf's result; "?" for a value or text beyond those
 * the event has. */
typedef const char *(*rt_ev_conv_fn)(char letter, int64_t value);
int rt_ev_vformat(const struct takt_event *ev, const char *fmt, rt_ev_conv_fn conv,
                  char *buf, size_t len);
/* The TAKT_EV_RING records' text ("3 events dropped: ..."); -1 for another code. */
int rt_ev_ring_format(const struct takt_event *ev, char *buf, size_t len);

#endif
