#!/bin/bash
# takt plk sdo --udp against a simulated CN across veth: SDO over UDP/IP (EPSG DS 301,
# "SDO via UDP/IP", port 3819) from the MN's 192.168.100.240 to the CN's
# 192.168.100.5, carried in the async phase: a read, a write read back, and an abort
# (read-only object) reported with its code as over ASnd. The capture shows every
# UDP frame right after a SoA UnspecifiedInvite (the MN's to 240 before its own, the
# CN's to 5 before the CN's), no SDO over ASnd in the user transfer's place, and
# tshark's epl dissector (UDP port 3819) finds nothing malformed.
. "$(dirname "$0")/lib.sh"

sdo() {   # ARGS of takt plk sdo after -i; stdout the result, stderr in $NET_TMP/err
    "$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" "$@" 2>"$NET_TMP/err"
}

body() {
    net_plk_cn -i "$TAKT_IF_B" --node 5 >"$NET_TMP/cn.out" 2>&1
    local out rc f
    out=$(sdo --udp --pcap "$NET_TMP/read.pcapng" read 5 0x1018 1) || net_fail "sdo --udp read: $out $(cat "$NET_TMP/err")"
    [ "$out" = "0x0000001a (26)" ] || net_fail "0x1018/1 of CN 5 over UDP: expected 0x0000001a (26), got '$out'"
    out=$(sdo --udp write 5 0x1300 0 54321) || net_fail "sdo --udp write: $out $(cat "$NET_TMP/err")"
    out=$(sdo --udp read 5 0x1300 0) || net_fail "sdo --udp read back: $out $(cat "$NET_TMP/err")"
    [ "$out" = "0x0000d431 (54321)" ] || net_fail "0x1300 after writing 54321 over UDP: got '$out'"
    out=$(sdo --udp --pcap "$NET_TMP/abort.pcapng" write 5 0x1018 1 7)
    rc=$?
    [ $rc -eq 1 ] || net_fail "writing read-only 0x1018/1 over UDP: exit $rc, 1 expected: $out"
    grep -q "aborted with 0x06010002" "$NET_TMP/err" ||
        net_fail "abort code 0x06010002 (read only) expected: $(cat "$NET_TMP/err")"
    net_plk_cn_stop
    command -v tshark >/dev/null || { net_log "tshark missing: captures not judged"; return 0; }
    # tshark reads its profile from $HOME: the user-namespace pass may not reach the caller's
    [ -r "${HOME:-/nonexistent}" ] && [ -x "${HOME:-/nonexistent}" ] || export HOME=$NET_TMP
    for f in "$NET_TMP/read.pcapng" "$NET_TMP/abort.pcapng"; do
        net_check_capture "$f"
        # SDO over UDP both ways, decoded by the epl dissector as an SDO
        n=$(tshark -r "$f" -Y 'udp.port==3819 && ip.src==192.168.100.240 && ip.dst==192.168.100.5 && epl.asnd.svid==5' 2>/dev/null | wc -l)
        [ "$n" -ge 2 ] || net_fail "$f: expected SDO/UDP frames from 192.168.100.240 to .5, got $n"
        n=$(tshark -r "$f" -Y 'udp.port==3819 && ip.src==192.168.100.5 && ip.dst==192.168.100.240 && epl.asnd.svid==5' 2>/dev/null | wc -l)
        [ "$n" -ge 2 ] || net_fail "$f: expected SDO/UDP answers from 192.168.100.5, got $n"
        # each IP frame follows an UnspecifiedInvite for its sender (DS 301 async phase)
        tshark -r "$f" -T fields -E separator=';' -e ip.src -e epl.mtyp -e epl.soa.svid -e epl.soa.svtg 2>/dev/null |
            awk -F';' -v f="$f" '
                $1 != "" {                               # an IP frame
                    want = ($1 == "192.168.100.240") ? 240 : 5
                    if (svid != "255" || tg != want) { print f ": IP frame from " $1 " after SoA svid " svid " target " tg; bad = 1 }
                    svid = ""; n++; next }
                $2 == "5" { svid = $3; tg = $4; next }   # SoA
                { svid = "" }                            # anything else ends the slot
                END { if (!n) print f ": no IP frame seen"; exit bad || !n }' ||
            net_fail "IP frames outside an UnspecifiedInvite for their sender (above)"
    done
    return 0
}

net_main body
