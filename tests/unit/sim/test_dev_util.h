/* Helpers for the simulated-device tests: create catalogue devices, fake ESC register
 * memory, and raw mailbox/SDO messages built byte by byte (ETG.1000.6 5.6 CoE). */
#ifndef TEST_DEV_UTIL_H
#define TEST_DEV_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "util/wire.h"

static inline struct sim_device *dev_new(const char *name)
{
    char err[256] = "", dir[4096];
    const char *src = getenv("TAKT_SOURCE_DIR");
    if (src) {
        snprintf(dir, sizeof dir, "%s/data/esi", src);
        setenv("TAKT_ESI_DIR", dir, 1);
    }
    struct sim_device *d = NULL;
    if (sim_device_create(name, &d, err, sizeof err))
        fail_msg("cannot create %s: %s", name, err);
    return d;
}

/* ESC memory with the SMs configured as the SII says, mailbox sizes `mbx` (0 = SII). */
static inline void esc_mem_init(uint8_t *esc, const struct sim_device *d, uint16_t mbx)
{
    memset(esc, 0, 0x1000);
    for (unsigned i = 0; i < d->desc->n_sm; i++) {
        const struct sim_sm_desc *s = &d->desc->sm[i];
        uint8_t *r = esc + ESC_SM0 + ESC_SM_SIZE * i;
        bool mb = s->type == SIM_SM_MBX_OUT || s->type == SIM_SM_MBX_IN;
        put_le16(r, s->start);
        put_le16(r + 2, mb && mbx ? mbx : s->len);
        r[4] = s->control;
        r[6] = s->enable;
    }
}

static inline void set_pd_sm_len(uint8_t *esc, const struct sim_device *d, uint8_t type, uint16_t len)
{
    for (unsigned i = 0; i < d->desc->n_sm; i++)
        if (d->desc->sm[i].type == type) {
            put_le16(esc + ESC_SM0 + ESC_SM_SIZE * i + 2, len);
            esc[ESC_SM0 + ESC_SM_SIZE * i + 6] = len ? 1 : 0;
        }
}

static inline uint16_t al(struct sim_device *d, uint8_t from, uint8_t to, const uint8_t *esc)
{
    return d->ops->al_change(d, from, to, esc, 0);
}

/* Mailbox message: header + CoE header (service) + body. */
struct mbx {
    uint8_t b[1024];
    size_t len;
};

static inline size_t mbx_build(uint8_t *m, uint8_t cnt, uint8_t service, const uint8_t *body,
                               size_t body_len)
{
    put_le16(m, (uint16_t)(2 + body_len));
    put_le16(m + 2, 0);
    m[4] = 0;
    m[5] = (uint8_t)(MBX_TYPE_COE | cnt << 4);
    put_le16(m + 6, (uint16_t)(service << 12));
    memcpy(m + 8, body, body_len);
    return 8 + body_len;
}

/* SDO request: command, index, subindex, 4 data bytes (+ extra data after them). */
static inline size_t sdo_msg(uint8_t *m, uint8_t cnt, uint8_t cmd, uint16_t index, uint8_t sub,
                             uint32_t d4, const uint8_t *extra, size_t extra_len)
{
    uint8_t body[1024];
    body[0] = cmd;
    put_le16(body + 1, index);
    body[3] = sub;
    put_le32(body + 4, d4);
    if (extra_len)
        memcpy(body + 8, extra, extra_len);
    return mbx_build(m, cnt, COE_SDO_REQ, body, 8 + extra_len);
}

static uint8_t test_cnt;
static inline uint8_t next_cnt(void)
{
    test_cnt = (uint8_t)(test_cnt % 7 + 1);
    return test_cnt;
}

/* Send a message, return the reply length (reply in r, cap 1024). */
static inline size_t xfer(struct sim_device *d, const uint8_t *m, size_t len, uint8_t *r)
{
    memset(r, 0xEE, 1024);
    return d->ops->mbx_write(d, m, len, r, 1024, 0);
}

/* Expedited/normal SDO upload; returns the abort code (0 = ok), data into out. */
static inline uint32_t sdo_upload(struct sim_device *d, uint16_t index, uint8_t sub, bool ca,
                                  uint8_t *out, size_t *out_len)
{
    uint8_t m[64], r[1024];
    size_t n = sdo_msg(m, next_cnt(), ca ? 0x50 : 0x40, index, sub, 0, NULL, 0);
    size_t rl = xfer(d, m, n, r);
    assert_true(rl >= 16);
    if (r[8] == 0x80)
        return get_le32(r + 12);
    assert_int_equal(get_le16(r + 9), index);
    if (r[8] & 0x02) {
        *out_len = 4 - (r[8] >> 2 & 3);
        memcpy(out, r + 12, *out_len);
    } else {
        *out_len = get_le32(r + 12);
        assert_true(*out_len + 10 <= get_le16(r));     /* no segments in this helper */
        memcpy(out, r + 16, *out_len);
    }
    return 0;
}

static inline uint32_t sdo_download(struct sim_device *d, uint16_t index, uint8_t sub,
                                    const void *data, size_t len)
{
    uint8_t m[1100], r[1024];
    size_t n;
    if (len <= 4) {
        uint8_t v[4] = { 0 };
        memcpy(v, data, len);
        n = sdo_msg(m, next_cnt(), (uint8_t)(0x23 | (4 - len) << 2), index, sub, get_le32(v), NULL, 0);
    } else
        n = sdo_msg(m, next_cnt(), 0x21, index, sub, (uint32_t)len, data, len);
    size_t rl = xfer(d, m, n, r);
    assert_int_equal(rl, 16);
    if (r[8] == 0x80) {
        assert_int_equal(get_le16(r + 6) >> 12, COE_SDO_REQ);
        return get_le32(r + 12);
    }
    assert_int_equal(r[8], 0x60);
    assert_int_equal(get_le16(r + 9), index);
    assert_int_equal(r[11], sub);
    return 0;
}

static inline uint32_t sdo_dl_u(struct sim_device *d, uint16_t index, uint8_t sub, uint32_t v, size_t len)
{
    uint8_t b[4];
    put_le32(b, v);
    return sdo_download(d, index, sub, b, len);
}

#endif
