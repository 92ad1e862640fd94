/* The software EtherCAT slave controller (internal to src/sim): register and process
 * memory, datagram execution, SII, SyncManagers, FMMUs, AL state machine, DC. */
#ifndef TAKT_SIM_ESC_H
#define TAKT_SIM_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/proto.h"
#include "sim/device.h"

#define ESC_REGS        0x1000u   /* registers 0x0000-0x0FFF; process RAM follows */
#define ESC_RAM_DEFAULT 8192u
#define ESC_SM_MBX      2u        /* SM control bits 0-1: mailbox (1-buffer) mode */
#define ESC_SM_STAT_FULL 0x08     /* SM status bit 3: mailbox full (ETG.1000.4 SyncManager) */
#define ESC_FWD_ERR0    0x0308u   /* forwarded RX error counter, port 0 (0x0308-0x030B) */
#define ESC_EPU_ERR     0x030Cu   /* ECAT processing unit error counter */
#define ESC_PDI_ERR     0x030Du   /* PDI error counter */
#define ESC_FMMU_R      0x01
#define ESC_FMMU_W      0x02

/* One active FMMU, precomputed whenever FMMU or SM registers change, so the logical
 * path does no register decoding per frame. Bit addresses are absolute. */
struct esc_fmmu_map {
    /* what the whole-byte path reads first, together */
    uint64_t log0, log_end;           /* log_bit0 / 8, log_bit_end / 8 */
    uint32_t phys0;                   /* phys_bit0 / 8 */
    uint8_t  type;                    /* ESC_FMMU_R | ESC_FMMU_W */
    int8_t   sm;                      /* SM holding the whole physical span, -1 if none */
    bool     aligned;                 /* whole bytes on both sides and sm >= 0: the fast path */
    uint64_t log_bit0, log_bit_end;   /* [start, end) */
    uint32_t phys_bit0;
};

/* Run-time view of one SyncManager, rebuilt from its registers. */
struct esc_sm {
    uint16_t start, len;
    uint32_t end;                     /* start + len */
    uint8_t  mode;                    /* control bits 0-1 */
    bool     ecat_writes;             /* control bits 2-3 == 1 */
    bool     active;                  /* enabled by the master and not deactivated by PDI */
    bool     wd;                      /* control bit 6: SM watchdog trigger */
    uint8_t   status;                 /* shadow of the status byte (written through) */
    takt_ns_t last_commit;            /* last complete output buffer (watchdog) */
};

/* Every field but the last two is read or written by each 0x0910 write (dc_rmw). */
struct esc_dc {
    bool      present;                /* 0x0008 bit 2 */
    bool      have_last;
    uint16_t  slew;                   /* cached 0x0930 & 0x7FFF */
    uint32_t  delay;                  /* cached 0x0928 */
    takt_ns_t anchor_t;               /* sim time of the anchor */
    int64_t   anchor_local;           /* local time there */
    double    drift_ppb;              /* natural drift of this clock */
    double    corr_ppb;               /* control-loop rate correction */
    takt_ns_t last_write_t;           /* last 0x0910 write, for the rate estimate */
    double    win_dt;                 /* rate window: the steps taken ... */
    takt_ns_t win_iv;                 /* ... over this much time ... */
    double    win_r0;                 /* ... and what was left unstepped at its start */
    double    filt;                   /* filtered system time difference */
    uint64_t  offset;                 /* cached 0x0920 */
    double    filt_gain;              /* 1 / 2^depth: the filter multiplies, never divides */
    uint64_t  sync0_start;            /* 0x0990 as written (reads show the next pulse) */
};

/* Times at which the frame being processed passes this ESC (sim time, ns). */
struct esc_times {
    takt_ns_t port[4];                /* receive time per port; port 0 = processing */
    uint8_t   open;                   /* bit n: port n has link (and a neighbour) */
};

struct esc_fault {
    uint8_t  refuse_state;            /* refuse any request to this state (0 none) */
    uint16_t refuse_code;
    bool     sdo_abort;
    uint16_t abort_index;
    uint8_t  abort_sub;
    uint32_t abort_code;
};

/* Laid out for the per-frame path of a network (struct sim_slave, 64-byte aligned,
 * this struct at offset 8): the header to wd_pd_ns in the slave's first cache line,
 * dev and the DC loop state in the next two, the first FMMU in the third. */
