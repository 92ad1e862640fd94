#!/bin/bash
# shellcheck disable=SC2016 # the backquotes in a row label are text
# Per-cycle CPU of takt's masters beside their peers, on the same simulated network and
# cycle (docs/performance.md "Peer benchmark"). Rows:
#   ecat-1000   takt sim ecat --preset paper-40, 1000 µs, no DC: takt ecat run vs SOEM
#   ecat-250    the same at 250 µs
#   kickcat     KickCAT's network_simulator (12 slaves), 1000 µs: takt ecat run vs SOEM
#   plk-1000    3 simulated CNs (takt plk cn --nodes 1,32,110 --soc-lead 60: awake for
#               each SoC, so the first PReq is answered in a round trip, as by a CN in
#               hardware, whichever MN sends it), Demo_3CN's CDC with its
#               cycle set to 1000 µs: takt plk mn vs openPOWERLINK's demo_mn_console
#   plk-500     the same at 500 µs
#   sim-12      the simulators: CPU per frame served of KickCAT's network_simulator with 12
#               of its Freedom-K64F example slaves vs takt sim ecat with the same 12 devices
#               from that example's ESI, both under takt ecat run at 1000 µs (the
#               simulator's /proc CPU over the window / the EtherCAT frames it received)
# The SOEM contender is soem_cycle.c here (an absolute-deadline loop against SOEM's API).
# Every row also runs the floor, the least a master pays per cycle on this host and
# link, on a raw socket with nothing else done; the table gives takt's distance to it.
# EtherCAT: floor_cycle.c here, one wake-up, one receive and one send per cycle of
# takt's cyclic frame from the row's first takt run, replayed byte for byte but for
# the index, past the qdisc as takt sends it. POWERLINK: plk_floor_cycle.c here, an MN that boots the CNs with the
# fewest steps they accept, then per cycle wakes once, sends the SoC, each CN's PReq (as
# long as takt's MN sends it in that row) and waits for its PRes (PRes timeout from the
# row's CDC), then sends the SoA that invites nobody.
# Method: every run in a fresh namespace pair (takt netns run); the simulator on CPU 0
# (SCHED_FIFO 70), the master on CPU 1 at SCHED_FIFO 80 (taskset + chrt on the whole
# process, for both contenders alike); once the master reports OP (all CNs Operational),
# 1 s to settle, then the master's CPU from /proc/PID/stat (utime + stime: every thread)
# over the window, divided by the cycles in that window, counted from a capture on the
# simulator's end (dumpcap -f inbound, pinned to CPU 0): EtherCAT, the process-data
# datagrams (LRD/LWR/LRW) at the most frequent logical address; POWERLINK, the SoC
# frames. Every contender is counted the same way. Runs alternate (takt, peer, floor, takt,
# peer, floor, ...); the table gives medians and min-max per contender and the ratio of the
# medians. /proc counts in clock ticks (usually 10 ms): over a 20 s window at 1000 µs
# that is 0.5 µs per cycle.
#
# With --baseline BIN the peer of every row is another takt binary (BIN: an older build),
# run exactly as takt is: the table then shows a change's cost per cycle against the
# build before it, on the same rows, alternated the same way.
#
# usage: peer-bench.sh [--window S] [--runs N] [--rows LIST] [--json FILE] [--baseline BIN]
#   --window S   seconds measured per run (default 20)
#   --runs N     runs per contender and row (default 3)
#   --rows LIST  comma list of the rows above (default all)
#   --json FILE  every run as JSON (default: peer-bench.json in the scratch folder)
#   --baseline BIN  compare with this takt binary instead of SOEM / openPOWERLINK
# Environment (peers are built from fetched sources in PEER_SCRATCH, never in the tree):
#   SOEM_GIT     SOEM repository (clone, bare mirror or URL), exported at SOEM_TAG (v2.0.0),
#                or SOEM_DIR: a SOEM checkout already built in SOEM_DIR/build (as ecat-soem.sh)
#   KICKCAT_GIT  KickCAT repository (KICKCAT_TAG, default HEAD): its network_simulator
#                (or KICKCAT_SIM and KICKCAT_CONFIGS: one already built, and its
#                simulation/slave_configs folder);
#                with ARGPARSE_GIT, p-ranav/argparse (ARGPARSE_TAG, default v3.2), which
#                it needs, and Debian's nlohmann-json3-dev and libtinyxml2-dev installed
#   OPLK_GIT     openPOWERLINK_V2 repository (OPLK_TAG, default V2.7.2), or OPLK_MN: a
#                demo_mn_console already built (as plk-openpowerlink.sh)
#   PEER_SCRATCH scratch folder for sources, builds, logs, captures (default: a new
#                /tmp/takt-peer-bench.*; kept, so a second run reuses the builds)
#   TAKT         takt binary (default: build-interop/takt, then build/takt in the tree)
#   TAKT_FIXTURES  fixture folder holding powerlink-config/Demo_3CN/mnobd.cdc (default:
#                ../shared/fixtures beside the tree, as the tests find it)
#   PLK_LINK     ring (default) or packet: takt's MN (and --baseline's) on -i ring:IF, its
#                fastest link, and the POWERLINK floor reading its PRes from a receive ring
#                too (plk_floor_cycle -r): polling for a PRes then costs no system call;
#                packet: both on plain socket reads
# A row whose peer or takt part cannot run prints "not run: REASON". Needs root.
# Results on stdout; progress on stderr only when stderr is a terminal.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if [ -z "${TAKT:-}" ]; then
    for t in "$src/build-interop/takt" "$src/build/takt"; do [ -x "$t" ] && { TAKT=$t; break; }; done
