/* takt analyze on real captures from $TAKT_FIXTURES (ethercrab on real Beckhoff
 * terminals, SOEM, TwinCAT; see its SOURCES.md). Expected figures were computed
 * independently with tshark (-T fields -e frame.time_epoch, the stream's frames picked
 * by source MAC, command and address; returns paired by ecat.idx). Skips (77) when the
 * fixtures are absent. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/analyze.h"
#include "ecat/proto.h"

struct expect {
    const char *file;
    int64_t prec;                  /* ns per tick */
    const char *cmd;               /* the stream's signature */
    bool pd;
    uint32_t addr;
    uint16_t len;
    uint64_t frames;               /* of the stream */
    int64_t min, avg, max, p50, p99;
    uint64_t gaps;
    uint64_t sent, returned;       /* every master frame, every return */
    uint64_t other_frames;         /* frames of the second most frequent process-data signature, 0 = none */
    int64_t rtt_min, rtt_avg, rtt_max;   /* -1: not checked */
};

static const struct expect E[] = {
    /* ethercrab, DC bring-up then ARMW + LRW cycles: the LRW (3 bytes) is the stream */
    { "replay-dc.pcapng", 1, "LRW", true, 0, 3, 257, 264584, 5085202, 10091577, 5142590, 9240243, 5,
      1802, 1802, 0, 96704, 281866, 878460 },
    /* two groups: the first group's LRW (255 frames) outnumbers the second's (8) */
    { "replay-ek1100-el2828-el2889.pcapng", 1, "LRW", true, 0, 1, 255, 299667, 4985269, 6650910, 4707401, 6645164, 0,
      1789, 1789, 8, 88647, 219962, 634016 },
    /* an SDO upload: no process data; the DC FRMW is the most regular frame */
    { "replay-ek1914-segmented-upload.pcapng", 1, "FRMW", false, 0x09101000, 8, 100, 261442, 294133, 328910, 294486,
      328910, 0, 482, 482, 0, -1, -1, -1 },
    /* SOEM slaveinfo: microsecond stamps (no if_tsresol); an SII read poll, not cyclic */
    { "soem-sdinfo-ek1100-el1004.pcapng", 1000, "FPRD", false, 0x05021002, 2, 76, 182000, 839653, 11569000, 400000,
      11569000, 9, 290, 290, 0, -1, -1, -1 },
    /* TwinCAT: microsecond stamps (if_tsresol 6); request and return stamped alike */
    { "twincat-run-ek1100-el1004.pcapng", 1000, "FPRD", false, 0x011103E9, 1, 63, 19997000, 24161451, 28006000,
      24013000, 28006000, 0, 277, 276, 0, 0, 0, 0 },
};

static char dir[1024];

static void one(void **state)
{
    const struct expect *e = *state;
    char path[1400];
    snprintf(path, sizeof path, "%s/ethercat-pcap/%s", dir, e->file);
    if (access(path, R_OK) != 0)
        skip();
    struct analyze a;
    struct an_opts o = { 0 };
    analyze_init(&a, &o);
    int64_t prec = 0;
    char err[512] = "";
    assert_int_equal(analyze_file(&a, path, &prec, err, sizeof err), 0);
    assert_int_equal(prec, e->prec);
    struct an_result r;
    assert_int_equal(analyze_finish(&a, &r), 0);
    assert_int_equal(r.proto, 1);
    const struct an_key *k = &a.keys[a.stream];
    assert_string_equal(ecat_cmd_name(k->cmd), e->cmd);
    assert_int_equal(k->pd, e->pd);
    assert_int_equal(k->addr, e->addr);
    assert_int_equal(k->len, e->len);
    assert_int_equal(k->count, e->frames);
    assert_int_equal(r.cycles, e->frames - 1);
    assert_int_equal(r.period.min, e->min);
    assert_int_equal(perf_stat_avg(&r.period), e->avg);
    assert_int_equal(r.period.max, e->max);
    assert_int_equal(r.nominal_ns, e->p50);
    assert_int_equal(r.p50, e->p50);
    assert_int_equal(r.p99, e->p99);
    assert_int_equal(r.gaps, e->gaps);
    assert_int_equal(a.ecat_sent, e->sent);
    assert_int_equal(a.ecat_returned, e->returned);
    assert_int_equal(r.lost, 0);      /* the one unanswered TwinCAT frame is the last: in flight */
    assert_int_equal(r.late, 0);
    /* the report names the other process-data frames (the second group's LRW, lad 1) */
    json_object *j = analyze_to_json(&a, &r, prec), *others;
    assert_true(json_object_object_get_ex(j, "other_process_data_frames", &others));
    assert_int_equal(json_object_array_length(others), e->other_frames ? 1 : 0);
    if (e->other_frames) {
        json_object *first = json_object_array_get_idx(others, 0), *sent;
        assert_true(json_object_object_get_ex(first, "sent", &sent));
        assert_int_equal(json_object_get_int64(sent), (int64_t)e->other_frames);
    }
    json_object_put(j);
    if (e->rtt_min >= 0) {
        assert_int_equal(r.rtt.min, e->rtt_min);
        assert_int_equal(perf_stat_avg(&r.rtt), e->rtt_avg);
        assert_int_equal(r.rtt.max, e->rtt_max);
    }
    analyze_result_free(&r);
    analyze_free(&a);
}

int main(void)
{
    const char *fx = getenv("TAKT_FIXTURES");
    snprintf(dir, sizeof dir, "%s", fx ? fx : "../shared/fixtures");
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/ethercat-pcap", dir);
    if (access(probe, R_OK) != 0) {
        fprintf(stderr, "SKIP: no fixtures at %s (set TAKT_FIXTURES)\n", probe);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(one, (void *)&E[0]),
        cmocka_unit_test_prestate(one, (void *)&E[1]),
        cmocka_unit_test_prestate(one, (void *)&E[2]),
        cmocka_unit_test_prestate(one, (void *)&E[3]),
        cmocka_unit_test_prestate(one, (void *)&E[4]),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
