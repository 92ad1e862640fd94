/* Internals shared by the CN core files (cn.c: cyclic frames, cn_asnd.c: async). */
#ifndef TAKT_PLK_CN_INT_H
#define TAKT_PLK_CN_INT_H

#include "plk/cn.h"
#include "plk/frame.h"
#include "plk/nmt_cn.h"

struct plk_txf *plk_txq_encode(struct plk_txq *q, const struct plk_msg *m);
void plk_cn_event(struct plk_cn *cn, takt_ns_t now, enum plk_cn_ev ev, uint8_t cmd);
void plk_cn_cycle_error(struct plk_cn *cn, takt_ns_t now);
bool plk_cn_may_answer(struct plk_cn *cn);
void plk_cn_on_invite(struct plk_cn *cn, takt_ns_t now, const struct plk_soa *soa,
                      struct plk_txq *q);
void plk_cn_sdo_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *p, size_t len);
int  plk_cn_od_setup(struct plk_cn *cn);
/* cn_nmtreq.c: async request queue, Flag2 (PR/RS), error signaling entries */
uint8_t plk_cn_flags2(struct plk_cn *cn, takt_ns_t now);
bool plk_cn_send_nmtreq(struct plk_cn *cn, struct plk_txq *q);
void plk_cn_nmtreq_take(struct plk_cn *cn);
void plk_cn_async_reset(struct plk_cn *cn);
void plk_cn_error(struct plk_cn *cn, uint16_t code);
void plk_cn_ea(struct plk_cn *cn, uint8_t flags1);
int  plk_cn_od_add_nmtreq(struct plk_cn *cn);
void plk_cn_od_hook_nmtreq(struct plk_cn *cn, const struct plk_od_entry *e);
void plk_cn_od_sync_errcnt(struct plk_cn *cn);
/* cn_ip.c: ARP and SDO over UDP/IP for the CN's IP, sent on an UnspecifiedInvite */
void plk_cn_ip_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *f, size_t len);
bool plk_cn_ip_pending(struct plk_cn *cn, takt_ns_t now);
bool plk_cn_ip_tx(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q);
void plk_cn_ip_reset(struct plk_cn *cn);

#endif
