/* The pcapng block writer as public API (<takt/link.h>): the same blocks the capture
 * tap writes, for programs that write captures of their own (takt capture). */
#include <takt/link.h>
#include "link/pcapng.h"

_Static_assert(TAKT_PCAPNG_DIR_IN == PCAPNG_DIR_IN && TAKT_PCAPNG_DIR_OUT == PCAPNG_DIR_OUT,
               "epb_flags directions as in link/pcapng.h");
_Static_assert(TAKT_PCAPNG_EPB_MAX(1500) == PCAPNG_EPB_MAX(1500), "one worst-case EPB size");

size_t takt_pcapng_shb(uint8_t *buf, size_t cap, const char *userappl)
{
    return pcapng_shb(buf, cap, userappl);
}

size_t takt_pcapng_idb(uint8_t *buf, size_t cap, const char *ifname, uint32_t snaplen)
{
    return pcapng_idb(buf, cap, ifname, snaplen);
}

size_t takt_pcapng_epb(uint8_t *buf, size_t cap, uint64_t ts_ns, const uint8_t *data,
                       uint32_t len, int dir)
{
    return pcapng_epb(buf, cap, ts_ns, data, len, dir);
}
