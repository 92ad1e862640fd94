/* Per-node events of the MN (a CN's NMT state changed, its boot step changed, it was
 * reset and why, it does not answer IdentRequests) handed from the MN's real-time
 * thread to a reader through the event ring (rt/event.h, TAKT_EV_PLK records, unit =
 * node ID): the reader never reads the core the RT thread writes. */
#ifndef TAKT_PLK_MN_EVENTS_H
#define TAKT_PLK_MN_EVENTS_H

#include "plk/mn.h"
#include "rt/event.h"

/* A CN is reported missing once it left this many IdentRequests unanswered over at least
 * PLK_MN_MISSING_NS (a CN that is on the network answers the first: DS 301 7.4.1.2). */
#define PLK_MN_MISSING_IDENTS 3
#define PLK_MN_MISSING_NS (3 * TAKT_NS_PER_S)

struct plk_mn_events {
    struct rt_evring ring;
    /* what the last scan saw, per node (RT thread only) */
    uint8_t   state[PLK_NODE_CN_MAX + 1], step[PLK_NODE_CN_MAX + 1];
    uint64_t  lost[PLK_NODE_CN_MAX + 1];
    bool      missing[PLK_NODE_CN_MAX + 1];
    bool      primed;          /* the first scan took the starting values */
};

int  plk_mn_events_init(struct plk_mn_events *e);
void plk_mn_events_free(struct plk_mn_events *e);
/* RT thread, after each cycle: push an event for every change since the last scan
 * (enum takt_plk_ev: STATE v[0] NMT state; STEP v[0] boot step, v[1] NMT state; RESET
 * with the reason as text; MISSING v[0] IdentRequests, v[1] seconds), then wake a
 * sleeping reader if there were any or the MN's state changed (rt_evring_notify). */
void plk_mn_events_scan(struct plk_mn_events *e, const struct plk_mn *mn, takt_ns_t now);

#endif
