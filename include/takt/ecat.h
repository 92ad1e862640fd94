/* takt EtherCAT master: the application API. Open a master on a link, scan and
 * configure the network from SII, bring it to OP, exchange process data in a cycle
 * (own RT thread or the application's loop), read statistics. No globals: every call
 * takes the master it acts on, so several masters run in one process. */
#ifndef TAKT_ECAT_H
#define TAKT_ECAT_H

#include <takt/takt.h>
#include <takt/link.h>
#include <takt/rt.h>
#include <takt/event.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

struct takt_ecat_master;

/* AL states as in ESC register 0x0130 (ETG.1000.6 6.4). */
enum takt_ecat_state { TAKT_ECAT_STATE_INIT = 0x01, TAKT_ECAT_STATE_PREOP = 0x02, TAKT_ECAT_STATE_BOOT = 0x03,
                  TAKT_ECAT_STATE_SAFEOP = 0x04, TAKT_ECAT_STATE_OP = 0x08 };
/* An AL status byte (takt_ecat_slave_info.al_state) is the state in its low nibble and the
 * error indication (ETG.1000.6, AL Status register 0x0130 bit 4). */
#define TAKT_ECAT_STATE_MASK  0x0F
#define TAKT_ECAT_STATE_NETWORK 0x00   /* one slave's request: where the network is held */
#define TAKT_ECAT_STATE_ERROR 0x10
/* "INIT", "PREOP", "BOOT", "SAFEOP", "OP" for a state (the low nibble of an AL status
 * byte; "?" for others); the meaning of an AL status code (0x0134) and of an SDO abort
 * code, as texts for messages. */
/* [thread: any; non-blocking] */
const char *takt_ecat_al_state_name(unsigned state);
/* [thread: any; non-blocking] */
const char *takt_ecat_al_status_text(unsigned code);
/* [thread: any; non-blocking] */
const char *takt_ecat_sdo_abort_text(uint32_t code);

/* Mailbox protocols a slave's SII lists (word 0x001C, ETG.2010). */
enum { TAKT_ECAT_MBX_AOE = 0x01, TAKT_ECAT_MBX_EOE = 0x02, TAKT_ECAT_MBX_COE = 0x04, TAKT_ECAT_MBX_FOE = 0x08,
       TAKT_ECAT_MBX_SOE = 0x10, TAKT_ECAT_MBX_VOE = 0x20 };

/* Who is the time base for distributed clocks. */
enum takt_ecat_dc_mode {
    TAKT_ECAT_DC_MASTER_FOLLOWS_REF = 0, /* master shifts its cycle to the reference clock (PI loop) */
    TAKT_ECAT_DC_REF_FOLLOWS_MASTER = 1, /* master writes its time into the reference clock */
};

struct takt_ecat_master_opts {
    unsigned  max_slaves;       /* storage reserved at open (default 128) */
    takt_ns_t cycle_ns;         /* cycle period (default 1 ms) */
    uint16_t  station_base;     /* station address of position 0 is base+0 (default 0x1000) */
    takt_ns_t state_timeout_ns; /* per AL state change (default 10 s, like IgH 1.6) */
    takt_ns_t dg_timeout_ns;    /* an acyclic datagram not back by then is lost (default 50 ms) */
    bool      dc;               /* configure distributed clocks and SYNC0 */
    enum takt_ecat_dc_mode dc_mode;
    takt_ns_t sync0_shift_ns;   /* SYNC0 shift against the cycle start (default 0) */
    unsigned  acyc_frames;      /* acyclic frames at most per cycle (default 4) */
    takt_ns_t sdo_timeout_ns;   /* one CoE transfer (default 3 s) */
    bool      keep_state;       /* scan without resetting the slaves to INIT (look only) */
    struct takt_link *redundant; /* cable redundancy: the port the ring's last slave is
                                  * wired back to (not owned), NULL: none (docs/master.md) */
};
/* [thread: any; non-blocking] */
void takt_ecat_master_opts_default(struct takt_ecat_master_opts *o);

/* Open a master on an open link (the master does not own it). err receives a
 * message on failure. */
