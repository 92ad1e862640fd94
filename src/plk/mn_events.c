/* Per-node MN events (see mn_events.h). */
#include <string.h>
#include "plk/mn_events.h"

int plk_mn_events_init(struct plk_mn_events *e)
{
    memset(e, 0, sizeof *e);
    return rt_evring_init(&e->ring, TAKT_EV_PLK, 1024);
}

void plk_mn_events_free(struct plk_mn_events *e)
{
    rt_evring_free(&e->ring);
}

void plk_mn_events_scan(struct plk_mn_events *e, const struct plk_mn *mn, takt_ns_t now)
{
    bool first = !e->primed;
    e->primed = true;
    for (unsigned i = 0; i < mn->n_ids; i++) {
        const struct plk_mn_node *n = mn->node[mn->ids[i]];
        unsigned id = n->id;
        if (first) {   /* where each node starts is no event */
            e->state[id] = n->state;
            e->step[id] = n->step;
            e->lost[id] = n->st.lost;
        }
        if (n->st.lost != e->lost[id]) {
            e->lost[id] = n->st.lost;
            /* the reason exists only as the core's text (plk_mn_node.lost_why) */
            RT_EVT(&e->ring, now, TAKT_PLK_EV_RESET, (int32_t)id, 0,
                   RT_TXT(n->lost_why ? n->lost_why : "reset by the MN"), n->state);
        }
        if (n->state != e->state[id]) {
            e->state[id] = n->state;
            RT_EV(&e->ring, now, TAKT_PLK_EV_STATE, (int32_t)id, 0, n->state);
        }
        if (n->step != e->step[id]) {
            e->step[id] = n->step;
            RT_EV(&e->ring, now, TAKT_PLK_EV_STEP, (int32_t)id, 0, n->step, n->state);
        }
        if (n->step != MNS_UNIDENT) {
            e->missing[id] = false;
        } else if (!e->missing[id] && n->idents_unanswered >= PLK_MN_MISSING_IDENTS &&
                   now - n->ident_first >= PLK_MN_MISSING_NS) {
            e->missing[id] = true;   /* once per stretch without an answer */
            RT_EV(&e->ring, now, TAKT_PLK_EV_MISSING, (int32_t)id, 0, PLK_MN_MISSING_IDENTS,
                  PLK_MN_MISSING_NS / TAKT_NS_PER_S);
        }
    }
    /* a reader asleep in takt_plk_mn_wait_event: woken for these events, and when the
     * MN's own state or its count of Operational CNs (published before this) changed */
    rt_evring_notify(&e->ring, mn->state | (uint32_t)mn->st.nodes_operational << 8);
}
