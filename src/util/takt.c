/* Version, error names and the monotonic clock read used by drivers and tools. */
#include <takt/takt.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include "util/wire.h"

static const char *const project_errors[] = {
    [TAKT_EWKC - TAKT_EBASE]      = "working counter differs from the expected value",
    [TAKT_ENOFRAME - TAKT_EBASE]  = "frame did not return",
    [TAKT_EALSTATUS - TAKT_EBASE] = "slave refused the state change (AL status code)",
    [TAKT_ESDOABORT - TAKT_EBASE] = "SDO transfer aborted",
    [TAKT_EMBOX - TAKT_EBASE]     = "mailbox protocol error",
    [TAKT_ESII - TAKT_EBASE]      = "SII contents invalid",
    [TAKT_ECONFIG - TAKT_EBASE]   = "configuration invalid or does not match the network",
    [TAKT_EXML - TAKT_EBASE]      = "XML file could not be parsed",
    [TAKT_ENMT - TAKT_EBASE]      = "POWERLINK NMT error",
};
_Static_assert(TAKT_ARRAY_SIZE(project_errors) == TAKT_EEND - TAKT_EBASE,
               "every project error code needs a name");

const char *takt_strerror(int err)
{
    if (err < 0)
        err = -err;
    if (err > TAKT_EBASE && err < TAKT_EEND)
        return project_errors[err - TAKT_EBASE];
    return strerror(err);
}

const char *takt_version(void) { return TAKT_VERSION; }

takt_ns_t takt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (takt_ns_t)ts.tv_sec * TAKT_NS_PER_S + ts.tv_nsec;
}
