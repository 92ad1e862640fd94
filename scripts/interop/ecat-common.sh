# Shared by the EtherCAT interop scripts (ecat-soem.sh, ecat-kickcat.sh), sourced inside
# the namespace pair: the simulated line's slaves and expected working counter, captures
# (the simulator's own tap and dumpcap on both veth ends) and tshark's verdict on them.
# Needs TAKT, OUT, TAKT_IF_A/B; sim_start serves $DEVARGS with ECAT_SIM_PRIO.
net_args() { if [ -n "${ECAT_PRESET:-}" ] && [ "$1" = main ]; then echo "--preset $ECAT_PRESET"; else echo "--devices $2"; fi; }
# the slaves of a line as the simulator lists them (presets and xN expanded)
names() { "$TAKT" sim ecat $(net_args "$@") --list | awk '{print $2}'; }
# LRW working counter of a line mapped by an ETG.1000 master: +2 per slave with outputs, +1 per slave with inputs
wkc_of() { awk '/^el2004$/{w+=2} /^el1004$|^el3102$/{w+=1} /^servo$|^soe-drive$/{w+=3} END{print w+0}'; }
fails=0
log()  { echo "--- $*" >&2; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

cap_start() {
    "$TAKT" netns exec a -- dumpcap -q -i "$TAKT_IF_A" -f inbound -w "$OUT/$1.a.pcapng" 2>"$OUT/$1.dumpcap-a.log" &
    CAP_A=$!
    "$TAKT" netns exec b -- dumpcap -q -i "$TAKT_IF_B" -f inbound -w "$OUT/$1.b.pcapng" 2>"$OUT/$1.dumpcap-b.log" &
    CAP_B=$!
    local i
    for i in $(seq 50); do
        [ "$(grep -l 'Capturing on' "$OUT/$1".dumpcap-*.log 2>/dev/null | wc -l)" = 2 ] && break
        sleep 0.1
    done
}
cap_stop() {
    sleep 0.3
    kill "$CAP_A" "$CAP_B" 2>/dev/null; wait "$CAP_A" "$CAP_B" 2>/dev/null
    mergecap -w "$OUT/$1.pcapng" "$OUT/$1.a.pcapng" "$OUT/$1.b.pcapng" && rm -f "$OUT/$1.a.pcapng" "$OUT/$1.b.pcapng"
}
judge() {   # TAG: prints counts; fails on malformed frames or expert infos other than the group source MAC
    # (SOEM sends from 01:01:01:01:01:01, the first slave returns 03:..., both group addresses)
    local f=$OUT/$1.pcapng bad grp
    # JUDGE_EXCUSE: a display filter for frames whose findings a run expects and names
    # (soem_eoe: see there)
    tshark -r "$f" -Y "(_ws.malformed || (_ws.expert && !eth.src_not_group))${JUDGE_EXCUSE:+ && !($JUDGE_EXCUSE)}" \
        >"$OUT/$1.tshark-bad.txt" 2>/dev/null
    bad=$(wc -l <"$OUT/$1.tshark-bad.txt")
    grp=$(tshark -r "$f" -Y 'eth.src_not_group' 2>/dev/null | wc -l)
    echo "tshark: $(tshark -r "$f" 2>/dev/null | wc -l) frames, $(tshark -r "$f" -Y ecat 2>/dev/null | wc -l) ecat, $(tshark -r "$f" -Y ecat_mailbox 2>/dev/null | wc -l) mailbox, $bad malformed/expert (plus $grp 'source MAC is a group address' notes)"
    [ "$bad" = 0 ]
}
judge_all() {   # TAG: the simulator's complete capture, then dumpcap's and how much of the traffic it caught
    local t=$1 v1 v2 ok=0 want got
    v1=$(mv "$OUT/$t.sim.pcapng" "$OUT/$t.tap.pcapng" 2>/dev/null && judge "$t.tap") || ok=1
    v2=$(judge "$t") || ok=1
    want=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['frames'] + j['replies'])" "$OUT/$t.sim.json" 2>/dev/null)
    got=$(tshark -r "$OUT/$t.pcapng" -Y ecat 2>/dev/null | wc -l)
    echo "sim tap $v1; dumpcap caught $got of ${want:-?} frames, $v2"
    return $ok
}

sim_start() {   # TAG
    "$TAKT" sim ecat ${ECAT_SIM_PRIO:+-p $ECAT_SIM_PRIO} ${ECAT_CPU:+-a $ECAT_CPU} -i "$TAKT_IF_A" $DEVARGS ${ECAT_SIM_ARGS:-} --json "$OUT/$1.sim.json" \
        --pcap "$OUT/$1.sim.pcapng" >"$OUT/$1.sim.out" 2>&1 &
    SIM=$!
    sleep 0.5
}
sim_stop() { kill -INT $SIM 2>/dev/null; wait $SIM 2>/dev/null; }