/* [thread: any; blocking] */
int  takt_ecat_master_open(struct takt_ecat_master **out, struct takt_link *link,
                      const struct takt_ecat_master_opts *o, char *err, size_t errlen);
/* Closing a master whose cycle thread runs stops and joins it first. */
/* [thread: host; blocking] */
void takt_ecat_master_close(struct takt_ecat_master *m);

/* --- cable redundancy (opts.redundant) ------------------------------------------- */
struct takt_ecat_redundancy {
    bool      active;               /* the master runs on two ports */
    bool      broken;               /* the last frame's copies came back where they left */
    unsigned  first_side;           /* slaves the first port's copy passed (last BRD) */
    unsigned  second_side;          /* ... and the second port's, when the ring is broken */
    int       break_after;          /* broken: the break lies between position
                                     * break_after - 1 and break_after (0: the cable
                                     * into slave 0, n: the cable back to the second
                                     * port); -1 intact or not known */
    uint64_t  tx[2], rx[2];         /* frames per port */
    uint64_t  crossed;              /* frames whose copies went round the whole ring */
    uint64_t  single;               /* frames of which one copy came back */
    uint64_t  late;                 /* copies back after their frame was handed on, or a
                                     * second time (dropped) */
    uint64_t  breaks, heals;        /* reported changes */
    takt_ns_t since;                /* when the current state was first seen */
    takt_ns_t broke_at, healed_at;  /* when the last break / healing was reported (cycle
                                     * time, CLOCK_MONOTONIC; 0 none) */
    uint64_t  frmw_partial;         /* FRMWs (other than DC's 0x0910) of a broken ring: the
                                     * value read reaches one side only, the WKC counts it */
    uint64_t  frmw_noted;           /* ... distinct (station, register), once per break */
    uint16_t  frmw_station, frmw_ado;   /* the last one noted, and the side it reads on */
    uint8_t   frmw_side;            /* (0 the first port's, 1 the second's) */
};
/* Fills *out (all zero when the master has one port); call from the cycle's thread or
 * when no cycle runs. */
/* [thread: cycle; non-blocking] */
void takt_ecat_master_redundancy(const struct takt_ecat_master *m, struct takt_ecat_redundancy *out);

/* Last error message (names slave, register or object, expected vs found). */
/* [thread: cycle; non-blocking] */
const char *takt_ecat_master_error(const struct takt_ecat_master *m);

/* --- bring-up (blocking wrappers that drive the cycle themselves; tools and start-up
 * only; not from a running cycle) ------------------------------------------------ */
/* [thread: idle; blocking] */
int takt_ecat_master_scan(struct takt_ecat_master *m, takt_ns_t timeout_ns);
/* Lay out the process image from the SII PDO categories of each slave (SM, FMMU). */
/* [thread: idle; blocking] */
int takt_ecat_master_configure(struct takt_ecat_master *m);
/* PDO mapping over CoE, slaves in PREOP: read each CoE slave's assignment (0x1C12/
 * 0x1C13) and mapping (0x16xx/0x1Axx) instead of trusting the SII (slaves that do not
 * answer keep the SII layout; the first error is returned); or write a new assignment
 * of PDOs to an SM (sm_obj 0x1C12 outputs, 0x1C13 inputs), then read again. Both make
 * the next takt_ecat_master_configure() / SAFEOP request lay the image out anew. */
/* [thread: idle; blocking] */
int takt_ecat_master_read_pdos_coe(struct takt_ecat_master *m);
/* [thread: idle; blocking] */
int takt_ecat_slave_pdo_assign(struct takt_ecat_master *m, unsigned pos, uint16_t sm_obj,
                          const uint16_t *pdos, unsigned n);
/* Process data of SoE drives without CoE, slaves in PREOP: with the application
 * telegram (S-0-0015 = 7, or no S-0-0015) the outputs are the master control word and
 * the IDNs of the MDT list S-0-0024, the inputs the drive status word and those of the
 * AT list S-0-0016, each sized by its attribute and named by the drive. Drives that do
 * not answer keep the SII layout (the first error is returned). Like the CoE form, it
 * makes the next layout start anew. */
/* [thread: idle; blocking] */
int takt_ecat_master_read_pdos_soe(struct takt_ecat_master *m);

