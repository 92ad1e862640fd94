/* The master against the in-process simulator: shared rig of test_master_sim.c and
 * test_master_coe.c (device descriptions, a mem-link responder with loss injection). */
#ifndef TAKT_TEST_MASTER_RIG_H
#define TAKT_TEST_MASTER_RIG_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "sim/device.h"
#include "sim/device_ext.h"
#include "util/wire.h"
#include "unit/sim/sim_io.h"

/* The same with a CoE mailbox (SM0/SM1), so it has an application layer of its own
 * (no device emulation) and can refuse state changes. */
static inline void mbx_desc(struct sim_device_desc *d, unsigned i)
{
    io_desc(d, i);
    d->n_sm = 4;
    d->sm[0] = (struct sim_sm_desc){ 0x1800, 128, 0x26, 1, SIM_SM_MBX_OUT };
    d->sm[1] = (struct sim_sm_desc){ 0x1C00, 128, 0x22, 1, SIM_SM_MBX_IN };
    d->sm[2] = (struct sim_sm_desc){ 0x1000, 0, 0x64, 1, SIM_SM_OUTPUTS };
    d->sm[3] = (struct sim_sm_desc){ 0x1100, 0, 0x20, 1, SIM_SM_INPUTS };
    d->rxpdo[0].sm = 2;
    d->txpdo[0].sm = 3;
    d->mbx_protocols = MBX_PROTO_COE;
    d->coe_details = 0x01 | 0x02;
}

struct rig {
    struct sim_device_desc desc[64];
    struct takt_sim *sim;
    struct takt_link *a, *b;
    struct takt_ecat_master *m;
    unsigned drop_every, n_frames, dropped;
    unsigned drop_reply_every, replies_dropped;   /* processed by the slaves, reply lost */
    unsigned mbx_reads;
    int mute;                  /* (atomic) every frame dropped from now, counted in dropped */
};

static inline void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct rig *r = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    if (f->len > sizeof buf)
        return;
    r->n_frames++;
    if ((r->drop_every && r->n_frames % r->drop_every == 0) ||
        __atomic_load_n(&r->mute, __ATOMIC_ACQUIRE)) {
        r->dropped++;
        return;
    }
    memcpy(buf, f->data, f->len);
    size_t n = takt_sim_process(r->sim, buf, f->len, sizeof buf, takt_now(), NULL);
    if (n && r->drop_reply_every) {
        /* lose the replies of every n-th frame that read a send mailbox (SM1 0x1C00) */
        struct ecat_dg dg;
        size_t p;
        bool mbx_read = false;
        for (int rc = ecat_frame_first(buf, n, &dg, &p); rc == 0; rc = ecat_frame_next(buf, n, &dg, &p))
            mbx_read |= dg.cmd == ECAT_FPRD && dg.ado == 0x1C00;
        if (mbx_read && ++r->mbx_reads % r->drop_reply_every == 0) {
            r->replies_dropped++;
            return;
        }
    }
    if (n) {
        struct takt_frame out = { .data = buf, .len = (uint16_t)n, .cap = sizeof buf };
        takt_link_send(ep, &out, 1);
    }
}

static inline struct rig *rig_new(unsigned n, bool dc)
{
    struct rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->sim = io_sim_new(r->desc, n, dc ? 50 : -1);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dc = dc;
    o.cycle_ns = TAKT_NS_PER_MS;
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    return r;
}

static inline void rig_free(struct rig *r)
{
    takt_ecat_master_close(r->m);
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
    free(r);
}

static inline void print_events(struct takt_ecat_master *m)
{
    char ev[256];
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        printf("  event: %s\n", ev);
}

static inline void up(struct rig *r, unsigned n)
{
    int rc = takt_ecat_master_scan(r->m, 2 * TAKT_NS_PER_S);
    if (rc)
        print_events(r->m);
    assert_int_equal(rc, 0);
    assert_int_equal(takt_ecat_master_slave_count(r->m), n);
    rc = takt_ecat_master_set_state(r->m, AL_OP, 5 * TAKT_NS_PER_S);
    if (rc) {
        printf("set_state: %s\n", takt_ecat_master_error(r->m));
        print_events(r->m);
    }
    assert_int_equal(rc, 0);
}

static inline void cycles(struct rig *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
}

#endif
