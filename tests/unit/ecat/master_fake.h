/* Hand-written replies for the master tests: a minimal line of ESCs behind a mem link
 * responder (registers, SII reads, AL control with refusals, byte-granular FMMUs, a
 * cable cut). Independent of src/sim so that the master is checked against the rules
 * of ETG.1000.4 and ETG.1000.6 as written, not against another implementation of them. */
#ifndef TAKT_TEST_MASTER_FAKE_H
#define TAKT_TEST_MASTER_FAKE_H

#include <string.h>
#include <takt/link.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "util/wire.h"

#define FAKE_MAX 48
#define FAKE_MEM 0x2000

struct fake_slave {
    uint8_t  mem[FAKE_MEM];
    uint8_t  sii[4096];
    size_t   sii_len;
    uint64_t dc_time;          /* advanced per frame */
};

struct fake_net {
    unsigned n, present;       /* slaves behind the cut do not see frames */
    struct fake_slave s[FAKE_MAX];
    uint8_t  refuse_state;     /* refuse requests to this state at refuse_pos */
    unsigned refuse_pos;
    uint16_t refuse_code;
    unsigned drop_every, frames; /* drop every n-th frame (0: none) */
    unsigned dropped;
    uint8_t  last_src0;
    unsigned cmds[16];         /* datagrams seen per command */
};

/* SII of a small I/O slave: 16-bit output 0x7000:01, inputs 0x6000:01 (16 bit),
 * 0x6010:01 (1 bit), 7 bits padding; SM0 outputs at 0x1000, SM1 inputs at 0x1100. */
static inline size_t fake_sii(uint8_t *b, uint32_t vendor, uint32_t product, const char *name)
{
    memset(b, 0, 512);
    put_le32(b + 0x10, vendor);
    put_le32(b + 0x14, product);
    put_le32(b + 0x18, 1);
    put_le32(b + 0x1C, 42);
    b[14] = ecat_sii_crc(b, 14);
    size_t o = 0x80;
    /* strings: 1 name, 2 "Out", 3 "Value", 4 "Flag" */
    const char *str[] = { name, "Out", "Value", "Flag" };
    size_t so = o + 4;
    b[so++] = 4;
    for (int i = 0; i < 4; i++) {
        size_t l = strlen(str[i]);
        b[so++] = (uint8_t)l;
        memcpy(b + so, str[i], l);
        so += l;
    }
    if ((so - o - 4) & 1)
        so++;
    put_le16(b + o, SII_CAT_STRINGS);
    put_le16(b + o + 2, (uint16_t)((so - o - 4) / 2));
    o = so;
    put_le16(b + o, SII_CAT_GENERAL);
    put_le16(b + o + 2, 16);
    b[o + 4 + 3] = 1;
    o += 4 + 32;
    put_le16(b + o, SII_CAT_FMMU);
    put_le16(b + o + 2, 1);
    b[o + 4] = 1;
    b[o + 5] = 2;
    o += 6;
    put_le16(b + o, SII_CAT_SM);
    put_le16(b + o + 2, 8);
    put_le16(b + o + 4, 0x1000); put_le16(b + o + 6, 2); b[o + 8] = 0x64; b[o + 10] = 1; b[o + 11] = 3;
    put_le16(b + o + 12, 0x1100); put_le16(b + o + 14, 3); b[o + 16] = 0x20; b[o + 18] = 1; b[o + 19] = 4;
    o += 20;
    put_le16(b + o, SII_CAT_RXPDO);
    put_le16(b + o + 2, 8);
    put_le16(b + o + 4, 0x1600); b[o + 6] = 1; b[o + 7] = 0;
    put_le16(b + o + 12, 0x7000); b[o + 14] = 1; b[o + 15] = 2; b[o + 16] = 6; b[o + 17] = 16;
    o += 20;
    put_le16(b + o, SII_CAT_TXPDO);
    put_le16(b + o + 2, 16);
    put_le16(b + o + 4, 0x1A00); b[o + 6] = 3; b[o + 7] = 1;
    put_le16(b + o + 12, 0x6000); b[o + 14] = 1; b[o + 15] = 3; b[o + 16] = 6; b[o + 17] = 16;
    put_le16(b + o + 20, 0x6010); b[o + 22] = 1; b[o + 23] = 4; b[o + 24] = 1; b[o + 25] = 1;
    put_le16(b + o + 28, 0); b[o + 33] = 7;
    o += 36;
    put_le16(b + o, SII_CAT_END);
    return o + 2;
}

