/* Internals shared by the CN core files (cn.c: cyclic frames, cn_asnd.c: async). */
#ifndef TAKT_PLK_CN_INT_H
#define TAKT_PLK_CN_INT_H

#include "plk/cn.h"
#include "plk/frame.h"
#include "plk/nmt_cn.h"

struct plk_txf *plk_txq_encode(struct plk_txq *q, const struct plk_msg *m);
void plk_cn_event(struct plk_cn *cn, takt_ns_t now, enum plk_cn_ev ev, uint8_t cmd);
void plk_cn_cycle_error(struct plk_cn *cn, takt_ns_t now);
void plk_cn_on_invite(struct plk_cn *cn, takt_ns_t now, const struct plk_soa *soa,
                      struct plk_txq *q);
void plk_cn_sdo_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *p, size_t len);
int  plk_cn_od_setup(struct plk_cn *cn);

#endif
