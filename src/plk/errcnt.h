/* Loss-of-frame threshold counters (EPSG DS 301 DLL error handling, oplk errhndk.c): each event adds 1 to the
 * cumulative count and 8 to the threshold count, each good cycle takes 1 off, and the
 * error fires when the threshold count reaches the threshold; threshold 0 disables. */
#ifndef TAKT_PLK_ERRCNT_H
#define TAKT_PLK_ERRCNT_H

#include <stdbool.h>
#include <stdint.h>

#define PLK_ERRCNT_EVENT_WEIGHT 8

struct plk_errcnt {
    uint32_t cumulative;     /* sub 1: every event, never decreases */
    uint32_t thr_cnt;        /* sub 2 */
    uint32_t threshold;      /* sub 3; 0 = counter disabled (events still counted) */
    uint32_t fired;          /* how many times the threshold was reached */
};

void plk_errcnt_init(struct plk_errcnt *e, uint32_t threshold);
/* Record an event. Returns true when this event makes the counter fire; the threshold
 * count is then reset to 0. */
bool plk_errcnt_event(struct plk_errcnt *e);
/* Record an error-free cycle. */
void plk_errcnt_good(struct plk_errcnt *e);
void plk_errcnt_reset(struct plk_errcnt *e);

#endif
