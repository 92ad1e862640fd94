/* The master with an ENI driving start-up, against the simulator built from the same
 * ENI: the ENI's init commands on the wire in file order per transition, validate and
 * WKC failures named by file line, CoE upload checks, the image at the ENI's BitStarts
 * and the cyclic frames as the ENI lists them. Fixture ENIs via $TAKT_FIXTURES. */
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
#include <takt/sim.h>
#include "ecat/eni.h"
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "util/wire.h"

/* Every datagram the master sent, in order. */
struct wdg { uint8_t cmd; uint16_t adp, ado; uint16_t len; uint8_t data[16]; };
#define WLOG_MAX 200000

struct erig {
    struct takt_sim *sim;
    struct takt_link *a, *b;
    struct ecat_master *m;
    struct ecat_eni *eni;
    struct wdg *log;
    unsigned n_log;
    bool recording;
    bool hide_safeop;       /* AL status reads report PREOP where the slave is in SAFEOP */
    unsigned drop_every;    /* lose every n-th frame carrying process data (LRW/LRD/LWR) */
    unsigned pd_frames, dropped;
};

static void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct erig *r = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    if (f->len > sizeof buf)
        return;
    memcpy(buf, f->data, f->len);
    struct ecat_dg dg;
    size_t p;
    bool pd = false;
    for (int rc = ecat_frame_first(buf, f->len, &dg, &p); rc == 0; rc = ecat_frame_next(buf, f->len, &dg, &p))
        pd |= dg.cmd == ECAT_LRW || dg.cmd == ECAT_LRD || dg.cmd == ECAT_LWR;
    if (pd && r->drop_every && ++r->pd_frames % r->drop_every == 0) {
        r->dropped++;
        return;
    }
    for (int rc = ecat_frame_first(buf, f->len, &dg, &p); r->recording && rc == 0;
         rc = ecat_frame_next(buf, f->len, &dg, &p)) {
        if (r->n_log >= WLOG_MAX)
            break;
        struct wdg *w = &r->log[r->n_log++];
        w->cmd = dg.cmd;
        w->adp = dg.adp;
        w->ado = dg.ado;
        w->len = dg.len;
        memcpy(w->data, dg.data, dg.len < 16 ? dg.len : 16);
    }
    size_t n = takt_sim_process(r->sim, buf, f->len, sizeof buf, takt_now(), NULL);
    for (int rc = ecat_frame_first(buf, n, &dg, &p); r->hide_safeop && n && rc == 0;
         rc = ecat_frame_next(buf, n, &dg, &p))
        if (dg.ado == 0x0130 && dg.len && (dg.data[0] & 0x0F) == 0x04)
            dg.data[0] = (uint8_t)((dg.data[0] & 0xF0) | 0x02);
    if (n) {
        struct takt_frame out = { .data = buf, .len = (uint16_t)n, .cap = sizeof buf };
        takt_link_send(ep, &out, 1);
    }
}

static void events(struct ecat_master *m)
{
    char ev[256];
    while (ecat_master_next_event(m, ev, sizeof ev))
        printf("  event: %s\n", ev);
}

static bool rig_dc;     /* the next rig's master runs distributed clocks */

/* Simulator from sim_eni, master configured from master_eni (the same file unless a
 * test wants the master's ENI to differ from the network). */
