/* Every event code of both stacks has a format, and each format makes the text users
 * see (a golden string per code, values 1, 2, 3 ... and texts "T0", "T1" ... in
 * order, unit 3). A code added without a format or without a row here fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <takt/plk.h>
#include "rt/event.h"

static const struct golden {
    unsigned proto, code;
    const char *text;
} golden[] = {
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ERROR_TEXT, "T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_LINK_ERROR, "link T0: Operation not permitted (further link errors counted only)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_LINK_NO_CARRIER, "T0 has no carrier (cable unplugged?)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_LINK_DOWN, "T0 is down (ip link set dev T1 up)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_LINK_FAILED, "T0 on T1 failed: Operation not permitted" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SCAN_TIMEOUT, "scan not complete after 1 ms" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_CONFIGURE_UNSCANNED, "configure: expected a scanned network, none scanned yet" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_NO_FRAME, "no frame returned for 1 cycles" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_FRAMES_AGAIN, "frames return again after 1 cycles without" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_COUNT_TIMEOUT, "BRD 0x0000 (slave count) did not return after 1 tries; is a slave connected to T0?" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_TOO_MANY_SLAVES, "1 slaves answered, at most 2 were reserved (max_slaves)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_INVALID, "slave 3 (station 0x0001): SII: T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_WARNING, "slave 3: T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_MORE_WARNINGS, "slave 3: 1 more SII warnings" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_PDOS_TOO_MANY, "slave 3: SII PDOs do not fit (1 PDOs, 2 entries at most)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_BUSY, "slave 3: SII busy (0x0502 = 0x0001) for more than 100 ms reading word 0x0002" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_WAIT_TIMEOUT, "slave 3: SII not read: the EEPROM interface (0x0500) stayed with another user (an SII write or a rescan) for 1 s" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_CALL_TIMEOUT, "the call's 1 ms ran out before the slave's mailbox service completed" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_READ_FAILED, "slave 3: SII read of word 0x0001 failed, 0x0502 = 0x0002 (expected no error bits) after 3 tries" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_NO_MEMORY, "slave 3: no memory for SII word 0x0001" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_WRITE_REFUSED, "slave 3: SII write of word 0x0001 refused: 0x0502 = 0x0002 (expected no error bits; 0x4000 write enable, 0x2000 no acknowledge)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_WRITE_FAILED, "slave 3: SII write: Operation not permitted" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_FILE, "slave 3: SII: T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SII_WRITE_FILE, "writing T0: T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ESM_WKC, "slave 3 (station 0x0001): T0 APWR 0x0003: expected WKC 4, got 5 (no frame returned)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ESM_REFUSED, "slave 3 (station 0x0001, T0): refused PREOP -> BOOT: AL status 0x04, code 0x0005 (unknown code); the slave wants distributed clocks: try --dc (takt ecat run --dc; takt_ecat_master_opts.dc in the library)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ESM_TIMEOUT, "slave 3 (station 0x0001): still PREOP 3 ms after requesting SAFEOPT0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SVC_WKC, "slave 3: APRD 0x0002 (3 bytes): expected WKC 1, got 4" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_IMAGE_INVALID, "process image: T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_IMAGE_TOO_BIG, "process image of 1 bytes needs 2 frames, at most 3" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_LWR_WKC, "cyclic frame 1 (LWR 0x00000002, slaves 3-4): WKC expected 5, got 6" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_LRW_WKC, "cyclic frame 1 (LRW 0x00000002, 3 bytes, slaves 4-5): WKC expected 6, got 7" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_WKC_BACK, "cyclic frame 1: WKC back to the expected 2" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SLAVE_LOST, "slave 3 (station 0x0001, T0) lost: no longer answers" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RESCAN_AGAIN, "slave 3: re-scanning it again" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SLAVE_ANSWERS, "slave 3 answers again: re-scanning it" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_POSITION_ANSWERS, "position 1 (slave 3) answers again: re-scanning it" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SLAVE_MOVED, "slave 3 (station 0x0001) now at position 2 (was 3)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_UNKNOWN_SLAVE, "position 1: a slave nobody configured (station 0x0002) answers; ignored" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RESCAN_FAILED, "slave 3: re-scan failed (Operation not permitted); trying again in 2 ms" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_OWN_DEVICE, "slave 3: its own device (vendor 0x00000001 product 0x00000002 serial 3) answers at position 4 again" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SLAVE_CAME_BACK, "slave 3 (vendor 0x00000001 product 0x00000002 serial 3) came back at position 4 (was 5): its configuration follows it" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_CAME_BACK_OTHER, "slave 3 (vendor 0x00000001 product 0x00000002 serial 3) came back at position 4, where slave 5 (product 0x00000006) was: different products, not configured" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_OTHER_DEVICE, "slave 3: another device at position 1: expected vendor 0x00000002 product 0x00000003 serial 4, found 0x00000005 0x00000006 serial 7; not configured" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ADDRESS_LOST, "slave 3 (station 0x0001) does not answer its address: re-scanning it" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ANSWER_COUNT_ASK, "1 of 2 slaves answer (3 lost): asking each position who it is" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ANSWER_COUNT, "1 of 2 slaves answer (3 lost)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SLAVE_BACK, "slave 3 (station 0x0001) back in PREOP" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_DC_SETUP_WKC, "DC set-up: T0 at slave 1 (station 0x0002): expected WKC 1, got 3" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_DC_ARMED, "DC: reference clock slave 3, SYNC0 armed T0, start times on a 1 ns grid from 2" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_DC_SYNC0, "DC: reference clock slave 3, SYNC0 every 1 ns from 2" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_DC_NONE, "DC requested but no slave supports it (0x0008 bit 2); running without" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_DC_RETURN_WKC, "slave 3: DC set-up after its return: T0: expected WKC 1, got 1; going on without" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_DC_AGAIN, "slave 3: DC set up again (delay 1 ns, SYNC0 on the network's grid)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_REF_ALL, "cable redundancy: DC reference clock (slave 3) and every slave answer by the second port: its time reaches them all" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_REF_BEHIND, "cable redundancy: DC reference clock (slave 3) is behind the break: its time reaches slaves 1-2 by the second port, slaves 0-3 get none until the ring closes" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_REF_WRITTEN, "cable redundancy: DC slaves 1-2 get the reference clock's time (slave 3) by the second port, written by the master until the ring closes" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_BROKEN_FIRST, "cable redundancy: ring broken between the first port (T0) and slave 0; slaves 0-1 answer on the second port" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_BROKEN_SECOND, "cable redundancy: ring broken between slave 1 and the second port; slaves 0-2 answer on the first port" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_BROKEN_BETWEEN, "cable redundancy: ring broken between slave 1 and slave 2 (first port: slaves 0-3, second port: slaves 4-5)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_BROKEN_MORE, "cable redundancy: ring broken in more than one place: slaves 1-2 unreachable (first port: 3 slaves, second port: 4)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_CLOSED, "cable redundancy: ring closed again (frames pass from port to port)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_MENDED, "cable redundancy: a break mended: slaves 1-2 reachable again" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EMERGENCY, "slave 3: emergency 0x0001 (error reset or no error), error register 0x03" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EMERGENCY_DATA, "slave 3 (station 0x0001): emergency 0x0002 (error reset or no error), error register 0x04, data 05 00 00 00 00" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_NO_COE, "slave 3 (T0): no CoE mailbox (SII protocols 0x0001, mailbox 2/3 bytes)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_MBX_STATE, "slave 3 (T0): mailbox needs PREOP, SAFEOP or OP, slave is in INIT" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SLAVE_TEXT, "slave 3: T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_PDO_COE_UNREADABLE, "slave 3: PDO assignment over CoE not readable (T0); using the SII's" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SOE_LIST_MALFORMED, "slave 3: SoE configuration list S-0-0001 of 2 bytes is malformed (list length 3)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SOE_NOT_FIXED, "slave 3: T0 in S-0-0001 is without a 4-byte attribute, not a fixed-size value" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SOE_TELEGRAM, "slave 3: SoE telegram type 1 (a standard telegram): process data from the SII" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SOE_UNREADABLE, "slave 3: SoE telegram configuration not readable (T0); using the SII's" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_NO_SLAVE, "EoE: no slave at position 2 (3 slaves)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_NO_SOE, "slave 3 (T0) has no SoE (SII mailbox protocols 0x0001)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SOE_STATE, "slave 3 (T0): SoE needs PREOP, SAFEOP or OP, slave is in INIT" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_SOE_MBX_SIZE, "slave 3 (T0): mailbox of 1/2 bytes unusable for SoE (expected 12..3)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_FOE_NO_BOOT_MBX, "slave 3 (T0): in BOOT but its SII has no bootstrap mailbox (words 0x14-0x17)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_FOE_STATE, "slave 3 (T0): FoE needs BOOT, PREOP, SAFEOP or OP, slave is in INIT" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_FOE_MBX_SIZE, "slave 3 (T0): mailbox of 1/2 bytes unusable for FoE (expected 13..3)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_NO_FOE, "slave 3 (T0): no FoE (SII mailbox protocols 0x0001)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_AGAIN, "slave 3: EoE IP parameters set again after its return" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_AGAIN_FAILED, "slave 3: EoE IP parameters set again after its return: T0" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_ANSWER, "slave 3: EoE timestamp: the slave answered 0x0002 (unknown result)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_TIMEOUT_GIVEN_UP, "slave 3: EoE mailbox exchange not done within 1 ms, given up" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_BEFORE_START, "slave 3: EoE ports open before the cycle thread starts" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_NO_EOE, "slave 3 (T0) has no EoE (SII mailbox protocols 0x0001)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_MBX_SIZE, "slave 3 (T0): mailbox of 1/2 bytes too small for EoE (expected 3..4: headers 10 bytes, a 32-byte fragment unit, the 58-byte IP parameters)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_EOE_TIMEOUT, "slave 3: EoE service not answered within 1 ms" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_COE_INIT, "ENI T0 line 1: slave 3 CoE init command 0x0002:03 (T1): T2" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_STATION, "ENI T0: slave 3: station address 0x0001 (PhysAddr 2) not written: T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_DC, "ENI T0 configures distributed clocks for 1 slaves: DC on, SYNC0 armed by its init commands and takt (AssignActivate)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_SYNC0, "ENI T0: SYNC0 every 1 ns, the master cycles every 2 ns" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_INVALID, "ENI T0: T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_MISMATCH, "ENI T0 does not match the network: T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_MISMATCHES, "ENI T0 does not match the network (1 mismatches): T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_MISMATCH_MORE, "ENI T0: 1 more mismatches not named" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_TEXT, "ENI T0: T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_PDO_FIT, "ENI T0: slave 3 (T1): PDO mapping does not fit" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_STARTUP, "ENI T0: start-up by its init commands for 1 of 2 slaves; process image and cyclic frames as it lays them out" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_CMD_WKC, "ENI T0 line 1: T1, transition PI, command 'T2' (APRW adp 0x0004 ado 0x0005): expected WKC 6, got 7 (no frame returned)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_VALIDATE, "ENI T0 line 1: T1, transition PI, command 'T2' (APRW 0x0004): validate expected T3 mask T4, found T5 (WKC 6) after 7 ms" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_COE, "ENI T0 line 1: slave 3 (T1), transition PI, CoE upload 0x0004:05 complete access ('T2'): T3" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_CYC_RANGE, "ENI T0 line 1: Cyclic/Frame 2/Cmd 3 (FPRD): expected OutputOffs + DataLength 6 inside the output image (8 bytes), found it ending at byte 9" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_CYC_FRAME, "ENI T0 line 1: Cyclic/Frame 2: expected at most 3 bytes of datagrams in one frame, found 4" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_CYC_SLAVE, "ENI T0 line 1: slave 3 (T1): Send 2+3 / Recv 4+5 bits do not hold its mapping (6/7 bytes) inside the images (8/9 bytes)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_OWN_IMAGE, "ENI T0: takt lays the process image out itself: T1" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_CYC_WKC, "ENI cyclic frame 1 datagram 2 (APRW T0 0x00000005, 6 bytes): WKC expected 7, got 8" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_CYC_WKC_BACK, "ENI cyclic frame 1 datagram 2: WKC back to the expected 3" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_SOE, "ENI T0 line 1: slave 3 (T1), transition PI, T2 ('T3'): T4" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_ENI_EOE, "ENI T0: slave 3 (T1) has EoE init commands (line 1): T2" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_STATE_REQUEST, "state request INIT: No such file or directory" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_STATE_REQUEST_UNSCANNED, "state request INIT: expected a scanned network, none scanned yet" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RESCAN_DONE, "rescan: 1 slaves answer, 2 scanned; 3 changed, 4 missing, 5 new, 6 unread" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RESCAN_CHANGED, "slave 3: rescan found another identity: scanned vendor 0x00000001 product 0x00000002 revision 0x00000003, now 0x00000004 0x00000005 0x00000006" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_FRMW_PARTIAL, "cable redundancy: FRMW of station 0x0001 register 0x0002 reads on the second port's side: the value read cannot reach slaves 4-5 behind the break in the same frame, so they are not written while the ring is broken and its WKC counts the reading side's slaves only" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_DC_FAR, "cable redundancy: DC slaves 1-2 behind the break have the system time delay of their path from the second port (0x0928: 3-4 ns, closed ring 5-6 ns)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_DC_CLOSED, "cable redundancy: DC slaves 1-2 have their closed ring's system time delay back (0x0928)" },
    { TAKT_EV_ECAT, TAKT_ECAT_EV_RED_DC_WRITE, "cable redundancy: slave 3: FPWR 0x0928 = 1 ns (system time delay): expected WKC 1, got 2 (no frame returned); written again in 4 ms" },
    { TAKT_EV_PLK, TAKT_PLK_EV_STATE, "CN 3 UNKNOWN" },
    { TAKT_EV_PLK, TAKT_PLK_EV_STEP, "CN 3 boot step identified" },
    { TAKT_EV_PLK, TAKT_PLK_EV_RESET, "CN 3 reset: T0" },
    { TAKT_EV_PLK, TAKT_PLK_EV_MISSING, "CN 3 missing: no IdentResponse to 1 IdentRequests in 2 s: is it on the network (node ID switch, cable)?" },
    { TAKT_EV_PLK, TAKT_PLK_EV_CN_STATE, "CN 3 UNKNOWN (was UNKNOWN)" },
    { TAKT_EV_PLK, TAKT_PLK_EV_CN_RESET, "CN 3 reset by unknown, now UNKNOWN" },
};

static void format(unsigned proto, unsigned code, const int64_t *v, unsigned nv, char *line, size_t len)
{
    struct takt_event ev;
    rt_ev_fill(&ev, (uint16_t)proto, 0, code, 3, 0, v, nv, RT_TXT("T0", "T1", "T2", "T3", "T4", "T5"));
    takt_event_format(&ev, line, len);
}

static void test_every_code_has_its_text(void **state)
{
    (void)state;
    static const struct { unsigned proto, count; } protos[] = {
        { TAKT_EV_ECAT, TAKT_ECAT_EV_COUNT }, { TAKT_EV_PLK, TAKT_PLK_EV_COUNT },
    };
    int64_t v[TAKT_EVENT_NV];
    for (unsigned i = 0; i < TAKT_EVENT_NV; i++)
        v[i] = 1 + i;
    size_t k = 0;
    for (unsigned p = 0; p < TAKT_ARRAY_SIZE(protos); p++)
        for (unsigned c = 0; c < protos[p].count; c++, k++) {
            assert_true(k < TAKT_ARRAY_SIZE(golden));      /* a row for every code */
            assert_int_equal(golden[k].proto, protos[p].proto);
            assert_int_equal(golden[k].code, c);
            assert_non_null(takt_event_code_name(protos[p].proto, c));
            char line[1024];
            format(protos[p].proto, c, v, TAKT_EVENT_NV, line, sizeof line);
            if (strcmp(line, golden[k].text))
                printf("proto %u code %u (%s):\n  got  %s\n  want %s\n", protos[p].proto, c,
                       takt_event_code_name(protos[p].proto, c), line, golden[k].text);
            assert_string_equal(line, golden[k].text);
        }
    assert_int_equal(k, TAKT_ARRAY_SIZE(golden));
    assert_null(takt_event_code_name(TAKT_EV_ECAT, TAKT_ECAT_EV_COUNT));
    assert_null(takt_event_code_name(TAKT_EV_PLK, TAKT_PLK_EV_COUNT));
}

