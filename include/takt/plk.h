/* takt POWERLINK application API: run a managing node (MN) or a controlled node (CN)
 * on a link, with process data access and a cyclic callback; no globals. */
#ifndef TAKT_PLK_H
#define TAKT_PLK_H

#include <takt/takt.h>
#include <takt/link.h>
#include <takt/rt.h>
#include <takt/event.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

#define TAKT_PLK_MAX_NODES   239   /* CN node IDs 1..239 (DS 301) */
#define TAKT_PLK_MAX_PDO     1490  /* C_DLL_ISOCHR_MAX_PAYL */

/* One CN as the MN expects it. Identity fields of 0 are not checked. */
struct takt_plk_node {
    uint8_t  id;            /* 1..239 */
    bool     mandatory;     /* boot waits for it; its loss sends the MN back to PreOp1 */
    bool     chained;       /* PollResponse Chaining (answers after the PResMN) */
    uint32_t device_type, vendor_id, product_code, revision, serial;
    uint16_t out_size;      /* bytes the MN sends to the CN (PReq / PResMN part) */
    uint16_t in_size;       /* bytes the CN returns in its PRes */
    uint32_t pres_timeout_ns;  /* 0x1F92/id; 0 = the MN default */
};

struct takt_plk_mn_cfg {
    uint32_t cycle_us;               /* 0x1006 */
    uint32_t pres_timeout_ns;        /* default 0x1F92 value (oplk MN OD: 25 000) */
    uint32_t loss_pres_threshold;    /* 0x1C09; 0 disables */
    uint32_t cycle_exceed_threshold; /* 0x1C02/3; 0 disables */
    uint32_t cn_loss_threshold;      /* downloaded to every CN as its loss-of-SoC and
                                      * loss-of-PReq thresholds (0x1C0B/3, 0x1C0D/3);
                                      * 0 disables */
    uint32_t ident_period_cycles;    /* IdentRequest to a missing node every N async slots */
    uint32_t status_period_ms;       /* StatusRequest per node (oplk C_NMT_STATREQ_CYCLE 5 s) */
    uint32_t chain_gap_ns;           /* spacing of chained PRes after the PResMN */
    uint32_t preop1_ms;              /* time in PreOp1 (SoA only) before the first SoC */
    uint32_t async_mtu;              /* 300..1500 */
    unsigned n_nodes;
    struct takt_plk_node nodes[TAKT_PLK_MAX_NODES];
};
/* [thread: any; non-blocking] */
void takt_plk_mn_cfg_default(struct takt_plk_mn_cfg *c);
/* [thread: any; non-blocking] */
/* Add CNs first..last with the sim network's layout (1 B out, 1 B in, no identity check). */
int  takt_plk_mn_cfg_add_range(struct takt_plk_mn_cfg *c, unsigned first, unsigned last,
                               bool chained);

/* --- network configuration ------------------------------------------------------
 * A whole POWERLINK network as an MN runs it: its cycle and every CN (identity,
 * payloads, timeouts, chaining, PDO mapping), read from takt's text format
 * (docs/powerlink.md), from an openPOWERLINK MN concise DCF (mnobd.cdc), or built from
 * node ranges with defaults. Opaque; its settings are read and changed through the
 * copied-out structs below. (takt_plk_mn_cfg is the short form for a program that
 * lists its CNs itself.) */
struct takt_plk_net;
/* One thread at a time per configuration ("owner"); an MN made from it has its own copy. */

/* The openPOWERLINK defaults (cycle 1000 us, payloads 36 bytes, PRes timeout 25 us,
 * thresholds 15, async MTU 300) and no CN. 0 or -ENOMEM. */
/* [thread: any; blocking] */
int  takt_plk_net_create(struct takt_plk_net **out);
/* [thread: owner; blocking] */
void takt_plk_net_free(struct takt_plk_net *net);
/* Replace the configuration by takt's text file at path: 0, -EINVAL or -ERANGE (err:
 * "PATH: line N: ..." with node, key and reason), or -errno when it cannot be read. */
/* [thread: owner; blocking] */
int  takt_plk_net_load(struct takt_plk_net *net, const char *path, char *err, size_t errlen);
/* Replace the configuration by what an MN's concise DCF (the bytes of a mnobd.cdc)
 * configures: 0x1F81 nodes, 0x1006, thresholds, identities, payloads, 0x1F92, 0x1F98
 * and every CN's own DCF (0x1F22/n). -EBADMSG when buf is no concise DCF at all (err:
 * "not a concise DCF: ..."), -EPROTO or -ENODATA for a damaged one, -EINVAL for a
 * network the MN cannot run; err names entry, object and reason. */