static struct erig *erig_new(const char *sim_eni, const char *master_eni)
{
    struct erig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_non_null(r->log = calloc(WLOG_MAX, sizeof *r->log));
    char err[300];
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    so.drift_ppm = -1;
    int rc = takt_sim_create_eni(sim_eni, &so, &r->sim, err, sizeof err);
    if (rc)
        printf("sim: %s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(ecat_eni_load(master_eni, &r->eni, err, sizeof err), 0);
    assert_int_equal(takt_link_mem_pair(&r->a, &r->b, 64, NULL, NULL), 0);
    takt_link_mem_set_responder(r->b, respond, r);
    struct ecat_master_opts o;
    ecat_master_opts_default(&o);
    o.max_slaves = 64;
    o.dc = rig_dc;
    assert_int_equal(ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    rc = ecat_master_scan(r->m, 3 * TAKT_NS_PER_S);
    if (rc)
        events(r->m);
    assert_int_equal(rc, 0);
    assert_int_equal(ecat_master_slave_count(r->m), r->eni->n_slaves);
    return r;
}

static void erig_free(struct erig *r)
{
    ecat_master_close(r->m);
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
    ecat_eni_free(r->eni);
    free(r->log);
    free(r);
}

static const char *fixture(const char *name, char *buf, size_t len)
{
    const char *fx = getenv("TAKT_FIXTURES");
    if (!fx)
        return NULL;
    snprintf(buf, len, "%s/eni/%s", fx, name);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

/* Is the ENI command c among the log entries from *from on? Advances *from past it. */
static bool seen(const struct erig *r, const struct ecat_eni_cmd *c, unsigned *from)
{
    for (unsigned i = *from; i < r->n_log; i++) {
        const struct wdg *w = &r->log[i];
        if (w->cmd == c->cmd && w->ado == c->ado && w->adp == c->adp && w->len == c->len &&
            (c->validate || !memcmp(w->data, c->data, c->len < 16 ? c->len : 16))) {
            *from = i + 1;
            return true;
        }
    }
    return false;
}

static bool skipped_by_master(const struct ecat_eni_cmd *c, unsigned tr_state)
{
    /* the SYNC unit is dc.c's; the AL request and its check are the master's own */
    if (c->ado + c->len > 0x0980 && c->ado <= 0x09AF)
        return true;
    if (c->ado == 0x0120 && c->len && (c->data[0] & 0x0F) == tr_state)
        return true;
    return c->ado == 0x0130 && c->validate && (c->vdata[0] & 0x0F) == tr_state;
}

/* Each slave's commands of one transition appear on the wire in file order. */
static void check_order(const struct erig *r, enum ecat_tr tr, unsigned to_state)
{
    unsigned checked = 0;
    for (unsigned s = 0; s < r->eni->n_slaves; s++) {
        const struct ecat_eni_slave *es = &r->eni->slave[s];
        unsigned from = 0;
        for (unsigned k = 0; k < es->n_init; k++) {
            const struct ecat_eni_cmd *c = &es->init[k];
            if (!(c->transitions & ECAT_TR_BIT(tr)) || skipped_by_master(c, to_state))
                continue;
            if (!seen(r, c, &from))
                fail_msg("slave %u: %s command at line %u (%s, ado 0x%04X) not on the wire in order",
                         s, ecat_tr_name(tr), c->line, c->comment, c->ado);
            checked++;
        }
    }
    assert_true(checked > 0);
}

static void check_image(struct erig *r)
{
    const struct ecat_eni *e = r->eni;
    size_t len;
    ecat_master_image(r->m, &len);
    assert_int_equal(len, e->out_bytes + e->in_bytes);
    unsigned found = 0, by_entry = 0;
    for (unsigned v = 0; v < e->n_vars; v++) {
        const struct ecat_eni_var *var = &e->var[v];
        int pos = ecat_eni_var_slave(e, var);
        struct ecat_pd_entry pe;
        if (pos < 0) {                   /* master info data: not a slave's */
            assert_int_equal(ecat_pd_find_eni(r->m, var->name, &pe), -ENOENT);
            continue;
        }
        uint32_t bit = var->bitoffs + (var->input ? e->out_bytes * 8 : 0);
        /* by the ENI's own full name: every variable */
        assert_int_equal(ecat_pd_find_eni(r->m, var->name, &pe), 0);
        assert_int_equal(pe.byte_offset * 8 + pe.bit_offset, bit);
        assert_int_equal(pe.bits, var->bitsize);
        assert_int_equal(pe.position, pos);
        uint16_t index = pe.index;
        found++;
        /* and takt's own look-up by "PDO.entry" lands on the same bit */
        const char *nm = var->name + strlen(e->slave[pos].name) + 1;
        if (ecat_pd_find(r->m, (unsigned)pos, nm, 0, 0, &pe))
            continue;                    /* a name takt's layout spells differently */
        if (pe.byte_offset * 8 + pe.bit_offset != bit)
            fail_msg("%s: image bit %u, ENI BitOffs %u (+ outputs %u bytes)", var->name,
                     pe.byte_offset * 8 + pe.bit_offset, var->bitoffs, var->input ? e->out_bytes : 0);
        assert_int_equal(pe.index, index);   /* the object behind it, found both ways */
        by_entry++;
    }
    printf("  %u variables at the ENI's BitOffs, %u also by takt's entry names\n", found, by_entry);
    assert_true(found > 0 && by_entry > 0);
    struct ecat_pd_entry none;
    assert_int_equal(ecat_pd_find_eni(r->m, "no such variable", &none), -ENOENT);
    for (unsigned i = 0; i < e->n_slaves; i++) {
        struct ecat_slave_info si;
        assert_int_equal(ecat_master_slave_info(r->m, i, &si), 0);
        assert_int_equal(si.station, e->slave[i].phys_addr);
        if (e->slave[i].send_bitlen)
            assert_int_equal(si.out_offset, e->slave[i].send_bitstart / 8);
        if (e->slave[i].recv_bitlen)
            assert_int_equal(si.in_offset, e->out_bytes + e->slave[i].recv_bitstart / 8);
    }
}

/* In OP, the ENI's logical datagrams go out with its Addr and DataLength. */
static void check_cyclic(struct erig *r)
{
    r->n_log = 0;
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    unsigned lrw = 0;
    for (unsigned f = 0; f < r->eni->n_frames; f++)
        for (unsigned k = 0; k < r->eni->frame[f].n_cmd; k++) {
            const struct ecat_eni_fcmd *c = &r->eni->frame[f].cmd[k];
            if (c->cmd != ECAT_LRW && c->cmd != ECAT_LRD && c->cmd != ECAT_LWR)
                continue;
            bool hit = false;
            for (unsigned i = 0; i < r->n_log && !hit; i++)
                hit = r->log[i].cmd == c->cmd && r->log[i].len == c->len &&
                      ((uint32_t)r->log[i].adp | (uint32_t)r->log[i].ado << 16) == c->addr;
            if (!hit)
                fail_msg("no %s at 0x%08X of %u bytes on the wire", ecat_cmd_name(c->cmd), c->addr, c->len);
            lrw++;
        }
    assert_true(lrw > 0);
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
    if (st.wkc_errors)
        events(r->m);
    assert_int_equal(st.wkc_errors, 0);
    assert_int_equal(st.state, AL_OP);
}

static int bring_up(const char *sim_eni, const char *eni, char *msg, size_t len);
static unsigned line_of(const char *eni, unsigned pos, uint16_t ado, const char *comment);

/* The simulator from sim_eni, the master from eni driving start-up to OP: each slave's IP
 * and PS commands on the wire in file order, the image at the ENI's offsets, its frames. */
static void run_fixture(const char *sim_eni, const char *eni, bool dc)
{
    rig_dc = dc;
    struct erig *r = erig_new(sim_eni, eni);
    rig_dc = false;
    /* as `takt ecat run` does: PREOP on takt's own first, the ENI then starts from INIT */
    if (dc)
        assert_int_equal(ecat_master_set_state(r->m, AL_PREOP, 5 * TAKT_NS_PER_S), 0);
    r->recording = true;
    int rc = ecat_master_configure_eni(r->m, eni);
    if (rc)
        events(r->m);
    assert_int_equal(rc, 0);
    rc = ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_IP, AL_PREOP);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    check_image(r);
    check_cyclic(r);
    if (dc) {
        /* the clocks stay together while the ENI's frames run */
        struct ecat_master_stats st;
        for (unsigned i = 0; i < 300; i++) {
            assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
            usleep(1000);
        }
        ecat_master_get_stats(r->m, &st);
        events(r->m);
        printf("  DC sync error %lld ns (max %lld ns)\n", (long long)st.dc_sync_err_ns,
               (long long)st.dc_sync_err_max_ns);
        assert_true(st.dc_sync_err_ns < 1000);
    }
    erig_free(r);
}

static void test_mega_master(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    run_fixture(path, path, false);
}

/* Every 10th cyclic frame lost: each loss counted once, no WKC error, no slave lost. */
static void test_mega_loss(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path);
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    struct ecat_master_stats a, b;
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    ecat_master_get_stats(r->m, &a);
    r->drop_every = 10;
    for (unsigned i = 0; i < 300; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    r->drop_every = 0;
    assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    ecat_master_get_stats(r->m, &b);
    assert_int_equal(r->dropped, 30);
    assert_int_equal(b.cyc_frames_lost - a.cyc_frames_lost, r->dropped);
    assert_int_equal(b.wkc_errors, a.wkc_errors);
    assert_int_equal(b.slaves_lost, a.slaves_lost);
    assert_int_equal(b.state, AL_OP);
    erig_free(r);
}

/* Down again: OP -> INIT runs the ENI's OI commands, the master's broadcast ones (clear
 * FMMUs) before the slaves' AL request. */
static void test_mega_down(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path);
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    r->recording = true;
    int rc = ecat_master_set_state(r->m, AL_INIT, 20 * TAKT_NS_PER_S);
    if (rc)
        printf("%s\n", ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    struct ecat_master_stats st;
    ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.state, AL_INIT);
    unsigned from = 0, n = 0;
    const struct ecat_eni *e = r->eni;
    for (unsigned k = 0; k < e->n_master_init; k++) {
        const struct ecat_eni_cmd *c = &e->master_init[k];
        if (!(c->transitions & ECAT_TR_BIT(ECAT_TR_OI)))
            continue;
        if (!seen(r, c, &from))
            fail_msg("master OI command at line %u (%s) not on the wire", c->line, c->comment);
        n++;
    }
    assert_true(n > 0);
    /* ... and before any slave's AL control write of INIT */
    for (unsigned i = 0; i < from; i++)
        assert_false(r->log[i].ado == 0x0120 && r->log[i].len && (r->log[i].data[0] & 0x0F) == AL_INIT &&
                     r->log[i].cmd != ECAT_BWR);
    erig_free(r);
}

static char *slurp(const char *path, size_t *len);

static bool keep_pdo(const struct ecat_eni *e, uint16_t index)
{
    for (unsigned i = 0; i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        for (unsigned k = 0; k < s->n_sm; k++)
            for (unsigned j = 0; j < s->sm[k].n_pdo; j++)
                if (s->sm[k].pdo[j] == index)
                    return true;
        for (unsigned k = 0; k < s->n_coe; k++)
            if (s->coe[k].index == index)
                return true;
    }
    return false;
}

static bool mapped(const struct ecat_eni_slave *s, uint16_t index, uint8_t sub)
{
    for (unsigned i = 0; i < s->n_pdo; i++)
        for (unsigned k = 0; k < s->pdo[i].n_entries; k++)
            if (s->pdo[i].entry[k].index == index && s->pdo[i].entry[k].subindex == sub)
                return true;
    return false;
}

/* The drive parameters slave 0's CoE init commands write that no PDO maps, declared as
 * entries of an unassigned PDO 0x17FF so that the simulator's dictionary has them. */
static void drive_params(FILE *f, const struct ecat_eni_slave *s)
{
    unsigned n = 0;
    for (unsigned k = 0; k < s->n_coe; k++) {
        const struct ecat_eni_coe *c = &s->coe[k];
        if (c->ccs != 1 || (c->index >= 0x1600 && c->index <= 0x1CFF) || !c->len || c->len > 4 ||
            mapped(s, c->index, c->subindex))
            continue;
        if (!n++)
            fputs("<RxPdo><Index>#x17ff</Index><Name>drive parameters</Name>", f);
        fprintf(f, "<Entry><Index>#x%04x</Index><SubIndex>%u</SubIndex><BitLen>%u</BitLen><Name>p%u"
                "</Name><DataType>%s</DataType></Entry>", c->index, c->subindex, c->len * 8u, n,
                c->len == 1 ? "USINT" : c->len == 2 ? "UINT" : "UDINT");
    }
    if (n)
        fputs("</RxPdo>", f);
}

/* The EC-Engineer ENI for the simulator: the same file without the PDOs no SM assigns
 * and no CoE init command touches (the drives offer 31/35, the simulator holds 16), and
 * with the drive parameters the ENI writes over CoE (the simulator's dictionary of a
 * slave described from an ENI holds only what PDOs map). */
static void trim_pdos(const char *src, char *out, size_t outlen)
{
    char err[300];
    struct ecat_eni *e;
    assert_int_equal(ecat_eni_load(src, &e, err, sizeof err), 0);
    size_t n;
    char *b = slurp(src, &n), *at = b;
    snprintf(out, outlen, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    unsigned kept = 0, dropped = 0;
    for (;;) {
        char *rx = strstr(at, "<RxPdo"), *tx = strstr(at, "<TxPdo"), *pd = strstr(at, "</ProcessData>");
        char *p = rx && (!tx || rx < tx) ? rx : tx;
        if (pd && (!p || pd < p)) {
            fwrite(at, 1, (size_t)(pd - at), f);
            drive_params(f, &e->slave[0]);
            at = pd;
            fputs("</ProcessData>", f);
            at += strlen("</ProcessData>");
            continue;
        }
        if (!p)
            break;
        const char *end_tag = p == rx ? "</RxPdo>" : "</TxPdo>";
        char *end = strstr(p, end_tag), *idx = strstr(p, "<Index>#x");
        assert_non_null(end);
        end += strlen(end_tag);
        fwrite(at, 1, (size_t)(p - at), f);
        if (idx && idx < end && keep_pdo(e, (uint16_t)strtoul(idx + 9, NULL, 16))) {
            fwrite(p, 1, (size_t)(end - p), f);
            kept++;
        } else {
            dropped++;
        }
        at = end;
    }
    fputs(at, f);
    fclose(f);
    free(b);
    ecat_eni_free(e);
    printf("  simulator's copy: %u PDO elements kept, %u dropped\n", kept, dropped);
    assert_true(kept > 0 && dropped > 0);
}

/* The EC-Engineer fixture to OP: the simulator from the trimmed copy, the master from
 * the file as it is (with DC: the drives run SYNC0). */
static void test_rocos(void **state)
{
    (void)state;
    char path[512], sim[64];
    if (!fixture("rocos-eni4.xml", path, sizeof path))
        skip();
    trim_pdos(path, sim, sizeof sim);
    run_fixture(sim, path, true);
    unlink(sim);
}

/* A small ENI of its own (no fixture needed): one output slave the simulator describes
 * from the ENI, its byte at BitStart 8 (not where takt would pack it), an LWR at the
 * ENI's logical address 0x00010000 and the AL status BRD. %s: what the read-back of
 * the SM2 set-up (0x0810) must show; %u: the SAFEOP check's timeout; %s: a <DC> element;
 * %u: the LWR's expected working counter. */
static const char small_eni[] =
"<?xml version=\"1.0\"?>\n"
"<EtherCATConfig><Config>\n"
"<Master><Info><Name>t</Name><Destination>ffffffffffff</Destination><Source>020000000001</Source>"
"<EtherType>a488</EtherType></Info>\n"
"<InitCmds>\n"
"<InitCmd><Transition>IP</Transition><BeforeSlave>true</BeforeSlave><Comment>clear fmmu</Comment>"
"<Cmd>8</Cmd><Adp>0</Adp><Ado>1536</Ado><DataLength>32</DataLength></InitCmd>\n"
"</InitCmds></Master>\n"
"<Slave><Info><Name>Out (X1)</Name><PhysAddr>1001</PhysAddr><AutoIncAddr>0</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>1</ProductCode><RevisionNo>1</RevisionNo></Info>\n"
"<ProcessData><Send><BitStart>8</BitStart><BitLength>8</BitLength></Send>\n"
"<Sm2><Type>Outputs</Type><DefaultSize>1</DefaultSize><StartAddress>4096</StartAddress>"
"<ControlByte>100</ControlByte><Enable>1</Enable><Pdo>5632</Pdo></Sm2>\n"
"<RxPdo Fixed=\"1\" Sm=\"2\"><Index>#x1600</Index><Name>Out</Name><Entry><Index>#x7000</Index>"
"<SubIndex>1</SubIndex><BitLen>8</BitLen><Name>Value</Name><DataType>USINT</DataType></Entry></RxPdo>\n"
"</ProcessData>\n"
"<InitCmds>\n"
"<InitCmd><Transition>IP</Transition><Comment>set physical address</Comment><Cmd>2</Cmd><Adp>0</Adp>"
"<Ado>16</Ado><Data>e903</Data><Cnt>1</Cnt><Retries>3</Retries></InitCmd>\n"
"<InitCmd><Transition>IP</Transition><Comment>request PREOP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0200</Data><Cnt>1</Cnt><Timeout>3000</Timeout></InitCmd>\n"
"<InitCmd><Transition>IP</Transition><Comment>check PREOP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0200</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>set sm 2 (outputs)</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>2064</Ado><Data>0010010064000100</Data><Cnt>1</Cnt><Retries>3</Retries></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>check sm 2</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>2064</Ado><Data>0000000000000000</Data><Cnt>1</Cnt><Validate><Data>%s</Data>"
"<DataMask>ffffffffff00ff00</DataMask><Timeout>200</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>set fmmu 0 (outputs)</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>1536</Ado><Data>0100010001000007001000020100000000</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>request SAFEOP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0400</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>check SAFEOP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0400</Data><DataMask>1f00</DataMask>"
"<Timeout>%u</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>SO</Transition><Comment>request OP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0800</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>SO</Transition><Comment>check OP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0800</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"</InitCmds>%s</Slave>\n"
"<Cyclic><CycleTime>1000</CycleTime><Frame>\n"
"<Cmd><State>SAFEOP</State><State>OP</State><Comment>outputs</Comment><Cmd>11</Cmd><Addr>65536</Addr>"
"<DataLength>2</DataLength><Cnt>%u</Cnt><InputOffs>0</InputOffs><OutputOffs>0</OutputOffs></Cmd>\n"
"<Cmd><State>PREOP</State><State>SAFEOP</State><State>OP</State><Cmd>7</Cmd><Adp>0</Adp><Ado>304</Ado>"
"<DataLength>2</DataLength><Cnt>1</Cnt><InputOffs>2</InputOffs><OutputOffs>2</OutputOffs></Cmd>\n"
"</Frame></Cyclic>\n"
"<ProcessImage><Inputs><ByteSize>4</ByteSize></Inputs><Outputs><ByteSize>4</ByteSize><Variable>"
"<Name>Out (X1).Out.Value</Name><DataType>USINT</DataType><BitSize>8</BitSize><BitOffs>8</BitOffs>"
"</Variable></Outputs></ProcessImage>\n"
"</Config></EtherCATConfig>\n";

static void write_small_full(char *path, size_t len, const char *sm_check, unsigned safeop_ms,
                             const char *dc, unsigned lwr_cnt)
{
    snprintf(path, len, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, small_eni, sm_check, safeop_ms, dc, lwr_cnt);
    fclose(f);
}

static void write_small_dc(char *path, size_t len, const char *sm_check, unsigned safeop_ms,
                           const char *dc)
{ write_small_full(path, len, sm_check, safeop_ms, dc, 1); }

static void write_small(char *path, size_t len, const char *sm_check, unsigned safeop_ms)
{ write_small_dc(path, len, sm_check, safeop_ms, ""); }

static void test_small_eni(void **state)
{
    (void)state;
    char path[64];
    write_small(path, sizeof path, "0010010064000100", 3000);
    struct erig *r = erig_new(path, path);
    r->recording = true;
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    int rc = ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_IP, AL_PREOP);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    /* the master's broadcast came first, then the slave's own commands */
    unsigned bwr = r->n_log, apwr = r->n_log;
    for (unsigned i = 0; i < r->n_log; i++) {
        if (r->log[i].cmd == ECAT_BWR && r->log[i].ado == 0x0600 && bwr == r->n_log)
            bwr = i;
        if (r->log[i].cmd == ECAT_APWR && r->log[i].ado == 0x0010 && apwr == r->n_log)
            apwr = i;
    }
    assert_true(bwr < apwr && apwr < r->n_log);
    check_image(r);
    struct ecat_pd_entry e;
    assert_int_equal(ecat_pd_find(r->m, 0, "Value", 0, 0, &e), 0);
    assert_int_equal(e.byte_offset, 1);      /* BitStart 8, not takt's byte 0 */
    ecat_pd_write(r->m, &e, 0x5A);
    check_cyclic(r);
    uint8_t b = 0;
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x1000, &b, 1), 0);
    assert_int_equal(b, 0x5A);                /* through the ENI's FMMU and LWR */
    erig_free(r);
    unlink(path);
}

