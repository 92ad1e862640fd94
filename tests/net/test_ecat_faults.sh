#!/bin/bash
# takt ecat run under the simulator's fault injection across veth: 1 % frame loss (every
# loss counted, no WKC alarm, no slave flapping), SDOs that still complete while frames
# are lost, a cable break with heal (reported, the rest stays in OP, re-configured back
# to OP), and a refused state change named by slave and AL status code.
. "$(dirname "$0")/lib.sh"

sim() {   # sim NAME SECONDS ARGS...
    local name=$1 t=$2
    shift 2
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" -t "$t" --json "$NET_TMP/sim-$name.json" "$@" \
        >"$NET_TMP/sim-$name.out" 2>&1 &
    SIM=$!
    sleep 0.3
}

loss() {
    sim loss 8 --preset 10 --fault 'drop=0.01' --seed 3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 5 --dc --json "$NET_TMP/loss.json" >"$NET_TMP/loss.out" 2>&1 ||
        net_fail "1 % loss: run failed: $(tail -n 20 "$NET_TMP/loss.out")"
    wait $SIM
    python3 - "$NET_TMP/loss.json" "$NET_TMP/sim-loss.json" <<'PY' || net_fail "1 % loss: accounting wrong"
import json, sys
r = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
print("sim dropped %d, master lost %d (late %d), WKC errors %d, slaves lost %d" %
      (s["dropped"], r["frames_lost"], r["frames_late"], r["wkc_errors"], r["slaves_lost"]))
ok = s["dropped"] >= 20 and r["frames_lost"] - r["frames_late"] == s["dropped"]
ok = ok and r["wkc_errors"] == 0 and r["slaves_lost"] == 0 and r["state"] == "OP"
sys.exit(0 if ok else 1)
PY
}

sdo_loss() {
    sim sdo 40 --devices ek1100,el3102,servo --fault 'drop=0.03' --seed 5
    local k out
    for k in $(seq 1 10); do
        out=$("$TAKT" ecat upload -i "$TAKT_IF_A" --type uint32 2 0x1018 2 2>&1) ||
            net_fail "SDO $k under 3 % loss failed: $out"
        [ "$out" = "0x00040001 262145" ] || net_fail "SDO $k under loss: wrong value '$out'"
    done
    kill $SIM 2>/dev/null; wait $SIM 2>/dev/null
    net_json_check "$NET_TMP/sim-sdo.json" "j['dropped'] > 0" "frames were really dropped during the SDOs"
}

break_heal() {
    sim brk 10 --preset 10 --fault 'break=5@2s;heal=5@4s'
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 7 --json "$NET_TMP/brk.json" >"$NET_TMP/brk.out" 2>&1 ||
        net_fail "break/heal: run failed: $(tail -n 20 "$NET_TMP/brk.out")"
    wait $SIM
    net_json_check "$NET_TMP/brk.json" "j['slaves_lost'] == 5" "break into position 5: 5 slaves reported lost"
    net_json_check "$NET_TMP/brk.json" "j['slaves_returned'] == 5" "heal: 5 slaves back"
    net_json_check "$NET_TMP/brk.json" "j['state'] == 'OP'" "back in OP at the end"
    grep -q "slave 5 (station 0x1005.*lost" "$NET_TMP/brk.out" || net_fail "loss of slave 5 not reported: $(cat "$NET_TMP/brk.out")"
    grep -q "slave 9 (station 0x1009) back in OP" "$NET_TMP/brk.out" || net_fail "return not reported: $(cat "$NET_TMP/brk.out")"
}

refusal() {
    sim ref 15 --devices ek1100,el3102,el3102 --fault 'refuse=1:safeop=0x001E'
    local out
    out=$("$TAKT" ecat states -i "$TAKT_IF_A" SAFEOP 2>&1) && net_fail "refused SAFEOP reported success: $out"
    echo "$out" | grep -q "slave 1 (station 0x1001" || net_fail "refusal does not name slave 1: $out"
    echo "$out" | grep -q "code 0x001E (invalid input configuration)" || net_fail "refusal without code and meaning: $out"
    echo "$out" | grep -q "^2 .*SAFEOP" || net_fail "the other slaves did not go on: $out"
    kill $SIM 2>/dev/null; wait $SIM 2>/dev/null
}

body() {
    loss
    sdo_loss
    break_heal
    refusal
}

net_main body
