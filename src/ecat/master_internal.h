/* The EtherCAT core's context (struct ecat_core, entry points in core.h), shared by
 * pdu.c (datagram queue and reply matching), scan.c, esm.c, cyclic.c, dc.c,
 * recovery.c and the service files. They are sans-I/O: they take now_ns, queue
 * datagrams, judge replies; the driver (driver.h, master.c) moves frames. */
#ifndef TAKT_ECAT_MASTER_INTERNAL_H
#define TAKT_ECAT_MASTER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <takt/ecat.h>
#include <takt/perf.h>
#include "rt/event.h"
#include "ecat/frame.h"
#include "ecat/mbx.h"
#include "ecat/pdo.h"
#include "ecat/proto.h"

/* --- one datagram in flight (pdu.c) ------------------------------------------------ */
enum { REQ_IDLE, REQ_QUEUED, REQ_SENT, REQ_DONE };

struct ecat_req {
    struct ecat_req *next;     /* acyclic queue link (intrusive: no allocation) */
    uint8_t   cmd, idx, st;
    uint16_t  adp, ado;        /* logical commands: lad = adp | ado << 16 */
    uint16_t  len;
    uint8_t  *data;            /* len bytes: sent, and replaced by the reply */
    uint8_t  *rx;              /* where the reply goes instead (NULL: data) */
    int       wkc;             /* after REQ_DONE: returned WKC, -1 = frame lost */
    uint32_t  fno;             /* frame it went out in (loss counted per frame) */
    takt_ns_t sent;
};

/* Frame generations (pdu.c). Every frame the master sends opens with a NOP datagram
 * (ETG.1000.4 commands: no slave executes it, so it comes back as it went) whose 32-bit address
 * carries the frame's number. A reply is matched only to the requests of the frame whose
 * number it carries: an index that came round again can never complete a newer request
 * with an old reply. The ring remembers what became of the last ECAT_GEN_RING frames. */
#define ECAT_GEN_RING 4096
enum { GEN_FREE, GEN_SENT, GEN_RECEIVED, GEN_LOST, GEN_ARRIVED_LATE, GEN_LATE };
struct ecat_gen {
    uint32_t fno;
    uint8_t  st;
    bool     cyclic;           /* judged against the cycle's deadline, not dg_timeout */
};

#define ECAT_REQ_DATA 16       /* register requests of the state machines */
#define ECAT_SII_FIRST 4096    /* SII bytes allocated per slave at open; grown at scan up to
                                  ECAT_SII_MAX_IMAGE where the SII declares more */
#define ECAT_MAX_SM   8
#define ECAT_MAX_PDO_ENTRIES 64
#define ECAT_MAX_CYC_DG 16     /* LRW datagrams (one per frame) */
#define ECAT_EVENTS   256    /* events the ring holds for a reader that is behind */

/* Process data entries of a slave (from SII PDO categories). */
struct ecat_pd {
    uint16_t index; uint8_t sub, bits;
    bool     output;
    uint32_t abs_bit;          /* bit offset in the process image */
    uint16_t pdo;              /* 0x16xx/0x1Axx */
    char     name[ECAT_PDO_NAME];
};

struct ecat_sm_cfg { uint16_t start, len; uint8_t control, enable, type; };

/* the modules' sub-objects (after struct ecat_req: they hold requests; esm.h first:
 * the scan's network machine is a struct ecat_sfsm too) */
#include "ecat/esm.h"
#include "ecat/dc.h"
#include "ecat/recovery.h"
#include "ecat/scan.h"

struct ecat_slave {
    struct takt_ecat_slave_info info;
    struct ecat_slave_scan scan; /* what the scan learned: SII image, CoE details (scan.h) */
    unsigned  n_sm;
    struct ecat_sm_cfg sm[ECAT_MAX_SM];
    uint8_t   fmmu_use[ECAT_MAX_SM];
    unsigned  n_fmmu_sii;
    unsigned  n_pd;
    struct ecat_pd pd[ECAT_MAX_PDO_ENTRIES];
    int       sm_out, sm_in;   /* SM index of the process data, -1 none */
    uint32_t  out_log, in_log; /* logical addresses of the FMMUs */
    unsigned  seg;             /* cyclic datagram this slave's data is in */
    bool      configured;      /* layout done */
    struct ecat_mbx_chan mbx;  /* mailbox: counters, repeat toggle, idle poll (mbx.h) */
    struct ecat_slave_rec rec; /* recovery: re-scan, back-off, old identity (recovery.h) */
    uint32_t  al_fno;          /* frame that carried its last AL status reading */
    struct ecat_slave_dc dc;   /* distributed clock set-up and readings (dc.h) */
    struct ecat_esm esm;       /* the slave's ESM: state, requests, set-up plan (esm.h) */
};

