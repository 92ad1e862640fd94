#!/bin/bash
# takt plk sdo --udp against a simulated CN across veth: SDO over UDP/IP (EPSG DS 301,
# "SDO via UDP/IP", port 3819) from the MN's 192.168.100.240 to the CN's
# 192.168.100.5, carried in the async phase: a read, a write read back, and an abort
# (read-only object) reported with its code as over ASnd. Then takt plk mn --veth: the
# host's own IP stack through the TAP device, ping and an SDO read from an ordinary UDP
# socket (as openPOWERLINK's sdoudp sends it). In every capture each IP or ARP frame
# answers a SoA UnspecifiedInvite for its sender (240 for the MN's), and
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
    command -v tshark >/dev/null || { net_log "tshark missing: captures not judged"; veth_part; return; }
    # tshark reads its profile from $HOME: the user-namespace pass may not reach the caller's
    [ -r "${HOME:-/nonexistent}" ] && [ -x "${HOME:-/nonexistent}" ] || export HOME=$NET_TMP
    for f in "$NET_TMP/read.pcapng" "$NET_TMP/abort.pcapng"; do
        net_check_capture "$f"
        # SDO over UDP both ways, decoded by the epl dissector as an SDO
        n=$(tshark -r "$f" -Y 'udp.port==3819 && ip.src==192.168.100.240 && ip.dst==192.168.100.5 && epl.asnd.svid==5' 2>/dev/null | wc -l)
        [ "$n" -ge 2 ] || net_fail "$f: expected SDO/UDP frames from 192.168.100.240 to .5, got $n"
        n=$(tshark -r "$f" -Y 'udp.port==3819 && ip.src==192.168.100.5 && ip.dst==192.168.100.240 && epl.asnd.svid==5' 2>/dev/null | wc -l)
        [ "$n" -ge 2 ] || net_fail "$f: expected SDO/UDP answers from 192.168.100.5, got $n"
        net_plk_check_slots "$f" 4
    done
    veth_part
}

veth_part() {
    if ! [ -r /dev/net/tun ] || ! [ -w /dev/net/tun ]; then
        net_log "virtual Ethernet part skipped: /dev/net/tun is not open to uid $(id -u) here"
        return 0
    fi
    net_plk_cn -i "$TAKT_IF_B" --node 5 >"$NET_TMP/cn2.out" 2>&1
    "$TAKT" plk mn -i "$TAKT_IF_A" --nodes 5 --veth --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" \
        -t "$NET_PLK_LIMIT" --pcap "$NET_TMP/veth.pcapng" >"$NET_TMP/mn.out" 2>"$NET_TMP/mn.err" &
    local mn=$! out
    net_wait_for "$NET_TMP/mn.err" "virtual Ethernet takt-plk0 up" 20
    ip -br addr show takt-plk0 | grep -q "192.168.100.240/24" || net_fail "takt-plk0 without 192.168.100.240/24: $(ip -br addr show takt-plk0 2>&1)"
    # the CN answers once the MN has booted it: ping until then (generous limit)
    local i=0
    until ping -c 1 -W 2 192.168.100.5 >"$NET_TMP/ping" 2>&1; do
        i=$((i + 1))
        [ $i -lt 60 ] || net_fail "no ping answer from 192.168.100.5 through takt-plk0: $(cat "$NET_TMP/ping" "$NET_TMP/mn.err")"
    done
    ping -c 3 -W 5 192.168.100.5 >"$NET_TMP/ping" 2>&1 || net_fail "ping through takt-plk0: $(cat "$NET_TMP/ping")"
    grep -q "3 received" "$NET_TMP/ping" || net_fail "ping: $(cat "$NET_TMP/ping")"
    ! grep -q DUP "$NET_TMP/ping" || net_fail "duplicate ping answers (the host took a CN's frame twice): $(cat "$NET_TMP/ping")"
    out=$(net_plk_udp_read) || net_fail "SDO over a host UDP socket through takt-plk0: $out"
    [ "$out" = "0x0000001a" ] || net_fail "0x1018/1 over a host UDP socket: expected 0x0000001a, got '$out'"
    kill -INT $mn
    wait $mn
    net_plk_cn_stop
    grep -q "virtual Ethernet takt-plk0: [1-9][0-9]* frames to the network, [1-9][0-9]* to the host, 0 dropped" "$NET_TMP/mn.out" ||
        net_fail "virtual Ethernet counts: $(grep -i virtual "$NET_TMP/mn.out")"
    command -v tshark >/dev/null || return 0
    net_check_capture "$NET_TMP/veth.pcapng"
    net_plk_check_slots "$NET_TMP/veth.pcapng" 10
    return 0
}

net_main body
