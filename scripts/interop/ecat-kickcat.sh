#!/bin/bash
# takt's EtherCAT simulator driven by a second independent master, KickCAT (C++,
# docs/interop.md). kickcat_run.cc here is takt's own small program against KickCAT's
# library (nothing copied): it scans, configures from SII, enables DC (propagation
# delays, 15000 drift-compensation frames, SYNC0 1 ms), goes to OP and runs cycles of
# LRD + LWR + drift compensation; KickCAT checks every working counter itself.
#   line   the network of ECAT_PRESET (default paper-40) or ECAT_DEVICES;
#   servo  SERVO_DEVICES (default ek1100,el1004,el2004,servo): the servo's TxPDO remapped
#          over CoE in PREOP, then CiA 402 enable and a move to 100000.
# `takt sim ecat` serves side A of a fresh namespace pair, KickCAT runs in side B; the
# simulator's capture tap and dumpcap on both ends are judged by tshark (ecat-common.sh),
# and the LRD/LWR working counters in the replies are checked against the line
# (LRD +1 per slave with inputs, LWR +1 per slave with outputs).
#
# usage: ecat-kickcat.sh           (needs root: raw sockets, SCHED_FIFO)
# Environment:
#   TAKT            takt binary (default: build-interop/takt, then build/takt in the tree)
#   KICKCAT_DIR     KickCAT checkout with its library built in KICKCAT_DIR/build
#   ECAT_PRESET / ECAT_DEVICES   the line run (default: preset paper-40)
#   SERVO_DEVICES   the servo run's line; KICKCAT_CYCLES  cycles of 1 ms in OP (default 4000)
#   ECAT_SIM_PRIO   SCHED_FIFO priority of takt sim ecat (default 70, above the master's 60:
#                   at equal priority a woken simulator queued behind another RT task was
#                   seen to wait 4-6 ms while KickCAT polled on the other CPU; empty: none)
#   ECAT_CPU, ECAT_SIM_ARGS   as in ecat-soem.sh
#   OUT             directory for logs and captures (default: a new /tmp/ecat-kickcat.*)
# Exit 0 when both runs passed, 1 on a failure, 77 when it cannot run here.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if [ -z "${TAKT:-}" ]; then
    for t in "$src/build-interop/takt" "$src/build/takt"; do [ -x "$t" ] && { TAKT=$t; break; }; done
fi
[ -n "${TAKT:-}" ] && [ -x "$TAKT" ] || { echo "SKIP: set TAKT to the takt binary" >&2; exit 77; }
export TAKT
[ -n "${KICKCAT_DIR:-}" ] && [ -f "$KICKCAT_DIR/build/lib/libkickcat.a" ] ||
    { echo "SKIP: set KICKCAT_DIR (a KickCAT checkout with build/lib/libkickcat.a)" >&2; exit 77; }

if [ -z "${TAKT_IF_A:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (raw sockets, SCHED_FIFO)" >&2; exit 77; }
    for c in dumpcap tshark mergecap g++; do
        command -v $c >/dev/null || { echo "SKIP: $c missing" >&2; exit 77; }
    done
    export OUT=${OUT:-$(mktemp -d /tmp/ecat-kickcat.XXXXXX)}
    mkdir -p "$OUT"
    g++ -std=c++17 -O1 -o "$OUT/kickcat_run" "$here/kickcat_run.cc" -I"$KICKCAT_DIR/lib/include" \
        -I"$KICKCAT_DIR/lib/master/include" -I"$KICKCAT_DIR/lib/slave/include" -I"$KICKCAT_DIR/build/lib" "$KICKCAT_DIR/build/lib/libkickcat.a" \
        -lpthread -lrt 2>"$OUT/kickcat_run.cc.log" || { echo "FAIL kickcat_run does not build (see $OUT/kickcat_run.cc.log)"; exit 1; }
    exec "$TAKT" netns run -- bash "$0"
fi

DEV=${ECAT_DEVICES:-}
[ -n "$DEV" ] || ECAT_PRESET=${ECAT_PRESET:-paper-40}
ECAT_SIM_PRIO=${ECAT_SIM_PRIO-70}
. "$here/ecat-common.sh"
CYC=${KICKCAT_CYCLES:-4000}

# LRD/LWR working counters in the simulator's replies (the tap's frames that carry a
# non-zero count), as "cmd:wkc xN" pairs; 0x0a LRD, 0x0b LWR
wkc_seen() {
    tshark -r "$1" -Y 'ecat.cmd == 0x0a || ecat.cmd == 0x0b' -T fields -e ecat.cmd -e ecat.cnt 2>/dev/null |
        awk '{ n = split($1, c, ","); split($2, w, ","); for (i = 1; i <= n; i++) if ((c[i] == "0x0a" || c[i] == "0x0b") && w[i] != 0) print c[i] ":" w[i] }' |
        sort | uniq -c | awk '{printf "%s x%s ", $2, $1}'
}

run_kickcat() {   # TAG DEVARGS SERVO_POSITION(0: none)
    local tag=$1 pos=$3 rc ok=1 v seen nin nout list
    DEVARGS=$2
    list=$("$TAKT" sim ecat $DEVARGS --list | awk '{print $2}')
    nin=$(echo "$list" | grep -c -x 'el1004\|el3102\|servo')
    nout=$(echo "$list" | grep -c -x 'el2004\|servo')
    log "kickcat_run ($tag, $CYC cycles, servo at $pos) against takt sim ecat $DEVARGS"
    cap_start $tag; sim_start $tag
    timeout 180 "$TAKT" netns exec b -- chrt -f 60 "$OUT/kickcat_run" "$TAKT_IF_B" "$CYC" "$pos" >"$OUT/$tag.out" 2>&1
    rc=$?
    sim_stop; cap_stop $tag
    [ $rc -eq 0 ] && grep -q '^VERDICT PASS' "$OUT/$tag.out" || ok=0
    v=$(judge_all $tag) || ok=0
    seen=$(wkc_seen "$OUT/$tag.tap.pcapng")
    # every LRD reply counts the slaves with inputs, every LWR reply those with outputs
    echo "$seen" | tr ' ' '\n' | grep -v "^x\|^$" | grep -q -v "^0x0a:$nin\$\|^0x0b:$nout\$" && ok=0
    echo "$seen" | grep -q "0x0a:$nin x" && echo "$seen" | grep -q "0x0b:$nout x" || ok=0
    local msg="kickcat $tag: $(echo "$list" | grep -c .) slaves; $(grep -h 'remapped\|^servo inputs\|^DC:\|^VERDICT' "$OUT/$tag.out" | tr '\n' ' '); LRD/LWR WKC in the replies (expected 0x0a:$nin, 0x0b:$nout): $seen; $v"
    if [ $ok = 1 ]; then echo "PASS $msg"; else fail "$msg"; fi
}

log "pair $TAKT_IF_A (takt sim ecat) <-> $TAKT_IF_B (KickCAT); results in $OUT"
run_kickcat line "$(net_args main "$DEV")" 0
sdev=${SERVO_DEVICES:-ek1100,el1004,el2004,servo}
spos=$("$TAKT" sim ecat --devices "$sdev" --list | awk '{print $2}' | grep -n -m1 -x servo | cut -d: -f1)
run_kickcat servo "--devices $sdev" "${spos:-0}"
echo "verdict: $((2 - fails)) of 2 KickCAT runs passed; files in $OUT"
[ $fails -eq 0 ]
