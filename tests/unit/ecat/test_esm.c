/* One slave's ESM (esm.c, struct ecat_esm) on its own: a core with one slave and no
 * link, no frames and no clock. The test is the slave: it takes the requests the ESM
 * queued, answers them from a small register model (AL control, AL status and code,
 * the SyncManagers) and steps the machine with a time it advances itself. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/core.h"
#include "ecat/master_internal.h"
#include "util/wire.h"

#define STEP (TAKT_NS_PER_MS)

struct rig {
    struct ecat_core *c;
    struct ecat_slave *s;
    takt_ns_t now;
    /* the slave's model */
    uint8_t  al;               /* AL status 0x0130 */
    uint16_t code;             /* AL status code 0x0134 */
    uint8_t  refuse;           /* a request for this state is refused ... */
    uint16_t refuse_code;      /* ... with this code */
    bool     stuck;            /* requests are taken but the state never changes */
    uint8_t  mem[0x1000];      /* what the master wrote, by register */
    unsigned lose;             /* replies of the next requests to lose */
    unsigned lost, acks, al_writes;
    char     ev[16][300];
    unsigned nev;
};

static struct rig *rig_new(void)
{
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 1;
    o.state_timeout_ns = 2 * TAKT_NS_PER_S;
    r->c = calloc(1, sizeof *r->c);
    assert_non_null(r->c);
    char err[200];
    r->now = 10 * TAKT_NS_PER_S;
    assert_int_equal(ecat_core_init(r->c, mac, "test", &o, r->now, err, sizeof err), 0);
    r->c->n_slaves = 1;
    r->s = &r->c->slaves[0];
    r->s->info.station = 0x1001;
    r->s->info.present = true;
    r->s->info.mbx_out_start = 0x1000;
    r->s->info.mbx_out_len = 128;
    r->s->info.mbx_in_start = 0x1080;
    r->s->info.mbx_in_len = 128;
    r->al = AL_INIT;
    return r;
}

static void rig_free(struct rig *r)
{
    ecat_core_free(r->c);
    free(r->c);
    free(r);
}

static void take_events(struct rig *r)
{
    struct takt_event ev;
    while (rt_evring_next(&r->c->ev, &ev)) {
        char *b = r->ev[r->nev < 16 ? r->nev : 15];
        if (rt_ev_ring_format(&ev, b, sizeof r->ev[0]) < 0)
            ecat_ev_format(&ev, b, sizeof r->ev[0]);
        if (r->nev < 16)
            r->nev++;
    }
}

static unsigned events(struct rig *r, const char *needle)
{
    take_events(r);
    unsigned n = 0;
    for (unsigned i = 0; i < r->nev; i++)
        n += strstr(r->ev[i], needle) != NULL;
    return n;
}

/* The slave answers one request: ETG.1000.6 6.4, an AL control write moves the state
 * or sets the error indication with a code; a write with the acknowledge bit clears it. */
static void answer(struct rig *r, struct ecat_req *q)
{
    assert_int_equal(q->adp, 0x1001);
    if (r->lose) {
        r->lose--;
        r->lost++;
        q->wkc = -1;
        q->st = REQ_DONE;
        return;
    }
    if (q->cmd == ECAT_FPWR) {
        assert_true(q->ado + q->len <= sizeof r->mem);
        memcpy(r->mem + q->ado, q->data, q->len);
        if (q->ado == ESC_AL_CONTROL) {
            uint8_t v = q->data[0];
            r->al_writes++;
            if (v & AL_ACK) {
                r->acks++;
                r->al &= (uint8_t)~AL_ERROR;
                r->code = 0;
            } else if (v == r->refuse) {
                r->al |= AL_ERROR;
                r->code = r->refuse_code;
            } else if (!r->stuck) {
                r->al = v & AL_STATE_MASK;
            }
        }
    } else if (q->cmd == ECAT_FPRD && q->ado == ESC_AL_STATUS) {
        memset(q->data, 0, q->len);
        q->data[0] = r->al;
        if (q->len >= 6)
            put_le16(q->data + 4, r->code);
    } else {
        fail_msg("unexpected request cmd %u ado 0x%04X", q->cmd, q->ado);
    }
    q->wkc = 1;
    q->st = REQ_DONE;
}

/* One step: the machine judges what came back and queues its next requests, which the
 * slave answers before the next step. */
static void step(struct rig *r)
{
    ecat_sfsm_step(r->c, r->s, r->now);
    struct ecat_req *q = r->c->q_head;
    r->c->q_head = r->c->q_tail = NULL;
    while (q) {
        struct ecat_req *n = q->next;
        q->next = NULL;
        answer(r, q);
        q = n;
    }
    r->now += STEP;
}

