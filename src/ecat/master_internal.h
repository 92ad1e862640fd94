/* EtherCAT master internals shared by pdu.c (datagram queue and reply matching),
 * scan.c, esm.c, cyclic.c, dc.c, recovery.c and master.c (driver). The cores here are
 * sans-I/O: they take now_ns, queue datagrams, judge replies; master.c moves frames. */
#ifndef TAKT_ECAT_MASTER_INTERNAL_H
#define TAKT_ECAT_MASTER_INTERNAL_H

#include <stdatomic.h>
#include <takt/ecat.h>
#include <takt/perf.h>
#include "rt/loop.h"
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
#define ECAT_EVENTS   64
#define ECAT_EVENT_LEN 512   /* an ENI mismatch names two identities and the file */

/* Process data entries of a slave (from SII PDO categories). */
struct ecat_pd {
    uint16_t index; uint8_t sub, bits;
    bool     output;
    uint32_t abs_bit;          /* bit offset in the process image */
    uint16_t pdo;              /* 0x16xx/0x1Axx */
    char     name[ECAT_PDO_NAME];
};

struct ecat_sm_cfg { uint16_t start, len; uint8_t control, enable, type; };

/* Per-slave state machine (scan, SII, configuration, AL state change). */
enum ecat_sfsm_state {
    SS_IDLE, SS_ADDR, SS_ESC, SS_SII_CMD, SS_SII_POLL, SS_PRE_PREOP, SS_PRE_SAFEOP, SS_DC,
    SS_AL_REQ, SS_AL_WAIT, SS_AL_ACK, SS_FAILED, SS_PRE_BOOT, SS_ENI, SS_COUNT
};

struct ecat_sfsm {
    uint8_t   state;
    takt_ns_t t0;              /* when the current wait started */
    unsigned  retries;
    unsigned  nreq;            /* requests of the current step */
    struct ecat_req req[12];
    uint8_t   buf[12][ECAT_REQ_DATA];
    unsigned  sii_word;        /* next SII word to read */
    uint8_t   target;          /* AL state this slave is driven to */
    uint8_t   requested;       /* AL state of the pending request */
    int       err;
};

struct ecat_slave {
    struct takt_ecat_slave_info info;
    uint8_t  *sii;             /* sii_cap bytes (ECAT_SII_FIRST at open) */
    size_t    sii_len, sii_cap;
    bool      sii_8byte;
    uint8_t   coe_details, sii_flags;
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
    bool      scanned;
    struct ecat_mbx_chan mbx;  /* mailbox counters (CoE) */
    uint8_t   mbx_repeat;      /* SM1 repeat request toggle */
    takt_ns_t mbx_polled;      /* last idle poll of the send mailbox */
    bool      rejoin, returning;   /* recovery: re-scan pending / back on the way to target */
    uint32_t  al_fno;          /* frame that carried its last AL status reading */
    bool      counted_lost;    /* in slaves_lost and not yet in slaves_returned */
    takt_ns_t retry_at;        /* recovery: re-scan again at (0: none planned) */
    takt_ns_t backoff_ns;      /* ... after this wait, doubled per failure up to 1 s */
    uint32_t  old_vendor, old_product;
    uint32_t  old_serial;          /* recovery: identity before the re-scan (0 = none) */
    uint16_t  old_alias, old_station;
    unsigned  old_position;
    bool      wrong;           /* recovery: another device answers at its position ... */
    uint32_t  wrong_vendor, wrong_product, wrong_serial;   /* ... this one (reported once) */
    struct ecat_eni_run *er;   /* ENI-driven start-up (eni_exec.c), NULL: takt's own set-up */
    takt_ns_t al_timeout_ns;   /* this transition's timeout from the ENI, 0 = the option's */
    struct ecat_req dcr[3];    /* distributed-clock set-up (dc.c) */
    uint8_t   dcb[3][16];
    uint8_t   dc_re;           /* DC set up again after the slave returned (dc.c) */
    uint32_t  dc_diff_prev;    /* its last valid |0x092C| + 1 (0: none yet) */
    struct ecat_req probe;     /* recovery in a tree: APRD 0x0010 at one position */
    bool      probe_seen;      /* ... and this slave's address answered at one */
    uint8_t   probe_buf[2];
    uint32_t  port_time[4];
    uint64_t  pu_time;
    struct ecat_sfsm f;
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
};

/* Network state machine (master.c / scan.c). */
enum ecat_mfsm_state { MF_IDLE, MF_RESET, MF_COUNT, MF_ADDR, MF_SLAVES, MF_COUNT_STATES };

