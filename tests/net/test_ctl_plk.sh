#!/bin/bash
# takt plk sdo through a running takt plk mn's control socket (docs/control.md): a
# value written by one call reads back on the next, since both go through the one MN
# (each call booting its own MN lost it at the CN's reset); an abort keeps its code; a
# second MN or plk sdo --direct on the interface is refused while the MN runs. As root
# outside a user namespace the MN serves its default socket and the verbs find it by
# -i alone; elsewhere --control and --master name it.
. "$(dirname "$0")/lib.sh"

body() {
    local sock="$NET_TMP/mn.sock" out rc m ctl
    if [ "$(id -u)" = 0 ] && [ "$TAKT_NETNS_USERNS" = 0 ]; then
        m=(-i "$TAKT_IF_A"); ctl=()
    else
        m=(-i "$TAKT_IF_A" --master "$sock"); ctl=(--control "$sock")
    fi
    net_plk_cn -i "$TAKT_IF_B" --node 5 >"$NET_TMP/cn.out" 2>&1
    "$TAKT" plk mn -i "$TAKT_IF_A" --nodes 5 --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" -v \
        -t $NET_PLK_LIMIT "${ctl[@]}" --json "$NET_TMP/mn.json" >"$NET_TMP/mn.out" 2>"$NET_TMP/mn.err" &
    local mn=$!
    net_wait_for "$NET_TMP/mn.err" "1 of 1 CNs operational" 60
    grep -q "control socket" "$NET_TMP/mn.err" || net_fail "the MN serves no control socket: $(cat "$NET_TMP/mn.err")"
    out=$("$TAKT" plk sdo "${m[@]}" read 5 0x1018 1 2>&1) || net_fail "sdo read: $out"
    [ "$out" = "0x0000001a (26)" ] || net_fail "0x1018/1 of CN 5: expected 0x0000001a (26), got '$out'"
    out=$("$TAKT" plk sdo "${m[@]}" write 5 0x1300 0 12345 2>&1) || net_fail "sdo write: $out"
    echo "$out" | grep -q "written (4 bytes)" || net_fail "sdo write: $out"
    out=$("$TAKT" plk sdo "${m[@]}" read 5 0x1300 0 2>&1) || net_fail "sdo read back: $out"
    [ "$out" = "0x00003039 (12345)" ] || net_fail "0x1300 after writing 12345 through the MN: got '$out'"
    out=$("$TAKT" plk sdo "${m[@]}" write 5 0x1018 1 7 2>&1)
    rc=$?
    [ $rc -eq 1 ] || net_fail "writing read-only 0x1018/1: exit $rc, 1 expected: $out"
    echo "$out" | grep -q "0x06010002" || net_fail "abort code 0x06010002 (read only) expected: $out"
    out=$("$TAKT" plk sdo "${m[@]}" --json - read 5 0x1018 1 2>&1) || net_fail "sdo read --json: $out"
    python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert (o["size"],o["bytes"],o["value"])==(4,"1a000000",26), o' "$out" ||
        net_fail "sdo read --json of 0x1018/1: $out"
    out=$("$TAKT" plk nodes "${m[@]}") || net_fail "plk nodes: $out"
    echo "$out" | grep -q "^MN OPERATIONAL, 1 of 1 CNs operational" || net_fail "plk nodes: $out"
    echo "$out" | grep -qE "^  node   5  OPERATIONAL +PRes ok [1-9]" || net_fail "plk nodes, CN 5: $out"
    out=$("$TAKT" plk sdo "${m[@]}" --direct read 5 0x1018 1 2>&1) && net_fail "--direct beside a running MN worked: $out"
    echo "$out" | grep -q "a master runs on $TAKT_IF_A" || net_fail "--direct refusal: $out"
    out=$("$TAKT" plk mn -i "$TAKT_IF_A" --nodes 5 -t 2 "${ctl[@]}" 2>&1) && net_fail "a second MN beside the first started: $out"
    echo "$out" | grep -q "a master runs on $TAKT_IF_A" || net_fail "second MN not refused before it opened the interface: $out"
    kill -INT $mn
    wait $mn
    rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "takt plk mn exit $rc: $(tail -n 20 "$NET_TMP/mn.out" "$NET_TMP/mn.err")"
    net_json_check "$NET_TMP/mn.json" "j['sdo_ok'] >= 4" "the MN's SDO client did the transfers"
}

net_main body