/* [thread: owner; blocking] */
int  takt_plk_net_load_cdc(struct takt_plk_net *net, const void *buf, size_t len,
                           char *err, size_t errlen);
/* Add CNs first..last (1..239) with default settings (a node already there is reset
 * to them). 0 or -EINVAL. */
/* [thread: owner; non-blocking] */
int  takt_plk_net_add_nodes(struct takt_plk_net *net, unsigned first, unsigned last,
                            char *err, size_t errlen);
/* Consistency (cycle of at least 400 us, payloads, mapping, chaining...): 0, or
 * -EINVAL with node, object and reason in err. */
/* [thread: owner; non-blocking] */
int  takt_plk_net_check(const struct takt_plk_net *net, char *err, size_t errlen);

struct takt_plk_net_info {
    uint32_t cycle_us;                 /* 0x1006 */
    uint32_t async_mtu;                /* 0x1F98/8 */
    uint32_t cycle_exceed_threshold;   /* 0x1C02/3; 0 disables */
    uint32_t loss_soc_tolerance_ns;    /* 0x1C14, downloaded to the CNs */
    uint32_t boot_wait_us;             /* 0x1F89/1: listen for another MN this long */
    bool     pres_mn;                  /* the MN sends a PResMN (chaining needs it) */
    unsigned n_nodes;                  /* read only: */
    uint8_t  nodes[TAKT_PLK_MAX_NODES];   /* configured CN IDs, ascending */
};
/* [thread: owner; non-blocking] */
void takt_plk_net_get(const struct takt_plk_net *net, struct takt_plk_net_info *i);
/* Set everything but n_nodes and nodes (those change with takt_plk_net_add_nodes). */
/* [thread: owner; non-blocking] */
void takt_plk_net_set(struct takt_plk_net *net, const struct takt_plk_net_info *i);

/* One configured CN. */
struct takt_plk_net_node {
    uint8_t  id;
    bool     mandatory;        /* boot waits for it; its loss sends the MN back to PreOp1 */
    bool     chained;          /* PollResponse Chaining */
    uint32_t pres_time_first_ns;     /* chained: its PRes this long after the PResMN */
    uint32_t pres_timeout_ns;        /* 0x1F92/id */
    uint32_t loss_pres_threshold;    /* 0x1C09/id; 0 disables */
    uint32_t cn_loss_soc_threshold;  /* downloaded to the CN: 0x1C0B/3 */
    uint32_t cn_loss_preq_threshold; /* 0x1C0D/3 */
    /* read only: */
    bool     async_only, multiplexed;
    uint16_t preq_payload, pres_payload;   /* 0x1F8B/id, 0x1F8D/id */
};
/* -ENOENT when node is not configured. */
/* [thread: owner; non-blocking] */
int  takt_plk_net_node(const struct takt_plk_net *net, unsigned node,
                       struct takt_plk_net_node *n);
/* Set the writable fields of CN n->id; a chained CN turns pres_mn on. -ENOENT when it
 * is not configured. */
/* [thread: owner; non-blocking] */
int  takt_plk_net_set_node(struct takt_plk_net *net, const struct takt_plk_net_node *n);

/* A concise DCF as this library reads it: 0 when buf is one; otherwise the errors of
 * takt_plk_net_load_cdc's parsing (-EBADMSG: not a concise DCF at all). */
/* [thread: any; non-blocking] */
int  takt_plk_cdc_check(const void *buf, size_t len, char *err, size_t errlen);
/* The byte size with which an MN's concise DCF writes object index/sub into CN node
 * (its 0x1F22/node): 0 with *size set; -ENOENT when it does not write that object or
 * has no DCF for the node; the errors of takt_plk_cdc_check for a damaged buffer. */
/* [thread: any; non-blocking] */
int  takt_plk_cdc_object_size(const void *buf, size_t len, unsigned node, uint16_t index,
                              uint8_t sub, size_t *size, char *err, size_t errlen);

