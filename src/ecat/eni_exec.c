/* ENI-driven start-up (ETG.2100 InitCmds): each transition of a slave runs the ENI's
 * register commands in file order before the master's AL request and the rest after
 * it, its CoE init commands where the mailbox works, and the master's own commands
 * (Master/InitCmds) once for the whole network before or after the slaves'. Sans-I/O:
 * one queued datagram per runner, judged in the master timer (slave state SS_ENI). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/eni_soe.h"
#include "ecat/master_internal.h"
#include "util/wire.h"

enum eni_phase { EP_IDLE, EP_GATE_PRE, EP_PRE, EP_COE_PRE, EP_AL, EP_POST, EP_COE_POST, EP_GATE_POST };

struct ecat_eni_run {
    struct ecat_core *m;
    int       pos;                  /* slave position, -1: the master's own commands */
    const struct ecat_eni_cmd *cmd;
    unsigned  n_cmd;
    const struct ecat_eni_coe *coe;
    unsigned  n_coe;
    uint8_t   phase, tr, cur, nxt;
    bool      gated;                /* network transition: master commands around it */
    bool      before;               /* master runner: which of its commands */
    unsigned  k, split;             /* next command; index of the AL request (or n_cmd) */
    const struct ecat_eni_cmd *al_cmd;  /* where the transition timeout came from */
    bool      sent;
    unsigned  tries;
    takt_ns_t t0;
    struct ecat_req req;
    uint8_t  *buf;
    uint16_t  cap;
    /* CoE init command in flight */
    bool      coe_busy;
    int       coe_rc;
    size_t    coe_len;
    takt_ns_t coe_deadline;
    uint8_t  *cbuf;
    size_t    ccap;
    char      coe_msg[200];         /* the transfer's own message, taken at completion */
    struct ecat_eni_mbx_run mbx;    /* SoE and EoE init commands, after the CoE ones */
};

#define AL_CONTROL 0x0120
#define AL_STATUS  0x0130

static bool is_write(uint8_t c)
{
    return c == ECAT_APWR || c == ECAT_FPWR || c == ECAT_BWR || c == ECAT_APRW ||
           c == ECAT_FPRW || c == ECAT_BRW || c == ECAT_LWR || c == ECAT_LRW;
}

static bool is_logical(uint8_t c) { return c == ECAT_LRD || c == ECAT_LWR || c == ECAT_LRW; }

/* The SYNC/LATCH unit (0x0980-0x09AF). An ENI whose init commands switch SYNC0 on
 * (m->eni_sync, master_eni.c) writes it with its own commands, as EC-Master does: dc.c
 * measures delays and offsets and compensates the drift after INIT -> PREOP, and a
 * command that writes the start time or switches SYNC0 on waits for that; the start
 * time it writes (a placeholder: it depends on the live system time, which the tool
 * cannot know) becomes one on the network's grid at least 100 ms ahead, plus the
 * slave's ShiftTime. Otherwise the unit belongs to dc.c (--dc): a unit the ENI
 * activated would refuse takt's start time. The rest of the DC block (clearing time,
 * offset and delay, speed counter and filter resets) runs as written. */
static bool sync_unit(const struct ecat_eni_cmd *c)
{ return !is_logical(c->cmd) && c->ado + c->len > 0x0980 && c->ado <= 0x09AF; }
static bool dc_register(const struct ecat_core *m, const struct ecat_eni_cmd *c)
{ return sync_unit(c) && !m->eni_sync; }
static bool writes_start(const struct ecat_eni_cmd *c)
{ return is_write(c->cmd) && sync_unit(c) && c->ado <= ESC_DC_SYNC0_START && c->ado + c->len >= ESC_DC_SYNC0_START + 8; }
/* The command needs the clocks set up first: it sets the start time or switches SYNC
 * on (a non-zero byte at 0x0981). */
static bool needs_dc(const struct ecat_eni_cmd *c)
{
    if (!is_write(c->cmd) || !sync_unit(c) || !c->data)
        return false;
    if (writes_start(c))
        return true;
    return c->ado <= ESC_DC_ACTIVATION && c->ado + c->len > ESC_DC_ACTIVATION &&
           c->data[ESC_DC_ACTIVATION - c->ado] != 0;
}

/* The write of 0x0120 requesting this transition's target state is the master's own
 * AL request; the read of 0x0130 validating that state is its own AL status wait. */
