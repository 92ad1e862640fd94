/* The EtherCAT master driver (master.c): the core (core.h) with what it must not know:
 * the link, the clock, the RT thread and its measurements. The public handle. */
#ifndef TAKT_ECAT_DRIVER_H
#define TAKT_ECAT_DRIVER_H

#include "ecat/core.h"
#include "rt/loop.h"

struct takt_ecat_master {
    struct ecat_core core;
    struct takt_link *link;    /* the link frames leave by: red with two ports */
    struct takt_link *red;     /* cable redundancy (redund.c): both ports, NULL with one */
    uint8_t  *rxbuf;           /* receive buffers */
    struct takt_frame *rxf, *txf;
    uint64_t  link_errors;

    /* application */
    takt_ecat_cyclic_fn app_fn;
    void     *app_ctx;

    struct takt_rt_loop loop;
    bool      loop_init;
    struct takt_perf_msmt m_rx, m_cyc, m_timer, m_acyc, m_app;
};

#endif
