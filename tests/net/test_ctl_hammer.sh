#!/bin/bash
# 100 clients hammer the control socket of a running takt ecat run (valid requests,
# garbage, lines beyond 64 KiB, requests cut off by a close, lines left incomplete,
# floods beyond the rate limit; ctl_hammer.py): each gets the error the protocol
# promises, the master keeps cycling and answering, sees no frame it did not send and
# ends in OP. The cycle's figures with and without the hammering are logged as figures
# only (the host decides them, not this test).
. "$(dirname "$0")/lib.sh"

stats() {   # cycles frames_lost frames_unmatched of the running master
    "$TAKT" ecat states --master "$1" --json - >/dev/null 2>&1   # reachable at all
    python3 - "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
s.sendall(b'{"v":1,"id":1,"verb":"stats"}\n')
r = json.loads(s.makefile("rb").readline())["result"]
print(r["cycles"], r["frames_lost"], r["frames_unmatched"])
PY
}

body() {
    local sock="$NET_TMP/ecat.sock" out
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004 -t 300 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 600 --control "$sock" --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>"$NET_TMP/run.err" &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "in OP after" 60
    local a b c
    a=$(stats "$sock") || net_fail "stats: $a"
    sleep 3    # a quiet stretch, for the figures only
    b=$(stats "$sock") || net_fail "stats: $b"
    python3 "$TAKT_SOURCE_DIR/tests/net/ctl_hammer.py" "$sock" 100 8 >"$NET_TMP/hammer.json" 2>"$NET_TMP/hammer.err" ||
        net_fail "hammer: $(cat "$NET_TMP/hammer.json" "$NET_TMP/hammer.err")"
    c=$(stats "$sock") || net_fail "the master does not answer after the hammering: $c"
    read -r c0 l0 u0 <<<"$a"; read -r c1 l1 u1 <<<"$b"; read -r c2 l2 u2 <<<"$c"
    [ "$c2" -gt "$c1" ] || net_fail "the cycle stopped during the hammering ($c1 -> $c2 cycles)"
    net_log "hammer saw: $(cat "$NET_TMP/hammer.json")"
    net_log "figures: quiet $((c1 - c0)) cycles, $((l1 - l0)) frames lost; hammered $((c2 - c1)) cycles, $((l2 - l1)) frames lost"
    out=$("$TAKT" ecat states --master "$sock") || net_fail "ecat states after the hammering: $out"
    [ "$(echo "$out" | grep -c OP)" = 3 ] || net_fail "ecat states after the hammering: $out"
    kill -INT $run
    wait $run
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out" "$NET_TMP/run.err")"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network in OP at the end"
    net_json_check "$NET_TMP/run.json" "j['frames_unmatched'] == 0" "no frame the master did not send"
    net_check_capture "$NET_TMP/run.pcapng"
    net_log "$(grep -E 'Summary|frames:|deviation' "$NET_TMP/run.out" | tr '\n' ' ')"
}

net_main body
