/* What the MN's real-time thread publishes of each CN's boot besides the counters (boot
 * step, last reset, configuration note) and of itself (last refused NMTRequest), for
 * takt_plk_mn_node_info / _get_info in other threads: a sequence lock, written only
 * when something changed, so a cycle in which nothing did costs a comparison per node. */
#ifndef TAKT_PLK_MN_INFO_H
#define TAKT_PLK_MN_INFO_H

#include "plk/mn.h"

/* The part of struct takt_plk_node_info that changes while the MN runs. */
struct plk_mn_pub_node {
    uint8_t  state, step;
    bool     in_cycle, chain_active, missing;
    const char *last_reset;
    char     note[112];
};
#define PLK_MN_PUB_WORDS(t) ((sizeof(t) + 7) / 8)

struct plk_mn_pub {
    unsigned seq;             /* odd while the RT thread writes; 0: nothing published yet */
    uint64_t node[PLK_NODE_CN_MAX + 1][PLK_MN_PUB_WORDS(struct plk_mn_pub_node)];
    uint64_t nmtreq[PLK_MN_PUB_WORDS(char[128])];
    /* RT thread only: what it published last */
    struct plk_mn_pub_node last[PLK_NODE_CN_MAX + 1];
    char     last_nmtreq[128];
};

/* RT thread (the only writer), after each cycle, and once before it starts. */
void plk_mn_pub_update(struct plk_mn_pub *p, const struct plk_mn *mn, takt_ns_t now);

#endif