static bool al_request(const struct ecat_eni_cmd *c, uint8_t nxt)
{ return is_write(c->cmd) && c->ado == AL_CONTROL && c->len >= 1 && (c->data[0] & AL_STATE_MASK) == nxt; }
static bool al_check(const struct ecat_eni_cmd *c, uint8_t nxt)
{
    return !is_write(c->cmd) && c->ado == AL_STATUS && c->validate && c->len >= 1 && c->vdata &&
           (c->vdata[0] & AL_STATE_MASK) == nxt;
}

static bool wanted(const struct ecat_eni_run *r, const struct ecat_eni_cmd *c)
{
    if (!(c->transitions & ECAT_TR_BIT(r->tr)) || dc_register(r->m, c))
        return false;
    if (r->pos < 0 && c->before_slave != r->before)
        return false;
    return !al_request(c, r->nxt) && !al_check(c, r->nxt);
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

/* Fail the slave (or, for the master's commands, every slave waiting for them). */
static void run_fail(struct ecat_core *m, struct ecat_eni_run *r, int err)
{
    r->phase = EP_IDLE;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        if ((r->pos >= 0 && (unsigned)r->pos != i) || (r->pos < 0 && s->f.state != SS_ENI))
            continue;
        s->f.err = err;
        s->f.state = SS_FAILED;
        if (s->er)
            s->er->phase = EP_IDLE;
    }
}

static void send_cmd(struct ecat_core *m, struct ecat_eni_run *r, const struct ecat_eni_cmd *c)
{
    if (c->len)
        memcpy(r->buf, c->data, c->len);
    if (m->eni_sync && writes_start(c)) {
        const struct ecat_eni_slave *es = r->pos >= 0 ? &m->eni->slave[r->pos] : NULL;
        put_le64(r->buf + (ESC_DC_SYNC0_START - c->ado),
                 ecat_dc_start_time(m, m->now, es && es->has_dc ? es->shift0 : 0));
    }
    ecat_req_init(&r->req, c->cmd, c->adp, c->ado, r->buf, c->len);
    if (is_logical(c->cmd))
        ecat_req_init(&r->req, c->cmd, (uint16_t)c->addr, (uint16_t)(c->addr >> 16), r->buf, c->len);
    ecat_req_queue(m, &r->req);
    r->sent = true;
}

static bool validated(const struct ecat_eni_cmd *c, const uint8_t *got)
{
    for (unsigned i = 0; i < c->len; i++) {
        uint8_t mk = c->vmask ? c->vmask[i] : 0xFF;
        if ((got[i] & mk) != (c->vdata[i] & mk))
            return false;
    }
    return true;
}

/* Judge command k's reply; 1: still busy, 0: it is done, <0: failed. */
static int judge(struct ecat_core *m, struct ecat_eni_run *r, const struct ecat_eni_cmd *c,
                 takt_ns_t now)
{
    char w[96], exp[48], got[48], mk[48];
    int wkc = r->req.wkc;
    bool wkc_ok = c->has_cnt ? wkc == c->cnt : wkc >= 0;
    const char *path = m->eni_path ? m->eni_path : "ENI";
    if (!wkc_ok && !c->validate) {
        /* a lost frame gets its 3 tries even when the ENI allows no retry */
        if (r->tries++ < (c->retries > 3 || wkc >= 0 ? c->retries : 3u)) {
            send_cmd(m, r, c);
            return 1;
        }
        ECAT_FAILT(m, wkc < 0 ? -ETIMEDOUT : -TAKT_EWKC, TAKT_ECAT_EV_ENI_CMD_WKC, -1, RT_TXT(path, who(m, r, w, sizeof w), c->comment),
               c->line, r->tr, c->cmd, c->adp, c->ado, c->cnt, wkc, wkc < 0);
        return wkc < 0 ? -ETIMEDOUT : -TAKT_EWKC;
    }
    if (c->validate && !(wkc_ok && wkc > 0 && validated(c, r->buf))) {
        takt_ns_t lim = c->vtimeout_ms ? (takt_ns_t)c->vtimeout_ms * TAKT_NS_PER_MS : m->o.state_timeout_ns;
        if (now - r->t0 <= lim) {
            send_cmd(m, r, c);
            return 1;
        }
        hex(exp, sizeof exp, c->vdata, c->vmask, c->len);
        hex(got, sizeof got, r->buf, NULL, wkc > 0 ? c->len : 0);
        hex(mk, sizeof mk, c->vmask ? c->vmask : c->vdata, NULL, c->vmask ? c->len : 0);
        ECAT_FAILT(m, -ETIMEDOUT, TAKT_ECAT_EV_ENI_VALIDATE, -1, RT_TXT(path, who(m, r, w, sizeof w), c->comment, exp,
               c->vmask ? mk : "", wkc > 0 ? got : "nothing"), c->line, r->tr, c->cmd, c->ado, c->vmask != 0, wkc, c->vtimeout_ms);
        return -ETIMEDOUT;
    }
    return 0;
}

