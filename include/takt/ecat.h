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
    uint64_t  late;                 /* copies back after their frame was handed on */
    uint64_t  breaks, heals;        /* reported changes */
    takt_ns_t since;                /* when the current state was first seen */
    takt_ns_t broke_at, healed_at;  /* when the last break / healing was reported (cycle
                                     * time, CLOCK_MONOTONIC; 0 none) */
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
 * words 0x14-0x17, and leaves only to INIT. */
/* [thread: idle; blocking] */
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
 * its own, not with the others'. Before the first cycle all zero. 0 or -ENOENT. */
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
/* [thread: any; non-blocking] */
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
/* Any thread: a consistent copy of what the cycle last published. */
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
/* Copies at most max into out; returns how many there are. */
/* [thread: any; non-blocking] */
unsigned takt_ecat_master_frames(const struct takt_ecat_master *m, struct takt_ecat_frame_info *out,
                                 unsigned max);
/* The process image as the cycle published it after its last exchange (inputs as they
 * came, outputs as the callback left them), never torn: at most cap bytes into buf,
 * *len the image's size. 0, or -ENOENT before the image is laid out. */
/* [thread: any; non-blocking] */
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

/* --- acyclic services: queued, never block the cycle -------------------------------- */
/* The _async forms may be called from any thread. From the cycle's thread (the cyclic
 * callback, or a thread that drives the cycle itself while no RT thread runs) they
 * queue at once and return what is wrong (-ENOENT no such slave, -EBUSY no free slot,
 * ...). From any other thread they post a record into the master's command ring and
 * return 0, or -EAGAIN at once when the ring (64 records) is full; the cycle applies
 * the records first thing in its next cycle, in order, and what it finds wrong comes
 * back through the completion. Either way: a non-zero return means no completion, 0
 * exactly one, called in the cycle's thread (keep it short; it must not block).
 * Before takt_ecat_master_start() a thread that has not driven the cycle posts too,
 * and the first cycle applies what it posted.
 * The blocking forms: beside a running RT thread they post and sleep until the
 * completion (never from the cyclic callback: -EDEADLK); with no RT thread they drive
 * the cycle themselves, one thread at a time (another caller waits its turn), not
 * beside a takt_ecat_master_cycle() loop of the application's own. */