/* ENI (ETG.2100, as TwinCAT or EC-Engineer export it), after the scan: the scanned
 * identities must match the ENI's slaves (each mismatch is an event naming position,
 * expected and found identity; -TAKT_ECONFIG); each slave gets the ENI's PhysAddr. From
 * then on the ENI drives start-up: state requests run its register and CoE init
 * commands of each transition in file order (its AL control write is the request, its
 * validate timeout the transition timeout), the image holds each slave at its
 * Send/Recv BitStart (outputs image, then inputs image) and the cyclic frames are the
 * ENI's, each datagram judged by its Cnt (docs/eni.md). Slaves above INIT are taken to
 * INIT first. A new scan forgets the ENI. */
/* [thread: idle; blocking] */
int takt_ecat_master_configure_eni(struct takt_ecat_master *m, const char *path);
/* Write an ENI-like description of the scanned network (identities, mailbox, SMs, PDOs,
 * process image, cyclic frames) to path. */
/* [thread: idle; blocking] */
int takt_ecat_master_write_eni(struct takt_ecat_master *m, const char *path);

/* Request every slave to go to `state` and wait until they are there, one refuses (AL
 * status code in the message) or the timeout passes. With no RT thread it drives the
 * cycle itself (one thread at a time drives; others wait for it); beside a running RT
 * thread the request goes through the command ring and the caller sleeps until the
 * slaves settled (-EDEADLK from the cyclic callback). */
/* [thread: any; blocking] */
int takt_ecat_master_set_state(struct takt_ecat_master *m, uint8_t state, takt_ns_t timeout_ns);

/* The same for one slave (position pos); the others stay where they are. BOOT (firmware
 * update over FoE) goes through INIT with SM0/SM1 set to the bootstrap mailbox of SII
 * words 0x14-0x17, and leaves only to INIT. State TAKT_ECAT_STATE_NETWORK (0): the
 * state the network is held in (the last network-wide request; -EINVAL when none came).
 * Beside a running RT thread the request goes through the command ring and the caller
 * sleeps until the slave settled (-EDEADLK from the cyclic callback). */
/* [thread: any; blocking] */
int takt_ecat_slave_set_state(struct takt_ecat_master *m, unsigned pos, uint8_t state, takt_ns_t timeout_ns);
/* Asynchronous variant, as takt_ecat_master_request_state for one slave: applied at
 * once from the cycle's thread (its error returned: -EAGAIN not scanned, -ENOENT no
 * such slave), posted into the command ring from any other (0 or -EAGAIN when full; a
 * refusal then reported as an event). The network's target state stays, so the master
 * does not drive this slave back; takt_ecat_master_slave_state() tells where it is. */
/* [thread: any; non-blocking] */
int takt_ecat_slave_request_state(struct takt_ecat_master *m, unsigned pos, uint8_t state);

/* Asynchronous variant: the master timer walks the network towards `state` while the
 * cycle runs; takt_ecat_master_state() tells where it is. From the cycle's thread (the
 * cyclic callback, or a thread driving the cycle itself) it applies at once and returns
 * its error (-EAGAIN: not scanned); from any other thread it is posted into the command
 * ring (0, or -EAGAIN when the ring is full) and applied at the start of the next
 * cycle, a refusal then reported as an event. A first request to SAFEOP or OP lays the
 * process image out, in the cycle's thread. */
/* [thread: any; non-blocking] */
int     takt_ecat_master_request_state(struct takt_ecat_master *m, uint8_t state);
/* The lowest state the slaves last reported, when every slave answers and frames
 * return; 0 when that is not known (a slave does not answer, no frame returned for
 * TAKT_ECAT_SILENCE_CYCLES cycles, or a slave's state changed and is being read). Any thread:
 * it reads what the cycle last published. */
/* [thread: any; non-blocking] */
uint8_t takt_ecat_master_state(const struct takt_ecat_master *m);

