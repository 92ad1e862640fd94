/* ENI reader/writer: the TwinCAT and EC-Engineer fixtures (skipped without
 * $TAKT_FIXTURES), broken files, write/read round trips, the scanned-bus check and the
 * ENI -> PDO layout against the offsets the configuration tools computed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <errno.h>
#include <takt/takt.h>
#include "ecat/eni.h"
#include "ecat/pdo.h"

static char err[512];
static struct ecat_pdo_map maps[8];

static struct ecat_eni *load_fixture(const char *name)
{
    const char *dir = getenv("TAKT_FIXTURES");
    char path[512];
    snprintf(path, sizeof path, "%s/eni/%s", dir ? dir : "/nonexistent", name);
    if (!dir || access(path, R_OK) != 0)
        return NULL;
    struct ecat_eni *e = NULL;
    int rc = ecat_eni_load(path, &e, err, sizeof err);
    if (rc)
        fail_msg("%s: %s", name, err);
    return e;
}

#define LOAD_OR_SKIP(var, name) \
    struct ecat_eni *var = load_fixture(name); \
    if (!var) { print_message("fixture %s absent (TAKT_FIXTURES), skipped\n", name); skip(); }

static const struct ecat_eni_var *var_named(const struct ecat_eni *e, const char *name)
{
    for (unsigned i = 0; i < e->n_vars; i++)
        if (strcmp(e->var[i].name, name) == 0)
            return &e->var[i];
    return NULL;
}

/* The layout computed from the ENI's PDO assignment must give each slave as many bits
 * as the tool reserved (Send/Recv BitLength), and every variable the same offset
 * inside its slave's block. */
static void check_layout_matches(const struct ecat_eni *e)
{
    for (unsigned i = 0; i < e->n_slaves; i++)
        assert_int_equal(ecat_eni_pdo_map(&e->slave[i], &maps[i]), 0);
    struct ecat_pdo_image img;
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, e->n_slaves, 0, 0, err, sizeof err), 0);
    unsigned checked = 0;
    for (unsigned i = 0; i < e->n_slaves; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        assert_int_equal(img.slave[i].out_len * 8, s->has_send ? s->send_bitlen : 0);
        assert_int_equal(img.slave[i].in_len * 8, s->has_recv ? s->recv_bitlen : 0);
        for (unsigned k = 0; k < img.n_vars; k++) {
            const struct ecat_pdo_var *v = &img.var[k];
            if (v->pos != i)
                continue;
            /* ENI names: "<slave>.<pdo>.<entry>" */
            char name[300];
            snprintf(name, sizeof name, "%s.%s.%s", s->name, v->pdo_name, v->name);
            const struct ecat_eni_var *ev = var_named(e, name);
            if (!ev)
                continue;
            uint32_t base = v->input ? img.slave[i].in_off : img.slave[i].out_off;
            uint32_t start = v->input ? s->recv_bitstart : s->send_bitstart;
            assert_int_equal(v->bit_off - base * 8, ev->bitoffs - start);
            assert_int_equal(v->bitlen, ev->bitsize);
            checked++;
        }
    }
    assert_true(checked > 0);
    ecat_pdo_image_free(&img);
}

