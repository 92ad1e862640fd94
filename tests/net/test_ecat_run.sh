#!/bin/bash
# takt ecat run against takt sim ecat across veth, for each preset: the network reaches
# OP with DC, exchanges process data without WKC errors, and tshark finds nothing wrong
# in the capture (no malformed frame, no expert info). The CLI verbs work too.
. "$(dirname "$0")/lib.sh"

run_preset() {
    local p=$1 t=3
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset "$p" -t $((t + 8)) --json "$NET_TMP/sim-$p.json" \
        >"$NET_TMP/sim-$p.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t $t --dc --perf \
        --json "$NET_TMP/run-$p.json" --pcap "$NET_TMP/run-$p.pcapng" >"$NET_TMP/run-$p.out" 2>&1
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "preset $p: takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run-$p.out")"
    local n
    n=$("$TAKT" sim ecat --preset "$p" -l | wc -l)
    net_json_check "$NET_TMP/run-$p.json" "j['slaves'] == $n" "preset $p: all $n slaves found"
    net_json_check "$NET_TMP/run-$p.json" "j['state'] == 'OP'" "preset $p: network in OP"
    net_json_check "$NET_TMP/run-$p.json" "j['wkc_errors'] == 0" "preset $p: no WKC error"
    net_json_check "$NET_TMP/run-$p.json" "j['cycles'] > 2000" "preset $p: the cycle ran"
    net_json_check "$NET_TMP/run-$p.json" "j['perf']['Task Duration']['count'] > 2000" "preset $p: Task Duration measured"
    grep -q "PerfMsmt 'JOB_SendAllCycFrames'" "$NET_TMP/run-$p.out" || net_fail "preset $p: no PerfMsmt lines"
    net_check_capture "$NET_TMP/run-$p.pcapng"
    # frames leave from the interface's own unicast MAC, padded to 60 bytes
    if command -v tshark >/dev/null; then
        local mac bad
        mac=$(ip -o link show dev "$TAKT_IF_A" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
        bad=$(tshark -r "$NET_TMP/run-$p.pcapng" -Y "eth.src == $mac && frame.len < 60" 2>/dev/null | head -3)
        [ -z "$bad" ] || net_fail "preset $p: short frames: $bad"
        tshark -r "$NET_TMP/run-$p.pcapng" -Y "eth.src == $mac" 2>/dev/null | grep -q . ||
            net_fail "preset $p: no frame from the interface's own MAC $mac"
    fi
    net_log "preset $p: $(grep -E 'Summary|frames:' "$NET_TMP/run-$p.out" | tr '\n' ' ')"
}

