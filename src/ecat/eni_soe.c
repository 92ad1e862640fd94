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

static void done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ecat_eni_mbx_run *x = ctx;
    (void)data;
    (void)len;
    if (err)
        snprintf(x->msg, sizeof x->msg, "%.*s", (int)sizeof x->msg - 1, x->m->errmsg);
    x->rc = err;
    x->busy = false;
}

/* What the command is, for messages: "SoE write of IDN S-0-0040 drive 0". */
static void what(const struct ecat_eni_slave *es, unsigned k, char *b, size_t n)
{
    if (k < es->n_soe) {
        char idn[TAKT_ECAT_SOE_IDN_STR];
        takt_ecat_soe_idn_format(es->soe[k].idn, idn);
        snprintf(b, n, "SoE write of IDN %s drive %u", idn, es->soe[k].drive);
    } else {
        snprintf(b, n, "EoE %s", es->eoe[k - es->n_soe].type == EOE_T_SET_IP_REQ ? "set IP parameter"
                                                                                 : "set address filter");
    }
}

static int fail(struct ecat_core *m, int pos, uint8_t tr, unsigned k, int rc, const char *why)
{
    const struct ecat_eni_slave *es = &m->eni->slave[pos];
    bool soe = k < es->n_soe;
    char w[64];
    what(es, k, w, sizeof w);
    ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_SOE, pos, RT_TXT(m->eni_path, es->name, w, soe ? es->soe[k].comment : es->eoe[k - es->n_soe].comment,
               why), soe ? es->soe[k].line : es->eoe[k - es->n_soe].line, tr);
    return rc;
}

static uint32_t transitions(const struct ecat_eni_slave *es, unsigned k)
{ return k < es->n_soe ? es->soe[k].transitions : es->eoe[k - es->n_soe].transitions; }

static int start(struct ecat_core *m, const struct ecat_eni_slave *es, unsigned pos, unsigned k,
                 struct ecat_eni_mbx_run *x)
{
    if (k < es->n_soe) {
        const struct ecat_eni_soe *c = &es->soe[k];
        return ecat_soe_write_async(m, pos, c->drive, c->elements, c->idn, c->data, c->len, done, x);
    }
    const struct ecat_eni_eoe *c = &es->eoe[k - es->n_soe];
    if (c->type == EOE_T_SET_IP_REQ) {
        struct takt_ecat_eoe_ip ip;
        int rc = ecat_eoe_ip_decode(c->body, c->len, &ip);     /* checked when read */
        return rc ? rc : ecat_eoe_set_ip_async(m, pos, &ip, done, x);
    }
    struct takt_ecat_eoe_filter f;
    int rc = ecat_eoe_filter_decode(c->body, c->len, &f);
    return rc ? rc : ecat_eoe_set_filter_async(m, pos, &f, done, x);
}

int ecat_eni_run_mbx(struct ecat_core *m, struct ecat_eni_mbx_run *x, int pos, uint8_t tr, takt_ns_t now)
{
    const struct ecat_eni_slave *es = &m->eni->slave[pos];
    unsigned n = es->n_soe + es->n_eoe;
    char msg[200];
    for (;;) {
        while (x->k < n && !(transitions(es, x->k) & ECAT_TR_BIT(tr)))
            x->k++;
        if (x->k >= n)
            return 0;
        uint32_t timeout_ms = x->k < es->n_soe ? es->soe[x->k].timeout_ms : es->eoe[x->k - es->n_soe].timeout_ms;
        if (!x->sent) {
            x->m = m;
            x->msg[0] = 0;
            int rc = start(m, es, (unsigned)pos, x->k, x);
            if (rc)
                return fail(m, pos, tr, x->k, rc, m->errmsg);
            x->sent = true;
            x->busy = true;
            x->deadline = now + (timeout_ms ? (takt_ns_t)timeout_ms * TAKT_NS_PER_MS
                                            : m->o.sdo_timeout_ns + TAKT_NS_PER_S);
            return 1;
        }
        if (x->busy) {
            if (now <= x->deadline)
                return 1;
            snprintf(msg, sizeof msg, "no answer within the ENI's timeout of %u ms", timeout_ms);
            return fail(m, pos, tr, x->k, -ETIMEDOUT, msg);
        }
        if (x->rc)
            return fail(m, pos, tr, x->k, x->rc, x->msg);
        x->sent = false;
        x->k++;
    }
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
