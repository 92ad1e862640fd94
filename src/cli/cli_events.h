/* Event lines and the events of a run in its JSON, for every command that drains an
 * event ring (include/takt/event.h): the line is "LABEL: 1.234 s: text" on stderr (the
 * time since the run's start), the JSON entry carries code, unit, values and text. */
#ifndef TAKT_CLI_EVENTS_H
#define TAKT_CLI_EVENTS_H

#include <json-c/json.h>
#include <takt/event.h>

#define CLI_EVLOG_MAX 10000   /* events listed in the JSON; more are counted */

struct cli_evlog {
    const char *label;
    takt_ns_t t0;
    json_object *arr;          /* NULL without --json */
    uint64_t not_listed;
};

void cli_evlog_init(struct cli_evlog *l, const char *label, takt_ns_t t0, bool json);
/* Print ev's line unless print is false or its text equals skip (NULL: none); list it
 * for the JSON either way. */
void cli_evlog_add(struct cli_evlog *l, const struct takt_event *ev, bool print, const char *skip);
/* One event as JSON: t_s (since t0), proto, code, name, unit, err, values, text. */
json_object *cli_event_json(const struct takt_event *ev, takt_ns_t t0);
/* Hand the list to o as "events" (and "events_not_listed"); the log keeps none. */
void cli_evlog_to_json(struct cli_evlog *l, json_object *o);
void cli_evlog_free(struct cli_evlog *l);

#endif
