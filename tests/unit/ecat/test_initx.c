/* The init-command executor (initx.h) driven by hand: no core, no link, no clock. The
 * requests it hands out are answered here (WKC, data) and the time is given. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/driver.h"
#include "ecat/eni.h"
#include "ecat/initx.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"
#include "util/wire.h"
#include "unit/ecat/master_fake.h"

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

/* Run slave 0's register commands of transition tr (to state nxt) with every reply
 * right; the datagrams sent, as text. */
static void run_all(const struct ecat_plan_slave *ps, uint8_t tr, uint8_t nxt, char *out, size_t cap)
{
    struct ecat_initx x;
    struct host h;
    init(&x, &h, ps);
    ecat_initx_begin(&x, tr, nxt, -1);
    size_t w = 0;
    out[0] = 0;
    for (uint8_t ph = INITX_PRE; ph <= INITX_POST; ph++) {
        ecat_initx_phase(&x, ph);
        int rc;
        while ((rc = ecat_initx_step(&x, 0)) == 1) {
            assert_true(h.done < h.nq);
            while (h.done < h.nq) {
                struct ecat_req *r = answer(&h, 1, NULL);
                w += (size_t)snprintf(out + w, cap - w, "%s%u %04X %04X %u:", ph == INITX_PRE ? "pre " : "post ",
                                      r->cmd, r->adp, r->ado, r->len);
                for (unsigned i = 0; i < r->len; i++)
                    w += (size_t)snprintf(out + w, cap - w, "%02X", r->data[i]);
                w += (size_t)snprintf(out + w, cap - w, "\n");
                assert_true(w < cap);
            }
        }
        assert_int_equal(rc, 0);
    }
    ecat_initx_free(&x);
}

static void hexs(FILE *f, const uint8_t *d, unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        fprintf(f, "%02x", d ? d[i] : 0);
}

/* The same set-up from both sources: takt's own plan of a scanned slave (plan_sii.c)
 * and an ENI holding those commands as its InitCmds (plan_eni.c) make the executor
 * send the same datagrams, transition by transition. */
