#!/bin/bash
# An openCONFIGURATOR project runs on takt unchanged: `takt plk mn --cdc` with the
# Demo_3CN mnobd.cdc (CNs 1, 32, 110, 50 ms cycle, mapping 0x6200/0x6000) boots the
# simulated CNs to Operational; tshark's epl dissector finds nothing wrong.
. "$(dirname "$0")/lib.sh"

body() {
    local cdc=${TAKT_FIXTURES:-}/powerlink-config/Demo_3CN/mnobd.cdc
    [ -f "$cdc" ] || net_skip "fixture $cdc absent (TAKT_FIXTURES)"
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-110 >"$NET_TMP/cn.out" 2>&1
    # --pres-timeout: the CDC's PRes timeouts (0x1F92) are a real network's tens of us; a
    # CN behind veth on a shared 2-core VM answers in 10-300 us. --loss-threshold: a host
    # stall must not reset a CN (lib.sh). Everything else is the CDC's.
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --cdc "$cdc" --pres-timeout 1000 --loss-threshold "$NET_PLK_LOSS" \
        --measure 5 -t "$NET_PLK_LIMIT" --json "$NET_TMP/mn.json" \
        --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>&1
    local rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "MN exit $rc: $(tail -n 20 "$NET_TMP/mn.out")"
    net_json_check "$NET_TMP/mn.json" "j['cycle_us'] == 50000" "cycle from the CDC (0x1006 = 50 000)"
    net_json_check "$NET_TMP/mn.json" "sorted(x['node'] for x in j['nodes']) == [1, 32, 110]" "CNs from 0x1F81"
    net_json_check "$NET_TMP/mn.json" "j['nodes_operational'] == 3" "all three Operational"
    net_check_capture "$NET_TMP/mn.pcapng"
}

net_main body