verbs() {
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004,el3102,servo -t 30 \
        >"$NET_TMP/sim-v.out" 2>&1 &
    local sim=$! out
    sleep 0.3
    out=$("$TAKT" ecat slaves -i "$TAKT_IF_A") || net_fail "ecat slaves: $out"
    [ "$(echo "$out" | wc -l)" = 5 ] || net_fail "ecat slaves: 5 lines expected: $out"
    echo "$out" | grep -q "servo" || net_fail "ecat slaves: no servo: $out"
    out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" -v) || net_fail "ecat slaves -v"
    echo "$out" | grep -q "mailbox out" || net_fail "ecat slaves -v shows no mailbox: $out"
    out=$("$TAKT" ecat states -i "$TAKT_IF_A" PREOP) || net_fail "ecat states PREOP: $out"
    [ "$(echo "$out" | grep -c PREOP)" = 5 ] || net_fail "ecat states PREOP: $out"
    # the servo refuses SAFEOP without DC: exit 1 and the AL status code named
    out=$("$TAKT" ecat states -i "$TAKT_IF_A" SAFEOP 2>&1) && net_fail "servo accepted SAFEOP without SYNC0: $out"
    echo "$out" | grep -q "0x0030" || net_fail "refusal without AL status code: $out"
    out=$("$TAKT" ecat upload -i "$TAKT_IF_A" --type uint32 4 0x1018 1) || net_fail "upload: $out"
    [ "$out" = "0x00746B74 7629684" ] || net_fail "upload 0x1018:01: $out"
    "$TAKT" ecat download -i "$TAKT_IF_A" --type int32 -- 4 0x607A 0 -1234 || net_fail "download"
    out=$("$TAKT" ecat upload -i "$TAKT_IF_A" --type int32 4 0x607A 0) || net_fail "upload back: $out"
    [ "$out" = "-1234" ] || net_fail "upload 0x607A after download: $out"
    out=$("$TAKT" ecat upload -i "$TAKT_IF_A" 4 0x5555 0 2>&1) && net_fail "upload of a missing object worked: $out"
    echo "$out" | grep -q "0x5555" || net_fail "abort message does not name the object: $out"
    out=$("$TAKT" ecat sdos -i "$TAKT_IF_A" 4) || net_fail "sdos: $out"
    echo "$out" | grep -q "0x1018  RECORD  Identity" || net_fail "sdos: $out"
    out=$("$TAKT" ecat reg -i "$TAKT_IF_A" read 1 0x0010 2) || net_fail "reg read: $out"
    echo "$out" | grep -q "0x1001" || net_fail "reg read of the station address: $out"
    out=$("$TAKT" ecat pdos -i "$TAKT_IF_A") || net_fail "pdos: $out"
    echo "$out" | grep -q "0x6041:00  Statusword" || net_fail "pdos: $out"
    out=$("$TAKT" ecat sii -i "$TAKT_IF_A" read 2) || net_fail "sii read: $out"
    echo "$out" | head -1 | grep -q "^0000:" || net_fail "sii read: $out"
    # SII write: a new serial number (word 0x0E) with a correct header checksum, read back
    "$TAKT" ecat sii -i "$TAKT_IF_A" -o "$NET_TMP/sii.bin" read 2 || net_fail "sii read -o"
    python3 - "$NET_TMP/sii.bin" "$NET_TMP/sii2.bin" <<'PY' || net_fail "cannot patch the SII image"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[0x1C:0x20] = (4242).to_bytes(4, "little")
crc = 0xFF
for x in b[:14]:
    crc ^= x
    for _ in range(8):
        crc = ((crc << 1) ^ 7) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
b[14] = crc
open(sys.argv[2], "wb").write(b)
PY
    "$TAKT" ecat sii -i "$TAKT_IF_A" write 2 "$NET_TMP/sii2.bin" || net_fail "sii write"
    "$TAKT" ecat slaves -i "$TAKT_IF_A" -v | grep -A1 "^2 " | grep -q "serial 4242" || net_fail "SII write not read back"
    printf 'short' >"$NET_TMP/bad.bin"
    out=$("$TAKT" ecat sii -i "$TAKT_IF_A" write 2 "$NET_TMP/bad.bin" 2>&1) && net_fail "short SII image written"
    echo "$out" | grep -q "expected an SII image" || net_fail "bad SII image message: $out"
    # xml -> ENI -> run -f: the description of the bus configures it again
    "$TAKT" ecat xml -i "$TAKT_IF_A" -o "$NET_TMP/net.xml" || net_fail "ecat xml"
    [ "$(grep -c '<Slave>' "$NET_TMP/net.xml")" = 5 ] || net_fail "ecat xml: 5 slaves expected"
    "$TAKT" ecat run -i "$TAKT_IF_A" -f "$NET_TMP/net.xml" --dc -t 1 --json "$NET_TMP/eni.json" \
        >"$NET_TMP/eni.out" 2>&1 || net_fail "run -f: $(tail -n 10 "$NET_TMP/eni.out")"
    net_json_check "$NET_TMP/eni.json" "j['state'] == 'OP'" "run -f net.xml reaches OP"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    # an ENI for another bus: every mismatch by position with expected and found identity
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el2004,el1004 -t 10 >/dev/null 2>&1 &
    sim=$!
    sleep 0.3
    out=$("$TAKT" ecat run -i "$TAKT_IF_A" -f "$NET_TMP/net.xml" -t 1 2>&1) && net_fail "mismatching ENI accepted: $out"
    echo "$out" | grep -q "slave 1: expected .*found" || net_fail "mismatch not named by position: $out"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
}

body() {
    for p in 3 10 20 paper-40; do
        run_preset $p
    done
    verbs
}

net_main body
