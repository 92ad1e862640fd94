/* takt_event_format: the text of an event of either stack, by the format table of its
 * protocol (src/ecat/events.c, src/plk/events.c). */
#include <stdio.h>
#include "rt/event.h"
#include "ecat/master_internal.h"
#include "plk/events.h"

int takt_event_format(const struct takt_event *ev, char *buf, size_t len)
{
    switch (ev->proto) {
    case TAKT_EV_RING:
        if (ev->code == TAKT_EV_DROPPED)
            return rt_ev_ring_format(ev, buf, len);
        break;
    case TAKT_EV_ECAT:
        return ecat_ev_format(ev, buf, len);
    case TAKT_EV_PLK:
        return plk_ev_format(ev, buf, len);
    }
    return snprintf(buf, len, "event %u of protocol %u", ev->code, ev->proto);
}

const char *takt_event_code_name(unsigned proto, unsigned code)
{
    switch (proto) {
    case TAKT_EV_RING:
        return code == TAKT_EV_DROPPED ? "DROPPED" : NULL;
    case TAKT_EV_ECAT:
        return ecat_ev_name(code);
    case TAKT_EV_PLK:
        return plk_ev_name(code);
    }
    return NULL;
}