static inline void fake_init(struct fake_net *net, unsigned n)
{
    memset(net, 0, sizeof *net);
    net->n = net->present = n;
    for (unsigned i = 0; i < n; i++) {
        struct fake_slave *s = &net->s[i];
        char name[16];
        snprintf(name, sizeof name, "FAKE%u", i);
        s->sii_len = fake_sii(s->sii, 0x00000002, 0x1000 + i, name);
        s->mem[ESC_TYPE] = 0x11;
        put_le16(s->mem + ESC_FEATURES, 0x0004);
        s->mem[ESC_AL_STATUS] = AL_INIT;
        put_le16(s->mem + ESC_SII_CTRL, SII_READ8);
    }
}

/* Port 0 always open; port 1 open when a slave follows (ETG.1000.4 DL status: pair 10b = active). */
static inline void fake_dl(struct fake_net *net)
{
    for (unsigned i = 0; i < net->n; i++)
        put_le16(net->s[i].mem + ESC_DL_STATUS, (uint16_t)(0x0200 | (i + 1 < net->present ? 0x0800 : 0)));
}

static inline void fake_write_hook(struct fake_net *net, unsigned k, uint16_t ado, uint16_t len)
{
    struct fake_slave *s = &net->s[k];
    if (ado <= ESC_AL_CONTROL && ado + len > ESC_AL_CONTROL) {
        uint8_t c = s->mem[ESC_AL_CONTROL];
        uint8_t req = c & AL_STATE_MASK;
        if (s->mem[ESC_AL_STATUS] & AL_ERROR) {
            if (c & AL_ACK) {
                s->mem[ESC_AL_STATUS] = req;
                put_le16(s->mem + ESC_AL_STATUS_CODE, 0);
            }
        } else if (net->refuse_state && req == net->refuse_state && k == net->refuse_pos) {
            s->mem[ESC_AL_STATUS] |= AL_ERROR;
            put_le16(s->mem + ESC_AL_STATUS_CODE, net->refuse_code);
        } else {
            s->mem[ESC_AL_STATUS] = req;
        }
    }
    if (ado <= ESC_SII_CTRL && ado + len > ESC_SII_CTRL + 1 &&
        (get_le16(s->mem + ESC_SII_CTRL) & SII_CMD_MASK) == SII_CMD_READ) {
        uint32_t w = get_le32(s->mem + ESC_SII_ADDR);
        for (unsigned i = 0; i < 8; i++) {
            size_t a = 2 * (size_t)w + i;
            s->mem[ESC_SII_DATA + i] = a < s->sii_len ? s->sii[a] : 0xFF;
        }
        put_le16(s->mem + ESC_SII_CTRL, SII_READ8);
    }
}