/* A queued acyclic service (register read/write) with its completion. */
#define ECAT_SVC_SLOTS 16
#define ECAT_SVC_DATA  512
struct ecat_svc {
    struct ecat_req req;
    uint8_t   data[ECAT_SVC_DATA];
    takt_ecat_done_fn fn;
    void     *ctx;
    bool      used;
    unsigned  tries;
    unsigned  pos;
};

/* The statistics (with the state) as the cycle last published them: a sequence lock
 * over words that are themselves atomic, so a reader in another thread never sees a
 * torn copy and no access is a data race (master_state.c). */
#define ECAT_SNAP_WORDS ((sizeof(struct takt_ecat_master_stats) + 7) / 8)
struct ecat_snap {
    atomic_uint seq;           /* odd while the cycle writes */
    _Atomic uint64_t w[ECAT_SNAP_WORDS];
    /* per slave (max_slaves): AL state | AL status code << 8 | present << 24, each word
     * atomic on its own (takt_ecat_master_slave_state) */
    _Atomic uint32_t *slave;
    _Atomic uint32_t *topo;    /* parent + 1 | parent port << 16 | ports open << 20 |
                                  frame << 24 (master_pub.c) */
    _Atomic int32_t  *dc_diff; /* last valid |0x092C|, -1 none */
    /* the cyclic frames and the image (master_pub.c): one more sequence lock, written
     * while a reader wants them (preq) or while no RT thread runs the cycle */
    atomic_uint pseq;
    _Atomic uint64_t *pw;      /* ECAT_PUB_WORDS */
    atomic_uint preq;          /* readers' requests, counted (any thread adds one) */
    atomic_uint pub_gave_up;   /* the request a reader last waited for in vain (any thread) */
    /* the cycle's own, read by no other thread */
    unsigned pub_seen;         /* preq as the cycle last saw it */
    uint64_t pub_until;        /* publish while st.cycles < this (the readers' lease) */
    unsigned al_gen;           /* the core's al_gen the slave words were published at */
    uint64_t pub_here;         /* st.cycles + 1 of the cycle in whose thread a reader
                                  had them published (ecat_pub_want): once a cycle */
    int64_t  rate_sec;         /* the rates below are of the buckets before this second */
    double   tx_rate[3], loss_rate[3];
};
/* header words (sizes, the cycle published, the lease's end, the request served),
 * frames, then the image (at most ECAT_PUB_IMAGE bytes of it) */
#define ECAT_PUB_HDR 4
#define ECAT_PUB_IMAGE (2 * ECAT_MAX_CYC_DG * ECAT_MAX_DG_DATA)
#define ECAT_PUB_FRAME_WORDS ((sizeof(struct takt_ecat_frame_info) + 7) / 8)
#define ECAT_PUB_WORDS (ECAT_PUB_HDR + TAKT_ECAT_MAX_FRAMES * ECAT_PUB_FRAME_WORDS + ECAT_PUB_IMAGE / 8)
/* Cycles a reader's request keeps the frames and image published: a reader that comes
 * back within it (the control socket's refresh, top) finds them current without waiting. */
#define ECAT_PUB_LEASE 4096u

/* Per-second counters for the 1/10/60 s rates (IgH `ethercat master` style). */
struct ecat_rate {
    int64_t  sec;              /* second of bucket[cur] */
    unsigned cur;
    uint32_t sent[61], lost[61];
};

/* The EtherCAT core: everything the master knows of the network, driven by the time
 * and the frames it is given (core.h); it holds no link and reads no clock. The driver
 * (driver.h, master.c) owns one and moves its frames. */
enum { ECAT_SII_FREE, ECAT_SII_WRITE, ECAT_SII_RESCAN, ECAT_SII_CORE };

