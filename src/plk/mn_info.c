/* The MN's boot state per CN and its configuration as public API
 * (takt_plk_mn_node_info, takt_plk_mn_get_info), read from other threads through what
 * the RT thread publishes (mn_info.h); the SDO abort code of the last user transfer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include "plk/driver.h"
#include "plk/mn_info.h"

_Static_assert((int)TAKT_PLK_STEP_UNIDENT == (int)MNS_UNIDENT && (int)TAKT_PLK_STEP_CONFIG == (int)MNS_CONFIG &&
               (int)TAKT_PLK_STEP_WAIT_READY == (int)MNS_WAIT_READY &&
               (int)TAKT_PLK_STEP_OPERATIONAL == (int)MNS_OPERATIONAL &&
               (int)TAKT_PLK_STEP_STOPPED == (int)MNS_STOPPED && (int)MNS_COUNT == (int)TAKT_PLK_STEP_STOPPED + 1,
               "the public boot steps are the core's");
_Static_assert(sizeof(((struct plk_mn_pub_node *)0)->note) == sizeof(((struct plk_mn_node *)0)->note) &&
               sizeof(((struct takt_plk_node_info *)0)->note) == sizeof(((struct plk_mn_node *)0)->note),
               "one note size");
_Static_assert(sizeof(((struct takt_plk_mn_info *)0)->nmtreq_last_refused) ==
               sizeof(((struct plk_mn *)0)->nmtreq_last), "one NMTRequest text size");

#define BUF_WORDS PLK_MN_PUB_WORDS(struct plk_mn_pub_node)
_Static_assert(PLK_MN_PUB_WORDS(char[128]) <= BUF_WORDS, "scratch words hold either");

/* Words stored with release, loaded with acquire: a reader that loads any word of a
 * write in progress sees the odd sequence (or a later one) when it reads the sequence
 * again (as the statistics in driver_mn.c). */
static void words_store(uint64_t *dst, const void *src, size_t len)
{
    uint64_t w[BUF_WORDS] = { 0 };
    memcpy(w, src, len);
    for (size_t i = 0; i < (len + 7) / 8; i++)
        __atomic_store_n(&dst[i], w[i], __ATOMIC_RELEASE);
}

static void read_words(const struct plk_mn_pub *p, void *dst, const uint64_t *src, size_t len)
{
    uint64_t w[BUF_WORDS];
    for (;;) {
        unsigned s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
        if (!(s1 & 1)) {
            for (size_t i = 0; i < (len + 7) / 8; i++)
                w[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
            if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == s1) {
                memcpy(dst, w, len);
                return;
            }
        }
        sched_yield();
    }
}

/* A CN that is on the network answers the first IdentRequest (DS 301 7.4.1.2): after
 * PLK_MN_MISSING_IDENTS unanswered over PLK_MN_MISSING_NS it is reported missing, as
 * the MN's node events do. */
static bool node_missing(const struct plk_mn_node *n, takt_ns_t now)
{
    return n->step == MNS_UNIDENT && n->idents_unanswered >= PLK_MN_MISSING_IDENTS &&
           now - n->ident_first >= PLK_MN_MISSING_NS;
}

static void node_now(const struct plk_mn_node *n, bool missing, struct plk_mn_pub_node *o)
{
    memset(o, 0, sizeof *o);
    o->state = n->state;
    o->step = (uint8_t)n->step;
    o->in_cycle = n->in_cycle;
    o->chain_active = n->chain_active;
    o->missing = missing;
    o->last_reset = n->lost_why;
    memcpy(o->note, n->note, sizeof o->note);
    o->note[sizeof o->note - 1] = '\0';
}

/* Texts are compared as strings; both are mostly empty, which a byte each tells
 * without a call (this runs for every CN every cycle). */
static bool text_changed(const char *was, const char *is)
{
    return (was[0] || is[0]) && strcmp(was, is) != 0;
}

static bool node_changed(const struct plk_mn_pub_node *l, const struct plk_mn_node *n, bool missing)
{
    return l->state != n->state || l->step != n->step || l->in_cycle != n->in_cycle ||
           l->chain_active != n->chain_active || l->missing != missing ||
           l->last_reset != n->lost_why || text_changed(l->note, n->note);
}

