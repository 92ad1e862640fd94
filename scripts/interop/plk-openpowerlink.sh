#!/bin/bash
# takt's POWERLINK MN and CN against openPOWERLINK's demo applications (docs/interop.md):
#   mn: `takt plk mn` boots openPOWERLINK's demo_cn_console (node 1) to Operational;
#   cn: openPOWERLINK's demo_mn_console (with a CDC) boots `takt plk cn --node 1`.
# Both run in a fresh namespace pair (takt netns run); each openPOWERLINK process gets
# its own /dev/shm (unshare -m + tmpfs, ref powerlink.md §12). Frames are captured as
# received on each veth end (dumpcap -f inbound: both peers may use PACKET_QDISC_BYPASS,
# so a sender's own end misses its TX) and merged; tshark's epl dissector judges them.
#
# usage: plk-openpowerlink.sh [mn|cn|cn-early|cn-nmtreq|all] (default all); needs root (SCHED_FIFO,
# mount namespaces). cn starts takt's CN 3 s after the MN (PLK_CN_DELAY), so it joins
# an MN already in PreOp2/Operational, as openPOWERLINK's own CN does after the MN's
# NMTResetNode (it needs ~0.5 s to come back); cn-early starts it with the MN, so the
# MN finds it while still in MS_PRE_OPERATIONAL_1 (see docs/interop.md); cn-nmtreq is cn
# with takt's CN asking the MN (NMTRequest) to stop it, 2 s after Operational. Environment:
#   TAKT        takt binary (default: build-interop/takt, then build/takt in the tree)
#   OPLK_CN     path of demo_cn_console   (scenario mn)
#   OPLK_MN     path of demo_mn_console   (scenario cn)
#   OPLK_CDC    mnobd.cdc for demo_mn_console (default $TAKT_FIXTURES/powerlink-config/
#               Demo_3CN/mnobd.cdc, else the mnobd.cdc next to demo_mn_console)
#   PLK_CYCLE   takt MN cycle in µs (default 1000);  PLK_MN_TIME  seconds (default 10)
#   PLK_MN_CDC  scenario mn: takt's MN takes this mnobd.cdc (--cdc) instead of --nodes 1
#               -c PLK_CYCLE, e.g. Demo_3CN's (50 ms cycle, 200 µs PRes timeout). Only
#               node 1 exists: its other CNs must be optional (Demo_3CN's 32 and 110
#               are), and the MN's exit 3 for them is expected when none of them booted.
#   PLK_CN_TIME seconds the oplk MN drives takt's CN (default 25; its CFM needs ~8 s)
#   PLK_TAKT_PRIO SCHED_FIFO priority of takt's MN/CN (default 60, as openPOWERLINK's
#               threads run FIFO 45-75; empty: none)
#   OUT         directory for logs, JSON and captures (default: a new /tmp/plk-interop.*)
# Exit 0 when every scenario run passed or failed only on the known openPOWERLINK MN fault
# (XFAIL, cn-early: docs/interop.md), 1 on any other failure, 77 when it cannot run here.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if [ -z "${TAKT:-}" ]; then
    for t in "$src/build-interop/takt" "$src/build/takt"; do [ -x "$t" ] && { TAKT=$t; break; }; done
fi
[ -n "${TAKT:-}" ] && [ -x "$TAKT" ] || { echo "SKIP: set TAKT to the takt binary" >&2; exit 77; }
export TAKT
scen=${1:-all}
case $scen in mn|cn|cn-early|cn-nmtreq|all) ;; *) echo "usage: $0 [mn|cn|cn-early|cn-nmtreq|all]" >&2; exit 2 ;; esac

if [ -z "${TAKT_IF_A:-}" ]; then               # outside: make the pair, rerun inside it
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (SCHED_FIFO for openPOWERLINK, mount namespaces)" >&2; exit 77; }
    for c in dumpcap tshark mergecap unshare; do
        command -v $c >/dev/null || { echo "SKIP: $c missing" >&2; exit 77; }
    done
    export OUT=${OUT:-$(mktemp -d /tmp/plk-interop.XXXXXX)}
    mkdir -p "$OUT"
    exec "$TAKT" netns run -- bash "$0" "$scen"