static bool settled(const struct rig *r)
{ return r->s->esm.f.state == SS_IDLE || r->s->esm.f.state == SS_FAILED; }

static void run(struct rig *r, uint8_t target)
{
    ecat_slave_goto(r->c, r->s, target, r->now);
    for (unsigned i = 0; i < 10000 && !settled(r); i++)
        step(r);
    assert_true(settled(r));
}

/* INIT -> PREOP -> SAFEOP -> OP: the plan's mailbox SMs are written before the PREOP
 * request (SM0 and SM1 as the SII's mailbox says), each state is requested in turn. */
static void test_init_to_op(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    run(r, AL_PREOP);
    assert_int_equal(r->s->esm.f.state, SS_IDLE);
    assert_int_equal(r->al, AL_PREOP);
    assert_int_equal(get_le16(r->mem + ESC_SM0), 0x1000);
    assert_int_equal(get_le16(r->mem + ESC_SM0 + 2), 128);
    assert_int_equal(get_le16(r->mem + ESC_SM0 + 8), 0x1080);
    assert_int_equal(r->mem[ESC_SM0 + 6], 1);              /* SM0 enabled */
    run(r, AL_OP);
    assert_int_equal(r->s->esm.f.state, SS_IDLE);
    assert_int_equal(r->al, AL_OP);
    assert_int_equal(r->s->info.al_state, AL_OP);
    assert_int_equal(r->al_writes, 3);                     /* PREOP, SAFEOP, OP */
    assert_int_equal(r->s->esm.f.err, 0);
    assert_int_equal(events(r, "slave"), 0);
    rig_free(r);
}

/* A refused request: the error indication is read with its code (0x0134), said in an
 * event, and acknowledged by writing the current state with 0x10 (ETG.1000.6 6.4). */
static void test_refusal_read_and_acknowledged(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    run(r, AL_PREOP);
    r->refuse = AL_SAFEOP;
    r->refuse_code = 0x001D;                               /* invalid output configuration */
    run(r, AL_SAFEOP);
    assert_int_equal(r->s->esm.f.state, SS_FAILED);
    assert_int_equal(r->s->esm.f.err, -TAKT_EALSTATUS);
    assert_int_equal(r->s->info.al_code, 0x001D);
    assert_int_equal(r->acks, 1);
    assert_int_equal(r->mem[ESC_AL_CONTROL], AL_PREOP | AL_ACK);
    assert_int_equal(r->al, AL_PREOP);                     /* the indication is gone */
    assert_int_equal(events(r, "code 0x001D"), 1);
    rig_free(r);
}

/* A slave that never reaches the state: the wait ends after the timeout and the event
 * names the state it stayed in and the one requested. */
static void test_al_wait_timeout(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    run(r, AL_PREOP);
    r->stuck = true;
    takt_ns_t t0 = r->now;
    run(r, AL_SAFEOP);
    assert_int_equal(r->s->esm.f.state, SS_FAILED);
    assert_int_equal(r->s->esm.f.err, -ETIMEDOUT);
    assert_true(r->now - t0 >= 2 * TAKT_NS_PER_S);
    assert_true(r->now - t0 < 3 * TAKT_NS_PER_S);
    assert_int_equal(events(r, "still PREOP"), 1);
    assert_int_equal(events(r, "after requesting SAFEOP"), 1);
    rig_free(r);
}

/* A lost reply (no frame back) is retried: the machine still reaches OP, and nothing
 * is said. Four losses in a row of one request fail it with the register named. */
static void test_lost_reply_retried(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    r->lose = 1;                                           /* the first AL status read */
    run(r, AL_PREOP);
    r->lose = 1;
    run(r, AL_OP);
    assert_int_equal(r->lost, 2);
    assert_int_equal(r->s->esm.f.state, SS_IDLE);
    assert_int_equal(r->al, AL_OP);
    assert_int_equal(events(r, "slave"), 0);
    r->lose = 4;
    run(r, AL_SAFEOP);
    assert_int_equal(r->s->esm.f.state, SS_FAILED);
    assert_int_equal(r->s->esm.f.err, -ETIMEDOUT);
    assert_int_equal(events(r, "no frame returned"), 1);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_to_op),
        cmocka_unit_test(test_refusal_read_and_acknowledged),
        cmocka_unit_test(test_al_wait_timeout),
        cmocka_unit_test(test_lost_reply_retried),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
