/* POWERLINK event formats (see events.h); the MN's and the CN's events share them. */
#include <stdio.h>
#include <takt/plk.h>
#include "plk/events.h"
#include "plk/mn.h"
#include "rt/event.h"

/* %N NMT state, %B the MN's boot step for a CN, %K NMT command (rt_ev_vformat) */
static const char *conv(char c, int64_t v)
{
    switch (c) {
    case 'N': return takt_plk_nmt_name((int)v);
    case 'B': return plk_mn_step_name((enum plk_mn_step)v);
    case 'K': return takt_plk_nmt_cmd_name((unsigned)v);
    }
    return NULL;
}

static const struct {
    const char *name, *fmt;
} fmt[TAKT_PLK_EV_COUNT] = {
    [TAKT_PLK_EV_STATE] = { "STATE", "CN %U %N" },
    [TAKT_PLK_EV_STEP] = { "STEP", "CN %U boot step %B" },
    [TAKT_PLK_EV_RESET] = { "RESET", "CN %U reset: %s" },
    [TAKT_PLK_EV_MISSING] = { "MISSING", "CN %U missing: no IdentResponse to %u IdentRequests in %u s: "
                                         "is it on the network (node ID switch, cable)?" },
    [TAKT_PLK_EV_CN_STATE] = { "CN_STATE", "CN %U %N (was %N)" },
    [TAKT_PLK_EV_CN_RESET] = { "CN_RESET", "CN %U reset by %K, now %N" },
};

const char *plk_ev_name(unsigned code)
{
    return code < TAKT_PLK_EV_COUNT ? fmt[code].name : NULL;
}

int plk_ev_format(const struct takt_event *ev, char *buf, size_t len)
{
    if (ev->code >= TAKT_PLK_EV_COUNT || !fmt[ev->code].fmt)
        return snprintf(buf, len, "POWERLINK event %u", ev->code);
    return rt_ev_vformat(ev, fmt[ev->code].fmt, conv, buf, len);
}
