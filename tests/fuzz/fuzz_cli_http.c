/* Fuzz target: the --metrics-listen request reader (mx_http_parse in
 * src/cli/metrics_http.c) over any bytes, every prefix of them as the server sees them
 * arrive, and the address syntax of --metrics-listen over the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli/metrics_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MX_HTTP_MAX)
        size = MX_HTTP_MAX;
    char *buf = malloc(size ? size : 1);   /* exact size: ASan sees any read beyond */
    memcpy(buf, data, size);
    for (size_t n = 0; n <= size; n++) {
        bool head;
        int st = mx_http_parse(buf, n, &head);
        if (st != 0 && st != 200 && st != 400 && st != 404 && st != 405 && st != 431)
            abort();
        if (head && st != 200 && st != 404)
            abort();
        if (n == MX_HTTP_MAX && st == 0)
            abort();   /* a full buffer is always answered */
    }
    char spec[80];
    size_t l = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, buf, l);
    spec[l] = 0;
    struct sockaddr_storage sa;
    socklen_t sl;
    bool wide;
    char err[200];
    if (mx_http_addr(spec, &sa, &sl, &wide, err, sizeof err) == 0 &&
        sa.ss_family != AF_INET && sa.ss_family != AF_INET6)
        abort();
    free(buf);
    return 0;
}
