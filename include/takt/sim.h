/* takt EtherCAT network simulator: a line or tree of software ESCs that any master can
 * drive, in-process (mem link or direct frame calls) or on a network interface,
 * with scriptable fault injection. Sans-I/O core: time is always passed in. */
#ifndef TAKT_SIM_H
#define TAKT_SIM_H

#include <takt/takt.h>
#include <takt/link.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

struct takt_sim;

struct takt_sim_opts {
    uint32_t  ram_bytes;        /* process RAM per ESC; 0 = 8 KiB */
    takt_ns_t fwd_delay_ns;     /* per-slave forwarding delay each way; 0 = 500 ns */
    double    drift_ppm;        /* clocks drift uniformly in +-drift_ppm; <0 = none */
    uint32_t  seed;             /* clock offsets/drifts and fault randomness */
    bool      sii_read4;        /* advertise 4-byte SII reads instead of 8 */
};
/* [thread: any; non-blocking] */
void takt_sim_opts_default(struct takt_sim_opts *o);

/* Create a network from a device list "ek1100,el1004x4,el2004" (xN repeats), a
 * preset ("3", "10", "20", "paper-40", "junction"; see docs/simulator.md), an ENI file (the
 * slaves it expects) or a directory of ESI files (one slave per device found).
 * On failure *out is NULL and err says what was wrong and where. */
/* [thread: any; blocking] */
int takt_sim_create(const char *devices, const struct takt_sim_opts *o,
                    struct takt_sim **out, char *err, size_t errlen);
/* [thread: any; blocking] */
int takt_sim_create_preset(const char *preset, const struct takt_sim_opts *o,
                           struct takt_sim **out, char *err, size_t errlen);
/* [thread: any; blocking] */
int takt_sim_create_eni(const char *path, const struct takt_sim_opts *o,
                        struct takt_sim **out, char *err, size_t errlen);
/* [thread: any; blocking] */
int takt_sim_create_esi_dir(const char *dir, const struct takt_sim_opts *o,
                            struct takt_sim **out, char *err, size_t errlen);
/* [thread: idle; blocking] */
void takt_sim_destroy(struct takt_sim *s);

/* [thread: any; non-blocking] */
unsigned takt_sim_slave_count(const struct takt_sim *s);
/* [thread: cycle; non-blocking] */
const char *takt_sim_slave_name(const struct takt_sim *s, unsigned pos);   /* pos 0-based */

/* The simulator has no thread of its own: "cycle" below is the thread that processes
 * or serves its frames. Blocking here means it may allocate (a power cycle recreates a
 * device, mailbox protocols make their state on first use), never that it waits. */
/* Process one frame received at `now` in place (buf holds cap bytes). Returns the
 * length of the frame to send back, 0 when nothing returns (dropped, malformed,
 * not EtherCAT, cable broken before slave 1). *delay_ns (if given) is an injected
 * extra delay for the reply. */
/* [thread: cycle; blocking] */
size_t takt_sim_process(struct takt_sim *s, uint8_t *buf, size_t len, size_t cap,
                        takt_ns_t now, takt_ns_t *delay_ns);
/* Timers (SM watchdogs, scheduled faults) when no frame arrives. */
/* [thread: cycle; blocking] */
void takt_sim_tick(struct takt_sim *s, takt_ns_t now);

/* Answer every frame sent to mem endpoint ep at once; sim time is the frame's
 * timestamp (the mem pair's clock). Deterministic: replies are queued on ep before
 * the sender's call returns. */
/* [thread: idle; non-blocking] */
void takt_sim_attach_mem(struct takt_sim *s, struct takt_link *ep);
/* Serve a link until *stop or until `until` (0 = forever): receive, process, send. */
/* [thread: cycle; blocking] */
int takt_sim_serve(struct takt_sim *s, struct takt_link *l, takt_ns_t until, volatile int *stop);

