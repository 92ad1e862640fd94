/* The configuration plan's storage and its text form (plan.h). The text names every
 * item the executor acts on, so two producers can be compared line by line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/plan.h"
#include "ecat/proto.h"

static void slave_free(struct ecat_plan_slave *s)
{
    for (unsigned k = 0; !s->pool && k < s->n_cmd; k++) {
        free(s->cmd[k].data);
        free(s->cmd[k].vdata);
        free(s->cmd[k].vmask);
    }
    free(s->cmd);
    free(s->pool);
    s->cmd = NULL;
    s->pool = NULL;
    s->n_cmd = s->cap_cmd = 0;
    s->pool_len = s->pool_cap = 0;
}

void ecat_plan_free(struct ecat_plan *p)
{
    if (p->slave)
        for (unsigned i = 0; i <= p->n_slaves; i++)
            slave_free(&p->slave[i]);
    free(p->slave);
    free(p->frame);
    free(p->dg);
    memset(p, 0, sizeof *p);
}

int ecat_plan_alloc(struct ecat_plan *p, unsigned n_slaves)
{
    memset(p, 0, sizeof *p);
    if (!(p->slave = calloc(n_slaves + 1, sizeof *p->slave)))
        return -ENOMEM;
    p->n_slaves = n_slaves;
    for (unsigned i = 0; i <= n_slaves; i++)
        p->slave[i].pos = i < n_slaves ? (int)i : -1;
    p->dc.ref = -1;
    return 0;
}

int ecat_plan_reserve(struct ecat_plan *p, unsigned n_cmd, size_t bytes)
{
    if (ecat_plan_alloc(p, 1))
        return -ENOMEM;
    struct ecat_plan_slave *s = &p->slave[0];
    s->cmd = calloc(n_cmd ? n_cmd : 1, sizeof *s->cmd);
    s->pool = calloc(1, bytes ? bytes : 1);
    if (!s->cmd || !s->pool) {
        ecat_plan_free(p);
        return -ENOMEM;
    }
    s->cap_cmd = n_cmd;
    s->pool_cap = bytes;
    return 0;
}

void ecat_plan_clear(struct ecat_plan *p)
{
    for (unsigned i = 0; p->slave && i <= p->n_slaves; i++) {
        struct ecat_plan_slave *s = &p->slave[i];
        if (!s->pool) {
            slave_free(s);
            continue;
        }
        s->n_cmd = 0;
        s->pool_len = 0;
    }
}

uint8_t *ecat_plan_bytes(struct ecat_plan_slave *s, const void *d, size_t len)
{
    size_t n = len ? len : 1;
    uint8_t *b;
    if (s->pool) {
        if (s->pool_cap - s->pool_len < n)
            return NULL;
        b = s->pool + s->pool_len;
        s->pool_len += n;
        memset(b, 0, n);
    } else if (!(b = calloc(1, n))) {
        return NULL;
    }
    if (d && len)
        memcpy(b, d, len);
    return b;
}

struct ecat_plan_cmd *ecat_plan_cmd_add(struct ecat_plan_slave *s, uint32_t transitions, uint8_t cmd,
                                        uint16_t adp, uint16_t ado, const void *data, uint16_t len)
{
    if (s->pool) {
        if (s->n_cmd == s->cap_cmd)
            return NULL;
    } else {
        struct ecat_plan_cmd *n = realloc(s->cmd, (s->n_cmd + 1) * sizeof *n);
        if (!n)
            return NULL;
        s->cmd = n;
    }
    struct ecat_plan_cmd *c = &s->cmd[s->n_cmd];
    memset(c, 0, sizeof *c);
    if (!(c->data = ecat_plan_bytes(s, data, len)))
        return NULL;
    s->n_cmd++;
    c->transitions = transitions;
    c->kind = PLAN_REG;
    c->cmd = cmd;
    c->adp = adp;
    c->ado = ado;
    c->len = len;
    c->comment = "";
    return c;
}

int ecat_plan_frame_add(struct ecat_plan *p)
{
    struct ecat_plan_frame *n = realloc(p->frame, (p->n_frames + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    p->frame = n;
    n[p->n_frames].first = p->n_dg;
    n[p->n_frames].n = 0;
    p->n_frames++;
    return 0;
}

struct ecat_plan_dg *ecat_plan_dg_add(struct ecat_plan *p, uint8_t cmd, uint8_t role, uint16_t adp,
                                      uint16_t ado, uint16_t len)
{
    if (!p->n_frames)
        return NULL;
    struct ecat_plan_dg *n = realloc(p->dg, (p->n_dg + 1) * sizeof *n);
    if (!n)
        return NULL;
    p->dg = n;
    struct ecat_plan_dg *d = &n[p->n_dg++];
    memset(d, 0, sizeof *d);
    d->cmd = cmd;
    d->role = role;
    d->adp = adp;
    d->ado = ado;
    d->len = len;
    d->out_off = d->in_off = -1;
    d->no = -1;
    d->comment = "";
    p->frame[p->n_frames - 1].n++;
    return d;
}

/* --- text --------------------------------------------------------------------------- */

static void hex(FILE *f, const uint8_t *d, unsigned len)
{
    for (unsigned i = 0; i < len && i < 32; i++)
        fprintf(f, "%02X", d[i]);
    if (len > 32)
        fprintf(f, "...(%u)", len);
}

static void transitions(FILE *f, uint32_t mask)
{
    const char *sep = "";
    for (unsigned t = 0; t < ECAT_TR_COUNT; t++)
        if (mask & ECAT_TR_BIT(t)) {
            fprintf(f, "%s%s", sep, ecat_tr_name((enum ecat_tr)t));
            sep = ",";
        }
}

