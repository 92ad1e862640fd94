/* takt real-time support: the cyclic scheduler (absolute deadlines, overrun skipping)
 * and real-time thread set-up (affinity, SCHED_FIFO, mlockall, cpu_dma_latency). */
#ifndef TAKT_RT_H
#define TAKT_RT_H

#include <takt/takt.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

/* --- deadline arithmetic (pure: no clock reads) -------------------------------- */
struct takt_rt_cycle {
    takt_ns_t period;       /* ns */
    takt_ns_t next;         /* absolute deadline of the next wake-up */
    takt_ns_t last_wake;    /* time of the last wake-up (0 before the first) */
    takt_ns_t wake_dev;     /* last wake-up minus its deadline (>= 0 normally) */
    takt_ns_t wake_period;  /* last wake-up minus the one before */
    uint64_t  cycles;       /* wake-ups */
    uint64_t  overruns;     /* cycles in which at least one deadline was missed */
    uint64_t  skipped;      /* deadlines skipped (never queued up) */
    bool      overran;      /* this cycle already counted its overrun */
};

/* Deadlines are start, start + period, start + 2*period ...: `start` is the first
 * deadline (pass now + period to sleep one period first). */
/* [thread: cycle; non-blocking] */
void takt_rt_cycle_init(struct takt_rt_cycle *c, takt_ns_t period, takt_ns_t start);
/* Account a wake-up at `now` for deadline c->next, then move c->next to the first
 * deadline after `now` (missed ones are skipped and counted). */
/* [thread: cycle; non-blocking] */
void takt_rt_cycle_woke(struct takt_rt_cycle *c, takt_ns_t now);
/* After the cycle's work ended at `now`: if the next deadline already passed, skip
 * it (and count an overrun) so the loop never runs back-to-back to catch up. */
/* [thread: cycle; non-blocking] */
void takt_rt_cycle_done(struct takt_rt_cycle *c, takt_ns_t now);
/* Sleep until c->next with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), then
 * takt_rt_cycle_woke(). Returns the wake-up time. */
/* [thread: cycle; blocking] */
takt_ns_t takt_rt_cycle_wait(struct takt_rt_cycle *c);

/* --- thread set-up ------------------------------------------------------------- */
struct takt_rt_opts {
    int  cpu;              /* -1: no affinity */
    int  prio;             /* SCHED_FIFO priority 1..99; 0: SCHED_OTHER */
    bool mlock;            /* mlockall(MCL_CURRENT|MCL_FUTURE); MCL_CURRENT only when
                              RLIMIT_MEMLOCK is finite and CAP_IPC_LOCK is missing */
    bool dma_latency;      /* hold /dev/cpu_dma_latency at 0 */
    size_t prefault_stack; /* bytes of stack to touch before the loop */
    bool drop_caps;        /* afterwards drop this thread's capabilities but those
                              takt_rt_caps_after_setup() names (a program's roles set it;
                              off by default: an application may open sockets later) */
};
/* [thread: any; non-blocking] */
void takt_rt_opts_default(struct takt_rt_opts *o);   /* cpu -1, prio 0, mlock, dma_latency, 64 KiB */

/* What takt_rt_setup() achieved; each missing privilege produced one warning. */
struct takt_rt_state {
    bool affinity_ok, fifo_ok, mlock_ok, dma_latency_ok;
    bool mlock_future;     /* MCL_FUTURE too (mlock_ok alone: existing pages only) */
    int  dma_fd;           /* held open while the request must last; -1 if none */
    unsigned warnings;
};
typedef void (*takt_rt_warn_fn)(void *ctx, const char *msg);
/* Apply opts to the calling thread. Never fails: each privilege that is missing gives
 * one clear warning naming the capability or limit, and the run goes on. warn may be
 * NULL (messages go to stderr). */
/* [thread: any; blocking] */
void takt_rt_setup(const struct takt_rt_opts *o, struct takt_rt_state *st, takt_rt_warn_fn warn, void *ctx);
/* [thread: any; blocking] */
void takt_rt_teardown(struct takt_rt_state *st);

