/* Fuzz target: the rtnetlink reply parsing of the launch-time probe (link_txtime_parse
 * in src/link/txtime.c: RTM_NEWQDISC messages, their TCA_KIND and TCA_OPTIONS, etf's
 * TCA_ETF_PARMS and taprio's clock id, NLMSG_DONE and NLMSG_ERROR). The input is one
 * receive buffer of a dump for ifindex 2, handed over in memory of exactly its size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "link/link_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *buf = malloc(size ? size : 1);     /* malloc: aligned as a receive buffer */
    memcpy(buf, data, size);
    struct link_txtime t;
    memset(&t, 0, sizeof t);
    t.clockid = -1;
    int rc = link_txtime_parse(buf, size, 2, &t);
    if (rc > 1 || memchr(t.kind, 0, sizeof t.kind) == NULL || memchr(t.root, 0, sizeof t.root) == NULL)
        abort();
    if (t.kind[0] && strcmp(t.kind, "etf") && strcmp(t.kind, "taprio") && strcmp(t.kind, "fq"))
        abort();                             /* only a launch-time qdisc is taken */
    free(buf);
    return 0;
}