/* The POWERLINK names as users read them, and the ring's own record. */
static void test_plk_and_ring_texts(void **state)
{
    (void)state;
    char line[300];
    format(TAKT_EV_PLK, TAKT_PLK_EV_STATE, (const int64_t[]){ TAKT_PLK_OPERATIONAL }, 1, line, sizeof line);
    assert_string_equal(line, "CN 3 OPERATIONAL");
    format(TAKT_EV_PLK, TAKT_PLK_EV_CN_STATE,
           (const int64_t[]){ TAKT_PLK_PRE_OP1, TAKT_PLK_NOT_ACTIVE }, 2, line, sizeof line);
    assert_string_equal(line, "CN 3 PRE_OPERATIONAL_1 (was NOT_ACTIVE)");
    format(TAKT_EV_PLK, TAKT_PLK_EV_CN_RESET, (const int64_t[]){ 0x28, TAKT_PLK_NOT_ACTIVE }, 2, line, sizeof line);
    assert_string_equal(line, "CN 3 reset by ResetNode, now NOT_ACTIVE");
    struct takt_event ev = { .proto = TAKT_EV_RING, .code = TAKT_EV_DROPPED, .unit = -1, .nv = 2, .v = { 5, 256 } };
    takt_event_format(&ev, line, sizeof line);
    assert_string_equal(line, "5 events dropped: the reader fell behind and the ring (256 events) was full");
    assert_string_equal(takt_event_code_name(TAKT_EV_RING, TAKT_EV_DROPPED), "DROPPED");
    ev.proto = 9;
    takt_event_format(&ev, line, sizeof line);
    assert_string_equal(line, "event 0 of protocol 9");
    ev.proto = TAKT_EV_ECAT;
    ev.code = TAKT_ECAT_EV_COUNT;
    takt_event_format(&ev, line, sizeof line);
    char want[40];
    snprintf(want, sizeof want, "EtherCAT event %u", TAKT_ECAT_EV_COUNT);
    assert_string_equal(line, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_has_its_text),
        cmocka_unit_test(test_plk_and_ring_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
