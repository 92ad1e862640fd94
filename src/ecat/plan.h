/* The configuration plan of an EtherCAT network: what the master does to bring it up
 * and what it sends every cycle, whichever source decided it. Two producers fill the
 * same struct: takt's own set-up from the slaves' SII (plan_sii.c: the SM and FMMU
 * writes of esm.c, the layout of pdo.c, the frames and monitoring datagrams of
 * cyclic.c, the SYNC0 rule of dc.c) and an ENI (plan_eni.c: its InitCmds, its
 * Config/Cyclic frames and process image, its DC). The model is the ENI's (ETG.2100):
 * init commands per ESM transition with data, expected working counter, retries and
 * timeout; frames as lists of datagrams with image offsets and expected working
 * counters. One executor runs the init commands of either (initx.h: esm.c for takt's
 * own set-up, eni_exec.c for an ENI's slaves), one the frames (plan_cyc.c).
 * Setup-time code: allocates, freed with ecat_plan_free. */
#ifndef TAKT_ECAT_PLAN_H
#define TAKT_ECAT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --- init commands ------------------------------------------------------------------ */

enum ecat_plan_cmd_kind {
    PLAN_REG,           /* a datagram (register or logical access) */
    PLAN_COE,           /* an SDO download or upload through the mailbox */
    PLAN_SOE,           /* an SoE IDN write */
    PLAN_EOE,           /* an EoE service request */
};

/* Why a command is special to the executor. */
enum {
    PLAN_F_AL_REQ   = 1u << 0,  /* the write of 0x0120 requesting the transition's target:
                                   the master's own AL request runs there */
    PLAN_F_AL_CHECK = 1u << 1,  /* the validated read of 0x0130: the master's own wait */
    PLAN_F_START    = 1u << 2,  /* writes the SYNC0 start time: the executor puts in one on
                                   the network's grid (ecat_dc_start_time) */
    PLAN_F_NEEDS_DC = 1u << 3,  /* sets the start time or switches SYNC on: waits until the
                                   clocks are set up (offsets, delays, drift) */
    PLAN_F_DC_OWN   = 1u << 4,  /* a SYNC unit register takt's DC writes itself: skipped */
};

struct ecat_plan_cmd {
    uint32_t transitions;       /* ECAT_TR_BIT mask (eni.h) */
    uint8_t  kind;              /* enum ecat_plan_cmd_kind */
    uint8_t  flags;             /* PLAN_F_* */
    bool     before_slave;      /* the master's commands: before the slaves' */
    uint8_t  cmd;               /* PLAN_REG: enum ecat_cmd */
    uint16_t adp, ado;          /* logical commands: address = adp | ado << 16 */
    uint16_t len;
    uint8_t *data;              /* len bytes, owned by the plan */
    bool     has_wkc;
    uint16_t wkc;               /* expected working counter (ETG.1000.4 5.4) */
    uint16_t retries;
    uint32_t timeout_ms;        /* 0: the master's option */
    bool     validate;          /* read again until (data & vmask) == vdata */
    uint8_t *vdata, *vmask;     /* len bytes each, owned; vmask NULL = all ones */
    uint32_t vtimeout_ms;
    /* PLAN_COE: index, subindex, complete access, ccs (1 download, 2 upload) */
    uint16_t index;
    uint8_t  subindex, ccs;
    bool     complete_access;
    /* PLAN_SOE: drive, elements, IDN (as on the wire); PLAN_EOE: frame type */
    uint8_t  drive, elements, eoe_type;
    uint16_t idn;
    unsigned line;              /* line in the ENI, 0: takt's own */
    const char *comment;        /* never NULL; the ENI's text lives as long as the ENI */
};

/* The commands of one slave (or of the master, pos -1), in the order they run. */
struct ecat_plan_slave {
    int      pos;
    uint16_t station;           /* configured station address */
    unsigned n_cmd;
    struct ecat_plan_cmd *cmd;
    /* fixed storage (ecat_plan_reserve): cmd holds cap_cmd commands and their bytes
     * come from pool, so the commands can be built again without allocating */
    unsigned cap_cmd;
    uint8_t *pool;
    size_t   pool_len, pool_cap;
    /* the image layout: byte offsets in the one image the API hands out */
    uint32_t out_off, out_len, in_off, in_len;
    bool     dc;                /* takes part in DC */
    bool     sync_by_cmds;      /* its own commands arm SYNC0 (else the DC settings' rule) */
    uint32_t sync0_cycle_ns, sync1_cycle_ns;
    int32_t  sync0_shift_ns, sync1_shift_ns;
};

