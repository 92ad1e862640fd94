/* ENI-driven start-up (ETG.2100 InitCmds): each transition of a slave runs the plan's
 * commands (plan_eni.c) through the init-command executor (initx.h): its register
 * commands before the master's AL request and the rest after it, its mailbox (CoE,
 * SoE, EoE) commands where the mailbox works, and the master's own commands
 * (Master/InitCmds) once for the whole network before or after the slaves'. What is
 * the ENI's here: which slaves it drives, the gates of the master's commands, and
 * how a failure names the file, line and command. Sans-I/O: judged in the master
 * timer (slave state SS_ENI). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/eni_soe.h"
#include "ecat/initx.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"
#include "util/wire.h"

enum eni_phase { EP_IDLE, EP_GATE_PRE, EP_PRE, EP_COE_PRE, EP_AL, EP_POST, EP_COE_POST, EP_GATE_POST };

struct ecat_eni_run {
    struct ecat_core *m;
    int       pos;                  /* slave position, -1: the master's own commands */
    uint8_t   phase, tr, cur, nxt;
    bool      gated;                /* network transition: master commands around it */
    bool      before;               /* master runner: which of its commands */
    struct ecat_initx x;            /* the plan's commands of this slave */
    struct ecat_plan *plan;         /* the master's runner owns the plan */
};

static void queue(void *ctx, struct ecat_req *rq)
{
    struct ecat_eni_run *r = ctx;
    ecat_req_queue(r->m, rq);
}

/* dc.c measures delays and offsets and compensates the drift after INIT -> PREOP; a
 * command that writes the start time or switches SYNC0 on waits for that */
static bool dc_ready(void *ctx)
{
    struct ecat_eni_run *r = ctx;
    return r->m->dc.active;
}

/* The start time the ENI writes is a placeholder (it depends on the live system time,
 * which the tool cannot know): one on the network's grid at least 100 ms ahead, plus
 * the slave's ShiftTime. */
static uint64_t start_time(void *ctx, const struct ecat_plan_cmd *c)
{
    struct ecat_eni_run *r = ctx;
    const struct ecat_eni_slave *es = r->pos >= 0 ? &r->m->eni->slave[r->pos] : NULL;
    (void)c;
    return ecat_dc_start_time(r->m, r->m->now, es && es->has_dc ? es->shift0 : 0);
}

/* ETG.1000.4 SyncManager: the SM1 repeat request the ENI wrote (0x080E bit 1) is what the
 * master's next repeat toggles against */
static void written(void *ctx, const struct ecat_plan_cmd *c)
{
    struct ecat_eni_run *r = ctx;
    if (r->pos >= 0 && c->data && c->ado <= 0x080E && c->ado + c->len > 0x080E)
        r->m->slaves[r->pos].mbx.repeat = (c->data[0x080E - c->ado] >> 1) & 1;
}

static void mbx_cb(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ecat_eni_run *r = ctx;
    (void)data;
    ecat_initx_mbx_done(&r->x, err, len, err ? r->m->errmsg : NULL);
}

static int mbx_start(void *ctx, const struct ecat_plan_cmd *c, uint8_t *buf, size_t cap)
{
    struct ecat_eni_run *r = ctx;
    struct ecat_core *m = r->m;
    unsigned pos = (unsigned)r->pos;
    if (c->kind == PLAN_COE)
        return c->ccs == 2 ? ecat_sdo_upload_async(m, pos, c->index, c->subindex, c->complete_access, buf, cap,
                                                   mbx_cb, r)
                           : ecat_sdo_download_async(m, pos, c->index, c->subindex, c->complete_access,
                                                     c->data, c->len, mbx_cb, r);
    return ecat_eni_mbx_start(m, pos, c, mbx_cb, r);
}

static const char *who(const struct ecat_core *m, const struct ecat_eni_run *r, char *b, size_t n)
{
    if (r->pos < 0)
        snprintf(b, n, "master");
    else
        snprintf(b, n, "slave %d (%s)", r->pos, m->eni->slave[r->pos].name);
    return b;
}

static void hex(char *o, size_t n, const uint8_t *d, const uint8_t *mask, unsigned len)
{
    size_t w = 0;
    for (unsigned i = 0; i < len && i < 16 && w + 3 < n; i++)
        w += (size_t)snprintf(o + w, n - w, "%02X", d[i] & (mask ? mask[i] : 0xFF));
    if (len > 16 && w + 4 < n)
        snprintf(o + w, n - w, "...");
    if (!len && n)
        o[0] = 0;
}