/* The same slave with DC: the ENI's DC register commands are left to takt's own DC
 * set-up, which arms SYNC0 before SAFEOP; the ENI's frames carry takt's DC datagrams. */
static void test_small_eni_dc(void **state)
{
    (void)state;
    char path[64];
    write_small_dc(path, sizeof path, "0010010064000100", 3000,
                   "<DC><ReferenceClock>1</ReferenceClock><CycleTime0>1000000</CycleTime0>"
                   "<AssignActivate>#x0300</AssignActivate></DC>");
    rig_dc = true;
    struct erig *r = erig_new(path, path);
    rig_dc = false;
    r->recording = true;
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    int rc = ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_cyclic(r);
    uint8_t act = 0;
    assert_int_equal(takt_sim_peek(r->sim, 0, 0x0981, &act, 1), 0);
    assert_int_equal(act & 0x03, 0x03);       /* SYNC0 armed by takt's DC set-up */
    unsigned frmw = 0;
    for (unsigned i = 0; i < r->n_log; i++)
        frmw += r->log[i].cmd == ECAT_FRMW && r->log[i].ado == 0x0910;
    assert_true(frmw >= 10);                  /* drift control in every cycle */
    erig_free(r);
    unlink(path);
}

/* The ENI's frame expects a WKC the slaves cannot give: counted every cycle in OP, one
 * event naming the datagram, expected and found. */
