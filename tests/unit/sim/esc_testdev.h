/* Test helpers for the software ESC tests: a small device (mailbox echo, 2 bytes of
 * outputs and inputs, inputs = outputs + 1) and a one-datagram "master" that sends
 * real frames through takt_sim_process. */
#ifndef TAKT_TEST_ESC_TESTDEV_H
#define TAKT_TEST_ESC_TESTDEV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "sim/device.h"
#include "sim/net.h"
#include "util/wire.h"

struct tdev {
    struct sim_device base;
    struct sim_device_desc desc;
    uint8_t sii[2048];
    uint8_t out[2];
    unsigned n_mbx, n_process, n_al;
    uint8_t pending;                   /* queued extra replies */
    uint16_t refuse;                   /* al_change answer */
};

static size_t tdev_mbx_write(struct sim_device *d, const uint8_t *msg, size_t len,
                             uint8_t *reply, size_t cap, takt_ns_t now)
{
    struct tdev *t = (struct tdev *)d;
    (void)now;
    t->n_mbx++;
    if (len > cap)
        len = cap;
    memcpy(reply, msg, len);           /* echo */
    reply[MBX_HDR] ^= 0xFF;            /* mark it as a reply */
    return len;
}

static size_t tdev_mbx_pending(struct sim_device *d, uint8_t *reply, size_t cap, takt_ns_t now)
{
    struct tdev *t = (struct tdev *)d;
    (void)now;
    if (!t->pending || cap < 16)
        return 0;
    t->pending--;
    memset(reply, 0, 16);
    put_le16(reply, 10);
    reply[5] = MBX_TYPE_COE;
    reply[6] = 0xEE;
    reply[7] = t->pending;
    return 16;
}

static uint16_t tdev_al(struct sim_device *d, uint8_t from, uint8_t to, const uint8_t *esc, takt_ns_t now)
{
    struct tdev *t = (struct tdev *)d;
    (void)from; (void)to; (void)esc; (void)now;
    t->n_al++;
    return t->refuse;
}

static void tdev_process(struct sim_device *d, const uint8_t *o, size_t ol, uint8_t *in, size_t il, takt_ns_t now)
{
    struct tdev *t = (struct tdev *)d;
    (void)now;
    t->n_process++;
    if (o && ol >= 2)
        memcpy(t->out, o, 2);
    if (in && il >= 2) {
        in[0] = (uint8_t)(t->out[0] + 1);
        in[1] = (uint8_t)(t->out[1] + 1);
    }
}

static void tdev_sizes(struct sim_device *d, size_t *o, size_t *i)
{
    (void)d;
    *o = 2;
    *i = 2;
}

static void tdev_destroy(struct sim_device *d) { free(d); }

static const struct sim_device_ops tdev_ops = {
    .mbx_write = tdev_mbx_write, .mbx_pending = tdev_mbx_pending, .al_change = tdev_al,
    .process = tdev_process, .pd_sizes = tdev_sizes, .destroy = tdev_destroy,
};

/* mailbox: true for a device with SM0/SM1 mailboxes; dc: DC capable (and required) */
static inline struct tdev *tdev_new(bool mailbox, bool dc, bool dc_required)
{
    struct tdev *t = calloc(1, sizeof *t);
    struct sim_device_desc *d = &t->desc;
    snprintf(d->name, sizeof d->name, "TDEV");
    d->vendor = 0x99;
    d->product = 0x1234;
    d->revision = 1;
    d->esc_type = 0x11;
    d->n_fmmu_hw = 4;
    d->n_sm_hw = 4;
    d->ram_kb = 8;
    d->features = dc ? 0x000C : 0;
    d->dc_required = dc_required;
    unsigned n = 0;
    if (mailbox) {
        d->sm[n++] = (struct sim_sm_desc){ .start = 0x1000, .len = 128, .control = 0x26, .enable = 1, .type = SIM_SM_MBX_OUT };
        d->sm[n++] = (struct sim_sm_desc){ .start = 0x1080, .len = 128, .control = 0x22, .enable = 1, .type = SIM_SM_MBX_IN };
        d->mbx_protocols = MBX_PROTO_COE;
    } else {
        n = 2;                          /* SM0/1 unused, as on simple I/O terminals */
    }
    d->sm[n++] = (struct sim_sm_desc){ .start = 0x1100, .len = 2, .control = 0x64, .enable = 1, .type = SIM_SM_OUTPUTS };
    d->sm[n++] = (struct sim_sm_desc){ .start = 0x1180, .len = 2, .control = 0x20, .enable = 1, .type = SIM_SM_INPUTS };
    d->n_sm = n;
    d->n_fmmu = 2;
    d->fmmu_use[0] = 1;
    d->fmmu_use[1] = 2;
    t->base.ops = &tdev_ops;
    t->base.desc = d;
    int len = sim_sii_build(d, t->sii, sizeof t->sii);
    t->base.sii = t->sii;
    t->base.sii_len = len > 0 ? (size_t)len : 0;
    return t;
}