/* NMT states (low byte on the wire, EPSG DS 301 7.1). */
enum takt_plk_nmt {
    TAKT_PLK_OFF            = 0x00,
    TAKT_PLK_INITIALISING   = 0x19,
    TAKT_PLK_RESET_APP      = 0x29,
    TAKT_PLK_RESET_COMM     = 0x39,
    TAKT_PLK_RESET_CONF     = 0x79,
    TAKT_PLK_NOT_ACTIVE     = 0x1C,
    TAKT_PLK_PRE_OP1        = 0x1D,
    TAKT_PLK_PRE_OP2        = 0x5D,
    TAKT_PLK_READY_TO_OP    = 0x6D,
    TAKT_PLK_OPERATIONAL    = 0xFD,
    TAKT_PLK_STOPPED        = 0x4D,
    TAKT_PLK_BASIC_ETHERNET = 0x1E,
};
/* [thread: any; non-blocking] */
const char *takt_plk_nmt_name(int state);
/* An NMT command ID (0x21 "StartNode" ...) and an SDO abort code
 * (DS 301 6.3.2.3.2) as text for messages; never NULL. */
/* [thread: any; non-blocking] */
const char *takt_plk_nmt_cmd_name(unsigned cmd);
/* [thread: any; non-blocking] */
const char *takt_plk_sdo_abort_text(uint32_t code);
/* The largest object value one SDO transfer carries (a buffer of this size takes any
 * takt_plk_mn_sdo_read result). */
#define TAKT_PLK_SDO_DATA_MAX 4096

/* Per-CN counters the MN keeps; all losses are counted, never hidden. */
struct takt_plk_node_stats {
    uint8_t  state;            /* last NMT state seen from the CN */
    bool     in_cycle;         /* polled in the isochronous phase */
    /* PRes judged by wire time (receive stamp against the PReq's send stamp): ok within
     * the PRes timeout 0x1F92 (pres_held: of those, read only after the MN had moved
     * on); late after it but within the cycle (DS 301 late PRes: counted, data not
     * taken, not a loss); lost when none came in the cycle (0x1C07, +8 on 0x1C08) */
    uint64_t pres_ok, pres_lost, pres_late, pres_held;
    /* frames that answer no request the MN sent: a PRes from a node not polled in this
     * cycle, a second one, one stamped before its PReq left; an Ident/Status/Sync
     * response, NMTRequest or SDO frame not invited by this cycle's SoA. Never taken. */
    uint64_t unexpected;
    uint64_t loss_threshold_hits;  /* 0x1C09 threshold fired: node removed and reset */
    uint64_t lost;             /* removed from the cycle and reset (any reason) */
    uint64_t boots;            /* times it reached Operational */
    uint64_t ident_fail;       /* identity differed from the configuration */
    uint64_t bad_frames;       /* malformed frames from this node */
    uint64_t nmt_requests;     /* ASnd NMTRequests received from this node */
    uint64_t status_lost;      /* async-only: StatusRequest unanswered */
    uint64_t config_skipped;   /* 0x1020 equal to 0x1F26/0x1F27: download skipped */
    uint64_t config_stored;    /* download ended with 0x1020 written and 0x1010 save */
    takt_ns_t pres_lat_min, pres_lat_max, pres_lat_sum;  /* PReq sent -> PRes received */
    takt_ns_t pres_read_lat_max;   /* PReq sent -> PRes read by the MN's thread (driver) */
};

struct takt_plk_mn_stats {
    uint8_t  state;
    uint64_t cycles, cycle_exceeded, cycle_exceed_hits;
    uint64_t frames_tx, frames_rx, bad_frames;
    uint64_t unexpected;       /* as the nodes' `unexpected`, plus frames of unknown CNs */
    uint64_t sdo_ok, sdo_fail;
    uint64_t other_mn_frames;  /* SoC/SoA of another MN seen while NotActive */
    uint64_t async_eth_tx;     /* generic Ethernet frames sent in the async slot */
    uint64_t nmt_requests;     /* ASnd NMTRequests from CNs */
    uint64_t nmt_requests_done;     /* executed (command sent / info service queued) */
    uint64_t nmt_requests_refused;  /* refused (answered with NMTInvalidService) */
    unsigned nodes_operational, nodes_configured;
};

struct takt_plk_mn;
struct takt_plk_cn;

/* Cyclic callback, called once per cycle after the inputs of this cycle arrived and
 * before the next cycle's outputs are sent. Runs in the real-time thread. */
typedef void (*takt_plk_mn_cycle_fn)(void *ctx, struct takt_plk_mn *mn, takt_ns_t now);

