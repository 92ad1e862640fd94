/* Opening the link a command works on: -i checked, the packet link opened with the
 * options the command asks for, and --pcap wrapped around it. Shared by every area. */
#include <stdio.h>
#include <takt/link.h>
#include "cli/cli.h"

int cli_open_link(struct cli_ctx *c, const struct takt_link_opts *o, const char *what,
                  struct takt_link **out)
{
    char err[320];
    if (!c->iface)
        return cli_usage_error(c, "-i/--iface expects %s (see 'ip -br link'), got none", what);
    struct takt_link *l;
    struct takt_link_opts lo = *o;
    if (c->no_qdisc_bypass)   /* the qdisc is where the kernel hands captures a copy of each frame sent */
        lo.qdisc_bypass = false;
    if (takt_link_open(c->iface, &lo, &l, err, sizeof err))
        return cli_error(c, "%s", err);
    if (l->mode[0])   /* where the link had a choice (xdp: attach mode, copy, busy poll) */
        fprintf(stderr, "takt: %s: %s link: %s\n", l->name, l->ops->kind, l->mode);
    if (c->pcap) {
        struct takt_link *cap;
        if (takt_link_capture(l, c->pcap, &cap, err, sizeof err)) {
            takt_link_close(l);
            return cli_error(c, "%s", err);
        }
        l = cap;
    }
    *out = l;
    return 0;
}

int cli_check_carrier(struct cli_ctx *c, bool fatal)
{
    if (!c->iface || takt_link_carrier(c->iface) != 0)
        return 0;    /* a carrier, or nothing this check can say (takt_link_open did) */
    if (fatal)
        return cli_error(c, "%s has no carrier (cable unplugged?)", c->iface);
    cli_error(c, "warning: %s has no carrier (cable unplugged?); nothing can answer until it has one",
              c->iface);
    return 0;
}
