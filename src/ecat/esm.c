/* Per-slave state machine: station address, ESC registers and SII at scan, then the
 * EtherCAT state machine (ETG.1000.6 6.4): before each AL request the transition's
 * set-up commands of the slave's plan (esm.h: SM/FMMU before PREOP and SAFEOP) run
 * through the init-command executor (initx.h), the one an ENI's slaves use too.
 * enter_* queues requests, state_* judges the answers once all returned. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "ecat/sii.h"
#include "util/wire.h"

#define SII_TRIES 3

struct ecat_req *ecat_sfsm_req(struct ecat_sfsm *f, unsigned i, uint8_t cmd, uint16_t adp,
                               uint16_t ado, const void *data, uint16_t len)
{
    if (len > ECAT_REQ_DATA)
        len = ECAT_REQ_DATA;
    if (data)
        memcpy(f->buf[i], data, len);
    else
        memset(f->buf[i], 0, len);
    ecat_req_init(&f->req[i], cmd, adp, ado, f->buf[i], len);
    return &f->req[i];
}

bool ecat_sfsm_pending(const struct ecat_sfsm *f)
{
    for (unsigned i = 0; i < f->nreq; i++)
        if (ecat_req_busy(&f->req[i]))
            return true;
    return false;
}

static void send(struct ecat_core *m, struct ecat_slave *s, unsigned n, uint8_t state, takt_ns_t now)
{
    s->esm.f.nreq = n;
    for (unsigned i = 0; i < n; i++)
        ecat_req_queue(m, &s->esm.f.req[i]);
    s->esm.f.state = state;
    (void)now;
}

static void fpwr(struct ecat_slave *s, unsigned i, uint16_t reg, const void *d, uint16_t len)
{ ecat_sfsm_req(&s->esm.f, i, ECAT_FPWR, s->info.station, reg, d, len); }
static void fprd(struct ecat_slave *s, unsigned i, uint16_t reg, uint16_t len)
{ ecat_sfsm_req(&s->esm.f, i, ECAT_FPRD, s->info.station, reg, NULL, len); }

static void fail(struct ecat_core *m, struct ecat_slave *s, int err)
{
    s->esm.f.err = err;
    s->esm.f.state = SS_FAILED;
    m->rec.watch = true;            /* recovery looks at failed slaves (readdress) */
}

/* A request that came back with the wrong WKC is retried a few times (frames may be
 * lost); then the machine fails with the register named. */
static bool check_wkc(struct ecat_core *m, struct ecat_slave *s, unsigned i, int expect,
                      const char *what, void (*again)(struct ecat_core *, struct ecat_slave *, takt_ns_t),
                      takt_ns_t now)
{
    const struct ecat_req *r = &s->esm.f.req[i];
    if (r->wkc == expect)
        return true;
    if (++s->esm.f.retries <= 3) {
        again(m, s, now);
        return false;
    }
    ECAT_FAILT(m, r->wkc < 0 ? -ETIMEDOUT : -TAKT_EWKC, TAKT_ECAT_EV_ESM_WKC, s->info.position, RT_TXT(what),
               s->info.station, r->cmd, r->ado, expect, r->wkc, r->wkc < 0);
    fail(m, s, r->wkc < 0 ? -ETIMEDOUT : -TAKT_EWKC);
    return false;
}

/* --- scan ------------------------------------------------------------------------- */

static void enter_addr(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    uint8_t a[2];
    put_le16(a, s->info.station);
    /* ETG.1000.4 commands: APWR addresses by position, ADP = -position */
    ecat_sfsm_req(&s->esm.f, 0, ECAT_APWR, (uint16_t)(0u - s->info.position), ESC_STATION_ADDR, a, 2);
    send(m, s, 1, SS_ADDR, now);
}

static void enter_esc(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    fprd(s, 0, ESC_TYPE, 10);          /* type, revision, build, FMMUs, SMs, RAM, ports, features */
    fprd(s, 1, ESC_DL_STATUS, 2);
    fprd(s, 2, ESC_STATION_ALIAS, 2);
    fprd(s, 3, ESC_AL_STATUS, 6);      /* 0x0130 status, 0x0134 code */
    fprd(s, 4, ESC_SM0 + ESC_SM_SIZE + 7, 1);   /* 0x080F: SM1 repeat acknowledge */
    send(m, s, 5, SS_ESC, now);
}

