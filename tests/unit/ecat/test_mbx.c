/* One slave's mailbox (struct ecat_mbx_chan, mbx.c) on its own: the counter of the
 * master's requests, the repeat request toggle, the judgement of a repeated reply and
 * the interval of the idle poll of the send mailbox; then that interval as the core's
 * idle poll keeps it. No link, no clock: the test gives the times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/core.h"
#include "ecat/mbx.h"

/* ETG.1000.6 5.6: the counter runs 1..7 and wraps to 1; 0 ("counter not used") is
 * never sent, also from a channel never used or zeroed at INIT. */
static void test_counter_wraps_never_zero(void **state)
{
    (void)state;
    struct ecat_mbx_chan ch;
    memset(&ch, 0, sizeof ch);
    for (unsigned i = 0; i < 30; i++) {
        uint8_t c = ecat_mbx_next_cnt(&ch);
        assert_int_equal(c, 1 + i % 7);
        assert_int_not_equal(c, 0);
        assert_int_equal(ch.tx, c);
    }
    ch.tx = 7;
    assert_int_equal(ecat_mbx_next_cnt(&ch), 1);
    ch.tx = 0xFF;                       /* whatever came before: back into 1..7 */
    assert_int_equal(ecat_mbx_next_cnt(&ch), 1);
}

/* ETG.1000.4 SyncManager repeat: each request flips 0x080E bit 1 (bit 0, the enable,
 * stays set), and only the 0x080F byte with the same bit acknowledges it. */
static void test_repeat_toggles(void **state)
{
    (void)state;
    struct ecat_mbx_chan ch;
    memset(&ch, 0, sizeof ch);
    assert_int_equal(ecat_mbx_repeat_req(&ch), 0x03);
    assert_true(ecat_mbx_repeat_acked(&ch, 0x02));
    assert_false(ecat_mbx_repeat_acked(&ch, 0x00));
    assert_false(ecat_mbx_repeat_acked(&ch, 0x01));
    assert_int_equal(ecat_mbx_repeat_req(&ch), 0x01);
    assert_true(ecat_mbx_repeat_acked(&ch, 0x00));
    assert_true(ecat_mbx_repeat_acked(&ch, 0xFD));   /* other bits are not the toggle */
    assert_false(ecat_mbx_repeat_acked(&ch, 0x02));
    assert_int_equal(ecat_mbx_repeat_req(&ch), 0x03);
    /* a slave found with its acknowledge at 1 (a previous master toggled it): the
     * master starts in step with it, and its next request is 0 */
    ch.repeat = 1;
    assert_int_equal(ecat_mbx_repeat_req(&ch), 0x01);
}

static size_t msg(uint8_t *b, uint8_t cnt, uint8_t payload)
{
    struct ecat_mbx_hdr h = { .len = 2, .type = MBX_TYPE_COE, .cnt = cnt };
    ecat_mbx_encode(b, &h);
    b[6] = payload;
    b[7] = 0;
    return 8;
}

/* A reply with the counter of the last accepted one is a repetition, dropped; a new
 * counter is taken. Counter 0 is never a repetition. On whole messages a slave that
 * restarted and reuses the last counter with other bytes is not mistaken for one. */
static void test_duplicate_dropped(void **state)
{
    (void)state;
    struct ecat_mbx_chan ch;
    memset(&ch, 0, sizeof ch);
    assert_false(ecat_mbx_rx_dup(&ch, 3));
    assert_true(ecat_mbx_rx_dup(&ch, 3));
    assert_true(ecat_mbx_rx_dup(&ch, 3 | 0x08));     /* counter bits only */
    assert_false(ecat_mbx_rx_dup(&ch, 4));
    assert_false(ecat_mbx_rx_dup(&ch, 0));
    assert_false(ecat_mbx_rx_dup(&ch, 0));
    assert_true(ecat_mbx_rx_dup(&ch, 4));

    memset(&ch, 0, sizeof ch);
    uint8_t a[8], b[8];
    size_t n = msg(a, 5, 0x11);
    assert_false(ecat_mbx_rx_dup_msg(&ch, a, n));
    assert_true(ecat_mbx_rx_dup_msg(&ch, a, n));
    msg(b, 5, 0x22);                    /* same counter, other bytes */
    assert_false(ecat_mbx_rx_dup_msg(&ch, b, n));
    assert_true(ecat_mbx_rx_dup_msg(&ch, b, n));
    msg(b, 6, 0x22);
    assert_false(ecat_mbx_rx_dup_msg(&ch, b, n));
}

