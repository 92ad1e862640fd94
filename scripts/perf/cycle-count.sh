#!/bin/bash
# Instructions per cycle of the POWERLINK MN and of the EtherCAT master, counted by
# callgrind instead of timed, so two builds compare exactly on a busy or virtual host
# (docs/performance.md "Instructions per cycle"). Each stack runs in-process on a mem
# link whose far end answers inside the sender's call, so every cycle takes the same
# path: scripts/perf/mn_count.c, the MN with 3 simulated CNs (1, 32, 110);
# scripts/perf/ecat_count.c, the master with `--preset paper-40`'s 40 simulated slaves,
# no DC. From the first cycle in Operational / OP, callgrind's counters are dumped once
# per cycle (the simulated devices' work left out); the median, min and max over the
# cycles are printed. Beside it the system calls per cycle on that link, from
# `strace -f -c` of two native runs that differ only in the cycles run (the difference
# over the extra 4000 cycles; the mem link makes none, so these are the stack's own).
#
# usage: scripts/perf/cycle-count.sh [-m plk|ecat|both] [-b BUILD_DIR] [-n CYCLES]
#                                    [-c CYCLE_US] [-j FILE] [--baseline REV]
#   -m STACK       plk, ecat or both (default both)
#   -b BUILD_DIR   the build of this tree holding libtakt.a (default build)
#   -n CYCLES      cycles counted (default 200)
#   -c CYCLE_US    the cycle under callgrind (default 10000: long enough that the
#                  slowed-down cycle never overruns; the count does not depend on it)
#   -j FILE        also write the figures as JSON
#   --baseline REV also measure git revision REV of this repository, built in a scratch
#                  folder (its static library only), and print the difference
# Needs valgrind and the valgrind headers; strace for the system calls (null without).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=build N=200 CYCLE=10000 JSON="" BASE="" MODE=both
while [ $# -gt 0 ]; do
    case $1 in
    -m) MODE=$2; shift 2 ;;
    -b) BUILD=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    -c) CYCLE=$2; shift 2 ;;
    -j) JSON=$2; shift 2 ;;
    --baseline) BASE=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "cycle-count: unknown argument '$1' (expected -m STACK, -b BUILD_DIR, -n CYCLES, -c CYCLE_US, -j FILE, --baseline REV)" >&2; exit 2 ;;
    esac
done
case $MODE in plk|ecat|both) ;; *) echo "cycle-count: -m wants plk, ecat or both, got '$MODE'" >&2; exit 2 ;; esac
case $N in ''|*[!0-9]*|0) echo "cycle-count: -n wants a number of cycles, got '$N'" >&2; exit 2 ;; esac
case $CYCLE in ''|*[!0-9]*) echo "cycle-count: -c wants microseconds, got '$CYCLE'" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "cycle-count: valgrind is not installed" >&2; exit 2; }
[ -f /usr/include/valgrind/callgrind.h ] || { echo "cycle-count: valgrind/callgrind.h is missing (valgrind's development headers)" >&2; exit 2; }
BUILD=$(cd "$SRC" && readlink -f "$BUILD")
[ -f "$BUILD/libtakt.a" ] || { echo "cycle-count: no libtakt.a in $BUILD (-b BUILD_DIR; build the tree first)" >&2; exit 2; }

TMP=$(mktemp -d /tmp/takt-cycle-count.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
LIBS=$(pkg-config --libs libpcap json-c libxml-2.0)
# a build with the AF_XDP link (TAKT_XDP, where libxdp and libbpf are found) needs them too
if pkg-config --exists libxdp libbpf; then LIBS="$LIBS $(pkg-config --libs libxdp libbpf)"; fi

# build_harness NAME TREE LIBDIR OUT: NAME.c against that tree's headers and library
build_harness() {
    # shellcheck disable=SC2086 # LIBS is a list of flags
    cc -O2 -g -I"$2/include" -I"$2/src" "$HERE/$1.c" "$3/libtakt.a" -o "$4" $LIBS -lpthread -lm
}

# count BIN LABEL [VALGRIND_ARGS...]: prints "median min max cycles syscalls_per_cycle"
count() {
    local bin=$1 label=$2 d="$TMP/cg.$2"
    shift 2
    mkdir -p "$d"
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$d/out" "$@" \
        "$bin" -c "$CYCLE" -n "$N" >"$d/run.log" 2>&1 ||
        { echo "cycle-count: $label: the counted run failed:" >&2; tail -5 "$d/run.log" >&2; return 1; }
    local st
    st=$(for f in "$d"/out.*; do sed -n 's/^totals: //p' "$f"; done | sort -n |
         awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)], a[1], a[NR], NR}')
    local sc=null
    if command -v strace >/dev/null; then
        local lo=200 hi=4200 a b
        a=$(strace -f -c -o "$d/s1" "$bin" -c 1000 -n $lo >/dev/null 2>&1 && awk '$NF=="total"{print $(NF-2)}' "$d/s1")
        b=$(strace -f -c -o "$d/s2" "$bin" -c 1000 -n $hi >/dev/null 2>&1 && awk '$NF=="total"{print $(NF-2)}' "$d/s2")
        [ -n "$a" ] && [ -n "$b" ] && sc=$(awk -v a="$a" -v b="$b" -v n=$((hi - lo)) 'BEGIN{printf "%.2f", (b - a) / n}')
    fi
    echo "$st $sc"
}

