/* Event lines and JSON (see cli_events.h). */
#include <stdio.h>
#include <string.h>
#include "cli/cli_events.h"

void cli_evlog_init(struct cli_evlog *l, const char *label, takt_ns_t t0, bool json)
{
    memset(l, 0, sizeof *l);
    l->label = label;
    l->t0 = t0;
    l->arr = json ? json_object_new_array() : NULL;
}

static const char *proto_name(unsigned p)
{
    return p == TAKT_EV_ECAT ? "ecat" : p == TAKT_EV_PLK ? "plk" : "ring";
}

json_object *cli_event_json(const struct takt_event *ev, takt_ns_t t0)
{
    char text[1024];
    takt_event_format(ev, text, sizeof text);
    const char *name = takt_event_code_name(ev->proto, ev->code);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "t_s", json_object_new_double((double)(ev->at - t0) / 1e9));
    json_object_object_add(o, "proto", json_object_new_string(proto_name(ev->proto)));
    json_object_object_add(o, "code", json_object_new_int(ev->code));
    json_object_object_add(o, "name", name ? json_object_new_string(name) : NULL);
    json_object_object_add(o, "unit", json_object_new_int(ev->unit));
    json_object_object_add(o, "err", json_object_new_int(ev->err));
    json_object *v = json_object_new_array();
    for (unsigned i = 0; i < ev->nv && i < TAKT_EVENT_NV; i++)
        json_object_array_add(v, json_object_new_int64(ev->v[i]));
    json_object_object_add(o, "values", v);
    json_object_object_add(o, "text", json_object_new_string(text));
    return o;
}

void cli_evlog_add(struct cli_evlog *l, const struct takt_event *ev, bool print, const char *skip)
{
    char text[1024];
    takt_event_format(ev, text, sizeof text);
    if (print && !(skip && !strcmp(text, skip)))
        fprintf(stderr, "%s: %.3f s: %s\n", l->label, (double)(ev->at - l->t0) / 1e9, text);
    if (!l->arr)
        return;
    if (json_object_array_length(l->arr) >= CLI_EVLOG_MAX)
        l->not_listed++;
    else
        json_object_array_add(l->arr, cli_event_json(ev, l->t0));
}

void cli_evlog_to_json(struct cli_evlog *l, json_object *o)
{
    if (!l->arr || !o)
        return;
    json_object_object_add(o, "events", l->arr);
    json_object_object_add(o, "events_not_listed", json_object_new_uint64(l->not_listed));
    l->arr = NULL;
}

void cli_evlog_free(struct cli_evlog *l)
{
    if (l->arr)
        json_object_put(l->arr);
    l->arr = NULL;
}