/* --- cyclic frames ------------------------------------------------------------------ */

enum ecat_plan_role {
    PLAN_DG_DATA,       /* outputs from the image, inputs back into it */
    PLAN_DG_AL,         /* BRD 0x0130: WKC = slaves present, data = OR of AL states */
    PLAN_DG_DC_SET,     /* FPWR 0x0910 master time into the reference clock */
    PLAN_DG_DC_TIME,    /* FRMW/ARMW 0x0910: the reference time to every clock */
    PLAN_DG_DC_DIFF,    /* FPRD 0x092C, one DC slave per cycle in turn */
    PLAN_DG_DC_READ,    /* the ENI's own read of DC registers: sent only without DC */
};

/* When a datagram goes out. */
enum {
    PLAN_W_ALWAYS,
    PLAN_W_DC,          /* while DC runs */
    PLAN_W_DC_FOLLOWS,  /* while DC runs and the reference follows the master time */
    PLAN_W_NO_DC,       /* while DC does not run */
    PLAN_W_NEVER,       /* kept for its number: another datagram does its work */
};

struct ecat_plan_dg {
    uint8_t  cmd;               /* enum ecat_cmd */
    uint8_t  role;              /* enum ecat_plan_role */
    uint8_t  when;              /* PLAN_W_* */
    uint16_t adp, ado;          /* logical: address = adp | ado << 16; DC_SET/TIME/DIFF:
                                   adp is the executor's (reference clock, slave in turn) */
    uint16_t len;
    int32_t  out_off;           /* image offset of the data sent, -1: zeros */
    int32_t  in_off;            /* image offset the reply goes to, -1: nowhere */
    bool     has_wkc;
    uint16_t wkc;               /* expected working counter */
    uint16_t states;            /* AL states it is sent in (bit 1 << AL_x, as ENI <State>) */
    uint16_t judged;            /* AL states its WKC is judged in (all slaves present) */
    uint16_t first_slave, n_slaves;   /* takt's frames: the slaves it carries */
    int      no;                /* its number in the ENI's frame, -1: takt's own */
    unsigned line;              /* line in the ENI, 0: takt's own */
    const char *comment;        /* never NULL */
};

struct ecat_plan_frame {
    unsigned first, n;          /* datagrams [first, first + n) of dg[] */
};

/* --- distributed clocks ------------------------------------------------------------- */

enum ecat_plan_start {
    PLAN_START_NONE,            /* no DC */
    /* SYNC0 starts a whole number of cycles at least 100 ms after the reference clock's
     * time when read, plus the shift (as SOEM and IgH do); the ENI's start-time writes
     * get that time too (their data is a placeholder the tool could not know) */
    PLAN_START_GRID_100MS,
};

struct ecat_plan_dc {
    bool     on;
    int      ref;               /* position of the reference clock, -1: none */
    bool     ref_follows_master;
    uint8_t  start;             /* enum ecat_plan_start */
    uint32_t sync0_cycle_ns, sync1_cycle_ns;
    int32_t  sync0_shift_ns, sync1_shift_ns;
    bool     by_cmds;           /* some slave's own init commands arm SYNC0 */
};

/* --- the plan ----------------------------------------------------------------------- */

enum ecat_plan_source { PLAN_FROM_SII, PLAN_FROM_ENI };

struct ecat_plan {
    uint8_t  source;            /* enum ecat_plan_source */
    unsigned n_slaves;
    struct ecat_plan_slave *slave;  /* n_slaves, then the master's own commands (pos -1) */
    /* the image: outputs in [0, out_bytes), inputs in [in_base, in_base + in_bytes);
     * takt's own layout interleaves the two per slave (in_base 0, sizes both whole) */
    uint32_t image_size, out_bytes, in_bytes, in_base;
    unsigned n_frames;
    struct ecat_plan_frame *frame;
    unsigned n_dg;
    struct ecat_plan_dg *dg;
    struct ecat_plan_dc dc;
};

