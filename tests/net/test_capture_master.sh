#!/bin/bash
# takt capture on the master's own interface: the master sends with PACKET_QDISC_BYPASS,
# which passes by the point where the kernel copies outgoing frames to captures, so the
# file holds only the returns (one cyclic frame per cycle). With --no-qdisc-bypass the
# master's frames go through the qdisc and the same capture holds both directions (two
# per cycle). Counted from the master's own cycle count; tshark judges both files.
. "$(dirname "$0")/lib.sh"

# Run the master for 2 s with ARGS while takt capture records side A into FILE; print
# "LRW-frames-in-file master-cycles".
run_master() {
    local file=$1 i=0; shift
    "$TAKT" capture -i "$TAKT_IF_A" -t 30 -o "$file" >"$file.out" 2>&1 &
    local cap=$!
    while [ ! -s "$file" ]; do
        i=$((i + 1)); [ $i -gt 200 ] && net_fail "takt capture did not start: $(cat "$file.out")"
        sleep 0.05
    done
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 2 --json "$file.json" "$@" >"$file.run" 2>&1 ||
        net_fail "ecat run $*: $(tail -5 "$file.run")"
    kill -INT $cap 2>/dev/null
    wait $cap || net_fail "takt capture failed: $(cat "$file.out")"
    net_check_capture "$file"
    echo "$(tshark -r "$file" -Y "ecat.cmd == 0x0c" 2>/dev/null | wc -l) $(net_json "$file.json" "j['cycles']")"
}

body() {
    command -v tshark >/dev/null || net_skip "tshark missing: the frames in the capture cannot be counted"
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 3 -t 60 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$! got
    sleep 0.3
    read -r n cycles <<<"$(run_master "$NET_TMP/bypass.pcapng")"
    net_log "default (bypass): $n cyclic frames captured over $cycles cycles"
    python3 -c "import sys; n, c = $n, $cycles; sys.exit(0 if c > 100 and 0.95 * c <= n <= 1.1 * c else 1)" ||
        net_fail "with the bypass the master's interface should show only the returns: $n frames over $cycles cycles"
    read -r n cycles <<<"$(run_master "$NET_TMP/qdisc.pcapng" --no-qdisc-bypass)"
    net_log "--no-qdisc-bypass: $n cyclic frames captured over $cycles cycles"
    python3 -c "import sys; n, c = $n, $cycles; sys.exit(0 if c > 100 and 1.9 * c <= n <= 2.2 * c else 1)" ||
        net_fail "with --no-qdisc-bypass the capture should hold the master's frames and the returns: $n frames over $cycles cycles"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    got=$("$TAKT" help ecat run 2>&1 | grep -c -- "--no-qdisc-bypass")
    [ "$got" -ge 1 ] || net_fail "takt help ecat run does not list --no-qdisc-bypass"
}
net_main body
