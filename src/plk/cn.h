/* POWERLINK controlled node core (sans-I/O): fed (now_ns, frame), appends frames to a
 * caller-owned transmit queue and reports its next timer deadline (docs/architecture.md). */
#ifndef TAKT_PLK_CN_H
#define TAKT_PLK_CN_H

#include <takt/plk.h>
#include "plk/errcnt.h"
#include "plk/frame.h"
#include "plk/ipudp.h"
#include "plk/od.h"
#include "plk/sdo.h"
#include "rt/cmdring.h"

#define PLK_CN_OD_ENTRIES 192
#define PLK_OD_NMT_REQUEST_CMD 0x1F9F   /* NMT_RequestCmd_REC (cn_nmtreq.c) */
#define PLK_CN_OD_POOL    4096

/* Caller-owned transmit queue: fixed frame slots, sized at setup. `launch` is the
 * absolute time a frame must leave (0 = now): time-triggered PRes in chained mode. */
struct plk_txf {
    uint8_t   data[TAKT_FRAME_BUF];
    uint16_t  len;
    takt_ns_t launch;
    takt_ns_t until;        /* an answer: its request's cycle ends then, and a frame not
                               sent by then is not sent at all (0: no limit) */
};
struct plk_txq {
    struct plk_txf *f;
    unsigned n, cap;
    uint64_t overflow;        /* frames that did not fit: counted, never hidden */
};
/* Next free slot (zeroed to 60 bytes) or NULL when full. */
struct plk_txf *plk_txq_slot(struct plk_txq *q);

/* Fault injection used by the simulated CN network (all off in a real CN). */
struct plk_cn_faults {
    uint32_t drop_pres_permille;   /* PRes not sent */
    uint32_t late_pres_permille;   /* PRes sent after late_ns */
    takt_ns_t late_ns;
    bool     vanished;             /* answers nothing */
    bool     wrong_identity;       /* IdentResponse with a wrong vendor ID */
    uint32_t malformed_permille;   /* PRes truncated below its header */
    /* every PRes leaves a pseudo-random delay in [min, max] ns after its PReq arrived
     * (a slow CN; 0/0 = at once) */
    takt_ns_t answer_delay_min_ns, answer_delay_max_ns;
};

/* One NMT service the CN asks the MN for (ASnd NMTRequest, DS 301 7.3.6). */
#define PLK_CN_NMTREQ_MAX 4
#define PLK_CN_NMTREQ_RING 8      /* posted from other threads, not yet taken */
struct plk_cn_nmtreq {
    uint8_t cmd;                   /* requested NMTCommandID (enum plk_nmt_cmd) */
    uint8_t target;                /* node the command is for (255 all, 240 the MN) */
    uint8_t data_len;
    uint8_t data[PLK_NMTCMD_DATA_MAX];
};

struct plk_cn_stats {
    uint64_t preq_rx, pres_tx, soc_rx, soa_rx, asnd_rx, asnd_tx;
    uint64_t loss_soc, loss_preq, bad_frames, nmt_cmds, sdo_rx;
    uint64_t cycle_errors;         /* threshold fired: back to PreOp1 */
    uint64_t short_rx;             /* PDO shorter than mapped (E_PDO_SHORT_RX) */
    uint64_t ident_tx, status_tx, sync_tx;
    uint64_t dropped, late, malformed;  /* injected faults */
    uint64_t nmtreq_queued, nmtreq_tx;  /* NMTRequests taken / sent on an invite */
    uint64_t nmtreq_refused;       /* MN answered NMTInvalidService */
    uint64_t nmtreq_dropped;       /* lost in a reset before the MN invited us */
    uint64_t err_entries;          /* history entries signalled in StatusResponse */
    /* requests (PReq, PResMN, SoA invitations) not answered because they were not the
     * current one: queued while the CN could not run (plk_cn_rx_at) */
    uint64_t stale_dropped;
    uint64_t delayed;              /* PRes held back by answer_delay (injected fault) */
};