/* --- capabilities (capabilities(7)) -----------------------------------------------
 * Capabilities are per thread: a thread made after a drop inherits the dropped sets,
 * one made before keeps its own until it drops them itself. Masks are 1 << CAP_X. */
#define TAKT_RT_CAP(cap) (1ull << (cap))
/* [thread: any; non-blocking] */
uint64_t takt_rt_caps_effective(void);   /* of the calling thread */
/* [thread: any; non-blocking] */
uint64_t takt_rt_caps_permitted(void);
/* What takt_rt_setup(o) uses: CAP_SYS_NICE for SCHED_FIFO, CAP_IPC_LOCK for mlockall. */
/* [thread: any; non-blocking] */
uint64_t takt_rt_caps_for_setup(const struct takt_rt_opts *o);
/* What is still needed once takt_rt_setup(o) has run: CAP_IPC_LOCK while mlockall's
 * MCL_FUTURE charges every later mapping against a finite RLIMIT_MEMLOCK; else 0. */
/* [thread: any; non-blocking] */
uint64_t takt_rt_caps_after_setup(const struct takt_rt_opts *o);
/* Keep only `keep` (as far as permitted) in the calling thread's effective and
 * permitted sets, empty its inheritable and ambient sets. 0 or -errno. */
/* [thread: any; non-blocking] */
int takt_rt_caps_drop(uint64_t keep);
/* Real or effective uid 0: powers beyond what file capabilities on takt grant. */
/* [thread: any; non-blocking] */
bool takt_rt_caps_root(void);


/* --- the cyclic loop ------------------------------------------------------------
 * Runs step() once per period on absolute deadlines and records, per cycle, the
 * wake-to-wake period ("Cycle Time"), the wake-up deviation ("Wake Deviation") and
 * the busy time from wake-up to the end of step() ("Task Duration"). A stack adds
 * its own job measurements (JOB_ProcessAllRxFrames, ...) to takt_rt_loop_perf(). The loop
 * is opaque: its counters are copied out (takt_rt_loop_get_info), its measurements read
 * through their perf set. */
#include <takt/perf.h>

struct takt_rt_loop;
/* One cycle's work; `wake` is the wake-up time. Return 0 to go on, non-zero to stop. */
typedef int (*takt_rt_step_fn)(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake);

/* Histograms of the three measurements: 1 us bins from 0 to 4x period + 1 ms (wider
 * bins, by decades, beyond 100000 bins). Cycle Time has one sample less than cycles.
 * takt_perf_set_cycle_end() is called by the loop after each step; steps need not. */
#define TAKT_RT_LOOP_MAX_PERIOD (3600 * TAKT_NS_PER_S)   /* -EINVAL above (and for <= 0) */
/* [thread: any; blocking] */
int  takt_rt_loop_create(struct takt_rt_loop **out, takt_ns_t period, const struct takt_rt_opts *o,
                    takt_rt_step_fn step, void *ctx);
/* [thread: idle; blocking] */
void takt_rt_loop_destroy(struct takt_rt_loop *l);   /* after takt_rt_loop_join(), or never started */
/* Before run/start: stop after this long (0, the default: until takt_rt_loop_stop()), and
 * where takt_rt_setup's warnings go (NULL: stderr). */
/* [thread: idle; non-blocking] */
void takt_rt_loop_set_duration(struct takt_rt_loop *l, takt_ns_t duration);
/* [thread: idle; non-blocking] */
void takt_rt_loop_set_warn(struct takt_rt_loop *l, takt_rt_warn_fn warn, void *ctx);
/* In the calling thread, with takt_rt_setup(opts) applied to it (affinity and policy
 * stay after return; the cpu_dma_latency request ends). Returns the loop's result. Stops
 * when a step returns non-zero, after the duration (no deadline later than start +
 * duration is waited for), or at the next wake-up after takt_rt_loop_stop(). */