static void test_small_cyclic_wkc(void **state)
{
    (void)state;
    char path[64], ev[256];
    write_small_full(path, sizeof path, "0010010064000100", 3000, "", 2);
    struct erig *r = erig_new(path, path);
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S), 0);
    while (ecat_master_next_event(r->m, ev, sizeof ev))
        ;
    struct ecat_master_stats a, b;
    ecat_master_get_stats(r->m, &a);
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    ecat_master_get_stats(r->m, &b);
    assert_true(b.wkc_errors - a.wkc_errors >= 19);
    unsigned hits = 0;
    while (ecat_master_next_event(r->m, ev, sizeof ev))
        hits += strstr(ev, "ENI cyclic frame 0 datagram 0 (LWR outputs 0x00010000, 2 bytes): "
                           "WKC expected 2, got 1") != NULL;
    assert_int_equal(hits, 1);                 /* once, not every cycle */
    erig_free(r);
    unlink(path);
}

/* A validate that never matches fails the slave in its own 200 ms, naming the line. */
static void test_small_validate(void **state)
{
    (void)state;
    char path[64], msg[300], want[32];
    write_small(path, sizeof path, "0010020064000100", 3000);   /* length 2: never */
    takt_ns_t t0 = takt_now();
    assert_int_not_equal(bring_up(path, path, msg, sizeof msg), 0);
    assert_true(takt_now() - t0 < 3 * TAKT_NS_PER_S);
    snprintf(want, sizeof want, "line %u:", line_of(path, 0, 0x0810, "check sm 2"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "slave 0 (Out (X1)), transition PS, command 'check sm 2' (FPRD 0x0810)"));
    assert_non_null(strstr(msg, "expected 0010020064000100 mask FFFFFFFFFF00FF00, found 001001006400"));
    unlink(path);
}

