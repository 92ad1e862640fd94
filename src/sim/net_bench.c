/* In-process benchmark of the simulated line: configure n slaves to OP through
 * frames, as a master would, then time frames of LRW (full image) + FRMW 0x0910. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "ecat/frame.h"
#include "sim/net.h"
#include "util/wire.h"

static const uint8_t bench_mac[6] = { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10 };

/* One datagram, one frame; returns the WKC or -1. */
static int one(struct takt_sim *s, uint8_t cmd, uint32_t addr, void *data, uint16_t len, takt_ns_t now)
{
    uint8_t buf[TAKT_FRAME_BUF];
    size_t pos = ecat_frame_begin(buf, bench_mac);
    if (!ecat_frame_add(buf, sizeof buf, &pos, cmd, 0, addr, len, data))
        return -1;
    size_t fl = ecat_frame_end(buf, pos);
    if (!takt_sim_process(s, buf, fl, sizeof buf, now, NULL))
        return -1;
    struct ecat_dg dg;
    if (ecat_frame_first(buf, fl, &dg, &pos))
        return -1;
    if (data)
        memcpy(data, dg.data, len);
    return get_le16(dg.wkc);
}

#define FPA(st, ado) ((uint32_t)(st) | (uint32_t)(ado) << 16)

/* SMs from the description (process-data lengths from the device), one FMMU per
 * direction, byte-aligned per slave; returns the expected LRW WKC. */
static int configure(struct takt_sim *s, uint32_t *out_bytes, uint32_t *in_bytes, takt_ns_t now)
{
    uint32_t lo = 0, li = 0;
    unsigned wkc = 0;
    for (unsigned k = 0; k < s->n; k++) {
        size_t o = 0, i = 0;
        struct sim_esc *e = &s->sl[k].esc;
        if (e->dev && e->dev->ops->pd_sizes)
            e->dev->ops->pd_sizes(e->dev, &o, &i);
        lo += (uint32_t)o;
        li += (uint32_t)i;
    }
    uint32_t out_base = 0x10000, in_base = out_base + lo;
    lo = li = 0;
    for (unsigned k = 0; k < s->n; k++) {
        struct sim_esc *e = &s->sl[k].esc;
        uint16_t st = (uint16_t)(0x1001 + k);
        if (one(s, ECAT_APWR, FPA((uint16_t)-(int)k, ESC_STATION_ADDR), (uint8_t[2]){ (uint8_t)st, (uint8_t)(st >> 8) }, 2, now) != 1)
            return -1;
        size_t o = 0, i = 0;
        if (e->dev && e->dev->ops->pd_sizes)
            e->dev->ops->pd_sizes(e->dev, &o, &i);
        const struct sim_device_desc *d = e->desc;
        unsigned f = 0;
        for (unsigned n = 0; d && n < d->n_sm && n < e->n_sm; n++) {
            const struct sim_sm_desc *sm = &d->sm[n];
            uint16_t len = sm->type == SIM_SM_OUTPUTS ? (uint16_t)o : sm->type == SIM_SM_INPUTS ? (uint16_t)i : sm->len;
            if (!sm->type || !len)
                continue;
            uint8_t r[8] = { 0 };
            put_le16(r, sm->start);
            put_le16(r + 2, len);
            r[4] = sm->control;
            r[6] = 1;
            one(s, ECAT_FPWR, FPA(st, ESC_SM0 + 8 * n), r, 8, now);
            if (sm->type != SIM_SM_OUTPUTS && sm->type != SIM_SM_INPUTS)
                continue;
            bool w = sm->type == SIM_SM_OUTPUTS;
            uint8_t fm[16] = { 0 };
            put_le32(fm, w ? out_base + lo : in_base + li);
            put_le16(fm + 4, len);
            fm[7] = 7;
            put_le16(fm + 8, sm->start);
            fm[11] = w ? ESC_FMMU_W : ESC_FMMU_R;
            fm[12] = 1;
            one(s, ECAT_FPWR, FPA(st, ESC_FMMU0 + 16 * f++), fm, 16, now);
            if (w)
                lo += len;
            else
                li += len;
            wkc += w ? 2 : 1;
        }
    }
    static const uint8_t steps[] = { AL_PREOP, AL_SAFEOP, AL_OP };
    for (unsigned i = 0; i < sizeof steps; i++) {
        uint8_t v[2] = { steps[i], 0 };
        one(s, ECAT_BWR, FPA(0, ESC_AL_CONTROL), v, 2, now);
    }
    uint8_t st[2] = { 0 };
    one(s, ECAT_BRD, FPA(0, ESC_AL_STATUS), st, 2, now);
    if (st[0] != AL_OP)
        return -2;
    *out_bytes = lo;
    *in_bytes = li;
    return (int)wkc;
}

int takt_sim_bench_run(unsigned slaves, unsigned frames, bool esc_only,
                       struct takt_sim_bench *r, char *err, size_t errlen)
{
    char preset[16];
    struct takt_sim *s;
    memset(r, 0, sizeof *r);
    snprintf(preset, sizeof preset, "%u", slaves);
    int rc = takt_sim_create_preset(preset, NULL, &s, err, errlen);
    if (rc)
        return rc;
    takt_ns_t now = TAKT_NS_PER_S;
    uint32_t ob = 0, ib = 0;
    int want = configure(s, &ob, &ib, now);
    if (want < 0) {
        snprintf(err, errlen, "bench: the %u slaves did not reach OP (%s)", slaves,
                 want == -2 ? "AL status is not OP" : "configuration frame failed");
        takt_sim_destroy(s);
        return -EPROTO;
    }
    uint32_t img = ob + ib;
    for (unsigned k = 0; k < s->n; k++)
        s->sl[k].esc.no_process = esc_only;
    unsigned dc = 0;
    int ref = -1;
    for (unsigned k = 0; k < s->n; k++)
        if (s->sl[k].esc.dc.present) {
            dc++;
            if (ref < 0)
                ref = (int)k;
        }
    uint8_t buf[TAKT_FRAME_BUF], frame[TAKT_FRAME_BUF];
    size_t pos = ecat_frame_begin(frame, bench_mac);
    if (!ecat_frame_add(frame, sizeof frame, &pos, ECAT_LRW, 1, 0x10000, (uint16_t)img, NULL) ||
        !ecat_frame_add(frame, sizeof frame, &pos, ECAT_FRMW, 2,
                        FPA(0x1001 + (ref < 0 ? 0 : ref), ESC_DC_SYS_TIME), 8, NULL)) {
        snprintf(err, errlen, "bench: image of %u bytes does not fit one frame", img);
        takt_sim_destroy(s);
        return -EMSGSIZE;
    }
    size_t fl = ecat_frame_end(frame, pos);
    bool ok = true;
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);  /* CPU cost, not wall time */
    for (unsigned i = 0; i < frames; i++) {
        memcpy(buf, frame, fl);
        now += TAKT_NS_PER_MS;
        takt_sim_process(s, buf, fl, sizeof buf, now, NULL);
        if (i == frames - 1) {
            struct ecat_dg dg;
            ecat_frame_first(buf, fl, &dg, &pos);
            ok = get_le16(dg.wkc) == want;
            ecat_frame_next(buf, fl, &dg, &pos);
            ok = ok && get_le16(dg.wkc) == dc;
        }
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    r->slaves = slaves;
    r->frames = frames;
    r->image_bytes = img;
    r->ns_per_frame = frames ? ns / frames : 0;
    r->frames_per_s = ns > 0 ? frames * 1e9 / ns : 0;
    r->wkc_ok = ok;
    takt_sim_destroy(s);
    return 0;
}