/* Say what failed: file, line, whose command, and what came instead. */
static int report(struct ecat_core *m, struct ecat_eni_run *r)
{
    const struct ecat_initx_fail *f = &r->x.fail;
    const struct ecat_plan_cmd *c = f->c;
    const char *path = m->eni_path ? m->eni_path : "ENI";
    char w[96], exp[48], got[48], mk[48], msg[200];
    switch (f->why) {
    case INITX_WKC:
        ECAT_FAILT(m, f->err, TAKT_ECAT_EV_ENI_CMD_WKC, -1, RT_TXT(path, who(m, r, w, sizeof w), c->comment),
                   c->line, r->tr, c->cmd, c->adp, c->ado, c->wkc, f->wkc, f->wkc < 0);
        return f->err;
    case INITX_VALIDATE:
        hex(exp, sizeof exp, c->vdata, c->vmask, c->len);
        hex(got, sizeof got, f->got, NULL, (unsigned)f->got_len);
        hex(mk, sizeof mk, c->vmask ? c->vmask : c->vdata, NULL, c->vmask ? c->len : 0);
        ECAT_FAILT(m, f->err, TAKT_ECAT_EV_ENI_VALIDATE, -1, RT_TXT(path, who(m, r, w, sizeof w), c->comment, exp,
                   c->vmask ? mk : "", f->wkc > 0 ? got : "nothing"), c->line, r->tr, c->cmd, c->ado, c->vmask != 0,
                   f->wkc, c->vtimeout_ms);
        return f->err;
    default:
        break;
    }
    if (f->why == INITX_MBX_TIMEOUT)
        snprintf(msg, sizeof msg, "no answer within the ENI's timeout of %u ms", c->timeout_ms);
    else if (f->why == INITX_MBX_DATA) {
        hex(exp, sizeof exp, c->data, NULL, c->len);
        hex(got, sizeof got, f->got, NULL, (unsigned)f->got_len);
        snprintf(msg, sizeof msg, "expected %s (%u bytes), found %s (%zu bytes)", exp, c->len, got, r->x.mbx_len);
    } else if (f->why == INITX_MBX_START)
        snprintf(msg, sizeof msg, "%.*s", (int)sizeof msg - 1, c->kind == PLAN_COE ? "cannot be queued" : m->errmsg);
    else
        snprintf(msg, sizeof msg, "%.*s", (int)sizeof msg - 1, f->msg);
    const char *name = m->eni->slave[r->pos].name;
    if (c->kind == PLAN_COE) {
        ECAT_FAILT(m, f->err, TAKT_ECAT_EV_ENI_COE, r->pos, RT_TXT(path, name, c->comment, msg), c->line, r->tr,
                   c->ccs == 2, c->index, c->subindex, c->complete_access != 0);
    } else {
        ecat_eni_mbx_what(c, w, sizeof w);
        ECAT_FAILT(m, f->err, TAKT_ECAT_EV_ENI_SOE, r->pos, RT_TXT(path, name, w, c->comment, msg), c->line, r->tr);
    }
    return f->err;
}

/* Fail the slave (or, for the master's commands, every slave waiting for them). */
static void run_fail(struct ecat_core *m, struct ecat_eni_run *r, int err)
{
    r->phase = EP_IDLE;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if ((r->pos >= 0 && (unsigned)r->pos != i) || (r->pos < 0 && s->esm.f.state != SS_ENI))
            continue;
        s->esm.f.err = err;
        s->esm.f.state = SS_FAILED;
        m->rec.watch = true;        /* recovery looks at failed slaves (readdress) */
        if (s->esm.er)
            s->esm.er->phase = EP_IDLE;
    }
}

/* The executor's step; a failure is reported once. */
static int run(struct ecat_core *m, struct ecat_eni_run *r, takt_ns_t now)
{
    r->x.validate_ns = m->o.state_timeout_ns;
    r->x.mbx_ns = m->o.sdo_timeout_ns + TAKT_NS_PER_S;
    int rc = ecat_initx_step(&r->x, now);
    return rc < 0 ? report(m, r) : rc;
}

static bool has_master_cmds(const struct ecat_core *m, uint8_t tr, bool before)
{
    const struct ecat_plan_slave *ps = m->eni_runs[m->eni_nruns - 1].x.ps;
    for (unsigned i = 0; i < ps->n_cmd; i++) {
        const struct ecat_plan_cmd *c = &ps->cmd[i];
        if ((c->transitions & ECAT_TR_BIT(tr)) && c->before_slave == before && !(c->flags & PLAN_F_DC_OWN))
            return true;
    }
    return false;
}