static inline int fake_exec(struct fake_net *net, unsigned k, struct ecat_dg *dg, const uint8_t *orig)
{
    struct fake_slave *s = &net->s[k];
    uint16_t adp = (uint16_t)(dg->adp + k);
    bool ap = adp == 0, fp = get_le16(s->mem + ESC_STATION_ADDR) == dg->adp;
    uint32_t a = dg->ado;
    if (dg->cmd >= ECAT_LRD && dg->cmd <= ECAT_LRW) {
        int w = 0;
        for (unsigned f = 0; f < 4; f++) {
            uint8_t *fm = s->mem + ESC_FMMU0 + 16 * f;
            if (!fm[12])
                continue;
            uint32_t ls = get_le32(fm), fl = get_le16(fm + 4), ps = get_le16(fm + 8);
            for (uint32_t i = 0; i < dg->len; i++) {
                uint32_t la = dg->lad + i;
                /* an FMMU may point past this fake's memory (the master sets it from the
                 * SII, and a fuzzed SII says anything): those bytes are not mapped here */
                if (la < ls || la >= ls + fl || ps + la - ls >= FAKE_MEM)
                    continue;
                if ((fm[11] & 1) && dg->cmd != ECAT_LWR) {
                    dg->data[i] = s->mem[ps + la - ls];
                    w |= 1;
                }
                if ((fm[11] & 2) && dg->cmd != ECAT_LRD) {
                    s->mem[ps + la - ls] = orig[i];
                    w |= 2;
                }
            }
        }
        return (w & 1 ? 1 : 0) + (w & 2 ? (dg->cmd == ECAT_LRW ? 2 : 1) : 0);
    }
    if (a + dg->len > FAKE_MEM)
        return 0;
    switch (dg->cmd) {
    case ECAT_APRD: case ECAT_FPRD:
        if ((dg->cmd == ECAT_APRD && ap) || (dg->cmd == ECAT_FPRD && fp)) {
            memcpy(dg->data, s->mem + a, dg->len);
            return 1;
        }
        return 0;
    case ECAT_APWR: case ECAT_FPWR:
        if ((dg->cmd == ECAT_APWR && ap) || (dg->cmd == ECAT_FPWR && fp)) {
            memcpy(s->mem + a, dg->data, dg->len);
            fake_write_hook(net, k, (uint16_t)a, dg->len);
            return 1;
        }
        return 0;
    case ECAT_BRD:
        for (unsigned i = 0; i < dg->len; i++)
            dg->data[i] |= s->mem[a + i];
        return 1;
    case ECAT_BWR:
        memcpy(s->mem + a, dg->data, dg->len);
        fake_write_hook(net, k, (uint16_t)a, dg->len);
        return 1;
    case ECAT_FRMW:
        if (a == ESC_DC_SYS_TIME) {
            if (fp)
                put_le64(dg->data, s->dc_time);
            else
                s->dc_time = get_le64(dg->data);
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

static inline void fake_respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct fake_net *net = ctx;
    uint8_t buf[TAKT_FRAME_BUF], orig[TAKT_FRAME_BUF];
    if (f->len > sizeof buf)
        return;
    net->frames++;
    if (net->drop_every && net->frames % net->drop_every == 0) {
        net->dropped++;
        return;
    }
    memcpy(buf, f->data, f->len);
    net->last_src0 = buf[6];
    if (net->present == 0)
        return;                 /* nobody to return the frame */
    buf[6] |= 0x02;             /* ESC datasheet Section I: U/L bit set by the first ESC */
    fake_dl(net);
    struct ecat_dg dg;
    size_t pos;
    if (ecat_frame_first(buf, f->len, &dg, &pos) != 0)
        return;
    for (int rc = 0; rc == 0; rc = ecat_frame_next(buf, f->len, &dg, &pos)) {
        net->cmds[dg.cmd & 15]++;
        memcpy(orig, dg.data, dg.len);
        unsigned wkc = get_le16(dg.wkc);
        for (unsigned k = 0; k < net->present; k++) {
            net->s[k].dc_time += 100;
            wkc += (unsigned)fake_exec(net, k, &dg, orig);
        }
        put_le16(dg.wkc, (uint16_t)wkc);
        if (dg.cmd <= ECAT_BRW && dg.cmd != ECAT_NOP && dg.cmd != ECAT_FPRD &&
            dg.cmd != ECAT_FPWR && dg.cmd != ECAT_FPRW)
            put_le16(dg.hdr + 2, (uint16_t)(dg.adp + net->present));
    }
    struct takt_frame r = { .data = buf, .len = f->len, .cap = sizeof buf };
    takt_link_send(ep, &r, 1);
}

#endif