/* Run the wanted commands in [k, end); 1: busy, 0: all done, <0: failed. */
static int run_cmds(struct ecat_core *m, struct ecat_eni_run *r, unsigned end, takt_ns_t now)
{
    for (;;) {
        while (r->k < end && !wanted(r, &r->cmd[r->k]))
            r->k++;
        if (r->k >= end)
            return 0;
        const struct ecat_eni_cmd *c = &r->cmd[r->k];
        if (!r->sent && m->eni_sync && needs_dc(c) && !m->dc.active)
            return 1;                   /* dc.c is still setting the clocks up */
        if (!r->sent) {
            r->tries = 0;
            r->t0 = now;
            send_cmd(m, r, c);
            return 1;
        }
        if (ecat_req_busy(&r->req))
            return 1;
        int rc = judge(m, r, c, now);
        if (rc)
            return rc;
        /* ETG.1000.4 SyncManager: the SM1 repeat request the ENI wrote (0x080E bit 1) is what the
         * master's next repeat toggles against */
        if (r->pos >= 0 && is_write(c->cmd) && !is_logical(c->cmd) && c->ado <= 0x080E &&
            c->ado + c->len > 0x080E)
            m->slaves[r->pos].mbx.repeat = (c->data[0x080E - c->ado] >> 1) & 1;
        r->sent = false;
        r->k++;
    }
}

static void coe_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ecat_eni_run *r = ctx;
    (void)data;
    if (err)
        snprintf(r->coe_msg, sizeof r->coe_msg, "%.*s", (int)sizeof r->coe_msg - 1, r->m->errmsg);
    r->coe_rc = err;
    r->coe_len = len;
    r->coe_busy = false;
}

static int coe_fail(struct ecat_core *m, struct ecat_eni_run *r, const struct ecat_eni_coe *c,
                    int rc, const char *what)
{
    ECAT_FAILT(m, rc, TAKT_ECAT_EV_ENI_COE, r->pos, RT_TXT(m->eni_path, m->eni->slave[r->pos].name, c->comment, what),
               c->line, r->tr, c->ccs == 2, c->index, c->subindex, c->complete_access != 0);
    return rc;
}

/* The CoE init commands of the transition, one transfer at a time; an upload with Data
 * checks what the slave holds. 1: busy, 0: done, <0: failed. */
static int run_coe(struct ecat_core *m, struct ecat_eni_run *r, takt_ns_t now)
{
    char msg[200], exp[48], got[48];
    for (;;) {
        while (r->k < r->n_coe && !(r->coe[r->k].transitions & ECAT_TR_BIT(r->tr)))
            r->k++;
        if (r->k >= r->n_coe)
            return 0;
        const struct ecat_eni_coe *c = &r->coe[r->k];
        if (!r->sent) {
            int rc = c->ccs == 2
                ? ecat_sdo_upload_async(m, (unsigned)r->pos, c->index, c->subindex, c->complete_access,
                                        r->cbuf, r->ccap, coe_done, r)
                : ecat_sdo_download_async(m, (unsigned)r->pos, c->index, c->subindex,
                                          c->complete_access, c->data, c->len, coe_done, r);
            if (rc)
                return coe_fail(m, r, c, rc, "cannot be queued");
            r->sent = true;
            r->coe_busy = true;
            r->coe_deadline = now + (c->timeout_ms ? (takt_ns_t)c->timeout_ms * TAKT_NS_PER_MS
                                                   : m->o.sdo_timeout_ns + TAKT_NS_PER_S);
            return 1;
        }
        if (r->coe_busy) {
            if (now <= r->coe_deadline)
                return 1;
            snprintf(msg, sizeof msg, "no answer within the ENI's timeout of %u ms", c->timeout_ms);
            return coe_fail(m, r, c, -ETIMEDOUT, msg);
        }
        if (r->coe_rc)
            return coe_fail(m, r, c, r->coe_rc, r->coe_msg);
        if (c->ccs == 2 && c->len && (r->coe_len != c->len || memcmp(r->cbuf, c->data, c->len))) {
            hex(exp, sizeof exp, c->data, NULL, c->len);
            hex(got, sizeof got, r->cbuf, NULL, (unsigned)(r->coe_len < r->ccap ? r->coe_len : r->ccap));
            snprintf(msg, sizeof msg, "expected %s (%u bytes), found %s (%zu bytes)", exp, c->len,
                     got, r->coe_len);
            return coe_fail(m, r, c, -TAKT_ECONFIG, msg);
        }
        r->sent = false;
        r->k++;
    }
}