struct sim_esc {
    /* --- hot: what every frame touches, kept together in few cache lines --- */
    uint8_t  *mem;                    /* ESC_REGS + ram bytes */
    uint8_t  *stage;                  /* write staging for 3-buffer output SMs (ram bytes) */
    unsigned  n_map;
    uint8_t   map_types;              /* OR of the active FMMUs' types */
    uint8_t   al_state;
    /* register values the hot path needs, cached so it touches no extra cache lines */
    uint16_t  station, alias;
    bool      alias_en;
    bool      pdi_work;               /* deferred work for the end of the frame */
    bool      pd_touched;             /* process data accessed in this frame */
    bool      sii_cmd_pending;
    bool      no_process;             /* benchmark: skip the device's process callback */
    bool      wd_ok;                  /* shadow of 0x0440 bit 0 */
    bool      pd_valid;               /* the PD buffers hold what the last process() left */
    bool      pd_dirty;               /* process-data SM memory written since then */
    bool      reference;              /* tests: no fast paths (idle skip, byte FMMU path) */
    int8_t    sm_out, sm_in;          /* process-data SMs from the description, -1 none */
    uint8_t   mbx_active;             /* active mailbox SMs (bit n = SM n) */
    bool      dc_regs_stale;          /* 0x092C/0x0932 lag dc.filt/corr_ppb (esc_dc_sync_regs) */
    uint8_t   sm_stat_stale;          /* bit n: SM n's status byte lags sm[n].status */
    takt_ns_t wd_pd_ns;               /* process-data watchdog time, 0 = off */
    struct sim_device *dev;
    struct esc_dc dc;
    struct esc_fmmu_map map[SIM_MAX_FMMU];
    struct esc_times times;           /* only 0x0900 writes (latches) use these; here
                                       * they put sm[2] and sm[3] in one line each */
    struct esc_sm sm[SIM_MAX_SM];

    /* --- cold --- */
    uint32_t  mem_size;
    uint8_t   dc_depth;               /* cached 0x0934 & 0x0F */
    bool      external;               /* mem/stage live in the caller's block */
    uint8_t  *mbx_reply, *mbx_last;   /* held reply, last placed reply (repeat) */
    size_t    mbx_reply_len, mbx_last_len;
    uint8_t  *mbx_prev;               /* the reply placed before mbx_last (SoE slaves) */
    size_t    mbx_prev_len;
    const struct sim_device_desc *desc;
    uint8_t  *sii;                    /* writable copy of the SII image */
    size_t    sii_bytes;
    bool      sii_read8;              /* advertise 8-byte SII reads (0x0502 bit 6) */
    uint32_t  sii_cmd_addr;           /* word address latched when the command started */
    unsigned  n_sm, n_fmmu;           /* implemented by the hardware */
    uint8_t   mbx_cnt;                /* counter of replies the ESC makes itself */
    uint8_t   mbx_rx_cnt;             /* counter of the last mailbox write served (0: none) */
    uint32_t  mbx_rx_hash;            /* and a hash of its bytes */
    struct esc_fault fault;
    struct esc_foe *foe;              /* FoE file server (esc_foe.c), NULL until used */
    struct esc_soe *soe;              /* SoE drive (esc_soe.c), NULL until used */
    struct esc_eoe *eoe;              /* EoE endpoint (esc_eoe.c), NULL until used */
    int64_t   clock_offset;           /* local time at sim time 0 */
};

/* Life cycle. ram = process RAM bytes (0 = 8 KiB). The ESC borrows dev. block, if
 * given, holds ESC_REGS + 2 * ram zeroed bytes (memory and staging) the caller owns:
 * the network puts all ESCs in one huge-page arena so the hot path misses no TLB. */
#define ESC_BLOCK(ram) (ESC_REGS + 2u * (ram))
int  esc_init(struct sim_esc *e, struct sim_device *dev, uint32_t ram, bool sii_read8,
              uint8_t *block);