void plk_mn_pub_update(struct plk_mn_pub *p, const struct plk_mn *mn, takt_ns_t now)
{
    unsigned seq = p->seq;    /* this thread is the only writer */
    bool all = seq == 0, open = false;
    for (unsigned i = 0; i < mn->n_ids; i++) {
        const struct plk_mn_node *n = mn->node[mn->ids[i]];
        bool missing = node_missing(n, now);
        if (!all && !node_changed(&p->last[n->id], n, missing))
            continue;
        if (!open) {
            __atomic_store_n(&p->seq, seq + 1, __ATOMIC_RELAXED);
            open = true;
        }
        node_now(n, missing, &p->last[n->id]);
        words_store(p->node[n->id], &p->last[n->id], sizeof p->last[n->id]);
    }
    if (all || text_changed(p->last_nmtreq, mn->nmtreq_last)) {
        if (!open) {
            __atomic_store_n(&p->seq, seq + 1, __ATOMIC_RELAXED);
            open = true;
        }
        snprintf(p->last_nmtreq, sizeof p->last_nmtreq, "%s", mn->nmtreq_last);
        words_store(p->nmtreq, p->last_nmtreq, sizeof p->last_nmtreq);
    }
    if (open)
        __atomic_store_n(&p->seq, seq + 2, __ATOMIC_RELEASE);
}

/* The core and the publication never move once the MN exists; the core's cfg and node
 * table are fixed from creation on. */
static struct plk_mn *core_of(const struct takt_plk_mn *mn)
{
    return plk_drv_mn_core((struct takt_plk_mn *)mn);
}

static const struct plk_mn_pub *pub_of(const struct takt_plk_mn *mn)
{
    return plk_drv_mn_pub((struct takt_plk_mn *)mn);
}

void takt_plk_mn_get_info(const struct takt_plk_mn *mn, struct takt_plk_mn_info *i)
{
    const struct plk_mn *core = core_of(mn);
    const struct plk_mn_pub *p = pub_of(mn);
    memset(i, 0, sizeof *i);
    i->cycle_us = core->cfg.cycle_us;
    i->cycle_exceed_threshold = core->cfg.cycle_exceed_threshold;
    i->async_mtu = core->cfg.async_mtu;
    i->n_nodes = core->n_ids;
    memcpy(i->nodes, core->ids, core->n_ids);
    if (__atomic_load_n(&p->seq, __ATOMIC_ACQUIRE))
        read_words(p, i->nmtreq_last_refused, p->nmtreq, sizeof i->nmtreq_last_refused);
    else   /* not started: no other thread writes the core */
        snprintf(i->nmtreq_last_refused, sizeof i->nmtreq_last_refused, "%s", core->nmtreq_last);
}

int takt_plk_mn_node_info(const struct takt_plk_mn *mn, unsigned node, struct takt_plk_node_info *i)
{
    const struct plk_mn *core = core_of(mn);
    const struct plk_mn_pub *p = pub_of(mn);
    const struct plk_mn_node *n = PLK_IS_CN(node) ? core->node[node] : NULL;
    if (!n)
        return -ENOENT;
    struct plk_mn_pub_node v;
    if (__atomic_load_n(&p->seq, __ATOMIC_ACQUIRE))
        read_words(p, &v, p->node[node], sizeof v);
    else
        node_now(n, node_missing(n, takt_now()), &v);
    *i = (struct takt_plk_node_info){
        .id = n->id,
        .state = v.state,
        .step = v.step,
        .in_cycle = v.in_cycle,
        .chain_active = v.chain_active,
        .missing = v.missing,
        .mandatory = n->cfg->mandatory,
        .chained = n->cfg->chained,
        .pres_timeout_ns = n->cfg->pres_timeout_ns,
        .loss_pres_threshold = n->cfg->loss_pres_threshold,
        .last_reset = v.last_reset,
    };
    memcpy(i->note, v.note, sizeof i->note);
    return 0;
}
