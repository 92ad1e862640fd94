/* SoE init commands of an ENI (ETG.2100 Mailbox/SoE/InitCmds): each an IDN write
 * (ETG.1000.6 SoE Write Request) sent at its transition where the mailbox works, the
 * next one only after the drive acknowledged the previous. A refusal stops the start-up
 * with the ENI's file, line and comment beside the drive's own error text. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/eni_soe.h"
#include "ecat/master_internal.h"

static void soe_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ecat_eni_soe_run *sr = ctx;
    (void)data;
    (void)len;
    if (err)
        snprintf(sr->msg, sizeof sr->msg, "%s", ecat_master_error(sr->m));
    sr->rc = err;
    sr->busy = false;
}

static int soe_fail(struct ecat_master *m, int pos, uint8_t tr, const struct ecat_eni_soe *c, int rc,
                    const char *what)
{
    char idn[ECAT_SOE_IDN_STR];
    ecat_soe_idn_format(c->idn, idn);
    ecat_fail(m, rc, "ENI %s line %u: slave %d (%s), transition %s, SoE write of IDN %s drive %u ('%s'): %s",
              m->eni_path, c->line, pos, m->eni->slave[pos].name, ecat_tr_name(tr), idn, c->drive,
              c->comment, what);
    return rc;
}

int ecat_eni_run_soe(struct ecat_master *m, struct ecat_eni_soe_run *sr, int pos, uint8_t tr, takt_ns_t now)
{
    const struct ecat_eni_slave *es = &m->eni->slave[pos];
    char msg[200];
    for (;;) {
        while (sr->k < es->n_soe && !(es->soe[sr->k].transitions & ECAT_TR_BIT(tr)))
            sr->k++;
        if (sr->k >= es->n_soe)
            return 0;
        const struct ecat_eni_soe *c = &es->soe[sr->k];
        if (!sr->sent) {
            int rc = ecat_soe_write_async(m, (unsigned)pos, c->drive, c->elements, c->idn, c->data, c->len,
                                          soe_done, sr);
            if (rc)
                return soe_fail(m, pos, tr, c, rc, ecat_master_error(m));
            sr->m = m;
            sr->sent = true;
            sr->busy = true;
            sr->msg[0] = 0;
            sr->deadline = now + (c->timeout_ms ? (takt_ns_t)c->timeout_ms * TAKT_NS_PER_MS
                                                : m->o.sdo_timeout_ns + TAKT_NS_PER_S);
            return 1;
        }
        if (sr->busy) {
            if (now <= sr->deadline)
                return 1;
            snprintf(msg, sizeof msg, "no answer within the ENI's timeout of %u ms", c->timeout_ms);
            return soe_fail(m, pos, tr, c, -ETIMEDOUT, msg);
        }
        if (sr->rc)
            return soe_fail(m, pos, tr, c, sr->rc, sr->msg);
        sr->sent = false;
        sr->k++;
    }
}