struct ecat_core {
    uint8_t   mac[6];          /* source address of every frame it builds */
    char      ifname[32];      /* the interface, for messages only */
    struct takt_ecat_master_opts o;

    /* the EEPROM interface 0x0500-0x050F has one user at a time (ETG.1000.4 6.4): a
     * tool's SII write or rescan through the driver (master_svc.c, master_rescan.c),
     * taken and given back by either thread, or the core's own SII reads at scan and
     * recovery (esm.c), taken and given back in the cycle's thread (ECAT_SII_*) */
    atomic_int sii_user;
    atomic_bool sii_wanted;    /* a write waits for it: no new rescan or read takes it first */

    /* datagrams: in-flight table by index, acyclic FIFO */
    struct ecat_req *inflight[256];
    /* no request in flight was sent before this (exp_armed: some may be in flight): the
     * timeout scan runs only once the oldest could be due (ecat_pdu_expire) */
    takt_ns_t exp_oldest;
    bool      exp_armed;
    uint8_t   next_idx;
    uint32_t  frame_no;        /* number of the frame being built (its generation) */
    struct ecat_gen gen[ECAT_GEN_RING];
    takt_ns_t rx_deadline;     /* cyclic replies stamped after this are late (0: none) */
    unsigned  inputs_age;      /* cycles since every cyclic datagram came back in time */
    struct ecat_req *q_head, *q_tail;
    uint8_t  *txbuf;           /* acyclic frames of one cycle, acyc_frames x TAKT_FRAME_BUF */
    uint8_t  *cycbuf;          /* cyclic frames, ECAT_MAX_CYC_DG x TAKT_FRAME_BUF */
    struct takt_frame *txf;    /* frames built, handed out by ecat_core_tx */
    bool      cyc_due;         /* ecat_core_cycle opened a cycle: tx gives its cyclic frames */

    /* network */
    struct ecat_scan scan;     /* the network scan (scan.c, scan.h) */
    unsigned  n_slaves, max_slaves;
    struct ecat_sii *sii_scratch; /* decoder output while parsing one slave's SII */
    struct ecat_pdo_map *maps; /* PDO mapping per position (pdo.h), max_slaves */
    struct ecat_pdo_image img; /* the layout (pdo.c) */
    uint8_t  *cyc_rx;          /* replies of the cyclic LRW/LRD, then LWR: 2 x ECAT_MAX_CYC_DG x 1486 */
    struct ecat_slave *slaves;
    /* bumped with every write of a slave's info.al_state, al_code or present (and of
     * n_slaves): the cycle rebuilds the slaves' published state words only after one
     * (ecat_al_changed, ecat_snap_publish), not for every slave every cycle */
    unsigned  al_gen;
    bool      configured;
    uint8_t   target;          /* requested network state, 0 = none */
    int       last_err;
    char      errmsg[512];

    /* process image */
    uint8_t  *image;
    size_t    image_len, image_cap;
    struct ecat_plan_exec *px; /* the plan the cycle runs (plan_cyc.c), NULL: none yet */
    /* cyclic frames written again in place rather than built anew (plan_cyc.c), and
     * a switch that builds every one anew: tests compare the two byte for byte */
    unsigned  cyc_refills;
    bool      cyc_rebuild;
    /* per-cycle monitoring datagrams in the first cyclic frame */
    struct ecat_req mon_al;    /* BRD 0x0130: WKC = slaves present, data = OR of states */
    uint8_t   mon_al_buf[2];
    struct ecat_dc dc;         /* distributed clocks (dc.c, dc.h) */

    /* ENI (master_eni.c, eni_exec.c, eni_cyclic.c); NULL without one */
    struct ecat_eni *eni;
    char     *eni_path;
    struct ecat_eni_run *eni_runs;  /* eni_nruns - 1 slaves, then the master's own commands */
    unsigned  eni_nruns;
    bool      eni_dc;          /* the ENI configures DC: its cyclic ARMW/FRMW of 0x0910 run */
    bool      eni_sync;        /* its init commands arm SYNC0 (not dc.c) */
    bool      eni_dc_set;      /* the ENI turned o.dc on */

    struct ecat_recovery rec;  /* recovery (recovery.c, recovery.h) */