static void state_addr(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (!check_wkc(m, s, 0, 1, "station address", enter_addr, now))
        return;
    s->esm.f.retries = 0;
    enter_esc(m, s, now);
}

void ecat_sfsm_state_esc(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    for (unsigned i = 0; i < 5; i++)
        if (!check_wkc(m, s, i, 1, "ESC register", enter_esc, now))
            return;
    /* ETG.1000.4 SyncManager: a repeat request is a toggle of 0x080E bit 1 against the slave's
     * acknowledge 0x080F bit 1; start in step with it or the first SM1 set-up asks for
     * a stale reply again (a previous master may have toggled it) */
    s->mbx.repeat = (s->esm.f.buf[4][0] >> 1) & 1;
    const uint8_t *b = s->esm.f.buf[0];
    s->info.esc_type = b[0];
    s->info.esc_rev = b[1];
    s->info.esc_features = get_le16(b + 8);
    s->info.dc = (s->info.esc_features & 0x0004) != 0;
    s->info.dl_status = get_le16(s->esm.f.buf[1]);
    s->info.al_state = s->esm.f.buf[3][0];
    s->al_fno = s->esm.f.req[3].fno;
    s->info.al_code = get_le16(s->esm.f.buf[3] + 4);
    s->info.present = true;
    ecat_al_changed(m);
    s->esm.f.retries = 0;
    s->scan.sii_len = 0;
    s->esm.f.sii_word = 0;
    ecat_sfsm_enter_sii(m, s, now);
}

/* The EEPROM interface has one user at a time (ETG.1000.4 6.4): a tool's SII write
 * through the driver holds it between a word's data and its write command, and a read
 * command of ours in between would put the read's data into the EEPROM. The core takes
 * the interface for its first slave that reads its SII (at scan, and when recovery
 * scans a returned slave again) and keeps it until none reads any more
 * (ecat_sii_turn_end); a read that finds it taken, or a write waiting for it, waits in
 * SS_SII_WAIT. The write and the driver's rescan hold it for bounded steps. */
static bool sii_turn(struct ecat_core *m)
{
    if (atomic_load_explicit(&m->sii_user, memory_order_acquire) == ECAT_SII_CORE)
        return true;
    if (atomic_load(&m->sii_wanted))
        return false;
    int free_ = ECAT_SII_FREE;
    return atomic_compare_exchange_strong(&m->sii_user, &free_, ECAT_SII_CORE);
}

static bool sii_reading(uint8_t st)
{ return st == SS_SII_CMD || st == SS_SII_POLL; }

void ecat_sii_turn_end(struct ecat_core *m)
{
    if (atomic_load_explicit(&m->sii_user, memory_order_relaxed) != ECAT_SII_CORE)
        return;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (sii_reading(m->slaves[i].esm.f.state))
            return;
    atomic_store_explicit(&m->sii_user, ECAT_SII_FREE, memory_order_release);
}

/* SII read (ETG.1000.4 SII access): command + word address in one 6-byte write to 0x0502, then poll
 * 0x0502..0x050F until busy clears and take 4 or 8 data bytes. */
void ecat_sfsm_enter_sii(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (!sii_turn(m)) {
        s->esm.f.nreq = 0;
        if (s->esm.f.state != SS_SII_WAIT)
            s->esm.f.t0 = now;
        s->esm.f.state = SS_SII_WAIT;
        return;
    }
    uint8_t c[6];
    put_le16(c, SII_CMD_READ);
    put_le32(c + 2, s->esm.f.sii_word);
    fpwr(s, 0, ESC_SII_CTRL, c, 6);
    send(m, s, 1, SS_SII_CMD, now);
}

static void enter_sii_poll(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    fprd(s, 0, ESC_SII_CTRL, 14);
    send(m, s, 1, SS_SII_POLL, now);
}

