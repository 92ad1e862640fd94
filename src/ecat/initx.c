/* The init-command executor (initx.h): one slave's plan commands of one transition,
 * in their order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/initx.h"
#include "ecat/master_internal.h"
#include "util/wire.h"

static bool is_logical(uint8_t c) { return c == ECAT_LRD || c == ECAT_LWR || c == ECAT_LRW; }

/* ETG.1000.4 5.4: the commands that carry data to the slaves */
static bool is_write(uint8_t c)
{
    return c == ECAT_APWR || c == ECAT_FPWR || c == ECAT_BWR || c == ECAT_APRW ||
           c == ECAT_FPRW || c == ECAT_BRW || c == ECAT_LWR || c == ECAT_LRW;
}

/* A write with nothing to wait for or to put in: it may share a frame with its
 * neighbours (the slaves execute a frame's datagrams in order, ETG.1000.4 5.4). Not a
 * write of the station address or alias (0x0010-0x0013): an ESC takes written data
 * only once the frame's FCS checked out, so a command addressing the new station in
 * the same frame would find nobody. */
static bool plain_write(const struct ecat_plan_cmd *c)
{
    bool station = !is_logical(c->cmd) && c->ado < ESC_STATION_ADDR + 4 && c->ado + c->len > ESC_STATION_ADDR;
    return c->cmd != ECAT_APRW && c->cmd != ECAT_FPRW && c->cmd != ECAT_BRW && c->cmd != ECAT_LRW &&
           is_write(c->cmd) && !c->validate && !station && !(c->flags & (PLAN_F_START | PLAN_F_NEEDS_DC));
}

int ecat_initx_init(struct ecat_initx *x, const struct ecat_plan_slave *ps, const struct ecat_initx_ops *ops)
{
    memset(x, 0, sizeof *x);
    x->ops = *ops;
    x->ps = ps;
    x->before = -1;
    size_t cap = ECAT_INITX_BATCH_BYTES, ccap = 64;
    for (unsigned i = 0; ps && i < ps->n_cmd; i++) {
        const struct ecat_plan_cmd *c = &ps->cmd[i];
        if (c->kind == PLAN_REG && c->len > cap)
            cap = c->len;
        if (c->kind != PLAN_REG && (size_t)c->len + 16 > ccap)
            ccap = (size_t)c->len + 16;
    }
    x->cap = cap;
    x->ccap = ccap;
    x->buf = calloc(1, cap);
    x->cbuf = calloc(1, ccap);
    x->req = calloc(ECAT_INITX_BATCH, sizeof *x->req);
    return x->buf && x->cbuf && x->req ? 0 : -ENOMEM;
}

void ecat_initx_init_at(struct ecat_initx *x, const struct ecat_initx_ops *ops, struct ecat_req *req,
                        uint8_t *buf, size_t cap)
{
    memset(x, 0, sizeof *x);
    x->ops = *ops;
    x->before = -1;
    x->req = req;
    x->buf = buf;
    x->cap = cap;
    x->lent = true;
}

void ecat_initx_free(struct ecat_initx *x)
{
    if (x->lent)
        return;
    free(x->buf);
    free(x->cbuf);
    free(x->req);
    x->buf = x->cbuf = NULL;
    x->req = NULL;
}

/* The write of 0x0120 requesting the transition's target is the owner's AL request;
 * the validated read of 0x0130 for that state its wait (ETG.1000.6 6.4). */
static bool al_req(const struct ecat_initx *x, const struct ecat_plan_cmd *c)
{ return (c->flags & PLAN_F_AL_REQ) && c->len >= 1 && c->data && (c->data[0] & AL_STATE_MASK) == x->nxt; }
static bool al_check(const struct ecat_initx *x, const struct ecat_plan_cmd *c)
{ return (c->flags & PLAN_F_AL_CHECK) && c->len >= 1 && c->vdata && (c->vdata[0] & AL_STATE_MASK) == x->nxt; }

void ecat_initx_begin(struct ecat_initx *x, uint8_t tr, uint8_t nxt, int before)
{
    const struct ecat_plan_slave *ps = x->ps;
    x->tr = tr;
    x->nxt = nxt;
    x->before = (int8_t)before;
    x->split = ps->n_cmd;
    x->al_cmd = NULL;
    x->al_timeout_ms = 0;
    for (unsigned i = 0; i < ps->n_cmd; i++) {
        const struct ecat_plan_cmd *c = &ps->cmd[i];
        if (c->kind != PLAN_REG || !(c->transitions & ECAT_TR_BIT(tr)))
            continue;
        if (al_req(x, c) && x->split == ps->n_cmd) {
            x->split = i;
            if (c->timeout_ms && !x->al_timeout_ms) {
                x->al_timeout_ms = c->timeout_ms;
                x->al_cmd = c;
            }
        }
        if (al_check(x, c) && c->vtimeout_ms) {   /* the validate timeout is the transition's */
            x->al_timeout_ms = c->vtimeout_ms;
            x->al_cmd = c;
        }
    }
    ecat_initx_phase(x, INITX_PRE);
}