/* Completion: err 0 or negative (-ETIMEDOUT, TAKT codes negated); data/len the read data. */
typedef void (*takt_ecat_done_fn)(void *ctx, int err, const uint8_t *data, size_t len);
/* Register read/write at slave position pos (station address from the scan). */
/* [thread: any; non-blocking] */
int takt_ecat_reg_read_async(struct takt_ecat_master *m, unsigned pos, uint16_t reg, uint16_t len,
                        takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_reg_write_async(struct takt_ecat_master *m, unsigned pos, uint16_t reg, const void *data,
                         uint16_t len, takt_ecat_done_fn fn, void *ctx);
/* Rescan (IgH's `ethercat rescan`) of a running master: the slave count of the cyclic
 * BRD 0x0130 and, for each known slave, its identity read again from SII words
 * 0x0008..0x000F (ETG.2010: vendor, product, revision, serial) by acyclic register
 * services beside the cyclic frames, compared with what the scan found. The completion
 * gets a struct takt_ecat_rescan as data. A slave whose identity changed is handed to
 * recovery like a replaced device (reported, re-scanned, not configured). */
enum { TAKT_ECAT_RESCAN_SAME, TAKT_ECAT_RESCAN_CHANGED, TAKT_ECAT_RESCAN_MISSING,
       TAKT_ECAT_RESCAN_NEW, TAKT_ECAT_RESCAN_FAILED };
struct takt_ecat_rescan_slave {
    uint8_t  status;                     /* TAKT_ECAT_RESCAN_* */
    int      err;                        /* FAILED: why */
    uint32_t vendor, product, revision, serial;            /* as scanned */
    uint32_t now_vendor, now_product, now_revision, now_serial; /* as read now */
};
struct takt_ecat_rescan {
    unsigned seen, expected;             /* slaves answering now, slaves scanned */
    unsigned n;                          /* entries: max(seen, expected) */
    struct takt_ecat_rescan_slave slave[];
};
/* Name of a TAKT_ECAT_RESCAN_* status ("same", "changed", "missing", "new", "failed"). */
/* [thread: any; non-blocking] */
const char *takt_ecat_rescan_status_name(unsigned status);
/* One rescan at a time: -EBUSY while one runs; -EAGAIN when the command ring is full. */
/* [thread: any; non-blocking] */
int takt_ecat_master_rescan_async(struct takt_ecat_master *m, takt_ecat_done_fn fn, void *ctx);
/* Blocking wrappers: wait until done (see above). */
/* [thread: any; blocking] */
int takt_ecat_reg_read(struct takt_ecat_master *m, unsigned pos, uint16_t reg, void *buf, uint16_t len);
/* [thread: any; blocking] */
int takt_ecat_reg_write(struct takt_ecat_master *m, unsigned pos, uint16_t reg, const void *data, uint16_t len);
/* CoE over the mailbox (slave in PREOP, SAFEOP or OP): SDO upload/download, expedited,
 * normal or segmented as the size demands, complete access with ca (subindex 0 or 1);
 * SDO information. One transfer per slave at a time, others wait their turn. The
 * buffers must stay valid until the completion; err -TAKT_ESDOABORT with the abort code
 * and its meaning in takt_ecat_master_error(). */
/* [thread: any; non-blocking] */
int takt_ecat_sdo_upload_async(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub,
                          bool ca, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_sdo_download_async(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub,
                            bool ca, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
enum takt_ecat_sdo_info_op { TAKT_ECAT_SDO_INFO_ODLIST, TAKT_ECAT_SDO_INFO_OBJECT, TAKT_ECAT_SDO_INFO_ENTRY };
/* ODLIST: u16 list type then u16 indices; OBJECT/ENTRY: raw description (parse with
 * takt_ecat_coe_odlist_parse, takt_ecat_coe_objdesc_parse, takt_ecat_coe_entrydesc_parse below). */
/* [thread: any; non-blocking] */
int takt_ecat_sdo_info_async(struct takt_ecat_master *m, unsigned pos, enum takt_ecat_sdo_info_op op,
                        uint16_t index, uint8_t sub, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_sdo_upload(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                    void *buf, size_t cap, size_t *len);
/* [thread: any; blocking] */
int takt_ecat_sdo_download(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                      const void *data, size_t len);
/* [thread: any; blocking] */
int takt_ecat_sdo_info(struct takt_ecat_master *m, unsigned pos, enum takt_ecat_sdo_info_op op, uint16_t index,
                  uint8_t sub, void *buf, size_t cap, size_t *len);

/* SDO information results (ETG.1000.6 5.6.3), parsed from what takt_ecat_sdo_info returned.
 * OD list: u16 list type, then u16 indices. Returns the number of indices and sets
 * *first to the first of them (little-endian u16 each), or -EPROTO. */
/* [thread: any; non-blocking] */
int takt_ecat_coe_odlist_parse(const uint8_t *d, size_t n, uint16_t *list_type, const uint8_t **first);
struct takt_ecat_coe_objdesc {
    uint16_t index, data_type;
    uint8_t  max_sub, obj_code;     /* obj_code: 7 VAR, 8 ARRAY, 9 RECORD */
    char     name[64];
};
/* [thread: any; non-blocking] */
int takt_ecat_coe_objdesc_parse(const uint8_t *d, size_t n, struct takt_ecat_coe_objdesc *o);
/* Entry description value info bits (ETG.1000.6): what follows the access rights. */
enum { TAKT_ECAT_COE_VI_UNIT = 0x08, TAKT_ECAT_COE_VI_DEFAULT = 0x10, TAKT_ECAT_COE_VI_MIN = 0x20,
       TAKT_ECAT_COE_VI_MAX = 0x40 };
struct takt_ecat_coe_entrydesc {
    uint16_t index;
    uint8_t  subindex, value_info;
    uint16_t data_type, bitlen, access;
    uint32_t unit;                  /* with TAKT_ECAT_COE_VI_UNIT */
    uint64_t def, min, max;         /* with TAKT_ECAT_COE_VI_DEFAULT/MIN/MAX, values up to 64 bit
                                       (little-endian, (bitlen + 7) / 8 bytes each) */
    char     name[64];
};
/* [thread: any; non-blocking] */
int takt_ecat_coe_entrydesc_parse(const uint8_t *d, size_t n, struct takt_ecat_coe_entrydesc *e);
/* Name of a CoE basic data type code (1 "BOOL", 7 "UDINT", ...; "" for unknown), as
 * ENI DataType texts use them. */
/* [thread: any; non-blocking] */
const char *takt_ecat_coe_type_name(uint16_t type);

/* FoE (file access over EtherCAT, ETG.1000.6) over the mailbox: the standard one in
 * PREOP, SAFEOP or OP, the bootstrap mailbox (SII words 0x14-0x17) in BOOT, where
 * firmware is written. Segments of mailbox size - 12 bytes, BUSY answered by repeating,
 * a per-packet timeout of sdo_timeout_ns. A read fills buf (cap bytes) and completes
 * with the file's length; a refusal fails with -TAKT_EMBOX and takt_ecat_master_error()
 * names slave, file, FoE error code and its text (and the slave's own text). password
 * 0 = none. One transfer per slave at a time (CoE waits too). */
/* [thread: any; non-blocking] */
int takt_ecat_foe_read_async(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                        void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_foe_write_async(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                         const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_foe_read(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                  void *buf, size_t cap, size_t *len);
/* [thread: any; blocking] */
int takt_ecat_foe_write(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                   const void *data, size_t len);
/* Progress of FoE transfers, called by the master timer after each acknowledged packet:
 * bytes moved and the total (0 = unknown, reads). NULL turns it off. */
typedef void (*takt_ecat_foe_progress_fn)(void *ctx, unsigned pos, size_t done, size_t total);
/* [thread: cycle; non-blocking] */
void takt_ecat_foe_set_progress(struct takt_ecat_master *m, takt_ecat_foe_progress_fn fn, void *ctx);

/* SoE (servo drive profile over EtherCAT, ETG.1000.6) IDN services over the
 * mailbox in PREOP, SAFEOP or OP: elements = SOE_EL_* flags of ecat/soe.h (0x40 the
 * value), drive 0..7, idn as on the wire (bit 15 P, bits 12-14 parameter set). A read
 * collects the response's fragments into buf (cap bytes) and completes with their
 * length; a write goes out in fragments of mailbox size - 10 bytes. A refusal fails with
 * -TAKT_EMBOX and takt_ecat_master_error() names slave, IDN and the SoE error ("IDN S-0-0040
 * is read-only"); a slave whose SII lacks SoE fails at once ("slave 3 has no SoE"). */
/* [thread: any; non-blocking] */
int takt_ecat_soe_read_async(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                        uint16_t idn, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_soe_write_async(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                         uint16_t idn, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_soe_read(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                  uint16_t idn, void *buf, size_t cap, size_t *len);
/* [thread: any; blocking] */
int takt_ecat_soe_write(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                   uint16_t idn, const void *data, size_t len);

/* SoE IDN helpers for programs that show or enter IDNs (IEC 61800-7-204).
 * Element flags: which parts of an IDN a service carries, in this wire order. */
enum {
    TAKT_ECAT_SOE_EL_STATE = 0x01, TAKT_ECAT_SOE_EL_NAME = 0x02, TAKT_ECAT_SOE_EL_ATTR = 0x04,
    TAKT_ECAT_SOE_EL_UNIT = 0x08, TAKT_ECAT_SOE_EL_MIN = 0x10, TAKT_ECAT_SOE_EL_MAX = 0x20,
    TAKT_ECAT_SOE_EL_VALUE = 0x40, TAKT_ECAT_SOE_EL_DEFAULT = 0x80,
};
/* Attribute (element 3), u32: conversion factor bits 0-15, data length bits 16-17
 * (0 one byte, 1 two, 2 four, 3 eight), bit 18 a variable-length list of such items,
 * bit 19 procedure command, display format bits 20-22, decimals bits 24-27, write
 * protection in PREOP/SAFEOP/OP bits 28-30. */
enum { TAKT_ECAT_SOE_FMT_BIN = 0, TAKT_ECAT_SOE_FMT_UINT = 1, TAKT_ECAT_SOE_FMT_INT = 2, TAKT_ECAT_SOE_FMT_HEX = 3,
       TAKT_ECAT_SOE_FMT_TEXT = 4, TAKT_ECAT_SOE_FMT_IDN = 5, TAKT_ECAT_SOE_FMT_FLOAT = 6 };
static inline unsigned ecat_soe_attr_item(uint32_t a) { return 1u << ((a >> 16) & 3); }  /* bytes */
static inline bool ecat_soe_attr_list(uint32_t a) { return (a & (1u << 18)) != 0; }
static inline unsigned ecat_soe_attr_fmt(uint32_t a) { return (a >> 20) & 7; }
static inline unsigned ecat_soe_attr_decimals(uint32_t a) { return (a >> 24) & 15; }
/* An attribute standing for a type: item size in bytes, list or not, format, decimals. */
static inline uint32_t ecat_soe_attr(unsigned item_bytes, bool list, unsigned fmt, unsigned dec)
{
    unsigned l = item_bytes >= 8 ? 3 : item_bytes >= 4 ? 2 : item_bytes >= 2 ? 1 : 0;
    return (uint32_t)l << 16 | (list ? 1u << 18 : 0) | (uint32_t)(fmt & 7) << 20 | (uint32_t)(dec & 15) << 24;
}
/* The meaning of an SoE error code ("IDN is read-only" for 0x7004). */
/* [thread: any; non-blocking] */
const char *takt_ecat_soe_error_text(uint16_t code);
/* IDN text form: "S-0-0036" / "P-1-0010" (S or P, parameter set 0-7, number 0-4095;
 * bit 15 = P, bits 12-14 set, bits 0-11 number), also a plain number ("36", "0x8024")
 * meaning the raw u16. Returns 0 or -EINVAL with what was expected in err. */
/* [thread: any; non-blocking] */
int takt_ecat_soe_idn_parse(const char *s, uint16_t *idn, char *err, size_t errlen);
#define TAKT_ECAT_SOE_IDN_STR 12
/* [thread: any; non-blocking] */
void takt_ecat_soe_idn_format(uint16_t idn, char buf[TAKT_ECAT_SOE_IDN_STR]);
/* Element names ("state", "name", "attribute", "unit", "min", "max", "value",
 * "default"): a comma list into flags; the name of one flag. */
/* [thread: any; non-blocking] */
int takt_ecat_soe_elements_parse(const char *s, uint8_t *flags, char *err, size_t errlen);
/* [thread: any; non-blocking] */
const char *takt_ecat_soe_element_name(uint8_t flag);
/* The elements of a read response split in wire order: data state u16, name and unit
 * as lists (u16 current length, u16 maximum, bytes), attribute u32, min/max/value/
 * default per the attribute (fixed items, or lists). attr is needed for min..default
 * and taken from the response when it carries one. Each part points into data.
 * Returns 0, or -EPROTO with what did not fit in err. */
struct takt_ecat_soe_part { const uint8_t *p; size_t len; };
/* [thread: any; non-blocking] */
int takt_ecat_soe_elements_split(const uint8_t *data, size_t len, uint8_t elements, uint32_t attr,
                            struct takt_ecat_soe_part part[8], char *err, size_t errlen);

/* EoE (Ethernet over EtherCAT, ETG.1000.6) on slaves whose SII lists it. A port is
 * opened per slave before takt_ecat_master_start() (fails with "slave 3 has no EoE" or a
 * mailbox too small); from then on each cycle moves at most one fragment per port
 * through the mailbox, leaving a turn to CoE/FoE/SoE after each. The services
 * (struct takt_ecat_eoe_ip / takt_ecat_eoe_filter below) open the port too; the
 * blocking ones are for tools and start-up, the async ones for the cycle thread.
 *
 * Thread contract: takt_ecat_eoe_send() and takt_ecat_eoe_recv() are for one host-side thread
 * per port (the TAP thread of ecat/eoe_tap.h), never the cycle thread; the counters of
 * takt_ecat_eoe_get_stats() are atomic and may be read from any thread: each direction is a single-producer single-consumer ring of EOE_RING whole
 * frames, lock-free, so the cycle never waits for the host and the host never for the
 * cycle. A full ring drops the frame (counted), as an Ethernet switch would. */
/* Set-IP-parameter contents: what is present (ECAT_EOE_IP_*), addresses in network
 * order (ip[0] is the first octet). */
enum { TAKT_ECAT_EOE_IP_MAC = 0x01, TAKT_ECAT_EOE_IP_IP = 0x02, TAKT_ECAT_EOE_IP_MASK = 0x04, TAKT_ECAT_EOE_IP_GW = 0x08,
       TAKT_ECAT_EOE_IP_DNS = 0x10, TAKT_ECAT_EOE_IP_DNS_NAME = 0x20 };
#define TAKT_ECAT_EOE_DNS_NAME 32
struct takt_ecat_eoe_ip {
    uint32_t flags;
    uint8_t  mac[6];
    uint8_t  ip[4], mask[4], gw[4], dns[4];
    char     dns_name[TAKT_ECAT_EOE_DNS_NAME + 1];
};
/* Address filter: up to 16 MACs and 4 masks the slave accepts, broadcasts or not. */
struct takt_ecat_eoe_filter {
    uint8_t n_mac, n_mask;
    bool    no_broadcast;
    uint8_t mac[16][6], mask[4][6];
};
/* Text forms: "A.B.C.D" or "A.B.C.D/NN" (mask set from NN when given, and *has_mask);
 * "aa:bb:cc:dd:ee:ff". 0 or -EINVAL with what was expected in err. */
/* [thread: any; non-blocking] */
int takt_ecat_eoe_ip_parse(const char *s, uint8_t ip[4], uint8_t mask[4], bool *has_mask, char *err,
                      size_t errlen);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_mac_parse(const char *s, uint8_t mac[6], char *err, size_t errlen);
struct takt_ecat_eoe_stats {
    uint64_t tx_frames, rx_frames;     /* whole frames to / from the slave */
    uint64_t tx_frags, rx_frags;       /* mailbox fragments */
    uint64_t host_drops;               /* a ring was full */
    uint64_t rx_dropped;               /* frames the reassembler dropped (bad fragments) */
};
/* Open an EoE port on slave pos (before takt_ecat_master_start: the ports are fixed
 * while the RT thread runs). Called while it runs it returns -EBUSY, and the refusal is
 * posted to the cycle, which reports it as an event. */
/* [thread: idle; blocking] */
int takt_ecat_eoe_open(struct takt_ecat_master *m, unsigned pos);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_set_ip_async(struct takt_ecat_master *m, unsigned pos, const struct takt_ecat_eoe_ip *ip,
                          takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_eoe_set_ip(struct takt_ecat_master *m, unsigned pos, const struct takt_ecat_eoe_ip *ip);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_set_filter_async(struct takt_ecat_master *m, unsigned pos,
                              const struct takt_ecat_eoe_filter *f, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_eoe_set_filter(struct takt_ecat_master *m, unsigned pos, const struct takt_ecat_eoe_filter *f);
/* The IP parameters the configured ENI's EoE init commands give slave pos (the last
 * set-IP-parameter request in file order): 0, or -ENOENT when it has none. Reads the
 * configuration, which does not change once the ENI is loaded. */
/* [thread: any; non-blocking] */
int takt_ecat_master_eni_eoe_ip(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_eoe_ip *out);
/* Host side: queue a frame for the slave (0, -EAGAIN ring full, -EMSGSIZE, -ENOENT no
 * port); take a frame from the slave (its length, 0 none). */
/* [thread: host; non-blocking] */
int takt_ecat_eoe_send(struct takt_ecat_master *m, unsigned pos, const void *frame, size_t len);
/* [thread: host; non-blocking] */
int takt_ecat_eoe_recv(struct takt_ecat_master *m, unsigned pos, void *buf, size_t cap);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_get_stats(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_eoe_stats *out);
/* Positions of the opened ports (up to max into pos); returns how many there are. */
/* [thread: any; non-blocking] */
unsigned takt_ecat_eoe_ports(const struct takt_ecat_master *m, unsigned *pos, unsigned max);

/* The host end of an EoE port: a TAP device (Linux tun/tap) named takt-eoe<pos> by
 * default and a thread of its own that moves frames between the TAP and the port's
 * rings (takt_ecat_eoe_send/recv), so TAP I/O never happens in the cycle thread. Making a TAP
 * needs CAP_NET_ADMIN. open: create it (name NULL: the default), bring it up with MTU
 * 1500 and give it ip/prefix when ip is not NULL; err says what failed. The port must be
 * open (takt_ecat_eoe_open). Any thread but the cycle's; start/close from the same one. */
struct takt_ecat_eoe_tap;
/* [thread: host; blocking] */
int takt_ecat_eoe_tap_open(struct takt_ecat_eoe_tap **out, struct takt_ecat_master *m, unsigned pos,
                      const char *name, const uint8_t *ip, unsigned prefix, char *err,
                      size_t errlen);
/* [thread: any; non-blocking] */
const char *takt_ecat_eoe_tap_name(const struct takt_ecat_eoe_tap *t);
/* [thread: host; blocking] */
int takt_ecat_eoe_tap_start(struct takt_ecat_eoe_tap *t);
/* [thread: host; blocking] */
void takt_ecat_eoe_tap_close(struct takt_ecat_eoe_tap *t);   /* stops the thread, removes the TAP */

/* Write an SII image (from word 0) into slave pos's EEPROM, word by word (blocking;
 * the master's copy is updated, the slave uses it after a power cycle). Beside a
 * running RT thread every register access goes through the command ring, so it may
 * run while the network is in OP (never from the cyclic callback: -EDEADLK); the
 * master takes the EEPROM interface (0x0500, ETG.1000.4) for it. */
/* [thread: any; blocking] */
int takt_ecat_sii_write(struct takt_ecat_master *m, unsigned pos, const uint8_t *img, size_t len);
/* The same for len bytes (even) from SII word `word` on: a part of the image (the
 * header words 4..7 for a station alias, one chunk of a larger image). */
/* [thread: any; blocking] */
int takt_ecat_sii_write_at(struct takt_ecat_master *m, unsigned pos, unsigned word, const uint8_t *data,
                           size_t len);

/* SII image read at scan (bytes; NULL if none): up to the end marker or the EEPROM size
 * word 0x003E declares, at most TAKT_ECAT_SII_MAX_BYTES (an EEPROM of 512 KiBit). */
#define TAKT_ECAT_SII_MAX_BYTES 65536u
/* [thread: cycle; non-blocking] */
const uint8_t *takt_ecat_slave_sii(const struct takt_ecat_master *m, unsigned pos, size_t *len);

/* What a program shows of an SII image (ETG.2010): the bootstrap mailbox of the header
 * (words 0x14-0x17, used in BOOT), the SyncManagers (category 41) and FMMUs (40), and
 * whether the General category (30) lists SDO information in its CoE details, and what
 * the decoder found wrong with the image. */
#define TAKT_ECAT_SII_INFO_MAX 16
#define TAKT_ECAT_SII_INFO_WARN 8
struct takt_ecat_sii_sm_info {
    uint16_t start, len;
    uint8_t  ctrl;                 /* SM control (0x0804): mode bits 0-1, direction 2-3 */
    uint8_t  enable;               /* bit 0: enabled */
    uint8_t  type;                 /* 0 unused, 1 mailbox out, 2 mailbox in, 3 outputs, 4 inputs */
};
struct takt_ecat_sii_info {
    bool     header;               /* the image reaches word 0x17: the boot_* are read */
    uint16_t boot_out_start, boot_out_len, boot_in_start, boot_in_len;  /* 0: none */
    bool     categories;           /* the categories decoded (all below is 0 if not) */
    unsigned n_sm;
    struct takt_ecat_sii_sm_info sm[TAKT_ECAT_SII_INFO_MAX];
    unsigned n_fmmu;
    uint8_t  fmmu[TAKT_ECAT_SII_INFO_MAX];  /* 0 unused, 1 outputs, 2 inputs, 3 mailbox state */
    bool     has_general;
    bool     sdo_info;             /* CoE details bit 1: the slave answers SDO information */
    /* What does not decode (bad checksum, a broken, unknown or skipped category, truncated
     * strings): all counted, the first TAKT_ECAT_SII_INFO_WARN kept as text; error: why the
     * categories did not decode at all ("" when they did). */
    unsigned n_warnings;
    char     warning[TAKT_ECAT_SII_INFO_WARN][200];
    char     error[200];
};
/* Fill *out from an image (as takt_ecat_slave_sii gives it). 0 when the categories decoded,
 * else a negative code (out->header may still be set); -EINVAL for no image. */
/* [thread: any; non-blocking] */
int takt_ecat_sii_info(const uint8_t *img, size_t len, struct takt_ecat_sii_info *out);
/* The header checksum an SII image must carry in byte 14 (word 0x0007): CRC-8 over
 * bytes 0-13 (ETG.2010). */
/* [thread: any; non-blocking] */
uint8_t takt_ecat_sii_checksum(const uint8_t *img);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