void ecat_sfsm_state_sii_cmd(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (!check_wkc(m, s, 0, 1, "SII command", ecat_sfsm_enter_sii, now))
        return;
    s->esm.f.t0 = now;
    enter_sii_poll(m, s, now);
}

/* True once the categories read so far reach the end marker, or the reads reach what
 * the EEPROM holds (word 0x003E, ETG.2010; a category running past it is the decoder's
 * to report). */
static bool sii_complete(const struct ecat_slave *s)
{
    size_t need;
    return s->scan.sii_len >= ecat_sii_read_limit(s->scan.sii) || ecat_sii_need(s->scan.sii, s->scan.sii_len, &need) == 0;
}

void ecat_sfsm_state_sii_poll(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (!check_wkc(m, s, 0, 1, "SII status", enter_sii_poll, now))
        return;
    const uint8_t *b = s->esm.f.buf[0];
    uint16_t ctrl = get_le16(b);
    if (ctrl & SII_BUSY) {
        if (now - s->esm.f.t0 > 100 * TAKT_NS_PER_MS) {
            ECAT_FAIL(m, -ETIMEDOUT, TAKT_ECAT_EV_SII_BUSY, s->info.position, ctrl, s->esm.f.sii_word);
            fail(m, s, -ETIMEDOUT);
            return;
        }
        enter_sii_poll(m, s, now);
        return;
    }
    if (ctrl & (SII_ERR_ACK | SII_ERR_LOAD)) {
        if (++s->esm.f.retries > SII_TRIES) {
            ECAT_FAIL(m, -TAKT_ESII, TAKT_ECAT_EV_SII_READ_FAILED, s->info.position, s->esm.f.sii_word, ctrl, SII_TRIES);
            fail(m, s, -TAKT_ESII);
            return;
        }
        ecat_sfsm_enter_sii(m, s, now);
        return;
    }
    unsigned n = (ctrl & SII_READ8) ? 8 : 4;
    s->scan.sii_8byte = n == 8;
    if (s->scan.sii_len + n > s->scan.sii_cap && ecat_sii_grow(s, s->scan.sii_len + n) < 0) {
        ECAT_FAIL(m, -ENOMEM, TAKT_ECAT_EV_SII_NO_MEMORY, s->info.position, s->esm.f.sii_word);
        fail(m, s, -ENOMEM);
        return;
    }
    memcpy(s->scan.sii + s->scan.sii_len, b + 6, n);
    s->scan.sii_len += n;
    s->esm.f.sii_word += n / 2;
    s->esm.f.retries = 0;
    if (s->scan.sii_len > 2 * SII_W_CATEGORIES && sii_complete(s)) {
        int rc = ecat_sii_parse(m, s);
        s->scan.done = rc == 0;
        if (rc)
            fail(m, s, rc);
        else
            s->esm.f.state = SS_IDLE;
        return;
    }
    ecat_sfsm_enter_sii(m, s, now);
}

void ecat_slave_scan_start(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    s->esm.f.retries = 0;
    s->esm.f.err = 0;
    enter_addr(m, s, now);
}

/* --- AL state machine (ETG.1000.6 6.4) ------------------------------------------------------ */

static void next_step(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);

static void enter_al_req(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    uint8_t c[2] = { s->esm.f.requested, 0 };
    fpwr(s, 0, ESC_AL_CONTROL, c, 2);
    send(m, s, 1, SS_AL_REQ, now);
}

static void enter_al_wait(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    fprd(s, 0, ESC_AL_STATUS, 6);
    send(m, s, 1, SS_AL_WAIT, now);
}

static void enter_al_ack(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    /* ETG.1000.6 6.4: the error indication stays until the current state is written with 0x10 */
    uint8_t c[2] = { (uint8_t)((s->info.al_state & AL_STATE_MASK) | AL_ACK), 0 };
    fpwr(s, 0, ESC_AL_CONTROL, c, 2);
    send(m, s, 1, SS_AL_ACK, now);
}

static void state_al_req(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (!check_wkc(m, s, 0, 1, "AL control", enter_al_req, now))
        return;
    s->esm.f.retries = 0;
    s->esm.f.t0 = now;
    enter_al_wait(m, s, now);
}

