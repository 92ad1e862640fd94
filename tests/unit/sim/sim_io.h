/* I/O slaves for the simulator, shared by the tests that run the EtherCAT master
 * (master_rig.h, through a mem link) and those that run its core alone (core_bench.h):
 * one slave's description and a network of them. */
#ifndef TAKT_TEST_SIM_IO_H
#define TAKT_TEST_SIM_IO_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <takt/sim.h>
#include "sim/device.h"

/* An I/O slave: 16 bits out (SM0 0x1000), 16 bits in (SM1 0x1100). */
static inline void io_desc(struct sim_device_desc *d, unsigned i)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "IO%u", i);
    d->vendor = 2;
    d->product = 0x4000 + i;
    d->revision = 1;
    d->esc_type = 0x11;
    d->n_fmmu_hw = 4;
    d->n_sm_hw = 4;
    d->ram_kb = 8;
    d->features = 0x0004;
    d->n_sm = 2;
    d->sm[0] = (struct sim_sm_desc){ 0x1000, 0, 0x64, 1, SIM_SM_OUTPUTS };
    d->sm[1] = (struct sim_sm_desc){ 0x1100, 0, 0x20, 1, SIM_SM_INPUTS };
    d->n_fmmu = 2;
    d->fmmu_use[0] = 1;
    d->fmmu_use[1] = 2;
    d->n_rxpdo = d->n_txpdo = 1;
    d->rxpdo[0] = (struct sim_pdo){ .index = 0x1600, .sm = 0, .name = "Out", .n = 1 };
    d->rxpdo[0].e[0] = (struct sim_pdo_entry){ 0x7000, 1, 16, 0x0006, "Output" };
    d->txpdo[0] = (struct sim_pdo){ .index = 0x1A00, .sm = 1, .name = "In", .n = 1 };
    d->txpdo[0].e[0] = (struct sim_pdo_entry){ 0x6000, 1, 16, 0x0006, "Input" };
    snprintf(d->behaviour, sizeof d->behaviour, "do");
}

/* n slaves of I/O (desc[0..n) filled by io_desc; desc outlives the simulator) as one
 * network, with a fixed seed; drift_ppm < 0: clocks that do not drift. */
static inline struct takt_sim *io_sim_new(struct sim_device_desc *desc, unsigned n, double drift_ppm)
{
    struct sim_device *devs[64];
    assert_true(n <= 64);
    for (unsigned i = 0; i < n; i++) {
        io_desc(&desc[i], i);
        assert_int_equal(sim_device_from_desc(&desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = drift_ppm;
    so.seed = 7;
    struct takt_sim *sim;
    assert_int_equal(takt_sim_create_devices(devs, n, &so, &sim), 0);
    return sim;
}

#endif
