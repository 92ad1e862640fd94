#!/bin/bash
# takt plk mn with a multiplexed CN (polled every 2nd cycle, MS in its PReq, MC toggling
# in the SoC) and an async-only CN (never PReq'd, StatusRequests only) next to two
# conventional ones, against simulated CNs across veth; tshark's epl dissector judges.
. "$(dirname "$0")/lib.sh"

body() {
    local conf=$NET_TMP/mux.conf
    cat >"$conf" <<'EOF'
[network]
cycle_us = 5000
multiplexed_cycles = 2
boot_wait_not_active_us = 100000
# no reaction to losses on a loaded host (lib.sh NET_PLK_LOSS); they are counted
cycle_exceed_threshold = 0

[nodes 1-4]
pres_timeout_ns = 2000000
loss_pres_threshold = 0
cn_loss_soc_threshold = 0
cn_loss_preq_threshold = 0

[node 3]
async_only = yes

[node 4]
multiplexed = yes
mux_cycle = 2
# takt's CN checks for a PReq every cycle; the MN downloads this before polling it
cn_loss_preq_threshold = 0
EOF
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-4 --json "$NET_TMP/cn.json" >"$NET_TMP/cn.out" 2>&1
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --config "$conf" --measure 6 -t "$NET_PLK_LIMIT" \
        --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1
    local rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "MN exit $rc: $(tail -n 30 "$NET_TMP/mn.out")"
    net_json_check "$NET_TMP/mn.json" "j['nodes_operational'] == 4 and j['state'] == 'OPERATIONAL'" \
        "all four Operational"
    net_json_check "$NET_TMP/mn.json" "[x['pres_ok'] for x in j['nodes'] if x['node'] == 3] == [0]" \
        "async-only node 3 sent no PRes"
    net_json_check "$NET_TMP/cn.json" "all(x['pres_tx'] > 100 for x in j['nodes'] if x['node'] != 3)" \
        "nodes 1, 2, 4 answered their PReqs"
    net_check_capture "$NET_TMP/mn.pcapng"
    command -v tshark >/dev/null || return 0
    local f=$NET_TMP/fields
    tshark -r "$NET_TMP/mn.pcapng" -Y epl -T fields -e epl.mtyp -e epl.dest -e epl.soc.mc \
        -e epl.preq.ms -e epl.soa.svid -e epl.soa.svtg 2>/dev/null >"$f"
    python3 - "$f" <<'EOF' || net_fail "multiplexed / async-only pattern on the wire (see above); the MN said: $(grep -v PerfMsmt "$NET_TMP/mn.out" | tail -n 30)"
import sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
mc, preq, ms, status3, cycles, n1_since4 = [], {}, {}, 0, 0, 0
since_soc = []
for r in rows:
    r += [''] * (6 - len(r))
    mtyp, dst = r[0], r[1]
    if mtyp == '1':                            # SoC
        cycles += 1
        mc.append(r[2] in ('1', 'True'))
        since_soc = []
    elif mtyp == '3':                          # PReq
        preq[dst] = preq.get(dst, 0) + 1
        ms[dst] = ms.get(dst, 0) + (r[3] in ('1', 'True'))
        if preq.get('4'):                      # node 4 is polled from its configuration on:
            n1_since4 += dst == '1'            # compare with node 1 over the same cycles
    elif mtyp == '5' and r[4] == '2' and r[5] == '3':
        status3 += 1
ok = True
def bad(msg):
    global ok
    ok = False
    print(msg)
if preq.get('3'):
    bad('PReq sent to async-only node 3: %d' % preq['3'])
if status3 < 2:
    bad('StatusRequest to node 3 only %d times' % status3)
n1, n4 = n1_since4, preq.get('4', 0)
if not (n1 > 500 and abs(2 * n4 - n1) <= n1 // 10 + 10):
    bad('PReq to 1 since the first to 4: %d, to 4: %d (expected half)' % (n1, n4))
if ms.get('4', 0) != n4 or ms.get('1', 0):
    bad('MS flags: node 4 %d of %d, node 1 %d' % (ms.get('4', 0), n4, ms.get('1', 0)))
toggles = sum(1 for a, b in zip(mc, mc[1:]) if a != b)
if not (toggles > 100 and abs(2 * toggles - cycles) <= cycles // 10 + 10):
    bad('MC toggled %d times in %d SoCs (expected every 2nd)' % (toggles, cycles))
if not ok:
    print('rows', len(rows), rows[:6])
sys.exit(0 if ok else 1)
EOF
    net_log "multiplexed node 4 and async-only node 3 Operational; $(grep -m1 'CPU \[usec/cycle\]' "$NET_TMP/mn.out")"
}

net_main body