/* AL status codes by which a slave says it needs SYNC0 from distributed clocks
 * (ETG.1000.6 Table 11 "AL Status Codes": 0x002C fatal sync error, 0x002D no sync error,
 * 0x0030 invalid DC SYNC configuration, 0x0032 PLL error, 0x0033..0x0036 DC sync IO
 * error, sync timeout, invalid sync and SYNC0 cycle times). A DC servo in SYNC0 mode
 * refuses SAFEOP with 0x0030 when no master set its clock up. */
static bool al_code_wants_dc(uint16_t code)
{
    return code == 0x002C || code == 0x002D || code == 0x0030 || (code >= 0x0032 && code <= 0x0036);
}

static void state_al_wait(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (!check_wkc(m, s, 0, 1, "AL status", enter_al_wait, now))
        return;
    s->esm.f.retries = 0;
    uint8_t st = s->esm.f.buf[0][0];
    uint16_t code = get_le16(s->esm.f.buf[0] + 4);
    if (s->info.al_state != st || s->info.al_code != code)
        ecat_al_changed(m);   /* a poll that reads the same costs no republication */
    s->info.al_state = st;
    s->al_fno = s->esm.f.req[0].fno;
    s->info.al_code = code;
    if (s->esm.f.requested == 0) {               /* only reading where the slave is */
        next_step(m, s, now);
        return;
    }
    if (st & AL_ERROR) {
        ECAT_FAILT(m, -TAKT_EALSTATUS, TAKT_ECAT_EV_ESM_REFUSED, s->info.position, RT_TXT(s->info.name[0] ? s->info.name : "?"),
               s->info.station, st & AL_STATE_MASK, s->esm.f.requested, st, code, code, !m->o.dc && al_code_wants_dc(code));
        s->esm.f.err = -TAKT_EALSTATUS;
        enter_al_ack(m, s, now);
        return;
    }
    if ((st & AL_STATE_MASK) == s->esm.f.requested) {
        if (!ecat_eni_reached(m, s, now))   /* the ENI's commands after the request */
            next_step(m, s, now);
        return;
    }
    if (now - s->esm.f.t0 > (s->esm.al_timeout_ns ? s->esm.al_timeout_ns : m->o.state_timeout_ns)) {
        char note[200];
        ECAT_FAILT(m, -ETIMEDOUT, TAKT_ECAT_EV_ESM_TIMEOUT, s->info.position, RT_TXT(ecat_eni_al_note(m, s, note, sizeof note)),
               s->info.station, st & AL_STATE_MASK, (now - s->esm.f.t0) / TAKT_NS_PER_MS, s->esm.f.requested);
        fail(m, s, -ETIMEDOUT);
        return;
    }
    enter_al_wait(m, s, now);
}

static void state_al_ack(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    (void)now;
    s->info.al_state &= AL_STATE_MASK;
    ecat_al_changed(m);
    s->esm.f.state = s->esm.f.err ? SS_FAILED : SS_IDLE;
    m->rec.watch |= s->esm.f.err != 0;      /* as fail() */
    if (!s->esm.f.err)
        next_step(m, s, now);
}

/* DC slaves wait in SS_DC until dc.c armed SYNC0 (before PREOP -> SAFEOP, else AL status 0x0030, ETG.1000.6 Table 11). */
static void request_safeop(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    s->esm.f.requested = AL_SAFEOP;
    if (m->o.dc && s->info.dc) {
        s->esm.f.state = SS_DC;
        return;
    }
    enter_al_req(m, s, now);
}

/* --- takt's own set-up: the slave's plan commands run by the executor (esm.h) ------ */

static void x_queue(void *ctx, struct ecat_req *r)
{
    struct ecat_slave *s = ctx;
    ecat_req_queue(s->esm.m, r);
}
static bool x_dc_ready(void *ctx)
{
    struct ecat_slave *s = ctx;
    return s->esm.m->dc.active;
}
static uint64_t x_start(void *ctx, const struct ecat_plan_cmd *c)
{
    struct ecat_slave *s = ctx;
    (void)c;
    return ecat_dc_start_time(s->esm.m, s->esm.m->now, s->esm.m->o.sync0_shift_ns);
}
static int x_mbx(void *ctx, const struct ecat_plan_cmd *c, uint8_t *buf, size_t cap)
{
    (void)ctx; (void)c; (void)buf; (void)cap;
    return -ENOTSUP;                /* takt's own set-up has no mailbox commands */
}