    struct ecat_svc svc[ECAT_SVC_SLOTS];
    struct ecat_sdo_slot *sdo; /* ECAT_SDO_SLOTS mailbox transfers (master_coe.c) */
    uint32_t  sdo_seq;
    unsigned  sdo_used;        /* slots not free: the timer looks at the slots only then */
    struct ecat_foe_slot *foe; /* ECAT_FOE_SLOTS file transfers (master_foe.c) */
    uint32_t  foe_seq;
    takt_ecat_foe_progress_fn foe_progress;
    void     *foe_progress_ctx;
    struct ecat_soe_slot *soe; /* ECAT_SOE_SLOTS IDN reads and writes (master_soe.c) */
    uint32_t  soe_seq;
    struct ecat_eoe_port **eoe; /* opened EoE ports (master_eoe.c) */
    unsigned  n_eoe;
    struct ecat_req idle_req;  /* send-mailbox poll between transfers (emergencies) */
    uint8_t   idle_buf[ECAT_MAX_DG_DATA];
    unsigned  idle_pos, idle_next;
    /* the slaves whose SII gives a CoE send mailbox the idle poll can read, a bit per
     * position (max_slaves) and their count: set where an SII is parsed, cleared with
     * the slave list (ecat_coe_poll_note, _clear), so that the poll of every cycle
     * walks only these, not every slave */
    uint64_t *coe_poll_set;
    unsigned  n_coe_poll;

    /* statistics */
    struct takt_ecat_master_stats st;
    struct ecat_rate rate;

    /* events (include/takt/event.h): single producer (the cycle), single consumer */
    struct rt_evring ev;
    int       ev_rt;           /* atomic: 0 no RT thread, 1 started, 2 its id in ev_tid */
    pthread_t ev_tid;          /* the RT thread, the ring's producer while it runs */
    takt_ns_t now;             /* the time of the cycle (or service step) under way */

    /* silence: consecutive cycles in which no cyclic frame came back (master_state.c) */
    unsigned  silent_cycles;
    /* the slaves' reported states summed up (master_state.c), at al_gen == sum_gen + 1:
     * how many answer, the OR of their states, the lowest one */
    unsigned  sum_gen, sum_answering;
    uint8_t   sum_seen, sum_low;
    /* rec.low_state was taken at al_gen == low_gen over low_n slaves (core.c) */
    unsigned  low_gen, low_n;
    bool      low_known;

    /* what other threads may read, published by the cycle (master_state.c) */
    struct ecat_snap snap;
    bool      threaded;        /* the driver's cycle thread was started (and not joined) */

    /* cable redundancy (redund_mon.c): the ring state the events last reported, from
     * what the driver reads of its link over both ports each cycle */
    bool      redundant;
    bool      red_broken;
    unsigned  red_first, red_second;
    bool      red_seen_broken;    /* ... and what the last cycle saw */
    unsigned  red_seen_first, red_seen_second;
    struct takt_ecat_redundancy red_st;
};

/* redund_mon.c: report a break of the ring, where it is, and its healing (each cycle),
 * from the ring state the driver read of its link (ecat_red_get) */
void ecat_red_check(struct ecat_core *m, const struct takt_ecat_redundancy *port, takt_ns_t now);
/* redund_dc.c: each DC slave's 0x0928 for the ring's state (the far side's path while
 * broken behind the reference, the closed ring's otherwise), written on the acyclic path */
void ecat_red_dc_step(struct ecat_core *m, takt_ns_t now);

/* pdu.c */
void ecat_req_init(struct ecat_req *r, uint8_t cmd, uint16_t adp, uint16_t ado,
                   uint8_t *data, uint16_t len);
void ecat_req_queue(struct ecat_core *m, struct ecat_req *r);
static inline bool ecat_req_busy(const struct ecat_req *r)
{ return r->st == REQ_QUEUED || r->st == REQ_SENT; }
/* Start frame m->frame_no + 1 in buf: Ethernet and EtherCAT headers, then the NOP that
 * carries its number. Returns the position of the first request. */
size_t ecat_pdu_frame_begin(struct ecat_core *m, uint8_t *buf, bool cyclic);
/* The next frame number, noted as sent (what ecat_pdu_frame_begin gives a frame). */
uint32_t ecat_pdu_frame_number(struct ecat_core *m, bool cyclic);
/* Frame fno did not come back in its time: counted lost once (true the first time). A
 * reply that arrives afterwards is counted late and never used. */
