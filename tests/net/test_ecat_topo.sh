#!/bin/bash
# A branched network across veth: takt sim ecat --preset junction (a coupler, a 4-port
# junction, drop lines) against takt ecat: slaves -v shows each slave's parent and port,
# ecat run reaches OP with DC and a sync error within the line's bound, and a middle
# branch broken and healed while running is reported for the right slave, which comes
# back to OP; the capture is clean.
. "$(dirname "$0")/lib.sh"

topology() {
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset junction -t 30 >"$NET_TMP/sim-v.out" 2>&1 &
    local sim=$! out
    sleep 0.3
    out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" -v) || net_fail "ecat slaves -v: $out"
    # the simulator's own view of the tree, position by position
    local want
    want=$("$TAKT" sim ecat --preset junction -l)
    echo "$want" | grep -q "on port 2 of position 3" || net_fail "sim --list: $want"
    local k=-1 line par port
    while read -r line; do
        k=$((k + 1))
        [ $k -eq 0 ] && continue
        # "   7  ek1100                   on port 2 of position 3": the master's positions
        port=$(echo "$line" | sed -n 's/.*on port \([0-3]\) of position \([0-9]*\).*/\1/p')
        par=$(echo "$line" | sed -n 's/.*on port \([0-3]\) of position \([0-9]*\).*/\2/p')
        echo "$out" | grep -q "parent $par port $port" ||
            net_fail "ecat slaves -v: position $k should hang on port $port of $par: $out"
    done <<<"$want"
    [ "$(echo "$out" | grep -c "parent master")" = 1 ] || net_fail "ecat slaves -v: one slave on the master: $out"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
}

run_tree() {
    local t=4
    # the junction's port-3 branch (position 4, on port 3 of position 3) breaks at 1.5 s, heals at 2.5 s
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset junction -t $((t + 8)) \
        --fault 'break=3:3@1.5s;heal=0@2.5s' >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t $t --dc --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>&1
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out")"
    net_json_check "$NET_TMP/run.json" "j['slaves'] == 9" "all 9 slaves found"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network back in OP"
    net_json_check "$NET_TMP/run.json" "j['slaves_lost'] == 1" "one slave lost"
    net_json_check "$NET_TMP/run.json" "j['slaves_returned'] == 1" "one slave returned"
    grep -q "slave 4 (station 0x1004.*lost" "$NET_TMP/run.out" ||
        net_fail "the lost slave is not named as slave 4: $(grep -i lost "$NET_TMP/run.out")"
    grep -q "now at position 4 (was 5)" "$NET_TMP/run.out" ||
        net_fail "slaves behind the branch did not move up: $(grep -i position "$NET_TMP/run.out")"
    # the sync error the line presets meet on veth (docs/master.md: tens of us at most)
    net_json_check "$NET_TMP/run.json" "j['dc_sync_err_ns'] < 50000" "DC sync error on the tree"
    net_check_capture "$NET_TMP/run.pcapng"
    net_log "junction: $(grep -E 'Summary|frames:|sync' "$NET_TMP/run.out" | tr '\n' ' ')"
}

body() {
    topology
    run_tree
}

net_main body