/* [thread: idle; blocking] */
int  takt_rt_loop_run(struct takt_rt_loop *l);
/* [thread: idle; blocking] */
int  takt_rt_loop_start(struct takt_rt_loop *l);   /* own thread (takt_rt_setup applied there) */
/* [thread: any; non-blocking] */
void takt_rt_loop_stop(struct takt_rt_loop *l);    /* request stop; safe from any thread */
/* [thread: host; blocking] */
int  takt_rt_loop_join(struct takt_rt_loop *l);

/* A copy of the loop's state. The counters are those of the last cycle completed; a
 * reader in another thread while the loop runs gets each one whole, not all of one
 * cycle. After takt_rt_loop_ended() (or join) they are final. */
struct takt_rt_loop_info {
    takt_ns_t period;
    uint64_t  cycles, overruns, skipped;   /* as struct takt_rt_cycle */
    takt_ns_t wake_dev;                    /* the last wake-up minus its deadline */
    takt_ns_t started, ended;              /* monotonic; ended 0 while running, and so are
                                              started, cpu_ns, proc_cpu_ns, result and rt */
    takt_ns_t cpu_ns;                      /* thread CPU time of the loop (at its end) */
    takt_ns_t proc_cpu_ns;                 /* the whole process's CPU time (every thread,
                                              as /proc counts it) over the loop's run */
    int       result;                      /* non-zero value a step returned */
    bool      running;                     /* started and not yet joined */
    struct takt_rt_opts  opts;
    struct takt_rt_state rt;                    /* what takt_rt_setup achieved: once ended (zero before) */
};
/* [thread: any; non-blocking] */
void takt_rt_loop_get_info(const struct takt_rt_loop *l, struct takt_rt_loop_info *out);
/* The loop has ended (any thread; every figure is complete once this is true). */
/* [thread: any; non-blocking] */
bool takt_rt_loop_ended(const struct takt_rt_loop *l);
/* The loop's perf set (threaded once started with takt_rt_loop_start(); call
 * takt_perf_set_snapshot/takt_perf_report_interval on it from one reporter thread) and its
 * three measurements. */
/* [thread: any; non-blocking] */
struct takt_perf_set *takt_rt_loop_perf(struct takt_rt_loop *l);
enum takt_rt_loop_msmt { TAKT_RT_LOOP_CYCLE_TIME, TAKT_RT_LOOP_WAKE_DEVIATION, TAKT_RT_LOOP_TASK_DURATION };
/* [thread: any; non-blocking] */
const struct takt_perf_msmt *takt_rt_loop_msmt(const struct takt_rt_loop *l, enum takt_rt_loop_msmt which);

/* After the loop ended (takt_rt_loop_ended() true, or joined; idle below means that): CPU ns per cycle (the process's, proc_cpu_ns / cycles; the
 * loop thread's alone from takt_rt_loop_thread_cpu_per_cycle), a one-line summary
 * `Cycles: N  Period [usec]: 1000.0  Overruns: N  Skipped: N  CPU [usec/cycle]: 12.3 (1.2 %)  RT thread [usec/cycle]: 8.1`
 * and JSON {period_ns, cycles, overruns, skipped, run_ns, cpu_ns (process),
 * cpu_per_cycle_ns (process), thread_cpu_ns, thread_cpu_per_cycle_ns,
 * rt: {cpu, prio, affinity_ok, fifo_ok, mlock_ok, mlock_future, dma_latency_ok,
 * warnings}, perf: takt_perf_set_to_json()} (a json_object*, caller owns it). */
/* [thread: idle; non-blocking] */
int64_t takt_rt_loop_cpu_per_cycle(const struct takt_rt_loop *l);
/* [thread: idle; non-blocking] */
int64_t takt_rt_loop_thread_cpu_per_cycle(const struct takt_rt_loop *l);
/* [thread: idle; blocking] */
void takt_rt_loop_print_summary(FILE *f, const struct takt_rt_loop *l);
/* [thread: idle; blocking] */
void *takt_rt_loop_to_json(const struct takt_rt_loop *l);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