fi
{ [ -n "${TAKT:-}" ] && [ -x "$TAKT" ]; } || { echo "SKIP: set TAKT to the takt binary" >&2; exit 77; }
export TAKT

if [ "${1:-}" = --inner ]; then
    shift
    # shellcheck source-path=SCRIPTDIR source=peer-run.sh
    . "$here/peer-run.sh"
    inner_run "$@"
    exit $?
fi

WINDOW=20 RUNS=3 ROWS=ecat-1000,ecat-250,kickcat,plk-1000,plk-500,sim-12 JSON= BASE=
while [ $# -gt 0 ]; do
    case $1 in
    --window) WINDOW=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    --baseline) BASE=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "peer-bench.sh: unknown argument '$1' (expected --window S, --runs N, --rows LIST, --json FILE, --baseline BIN)" >&2; exit 2 ;;
    esac
done
case $WINDOW in ''|*[!0-9.]*) echo "peer-bench.sh: --window wants seconds, got '$WINDOW'" >&2; exit 2 ;; esac
if [ -n "$BASE" ]; then
    [ -x "$BASE" ] || { echo "peer-bench.sh: --baseline wants an executable takt binary, got '$BASE'" >&2; exit 2; }
    TAKT_BASE=$(readlink -f "$BASE"); export TAKT_BASE
fi
case ${PLK_LINK:=ring} in packet|ring) ;; *) echo "peer-bench.sh: PLK_LINK wants packet or ring, got '$PLK_LINK'" >&2; exit 2 ;; esac
case $RUNS in ''|*[!0-9]*|0) echo "peer-bench.sh: --runs wants a count >= 1, got '$RUNS'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (raw sockets, SCHED_FIFO, namespaces)" >&2; exit 77; }
for c in dumpcap tshark taskset chrt unshare python3 cc; do
    command -v $c >/dev/null || { echo "SKIP: $c missing" >&2; exit 77; }
done
export PLK_LINK
export PEER_SCRATCH=${PEER_SCRATCH:-$(mktemp -d /tmp/takt-peer-bench.XXXXXX)}
mkdir -p "$PEER_SCRATCH"
JSON=${JSON:-$PEER_SCRATCH/peer-bench.json}
export TAKT_FIXTURES=${TAKT_FIXTURES:-$src/../shared/fixtures}
progress() { if [ -t 2 ]; then echo "--- $*" >&2; fi; }

