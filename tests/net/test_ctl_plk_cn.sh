#!/bin/bash
# takt plk cn's control socket (docs/control.md): with simulated CNs 3 and 7 booted by a
# takt plk mn in the other namespace, another process asks the CN simulator through
# its socket (takt plk nodes --cn) and sees both CNs Operational with their PReq and
# PRes counting up between two asks; version names the protocol; an ask at an MN's
# verb it does not serve is refused; the socket is gone after the CNs stop.
. "$(dirname "$0")/lib.sh"

body() {
    local sock="$NET_TMP/cn.sock" out rc n1 n2
    net_plk_cn -i "$TAKT_IF_B" --nodes 3,7 --control "$sock" >"$NET_TMP/cn.out" 2>"$NET_TMP/cn.err"
    net_wait_for "$NET_TMP/cn.err" "control socket $sock" 30 ||
        net_fail "takt plk cn serves no control socket: $(cat "$NET_TMP/cn.err")"
    "$TAKT" plk mn -i "$TAKT_IF_A" --nodes 3,7 --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" -v -t $NET_PLK_LIMIT \
        --no-control --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>"$NET_TMP/mn.err" &
    local mn=$!
    net_wait_for "$NET_TMP/mn.err" "2 of 2 CNs operational" 60 || net_fail "the CNs did not boot: $(cat "$NET_TMP/mn.err")"
    # the CNs' own view of themselves (published every 100 ms: wait for it)
    local i=0
    until out=$("$TAKT" plk nodes --cn --master "$sock" 2>&1) && echo "$out" | grep -q "2 of 2 CNs operational"; do
        i=$((i + 1)); [ $i -lt 100 ] || net_fail "plk nodes --cn never saw both CNs Operational: $out"
        sleep 0.1
    done
    echo "$out" | grep -qE "^  node   3  OPERATIONAL +PReq [1-9]" || net_fail "plk nodes --cn, CN 3: $out"
    echo "$out" | grep -qE "^  node   7  OPERATIONAL +PReq [1-9]" || net_fail "plk nodes --cn, CN 7: $out"
    n1=$("$TAKT" plk nodes --cn --master "$sock" --json - | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["nodes"][0]["pres_tx"])') ||
        net_fail "plk nodes --cn --json"
    i=0
    while :; do
        n2=$("$TAKT" plk nodes --cn --master "$sock" --json - | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["nodes"][0]["pres_tx"])')
        [ "$n2" -gt "$n1" ] && break
        i=$((i + 1)); [ $i -lt 100 ] || net_fail "CN 3's PRes count stays at $n1 through the socket"
        sleep 0.1
    done
    # the socket speaks for a CN simulator, not an MN
    out=$("$TAKT" plk nodes --master "$sock" 2>&1) && net_fail "plk nodes took a CN simulator for an MN: $out"
    echo "$out" | grep -q "a plk-cn master answers there, not a plk-mn one" || net_fail "plk nodes at a CN socket: $out"
    out=$(python3 - "$sock" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
for verb in ("version", "sdo_read"):
    f.write(json.dumps({"v": 1, "id": 1, "verb": verb}) + "\n"); f.flush(); print(f.readline().strip())
PY
) || net_fail "raw client: $out"
    echo "$out" | head -1 | grep -q '"protocol":1' || net_fail "version through the CN socket: $out"
    echo "$out" | tail -1 | grep -q '"ok":false' || net_fail "an MN's verb at the CN socket: $out"
    kill -INT $mn
    wait $mn
    rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "takt plk mn exit $rc: $(tail -n 20 "$NET_TMP/mn.out" "$NET_TMP/mn.err")"
    [ ! -e "$sock" ] || net_fail "the CN socket outlived takt plk cn"
    net_check_capture "$NET_TMP/mn.pcapng"
}

net_main body
