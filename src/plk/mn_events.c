/* Per-node MN events (see mn_events.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "plk/mn_events.h"

int plk_mn_events_init(struct plk_mn_events *e)
{
    memset(e, 0, sizeof *e);
    return rt_logring_init(&e->ring, 1024);
}

void plk_mn_events_free(struct plk_mn_events *e)
{
    rt_logring_free(&e->ring);
}

static void push(struct plk_mn_events *e, takt_ns_t now, const struct plk_mn_node *n,
                 enum plk_mn_event_kind k, const char *why)
{
    /* why is a string literal (plk_mn_node.lost_why): its address outlives the record,
     * and the reasons are longer than a record's message */
    rt_log(&e->ring, now, k == PLK_MN_EV_STATE || k == PLK_MN_EV_STEP ? RT_LOG_INFO : RT_LOG_WARN, 0,
           "node,state,step|kind<<8,why", (const int64_t[]){ n->id, n->state, n->step | (unsigned)k << 8,
           (int64_t)(intptr_t)why }, 4);
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
            push(e, now, n, PLK_MN_EV_RESET, n->lost_why);
        }
        if (n->state != e->state[id]) {
            e->state[id] = n->state;
            push(e, now, n, PLK_MN_EV_STATE, NULL);
        }
        if (n->step != e->step[id]) {
            e->step[id] = n->step;
            push(e, now, n, PLK_MN_EV_STEP, NULL);
        }
        if (n->step != MNS_UNIDENT) {
            e->missing[id] = false;
        } else if (!e->missing[id] && n->idents_unanswered >= PLK_MN_MISSING_IDENTS &&
                   now - n->ident_first >= PLK_MN_MISSING_NS) {
            e->missing[id] = true;   /* once per stretch without an answer */
            push(e, now, n, PLK_MN_EV_MISSING, NULL);
        }
    }
}

enum plk_mn_event_kind plk_mn_event_kind(const struct rt_log_rec *r)
{
    return (enum plk_mn_event_kind)(r->d[2] >> 8);
}

int plk_mn_event_format(const struct rt_log_rec *r, char *buf, size_t len)
{
    unsigned node = (unsigned)r->d[0];
    switch (plk_mn_event_kind(r)) {
    case PLK_MN_EV_STATE:
        return snprintf(buf, len, "CN %u %s", node, takt_plk_nmt_name((int)r->d[1]));
    case PLK_MN_EV_STEP:
        return snprintf(buf, len, "CN %u boot step %s", node,
                        plk_mn_step_name((enum plk_mn_step)(r->d[2] & 0xFF)));
    case PLK_MN_EV_RESET:
        return snprintf(buf, len, "CN %u reset: %s", node,
                        r->d[3] ? (const char *)(intptr_t)r->d[3] : "reset by the MN");
    case PLK_MN_EV_MISSING:
        return snprintf(buf, len, "CN %u missing: no IdentResponse to %u IdentRequests in %.0f s: is it "
                        "on the network (node ID switch, cable)?",
                        node, PLK_MN_MISSING_IDENTS, (double)PLK_MN_MISSING_NS / 1e9);
    }
    return snprintf(buf, len, "CN %u: event %lld", node, (long long)(r->d[2] >> 8));
}