static bool has_master_cmds(const struct ecat_core *m, uint8_t tr, bool before)
{
    const struct ecat_eni *e = m->eni;
    for (unsigned i = 0; i < e->n_master_init; i++) {
        const struct ecat_eni_cmd *c = &e->master_init[i];
        if ((c->transitions & ECAT_TR_BIT(tr)) && c->before_slave == before && !dc_register(m, c))
            return true;
    }
    return false;
}

static void enter(struct ecat_slave *s, struct ecat_eni_run *r, uint8_t phase)
{
    r->phase = phase;
    r->k = phase == EP_POST ? r->split + 1 : 0;
    r->sent = false;
    ecat_eni_mbx_restart(&r->mbx);
    s->f.state = SS_ENI;
}

/* Master commands are broadcasts around a transition of the whole network: every
 * other slave is on its way too (not one slave's re-join, nor its own state request
 * while the others stay where they are). */
static bool network_transition(const struct ecat_core *m, const struct ecat_slave *s)
{
    if (!m->target || s->rec.returning)
        return false;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].f.state == SS_IDLE && &m->slaves[i] != s)
            return false;
    return true;
}

bool ecat_eni_begin(struct ecat_core *m, struct ecat_slave *s, uint8_t cur, uint8_t nxt,
                    takt_ns_t now)
{
    struct ecat_eni_run *r = s->er;
    int tr = ecat_tr_from_states(cur, nxt);
    if (!r || tr < 0)
        return false;
    (void)now;
    r->cur = cur;
    r->nxt = nxt;
    r->tr = (uint8_t)tr;
    s->f.requested = nxt;
    s->al_timeout_ns = 0;
    r->al_cmd = NULL;
    r->split = r->n_cmd;
    for (unsigned i = 0; i < r->n_cmd; i++) {
        const struct ecat_eni_cmd *c = &r->cmd[i];
        if (!(c->transitions & ECAT_TR_BIT(tr)))
            continue;
        if (al_request(c, nxt) && r->split == r->n_cmd) {
            r->split = i;
            if (c->timeout_ms && !s->al_timeout_ns) {
                s->al_timeout_ns = (takt_ns_t)c->timeout_ms * TAKT_NS_PER_MS;
                r->al_cmd = c;
            }
        }
        if (al_check(c, nxt) && c->vtimeout_ms) { /* the validate timeout is the transition's */
            s->al_timeout_ns = (takt_ns_t)c->vtimeout_ms * TAKT_NS_PER_MS;
            r->al_cmd = c;
        }
    }
    r->gated = network_transition(m, s);
    enter(s, r, r->gated && has_master_cmds(m, r->tr, true) ? EP_GATE_PRE : EP_PRE);
    return true;
}

bool ecat_eni_reached(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    (void)m;
    (void)now;
    if (!s->er || s->er->phase != EP_AL || s->er->nxt != s->f.requested)
        return false;
    enter(s, s->er, EP_POST);
    return true;
}

const char *ecat_eni_al_note(const struct ecat_core *m, const struct ecat_slave *s, char *buf,
                             size_t n)
{
    const struct ecat_eni_run *r = s->er;
    if (!r || !r->al_cmd || !s->al_timeout_ns || !n)
        return n ? (buf[0] = 0, buf) : "";
    snprintf(buf, n, " (the ENI's timeout: %s line %u, transition %s, command '%s')", m->eni_path,
             r->al_cmd->line, ecat_tr_name(r->tr), r->al_cmd->comment);
    return buf;
}

static void finish(struct ecat_core *m, struct ecat_slave *s, struct ecat_eni_run *r, takt_ns_t now)
{
    r->phase = EP_IDLE;
    s->f.state = SS_IDLE;
    ecat_sfsm_next(m, s, now);
}

/* CoE needs the mailbox: before the request when leaving PREOP/SAFEOP/OP, after it when
 * INIT -> PREOP brought the mailbox up; never around BOOT (no CoE there). */
