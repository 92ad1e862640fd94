/* Fuzz target: what takt bench reads beside its figures (src/bench/sysenv.c): byte 0
 * even, the rest is /proc/cpuinfo (bench_cpuinfo_model); odd, it is cyclictest's JSON
 * output (bench_ct_parse: thread 0's cycles, min/avg/max and histogram). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bench/sysenv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    if (!(data[0] & 1)) {
        char model[64];
        memset(model, 'x', sizeof model);
        bench_cpuinfo_model(text, model, sizeof model);
        if (!memchr(model, 0, sizeof model))
            abort();
    } else {
        json_tokener *tok = json_tokener_new();
        json_object *j = json_tokener_parse_ex(tok, text, (int)(size - 1));
        json_tokener_free(tok);
        static struct bench_ct ct;
        memset(&ct, 0, sizeof ct);
        int rc = j ? bench_ct_parse(&ct, j) : -1;
        if (rc == 0 && (!ct.ok || !ct.cycles))
            abort();
        json_object_put(j);
    }
    free(text);
    return 0;
}
