#!/bin/bash
# A firmware update and an SII image through a running master (docs/control.md): while
# `takt ecat run` holds the network in OP, `takt ecat foe --boot` through its control
# socket has the master take the servo to BOOT (the bootstrap mailbox of its SII), write
# the firmware over FoE, and bring it back through INIT to OP; the others stay in OP
# (a poller watches them), the file reads back, the capture shows the AL control BOOT
# and INIT requests to the servo only. An SII image written in chunks keeps the EEPROM
# interface its own: a rescan between two chunks is refused with the reason, and runs
# after the last. No frame the master did not send; tshark judges the capture.
. "$(dirname "$0")/lib.sh"

net_wait_for_op() {
    local i=0
    until grep -qF "in OP after" "$NET_TMP/run.out" 2>/dev/null; do
        i=$((i + 1))
        [ $i -gt 1200 ] && net_fail "not in OP after 60 s: $(cat "$NET_TMP/run.out" "$NET_TMP/run.err")"
        sleep 0.05
    done
}

body() {
    local sock="$NET_TMP/ecat.sock" out
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004,servo -t 120 \
        >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    net_wait_for "$NET_TMP/sim.out" "slaves on" 10
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 600 --dc --control "$sock" --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>"$NET_TMP/run.err" &
    local run=$!
    net_wait_for_op
    local m=(-i "$TAKT_IF_A" --master "$sock")

    # the states of slaves 0..2 while the servo (3) is updated: each poll's lines kept
    ( while [ ! -e "$NET_TMP/stop" ]; do
          "$TAKT" ecat states "${m[@]}" >>"$NET_TMP/polls" 2>&1 || echo "poll failed" >>"$NET_TMP/polls"
      done ) &
    local poller=$!
    net_wait_for "$NET_TMP/polls" "0 " 30   # polling before the update starts
    head -c 5000 /dev/urandom >"$NET_TMP/firmware.bin"
    out=$("$TAKT" ecat foe "${m[@]}" -s 3 write --boot "$NET_TMP/firmware.bin" 2>&1) ||
        net_fail "foe --boot through the master: $out"
    touch "$NET_TMP/stop"
    wait $poller
    echo "$out" | grep -q "slave 3: written in BOOT, now in OP" || net_fail "foe --boot said: $out"
    echo "$out" | grep -q "wrote 'firmware.bin', 5000 bytes" || net_fail "foe --boot said: $out"
    grep -q "poll failed" "$NET_TMP/polls" && net_fail "a states poll failed: $(grep -v '^[0-9]' "$NET_TMP/polls" | head)"
    [ "$(grep -c '^[0-2] ' "$NET_TMP/polls")" -ge 3 ] || net_fail "no states polled: $(head "$NET_TMP/polls")"
    out=$(grep '^[0-2] ' "$NET_TMP/polls" | grep -v ' OP ') && net_fail "another slave left OP during the update: $out"
    net_log "states polled $(grep -c '^0 ' "$NET_TMP/polls") times around the update"
    "$TAKT" ecat foe "${m[@]}" -s 3 read firmware.bin -o "$NET_TMP/firmware.back" || net_fail "foe read back"
    cmp "$NET_TMP/firmware.bin" "$NET_TMP/firmware.back" || net_fail "the firmware read back differs"
    out=$("$TAKT" ecat states "${m[@]}") || net_fail "ecat states: $out"
    [ "$(echo "$out" | grep -c ' OP ')" = 4 ] || net_fail "not all in OP after the update: $out"
    # a firmware where none may go: the EL2004 has no FoE, it stays in OP
    out=$("$TAKT" ecat foe "${m[@]}" -s 2 write --boot "$NET_TMP/firmware.bin" 2>&1) &&
        net_fail "foe --boot to a slave without FoE worked: $out"
    echo "$out" | grep -q "slave 2" || net_fail "foe --boot refusal does not name the slave: $out"

    # the EEPROM interface: a chunk with more to come, a rescan refused, the last chunk, a rescan
    "$TAKT" ecat sii "${m[@]}" read 1 -o "$NET_TMP/sii1.bin" || net_fail "sii read"
    out=$(python3 - "$sock" "$NET_TMP/sii1.bin" <<'PY' 2>&1
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile()
img = open(sys.argv[2], "rb").read()
def call(i, **kw):
    s.sendall(json.dumps(dict(v=1, id=i, **kw)).encode() + b"\n")
    return json.loads(f.readline())
r = call(1, verb="sii_write", pos=1, word=0, data=img[:64].hex(), more=True)
print("chunk1", r["ok"], r.get("error", ""))
r = call(2, verb="rescan")
print("rescan-between", r["ok"], r.get("error", ""))
r = call(3, verb="sii_write", pos=1, word=32, data=img[64:128].hex())
print("chunk2", r["ok"], r.get("error", ""))
r = call(4, verb="rescan")
print("rescan-after", r["ok"], r.get("error", ""), [e.get("status") for e in r.get("result", {}).get("slaves", [])])
# a writer that goes between two chunks gives the interface back at once, not after 10 s
import time
w = socket.socket(socket.AF_UNIX); w.connect(sys.argv[1]); wf = w.makefile()
w.sendall(json.dumps(dict(v=1, id=5, verb="sii_write", pos=1, word=0, data=img[:64].hex(), more=True)).encode() + b"\n")
print("gone-chunk1", json.loads(wf.readline())["ok"])
r = call(6, verb="rescan")
print("rescan-writer-there", r["ok"], r.get("error", ""))
wf.close(); w.close()
t0 = time.monotonic()
while True:                          # the server sees the writer's end with its next poll
    r = call(7, verb="rescan")
    if r["ok"] or time.monotonic() - t0 > 5:
        break
    time.sleep(0.05)
print("rescan-writer-gone", r["ok"], r.get("error", ""), "%.1f s" % (time.monotonic() - t0))
PY
)
    echo "$out" | grep -q "^chunk1 True" || net_fail "first SII chunk: $out"
    echo "$out" | grep -q "^rescan-between False rescan refused: an SII image is being written to slave 1 in chunks" ||
        net_fail "a rescan between two SII chunks was not refused: $out"
    echo "$out" | grep -q "^chunk2 True" || net_fail "last SII chunk: $out"
    echo "$out" | grep -q "^rescan-after True .*\['same', 'same', 'same', 'same'\]" ||
        net_fail "the rescan after the last chunk: $out"
    echo "$out" | grep -q "^rescan-writer-there False rescan refused: an SII image is being written" ||
        net_fail "a rescan while another client's chunked write is open was not refused: $out"
    echo "$out" | grep -q "^rescan-writer-gone True" ||
        net_fail "a writer that left mid-image still holds the EEPROM interface: $out"
    net_log "$(echo "$out" | grep '^rescan-writer-gone' | sed 's/.* \([0-9.]* s\)$/rescan allowed \1 after the writer left/')"

    kill -INT $run
    wait $run
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out" "$NET_TMP/run.err")"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network in OP at the end"
    net_json_check "$NET_TMP/run.json" "j['frames_unmatched'] == 0" "no frame the master did not send"
    # AL control (0x0120) writes (FPWR) of BOOT (3) and INIT (1): to the servo (0x1003) only
    local al
    al=$(python3 - "$NET_TMP/run.pcapng" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
seen, o = set(), 0
while o + 12 <= len(b):
    t, n = struct.unpack_from("<II", b, o)
    if n < 12:
        break
    if t == 6:                                   # enhanced packet block: the frame
        cap = struct.unpack_from("<I", b, o + 20)[0]
        f = b[o + 28:o + 28 + cap]
        if len(f) > 16 and f[12:14] == b"\x88\xa4":
            p, end = 16, 16 + (struct.unpack_from("<H", f, 14)[0] & 0x7FF)
            while p + 10 <= min(end, len(f)):
                cmd, _, adp, ado, ln = struct.unpack_from("<BBHHH", f, p)
                if cmd == 5 and ado == 0x0120 and ln & 0x7FF:
                    seen.add("%04x %02x" % (adp, f[p + 10]))
                p += 10 + (ln & 0x7FF) + 2
                if not ln & 0x8000:
                    break
    o += n
print("\n".join(sorted(seen)))
PY
)
    echo "$al" | grep -q "^1003 03" || net_fail "no AL control BOOT to the servo: $al"
    echo "$al" | grep -q "^1003 01" || net_fail "no AL control INIT to the servo: $al"
    echo "$al" | grep -v "^1003 " | grep -Eq " 0[13]$" && net_fail "AL control BOOT or INIT to another slave: $al"
    if command -v tshark >/dev/null; then
        [ "$(tshark -r "$NET_TMP/run.pcapng" -Y 'ecat_mailbox.foe' 2>/dev/null | wc -l)" -gt 0 ] ||
            net_fail "no FoE in the capture"
    fi
    net_check_capture "$NET_TMP/run.pcapng"
    net_log "$(grep -E 'Summary|frames:' "$NET_TMP/run.out" | tr '\n' ' ')"
}

net_main body
