#!/bin/bash
# takt analyze on the stacks' own captures (--pcap) agrees with the stacks' own
# statistics: the same number of cycles, the same mean period (a mean over thousands of
# periods does not depend on where in the cycle the frame was stamped), and no loss
# where the stack saw none.
. "$(dirname "$0")/lib.sh"

ecat() {
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 10 -t 12 -p 10 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 3 --dc -p 20 --json "$NET_TMP/ecat.json" \
        --pcap "$NET_TMP/ecat.pcapng" >"$NET_TMP/ecat.out" 2>&1 || net_fail "ecat run: $(tail -5 "$NET_TMP/ecat.out")"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    "$TAKT" analyze "$NET_TMP/ecat.pcapng" --nominal 1000 --json "$NET_TMP/ecat-an.json" >"$NET_TMP/ecat-an.out" ||
        net_fail "analyze: $(cat "$NET_TMP/ecat-an.out")"
    python3 - "$NET_TMP/ecat.json" "$NET_TMP/ecat-an.json" <<'PY' || net_fail "EtherCAT: analyze disagrees with the master"
import json, sys
s, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
err = []
if a["protocol"] != "EtherCAT" or a["timestamp_precision_ns"] != 1: err.append("protocol/precision %s/%s" % (a["protocol"], a["timestamp_precision_ns"]))
# the master counts every loop cycle; the capture's stream starts with the first cyclic frame
if not (0 <= s["cycles"] - (a["cycles"] + 1) <= 200): err.append("cycles: master %d, capture %d periods" % (s["cycles"], a["cycles"]))
ma, sa = a["cycle_time"]["avg_ns"], s["perf"]["Cycle Time"]["avg_ns"]
if abs(ma - sa) > 1000: err.append("mean period: capture %d ns, master %d ns" % (ma, sa))
if s["frames_lost"] == 0 and a["lost"] != 0: err.append("capture says %d lost, the master none" % a["lost"])
if a["lost"] is not None and a["lost"] > s["frames_lost"]: err.append("capture lost %d > master %d" % (a["lost"], s["frames_lost"]))
if err: print("\n".join(err)); sys.exit(1)
print("EtherCAT: master %d cycles, mean %d ns; capture %d periods, mean %d ns; lost %d / %s" % (s["cycles"], sa, a["cycles"], ma, s["frames_lost"], a["lost"]))
PY
    net_log "$(tail -1 "$NET_TMP/ecat-an.out")"
}

plk() {
    on_b "$TAKT" plk cn -i "$TAKT_IF_B" --nodes 1-3 -t 20 -p 10 >"$NET_TMP/cn.out" 2>&1 &
    local cn=$!
    sleep 0.3
    "$TAKT" plk mn -i "$TAKT_IF_A" --nodes 1-3 -c 1000 --boot-wait 50 --measure 2 -t 15 -p 20 \
        --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1 ||
        net_fail "plk mn: $(tail -5 "$NET_TMP/mn.out")"
    kill $cn 2>/dev/null; wait $cn 2>/dev/null
    local from to
    from=$(net_json "$NET_TMP/mn.json" "j['measure']['start_realtime_ns']")
    to=$(net_json "$NET_TMP/mn.json" "j['measure']['end_realtime_ns']")
    "$TAKT" analyze "$NET_TMP/mn.pcapng" --nominal 1000 --from "$from" --to "$to" --json "$NET_TMP/mn-an.json" \
        >"$NET_TMP/mn-an.out" || net_fail "analyze: $(cat "$NET_TMP/mn-an.out")"
    python3 - "$NET_TMP/mn.json" "$NET_TMP/mn-an.json" <<'PY' || net_fail "POWERLINK: analyze disagrees with the MN"
import json, sys
s, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m = s["measure"]
err = []
if a["protocol"] != "POWERLINK": err.append("protocol %s" % a["protocol"])
# the window edges are read by a reporter thread: allow a few cycles either side
if abs(m["cycles"] - (a["cycles"] + 1)) > 25: err.append("cycles: MN %d, capture %d periods" % (m["cycles"], a["cycles"]))
ma, sa = a["cycle_time"]["avg_ns"], m["perf"]["SoC Period"]["avg_ns"]
if abs(ma - sa) > 1000: err.append("mean SoC period: capture %d ns, MN %d ns" % (ma, sa))
if m["pres_lost"] == 0 and a["lost"] != 0: err.append("capture says %d PRes lost, the MN none" % a["lost"])
if err: print("\n".join(err)); sys.exit(1)
print("POWERLINK: MN %d cycles, mean %d ns; capture %d periods, mean %d ns; PRes lost %d / %d" % (m["cycles"], sa, a["cycles"], ma, m["pres_lost"], a["lost"]))
PY
}

body() {
    ecat
    plk
}
net_main body
