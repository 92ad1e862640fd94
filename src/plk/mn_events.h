/* Per-node events of the MN (a CN's NMT state changed, it was reset and why, it does
 * not answer IdentRequests) handed from the MN's real-time thread to a reporter thread
 * through a single-producer/single-consumer ring: the reporter never reads the core the
 * RT thread writes. */
#ifndef TAKT_PLK_MN_EVENTS_H
#define TAKT_PLK_MN_EVENTS_H

#include "plk/mn.h"
#include "rt/logring.h"

/* A CN is reported missing once it left this many IdentRequests unanswered over at least
 * PLK_MN_MISSING_NS (a CN that is on the network answers the first: DS 301 7.4.1.2). */
#define PLK_MN_MISSING_IDENTS 3
#define PLK_MN_MISSING_NS (3 * TAKT_NS_PER_S)

enum plk_mn_event_kind {
    PLK_MN_EV_STATE = 0,   /* the CN reported another NMT state */
    PLK_MN_EV_STEP,        /* the MN's boot step for it changed */
    PLK_MN_EV_RESET,       /* removed from the cycle and reset; msg: why */
    PLK_MN_EV_MISSING,     /* no IdentResponse (PLK_MN_MISSING_IDENTS requests, _NS) */
};

struct plk_mn_events {
    struct rt_logring ring;
    /* what the last scan saw, per node (RT thread only) */
    uint8_t   state[PLK_NODE_CN_MAX + 1], step[PLK_NODE_CN_MAX + 1];
    uint64_t  lost[PLK_NODE_CN_MAX + 1];
    bool      missing[PLK_NODE_CN_MAX + 1];
    bool      primed;          /* the first scan took the starting values */
};

int  plk_mn_events_init(struct plk_mn_events *e);
void plk_mn_events_free(struct plk_mn_events *e);
/* RT thread, after each cycle: push a record for every change since the last scan.
 * Records: d[0] node, d[1] NMT state, d[2] boot step | kind << 8, d[3] the reason of a
 * reset (a string literal's address, or 0). */
void plk_mn_events_scan(struct plk_mn_events *e, const struct plk_mn *mn, takt_ns_t now);
/* "CN 32 OPERATIONAL", "CN 1 reset: loss of PRes threshold (...)", "CN 110 missing: no
 * IdentResponse to 3 IdentRequests in 3 s: is it on the network (...)?". Returns
 * snprintf's result. */
enum plk_mn_event_kind plk_mn_event_kind(const struct rt_log_rec *r);
int  plk_mn_event_format(const struct rt_log_rec *r, char *buf, size_t len);

#endif