# shellcheck source-path=SCRIPTDIR source=peer-build.sh
. "$here/peer-build.sh"
declare -A WHY=()   # peer -> "not run: ..." when it cannot run
need_soem() {
    [ -n "${SOEM_CYCLE:-}" ] || [ -n "${WHY[soem]:-}" ] && return
    local d
    if [ -n "${SOEM_DIR:-}" ]; then d=$SOEM_DIR
    elif [ -n "${SOEM_GIT:-}" ]; then
        progress "building SOEM $SOEM_TAG in $PEER_SCRATCH/soem"
        d=$(build_soem "$SOEM_GIT" "$PEER_SCRATCH/soem") || { WHY[soem]=$d; return; }
    else WHY[soem]="not run: SOEM_GIT (or SOEM_DIR) not set"; return; fi
    cc -O2 -o "$PEER_SCRATCH/soem_cycle" "$here/soem_cycle.c" -I"$d/include" -I"$d/build/include" \
        -I"$d/osal" -I"$d/osal/linux" -I"$d/oshw/linux" "$d/build/libsoem.a" -lpthread -lrt \
        2>"$PEER_SCRATCH/soem_cycle.cc.log" || { WHY[soem]="not run: soem_cycle does not build (see $PEER_SCRATCH/soem_cycle.cc.log)"; return; }
    export SOEM_CYCLE=$PEER_SCRATCH/soem_cycle
}
need_floor() {   # FLOOR_CYCLE (EtherCAT) and PLK_FLOOR_CYCLE (POWERLINK)
    [ -n "${FLOOR_CYCLE:-}" ] || [ -n "${WHY[floor]:-}" ] && return
    local f
    for f in floor_cycle plk_floor_cycle; do
        cc -O2 -o "$PEER_SCRATCH/$f" "$here/$f.c" 2>"$PEER_SCRATCH/$f.cc.log" ||
            { WHY[floor]="not run: $f does not build (see $PEER_SCRATCH/$f.cc.log)"; return; }
    done
    export FLOOR_CYCLE=$PEER_SCRATCH/floor_cycle PLK_FLOOR_CYCLE=$PEER_SCRATCH/plk_floor_cycle
}
need_kickcat() {
    [ -n "${K64F_ESI:-}" ] || [ -n "${WHY[kickcat]:-}" ] && return
    local d
    if [ -z "${KICKCAT_SIM:-}" ]; then
        [ -n "${KICKCAT_GIT:-}" ] || { WHY[kickcat]="not run: KICKCAT_GIT (or KICKCAT_SIM) not set"; return; }
        progress "building KickCAT's network_simulator in $PEER_SCRATCH/kickcat"
        d=$(build_kickcat_sim "$KICKCAT_GIT" "$PEER_SCRATCH/kickcat") || { WHY[kickcat]=$d; return; }
        export KICKCAT_SIM=$d/build/simulation/network_simulator KICKCAT_CONFIGS=$d/simulation/slave_configs
    fi
    [ -d "${KICKCAT_CONFIGS:-}" ] || { WHY[kickcat]="not run: KICKCAT_CONFIGS (its simulation/slave_configs) not set"; return; }
    # the ESI beside the EEPROM image its Freedom-K64F configuration names (sim-12's takt side)
    K64F_ESI=$(python3 -c 'import json, os, sys; d = sys.argv[1]
print(os.path.normpath(os.path.join(d, json.load(open(os.path.join(d, "freedom-k64f.json")))["coe_xml"])))' \
        "$KICKCAT_CONFIGS" 2>/dev/null)
    [ -f "$K64F_ESI" ] || { WHY[kickcat]="not run: no Freedom-K64F ESI beside $KICKCAT_CONFIGS/freedom-k64f.json (its coe_xml)"; return; }
    export K64F_ESI
}
need_oplk() {
    [ -n "${OPLK_MN:-}" ] || [ -n "${WHY[oplk]:-}" ] && return
    local d
    [ -n "${OPLK_GIT:-}" ] || { WHY[oplk]="not run: OPLK_GIT (or OPLK_MN) not set"; return; }
    progress "building openPOWERLINK $OPLK_TAG's demo_mn_console in $PEER_SCRATCH/oplk"
    d=$(build_oplk_mn "$OPLK_GIT" "$PEER_SCRATCH/oplk") || { WHY[oplk]=$d; return; }
    export OPLK_MN=$d/bin/linux/x86_64/demo_mn_console/demo_mn_console
}
# Demo_3CN's CDC with every 0x1006/0 (the MN's and each CN's, in their 0x1F22 blocks)
# set to the row's cycle; below its 1000 µs the MN's async slot timeout (0x1F8A/2,
# 500 µs) and PRes timeouts (0x1F92, 200 µs) scaled down with the cycle, as both MNs
# refuse an async slot that does not fit in the cycle. The MN's cycle-exceed threshold
# (0x1C02/3, 40 in Demo_3CN) is set to 0, which turns it off (EPSG DS 301, DLL error
# handling: no threshold counting at 0): openPOWERLINK's MN overruns its cycle on a VM
# while it configures the CNs, and with the threshold on it stops (NMT_GS_OFF) before
# it is measured; off, it keeps cycling, and the table says how many cycles it held.
# takt's MN gets the same CDC. An entry is index u16,
# subindex u8, size u32, value (LE).
cdc_for() {   # CYCLE_US -> path, or "not run: ..."
    local in=$TAKT_FIXTURES/powerlink-config/Demo_3CN/mnobd.cdc out=$PEER_SCRATCH/Demo_3CN-$1us.cdc
    [ -f "$in" ] || { echo "not run: no $in (set TAKT_FIXTURES)"; return 1; }
    python3 - "$in" "$out" "$1" <<'EOF2' || { echo "not run: cannot set the cycle in $in"; return 1; }
import struct, sys
d = open(sys.argv[1], 'rb').read()
cyc = int(sys.argv[3])
def patch(d, idx, sub, value):
    key = struct.pack('<HBI', idx, sub, 4)
    at, n = d.find(key), 0
    while at >= 0:
        d = d[:at + 7] + struct.pack('<I', value(struct.unpack_from('<I', d, at + 7)[0])) + d[at + 11:]
        n += 1
        at = d.find(key, at + 11)
    return d, n
d, n = patch(d, 0x1006, 0, lambda v: cyc)
if n < 1:
    sys.exit(1)
d, _ = patch(d, 0x1C02, 3, lambda v: 0)
if cyc < 1000:
    d, _ = patch(d, 0x1F8A, 2, lambda v: v * cyc // 1000)
    for node in (1, 32, 110):
        d, _ = patch(d, 0x1F92, node, lambda v: v * cyc // 1000)
open(sys.argv[2], 'wb').write(d)
EOF2
    echo "$out"
}

: >"$PEER_SCRATCH/runs.jsonl"
results=()   # "row|label|peer label|status"
for row in ${ROWS//,/ }; do
    case $row in
    ecat-1000) net=paper40; cyc=1000; peer=soem; label='EtherCAT, `takt sim ecat --preset paper-40`, 1000 µs, no DC'; plabel='SOEM v2.0.0, absolute-deadline loop' ;;
    ecat-250)  net=paper40; cyc=250;  peer=soem; label='same, 250 µs'; plabel='SOEM v2.0.0, absolute-deadline loop' ;;
    kickcat)   net=kickcat; cyc=1000; peer=soem; label="EtherCAT, KickCAT's simulator (12 slaves), 1000 µs"; plabel='SOEM v2.0.0' ;;
    plk-1000)  net=plk3;    cyc=1000; peer=oplk; label="POWERLINK MN, 3 simulated CNs (1, 32, 110), Demo_3CN's CDC at 1000 µs"; plabel='openPOWERLINK V2.7.2 demo MN' ;;
    plk-500)   net=plk3;    cyc=500;  peer=oplk; label="same, 500 µs"; plabel='openPOWERLINK V2.7.2 demo MN' ;;
    sim-12)    net=sim12;   cyc=1000; peer=kickcat; label="Simulator CPU per frame: 12 Freedom-K64F slaves (KickCAT's example) under takt ecat run, 1000 µs"; plabel="KickCAT's network_simulator" ;;
    *) echo "peer-bench.sh: unknown row '$row' (expected ecat-1000, ecat-250, kickcat, plk-1000, plk-500, sim-12)" >&2; exit 2 ;;
    esac
    if [ -n "$BASE" ]; then
        [ "$net" = sim12 ] && continue   # --baseline compares masters
        peer=base; plabel="takt baseline ($BASE)"
    fi
    why=
    case $peer in soem) need_soem; why=${WHY[soem]:-} ;; oplk) need_oplk; why=${WHY[oplk]:-} ;; esac
    case $net in kickcat|sim12) need_kickcat; why=${why:-${WHY[kickcat]:-}} ;; esac
    cdc=
    if [ -z "$why" ] && [ "$net" = plk3 ]; then cdc=$(cdc_for $cyc) || why=$cdc; fi
    floor=
    if [ -z "$BASE" ] && [ "$net" != sim12 ]; then need_floor; [ -z "${WHY[floor]:-}" ] && floor=floor; fi
    if [ -z "$why" ]; then
        for i in $(seq "$RUNS"); do
            for who in takt $peer $floor; do
                progress "$row run $i: $who ($WINDOW s window)"
                "$TAKT" netns run -- bash "$0" --inner "$row" "$net" "$cyc" "$who" "$i" "$WINDOW" "$cdc" \
                    >>"$PEER_SCRATCH/runs.jsonl" 2>"$PEER_SCRATCH/$row.$who.$i.err"
            done
        done
    fi
    results+=("$row|$label|$plabel|$why")