/* The idle send mailbox is looked into at most once per interval: not before the
 * interval has passed since the last poll, then at once, and each poll starts the
 * interval again. */
static void test_poll_interval(void **state)
{
    (void)state;
    const takt_ns_t iv = 50 * TAKT_NS_PER_MS, t0 = 7 * TAKT_NS_PER_S;
    struct ecat_mbx_chan ch;
    memset(&ch, 0, sizeof ch);
    assert_true(ecat_mbx_poll_due(&ch, t0, iv));
    assert_int_equal(ch.polled, t0);
    assert_false(ecat_mbx_poll_due(&ch, t0, iv));
    assert_false(ecat_mbx_poll_due(&ch, t0 + iv - 1, iv));
    assert_int_equal(ch.polled, t0);                  /* a refused poll is not noted */
    assert_true(ecat_mbx_poll_due(&ch, t0 + iv, iv));
    assert_false(ecat_mbx_poll_due(&ch, t0 + iv + iv / 2, iv));
    assert_true(ecat_mbx_poll_due(&ch, t0 + 3 * iv, iv));
    assert_int_equal(ch.polled, t0 + 3 * iv);
}

/* Through the core: two CoE slaves in PREOP with nothing to send. The idle poll reads
 * one SM1 status (0x080D) at a time, and each slave's again only 50 ms after its last
 * (ECAT_EMCY_POLL_NS, master_coe.c), not sooner and not much later. */
static void test_core_idle_poll_interval(void **state)
{
    (void)state;
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 2;
    struct ecat_core *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char err[200];
    assert_int_equal(ecat_core_init(c, mac, "test", &o, 1, err, sizeof err), 0);
    c->n_slaves = 2;
    for (unsigned i = 0; i < 2; i++) {
        struct ecat_slave *s = &c->slaves[i];
        s->info.station = (uint16_t)(0x1001 + i);
        s->info.present = true;
        s->info.al_state = AL_PREOP;
        s->info.mbx_protocols = MBX_PROTO_COE;
        s->info.mbx_in_start = 0x1080;
        s->info.mbx_in_len = 128;
        ecat_coe_poll_note(c, i);         /* as the scan does once it read the SII */
    }
    const takt_ns_t t0 = 10 * TAKT_NS_PER_S, ms = TAKT_NS_PER_MS;
    takt_ns_t last[2] = { 0, 0 };
    unsigned polls[2] = { 0, 0 };
    for (takt_ns_t t = t0; t < t0 + 500 * ms; t += ms) {
        ecat_coe_poll(c, t);
        struct ecat_req *r = &c->idle_req;
        if (r->st != REQ_QUEUED)
            continue;
        assert_int_equal(r->cmd, ECAT_FPRD);
        assert_int_equal(r->ado, 0x080D);
        assert_true(r->adp == 0x1001 || r->adp == 0x1002);
        unsigned k = r->adp - 0x1001u;
        if (polls[k]) {
            assert_true(t - last[k] >= 50 * ms);
            assert_true(t - last[k] <= 52 * ms);
        }
        last[k] = t;
        polls[k]++;
        c->q_head = c->q_tail = NULL;     /* the test is the network: empty mailbox */
        r->st = REQ_DONE;
        r->wkc = 1;
        c->idle_buf[0] = 0;
    }
    assert_in_range(polls[0], 9, 11);
    assert_in_range(polls[1], 9, 11);
    ecat_core_free(c);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_wraps_never_zero),
        cmocka_unit_test(test_repeat_toggles),
        cmocka_unit_test(test_duplicate_dropped),
        cmocka_unit_test(test_poll_interval),
        cmocka_unit_test(test_core_idle_poll_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
