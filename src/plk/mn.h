/* POWERLINK managing node core (sans-I/O): runs the NMT boot-up of every configured CN
 * and the isochronous cycle (SoC, PReq/PRes, PResMN for chained CNs, SoA, async slot).
 * Fed (now, frame); appends frames to a caller queue; reports its timer deadline. */
#ifndef TAKT_PLK_MN_H
#define TAKT_PLK_MN_H

#include "plk/cn.h"
#include "plk/cn_int.h"
#include "plk/config.h"
#include "plk/errcnt.h"
#include "plk/frame.h"
#include "plk/ipudp.h"
#include "plk/sdo.h"

/* Boot step of one CN as the MN drives it (DS 301 7.4, oplk nmtmnu.c). */
enum plk_mn_step {
    MNS_UNIDENT = 0,    /* IdentRequest round robin */
    MNS_IDENTIFIED,     /* identity checked; waits for the MN to be in PreOp2 */
    MNS_STATUS,         /* StatusRequest until the CN reports PreOp2 */
    MNS_CONFIG,         /* in the cycle; SDO downloads of its configuration */
    MNS_SYNC,           /* chained CN: SyncRequest with PResModeSet */
    MNS_WAIT_READY,     /* EnableReadyToOperate sent, PRes must show 0x6D */
    MNS_READY,          /* ReadyToOperate; StartNode once the MN is Operational */
    MNS_WAIT_OP,        /* StartNode sent, PRes must show 0xFD */
    MNS_OPERATIONAL,
    MNS_STOPPED,        /* stopped on an NMTRequest: out of the cycle, StatusRequests only */
    MNS_COUNT
};

/* How a CN's configuration is downloaded (oplk cfmu.c, checked against 0x1F26/0x1F27). */
enum plk_mn_cfg_mode {
    PLK_CFGM_PLAIN = 0,   /* no expected date/time: download, no store */
    PLK_CFGM_UPTODATE,    /* CN's 0x1020 equals them: only 0x1006 is written */
    PLK_CFGM_STORE,       /* differs: download, write 0x1020, 0x1010/1 "save" */
};

struct plk_mn_node {
    const struct plk_cfg_node *cfg;
    uint8_t  id;
    enum plk_mn_step step;
    uint8_t  state;             /* NMT state last reported by the CN */
    uint8_t  mac[6];
    bool     in_cycle;          /* polled (or chained) in the isochronous phase */
    bool     chained;           /* configured for PollResponse Chaining */
    bool     chain_active;      /* SyncResponse confirmed: answers the PResMN */
    bool     answered;          /* PRes seen in this cycle */
    bool     rs;                /* RS flags in its last PRes: wants an invite */
    uint8_t  pr;                /* PR of that request (7: an NMT request) */
    uint8_t  nmt_cmd;           /* NMT command to send in the MN's slot (0 none) */
    bool     status_pending;    /* async-only: StatusRequest sent, no answer yet */
    bool     polled;            /* PReq'd (or chained) in this cycle */
    bool     late;              /* a PRes after its timeout came in this cycle */
    takt_ns_t step_since, status_due, retry_at, preq_sent;
    uint16_t out_off;           /* offset of its outputs in the PResMN payload */
    uint16_t out_size, in_size;
    uint8_t  out[TAKT_PLK_MAX_PDO];
    uint8_t  in[TAKT_PLK_MAX_PDO];
    uint8_t  cfg_pos;           /* next configuration download */
    uint8_t  cfg_mode;          /* enum plk_mn_cfg_mode of this download */
    uint32_t cn_conf_date, cn_conf_time;   /* CN's 0x1020/1,2 (its IdentResponse) */
    bool     conf_reset_done;   /* stored download ended with NMTResetConfiguration */
    char     note[112];         /* last configuration event, for reports */
    const char *lost_why;       /* why it was last removed and reset (a literal), or NULL */
    uint32_t idents_unanswered; /* IdentRequests sent since it last entered MNS_UNIDENT */
    takt_ns_t ident_first;      /* when the first of them was sent */
    struct plk_errcnt loss_pres;
    struct plk_sdo_client *sdo;
    struct plk_sdo_client *sdo_udp;   /* SDO over UDP/IP to 192.168.100.<id>:3819 (mn_ip.c) */
    uint8_t  sdo_buf[PLK_SDO_PAYLOAD_MAX];
    struct takt_plk_node_stats st;
};