/* Redundant ring: the last slave's port 1 is wired back to the master's second port
 * (a line only; err says why not). Frames then enter at port 0 (the master's first
 * port) or 1 (its second) and leave by the port *out_port names: in an unbroken ring a
 * frame comes out at the other port, with a break each side's frame comes back where
 * it went in, processed by the slaves on that side (ESC datasheet Section I, 3.2).
 * break=N (N = the slave count) is then the cable from the last slave to port 1. */
/* [thread: idle; blocking] */
int  takt_sim_set_ring(struct takt_sim *s, char *err, size_t errlen);
/* [thread: cycle; non-blocking] */
bool takt_sim_ring_intact(const struct takt_sim *s);
/* [thread: cycle; blocking] */
size_t takt_sim_process_port(struct takt_sim *s, unsigned port, uint8_t *buf, size_t len,
                             size_t cap, takt_ns_t now, takt_ns_t *delay_ns, unsigned *out_port);
/* In-process ring: ep0 answers the master's first port, ep1 its second. */
/* [thread: idle; non-blocking] */
void takt_sim_attach_mem_ring(struct takt_sim *s, struct takt_link *ep0, struct takt_link *ep1);
/* Serve a ring over two links (first, second port) until *stop or `until`. */
/* [thread: cycle; blocking] */
int  takt_sim_serve_ring(struct takt_sim *s, struct takt_link *l0, struct takt_link *l1,
                         takt_ns_t until, volatile int *stop);

/* Fault injection. A spec is one or more items separated by ';'. K is a slave's
 * position: 0-based in the frame's order, as `takt ecat slaves` (and IgH's `ethercat
 * slaves`) show it; a position the network does not have is refused.
 *   drop=P  corrupt=P  crc=P   probability 0..1 per frame (crc: an FCS error on
 *                              the way in: lost, counted in 0x0300/0x0308)
 *   delay=NS                   extra reply delay (us/ms suffixes allowed)
 *   break=K[@T]  heal=K[@T]    the cable into position K breaks: K and its subtree
 *                              are lost (the rest of a line; K = 0: everything);
 *                              healed later (heal: every broken cable)
 *   break=K:P[@T]              the cable on port P (0..3) of position K (P = 0:
 *                              the one into K, as break=K)
 *   power=K[@T]                power-cycle slave K (back in INIT, unconfigured)
 *   sdo-abort=K:IDX:SUB=CODE   SDO requests on IDX:SUB at slave K are aborted
 *   refuse=K:STATE=CODE        slave K refuses STATE (init/preop/boot/safeop/op)
 * T is seconds from the first frame (s/ms/us suffixes allowed); without @T the
 * fault applies at once. */
/* [thread: cycle; blocking] */
int takt_sim_fault(struct takt_sim *s, const char *spec, char *err, size_t errlen);
/* FoE files of slaves that advertise FoE (each has "firmware.bin", writable only in
 * BOOT, and new files may be written in the other mailbox states). A spec is items
 * separated by ';', each K:SETTINGS (K the slave's position, 0-based), settings separated by ',':
 *   FILE          add file FILE (empty); the settings after it are FILE's:
 *   boot  ro      writable only in BOOT / read only
 *   max=N pw=N    size limit (default 1 MiB) / password (0 = none)
 *   size=N        N bytes of content (byte i = i*7+1)
 *   busy=N        answer each DATA packet N times with BUSY before the ACK
 *   disk=N        bytes all files may hold (default 4 MiB)
 *   nocreate      a write to a file that does not exist is refused
 * e.g. "1:firmware.bin,boot,pw=0x1234;1:config.txt,size=300;1:busy=2". */
/* [thread: idle; blocking] */
int takt_sim_foe(struct takt_sim *s, const char *spec, char *err, size_t errlen);
/* Immediate topology faults; positions are 0-based (takt_sim_break(s, pos): the cable
 * into pos, so 0 cuts every slave off; takt_sim_break_port(s, pos, p): the cable on
 * port p of pos, p = 0 the one into it). */
