#!/bin/bash
# takt sim ecat driven by takt's master across veth: networks built from real ENI
# files (Beckhoff terminals, Elmo drives with DC, described from the ENI) reach OP with
# matching working counters, and a scripted cable break + heal (--fault) makes the
# later slaves vanish and come back, which the master sees and recovers from.
. "$(dirname "$0")/lib.sh"

run_pair() {   # NAME, sim options..., -- master options...
    local name=$1
    shift
    local sim_args=() run_args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sim_args+=("$1"); shift; done
    shift
    run_args=("$@")
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" "${sim_args[@]}" -t 12 --json "$NET_TMP/sim-$name.json" \
        >"$NET_TMP/sim-$name.out" 2>&1 &
    local sim=$!
    net_wait_for "$NET_TMP/sim-$name.out" "slaves on" 10
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 "${run_args[@]}" --json "$NET_TMP/run-$name.json" \
        --pcap "$NET_TMP/run-$name.pcapng" >"$NET_TMP/run-$name.out" 2>&1
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "$name: takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run-$name.out")"
    net_log "$name: $(grep -E 'Summary|WKC|DC sync' "$NET_TMP/run-$name.out" | tr '\n' ' ')"
}

eni_case() {
    local name=$1 file=$2 n=$3 dc=$4
    [ -r "$file" ] || { net_log "fixture $file missing: $name skipped"; return 0; }
    run_pair "$name" --eni "$file" -- -t 3 $dc
    net_json_check "$NET_TMP/run-$name.json" "j['slaves'] == $n" "$name: $n slaves"
    net_json_check "$NET_TMP/run-$name.json" "j['state'] == 'OP'" "$name: network in OP"
    net_json_check "$NET_TMP/run-$name.json" "j['wkc_errors'] == 0" "$name: no WKC error"
    net_check_capture "$NET_TMP/run-$name.pcapng"
}

body() {
    local fx=${TAKT_FIXTURES:-}
    eni_case eni-beckhoff "$fx/eni/mega_master_eni.xml" 4 ""
    eni_case eni-elmo-dc "$fx/eni/rocos-eni4.xml" 4 --dc
    [ -z "$fx" ] || [ ! -r "$fx/eni/rocos-eni4.xml" ] ||
        net_json_check "$NET_TMP/run-eni-elmo-dc.json" "j['dc_sync_err_max_ns'] < 1000" "eni-elmo-dc: DC in sync"

    run_pair break --preset 10 --fault "break=5@2s;heal=5@3s" -- -t 6
    net_json_check "$NET_TMP/run-break.json" "j['slaves_lost'] == 5" "break into position 5: 5 slaves lost"
    net_json_check "$NET_TMP/run-break.json" "j['slaves_returned'] == 5" "heal: 5 slaves returned"
    net_json_check "$NET_TMP/run-break.json" "j['state'] == 'OP'" "back in OP after the heal"
    net_json_check "$NET_TMP/sim-break.json" "j['malformed'] == 0" "no malformed frame"
}

net_main body
