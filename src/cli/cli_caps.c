/* Least privilege for every command: what the file capabilities on takt may be used
 * for (EtherCAT, POWERLINK, takt's own test frames) and dropping them once a command
 * has opened its sockets and set up its real-time thread (docs/rt.md, Capabilities). */
#include <linux/capability.h>
#include <string.h>
#include <takt/link.h>
#include <takt/rt.h>
#include "cli/cli.h"

bool cli_ethertype_granted(unsigned type)
{
    /* takt's test frames carry a fixed payload to broadcast, on the IEEE 802 local
     * experimental type (IEEE 802 Clause 9.2.2) kept for such tests: no one's traffic. */
    return type == TAKT_ETHERTYPE_ECAT || type == TAKT_ETHERTYPE_PLK || type == TAKT_ETHERTYPE_TEST;
}

int cli_need_root(const struct cli_ctx *c, const char *what)
{
    if (takt_rt_caps_root())
        return 0;
    return cli_error(c, "%s needs root: the file capabilities of takt grant EtherCAT/POWERLINK "
                     "only (EtherType 0x88a4, 0x88ab, and 0x88b5 for takt's test frames)", what);
}

bool cli_caps_dropping(void)
{
    /* Root's powers do not come from takt's file capabilities, and a root without
     * CAP_DAC_OVERRIDE could no longer read an ENI or write --json in the directory of
     * the user who ran sudo: the drop bounds the file-capability case. */
    return !takt_rt_caps_root();
}

void cli_drop_caps(const struct cli_ctx *c, uint64_t keep)
{
    if (!cli_caps_dropping())
        return;
    int rc = takt_rt_caps_drop(keep);
    if (rc)
        fprintf(stderr, "takt %s%s%s: warning: cannot drop capabilities: %s\n",
                c->cmd->area ? c->cmd->area : "", c->cmd->area ? " " : "", c->cmd->verb, strerror(-rc));
}

uint64_t cli_caps_for_rt(const struct cli_ctx *c)
{
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    o.prio = c->prio;
    return takt_rt_caps_for_setup(&o);
}

uint64_t cli_caps_after_rt(const struct cli_ctx *c)
{
    struct takt_rt_opts o;
    takt_rt_opts_default(&o);
    o.prio = c->prio;
    return takt_rt_caps_after_setup(&o);
}

void cli_caps_at_start(const struct cli_ctx *c)
{
    /* Without -i a command opens no packet socket on the host's network: the namespace
     * tools, demos and benches make their own namespaces (a user namespace when not
     * root), where the process is root of its own devices whatever it held before. */
    if ((c->cmd->common & CLI_IFACE) || !cli_caps_dropping())
        return;
    uint64_t net = TAKT_RT_CAP(CAP_NET_RAW) | TAKT_RT_CAP(CAP_NET_ADMIN);
    uint64_t prm = takt_rt_caps_permitted();
    if (prm & net)
        cli_drop_caps(c, prm & ~net);
}