/* A slave that never shows SAFEOP: the transition fails after the ENI's validate
 * timeout of its SAFEOP check (300 ms), not the 10 s default, and says whose it is. */
static void test_small_timeout(void **state)
{
    (void)state;
    char path[64], err[300], want[96];
    write_small(path, sizeof path, "0010010064000100", 300);
    struct erig *r = erig_new(path, path);
    r->hide_safeop = true;
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    takt_ns_t t0 = takt_now();
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 10 * TAKT_NS_PER_S), -ETIMEDOUT);
    takt_ns_t took = takt_now() - t0;
    snprintf(err, sizeof err, "%s", ecat_master_error(r->m));
    printf("  -> %s (%lld ms)\n", err, (long long)(took / TAKT_NS_PER_MS));
    assert_true(took > 300 * TAKT_NS_PER_MS && took < 3 * TAKT_NS_PER_S);
    assert_non_null(strstr(err, "still PREOP"));
    assert_non_null(strstr(err, "after requesting SAFEOP"));
    snprintf(want, sizeof want, "line %u, transition PS, command 'check SAFEOP'",
             line_of(path, 0, 0x0130, "check SAFEOP"));
    assert_non_null(strstr(err, want));
    erig_free(r);
    unlink(path);
}

/* A cable cut after slave 2 and its heal: the slaves behind it are reported lost, come
 * back through the ENI's own INIT -> OP commands (no master broadcasts: the others keep
 * running) and the cyclic frames are judged again without a WKC error. */