/* One datagram in one frame through the network; returns the WKC, or -1 when no
 * frame came back. data (len bytes) is sent and replaced by what returned. */
static inline int tdg(struct takt_sim *s, uint8_t cmd, uint32_t addr, void *data, uint16_t len, takt_ns_t now)
{
    static const uint8_t mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };
    uint8_t buf[1600];
    size_t pos = ecat_frame_begin(buf, mac);
    if (!ecat_frame_add(buf, sizeof buf, &pos, cmd, 0x5A, addr, len, data))
        return -2;
    size_t fl = ecat_frame_end(buf, pos);
    size_t rl = takt_sim_process(s, buf, fl, sizeof buf, now, NULL);
    if (!rl)
        return -1;
    struct ecat_dg dg;
    if (ecat_frame_first(buf, rl, &dg, &pos))
        return -3;
    if (data)
        memcpy(data, dg.data, len);
    return get_le16(dg.wkc);
}

#define FP(adp, ado) ((uint32_t)(adp) | (uint32_t)(ado) << 16)

static inline int tw8(struct takt_sim *s, uint8_t cmd, uint32_t a, uint8_t v, takt_ns_t now)
{ return tdg(s, cmd, a, &v, 1, now); }
static inline int tw16(struct takt_sim *s, uint8_t cmd, uint32_t a, uint16_t v, takt_ns_t now)
{ uint8_t b[2]; put_le16(b, v); return tdg(s, cmd, a, b, 2, now); }
static inline uint16_t tr16(struct takt_sim *s, uint16_t station, uint16_t ado, takt_ns_t now)
{ uint8_t b[2] = { 0 }; tdg(s, ECAT_FPRD, FP(station, ado), b, 2, now); return get_le16(b); }

/* A network of n test devices with station addresses 0x1001.. set through APWR. */
static inline struct takt_sim *tnet(unsigned n, bool mailbox, bool dc, struct tdev **devs)
{
    struct sim_device *d[64];
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    for (unsigned i = 0; i < n; i++) {
        struct tdev *t = tdev_new(mailbox, dc, false);
        if (devs)
            devs[i] = t;
        d[i] = &t->base;
    }
    struct takt_sim *s = NULL;
    if (takt_sim_create_devices(d, n, &o, &s))
        return NULL;
    for (unsigned i = 0; i < n; i++)
        tw16(s, ECAT_APWR, FP((uint16_t)-(int)i, ESC_STATION_ADDR), (uint16_t)(0x1001 + i), 1000);
    return s;
}

/* Write SM n registers (8 bytes) of station st. */
static inline int tsm(struct takt_sim *s, uint16_t st, unsigned n, uint16_t start, uint16_t len,
                      uint8_t ctrl, uint8_t act, takt_ns_t now)
{
    uint8_t b[8] = { 0 };
    put_le16(b, start);
    put_le16(b + 2, len);
    b[4] = ctrl;
    b[6] = act;
    return tdg(s, ECAT_FPWR, FP(st, ESC_SM0 + 8 * n), b, 8, now);
}

/* FMMU n of station st: logical start/len/bits -> physical. */
static inline int tfmmu(struct takt_sim *s, uint16_t st, unsigned n, uint32_t lstart, uint16_t len,
                        uint8_t lsb, uint8_t leb, uint16_t pstart, uint8_t psb, uint8_t type, takt_ns_t now)
{
    uint8_t b[16] = { 0 };
    put_le32(b, lstart);
    put_le16(b + 4, len);
    b[6] = lsb;
    b[7] = leb;
    put_le16(b + 8, pstart);
    b[10] = psb;
    b[11] = type;
    b[12] = 1;
    return tdg(s, ECAT_FPWR, FP(st, ESC_FMMU0 + 16 * n), b, 16, now);
}

#endif
