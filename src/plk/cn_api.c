/* Public CN API (include/takt/plk.h): configuration defaults, creation, process data
 * access; the receive loop that serves a CN on a link is in driver_cn.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/proto.h"

void takt_plk_cn_cfg_default(struct takt_plk_cn_cfg *c, uint8_t id)
{
    memset(c, 0, sizeof *c);
    c->id = id;
    /* what openPOWERLINK's demo CN announces: profile 401, 1 B each way */
    c->device_type = PLK_OPLK_DEMO_DEVICE_TYPE;
    c->revision = 0x00020007;
    c->out_size = 1;
    c->in_size = 1;
    c->basic_eth_timeout_us = PLK_DEF_BASIC_ETH_TIMEOUT_US;
    c->soc_tolerance_ns = PLK_DEF_LOSS_SOC_TOLERANCE_NS;
}

/* struct takt_plk_cn (driver_cn.c) starts with its struct plk_cn core; a pointer to a
 * structure is a pointer to its first member (C11 6.7.2.1p15). test_cn_requests.c
 * checks that layout through takt_plk_cn_inputs(). */
static struct plk_cn *core_of(struct takt_plk_cn *cn) { return (struct plk_cn *)(void *)cn; }

int takt_plk_cn_request_nmt(struct takt_plk_cn *cn, uint8_t cmd, uint8_t target,
                            const void *data, size_t len)
{
    return plk_cn_post_nmt_request(core_of(cn), cmd, target, data, len);
}

unsigned takt_plk_cn_nmt_pending(const struct takt_plk_cn *cn)
{
    return __atomic_load_n(&core_of((struct takt_plk_cn *)cn)->n_nmtreq, __ATOMIC_RELAXED);
}

void takt_plk_cn_veth(struct takt_plk_cn *cn, bool on) { plk_cn_veth_on(core_of(cn), on); }

int takt_plk_cn_send_eth(struct takt_plk_cn *cn, const void *frame, size_t len)
{
    return plk_cn_veth_send(core_of(cn), frame, len);
}

int takt_plk_cn_recv_eth(struct takt_plk_cn *cn, void *buf, size_t cap)
{
    return plk_cn_veth_recv(core_of(cn), buf, cap);
}

uint64_t takt_plk_cn_veth_dropped(const struct takt_plk_cn *cn)
{
    return __atomic_load_n(&core_of((struct takt_plk_cn *)cn)->veth.dropped, __ATOMIC_RELAXED);
}
