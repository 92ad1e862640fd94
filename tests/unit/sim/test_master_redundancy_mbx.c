/* Mailbox transfers across a cable break, over the in-process link: the master on two
 * mem pairs, the simulator a ring of CoE slaves broken before slave 2, so slaves 2 and 3
 * are reached only by the copies that leave the second port. Those copies come back
 * slower than the first port's (here, once the network is in PREOP: each only once the
 * master sends its next frame, at the latest the next cycle's), as on a host that serves
 * the two ports by turns. A mailbox read (FPRD of SM1) empties
 * the slave's mailbox as the copy passes it: the frame must reach the master with that
 * copy's data, never as the first copy alone (WKC 0, the reply lost for good), and a
 * mailbox write must not be taken for refused and written twice. The tools' blocking
 * calls drive the master without an RT thread; a CoE upload (expedited and segmented),
 * a download read back must all work to a slave behind the break.
 * And an FRMW other than DC's across the break: the value read on the first side cannot
 * reach the second in the same frame (src/ecat/redund_dg.c): the slaves there keep
 * what they hold, the WKC counts the first side's, and an event names the datagram. */
#include "master_rig.h"
#include "ecat/driver.h"            /* the core's request queue, for a plain FRMW */

#define N 4

struct slow {                       /* the second port's copies, held one frame */
    struct takt_sim *sim;
    struct takt_link *b[2];
    bool on;
    unsigned nq, held;
    uint8_t q[8][TAKT_FRAME_BUF];
    uint16_t qlen[8];
};

static void release(struct slow *h)
{
    for (unsigned k = 0; k < h->nq; k++) {
        struct takt_frame o = { .data = h->q[k], .len = h->qlen[k], .cap = TAKT_FRAME_BUF };
        takt_link_send(h->b[1], &o, 1);
    }
    h->nq = 0;
}

static void slow_port(struct slow *h, unsigned port, const struct takt_frame *f)
{
    uint8_t buf[TAKT_FRAME_BUF];
    unsigned out;
    release(h);                     /* the copies of earlier frames arrive first */
    memcpy(buf, f->data, f->len);
    size_t r = takt_sim_process_port(h->sim, port, buf, f->len, sizeof buf, f->ts, NULL, &out);
    if (!r)
        return;
    if (h->on && out == 1 && h->nq < 8) {
        memcpy(h->q[h->nq], buf, r);
        h->qlen[h->nq++] = (uint16_t)r;
        h->held++;
        return;
    }
    struct takt_frame o = { .data = buf, .len = (uint16_t)r, .cap = sizeof buf };
    takt_link_send(h->b[out], &o, 1);
}
static void slow0(void *ctx, struct takt_link *ep, const struct takt_frame *f) { (void)ep; slow_port(ctx, 0, f); }
static void slow1(void *ctx, struct takt_link *ep, const struct takt_frame *f) { (void)ep; slow_port(ctx, 1, f); }

static const char NAME[] = "A-device-name-long-enough-for-segments-0123456789-abcdef";

struct bench {
    struct sim_device_desc desc[N];
    struct takt_sim *sim;
    struct takt_link *a[2], *b[2];
    struct slow h;
    struct takt_ecat_master *m;
};

/* The ring of N CoE slaves broken before slave 2, scanned and in PREOP. */
static struct bench *bench_new(void)
{
    struct bench *g = calloc(1, sizeof *g);
    struct sim_device_desc *desc = g->desc;
    struct sim_device *devs[N];
    for (unsigned i = 0; i < N; i++) {
        mbx_desc(&desc[i], i);
        desc[i].sm[0].len = desc[i].sm[1].len = 48;   /* the name needs segments */
        snprintf(desc[i].name, sizeof desc[i].name, "%s", NAME);
        assert_int_equal(sim_device_from_desc(&desc[i], &devs[i]), 0);
    }
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    char err[200];
    assert_int_equal(takt_sim_create_devices(devs, N, &so, &g->sim), 0);
    assert_int_equal(takt_sim_set_ring(g->sim, err, sizeof err), 0);
    for (int p = 0; p < 2; p++)
        assert_int_equal(takt_link_mem_pair(&g->a[p], &g->b[p], 64, NULL, NULL), 0);
    g->a[1]->mac[5] ^= 0x55;        /* two ports, two MACs */
    takt_sim_attach_mem_ring(g->sim, g->b[0], g->b[1]);
    g->h = (struct slow){ .sim = g->sim, .b = { g->b[0], g->b[1] } };
    takt_link_mem_set_responder(g->b[0], slow0, &g->h);
    takt_link_mem_set_responder(g->b[1], slow1, &g->h);
    assert_int_equal(takt_sim_break(g->sim, 2, takt_now()), 0);

    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.cycle_ns = TAKT_NS_PER_MS;
    o.redundant = g->a[1];
    assert_int_equal(takt_ecat_master_open(&g->m, g->a[0], &o, err, sizeof err), 0);
    int rc = takt_ecat_master_scan(g->m, 5 * TAKT_NS_PER_S);
    if (rc)
        printf("  scan: %s\n", takt_ecat_master_error(g->m));
    assert_int_equal(rc, 0);
    assert_int_equal(takt_ecat_master_slave_count(g->m), N);
    rc = takt_ecat_master_set_state(g->m, AL_PREOP, 10 * TAKT_NS_PER_S);
    if (rc)
        printf("  PREOP: %s\n", takt_ecat_master_error(g->m));
    assert_int_equal(rc, 0);
    struct takt_ecat_redundancy rs;
    takt_ecat_master_redundancy(g->m, &rs);
    printf("  ring: broken %d, sides %u/%u\n", rs.broken, rs.first_side, rs.second_side);
    assert_int_equal(rs.first_side, 2);     /* the link sees the break before slave 2 */
    assert_int_equal(rs.second_side, N - 2);
    return g;
}

