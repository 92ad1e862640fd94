#!/bin/bash
# A CN's NMTRequest across veth: `takt plk cn --nodes 1-2 --nmt-request 0x22@2+1` (node 1
# asks the MN to stop node 2 one second after it is Operational) against `takt plk mn`.
# On the wire: PR 7 in node 1's PRes, SoA(NMTRequestInvite -> 1), ASnd NMTRequest 1 -> 240
# (StopNode for 2), the MN's NMTStopNode to 2; node 2 Stopped (StatusResponse, no PRes)
# while node 1 stays Operational; tshark judges.
. "$(dirname "$0")/lib.sh"

body() {
    # SCHED_FIFO where allowed and a PRes timeout far above a loaded machine's jitter:
    # a PRes-loss reset of node 2 around the request would make it Operational again
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1-2 --nmt-request 0x22@2+1 \
        --json "$NET_TMP/cn.json" >"$NET_TMP/cn.out" 2>&1
    local rc mn
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes 1-2 -c 4000 --pres-timeout 2000 -t "$NET_PLK_LIMIT" \
        --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" --json "$NET_TMP/mn.json" --pcap "$NET_TMP/mn.pcapng" \
        >"$NET_TMP/mn.out" 2>&1 &
    mn=$!
    # however long the boot took: the request is handed over 1 s after node 1 is
    # Operational; the MN takes it at the next invite and stops node 2 within cycles
    net_wait_for "$NET_TMP/cn.out" "node 1 asks the MN for NMT command 0x22" "$NET_PLK_LIMIT"
    sleep 3
    kill -TERM $mn
    wait $mn
    rc=$?
    net_plk_cn_stop
    # exit 3: not every CN is Operational at the end -- node 2 is stopped on request
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || net_fail "MN exit $rc: $(cat "$NET_TMP/mn.out")"
    grep -q "node 1 asks the MN for NMT command 0x22" "$NET_TMP/cn.out" ||
        net_fail "the CN never handed the request over: $(cat "$NET_TMP/cn.out")"
    net_json_check "$NET_TMP/cn.json" '[n for n in j["nodes"] if n["node"] == 1][0]["nmtreq_tx"] == 1' \
        "node 1 sent one NMTRequest"
    # states as the MN saw them at its end (the CNs outlive it and then lose the SoC)
    net_json_check "$NET_TMP/mn.json" '[n for n in j["nodes"] if n["node"] == 2][0]["state"] == "STOPPED"' \
        "node 2 stopped on node 1's request"
    net_json_check "$NET_TMP/mn.json" '[n for n in j["nodes"] if n["node"] == 1][0]["state"] == "OPERATIONAL"' \
        "node 1 stays Operational"
    if command -v tshark >/dev/null; then
        local f=$NET_TMP/mn.pcapng n
        n=$(tshark -r "$f" -Y 'epl.mtyp==4 && epl.src==1 && epl.pres.pr==7' 2>/dev/null | wc -l)
        [ "$n" -ge 1 ] || net_fail "no PRes of node 1 with PR 7"
        n=$(tshark -r "$f" -Y 'epl.soa.svid==3 && epl.soa.svtg==1' 2>/dev/null | wc -l)
        [ "$n" -ge 1 ] || net_fail "no SoA(NMTRequestInvite -> 1)"
        n=$(tshark -r "$f" -Y 'epl.asnd.svid==3 && epl.src==1 && epl.dest==240 && epl.asnd.nmtrequest.rcid==0x22 && epl.asnd.nmtrequest.rct==2' 2>/dev/null | wc -l)
        [ "$n" -eq 1 ] || net_fail "$n ASnd NMTRequest StopNode(2) from node 1, one expected"
        n=$(tshark -r "$f" -Y 'epl.asnd.svid==4 && epl.src==240 && epl.dest==2 && epl.asnd.nmtcommand.cid==0x22' 2>/dev/null | wc -l)
        [ "$n" -ge 1 ] || net_fail "the MN sent no NMTStopNode to node 2"
        n=$(tshark -r "$f" -Y 'epl.asnd.svid==2 && epl.src==2 && epl.asnd.sres.stat==0x4d' 2>/dev/null | wc -l)
        [ "$n" -ge 1 ] || net_fail "no StatusResponse of node 2 saying Stopped"
        n=$(tshark -r "$f" -Y 'epl.mtyp==4 && epl.src==2 && epl.pres.stat==0x4d' 2>/dev/null | wc -l)
        [ "$n" -eq 0 ] || net_fail "node 2 sent $n PRes while Stopped (DS 301 7.1.4.7: none)"
        net_check_capture "$f"
    fi
    return 0
}

net_main body
