#!/bin/bash
# The control socket of takt ecat run (docs/control.md): while the master runs in OP,
# another process runs the ecat verbs through it. Their results are right, the running
# master sees no frame it did not send (unmatched 0: nobody else opened the interface)
# and no WKC error; --direct is refused while it runs;
# a peer whose uid is not allowed is refused; tshark judges the capture.
. "$(dirname "$0")/lib.sh"

body() {
    local sock="$NET_TMP/ecat.sock" out
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004,el3102,servo,soe-drive -t 120 \
        >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    # the direct path's output first, to compare (the states aside: a scan leaves the
    # slaves where they are, the running master has them in OP)
    "$TAKT" ecat slaves -i "$TAKT_IF_A" >"$NET_TMP/slaves.direct" || net_fail "direct ecat slaves"
    "$TAKT" ecat sii -i "$TAKT_IF_A" read 4 >"$NET_TMP/sii.direct" || net_fail "direct ecat sii read"
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 600 --dc --control "$sock" --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>"$NET_TMP/run.err" &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "in OP after" 60 || net_fail "not in OP: $(cat "$NET_TMP/run.err")"
    grep -qF "control socket $sock" "$NET_TMP/run.err" || net_fail "no control socket said: $(cat "$NET_TMP/run.err")"
    local T=("$TAKT")
    m=(-i "$TAKT_IF_A" --master "$sock")
    out=$("${T[@]}" ecat slaves "${m[@]}") || net_fail "ecat slaves: $out"
    [ "$(echo "$out" | wc -l)" = 6 ] || net_fail "ecat slaves: 6 lines expected: $out"
    echo "$out" | grep -q "servo" || net_fail "ecat slaves: no servo: $out"
    [ "$(echo "$out" | grep -c ' OP ')" = 6 ] || net_fail "ecat slaves: all in OP expected: $out"
    diff <(sed -E 's/ (INIT|PREOP|BOOT|SAFEOP|OP) +/ STATE /' "$NET_TMP/slaves.direct") \
         <(echo "$out" | sed -E 's/ (INIT|PREOP|BOOT|SAFEOP|OP) +/ STATE /') >&2 ||
        net_fail "ecat slaves prints otherwise through the master than directly"
    "${T[@]}" ecat sii "${m[@]}" read 4 | cmp -s - "$NET_TMP/sii.direct" ||
        net_fail "ecat sii read prints otherwise through the master than directly"
    out=$("${T[@]}" ecat slaves "${m[@]}" -v) || net_fail "ecat slaves -v"
    echo "$out" | grep -q "mailbox out" || net_fail "ecat slaves -v shows no mailbox: $out"
    out=$("${T[@]}" ecat states "${m[@]}") || net_fail "ecat states: $out"
    [ "$(echo "$out" | grep -c OP)" = 6 ] || net_fail "ecat states: $out"
    # a state for the whole network goes to the running master (OP: where it is), and so
    # does one slave's: the EL1004 (inputs only, the cyclic WKC stays) to SAFEOP while the
    # others stay in OP, then back
    out=$("${T[@]}" ecat states "${m[@]}" OP) || net_fail "ecat states OP: $out"
    [ "$(echo "$out" | grep -c OP)" = 6 ] || net_fail "ecat states OP: $out"
    out=$("${T[@]}" ecat states "${m[@]}" -s 1 SAFEOP 2>&1) || net_fail "ecat states -s 1 SAFEOP: $out"
    out=$("${T[@]}" ecat states "${m[@]}") || net_fail "ecat states: $out"
    echo "$out" | grep -q "^1 .* SAFEOP" || net_fail "slave 1 not in SAFEOP through the master: $out"
    [ "$(echo "$out" | grep -c ' OP ')" = 5 ] || net_fail "the other slaves left OP: $out"
    out=$("${T[@]}" ecat states "${m[@]}" -s 1 OP 2>&1) || net_fail "ecat states -s 1 OP: $out"
    out=$("${T[@]}" ecat states "${m[@]}") || net_fail "ecat states: $out"
    [ "$(echo "$out" | grep -c ' OP ')" = 6 ] || net_fail "slave 1 not back in OP: $out"
    out=$("${T[@]}" ecat states "${m[@]}" -s 9 OP 2>&1) && net_fail "ecat states -s 9 worked: $out"
    echo "$out" | grep -q "position 0..5, got 9" || net_fail "ecat states -s 9: $out"
    out=$("${T[@]}" ecat upload "${m[@]}" --type uint32 4 0x1018 1) || net_fail "upload: $out"
    [ "$out" = "0x00746B74 7629684" ] || net_fail "upload 0x1018:01: $out"
    # an object outside the process data (0x607A is mapped: the cycle rewrites it)
    "${T[@]}" ecat download "${m[@]}" --type uint32 4 0x6065 0 12345 || net_fail "download"
    out=$("${T[@]}" ecat upload "${m[@]}" --type uint32 4 0x6065 0) || net_fail "upload back: $out"
    [ "$out" = "0x00003039 12345" ] || net_fail "upload 0x6065 after download: $out"
    out=$("${T[@]}" ecat upload "${m[@]}" 4 0x1018 1) || net_fail "upload typed by SDO information: $out"
    [ "$out" = "0x00746B74 7629684" ] || net_fail "upload 0x1018:01 typed by the dictionary: $out"
    out=$("${T[@]}" ecat upload "${m[@]}" 4 0x5555 0 2>&1) && net_fail "upload of a missing object worked: $out"
    echo "$out" | grep -q "0x5555" || net_fail "abort message does not name the object: $out"
    out=$("${T[@]}" ecat sdos "${m[@]}" 4) || net_fail "sdos: $out"
    echo "$out" | grep -q "0x1018  RECORD  Identity" || net_fail "sdos: $out"
    out=$("${T[@]}" ecat reg "${m[@]}" read 1 0x0010 2) || net_fail "reg read: $out"
    echo "$out" | grep -q "0x1001" || net_fail "reg read of the station address: $out"
    "${T[@]}" ecat reg "${m[@]}" write 1 0x0F80 aa55 || net_fail "reg write"
    out=$("${T[@]}" ecat reg "${m[@]}" read 1 0x0F80 2) || net_fail "reg read back: $out"
    echo "$out" | grep -q "^AA 55" || net_fail "reg read after write: $out"
    out=$("${T[@]}" ecat pdos "${m[@]}") || net_fail "pdos: $out"
    echo "$out" | grep -q "0x6041:00  Statusword" || net_fail "pdos: $out"
    out=$("${T[@]}" ecat sii "${m[@]}" read 2) || net_fail "sii read: $out"
    echo "$out" | head -1 | grep -q "^0000:" || net_fail "sii read: $out"
    # SII through the running master, word by word through its cycle: an alias (word 4,
    # checksum word 7), read back by a new connection; then the whole image of slave 2
    # (a file read through the master) written back unchanged
    out=$("${T[@]}" ecat alias "${m[@]}" 2 0x1234) || net_fail "ecat alias through the master: $out"
    echo "$out" | grep -q "alias 4660 written" || net_fail "ecat alias: $out"
    out=$("${T[@]}" ecat sii "${m[@]}" read 2 | head -1) || net_fail "sii read after alias: $out"
    echo "$out" | grep -qi "^0000: .. .. .. .. .. .. .. .. 34 12 " || net_fail "alias not in SII word 4: $out"
    "${T[@]}" ecat sii "${m[@]}" read 2 -o "$NET_TMP/sii2.bin" || net_fail "sii read -o"
    out=$("${T[@]}" ecat sii "${m[@]}" write 2 "$NET_TMP/sii2.bin") || net_fail "sii write through the master: $out"
    echo "$out" | grep -q "wrote $(stat -c %s "$NET_TMP/sii2.bin") bytes" || net_fail "sii write: $out"
    # SoE: a list IDN outside the cyclic telegrams, written and read back
    "${T[@]}" ecat soe "${m[@]}" write 5 P-0-0010 1,2,3 || net_fail "soe write"
    out=$("${T[@]}" ecat soe "${m[@]}" read 5 P-0-0010) || net_fail "soe read: $out"
    [ "$out" = "1,2,3" ] || net_fail "P-0-0010 read back through the master: $out"
    out=$("${T[@]}" ecat soe "${m[@]}" read 5 S-0-0099 2>&1) && net_fail "soe read of a missing IDN worked: $out"
    echo "$out" | grep -q "no such IDN" || net_fail "SoE error through the master: $out"
    out=$("${T[@]}" ecat xml "${m[@]}") || net_fail "ecat xml: $out"
    echo "$out" | grep -q "<EtherCATConfig" || net_fail "ecat xml through the master: $out"
    [ "$(echo "$out" | grep -c "<Slave>")" = 6 ] || net_fail "ecat xml: 6 slaves expected: $out"
    # FoE through the master (the servo, in OP): the file passes as a descriptor the
    # client made; written, read back, compared
    head -c 3000 /dev/urandom >"$NET_TMP/foe.bin"
    out=$("${T[@]}" ecat foe "${m[@]}" -s 4 write "$NET_TMP/foe.bin" 2>&1) || net_fail "foe write through the master: $out"
    "${T[@]}" ecat foe "${m[@]}" -s 4 read foe.bin -o "$NET_TMP/foe.back" || net_fail "foe read through the master"
    cmp "$NET_TMP/foe.bin" "$NET_TMP/foe.back" || net_fail "foe: the file read back differs"
    out=$("${T[@]}" ecat foe "${m[@]}" -s 4 read nothing.bin 2>&1) && net_fail "foe read of a missing file worked: $out"
    echo "$out" | grep -q "0x8001" || net_fail "foe not-found through the master: $out"
    # the server takes regular files only, and wants one: a pipe, and none, are refused
    out=$(python3 - "$sock" <<'PY' 2>&1
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile()
r, w = os.pipe()
req = json.dumps({"v": 1, "id": 1, "verb": "foe_write", "pos": 4, "name": "x"}).encode() + b"\n"
socket.send_fds(s, [req], [r]); print(f.readline().strip())
s.sendall(json.dumps({"v": 1, "id": 2, "verb": "foe_read", "pos": 4, "name": "x"}).encode() + b"\n")
print(f.readline().strip())
PY
)
    echo "$out" | grep -q "expected a regular file" || net_fail "a pipe was taken for FoE: $out"
    echo "$out" | grep -q "none came" || net_fail "foe_read without a file: $out"
    # --direct is refused with where the master is (foe --boot goes through it:
    # test_ctl_ecat_boot.sh)
    out=$("${T[@]}" ecat slaves "${m[@]}" --direct 2>&1) && net_fail "--direct beside a running master worked"
    echo "$out" | grep -q "leave out --direct" || net_fail "--direct refusal: $out"
    # a uid the socket does not accept (not root, not its owner, not in its group)
    if [ "$(id -u)" = 0 ] && [ "$TAKT_NETNS_USERNS" = 0 ]; then
        chmod 711 "$NET_TMP"
        out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TAKT" ecat slaves --master "$sock" 2>&1) &&
            net_fail "nobody used a 0660 root socket: $out"
        echo "$out" | grep -q "Permission denied" || net_fail "nobody at a 0660 socket: $out"
        chmod 666 "$sock"     # past the file's mode: the server's SO_PEERCRED check
        out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TAKT" ecat slaves --master "$sock" 2>&1) &&
            net_fail "nobody was served: $out"
        echo "$out" | grep -q "uid 65534 may not use this socket" || net_fail "SO_PEERCRED refusal: $out"
        chmod 660 "$sock"
    fi
    kill -INT $run
    wait $run
    local rc=$?
    # the slave's EEPROM holds the alias (not just the master's copy): read directly now
    out=$("$TAKT" ecat sii -i "$TAKT_IF_A" read 2 | head -1) || net_fail "direct sii read after the run"
    echo "$out" | grep -qi "^0000: .. .. .. .. .. .. .. .. 34 12 " || net_fail "the slave's SII has no alias: $out"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out" "$NET_TMP/run.err")"
    [ ! -e "$sock" ] || net_fail "the socket outlived the run"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network in OP at the end"
    net_json_check "$NET_TMP/run.json" "j['frames_unmatched'] == 0" "no frame the master did not send"
    net_json_check "$NET_TMP/run.json" "j['wkc_errors'] == 0" "no WKC error"
    net_check_capture "$NET_TMP/run.pcapng"
    net_log "$(grep -E 'Summary|frames:' "$NET_TMP/run.out" | tr '\n' ' ')"
}

net_main body
