/* Shared rig of test_master_eni*.c: the simulator built from an ENI behind a mem link
 * whose responder records every datagram the master sends (and can lose process-data
 * frames or hide SAFEOP), plus the checks of an ENI-driven start-up: each transition's
 * commands on the wire in file order, the image at the ENI's offsets, its frames. */
#ifndef TAKT_TEST_ENI_RIG_H
#define TAKT_TEST_ENI_RIG_H

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
    struct takt_ecat_master *m;
    struct ecat_eni *eni;
    struct wdg *log;
    unsigned n_log;
    bool recording;
    bool hide_safeop;       /* AL status reads report PREOP where the slave is in SAFEOP */
    unsigned drop_every;    /* lose every n-th frame carrying process data (LRW/LRD/LWR) */
    unsigned pd_frames, dropped;
};

static inline void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
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

static inline void events(struct takt_ecat_master *m)
{
    char ev[256];
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        printf("  event: %s\n", ev);
}

/* Simulator from sim_eni, master configured from master_eni (the same file unless a
 * test wants the master's ENI to differ from the network), with DC when dc. */
static inline struct erig *erig_new(const char *sim_eni, const char *master_eni, bool dc)
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
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 64;
    o.dc = dc;
    assert_int_equal(takt_ecat_master_open(&r->m, r->a, &o, err, sizeof err), 0);
    rc = takt_ecat_master_scan(r->m, 3 * TAKT_NS_PER_S);
    if (rc)
        events(r->m);
    assert_int_equal(rc, 0);
    assert_int_equal(takt_ecat_master_slave_count(r->m), r->eni->n_slaves);
    return r;
}

static inline void erig_free(struct erig *r)
{
    takt_ecat_master_close(r->m);
    takt_link_close(r->a);
    takt_link_close(r->b);
    takt_sim_destroy(r->sim);
    ecat_eni_free(r->eni);
    free(r->log);
    free(r);
}