void ecat_plan_free(struct ecat_plan *p);
/* The master's own commands (pos -1). */
static inline struct ecat_plan_slave *ecat_plan_master(struct ecat_plan *p)
{ return &p->slave[p->n_slaves]; }

/* Building blocks for the producers (plan.c): append to a slave's list, to the frame
 * being filled (frames open with ecat_plan_frame_add). NULL / -ENOMEM on no memory. */
int  ecat_plan_alloc(struct ecat_plan *p, unsigned n_slaves);
/* A plan of one slave whose commands live in storage reserved here, n_cmd commands
 * and bytes bytes of their data (the building of a slave's set-up plan in the cycle
 * thread must not allocate); ecat_plan_clear empties it and keeps the storage. 0 or
 * -ENOMEM. */
int  ecat_plan_reserve(struct ecat_plan *p, unsigned n_cmd, size_t bytes);
void ecat_plan_clear(struct ecat_plan *p);
/* len bytes for a command of s (d's, or zeros), owned by the plan: from s's reserved
 * storage if it has one. NULL: no memory, or the reserve is used up. */
uint8_t *ecat_plan_bytes(struct ecat_plan_slave *s, const void *d, size_t len);
struct ecat_plan_cmd *ecat_plan_cmd_add(struct ecat_plan_slave *s, uint32_t transitions, uint8_t cmd,
                                        uint16_t adp, uint16_t ado, const void *data, uint16_t len);
int  ecat_plan_frame_add(struct ecat_plan *p);
struct ecat_plan_dg *ecat_plan_dg_add(struct ecat_plan *p, uint8_t cmd, uint8_t role, uint16_t adp,
                                      uint16_t ado, uint16_t len);

/* The plan as text, one line per item, for golden tests and `--verbose` diagnostics. */
void ecat_plan_dump(const struct ecat_plan *p, FILE *f);

/* Producers. From takt's own set-up of a scanned and laid-out network (plan_sii.c). */
struct ecat_core;
int ecat_plan_from_master(struct ecat_plan *p, const struct ecat_core *m);
/* Slave i's commands alone, as slave[0] of p (its SM and FMMU writes need the layout:
 * none before it). p is empty (zeroed) or reserved (ecat_plan_reserve): a reserved p
 * is cleared and filled again without allocating. 0 or -ENOMEM. */
int ecat_plan_sii_slave(struct ecat_plan *p, const struct ecat_core *m, unsigned i);
/* From an ENI alone (plan_eni.c); err says what is wrong with it, and ft (may be NULL),
 * where it is one of the ENI's cyclic frames, says it in values, for the caller's own
 * event codes. */
struct ecat_eni;
enum ecat_eni_frames_fault { ECAT_ENI_FRAMES_OK, ECAT_ENI_FRAMES_RANGE, ECAT_ENI_FRAMES_SIZE };
struct ecat_eni_frames_check {
    enum ecat_eni_frames_fault fault;
    unsigned line, frame, cmd;      /* where: the file's line, Cyclic/Frame f, its Cmd k */
    uint8_t command;                /* RANGE: the datagram's command, */
    bool output;                    /* the image it leaves (else the input image), */
    uint16_t len;                   /* its DataLength, */
    uint32_t image;                 /* that image's size */
    unsigned long long end;         /* and where the datagram ends in it */
    size_t room, used;              /* SIZE: the bytes one frame holds, those it was given */
};
int ecat_plan_from_eni(struct ecat_plan *p, const struct ecat_eni *e, struct ecat_eni_frames_check *ft,
                       char *err, size_t errlen);
/* Whether takt can run the ENI's cyclic frames at all (some, and no more than the max
 * it has room for): NULL, or why not in why. Not an error: takt then lays out its own
 * image. */
const char *ecat_plan_eni_frames_unusable(const struct ecat_eni *e, unsigned max, char *why, size_t n);
/* Its init commands, layout and DC alone (the start-up runs them before the image is
 * laid out): 0 or -ENOMEM. */
int ecat_plan_from_eni_init(struct ecat_plan *p, const struct ecat_eni *e);

#endif