fi

PLK_TAKT_PRIO=${PLK_TAKT_PRIO-60}
fails=0 xfails=0
log()  { echo "--- $*" >&2; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
xfail() { echo "XFAIL $*"; xfails=$((xfails + 1)); }   # the peer's known fault, not takt's

# Run CMD in side B with a private /dev/shm (openPOWERLINK's shared-memory queues have
# fixed names) and DIR as working directory (the demo CN stores its OD there).
# The process's pid goes to DIR/pid: `takt netns exec` does not pass signals on, so
# oplk_stop DIR signals the openPOWERLINK process itself.
oplk_b() {
    local dir=$1; shift
    "$TAKT" netns exec b -- unshare -m sh -c \
        'mount -t tmpfs tmpfs /dev/shm && cd "$0" && echo $$ >pid && exec "$@"' "$dir" "$@"
}
oplk_stop() {   # DIR WRAPPER_PID: SIGTERM (the demos then shut down cleanly), KILL after 5 s
    local p i
    p=$(cat "$1/pid" 2>/dev/null) || return 0
    kill -TERM "$p" 2>/dev/null
    for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$2" 2>/dev/null
}

cap_start() {   # TAG: capture what each end receives
    "$TAKT" netns exec a -- dumpcap -q -i "$TAKT_IF_A" -f inbound -w "$OUT/$1.a.pcapng" 2>"$OUT/$1.dumpcap-a.log" &
    CAP_A=$!
    "$TAKT" netns exec b -- dumpcap -q -i "$TAKT_IF_B" -f inbound -w "$OUT/$1.b.pcapng" 2>"$OUT/$1.dumpcap-b.log" &
    CAP_B=$!
    local i
    for i in $(seq 50); do
        grep -q 'Capturing on' "$OUT/$1.dumpcap-a.log" "$OUT/$1.dumpcap-b.log" 2>/dev/null &&
            [ "$(grep -l 'Capturing on' "$OUT/$1".dumpcap-*.log | wc -l)" = 2 ] && break
        sleep 0.1
    done
}
cap_stop() {    # TAG: stop, merge, judge; prints the verdict part
    sleep 0.3
    kill "$CAP_A" "$CAP_B" 2>/dev/null; wait "$CAP_A" "$CAP_B" 2>/dev/null
    mergecap -w "$OUT/$1.pcapng" "$OUT/$1.a.pcapng" "$OUT/$1.b.pcapng" || return 1
    rm -f "$OUT/$1.a.pcapng" "$OUT/$1.b.pcapng"
}
judge() {       # TAG: "frames N, epl N, malformed+expert N"
    local f=$OUT/$1.pcapng bad
    tshark -r "$f" -Y '_ws.malformed || _ws.expert' >"$OUT/$1.tshark-bad.txt" 2>/dev/null
    bad=$(wc -l <"$OUT/$1.tshark-bad.txt")
    echo "tshark: $(tshark -r "$f" 2>/dev/null | wc -l) frames, $(tshark -r "$f" -Y epl 2>/dev/null | wc -l) epl, $bad malformed/expert"
    [ "$bad" = 0 ]
}
# First time (s from the first POWERLINK frame) a PRes from node N shows NMT state S.
t_first() {     # TAG FILTER
    tshark -r "$OUT/$1.pcapng" -Y "$2" -T fields -e frame.time_relative 2>/dev/null | head -n 1
}

scenario_mn() {         # takt plk mn (side A) boots demo_cn_console (side B)
    local t=${PLK_MN_TIME:-10} c=${PLK_CYCLE:-1000} tag=takt-mn_oplk-cn d cfg
    [ -x "${OPLK_CN:-}" ] || { log "scenario mn: OPLK_CN (demo_cn_console) not set; skipped"; return 77; }
    if [ -n "${PLK_MN_CDC:-}" ]; then
        [ -f "$PLK_MN_CDC" ] || { fail "scenario mn: PLK_MN_CDC $PLK_MN_CDC not found"; return 1; }
        cfg="--cdc $PLK_MN_CDC"
    else
        cfg="--nodes 1 -c $c"
    fi
    d=$(mktemp -d "$OUT/oplk-cn.XXXX")
    log "scenario mn: takt plk mn $cfg for $t s against $(basename "$OPLK_CN") -n 1"
    cap_start $tag
    oplk_b "$d" "$OPLK_CN" -n 1 -d "$TAKT_IF_B" </dev/null >"$OUT/$tag.oplk-cn.out" 2>&1 &
    local cn=$!
    sleep 1   # the demo CN needs ~0.5 s to come up (GS_INITIALISING .. CS_NOT_ACTIVE)
    "$TAKT" plk mn ${PLK_TAKT_PRIO:+-p $PLK_TAKT_PRIO} -i "$TAKT_IF_A" $cfg -t "$t" --json "$OUT/$tag.json" \
        --pcap "$OUT/$tag.takt.pcapng" >"$OUT/$tag.takt.out" 2>&1
    local rc=$?
    oplk_stop "$d" $cn
    cap_stop $tag
    local v ok=1 boot op j lat
    # node 1's figures; "absent" counts the other configured CNs that never booted
    j=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); n=[x for x in j["nodes"] if x["node"] == 1][0]
l=n["pres_latency"]; us=lambda k: "%.0f" % (l[k] / 1000) if l.get(k) is not None else "-"
print(j["state"], n["state"], n["pres_ok"], n["pres_lost"], n["pres_late"], n["resets"], n["boots"], j["sdo_ok"], j["sdo_fail"],
      sum(x["boots"] == 0 for x in j["nodes"] if x["node"] != 1), len(j["nodes"]) - 1,
      "%s/%s/%s" % (us("min_ns"), us("avg_ns"), us("max_ns")), (n.get("last_reset") or "-").replace(" ", "_"))' \
        "$OUT/$tag.json" 2>/dev/null) || j="no-json"
    set -- $j
    # exit 3 means a configured CN is not Operational: expected only for optional CNs of
    # a CDC that are not on the link (none of them ever booted)
    [ $rc -eq 0 ] || { [ -n "${PLK_MN_CDC:-}" ] && [ $rc -eq 3 ] && [ "${10:-}" = "${11:-x}" ]; } || ok=0
    [ "${2:-}" = OPERATIONAL ] || ok=0
    # Operational at the end is not enough: a CN that the MN reset and booted again on
    # the way there was not held; one boot and no reset, or the scenario fails.
    [ "${6:-}" = 0 ] && [ "${7:-}" = 1 ] || ok=0
    grep -q 'NmtCsOperational' "$OUT/$tag.oplk-cn.out" || ok=0
    boot=$(t_first $tag 'epl.mtyp==4 && epl.src==1 && epl.pres.stat==0xfd')
    [ -n "$boot" ] || ok=0
    # PReq -> PRes of node 1 on the wire, from the MN's own capture (its send and
    # receive stamps)
    lat=$(tshark -r "$OUT/$tag.takt.pcapng" -Y '(epl.mtyp==3 && epl.dest==1) || (epl.mtyp==4 && epl.src==1)' \
        -T fields -e frame.time_epoch -e epl.mtyp 2>/dev/null | python3 -c '
import sys
t0, lat = None, []
for line in sys.stdin:
    t, m = line.split()
    if m == "3": t0 = float(t)
    elif t0 is not None: lat.append((float(t) - t0) * 1e6); t0 = None
lat.sort()
print("%d PRes, min/median/max %.0f/%.0f/%.0f us, %d above 200 us" % (len(lat), lat[0], lat[len(lat) // 2], lat[-1], sum(x > 200 for x in lat)) if lat else "no PRes")')
    v=$(judge $tag) || ok=0
    local msg="takt plk mn ($cfg) -> demo_cn_console: MN exit $rc, MN ${1:-?}, CN 1 ${2:-?}$([ "${11:-0}" != 0 ] && echo " (other CNs never booted: ${10:-?} of ${11:-?})") (oplk CN states: $(grep -o 'Stack entered state: NmtCs[A-Za-z0-9]*' "$OUT/$tag.oplk-cn.out" | sed 's/.*NmtCs//' | tr '\n' ' ')); PRes 0xFD at ${boot:-never} s after the first frame; PRes ok ${3:-?} lost ${4:-?} late ${5:-?}, resets ${6:-?} (last: ${13:-?}) boots ${7:-?}, SDO ok ${8:-?} fail ${9:-?}; PRes latency (MN stamps) min/avg/max ${12:-?} us; wire (MN capture) $lat; $v"
    if [ $ok = 1 ]; then echo "PASS $msg"; else fail "$msg"; fi
}

scenario_cn() {         # DELAY TAG [REQ]: demo_mn_console (side B) boots takt plk cn (side A)
    # REQ: takt's CN asks the MN with --nmt-request REQ once Operational (cn-nmtreq)
    local delay=$1 tag=$2 req=${3:-} t=${PLK_CN_TIME:-25} d cdc=${OPLK_CDC:-} want=OPERATIONAL
    [ -x "${OPLK_MN:-}" ] || { log "scenario cn: OPLK_MN (demo_mn_console) not set; skipped"; return 77; }
    if [ -z "$cdc" ]; then
        cdc=${TAKT_FIXTURES:-$src/../shared/fixtures}/powerlink-config/Demo_3CN/mnobd.cdc
        [ -f "$cdc" ] || cdc=$(dirname "$OPLK_MN")/mnobd.cdc
    fi
    [ -f "$cdc" ] || { fail "scenario cn: no CDC (set OPLK_CDC)"; return 1; }
    d=$(mktemp -d "$OUT/oplk-mn.XXXX")
    log "scenario $tag: $(basename "$OPLK_MN") -c $cdc; takt plk cn --node 1 starts $delay s later, runs $t s"
    cap_start $tag
    oplk_b "$d" "$OPLK_MN" -c "$cdc" -d "$TAKT_IF_B" </dev/null >"$OUT/$tag.oplk-mn.out" 2>&1 &
    local mn=$!
    sleep "$delay"
    "$TAKT" plk cn ${PLK_TAKT_PRIO:+-p $PLK_TAKT_PRIO} -i "$TAKT_IF_A" --node 1 -t "$t" --json "$OUT/$tag.json" \
        --pcap "$OUT/$tag.takt.pcapng" ${req:+--nmt-request "$req"} >"$OUT/$tag.takt.out" 2>&1 &
    local cn=$!
    wait $cn
    local rc=$?
    oplk_stop "$d" $mn
    cap_stop $tag
    local v ok=1 boot j errs resets
    j=$(python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["nodes"][0]
print(n["state"], n["preq_rx"], n["pres_tx"], n["loss_soc"], n["loss_preq"], n["cycle_errors"])' \
        "$OUT/$tag.json" 2>/dev/null) || j="no-json"
    set -- $j
    local reqmsg=""
    if [ -n "$req" ]; then
        # NMTRequest StopNode for itself: the MN invites it (NMTRequestInvite), sends
        # NMTStopNode, the CN reports Stopped. openPOWERLINK V2.7.2's MN then resets it:
        # its nmtmnu.c correctNmtState() has no case for CS_STOPPED (0x4D), so the state
        # reads kNmtStateInvalid -> E_NMT_WRONG_STATE (docs/interop.md); it is booted
        # again and ends Operational.
        local t_req t_stop t_stopped t_reset
        t_req=$(t_first $tag 'epl.asnd.svid==3 && epl.src==1 && epl.dest==240')
        t_stop=$(t_first $tag 'epl.asnd.svid==4 && epl.src==240 && epl.asnd.nmtcommand.cid==0x22')
        t_stopped=$(t_first $tag 'epl.asnd.svid==2 && epl.src==1 && epl.asnd.sres.stat==0x4d')
        t_reset=$(t_first $tag "epl.asnd.svid==4 && epl.src==240 && epl.dest==1 && epl.asnd.nmtcommand.cid==0x28 && frame.time_relative > ${t_stopped:-0}")
        [ -n "$t_req" ] && [ -n "$t_stop" ] && [ -n "$t_stopped" ] || ok=0
        reqmsg="; NMTRequest $req: ASnd NMTRequest from 1 at ${t_req:-never} s (NMTRequestInvites to 1: $(tshark -r "$OUT/$tag.pcapng" -Y 'epl.soa.svid==3 && epl.soa.svtg==1' 2>/dev/null | wc -l)), the MN's NMTStopNode at ${t_stop:-never} s, StatusResponse Stopped at ${t_stopped:-never} s, then the MN's NMTResetNode at ${t_reset:-never} s (its missing CS_STOPPED case)"
    fi
    [ $rc -eq 0 ] && [ "${1:-}" = $want ] || ok=0
    grep -q 'Node=  1, NmtNodeEventNmtState State:NmtCsOperational' "$OUT/$tag.oplk-mn.out" || ok=0
    boot=$(t_first $tag 'epl.mtyp==4 && epl.src==1 && epl.pres.stat==0xfd')
    [ -n "$boot" ] || ok=0
    errs=$(grep -c 'Node=  1, NmtNodeEventError' "$OUT/$tag.oplk-mn.out")
    resets=$(tshark -r "$OUT/$tag.pcapng" -Y 'epl.asnd.svid==4 && epl.dest==1' 2>/dev/null | wc -l)
    v=$(judge $tag) || ok=0
    local msg="demo_mn_console -> takt plk cn ($tag, CN starts $delay s after the MN): CN exit $rc, CN 1 ${1:-?} (oplk MN saw node 1: $(grep -o 'Node=  1, NmtNodeEventNmtState State:NmtCs[A-Za-z0-9]*' "$OUT/$tag.oplk-mn.out" | sed 's/.*State:NmtCs//' | uniq | tr '\n' ' ')); PRes 0xFD at ${boot:-never} s after the first frame; PReq ${2:-?} PRes ${3:-?}, loss SoC ${4:-?} PReq ${5:-?}, cycle errors ${6:-?}; MN node errors $errs, unicast NMT commands to 1: $resets; CFM: $(grep -c CFM_PROGRESS "$OUT/$tag.oplk-mn.out") writes, $(grep -c 'CFM_PROGRESS.*SDO Abort' "$OUT/$tag.oplk-mn.out") aborted; MN errors: $(grep -o 'OplkError = [^(]*' "$OUT/$tag.oplk-mn.out" | sort | uniq -c | tr -s ' ' | tr '\n' ';')$(grep -q 'NmtGsOff Originating event:NmtEventCriticalError' "$OUT/$tag.oplk-mn.out" && echo ' MN WENT TO GS_OFF (critical error)')$reqmsg; $v"
    if [ $ok = 1 ]; then echo "PASS $msg"
    elif why=$(oplk_mn_preop1_fault "$tag" "${1:-}"); then xfail "$msg; $why"
    else fail "$msg"; fi
}

# The openPOWERLINK V2.7.2 MN fault of docs/interop.md ("cn-early"): its own async
# buffer stalls in MS_PRE_OPERATIONAL_1 and it resends stale SoAs. Seen two ways:
# (a) GS_OFF with 0x026 (its StatusRequest queue overflowed) while takt's CN answered
# every StatusRequest addressed to it; (b) the MN resets the node, boots it in PreOp2
# and it reaches Operational, and tshark's only notes are on the MN's own (node 240)
# retransmitted SDO frames. Prints the evidence and succeeds when one of them holds.
oplk_mn_preop1_fault() {  # TAG CN-STATE
    # takt's own capture for what it received and answered: the merged one may miss
    # frames a dumpcap had not flushed when stopped
    local t=$OUT/$1.takt.pcapng o=$OUT/$1.oplk-mn.out bad=$OUT/$1.tshark-bad.txt sreq sres self last_sdo last
    sreq=$(tshark -r "$t" -Y 'epl.soa.svid==2 && epl.soa.svtg==1' 2>/dev/null | wc -l)
    sres=$(tshark -r "$t" -Y 'epl.asnd.svid==2 && epl.src==1' 2>/dev/null | wc -l)
    if grep -q 'NmtMsPreOperational1->NmtGsOff' "$o" &&
       grep -q 'Transmit buffer for asynchronous frames is full (0x026)' "$o"; then
        [ "$sreq" -gt 0 ] && [ "$sres" -ge "$sreq" ] || return 1
        self=$(tshark -r "$t" -Y 'epl.soa.svid==255 && epl.soa.svtg==240' 2>/dev/null | wc -l)
        last_sdo=$(tshark -r "$t" -Y 'epl.asnd.svid==5 && epl.src==240' -T fields -e frame.time_relative 2>/dev/null | tail -n 1)
        last=$(tshark -r "$t" -Y epl -T fields -e frame.time_relative 2>/dev/null | tail -n 1)
        echo "KNOWN openPOWERLINK MN FAULT (a): GS_OFF in MS PreOp1 with its StatusRequest queue full; takt's CN answered $sres of $sreq StatusRequests to node 1; in takt's capture the MN invited itself $self times and sent its last SDO frame at ${last_sdo:-?} s, its last frame at ${last:-?} s (own async buffer stuck, SoA resent stale: docs/interop.md)"
        return 0
    fi
    [ "$2" = OPERATIONAL ] && [ -s "$bad" ] || return 1
    grep -vq '240->' "$bad" && return 1
    grep -q 'Node=  1, NmtNodeEventNmtState State:NmtCsOperational' "$o" || return 1
    echo "KNOWN openPOWERLINK MN FAULT (b): the MN stalled in MS PreOp1 (takt's CN answered $sres of $sreq StatusRequests), reset node 1 and booted it in PreOp2; tshark's $(wc -l <"$bad") note(s) are all on the MN's own retransmitted frames: $(head -n 1 "$bad" | sed 's/.*POWERLINK [0-9]* *//' | tr -s ' ')"
}

log "pair $TAKT_IF_A (takt) <-> $TAKT_IF_B (openPOWERLINK); results in $OUT"
ran=0
if [ "$scen" = mn ] || [ "$scen" = all ]; then scenario_mn; r=$?; [ $r -ne 77 ] && ran=$((ran + 1)); fi
if [ "$scen" = cn ] || [ "$scen" = all ]; then
    scenario_cn "${PLK_CN_DELAY:-3}" oplk-mn_takt-cn; r=$?; [ $r -ne 77 ] && ran=$((ran + 1))
fi
if [ "$scen" = cn-early ] || [ "$scen" = all ]; then
    scenario_cn 0 oplk-mn_takt-cn-early; r=$?; [ $r -ne 77 ] && ran=$((ran + 1))
fi
if [ "$scen" = cn-nmtreq ] || [ "$scen" = all ]; then
    scenario_cn "${PLK_CN_DELAY:-3}" oplk-mn_takt-cn-nmtreq 0x22@1+2; r=$?; [ $r -ne 77 ] && ran=$((ran + 1))
fi
[ $ran -gt 0 ] || { echo "SKIP: neither OPLK_CN nor OPLK_MN given" >&2; exit 77; }
echo "verdict: $((ran - fails - xfails)) of $ran scenarios passed$([ $xfails -gt 0 ] && echo " ($xfails failed on openPOWERLINK's known MN fault, not counted)"); files in $OUT"
[ $fails -eq 0 ]
