/* Rescan of a running master: the slave count and each slave's identity read again from
 * its SII (words 0x0008..0x000F) while the network stays in OP. An unchanged network is
 * found the same and nothing changes; a device whose SII says another product is found
 * changed and handed to recovery, which refuses it. Cycles are counted, not timed. */
#include "unit/sim/master_rig.h"
#include "sim/net.h"

struct got { bool done; int err; struct takt_ecat_rescan res; struct takt_ecat_rescan_slave s[8]; };

static void on_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct got *g = ctx;
    g->err = err;
    if (!err && len <= sizeof g->res + sizeof g->s)
        memcpy(&g->res, data, len);
    g->done = true;
}

static void run_rescan(struct rig *r, struct got *g)
{
    memset(g, 0, sizeof *g);
    assert_int_equal(takt_ecat_master_rescan_async(r->m, on_done, g), 0);
    /* one at a time */
    struct got other = { 0 };
    if (!g->done)
        assert_int_equal(takt_ecat_master_rescan_async(r->m, on_done, &other), -EBUSY);
    for (unsigned i = 0; i < 20000 && !g->done; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    assert_true(g->done);
    assert_false(other.done);
    assert_int_equal(g->err, 0);
}

static bool events_have(struct takt_ecat_master *m, const char *what)
{
    char ev[256];
    bool found = false;
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        found |= strstr(ev, what) != NULL;
    return found;
}

static void unchanged_network_is_the_same(void **state)
{
    (void)state;
    struct rig *r = rig_new(3, false);
    up(r, 3);
    cycles(r, 10);
    struct takt_ecat_master_stats a, b;
    takt_ecat_master_get_stats(r->m, &a);
    struct got g;
    run_rescan(r, &g);
    assert_int_equal(g.res.seen, 3);
    assert_int_equal(g.res.expected, 3);
    assert_int_equal(g.res.n, 3);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(g.s[i].status, TAKT_ECAT_RESCAN_SAME);
        assert_int_equal(g.s[i].now_vendor, 2);
        assert_int_equal(g.s[i].now_product, 0x4000 + i);
        assert_int_equal(g.s[i].now_revision, 1);
    }
    assert_true(events_have(r->m, "rescan: 3 slaves answer, 3 scanned; 0 changed"));
    cycles(r, 10);
    takt_ecat_master_get_stats(r->m, &b);
    assert_int_equal(b.slaves_op, 3);
    assert_int_equal(b.cyc_frames_lost, a.cyc_frames_lost);     /* no lost cycle */
    assert_int_equal(b.frames_lost, a.frames_lost);
    assert_int_equal(b.wkc_errors, a.wkc_errors);
    assert_int_equal(b.slaves_lost, a.slaves_lost);
    /* and again: the state is kept for the next one */
    run_rescan(r, &g);
    assert_int_equal(g.s[2].status, TAKT_ECAT_RESCAN_SAME);
    rig_free(r);
}

static void replaced_device_is_changed(void **state)
{
    (void)state;
    struct rig *r = rig_new(3, false);
    up(r, 3);
    cycles(r, 10);
    /* another device at position 1: its SII says product 0x5555 */
    put_le32(r->sim->sl[1].esc.sii + 2 * SII_W_PRODUCT, 0x5555);
    struct got g;
    run_rescan(r, &g);
    assert_int_equal(g.res.seen, 3);
    assert_int_equal(g.s[0].status, TAKT_ECAT_RESCAN_SAME);
    assert_int_equal(g.s[1].status, TAKT_ECAT_RESCAN_CHANGED);
    assert_int_equal(g.s[1].product, 0x4001);
    assert_int_equal(g.s[1].now_product, 0x5555);
    assert_int_equal(g.s[2].status, TAKT_ECAT_RESCAN_SAME);
    assert_true(events_have(r->m, "slave 1: rescan found another identity"));
    /* recovery refuses the device: it is never configured, the others stay in OP */
    bool refused = false;
    for (unsigned i = 0; i < 20000 && !refused; i++) {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        refused = events_have(r->m, "another device at position 1");
    }
    assert_true(refused);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(r->m, &st);
    assert_int_equal(st.slaves_op, 2);
    rig_free(r);
}

