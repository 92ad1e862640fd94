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

const char *takt_strerror(int err);
const char *takt_version(void);

/* Current CLOCK_MONOTONIC time; only drivers and tools call it, never protocol cores. */
takt_ns_t takt_now(void);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