/* [thread: any; blocking] */
int  takt_plk_mn_create(const struct takt_plk_mn_cfg *cfg, struct takt_plk_mn **out,
                        char *err, size_t errlen);
/* An MN for a network configuration (copied: net may be freed afterwards), after
 * takt_plk_net_check's checks (their error in err). */
/* [thread: any; blocking] */
int  takt_plk_mn_create_net(const struct takt_plk_net *net, struct takt_plk_mn **out,
                            char *err, size_t errlen);
/* Destroying a started MN joins its thread first. */
/* [thread: host; blocking] */
void takt_plk_mn_destroy(struct takt_plk_mn *mn);
/* [thread: idle; non-blocking] */
void takt_plk_mn_set_callback(struct takt_plk_mn *mn, takt_plk_mn_cycle_fn fn, void *ctx);
/* Process data of a CN: outputs (written by the app) and inputs (last PRes payload). */
/* [thread: cycle; non-blocking] */
uint8_t       *takt_plk_mn_outputs(struct takt_plk_mn *mn, unsigned node, size_t *len);
/* [thread: cycle; non-blocking] */
const uint8_t *takt_plk_mn_inputs(struct takt_plk_mn *mn, unsigned node, size_t *len);
/* Any thread, never blocks for long: while the MN runs, a consistent copy of the
 * figures as its real-time thread published them at the end of its last cycle. */
/* [thread: any; non-blocking] */
void takt_plk_mn_get_stats(const struct takt_plk_mn *mn, struct takt_plk_mn_stats *s);
/* [thread: any; non-blocking] */
int  takt_plk_mn_node_stats(const struct takt_plk_mn *mn, unsigned node,
                            struct takt_plk_node_stats *s);
/* The MN's per-node events (include/takt/event.h, proto TAKT_EV_PLK, unit = node ID: a
 * CN's NMT state and boot step changed, it was reset and why, it does not answer
 * IdentRequests), put by its RT thread after each cycle; one other thread drains them.
 * false when none waits. */
/* [thread: owner; non-blocking] */
bool takt_plk_mn_next_event(struct takt_plk_mn *mn, struct takt_event *ev);
/* The reader's sleep between looks: until an event waits, the MN's state or its count
 * of Operational CNs changed (takt_plk_mn_get_stats shows it), its cycle ended, a signal
 * handler ran, or timeout_ns passed. The RT thread wakes it at the end of such a cycle,
 * after publishing, and makes no system call while nobody sleeps here. 1 when woken or
 * an event waits, 0 on the timeout, -EINTR on a signal. For the thread that drains the
 * events. */
/* [thread: owner; blocking] */
int  takt_plk_mn_wait_event(struct takt_plk_mn *mn, takt_ns_t timeout_ns);

/* Boot step of a CN as the MN drives it (EPSG DS 301 7.4: identification, status,
 * configuration download, EnableReadyToOperate, StartNode). */
enum takt_plk_boot_step {
    TAKT_PLK_STEP_UNIDENT = 0,    /* IdentRequest round robin */
    TAKT_PLK_STEP_IDENTIFIED,     /* identity checked; waits for the MN to be in PreOp2 */
    TAKT_PLK_STEP_STATUS,         /* StatusRequest until the CN reports PreOp2 */
    TAKT_PLK_STEP_CONFIG,         /* in the cycle; SDO downloads of its configuration */
    TAKT_PLK_STEP_SYNC,           /* chained CN: SyncRequest with PResModeSet */
    TAKT_PLK_STEP_WAIT_READY,     /* EnableReadyToOperate sent, PRes must show 0x6D */
    TAKT_PLK_STEP_READY,          /* ReadyToOperate; StartNode once the MN is Operational */
    TAKT_PLK_STEP_WAIT_OP,        /* StartNode sent, PRes must show 0xFD */
    TAKT_PLK_STEP_OPERATIONAL,
    TAKT_PLK_STEP_STOPPED,        /* stopped on an NMTRequest: StatusRequests only */
};
/* "unidentified", "configuring", ... ("?" for other values); never NULL. */
/* [thread: any; non-blocking] */
const char *takt_plk_boot_step_name(int step);

/* What the MN knows of one CN besides its counters: where its boot stands and why it
 * was last reset, as the MN's thread published it at the end of its last cycle, and
 * the node's configured timing. Copied out; changes only when the MN's state does. */
