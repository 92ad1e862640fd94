/* What the peer benchmark's standalone contenders (floor_cycle.c, plk_floor_cycle.c,
 * soem_cycle.c) share: an absolute-deadline loop on CLOCK_MONOTONIC and a stop flag that
 * SIGINT and SIGTERM raise, so each ends its loop and prints its summary. Each program
 * is built on its own with cc by peer-bench.sh; this header is included, not linked. */
#ifndef CYCLE_DEADLINE_H
#define CYCLE_DEADLINE_H

#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* SIGINT and SIGTERM set stop; no SA_RESTART, so a sleep they cut short returns EINTR */
static void catch_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void add_ns(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

#endif