struct plk_cn {
    struct takt_plk_cn_cfg cfg;
    uint8_t  mac[6];
    uint8_t  state;                /* enum takt_plk_nmt; stored atomically (set_state) */
    uint32_t resets;               /* NMT reset commands taken (to NOT_ACTIVE), and the last */
    uint8_t  reset_cmd;
    uint8_t  out[TAKT_PLK_MAX_PDO];  /* received from the MN (PReq or PResMN) */
    uint8_t  in[TAKT_PLK_MAX_PDO];   /* sent in the PRes */
    uint16_t out_offset;           /* byte offset of our outputs in the PResMN (chained) */
    uint32_t cycle_us;             /* 0x1006 */
    bool     chained;              /* PRes mode set by SyncRequest (DS 302-C) */
    uint32_t pres_time_first_ns;   /* chained PRes offset after the end of the PResMN */
    bool     app_ready;            /* application confirms ReadyToOperate (oplk nmtu) */
    bool     mn_operational;       /* RD in PReq: outputs valid */
    takt_ns_t last_soc, last_preq, last_frame, state_since;
    takt_ns_t soc_rx;              /* receive time of the last SoC (last_soc moves on
                                    * with each lost one) */
    bool     rx_current;           /* the frame being handled may be answered */
    bool     preq_this_cycle;      /* PReq (or PResMN) since the last SoC */
    bool     seen_preq;            /* polled at least once since the last reset */
    uint8_t  mux_cycles;           /* 0x1F98/7 MultiplCycleCnt (0: not multiplexed) */
    uint8_t  cycle_count;          /* SoCs since the last PReq, modulo mux_cycles */
    bool     preq_due;             /* this cycle should bring our PReq */
    uint16_t pres_limit;           /* 0x1F98/5 PResActPayloadLimit */
    uint8_t  mn_mac[6];
    uint8_t  sres_flags1;          /* StatusResponse Flag1: EC after power-on / ER=1 */
    uint8_t  mn_er;                /* ER of the last StatusRequest (0 after a reset) */
    uint8_t  rs;                   /* queued async frames (RS flags) */
    uint16_t pending_sdo_len;
    uint8_t  pending_sync;         /* SyncResponse waiting */
    struct plk_errcnt loss_soc, loss_preq;
    struct plk_cn_nmtreq nmtreq[PLK_CN_NMTREQ_MAX];  /* FIFO, [0] leaves first */
    uint8_t  n_nmtreq;
    /* requests from other threads (takt_plk_cn_request_nmt): a command ring the core
     * drains where it queues its own (plk_cn_nmtreq_take), so any number of posters
     * cannot fill one slot twice */
    struct rt_cmdring nmtreq_ring;
    struct rt_cmd_cell nmtreq_cells[PLK_CN_NMTREQ_RING];
    /* Error signaling (DS 301 6.5): history entries go out in every StatusResponse
     * until the MN acknowledges them with EA == EN; EN toggles for each new entry. */
    struct plk_error_entry err[PLK_SRES_MAX_ENTRIES];
    uint8_t  n_err;
    bool     en;                   /* Flag1 EN in PRes and StatusResponse */
    bool     err_sent;             /* a StatusResponse carried the current entries */
    uint64_t net_time;             /* NetTime of the last SoC (s | ns << 32) */
    struct plk_cn_faults faults;
    uint32_t rng;                  /* fault injection pseudo-random state */
    struct plk_cn_stats st;
    struct plk_od od;              /* object dictionary (SDO server) */
    struct plk_od_entry od_entries[PLK_CN_OD_ENTRIES];
    uint8_t  od_pool[PLK_CN_OD_POOL];
    struct plk_od_entry *od_di, *od_do;   /* 0x6000/1, 0x6200/1: the process image */
    struct plk_sdo_server sdo;
    uint8_t  sdo_buf[PLK_SDO_PAYLOAD_MAX];
    /* SDO over UDP/IP and ARP for the CN's IP, sent when an UnspecifiedInvite lets the
     * CN send a generic frame (cn_ip.c) */
    struct plk_sdo_server sdo_udp;
    struct plk_ip_ep udp_peer;     /* the client of the UDP connection */
    bool     arp_due;              /* an ARP reply to arp_to waits */
    struct plk_ip_ep arp_to;
    uint8_t  arp_eth[6];           /* the request's Ethernet source: the reply goes there */
    uint16_t echo_len;             /* an ICMP echo request to answer (0: none) */
    struct plk_ip_ep echo_to;
    uint8_t  echo[PLK_SDO_PAYLOAD_MAX];
    uint16_t ip_id;
    struct plk_cn_ip_stats { uint64_t udp_rx, udp_tx, arp_tx, echo_tx, ip_bad; } ip_st;
    /* The virtual Ethernet of the CN's host (takt plk cn --veth, cn_ip.c). With `on`
     * the IPv4 and ARP frames to the CN's MAC or to all go to the host's TAP device,
     * except UDP port 3819 for the CN's IP (its SDO server stays here), through the
     * ring f (single producer: the core; single consumer: plk_cn_veth_recv). One frame
     * from the host waits in tx for the CN's async slot (tx_state 1: written by the
     * host's thread, taken by the core). */
    struct plk_cn_veth {
        bool     on;
        bool     host_last;     /* the last generic frame sent was the host's */
        unsigned head, tail;    /* atomic: head written by the core, tail by the reader */
        uint64_t dropped;       /* ring full (atomic) */
        uint64_t to_host, to_net;
        struct { uint16_t len; uint8_t data[TAKT_ETH_MAX_FRAME]; } f[8];
        int      tx_state;      /* atomic: 0 free, 1 a frame waits */
        uint16_t tx_len;
        uint8_t  tx[TAKT_ETH_MAX_FRAME];
    } veth;
};

