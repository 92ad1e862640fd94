/* The mailbox poll between transfers visits only the slaves whose SII gives a CoE send
 * mailbox (the core's poll set, master_coe.c), and a cycle looks at the SDO slots only
 * while one is in use. Both skip work that would find nothing; these tests show that
 * the work is still done wherever it must be: each slave with a mailbox is polled in
 * turn, one whose SII is read anew joins or leaves the set, and a queued transfer still
 * starts and ends. The SII images are the simulator's (sim_sii_build); the core runs
 * without a link, the test gives the times and plays the network. */
#include "unit/sim/master_rig.h"
#include "ecat/core.h"
#include "ecat/scan.h"
#include "ecat/master_internal.h"

enum { N = 40 };

static struct ecat_core *core_new(void)
{
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = N;
    struct ecat_core *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char err[200];
    assert_int_equal(ecat_core_init(c, mac, "test", &o, 1, err, sizeof err), 0);
    c->n_slaves = N;
    for (unsigned i = 0; i < N; i++) {
        struct ecat_slave *s = &c->slaves[i];
        s->info.position = i;
        s->info.station = (uint16_t)(0x1001 + i);
        s->info.present = true;
        s->info.al_state = AL_PREOP;
    }
    return c;
}

static void core_free(struct ecat_core *c)
{
    ecat_core_free(c);
    free(c);
}

/* Slave pos's SII read (again) as the scan reads it: an I/O slave, or one with a CoE
 * mailbox (SM0/SM1 of 128 bytes). */
static void read_sii(struct ecat_core *c, unsigned pos, bool mailbox)
{
    struct sim_device_desc d;
    if (mailbox)
        mbx_desc(&d, pos);
    else
        io_desc(&d, pos);
    static uint8_t img[8192];
    int n = sim_sii_build(&d, img, sizeof img);
    assert_true(n > 0);
    struct ecat_slave *s = &c->slaves[pos];
    assert_int_equal(ecat_sii_grow(s, (size_t)n), 0);
    memcpy(s->scan.sii, img, (size_t)n);
    s->scan.sii_len = (size_t)n;
    assert_int_equal(ecat_sii_parse(c, s), 0);
    assert_int_equal(!!(s->info.mbx_protocols & MBX_PROTO_COE), mailbox);
}

/* Runs the idle poll every millisecond for `ms` from *t, answering each status read
 * with an empty mailbox; counts the polls per position. */
static void run_polls(struct ecat_core *c, takt_ns_t *t, unsigned ms, unsigned polls[N])
{
    memset(polls, 0, N * sizeof *polls);
    for (unsigned k = 0; k < ms; k++, *t += TAKT_NS_PER_MS) {
        ecat_coe_poll(c, *t);
        struct ecat_req *r = &c->idle_req;
        if (r->st != REQ_QUEUED)
            continue;
        assert_int_equal(r->cmd, ECAT_FPRD);
        assert_int_equal(r->ado, 0x080D);
        assert_in_range(r->adp, 0x1001, 0x1001 + N - 1);
        unsigned pos = r->adp - 0x1001u;
        polls[pos]++;
        c->q_head = c->q_tail = NULL;     /* the test is the network: empty mailbox */
        r->st = REQ_DONE;
        r->wkc = 1;
        c->idle_buf[0] = 0;
    }
}

/* 40 slaves, two with a mailbox (positions 5 and 30): only those are polled, each every
 * 50 ms (ECAT_EMCY_POLL_NS). Slave 30's SII read anew without a mailbox takes it out,
 * slave 12's with one puts it in. Fails if the poll skips the walk always (no slave
 * polled), or if the set misses a change of a slave's SII. */