void ecat_initx_phase(struct ecat_initx *x, uint8_t phase)
{
    x->phase = phase;
    x->k = phase == INITX_POST ? x->split + 1 : 0;
    x->n = 0;
    x->mbx_busy = false;
}

static bool wanted(const struct ecat_initx *x, const struct ecat_plan_cmd *c, uint8_t phase)
{
    if (!(c->transitions & ECAT_TR_BIT(x->tr)))
        return false;
    if (phase == INITX_MBX)
        return c->kind != PLAN_REG;
    if (c->kind != PLAN_REG || (c->flags & PLAN_F_DC_OWN))
        return false;
    if (x->before >= 0 && c->before_slave != (x->before != 0))
        return false;
    return !al_req(x, c) && !al_check(x, c);
}

static unsigned end_of(const struct ecat_initx *x, uint8_t phase)
{ return phase == INITX_PRE ? x->split : x->ps->n_cmd; }

bool ecat_initx_pending(const struct ecat_initx *x)
{
    for (unsigned j = 0; j < x->n; j++)
        if (ecat_req_busy(&x->req[j]))
            return true;
    return false;
}

/* Put command j of the batch (cmd[idx[j]]) in request j at buf offset off. */
static void put(struct ecat_initx *x, unsigned j, size_t off)
{
    const struct ecat_plan_cmd *c = &x->ps->cmd[x->idx[j]];
    uint8_t *d = x->buf + off;
    if (c->len && c->data)
        memcpy(d, c->data, c->len);
    else
        memset(d, 0, c->len);
    /* the start time the plan holds is a placeholder: the live time is the owner's */
    if ((c->flags & PLAN_F_START) && c->ado <= ESC_DC_SYNC0_START && c->ado + c->len >= ESC_DC_SYNC0_START + 8)
        put_le64(d + (ESC_DC_SYNC0_START - c->ado), x->ops.start_time(x->ops.ctx, c));
    ecat_req_init(&x->req[j], c->cmd, c->adp, c->ado, d, c->len);
    x->ops.queue(x->ops.ctx, &x->req[j]);
}

/* Send the next commands from k: one, or consecutive plain writes together. 1: sent,
 * 0: waiting for the clocks. */
static int send_from(struct ecat_initx *x, unsigned end)
{
    const struct ecat_plan_cmd *c = &x->ps->cmd[x->k];
    if ((c->flags & PLAN_F_NEEDS_DC) && !x->ops.dc_ready(x->ops.ctx))
        return 0;
    x->n = 0;
    size_t off = 0;
    for (unsigned i = x->k; i < end && x->n < ECAT_INITX_BATCH; i++) {
        const struct ecat_plan_cmd *d = &x->ps->cmd[i];
        if (!wanted(x, d, x->phase))
            continue;
        if (x->n && (!plain_write(d) || !plain_write(c) || off + d->len > x->cap))
            break;
        x->idx[x->n] = i;
        put(x, x->n++, off);
        off += d->len;
        if (!plain_write(d))
            break;
    }
    return 1;
}

static bool validated(const struct ecat_plan_cmd *c, const uint8_t *got)
{
    if (!c->vdata)                  /* nothing to compare with */
        return true;
    for (unsigned i = 0; i < c->len; i++) {
        uint8_t mk = c->vmask ? c->vmask[i] : 0xFF;
        if ((got[i] & mk) != (c->vdata[i] & mk))
            return false;
    }
    return true;
}

static int failed(struct ecat_initx *x, uint8_t why, int err, const struct ecat_plan_cmd *c)
{
    x->fail.why = why;
    x->fail.err = err;
    x->fail.c = c;
    x->n = 0;
    return err;
}

/* Judge the batch's replies in order: the first that is not right is sent again (with
 * those after it) or fails. 1: busy, 0: all right, <0 failed. */