struct takt_plk_node_info {
    uint8_t  id;
    uint8_t  state;            /* NMT state the CN last reported (enum takt_plk_nmt) */
    uint8_t  step;             /* enum takt_plk_boot_step */
    bool     in_cycle;         /* polled in the isochronous phase */
    bool     chain_active;     /* answers the PResMN (its SyncResponse confirmed) */
    /* no IdentResponse to 3 IdentRequests over 3 s since it was last unidentified: not
     * on the network (node ID switch, cable?) */
    bool     missing;
    bool     mandatory, chained;        /* configured */
    uint32_t pres_timeout_ns;           /* configured 0x1F92/id */
    uint32_t loss_pres_threshold;       /* configured 0x1C09/id; 0 disables */
    const char *last_reset;    /* why the MN last removed and reset it (static text), NULL
                                * if it never did */
    char     note[112];        /* the last configuration event ("configuration
                                * downloaded ..."), "" if none */
};

/* The MN's configuration (fixed once created) and its last refusal of a CN's request. */
struct takt_plk_mn_info {
    uint32_t cycle_us;                 /* 0x1006 */
    uint32_t cycle_exceed_threshold;   /* 0x1C02/3; 0 disables */
    uint32_t async_mtu;                /* 0x1F98/8 */
    unsigned n_nodes;
    uint8_t  nodes[TAKT_PLK_MAX_NODES];   /* configured CN IDs, ascending */
    char     nmtreq_last_refused[128];    /* node, command, target and reason, "" if none */
};

/* Any thread, never blocks for long (a sequence lock, as for the statistics): while
 * the MN runs, a consistent copy of what its thread published at the end of its last
 * cycle; before the start and after the join, the core's own. */
/* [thread: any; non-blocking] */
void takt_plk_mn_get_info(const struct takt_plk_mn *mn, struct takt_plk_mn_info *i);
/* -ENOENT for a node the MN does not have. */
/* [thread: any; non-blocking] */
int  takt_plk_mn_node_info(const struct takt_plk_mn *mn, unsigned node,
                           struct takt_plk_node_info *i);

/* Bit access to a process image (takt_plk_mn_outputs/inputs, takt_plk_cn_inputs/
 * outputs) for BOOLEAN / BITn mapping entries: bit_off counts from bit 0 of byte 0
 * upwards (DS 301 mapping order), bit_len 1..64. -ERANGE when the bits are not within
 * len bytes or bit_len is out of range. */
/* [thread: any; non-blocking] */
int takt_plk_get_bits(const uint8_t *img, size_t len, unsigned bit_off, unsigned bit_len,
                      uint64_t *v);
/* [thread: any; non-blocking] */
int takt_plk_set_bits(uint8_t *img, size_t len, unsigned bit_off, unsigned bit_len,
                      uint64_t v);

/* Run options of the drivers. */
struct takt_plk_run_opts {
    struct takt_rt_opts rt;      /* CPU, priority, mlock */
    takt_ns_t duration;     /* 0 = until takt_plk_*_stop() */
    /* MN: also measure its thread's CPU time per cycle (the `CPU per Cycle` measurement
     * in the loop's perf set), at the cost of a CLOCK_THREAD_CPUTIME_ID read, a system
     * call, every cycle. Without it the measurement is not there; the loop's CPU per
     * cycle over its run (takt_rt_loop_cpu_per_cycle) is measured either way. CN: unused. */
    bool thread_cpu;
};

/* Bind the MN to a link and run its cycle on absolute deadlines in a real-time
 * thread (takt_rt_loop). The link stays the caller's. */
/* [thread: idle; blocking] */
int  takt_plk_mn_start(struct takt_plk_mn *mn, struct takt_link *link,
                       const struct takt_plk_run_opts *o);
/* [thread: any; non-blocking] */
void takt_plk_mn_stop(struct takt_plk_mn *mn);
/* [thread: host; blocking] */
int  takt_plk_mn_join(struct takt_plk_mn *mn);
/* The takt_rt_loop of a started MN (its perf set holds the job measurements). */
/* [thread: any; non-blocking] */
struct takt_rt_loop *takt_plk_mn_loop(struct takt_plk_mn *mn);

/* Blocking SDO transfers: posted into the running MN's command ring, from any number
 * of threads at once; the RT thread runs them one at a time in their order and the
 * caller sleeps until its own result came, at most timeout_ns. They need the MN's RT
 * thread running (-ECANCELED once it ended); from its cyclic callback -EDEADLK;
 * -EAGAIN when 64 requests already wait. */
