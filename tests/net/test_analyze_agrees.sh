#!/bin/bash
# takt analyze on the stacks' own captures (--pcap) agrees with the stacks' own
# statistics: the number of cycles, the mean, min and max period, and the frames the
# stack counted lost (never returned or late). analyze_agrees.py says what must agree
# and why each bound is what it is; it prints the figures side by side.
. "$(dirname "$0")/lib.sh"
AGREE="$(dirname "$(readlink -f "$0")")/analyze_agrees.py"

ecat() {
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 10 -t 12 -p 10 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 3 --dc -p 20 --json "$NET_TMP/ecat.json" \
        --pcap "$NET_TMP/ecat.pcapng" >"$NET_TMP/ecat.out" 2>&1 || net_fail "ecat run: $(tail -5 "$NET_TMP/ecat.out")"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    "$TAKT" analyze "$NET_TMP/ecat.pcapng" --nominal 1000 --json "$NET_TMP/ecat-an.json" >"$NET_TMP/ecat-an.out" ||
        net_fail "analyze: $(cat "$NET_TMP/ecat-an.out")"
    python3 "$AGREE" ecat "$NET_TMP/ecat.json" "$NET_TMP/ecat-an.json" >"$NET_TMP/agree.out" 2>&1 ||
        net_fail "EtherCAT: analyze disagrees with the master: $(cat "$NET_TMP/agree.out")"
    net_log "$(cat "$NET_TMP/agree.out")"
    net_log "$(grep "Round Trip" "$NET_TMP/ecat-an.out")"
}

# One MN run against three simulated CNs with its own capture: boot, then a 2 s
# measured window; no reset for lost frames (lib.sh: a loaded host loses some).
plk() {
    local rc
    net_plk_cn -i "$TAKT_IF_B" --nodes 1-3 -p 10 >"$NET_TMP/cn.out" 2>&1
    "$TAKT" plk mn -i "$TAKT_IF_A" --nodes 1-3 -c 1000 --boot-wait 50 --measure 2 -t "$NET_PLK_LIMIT" -p 20 \
        --loss-threshold "$NET_PLK_LOSS" --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1
    rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "plk mn (exit $rc): $(grep -v PerfMsmt "$NET_TMP/mn.out" | tail -n 12)"
    local from to
    from=$(net_json "$NET_TMP/mn.json" "j['measure']['start_realtime_ns']")
    to=$(net_json "$NET_TMP/mn.json" "j['measure']['end_realtime_ns']")
    local tmo
    tmo=$(net_json "$NET_TMP/mn.json" "j['nodes'][0]['pres_timeout_ns'] / 1000")
    "$TAKT" analyze "$NET_TMP/mn.pcapng" --nominal 1000 --pres-timeout "$tmo" --from "$from" --to "$to" \
        --json "$NET_TMP/mn-an.json" \
        >"$NET_TMP/mn-an.out" || net_fail "analyze: $(cat "$NET_TMP/mn-an.out")"
    python3 "$AGREE" plk "$NET_TMP/mn.json" "$NET_TMP/mn-an.json" >"$NET_TMP/agree.out" 2>&1 ||
        net_fail "POWERLINK: analyze disagrees with the MN: $(cat "$NET_TMP/agree.out")"
    net_log "$(cat "$NET_TMP/agree.out")"
}

body() {
    ecat
    plk
}
net_main body