static int judge(struct ecat_initx *x, unsigned end, takt_ns_t now)
{
    for (unsigned j = 0; j < x->n; j++) {
        const struct ecat_plan_cmd *c = &x->ps->cmd[x->idx[j]];
        const struct ecat_req *r = &x->req[j];
        int wkc = r->wkc;
        bool wkc_ok = c->has_wkc ? wkc == c->wkc : wkc >= 0;
        bool again = false;
        if (!wkc_ok && !c->validate) {
            /* a lost frame gets its 3 tries even when the plan allows no retry */
            if (x->tries++ >= (c->retries > 3 || wkc >= 0 ? c->retries : 3u)) {
                x->fail.wkc = wkc;
                return failed(x, INITX_WKC, wkc < 0 ? -ETIMEDOUT : -TAKT_EWKC, c);
            }
            again = true;
        } else if (c->validate && !(wkc_ok && wkc > 0 && validated(c, r->data))) {
            takt_ns_t lim = c->vtimeout_ms ? (takt_ns_t)c->vtimeout_ms * TAKT_NS_PER_MS : x->validate_ns;
            if (now - x->t0 > lim) {
                x->fail.wkc = wkc;
                x->fail.got = r->data;
                x->fail.got_len = wkc > 0 ? c->len : 0;
                x->fail.ms = c->vtimeout_ms;
                return failed(x, INITX_VALIDATE, -ETIMEDOUT, c);
            }
            again = true;
        }
        if (again) {
            x->k = x->idx[j];
            send_from(x, end);
            return 1;
        }
        if (x->ops.written && is_write(c->cmd) && !is_logical(c->cmd))
            x->ops.written(x->ops.ctx, c);
        x->tries = 0;
    }
    x->k = x->idx[x->n - 1] + 1;
    x->n = 0;
    return 0;
}

static int step_mbx(struct ecat_initx *x, takt_ns_t now)
{
    const struct ecat_plan_slave *ps = x->ps;
    for (;;) {
        while (x->k < ps->n_cmd && !wanted(x, &ps->cmd[x->k], INITX_MBX))
            x->k++;
        if (x->k >= ps->n_cmd)
            return 0;
        const struct ecat_plan_cmd *c = &ps->cmd[x->k];
        if (!x->mbx_busy && !x->n) {
            x->fail.msg[0] = 0;
            x->mbx_busy = true;
            x->n = 1;           /* marks "started" for mailbox commands */
            int rc = x->ops.mbx_start(x->ops.ctx, c, x->cbuf, x->ccap);
            if (rc) {
                x->mbx_busy = false;
                return failed(x, INITX_MBX_START, rc, c);
            }
            x->mbx_deadline = now + (c->timeout_ms ? (takt_ns_t)c->timeout_ms * TAKT_NS_PER_MS : x->mbx_ns);
            return 1;
        }
        if (x->mbx_busy) {
            if (now <= x->mbx_deadline)
                return 1;
            return failed(x, INITX_MBX_TIMEOUT, -ETIMEDOUT, c);
        }
        if (x->mbx_rc)
            return failed(x, INITX_MBX_ERR, x->mbx_rc, c);
        /* an upload with data checks what the slave holds */
        if (c->kind == PLAN_COE && c->ccs == 2 && c->len &&
            (x->mbx_len != c->len || memcmp(x->cbuf, c->data, c->len))) {
            x->fail.got = x->cbuf;
            x->fail.got_len = x->mbx_len < x->ccap ? x->mbx_len : x->ccap;
            return failed(x, INITX_MBX_DATA, -TAKT_ECONFIG, c);
        }
        x->n = 0;
        x->k++;
    }
}

void ecat_initx_mbx_done(struct ecat_initx *x, int err, size_t len, const char *msg)
{
    if (!x->mbx_busy)
        return;
    if (err && msg)
        snprintf(x->fail.msg, sizeof x->fail.msg, "%.*s", (int)sizeof x->fail.msg - 1, msg);
    x->mbx_rc = err;
    x->mbx_len = len;
    x->mbx_busy = false;
}

int ecat_initx_step(struct ecat_initx *x, takt_ns_t now)
{
    if (x->phase == INITX_MBX)
        return step_mbx(x, now);
    unsigned end = end_of(x, x->phase);
    for (;;) {
        if (x->n) {
            if (ecat_initx_pending(x))
                return 1;
            int rc = judge(x, end, now);
            if (rc)
                return rc;
        }
        while (x->k < end && !wanted(x, &x->ps->cmd[x->k], x->phase))
            x->k++;
        if (x->k >= end)
            return 0;
        x->tries = 0;
        x->t0 = now;
        send_from(x, end);  /* or, for a command that needs them, wait for the clocks */
        return 1;
    }
}
