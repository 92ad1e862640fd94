/* Cable redundancy's merge (src/ecat/redund.c) judged on its own: the link over two mem
 * pairs whose clock is a constant, so a reply handed on with the copies' stamp is one the
 * master may use and one stamped otherwise (the host's clock, later than any cycle's
 * deadline) is one it counts late. The test plays the ring itself: a copy is "processed"
 * by the slaves it passes (each writes its byte of an LRW, adds 1 to the BRD and, where
 * its auto-increment address comes to 0, answers the APRD), and the copies come back in
 * every order, one late, one twice, one never, both on one port (the ring changed while
 * the frame was out). Whatever the timing, the reply handed on is either the whole
 * frame, exact, with the copies' stamp (a late copy's too: the master judges the frame
 * late by it), or stamped late, or none: never half the slaves' data with a working
 * counter the master would take for an error of the slaves, nor a mailbox read without
 * the copy that emptied the slave's mailbox. */
#include "redund_rig.h"

static void every_order(void **state)
{
    (void)state;
    for (unsigned k = 1; k < N; k++) {
        struct rig *r = broken_rig(k);
        broken(r, k, 0);
        whole(r, "first port's copy, then the second's");
        broken(r, k, 1);
        whole(r, "second port's copy, then the first's");
        rig_free(r);
    }
}

/* A copy held back past the read of its frame: nothing is handed on then; the copy that
 * comes after completes the frame, handed on whole with its stamp (late for a cycle
 * already read, which the master judges by that stamp; for a mailbox read the reply
 * the slave gave only once), and the next frame is whole again. */
static void one_late(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        struct rig *r = broken_rig(2);
        struct takt_ecat_redundancy st0, st;
        ecat_red_get(r->red, &st0);
        out(r);
        pass(r, 0, 0, 2);
        pass(r, 1, 2, N);
        back(r, !c, (unsigned)!c);
        takt_ns_t before = takt_now();
        late(r, c ? "second port's copy late" : "first port's copy late", before);
        back(r, c, (unsigned)c);
        whole(r, "the frame, completed by its late copy");
        nothing(r);
        ecat_red_get(r->red, &st);
        assert_int_equal(st.late, st0.late);   /* no copy dropped */
        broken(r, 2, c);
        whole(r, "the next frame");
        rig_free(r);
    }
}

/* A copy that comes back twice (a duplicate on the wire): one reply, whole. */
static void one_twice(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        struct rig *r = broken_rig(2);
        out(r);
        pass(r, 0, 0, 2);
        pass(r, 1, 2, N);
        back(r, c, (unsigned)c);
        back(r, c, (unsigned)c);
        back(r, !c, (unsigned)!c);
        whole(r, c ? "second port's copy twice" : "first port's copy twice");
        nothing(r);
        back(r, !c, (unsigned)!c);  /* and again after the frame was handed on */
        nothing(r);
        rig_free(r);
    }
}

/* A copy that never comes back: the frame is late, never used with half its data; a
 * few frames later the other copies are whole again. */
static void one_never(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        struct rig *r = broken_rig(2);
        for (int i = 0; i < 3; i++) {
            out(r);
            pass(r, 0, 0, 2);
            pass(r, 1, 2, N);
            back(r, !c, (unsigned)!c);
            late(r, c ? "second port's copy never" : "first port's copy never", takt_now());
        }
        broken(r, 2, c);
        whole(r, "the next frame");
        rig_free(r);
    }
}

/* The second port goes dead (a second break at its end): the frames whose copy it does
 * not bring back expire one by one, and once it counts as dead (8 frames in a row) the
 * first port's copies stand alone. A frame that expired is never handed on afterwards
 * with half its data: each read hands on at most the frame just sent. */
static void dead_port_after_expiry(void **state)
{
    (void)state;
    struct rig *r = broken_rig(2);
    unsigned handed = 0;
    for (int i = 0; i < 12; i++) {
        out(r);
        pass(r, 0, 0, 2);
        back(r, 0, 0);
        uint8_t buf[TAKT_FRAME_BUF];
        struct takt_frame f;
        if (get(r, buf, &f) == 0)
            continue;
        struct ecat_dg dg;
        size_t pos;
        assert_int_equal(ecat_frame_first(buf, f.len, &dg, &pos), 0);
        printf("  frame %u handed on as frame %u is read\n", dg.lad, r->fno);
        assert_int_equal(dg.lad, r->fno);
        handed++;
    }
    assert_true(handed >= 1);       /* the port was taken for dead */
    rig_free(r);
}