static void test_recovery(void **state)
{
    (void)state;
    char path[512];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    struct erig *r = erig_new(path, path);
    assert_int_equal(ecat_master_configure_eni(r->m, path), 0);
    assert_int_equal(ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S), 0);
    struct ecat_master_stats st;
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    for (unsigned i = 0; i < 20; i++) {
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
        usleep(1000);
    }
    ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_present, 2);
    assert_true(st.slaves_lost >= 1);
    assert_int_equal(takt_sim_heal(r->sim, takt_now()), 0);
    r->n_log = 0;
    r->recording = true;
    takt_ns_t end = takt_now() + 10 * TAKT_NS_PER_S;
    do {
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
        usleep(1000);
        ecat_master_get_stats(r->m, &st);
    } while ((st.state != AL_OP || st.slaves_present != 4 || st.slaves_returned < 1) && takt_now() < end);
    if (st.state != AL_OP)
        events(r->m);
    assert_int_equal(st.state, AL_OP);
    assert_int_equal(st.slaves_present, 4);
    /* the returning slaves' IP commands went out again, the master's broadcasts did not */
    unsigned from = 0, bwr = 0;
    const struct ecat_eni_slave *es = &r->eni->slave[2];
    for (unsigned k = 0; k < es->n_init; k++)
        if (es->init[k].ado == 0x0010 && (es->init[k].transitions & ECAT_TR_BIT(ECAT_TR_IP)))
            assert_true(seen(r, &es->init[k], &from));
    for (unsigned i = 0; i < r->n_log; i++)
        bwr += r->log[i].cmd == ECAT_BWR && r->log[i].ado == 0x0010;
    assert_int_equal(bwr, 0);
    uint64_t wkc0 = st.wkc_errors;
    for (unsigned i = 0; i < 50; i++)
        assert_int_equal(ecat_master_cycle(r->m, takt_now()), 0);
    ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.wkc_errors, wkc0);
    erig_free(r);
}