bool ecat_pdu_frame_lost(struct ecat_core *m, takt_ns_t now, uint32_t fno);
/* Build frames from queued requests into m->txbuf; returns frames built. */
unsigned ecat_pdu_build_acyc(struct ecat_core *m, takt_ns_t now);
/* A cyclic frame sent again with the layout it had (plan_cyc.c): _claim takes an index
 * for each of rq[0..n) in the order appends would (false: not all free, nothing taken);
 * _frame_renew gives the frame the next number; _refill writes request r again at
 * offset at of the frame, where an append had put it, with index idx. */
bool ecat_pdu_claim(struct ecat_core *m, struct ecat_req *const *rq, unsigned n, uint8_t *idx);
void ecat_pdu_frame_renew(struct ecat_core *m, uint8_t *buf, bool cyclic);
void ecat_pdu_refill(struct ecat_core *m, uint8_t *buf, size_t at, struct ecat_req *r, uint8_t idx,
                     takt_ns_t now);
/* Append a request to a frame being built (cyclic frames); false if it does not fit. */
bool ecat_pdu_append(struct ecat_core *m, uint8_t *buf, size_t *pos, struct ecat_req *r,
                     takt_ns_t now);
/* Match a received frame's datagrams to the requests of the frame it answers; copies data
 * and WKC back. rx_ts: the link's receive stamp (0: none). */
void ecat_pdu_receive(struct ecat_core *m, uint8_t *buf, size_t len, takt_ns_t rx_ts);
/* Requests sent longer than the timeout ago are finished as lost (wkc -1). */
void ecat_pdu_expire(struct ecat_core *m, takt_ns_t now);
/* When the last acyclic request in flight times out (0: none in flight). */
takt_ns_t ecat_pdu_acyc_due(const struct ecat_core *m);
void ecat_pdu_cancel_all(struct ecat_core *m);
/* Take requests out of the acyclic queue (slave gone). */
void ecat_pdu_unqueue(struct ecat_core *m, struct ecat_req *r, unsigned n);

/* cyclic.c: a cyclic request still in flight at the next cycle did not come back: take it
 * out of the index table (its frame is counted lost by the caller, and a reply that comes
 * later counts as late); true if it was sent. */
bool ecat_cyc_reap(struct ecat_core *m, struct ecat_req *r);

/* master.c: the event ring is the core's (written by it, read through the driver) */
/* Raise event `code` about slave `unit` (-1 none) with values v[0..nv) and text
 * arguments txt (NULL or RT_TXT(...)): a code and values, never formatted here. With
 * err != 0 it is also the master's error: its text is made now for
 * takt_ecat_master_error (an error path, not per cycle). Only the thread that drives
 * the cycle puts it on the ring; called from another thread while the cycle thread
 * runs, an error is kept for takt_ecat_master_error only. */
void ecat_ev_put(struct ecat_core *m, unsigned code, int unit, int err,
                 const int64_t *v, unsigned nv, const char *const *txt);
/* ECAT_EV(m, TAKT_ECAT_EV_x, unit, values...), ECAT_EVT(m, code, unit, RT_TXT(texts),
 * values...), and the error forms ECAT_FAIL(m, err, code, unit, values...), ECAT_FAILT */
#define ECAT_EV(m, code, unit, ...) ecat_ev_put((m), (code), (unit), 0, RT_EV_VALS(__VA_ARGS__), NULL)
#define ECAT_EVT(m, code, unit, txt, ...) ecat_ev_put((m), (code), (unit), 0, RT_EV_VALS(__VA_ARGS__), (txt))
#define ECAT_FAIL(m, err, code, unit, ...) ecat_ev_put((m), (code), (unit), (err), RT_EV_VALS(__VA_ARGS__), NULL)
#define ECAT_FAILT(m, err, code, unit, txt, ...) \
    ecat_ev_put((m), (code), (unit), (err), RT_EV_VALS(__VA_ARGS__), (txt))
