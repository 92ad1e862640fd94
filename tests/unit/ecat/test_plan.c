/* The configuration plan (plan.h) from both producers: takt's own set-up of a small SII
 * network (master_fake.h) and an ENI, each against a golden text of its plan
 * (tests/data/plan/), the SII plan's frames against what the cyclic code sends, and
 * the two producers against each other on one network. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/driver.h"
#include "ecat/eni.h"
#include "ecat/master_internal.h"
#include "ecat/plan.h"
#include "unit/ecat/master_fake.h"

struct rig {
    struct fake_net net;
    struct takt_link *a, *b;
    struct takt_ecat_master *drv;
    struct ecat_core *m;       /* the driver's core, which the plan is made from */
};

static struct rig *rig_new(unsigned n, unsigned no_lrw_pos)
{
    struct rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    fake_init(&r->net, n);
    if (no_lrw_pos < n) {
        struct fake_slave *s = &r->net.s[no_lrw_pos];
        for (size_t o = 0x80; o + 4 < s->sii_len;) {
            uint16_t type = get_le16(s->sii + o), words = get_le16(s->sii + o + 2);
            if (type == SII_CAT_GENERAL) {
                s->sii[o + 4 + 11] |= ECAT_SII_FLAG_NOT_LRW;
                break;
            }
            o += 4 + 2 * (size_t)words;
        }
    }
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, fake_respond, &r->net);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 16;
    char err[200];
    assert_int_equal(takt_ecat_master_open(&r->drv, r->a, &o, err, sizeof err), 0);
    assert_int_equal(takt_ecat_master_scan(r->drv, TAKT_NS_PER_S), 0);
    assert_int_equal(takt_ecat_master_set_state(r->drv, AL_OP, TAKT_NS_PER_S), 0);
    r->m = &r->drv->core;
    return r;
}

static void rig_free(struct rig *r)
{
    takt_ecat_master_close(r->drv);
    takt_link_close(r->a);
    takt_link_close(r->b);
    free(r);
}

static char *dump(const struct ecat_plan *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    ecat_plan_dump(p, f);
    fclose(f);
    return text;
}

/* The golden text tests/data/plan/NAME; TAKT_PLAN_WRITE=1 writes it instead (to be
 * read through before it is committed). */
static void golden(const char *name, const char *text)
{
    const char *src = getenv("TAKT_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/plan/%s", src ? src : ".", name);
    if (getenv("TAKT_PLAN_WRITE")) {
        FILE *w = fopen(path, "w");
        assert_non_null(w);
        fputs(text, w);
        fclose(w);
    }
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("golden plan %s: %s", path, strerror(errno));
    static char want[65536];
    size_t n = fread(want, 1, sizeof want - 1, f);
    fclose(f);
    want[n] = 0;
    /* the first line that differs, for a readable failure */
    const char *a = want, *b = text;
    unsigned line = 1;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++;
        b++;
    }
    if (*a || *b)
        fail_msg("plan differs from %s at line %u:\nexpected: %.120s\nfound:    %.120s", path, line, a, b);
}

/* Whether the plan sends datagram d in the master's present DC state. */
static bool goes_out(const struct ecat_core *m, const struct ecat_plan_dg *d)
{
    bool dc = m->dc.active && m->dc.ref >= 0;
    switch (d->when) {
    case PLAN_W_ALWAYS: return true;
    case PLAN_W_DC: return dc;
    case PLAN_W_DC_FOLLOWS: return dc && m->o.dc_mode == TAKT_ECAT_DC_REF_FOLLOWS_MASTER;
    case PLAN_W_NO_DC: return !dc;
    default: return false;
    }
}

/* The frames the cyclic code builds carry, after each frame's NOP, exactly the plan's
 * datagrams of that frame: command, address and length. */
static void same_as_sent(struct ecat_core *m, const struct ecat_plan *p)
{
    unsigned nb = ecat_cyc_build(m, takt_now());
    assert_int_equal(nb, p->n_frames);
    for (unsigned k = 0; k < nb; k++) {
        struct ecat_dg dg;
        size_t pos;
        assert_int_equal(ecat_frame_first(m->txf[k].data, m->txf[k].len, &dg, &pos), 0);
        assert_int_equal(dg.cmd, ECAT_NOP);
        unsigned j = 0;
        const struct ecat_plan_frame *f = &p->frame[k];
        while (ecat_frame_next(m->txf[k].data, m->txf[k].len, &dg, &pos) == 0) {
            while (j < f->n && !goes_out(m, &p->dg[f->first + j]))
                j++;
            assert_true(j < f->n);
            const struct ecat_plan_dg *d = &p->dg[f->first + j++];
            assert_int_equal(dg.cmd, d->cmd);
            assert_int_equal(dg.ado, d->ado);
            assert_int_equal(dg.len, d->len);
            if (d->role == PLAN_DG_DATA || d->role == PLAN_DG_AL)
                assert_int_equal(dg.adp, d->adp);
        }
        while (j < f->n && !goes_out(m, &p->dg[f->first + j]))
            j++;
        assert_int_equal(j, f->n);
    }
}

