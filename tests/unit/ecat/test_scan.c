/* The core's network scan (scan.c, struct ecat_scan; the scan steps of each slave's
 * machine) on its own: the test is the driver and the network. It calls
 * ecat_core_timer / _tx / _rx with a time it advances itself and answers each datagram
 * from a line of hand-written ESCs (master_fake.h), or drops, changes or miscounts the
 * answer: slave count from the BRD's WKC, a lost count retried, station addresses,
 * the alias, slaves that come or go during the scan, a wrong WKC. No link, no clock. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <takt/ecat.h>
#include "ecat/core.h"
#include "ecat/sii.h"
#include "unit/ecat/master_fake.h"

#define STEP TAKT_NS_PER_MS

struct bus {
    struct ecat_core c;
    struct fake_net net;
    takt_ns_t now;
    unsigned drop_count;       /* frames with the count (BRD 0x0000) to drop */
    unsigned counts;           /* count reads seen (dropped or answered) */
    int present_after_count;   /* slaves present once the count was answered (-1: same) */
    int extra_wkc_pos;         /* the station address write to this position counts twice */
    unsigned alias_reads[FAKE_MAX];
    char ev[64][256];
    unsigned nev;
};

static struct bus *bus_new(unsigned n)
{
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 8;
    struct bus *b = calloc(1, sizeof *b);
    assert_non_null(b);
    char err[200];
    assert_int_equal(ecat_core_init(&b->c, mac, "scanbus", &o, STEP, err, sizeof err), 0);
    fake_init(&b->net, n);
    for (unsigned i = 0; i < n; i++) {
        struct fake_slave *s = &b->net.s[i];
        /* the configured station alias: SII word 4 (ETG.2010), loaded into 0x0012 */
        put_le16(s->sii + 8, (uint16_t)(0x0A00 + i));
        s->sii[14] = ecat_sii_crc(s->sii, 14);
        put_le16(s->mem + ESC_STATION_ALIAS, (uint16_t)(0x0A00 + i));
    }
    b->now = STEP;
    b->present_after_count = -1;
    b->extra_wkc_pos = -1;
    return b;
}

static void bus_free(struct bus *b)
{
    ecat_core_free(&b->c);
    free(b);
}

static void take_events(struct bus *b)
{
    struct takt_event ev;
    while (rt_evring_next(&b->c.ev, &ev))
        if (b->nev < TAKT_ARRAY_SIZE(b->ev))
            ecat_ev_format(&ev, b->ev[b->nev++], sizeof b->ev[0]);
}

static unsigned events_with(struct bus *b, const char *needle)
{
    take_events(b);
    unsigned n = 0;
    for (unsigned i = 0; i < b->nev; i++)
        n += strstr(b->ev[i], needle) != NULL;
    return n;
}

/* One frame through the line (as master_fake.h's responder, with the test's changes);
 * false: dropped. */
static bool answer(struct bus *b, uint8_t *buf, size_t len)
{
    uint8_t orig[TAKT_FRAME_BUF];
    struct ecat_dg dg;
    size_t pos;
    if (ecat_frame_first(buf, len, &dg, &pos) != 0)
        return false;
    bool count = false;
    for (int rc = 0; rc == 0; rc = ecat_frame_next(buf, len, &dg, &pos))
        count |= dg.cmd == ECAT_BRD && dg.ado == ESC_TYPE;
    if (count) {
        b->counts++;
        if (b->drop_count) {
            b->drop_count--;
            return false;
        }
    }
    struct fake_net *net = &b->net;
    buf[6] |= 0x02;
    fake_dl(net);
    assert_int_equal(ecat_frame_first(buf, len, &dg, &pos), 0);
    for (int rc = 0; rc == 0; rc = ecat_frame_next(buf, len, &dg, &pos)) {
        memcpy(orig, dg.data, dg.len);
        unsigned wkc = get_le16(dg.wkc);
        for (unsigned k = 0; k < net->present; k++) {
            int w = fake_exec(net, k, &dg, orig);
            wkc += (unsigned)w;
            if (w && dg.cmd == ECAT_FPRD && dg.ado == ESC_STATION_ALIAS)
                b->alias_reads[k]++;
            if (w && dg.cmd == ECAT_APWR && dg.ado == ESC_STATION_ADDR && (int)k == b->extra_wkc_pos)
                wkc++;
        }
        put_le16(dg.wkc, (uint16_t)wkc);
        if (dg.cmd <= ECAT_BRW && dg.cmd != ECAT_NOP && dg.cmd != ECAT_FPRD &&
            dg.cmd != ECAT_FPWR && dg.cmd != ECAT_FPRW)
            put_le16(dg.hdr + 2, (uint16_t)(dg.adp + net->present));
    }
    if (count && b->present_after_count >= 0)
        net->present = (unsigned)b->present_after_count;    /* plugged in or out now */
    return true;
}

/* Run the scan until the network machine rests (or 10 s of the test's time). */
static void scan(struct bus *b)
{
    ecat_core_scan(&b->c, b->now);
    for (unsigned i = 0; i < 10000; i++) {
        ecat_core_timer(&b->c, b->now);
        if (b->c.scan.state == MF_IDLE)
            break;
        struct takt_frame f[8];
        unsigned n = ecat_core_tx(&b->c, b->now, f, 8);
        for (unsigned k = 0; k < n; k++) {
            uint8_t buf[TAKT_FRAME_BUF];
            assert_true(f[k].len <= sizeof buf);
            memcpy(buf, f[k].data, f[k].len);
            if (answer(b, buf, f[k].len))
                ecat_core_rx(&b->c, b->now, buf, f[k].len, 0);
        }
        b->now += STEP;
    }
    assert_int_equal(b->c.scan.state, MF_IDLE);
    take_events(b);
}