/* An emergency's five data bytes as one value (%D in the formats). */
static inline int64_t ecat_ev_bytes5(const uint8_t *d)
{
    return (int64_t)d[0] | (int64_t)d[1] << 8 | (int64_t)d[2] << 16 | (int64_t)d[3] << 24 |
           (int64_t)d[4] << 32;
}
/* events.c: the text of an EtherCAT event and its code's name (NULL if unknown) */
int ecat_ev_format(const struct takt_event *ev, char *buf, size_t len);
const char *ecat_ev_name(unsigned code);
void ecat_rate_add(struct ecat_rate *r, takt_ns_t now, uint32_t sent, uint32_t lost);
/* Drive cycles (no callback) until done() or timeout; blocking, tools only, while no
 * RT thread runs. One thread drives at a time (drive_mx); the others' calls meanwhile
 * go into the command ring, which each cycle drains. */
struct takt_ecat_master;
int ecat_master_drive(struct takt_ecat_master *drv, bool (*done)(struct ecat_core *m, void *ctx),
                      void *ctx, takt_ns_t timeout_ns);
/* A blocking wrapper's wait for one queued mailbox service: pass ecat_wait_done and the
 * ecat_wait as completion callback and context, then ecat_wait_drive. */
struct ecat_wait { bool done; int err; size_t len; };
void ecat_wait_done(void *ctx, int err, const uint8_t *data, size_t len);
int  ecat_wait_drive(struct takt_ecat_master *drv, struct ecat_wait *w, takt_ns_t timeout_ns);

/* master_coe.c */
#define ECAT_SDO_SLOTS 8
struct ecat_sdo_slot;
int  ecat_coe_init(struct ecat_core *m);
void ecat_coe_free(struct ecat_core *m);
void ecat_coe_poll(struct ecat_core *m, takt_ns_t now);
/* Slave pos's mailbox fields were written (its SII parsed): it joins or leaves the
 * slaves the idle poll visits. _clear: the slave list was emptied (a new scan). */
void ecat_coe_poll_note(struct ecat_core *m, unsigned pos);
void ecat_coe_poll_clear(struct ecat_core *m);
/* The core's side of takt_ecat_sdo_upload_async / _download_async (the ENI's CoE init
 * commands queue through these). */
