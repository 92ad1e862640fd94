#!/bin/bash
# The masters on the ring link (-i ring:IF): takt ecat run brings takt sim ecat's
# paper-40 network to OP with DC and exchanges process data without WKC errors, and
# takt plk mn brings 3 simulated CNs (Demo_3CN's node IDs 1, 32, 110) to Operational;
# both captures judged by tshark (no malformed frame, no expert info). The other side
# runs on the packet link, so the two links also interoperate.
. "$(dirname "$0")/lib.sh"

ecat_on_ring() {
    local t=3 tag=ecat_ring
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset paper-40 -t $((t + 60)) >"$NET_TMP/$tag.sim" 2>&1 &
    local sim=$!
    sleep 0.3
    "$TAKT" ecat run -i "ring:$TAKT_IF_A" -c 1000 -t $t --dc \
        --json "$NET_TMP/$tag.json" --pcap "$NET_TMP/$tag.pcapng" >"$NET_TMP/$tag.out" 2>&1
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "ecat run on ring: exit $rc: $(tail -n 20 "$NET_TMP/$tag.out")"
    net_json_check "$NET_TMP/$tag.json" "j['state'] == 'OP'" "ecat run on ring: network in OP"
    net_json_check "$NET_TMP/$tag.json" "j['slaves'] == $("$TAKT" sim ecat --preset paper-40 -l | wc -l)" \
        "ecat run on ring: all slaves found"
    net_json_check "$NET_TMP/$tag.json" "j['wkc_errors'] == 0" "ecat run on ring: no WKC error"
    net_json_check "$NET_TMP/$tag.json" "j['cycles'] > 2000" "ecat run on ring: the cycle ran"
    net_check_capture "$NET_TMP/$tag.pcapng"
    net_log "ecat on ring: $(grep -E 'frames:|CPU per cycle' "$NET_TMP/$tag.out" | tr '\n' ' ')"
}

plk_on_ring() {
    local tag=plk_ring list=1,32,110
    net_plk_cn -i "$TAKT_IF_B" --nodes "$list" --json "$NET_TMP/$tag.cn.json" >"$NET_TMP/$tag.cn.out" 2>&1
    "$TAKT" plk mn -i "ring:$TAKT_IF_A" --nodes "$list" -c 1000 --measure 2 -t "$NET_PLK_LIMIT" \
        --boot-wait 100 --pres-timeout 400 --loss-threshold "$NET_PLK_LOSS" --json "$NET_TMP/$tag.json" \
        --pcap "$NET_TMP/$tag.pcapng" >"$NET_TMP/$tag.out" 2>&1
    local rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "plk mn on ring: exit $rc: $(tail -n 30 "$NET_TMP/$tag.out")"
    net_json_check "$NET_TMP/$tag.json" "j['nodes_operational'] == 3 and j['state'] == 'OPERATIONAL'" \
        "plk mn on ring: all 3 CNs Operational"
    net_json_check "$NET_TMP/$tag.json" "j['measure']['pres_lost'] * 5 < j['measure']['cycles'] * 3" \
        "plk mn on ring: under 20 % of the PRes lost while Operational"
    net_check_capture "$NET_TMP/$tag.pcapng"
}

body() {
    ecat_on_ring
    plk_on_ring
    echo "ok: ecat run and plk mn on the ring link"
}

net_main body