enum plk_mn_phase {
    MNP_IDLE = 0,       /* before the first cycle */
    MNP_ISOCH,          /* waiting for the PRes of poll[cur] */
    MNP_CHAIN,          /* PResMN sent; chained PRes arrive until chain_end */
    MNP_ASYNC,          /* SoA sent; async responses until the next cycle */
};

/* Why the MN refused a CN's NMTRequest (counted per reason, DS 301 7.3.6). */
enum plk_mn_nmtreq_refusal {
    PLK_NMTREQ_NOT_ACTIVE = 0,  /* MN not in an active state (oplk: invalid operation) */
    PLK_NMTREQ_UNKNOWN_SOURCE,  /* requesting node not configured */
    PLK_NMTREQ_BAD_TARGET,      /* target node not configured / not addressable */
    PLK_NMTREQ_UNSUPPORTED,     /* command the MN does not execute for a CN */
    PLK_NMTREQ_BOOT_STEP,       /* the MN drives this command in the node's boot */
    PLK_NMTREQ_QUEUE_FULL,      /* too many requests pending */
    PLK_NMTREQ_REFUSAL_COUNT
};
const char *plk_mn_nmtreq_refusal_name(enum plk_mn_nmtreq_refusal r);

#define PLK_MN_QUEUE 16
/* NMTRequestedCommandIDs of the info services (oplk nmt.h kNmtCmdIdentResponse/...) */
enum { PLK_NMT_CMD_IDENT_RESPONSE = 0x01, PLK_NMT_CMD_STATUS_RESPONSE = 0x02 };

/* The user SDO transfer under way (takt_plk_mn_sdo_*): the driver loads it from its
 * command ring (driver_sdo.c) and takes the result, both in the RT thread, so nothing
 * here is shared with another thread. */
struct plk_mn_user_sdo {
    int      state;             /* 0 free, 1 loaded, 2 running, 3 done */
    bool     write;
    uint8_t  node;
    uint16_t index;
    uint8_t  sub;
    uint8_t  data[PLK_SDO_DATA_MAX];
    uint32_t len;
    bool     udp;               /* over UDP/IP instead of ASnd */
    int      result;            /* 0 or -errno / TAKT_ESDOABORT */
    uint32_t abort_code;
};

/* A generic Ethernet frame for the async slot, queued from another thread. */
struct plk_mn_eth {
    volatile int state;         /* 0 free, 1 queued */
    uint16_t len;
    uint8_t  data[TAKT_ETH_MAX_FRAME];
};

