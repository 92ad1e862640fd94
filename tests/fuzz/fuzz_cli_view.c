/* Fuzz target: the view a tool takes from a control socket's answer
 * (ctl_view_from_json in src/cli/cli_ecat_view_json.c) over any bytes, and every
 * renderer over each view it takes: a socket's answer is input like any other, so a
 * view that passes the decoder must render without reading outside itself (its
 * process data within its image, its counts within its arrays). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ecat_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_tokener *tok = json_tokener_new();
    json_object *o = json_tokener_parse_ex(tok, (const char *)data, (int)(size > 1u << 20 ? 1u << 20 : size));
    json_tokener_free(tok);
    if (!o)
        return 0;
    struct ctl_view v;
    char err[512];
    int rc = ctl_view_from_json(o, &v, err, sizeof err);
    json_object_put(o);
    if (rc) {
        if (!err[0] || !memchr(err, 0, sizeof err) || v.slaves || v.pd || v.image)
            abort();
        return 0;
    }
    FILE *out = fopen("/dev/null", "w");
    if (!out)
        abort();
    ecat_verb_master(&v, out);
    ecat_verb_domains(&v, out);
    ecat_verb_data(&v, out, false);
    ecat_verb_data(&v, out, true);
    ecat_verb_graph(&v, out);
    ecat_verb_cstruct(&v, out, "PD");
    ecat_verb_top(&v, out, false, "now");
    json_object *j[4] = { ecat_view_master_json(&v), ecat_view_domains_json(&v), ecat_view_data_json(&v),
                          ctl_view_to_json(&v) };
    for (int k = 0; k < 4; k++)
        json_object_put(j[k]);
    fclose(out);
    ctl_view_free(&v);
    return 0;
}
