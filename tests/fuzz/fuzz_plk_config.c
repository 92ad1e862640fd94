/* Fuzz target: takt's POWERLINK configuration text. Accepted text must pass the check,
 * write back and parse again to the same text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plk/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct plk_net_config a, b;
    static char t1[1 << 17], t2[1 << 17];
    char err[300];
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    if (plk_config_parse(&a, text, size, err, sizeof err) == 0) {
        int n = plk_config_format(&a, t1, sizeof t1);
        if (n < 0 || (size_t)n >= sizeof t1)
            abort();
        if (plk_config_parse(&b, t1, (size_t)n, err, sizeof err) != 0)
            abort();
        if (plk_config_format(&b, t2, sizeof t2) != n || strcmp(t1, t2))
            abort();
    }
    free(text);
    return 0;
}
