/* POWERLINK drivers: bind the sans-I/O MN and CN cores to a link and a real-time loop.
 * Internal header shared by driver_mn.c, driver_cn.c, the simulated CN network and the
 * CLI. */
#ifndef TAKT_PLK_DRIVER_H
#define TAKT_PLK_DRIVER_H

#include <takt/plk.h>
#include "plk/mn.h"
#include "plk/cn.h"
#include "plk/mn_events.h"
#include "rt/cmdring.h"

/* Send the frames a core queued, now (launch times ignored), stamped ts for a capture
 * tap (the time read just before the send). Returns frames sent. */
int plk_drv_flush(struct takt_link *link, struct plk_txq *q, takt_ns_t ts);

/* The application's view of an MN's network (takt_plk_mn_cfg) -> the network
 * configuration the core runs on; checked (net_api.c). 0 or -EINVAL with err. */
int plk_mn_cfg_to_net(const struct takt_plk_mn_cfg *c, struct plk_net_config *nc, char *err, size_t errlen);
/* An MN from a full network configuration (config file, CDC, --nodes). */
int plk_drv_mn_create(const struct plk_net_config *nc, struct takt_plk_mn **out,
                      char *err, size_t errlen);
struct plk_mn *plk_drv_mn_core(struct takt_plk_mn *mn);
/* Its SDO hand-off from other threads (driver_sdo.c). */
struct plk_drv_sdo *plk_drv_mn_sdo(struct takt_plk_mn *mn);
/* What its RT thread publishes of the boot beside the statistics (mn_info.h). */
struct plk_mn_pub *plk_drv_mn_pub(struct takt_plk_mn *mn);
/* How long the MN polls without blocking for each PRes before it sleeps on the
 * socket (0 = always sleep). Set before takt_plk_mn_start. */
#define PLK_DRV_MN_SPIN_DEFAULT_NS (40 * TAKT_NS_PER_US)
void plk_drv_mn_set_spin(struct takt_plk_mn *mn, takt_ns_t ns);

/* --- the MN's SDO requests from other threads (driver_sdo.c) ------------------------
 * takt_plk_mn_sdo_read/write post a record (node, object, the waiter's buffer) into the
 * command ring and sleep on the waiter; the RT thread, at the start of each step, hands
 * the oldest one to the core's user-SDO slot when it is free (one transfer at a time,
 * as the core has one) and completes it when the core is done. */
#define PLK_DRV_SDO_RING 64
enum { PLK_DRV_SDO_READ = 1, PLK_DRV_SDO_WRITE };
struct plk_drv_sdo {
    struct rt_cmdring ring;
    bool busy;                   /* the core's slot holds cur */
    rt_cmd_done_fn done;
    void *ctx;
    uint8_t *ptr;
    size_t cap;
    _Atomic uintptr_t rt_self;   /* the RT thread (a call from it would wait for itself) */
    _Atomic uint32_t last_abort; /* abort code of the transfer that ended last, 0: none */
};
int  plk_drv_sdo_init(struct plk_drv_sdo *q);
/* Every record still posted, and the one in the core, completes with -ECANCELED. */
void plk_drv_sdo_free(struct plk_drv_sdo *q, struct plk_mn *core);
/* The RT thread, at its first step: calls from it are refused (-EDEADLK). */
void plk_drv_sdo_bind(struct plk_drv_sdo *q);
/* The RT thread, at the start of each step. */
void plk_drv_sdo_pump(struct plk_drv_sdo *q, struct plk_mn *core);
/* Any thread but the RT thread (-EDEADLK): post and wait up to timeout_ns for the
 * result (-EAGAIN: ring full; -ECANCELED: the loop ended first). */
int  plk_drv_sdo_call(struct plk_drv_sdo *q, const struct takt_rt_loop *loop, bool write,
                      unsigned node, uint16_t index, uint8_t sub, void *buf, size_t len,
                      size_t *got, takt_ns_t timeout_ns);

/* --- CN host: serves one or many CN cores on one link ------------------------------
 * Frames are handed only to the cores they concern (PReq/ASnd by destination, SoC/SoA/
 * PResMN to all), so 40 simulated CNs cost little. PRes with a launch time (chained
 * mode, injected lateness) go to the kernel at once with that launch time where the
 * link has one (link->txtime: SO_TXTIME and an etf/taprio/fq qdisc); elsewhere they
 * wait in a small queue and leave from this loop, which polls rather than sleeps in
 * the last PLK_HOST_LAUNCH_SPIN_NS before a launch (timer slack is 1 ns for the thread). */
#define PLK_HOST_PENDING 128
#define PLK_HOST_LAUNCH_SPIN_NS (300 * TAKT_NS_PER_US)   /* poll, not sleep, this close to a launch */
struct plk_cn_host {
    struct plk_cn **cn;
    unsigned n;
    struct plk_cn *by_id[256];
    struct takt_link *link;
    struct plk_txf tx[64];
    struct plk_txq q;
    struct plk_txf pend[PLK_HOST_PENDING];
    uint8_t rxbuf[32][TAKT_FRAME_BUF];   /* receive batch and the frames held back */
    unsigned n_pend;
    /* called every period ns with the current time (simulated inputs, fault plan) */
    void (*periodic)(void *ctx, takt_ns_t now);
    void *periodic_ctx;
    takt_ns_t period, next_periodic;
    /* called after each SoC was handed to the cores (the CN application's cycle) */
    void (*on_soc)(void *ctx, takt_ns_t t);
    void *on_soc_ctx;
    takt_ns_t duration;          /* 0 = until stop */
    /* poll without sleeping this long after each received frame (0 = never): a CN
     * that is awake when its PReq comes answers sooner, and its sender is spared
     * waking it (veth delivers in the sender's context) */
    takt_ns_t spin_ns, last_rx;
    /* poll from this long before the next SoC is due (the last SoC's receive time plus
     * the cycle, 0x1006) until it came or as long after (0 = never): the CN is awake
     * when the SoC and the first PReq arrive, so it answers in a round trip, as a CN in
     * hardware does, instead of after its own wake-up */
    takt_ns_t soc_lead_ns;
    int stop;                    /* set from any thread: atomic accesses */
    /* launch accuracy of time-triggered frames */
    uint64_t launched, pend_overflow;
    uint64_t launched_txtime;    /* timed frames handed to the kernel with SO_TXTIME */
    takt_ns_t launch_late_max, launch_late_sum;
    uint64_t rx_frames, tx_frames;
    uint64_t expired;            /* answers not sent: their request's cycle was over */
};

int  plk_cn_host_init(struct plk_cn_host *h, struct plk_cn **cn, unsigned n,
                      struct takt_link *link);
/* The SoC poll window of soc_lead_ns at `now`: with the next SoC of a CN in a cyclic
 * state (PreOp2, ReadyToOperate, Operational, Stopped) due at d, from d - lead on *sp
 * is raised to d + lead (poll until then); before that *w is lowered to d - lead (wake
 * then). Nothing changes with soc_lead_ns 0 or no such CN. */
void plk_cn_host_soc_window(const struct plk_cn_host *h, takt_ns_t now, takt_ns_t *w, takt_ns_t *sp);
/* Run until h->stop, duration, or *ext_stop (may be NULL) becomes non-zero. */
int  plk_cn_host_run(struct plk_cn_host *h, const volatile int *ext_stop);
/* Send what the cores queued (h->q): at once, or at its launch time; an answer past its
 * request's cycle (plk_txf.until) is dropped and counted (h->expired, the CN's
 * stale_dropped). */
void plk_cn_host_dispatch(struct plk_cn_host *h);

#endif
