#!/bin/bash
# An ENI drives start-up across veth: `takt sim ecat --eni F` simulates the slaves a
# real tool's ENI expects, `takt ecat run -f F` brings them to OP with the ENI's own
# init commands and cyclic frames, no WKC error, and tshark finds nothing wrong in the
# capture; both sides read the file as it is. The ENIs: every fixture in
# $TAKT_FIXTURES/eni (TwinCAT's mega_master_eni.xml, EC-Engineer's rocos-eni4.xml with
# 4 DC drives; skipped when absent) and the minimal ENIs of tests/data/eni, one per
# class of file real tools export (an LWR without InputOffs, a slave without PDO
# descriptions configured over CoE, a mailbox at 0x4000, DC by the ENI's own SYNC
# commands and ARMW). An ENI that configures DC runs with DC without --dc: its drives'
# delays measured, its clocks within 1 us, its SYNC start-time writes and its cyclic
# ARMW/FRMW of 0x0910 on the wire.
. "$(dirname "$0")/lib.sh"

run_eni() {
    local f=$1 name t=3 dc
    name=$(basename "$f" .xml)
    # DC where the ENI has it: a SYNC activation (0x0981 = 2433) in its init commands
    # or an AssignActivate in a <DC> element
    dc=$(python3 - "$f" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="latin-1").read()
act = re.search(r"<Ado>2432</Ado>\s*<Data>00(?!00)[0-9a-fA-F]{2}</Data>", s) or \
      re.search(r"<AssignActivate>(?!#x0+<|0<)", s)
print("dc" if act else "")
PY
)
    # the simulator and the master read the same, unmodified file
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --eni "$f" -t $((t + 12)) >"$NET_TMP/sim-$name.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -f "$f" -c 1000 -t $t --json "$NET_TMP/run-$name.json" \
        --pcap "$NET_TMP/run-$name.pcapng" >"$NET_TMP/run-$name.out" 2>&1
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "$name: takt ecat run -f exit $rc: $(tail -n 20 "$NET_TMP/run-$name.out")"
    net_json_check "$NET_TMP/run-$name.json" "j['state'] == 'OP'" "$name: network in OP"
    net_json_check "$NET_TMP/run-$name.json" "j['wkc_errors'] == 0" "$name: no WKC error"
    net_json_check "$NET_TMP/run-$name.json" "j['cycles'] > 2000" "$name: the cycle ran"
    if [ -n "$dc" ]; then
        net_json_check "$NET_TMP/run-$name.json" "any(d is not None for d in j['dc_delays_ns'])" \
            "$name: DC set up from the ENI alone (delays measured)"
        net_json_check "$NET_TMP/run-$name.json" "j['dc_sync_err_ns'] < 1000" \
            "$name: the drives' clocks within 1 us of the reference"
    fi
    net_check_capture "$NET_TMP/run-$name.pcapng"
    if command -v tshark >/dev/null; then
        # the ENI's own commands went out: its EEPROM product-code check (APRD 0x0508)
        # where it has one and its first cyclic LRW/LRD/LWR at the ENI's logical address
        local addr
        addr=$(python3 - "$f" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="latin-1").read()
m = re.search(r"<Cyclic>.*?<Cmd>(1[012])</Cmd>\s*<Addr>(\d+)</Addr>", s, re.S)
print(f"{m.group(1)} {int(m.group(2))}" if m else "")
PY
)
        ! grep -q "<Ado>1288</Ado>" "$f" ||
            tshark -r "$NET_TMP/run-$name.pcapng" -Y "ecat.cmd == 1 && ecat.ado == 0x0508" 2>/dev/null | grep -q . ||
            net_fail "$name: no APRD 0x0508 (the ENI's SII checks) in the capture"
        if [ -n "$dc" ] && grep -q "<Ado>2448</Ado>" "$f"; then
            # the ENI's own SYNC start time (0x0990) went out, not the placeholder 0
            tshark -r "$NET_TMP/run-$name.pcapng" -Y "ecat.cmd == 5 && ecat.ado == 0x0990 && !(ecat.data == 00:00:00:00:00:00:00:00)" \
                2>/dev/null | grep -q . || net_fail "$name: no FPWR of a SYNC0 start time (0x0990) in the capture"
        fi
        if [ -n "$dc" ] && grep -qE "<Cmd>1[34]</Cmd><Adp>[0-9]+</Adp><Ado>2320</Ado>" "$f"; then
            tshark -r "$NET_TMP/run-$name.pcapng" -Y "(ecat.cmd == 13 || ecat.cmd == 14) && ecat.ado == 0x0910" \
                2>/dev/null | grep -q . || net_fail "$name: the ENI's ARMW/FRMW of 0x0910 not in the capture"
        fi
        [ -z "$addr" ] || tshark -r "$NET_TMP/run-$name.pcapng" -Y "ecat.cmd == ${addr% *} && ecat.lad == ${addr#* }" \
            2>/dev/null | grep -q . || net_fail "$name: no logical command ${addr% *} at the ENI's address ${addr#* }"
    fi
    net_log "$name: $(grep -E 'in OP|frames:' "$NET_TMP/run-$name.out" | tr '\n' ' ')"
}

# The EoE slave of eoe_setip.xml through its TAP: `--eoe 0::HOST` takes the slave's
# address from the ENI's set-IP init command, and ping reaches it there.
run_eni_eoe() {
    local f="$TAKT_SOURCE_DIR/tests/data/eni/eoe_setip.xml"
    if ! command -v ping >/dev/null || ! [ -c /dev/net/tun ] || ! [ -r /dev/net/tun ] || ! [ -w /dev/net/tun ]; then
        net_log "eoe_setip through a TAP not run: ping or /dev/net/tun out of reach for uid $(id -u)"
        return 0
    fi
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --eni "$f" -t 120 >"$NET_TMP/sim-eoe.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -f "$f" -c 1000 -t 100 --eoe 0::10.0.3.1 \
        --pcap "$NET_TMP/run-eoe.pcapng" >"$NET_TMP/run-eoe.out" 2>&1 &
    local run=$!
    net_wait_for "$NET_TMP/run-eoe.out" "in OP after" 60
    grep -q "EoE on TAP takt-eoe0, slave 10.0.3.2 (from the ENI), host 10.0.3.1" "$NET_TMP/run-eoe.out" ||
        net_fail "eoe_setip --eoe 0: $(cat "$NET_TMP/run-eoe.out")"
    ping -c 5 -i 0.1 -W 5 10.0.3.2 >"$NET_TMP/ping-eoe.out" 2>&1 ||
        net_fail "eoe_setip: ping 10.0.3.2: $(cat "$NET_TMP/ping-eoe.out")"
    kill -INT $run 2>/dev/null; wait $run
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    net_check_capture "$NET_TMP/run-eoe.pcapng"
    net_log "eoe_setip: --eoe 0 took 10.0.3.2 from the ENI; $(grep -E 'packet loss' "$NET_TMP/ping-eoe.out")"
}

body() {
    local f ran=0
    for f in "$TAKT_SOURCE_DIR"/tests/data/eni/*.xml "${TAKT_FIXTURES:-/nonexistent}"/eni/*.xml; do
        [ -r "$f" ] || continue
        run_eni "$f"
        ran=$((ran + 1))
    done
    [ $ran -gt 0 ] || net_skip "no ENI found"
    run_eni_eoe
    [ -n "${TAKT_FIXTURES:-}" ] && [ -r "$TAKT_FIXTURES/eni/rocos-eni4.xml" ] ||
        net_log "TAKT_FIXTURES has no eni/rocos-eni4.xml: the fixtures were not run"
    return 0
}

net_main body
