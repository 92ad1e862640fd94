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
    /* what openPOWERLINK's demo CN announces (ref §4, §12): profile 401, 1 B each way */
    c->device_type = PLK_OPLK_DEMO_DEVICE_TYPE;
    c->revision = 0x00020007;
    c->out_size = 1;
    c->in_size = 1;
    c->basic_eth_timeout_us = PLK_DEF_BASIC_ETH_TIMEOUT_US;
    c->soc_tolerance_ns = PLK_DEF_LOSS_SOC_TOLERANCE_NS;
}
