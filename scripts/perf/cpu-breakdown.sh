#!/bin/bash
# Where the master's CPU goes in one EtherCAT cycle: `takt ecat run` against
# `takt sim ecat --preset paper-40` across a veth pair between two network namespaces
# (simulator on CPU 0, master on CPU 1 at SCHED_FIFO 80), sampled with `perf record`
# over a window after OP; each sample's call chain is walked from the leaf up and the
# sample goes to the first step of the cycle it names (docs/performance.md lists the
# steps and the symbols of each). The µs per cycle come from the master's utime + stime
# in /proc/PID/stat over the same window, divided by the cycles in it; the shares from
# the samples (inlined functions resolved from the debug info: perf script --inline). Needs root (namespaces, SCHED_FIFO, perf on another process) and perf.
#
# With -m plk the same for the POWERLINK MN: `takt plk mn` against `takt plk cn` simulating
# Demo_3CN's nodes 1, 32 and 110 (CNs on CPU 0, MN on CPU 1 at SCHED_FIFO 80), the window
# 2 s after every CN is Operational, the steps those of a PReq/PRes cycle.
#
#   scripts/perf/cpu-breakdown.sh [-m ecat|plk] [-b BUILD_DIR] [-l LINK_PREFIX] [-c CYCLE_US] [-w WINDOW_S]
#   e.g. -l ring: to run the master on the ring link (default: the packet link)
set -eu
BUILD=build LINK="" CYCLE=1000 WINDOW=10 MODE=ecat
while getopts "m:b:l:c:w:" o; do
    case $o in
        m) MODE=$OPTARG ;; b) BUILD=$OPTARG ;; l) LINK=$OPTARG ;; c) CYCLE=$OPTARG ;; w) WINDOW=$OPTARG ;;
        *) echo "usage: $0 [-m ecat|plk] [-b BUILD_DIR] [-l LINK_PREFIX] [-c CYCLE_US] [-w WINDOW_S]" >&2; exit 2 ;;
    esac
done
case $MODE in ecat|plk) ;; *) echo "cpu-breakdown: -m expects ecat or plk, got '$MODE'" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
TAKT=${TAKT:-$(readlink -f "$BUILD/takt")}
[ -x "$TAKT" ] || { echo "cpu-breakdown: no takt binary at $TAKT (-b BUILD_DIR)" >&2; exit 2; }
command -v perf >/dev/null || { echo "cpu-breakdown: perf is not installed" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "cpu-breakdown: run as root (namespaces, SCHED_FIFO, perf -p)" >&2; exit 2; }

if [ -z "${TAKT_IF_A:-}" ]; then   # outside: make the namespace pair and run inside it
    export TAKT BUILD LINK CYCLE WINDOW
    exec "$TAKT" netns run -- bash "$HERE/$(basename "$0")" -m "$MODE" -b "$BUILD" -l "$LINK" -c "$CYCLE" -w "$WINDOW"
fi

TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
RUN_S=$((WINDOW + 25))
if [ "$MODE" = ecat ]; then
    "$TAKT" netns exec b -- "$TAKT" sim ecat -i "$TAKT_IF_B" --preset paper-40 -a 0 -t $((RUN_S + 10)) \
        >"$TMP/sim.out" 2>&1 &
    sleep 0.5
    "$TAKT" ecat run -i "$LINK$TAKT_IF_A" -c "$CYCLE" -t "$RUN_S" -a 1 -p 80 >"$TMP/run.out" 2>&1 &
    MASTER=$! READY="slaves in OP after" NREADY=1
else
    "$TAKT" netns exec b -- "$TAKT" plk cn -i "$TAKT_IF_B" --nodes 1,32,110 -a 0 -t $((RUN_S + 40)) \
        >"$TMP/sim.out" 2>&1 &
    sleep 0.5
    # no reset for lost PRes (tests/net/lib.sh says why): a loaded host loses some
    "$TAKT" plk mn -i "$LINK$TAKT_IF_A" --nodes 1,32,110 -c "$CYCLE" -t $((RUN_S + 30)) -a 1 -p 80 \
        --loss-threshold 0 >"$TMP/run.out" 2>&1 &
    MASTER=$! READY=" OPERATIONAL" NREADY=3
fi
# the window starts 2 s after every node is up (the run says so at once)
up() { [ "$(grep -c -- "$READY" "$TMP/run.out" 2>/dev/null)" -ge "$NREADY" ]; }
for i in $(seq 1800); do
    up && break
    kill -0 $MASTER 2>/dev/null || break
    [ "$i" = 1800 ] && { echo "cpu-breakdown: not up within 90 s:" >&2; tail "$TMP/run.out" >&2; exit 1; }
    sleep 0.05
done
up || { echo "cpu-breakdown: the master ended before the network was up:" >&2; tail "$TMP/run.out" >&2; exit 1; }
sleep 2
ticks() { awk '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$MASTER/stat"; }
HZ=$(getconf CLK_TCK)
T0=$(date +%s%N); C0=$(ticks)
perf record -q -F 2999 --call-graph dwarf,8192 -p "$MASTER" -o "$TMP/perf.data" -- sleep "$WINDOW" \
    >/dev/null 2>"$TMP/perf.err" || { cat "$TMP/perf.err" >&2; exit 1; }
T1=$(date +%s%N); C1=$(ticks)
if [ "$MODE" = plk ]; then   # the MN's -t is generous: end it now
    kill -INT $MASTER
    wait $MASTER || echo "cpu-breakdown: note: takt plk mn exited $? (a CN not Operational at the end)" >&2
else
    wait $MASTER || { echo "cpu-breakdown: the master failed:" >&2; tail "$TMP/run.out" >&2; exit 1; }
fi
perf script -i "$TMP/perf.data" -F comm,tid,ip,sym --inline 2>/dev/null >"$TMP/perf.txt"
[ -n "${KEEP:-}" ] && cp "$TMP/perf.data" "$TMP/perf.txt" "$KEEP"/
python3 "$HERE/cpu-breakdown.py" "$MODE" "$TMP/perf.txt" "$(( (C1 - C0) * 1000000000 / HZ ))" \
    "$(( T1 - T0 ))" "$((CYCLE * 1000))" "${LINK:-packet:}"
echo "master: $(grep -E 'CPU per cycle|CPU \[usec/cycle\]|frames:' "$TMP/run.out" | sed 's/^ *//' | tr '\n' ' ')"
