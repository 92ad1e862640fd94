#!/bin/bash
# EoE services through a running master (docs/control.md): `takt ecat run --eoe` holds
# the bus in OP with a TAP for the first eoe-device; `takt ecat eoe set-ip` beside it
# goes through its control socket (before, it was refused: a second master on the bus),
# the slave answers ping at the new address through the TAP; set-filter too. A slave
# without EoE, and an EoE slave the master opened no port for, are refused with the
# reason. No frame the master did not send; the set-IP request is in the capture.
. "$(dirname "$0")/lib.sh"

body() {
    command -v ping >/dev/null || net_skip "ping missing"
    [ -c /dev/net/tun ] && [ -r /dev/net/tun ] && [ -w /dev/net/tun ] ||
        net_skip "/dev/net/tun missing or out of reach for uid $(id -u): no TAP device can be made"
    local sock="$NET_TMP/ecat.sock" out
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el2004,eoe-device,eoe-device -t 200 \
        >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    net_wait_for "$NET_TMP/sim.out" "slaves on" 10
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 300 --eoe 2@web3:10.77.1.2/24:10.77.1.1 --control "$sock" \
        --json "$NET_TMP/run.json" --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>"$NET_TMP/run.err" &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "in OP after" 60
    local m=(-i "$TAKT_IF_A" --master "$sock")
    out=$("$TAKT" ecat eoe "${m[@]}" set-ip 2 --ip 10.77.1.3/24 --gw 10.77.1.1 --json "$NET_TMP/setip.json" 2>&1) ||
        net_fail "eoe set-ip through the master: $out"
    net_json_check "$NET_TMP/setip.json" "j['set_ip']['ip'] == '10.77.1.3' and j['set_ip']['netmask'] == '255.255.255.0'" "set-ip JSON"
    # the slave's IP stack answers at the new address (generous: the host is shared)
    ping -c 5 -i 0.2 -W 5 10.77.1.3 >"$NET_TMP/ping.out" 2>&1 || net_fail "no answer at the new address: $(cat "$NET_TMP/ping.out")"
    out=$("$TAKT" ecat eoe "${m[@]}" set-filter 2 --mac 02:00:00:00:00:22 2>&1) || net_fail "eoe set-filter through the master: $out"
    [ "$out" = "slave 2: EoE address filter accepted" ] || net_fail "eoe set-filter said: $out"
    out=$("$TAKT" ecat eoe "${m[@]}" set-ip 1 --ip 10.77.1.9/24 2>&1) && net_fail "set-ip on the el2004 worked: $out"
    echo "$out" | grep -q "slave 1 (.*) has no EoE" || net_fail "no-EoE refusal: $out"
    out=$("$TAKT" ecat eoe "${m[@]}" set-ip 3 --ip 10.77.1.9/24 2>&1) && net_fail "set-ip without a port worked: $out"
    echo "$out" | grep -q "slave 3 has no EoE port in the running master.*--eoe 3" || net_fail "no-port refusal: $out"
    out=$("$TAKT" ecat eoe "${m[@]}" set-ip 2 --ip 10.77.1.300/24 2>&1) && net_fail "a bad IP was accepted: $out"
    echo "$out" | grep -q "expected an IPv4 address" || net_fail "bad IP message: $out"
    kill -INT $run
    wait $run
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out" "$NET_TMP/run.err")"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network in OP at the end"
    net_json_check "$NET_TMP/run.json" "j['frames_unmatched'] == 0" "no frame the master did not send"
    if command -v tshark >/dev/null; then
        [ "$(tshark -r "$NET_TMP/run.pcapng" -Y 'ecat_mailbox.eoe.init.ipaddr == 10.77.1.3' 2>/dev/null | wc -l)" -gt 0 ] ||
            net_fail "no EoE set-IP request for 10.77.1.3 in the capture"
        local bad
        bad=$(tshark -r "$NET_TMP/run.pcapng" -Y '_ws.malformed' -T fields -e frame.number 2>/dev/null)
        [ -z "$bad" ] || net_fail "tshark finds malformed frames: $(echo "$bad" | head -5 | tr '\n' ' ')"
    fi
    net_check_capture "$NET_TMP/run.pcapng"
}

net_main body