void esc_free(struct sim_esc *e);
/* Put dev behind the ESC (EEPROM image, SM/FMMU counts, DC); 0 or -ENOMEM. */
int  esc_set_device(struct sim_esc *e, struct sim_device *dev);
/* Power-on state: registers cleared and loaded from SII, INIT, no configuration. */
void esc_reset(struct sim_esc *e, takt_ns_t now);
/* Recompute 0x0110 from the port link state (times.open). */
void esc_update_dl_status(struct sim_esc *e);
/* Refresh the cached copies of registers (station address, alias, watchdog time). */
void esc_cache_regs(struct sim_esc *e);

/* Physical access as from the EtherCAT side with every register and SM rule.
 * Return true when at least one byte was executed (counts for the WKC). */
bool esc_read(struct sim_esc *e, uint32_t adr, uint8_t *out, uint32_t len, bool or_into, takt_ns_t t);
bool esc_write(struct sim_esc *e, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t);
/* Logical access through the FMMUs. Return bit 0: read executed, bit 1: write executed. */
unsigned esc_logical(struct sim_esc *e, uint8_t cmd, uint32_t lad, uint8_t *data, uint16_t len, takt_ns_t t);
/* End-of-frame work a real ESC's PDI side would do: mailbox hand-over, SII command
 * completion, process data exchange with the device. */
void esc_pdi(struct sim_esc *e, takt_ns_t t);
/* Timers without frames (SM watchdog). */
void esc_tick(struct sim_esc *e, takt_ns_t t);

/* internal seams between the esc*.c files */
void esc_sm_reg_write(struct sim_esc *e, uint32_t adr, uint8_t v);
void esc_sm_refresh(struct sim_esc *e, unsigned n);
void esc_fmmu_rebuild(struct sim_esc *e);
void esc_sm_apply_pdi(struct sim_esc *e);
bool esc_pd_overlap(const struct sim_esc *e);
bool esc_ram_read(struct sim_esc *e, uint32_t adr, uint8_t *out, uint32_t len, bool or_into, takt_ns_t t);
bool esc_ram_write(struct sim_esc *e, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t);
bool esc_sm_read(struct sim_esc *e, unsigned n, uint32_t adr, uint8_t *out, uint32_t len, bool or_into);
bool esc_sm_write(struct sim_esc *e, unsigned n, uint32_t adr, const uint8_t *in, uint32_t len, takt_ns_t t);
void esc_mbx_pdi(struct sim_esc *e, takt_ns_t t);
void esc_mbx_clear(struct sim_esc *e);
void esc_al_control(struct sim_esc *e, takt_ns_t t);
void esc_al_set_error(struct sim_esc *e, uint8_t state, uint16_t code, takt_ns_t t);
void esc_al_watchdog(struct sim_esc *e, takt_ns_t t);
void esc_sii_load(struct sim_esc *e);
void esc_sii_owner(struct sim_esc *e, uint8_t old, uint8_t written);
void esc_sii_command(struct sim_esc *e);
void esc_sii_complete(struct sim_esc *e);
int64_t esc_dc_local(const struct sim_esc *e, takt_ns_t t);
uint64_t esc_dc_systime(const struct sim_esc *e, takt_ns_t t);
void esc_dc_time_write(struct sim_esc *e, const uint8_t *val, unsigned off, unsigned n, takt_ns_t t);
void esc_dc_latch(struct sim_esc *e);
void esc_dc_reset_filter(struct sim_esc *e, takt_ns_t t);
void esc_dc_read_refresh(struct sim_esc *e, uint32_t adr, uint32_t len, takt_ns_t t);
/* Store the control loop's 0x092C (filtered difference) and 0x0932 (speed) into
 * memory. A 0x0910 write only marks them stale: 1000 slaves' DC register lines stay
 * out of the cyclic path, and every read of ESC memory (register reads, peek) syncs. */
void esc_dc_sync_regs(struct sim_esc *e);
/* Likewise the status byte of 3-buffer SMs: a commit updates the shadow (sm[n].status)
 * and marks it; esc_sync_mem stores every lagging register (DC and SM status), and
 * runs before anything reads ESC memory (register reads, peek, AL checks). */
void esc_sync_mem(struct sim_esc *e);

/* ESC memory accessors without side effects (tests, device checks). */
static inline uint16_t esc_reg16(const struct sim_esc *e, uint16_t a)
{ return (uint16_t)(e->mem[a] | e->mem[a + 1] << 8); }

#endif