/* The ring changed while the frame was out, so both copies come back on one port.
 * Broken then: the first copy went round the whole ring and is the frame; the second
 * looped on the far side and passed those slaves a second time (not added). Closed then:
 * the first copy looped on the near side, the second crossed unprocessed; the far
 * slaves never saw the frame: late, not a WKC error. */
static void ring_changes_in_flight(void **state)
{
    (void)state;
    struct rig *r = broken_rig(2);
    out(r);                         /* leaves while broken, ... */
    pass(r, 0, 0, 2);
    back(r, 0, 0);
    back(r, 1, 0);                  /* ... the second copy passes the ring closed again */
    late(r, "closed in flight", takt_now());
    nothing(r);
    rig_free(r);

    r = rig_new();
    intact(r);
    whole(r, "intact");
    out(r);                         /* leaves while closed, ... */
    pass(r, 0, 0, N);
    back(r, 0, 1);
    pass(r, 1, 2, N);               /* ... the second copy finds it broken before slave 2 */
    back(r, 1, 1);
    whole(r, "broken in flight");
    rig_free(r);
}

/* An intact ring: the first port's copy is the whole frame alone; the second alone
 * (unprocessed) is nothing. */
static void intact_halves(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    intact(r);
    whole(r, "intact");
    out(r);
    pass(r, 0, 0, N);
    back(r, 0, 1);
    whole(r, "first copy only");
    out(r);
    back(r, 1, 0);
    late(r, "second copy only", takt_now());
    rig_free(r);
}

/* The cable into slave 0 broken for long (the first port hears nothing), then mended:
 * the second port's copy, which crossed the ring unprocessed, comes back first; it is
 * no reply to use. */
static void heal_of_first_cable(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    intact(r);
    whole(r, "intact");
    for (int i = 0; i < 20; i++) {
        out(r);
        pass(r, 1, 0, N);
        back(r, 1, 1);
        if (i < 2) {                /* the APRD went as NOP by the second port: not yet */
            uint8_t buf[TAKT_FRAME_BUF];    /* known that its slave is on that side */
            struct takt_frame f;
            assert_int_equal(get(r, buf, &f), 1);
            continue;
        }
        whole(r, "broken before slave 0, second copy only");
    }
    out(r);
    back(r, 1, 0);                  /* healed: crossed, unprocessed, first back */
    late(r, "healed, the second copy first", takt_now());
    pass(r, 0, 0, N);
    back(r, 0, 1);                  /* the pair complete: handed on; its APRD went by */
    uint8_t buf[TAKT_FRAME_BUF];    /* the second port only, which crossed unprocessed: */
    struct takt_frame f;            /* unanswered (WKC 0), as a datagram the ring */
    assert_int_equal(get(r, buf, &f), 1);   /* changed under */
    nothing(r);
    intact(r);
    whole(r, "healed");
    rig_free(r);
}

/* Broken before slave 0 from the start (the ring never seen closed, the first port
 * hears nothing): once a broadcast's count came back by the second port, a slave is
 * reached by its position through that port. */
static void broken_from_start(void **state)
{
    (void)state;
    struct rig *r = rig_new();
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame f;
    out(r);                         /* its APRD goes by the first port only */
    pass(r, 1, 0, N);
    back(r, 1, 1);
    assert_int_equal(get(r, buf, &f), 1);
    out(r);
    pass(r, 1, 0, N);
    back(r, 1, 1);
    assert_int_equal(get(r, buf, &f), 1);
    struct ecat_dg dg;
    size_t pos;
    bool found = false;
    for (int rc = ecat_frame_first(buf, f.len, &dg, &pos); rc == 0; rc = ecat_frame_next(buf, f.len, &dg, &pos))
        if (dg.cmd == ECAT_APRD) {
            printf("  APRD of position %u: WKC %u, data 0x%02x\n", APOS, get_le16(dg.wkc), dg.data[0]);
            assert_int_equal(get_le16(dg.wkc), 1);
            assert_int_equal(dg.data[0], 0xA0 + APOS);
            found = true;
        }
    assert_true(found);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_order),
        cmocka_unit_test(one_late),
        cmocka_unit_test(one_twice),
        cmocka_unit_test(one_never),
        cmocka_unit_test(dead_port_after_expiry),
        cmocka_unit_test(ring_changes_in_flight),
        cmocka_unit_test(intact_halves),
        cmocka_unit_test(heal_of_first_cable),
        cmocka_unit_test(broken_from_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