static bool coe_before(const struct ecat_eni_run *r)
{ return r->cur == AL_PREOP || r->cur == AL_SAFEOP || r->cur == AL_OP; }
static bool coe_after(const struct ecat_eni_run *r)
{ return r->cur == AL_INIT && r->nxt == AL_PREOP; }

void ecat_eni_state(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    struct ecat_eni_run *r = s->er;
    if (!r)
        return;
    int rc = 0;
    switch (r->phase) {
    case EP_PRE:
        if ((rc = run_cmds(m, r, r->split, now)))
            break;
        enter(s, r, EP_COE_PRE);
        /* fall through */
    case EP_COE_PRE:
        if (coe_before(r) && ((rc = run_coe(m, r, now)) || (rc = ecat_eni_run_mbx(m, &r->mbx, r->pos, r->tr, now))))
            break;
        r->phase = EP_AL;
        ecat_sfsm_al_request(m, s, now);
        return;
    case EP_POST:
        if ((rc = run_cmds(m, r, r->n_cmd, now)))
            break;
        enter(s, r, EP_COE_POST);
        /* fall through */
    case EP_COE_POST:
        if (coe_after(r) && ((rc = run_coe(m, r, now)) || (rc = ecat_eni_run_mbx(m, &r->mbx, r->pos, r->tr, now))))
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
        struct ecat_eni_run *r = s->er;
        if (!r || s->f.state != SS_ENI || r->phase != gate || r->tr != tr)
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
        int rc = run_cmds(m, mr, mr->n_cmd, now);
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
        if (s->f.state == SS_IDLE || s->f.state == SS_FAILED)
            continue;
        if (s->f.state != SS_ENI || !s->er ||
            (s->er->phase != EP_GATE_PRE && s->er->phase != EP_GATE_POST))
            return;
        if (!first)
            first = s->er;
    }
    if (!first)
        return;
    mr->tr = first->tr;
    mr->cur = first->cur;
    mr->nxt = first->nxt;
    mr->before = first->phase == EP_GATE_PRE;
    mr->k = 0;
    mr->sent = false;
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
        if (s->er && (s->info.al_state & AL_STATE_MASK) == AL_INIT && s->f.state != SS_IDLE &&
            s->f.state != SS_FAILED)
            return true;
    }
    return false;
}

/* --- set-up ------------------------------------------------------------------------ */

static int run_init(struct ecat_core *m, struct ecat_eni_run *r, int pos, const struct ecat_eni_cmd *cmd, unsigned n,
                    const struct ecat_eni_coe *coe, unsigned n_coe)
{
    memset(r, 0, sizeof *r);
    r->m = m;
    r->pos = pos;
    r->cmd = cmd;
    r->n_cmd = n;
    r->coe = coe;
    r->n_coe = n_coe;
    uint16_t cap = 16;
    size_t ccap = 64;
    for (unsigned i = 0; i < n; i++)
        if (cmd[i].len > cap)
            cap = cmd[i].len;
    for (unsigned i = 0; i < n_coe; i++)
        if ((size_t)coe[i].len + 16 > ccap)
            ccap = (size_t)coe[i].len + 16;
    r->cap = cap;
    r->ccap = ccap;
    r->buf = calloc(1, cap);
    r->cbuf = calloc(1, ccap);
    return r->buf && r->cbuf ? 0 : -ENOMEM;
}

void ecat_eni_exec_free(struct ecat_core *m)
{
    if (m->eni_runs) {
        for (unsigned i = 0; i < m->eni_nruns; i++) {
            free(m->eni_runs[i].buf);
            free(m->eni_runs[i].cbuf);
        }
    }
    free(m->eni_runs);
    m->eni_runs = NULL;
    m->eni_nruns = 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        m->slaves[i].er = NULL;
        m->slaves[i].al_timeout_ns = 0;
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
    int rc = run_init(m, master_run(m), -1, e->master_init, e->n_master_init, NULL, 0);
    for (unsigned i = 0; !rc && i < m->n_slaves && i < e->n_slaves; i++) {
        const struct ecat_eni_slave *es = &e->slave[i];
        rc = run_init(m, &m->eni_runs[i], (int)i, es->init, es->n_init, es->coe, es->n_coe);
        if (!rc && es->n_init)
            m->slaves[i].er = &m->eni_runs[i];
    }
    return rc ? rc : ecat_eni_mbx_setup(m);
}
