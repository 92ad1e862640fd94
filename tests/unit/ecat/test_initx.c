/* The init-command executor (initx.h) driven by hand: no core, no link, no clock. The
 * requests it hands out are answered here (WKC, data) and the time is given. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ecat/eni.h"
#include "ecat/initx.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"
#include "util/wire.h"

struct host {
    struct ecat_req *q[64];     /* queued, in order */
    unsigned nq, done;          /* ... answered so far */
    bool dc;
    unsigned mbx_started;
    const struct ecat_plan_cmd *mbx_cmd;
};

static void h_queue(void *ctx, struct ecat_req *r)
{
    struct host *h = ctx;
    assert_true(h->nq < 64);
    r->st = REQ_QUEUED;
    h->q[h->nq++] = r;
}
static bool h_dc(void *ctx) { return ((struct host *)ctx)->dc; }
static uint64_t h_start(void *ctx, const struct ecat_plan_cmd *c)
{ (void)ctx; (void)c; return 0x1122334455667788ull; }
static int h_mbx(void *ctx, const struct ecat_plan_cmd *c, uint8_t *buf, size_t cap)
{
    struct host *h = ctx;
    (void)buf;
    (void)cap;
    h->mbx_started++;
    h->mbx_cmd = c;
    return 0;
}

/* Answer the oldest unanswered request: wkc, and data when given. */
static struct ecat_req *answer(struct host *h, int wkc, const void *data)
{
    assert_true(h->done < h->nq);
    struct ecat_req *r = h->q[h->done++];
    if (data)
        memcpy(r->data, data, r->len);
    r->wkc = wkc;
    r->st = REQ_DONE;
    return r;
}

static struct ecat_plan_cmd *wr(struct ecat_plan_slave *ps, uint32_t tr, uint16_t ado, uint8_t v, unsigned line)
{
    uint8_t d[2] = { v, 0 };
    struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, tr, ECAT_FPWR, 0x1001, ado, d, 2);
    assert_non_null(c);
    c->has_wkc = true;
    c->wkc = 1;
    c->retries = 3;
    c->line = line;
    c->comment = "write";
    return c;
}

/* One slave's IP commands: two SM writes, the AL request and check, one write after. */
static void plan_ip(struct ecat_plan *p)
{
    assert_int_equal(ecat_plan_alloc(p, 1), 0);
    struct ecat_plan_slave *ps = &p->slave[0];
    uint32_t ip = ECAT_TR_BIT(ECAT_TR_IP);
    wr(ps, ip, 0x0800, 0x11, 10);
    wr(ps, ECAT_TR_BIT(ECAT_TR_PS), 0x0810, 0x99, 11);    /* another transition's */
    wr(ps, ip, 0x0808, 0x22, 12);
    wr(ps, ip, ESC_AL_CONTROL, AL_PREOP, 13)->flags = PLAN_F_AL_REQ;
    struct ecat_plan_cmd *c = ecat_plan_cmd_add(ps, ip, ECAT_FPRD, 0x1001, ESC_AL_STATUS, NULL, 2);
    assert_non_null(c);
    c->flags = PLAN_F_AL_CHECK;
    c->validate = true;
    c->vdata = calloc(1, 2);
    c->vdata[0] = AL_PREOP;
    c->vtimeout_ms = 3000;
    c->comment = "check";
    wr(ps, ip, 0x0900, 0x33, 15);
}

static void init(struct ecat_initx *x, struct host *h, const struct ecat_plan_slave *ps)
{
    memset(h, 0, sizeof *h);
    const struct ecat_initx_ops ops = { h, h_queue, h_dc, h_start, h_mbx, NULL };
    assert_int_equal(ecat_initx_init(x, ps, &ops), 0);
    x->validate_ns = 100 * TAKT_NS_PER_MS;
    x->mbx_ns = 100 * TAKT_NS_PER_MS;
}

/* The transition's commands in order: the plain writes before the AL request together
 * (one frame), the other transition's and the AL ones left out, the rest after it;
 * the AL check's validate timeout is the transition's. */