static void enter(struct ecat_slave *s, struct ecat_eni_run *r, uint8_t phase)
{
    r->phase = phase;
    ecat_initx_phase(&r->x, phase == EP_POST ? INITX_POST : phase == EP_PRE ? INITX_PRE : INITX_MBX);
    s->esm.f.state = SS_ENI;
}

/* Master commands are broadcasts around a transition of the whole network: every
 * other slave is on its way too (not one slave's re-join, nor its own state request
 * while the others stay where they are). */
static bool network_transition(const struct ecat_core *m, const struct ecat_slave *s)
{
    if (!m->target || s->rec.returning)
        return false;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].esm.f.state == SS_IDLE && &m->slaves[i] != s)
            return false;
    return true;
}

bool ecat_eni_begin(struct ecat_core *m, struct ecat_slave *s, uint8_t cur, uint8_t nxt,
                    takt_ns_t now)
{
    struct ecat_eni_run *r = s->esm.er;
    int tr = ecat_tr_from_states(cur, nxt);
    if (!r || tr < 0)
        return false;
    (void)now;
    r->cur = cur;
    r->nxt = nxt;
    r->tr = (uint8_t)tr;
    s->esm.f.requested = nxt;
    ecat_initx_begin(&r->x, r->tr, nxt, -1);
    s->esm.al_timeout_ns = (takt_ns_t)r->x.al_timeout_ms * TAKT_NS_PER_MS;
    r->gated = network_transition(m, s);
    enter(s, r, r->gated && has_master_cmds(m, r->tr, true) ? EP_GATE_PRE : EP_PRE);
    return true;
}

bool ecat_eni_reached(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    (void)m;
    (void)now;
    if (!s->esm.er || s->esm.er->phase != EP_AL || s->esm.er->nxt != s->esm.f.requested)
        return false;
    enter(s, s->esm.er, EP_POST);
    return true;
}

const char *ecat_eni_al_note(const struct ecat_core *m, const struct ecat_slave *s, char *buf,
                             size_t n)
{
    const struct ecat_eni_run *r = s->esm.er;
    if (!r || !r->x.al_cmd || !s->esm.al_timeout_ns || !n)
        return n ? (buf[0] = 0, buf) : "";
    snprintf(buf, n, " (the ENI's timeout: %s line %u, transition %s, command '%s')", m->eni_path,
             r->x.al_cmd->line, ecat_tr_name(r->tr), r->x.al_cmd->comment);
    return buf;
}

static void finish(struct ecat_core *m, struct ecat_slave *s, struct ecat_eni_run *r, takt_ns_t now)
{
    r->phase = EP_IDLE;
    s->esm.f.state = SS_IDLE;
    ecat_sfsm_next(m, s, now);
}

/* The mailbox commands need the mailbox: before the request when leaving PREOP/SAFEOP/OP,
 * after it when INIT -> PREOP brought the mailbox up; never around BOOT. */
static bool mbx_before(const struct ecat_eni_run *r)
{ return r->cur == AL_PREOP || r->cur == AL_SAFEOP || r->cur == AL_OP; }
static bool mbx_after(const struct ecat_eni_run *r)
{ return r->cur == AL_INIT && r->nxt == AL_PREOP; }

void ecat_eni_state(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    struct ecat_eni_run *r = s->esm.er;
    if (!r)
        return;
    int rc = 0;
    switch (r->phase) {
    case EP_PRE:
        if ((rc = run(m, r, now)))
            break;
        enter(s, r, EP_COE_PRE);
        /* fall through */
    case EP_COE_PRE:
        if (mbx_before(r) && (rc = run(m, r, now)))
            break;
        r->phase = EP_AL;
        ecat_sfsm_al_request(m, s, now);
        return;
    case EP_POST:
        if ((rc = run(m, r, now)))
            break;
        enter(s, r, EP_COE_POST);
        /* fall through */
    case EP_COE_POST:
        if (mbx_after(r) && (rc = run(m, r, now)))
            break;
        if (r->gated && has_master_cmds(m, r->tr, false)) {
            r->phase = EP_GATE_POST;
            return;
        }
        finish(m, s, r, now);
        return;
    default:                            /* gates: the master step releases them */
        return;
    }
    if (rc < 0)
        run_fail(m, r, rc);
}

/* --- the master's own commands, once per network transition ----------------------- */

static struct ecat_eni_run *master_run(struct ecat_core *m) { return &m->eni_runs[m->eni_nruns - 1]; }

