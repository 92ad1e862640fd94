/* Loss-of-frame threshold counters, the +8 / -1 rule of the EPSG DS 301 threshold counters (oplk errhndk.c). */
#include "plk/errcnt.h"

void plk_errcnt_init(struct plk_errcnt *e, uint32_t threshold)
{
    e->cumulative = 0;
    e->thr_cnt = 0;
    e->threshold = threshold;
    e->fired = 0;
}

bool plk_errcnt_event(struct plk_errcnt *e)
{
    e->cumulative++;
    if (e->threshold == 0)      /* disabled: counted, never fires */
        return false;
    e->thr_cnt += PLK_ERRCNT_EVENT_WEIGHT;
    if (e->thr_cnt < e->threshold)
        return false;
    /* Fired: the reaction (cycle error, node removal) starts over from zero. */
    e->thr_cnt = 0;
    e->fired++;
    return true;
}

void plk_errcnt_good(struct plk_errcnt *e)
{
    if (e->thr_cnt > 0)
        e->thr_cnt--;
}

void plk_errcnt_reset(struct plk_errcnt *e)
{
    e->thr_cnt = 0;
}