static void test_polls_exactly_the_mailbox_slaves(void **state)
{
    (void)state;
    struct ecat_core *c = core_new();
    for (unsigned i = 0; i < N; i++)
        read_sii(c, i, i == 5 || i == 30);
    takt_ns_t t = 10 * TAKT_NS_PER_S;
    unsigned polls[N];
    run_polls(c, &t, 500, polls);
    for (unsigned i = 0; i < N; i++) {
        if (i == 5 || i == 30)
            assert_in_range(polls[i], 9, 11);
        else
            assert_int_equal(polls[i], 0);
    }
    read_sii(c, 30, false);
    read_sii(c, 12, true);
    run_polls(c, &t, 500, polls);
    for (unsigned i = 0; i < N; i++) {
        if (i == 5 || i == 12)
            assert_in_range(polls[i], 9, 11);
        else
            assert_int_equal(polls[i], 0);
    }
    /* a slave of the set that is not in a mailbox state, or gone, is passed over */
    c->slaves[5].info.al_state = AL_INIT;
    c->slaves[12].info.present = false;
    run_polls(c, &t, 200, polls);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(polls[i], 0);
    c->slaves[5].info.al_state = AL_SAFEOP;
    run_polls(c, &t, 200, polls);
    assert_in_range(polls[5], 3, 5);
    core_free(c);
}

/* The order of the turns is the walk's over all positions from the one after the last
 * polled, wrapping: with slaves 3, 17 and 38 due at once, one poll in each cycle goes to
 * 17, 38, 3 after 3 was polled (not back to the lowest position). */
static void test_turns_wrap_in_position_order(void **state)
{
    (void)state;
    struct ecat_core *c = core_new();
    for (unsigned i = 0; i < N; i++)
        read_sii(c, i, i == 3 || i == 17 || i == 38);
    c->idle_next = 4;                   /* slave 3 was polled last */
    takt_ns_t t = 10 * TAKT_NS_PER_S;
    static const unsigned want[] = { 17, 38, 3 };
    for (unsigned k = 0; k < 3; k++, t += TAKT_NS_PER_MS) {
        ecat_coe_poll(c, t);
        struct ecat_req *r = &c->idle_req;
        assert_int_equal(r->st, REQ_QUEUED);
        assert_int_equal(r->adp, 0x1001 + want[k]);
        c->q_head = c->q_tail = NULL;
        r->st = REQ_DONE;
        r->wkc = 1;
        c->idle_buf[0] = 0;
    }
    core_free(c);
}

static unsigned done_calls;
static int done_err;
static void on_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    (void)ctx, (void)data, (void)len;
    done_calls++;
    done_err = err;
}

/* A queued SDO upload still starts (its mailbox write is queued), times out and ends
 * with its callback; then the slots are free and a second one starts as the first did.
 * Fails if the timer skips the slots while one is in use. */
static void test_transfer_advances_while_slots_in_use(void **state)
{
    (void)state;
    struct ecat_core *c = core_new();
    for (unsigned i = 0; i < N; i++)
        read_sii(c, i, i == 5);
    takt_ns_t t = 10 * TAKT_NS_PER_S;
    uint8_t buf[16];
    for (unsigned round = 0; round < 2; round++) {
        done_calls = 0;
        assert_int_equal(ecat_sdo_upload_async(c, 5, 0x1008, 0, false, buf, sizeof buf, on_done, NULL), 0);
        c->idle_req.st = REQ_IDLE;      /* no idle poll in the way of the transfer */
        ecat_coe_poll(c, t);
        bool wrote = false;
        for (struct ecat_req *r = c->q_head; r; r = r->next)
            wrote |= r->cmd == ECAT_FPWR && r->adp == 0x1006 && r->ado == c->slaves[5].info.mbx_out_start;
        assert_true(wrote);
        /* the slave takes every write and never has an answer: the transfer's own
         * timeout ends it (through its restarts and the abort it writes) */
        for (unsigned k = 0; k < 1000 && !done_calls; k++) {
            t += 10 * TAKT_NS_PER_MS;
            for (struct ecat_req *r = c->q_head; r; r = r->next) {
                if (r->cmd == ECAT_FPRD && r->data)
                    memset(r->data, 0, r->len);
                r->st = REQ_DONE;
                r->wkc = 1;
            }
            c->q_head = c->q_tail = NULL;
            c->idle_req.st = REQ_IDLE;
            ecat_coe_poll(c, t);
        }
        assert_int_equal(done_calls, 1);
        assert_int_equal(done_err, -ETIMEDOUT);
    }
    core_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polls_exactly_the_mailbox_slaves),
        cmocka_unit_test(test_turns_wrap_in_position_order),
        cmocka_unit_test(test_transfer_advances_while_slots_in_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