static void states(FILE *f, uint16_t mask)
{
    static const struct { uint8_t st; char c; } n[] = {
        { AL_INIT, 'I' }, { AL_PREOP, 'P' }, { AL_BOOT, 'B' }, { AL_SAFEOP, 'S' }, { AL_OP, 'O' },
    };
    for (unsigned i = 0; i < sizeof n / sizeof n[0]; i++)
        if (mask >> n[i].st & 1)
            fputc(n[i].c, f);
    if (!mask)
        fputc('-', f);
}

static void dump_cmd(FILE *f, const struct ecat_plan_cmd *c)
{
    static const char *kind[] = { "reg", "coe", "soe", "eoe" };
    fprintf(f, "    ");
    transitions(f, c->transitions);
    fprintf(f, " %s", kind[c->kind]);
    if (c->kind == PLAN_REG)
        fprintf(f, " %s adp 0x%04X ado 0x%04X", ecat_cmd_name(c->cmd), c->adp, c->ado);
    else if (c->kind == PLAN_COE)
        fprintf(f, " %s 0x%04X:%02X%s", c->ccs == 2 ? "upload" : "download", c->index, c->subindex,
                c->complete_access ? " ca" : "");
    else if (c->kind == PLAN_SOE)
        fprintf(f, " drive %u idn 0x%04X elements 0x%02X", c->drive, c->idn, c->elements);
    else
        fprintf(f, " type %u", c->eoe_type);
    fprintf(f, " len %u data ", c->len);
    hex(f, c->data, c->len);
    if (c->has_wkc)
        fprintf(f, " wkc %u", c->wkc);
    fprintf(f, " retries %u timeout %u", c->retries, c->timeout_ms);
    if (c->validate) {
        fprintf(f, " validate ");
        hex(f, c->vdata, c->len);
        if (c->vmask) {
            fprintf(f, "/");
            hex(f, c->vmask, c->len);
        }
        fprintf(f, " in %u ms", c->vtimeout_ms);
    }
    static const char *flag[] = { "al-request", "al-check", "start-time", "needs-dc", "dc-own" };
    for (unsigned b = 0; b < 5; b++)
        if (c->flags >> b & 1)
            fprintf(f, " %s", flag[b]);
    if (c->before_slave)
        fprintf(f, " before-slaves");
    if (c->comment[0])
        fprintf(f, " '%s'", c->comment);
    fprintf(f, "\n");
}

void ecat_plan_dump(const struct ecat_plan *p, FILE *f)
{
    static const char *role[] = { "data", "al", "dc-set", "dc-time", "dc-diff", "dc-read" };
    static const char *when[] = { "always", "dc", "dc-follows", "no-dc", "never" };
    fprintf(f, "plan from %s: %u slaves\n", p->source == PLAN_FROM_ENI ? "ENI" : "SII", p->n_slaves);
    fprintf(f, "image %u bytes: outputs %u, inputs %u from %u\n", p->image_size, p->out_bytes,
            p->in_bytes, p->in_base);
    const struct ecat_plan_dc *dc = &p->dc;
    fprintf(f, "dc %s ref %d%s start %s sync0 %u shift %d sync1 %u shift %d%s\n", dc->on ? "on" : "off",
            dc->ref, dc->ref_follows_master ? " (follows master)" : "",
            dc->start == PLAN_START_GRID_100MS ? "grid+100ms" : "none", dc->sync0_cycle_ns,
            dc->sync0_shift_ns, dc->sync1_cycle_ns, dc->sync1_shift_ns, dc->by_cmds ? " by-cmds" : "");
    for (unsigned i = 0; i <= p->n_slaves; i++) {
        const struct ecat_plan_slave *s = &p->slave[i];
        if (s->pos < 0)
            fprintf(f, "master: %u commands\n", s->n_cmd);
        else
            fprintf(f, "slave %d station 0x%04X: out %u+%u in %u+%u%s%s sync0 %u/%d sync1 %u/%d, "
                    "%u commands\n", s->pos, s->station, s->out_off, s->out_len, s->in_off, s->in_len,
                    s->dc ? " dc" : "", s->sync_by_cmds ? " sync-by-cmds" : "", s->sync0_cycle_ns,
                    s->sync0_shift_ns, s->sync1_cycle_ns, s->sync1_shift_ns, s->n_cmd);
        for (unsigned k = 0; k < s->n_cmd; k++)
            dump_cmd(f, &s->cmd[k]);
    }
    for (unsigned k = 0; k < p->n_frames; k++) {
        fprintf(f, "frame %u:\n", k);
        for (unsigned j = 0; j < p->frame[k].n; j++) {
            const struct ecat_plan_dg *d = &p->dg[p->frame[k].first + j];
            fprintf(f, "    %s %s %s adp 0x%04X ado 0x%04X len %u out %d in %d", role[d->role],
                    when[d->when], ecat_cmd_name(d->cmd), d->adp, d->ado, d->len, d->out_off, d->in_off);
            if (d->has_wkc)
                fprintf(f, " wkc %u", d->wkc);
            fprintf(f, " states ");
            states(f, d->states);
            fprintf(f, " judged ");
            states(f, d->judged);
            if (d->n_slaves)
                fprintf(f, " slaves %u-%u", d->first_slave, d->first_slave + d->n_slaves - 1);
            if (d->no >= 0)
                fprintf(f, " no %d", d->no);
            if (d->comment[0])
                fprintf(f, " '%s'", d->comment);
            fprintf(f, "\n");
        }
    }
}