static void test_twincat_mega(void **state)
{
    (void)state;
    LOAD_OR_SKIP(e, "mega_master_eni.xml");
    assert_string_equal(e->master_name, "Mega Master (EtherCAT)");
    assert_true(e->has_mac);
    static const uint8_t src[6] = { 0x00, 0x0e, 0xc6, 0xbb, 0x63, 0x04 };
    assert_memory_equal(e->mac_src, src, 6);
    assert_int_equal(e->ethertype, 0x88A4);
    assert_int_equal(e->n_master_init, 12);
    assert_true(e->master_init[0].before_slave);
    assert_int_equal(e->master_init[0].cmd, ECAT_BRD);
    assert_int_equal(e->master_init[5].transitions, ECAT_TR_BIT(ECAT_TR_IP) | ECAT_TR_BIT(ECAT_TR_PI) |
                     ECAT_TR_BIT(ECAT_TR_BI) | ECAT_TR_BIT(ECAT_TR_SI) | ECAT_TR_BIT(ECAT_TR_OI));
    assert_int_equal(e->master_init[5].len, 256);          /* <DataLength> only: zeros */
    assert_int_equal(e->n_slaves, 4);
    static const uint32_t product[4] = { 0x044C2C52, 0x07D83052, 0x0FA23052, 0x07113052 };
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(e->slave[i].id.vendor, 2);
        assert_int_equal(e->slave[i].id.product, product[i]);
        assert_int_equal(e->slave[i].phys_addr, 1001 + i);
        assert_int_equal(e->slave[i].auto_inc, (uint16_t)(0 - i));
        assert_true(e->slave[i].n_init > 20);
    }
    assert_string_equal(e->slave[1].name, "Term 2 (EL2008)");
    assert_int_equal(e->slave[0].id.revision, 0x00120000);
    assert_int_equal(e->slave[1].send_bitstart, 344);
    assert_int_equal(e->slave[1].send_bitlen, 8);
    assert_int_equal(e->slave[1].n_pdo, 8);
    assert_int_equal(e->slave[1].sm[0].n_pdo, 8);
    assert_int_equal(e->slave[1].sm[0].ctrl, 68);
    assert_true(e->slave[2].has_mbx);
    assert_int_equal(e->slave[2].mbx_send_start, 0x1000);
    assert_int_equal(e->slave[2].mbx_recv_start, 0x1080);
    assert_int_equal(e->slave[2].mbx_proto, MBX_PROTO_COE | MBX_PROTO_FOE);
    assert_int_equal(e->slave[2].boot_recv_len, 244);
    /* slave init commands with validation ("check device state for INIT") */
    const struct ecat_eni_cmd *c = &e->slave[3].init[1];
    assert_int_equal(c->cmd, ECAT_APRD);
    assert_int_equal(c->adp, 65533);
    assert_int_equal(c->ado, 0x0130);
    assert_true(c->validate);
    assert_int_equal(c->vdata[0], 0x01);
    assert_int_equal(c->vmask[0], 0x0f);
    assert_int_equal(c->vtimeout_ms, 5000);
    /* cyclic: one frame, LRD / LWR / LRD / BRD, no CycleTime in this file */
    assert_int_equal(e->cycle_us, 0);
    assert_int_equal(e->n_frames, 1);
    assert_int_equal(e->frame[0].n_cmd, 4);
    static const uint8_t cmds[4] = { ECAT_LRD, ECAT_LWR, ECAT_LRD, ECAT_BRD };
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(e->frame[0].cmd[i].cmd, cmds[i]);
    assert_int_equal(e->frame[0].cmd[1].addr, 16777216);
    assert_int_equal(e->frame[0].cmd[1].len, 5);
    assert_int_equal(e->frame[0].cmd[1].cnt, 2);
    assert_int_equal(e->frame[0].cmd[3].ado, 0x0130);
    assert_int_equal(e->frame[0].cmd[3].states, 1u << AL_PREOP | 1u << AL_SAFEOP | 1u << AL_OP);
    assert_int_equal(e->in_bytes, 1536);
    assert_int_equal(e->out_bytes, 1536);
    assert_int_equal(e->n_vars, 51);
    const struct ecat_eni_var *v = var_named(e, "Term 4 (EL1809).Channel 1.E-Stop Ok");
    assert_non_null(v);
    assert_int_equal(v->bitoffs, 448);
    assert_true(v->input);
    check_layout_matches(e);
    ecat_eni_free(e);
}

