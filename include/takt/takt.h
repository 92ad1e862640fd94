/* takt: common definitions shared by every public header (version, errors, time). */
#ifndef TAKT_TAKT_H
#define TAKT_TAKT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/* The public API: what the public headers declare between TAKT_API_BEGIN and
 * TAKT_API_END is exported from libtakt.so; the library is built with
 * -fvisibility=hidden, so every other function of it stays internal (usable only from
 * the static archives the takt binary and the tests link). */
#if defined(__GNUC__) || defined(__clang__)
#define TAKT_API_BEGIN _Pragma("GCC visibility push(default)")
#define TAKT_API_END   _Pragma("GCC visibility pop")
#else
#define TAKT_API_BEGIN
#define TAKT_API_END
#endif

/* Thread contract. The comment above every function of the public headers carries one
 * tag "[thread: WHO; HOW]" (tests/api/thread_tags.sh checks each has one):
 *   WHO  any    any thread at any time, concurrently too: a pure function of its
 *               arguments (which stay the caller's), or a read of what the cycle
 *               publishes atomically (statistics, states, counters).
 *        cycle  the thread that drives the object: its cyclic callback, or the thread
 *               that calls its cycle (takt_ecat_master_cycle, takt_sim_process/serve,
 *               rt_cycle_*); while nothing drives it, any one thread at a time. Not from
 *               another thread while an RT thread of the object runs: nothing is locked.
 *        idle   only while no thread of the object runs (before its start, after its
 *               join; for a CN outside takt_plk_cn_run), one thread at a time.
 *        host   any one thread other than the cycle's (a tool, reporter or TAP
 *               thread), also while the cycle runs; one such caller per object at a
 *               time. The cyclic callback must not call it.
 *        owner  any one thread at a time per object (the one consuming a ring, or the
 *               holder of a caller-owned structure), also while the cycle runs.
 *   HOW  non-blocking  returns without sleeping, waiting (for frames, a thread, a lock),
 *               file I/O or allocating; the cycle's own non-blocking socket send and
 *               receive count as non-blocking.
 *        blocking      may sleep, wait for frames or a thread, do file, terminal or
 *               blocking socket I/O, or allocate: never from the cyclic callback.
 * Calls from other threads reach a running cycle through one command ring per object
 * (src/rt/cmdring.c, the same for EtherCAT and POWERLINK): the state request and every
 * _async service are "any; non-blocking" (posted; -EAGAIN when the ring is full), their
 * completions called in the cycle's thread; the blocking services are "any; blocking"
 * (they post and sleep until the completion; from the cyclic callback -EDEADLK).
 * The EtherCAT scan, configuration and per-slave state calls still drive the cycle
 * themselves and are "idle". docs/architecture.md, "Thread contract". */

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

/* Time inside the stack: int64 nanoseconds on CLOCK_MONOTONIC (kernel stamps, DC system
 * time and launch-time clocks are converted at the edges). */
typedef int64_t takt_ns_t;
#define TAKT_NS_PER_US 1000LL
#define TAKT_NS_PER_MS 1000000LL
#define TAKT_NS_PER_S  1000000000LL

/* Functions return 0 or a negative errno (-ETIMEDOUT, -EPROTO ...) or one of these
 * project codes; takt_strerror() names either kind. */
enum takt_err {
    TAKT_EBASE = 1000,
    TAKT_EWKC,          /* working counter differs from the expected one */
    TAKT_ENOFRAME,      /* a sent frame did not come back */
    TAKT_EALSTATUS,     /* slave refused a state change (AL status code set) */
    TAKT_ESDOABORT,     /* SDO transfer aborted (abort code in the detail) */
    TAKT_EMBOX,         /* mailbox protocol error */
    TAKT_ESII,          /* SII content invalid (checksum, truncated category) */
    TAKT_ECONFIG,       /* configuration invalid or does not match the network */
    TAKT_EXML,          /* XML file could not be parsed */
    TAKT_ENMT,          /* POWERLINK NMT error */
    TAKT_EEND
};

/* Elements of an array (not of a pointer). */
#define TAKT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* [thread: any; non-blocking] */
const char *takt_strerror(int err);
/* [thread: any; non-blocking] */
const char *takt_version(void);

/* Current CLOCK_MONOTONIC time; only drivers and tools call it, never protocol cores. */
/* [thread: any; non-blocking] */
takt_ns_t takt_now(void);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
