#!/bin/bash
# takt plk mn against simulated CNs (takt plk cn --nodes) across a veth pair: 3, 10, 20
# and 40 CNs reach Operational, conventional and chained (PollResponse Chaining for the
# upper half), each booted and then SECONDS Operational (--measure), captures judged by
# tshark's epl dissector; openCONFIGURATOR Demo_3CN's node IDs 1, 32, 110 as a list.
# The MN says as it happens when each CN is Operational (a node event with its time).
# CNX: more options for the CNs (the list case runs once more with --soc-lead, the CNs
# polling for each SoC: the same boot and hold; a bad value is refused by name).
# MN and CNs ask for SCHED_FIFO (-p; only a warning where not allowed).
. "$(dirname "$0")/lib.sh"

run_case() {   # N MODE SECONDS CYCLE_US [NODE_LIST]
    local n=$1 mode=$2 t=$3 cyc=$4 chain="" tag="plk_${1}_$2" list=${5:-1-$1}
    [ -n "${5:-}" ] && tag="plk_list_$2"
    [ -n "${CNX:-}" ] && tag="${tag}_cnx"
    [ "$mode" = chained ] && chain="--chain $((n / 2 + 1))-$n"
    # shellcheck disable=SC2086 # CNX: one option per word
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes "$list" ${CNX:-} --json "$NET_TMP/$tag.cn.json" \
        >"$NET_TMP/$tag.cn.out" 2>&1
    # boot, then t seconds Operational (lib.sh: a loaded host's boot may take long)
    "$TAKT" plk mn -p 30 -i "$TAKT_IF_A" --nodes "$list" $chain -c "$cyc" --measure "$t" -t "$NET_PLK_LIMIT" \
        --boot-wait 100 --pres-timeout 400 --loss-threshold "$NET_PLK_LOSS" --json "$NET_TMP/$tag.json" \
        --pcap "$NET_TMP/$tag.pcapng" >"$NET_TMP/$tag.out" 2>&1
    local rc=$?
    net_plk_cn_stop
    [ $rc -eq 0 ] || net_fail "$n CNs $mode: MN exit $rc: $(tail -n 50 "$NET_TMP/$tag.out")"
    net_json_check "$NET_TMP/$tag.json" "j['nodes_operational'] == $n and j['state'] == 'OPERATIONAL'" \
        "$n CNs $mode: all Operational"
    local ids id
    ids=$(echo "$list" | tr ',' '\n' | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done)
    for id in $ids; do
        grep -qE "^takt plk mn: [0-9]+\.[0-9]{3} s: CN $id OPERATIONAL\$" "$NET_TMP/$tag.out" ||
            net_fail "$list $mode: no event line 'CN $id OPERATIONAL' with its time from the MN: $(grep ' s: CN ' "$NET_TMP/$tag.out" | tail -n 20)"
    done
    net_json_check "$NET_TMP/$tag.json" "sorted(x['node'] for x in j['nodes']) == sorted([$(echo $ids | tr ' ' ',')])" \
        "$list $mode: the MN ran exactly the listed CNs"
    net_json_check "$NET_TMP/$tag.json" "j['measure']['cycles'] >= $t * 1000000 // $cyc // 2" \
        "$n CNs $mode: $t s of cycles measured while Operational"
    # no reset for losses here (lib.sh), so bound them: a loaded host loses a few per
    # cent of the PRes, an MN or CN that drops its partner's frames loses far more
    net_json_check "$NET_TMP/$tag.json" "j['measure']['pres_lost'] * 5 < j['measure']['cycles'] * $n" \
        "$n CNs $mode: under 20 % of the PRes lost while Operational (lost $(net_json "$NET_TMP/$tag.json" "j['measure']['pres_lost']"))"
    # --loss-threshold took effect in the MN and, downloaded over SDO, in every CN
    net_json_check "$NET_TMP/$tag.json" "j['cycle_exceed_threshold'] == $NET_PLK_LOSS and all(x['loss_pres_threshold'] == $NET_PLK_LOSS for x in j['nodes'])" \
        "$n CNs $mode: MN thresholds from --loss-threshold"
    net_json_check "$NET_TMP/$tag.cn.json" "all(x['loss_soc_threshold'] == x['loss_preq_threshold'] == $NET_PLK_LOSS for x in j['nodes'])" \
        "$n CNs $mode: CN thresholds 0x1C0B/3, 0x1C0D/3 downloaded"
    net_json_check "$NET_TMP/$tag.json" "all(x['boots'] >= 1 and x['state'] == 'OPERATIONAL' for x in j['nodes'])" \
        "$n CNs $mode: each CN booted"
    # losses once running are counted, never hidden (a loaded 2-core VM may stall a few
    # cycles); report them
    net_log "$n CNs $mode: PRes lost $(net_json "$NET_TMP/$tag.json" "j['pres_lost_total']"), CN resets $(net_json "$NET_TMP/$tag.json" "sum(x['resets'] for x in j['nodes'])"), Operational after $(net_json "$NET_TMP/$tag.json" "round(j['measure']['boot_s'], 1)") s"
    if [ "$mode" = chained ]; then
        net_json_check "$NET_TMP/$tag.json" "sum(1 for x in j['nodes'] if x['chained']) == $((n - n / 2))" \
            "$n CNs chained: upper half in PRes chaining"
        net_json_check "$NET_TMP/$tag.cn.json" "sum(1 for x in j['nodes'] if x['chained']) == $((n - n / 2))" \
            "$n CNs chained: CNs report PRes mode"
    fi
    net_json_check "$NET_TMP/$tag.cn.json" "all(x['pres_tx'] > 100 for x in j['nodes'])" \
        "$n CNs $mode: every CN answered its PReqs"
    net_check_capture "$NET_TMP/$tag.pcapng"
    if command -v tshark >/dev/null; then
        # the boot sequence is on the wire as the epl dissector reads it
        local seen
        seen=$(tshark -r "$NET_TMP/$tag.pcapng" -Y epl -T fields -e epl.mtyp -e epl.soa.svid \
               -e epl.asnd.svid -e epl.asnd.nmtcommand.cid 2>/dev/null | sort -u | tr '\t\n' ' ')
        for want in "5 1" "5 2" "6  0x04 0x28" "6  0x04 0x24" "6  0x04 0x21" "6  0x05" "6  0x01"; do
            echo " $seen" | grep -qF "$want" || net_fail "$n CNs $mode: capture lacks '$want' (mtyp svid asnd cid): $seen"
        done
        [ "$mode" = chained ] && { echo " $seen" | grep -qF "5 6" || net_fail "no SyncRequest in the chained capture"; }
    fi
    net_log "$n CNs $mode: Operational; $(grep -m1 'CPU \[usec/cycle\]' "$NET_TMP/$tag.out")"
}

# Cycle per size: a conventional cycle costs one PReq/PRes round trip (~20-30 µs over
# veth on this class of machine) per CN, so 20 CNs get 2 ms and 40 CNs 4 ms (2 ms
# chained); the benchmark (docs/powerlink.md) measures the full matrix.
body() {
    run_case 3 conventional 2 1000 1,32,110
    CNX="--soc-lead 60" run_case 3 conventional 2 1000 1,32,110
    local e rc
    e=$(on_b "$TAKT" plk cn -i "$TAKT_IF_B" --nodes 1 --soc-lead 5x -t 1 2>&1 >/dev/null)
    rc=$?
    { [ $rc = 2 ] && echo "$e" | grep -q -- "--soc-lead"; } ||
        net_fail "--soc-lead 5x: expected exit 2 and an error naming --soc-lead, got $rc: $e"
    run_case 3 conventional 2 1000
    run_case 3 chained 2 1000
    run_case 10 conventional 2 1000
    run_case 10 chained 2 1000
    run_case 20 conventional 3 2000
    run_case 20 chained 3 2000
    run_case 40 conventional 4 4000
    run_case 40 chained 4 2000
}

net_main body
