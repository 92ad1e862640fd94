#!/bin/bash
# An ENI drives start-up across veth: `takt sim ecat --eni F` simulates the slaves a
# real tool's ENI expects, `takt ecat run -f F` brings them to OP with the ENI's own
# init commands and cyclic frames, no WKC error, and tshark finds nothing wrong in the
# capture: TwinCAT's mega_master_eni.xml, and EC-Engineer's rocos-eni4.xml (4 drives,
# DC), both files as they are on both sides. Fixture ENIs come from $TAKT_FIXTURES
# (skipped when absent).
. "$(dirname "$0")/lib.sh"

run_eni() {
    local name=$1 f="$TAKT_FIXTURES/eni/$1" t=3 dc=${2:-}
    # the simulator and the master read the same, unmodified file
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --eni "$f" -t $((t + 12)) >"$NET_TMP/sim-$name.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -f "$f" -c 1000 -t $t $dc --json "$NET_TMP/run-$name.json" \
        --pcap "$NET_TMP/run-$name.pcapng" >"$NET_TMP/run-$name.out" 2>&1
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "$name: takt ecat run -f exit $rc: $(tail -n 20 "$NET_TMP/run-$name.out")"
    net_json_check "$NET_TMP/run-$name.json" "j['state'] == 'OP'" "$name: network in OP"
    net_json_check "$NET_TMP/run-$name.json" "j['wkc_errors'] == 0" "$name: no WKC error"
    net_json_check "$NET_TMP/run-$name.json" "j['cycles'] > 2000" "$name: the cycle ran"
    [ -z "$dc" ] || net_json_check "$NET_TMP/run-$name.json" "j['dc_sync_err_ns'] < 1000" \
        "$name: the drives' clocks within 1 us of the reference"
    net_check_capture "$NET_TMP/run-$name.pcapng"
    if command -v tshark >/dev/null; then
        # the ENI's own commands went out: its EEPROM product-code check (APRD 0x0508)
        # and the cyclic LRW at the ENI's logical address
        local addr
        addr=$(python3 - "$f" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="latin-1").read()
m = re.search(r"<Cyclic>.*?<Cmd>12</Cmd>\s*<Addr>(\d+)</Addr>", s, re.S)
print(int(m.group(1)) if m else "")
PY
)
        tshark -r "$NET_TMP/run-$name.pcapng" -Y "ecat.cmd == 1 && ecat.ado == 0x0508" 2>/dev/null | grep -q . ||
            net_fail "$name: no APRD 0x0508 (the ENI's SII checks) in the capture"
        [ -z "$addr" ] || tshark -r "$NET_TMP/run-$name.pcapng" -Y "ecat.cmd == 12 && ecat.lad == $addr" 2>/dev/null |
            grep -q . || net_fail "$name: no LRW at the ENI's logical address $addr"
    fi
    net_log "$name: $(grep -E 'in OP|frames:' "$NET_TMP/run-$name.out" | tr '\n' ' ')"
}

body() {
    [ -n "${TAKT_FIXTURES:-}" ] && [ -r "$TAKT_FIXTURES/eni/mega_master_eni.xml" ] ||
        net_skip "TAKT_FIXTURES has no eni/mega_master_eni.xml"
    run_eni mega_master_eni.xml
    [ -r "$TAKT_FIXTURES/eni/rocos-eni4.xml" ] && run_eni rocos-eni4.xml --dc
    return 0
}

net_main body