int  ecat_sdo_upload_async(struct ecat_core *m, unsigned pos, uint16_t index, uint8_t sub,
                           bool ca, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
int  ecat_sdo_download_async(struct ecat_core *m, unsigned pos, uint16_t index, uint8_t sub,
                             bool ca, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
struct ecat_coe_req;
int  ecat_sdo_queue(struct ecat_core *m, unsigned pos, const struct ecat_coe_req *r,
                    takt_ecat_done_fn fn, void *ctx);

/* True while a CoE transfer owns slave pos's mailbox. */
bool ecat_coe_slave_busy(const struct ecat_core *m, unsigned pos);
/* True while a CoE, SoE or FoE request for slave pos waits for its turn (EoE lets it go
 * first between two of its exchanges). */
bool ecat_coe_slave_waiting(const struct ecat_core *m, unsigned pos);
bool ecat_soe_slave_waiting(const struct ecat_core *m, unsigned pos);
bool ecat_foe_slave_waiting(const struct ecat_core *m, unsigned pos);

/* master_soe.c; the core's side of takt_ecat_soe_write_async */
int  ecat_soe_write_async(struct ecat_core *m, unsigned pos, uint8_t drive, uint8_t elements,
                          uint16_t idn, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
#define ECAT_SOE_SLOTS 2
struct ecat_soe_slot;
int  ecat_soe_init(struct ecat_core *m);
void ecat_soe_free(struct ecat_core *m);
void ecat_soe_poll(struct ecat_core *m, takt_ns_t now);
/* True while an SoE request owns slave pos's mailbox (not while it waits its turn). */
bool ecat_soe_slave_busy(const struct ecat_core *m, unsigned pos);
int  ecat_soe_queue(struct ecat_core *m, unsigned pos, int dir, uint8_t drive, uint8_t elements,
                    uint16_t idn, uint8_t *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);

/* master_eoe.c; the core's side of takt_ecat_eoe_open, _set_ip_async, _set_filter_async
 * (the ENI's EoE init commands use these) */
int  ecat_eoe_open(struct ecat_core *m, unsigned pos);
int  ecat_eoe_set_ip_async(struct ecat_core *m, unsigned pos, const struct takt_ecat_eoe_ip *ip,
                           takt_ecat_done_fn fn, void *ctx);
int  ecat_eoe_set_filter_async(struct ecat_core *m, unsigned pos,
                               const struct takt_ecat_eoe_filter *f, takt_ecat_done_fn fn, void *ctx);
struct ecat_eoe_port;
void ecat_eoe_free(struct ecat_core *m);
void ecat_eoe_poll(struct ecat_core *m, takt_ns_t now);
int  ecat_eoe_svc_queue(struct ecat_core *m, unsigned pos, uint8_t type, const uint8_t *body,
                        size_t len, takt_ecat_done_fn fn, void *ctx);
/* True while an EoE exchange owns slave pos's mailbox (one datagram at a time). */
bool ecat_eoe_slave_busy(const struct ecat_core *m, unsigned pos);
/* True when slave pos has an EoE port: it reads its own send mailbox. */
bool ecat_eoe_slave_open(const struct ecat_core *m, unsigned pos);
/* A message another protocol read from slave pos's send mailbox while waiting for its
 * own reply: true when it is EoE and the slave has a port, which takes it (the slave
 * sends its frames unasked, so they can come first). */
bool ecat_eoe_offer(struct ecat_core *m, unsigned pos, const uint8_t *msg, size_t len);

/* master_foe.c */
#define ECAT_FOE_SLOTS 2
struct ecat_foe_slot;
int  ecat_foe_init(struct ecat_core *m);
void ecat_foe_free(struct ecat_core *m);
void ecat_foe_poll(struct ecat_core *m, takt_ns_t now);
bool ecat_foe_slave_busy(const struct ecat_core *m, unsigned pos);
int  ecat_foe_queue(struct ecat_core *m, unsigned pos, int dir, const char *name,
                    uint32_t password, uint8_t *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* Bootstrap mailbox of a slave from its SII words 0x14-0x17: [0] master->slave, [1]
 * slave->master; false when the SII has none. */
bool ecat_slave_boot_mbx(const struct ecat_slave *s, struct ecat_sm_cfg mbx[2]);

/* master_svc.c */
void ecat_svc_poll(struct ecat_core *m, takt_ns_t now);
int  ecat_svc_queue(struct ecat_core *m, unsigned pos, uint8_t cmd, uint16_t reg,
                    const void *data, uint16_t len, takt_ecat_done_fn fn, void *ctx);

/* esm.c: per-slave state machine table (scan + config + AL) */
void ecat_sfsm_step(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
void ecat_slave_goto(struct ecat_core *m, struct ecat_slave *s, uint8_t target, takt_ns_t now);
int  ecat_esm_init(struct ecat_slave *s);     /* its set-up plan's storage (core init) */
void ecat_esm_free(struct ecat_slave *s);     /* its set-up plan (core free) */
void ecat_sfsm_enter_sii(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
/* The core's turn at the EEPROM interface ends when no slave reads its SII (esm.c). */
void ecat_sii_turn_end(struct ecat_core *m);
void ecat_sfsm_state_esc(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_state_sii_cmd(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_state_sii_poll(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
/* Queue request i of a slave's machine. */
struct ecat_req *ecat_sfsm_req(struct ecat_sfsm *f, unsigned i, uint8_t cmd, uint16_t adp,
                               uint16_t ado, const void *data, uint16_t len);
bool ecat_sfsm_pending(const struct ecat_sfsm *f);

/* cyclic.c: the layout and its plan */
int  ecat_layout(struct ecat_core *m);
/* plan_cyc.c: the plan's frames each cycle */
struct ecat_plan;
struct ecat_plan_exec;
unsigned ecat_cyc_build(struct ecat_core *m, takt_ns_t now);    /* frames in m->cycbuf */
void ecat_cyc_check(struct ecat_core *m, takt_ns_t now);        /* WKC, loss, presence */
/* Run plan p from now on (takes what it holds, also on failure: 0 or -ENOMEM/-ENOSPC). */
int  ecat_plan_cyc_take(struct ecat_core *m, struct ecat_plan *p);
void ecat_plan_cyc_free(struct ecat_core *m);
const struct ecat_plan *ecat_plan_of(const struct ecat_core *m);   /* NULL: none */
/* The plan's process-data datagrams judged by a WKC, with their statistics, for
 * takt_ecat_master_frames; returns how many were copied, at most max. */
unsigned ecat_plan_cyc_frames(const struct ecat_core *m, struct takt_ecat_frame_info *out, unsigned max);

/* dc.c */
int  ecat_dc_configure(struct ecat_core *m, takt_ns_t now);
void ecat_dc_cycle(struct ecat_core *m, takt_ns_t now);
/* A DC slave came back while DC runs: true if dc.c sets its clock up again (offset,
 * delay, loop, SYNC0) and then sends it to the target state itself. */
bool ecat_dc_rejoin(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
/* A SYNC0 start time for an ENI's start-time write: on the network's grid, at least
 * 100 ms after the reference clock's time now, plus shift. */
uint64_t ecat_dc_start_time(const struct ecat_core *m, takt_ns_t now, int64_t shift);

/* eni_exec.c: the ENI's init commands of each transition, from its plan, run by the
 * init-command executor (initx.h) in the slave's machine (state SS_ENI) before and
 * after the master's AL request. */
struct ecat_eni_run;
int  ecat_eni_exec_setup(struct ecat_core *m);
void ecat_eni_exec_free(struct ecat_core *m);
/* Start transition cur -> nxt of an ENI-driven slave; false: not ENI-driven. */
bool ecat_eni_begin(struct ecat_core *m, struct ecat_slave *s, uint8_t cur, uint8_t nxt,
                    takt_ns_t now);
/* The requested state was reached: the ENI's commands after the request; false: none. */
bool ecat_eni_reached(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
void ecat_eni_state(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
void ecat_eni_master_step(struct ecat_core *m, takt_ns_t now);
bool ecat_eni_settling(const struct ecat_core *m);    /* ENI's INIT -> PREOP under way */
/* master_eni.c: who arms slave pos's SYNC0 by the ENI: 0 nobody (no DC asked), 1 its
 * own init commands, 2 takt (its <DC> AssignActivate, no such commands). */
int  ecat_eni_sync_of(const struct ecat_core *m, unsigned pos);
/* " (the ENI's timeout: FILE line N, transition PS, command '...')" or "" */
const char *ecat_eni_al_note(const struct ecat_core *m, const struct ecat_slave *s, char *buf,
                             size_t n);
/* esm.c entry points for the runner */
void ecat_sfsm_al_request(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_next(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);

/* eni_cyclic.c: image at the ENI's BitStarts and the ENI's plan in p: 1; 0: takt lays
 * the image out itself (said in an event); <0: the ENI is wrong (said) */
int  ecat_eni_cyc_setup(struct ecat_core *m, struct ecat_plan *p);
/* master_eni.c: forget the ENI (close, or a new one) */
void ecat_master_drop_eni(struct ecat_core *m);

/* recovery.c */
void ecat_recovery_check(struct ecat_core *m, takt_ns_t now);
/* A rescan found another device at slave i's place (recovery.c). */
void ecat_recovery_replaced(struct ecat_core *m, unsigned i, takt_ns_t now);

/* master_state.c */
/* After each cycle's check: sent cyclic frames, of which lost did not come back. Raises
 * the events of silence and of its end. */
void ecat_silence_note(struct ecat_core *m, unsigned sent, unsigned lost);
/* Per-state counts and the state (m->st) from the slaves' last reports. */
void ecat_state_update(struct ecat_core *m);
/* Every write of a slave's al_state, al_code or present goes with this call. */
static inline void ecat_al_changed(struct ecat_core *m) { m->al_gen++; }
/* Publish m->st (with rates and presence) for other threads. */
void ecat_snap_publish(struct ecat_core *m);
/* The statistics alone (the cycle's thread): before the cyclic callback, which may read
 * this cycle's losses. */
void ecat_snap_stats(struct ecat_core *m);
/* master_pub.c: publish the frames, the image and each slave's topology and DC
 * difference for other threads (the cycle's thread, after ecat_snap_publish's part);
 * ecat_pub_wanted: whether a reader's lease runs (counts the requests it sees);
 * allocate / free the published copies (core init, free). */
void ecat_pub_publish(struct ecat_core *m);
bool ecat_pub_wanted(struct ecat_core *m);
int  ecat_pub_init(struct ecat_core *m);
void ecat_pub_free(struct ecat_core *m);
/* Every slave answers, reports OP, and frames return. */
bool ecat_all_op(const struct ecat_core *m);

#endif