static void test_ecengineer_rocos(void **state)
{
    (void)state;
    LOAD_OR_SKIP(e, "rocos-eni4.xml");
    assert_int_equal(e->n_slaves, 4);
    for (unsigned i = 0; i < 4; i++) {
        const struct ecat_eni_slave *s = &e->slave[i];
        assert_int_equal(s->id.vendor, 0x9A);
        assert_int_equal(s->id.product, 0x30924);
        assert_true(s->has_dc);
        assert_int_equal(s->cycle0, 1000000);
        assert_int_equal(s->assign_activate, 0x0300);
        assert_int_equal(s->send_bitlen, 112);
        assert_int_equal(s->recv_bitstart, 112 * i);
        assert_int_equal(s->n_coe, 20);
        assert_int_equal(s->mbx_proto, MBX_PROTO_EOE | MBX_PROTO_COE | MBX_PROTO_FOE);
    }
    const struct ecat_eni_coe *c = &e->slave[0].coe[0];
    assert_int_equal(c->transitions, ECAT_TR_BIT(ECAT_TR_PS));
    assert_int_equal(c->ccs, 1);
    assert_int_equal(c->index, 0x1C12);
    assert_int_equal(c->subindex, 0);
    assert_int_equal(c->len, 1);
    assert_true(c->fixed);
    assert_int_equal(e->cycle_us, 1000);
    assert_int_equal(e->n_frames, 1);
    assert_int_equal(e->frame[0].n_cmd, 5);
    assert_int_equal(e->frame[0].cmd[2].cmd, ECAT_ARMW);
    assert_int_equal(e->frame[0].cmd[2].ado, 0x0910);
    assert_int_equal(e->frame[0].cmd[3].cmd, ECAT_APWR);
    const struct ecat_eni_fcmd *lrw = &e->frame[0].cmd[4];
    assert_int_equal(lrw->cmd, ECAT_LRW);
    assert_int_equal(lrw->addr, 0x10000000);
    assert_int_equal(lrw->len, 56);
    assert_int_equal(lrw->cnt, 12);
    assert_int_equal(e->in_bytes, 70);
    assert_int_equal(e->out_bytes, 70);
    assert_int_equal(e->n_vars, 40);
    const struct ecat_eni_var *v = ecat_eni_find_var(e, 2, "Inputs.Status word");
    assert_non_null(v);
    assert_int_equal(v->bitoffs, 224);
    assert_true(v->input);
    assert_int_equal(ecat_eni_var_slave(e, v), 2);
    v = ecat_eni_find_var(e, 3, "Target Position");
    assert_non_null(v);
    assert_false(v->input);
    assert_int_equal(v->bitoffs, 384);
    assert_null(ecat_eni_find_var(e, 3, "No such thing"));
    assert_null(ecat_eni_find_var(e, 9, "Target Position"));
    check_layout_matches(e);
    ecat_eni_free(e);
}

static void expect_error(const char *xml, int rc, const char *needle)
{
    struct ecat_eni *e = NULL;
    err[0] = '\0';
    int got = ecat_eni_parse(xml, strlen(xml), &e, err, sizeof err);
    if (got != rc || !strstr(err, needle))
        fail_msg("expected %d with '%s', got %d: '%s'", rc, needle, got, err);
    assert_null(e);
}

