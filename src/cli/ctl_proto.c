/* The control socket's request format (docs/control.md): one JSON object a line,
 * versioned. Pure functions: the server and the fuzz target call them on any bytes. */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/ctl.h"

int ctl_parse_request(const char *line, size_t len, struct ctl_req *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (len > CTL_LINE_MAX) {
        snprintf(err, errlen, "request of %zu bytes; at most %d are read", len, CTL_LINE_MAX);
        return -1;
    }
    if (memchr(line, 0, len)) {
        snprintf(err, errlen, "expected a JSON object on one line, got a NUL byte in it");
        return -1;
    }
    json_tokener *tok = json_tokener_new_ex(32);   /* nesting beyond 32 is no request */
    if (!tok) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    json_object *o = json_tokener_parse_ex(tok, line, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!o || je != json_tokener_success) {
        json_object_put(o);
        snprintf(err, errlen, "expected a JSON object, got %s",
                 je == json_tokener_continue ? "an incomplete one" : json_tokener_error_desc(je));
        return -1;
    }
    for (size_t i = used; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
            json_object_put(o);
            snprintf(err, errlen, "expected one JSON object a line, got more after it (byte %zu)", used);
            return -1;
        }
    if (!json_object_is_type(o, json_type_object)) {
        snprintf(err, errlen, "expected a JSON object, got a %s", json_type_to_name(json_object_get_type(o)));
        json_object_put(o);
        return -1;
    }
    json_object *v;
    if (json_object_object_get_ex(o, "id", &v) && json_object_is_type(v, json_type_int))
        r->id = json_object_get_int64(v);
    if (!json_object_object_get_ex(o, "v", &v) || !json_object_is_type(v, json_type_int)) {
        snprintf(err, errlen, "expected \"v\":%d (the protocol version), got none", CTL_VERSION);
        json_object_put(o);
        return -1;
    }
    if (json_object_get_int64(v) != CTL_VERSION) {
        snprintf(err, errlen, "expected protocol version %d, got %" PRId64, CTL_VERSION, json_object_get_int64(v));
        json_object_put(o);
        return -1;
    }
    if (!json_object_object_get_ex(o, "verb", &v) || !json_object_is_type(v, json_type_string) ||
        !json_object_get_string_len(v)) {
        snprintf(err, errlen, "expected \"verb\" (a string such as \"slaves\"), got none");
        json_object_put(o);
        return -1;
    }
    if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v)) {
        snprintf(err, errlen, "expected \"verb\" (a string such as \"slaves\"), got one with a NUL in it");
        json_object_put(o);
        return -1;
    }
    r->verb = json_object_get_string(v);
    r->obj = o;
    return 0;
}

int ctl_arg_int(struct json_object *req, const char *name, bool required, int64_t lo, int64_t hi,
                int64_t *out, char *err, size_t errlen)
{
    json_object *v;
    if (!json_object_object_get_ex(req, name, &v) || !v) {
        if (!required)
            return 0;
        snprintf(err, errlen, "expected '%s' (an integer %" PRId64 "..%" PRId64 "), got none", name, lo, hi);
        return -1;
    }
    int64_t x = json_object_get_int64(v);
    if (!json_object_is_type(v, json_type_int) || x < lo || x > hi) {
        snprintf(err, errlen, "'%s' expects an integer %" PRId64 "..%" PRId64 ", got %.40s", name, lo, hi,
                 json_object_to_json_string(v));
        return -1;
    }
    *out = x;
    return 0;
}

int ctl_unhex(const char *h, uint8_t *buf, size_t cap, size_t *len)
{
    size_t n = strlen(h);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char ch = h[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        if (i % 2 == 0)
            buf[i / 2] = (uint8_t)(d << 4);
        else
            buf[i / 2] |= (uint8_t)d;
    }
    *len = n / 2;
    return 0;
}

int ctl_arg_hex(struct json_object *req, const char *name, uint8_t *buf, size_t cap, size_t *len,
                char *err, size_t errlen)
{
    json_object *v;
    if (!json_object_object_get_ex(req, name, &v) || !json_object_is_type(v, json_type_string) ||
        ctl_unhex(json_object_get_string(v), buf, cap, len)) {
        snprintf(err, errlen, "'%s' expects bytes as hex digits (at most %zu bytes), got %.40s", name, cap,
                 v ? json_object_to_json_string(v) : "none");
        return -1;
    }
    return 0;
}

int ctl_arg_str(struct json_object *req, const char *name, size_t max, const char **out, char *err, size_t errlen)
{
    json_object *v = NULL;
    if (json_object_object_get_ex(req, name, &v) && json_object_is_type(v, json_type_string)) {
        const char *t = json_object_get_string(v);
        size_t n = (size_t)json_object_get_string_len(v);
        if (n && n <= max && strlen(t) == n) {     /* no NUL inside: the name is what it says */
            *out = t;
            return 0;
        }
    }
    snprintf(err, errlen, "'%s' expects a string of 1..%zu characters (no NUL), got %.40s", name, max,
             v ? json_object_to_json_string(v) : "none");
    return -1;
}

struct json_object *ctl_hex(const uint8_t *d, size_t n)
{
    static const char dig[] = "0123456789abcdef";
    char *s = malloc(2 * n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = dig[d[i] >> 4];
        s[2 * i + 1] = dig[d[i] & 15];
    }
    json_object *o = json_object_new_string_len(s, (int)(2 * n));
    free(s);
    return o;
}