static void test_sii_and_eni(void **state)
{
    (void)state;
    struct fake_net *net = calloc(1, sizeof *net);
    assert_non_null(net);
    fake_init(net, 1);
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(b, fake_respond, net);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 4;
    struct takt_ecat_master *drv;
    char err[300];
    assert_int_equal(takt_ecat_master_open(&drv, a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(drv, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(drv, AL_OP, TAKT_NS_PER_S), 0);
    struct ecat_core *m = &drv->core;
    struct ecat_plan sp;
    assert_int_equal(ecat_plan_from_master(&sp, m), 0);
    const struct ecat_plan_slave *ps = &sp.slave[0];
    char path[] = "/tmp/takt-initx-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    const struct takt_ecat_slave_info *si = &m->slaves[0].info;
    fprintf(f, "<?xml version=\"1.0\"?>\n<EtherCATConfig><Config>\n<Slave><Info><Name>s</Name><PhysAddr>%u</PhysAddr>"
            "<AutoIncAddr>0</AutoIncAddr><VendorId>%u</VendorId><ProductCode>%u</ProductCode><RevisionNo>%u</RevisionNo>"
            "</Info>\n<InitCmds>\n", ps->station, si->vendor, si->product, si->revision);
    for (unsigned i = 0; i < ps->n_cmd; i++) {
        const struct ecat_plan_cmd *c = &ps->cmd[i];
        assert_int_equal(c->kind, PLAN_REG);
        unsigned t = 0;
        while (!(c->transitions & ECAT_TR_BIT(t)))
            t++;
        assert_int_equal(c->transitions, ECAT_TR_BIT(t));
        fprintf(f, "<InitCmd><Transition>%s</Transition><Comment>%s</Comment><Cmd>%u</Cmd><Adp>%u</Adp><Ado>%u</Ado>"
                "<Data>", ecat_tr_name((enum ecat_tr)t), c->comment, c->cmd, c->adp, c->ado);
        hexs(f, c->data, c->len);
        fprintf(f, "</Data><Cnt>%u</Cnt><Retries>%u</Retries>", c->wkc, c->retries);
        if (c->validate) {
            fprintf(f, "<Validate><Data>");
            hexs(f, c->vdata, c->len);
            fprintf(f, "</Data><DataMask>");
            hexs(f, c->vmask, c->len);
            fprintf(f, "</DataMask></Validate>");
        }
        fprintf(f, "</InitCmd>\n");
    }
    fprintf(f, "</InitCmds></Slave>\n</Config></EtherCATConfig>\n");
    fclose(f);
    struct ecat_eni *e;
    int rc = ecat_eni_load(path, &e, err, sizeof err);
    unlink(path);
    if (rc)
        fail_msg("ENI: %s", err);
    struct ecat_plan ep;
    assert_int_equal(ecat_plan_from_eni_init(&ep, e), 0);
    static const struct { uint8_t tr, nxt; } steps[] = {
        { ECAT_TR_IP, AL_PREOP }, { ECAT_TR_PS, AL_SAFEOP }, { ECAT_TR_SO, AL_OP }, { ECAT_TR_IB, AL_BOOT },
    };
    static char ta[4096], tb[4096];
    unsigned sent = 0;
    for (unsigned k = 0; k < TAKT_ARRAY_SIZE(steps); k++) {
        run_all(ps, steps[k].tr, steps[k].nxt, ta, sizeof ta);
        run_all(&ep.slave[0], steps[k].tr, steps[k].nxt, tb, sizeof tb);
        assert_string_equal(ta, tb);
        sent += ta[0] != 0;
    }
    assert_true(sent > 0);
    ecat_plan_free(&ep);
    ecat_eni_free(e);
    ecat_plan_free(&sp);
    takt_ecat_master_close(drv);
    takt_link_close(a);
    takt_link_close(b);
    free(net);
}

/* Takt's own set-up runs from the slave's plan (esm.h): built when the slave is sent to
 * a state, without SM/FMMU commands before the layout and with them after it; what
 * those commands write is what the slaves hold in OP. */
static void test_esm_plan(void **state)
{
    (void)state;
    struct fake_net *net = calloc(1, sizeof *net);
    assert_non_null(net);
    fake_init(net, 2);
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(b, fake_respond, net);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 4;
    struct takt_ecat_master *drv;
    char err[300];
    assert_int_equal(takt_ecat_master_open(&drv, a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(drv, TAKT_NS_PER_S), 0);
    struct ecat_core *m = &drv->core;
    assert_int_equal(takt_ecat_master_set_state(drv, AL_PREOP, TAKT_NS_PER_S), 0);
    for (unsigned i = 0; i < 2; i++) {
        const struct ecat_esm *e = &m->slaves[i].esm;
        assert_true(e->built);
        unsigned setup = 0;
        for (unsigned k = 0; k < e->plan.slave[0].n_cmd; k++) {
            const struct ecat_plan_cmd *c = &e->plan.slave[0].cmd[k];
            setup += (c->transitions & ECAT_TR_BIT(ECAT_TR_PS)) && !c->flags;
        }
        assert_int_equal(setup, 0);             /* no layout yet */
    }
    assert_int_equal(takt_ecat_master_set_state(drv, AL_OP, TAKT_NS_PER_S), 0);
    for (unsigned i = 0; i < 2; i++) {
        const struct ecat_plan_slave *ps = &m->slaves[i].esm.plan.slave[0];
        unsigned setup = 0;
        for (unsigned k = 0; k < ps->n_cmd; k++) {
            const struct ecat_plan_cmd *c = &ps->cmd[k];
            if (!(c->transitions & ECAT_TR_BIT(ECAT_TR_PS)) || c->flags)
                continue;
            setup++;
            /* SM: start, length, control (status and activation bytes are the ESC's) */
            unsigned n = c->ado >= ESC_SM0 ? 5 : c->len;
            assert_memory_equal(net->s[i].mem + c->ado, c->data, n);
        }
        assert_true(setup >= 2);                /* SMs and FMMUs of its outputs and inputs */
    }
    takt_ecat_master_close(drv);
    takt_link_close(a);
    takt_link_close(b);
    free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_wkc),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_dc),
        cmocka_unit_test(test_mbx),
        cmocka_unit_test(test_sii_and_eni),
        cmocka_unit_test(test_esm_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
