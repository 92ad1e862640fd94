/* takt check's report: verdict names, lookup, the text and JSON forms. The items
 * themselves are read and judged in check.c. */
#include <json-c/json.h>
#include <string.h>
#include "bench/check.h"

static const char *const verdict_names[] = {
    [CHECK_OK] = "ok", [CHECK_INFO] = "info", [CHECK_WARN] = "warn",
    [CHECK_FAIL] = "fail", [CHECK_UNKNOWN] = "unknown",
};
_Static_assert(sizeof verdict_names / sizeof verdict_names[0] == CHECK_VERDICTS, "verdict names");

const char *check_verdict_name(enum check_verdict v) { return v < CHECK_VERDICTS ? verdict_names[v] : "?"; }

const struct check_item *check_find(const struct check_report *r, const char *id)
{
    for (unsigned i = 0; i < r->n; i++)
        if (!strcmp(r->item[i].id, id))
            return &r->item[i];
    return NULL;
}

void check_print(FILE *f, const struct check_report *r, bool color)
{
    static const char *const col[] = { [CHECK_OK] = "\033[32m", [CHECK_INFO] = "\033[36m",
        [CHECK_WARN] = "\033[33m", [CHECK_FAIL] = "\033[31m", [CHECK_UNKNOWN] = "\033[35m" };
    for (unsigned i = 0; i < r->n; i++) {
        const struct check_item *it = &r->item[i];
        fprintf(f, "%s%-7s%s %-36s %s\n", color ? col[it->v] : "", check_verdict_name(it->v),
                color ? "\033[0m" : "", it->title, it->found);
        if (*it->fix && it->v != CHECK_OK)
            fprintf(f, "        %-36s fix: %s\n", "", it->fix);
    }
    fprintf(f, "\n%u ok, %u info, %u warn, %u fail, %u unknown\n", r->count[CHECK_OK], r->count[CHECK_INFO],
            r->count[CHECK_WARN], r->count[CHECK_FAIL], r->count[CHECK_UNKNOWN]);
}

void *check_to_json(const struct check_report *r)
{
    json_object *root = json_object_new_object(), *items = json_object_new_array();
    for (unsigned i = 0; i < r->n; i++) {
        const struct check_item *it = &r->item[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "id", json_object_new_string(it->id));
        json_object_object_add(o, "title", json_object_new_string(it->title));
        json_object_object_add(o, "verdict", json_object_new_string(check_verdict_name(it->v)));
        json_object_object_add(o, "found", json_object_new_string(it->found));
        json_object_object_add(o, "fix", json_object_new_string(it->fix));
        json_object_array_add(items, o);
    }
    json_object *sum = json_object_new_object();
    for (int v = 0; v < CHECK_VERDICTS; v++)
        json_object_object_add(sum, check_verdict_name(v), json_object_new_int((int)r->count[v]));
    json_object_object_add(root, "items", items);
    json_object_object_add(root, "summary", sum);
    return root;
}