static void test_sii_golden(void **state)
{
    (void)state;
    struct rig *r = rig_new(2, ~0u);
    struct ecat_plan p;
    assert_int_equal(ecat_plan_from_master(&p, r->m), 0);
    same_as_sent(r->m, &p);
    char *t = dump(&p);
    ecat_plan_free(&p);
    golden("sii_two.txt", t);
    free(t);
    /* the same network with DC asked for: SYNC0 writes before PS, the DC datagrams of
     * frame 0, slave 0 the reference clock */
    r->m->o.dc = true;
    r->m->o.cycle_ns = 1000000;
    assert_int_equal(ecat_plan_from_master(&p, r->m), 0);
    t = dump(&p);
    ecat_plan_free(&p);
    golden("sii_two_dc.txt", t);
    free(t);
    rig_free(r);
}

/* A slave that forbids LRW: its frame becomes LRD + LWR with their own WKCs. */
static void test_sii_no_lrw(void **state)
{
    (void)state;
    struct rig *r = rig_new(3, 1);
    struct ecat_plan p;
    assert_int_equal(ecat_plan_from_master(&p, r->m), 0);
    same_as_sent(r->m, &p);
    assert_int_equal(p.n_frames, 1);
    assert_int_equal(p.frame[0].n, 6);    /* FPWR, FRMW, LRD, LWR, BRD, FPRD */
    const struct ecat_plan_dg *lrd = &p.dg[2], *lwr = &p.dg[3];
    assert_int_equal(lrd->cmd, ECAT_LRD);
    assert_int_equal(lrd->wkc, 3);
    assert_int_equal(lwr->cmd, ECAT_LWR);
    assert_int_equal(lwr->wkc, 3);
    assert_int_equal(lwr->in_off, -1);
    ecat_plan_free(&p);
    rig_free(r);
}

static const char *src_dir(void)
{
    const char *s = getenv("TAKT_SOURCE_DIR");
    return s ? s : ".";
}

/* An ENI whose init commands arm SYNC0 and whose ARMW distributes the reference time
 * (tests/data/eni/dc_sync.xml): its commands per transition with the AL request and
 * check marked, the start time written on takt's grid, the inputs after the outputs,
 * takt's FPWR/FPRD around its frame and no FRMW of takt's (the ENI's ARMW does it). */
static void test_eni_golden(void **state)
{
    (void)state;
    char path[1024], err[300];
    snprintf(path, sizeof path, "%s/tests/data/eni/dc_sync.xml", src_dir());
    struct ecat_eni *e;
    assert_int_equal(ecat_eni_load(path, &e, err, sizeof err), 0);
    struct ecat_plan p;
    assert_int_equal(ecat_plan_from_eni(&p, e, NULL, err, sizeof err), 0);
    char *t = dump(&p);
    ecat_plan_free(&p);
    golden("eni_dc_sync.txt", t);
    free(t);
    ecat_eni_free(e);
}

/* Both producers, one network: the ENI takt writes from a scan (ecat_eni_from_scan)
 * plans the same process-data datagrams as takt's own set-up of that scan, and the
 * same slave layout, the inputs moved behind the outputs. */
static void test_same_network(void **state)
{
    (void)state;
    struct rig *r = rig_new(3, ~0u);
    struct ecat_core *m = r->m;
    const struct ecat_sii *sii[3];
    struct ecat_sii *dec = calloc(3, sizeof *dec);
    assert_non_null(dec);
    uint16_t phys[3];
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(ecat_sii_decode(m->slaves[i].scan.sii, m->slaves[i].scan.sii_len, &dec[i], 0, NULL, 0), 0);
        sii[i] = &dec[i];
        phys[i] = m->slaves[i].info.station;
    }
    struct ecat_eni *e;
    assert_int_equal(ecat_eni_from_scan(&e, sii, phys, 3, &m->img, 1000), 0);
    struct ecat_plan a, b;
    char err[300];
    assert_int_equal(ecat_plan_from_master(&a, m), 0);
    assert_int_equal(ecat_plan_from_eni(&b, e, NULL, err, sizeof err), 0);
    assert_int_equal(a.n_frames, b.n_frames);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(a.slave[i].station, b.slave[i].station);
        assert_int_equal(a.slave[i].out_off, b.slave[i].out_off);
        assert_int_equal(a.slave[i].out_len, b.slave[i].out_len);
        assert_int_equal(a.slave[i].in_off + b.in_base, b.slave[i].in_off);
        assert_int_equal(a.slave[i].in_len, b.slave[i].in_len);
    }
    unsigned na = 0, nb = 0;
    for (unsigned k = 0; k < a.n_dg; k++) {
        if (a.dg[k].role != PLAN_DG_DATA)
            continue;
        for (; nb < b.n_dg && b.dg[nb].role != PLAN_DG_DATA; nb++)
            ;
        assert_true(nb < b.n_dg);
        const struct ecat_plan_dg *x = &a.dg[k], *y = &b.dg[nb++];
        assert_int_equal(x->cmd, y->cmd);
        assert_int_equal(x->adp, y->adp);
        assert_int_equal(x->ado, y->ado);
        assert_int_equal(x->len, y->len);
        assert_int_equal(x->wkc, y->wkc);
        assert_int_equal(x->judged, y->judged);
        assert_int_equal(x->out_off, y->out_off);
        na++;
    }
    assert_true(na > 0);
    ecat_plan_free(&a);
    ecat_plan_free(&b);
    ecat_eni_free(e);
    free(dec);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sii_golden),
        cmocka_unit_test(test_sii_no_lrw),
        cmocka_unit_test(test_eni_golden),
        cmocka_unit_test(test_same_network),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
