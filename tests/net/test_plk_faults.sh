#!/bin/bash
# Fault injection across veth: dropped and late PRes, a CN that vanishes and returns,
# a CN with a wrong identity, malformed PRes. Every loss is counted by the MN and a
# lost CN is reset and booted again; captures still decode cleanly except for the
# malformed frames we injected on purpose (judged separately).
. "$(dirname "$0")/lib.sh"

body() {
    # node 3 is silent from 1 s after it is Operational for 1.5 s: 1500 PRes lost, and
    # the MN's 0x1C09 threshold of 800 fires after 100 in a row, which a host stall does
    # not reach; the CNs' own thresholds are off (lib.sh NET_PLK_LOSS). The MN stops 6 s
    # after every CN was Operational, with node 3 booted again by then.
    cat >"$NET_TMP/vanish.cfg" <<CFG
[network]
cycle_us = 1000
boot_wait_not_active_us = 100000
cycle_exceed_threshold = $NET_PLK_LOSS
loss_soc_tolerance_ns = 500000

[nodes 1-10]
pres_timeout_ns = 400000
loss_pres_threshold = 800
cn_loss_soc_threshold = $NET_PLK_LOSS
cn_loss_preq_threshold = $NET_PLK_LOSS
CFG
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-10 --drop 5 --vanish 3@1+1.5 \
        --json "$NET_TMP/cn.json" >"$NET_TMP/cn.out" 2>&1
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --config "$NET_TMP/vanish.cfg" --measure 6 -t "$NET_PLK_LIMIT" \
        --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1
    local rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "MN exit $rc (a CN not Operational at the end): $(tail -n 30 "$NET_TMP/mn.out")"
    # node 3 vanished: its losses fired the threshold, it was reset and booted again
    net_json_check "$NET_TMP/mn.json" "[x for x in j['nodes'] if x['node'] == 3][0]['loss_threshold_hits'] >= 1" \
        "vanished CN 3: loss threshold fired"
    net_json_check "$NET_TMP/mn.json" "[x for x in j['nodes'] if x['node'] == 3][0]['boots'] >= 2" \
        "vanished CN 3: booted again"
    # every PRes a CN dropped was counted lost by the MN (late PRes are left out here: a
    # late answer can pass for the next cycle's one, which only timestamps could tell).
    # The cycle the MN stops in is judged at its stop like every other.
    python3 - "$NET_TMP/mn.json" "$NET_TMP/cn.json" <<'PY' || net_fail "losses not all counted"
import json, sys
mn = {n['node']: n for n in json.load(open(sys.argv[1]))['nodes']}
cn = {n['node']: n for n in json.load(open(sys.argv[2]))['nodes']}
bad = []
for k, c in cn.items():
    if k == 3:
        continue
    injected = c['dropped']
    if mn[k]['pres_lost'] < injected:
        bad.append((k, injected, mn[k]['pres_lost']))
    if injected == 0:
        bad.append((k, 'no faults injected', 0))
print('dropped vs counted lost:', {k: (cn[k]['dropped'], mn[k]['pres_lost']) for k in cn})
sys.exit(1 if bad else 0)
PY
    net_check_capture "$NET_TMP/mn.pcapng"

    # wrong identity: refused with a count; the other CNs run
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-3 --wrong-id 2 >"$NET_TMP/cn2.out" 2>&1
    # the simulated CNs announce vendor 0x1A (src/sim/plk_net.c): the check is on;
    # no reaction to lost frames (lib.sh NET_PLK_LOSS): a host stall must not reset 1 or 3
    cat >"$NET_TMP/ident.cfg" <<CFG
[network]
cycle_us = 1000
boot_wait_not_active_us = 100000
cycle_exceed_threshold = $NET_PLK_LOSS
loss_soc_tolerance_ns = 500000

[nodes 1-3]
vendor_id = 0x0000001A
pres_timeout_ns = 200000
loss_pres_threshold = $NET_PLK_LOSS
cn_loss_soc_threshold = $NET_PLK_LOSS
cn_loss_preq_threshold = $NET_PLK_LOSS
CFG
    # node 2 never boots, so no window would open: stop the MN (SIGTERM) once it reports
    # the other two Operational (-v: state changes on stderr)
    "$TAKT" plk mn -v -p 30 -i "$TAKT_IF_A" --config "$NET_TMP/ident.cfg" -t "$NET_PLK_LIMIT" \
        --json "$NET_TMP/id.json" >"$NET_TMP/id.out" 2>&1 &
    local mn=$!
    net_wait_for "$NET_TMP/id.out" "2 of 3 CNs operational" "$NET_PLK_LIMIT"
    sleep 0.5
    kill -TERM $mn
    wait $mn
    rc=$?
    net_plk_cn_stop
    [ $rc -eq 3 ] || net_fail "wrong identity: MN exit $rc, 3 (a CN not Operational) expected: $(tail -n 20 "$NET_TMP/id.out")"
    net_json_check "$NET_TMP/id.json" "[x for x in j['nodes'] if x['node'] == 2][0]['ident_fail'] > 0 and [x for x in j['nodes'] if x['node'] == 2][0]['boots'] == 0" \
        "CN 2 with a wrong vendor ID refused"
    net_json_check "$NET_TMP/id.json" "j['nodes_operational'] == 2" "the right CNs 1 and 3 run: $(grep -v PerfMsmt "$NET_TMP/id.out" | tail -n 12)"

    # late PRes (after the 400 µs PRes timeout) are counted
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-3 --late 20 --late-us 600 >"$NET_TMP/cn4.out" 2>&1
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes 1-3 -c 1000 --measure 2 -t "$NET_PLK_LIMIT" --boot-wait 100 \
        --pres-timeout 400 --loss-threshold "$NET_PLK_LOSS" --json "$NET_TMP/late.json" >"$NET_TMP/late.out" 2>&1
    net_plk_cn_stop
    # a PRes stamped after the timeout but within the cycle is late, not lost (DS 301
    # 0x1C04; openPOWERLINK's MN takes it); one that misses its cycle is lost
    net_json_check "$NET_TMP/late.json" "all(x['pres_late'] + x['pres_lost'] > 0 for x in j['nodes']) and sum(x['pres_late'] for x in j['nodes']) > 0" \
        "late PRes counted: $(grep -v PerfMsmt "$NET_TMP/late.out" | tail -n 8)"

    # malformed PRes are rejected and counted
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-3 --malformed 20 >"$NET_TMP/cn3.out" 2>&1
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes 1-3 -c 1000 --measure 2 -t "$NET_PLK_LIMIT" --boot-wait 100 \
        --loss-threshold "$NET_PLK_LOSS" --json "$NET_TMP/mal.json" >"$NET_TMP/mal.out" 2>&1
    net_plk_cn_stop
    net_json_check "$NET_TMP/mal.json" "j['bad_frames'] > 0" "malformed PRes counted as bad frames: $(grep -v PerfMsmt "$NET_TMP/mal.out" | tail -n 8)"
}

net_main body