static void test_order(void **state)
{
    (void)state;
    struct ecat_plan p;
    plan_ip(&p);
    struct ecat_initx x;
    struct host h;
    init(&x, &h, &p.slave[0]);
    ecat_initx_begin(&x, ECAT_TR_IP, AL_PREOP, -1);
    assert_int_equal(x.al_timeout_ms, 3000);
    assert_int_equal(x.al_cmd->comment[0], 'c');
    assert_int_equal(ecat_initx_step(&x, 0), 1);
    assert_int_equal(h.nq, 2);                  /* both SM writes at once */
    assert_int_equal(h.q[0]->ado, 0x0800);
    assert_int_equal(h.q[1]->ado, 0x0808);
    assert_int_equal(h.q[1]->data[0], 0x22);
    assert_int_equal(ecat_initx_step(&x, 1), 1);    /* still in flight */
    answer(&h, 1, NULL);
    answer(&h, 1, NULL);
    assert_int_equal(ecat_initx_step(&x, 2), 0);
    assert_int_equal(h.nq, 2);                  /* nothing of the AL request's */
    ecat_initx_phase(&x, INITX_POST);
    assert_int_equal(ecat_initx_step(&x, 3), 1);
    assert_int_equal(h.nq, 3);
    assert_int_equal(h.q[2]->ado, 0x0900);
    answer(&h, 1, NULL);
    assert_int_equal(ecat_initx_step(&x, 4), 0);
    ecat_initx_free(&x);
    ecat_plan_free(&p);
}

/* A wrong WKC: the command (and those after it in its frame) goes again, as many
 * times as its retries, then fails naming it; a lost frame counts as WKC -1. */
static void test_wkc(void **state)
{
    (void)state;
    struct ecat_plan p;
    plan_ip(&p);
    struct ecat_initx x;
    struct host h;
    init(&x, &h, &p.slave[0]);
    ecat_initx_begin(&x, ECAT_TR_IP, AL_PREOP, -1);
    assert_int_equal(ecat_initx_step(&x, 0), 1);
    answer(&h, 1, NULL);
    answer(&h, 0, NULL);                        /* the second write missed */
    assert_int_equal(ecat_initx_step(&x, 1), 1);
    assert_int_equal(h.nq, 3);                  /* only it again */
    assert_int_equal(h.q[2]->ado, 0x0808);
    for (unsigned t = 0; t < 3; t++) {
        answer(&h, t == 1 ? -1 : 0, NULL);
        assert_int_equal(ecat_initx_step(&x, 2 + t), t < 2 ? 1 : -TAKT_EWKC);
    }
    assert_int_equal(h.nq, 5);                  /* 1 + 3 retries */
    assert_int_equal(x.fail.why, INITX_WKC);
    assert_int_equal(x.fail.wkc, 0);
    assert_int_equal(x.fail.c->line, 12);
    assert_int_equal(x.fail.c->ado, 0x0808);
    ecat_initx_free(&x);
    ecat_plan_free(&p);
}

/* A validate read again until the masked data matches, then given up after its own
 * timeout with what came last. */
static void test_validate(void **state)
{
    (void)state;
    struct ecat_plan p;
    assert_int_equal(ecat_plan_alloc(&p, 1), 0);
    struct ecat_plan_cmd *c = ecat_plan_cmd_add(&p.slave[0], ECAT_TR_BIT(ECAT_TR_PS), ECAT_FPRD, 0x1001,
                                                0x0910, NULL, 2);
    c->validate = true;
    c->has_wkc = true;
    c->wkc = 1;
    c->vdata = calloc(1, 2);
    c->vmask = calloc(1, 2);
    c->vdata[0] = 0x05;
    c->vmask[0] = 0x0F;
    c->vtimeout_ms = 50;
    c->line = 42;
    struct ecat_initx x;
    struct host h;
    init(&x, &h, &p.slave[0]);
    ecat_initx_begin(&x, ECAT_TR_PS, AL_SAFEOP, -1);
    takt_ns_t t = 1000 * TAKT_NS_PER_MS;
    assert_int_equal(ecat_initx_step(&x, t), 1);
    uint8_t no[2] = { 0x04, 0 }, yes[2] = { 0xF5, 0 };
    answer(&h, 1, no);
    assert_int_equal(ecat_initx_step(&x, t + 10 * TAKT_NS_PER_MS), 1);     /* read again */
    answer(&h, 1, yes);                                                     /* masked match */
    assert_int_equal(ecat_initx_step(&x, t + 20 * TAKT_NS_PER_MS), 0);
    assert_int_equal(h.nq, 2);
    /* and once more where it never matches */
    ecat_initx_phase(&x, INITX_PRE);
    assert_int_equal(ecat_initx_step(&x, t), 1);
    int rc = 1;
    for (unsigned i = 1; rc == 1 && i < 100; i++) {
        answer(&h, 1, no);
        rc = ecat_initx_step(&x, t + i * 10 * TAKT_NS_PER_MS);
    }
    assert_int_equal(rc, -ETIMEDOUT);
    assert_int_equal(x.fail.why, INITX_VALIDATE);
    assert_int_equal(x.fail.c->line, 42);
    assert_int_equal(x.fail.got_len, 2);
    assert_int_equal(x.fail.got[0], 0x04);
    ecat_initx_free(&x);
    ecat_plan_free(&p);
}