/* --- slaves ---------------------------------------------------------------------- */
struct takt_ecat_slave_info {
    unsigned position;
    uint16_t station;          /* configured station address */
    uint16_t alias;
    uint32_t vendor, product, revision, serial;
    char     name[64];
    uint8_t  esc_type, esc_rev;
    uint16_t esc_features;
    uint16_t dl_status;        /* 0x0110 at scan */
    uint8_t  ports_open;       /* bit n: port n has link and communication */
    int      parent;           /* position of the upstream slave, -1 for the master */
    uint8_t  parent_port;      /* the parent's port (1..3) this slave hangs on; 0 for the master */
    uint8_t  al_state;         /* last read AL status state (with 0x10 error flag) */
    uint16_t al_code;          /* last AL status code */
    uint16_t mbx_out_start, mbx_out_len, mbx_in_start, mbx_in_len;
    uint16_t mbx_protocols;    /* SII word 0x001C: TAKT_ECAT_MBX_AOE .. TAKT_ECAT_MBX_VOE */
    bool     dc;               /* DC capable */
    int32_t  dc_delay_ns;      /* propagation delay written to 0x0928 */
    uint32_t out_bits, in_bits;/* process data sizes */
    uint32_t out_offset, in_offset; /* byte offsets in the image */
    bool     present;          /* answered in the last cycle */
};
/* [thread: any; non-blocking] */
unsigned takt_ecat_master_slave_count(const struct takt_ecat_master *m);
/* [thread: cycle; non-blocking] */
int takt_ecat_master_slave_info(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_slave_info *out);
/* Any thread, also while the cycle runs (takt_ecat_master_slave_info is not for that): slave
 * pos's AL state (with the 0x10 error flag), AL status code and whether it answered, as
 * the cycle last published them with its statistics. Each slave's copy is consistent on
 * its own, not with the others'. Before the first cycle all zero. 0 or -ENOENT. Its
 * topology and DC difference are published as the frames are (takt_ecat_master_frames:
 * a read after a pause waits for them; -ETIMEDOUT when the running cycle did not publish
 * them in time, the rest of out then filled all the same). */
struct takt_ecat_slave_state {
    uint8_t  al_state;
    uint16_t al_code;
    bool     present;
    /* where it hangs in the network (as takt_ecat_slave_info; from the last scan) */
    int      parent;           /* position of the upstream slave, -1 for the master */
    uint8_t  parent_port;      /* that slave's port (1..3); 0 for the master */
    uint8_t  ports_open;       /* bit n: port n has link and communication (0x0110) */
    unsigned frame;            /* the cyclic frame its process data is in */
    int32_t  dc_diff_ns;       /* its last valid |0x092C| (DC system time difference,
                                * ETG.1000.4 distributed clocks), -1 none read */
};
/* [thread: any; blocking] */
int takt_ecat_master_slave_state(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_slave_state *out);

/* --- process data ------------------------------------------------------------------ */
struct takt_ecat_pd_entry {
    unsigned position;
    uint16_t index; uint8_t sub;
    uint8_t  bits;
    bool     output;            /* master -> slave */
    uint32_t byte_offset;       /* into the image */
    uint8_t  bit_offset;        /* 0..7 within that byte */
    char     name[64];
};
/* Image (outputs and inputs of all slaves; entries addressed by takt_ecat_pd_find). */
/* [thread: cycle; non-blocking] */
uint8_t *takt_ecat_master_image(struct takt_ecat_master *m, size_t *len);
/* Look up an entry of slave `pos` by name (the entry's, or "PDO name.entry name" where
 * several PDOs use the same entry name), or by index:sub when name is NULL. Valid once
 * the image is laid out (configure, or a state request to SAFEOP/OP). 0 or -ENOENT. */
/* [thread: cycle; non-blocking] */
int takt_ecat_pd_find(const struct takt_ecat_master *m, unsigned pos, const char *name,
                 uint16_t index, uint8_t sub, struct takt_ecat_pd_entry *out);
/* Look up a variable by its full name in the configured ENI's ProcessImage ("Term 2
 * (EL2008).Channel 1.Output"): where the ENI places it (its BitOffs; inputs after the
 * outputs image) when the ENI lays the image out, else where takt placed that entry.
 * 0, or -ENOENT (no ENI, no such variable, or master info data outside the slaves). */