done

python3 - "$PEER_SCRATCH/runs.jsonl" "$JSON" "$WINDOW" "$RUNS" "${BASE:+base}" "${results[@]}" <<'EOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
out, window, nruns, base, rows = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
def val(r):   # a master's CPU per cycle, or (sim-12) a simulator's per frame
    return r.get('cpu_us_per_cycle', r.get('cpu_us_per_frame'))
def fig(row, who):
    mine = [r for r in runs if r['row'] == row and r['who'] == who]
    v = [val(r) for r in mine if val(r) is not None]
    bad = [r for r in mine if val(r) is None]
    if not v:
        return None, 'not run: ' + (bad[0].get('error', 'no result') if bad else 'no result')
    s = '%.1f µs (%.1f–%.1f)' % (statistics.median(v), min(v), max(v))
    held = min(r['cycles_in_capture'] / r['cycles_expected'] if r.get('cycles_expected') else 1.0
               for r in mine if val(r) is not None)
    if held < 0.95:
        s += ' [held only %.0f%% of the cycles]' % (100 * held)
    if bad:
        s += ', %d of %d runs failed: %s' % (len(bad), len(bad) + len(v), bad[0].get('error', '?'))
    return statistics.median(v), s
print('Per-cycle CPU of the master (/proc utime+stime over a %s s window after OP, / cycles counted in a capture; '
      'medians and min–max of %s alternated runs each)' % (window, nruns))
