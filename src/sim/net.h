/* The simulated EtherCAT line (internal to src/sim): slaves in order, per-slave
 * timing, reachability after cable breaks, scheduled faults, statistics. */
#ifndef TAKT_SIM_NET_H
#define TAKT_SIM_NET_H

#include <takt/sim.h>
#include "sim/esc.h"

#define SIM_MAX_EVENTS 32

enum sim_ev_kind { SIM_EV_BREAK, SIM_EV_HEAL, SIM_EV_POWER, SIM_EV_SDO_ABORT, SIM_EV_REFUSE,
                   SIM_EV_COUNT };

struct sim_event {
    enum sim_ev_kind kind;
    takt_ns_t at;                  /* relative to the first frame */
    unsigned  slave;               /* position, 0-based */
    uint16_t  index, code16;
    uint8_t   sub, state;
    uint32_t  code;
    bool      done;
};

/* Cache-line aligned (sim_net_alloc uses aligned_alloc): t_in and the ESC's hot head
 * share the first line, see struct sim_esc. */
struct __attribute__((aligned(64))) sim_slave {
    takt_ns_t t_in;                /* offset: the frame reaches port 0 (= t_port[0]) */
    struct sim_esc esc;
    takt_ns_t t_port[4];           /* offsets: the frame passes port n (receive time) */
    takt_ns_t fwd;                 /* forwarding delay of this slave, each port pass */
    int       parent;              /* upstream slave (0-based), -1 = the master */
    uint8_t   pport;               /* the parent's port this slave hangs on (1..3) */
    bool      cut;                 /* the cable into this slave's port 0 is broken */
    struct sim_device *dev;
    char      name[96];            /* catalogue name, for power-cycle recreation; the
                                    * size makes a slave 17 lines: an odd stride, so
                                    * 1000 slaves spread over all cache sets */
};
_Static_assert(sizeof(struct sim_slave) % 128 == 64, "a slave is an odd number of cache lines");

struct takt_sim {
    unsigned n;
    struct sim_slave *sl;
    uint8_t *arena;                /* every ESC's memory + staging, huge pages if possible */
    size_t   arena_len;
    unsigned reach;                /* number of slaves that see frames ... */
    unsigned *act;                 /* ... their indices in frame (= position) order */
    int      *scr_child, *scr_stk; /* topology walk scratch (4n, n), allocated with the net */
    uint8_t  *scr_pi, *scr_flag;   /* (n, n): faults fire mid-run and must not allocate */
    /* ring (net_ring.c): the last slave's port 1 is wired to the master's second port */
    bool      ring;
    bool      ring_cut_end;        /* the cable from the last slave to that port is broken */
    unsigned  reach2;              /* slaves a frame from the second port passes in the */
    unsigned *act2;                /* processing direction, in order (NULL: no ring) */
    struct takt_link *ring_ep[2];  /* in-process ring: the two mem endpoints */
    bool     reference;            /* tests: the generic datagram path only (no DC RMW loop) */
    struct takt_sim_opts opt;
    struct takt_sim_stats st;
    /* faults */
    double   p_drop, p_corrupt, p_crc;
    takt_ns_t delay;
    unsigned n_ev;
    struct sim_event ev[SIM_MAX_EVENTS];
    bool     have_t0;
    takt_ns_t t0;
    uint64_t rng;
    /* rebuilds a device by catalogue name after a power loss (NULL: keep it) */
    int     (*make_dev)(const char *name, struct sim_device **out);
    uint8_t  scratch[ECAT_MAX_DG_DATA + 64];
};

int  sim_net_alloc(struct takt_sim **out, unsigned n, const struct takt_sim_opts *o);
int  sim_net_add(struct takt_sim *s, unsigned pos, struct sim_device *dev, const char *name);
/* Recompute which slaves the frame reaches (cuts), their order and port times, the
 * open ports and DL status (net_topo.c). */
void sim_net_topology(struct takt_sim *s, takt_ns_t now);
void sim_net_events(struct takt_sim *s, takt_ns_t now);
uint32_t sim_net_rand(struct takt_sim *s);
/* Power-loss restart of slave k (0-based): INIT, unconfigured, device rebuilt (fault.c). */
/* Ring mode: the slaves behind the last break, seen from the second port (net_ring.c). */
void sim_net_ring_topology(struct takt_sim *s);
void sim_power_on(struct takt_sim *s, unsigned k, takt_ns_t now);

#endif
