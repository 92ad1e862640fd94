#!/bin/bash
# takt's simulated redundant ring driven by an independent redundant master, SOEM
# (docs/interop.md): soem_redundancy (takt's own program against SOEM's library,
# soem_redundancy.c here) opens both ports with ecx_init_redundant, brings a ring of 10
# slaves (`takt sim ecat --redundant --preset 10`) to OP and exchanges process data in
# 1 ms cycles while the simulator breaks the cable into slave K at 5 s and heals it at
# 8 s, for K = 0, 4, 9 and 10 (the cable back to SOEM's second port). SOEM keeps its own
# scheme (a dummy frame on the second port, the first port's reply sent round again
# through the second when the ring is broken); the ring must work for it as it is.
# The simulator's captures of both ports (--pcap: FILE and FILE-2) are judged by tshark
# (SOEM's group source MAC notes counted apart, as in ecat-common.sh).
#
# usage: ecat-soem-redundancy.sh     (needs root: raw sockets)
# Environment:
#   TAKT          takt binary (default: build-interop/takt, then build/takt in the tree)
#   SOEM_DIR      SOEM checkout with its build in SOEM_DIR/build (libsoem.a)
#   ECAT_SIM_PRIO SCHED_FIFO priority of takt sim ecat (default 70; empty: none): SOEM
#                 waits EC_TIMEOUTRET (2 ms) for each trip, its second trip round a
#                 broken ring included, and a simulator held off the CPU misses it
#   OUT           directory for logs and captures (default: a new /tmp/ecat-red.*)
# A run passes when SOEM reaches OP and at most 1 % of its cycles in OP see a working
# counter other than the full one (a second trip that timed out on a loaded host gives
# the first side's count). Exit 0 when every run passed, 1 on a failure, 77 when it
# cannot run here.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if [ -z "${TAKT:-}" ]; then
    for t in "$src/build-interop/takt" "$src/build/takt"; do [ -x "$t" ] && { TAKT=$t; break; }; done
fi
[ -n "${TAKT:-}" ] && [ -x "$TAKT" ] || { echo "SKIP: set TAKT to the takt binary" >&2; exit 77; }
[ -n "${SOEM_DIR:-}" ] && [ -f "$SOEM_DIR/build/libsoem.a" ] ||
    { echo "SKIP: set SOEM_DIR to a SOEM checkout built in SOEM_DIR/build" >&2; exit 77; }
export TAKT SOEM_DIR

if [ -z "${TAKT_IF_A:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (raw sockets)" >&2; exit 77; }
    command -v tshark >/dev/null || { echo "SKIP: tshark missing" >&2; exit 77; }
    export OUT=${OUT:-$(mktemp -d /tmp/ecat-red.XXXXXX)}
    mkdir -p "$OUT"
    cc -O1 -o "$OUT/soem_redundancy" "$here/soem_redundancy.c" -I"$SOEM_DIR/include" \
        -I"$SOEM_DIR/build/include" -I"$SOEM_DIR/osal" -I"$SOEM_DIR/osal/linux" \
        -I"$SOEM_DIR/oshw/linux" "$SOEM_DIR/build/libsoem.a" -lpthread -lrt >"$OUT/cc.log" 2>&1 ||
        { echo "FAIL: soem_redundancy does not build: $(tail -n 5 "$OUT/cc.log")"; exit 1; }
    exec "$TAKT" netns run -- bash "$0"
fi

ECAT_SIM_PRIO=${ECAT_SIM_PRIO-70}
N=10
fails=0
log() { echo "--- $*" >&2; }

# SOEM on side A (two ports), the simulator on side B; the second pair made in B, one
# end moved to A
"$TAKT" netns exec b -- sh -c "ip link add rdB type veth peer name rdA &&
    ip link set rdA netns $TAKT_NETNS_PID_A && ip link set rdB up" ||
    { echo "SKIP: cannot make the second veth pair" >&2; exit 77; }
ip link set rdA up

judge() {   # FILE: malformed frames or expert infos other than SOEM's group source MAC
    local bad
    bad=$(tshark -r "$1" -Y '_ws.malformed || (_ws.expert && !eth.src_not_group)' 2>/dev/null | wc -l)
    echo "$(basename "$1"): $(tshark -r "$1" -Y ecat 2>/dev/null | wc -l) ecat frames, $bad malformed/expert"
    [ "$bad" = 0 ]
}

for k in 0 4 $((N - 1)) $N; do
    tag=break$k
    log "soem_redundancy, ring of $N, break into $k at 5 s, heal at 8 s"
    "$TAKT" netns exec b -- "$TAKT" sim ecat ${ECAT_SIM_PRIO:+-p $ECAT_SIM_PRIO} -i "$TAKT_IF_B" \
        --redundant rdB --preset $N -t 14 --fault "break=$k@5s;heal=$k@8s" \
        --pcap "$OUT/$tag.pcapng" --json "$OUT/$tag.sim.json" >"$OUT/$tag.sim.out" 2>&1 &
    sim=$!
    sleep 0.3
    timeout 60 "$OUT/soem_redundancy" "$TAKT_IF_A" rdA 10000 >"$OUT/$tag.out" 2>&1
    wait $sim
    line=$(tail -n 1 "$OUT/$tag.out")
    v1=$(judge "$OUT/$tag.pcapng") && v2=$(judge "$OUT/$tag-2.pcapng") && okcap=1 || okcap=0
    read -r inop bad <<<"$(echo "$line" | sed -n 's/.* \([0-9]*\) cycles in OP, \([0-9]*\) with a WKC.*/\1 \2/p')"
    if [ -n "${inop:-}" ] && [ "$inop" -gt 5000 ] && [ $((bad * 100)) -le "$inop" ] && [ $okcap = 1 ]; then
        echo "PASS break into $k: $line; $v1; ${v2:-}"
    else
        echo "FAIL break into $k: $line; ${v1:-}; ${v2:-}"
        fails=$((fails + 1))
    fi
done
echo "logs and captures in $OUT"
[ $fails = 0 ]