/* a cable pulled before slave 2: the count says 2, slave 2 is missing, nothing is read
 * from it, and the two before it are the same */
static void lost_slave_is_missing(void **state)
{
    (void)state;
    struct rig *r = rig_new(3, false);
    up(r, 3);
    assert_int_equal(takt_sim_break(r->sim, 2, takt_now()), 0);
    struct takt_ecat_master_stats st = { 0 };
    for (unsigned i = 0; i < 20000 && st.slaves_not_answering != 1; i++) {
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
        takt_ecat_master_get_stats(r->m, &st);
    }
    assert_int_equal(st.slaves_not_answering, 1);
    struct got g;
    run_rescan(r, &g);
    assert_int_equal(g.res.seen, 2);
    assert_int_equal(g.res.expected, 3);
    assert_int_equal(g.s[0].status, TAKT_ECAT_RESCAN_SAME);
    assert_int_equal(g.s[1].status, TAKT_ECAT_RESCAN_SAME);
    assert_int_equal(g.s[2].status, TAKT_ECAT_RESCAN_MISSING);
    assert_true(events_have(r->m, "rescan: 2 slaves answer, 3 scanned; 0 changed, 1 missing"));
    rig_free(r);
}

/* The EEPROM interface (0x0500-0x050F) has one user at a time (ETG.1000.4 6.4): an SII
 * write and a rescan that ran at once would mix their commands, and a read's data
 * landing in 0x0508 between the write's data and its command would be written into the
 * EEPROM. Here rescans keep being started, from each one's completion, while a tool
 * writes words 0x20..0x3D of slave 1 (reserved words, read by nobody): the write waits
 * for the rescan that runs, a rescan asked for meanwhile is refused, and the EEPROM
 * holds exactly what was written. */
struct churn { struct rig *r; struct got g; unsigned started, done, refused, failed; bool stop; };

static void churn_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct churn *c = ctx;
    on_done(&c->g, err, data, len);
    c->done++;
    for (unsigned i = 0; !err && i < c->g.res.n; i++)
        c->failed += c->g.s[i].status != TAKT_ECAT_RESCAN_SAME;
    if (c->stop)
        return;
    int rc = takt_ecat_master_rescan_async(c->r->m, churn_done, c);
    if (rc == -EBUSY)
        c->refused++;
    else if (!rc)
        c->started++;
}

static void sii_write_and_rescan_take_turns(void **state)
{
    (void)state;
    struct rig *r = rig_new(3, false);
    up(r, 3);
    struct churn c = { .r = r };
    uint8_t img[60];
    for (unsigned i = 0; i < sizeof img; i++)
        img[i] = (uint8_t)(0xA0 + i);
    assert_int_equal(takt_ecat_master_rescan_async(r->m, churn_done, &c), 0);
    c.started = 1;
    cycles(r, 3);                                   /* the rescan is between its steps */
    assert_int_equal(c.done, 0);
    int rc = takt_ecat_sii_write_at(r->m, 1, 0x20, img, sizeof img);
    if (rc)
        printf("sii write: %s\n", takt_ecat_master_error(r->m));
    assert_int_equal(rc, 0);
    assert_memory_equal(r->sim->sl[1].esc.sii + 2 * 0x20, img, sizeof img);
    /* the rescan that ran was finished before the first word; those asked for while the
     * write ran were refused */
    assert_true(c.done >= 1);
    assert_true(c.refused >= 1);
    c.stop = true;
    for (unsigned i = 0; i < 20000 && c.done < c.started; i++)
        assert_int_equal(takt_ecat_master_cycle(r->m, takt_now()), 0);
    assert_int_equal(c.done, c.started);
    assert_int_equal(c.failed, 0);
    /* free again: a rescan runs after the write */
    struct got g;
    run_rescan(r, &g);
    assert_int_equal(g.s[1].status, TAKT_ECAT_RESCAN_SAME);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unchanged_network_is_the_same),
        cmocka_unit_test(replaced_device_is_changed),
        cmocka_unit_test(lost_slave_is_missing),
        cmocka_unit_test(sii_write_and_rescan_take_turns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