print()
print('| network, cycle | takt | peer | takt / peer | floor | takt − floor |')
print('|---|---|---|---|---|---|')
table = []
for spec in rows:
    row, label, plabel, why = spec.split('|', 3)
    peer = base or ('oplk' if row.startswith('plk') else 'kickcat' if row.startswith('sim') else 'soem')
    f, over = '–', '–'
    if why:
        t = p = why
        ratio = '–'
    else:
        tm, t = fig(row, 'takt')
        pm, p = fig(row, peer)
        ratio = '%.2f' % (tm / pm) if tm and pm else '–'
        if any(r['row'] == row and r['who'] == 'floor' for r in runs):
            fm, f = fig(row, 'floor')
            if tm and fm:
                over = '%+.1f µs (%.2f×)' % (tm - fm, tm / fm)
    print('| %s | %s | %s: %s | %s | %s | %s |' % (label, t, plabel, p, ratio, f, over))
    table.append({'row': row, 'network': label, 'takt': t, 'peer': plabel + ': ' + p, 'ratio': ratio,
                  'floor': f, 'takt_over_floor': over, 'not_run': why or None})
json.dump({'window_s': float(window), 'runs_each': int(nruns), 'table': table, 'runs': runs}, open(out, 'w'), indent=1)
if any(spec.startswith('sim-') for spec in rows):
    print()
    print('The simulator row gives the simulator\'s CPU per EtherCAT frame it received, not the master\'s.')
print()
print('every run: %s' % out)
EOF
