#!/bin/bash
# Fault injection across veth: dropped and late PRes, a CN that vanishes and returns,
# a CN with a wrong identity, malformed PRes. Every loss is counted by the MN and a
# lost CN is reset and booted again; captures still decode cleanly except for the
# malformed frames we injected on purpose (judged separately).
. "$(dirname "$0")/lib.sh"

body() {
    local t=9
    on_b "$TAKT" plk cn -p 20 -i "$TAKT_IF_B" --nodes 1-10 -t $((t + 2)) --drop 5 \
        --vanish 3@2.5+1.5 --json "$NET_TMP/cn.json" >"$NET_TMP/cn.out" 2>&1 &
    local cn=$!
    sleep 0.3
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes 1-10 -c 1000 -t $t --boot-wait 100 --pres-timeout 400 \
        --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1
    local rc=$?
    wait $cn
    [ $rc -eq 0 ] || net_fail "MN exit $rc (a CN not Operational at the end): $(tail -n 30 "$NET_TMP/mn.out")"
    # node 3 vanished: its losses fired the threshold, it was reset and booted again
    net_json_check "$NET_TMP/mn.json" "[x for x in j['nodes'] if x['node'] == 3][0]['loss_threshold_hits'] >= 1" \
        "vanished CN 3: loss threshold fired"
    net_json_check "$NET_TMP/mn.json" "[x for x in j['nodes'] if x['node'] == 3][0]['boots'] >= 2" \
        "vanished CN 3: booted again"
    # every PRes a CN dropped was counted lost by the MN (late PRes are left out here: a
    # late answer can pass for the next cycle's one, which only timestamps could tell)
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
    on_b "$TAKT" plk cn -p 20 -i "$TAKT_IF_B" --nodes 1-3 -t 5 --wrong-id 2 >"$NET_TMP/cn2.out" 2>&1 &
    cn=$!
    sleep 0.3
    # the simulated CNs announce vendor 0x1A (src/sim/plk_net.c): the check is on
    cat >"$NET_TMP/ident.cfg" <<'CFG'
[network]
cycle_us = 1000
boot_wait_not_active_us = 100000
cycle_exceed_threshold = 40
loss_soc_tolerance_ns = 500000

[nodes 1-3]
vendor_id = 0x0000001A
pres_timeout_ns = 200000
loss_pres_threshold = 40
cn_loss_soc_threshold = 80
cn_loss_preq_threshold = 80
CFG
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --config "$NET_TMP/ident.cfg" -t 3 --json "$NET_TMP/id.json" \
        >"$NET_TMP/id.out" 2>&1
    rc=$?
    wait $cn
    [ $rc -eq 3 ] || net_fail "wrong identity: MN exit $rc, 3 (a CN not Operational) expected: $(tail -n 20 "$NET_TMP/id.out")"
    net_json_check "$NET_TMP/id.json" "[x for x in j['nodes'] if x['node'] == 2][0]['ident_fail'] > 0 and [x for x in j['nodes'] if x['node'] == 2][0]['boots'] == 0" \
        "CN 2 with a wrong vendor ID refused"
    net_json_check "$NET_TMP/id.json" "j['nodes_operational'] == 2" "the right CNs 1 and 3 run"

    # late PRes (after the 400 µs PRes timeout) are counted
    on_b "$TAKT" plk cn -p 20 -i "$TAKT_IF_B" --nodes 1-3 -t 5 --late 20 --late-us 600 >"$NET_TMP/cn4.out" 2>&1 &
    cn=$!
    sleep 0.3
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes 1-3 -c 1000 -t 3 --boot-wait 100 --pres-timeout 400 \
        --json "$NET_TMP/late.json" >"$NET_TMP/late.out" 2>&1
    wait $cn
    net_json_check "$NET_TMP/late.json" "all(x['pres_lost'] > 0 for x in j['nodes'])" "late PRes counted lost"

    # malformed PRes are rejected and counted
    on_b "$TAKT" plk cn -p 20 -i "$TAKT_IF_B" --nodes 1-3 -t 5 --malformed 20 >"$NET_TMP/cn3.out" 2>&1 &
    cn=$!
    sleep 0.3
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes 1-3 -c 1000 -t 3 --boot-wait 100 --json "$NET_TMP/mal.json" \
        >"$NET_TMP/mal.out" 2>&1
    wait $cn
    net_json_check "$NET_TMP/mal.json" "j['bad_frames'] > 0" "malformed PRes counted as bad frames"
}

net_main body
