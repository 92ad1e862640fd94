/* CN NMT state machine: pure transition function over the wire state codes. */
#ifndef TAKT_PLK_NMT_CN_H
#define TAKT_PLK_NMT_CN_H

#include <stdint.h>
#include <takt/plk.h>

enum plk_cn_ev {
    PLK_CN_EV_SOA,               /* SoA seen */
    PLK_CN_EV_SOC,               /* SoC seen */
    PLK_CN_EV_PLK_FRAME,         /* any POWERLINK frame */
    PLK_CN_EV_COMMAND,           /* NMT command (cmd argument) */
    PLK_CN_EV_CYCLE_ERROR,       /* loss of SoC/PReq threshold fired */
    PLK_CN_EV_BASIC_ETH_TIMEOUT, /* 0x1F99 without POWERLINK frames */
};

/* Next state for (state, event); cmd only for PLK_CN_EV_COMMAND. */
uint8_t plk_nmt_cn_next(uint8_t state, enum plk_cn_ev ev, uint8_t cmd);

#endif