static inline const char *fixture(const char *name, char *buf, size_t len)
{
    const char *fx = getenv("TAKT_FIXTURES");
    if (!fx)
        return NULL;
    snprintf(buf, len, "%s/eni/%s", fx, name);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

/* Is the ENI command c among the log entries from *from on? Advances *from past it. */
static inline bool seen(const struct erig *r, const struct ecat_eni_cmd *c, unsigned *from)
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

static inline bool skipped_by_master(const struct ecat_eni_cmd *c, unsigned tr_state)
{
    /* the SYNC unit is dc.c's or, with an ENI that arms SYNC0, the ENI's with the start time
     * replaced (checked by test_master_eni_files); the AL request and its check are the
     * master's own */
    if (c->ado + c->len > 0x0980 && c->ado <= 0x09AF)
        return true;
    if (c->ado == 0x0120 && c->len && (c->data[0] & 0x0F) == tr_state)
        return true;
    return c->ado == 0x0130 && c->validate && (c->vdata[0] & 0x0F) == tr_state;
}

/* Each slave's commands of one transition appear on the wire in file order. */
static inline void check_order(const struct erig *r, enum ecat_tr tr, unsigned to_state)
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

static inline void check_image(struct erig *r)
{
    const struct ecat_eni *e = r->eni;
    size_t len;
    takt_ecat_master_image(r->m, &len);
    assert_int_equal(len, e->out_bytes + e->in_bytes);
    unsigned found = 0, by_entry = 0;
    for (unsigned v = 0; v < e->n_vars; v++) {
        const struct ecat_eni_var *var = &e->var[v];
        int pos = ecat_eni_var_slave(e, var);
        struct takt_ecat_pd_entry pe;
        if (pos < 0) {                   /* master info data: not a slave's */
            assert_int_equal(takt_ecat_pd_find_eni(r->m, var->name, &pe), -ENOENT);
            continue;
        }
        uint32_t bit = var->bitoffs + (var->input ? e->out_bytes * 8 : 0);
        /* by the ENI's own full name: every variable */
        assert_int_equal(takt_ecat_pd_find_eni(r->m, var->name, &pe), 0);
        assert_int_equal(pe.byte_offset * 8 + pe.bit_offset, bit);
        assert_int_equal(pe.bits, var->bitsize);
        assert_int_equal(pe.position, pos);
        uint16_t index = pe.index;
        found++;
        /* and takt's own look-up by "PDO.entry" lands on the same bit */
        const char *nm = var->name + strlen(e->slave[pos].name) + 1;
        if (takt_ecat_pd_find(r->m, (unsigned)pos, nm, 0, 0, &pe))
            continue;                    /* a name takt's layout spells differently */
        if (pe.byte_offset * 8 + pe.bit_offset != bit)
            fail_msg("%s: image bit %u, ENI BitOffs %u (+ outputs %u bytes)", var->name,
                     pe.byte_offset * 8 + pe.bit_offset, var->bitoffs, var->input ? e->out_bytes : 0);
        assert_int_equal(pe.index, index);   /* the object behind it, found both ways */
        by_entry++;
    }
    printf("  %u variables at the ENI's BitOffs, %u also by takt's entry names\n", found, by_entry);
    assert_true(found > 0 && by_entry > 0);
    struct takt_ecat_pd_entry none;
    assert_int_equal(takt_ecat_pd_find_eni(r->m, "no such variable", &none), -ENOENT);
    for (unsigned i = 0; i < e->n_slaves; i++) {
        struct takt_ecat_slave_info si;
        assert_int_equal(takt_ecat_master_slave_info(r->m, i, &si), 0);
        assert_int_equal(si.station, e->slave[i].phys_addr);
        if (e->slave[i].send_bitlen)
            assert_int_equal(si.out_offset, e->slave[i].send_bitstart / 8);
        if (e->slave[i].recv_bitlen)
            assert_int_equal(si.in_offset, e->out_bytes + e->slave[i].recv_bitstart / 8);
    }
}

/* In OP, the ENI's logical datagrams go out with its Addr and DataLength. */
static inline void check_cyclic(struct erig *r)
{
    r->n_log = 0;
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
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
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    if (st.wkc_errors)
        events(r->m);
    assert_int_equal(st.wkc_errors, 0);
    assert_int_equal(st.state, AL_OP);
}

static inline char *slurp(const char *path, size_t *len)
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

/* text as a new temporary ENI file; its name in path (unlink it after). */
static inline void eni_temp(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/takt_eni_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Bring the network up with the changed ENI; returns the master's error. */
static inline int bring_up(const char *sim_eni, const char *eni, char *msg, size_t len)
{
    struct erig *r = erig_new(sim_eni, eni, false);
    int rc = takt_ecat_master_configure_eni(r->m, eni);
    if (!rc)
        rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    snprintf(msg, len, "%s", takt_ecat_master_error(r->m));
    printf("  -> %d: %s\n", rc, msg);
    erig_free(r);
    return rc;
}

/* The line of slave pos's first init command with this register and comment. */
static inline unsigned line_of(const char *eni, unsigned pos, uint16_t ado, const char *comment)
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

/* The simulator from sim_eni, the master from eni driving start-up to OP: each slave's IP
 * and PS commands on the wire in file order, the image at the ENI's offsets, its frames. */
static inline void run_fixture(const char *sim_eni, const char *eni, bool dc)
{
    struct erig *r = erig_new(sim_eni, eni, dc);
    /* as `takt ecat run` does: PREOP on takt's own first, the ENI then starts from INIT */
    if (dc)
        assert_int_equal(takt_ecat_master_set_state(r->m, AL_PREOP, 5 * TAKT_NS_PER_S), 0);
    r->recording = true;
    int rc = takt_ecat_master_configure_eni(r->m, eni);
    if (rc)
        events(r->m);
    assert_int_equal(rc, 0);
    rc = takt_ecat_master_set_state(r->m, AL_OP, 20 * TAKT_NS_PER_S);
    if (rc) {
        printf("%s\n", takt_ecat_master_error(r->m));
        events(r->m);
    }
    assert_int_equal(rc, 0);
    check_order(r, ECAT_TR_IP, AL_PREOP);
    check_order(r, ECAT_TR_PS, AL_SAFEOP);
    check_image(r);
    check_cyclic(r);
    if (dc) {
        /* the clocks stay together while the ENI's frames run */
        struct takt_ecat_master_stats st;
        for (unsigned i = 0; i < 300; i++) {
            assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
            usleep(1000);
        }
        takt_ecat_master_get_stats(r->m, &st);
        events(r->m);
        printf("  DC sync error %lld ns (max %lld ns)\n", (long long)st.dc_sync_err_ns,
               (long long)st.dc_sync_err_max_ns);
        assert_true(st.dc_sync_err_ns < 1000);
    }
    erig_free(r);
}

#endif