/* (Re)build the slave's plan from what its SII and the layout say now. */
static int esm_build(struct ecat_core *m, struct ecat_slave *s)
{
    struct ecat_esm *e = &s->esm;
    e->built = false;
    int rc = ecat_plan_sii_slave(&e->plan, m, (unsigned)(s - m->slaves));
    if (rc)
        return rc;
    const struct ecat_initx_ops ops = { s, x_queue, x_dc_ready, x_start, x_mbx, NULL };
    ecat_initx_init_at(&e->x, &ops, s->esm.f.req, &s->esm.f.buf[0][0], sizeof s->esm.f.buf);
    e->x.ps = &e->plan.slave[0];
    e->x.validate_ns = m->o.state_timeout_ns;
    e->m = m;
    e->built = true;
    return 0;
}

int ecat_esm_init(struct ecat_slave *s)
{
    return ecat_plan_reserve(&s->esm.plan, ECAT_ESM_PLAN_CMDS, ECAT_ESM_PLAN_BYTES);
}

void ecat_esm_free(struct ecat_slave *s)
{
    ecat_plan_free(&s->esm.plan);
    s->esm.built = false;
}

static void state_setup(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    struct ecat_initx *x = &s->esm.x;
    int rc = ecat_initx_step(x, now);
    s->esm.f.nreq = x->n;
    if (rc > 0)
        return;
    if (rc < 0) {
        /* a set-up write came back with the wrong WKC after its retries (frames may be
         * lost): the register named */
        const struct ecat_plan_cmd *c = x->fail.c;
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_ESM_WKC, s->info.position, RT_TXT(c->comment), s->info.station, c->cmd,
                   c->ado, c->wkc, x->fail.wkc, x->fail.wkc < 0);
        fail(m, s, rc);
        return;
    }
    s->esm.f.retries = 0;
    if (s->esm.f.requested == AL_SAFEOP)
        request_safeop(m, s, now);
    else
        enter_al_req(m, s, now);
}

/* The plan's commands of transition tr before the AL request to nxt: the mailbox SMs
 * before INIT -> PREOP, the bootstrap mailbox before INIT -> BOOT, the process data
 * SMs and FMMUs before PREOP -> SAFEOP (plan_sii.c); then the request. */
static void enter_setup(struct ecat_core *m, struct ecat_slave *s, uint8_t tr, uint8_t nxt, takt_ns_t now)
{
    s->esm.f.requested = nxt;
    if (!s->esm.built) {
        ECAT_FAIL(m, -ENOMEM, TAKT_ECAT_EV_SII_NO_MEMORY, s->info.position, 0);
        fail(m, s, -ENOMEM);
        return;
    }
    ecat_initx_begin(&s->esm.x, tr, nxt, -1);
    s->esm.f.state = SS_SETUP;
    state_setup(m, s, now);
}

/* ENI-driven slaves: the runner did the set-up; the AL request is the master's. */
void ecat_sfsm_al_request(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    s->esm.f.retries = 0;
    if (s->esm.f.requested == AL_SAFEOP)
        request_safeop(m, s, now);
    else
        enter_al_req(m, s, now);
}

static void state_dc(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    /* SYNC0 is armed by dc.c for all DC slaves at once; then the request goes out. */
    if (!m->dc.active)
        return;
    enter_al_req(m, s, now);
}

static int order(uint8_t st)
{
    switch (st & AL_STATE_MASK) {
    case AL_INIT: return 1;
    case AL_PREOP: return 2;
    case AL_SAFEOP: return 3;
    case AL_OP: return 4;
    default: return 0;
    }
}