struct plk_mn {
    struct plk_net_config cfg;
    uint8_t  mac[6];
    uint8_t  state;             /* MN NMT state */
    takt_ns_t state_since;
    enum plk_mn_phase phase;
    takt_ns_t cycle_start, deadline, next_cycle;
    takt_ns_t cycle_ns;
    struct plk_mn_node *node[PLK_NODE_CN_MAX + 1];   /* configured nodes by ID */
    uint8_t  ids[PLK_NODE_CN_MAX];                  /* configured IDs in order */
    unsigned n_ids;
    uint8_t  poll[PLK_NODE_CN_MAX];                 /* polled this cycle, in order */
    unsigned n_poll, cur;
    uint8_t  chain[PLK_NODE_CN_MAX];
    unsigned n_chain;
    uint16_t pres_mn_size;
    takt_ns_t chain_end;
    takt_ns_t chain_expect;     /* when the last chained PRes should have arrived */
    /* The PReq (node ID) or PResMN (PLK_NODE_MN) just queued, whose actual send time
     * the driver reports with plk_mn_sent (0: none); queued_at is the time it was
     * queued with, which stands until then (sans-I/O callers that send at once). */
    uint8_t  tx_stamp_node;
    takt_ns_t tx_queued_at;
    /* The invitation of the last SoA (DS 301 4.2.4.1.2) and the one before: the one CN
     * answer each admits must be stamped between the SoA's send and the send of the
     * next SoC or SoA (end; INT64_MAX while open). Send times come with plk_mn_sent
     * (inv_stamp_pending until then: the new one counts as open from the start, the
     * old one as closed). */
    struct plk_mn_inv {
        uint8_t   svid, target;     /* svid 0: nothing invited */
        bool      answered;
        takt_ns_t sent, end;
    } inv, inv_prev;
    bool     inv_stamp_pending;
    unsigned ident_rr, status_rr, invite_rr;       /* async round-robin positions */
    bool     reset_sent;        /* NMTResetNode broadcast done in this PreOp1 */
    unsigned preop1_cycles;
    struct plk_errcnt cycle_exceed;
    /* multiplexed cycles (0x1F98/7): index of this cycle in the round, SoC MC flag */
    unsigned mux_idx;
    uint64_t mux_rounds;
    uint8_t  soc_flags1;
    /* NMT commands the MN owes (executed NMTRequests, NMTInvalidService replies) and
     * Ident/StatusRequests a CN asked for, served in the async slot in order */
    struct { uint8_t dst, cmd, data_len; uint8_t data[PLK_NMTCMD_DATA_MAX]; } cmdq[PLK_MN_QUEUE];
    unsigned n_cmdq;
    struct { uint8_t svid, target; } infoq[PLK_MN_QUEUE];
    unsigned n_infoq;
    uint64_t nmtreq_refused[PLK_NMTREQ_REFUSAL_COUNT];
    char     nmtreq_last[128];  /* last refusal: node, command, target, reason */
    struct plk_mn_user_sdo usdo;
    struct plk_mn_eth eth;
    /* the MN's end of the virtual Ethernet (mn_ip.c): 192.168.100.240 */
    uint16_t ip_id;
    bool     sdo_udp;           /* user SDO transfers go over UDP (takt_plk_mn_sdo_udp) */
    bool     own_generic_last;  /* the last slot carried the MN's own generic frame */
    bool     arp_due;           /* an ARP reply to arp_to waits for the MN's slot */
    struct plk_ip_ep arp_to;
    struct { uint64_t udp_tx, udp_rx, arp_tx, ip_bad; } ip_st;
    /* With a virtual Ethernet interface on the host (takt plk mn --veth): the IP and
     * ARP frames for the MN that it does not take itself, for another thread to write
     * to the interface (single producer: the MN; single consumer: takt_plk_mn_recv_eth) */
    struct plk_mn_veth {
        bool     on;
        uint8_t  mac[6];        /* the TAP device's own MAC */
        unsigned head, tail;    /* atomic: head written by the MN, tail by the reader */
        uint64_t dropped;       /* ring full */
        struct { uint16_t len; uint8_t data[TAKT_ETH_MAX_FRAME]; } f[16];
    } veth;
    struct takt_plk_mn_stats st;
    takt_plk_mn_cycle_fn cb;
    void *cb_ctx;
    void *api;                  /* the public wrapper (driver) */
};

int  plk_mn_init(struct plk_mn *mn, const struct plk_net_config *cfg, const uint8_t mac[6],
                 takt_ns_t now, char *err, size_t errlen);
void plk_mn_free(struct plk_mn *mn);
/* Start of a cycle at its deadline (SoC in PreOp2 and later, SoA only in PreOp1). */
void plk_mn_cycle(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q);
/* The MN stops at now, the end of its last cycle: that cycle's PRes are judged as the
 * next SoC would judge them (a PReq without its PRes is a loss), and none begins. */