/* --- bad ENIs: a copy of the TwinCAT fixture with one thing changed ---------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = calloc(1, (size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Write the fixture with the first `from` replaced by `to` into a temporary file. */
static void mutate(const char *src, const char *from, const char *to, char *out, size_t outlen)
{
    size_t n;
    char *b = slurp(src, &n);
    char *at = strstr(b, from);
    assert_non_null(at);
    snprintf(out, outlen, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(b, 1, (size_t)(at - b), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    free(b);
}

/* Bring the network up with the changed ENI; returns the master's error. */
static int bring_up(const char *sim_eni, const char *eni, char *msg, size_t len)
{
    struct erig *r = erig_new(sim_eni, eni);
    int rc = ecat_master_configure_eni(r->m, eni);
    if (!rc)
        rc = ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    snprintf(msg, len, "%s", ecat_master_error(r->m));
    printf("  -> %d: %s\n", rc, msg);
    erig_free(r);
    return rc;
}

/* The line of slave pos's first init command with this register and comment. */
static unsigned line_of(const char *eni, unsigned pos, uint16_t ado, const char *comment)
{
    char err[300];
    struct ecat_eni *e;
    assert_int_equal(ecat_eni_load(eni, &e, err, sizeof err), 0);
    unsigned line = 0;
    for (unsigned k = 0; k < e->slave[pos].n_init && !line; k++)
        if (e->slave[pos].init[k].ado == ado && strstr(e->slave[pos].init[k].comment, comment))
            line = e->slave[pos].init[k].line;
    ecat_eni_free(e);
    assert_true(line > 0);
    return line;
}

static void test_validate_never_matches(void **state)
{
    (void)state;
    char path[512], bad[64], msg[300], want[64];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    /* the EK1100's product code check (SII word 0x0A via 0x0508) expects another code */
    mutate(path, "<Data>522c4c04</Data>", "<Data>522c4c05</Data>", bad, sizeof bad);
    assert_int_not_equal(bring_up(path, bad, msg, sizeof msg), 0);
    snprintf(want, sizeof want, "line %u:", line_of(bad, 0, 0x0508, "product code"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "slave 0 (Term 1 (EK1100))"));
    assert_non_null(strstr(msg, "transition IP"));
    assert_non_null(strstr(msg, "check product code"));
    assert_non_null(strstr(msg, "0x0508"));
    assert_non_null(strstr(msg, "expected 522C4C05, found 522C4C04"));
    unlink(bad);
}

static void test_wrong_cnt(void **state)
{
    (void)state;
    char path[512], bad[64], msg[300], want[64];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    /* the EK1100's station address write claims two slaves answer */
    mutate(path, "<Data>e903</Data>\n          <Cnt>1</Cnt>", "<Data>e903</Data>\n          <Cnt>2</Cnt>",
           bad, sizeof bad);
    assert_int_not_equal(bring_up(path, bad, msg, sizeof msg), 0);
    snprintf(want, sizeof want, "line %u:", line_of(bad, 0, 0x0010, "physical address"));
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, "slave 0"));
    assert_non_null(strstr(msg, "'set physical address' (APWR adp 0x0000 ado 0x0010)"));
    assert_non_null(strstr(msg, "expected WKC 2, got 1"));
    unlink(bad);
}

