/* takt EtherCAT master: the application API. Open a master on a link, scan and
 * configure the network from SII, bring it to OP, exchange process data in a cycle
 * (own RT thread or the application's loop), read statistics. No globals: every call
 * takes the master it acts on, so several masters run in one process. */
#ifndef TAKT_ECAT_H
#define TAKT_ECAT_H

#include <takt/takt.h>
#include <takt/link.h>
#include <takt/rt.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ecat_master;

/* AL states as in ESC register 0x0130 (ETG.1000.6 6.4). */
enum ecat_state { ECAT_STATE_INIT = 0x01, ECAT_STATE_PREOP = 0x02, ECAT_STATE_BOOT = 0x03,
                  ECAT_STATE_SAFEOP = 0x04, ECAT_STATE_OP = 0x08 };

/* Who is the time base for distributed clocks. */
enum ecat_dc_mode {
    ECAT_DC_MASTER_FOLLOWS_REF = 0, /* master shifts its cycle to the reference clock (PI loop) */
    ECAT_DC_REF_FOLLOWS_MASTER = 1, /* master writes its time into the reference clock */
};

struct ecat_master_opts {
    unsigned  max_slaves;       /* storage reserved at open (default 128) */
    takt_ns_t cycle_ns;         /* cycle period (default 1 ms) */
    uint16_t  station_base;     /* station address of position 0 is base+0 (default 0x1000) */
    takt_ns_t state_timeout_ns; /* per AL state change (default 10 s, like IgH 1.6) */
    takt_ns_t dg_timeout_ns;    /* an acyclic datagram not back by then is lost (default 50 ms) */
    bool      dc;               /* configure distributed clocks and SYNC0 */
    enum ecat_dc_mode dc_mode;
    takt_ns_t sync0_shift_ns;   /* SYNC0 shift against the cycle start (default 0) */
    unsigned  acyc_frames;      /* acyclic frames at most per cycle (default 4) */
    takt_ns_t sdo_timeout_ns;   /* one CoE transfer (default 3 s) */
    bool      keep_state;       /* scan without resetting the slaves to INIT (look only) */
    struct takt_link *redundant; /* cable redundancy: the port the ring's last slave is
                                  * wired back to (not owned), NULL: none (docs/master.md) */
};
void ecat_master_opts_default(struct ecat_master_opts *o);

/* Open a master on an open link (the master does not own it). err receives a
 * message on failure. */
int  ecat_master_open(struct ecat_master **out, struct takt_link *link,
                      const struct ecat_master_opts *o, char *err, size_t errlen);
void ecat_master_close(struct ecat_master *m);

