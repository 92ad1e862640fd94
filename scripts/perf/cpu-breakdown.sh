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
#   scripts/perf/cpu-breakdown.sh [-b BUILD_DIR] [-l LINK_PREFIX] [-c CYCLE_US] [-w WINDOW_S]
#   e.g. -l ring: to run the master on the ring link (default: the packet link)
set -eu
BUILD=build LINK="" CYCLE=1000 WINDOW=10
while getopts "b:l:c:w:" o; do
    case $o in
        b) BUILD=$OPTARG ;; l) LINK=$OPTARG ;; c) CYCLE=$OPTARG ;; w) WINDOW=$OPTARG ;;
        *) echo "usage: $0 [-b BUILD_DIR] [-l LINK_PREFIX] [-c CYCLE_US] [-w WINDOW_S]" >&2; exit 2 ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
TAKT=${TAKT:-$(readlink -f "$BUILD/takt")}
[ -x "$TAKT" ] || { echo "cpu-breakdown: no takt binary at $TAKT (-b BUILD_DIR)" >&2; exit 2; }
command -v perf >/dev/null || { echo "cpu-breakdown: perf is not installed" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "cpu-breakdown: run as root (namespaces, SCHED_FIFO, perf -p)" >&2; exit 2; }

if [ -z "${TAKT_IF_A:-}" ]; then   # outside: make the namespace pair and run inside it
    export TAKT BUILD LINK CYCLE WINDOW
    exec "$TAKT" netns run -- bash "$HERE/$(basename "$0")" -b "$BUILD" -l "$LINK" -c "$CYCLE" -w "$WINDOW"
fi

TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
RUN_S=$((WINDOW + 25))
"$TAKT" netns exec b -- "$TAKT" sim ecat -i "$TAKT_IF_B" --preset paper-40 -a 0 -t $((RUN_S + 10)) \
    >"$TMP/sim.out" 2>&1 &
sleep 0.5
"$TAKT" ecat run -i "$LINK$TAKT_IF_A" -c "$CYCLE" -t "$RUN_S" -a 1 -p 80 >"$TMP/run.out" 2>&1 &
MASTER=$!
# the window starts 2 s after every slave is in OP (the run prints that line at once)
for i in $(seq 1200); do
    grep -q "slaves in OP after" "$TMP/run.out" 2>/dev/null && break
    kill -0 $MASTER 2>/dev/null || break
    [ "$i" = 1200 ] && { echo "cpu-breakdown: no OP within 60 s:" >&2; tail "$TMP/run.out" >&2; exit 1; }
    sleep 0.05
done
grep -q "slaves in OP after" "$TMP/run.out" ||
    { echo "cpu-breakdown: takt ecat run ended before OP:" >&2; tail "$TMP/run.out" >&2; exit 1; }
sleep 2
ticks() { awk '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$MASTER/stat"; }
HZ=$(getconf CLK_TCK)
T0=$(date +%s%N); C0=$(ticks)
perf record -q -F 2999 --call-graph dwarf,8192 -p "$MASTER" -o "$TMP/perf.data" -- sleep "$WINDOW" \
    >/dev/null 2>"$TMP/perf.err" || { cat "$TMP/perf.err" >&2; exit 1; }
T1=$(date +%s%N); C1=$(ticks)
wait $MASTER || { echo "cpu-breakdown: takt ecat run failed:" >&2; tail "$TMP/run.out" >&2; exit 1; }
perf script -i "$TMP/perf.data" -F comm,tid,ip,sym --inline 2>/dev/null >"$TMP/perf.txt"
[ -n "${KEEP:-}" ] && cp "$TMP/perf.data" "$TMP/perf.txt" "$KEEP"/
python3 "$HERE/cpu-breakdown.py" "$TMP/perf.txt" "$(( (C1 - C0) * 1000000000 / HZ ))" \
    "$(( T1 - T0 ))" "$((CYCLE * 1000))" "${LINK:-packet:}"
echo "master: $(grep -E 'CPU per cycle|frames:' "$TMP/run.out" | sed 's/^ *//' | tr '\n' ' ')"