/* The start time goes in where the plan has its placeholder, only once the clocks are
 * set up; a SYNC unit register takt's DC writes itself is skipped. */
static void test_dc(void **state)
{
    (void)state;
    struct ecat_plan p;
    assert_int_equal(ecat_plan_alloc(&p, 1), 0);
    uint32_t ps = ECAT_TR_BIT(ECAT_TR_PS);
    wr(&p.slave[0], ps, 0x0980, 0, 1)->flags = PLAN_F_DC_OWN;
    uint8_t z[8] = { 0 };
    struct ecat_plan_cmd *c = ecat_plan_cmd_add(&p.slave[0], ps, ECAT_FPWR, 0x1001, ESC_DC_SYNC0_START, z, 8);
    c->flags = PLAN_F_START | PLAN_F_NEEDS_DC;
    struct ecat_initx x;
    struct host h;
    init(&x, &h, &p.slave[0]);
    ecat_initx_begin(&x, ECAT_TR_PS, AL_SAFEOP, -1);
    assert_int_equal(ecat_initx_step(&x, 0), 1);
    assert_int_equal(h.nq, 0);                      /* waits for the clocks */
    h.dc = true;
    assert_int_equal(ecat_initx_step(&x, 1), 1);
    assert_int_equal(h.nq, 1);
    assert_int_equal(h.q[0]->ado, ESC_DC_SYNC0_START);
    assert_true(get_le64(h.q[0]->data) == 0x1122334455667788ull);
    answer(&h, 1, NULL);
    assert_int_equal(ecat_initx_step(&x, 2), 0);
    ecat_initx_free(&x);
    ecat_plan_free(&p);
}

/* Mailbox commands one at a time; a refusal fails with the transfer's message, and
 * one that never ends fails at its timeout. */
static void test_mbx(void **state)
{
    (void)state;
    struct ecat_plan p;
    assert_int_equal(ecat_plan_alloc(&p, 1), 0);
    uint32_t ps = ECAT_TR_BIT(ECAT_TR_PS);
    for (unsigned i = 0; i < 2; i++) {
        uint8_t d = (uint8_t)i;
        struct ecat_plan_cmd *c = ecat_plan_cmd_add(&p.slave[0], ps, 0, 0, 0, &d, 1);
        c->kind = PLAN_COE;
        c->ccs = 1;
        c->index = (uint16_t)(0x1C12 + i);
        c->line = 70 + i;
    }
    struct ecat_initx x;
    struct host h;
    init(&x, &h, &p.slave[0]);
    ecat_initx_begin(&x, ECAT_TR_PS, AL_SAFEOP, -1);
    ecat_initx_phase(&x, INITX_MBX);
    assert_int_equal(ecat_initx_step(&x, 0), 1);
    assert_int_equal(h.mbx_started, 1);
    assert_int_equal(ecat_initx_step(&x, 1), 1);
    assert_int_equal(h.mbx_started, 1);             /* the second waits for the first */
    ecat_initx_mbx_done(&x, 0, 0, NULL);
    assert_int_equal(ecat_initx_step(&x, 2), 1);
    assert_int_equal(h.mbx_started, 2);
    assert_int_equal(h.mbx_cmd->index, 0x1C13);
    ecat_initx_mbx_done(&x, -TAKT_ESDOABORT, 0, "abort 0x06020000");
    assert_int_equal(ecat_initx_step(&x, 3), -TAKT_ESDOABORT);
    assert_int_equal(x.fail.why, INITX_MBX_ERR);
    assert_int_equal(x.fail.c->line, 71);
    assert_string_equal(x.fail.msg, "abort 0x06020000");
    ecat_initx_phase(&x, INITX_MBX);
    assert_int_equal(ecat_initx_step(&x, 10), 1);
    assert_int_equal(ecat_initx_step(&x, 10 + 200 * TAKT_NS_PER_MS), -ETIMEDOUT);
    assert_int_equal(x.fail.why, INITX_MBX_TIMEOUT);
    ecat_initx_free(&x);
    ecat_plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_wkc),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_dc),
        cmocka_unit_test(test_mbx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
