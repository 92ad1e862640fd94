/* POWERLINK events (include/takt/event.h, enum takt_plk_ev): the format of each code. */
#ifndef TAKT_PLK_EVENTS_H
#define TAKT_PLK_EVENTS_H

#include <takt/event.h>
#include <stddef.h>

int plk_ev_format(const struct takt_event *ev, char *buf, size_t len);
const char *plk_ev_name(unsigned code);

#endif