static void test_broken(void **state)
{
    (void)state;
    expect_error("<EtherCATConfig><Config>\n<Slave>\n", -TAKT_EXML, "line ");
    expect_error("<Foo/>", -TAKT_EXML, "<Foo>: expected the root element <EtherCATConfig>");
    expect_error("<EtherCATConfig/>", -TAKT_EXML, "expected a <Config> element");
    expect_error("<EtherCATConfig><Config>\n<Slave>\n<Info><PhysAddr>1001</PhysAddr>\n"
                 "<ProductCode>5</ProductCode></Info></Slave></Config></EtherCATConfig>",
                 -TAKT_ECONFIG, "line 3: <Info>: expected a <VendorId> element, found none");
    expect_error("<EtherCATConfig><Config><Slave><Info><PhysAddr>1001</PhysAddr>\n<VendorId>abc</VendorId>"
                 "<ProductCode>5</ProductCode></Info></Slave></Config></EtherCATConfig>",
                 -TAKT_ECONFIG, "line 2: <VendorId>: expected a number, found 'abc'");
    expect_error("<EtherCATConfig><Config><Slave><Info><PhysAddr>70000</PhysAddr><VendorId>1</VendorId>"
                 "<ProductCode>5</ProductCode></Info></Slave></Config></EtherCATConfig>",
                 -TAKT_ECONFIG, "<PhysAddr>: expected a value in 0..65535, found '70000'");
    expect_error("<EtherCATConfig><Config><Master><InitCmds><InitCmd><Transition>XX</Transition>"
                 "<Cmd>8</Cmd><Adp>0</Adp><Ado>0</Ado><Data>00</Data></InitCmd></InitCmds></Master>"
                 "</Config></EtherCATConfig>", -TAKT_ECONFIG, "<Transition>: expected a transition");
    expect_error("<EtherCATConfig><Config><Master><InitCmds><InitCmd><Cmd>8</Cmd><Adp>0</Adp>"
                 "<Ado>0</Ado><Data>0g</Data></InitCmd></InitCmds></Master></Config></EtherCATConfig>",
                 -TAKT_ECONFIG, "expected hex digits, found '0g'");
    expect_error("<EtherCATConfig><Config><Master><InitCmds><InitCmd><Cmd>8</Cmd><Adp>0</Adp>"
                 "<Ado>0</Ado></InitCmd></InitCmds></Master></Config></EtherCATConfig>",
                 -TAKT_ECONFIG, "expected <Data> or <DataLength>");
    expect_error("<EtherCATConfig><Config><Cyclic><Frame><Cmd><State>RUN</State><Cmd>12</Cmd>"
                 "<DataLength>4</DataLength></Cmd></Frame></Cyclic></Config></EtherCATConfig>",
                 -TAKT_ECONFIG, "expected INIT, PREOP, BOOT, SAFEOP or OP, found 'RUN'");
    struct ecat_eni *e = NULL;
    assert_int_equal(ecat_eni_load("/nonexistent/eni.xml", &e, err, sizeof err), -ENOENT);
    /* the reason only: the caller names the file, once ("ENI PATH: reason") */
    assert_string_equal(err, strerror(ENOENT));
    assert_int_equal(ecat_eni_load("/tmp", &e, err, sizeof err), -EISDIR);
    /* a minimal valid file */
    const char *ok = "<EtherCATConfig><Config><Slave><Info><PhysAddr>#x3e9</PhysAddr><VendorId>0x2</VendorId>"
                     "<ProductCode>5</ProductCode></Info></Slave></Config></EtherCATConfig>";
    assert_int_equal(ecat_eni_parse(ok, strlen(ok), &e, err, sizeof err), 0);
    assert_int_equal(e->slave[0].phys_addr, 1001);
    assert_int_equal(e->slave[0].id.vendor, 2);
    assert_string_equal(e->slave[0].name, "");
    ecat_eni_free(e);
}

static void roundtrip(struct ecat_eni *a)
{
    char path[] = "/tmp/takt-eni-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ecat_eni_write(path, a, err, sizeof err), 0);
    struct ecat_eni *b = NULL;
    int rc = ecat_eni_load(path, &b, err, sizeof err);
    unlink(path);
    if (rc)
        fail_msg("reading back: %s", err);
    assert_int_equal(b->n_slaves, a->n_slaves);
    assert_int_equal(b->n_master_init, a->n_master_init);
    for (unsigned i = 0; i < a->n_slaves; i++) {
        const struct ecat_eni_slave *x = &a->slave[i], *y = &b->slave[i];
        assert_string_equal(x->name, y->name);
        assert_memory_equal(&x->id, &y->id, sizeof x->id);
        assert_int_equal(x->n_init, y->n_init);
        for (unsigned k = 0; k < x->n_init; k++) {
            assert_int_equal(x->init[k].transitions, y->init[k].transitions);
            assert_int_equal(x->init[k].len, y->init[k].len);
            assert_memory_equal(x->init[k].data, y->init[k].data, x->init[k].len);
            assert_int_equal(x->init[k].validate, y->init[k].validate);
        }
        assert_int_equal(x->n_coe, y->n_coe);
        assert_int_equal(x->n_pdo, y->n_pdo);
        assert_int_equal(x->n_sm, y->n_sm);
        assert_int_equal(x->send_bitlen, y->send_bitlen);
        assert_int_equal(x->recv_bitstart, y->recv_bitstart);
        assert_int_equal(x->has_dc, y->has_dc);
        assert_int_equal(x->assign_activate, y->assign_activate);
        assert_int_equal(x->mbx_proto, y->mbx_proto);
    }
    assert_int_equal(b->n_frames, a->n_frames);
    for (unsigned f = 0; f < a->n_frames; f++) {
        assert_int_equal(a->frame[f].cycle_us, b->frame[f].cycle_us);
        assert_int_equal(a->frame[f].n_cmd, b->frame[f].n_cmd);
        for (unsigned k = 0; k < a->frame[f].n_cmd; k++) {
            const struct ecat_eni_fcmd *x = &a->frame[f].cmd[k], *y = &b->frame[f].cmd[k];
            assert_int_equal(x->cmd, y->cmd);
            assert_int_equal(x->states, y->states);
            assert_int_equal(x->addr, y->addr);
            assert_int_equal(x->ado, y->ado);
            assert_int_equal(x->len, y->len);
            assert_int_equal(x->cnt, y->cnt);
            assert_int_equal(x->input_offs, y->input_offs);
        }
    }
    assert_int_equal(b->n_vars, a->n_vars);
    assert_int_equal(b->in_bytes, a->in_bytes);
    assert_int_equal(b->cycle_us, a->cycle_us);
    ecat_eni_free(b);
}