static void bench_free(struct bench *g)
{
    takt_ecat_master_close(g->m);
    for (int p = 0; p < 2; p++) {
        takt_link_close(g->a[p]);
        takt_link_close(g->b[p]);
    }
    takt_sim_destroy(g->sim);
    free(g);
}

static void coe_behind_break(void **state)
{
    (void)state;
    struct bench *g = bench_new();
    struct takt_ecat_master *m = g->m;
    g->h.on = true;
    int rc;

    uint8_t buf[128];
    size_t len = 0;
    for (unsigned pos = 1; pos < N; pos++) {   /* before the break, and behind it */
        rc = takt_ecat_sdo_upload(m, pos, 0x1018, 2, false, buf, sizeof buf, &len);
        if (rc)
            printf("  slave %u, 0x1018:02: %s\n", pos, takt_ecat_master_error(m));
        assert_int_equal(rc, 0);
        assert_int_equal(len, 4);
        assert_int_equal(get_le32(buf), 0x4000 + pos);
        memset(buf, 0, sizeof buf);
        rc = takt_ecat_sdo_upload(m, pos, 0x1008, 0, false, buf, sizeof buf, &len);
        if (rc)
            printf("  slave %u, 0x1008 (segmented): %s\n", pos, takt_ecat_master_error(m));
        assert_int_equal(rc, 0);
        assert_int_equal(len, strlen(NAME));
        assert_memory_equal(buf, NAME, len);
        uint8_t v[2];
        put_le16(v, (uint16_t)(0x1230 + pos));
        rc = takt_ecat_sdo_download(m, pos, 0x7000, 1, false, v, 2);
        if (rc)
            printf("  slave %u, 0x7000:01 download: %s\n", pos, takt_ecat_master_error(m));
        assert_int_equal(rc, 0);
        assert_int_equal(takt_ecat_sdo_upload(m, pos, 0x7000, 1, false, buf, sizeof buf, &len), 0);
        assert_int_equal(len, 2);
        assert_int_equal(get_le16(buf), 0x1230 + pos);
    }
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(m, &st);
    printf("  copies held %u; frames lost %llu, late %llu\n", g->h.held,
           (unsigned long long)st.frames_lost, (unsigned long long)st.frames_late);
    assert_true(g->h.held >= 20);
    bench_free(g);
}

/* An FRMW of slave 0's register 0x0F80 (not DC's 0x0910), the ring broken before slave
 * 2: slave 1 gets slave 0's value, slaves 2 and 3 keep theirs (not the master's
 * placeholder), the WKC counts slaves 0 and 1, and the event names the datagram and the
 * slaves the value cannot reach. */
static void frmw_behind_break(void **state)
{
    (void)state;
    struct bench *g = bench_new();
    struct takt_ecat_master *m = g->m;
    uint8_t v[2];
    for (unsigned i = 0; i < N; i++) {   /* FPWRs: the link learns the stations' sides too */
        v[0] = (uint8_t)(0xB0 + i);
        v[1] = (uint8_t)(0xC0 + i);
        assert_int_equal(takt_ecat_reg_write(m, i, 0x0F80, v, 2), 0);
    }
    char ev[400];
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        ;
    struct ecat_req req;
    uint8_t data[2] = { 0x5A, 0xA5 };   /* the master's placeholder */
    ecat_req_init(&req, ECAT_FRMW, 0x1000, 0x0F80, data, 2);
    ecat_req_queue(&m->core, &req);
    bool said = false;              /* the mem link's replies are back by the next cycle */
    for (unsigned i = 0; i < 5000 && (ecat_req_busy(&req) || !said); i++) {
        assert_int_equal(takt_ecat_master_cycle(m, takt_now()), 0);
        while (takt_ecat_master_next_event(m, ev, sizeof ev)) {
            printf("  event: %s\n", ev);
            said |= strstr(ev, "FRMW of station 0x1000 register 0x0F80 reads on the first "
                           "port's side: the value read cannot reach slaves 2-3") != NULL;
        }
    }
    printf("  FRMW: WKC %d, read %02x %02x\n", req.wkc, data[0], data[1]);
    assert_false(ecat_req_busy(&req));
    assert_int_equal(req.wkc, 2);
    assert_int_equal(data[0], 0xB0);
    assert_int_equal(data[1], 0xC0);
    assert_true(said);
    static const uint8_t want[N][2] = { { 0xB0, 0xC0 }, { 0xB0, 0xC0 }, { 0xB2, 0xC2 }, { 0xB3, 0xC3 } };
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(takt_ecat_reg_read(m, i, 0x0F80, v, 2), 0);
        printf("  slave %u: 0x0F80 = %02x %02x\n", i, v[0], v[1]);
        assert_memory_equal(v, want[i], 2);
    }
    struct takt_ecat_redundancy rs;
    takt_ecat_master_redundancy(m, &rs);
    assert_int_equal(rs.frmw_noted, 1);
    assert_true(rs.frmw_partial >= 1);
    bench_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coe_behind_break),
        cmocka_unit_test(frmw_behind_break),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