/* [thread: cycle; non-blocking] */
int takt_sim_break(struct takt_sim *s, unsigned pos, takt_ns_t now);
/* [thread: cycle; non-blocking] */
int takt_sim_break_port(struct takt_sim *s, unsigned k, unsigned port, takt_ns_t now);
/* [thread: cycle; blocking] */
int takt_sim_heal(struct takt_sim *s, takt_ns_t now);
/* [thread: cycle; blocking] */
int takt_sim_power_cycle(struct takt_sim *s, unsigned k, takt_ns_t now);
/* Topology: "line" (default) or one PARENT:PORT item per position 1..N-1, comma-separated:
 * the k-th item's slave (position k) hangs on port PORT (1..3) of the slave at position
 * PARENT (0-based, as takt ecat slaves shows it; an earlier slave).
 * Positions are the frame's order (ports 0 -> 3 -> 1 -> 2), so each subtree must be
 * listed whole, port 3's before port 1's before port 2's; err says what is wrong.
 * E.g. coupler with two terminals on its E-bus (port 3) and a second coupler on X2
 * (port 1): "0:3,1:1,0:1". See docs/simulator.md. */
/* [thread: idle; blocking] */
int takt_sim_set_topology(struct takt_sim *s, const char *spec, char *err, size_t errlen);
/* The "junction" preset's topology (9 slaves). */
#define TAKT_SIM_JUNCTION_TOPOLOGY "0:3,1:1,0:1,3:3,3:1,5:1,3:2,7:3"
/* Swap the cables on ports p1 and p2 (1..3) of position k (0-based): the subtrees trade
 * places and positions are renumbered in the frame's order; re-plugged slaves that were
 * connected restart as after power loss (cut-off ones do so at heal). Scheduled fault
 * events keep their positions. */
/* [thread: cycle; blocking] */
int takt_sim_swap_ports(struct takt_sim *s, unsigned k, unsigned p1, unsigned p2, takt_ns_t now);
/* Parent (0-based position, -1 = the master) and the parent's port of slave pos. */
/* [thread: cycle; non-blocking] */
int takt_sim_get_parent(const struct takt_sim *s, unsigned pos, int *parent, unsigned *port);
/* Forwarding delay of slave pos (0-based) per port pass (default: the option). */
/* [thread: cycle; non-blocking] */
int takt_sim_set_fwd_delay(struct takt_sim *s, unsigned pos, takt_ns_t ns);
/* DC: clock of slave pos (0-based): local time at sim time 0, and drift. */
/* [thread: cycle; non-blocking] */
int takt_sim_set_clock(struct takt_sim *s, unsigned pos, int64_t offset_ns, double drift_ppm);

/* Side-effect-free peek into an ESC's memory (registers or RAM). */
/* [thread: cycle; non-blocking] */
int takt_sim_peek(const struct takt_sim *s, unsigned pos, uint16_t adr, void *buf, size_t len);

struct takt_sim_stats {
    uint64_t frames, replies;        /* frames received, frames returned */
    uint64_t datagrams;
    uint64_t malformed;              /* dropped: bad lengths, unknown commands */
    uint64_t not_ecat;               /* ignored: other EtherTypes / frame types */
    uint64_t dropped, corrupted, delayed, crc;   /* by fault injection */
    uint64_t lost;                   /* no slave reachable (cable broken at 0) */
    unsigned reachable;              /* slaves reachable now */
};
/* [thread: cycle; non-blocking] */
void takt_sim_get_stats(const struct takt_sim *s, struct takt_sim_stats *st);

/* The "echo" devices (docs/devices.md): an input that numbers the frames accessing the
 * device's process data, an output the application echoes it into. Each new echo value
 * is judged by its age, the frame it arrived in minus the frame that carried the value
 * to the master: 1 when the application echoed the newest reply, more when it acted on
 * a reply that was not the newest (stale). Summed over the echo devices (age_max: the
 * largest); returns how many there are. */
