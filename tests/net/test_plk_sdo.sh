#!/bin/bash
# takt plk sdo against a simulated CN across veth: read an identity object, write a
# threshold and read it back, and an abort (read-only object) reported with its code.
# An integer is written at the object's size (a 2-byte object gets 2 bytes), a value
# that does not fit says so, and a CN that is not there ends the command with exit 1
# and a question about the network instead of waiting for -t. --json gives the same
# transfer (and a refusal's abort code) as data.
# No reset for lost frames (lib.sh): a CN reset by a host stall ends the SDO connection.
. "$(dirname "$0")/lib.sh"

body() {
    on_b "$TAKT" plk cn -i "$TAKT_IF_B" --node 5 -t 30 >"$NET_TMP/cn.out" 2>&1 &
    local cn=$! out rc
    sleep 0.3
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" read 5 0x1018 1 2>"$NET_TMP/err") || net_fail "sdo read: $out $(cat "$NET_TMP/err")"
    [ "$out" = "0x0000001a (26)" ] || net_fail "0x1018/1 of CN 5: expected 0x0000001a (26), got '$out'"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" read 5 0x1018 4 2>"$NET_TMP/err") || net_fail "sdo read: $out $(cat "$NET_TMP/err")"
    [ "$out" = "0x00010005 (65541)" ] || net_fail "0x1018/4 (serial) of CN 5: got '$out'"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" write 5 0x1300 0 12345 2>&1) ||
        net_fail "sdo write: $out"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" read 5 0x1300 0 2>"$NET_TMP/err") || net_fail "sdo read back: $out $(cat "$NET_TMP/err")"
    [ "$out" = "0x00003039 (12345)" ] || net_fail "0x1300 after writing 12345: got '$out'"
    # the digital inputs are a walking bit: one of 1, 2, 4, 8
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" read 5 0x6000 1 2>"$NET_TMP/err") || net_fail "sdo read DI: $out $(cat "$NET_TMP/err")"
    case "$out" in "0x01 (1)"|"0x02 (2)"|"0x04 (4)"|"0x08 (8)") ;; *) net_fail "0x6000/1 (DI): got '$out'" ;; esac
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" write 5 0x1018 1 7 2>&1)
    rc=$?
    [ $rc -eq 1 ] || net_fail "writing read-only 0x1018/1: exit $rc, 1 expected: $out"
    echo "$out" | grep -q "0x06010002" || net_fail "abort code 0x06010002 (read only) expected: $out"
    # 0x1F98/9 (Prescaler) is UNSIGNED16: written with 2 bytes, not the 4 of a default
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" write 5 0x1F98 9 2 2>&1) ||
        net_fail "writing 2 to the 2-byte 0x1F98/9: $out"
    echo "$out" | grep -q "written (2 bytes)" || net_fail "0x1F98/9 must be written with 2 bytes: $out"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" read 5 0x1F98 9 2>"$NET_TMP/err") || net_fail "sdo read 0x1F98/9: $out $(cat "$NET_TMP/err")"
    [ "$out" = "0x0002 (2)" ] || net_fail "0x1F98/9 after writing 2: got '$out'"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" write 5 0x1F98 9 70000 2>&1)
    rc=$?
    [ $rc -eq 1 ] || net_fail "70000 into a 2-byte object: exit $rc, 1 expected: $out"
    echo "$out" | grep -q "0x1F98/9 holds 2 bytes; 70000 does not fit" || net_fail "70000 into 0x1F98/9 must say it does not fit: $out"
    # --json: the same transfer as data; a refusal with its abort code, still exit 1
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" --json - read 5 0x1018 1 2>"$NET_TMP/err") || net_fail "sdo read --json: $out $(cat "$NET_TMP/err")"
    python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert (o["node"],o["operation"],o["index"],o["subindex"],o["size"],o["bytes"],o["value"])==(5,"read",0x1018,1,4,"1a000000",26), o' "$out" ||
        net_fail "sdo read --json of 0x1018/1: $out"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" --json - write 5 0x1018 1 7 2>"$NET_TMP/err")
    rc=$?
    [ $rc -eq 1 ] || net_fail "writing read-only 0x1018/1 with --json: exit $rc, 1 expected: $out"
    python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert o["abort_code"]==0x06010002 and o["operation"]=="write" and "value" not in o, o' "$out" ||
        net_fail "sdo write --json refused: abort 0x06010002 expected in the JSON: $out"
    # CN 7 is not on the network: a question within seconds, not the 20 s limit
    local t0=$SECONDS
    out=$(timeout 60 "$TAKT" plk sdo -i "$TAKT_IF_A" --boot-wait 100 read 7 0x1018 1 2>&1)
    rc=$?
    [ $rc -eq 1 ] || net_fail "absent CN 7: exit $rc, 1 expected: $out"
    echo "$out" | grep -q "no IdentResponse from CN 7 in 3 s: is it on the network" ||
        net_fail "absent CN 7 must be named with a question about the network: $out"
    [ $((SECONDS - t0)) -lt 15 ] || net_fail "absent CN 7: $((SECONDS - t0)) s until the answer, the limit says about 4"
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" read 5 0x1018 2>&1)
    [ $? -eq 2 ] || net_fail "missing SUB must be a usage error: $out"
    kill $cn 2>/dev/null
    wait $cn 2>/dev/null
    return 0
}

net_main body