void plk_mn_close(struct plk_mn *mn, takt_ns_t now);
void plk_mn_rx(struct plk_mn *mn, takt_ns_t now, const uint8_t *f, size_t len, struct plk_txq *q);
/* Timer: PRes timeout of the polled node or the end of the chained window. */
void plk_mn_tick(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q);
takt_ns_t plk_mn_deadline(const struct plk_mn *mn);
/* Whether a CN polled in this cycle has not answered yet: its PRes may still come (late,
 * DS 301 0x1C04) before the next cycle judges this one. */
bool plk_mn_pres_missing(const struct plk_mn *mn);
/* The frames queued so far were handed to the link at `t` (the caller's clock, read
 * just before the send). A PReq's send time starts its PRes timeout and is what PRes
 * latency and staleness are measured against: not the time of the frame or wake-up
 * that made the MN send it. */
void plk_mn_sent(struct plk_mn *mn, takt_ns_t t);
/* True while the isochronous phase waits for responses. */
static inline bool plk_mn_busy(const struct plk_mn *mn)
{ return mn->phase == MNP_ISOCH || mn->phase == MNP_CHAIN; }

/* --- internals shared by mn*.c and nmt_mn.c ---------------------------------- */
void plk_mn_set_state(struct plk_mn *mn, takt_ns_t now, uint8_t s);
void plk_mn_node_step(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now,
                      enum plk_mn_step s);
void plk_mn_node_reset(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now);
void plk_mn_node_lost(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now,
                      const char *why);
void plk_mn_on_asnd(struct plk_mn *mn, takt_ns_t now, const struct plk_msg *m,
                    const uint8_t *f);
/* A frame that answers no request the MN sent (node n, or NULL: an unknown source). */
void plk_mn_unexpected(struct plk_mn *mn, struct plk_mn_node *n);
/* The SoA just queued closes the last one's invitation and opens its own. */
void plk_mn_invite(struct plk_mn *mn, uint8_t svid, uint8_t target);
void plk_mn_on_pres_state(struct plk_mn *mn, struct plk_mn_node *n, takt_ns_t now);
void plk_mn_boot_tick(struct plk_mn *mn, takt_ns_t now);
void plk_mn_async(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q);
void plk_mn_nmt_eval(struct plk_mn *mn, takt_ns_t now);
void plk_mn_reset_all(struct plk_mn *mn, takt_ns_t now);
/* An ASnd NMTRequest from node src (mn_nmtreq.c): validated, executed or refused. */
void plk_mn_on_nmt_request(struct plk_mn *mn, takt_ns_t now, uint8_t src,
                           const struct plk_nmt_request *r);
/* Async slot: the next owed NMT command / requested info service; false if none. */
bool plk_mn_async_cmdq(struct plk_mn *mn, struct plk_txq *q);
bool plk_mn_async_infoq(struct plk_mn *mn, struct plk_txq *q);
/* Send SoA (svid -> target) / an NMTCommand (after SoA(NMTRequestInvite -> 240)). */
void plk_mn_soa(struct plk_mn *mn, struct plk_txq *q, uint8_t svid, uint8_t target,
                const struct plk_sync_request *sync);
void plk_mn_nmt_command(struct plk_mn *mn, struct plk_txq *q, uint8_t dst, uint8_t cmd,
                        const uint8_t *data, uint8_t data_len);
const char *plk_mn_step_name(enum plk_mn_step s);
/* mn_ip.c: an ARP or IPv4 frame (-ENOMSG from the POWERLINK decoder) / the MN's own
 * IP frame for its async slot (an SDO over UDP of node n, or an ARP reply) */
void plk_mn_ip_rx(struct plk_mn *mn, takt_ns_t now, const uint8_t *f, size_t len);
bool plk_mn_ip_tx(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q);

#endif
