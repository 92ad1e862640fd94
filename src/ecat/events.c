/* The EtherCAT master's events: the format of each code (include/takt/event.h), used
 * by the reader to make the text; the cycle only puts codes and values. */
#include <stdio.h>
#include "ecat/master_internal.h"
#include "ecat/coe.h"
#include "ecat/eni.h"
#include "ecat/eoe.h"

/* Letters beyond printf's (rt_ev_vformat): %S AL state, %A AL status code, %M CoE
 * emergency code, %C datagram command, %T ESM transition, %Y EoE service, %R EoE
 * result. */
static const char *conv(char c, int64_t v)
{
    switch (c) {
    case 'S': return takt_ecat_al_state_name((unsigned)v);
    case 'A': return takt_ecat_al_status_text((unsigned)v);
    case 'M': return ecat_coe_emcy_text((uint16_t)v);
    case 'C': return ecat_cmd_name((unsigned)v);
    case 'T': return ecat_tr_name((enum ecat_tr)v);
    case 'Y': return ecat_eoe_type_name((uint8_t)v);
    case 'R': return ecat_eoe_result_text((uint16_t)v);
    }
    return NULL;
}

struct ev_fmt {
    const char *name, *fmt;
};
#define E(c, f) [TAKT_ECAT_EV_##c] = { #c, f }
static const struct ev_fmt fmt[TAKT_ECAT_EV_COUNT] = {
    E(ENI_COE_INIT, "ENI %s line %u: slave %U CoE init command 0x%04X:%02X (%s): %s"),
    E(ENI_STATION, "ENI %s: slave %U: station address 0x%04X (PhysAddr %u) not written: %s"),
    E(ENI_DC, "ENI %s configures distributed clocks for %u slaves: DC on, SYNC0 armed by %{takt (AssignActivate)|its init commands}%{| and takt (AssignActivate)}"),
    E(ENI_SYNC0, "ENI %s: SYNC0 every %u ns, the master cycles every %lld ns"),
    E(ENI_INVALID, "ENI %s: %s"),
    E(ENI_MISMATCH, "ENI %s does not match the network: %s"),
    E(ENI_MISMATCHES, "ENI %s does not match the network (%u mismatches): %s"),
    E(ENI_TEXT, "ENI %s: %s"),
    E(ENI_MISMATCH_MORE, "ENI %s: %u more mismatches not named"),
    E(ENI_PDO_FIT, "ENI %s: slave %U (%s): PDO mapping does not fit"),
    E(ENI_STARTUP, "ENI %s: start-up by its init commands for %u of %u slaves; process image %{laid out by takt|and cyclic frames as it lays them out}"),
    E(SII_FILE, "slave %U: SII: %s"),
    E(SII_WRITE_FILE, "writing %s: %s"),
    E(LINK_ERROR, "link %s: %E (further link errors counted only)"),
    E(LINK_NO_CARRIER, "%s has no carrier (cable unplugged?)"),
    E(LINK_DOWN, "%s is down (ip link set dev %s up)"),
    E(LINK_FAILED, "%s on %s failed: %E"),
    E(SCAN_TIMEOUT, "scan not complete after %lld ms"),
    E(CONFIGURE_UNSCANNED, "configure: expected a scanned network, none scanned yet"),
    E(EOE_AGAIN, "slave %U: EoE IP parameters set again after its return"),
    E(EOE_AGAIN_FAILED, "slave %U: EoE IP parameters set again after its return: %s"),
    E(EMERGENCY_DATA, "slave %U (station 0x%04X): emergency 0x%04X (%M), error register 0x%02X, data %.5D"),
    E(EOE_ANSWER, "slave %U: EoE %Y: the slave answered 0x%04X (%R)"),
    E(EOE_TIMEOUT_GIVEN_UP, "slave %U: EoE mailbox exchange not done within %lld ms, given up"),
    E(NO_SLAVE, "%{SoE: |EoE: |FoE: |}no slave at position %u (%u slaves)"),
    E(EOE_BEFORE_START, "slave %U: EoE ports open before the cycle thread starts"),
    E(NO_EOE, "slave %U (%s) has no EoE (SII mailbox protocols 0x%04X)"),
    E(EOE_MBX_SIZE, "slave %U (%s): mailbox of %u/%u bytes too small for EoE (expected %d..%d: headers 10 bytes, a 32-byte fragment unit, the 58-byte IP parameters)"),
    E(EOE_TIMEOUT, "slave %U: EoE service not answered within %lld ms"),
    E(SLAVE_LOST, "slave %U (station 0x%04X, %s) lost: no longer answers"),
    E(RESCAN_AGAIN, "slave %U: re-scanning it again"),
    E(SLAVE_ANSWERS, "slave %U answers again: re-scanning it"),
    E(POSITION_ANSWERS, "position %u (slave %U) answers again: re-scanning it"),
    E(SLAVE_MOVED, "slave %U (station 0x%04X) now at position %u (was %u)"),
    E(UNKNOWN_SLAVE, "position %u: a slave nobody configured (station 0x%04X) answers; ignored"),
    E(RESCAN_FAILED, "slave %U: re-scan failed (%E); trying again in %lld ms"),
    E(OWN_DEVICE, "slave %U: its own device (vendor 0x%08X product 0x%08X serial %u) answers at position %u again"),
    E(SLAVE_CAME_BACK, "slave %U (vendor 0x%08X product 0x%08X serial %u) came back at position %u (was %u): its configuration follows it"),
    E(CAME_BACK_OTHER, "slave %U (vendor 0x%08X product 0x%08X serial %u) came back at position %u, where slave %u (product 0x%08X) was: different products, not configured"),
    E(OTHER_DEVICE, "slave %U: another device at position %u: expected vendor 0x%08X product 0x%08X serial %u, found 0x%08X 0x%08X serial %u; not configured"),
    E(ADDRESS_LOST, "slave %U (station 0x%04X) does not answer its address: re-scanning it"),
    E(ANSWER_COUNT_ASK, "%u of %u slaves answer (%u lost): asking each position who it is"),
    E(ANSWER_COUNT, "%u of %u slaves answer (%u lost)"),
    E(SLAVE_BACK, "slave %U (station 0x%04X) back in %S"),
    E(ERROR_TEXT, "%s"),
    E(EMERGENCY, "slave %U: emergency 0x%04X (%M), error register 0x%02X"),
    E(NO_COE, "slave %U (%s): no CoE mailbox (SII protocols 0x%04X, mailbox %u/%u bytes)"),
    E(MBX_STATE, "slave %U (%s): mailbox needs PREOP, SAFEOP or OP, slave is in %S"),
    E(SLAVE_TEXT, "slave %U: %s"),
    E(ESM_WKC, "slave %U (station 0x%04X): %s %C 0x%04X: expected WKC %d, got %d%{| (no frame returned)}"),
    E(SII_BUSY, "slave %U: SII busy (0x0502 = 0x%04X) for more than 100 ms reading word 0x%04X"),
    E(CALL_TIMEOUT, "the call's %lld ms ran out before the slave's mailbox service completed"),
    E(SII_WAIT_TIMEOUT, "slave %U: SII not read: the EEPROM interface (0x0500) stayed with another user (an SII write or a rescan) for %u s"),
    E(SII_READ_FAILED, "slave %U: SII read of word 0x%04X failed, 0x0502 = 0x%04X (expected no error bits) after %d tries"),
    E(SII_NO_MEMORY, "slave %U: no memory for SII word 0x%04X"),
    E(ESM_REFUSED, "slave %U (station 0x%04X, %s): refused %S -> %S: AL status 0x%02X, code 0x%04X (%A)%{|; the slave wants distributed clocks: try --dc (takt ecat run --dc; takt_ecat_master_opts.dc in the library)}"),
    E(ESM_TIMEOUT, "slave %U (station 0x%04X): still %S %lld ms after requesting %S%s"),
    E(SOE_LIST_MALFORMED, "slave %U: SoE configuration list S-0-%04u of %zu bytes is malformed (list length %zu)"),
    E(SOE_NOT_FIXED, "slave %U: %s in S-0-%04u is %{a list|without a 4-byte attribute}, not a fixed-size value"),
    E(SOE_TELEGRAM, "slave %U: SoE telegram type %u (a standard telegram): process data from the SII"),
    E(SOE_UNREADABLE, "slave %U: SoE telegram configuration not readable (%s); using the SII's"),
    E(PDO_COE_UNREADABLE, "slave %U: PDO assignment over CoE not readable (%s); using the SII's"),
    E(NO_SOE, "slave %U (%s) has no SoE (SII mailbox protocols 0x%04X)"),
    E(SOE_STATE, "slave %U (%s): SoE needs PREOP, SAFEOP or OP, slave is in %S"),
    E(SOE_MBX_SIZE, "slave %U (%s): mailbox of %u/%u bytes unusable for SoE (expected 12..%d)"),
    E(SVC_WKC, "slave %U: %C 0x%04X (%u bytes): expected WKC 1, got %d"),
    E(SII_WRITE_REFUSED, "slave %U: SII write of word 0x%04X refused: 0x0502 = 0x%04X (expected no error bits; 0x4000 write enable, 0x2000 no acknowledge)"),
    E(SII_WRITE_FAILED, "slave %U: SII write: %E"),
    E(ENI_CMD_WKC, "ENI %s line %u: %s, transition %T, command '%s' (%C adp 0x%04X ado 0x%04X): expected WKC %u, got %d%{| (no frame returned)}"),
    E(ENI_VALIDATE, "ENI %s line %u: %s, transition %T, command '%s' (%C 0x%04X): validate expected %s%{| mask }%s, found %s (WKC %d) after %u ms"),
    E(ENI_COE, "ENI %s line %u: slave %U (%s), transition %T, CoE %{download|upload} 0x%04X:%02X%{| complete access} ('%s'): %s"),
    E(DC_SETUP_WKC, "DC set-up: %s at slave %u (station 0x%04X): expected WKC 1, got %d"),
    E(DC_ARMED, "DC: reference clock slave %U, SYNC0 armed %s, start times on a %lld ns grid from %llu"),
    E(DC_SYNC0, "DC: reference clock slave %U, SYNC0 every %lld ns from %llu"),
    E(DC_NONE, "DC requested but no slave supports it (0x0008 bit 2); running without"),
    E(DC_RETURN_WKC, "slave %U: DC set-up after its return: %s: expected WKC 1, got %d; going on without"),
    E(DC_AGAIN, "slave %U: DC set up again (delay %d ns, SYNC0 on the network's grid)"),
    E(RED_REF_ALL, "cable redundancy: DC reference clock (slave %U) and every slave answer by the second port: its time reaches them all"),
    E(RED_REF_BEHIND, "cable redundancy: DC reference clock (slave %U) is behind the break: its time reaches slaves %u-%u by the second port, slaves 0-%u get none until the ring closes"),
    E(RED_REF_WRITTEN, "cable redundancy: DC slaves %u-%u get the reference clock's time (slave %U) by the second port, written by the master until the ring closes"),
    E(RED_BROKEN_FIRST, "cable redundancy: ring broken between the first port (%s) and slave 0; slaves 0-%u answer on the second port"),
    E(RED_BROKEN_SECOND, "cable redundancy: ring broken between slave %u and the second port; slaves 0-%u answer on the first port"),
    E(RED_BROKEN_BETWEEN, "cable redundancy: ring broken between slave %u and slave %u (first port: slaves 0-%u, second port: slaves %u-%u)"),
    E(RED_BROKEN_MORE, "cable redundancy: ring broken in more than one place: slaves %u-%u unreachable (first port: %u slaves, second port: %u)"),
    E(RED_CLOSED, "cable redundancy: ring closed again (frames pass from port to port)"),
    E(RED_MENDED, "cable redundancy: a break mended: slaves %u-%u reachable again"),
    E(RED_FRMW_PARTIAL, "cable redundancy: FRMW of station 0x%04X register 0x%04X reads on the %{first|second} port's side: the value read cannot reach slaves %u-%u behind the break in the same frame, so they are not written while the ring is broken and its WKC counts the reading side's slaves only"),
    E(RED_DC_FAR, "cable redundancy: DC slaves %u-%u behind the break have the system time delay of their path from the second port (0x0928: %lld-%lld ns, closed ring %lld-%lld ns)"),
    E(RED_DC_CLOSED, "cable redundancy: DC slaves %u-%u have their closed ring's system time delay back (0x0928)"),
    E(RED_DC_WRITE, "cable redundancy: slave %U: FPWR 0x0928 = %lld ns (system time delay): expected WKC 1, got %d%{| (no frame returned)}; written again in %lld ms"),
    E(IMAGE_INVALID, "process image: %s"),
    E(IMAGE_TOO_BIG, "process image of %u bytes needs %u frames, at most %d"),
    E(LWR_WKC, "cyclic frame %u (LWR 0x%08X, slaves %u-%u): WKC expected %u, got %d"),
    E(LRW_WKC, "cyclic frame %u (LRW 0x%08X, %u bytes, slaves %u-%u): WKC expected %u, got %d"),
    E(WKC_BACK, "cyclic frame %u: WKC back to the expected %u"),
    E(ENI_CYC_RANGE, "ENI %s line %u: Cyclic/Frame %u/Cmd %u (%C): expected %{InputOffs|OutputOffs} + DataLength %u inside the %{input|output} image (%u bytes), found it ending at byte %llu"),
    E(ENI_CYC_FRAME, "ENI %s line %u: Cyclic/Frame %u: expected at most %zu bytes of datagrams in one frame, found %zu"),
    E(ENI_CYC_SLAVE, "ENI %s line %u: slave %U (%s): Send %u+%u / Recv %u+%u bits do not hold its mapping (%u/%u bytes) inside the images (%u/%u bytes)"),
    E(ENI_OWN_IMAGE, "ENI %s: takt lays the process image out itself: %s"),
    E(ENI_CYC_WKC, "ENI cyclic frame %u datagram %u (%C%{| }%s 0x%08X, %u bytes): WKC expected %u, got %d"),
    E(ENI_CYC_WKC_BACK, "ENI cyclic frame %u datagram %u: WKC back to the expected %u"),
    E(ENI_SOE, "ENI %s line %u: slave %U (%s), transition %T, %s ('%s'): %s"),
    E(ENI_EOE, "ENI %s: slave %U (%s) has EoE init commands (line %u): %s"),
    E(STATE_REQUEST, "state request %S: %E"),
    E(STATE_REQUEST_UNSCANNED, "state request %S: expected a scanned network, none scanned yet"),
    E(RESCAN_DONE, "rescan: %u slaves answer, %u scanned; %u changed, %u missing, %u new, %u unread"),
    E(RESCAN_CHANGED, "slave %U: rescan found another identity: scanned vendor 0x%08X product 0x%08X revision 0x%08X, now 0x%08X 0x%08X 0x%08X"),
    E(NO_FRAME, "no frame returned for %u cycles"),
    E(FRAMES_AGAIN, "frames return again after %u cycles without"),
    E(FOE_NO_BOOT_MBX, "slave %U (%s): in BOOT but its SII has no bootstrap mailbox (words 0x14-0x17)"),
    E(FOE_STATE, "slave %U (%s): FoE needs BOOT, PREOP, SAFEOP or OP, slave is in %S"),
    E(FOE_MBX_SIZE, "slave %U (%s): mailbox of %u/%u bytes unusable for FoE (expected 13..%d)"),
    E(NO_FOE, "slave %U (%s): no FoE (SII mailbox protocols 0x%04X)"),
    E(COUNT_TIMEOUT, "BRD 0x0000 (slave count) did not return after %u tries; is a slave connected to %s?"),
    E(TOO_MANY_SLAVES, "%d slaves answered, at most %u were reserved (max_slaves)"),
    E(SII_INVALID, "slave %U (station 0x%04X): SII: %s"),
    E(SII_WARNING, "slave %U: %s"),
    E(SII_MORE_WARNINGS, "slave %U: %u more SII warnings"),
    E(SII_PDOS_TOO_MANY, "slave %U: SII PDOs do not fit (%d PDOs, %d entries at most)"),
};
#undef E

const char *ecat_ev_name(unsigned code)
{
    return code < TAKT_ECAT_EV_COUNT ? fmt[code].name : NULL;
}

int ecat_ev_format(const struct takt_event *ev, char *buf, size_t len)
{
    if (ev->code >= TAKT_ECAT_EV_COUNT || !fmt[ev->code].fmt)
        return snprintf(buf, len, "EtherCAT event %u", ev->code);
    return rt_ev_vformat(ev, fmt[ev->code].fmt, conv, buf, len);
}