/* Per-second counters for the 1/10/60 s rates (IgH `ethercat master` style). */
struct ecat_rate {
    int64_t  sec;              /* second of bucket[cur] */
    unsigned cur;
    uint32_t sent[61], lost[61];
};

struct takt_ecat_master {
    struct takt_link *link;
    struct takt_ecat_master_opts o;

    /* datagrams: in-flight table by index, acyclic FIFO */
    struct ecat_req *inflight[256];
    uint8_t   next_idx;
    uint32_t  frame_no;        /* number of the frame being built (its generation) */
    struct ecat_gen gen[ECAT_GEN_RING];
    takt_ns_t rx_deadline;     /* cyclic replies stamped after this are late (0: none) */
    unsigned  inputs_age;      /* cycles since every cyclic datagram came back in time */
    struct ecat_req *q_head, *q_tail;
    uint8_t  *txbuf;           /* acyclic frames of one cycle, acyc_frames x TAKT_FRAME_BUF */
    uint8_t  *cycbuf;          /* cyclic frames, ECAT_MAX_CYC_DG x TAKT_FRAME_BUF */
    uint8_t  *rxbuf;           /* receive buffers */
    struct takt_frame *rxf, *txf;
    unsigned  nrx;

    /* network */
    uint8_t   mf_state;
    struct ecat_sfsm mf;       /* requests of the network machine */
    uint8_t   mf_big[2][64];   /* FMMU/SM reset data */
    unsigned  n_slaves, max_slaves;
    struct ecat_sii *sii_scratch; /* decoder output while parsing one slave's SII */
    struct ecat_pdo_map *maps; /* PDO mapping per position (pdo.h), max_slaves */
    struct ecat_pdo_image img; /* the layout (pdo.c) */
    uint8_t  *cyc_rx;          /* replies of the cyclic LRW/LRD, then LWR: 2 x ECAT_MAX_CYC_DG x 1486 */
    struct ecat_slave *slaves;
    bool      scanned, configured;
    uint8_t   target;          /* requested network state, 0 = none */
    int       last_err;
    char      errmsg[512];

    /* process image */
    uint8_t  *image;
    size_t    image_len, image_cap;
    struct ecat_plan_exec *px; /* the plan the cycle runs (plan_cyc.c), NULL: none yet */
    /* per-cycle monitoring datagrams in the first cyclic frame */
    struct ecat_req mon_al;    /* BRD 0x0130: WKC = slaves present, data = OR of states */
    uint8_t   mon_al_buf[2];
    struct ecat_req mon_dc;    /* FRMW 0x0910 reference time */
    uint8_t   mon_dc_buf[8];
    struct ecat_req mon_diff;  /* BRD 0x092C sync difference */
    uint8_t   mon_diff_buf[4];
    int       dc_ref;          /* position of the reference clock, -1 none */
    bool      dc_active;
    uint64_t  dc_ref_time;     /* last reference system time */
    takt_ns_t dc_ref_at;       /* when it was read (master time) */
    int64_t   dc_shift_ns;     /* cycle shift proposed to the driver (master follows ref) */
    int64_t   dc_integral;
    int64_t   dc_offset;       /* master monotonic -> DC system time (set by the driver) */
    uint8_t   dc_state;
    int64_t   dc_phase_ns;
    unsigned  dc_rr;           /* DC slave whose 0x092C is read this cycle */
    int64_t   dc_round_max;     /* last phase error of the reference clock vs SYNC0 */
    unsigned  dc_round_samples; /* valid 0x092C readings in this round */
    struct ecat_req mon_wr;    /* FPWR 0x0910 master time (reference follows master) */
    uint8_t   mon_wr_buf[8];
    unsigned  dc_iter;         /* static drift compensation FRMWs sent */
    uint64_t  dc_sync0_start;
    bool      probing;         /* recovery: which station answers at each position? */
    unsigned  probe_n;         /* positions probed */
    struct ecat_req dc_frmw[32];
    uint8_t   dc_frmw_buf[32][8];

    /* ENI (master_eni.c, eni_exec.c, eni_cyclic.c); NULL without one */
    struct ecat_eni *eni;
    char     *eni_path;
    struct ecat_eni_run *eni_runs;  /* eni_nruns - 1 slaves, then the master's own commands */
    unsigned  eni_nruns;
    bool      eni_dc;          /* the ENI configures DC: its cyclic ARMW/FRMW of 0x0910 run */
    bool      eni_sync;        /* its init commands arm SYNC0 (not dc.c) */
    bool      eni_dc_set;      /* the ENI turned o.dc on */

