#!/bin/bash
# Every device of the ESI packages takt is given, across veth: takt sim ecat --devices
# builds each one (FILE@TYPE:#xREVISION picks it out of its package), takt ecat slaves -v
# shows the identity, name and process-data sizes the ESI gives, with no SII finding
# (one device's SII is over 4 KiB), and takt ecat run brings them all to OP with no
# working-counter error and a capture tshark finds clean. Packages: the repository's
# tests/fixtures/esi/takt-test-multi.xml and, when present and readable, the shared
# Beckhoff_EK11xx.xml (24 devices).
. "$(dirname "$0")/lib.sh"

list_devices() {
    local files=("$TAKT_SOURCE_DIR/tests/fixtures/esi/takt-test-multi.xml")
    local fx=${TAKT_FIXTURES:-}/esi/Beckhoff_EK11xx.xml
    if [ -r "$fx" ]; then files+=("$fx"); else net_log "fixture $fx absent or unreadable: its devices skipped"; fi
    python3 "$TAKT_SOURCE_DIR/tests/net/esi_devices.py" "${files[@]}" >"$NET_TMP/want.jsonl" ||
        net_fail "cannot list the ESI devices"
    DEVICES=$(python3 -c 'import json,sys; print(",".join(json.loads(l)["item"] for l in open(sys.argv[1])))' \
              "$NET_TMP/want.jsonl")
    N=$(wc -l <"$NET_TMP/want.jsonl")
}

start_sim() {   # NAME
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices "$DEVICES" -t 60 >"$NET_TMP/sim-$1.out" 2>&1 &
    SIM=$!
    net_wait_for "$NET_TMP/sim-$1.out" "slaves on" 20
}

stop_sim() { kill $SIM 2>/dev/null; wait $SIM 2>/dev/null; }

slaves() {
    start_sim slaves
    "$TAKT" ecat slaves -i "$TAKT_IF_A" -v --json "$NET_TMP/slaves.json" >"$NET_TMP/slaves.out" 2>"$NET_TMP/slaves.err"
    local rc=$?
    stop_sim
    [ $rc -eq 0 ] || net_fail "ecat slaves -v exit $rc: $(cat "$NET_TMP/slaves.err")"
    ! grep -q "SII" "$NET_TMP/slaves.err" || net_fail "SII findings on images the simulator built: $(cat "$NET_TMP/slaves.err")"
    python3 - "$NET_TMP/want.jsonl" "$NET_TMP/slaves.json" "$NET_TMP/slaves.out" <<'PY' || net_fail "ecat slaves -v disagrees with the ESI files (above)"
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
got = json.load(open(sys.argv[2]))["slaves"]
text = open(sys.argv[3]).read()
bad = []
if len(got) != len(want):
    bad.append("%d slaves, the ESI files have %d devices" % (len(got), len(want)))
for w, g in zip(want, got):
    for k in ("vendor", "product", "revision", "out_bits", "in_bits"):
        if w[k] != g[k]:
            bad.append("%s: %s %s, ESI says %s" % (w["item"], k, g[k], w[k]))
    if not g["name"] or not w["name"].startswith(g["name"]):
        bad.append("%s: name %r, ESI says %r" % (w["item"], g["name"], w["name"]))
    if "revision 0x%08X" % w["revision"] not in text:
        bad.append("%s: -v does not show revision 0x%08X" % (w["item"], w["revision"]))
    if "0x%08X:0x%08X  %s" % (w["vendor"], w["product"], g["name"]) not in text:
        bad.append("%s: no line with its identity and name" % w["item"])
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

run_op() {
    start_sim run
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 2 --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>&1
    local rc=$?
    stop_sim
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out")"
    net_json_check "$NET_TMP/run.json" "j['slaves'] == $N" "$N slaves"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network in OP"
    net_json_check "$NET_TMP/run.json" "j['wkc_errors'] == 0" "no WKC error"
    ! grep -q "SII" "$NET_TMP/run.out" || net_fail "SII findings in ecat run: $(grep SII "$NET_TMP/run.out")"
    net_check_capture "$NET_TMP/run.pcapng"
    net_log "$N ESI devices: $(grep -E 'Summary|WKC' "$NET_TMP/run.out" | tr '\n' ' ')"
}

body() {
    list_devices
    slaves
    run_op
}

net_main body