/* A CoE upload init command of the EL4002 (slave 2): the vendor id 0x1018:01. */
static void coe_upload(const char *data, bool ok)
{
    char path[512], eni[64], msg[300], ins[400];
    if (!fixture("mega_master_eni.xml", path, sizeof path))
        skip();
    snprintf(ins, sizeof ins, "</Profile>\n<InitCmds><InitCmd><Transition>PS</Transition><Comment>"
             "check vendor</Comment><Timeout>2000</Timeout><Ccs>2</Ccs><Index>#x1018</Index><SubIndex>1"
             "</SubIndex><Data>%s</Data></InitCmd></InitCmds>", data);
    mutate(path, "</Profile>", ins, eni, sizeof eni);
    int rc = bring_up(path, eni, msg, sizeof msg);
    if (ok) {
        assert_int_equal(rc, 0);
    } else {
        assert_int_not_equal(rc, 0);
        assert_non_null(strstr(msg, "slave 2 (Term 3 (EL4002)), transition PS, CoE upload 0x1018:01"));
        assert_non_null(strstr(msg, "expected 03000000 (4 bytes), found 02000000 (4 bytes)"));
    }
    unlink(eni);
}

static void test_coe_upload_match(void **state) { (void)state; coe_upload("02000000", true); }
static void test_coe_upload_mismatch(void **state) { (void)state; coe_upload("03000000", false); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_eni),
        cmocka_unit_test(test_small_validate),
        cmocka_unit_test(test_small_eni_dc),
        cmocka_unit_test(test_small_timeout),
        cmocka_unit_test(test_small_cyclic_wkc),
        cmocka_unit_test(test_mega_master),
        cmocka_unit_test(test_mega_down),
        cmocka_unit_test(test_mega_loss),
        cmocka_unit_test(test_rocos),
        cmocka_unit_test(test_recovery),
        cmocka_unit_test(test_validate_never_matches),
        cmocka_unit_test(test_wrong_cnt),
        cmocka_unit_test(test_coe_upload_match),
        cmocka_unit_test(test_coe_upload_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
