/* CN node IDs on the command line (--nodes, --node, --chain, --mandatory): a list of
 * IDs and ranges such as "1,32,110" (openCONFIGURATOR's Demo_3CN) or "1-3,32". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cli_plk.h"

int cli_plk_nodes(struct cli_ctx *c, const char *opt, const char *s, bool in[CLI_PLK_NODE_SLOTS],
                  unsigned *first, unsigned *last)
{
    memset(in, 0, CLI_PLK_NODE_SLOTS * sizeof in[0]);
    unsigned n = 0, lo = 0, hi = 0;
    const char *p = s;
    for (;;) {
        char *end;
        /* strtoul would take a sign or leading blanks: a digit must begin each item */
        if (*p < '0' || *p > '9')
            goto bad;
        errno = 0;
        unsigned long x = strtoul(p, &end, 10), y = x;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                goto bad;
            y = strtoul(end + 1, &end, 10);
        }
        if (errno || x < 1 || y > 239 || x > y) {
            return cli_usage_error(c, "%s: '%.*s' is not a CN node ID or range within 1-239 "
                                   "(such as 1,32,110 or 1-3,32), got '%s'", opt, (int)(end - p), p, s), -1;
        }
        for (unsigned long id = x; id <= y; id++) {
            if (!in[id])
                n++;
            in[id] = true;
        }
        if (!lo || x < lo)
            lo = (unsigned)x;
        if (y > hi)
            hi = (unsigned)y;
        if (*end == '\0')
            break;
        if (*end != ',')
            goto bad;
        p = end + 1;
    }
    if (first)
        *first = lo;
    if (last)
        *last = hi;
    return (int)n;
bad:
    return cli_usage_error(c, "%s expects CN node IDs and ranges within 1-239 separated by commas "
                           "(such as 1,32,110 or 1-3,32), got '%s'", opt, s), -1;
}
