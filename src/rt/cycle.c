/* Deadline arithmetic of the cyclic scheduler, cyclictest semantics (rt-tests; clock_nanosleep(2) TIMER_ABSTIME):
 * absolute deadlines start + k*period, missed deadlines skipped and counted, never queued. */
#include <takt/rt.h>
#include <errno.h>
#include <string.h>
#include <time.h>

/* The counters another thread may read while the cycle runs (takt_rt_loop_get_info) are
 * stored atomically (relaxed: each whole, not all of one cycle); the rest is the cycle's. */
#define PUT(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

void takt_rt_cycle_init(struct takt_rt_cycle *c, takt_ns_t period, takt_ns_t start)
{
    takt_ns_t p = period > 0 ? period : 1;   /* a zero period would never advance */
    if (c->period != p)                      /* a loop restarting keeps it: no write */
        c->period = p;
    c->next = start;
    c->last_wake = 0;
    c->wake_period = 0;
    c->overran = false;
    PUT(c->wake_dev, 0);
    PUT(c->cycles, 0);
    PUT(c->overruns, 0);
    PUT(c->skipped, 0);
}

/* Move c->next past `now`, counting the deadlines jumped over. One overrun per cycle,
 * however many deadlines it swallowed. Deadlines at or before `now` are missed: a
 * deadline equal to now would make the loop run back-to-back. */
static void skip_missed(struct takt_rt_cycle *c, takt_ns_t now)
{
    if (c->next > now)
        return;
    uint64_t missed = (uint64_t)(now - c->next) / (uint64_t)c->period + 1;
    c->next += (takt_ns_t)missed * c->period;   /* stays on the start + k*period grid */
    PUT(c->skipped, c->skipped + missed);
    if (!c->overran) {
        c->overran = true;
        PUT(c->overruns, c->overruns + 1);
    }
}

void takt_rt_cycle_woke(struct takt_rt_cycle *c, takt_ns_t now)
{
    PUT(c->wake_dev, now - c->next);
    c->wake_period = c->cycles ? now - c->last_wake : 0;
    c->last_wake = now;
    PUT(c->cycles, c->cycles + 1);
    c->overran = false;
    c->next += c->period;
    skip_missed(c, now);
}

void takt_rt_cycle_done(struct takt_rt_cycle *c, takt_ns_t now)
{
    skip_missed(c, now);
}

takt_ns_t takt_rt_cycle_wait(struct takt_rt_cycle *c)
{
    struct timespec ts = {
        .tv_sec = c->next / TAKT_NS_PER_S,
        .tv_nsec = c->next % TAKT_NS_PER_S,
    };
    /* clock_nanosleep returns the error number (not -1/errno); EINTR: sleep again to
     * the same absolute deadline, which is what absolute sleeps are for. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    takt_ns_t now = takt_now();
    takt_rt_cycle_woke(c, now);
    return now;
}