/* The count is the WKC of the BRD; each slave gets its station address by position,
 * its alias is read, its SII parsed (identity, alias word). */
static void test_count_addresses_alias(void **state)
{
    (void)state;
    struct bus *b = bus_new(3);
    scan(b);
    assert_int_equal(b->c.last_err, 0);
    assert_true(b->c.scan.done);
    assert_int_equal(b->c.n_slaves, 3);
    assert_int_equal(b->counts, 1);
    for (unsigned i = 0; i < 3; i++) {
        const struct ecat_slave *s = &b->c.slaves[i];
        assert_int_equal(s->info.position, i);
        assert_int_equal(s->info.station, b->c.o.station_base + i);
        assert_int_equal(get_le16(b->net.s[i].mem + ESC_STATION_ADDR), b->c.o.station_base + i);
        assert_int_equal(b->alias_reads[i], 1);
        assert_int_equal(s->info.alias, 0x0A00 + i);
        assert_int_equal(s->info.product, 0x1000 + i);
        assert_true(s->info.present);
        assert_true(s->scan.done);
        assert_true(s->scan.sii_len >= 0x80);
        assert_int_equal(s->esm.f.state, SS_IDLE);
    }
    /* a line: each slave's parent is the one before it */
    assert_int_equal(b->c.slaves[0].info.parent, -1);
    assert_int_equal(b->c.slaves[2].info.parent, 1);
    bus_free(b);
}

/* The frame with the count is lost: the reset and count go out again (after the
 * datagram timeout), and the scan goes on with the count of the retry. Four losses
 * in a row end the scan with an error that says how often it tried and where. */
static void test_lost_count_retried(void **state)
{
    (void)state;
    struct bus *b = bus_new(3);
    b->drop_count = 1;
    scan(b);
    assert_int_equal(b->counts, 2);
    assert_int_equal(b->c.scan.f.retries, 1);
    assert_int_equal(b->c.last_err, 0);
    assert_true(b->c.scan.done);
    assert_int_equal(b->c.n_slaves, 3);
    assert_int_equal(events_with(b, "did not return"), 0);
    bus_free(b);

    b = bus_new(3);
    b->drop_count = 100;
    scan(b);
    assert_int_equal(b->counts, 4);
    assert_int_equal(b->c.last_err, -ETIMEDOUT);
    assert_false(b->c.scan.done);
    assert_int_equal(b->c.n_slaves, 0);
    assert_int_equal(events_with(b, "BRD 0x0000 (slave count) did not return after 4 tries; "
                                    "is a slave connected to scanbus?"), 1);
    bus_free(b);
}

/* A slave plugged in after the count was read is not part of this scan: the scan
 * goes on with the count it read, the newcomer keeps no station address (a rescan or
 * the recovery finds it). */
static void test_hotplug_in_during_scan(void **state)
{
    (void)state;
    struct bus *b = bus_new(4);
    b->net.present = 3;
    b->present_after_count = 4;
    scan(b);
    assert_int_equal(b->counts, 1);
    assert_int_equal(b->c.last_err, 0);
    assert_true(b->c.scan.done);
    assert_int_equal(b->c.n_slaves, 3);
    for (unsigned i = 0; i < 3; i++)
        assert_true(b->c.slaves[i].scan.done);
    assert_int_equal(get_le16(b->net.s[3].mem + ESC_STATION_ADDR), 0);
    bus_free(b);
}

/* A slave unplugged after the count: its address write finds nobody (WKC 0), is
 * retried, and the slave fails with the register, the WKC expected and the WKC that
 * came; the others are scanned, and the scan ends with the error. */
static void test_hotplug_out_during_scan(void **state)
{
    (void)state;
    struct bus *b = bus_new(3);
    b->present_after_count = 2;
    scan(b);
    assert_int_equal(b->c.n_slaves, 3);
    assert_true(b->c.scan.done);
    assert_int_equal(b->c.last_err, -TAKT_EWKC);
    assert_true(b->c.slaves[0].scan.done);
    assert_true(b->c.slaves[1].scan.done);
    assert_false(b->c.slaves[2].scan.done);
    assert_int_equal(b->c.slaves[2].esm.f.state, SS_FAILED);
    assert_int_equal(b->c.slaves[2].esm.f.err, -TAKT_EWKC);
    assert_int_equal(events_with(b, "station address"), 1);
    assert_int_equal(events_with(b, "expected WKC 1, got 0"), 1);
    bus_free(b);
}

/* The address write to position 1 comes back with WKC 2 (two devices took it): never
 * taken as done; after the retries the error names the step, what was expected and
 * what came. */
static void test_wrong_wkc_said(void **state)
{
    (void)state;
    struct bus *b = bus_new(3);
    b->extra_wkc_pos = 1;
    scan(b);
    assert_int_equal(b->c.last_err, -TAKT_EWKC);
    assert_int_equal(b->c.slaves[1].esm.f.state, SS_FAILED);
    assert_true(b->c.slaves[0].scan.done);
    assert_true(b->c.slaves[2].scan.done);
    char want[128];
    snprintf(want, sizeof want, "slave 1 (station 0x%04X): station address", b->c.o.station_base + 1);
    assert_int_equal(events_with(b, want), 1);
    assert_int_equal(events_with(b, "expected WKC 1, got 2"), 1);
    bus_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_addresses_alias),
        cmocka_unit_test(test_lost_count_retried),
        cmocka_unit_test(test_hotplug_in_during_scan),
        cmocka_unit_test(test_hotplug_out_during_scan),
        cmocka_unit_test(test_wrong_wkc_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