/* [thread: cycle; non-blocking] */
int takt_ecat_pd_find_eni(const struct takt_ecat_master *m, const char *name, struct takt_ecat_pd_entry *out);
/* [thread: cycle; non-blocking] */
unsigned takt_ecat_pd_count(const struct takt_ecat_master *m);
/* [thread: cycle; non-blocking] */
int takt_ecat_pd_get(const struct takt_ecat_master *m, unsigned i, struct takt_ecat_pd_entry *out);

/* Typed access at an entry (little-endian on the wire). */
static inline uint8_t *ecat_pd_ptr(struct takt_ecat_master *m, const struct takt_ecat_pd_entry *e)
{ size_t n; return takt_ecat_master_image(m, &n) + e->byte_offset; }
/* [thread: cycle; non-blocking] */
bool     takt_ecat_pd_get_bit(struct takt_ecat_master *m, const struct takt_ecat_pd_entry *e);
/* [thread: cycle; non-blocking] */
void     takt_ecat_pd_set_bit(struct takt_ecat_master *m, const struct takt_ecat_pd_entry *e, bool v);
/* [thread: cycle; non-blocking] */
uint64_t takt_ecat_pd_read(struct takt_ecat_master *m, const struct takt_ecat_pd_entry *e);
/* [thread: cycle; non-blocking] */
void     takt_ecat_pd_write(struct takt_ecat_master *m, const struct takt_ecat_pd_entry *e, uint64_t v);

/* --- the cycle ------------------------------------------------------------------------ */
/* Called once per cycle after the inputs arrived and before the outputs go out. */
/* Cycles since the input image was last fresh: 0 when every cyclic datagram of the
 * previous cycle came back in its cycle with the expected working counter (the inputs
 * are this cycle's); n when the inputs in the image are n cycles older than that. Call it
 * from the cyclic callback. */
/* [thread: cycle; non-blocking] */
unsigned takt_ecat_master_inputs_age(const struct takt_ecat_master *m);
typedef void (*takt_ecat_cyclic_fn)(void *ctx, struct takt_ecat_master *m, takt_ns_t now);
/* [thread: idle; non-blocking] */
void takt_ecat_master_set_callback(struct takt_ecat_master *m, takt_ecat_cyclic_fn fn, void *ctx);

/* One cycle driven by the application's own loop: receive and process the previous
 * frames, run the callback, send the cyclic frames, advance the master timer, send
 * acyclic frames. Returns 0 or a negative errno of the link. */
/* [thread: cycle; non-blocking] */
int takt_ecat_master_cycle(struct takt_ecat_master *m, takt_ns_t now);

/* Run the cycle in its own thread (takt_rt_loop) with these RT options for duration_ns
 * (0 = until takt_ecat_master_stop). */
/* [thread: idle; blocking] */
int  takt_ecat_master_start(struct takt_ecat_master *m, const struct takt_rt_opts *o, takt_ns_t duration_ns);
/* [thread: any; non-blocking] */
void takt_ecat_master_stop(struct takt_ecat_master *m);
/* [thread: host; blocking] */
int  takt_ecat_master_join(struct takt_ecat_master *m);
/* The loop's measurements (Cycle Time, Task Duration, JOB_*, App) for printing. */
/* [thread: any; non-blocking] */
struct takt_rt_loop *takt_ecat_master_loop(struct takt_ecat_master *m);