static void test_roundtrip_fixtures(void **state)
{
    (void)state;
    LOAD_OR_SKIP(a, "rocos-eni4.xml");
    roundtrip(a);
    ecat_eni_free(a);
    LOAD_OR_SKIP(b, "mega_master_eni.xml");
    roundtrip(b);
    ecat_eni_free(b);
}

/* A scanned bus described as an ENI: SII -> layout -> ENI -> file -> ENI. */
static void test_from_scan(void **state)
{
    (void)state;
    static struct ecat_sii sii[2];
    memset(sii, 0, sizeof sii);
    for (unsigned i = 0; i < 2; i++) {
        struct ecat_sii *s = &sii[i];
        s->id = (struct ecat_ident){ 0x2, 0x07D43052 + i, 0x00100000, 0 };
        s->n_sm = 1;
        s->sm[0] = (struct ecat_sii_sm){ .start = 0x0F00, .ctrl = 0x44, .enable = 9, .type = ECAT_SII_SM_OUTPUTS };
        s->n_strings = 2;
        strcpy(s->strpool + 1, "Channel 1");
        s->str_off[1] = 1;
        strcpy(s->strpool + 11, "Output");
        s->str_off[2] = 11;
        s->n_pdo = 1;
        s->pdo[0] = (struct ecat_sii_pdo){ .index = 0x1600, .n_entries = 1, .sm = 0, .name = 1 };
        s->n_entries = 1;
        s->entry[0] = (struct ecat_sii_entry){ .index = 0x7000, .subindex = 1, .name = 2, .data_type = 1, .bitlen = 1 };
        assert_int_equal(ecat_pdo_map_from_sii(&maps[i], s), 0);
    }
    sii[1].std_rx = (struct ecat_sii_mbx){ 0x1000, 128 };
    sii[1].std_tx = (struct ecat_sii_mbx){ 0x1080, 128 };
    sii[1].mbx_proto = MBX_PROTO_COE;
    struct ecat_pdo_image img;
    assert_int_equal(ecat_pdo_layout(&img, maps, NULL, 2, 0x10000, 0, err, sizeof err), 0);
    const struct ecat_sii *list[2] = { &sii[0], &sii[1] };
    struct ecat_eni *e = NULL;
    assert_int_equal(ecat_eni_from_scan(&e, list, NULL, 2, &img, 1000), 0);
    assert_int_equal(e->slave[1].phys_addr, 0x1002);
    assert_int_equal(e->slave[1].auto_inc, 0xFFFF);
    assert_true(e->slave[1].has_mbx);
    assert_int_equal(e->n_frames, 1);
    assert_int_equal(e->frame[0].cmd[0].cmd, ECAT_LRW);
    assert_int_equal(e->frame[0].cmd[0].addr, 0x10000);
    assert_int_equal(e->frame[0].cmd[0].cnt, 4);
    assert_int_equal(e->n_vars, 2);
    assert_string_equal(e->var[1].name, "Slave 2.Channel 1.Output");
    assert_int_equal(e->var[1].bitoffs, 8);
    roundtrip(e);
    /* the scanned identities match the description made of them */
    struct ecat_ident found[2] = { sii[0].id, sii[1].id };
    struct ecat_eni_mismatch mm[4];
    assert_int_equal(ecat_eni_compare(e, found, 2, ECAT_CMP_REVISION, mm, 4), 0);
    ecat_eni_free(e);
    ecat_pdo_image_free(&img);
}

