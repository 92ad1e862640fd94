#!/bin/bash
# A CN process stopped for 3 s (SIGSTOP, then SIGCONT) answers no request that queued
# while it could not run: in the MN's capture every PRes follows a PReq to its node in
# the same cycle and every ASnd of a CN answers the SoA of its cycle that invited it
# (DS 301 4.2.4); the CNs count what they dropped (stale_dropped) and the MN counts as
# `unexpected` exactly the frames of the capture that answer no request of their cycle.
# Before, on SIGCONT the CN answered its backlog: hundreds of PRes and IdentResponses
# to requests up to 3 s old.
. "$(dirname "$0")/lib.sh"

# Judge the MN's capture: prints "violations N after_stop N pres N asnd N" and lists
# the first violations on stderr. A PRes from k answers a PReq to k sent since the last
# SoC and not yet answered; an ASnd from k (IdentResponse 1, StatusResponse 2,
# NMTRequest 3, SDO 5, SyncResponse 6) answers the last SoA when no SoC/SoA was sent
# since, that SoA invited k with the matching service and was not answered yet.
judge_capture() {   # PCAP STOP_EPOCH
    tshark -r "$1" -Y epl -T fields -E separator=, -e frame.number -e frame.time_epoch -e epl.mtyp \
        -e epl.src -e epl.dest -e epl.soa.svid -e epl.soa.svtg -e epl.asnd.svid 2>/dev/null |
    python3 -c '
import sys
stop = float(sys.argv[1])
rows = []
for line in sys.stdin:
    f = (line.strip().split(",") + [""] * 8)[:8]
    if not f[2]:
        continue
    num = lambda x: int(x, 0) if x else -1
    rows.append((float(f[1]), int(f[0]), num(f[2]), num(f[3]), num(f[4]), num(f[5]), num(f[6]), num(f[7])))
rows.sort()
ok = {1: 1, 2: 2, 3: 3, 5: 0xFF, 6: 6}          # ASnd service -> SoA service inviting it
polled, answered = set(), set()
inv = None                                     # (svid, target, answered)
last_preq, last_soc = {}, None                 # for the messages: what came before
bad = after = pres = asnd = 0
for t, n, mtyp, src, dst, svid, svtg, asvid in rows:
    if src == 240:
        if mtyp == 1:                          # SoC: a new cycle, the SoA slot ends
            polled, answered, inv = set(), set(), None
            last_soc = t
        elif mtyp == 3:
            polled.add(dst)
            last_preq[dst] = t
        elif mtyp == 5:
            inv = [svid, svtg, False]
        continue
    good = True
    if mtyp == 4:
        pres += 1
        good = src in polled and src not in answered
        answered.add(src)
    elif mtyp == 6:
        asnd += 1
        want = ok.get(asvid)
        inv_ok = inv is not None and not inv[2] and inv[1] == src and (
            inv[0] == want or (inv[0] == 0xFF and asvid in (3, 5)) or (inv[0] == 3 and asvid == 3))
        good = inv_ok
        if inv_ok:
            inv[2] = True
    if not good:
        bad += 1
        after += t >= stop
        if bad <= 10:
            ago = lambda x: "%.3f ms before" % ((t - x) * 1e3) if x is not None else "never"
            print("frame %d at %.6f (%.3f s after the SIGSTOP): type %d from %d (asnd svid %d) answers no request of its cycle; last SoC %s, last PReq to %d %s" %
                  (n, t, t - stop, mtyp, src, asvid, ago(last_soc), src, ago(last_preq.get(src))), file=sys.stderr)
print("violations %d after_stop %d pres %d asnd %d" % (bad, after, pres, asnd))
' "$2"
}

body() {
    command -v tshark >/dev/null || net_skip "tshark missing: the capture cannot be judged"
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-2 --json "$NET_TMP/cn.json" >"$NET_TMP/cn.out" 2>&1
    # 20 ms cycle, openCONFIGURATOR's thresholds (--nodes): a stopped CN is reset and
    # asked for its identity every cycle, so IdentRequests queue up as well as PReqs
    "$TAKT" plk mn -v -p 30 -i "$TAKT_IF_A" --nodes 1-2 -c 20000 -t "$NET_PLK_LIMIT" --boot-wait 100 \
        --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1 &
    local mn=$!
    net_wait_for "$NET_TMP/mn.out" "2 of 2 CNs operational" "$NET_PLK_LIMIT"
    sleep 1
    local stop
    stop=$(date +%s.%N)
    kill -STOP "$NET_PLK_CN"
    sleep 3
    kill -CONT "$NET_PLK_CN"
    # the CNs come back (the MN reset them meanwhile) and run a while
    local i=0
    while [ "$(grep -c '2 of 2 CNs operational' "$NET_TMP/mn.out")" -lt 2 ]; do
        i=$((i + 1))
        [ $i -gt $((NET_PLK_LIMIT * 10)) ] && net_fail "CNs not Operational again after SIGCONT: $(grep -v PerfMsmt "$NET_TMP/mn.out" | tail -n 20)"
        sleep 0.1
    done
    sleep 1
    kill -TERM $mn
    wait $mn
    net_plk_cn_stop
    local v
    v=$(judge_capture "$NET_TMP/mn.pcapng" "$stop") || net_fail "cannot judge $NET_TMP/mn.pcapng"
    net_log "capture: $v; MN unexpected $(net_json "$NET_TMP/mn.json" "j['unexpected']"), CN stale dropped $(net_json "$NET_TMP/cn.json" "[n['stale_dropped'] for n in j['nodes']]")"
    set -- $v
    [ "$2" = 0 ] || net_fail "$2 frames in the MN's capture answer no request of their cycle ($4 after the stop)"
    [ "$6" -gt 0 ] || net_fail "no PRes in the capture"
    net_json_check "$NET_TMP/mn.json" "j['unexpected'] == $2" "the MN counts as unexpected what the capture shows"
    net_json_check "$NET_TMP/cn.json" "sum(n['stale_dropped'] for n in j['nodes']) > 0" "the CNs dropped the requests that queued while stopped"
    net_check_capture "$NET_TMP/mn.pcapng"
}

net_main body