int  plk_cn_init(struct plk_cn *cn, const struct takt_plk_cn_cfg *cfg, const uint8_t mac[6],
                 takt_ns_t now);
void plk_cn_free(struct plk_cn *cn);
/* A received frame (any destination; the core filters). Frames to send go to q. The
 * frame is taken as received at `now` and handled at once (plk_cn_rx_at with ts = now). */
void plk_cn_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *f, size_t len, struct plk_txq *q);
/* A frame received at ts (its receive stamp) and handed to the core at now >= ts.
 * closed: the caller already holds a later frame of the MN that ends the request's
 * cycle (a SoC; for a SoA also a later SoA). A request (PReq, PResMN, SoA invitation to
 * this CN) is answered only when it is the current one: not closed, and its cycle has
 * not ended by now (0x1006 after the SoC that opened it, or after the request itself
 * where no SoC did: the reduced PreOp1 cycle; less a guard of an eighth, cn.c). DS 301
 * 4.2.4: a PRes answers the PReq of this cycle, an ASnd the SoA of this cycle; an
 * answer to a request the MN sent cycles ago would be taken for the answer to a newer
 * one. A stale request is counted (st.stale_dropped), not answered; the rest of the
 * frame (state, NMT command, outputs) is applied. */
void plk_cn_rx_at(struct plk_cn *cn, takt_ns_t now, takt_ns_t ts, bool closed,
                  const uint8_t *f, size_t len, struct plk_txq *q);
/* Timers (loss of SoC / PReq, BasicEthernet): call at or after plk_cn_deadline(). */
void plk_cn_tick(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q);
takt_ns_t plk_cn_deadline(const struct plk_cn *cn);
/* Ask the MN for an NMT service (same thread as plk_cn_rx). The CN announces it with
 * PR 7 / RS = queued count and sends it on SoA(NMTRequestInvite) addressed to it.
 * -EINVAL bad command (0, 0xFF) or data > 32 B, -EAGAIN outside PreOp1..Operational/
 * Stopped (the CN may not send), -ENOSPC with PLK_CN_NMTREQ_MAX queued. */
int plk_cn_request_nmt(struct plk_cn *cn, uint8_t cmd, uint8_t target, const void *data,
                       size_t len);
/* The same from any thread: handed over to the core at its next frame or timer.
 * -EBUSY while the previous hand-over is not taken yet. */
int plk_cn_post_nmt_request(struct plk_cn *cn, uint8_t cmd, uint8_t target,
                            const void *data, size_t len);
/* The host's virtual Ethernet (cn_ip.c). plk_cn_veth_on: while the core is idle.
 * plk_cn_veth_send: one frame from the host (complete with its Ethernet header, not
 * POWERLINK's EtherType) for the CN's next generic async slot; -EBUSY while the last
 * one waits, -EMSGSIZE beyond the largest async MTU (1500) + 14 or below 14 bytes,
 * -EPROTOTYPE for EtherType 0x88AB, -ENODEV without plk_cn_veth_on. plk_cn_veth_recv:
 * the next frame for the host into buf, its length; 0 if none, -EMSGSIZE if cap is
 * too small. Both from one thread other than the core's, also while it runs. */
void plk_cn_veth_on(struct plk_cn *cn, bool on);
int  plk_cn_veth_send(struct plk_cn *cn, const void *frame, size_t len);
int  plk_cn_veth_recv(struct plk_cn *cn, void *buf, size_t cap);

#endif