struct takt_sim_echo_stats {
    uint64_t frames;                 /* frames that accessed the echo devices' data */
    uint64_t echoes, stale;          /* new echo values; of them, older than 1 frame */
    uint32_t age_max;                /* frames */
    uint32_t stale_first_age, stale_first_frame;   /* the first stale echo (0: none) */
};
/* [thread: cycle; non-blocking] */
unsigned takt_sim_echo_stats(const struct takt_sim *s, struct takt_sim_echo_stats *st);

/* In-process benchmark: builds n slaves (coupler + DI/DO alternating), configures
 * them to OP through frames, then times (thread CPU time) frames of one LRW over the
 * full image plus an 8-byte FRMW 0x0910. esc_only skips the device models' process
 * callbacks, to tell the ESC's cost from the devices'. */
struct takt_sim_bench {
    unsigned slaves, frames;
    uint32_t image_bytes;
    double   ns_per_frame, frames_per_s;
    bool     wkc_ok;
};
/* [thread: any; blocking] */
int takt_sim_bench_run(unsigned slaves, unsigned frames, bool esc_only,
                       struct takt_sim_bench *r, char *err, size_t errlen);

/* --- simulated POWERLINK CNs ---------------------------------------------------
 * Many CNs in one process on one link (all with the link's MAC), each a bus controller
 * with a 4-channel digital input (a walking pattern, moving every 100 ms) and a
 * 4-channel digital output, as the evaluation's B&R X20 set-up; with fault injection. */
struct takt_sim_plk;
struct takt_sim_plk_faults {
    uint32_t drop_permille;      /* PRes not sent */
    uint32_t late_permille;      /* PRes sent late_ns later */
    takt_ns_t late_ns;
    uint32_t malformed_permille; /* PRes with a Size past the frame end */
    uint8_t  vanish_node;        /* 0 = none: this CN is silent vanish_at after it was
                                  * first Operational, for vanish_for (0 = for good) */
    takt_ns_t vanish_at, vanish_for;
    uint8_t  wrong_id_node;      /* 0 = none: IdentResponse with a wrong vendor ID */
    takt_ns_t answer_delay_min, answer_delay_max;  /* every PRes this long after its PReq */
};
/* CNs with the n node IDs in ids (1..239, ascending, each once); f may be NULL (no
 * faults). On failure *out is NULL and err says why. */
/* [thread: any; blocking] */
int  takt_sim_plk_create(const uint8_t *ids, unsigned n, const struct takt_sim_plk_faults *f,
                         struct takt_sim_plk **out, char *err, size_t errlen);
/* [thread: idle; blocking] */
void takt_sim_plk_destroy(struct takt_sim_plk *s);
/* The number of CNs; they are numbered k = 0..count-1 in ascending node ID. */
/* [thread: any; non-blocking] */
unsigned takt_sim_plk_count(const struct takt_sim_plk *s);
/* Serve the CNs on link until *stop (may be NULL; another thread sets it atomically,
 * e.g. with __atomic_store_n, or a signal handler does) becomes non-zero or for
 * duration (0 = until stop): an event-driven receive loop in the calling thread. */
/* [thread: idle; blocking] */
int  takt_sim_plk_run(struct takt_sim_plk *s, struct takt_link *link, takt_ns_t duration,
                      const volatile int *stop);
/* NMT state (enum takt_plk_nmt) of CN k, also while takt_sim_plk_run serves it; -ENOENT
 * for no such CN. */
/* [thread: any; non-blocking] */
int  takt_sim_plk_state(const struct takt_sim_plk *s, unsigned k);
/* CN k asks the MN for an NMT service, as takt_plk_cn_request_nmt (same codes and
 * rules); -ENOENT for no such CN. */
/* [thread: owner; non-blocking] */
int  takt_sim_plk_request_nmt(struct takt_sim_plk *s, unsigned k, uint8_t cmd, uint8_t target,
                              const void *data, size_t len);
/* CN k's end of a host virtual Ethernet, as takt_plk_cn_veth, takt_plk_cn_send_eth
 * and takt_plk_cn_recv_eth (same codes and rules; -ENOENT for no such CN). CN k's MAC
 * is the link's: give the host's TAP device that MAC and 192.168.100.<id>. */