/* [thread: any; blocking] */
int takt_plk_mn_sdo_read(struct takt_plk_mn *mn, unsigned node, uint16_t index,
                         uint8_t sub, void *buf, size_t cap, size_t *len, takt_ns_t timeout_ns);
/* [thread: any; blocking] */
int takt_plk_mn_sdo_write(struct takt_plk_mn *mn, unsigned node, uint16_t index,
                          uint8_t sub, const void *data, size_t len, takt_ns_t timeout_ns);

/* The SDO abort code (DS 301 6.3.2.3.2) of the transfer of takt_plk_mn_sdo_read or
 * _write that ended last, if it ended with -TAKT_ESDOABORT; 0 if it ended otherwise.
 * With several threads making transfers, the last one to end may be another's. */
/* [thread: any; non-blocking] */
uint32_t takt_plk_mn_sdo_abort_code(const struct takt_plk_mn *mn);

/* SDO over UDP/IP (EPSG DS 301, "SDO via UDP/IP"): with udp true, the transfers
 * takt_plk_mn_sdo_read/write start from now on go from 192.168.100.240 to the CN's
 * 192.168.100.<node>, UDP port 3819, as IP frames in the async phase (the MN's slot
 * after SoA UnspecifiedInvite -> 240; the CN answers in the slot of an UnspecifiedInvite
 * to it). false (the default): over ASnd. */
/* [thread: any; non-blocking] */
void takt_plk_mn_sdo_udp(struct takt_plk_mn *mn, bool udp);
/* The virtual Ethernet (EPSG DS 301): with a host TAP device's MAC given (before
 * takt_plk_mn_start; NULL: none), the MN leaves the ARP and IP frames to that MAC or to
 * all to takt_plk_mn_recv_eth (one frame into buf, its length; 0 if none; -EMSGSIZE if
 * cap is too small), which writes them to the TAP; frames from the TAP go out with
 * takt_plk_mn_send_eth. Without it the MN answers ARP for 192.168.100.240 itself. */
/* [thread: idle; non-blocking] */
void takt_plk_mn_veth(struct takt_plk_mn *mn, const uint8_t mac[6]);
/* [thread: owner; non-blocking] */
int  takt_plk_mn_recv_eth(struct takt_plk_mn *mn, void *buf, size_t cap);
/* [thread: any; non-blocking] */
uint64_t takt_plk_mn_veth_dropped(struct takt_plk_mn *mn);

/* Queue one generic Ethernet frame (any EtherType, complete with its header) for the
 * MN's next free async slot (announced by SoA UnspecifiedInvite -> 240, DS 301 4.2.4.6).
 * -EBUSY while the previous one waits, -EMSGSIZE beyond the async MTU (0x1F98/8) + 14. */
/* [thread: owner; non-blocking] */
int takt_plk_mn_send_eth(struct takt_plk_mn *mn, const void *frame, size_t len);

/* --- CN ------------------------------------------------------------------------ */
struct takt_plk_cn_cfg {
    uint8_t  id;
    uint32_t device_type, vendor_id, product_code, revision, serial;
    uint16_t out_size, in_size;      /* process image (RPDO from PReq, TPDO into PRes) */
    uint32_t basic_eth_timeout_us;   /* 0x1F99 */
    uint32_t soc_tolerance_ns;       /* 0x1C14 */
};
/* [thread: any; non-blocking] */
void takt_plk_cn_cfg_default(struct takt_plk_cn_cfg *c, uint8_t id);

/* CN cyclic callback: once per SoC received (the inputs it sets go out in this cycle's
 * PRes, the outputs are those of the last PReq). Runs in the thread of takt_plk_cn_run. */
typedef void (*takt_plk_cn_cycle_fn)(void *ctx, struct takt_plk_cn *cn, takt_ns_t now);
/* [thread: any; blocking] */
int  takt_plk_cn_create(const struct takt_plk_cn_cfg *cfg, struct takt_plk_cn **out,
                        char *err, size_t errlen);