/* --- cable redundancy (opts.redundant) ------------------------------------------- */
struct ecat_redundancy {
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
void ecat_master_redundancy(const struct ecat_master *m, struct ecat_redundancy *out);

/* Last error message (names slave, register or object, expected vs found). */
const char *ecat_master_error(const struct ecat_master *m);

/* --- bring-up (blocking wrappers that drive the cycle themselves; tools and start-up
 * only; not from a running cycle) ------------------------------------------------ */
int ecat_master_scan(struct ecat_master *m, takt_ns_t timeout_ns);
/* Lay out the process image from the SII PDO categories of each slave (SM, FMMU). */
int ecat_master_configure(struct ecat_master *m);
/* PDO mapping over CoE, slaves in PREOP: read each CoE slave's assignment (0x1C12/
 * 0x1C13) and mapping (0x16xx/0x1Axx) instead of trusting the SII (slaves that do not
 * answer keep the SII layout; the first error is returned); or write a new assignment
 * of PDOs to an SM (sm_obj 0x1C12 outputs, 0x1C13 inputs), then read again. Both make
 * the next ecat_master_configure() / SAFEOP request lay the image out anew. */
int ecat_master_read_pdos_coe(struct ecat_master *m);
int ecat_slave_pdo_assign(struct ecat_master *m, unsigned pos, uint16_t sm_obj,
                          const uint16_t *pdos, unsigned n);
/* Process data of SoE drives without CoE, slaves in PREOP: with the application
 * telegram (S-0-0015 = 7, or no S-0-0015) the outputs are the master control word and
 * the IDNs of the MDT list S-0-0024, the inputs the drive status word and those of the
 * AT list S-0-0016, each sized by its attribute and named by the drive. Drives that do
 * not answer keep the SII layout (the first error is returned). Like the CoE form, it
 * makes the next layout start anew. */
int ecat_master_read_pdos_soe(struct ecat_master *m);

/* ENI (ETG.2100, as TwinCAT or EC-Engineer export it), after the scan: the scanned
 * identities must match the ENI's slaves (each mismatch is an event naming position,
 * expected and found identity; -TAKT_ECONFIG); each slave gets the ENI's PhysAddr. From
 * then on the ENI drives start-up: state requests run its register and CoE init
 * commands of each transition in file order (its AL control write is the request, its
 * validate timeout the transition timeout), the image holds each slave at its
 * Send/Recv BitStart (outputs image, then inputs image) and the cyclic frames are the
 * ENI's, each datagram judged by its Cnt (docs/eni.md). Slaves above INIT are taken to
 * INIT first. A new scan forgets the ENI. */
int ecat_master_configure_eni(struct ecat_master *m, const char *path);
/* Write an ENI-like description of the scanned network (identities, mailbox, SMs, PDOs,
 * process image, cyclic frames) to path. */
int ecat_master_write_eni(struct ecat_master *m, const char *path);

/* Request every slave to go to `state` and drive the cycle until they are there, one
 * refuses (AL status code in the message) or the timeout passes. */
int ecat_master_set_state(struct ecat_master *m, uint8_t state, takt_ns_t timeout_ns);

/* The same for one slave (position pos); the others stay where they are. BOOT (firmware
 * update over FoE) goes through INIT with SM0/SM1 set to the bootstrap mailbox of SII
 * words 0x14-0x17, and leaves only to INIT. */
int ecat_slave_set_state(struct ecat_master *m, unsigned pos, uint8_t state, takt_ns_t timeout_ns);

/* Asynchronous variant: the master timer walks the network towards `state` while the
 * cycle runs; ecat_master_state() tells where it is. */
int     ecat_master_request_state(struct ecat_master *m, uint8_t state);
/* The lowest state the slaves last reported, when every slave answers and frames
 * return; 0 when that is not known (a slave does not answer, no frame returned for
 * ECAT_SILENCE_CYCLES cycles, or a slave's state changed and is being read). Any thread:
 * it reads what the cycle last published. */
uint8_t ecat_master_state(const struct ecat_master *m);

/* --- slaves ---------------------------------------------------------------------- */
struct ecat_slave_info {
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
    uint16_t mbx_protocols;
    bool     dc;               /* DC capable */
    int32_t  dc_delay_ns;      /* propagation delay written to 0x0928 */
    uint32_t out_bits, in_bits;/* process data sizes */
    uint32_t out_offset, in_offset; /* byte offsets in the image */
    bool     present;          /* answered in the last cycle */
};
unsigned ecat_master_slave_count(const struct ecat_master *m);
int ecat_master_slave_info(const struct ecat_master *m, unsigned pos, struct ecat_slave_info *out);

/* --- process data ------------------------------------------------------------------ */
struct ecat_pd_entry {
    unsigned position;
    uint16_t index; uint8_t sub;
    uint8_t  bits;
    bool     output;            /* master -> slave */
    uint32_t byte_offset;       /* into the image */
    uint8_t  bit_offset;        /* 0..7 within that byte */
    char     name[64];
};
/* Image (outputs and inputs of all slaves; entries addressed by ecat_pd_find). */
uint8_t *ecat_master_image(struct ecat_master *m, size_t *len);
/* Look up an entry of slave `pos` by name (the entry's, or "PDO name.entry name" where
 * several PDOs use the same entry name), or by index:sub when name is NULL. Valid once
 * the image is laid out (configure, or a state request to SAFEOP/OP). 0 or -ENOENT. */
int ecat_pd_find(const struct ecat_master *m, unsigned pos, const char *name,
                 uint16_t index, uint8_t sub, struct ecat_pd_entry *out);
/* Look up a variable by its full name in the configured ENI's ProcessImage ("Term 2
 * (EL2008).Channel 1.Output"): where the ENI places it (its BitOffs; inputs after the
 * outputs image) when the ENI lays the image out, else where takt placed that entry.
 * 0, or -ENOENT (no ENI, no such variable, or master info data outside the slaves). */
int ecat_pd_find_eni(const struct ecat_master *m, const char *name, struct ecat_pd_entry *out);
unsigned ecat_pd_count(const struct ecat_master *m);
int ecat_pd_get(const struct ecat_master *m, unsigned i, struct ecat_pd_entry *out);

/* Typed access at an entry (little-endian on the wire). */
static inline uint8_t *ecat_pd_ptr(struct ecat_master *m, const struct ecat_pd_entry *e)
{ size_t n; return ecat_master_image(m, &n) + e->byte_offset; }
bool     ecat_pd_get_bit(struct ecat_master *m, const struct ecat_pd_entry *e);
void     ecat_pd_set_bit(struct ecat_master *m, const struct ecat_pd_entry *e, bool v);
uint64_t ecat_pd_read(struct ecat_master *m, const struct ecat_pd_entry *e);
void     ecat_pd_write(struct ecat_master *m, const struct ecat_pd_entry *e, uint64_t v);

/* --- the cycle ------------------------------------------------------------------------ */
/* Called once per cycle after the inputs arrived and before the outputs go out. */
/* Cycles since the input image was last fresh: 0 when every cyclic datagram of the
 * previous cycle came back in its cycle with the expected working counter (the inputs
 * are this cycle's); n when the inputs in the image are n cycles older than that. Call it
 * from the cyclic callback. */
unsigned ecat_master_inputs_age(const struct ecat_master *m);
typedef void (*ecat_cyclic_fn)(void *ctx, struct ecat_master *m, takt_ns_t now);
void ecat_master_set_callback(struct ecat_master *m, ecat_cyclic_fn fn, void *ctx);

/* One cycle driven by the application's own loop: receive and process the previous
 * frames, run the callback, send the cyclic frames, advance the master timer, send
 * acyclic frames. Returns 0 or a negative errno of the link. */
int ecat_master_cycle(struct ecat_master *m, takt_ns_t now);

/* Run the cycle in its own thread (rt_loop) with these RT options for duration_ns
 * (0 = until ecat_master_stop). */
int  ecat_master_start(struct ecat_master *m, const struct rt_opts *o, takt_ns_t duration_ns);
void ecat_master_stop(struct ecat_master *m);
int  ecat_master_join(struct ecat_master *m);
/* The loop's measurements (Cycle Time, Task Duration, JOB_*, App) for printing. */
struct rt_loop *ecat_master_loop(struct ecat_master *m);

/* --- statistics ---------------------------------------------------------------------- */
struct ecat_master_stats {
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
    uint8_t  state;                         /* as ecat_master_state() */
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
void ecat_master_get_stats(const struct ecat_master *m, struct ecat_master_stats *s);

/* Cycles without a returning frame after which the state is unknown and the event
 * "no frame returned for N cycles" is raised; its end raises "frames return again after
 * N cycles without". */
#define ECAT_SILENCE_CYCLES 3

/* The state as text, from the statistics (docs/master.md, "Reported state"):
 *   "OP, slaves 40/40"                       every slave answers and is in OP (or all in
 *                                            one other state: "SAFEOP, slaves 40/40")
 *   "SAFEOP 2/40, OP 37/40, 1 not answering" the lowest state first, then the others
 *   "unknown: no frame returned for N cycles"
 *   "unknown: none of 40 slaves answers"
 *   "unknown: AL status changed, reading the slaves (OP, slaves 40/40 before)"
 * Returns buf. */
const char *ecat_master_state_text(const struct ecat_master_stats *s, char *buf, size_t len);

/* DC, master follows the reference clock, cycle driven by the application's own loop:
 * the shift (ns, signed) the PI loop asks for since the last call; add it to the next
 * wake-up (the master's own RT thread does this itself). Also the last measured phase
 * error of the reference clock against SYNC0 (0 = the frame passes the reference half
 * a cycle before SYNC0). */
int64_t ecat_master_dc_take_shift(struct ecat_master *m);
int64_t ecat_master_dc_phase(const struct ecat_master *m);

/* Events (slave lost/back, WKC errors, refused states ...) recorded by the cycle into
 * a lock-free ring; a non-RT thread drains them. Returns false when empty. */
bool ecat_master_next_event(struct ecat_master *m, char *buf, size_t len);
/* The same with the time the cycle raised it (the now of that cycle, ns). */
bool ecat_master_next_event_at(struct ecat_master *m, char *buf, size_t len, takt_ns_t *at);

/* --- acyclic services: queued, never block the cycle -------------------------------- */
/* Completion: err 0 or negative (-ETIMEDOUT, TAKT codes negated); data/len the read data. */
typedef void (*ecat_done_fn)(void *ctx, int err, const uint8_t *data, size_t len);
/* Register read/write at slave position pos (station address from the scan). */
int ecat_reg_read_async(struct ecat_master *m, unsigned pos, uint16_t reg, uint16_t len,
                        ecat_done_fn fn, void *ctx);
int ecat_reg_write_async(struct ecat_master *m, unsigned pos, uint16_t reg, const void *data,
                         uint16_t len, ecat_done_fn fn, void *ctx);
/* Blocking wrappers for tools: drive the cycle until done. */
int ecat_reg_read(struct ecat_master *m, unsigned pos, uint16_t reg, void *buf, uint16_t len);
int ecat_reg_write(struct ecat_master *m, unsigned pos, uint16_t reg, const void *data, uint16_t len);
/* CoE over the mailbox (slave in PREOP, SAFEOP or OP): SDO upload/download, expedited,
 * normal or segmented as the size demands, complete access with ca (subindex 0 or 1);
 * SDO information. One transfer per slave at a time, others wait their turn. The
 * buffers must stay valid until the completion; err -TAKT_ESDOABORT with the abort code
 * and its meaning in ecat_master_error(). */
int ecat_sdo_upload_async(struct ecat_master *m, unsigned pos, uint16_t index, uint8_t sub,
                          bool ca, void *buf, size_t cap, ecat_done_fn fn, void *ctx);
int ecat_sdo_download_async(struct ecat_master *m, unsigned pos, uint16_t index, uint8_t sub,
                            bool ca, const void *data, size_t len, ecat_done_fn fn, void *ctx);
enum ecat_sdo_info_op { ECAT_SDO_INFO_ODLIST, ECAT_SDO_INFO_OBJECT, ECAT_SDO_INFO_ENTRY };
/* ODLIST: u16 list type then u16 indices; OBJECT/ENTRY: raw description (parse with
 * ecat/coe.h ecat_coe_objdesc_parse / ecat_coe_entrydesc_parse). */
int ecat_sdo_info_async(struct ecat_master *m, unsigned pos, enum ecat_sdo_info_op op,
                        uint16_t index, uint8_t sub, void *buf, size_t cap, ecat_done_fn fn, void *ctx);
int ecat_sdo_upload(struct ecat_master *m, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                    void *buf, size_t cap, size_t *len);
int ecat_sdo_download(struct ecat_master *m, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                      const void *data, size_t len);
int ecat_sdo_info(struct ecat_master *m, unsigned pos, enum ecat_sdo_info_op op, uint16_t index,
                  uint8_t sub, void *buf, size_t cap, size_t *len);

/* FoE (file access over EtherCAT, ETG.1000.6) over the mailbox: the standard one in
 * PREOP, SAFEOP or OP, the bootstrap mailbox (SII words 0x14-0x17) in BOOT, where
 * firmware is written. Segments of mailbox size - 12 bytes, BUSY answered by repeating,
 * a per-packet timeout of sdo_timeout_ns. A read fills buf (cap bytes) and completes
 * with the file's length; a refusal fails with -TAKT_EMBOX and ecat_master_error()
 * names slave, file, FoE error code and its text (and the slave's own text). password
 * 0 = none. One transfer per slave at a time (CoE waits too). */
int ecat_foe_read_async(struct ecat_master *m, unsigned pos, const char *name, uint32_t password,
                        void *buf, size_t cap, ecat_done_fn fn, void *ctx);
int ecat_foe_write_async(struct ecat_master *m, unsigned pos, const char *name, uint32_t password,
                         const void *data, size_t len, ecat_done_fn fn, void *ctx);
int ecat_foe_read(struct ecat_master *m, unsigned pos, const char *name, uint32_t password,
                  void *buf, size_t cap, size_t *len);
int ecat_foe_write(struct ecat_master *m, unsigned pos, const char *name, uint32_t password,
                   const void *data, size_t len);
/* Progress of FoE transfers, called by the master timer after each acknowledged packet:
 * bytes moved and the total (0 = unknown, reads). NULL turns it off. */
typedef void (*ecat_foe_progress_fn)(void *ctx, unsigned pos, size_t done, size_t total);
void ecat_foe_set_progress(struct ecat_master *m, ecat_foe_progress_fn fn, void *ctx);

/* SoE (servo drive profile over EtherCAT, ETG.1000.6) IDN services over the
 * mailbox in PREOP, SAFEOP or OP: elements = SOE_EL_* flags of ecat/soe.h (0x40 the
 * value), drive 0..7, idn as on the wire (bit 15 P, bits 12-14 parameter set). A read
 * collects the response's fragments into buf (cap bytes) and completes with their
 * length; a write goes out in fragments of mailbox size - 10 bytes. A refusal fails with
 * -TAKT_EMBOX and ecat_master_error() names slave, IDN and the SoE error ("IDN S-0-0040
 * is read-only"); a slave whose SII lacks SoE fails at once ("slave 3 has no SoE"). */
int ecat_soe_read_async(struct ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                        uint16_t idn, void *buf, size_t cap, ecat_done_fn fn, void *ctx);
int ecat_soe_write_async(struct ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                         uint16_t idn, const void *data, size_t len, ecat_done_fn fn, void *ctx);
int ecat_soe_read(struct ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                  uint16_t idn, void *buf, size_t cap, size_t *len);
int ecat_soe_write(struct ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                   uint16_t idn, const void *data, size_t len);

/* Write an SII image (from word 0) into slave pos's EEPROM, word by word (blocking,
 * tools only; the master's copy is updated, the slave uses it after a power cycle). */
int ecat_sii_write(struct ecat_master *m, unsigned pos, const uint8_t *img, size_t len);

/* SII image read at scan (bytes; NULL if none). */
const uint8_t *ecat_slave_sii(const struct ecat_master *m, unsigned pos, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
