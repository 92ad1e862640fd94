/* SoE and EoE init commands of an ENI (ETG.2100 Mailbox/SoE/InitCmds and
 * Mailbox/EoE/InitCmds): each an IDN write (ETG.1000.6 SoE Write Request) or an EoE
 * set-IP-parameter / set-address-filter request, sent at its transition where the
 * mailbox works, the next one only after the slave answered the previous. A refusal
 * stops the start-up with the ENI's file, line and comment beside the slave's reason. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/eni_soe.h"
#include "ecat/eoe.h"
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "ecat/plan.h"

/* What the command is, for messages: "SoE write of IDN S-0-0040 drive 0". */
void ecat_eni_mbx_what(const struct ecat_plan_cmd *c, char *b, size_t n)
{
    if (c->kind == PLAN_SOE) {
        char idn[TAKT_ECAT_SOE_IDN_STR];
        takt_ecat_soe_idn_format(c->idn, idn);
        snprintf(b, n, "SoE write of IDN %s drive %u", idn, c->drive);
    } else {
        snprintf(b, n, "EoE %s", c->eoe_type == EOE_T_SET_IP_REQ ? "set IP parameter" : "set address filter");
    }
}

int ecat_eni_mbx_start(struct ecat_core *m, unsigned pos, const struct ecat_plan_cmd *c, takt_ecat_done_fn fn,
                       void *ctx)
{
    if (c->kind == PLAN_SOE)
        return ecat_soe_write_async(m, pos, c->drive, c->elements, c->idn, c->data, c->len, fn, ctx);
    if (c->eoe_type == EOE_T_SET_IP_REQ) {
        struct takt_ecat_eoe_ip ip;
        int rc = ecat_eoe_ip_decode(c->data, c->len, &ip);     /* checked when read */
        return rc ? rc : ecat_eoe_set_ip_async(m, pos, &ip, fn, ctx);
    }
    struct takt_ecat_eoe_filter f;
    int rc = ecat_eoe_filter_decode(c->data, c->len, &f);
    return rc ? rc : ecat_eoe_set_filter_async(m, pos, &f, fn, ctx);
}

/* EoE ports open before the cycle thread starts (takt_ecat_eoe_open): one for each slave the
 * ENI has EoE init commands for, so they can be sent while the thread runs start-up. */
int ecat_eni_mbx_setup(struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_slaves && i < m->eni->n_slaves; i++) {
        if (!m->eni->slave[i].n_eoe)
            continue;
        int rc = ecat_eoe_open(m, i);
        if (rc) {
            char why[200];
            snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, m->errmsg);
            ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_EOE, i, RT_TXT(m->eni_path, m->eni->slave[i].name, why), m->eni->slave[i].eoe[0].line);
            return rc;
        }
    }
    return 0;
}

int takt_ecat_master_eni_eoe_ip(const struct takt_ecat_master *drv, unsigned pos, struct takt_ecat_eoe_ip *out)
{
    const struct ecat_core *m = &drv->core;
    int rc = -ENOENT;
    if (!m->eni || pos >= m->eni->n_slaves)
        return rc;
    const struct ecat_eni_slave *es = &m->eni->slave[pos];
    for (unsigned k = 0; k < es->n_eoe; k++)
        if (es->eoe[k].type == EOE_T_SET_IP_REQ && ecat_eoe_ip_decode(es->eoe[k].body, es->eoe[k].len, out) == 0)
            rc = 0;
    return rc;
}