static void test_compare(void **state)
{
    (void)state;
    LOAD_OR_SKIP(e, "mega_master_eni.xml");
    struct ecat_ident found[5];
    for (unsigned i = 0; i < 4; i++)
        found[i] = e->slave[i].id;
    struct ecat_eni_mismatch mm[8];
    assert_int_equal(ecat_eni_compare(e, found, 4, ECAT_CMP_REVISION, mm, 8), 0);
    /* an EL2004 where the EL2008 should be, a revision off, the last slave missing */
    found[1].product = 0x07D43052;
    found[2].revision = 0x00140000;
    assert_int_equal(ecat_eni_compare(e, found, 3, 0, mm, 8), 2);
    assert_int_equal(mm[0].kind, ECAT_MM_IDENT);
    assert_int_equal(mm[0].pos, 1);
    assert_int_equal(mm[0].expected.product, 0x07D83052);
    assert_int_equal(mm[0].found.product, 0x07D43052);
    assert_non_null(strstr(mm[0].text, "slave 1: expected vendor 0x2 product 0x07D83052 rev 0x00120000 (Term 2 (EL2008)), found vendor 0x2 product 0x07D43052"));
    assert_int_equal(mm[1].kind, ECAT_MM_MISSING);
    assert_int_equal(mm[1].pos, 3);
    assert_non_null(strstr(mm[1].text, "found no slave"));
    assert_int_equal(ecat_eni_compare(e, found, 3, ECAT_CMP_REVISION, mm, 8), 3);
    assert_int_equal(mm[1].pos, 2);
    /* an extra slave at the end */
    for (unsigned i = 0; i < 4; i++)
        found[i] = e->slave[i].id;
    found[4] = (struct ecat_ident){ 0x9A, 0x30924, 1, 0 };
    assert_int_equal(ecat_eni_compare(e, found, 5, 0, mm, 1), 1);
    assert_int_equal(mm[0].kind, ECAT_MM_EXTRA);
    assert_non_null(strstr(mm[0].text, "slave 4: not in the ENI (4 slaves), found vendor 0x9A"));
    ecat_eni_free(e);
}

static void test_two_tasks(void **state)
{
    (void)state;
    const char *xml = "<EtherCATConfig><Config>"
        "<Cyclic><CycleTime>1000</CycleTime><Frame><Cmd><State>OP</State><Cmd>12</Cmd><Addr>0</Addr>"
        "<DataLength>4</DataLength></Cmd></Frame></Cyclic>"
        "<Cyclic><CycleTime>4000</CycleTime><Frame><Cmd><State>OP</State><Cmd>12</Cmd><Addr>4096</Addr>"
        "<DataLength>8</DataLength></Cmd></Frame></Cyclic></Config></EtherCATConfig>";
    struct ecat_eni *e = NULL;
    assert_int_equal(ecat_eni_parse(xml, strlen(xml), &e, err, sizeof err), 0);
    assert_int_equal(e->cycle_us, 1000);
    assert_int_equal(e->n_frames, 2);
    assert_int_equal(e->frame[0].cycle_us, 1000);
    assert_int_equal(e->frame[1].cycle_us, 4000);
    assert_int_equal(e->frame[1].cmd[0].addr, 4096);
    roundtrip(e);
    ecat_eni_free(e);
}

/* What CoE downloads leave in a PDO assignment/mapping: single subindices in file
 * order capped by the last subindex 0, complete access with sub 0 padded to 16 bits or
 * not (ETG.1000.6 5.6.2), and an SM with no PDOs in the ENI mapped from them. */
