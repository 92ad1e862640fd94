/* The distributed clocks of the EtherCAT core (dc.c): its own state, owned by the core
 * (struct ecat_core.dc). The per-slave set-up requests stay with each slave. */
#ifndef TAKT_ECAT_DC_H
#define TAKT_ECAT_DC_H

#include <stdbool.h>
#include <stdint.h>
#include <takt/takt.h>

/* Set-up steps (dc.c), then DC_RUN: the per-cycle control and monitoring. */
enum ecat_dc_state { DC_IDLE, DC_LATCH, DC_READ, DC_WRITE, DC_DRIFT, DC_SYNC_READ, DC_SYNC_WRITE,
                     DC_RUN, DC_FAILED, DC_COUNT };

struct ecat_dc {
    /* per-cycle datagrams in the first cyclic frame */
    struct ecat_req mon_ref;   /* FRMW 0x0910 reference time */
    uint8_t   mon_ref_buf[8];
    struct ecat_req mon_diff;  /* FPRD 0x092C sync difference, one DC slave per cycle */
    uint8_t   mon_diff_buf[4];
    struct ecat_req mon_wr;    /* FPWR 0x0910 master time (reference follows master) */
    uint8_t   mon_wr_buf[8];
    int       ref;             /* position of the reference clock, -1 none */
    bool      active;
    uint64_t  ref_time;        /* last reference system time */
    takt_ns_t ref_at;          /* when it was read (master time) */
    int64_t   shift_ns;        /* cycle shift proposed to the driver (master follows ref) */
    int64_t   integral;
    int64_t   offset;          /* master monotonic -> DC system time (set by the driver) */
    uint8_t   state;
    int64_t   phase_ns;
    unsigned  rr;              /* DC slave whose 0x092C is read this cycle */
    int64_t   round_max;       /* last phase error of the reference clock vs SYNC0 */
    unsigned  round_samples;   /* valid 0x092C readings in this round */
    unsigned  iter;            /* static drift compensation FRMWs sent */
    uint64_t  sync0_start;
    struct ecat_req frmw[32];  /* static drift compensation burst */
    uint8_t   frmw_buf[32][8];
    /* cable redundancy (redund_dc.c): the 0x0928 delays for the ring's state */
    bool      latch_closed;    /* the set-up latched the port times in a closed ring */
    bool      far_planned;     /* delays planned for the state below */
    bool      far_broken;      /* ... ring broken, far side from position far_from */
    unsigned  far_first, far_from;
    unsigned  far_report;      /* slaves whose writes the plan's event waits for */
    int       far_lo, far_hi;  /* far side's slaves the plan writes (event), -1 none */
    int       cl_lo, cl_hi;    /* slaves it gives the closed ring's delay back, -1 none */
    int32_t   far_min, far_max, cl_min, cl_max;   /* the far side's delays: new, closed */
};

/* One slave's distributed clock (dc.c): its set-up requests and what was read of it. */
struct ecat_slave_dc {
    struct ecat_req req[3];    /* set-up requests */
    uint8_t   buf[3][16];
    uint8_t   re;              /* DC set up again after the slave returned */
    uint32_t  diff_prev;       /* its last valid |0x092C| + 1 (0: none yet) */
    uint32_t  port_time[4];    /* receive times 0x0900.. of the latch */
    uint64_t  pu_time;         /* its local time of the latch 0x0918 */
    uint8_t   child_ports;     /* ports with a slave behind them (bit n: port n) */
    /* 0x0928 across a cable break (redund_dc.c): what it should hold, what it holds
     * (known after a write whose WKC said so), the write in flight */
    struct ecat_req far_req;
    uint8_t   far_buf[4];
    int32_t   far_want, far_have, far_sent;
    bool      far_known;
    bool      far_wait;        /* part of the plan's event */
    unsigned  far_fails;       /* failed writes in a row */
    takt_ns_t far_retry_at;
};

struct ecat_slave;
/* Loop time of a slave's latched receive times over its ports with a slave behind them. */
int64_t ecat_dc_loop_time(const struct ecat_slave *s);

#endif
