/* Simulated POWERLINK CN network: many CNs in one process on one link, each a bus
 * controller with a 4-channel digital input and a 4-channel digital output module (the
 * B&R X20 set-up of the evaluation), inputs changing over time, and fault injection. */
#ifndef TAKT_SIM_PLK_NET_H
#define TAKT_SIM_PLK_NET_H

#include <takt/plk.h>
#include "plk/driver.h"

struct sim_plk_faults {
    uint32_t drop_permille;      /* PRes not sent */
    uint32_t late_permille;      /* PRes sent late_ns later */
    takt_ns_t late_ns;
    uint32_t malformed_permille; /* PRes with a Size past the frame end */
    uint8_t  vanish_node;        /* 0 = none: this CN is silent vanish_at after it was
                                  * first Operational (a loaded host's boot time does
                                  * not shift the fault into the boot) ... */
    takt_ns_t vanish_at, vanish_for;  /* ... for vanish_for ns (0 = for good) */
    uint8_t  wrong_id_node;      /* 0 = none: IdentResponse with a wrong vendor ID */
    takt_ns_t answer_delay_min, answer_delay_max;  /* every PRes this long after its PReq */
};

struct sim_plk_net {
    unsigned n;
    struct plk_cn *cn[TAKT_PLK_MAX_NODES];
    struct plk_cn_host host;
    struct sim_plk_faults faults;
    takt_ns_t soc_lead_ns;       /* the host's SoC poll window (plk_cn_host.soc_lead_ns) */
    takt_ns_t start;
    takt_ns_t vanish_ref;        /* when the vanish node was first Operational, 0 before */
    bool vanished;               /* the vanish node is currently silent */
    uint64_t vanish_count, return_count;
    /* called in the network's thread every period (10 ms), NULL none: where a reporter
     * thread's copy of the counters is published (takt plk cn --metrics-file) */
    void (*publish)(void *ctx, const struct sim_plk_net *s);
    void *publish_ctx;
};

/* CNs first..last (1..239), all sharing the link's MAC (one interface). */
int  sim_plk_net_init(struct sim_plk_net *s, unsigned first, unsigned last,
                      const struct sim_plk_faults *f, char *err, size_t errlen);
void sim_plk_net_free(struct sim_plk_net *s);
/* Serve the network on link until *stop or duration (0 = until stop). */
int  sim_plk_net_run(struct sim_plk_net *s, struct takt_link *link, takt_ns_t duration,
                     const volatile int *stop);

#endif