    /* recovery */
    unsigned  present;         /* last BRD 0x0130 WKC */
    uint8_t   brd_or;          /* ... and its data: the OR of the slaves' AL status */
    uint32_t  brd_fno;         /* ... and its frame */
    unsigned  count_seen;      /* ... its WKC (a new count must be seen twice) */
    uint8_t   low_state;       /* lowest AL state over all slaves, a lost one's 0 (the
                                  cyclic frames' choice; st.state is what is reported) */
    bool      need_locate;

    struct ecat_svc svc[ECAT_SVC_SLOTS];
    struct ecat_sdo_slot *sdo; /* ECAT_SDO_SLOTS mailbox transfers (master_coe.c) */
    uint32_t  sdo_seq;
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

    /* application */
    takt_ecat_cyclic_fn app_fn;
    void     *app_ctx;

    /* statistics */
    struct takt_ecat_master_stats st;
    uint64_t  link_errors;
    struct ecat_rate rate;

    /* events: single producer (cycle), single consumer (reporter), each with its time */
    char      ev[ECAT_EVENTS][ECAT_EVENT_LEN];
    takt_ns_t ev_at[ECAT_EVENTS];
    takt_ns_t now;             /* the time of the cycle (or service step) under way */
    atomic_uint ev_head, ev_tail;

    /* silence: consecutive cycles in which no cyclic frame came back (master_state.c) */
    unsigned  silent_cycles;

    /* what other threads may read, published by the cycle (master_state.c) */
    struct ecat_snap snap;

    /* driver */
    struct takt_rt_loop loop;
    bool      loop_init;
    struct takt_perf_msmt m_rx, m_cyc, m_timer, m_acyc, m_app;

    /* cable redundancy (redund.c): the link over both ports, NULL with one port; the
     * ring state the events last reported */
    struct takt_link *red;
    bool      red_broken;
    unsigned  red_first, red_second;
    bool      red_seen_broken;    /* ... and what the last cycle saw */
    unsigned  red_seen_first, red_seen_second;
    struct takt_ecat_redundancy red_st;
};

/* redund.c: report a break of the ring, where it is, and its healing (each cycle) */
void ecat_red_check(struct takt_ecat_master *m, takt_ns_t now);

/* pdu.c */
void ecat_req_init(struct ecat_req *r, uint8_t cmd, uint16_t adp, uint16_t ado,
                   uint8_t *data, uint16_t len);
void ecat_req_queue(struct takt_ecat_master *m, struct ecat_req *r);
static inline bool ecat_req_busy(const struct ecat_req *r)
{ return r->st == REQ_QUEUED || r->st == REQ_SENT; }
/* Start frame m->frame_no + 1 in buf: Ethernet and EtherCAT headers, then the NOP that
 * carries its number. Returns the position of the first request. */
size_t ecat_pdu_frame_begin(struct takt_ecat_master *m, uint8_t *buf, bool cyclic);
/* Frame fno did not come back in its time: counted lost once (true the first time). A
 * reply that arrives afterwards is counted late and never used. */
bool ecat_pdu_frame_lost(struct takt_ecat_master *m, takt_ns_t now, uint32_t fno);
/* Build frames from queued requests into m->txbuf; returns frames built. */
unsigned ecat_pdu_build_acyc(struct takt_ecat_master *m, takt_ns_t now);
/* Append a request to a frame being built (cyclic frames); false if it does not fit. */
bool ecat_pdu_append(struct takt_ecat_master *m, uint8_t *buf, size_t *pos, struct ecat_req *r,
                     takt_ns_t now);
/* Match a received frame's datagrams to the requests of the frame it answers; copies data
 * and WKC back. rx_ts: the link's receive stamp (0: none). */
void ecat_pdu_receive(struct takt_ecat_master *m, uint8_t *buf, size_t len, takt_ns_t rx_ts);
/* Requests sent longer than the timeout ago are finished as lost (wkc -1). */
void ecat_pdu_expire(struct takt_ecat_master *m, takt_ns_t now);
void ecat_pdu_cancel_all(struct takt_ecat_master *m);
/* Take requests out of the acyclic queue (slave gone). */
void ecat_pdu_unqueue(struct takt_ecat_master *m, struct ecat_req *r, unsigned n);

/* cyclic.c: a cyclic request still in flight at the next cycle did not come back: take it
 * out of the index table (its frame is counted lost by the caller, and a reply that comes
 * later counts as late); true if it was sent. */
bool ecat_cyc_reap(struct takt_ecat_master *m, struct ecat_req *r);