/* --- statistics ---------------------------------------------------------------------- */
struct takt_ecat_master_stats {
    uint64_t cycles;
    /* Every frame sent ends as received (in its time: its data was used) or lost (not
     * back in its cycle, or within dg_timeout for acyclic frames); a lost frame that
     * comes back later also counts as late (late <= lost) and its data is never used.
     * sent = received + lost + the frames still in flight. */
    uint64_t frames_sent, frames_lost;      /* cyclic + acyclic */
    uint64_t frames_received;
    uint64_t cyc_frames_sent, cyc_frames_lost;
    uint64_t frames_late;                   /* counted lost, then returned: never used */
    uint64_t frames_duplicate;              /* a second copy of a frame already back */
    uint64_t frames_unmatched;              /* returned, but answer no frame this master
                                               sent (foreign, corrupt, or older than the
                                               last 4096 frames) */
    uint64_t wkc_errors;                    /* cyclic datagrams with an unexpected WKC */
    double   loss_rate[3];                  /* frames lost per second over 1, 10, 60 s */
    double   tx_rate[3];                    /* frames sent per second over 1, 10, 60 s */
    uint64_t slaves_lost, slaves_returned;  /* recovery events */
    uint64_t emergencies;                   /* CoE emergencies received (each an event too) */
    unsigned slaves_present;                /* BRD 0x0130 WKC of the last cycle back */
    /* Every DC reading is a sample unless it is invalid: a 0x092C of all ones (the
     * register saturated: that clock is not synchronised at all) or a slave not in OP.
     * 0x092C is filtered and does not leap, so a slave's sample is the smaller of its
     * last two readings (one bad reading never counts). A round without a sample keeps
     * the last value. */
    int64_t  dc_sync_err_ns;                /* max |0x092C| over the last round of DC slaves */
    int64_t  dc_sync_err_max_ns;
    uint64_t dc_sync_invalid;               /* readings that were not a sample */
    uint8_t  state;                         /* as takt_ecat_master_state() */
    /* The states the slaves last reported: how many answering slaves are in each, and
     * how many do not answer (lost, or being scanned again). They add up to slaves. */
    unsigned slaves;                        /* scanned */
    unsigned slaves_init, slaves_preop, slaves_boot, slaves_safeop, slaves_op;
    unsigned slaves_not_answering;
    bool     state_changing;                /* BRD 0x0130 shows a state no slave was
                                               read in: the slaves are being read */
    unsigned silent_cycles;                 /* consecutive cycles no frame came back */
};
/* Any thread: a consistent copy of what the cycle last published. From the cyclic
 * callback: this cycle's, its frames already checked. */
/* [thread: any; non-blocking] */
void takt_ecat_master_get_stats(const struct takt_ecat_master *m, struct takt_ecat_master_stats *s);

/* --- what tools show of a running master (IgH's `ethercat master`, `domains`, `data`):
 * copies of what the cycle last published, consistent each on its own, for any thread
 * while the cycle runs (the cycle never waits for a reader) --------------------------- */
/* The cyclic datagrams (takt's own layout: one LRW per frame, or LRD + LWR where a slave
 * forbids LRW; ETG.1000.4 commands and working counter). With an ENI's cyclic frames,
 * those of its datagrams that carry a Cnt (first_slave and n_slaves 0: the ENI does not
 * say which slaves; address: the logical one, or ADP | ADO << 16). */
#define TAKT_ECAT_MAX_FRAMES 32
struct takt_ecat_frame_info {
    uint8_t  cmd;              /* 10 LRD, 11 LWR, 12 LRW */
    uint8_t  frame;            /* the cyclic frame it rides in (0 = the first) */
    uint16_t len;              /* data bytes */
    uint32_t logical;          /* logical address (== offset in the image) */
    uint16_t wkc_expected;
    int32_t  wkc_last;         /* the last WKC that came back; -1 lost or none yet */
    uint64_t wkc_errors;       /* cycles in OP in which another WKC came */
    unsigned first_slave, n_slaves;
};
/* Copies at most max into out; returns how many there are. While an RT thread runs the
 * cycle, the frames, the image and the slaves' topology are published only while readers
 * ask for them: a read after a pause waits (at most 20 cycles or 0.5 s, whichever is
 * longer) for the cycle to publish them anew, and the reads that follow within 4096
 * cycles find them current at once. A cycle that does not publish within that wait
 * is frozen: the reads after it return -ETIMEDOUT at once until it runs again (no
 * second wait). From the cyclic callback no wait: its first such
 * call in a cycle has them published there and then (the image with that cycle's inputs
 * and the outputs as the callback has left them so far). With no RT thread, no wait:
 * every cycle publishes them. */
/* [thread: any; blocking] */
unsigned takt_ecat_master_frames(const struct takt_ecat_master *m, struct takt_ecat_frame_info *out,
                                 unsigned max);
/* The process image as the cycle published it after its last exchange (inputs as they
 * came, outputs as the callback left them), never torn and never older than the call
 * (the wait as takt_ecat_master_frames): at most cap bytes into buf, *len the image's
 * size. 0; -ENOENT before the image is laid out; -ETIMEDOUT when the running cycle did
 * not publish within the wait (the copy is then the last one published, older). */