static void release(struct ecat_core *m, uint8_t tr, uint8_t gate, takt_ns_t now)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        struct ecat_eni_run *r = s->esm.er;
        if (!r || s->esm.f.state != SS_ENI || r->phase != gate || r->tr != tr)
            continue;
        if (gate == EP_GATE_PRE)
            enter(s, r, EP_PRE);
        else
            finish(m, s, r, now);
    }
}

void ecat_eni_master_step(struct ecat_core *m, takt_ns_t now)
{
    if (!m->eni_runs)
        return;
    struct ecat_eni_run *mr = master_run(m);
    if (mr->phase == EP_PRE) {
        int rc = run(m, mr, now);
        if (rc > 0)
            return;
        uint8_t gate = mr->before ? EP_GATE_PRE : EP_GATE_POST;
        if (rc < 0) {
            run_fail(m, mr, rc);
            return;
        }
        mr->phase = EP_IDLE;
        release(m, mr->tr, gate, now);
        return;
    }
    /* open a gate once no slave is still on its way to one */
    const struct ecat_eni_run *first = NULL;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave *s = &m->slaves[i];
        if (s->esm.f.state == SS_IDLE || s->esm.f.state == SS_FAILED)
            continue;
        if (s->esm.f.state != SS_ENI || !s->esm.er ||
            (s->esm.er->phase != EP_GATE_PRE && s->esm.er->phase != EP_GATE_POST))
            return;
        if (!first)
            first = s->esm.er;
    }
    if (!first)
        return;
    mr->tr = first->tr;
    mr->cur = first->cur;
    mr->nxt = first->nxt;
    mr->before = first->phase == EP_GATE_PRE;
    ecat_initx_begin(&mr->x, mr->tr, mr->nxt, mr->before);
    ecat_initx_phase(&mr->x, INITX_ALL);
    mr->phase = EP_PRE;
    ecat_eni_master_step(m, now);
}

/* The ENI's INIT -> PREOP is under way (its master commands may clear the station
 * addresses, its slave commands set them again): nothing else addresses slaves yet. */
bool ecat_eni_settling(const struct ecat_core *m)
{
    if (!m->eni_runs)
        return false;
    if (m->eni_runs[m->eni_nruns - 1].phase != EP_IDLE)
        return true;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave *s = &m->slaves[i];
        if (s->esm.er && (s->info.al_state & AL_STATE_MASK) == AL_INIT && s->esm.f.state != SS_IDLE &&
            s->esm.f.state != SS_FAILED)
            return true;
    }
    return false;
}

/* --- set-up ------------------------------------------------------------------------ */

void ecat_eni_exec_free(struct ecat_core *m)
{
    struct ecat_plan *plan = m->eni_runs ? master_run(m)->plan : NULL;
    for (unsigned i = 0; m->eni_runs && i < m->eni_nruns; i++)
        ecat_initx_free(&m->eni_runs[i].x);
    if (plan) {
        ecat_plan_free(plan);
        free(plan);
    }
    free(m->eni_runs);
    m->eni_runs = NULL;
    m->eni_nruns = 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        m->slaves[i].esm.er = NULL;
        m->slaves[i].esm.al_timeout_ns = 0;
    }
}

/* A slave with register InitCmds in the ENI is driven by them (its SM, FMMU and mailbox
 * set-up are the ENI's, takt writes none of its own); one without keeps takt's set-up. */
int ecat_eni_exec_setup(struct ecat_core *m)
{
    const struct ecat_eni *e = m->eni;
    ecat_eni_exec_free(m);
    if (!(m->eni_runs = calloc(m->n_slaves + 1, sizeof *m->eni_runs)))
        return -ENOMEM;
    m->eni_nruns = m->n_slaves + 1;
    struct ecat_eni_run *mr = master_run(m);
    if (!(mr->plan = calloc(1, sizeof *mr->plan)))
        return -ENOMEM;
    int rc = ecat_plan_from_eni_init(mr->plan, e);
    if (rc) {
        free(mr->plan);
        mr->plan = NULL;
        return rc;
    }
    for (unsigned i = 0; i < m->eni_nruns; i++) {
        struct ecat_eni_run *r = &m->eni_runs[i];
        bool master = i == m->eni_nruns - 1;
        if (!master && i >= e->n_slaves)
            continue;
        r->m = m;
        r->pos = master ? -1 : (int)i;
        const struct ecat_initx_ops ops = { r, queue, dc_ready, start_time, mbx_start, written };
        if ((rc = ecat_initx_init(&r->x, master ? ecat_plan_master(mr->plan) : &mr->plan->slave[i], &ops)))
            return rc;
        if (!master && e->slave[i].n_init)
            m->slaves[i].esm.er = r;
    }
    return ecat_eni_mbx_setup(m);
}