# measure TREE LIBDIR TAG: both harnesses of one build; sets R_<stack>_<TAG> to
# "median min max cycles syscalls" and prints a line each
measure() {
    local stack what vg
    for stack in plk ecat; do
        [ "$MODE" = both ] || [ "$MODE" = "$stack" ] || continue
        if [ $stack = plk ]; then what="plk mn, 3 CNs"; vg=(); else what="ecat master, paper-40"; vg=(--toggle-collect=takt_sim_process); fi
        local res=""
        if build_harness ${stack/plk/mn}_count "$1" "$2" "$TMP/$stack.$3" 2>"$TMP/cc.$stack.$3"; then
            res=$(count "$TMP/$stack.$3" "$stack.$3" "${vg[@]}") || res=""
        else
            echo "cycle-count: $what at $3: the harness does not build against that tree:" >&2
            tail -3 "$TMP/cc.$stack.$3" >&2
        fi
        printf -v "R_${stack}_$3" '%s' "$res"
        if [ -n "$res" ]; then
            local f
            read -r -a f <<<"$res"
            printf '%s (%s): %s instructions per cycle (median of %s cycles; min %s, max %s); %s system calls per cycle\n' \
                "$what" "$3" "${f[0]}" "${f[3]}" "${f[1]}" "${f[2]}" "${f[4]}"
        else
            printf '%s (%s): not run\n' "$what" "$3"
        fi
    done
}

measure "$SRC" "$BUILD" now
if [ -n "$BASE" ]; then
    rev=$(git -C "$SRC" rev-parse --short "$BASE^{commit}") ||
        { echo "cycle-count: --baseline wants a revision of this repository, got '$BASE'" >&2; exit 2; }
    mkdir -p "$TMP/base"
    git -C "$SRC" archive "$rev" | tar -x -C "$TMP/base"
    if ! { cmake -S "$TMP/base" -B "$TMP/base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$TMP/base.log" 2>&1 &&
           cmake --build "$TMP/base/build" --target takt_static -j2 >>"$TMP/base.log" 2>&1; }; then
        echo "cycle-count: $rev does not build:" >&2
        tail -5 "$TMP/base.log" >&2
        exit 1
    fi
    measure "$TMP/base" "$TMP/base/build" base
    for stack in plk ecat; do
        now_v="R_${stack}_now" base_v="R_${stack}_base"
        if [ -z "${!now_v:-}" ] || [ -z "${!base_v:-}" ]; then continue; fi
        awk -v s=$stack -v r="$rev" -v a="${!now_v%% *}" -v b="${!base_v%% *}" \
            'BEGIN{printf "%s: %+d instructions per cycle against %s (%+.1f %%)\n", s, a - b, r, 100 * (a - b) / b}'
    done
fi
if [ -n "$JSON" ]; then
    # obj TAG STACK: one stack's figures of one build, or null
    obj() {
        local v="R_$2_$1"
        [ -n "${!v:-}" ] || { printf 'null'; return; }
        local f
        read -r -a f <<<"${!v}"
        printf '{"ir_median": %s, "ir_min": %s, "ir_max": %s, "cycles": %s, "syscalls_per_cycle": %s}' \
            "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]}"
    }
    {
        printf '{"method": "callgrind Ir per cycle of the stack thread, mem link, devices answering in the send call",\n'
        printf ' "cycle_us": %s, "plk": "MN, CNs 1, 32, 110", "ecat": "master, takt sim ecat --preset paper-40, no DC",\n' "$CYCLE"
        printf ' "now": {"plk": %s, "ecat": %s}' "$(obj now plk)" "$(obj now ecat)"
        [ -n "$BASE" ] && printf ',\n "baseline": {"rev": "%s", "plk": %s, "ecat": %s}' "$rev" "$(obj base plk)" "$(obj base ecat)"
        printf '}\n'
    } >"$JSON"
fi