/* [thread: any; blocking] */
int takt_ecat_master_image_copy(const struct takt_ecat_master *m, void *buf, size_t cap, size_t *len);
/* The link the master runs on: its name and MAC (not the redundant port's). */
/* [thread: any; non-blocking] */
void takt_ecat_master_link_info(const struct takt_ecat_master *m, char name[32], uint8_t mac[6]);

/* Cycles without a returning frame after which the state is unknown and the event
 * "no frame returned for N cycles" is raised; its end raises "frames return again after
 * N cycles without". */
#define TAKT_ECAT_SILENCE_CYCLES 3

/* The state as text, from the statistics (docs/master.md, "Reported state"):
 *   "OP, slaves 40/40"                       every slave answers and is in OP (or all in
 *                                            one other state: "SAFEOP, slaves 40/40")
 *   "SAFEOP 2/40, OP 37/40, 1 not answering" the lowest state first, then the others
 *   "unknown: no frame returned for N cycles"
 *   "unknown: none of 40 slaves answers"
 *   "unknown: AL status changed, reading the slaves (OP, slaves 40/40 before)"
 * Returns buf. */
/* [thread: any; non-blocking] */
const char *takt_ecat_master_state_text(const struct takt_ecat_master_stats *s, char *buf, size_t len);

/* DC, master follows the reference clock, cycle driven by the application's own loop:
 * the shift (ns, signed) the PI loop asks for since the last call; add it to the next
 * wake-up (the master's own RT thread does this itself). Also the last measured phase
 * error of the reference clock against SYNC0 (0 = the frame passes the reference half
 * a cycle before SYNC0). */
/* [thread: cycle; non-blocking] */
int64_t takt_ecat_master_dc_take_shift(struct takt_ecat_master *m);
/* [thread: cycle; non-blocking] */
int64_t takt_ecat_master_dc_phase(const struct takt_ecat_master *m);
/* Whether the master runs distributed clocks: opts.dc, or an ENI that configures them
 * (its <DC> elements or SYNC init commands; takt_ecat_master_configure_eni). */
/* [thread: any; non-blocking] */
bool takt_ecat_master_dc_enabled(const struct takt_ecat_master *m);

/* Events (slave lost/back, WKC errors, refused states, every error ...) recorded by the
 * cycle into a lock-free ring of struct takt_event (include/takt/event.h: code, slave
 * position as unit, values, text made by takt_event_format); one non-RT thread drains
 * them. Returns false when empty. A full ring counts what did not fit and returns one
 * TAKT_EV_DROPPED record where they went missing. */
/* [thread: owner; non-blocking] */
bool takt_ecat_master_next_ev(struct takt_ecat_master *m, struct takt_event *ev);
/* The reader's sleep between looks: until an event waits, the network's state
 * (takt_ecat_master_state) or a slave's AL state changed, its RT thread ended, a signal handler ran, or
 * timeout_ns passed. The cycle wakes it at its end, after publishing, and makes no
 * system call while nobody sleeps here. 1 when woken or an event waits, 0 on the
 * timeout, -EINTR on a signal. */
/* [thread: owner; blocking] */
int  takt_ecat_master_wait_ev(struct takt_ecat_master *m, takt_ns_t timeout_ns);
/* Events lost to a full ring since open (a snapshot). */
/* [thread: any; non-blocking] */
uint64_t takt_ecat_master_events_dropped(const struct takt_ecat_master *m);
/* The same events as text (takt_event_format): the next one into buf; the one ring,
 * so use either reader, not both. */
/* [thread: owner; non-blocking] */
bool takt_ecat_master_next_event(struct takt_ecat_master *m, char *buf, size_t len);
/* The same with the time the cycle raised it (the now of that cycle, ns). */
/* [thread: owner; non-blocking] */
bool takt_ecat_master_next_event_at(struct takt_ecat_master *m, char *buf, size_t len, takt_ns_t *at);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif

/* the acyclic services and the SII, SoE and EoE helpers */
#include <takt/ecat_services.h>
