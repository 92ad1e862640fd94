/* The CN host's SoC poll window (plk_cn_host_soc_window, takt plk cn --soc-lead): from
 * lead before the next SoC is due (the last SoC's receive stamp plus 0x1006) the host
 * polls until lead after it; before that it wakes at its start. Only CNs whose SoCs
 * come every cycle (PreOp2 on) count, the earliest due one wins, and lead 0 changes
 * nothing. The window is computed from the stamps alone: no clock is read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/driver.h"
#include "plk/frame.h"

#define CYCLE_NS (50 * TAKT_NS_PER_MS)   /* the CN's power-on 0x1006 */
#define LEAD (20 * TAKT_NS_PER_US)
#define NO_SPIN 0
#define FAR (INT64_MAX / 2)

static const uint8_t MN_MAC[6] = { 2, 0, 0, 0, 0, 0xF0 };

static void soc(struct plk_cn *cn, takt_ns_t handed, takt_ns_t stamp)
{
    struct plk_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.src_mac, MN_MAC, 6);
    m.mtyp = PLK_MTYP_SOC;
    m.src = PLK_NODE_MN;
    m.dst = PLK_NODE_BROADCAST;
    uint8_t f[TAKT_FRAME_BUF];
    int n = plk_frame_encode(f, sizeof f, &m);
    assert_true(n >= 60);
    struct plk_txf buf[4];
    struct plk_txq q = { .f = buf, .cap = 4 };
    plk_cn_rx_at(cn, handed, stamp, false, f, (size_t)n, &q);
}

static struct plk_cn *cn_new(unsigned id)
{
    struct plk_cn *cn = calloc(1, sizeof *cn);
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, id);
    uint8_t mac[6] = { 2, 0, 0, 0, 1, (uint8_t)id };
    assert_int_equal(plk_cn_init(cn, &c, mac, 0), 0);
    return cn;
}

/* the window for `now`, from w = FAR and sp = NO_SPIN */
static void window(const struct plk_cn_host *h, takt_ns_t now, takt_ns_t *w, takt_ns_t *sp)
{
    *w = FAR;
    *sp = NO_SPIN;
    plk_cn_host_soc_window(h, now, w, sp);
}

static void window_around_the_next_soc(void **state)
{
    (void)state;
    struct plk_cn *cn = cn_new(7);
    struct plk_cn *cns[] = { cn };
    struct plk_cn_host h = { .cn = cns, .n = 1, .soc_lead_ns = LEAD };
    takt_ns_t t = 10 * TAKT_NS_PER_S, w, sp;

    /* NotActive and PreOp1: no SoC is due every cycle yet */
    window(&h, t, &w, &sp);
    assert_true(w == FAR && sp == NO_SPIN);
    soc(cn, t, t);
    assert_int_equal(cn->state, PLK_NMT_PRE_OPERATIONAL_1);
    window(&h, t + CYCLE_NS - LEAD / 2, &w, &sp);
    assert_true(w == FAR && sp == NO_SPIN);

    /* PreOp2: the SoC stamped at s, handed over 300 us later; the next is due at
     * s + 0x1006, by the stamp, not by the hand-over */
    t += CYCLE_NS;
    takt_ns_t s = t;
    soc(cn, s + 300 * TAKT_NS_PER_US, s);
    assert_int_equal(cn->state, PLK_NMT_PRE_OPERATIONAL_2);
    takt_ns_t due = s + CYCLE_NS;

    /* early in the cycle: sleep no later than the window's start, no poll */
    window(&h, s + 500 * TAKT_NS_PER_US, &w, &sp);
    assert_true(w == due - LEAD);
    assert_true(sp == NO_SPIN);
    /* a wake-up already planned sooner stays */
    takt_ns_t sooner = due - 2 * LEAD;
    w = sooner;
    sp = NO_SPIN;
    plk_cn_host_soc_window(&h, s + 500 * TAKT_NS_PER_US, &w, &sp);
    assert_true(w == sooner);
    /* at the window's first ns and inside it: poll until lead after the due time */
    window(&h, due - LEAD, &w, &sp);
    assert_true(w == FAR && sp == due + LEAD);
    window(&h, due + LEAD - 1, &w, &sp);
    assert_true(w == FAR && sp == due + LEAD);
    /* a poll already planned longer stays */
    w = FAR;
    sp = due + 3 * LEAD;
    plk_cn_host_soc_window(&h, due, &w, &sp);
    assert_true(sp == due + 3 * LEAD);
    /* the SoC did not come within the window: no more polling for it */
    window(&h, due + LEAD, &w, &sp);
    assert_true(w == FAR && sp == NO_SPIN);

    /* it came: the window moves to the cycle after */
    soc(cn, due + 5000, due + 4000);
    window(&h, due + 10000, &w, &sp);
    assert_true(w == due + 4000 + CYCLE_NS - LEAD && sp == NO_SPIN);

    /* lead 0: off */
    h.soc_lead_ns = 0;
    window(&h, due + 4000 + CYCLE_NS, &w, &sp);
    assert_true(w == FAR && sp == NO_SPIN);
    free(cn);
}

/* Several CNs on one host: the earliest SoC due decides; a CN back in PreOp1 does not. */
static void earliest_cyclic_cn_decides(void **state)
{
    (void)state;
    struct plk_cn *a = cn_new(1), *b = cn_new(2);
    struct plk_cn *cns[] = { a, b };
    struct plk_cn_host h = { .cn = cns, .n = 2, .soc_lead_ns = LEAD };
    takt_ns_t t = 10 * TAKT_NS_PER_S, w, sp;
    soc(a, t, t);
    soc(b, t, t);
    soc(a, t + CYCLE_NS, t + CYCLE_NS);
    soc(b, t + CYCLE_NS, t + CYCLE_NS);
    /* b's last SoC stamped 1 ms later (it was read in a later batch) */
    soc(a, t + 2 * CYCLE_NS, t + 2 * CYCLE_NS);
    soc(b, t + 2 * CYCLE_NS + TAKT_NS_PER_MS, t + 2 * CYCLE_NS + TAKT_NS_PER_MS);
    assert_int_equal(a->state, PLK_NMT_PRE_OPERATIONAL_2);
    assert_int_equal(b->state, PLK_NMT_PRE_OPERATIONAL_2);
    window(&h, t + 2 * CYCLE_NS + 2 * TAKT_NS_PER_MS, &w, &sp);
    assert_true(w == t + 3 * CYCLE_NS - LEAD);
    /* a leaves the cyclic states: b's SoC decides */
    a->state = PLK_NMT_PRE_OPERATIONAL_1;
    window(&h, t + 2 * CYCLE_NS + 2 * TAKT_NS_PER_MS, &w, &sp);
    assert_true(w == t + 3 * CYCLE_NS + TAKT_NS_PER_MS - LEAD);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_around_the_next_soc),
        cmocka_unit_test(earliest_cyclic_cn_decides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
