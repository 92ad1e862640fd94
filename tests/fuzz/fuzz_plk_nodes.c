/* Fuzz the MN and CN cores' receive paths: any bytes after a POWERLINK Ethernet header
 * are fed to a CN (driven to Operational first) and to an MN in its isochronous cycle,
 * between cycles and timer ticks. Nothing may crash; counters must stay sane. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plk/mn.h"
#include "plk/cn.h"
#include "plk/cn_int.h"
#include "plk/frame.h"

static struct plk_txf txbuf[64];

static void drain(struct plk_txq *q) { q->n = 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct plk_mn mn;
    static struct plk_cn cn;
    static struct plk_net_config cfg;
    struct plk_txq q = { .f = txbuf, .cap = 64 };
    const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    char err[128];
    if (size > 1500)
        size = 1500;

    memset(&cfg, 0, sizeof cfg);
    cfg.cycle_us = 1000;
    cfg.async_slot_timeout_ns = 100000;
    for (unsigned id = 1; id <= 3; id++) {
        cfg.node[id].present = true;
        cfg.node[id].node_id = (uint8_t)id;
        cfg.node[id].preq_payload = cfg.node[id].pres_payload = 36;
        cfg.node[id].pres_timeout_ns = 50000;
        cfg.node[id].loss_pres_threshold = 15;
        cfg.node[id].chained = id == 3;
        cfg.node[id].pres_time_first_ns = 10000;
        cfg.n_nodes++;
    }
    if (plk_mn_init(&mn, &cfg, mac, 0, err, sizeof err))
        abort();
    struct takt_plk_cn_cfg cc;
    takt_plk_cn_cfg_default(&cc, 1);
    if (plk_cn_init(&cn, &cc, mac, 0))
        abort();
    /* CN straight to Operational through its own NMT rules */
    plk_cn_event(&cn, 0, PLK_CN_EV_SOA, 0);
    plk_cn_event(&cn, 0, PLK_CN_EV_SOC, 0);
    plk_cn_event(&cn, 0, PLK_CN_EV_COMMAND, PLK_NMT_CMD_ENABLE_READY_TO_OP);
    plk_cn_event(&cn, 0, PLK_CN_EV_COMMAND, PLK_NMT_CMD_START_NODE);
    /* MN: node 1 identified and in the cycle */
    mn.state = PLK_NMT_PRE_OPERATIONAL_2;
    mn.node[1]->step = MNS_CONFIG;
    mn.node[1]->in_cycle = true;
    mn.node[3]->step = MNS_OPERATIONAL;
    mn.node[3]->in_cycle = mn.node[3]->chain_active = true;

    uint8_t f[1536] = { 0x01, 0x11, 0x1E, 0, 0, 2, 2, 0, 0, 0, 0, 9, 0x88, 0xAB };
    memcpy(f + 14, data, size);
    size_t len = 14 + size;
    takt_ns_t t = 1000;
    for (int round = 0; round < 3; round++) {
        plk_mn_cycle(&mn, t, &q);
        drain(&q);
        plk_mn_rx(&mn, t + 2000, f, len, &q);
        drain(&q);
        plk_cn_rx(&cn, t + 2000, f, len, &q);
        drain(&q);
        plk_mn_tick(&mn, t + 900000, &q);
        drain(&q);
        plk_cn_tick(&cn, plk_cn_deadline(&cn), &q);
        drain(&q);
        t += 1000000;
    }
    plk_mn_free(&mn);
    return 0;
}