/* [thread: idle; non-blocking] */
int  takt_sim_plk_veth(struct takt_sim_plk *s, unsigned k, bool on);
/* [thread: host; non-blocking] */
int  takt_sim_plk_send_eth(struct takt_sim_plk *s, unsigned k, const void *frame, size_t len);
/* [thread: host; non-blocking] */
int  takt_sim_plk_recv_eth(struct takt_sim_plk *s, unsigned k, void *buf, size_t cap);
/* One CN's state and counters, copied out. */
struct takt_sim_plk_node {
    uint8_t  id, state;           /* node ID, NMT state */
    bool     chained;             /* in PRes chaining mode (set by the MN's SyncRequest) */
    uint64_t preq_rx, pres_tx;
    uint64_t soc_rx, soa_rx, asnd_rx, asnd_tx;
    uint64_t bad_frames, short_rx;   /* frames not taken: malformed, too short */
    uint64_t loss_soc, loss_preq; /* loss of SoC / PReq counted (DS 301 4.7.7) */
    uint32_t loss_soc_threshold, loss_preq_threshold;  /* in effect: 15 or as downloaded */
    uint64_t cycle_errors;        /* a threshold fired: back to PreOp1 */
    uint64_t nmt_cmds, sdo_rx;
    uint64_t dropped, late, malformed, delayed;   /* injected faults */
    uint64_t stale_dropped;       /* requests not answered: not the current one */
    uint64_t nmtreq_tx, nmtreq_refused, nmtreq_dropped;
    uint64_t err_entries;         /* history entries signalled in StatusResponse */
    /* the host's virtual Ethernet (takt_sim_plk_veth): frames handed to it, frames of
     * it sent in the CN's async slot, frames dropped for a full ring */
    uint64_t veth_to_host, veth_to_net, veth_dropped;
};
/* -ENOENT for no such CN. From the owner while the network does not run, or from the
 * publish callback inside the network's thread. */
/* [thread: idle; non-blocking] */
int  takt_sim_plk_node(const struct takt_sim_plk *s, unsigned k, struct takt_sim_plk_node *o);
/* Called in the network's thread once per publication period while takt_sim_plk_run
 * serves the CNs (what takt plk cn --metrics-file hands over): read them there with
 * takt_sim_plk_node. It must not allocate or wait; NULL turns it off. */
typedef void (*takt_sim_plk_publish_fn)(void *ctx, const struct takt_sim_plk *s);
/* [thread: idle; non-blocking] */
void takt_sim_plk_set_publish(struct takt_sim_plk *s, takt_sim_plk_publish_fn fn, void *ctx);
/* Be awake for each SoC: from lead_ns before the next SoC is due (the last one's
 * receive time plus the cycle, 0x1006) the network's thread polls the link until the
 * SoC came, or for lead_ns after that time, instead of sleeping. The first PReq of a
 * cycle is then answered within a round trip, as a CN in hardware answers it, not
 * after a wake-up (5-20 us on a VM), at the cost of up to 2 * lead_ns of this
 * thread's CPU per cycle. 0 (the default) turns it off; set before takt_sim_plk_run. */
/* [thread: idle; non-blocking] */
void takt_sim_plk_set_soc_lead(struct takt_sim_plk *s, takt_ns_t lead_ns);
/* The network's figures of its last run. */
struct takt_sim_plk_info {
    uint64_t vanished, returned;  /* times the vanish fault took its node away / back */
    uint64_t launched;            /* time-triggered PRes sent (chaining, lateness) */
    uint64_t launched_txtime;     /* of those, handed to the kernel with SO_TXTIME */
    takt_ns_t launch_late_max;    /* worst lateness of those sent from the loop */
};
/* [thread: idle; non-blocking] */
void takt_sim_plk_get_info(const struct takt_sim_plk *s, struct takt_sim_plk_info *i);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
