#!/bin/bash
# Instructions per POWERLINK MN cycle, counted by callgrind instead of timed, so two
# builds compare exactly on a busy or virtual host (docs/performance.md "Instructions
# per cycle"). scripts/perf/mn_count.c runs the MN with 3 simulated CNs (1, 32, 110)
# answering synchronously on an in-process mem link; from the first cycle with every CN
# Operational, callgrind's counters are dumped once per cycle; the median, min and max
# over the cycles are printed. Beside it the MN's system calls per cycle on that link,
# from `strace -f -c` of two native runs that differ only in the cycles run (the
# difference over the extra cycles; the mem link itself makes none, so these are the
# driver's own: the SoC sleep and any clock that is not in the vDSO).
#
# usage: scripts/perf/cycle-count.sh [-b BUILD_DIR] [-n CYCLES] [-c CYCLE_US] [-j FILE]
#                                    [--baseline REV]
#   -b BUILD_DIR   the build of this tree holding libtakt.a (default build)
#   -n CYCLES      cycles counted (default 200)
#   -c CYCLE_US    the MN's cycle under callgrind (default 10000: long enough that the
#                  slowed-down cycle never overruns; the count does not depend on it)
#   -j FILE        also write the figures as JSON
#   --baseline REV also measure git revision REV of this repository, built in a scratch
#                  folder (its static library only), and print the difference
# Needs valgrind and the valgrind headers; strace for the system calls (skipped without).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=build N=200 CYCLE=10000 JSON="" BASE=""
while [ $# -gt 0 ]; do
    case $1 in
    -b) BUILD=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    -c) CYCLE=$2; shift 2 ;;
    -j) JSON=$2; shift 2 ;;
    --baseline) BASE=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "cycle-count: unknown argument '$1' (expected -b BUILD_DIR, -n CYCLES, -c CYCLE_US, -j FILE, --baseline REV)" >&2; exit 2 ;;
    esac
done
case $N in ''|*[!0-9]*|0) echo "cycle-count: -n wants a number of cycles, got '$N'" >&2; exit 2 ;; esac
case $CYCLE in ''|*[!0-9]*) echo "cycle-count: -c wants microseconds, got '$CYCLE'" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "cycle-count: valgrind is not installed" >&2; exit 2; }
[ -f /usr/include/valgrind/callgrind.h ] || { echo "cycle-count: valgrind/callgrind.h is missing (valgrind's development headers)" >&2; exit 2; }
BUILD=$(cd "$SRC" && readlink -f "$BUILD")
[ -f "$BUILD/libtakt.a" ] || { echo "cycle-count: no libtakt.a in $BUILD (-b BUILD_DIR; build the tree first)" >&2; exit 2; }

TMP=$(mktemp -d /tmp/takt-cycle-count.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
LIBS=$(pkg-config --libs libpcap json-c libxml-2.0)

# build_harness TREE LIBDIR OUT: mn_count.c against that tree's headers and library
build_harness() {
    # shellcheck disable=SC2086 # LIBS is a list of flags
    cc -O2 -g -I"$1/include" -I"$1/src" "$HERE/mn_count.c" "$2/libtakt.a" -o "$3" $LIBS -lpthread -lm
}

# count BIN LABEL: prints "median min max cycles syscalls_per_cycle"
count() {
    local d="$TMP/cg.$2"
    mkdir -p "$d"
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$d/out" \
        "$1" -c "$CYCLE" -n "$N" >"$d/run.log" 2>&1 ||
        { echo "cycle-count: $2: the counted run failed:" >&2; tail -5 "$d/run.log" >&2; exit 1; }
    local st
    st=$(for f in "$d"/out.*; do sed -n 's/^totals: //p' "$f"; done | sort -n |
         awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)], a[1], a[NR], NR}')
    local sc=null
    if command -v strace >/dev/null; then
        local lo=200 hi=4200 a b
        a=$(strace -f -c -o "$d/s1" "$1" -c 1000 -n $lo >/dev/null 2>&1 && awk '$NF=="total"{print $(NF-2)}' "$d/s1")
        b=$(strace -f -c -o "$d/s2" "$1" -c 1000 -n $hi >/dev/null 2>&1 && awk '$NF=="total"{print $(NF-2)}' "$d/s2")
        [ -n "$a" ] && [ -n "$b" ] && sc=$(awk -v a="$a" -v b="$b" -v n=$((hi - lo)) 'BEGIN{printf "%.2f", (b - a) / n}')
    fi
    echo "$st $sc"
}

build_harness "$SRC" "$BUILD" "$TMP/mn_count.now"
read -r med min max cyc sc < <(count "$TMP/mn_count.now" now)
printf 'plk mn, 3 CNs: %s instructions per cycle (median of %s cycles; min %s, max %s); %s system calls per cycle\n' \
    "$med" "$cyc" "$min" "$max" "$sc"
bmed="" bmin="" bmax="" bcyc="" bsc=""
if [ -n "$BASE" ]; then
    rev=$(git -C "$SRC" rev-parse --short "$BASE^{commit}") ||
        { echo "cycle-count: --baseline wants a revision of this repository, got '$BASE'" >&2; exit 2; }
    mkdir -p "$TMP/base"
    git -C "$SRC" archive "$rev" | tar -x -C "$TMP/base"
    cmake -S "$TMP/base" -B "$TMP/base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$TMP/base.log" 2>&1 &&
        cmake --build "$TMP/base/build" --target takt_static -j2 >>"$TMP/base.log" 2>&1 ||
        { echo "cycle-count: $rev does not build:" >&2; tail -5 "$TMP/base.log" >&2; exit 1; }
    build_harness "$TMP/base" "$TMP/base/build" "$TMP/mn_count.base"
    read -r bmed bmin bmax bcyc bsc < <(count "$TMP/mn_count.base" base)
    printf 'plk mn, 3 CNs, at %s: %s instructions per cycle (median of %s cycles; min %s, max %s); %s system calls per cycle\n' \
        "$rev" "$bmed" "$bcyc" "$bmin" "$bmax" "$bsc"
    awk -v a="$med" -v b="$bmed" 'BEGIN{printf "difference: %+d instructions per cycle (%+.1f %%)\n", a - b, 100 * (a - b) / b}'
fi
if [ -n "$JSON" ]; then
    {
        printf '{"method": "callgrind Ir per MN cycle, mem link, synchronous CNs", "cycle_us": %s, "cns": [1, 32, 110],\n' "$CYCLE"
        printf ' "now": {"ir_median": %s, "ir_min": %s, "ir_max": %s, "cycles": %s, "syscalls_per_cycle": %s}' \
            "$med" "$min" "$max" "$cyc" "$sc"
        [ -n "$BASE" ] && printf ',\n "baseline": {"rev": "%s", "ir_median": %s, "ir_min": %s, "ir_max": %s, "cycles": %s, "syscalls_per_cycle": %s}' \
            "$rev" "$bmed" "$bmin" "$bmax" "$bcyc" "$bsc"
        printf '}\n'
    } >"$JSON"
fi