static void test_coe_arrays(void **state)
{
    (void)state;
    const char *xml = "<EtherCATConfig><Config><Slave><Info><Name>s</Name><PhysAddr>1001</PhysAddr>"
        "<VendorId>1</VendorId><ProductCode>2</ProductCode></Info>"
        "<ProcessData><Sm2><Type>Outputs</Type><StartAddress>4352</StartAddress></Sm2>"
        "<Sm3><Type>Inputs</Type><StartAddress>4480</StartAddress></Sm3></ProcessData>"
        "<Mailbox><Send><Start>4096</Start><Length>128</Length></Send><Recv><Start>4224</Start>"
        "<Length>128</Length></Recv><CoE><InitCmds>"
        "<InitCmd><Transition>PS</Transition><Index>#x1c12</Index><SubIndex>0</SubIndex><Data>00</Data></InitCmd>"
        "<InitCmd><Transition>PS</Transition><Index>#x1600</Index><SubIndex>1</SubIndex><Data>10010070</Data></InitCmd>"
        "<InitCmd><Transition>PS</Transition><Index>#x1600</Index><SubIndex>2</SubIndex><Data>08020070</Data></InitCmd>"
        "<InitCmd><Transition>PS</Transition><Index>#x1600</Index><SubIndex>0</SubIndex><Data>01</Data></InitCmd>"
        "<InitCmd><Transition>PS</Transition><Index>#x1c12</Index><SubIndex>1</SubIndex><Data>0016</Data></InitCmd>"
        "<InitCmd><Transition>PS</Transition><Index>#x1c12</Index><SubIndex>0</SubIndex><Data>01</Data></InitCmd>"
        "<InitCmd CompleteAccess=\"1\"><Transition>PS</Transition><Index>#x1a00</Index><SubIndex>0</SubIndex>"
        "<Data>0200100100600800016000</Data></InitCmd>"
        "<InitCmd CompleteAccess=\"1\"><Transition>PS</Transition><Index>#x1c13</Index><SubIndex>0</SubIndex>"
        "<Data>0100001a</Data></InitCmd>"
        "</InitCmds></CoE></Mailbox></Slave></Config></EtherCATConfig>";
    struct ecat_eni *e = NULL;
    assert_int_equal(ecat_eni_parse(xml, strlen(xml), &e, err, sizeof err), 0);
    const struct ecat_eni_slave *s = &e->slave[0];
    uint32_t v[8];
    assert_int_equal(ecat_eni_coe_array(s, 0x1600, 4, v, 8), 1);     /* sub 0 = 1 last */
    assert_int_equal(v[1], 0x70000110);
    assert_int_equal(ecat_eni_coe_array(s, 0x1C12, 2, v, 8), 1);
    assert_int_equal(v[1], 0x1600);
    assert_int_equal(ecat_eni_coe_array(s, 0x1A00, 4, v, 8), 2);     /* sub 0 unpadded */
    assert_int_equal(v[1], 0x60000110);
    assert_int_equal(v[2], 0x60010008);
    assert_int_equal(ecat_eni_coe_array(s, 0x1C13, 2, v, 8), 1);     /* sub 0 padded */
    assert_int_equal(v[1], 0x1A00);
    assert_int_equal(ecat_eni_coe_array(s, 0x1C14, 2, v, 8), 0);
    struct ecat_pdo_map m;
    assert_int_equal(ecat_eni_pdo_map(s, &m), 0);
    assert_int_equal(m.n_pdo, 2);
    assert_int_equal(m.pdo[0].index, 0x1600);
    assert_int_equal(m.pdo[1].index, 0x1A00);
    assert_int_equal(m.n_entries, 3);
    assert_int_equal(m.entry[0].index, 0x7000);
    assert_int_equal(m.entry[0].bitlen, 16);
    assert_int_equal(m.entry[2].index, 0x6001);
    assert_int_equal(m.entry[2].bitlen, 8);
    ecat_eni_free(e);
}

static void test_transitions(void **state)
{
    (void)state;
    assert_int_equal(ecat_tr_parse("PS"), ECAT_TR_PS);
    assert_int_equal(ecat_tr_parse("XY"), -1);
    assert_string_equal(ecat_tr_name(ECAT_TR_OI), "OI");
    assert_int_equal(ecat_tr_from_states(AL_SAFEOP, AL_OP), ECAT_TR_SO);
    assert_int_equal(ecat_tr_from_states(AL_INIT, AL_BOOT), ECAT_TR_IB);
    assert_int_equal(ecat_tr_from_states(AL_BOOT, AL_OP), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twincat_mega),
        cmocka_unit_test(test_ecengineer_rocos),
        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_roundtrip_fixtures),
        cmocka_unit_test(test_from_scan),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_two_tasks),
        cmocka_unit_test(test_transitions),
        cmocka_unit_test(test_coe_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