/* [thread: idle; blocking] */
void takt_plk_cn_destroy(struct takt_plk_cn *cn);
/* [thread: idle; non-blocking] */
void takt_plk_cn_set_callback(struct takt_plk_cn *cn, takt_plk_cn_cycle_fn fn, void *ctx);
/* [thread: cycle; non-blocking] */
uint8_t       *takt_plk_cn_inputs(struct takt_plk_cn *cn, size_t *len);   /* sent in PRes */
/* [thread: cycle; non-blocking] */
const uint8_t *takt_plk_cn_outputs(struct takt_plk_cn *cn, size_t *len);  /* from PReq */
/* [thread: any; non-blocking] */
int  takt_plk_cn_state(const struct takt_plk_cn *cn);   /* any thread */
/* The CN's events (include/takt/event.h, proto TAKT_EV_PLK, unit = its node ID): its
 * NMT state changed (TAKT_PLK_EV_CN_STATE), an NMT command reset it
 * (TAKT_PLK_EV_CN_RESET); put by the thread of takt_plk_cn_run, drained by one other
 * thread. false when none waits. */
/* [thread: owner; non-blocking] */
bool takt_plk_cn_next_event(struct takt_plk_cn *cn, struct takt_event *ev);
/* Serve the CN on a link until stop or duration (event-driven receive loop). */
/* [thread: idle; blocking] */
int  takt_plk_cn_run(struct takt_plk_cn *cn, struct takt_link *link,
                     const struct takt_plk_run_opts *o);
/* [thread: any; non-blocking] */
void takt_plk_cn_stop(struct takt_plk_cn *cn);
/* Ask the MN for an NMT service (ASnd NMTRequest, DS 301 7.3.6): cmd is the requested
 * NMTCommandID (e.g. 0x22 StopNode, 0x28 ResetNode, 0x80.. info services), target the
 * node it is for (255 all), data up to 32 bytes (the Ex commands' node bit-field).
 * Any thread, several at once, also while the CN runs: the request is posted into
 * the CN's command ring (8 records), which the CN's thread drains in order at its next
 * frame; it queues up to 4, announces them with PR 7 / RS = count in its PRes and
 * StatusResponse and sends one per SoA
 * (NMTRequestInvite) addressed to it. 0, -EINVAL (cmd 0 or 0xFF, len > 32), -EAGAIN
 * (the ring is full: 8 requests not taken yet). A request the CN cannot queue (not in
 * PreOp1..Operational/Stopped, 4 waiting) or loses in a reset is dropped and counted
 * (`nmtreq_dropped` in `takt plk cn --json`). */
/* [thread: any; non-blocking] */
int  takt_plk_cn_request_nmt(struct takt_plk_cn *cn, uint8_t cmd, uint8_t target,
                             const void *data, size_t len);
/* NMTRequests queued in the CN and not yet sent (a snapshot). */
/* [thread: any; non-blocking] */
unsigned takt_plk_cn_nmt_pending(const struct takt_plk_cn *cn);
/* The CN host's virtual Ethernet (EPSG DS 301 "Virtual Ethernet"), as the MN's
 * takt_plk_mn_veth: with on (before takt_plk_cn_run) the CN hands every IPv4 and ARP
 * frame to its MAC or to all to takt_plk_cn_recv_eth (one frame into buf, its length;
 * 0 if none; -EMSGSIZE if cap is too small; a full ring of 8 drops and counts,
 * takt_plk_cn_veth_dropped), except SDO over UDP to 192.168.100.<id> port 3819, which
 * its own SDO server keeps answering. So ARP and ping for its IP are the host's to
 * answer (a TAP device with the CN's MAC and IP). Without it the CN answers ARP and
 * ping itself. takt_plk_cn_send_eth queues one frame from the host (with its Ethernet
 * header) for the CN's next generic async slot: announced with PR/RS in PRes and
 * StatusResponse, sent when the MN invites the CN with SoA UnspecifiedInvite
 * (DS 301 4.2.4.6). -EBUSY while the last one waits, -EMSGSIZE below 14 bytes or beyond
 * 1500 + 14, -EPROTOTYPE for a POWERLINK frame (EtherType 0x88AB), -ENODEV without
 * takt_plk_cn_veth. One thread (the TAP's) does both, also while the CN runs. */
/* [thread: idle; non-blocking] */
void takt_plk_cn_veth(struct takt_plk_cn *cn, bool on);
/* [thread: host; non-blocking] */
int  takt_plk_cn_send_eth(struct takt_plk_cn *cn, const void *frame, size_t len);
/* [thread: host; non-blocking] */
int  takt_plk_cn_recv_eth(struct takt_plk_cn *cn, void *buf, size_t cap);
/* [thread: any; non-blocking] */
uint64_t takt_plk_cn_veth_dropped(const struct takt_plk_cn *cn);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