/* master.c */
void ecat_event(struct takt_ecat_master *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ecat_fail(struct takt_ecat_master *m, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ecat_rate_add(struct ecat_rate *r, takt_ns_t now, uint32_t sent, uint32_t lost);
/* Drive cycles (no callback) until done() or timeout; blocking, tools only. */
int ecat_master_drive(struct takt_ecat_master *m, bool (*done)(struct takt_ecat_master *m, void *ctx),
                      void *ctx, takt_ns_t timeout_ns);
/* A blocking wrapper's wait for one queued mailbox service: pass ecat_wait_done and the
 * ecat_wait as completion callback and context, then ecat_wait_drive. */
struct ecat_wait { bool done; int err; size_t len; };
void ecat_wait_done(void *ctx, int err, const uint8_t *data, size_t len);
int  ecat_wait_drive(struct takt_ecat_master *m, struct ecat_wait *w, takt_ns_t timeout_ns);

/* master_coe.c */
#define ECAT_SDO_SLOTS 8
struct ecat_sdo_slot;
int  ecat_coe_init(struct takt_ecat_master *m);
void ecat_coe_free(struct takt_ecat_master *m);
void ecat_coe_poll(struct takt_ecat_master *m, takt_ns_t now);

/* True while a CoE transfer owns slave pos's mailbox. */
bool ecat_coe_slave_busy(const struct takt_ecat_master *m, unsigned pos);
/* True while a CoE, SoE or FoE request for slave pos waits for its turn (EoE lets it go
 * first between two of its exchanges). */
bool ecat_coe_slave_waiting(const struct takt_ecat_master *m, unsigned pos);
bool ecat_soe_slave_waiting(const struct takt_ecat_master *m, unsigned pos);
bool ecat_foe_slave_waiting(const struct takt_ecat_master *m, unsigned pos);

/* master_soe.c */
#define ECAT_SOE_SLOTS 2
struct ecat_soe_slot;
int  ecat_soe_init(struct takt_ecat_master *m);
void ecat_soe_free(struct takt_ecat_master *m);
void ecat_soe_poll(struct takt_ecat_master *m, takt_ns_t now);
/* True while an SoE request owns slave pos's mailbox (not while it waits its turn). */
bool ecat_soe_slave_busy(const struct takt_ecat_master *m, unsigned pos);

/* master_eoe.c */
struct ecat_eoe_port;
void ecat_eoe_free(struct takt_ecat_master *m);
void ecat_eoe_poll(struct takt_ecat_master *m, takt_ns_t now);
/* True while an EoE exchange owns slave pos's mailbox (one datagram at a time). */
bool ecat_eoe_slave_busy(const struct takt_ecat_master *m, unsigned pos);
/* True when slave pos has an EoE port: it reads its own send mailbox. */
bool ecat_eoe_slave_open(const struct takt_ecat_master *m, unsigned pos);
/* A message another protocol read from slave pos's send mailbox while waiting for its
 * own reply: true when it is EoE and the slave has a port, which takes it (the slave
 * sends its frames unasked, so they can come first). */
bool ecat_eoe_offer(struct takt_ecat_master *m, unsigned pos, const uint8_t *msg, size_t len);

/* master_foe.c */
#define ECAT_FOE_SLOTS 2
struct ecat_foe_slot;
int  ecat_foe_init(struct takt_ecat_master *m);
void ecat_foe_free(struct takt_ecat_master *m);
void ecat_foe_poll(struct takt_ecat_master *m, takt_ns_t now);
bool ecat_foe_slave_busy(const struct takt_ecat_master *m, unsigned pos);
/* Bootstrap mailbox of a slave from its SII words 0x14-0x17: [0] master->slave, [1]
 * slave->master; false when the SII has none. */
bool ecat_slave_boot_mbx(const struct ecat_slave *s, struct ecat_sm_cfg mbx[2]);

/* master_svc.c */
void ecat_svc_poll(struct takt_ecat_master *m, takt_ns_t now);

/* scan.c */
void ecat_scan_start(struct takt_ecat_master *m, takt_ns_t now);
void ecat_mfsm_step(struct takt_ecat_master *m, takt_ns_t now);
void ecat_slave_scan_start(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
int  ecat_sii_parse(struct takt_ecat_master *m, struct ecat_slave *s);
/* Make room for at least len bytes of SII (at most ECAT_SII_MAX_IMAGE): 0 or -ENOMEM. */
int  ecat_sii_grow(struct ecat_slave *s, size_t len);
void ecat_map_bits(const struct ecat_pdo_map *map, uint32_t *out, uint32_t *in);

/* esm.c: per-slave state machine table (scan + config + AL) */
void ecat_sfsm_step(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_slave_goto(struct takt_ecat_master *m, struct ecat_slave *s, uint8_t target, takt_ns_t now);
void ecat_sfsm_enter_sii(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_state_esc(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_state_sii_cmd(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_state_sii_poll(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
/* Queue request i of a slave's machine. */
struct ecat_req *ecat_sfsm_req(struct ecat_sfsm *f, unsigned i, uint8_t cmd, uint16_t adp,
                               uint16_t ado, const void *data, uint16_t len);
bool ecat_sfsm_pending(const struct ecat_sfsm *f);

/* cyclic.c: the layout and its plan */
int  ecat_layout(struct takt_ecat_master *m);
/* plan_cyc.c: the plan's frames each cycle */
struct ecat_plan;
struct ecat_plan_exec;
unsigned ecat_cyc_build(struct takt_ecat_master *m, takt_ns_t now);    /* frames in m->cycbuf */
void ecat_cyc_check(struct takt_ecat_master *m, takt_ns_t now);        /* WKC, loss, presence */
/* Run plan p from now on (takes what it holds, also on failure: 0 or -ENOMEM/-ENOSPC). */
int  ecat_plan_cyc_take(struct takt_ecat_master *m, struct ecat_plan *p);
void ecat_plan_cyc_free(struct takt_ecat_master *m);
const struct ecat_plan *ecat_plan_of(const struct takt_ecat_master *m);   /* NULL: none */

/* dc.c */
int  ecat_dc_configure(struct takt_ecat_master *m, takt_ns_t now);
void ecat_dc_cycle(struct takt_ecat_master *m, takt_ns_t now);
/* A DC slave came back while DC runs: true if dc.c sets its clock up again (offset,
 * delay, loop, SYNC0) and then sends it to the target state itself. */
bool ecat_dc_rejoin(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
/* A SYNC0 start time for an ENI's start-time write: on the network's grid, at least
 * 100 ms after the reference clock's time now, plus shift. */
uint64_t ecat_dc_start_time(const struct takt_ecat_master *m, takt_ns_t now, int64_t shift);

/* eni_exec.c: the ENI's register and CoE init commands of each transition, run by the
 * slave's machine (state SS_ENI) before and after the master's AL request. */
struct ecat_eni_run;
int  ecat_eni_exec_setup(struct takt_ecat_master *m);
void ecat_eni_exec_free(struct takt_ecat_master *m);
/* Start transition cur -> nxt of an ENI-driven slave; false: not ENI-driven. */
bool ecat_eni_begin(struct takt_ecat_master *m, struct ecat_slave *s, uint8_t cur, uint8_t nxt,
                    takt_ns_t now);
/* The requested state was reached: the ENI's commands after the request; false: none. */
bool ecat_eni_reached(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_eni_state(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_eni_master_step(struct takt_ecat_master *m, takt_ns_t now);
bool ecat_eni_settling(const struct takt_ecat_master *m);    /* ENI's INIT -> PREOP under way */
/* master_eni.c: who arms slave pos's SYNC0 by the ENI: 0 nobody (no DC asked), 1 its
 * own init commands, 2 takt (its <DC> AssignActivate, no such commands). */
int  ecat_eni_sync_of(const struct takt_ecat_master *m, unsigned pos);
/* " (the ENI's timeout: FILE line N, transition PS, command '...')" or "" */
const char *ecat_eni_al_note(const struct takt_ecat_master *m, const struct ecat_slave *s, char *buf,
                             size_t n);
/* esm.c entry points for the runner */
void ecat_sfsm_al_request(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);
void ecat_sfsm_next(struct takt_ecat_master *m, struct ecat_slave *s, takt_ns_t now);

/* eni_cyclic.c: image at the ENI's BitStarts and the ENI's plan in p: 1; 0: takt lays
 * the image out itself (said in an event); <0: the ENI is wrong (said) */
int  ecat_eni_cyc_setup(struct takt_ecat_master *m, struct ecat_plan *p);
/* master_eni.c: forget the ENI (close, or a new one) */
void ecat_master_drop_eni(struct takt_ecat_master *m);

/* recovery.c */
void ecat_recovery_check(struct takt_ecat_master *m, takt_ns_t now);

/* master_state.c */
/* After each cycle's check: sent cyclic frames, of which lost did not come back. Raises
 * the events of silence and of its end. */
void ecat_silence_note(struct takt_ecat_master *m, unsigned sent, unsigned lost);
/* Per-state counts and the state (m->st) from the slaves' last reports. */
void ecat_state_update(struct takt_ecat_master *m);
/* Publish m->st (with rates and presence) for other threads. */
void ecat_snap_publish(struct takt_ecat_master *m);
/* Every slave answers, reports OP, and frames return. */
bool ecat_all_op(const struct takt_ecat_master *m);

#endif
