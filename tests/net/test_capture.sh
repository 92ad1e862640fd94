#!/bin/bash
# takt capture: at the simulator's end of the pair, while the master runs with its own
# --pcap tap, it writes a pcapng with nanosecond resolution (if_tsresol 9) and real
# nanosecond kernel receive stamps; tshark reads it without complaint; takt analyze finds
# the master's cyclic stream in it with the master's number of cycles and mean period;
# and every master frame is stamped at the peer after the master's tap stamped its send
# (same CLOCK_REALTIME), by about the veth's delivery time. Where dumpcap is installed it
# also captures side B's "any" device (Linux cooked headers, SLL) during the same run, and
# analyze must find the same stream in that file.
. "$(dirname "$0")/lib.sh"

body() {
    on_b "$TAKT" capture -i "$TAKT_IF_B" -t 6 -o "$NET_TMP/peer.pcapng" --json "$NET_TMP/cap.json" >"$NET_TMP/cap.out" 2>&1 &
    local cap=$! i=0
    while [ ! -s "$NET_TMP/peer.pcapng" ]; do
        i=$((i + 1)); [ $i -gt 100 ] && net_fail "takt capture did not start: $(cat "$NET_TMP/cap.out")"
        sleep 0.05
    done
    local dc=
    if command -v dumpcap >/dev/null; then
        on_b dumpcap -q -i any -a duration:5 -w "$NET_TMP/any.pcapng" >"$NET_TMP/dumpcap.out" 2>&1 &
        dc=$!
        sleep 1
    fi
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 10 -t 8 -p 10 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 2 -p 20 --json "$NET_TMP/ecat.json" --pcap "$NET_TMP/tap.pcapng" \
        >"$NET_TMP/ecat.out" 2>&1 || net_fail "ecat run: $(tail -5 "$NET_TMP/ecat.out")"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    wait $cap || net_fail "takt capture failed: $(cat "$NET_TMP/cap.out")"
    if [ -n "$dc" ]; then
        if wait $dc && [ -s "$NET_TMP/any.pcapng" ]; then
            "$TAKT" analyze "$NET_TMP/any.pcapng" --nominal 1000 --json "$NET_TMP/any-an.json" >"$NET_TMP/any-an.out" 2>&1 ||
                net_fail "analyze of dumpcap's -i any capture: $(cat "$NET_TMP/any-an.out")"
            net_json_check "$NET_TMP/any-an.json" "abs(j['stream']['sent'] - $(net_json "$NET_TMP/ecat.json" "j['cycles']")) <= 2" \
                "the cooked (-i any) capture holds the master's cycles"
            net_log "dumpcap -i any: $(grep -E "cyclic stream: EtherCAT|PerfMsmt 'Cycle" "$NET_TMP/any-an.out" | tr '\n' ' ')"
        else
            net_log "dumpcap -i any could not capture here (not judged): $(tail -2 "$NET_TMP/dumpcap.out")"
        fi
    fi
    grep -q "frames written to $NET_TMP/peer.pcapng, 0 dropped" "$NET_TMP/cap.out" ||
        net_fail "capture summary: $(cat "$NET_TMP/cap.out")"
    net_log "$(tail -1 "$NET_TMP/cap.out")"
    # --json says what the file holds: as many frames as tshark reads from it
    local nf
    nf=$(tshark -r "$NET_TMP/peer.pcapng" 2>/dev/null | wc -l)
    net_json_check "$NET_TMP/cap.json" "j['interface'] == '$TAKT_IF_B' and j['file'] == '$NET_TMP/peer.pcapng' and j['frames'] == $nf and j['kernel_drops'] == 0 and 5.5 < j['seconds'] < 60 and j['stamp_resolution_ns'] in (1, 1000) and 'error' not in j" \
        "capture --json: interface, file, $nf frames, no drops, about 6 s"
    "$TAKT" capture -i "$TAKT_IF_A" -o - --json - >/dev/null 2>"$NET_TMP/both.err" && net_fail "-o - with --json - must be refused"
    grep -q "both want stdout" "$NET_TMP/both.err" || net_fail "-o - with --json -: $(cat "$NET_TMP/both.err")"
    net_check_capture "$NET_TMP/peer.pcapng"
    if command -v capinfos >/dev/null; then
        capinfos -M "$NET_TMP/peer.pcapng" | grep -q "Time resolution = 0x09" ||
            net_fail "capinfos does not see nanosecond resolution: $(capinfos -M "$NET_TMP/peer.pcapng" | grep -i resol)"
    fi
    "$TAKT" analyze "$NET_TMP/peer.pcapng" --nominal 1000 --json "$NET_TMP/peer-an.json" >"$NET_TMP/peer-an.out" 2>&1 ||
        net_fail "analyze of the capture: $(cat "$NET_TMP/peer-an.out")"
    local mac
    mac=$(ip -o link show dev "$TAKT_IF_A" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
    [ -n "$mac" ] || net_fail "no MAC address for $TAKT_IF_A: $(ip -o link show dev "$TAKT_IF_A")"
    command -v tshark >/dev/null || net_skip "tshark missing: the capture's stamps cannot be paired with the tap's"
    # the master's sends: in its tap, the outbound direction; at the peer, working counter 0
    # in the first datagram (a return of the same frame carries the master's MAC too)
    tshark -r "$NET_TMP/tap.pcapng" -Y "eth.src == $mac && ecat.cmd == 0x0c && frame.p2p_dir == 0" -T fields \
        -e frame.time_epoch -e ecat.idx -e ecat.cnt \
        >"$NET_TMP/tap.txt" 2>/dev/null || net_fail "tshark cannot read the tap's capture"
    tshark -r "$NET_TMP/peer.pcapng" -Y "eth.src == $mac && ecat.cmd == 0x0c" -T fields \
        -e frame.time_epoch -e ecat.idx -e ecat.cnt \
        >"$NET_TMP/peer.txt" 2>/dev/null || net_fail "tshark cannot read takt capture's file"
    python3 - "$NET_TMP/ecat.json" "$NET_TMP/peer-an.json" "$NET_TMP/tap.txt" "$NET_TMP/peer.txt" <<'PY' >"$NET_TMP/check.out" 2>&1 ||
import json, sys
from decimal import Decimal
s, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def frames(p):
    out = []
    for l in open(p):
        t, idx, cnt = l.split()
        if cnt.split(",")[0] == "0":
            out.append((int(Decimal(t) * 10**9), idx.split(",")[0]))
    return out
tap, peer = frames(sys.argv[3]), frames(sys.argv[4])
err = []
if a["timestamp_precision_ns"] != 1: err.append("analyze reads precision %s ns" % a["timestamp_precision_ns"])
if a["protocol"] != "EtherCAT": err.append("protocol %s" % a["protocol"])
if abs(a["stream"]["sent"] - s["cycles"]) > 2: err.append("stream %d frames, master %d cycles" % (a["stream"]["sent"], s["cycles"]))
if abs(a["cycle_time"]["avg_ns"] - s["perf"]["Cycle Time"]["avg_ns"]) > 1000:
    err.append("mean period %d ns, master %d ns" % (a["cycle_time"]["avg_ns"], s["perf"]["Cycle Time"]["avg_ns"]))
# real ns stamps: not all on whole microseconds
sub = sum(1 for t, _ in peer if t % 1000)
if sub < len(peer) // 2: err.append("only %d of %d stamps have a sub-microsecond part" % (sub, len(peer)))
# pair each master frame in the tap with its arrival at the peer: same index, in order
seen, d = {}, []
for t, idx in tap:
    seen.setdefault(idx, []).append(t)
for t, idx in peer:
    if seen.get(idx):
        d.append(t - seen[idx].pop(0))
if len(d) < 0.99 * len(tap) or not d: err.append("only %d of %d tap frames found in the capture" % (len(d), len(tap)))
else:
    d.sort()
    early = sum(1 for x in d if x < -2000)
    med = d[len(d) // 2]
    print("peer stamp - tap stamp over %d frames: min %.1f us, median %.1f us, p99 %.1f us, max %.1f us; %d of %d stamps with sub-us digits"
          % (len(d), d[0] / 1e3, med / 1e3, d[int(len(d) * 0.99)] / 1e3, d[-1] / 1e3, sub, len(peer)))
    if early: err.append("%d frames stamped at the peer more than 2 us before the master sent them" % early)
    if not 0 <= med <= 1000000: err.append("median delivery %d ns is not a kernel receive stamp" % med)
if err: print("; ".join(err)); sys.exit(1)
PY
        net_fail "capture: $(cat "$NET_TMP/check.out")"
    net_log "$(cat "$NET_TMP/check.out")"
}
net_main body