static void next_step(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    uint8_t cur = s->info.al_state & AL_STATE_MASK, tgt = s->esm.f.target;
    s->esm.f.retries = 0;
    if (s->info.al_state & AL_ERROR) {
        enter_al_ack(m, s, now);
        return;
    }
    if (cur == tgt) {
        s->esm.f.state = SS_IDLE;
        return;
    }
    uint8_t nxt = tgt == AL_BOOT || cur == AL_BOOT || order(tgt) < order(cur) || order(cur) == 0
                  ? ((tgt == AL_BOOT && cur != AL_INIT) || cur == AL_BOOT ? AL_INIT : tgt)
                  : cur == AL_INIT ? AL_PREOP : cur == AL_PREOP ? AL_SAFEOP : AL_OP;
    if (ecat_eni_begin(m, s, cur, nxt, now))    /* the ENI's commands, then the request */
        return;
    if (tgt == AL_BOOT && cur == AL_INIT) {
        enter_setup(m, s, ECAT_TR_IB, AL_BOOT, now);
        return;
    }
    if (tgt == AL_BOOT || cur == AL_BOOT || order(tgt) < order(cur) || order(cur) == 0) {
        s->esm.f.requested = (tgt == AL_BOOT && cur != AL_INIT) || cur == AL_BOOT ? AL_INIT : tgt;
        enter_al_req(m, s, now);
        return;
    }
    switch (cur) {
    case AL_INIT: enter_setup(m, s, ECAT_TR_IP, AL_PREOP, now); break;
    case AL_PREOP: enter_setup(m, s, ECAT_TR_PS, AL_SAFEOP, now); break;
    default: s->esm.f.requested = AL_OP; enter_al_req(m, s, now); break;
    }
}

void ecat_sfsm_next(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{ next_step(m, s, now); }

void ecat_slave_goto(struct ecat_core *m, struct ecat_slave *s, uint8_t target, takt_ns_t now)
{
    /* takt's own set-up as the SII and the layout say now (after a re-scan too); a
     * failure is said where the set-up would run */
    if (!s->esm.er && esm_build(m, s))
        s->esm.built = false;
    s->esm.f.target = target;
    s->esm.f.err = 0;
    s->esm.f.retries = 0;
    s->esm.f.requested = 0;
    s->esm.f.t0 = now;
    enter_al_wait(m, s, now);       /* read where it is first */
}

static void state_none(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{ (void)m; (void)s; (void)now; }

/* A write holds the interface for one chunk at a time and a rescan for one read of
 * every slave, each bounded; a wait far beyond those means a user that never gives it
 * back, and the read fails with that said rather than waiting for ever. */
static void state_sii_wait(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (now - s->esm.f.t0 > ECAT_SII_WAIT_MAX_NS) {
        ECAT_FAIL(m, -EBUSY, TAKT_ECAT_EV_SII_WAIT_TIMEOUT, s->info.position,
                  (unsigned)(ECAT_SII_WAIT_MAX_NS / TAKT_NS_PER_S));
        fail(m, s, -EBUSY);
        return;
    }
    ecat_sfsm_enter_sii(m, s, now);
}

typedef void (*sfsm_fn)(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
/* SS_IDLE and SS_FAILED take no step: the master timer (core.c) does not call them */
static const sfsm_fn sfsm_states[SS_COUNT] = {
    [SS_IDLE] = state_none, [SS_ADDR] = state_addr, [SS_ESC] = ecat_sfsm_state_esc,
    [SS_SII_CMD] = ecat_sfsm_state_sii_cmd, [SS_SII_POLL] = ecat_sfsm_state_sii_poll,
    [SS_SETUP] = state_setup, [SS_DC] = state_dc,
    [SS_AL_REQ] = state_al_req, [SS_AL_WAIT] = state_al_wait, [SS_AL_ACK] = state_al_ack,
    [SS_FAILED] = state_none, [SS_ENI] = ecat_eni_state, [SS_SII_WAIT] = state_sii_wait,
};
_Static_assert(TAKT_ARRAY_SIZE(sfsm_states) == SS_COUNT, "one function per slave state");

void ecat_sfsm_step(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now)
{
    if (ecat_sfsm_pending(&s->esm.f))
        return;
    sfsm_states[s->esm.f.state](m, s, now);
}
