/* Fuzz target: the control socket's request parser (ctl_parse_request in
 * src/cli/ctl_proto.c) and its typed arguments (sii_write's word and chunk, foe's name
 * and password too) over any bytes, each line of the input as the server sees a request
 * line, and the whole input as one (a line beyond CTL_LINE_MAX must be refused, never
 * read past). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli/ctl.h"

static void one(const char *line, size_t len)
{
    struct ctl_req r;
    char err[512];
    int rc = ctl_parse_request(line, len, &r, err, sizeof err);
    if (rc) {
        if (r.obj || !err[0] || !memchr(err, 0, sizeof err))
            abort();
        return;
    }
    if (!r.obj || !r.verb || !r.verb[0])
        abort();
    int64_t v;
    uint8_t buf[64];
    size_t n;
    static const char *const names[] = { "pos", "index", "sub", "len", "node", "state", "cap", "op", "word" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!ctl_arg_int(r.obj, names[i], true, 0, 65535, &v, err, sizeof err) && (v < 0 || v > 65535))
            abort();
    /* foe's password: the whole unsigned 32-bit range (absent: v is left as it is) */
    v = 0;
    if (!ctl_arg_int(r.obj, "password", false, 0, 0xFFFFFFFFLL, &v, err, sizeof err) && (v < 0 || v > 0xFFFFFFFFLL))
        abort();
    if (!ctl_arg_hex(r.obj, "data", buf, sizeof buf, &n, err, sizeof err) && n > sizeof buf)
        abort();
    /* sii_write's chunk */
    static uint8_t chunk[CTL_SII_CHUNK];
    if (!ctl_arg_hex(r.obj, "data", chunk, sizeof chunk, &n, err, sizeof err) && n > sizeof chunk)
        abort();
    /* foe's file name: 1..200 characters, none a NUL */
    const char *name = NULL;
    if (!ctl_arg_str(r.obj, "name", 200, &name, err, sizeof err) &&
        (!name || !name[0] || strlen(name) > 200))
        abort();
    json_object *h = ctl_hex(buf, 0);
    json_object_put(h);
    json_object_put(r.obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);   /* exact size: ASan sees any read beyond */
    memcpy(buf, data, size);
    size_t start = 0;
    for (size_t i = 0; i <= size; i++)
        if (i == size || buf[i] == '\n') {
            one(buf + start, i - start);
            start = i + 1;
        }
    one(buf, size);
    free(buf);
    return 0;
}
