# shellcheck shell=bash disable=SC2016 # sh -c programs: expanded by that shell
# One run of the peer benchmark (peer-bench.sh), sourced inside a fresh namespace pair
# (takt netns run: TAKT_IF_A serves the simulated network, TAKT_IF_B the master).
# inner_run ROW NET CYCLE_US WHO RUN WINDOW_S CDC prints one JSON line on stdout; its
# files go to $PEER_SCRATCH/ROW.WHO.RUN.*.
# Needs TAKT, PEER_SCRATCH and, by contender, SOEM_CYCLE, KICKCAT_SIM/KICKCAT_CONFIGS, OPLK_MN,
# TAKT_BASE (WHO base: an older takt binary, run as takt is), FLOOR_CYCLE and
# PLK_FLOOR_CYCLE (WHO floor: the least a cycle costs, floor_cycle.c for EtherCAT,
# plk_floor_cycle.c for POWERLINK, sending takt's cyclic frame (EtherCAT) or PReqs as long
# as takt's (POWERLINK) of the same row);
# PLK_LINK (ring or packet, as peer-bench.sh).

SIM_CPU=0 SIM_PRIO=70 MASTER_CPU=1 MASTER_PRIO=80

ticks() {   # PID: utime + stime of the whole process (every thread), in clock ticks
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'
}

# the master in side B, pinned and prioritised from outside, its pid in $1.pid; for
# openPOWERLINK a private /dev/shm (its queues have fixed names) and its folder as cwd
master_start() {   # BASE CMD...
    local base=$1; shift
    "$TAKT" netns exec b -- unshare -m sh -c \
        'mount -t tmpfs tmpfs /dev/shm && cd "$(dirname "$0")" && echo $$ >"$0.pid" &&
         exec taskset -c '"$MASTER_CPU"' chrt -f '"$MASTER_PRIO"' "$@"' "$base" "$@" \
        </dev/null >"$base.out" 2>&1 &
    MASTER_WRAP=$!
}
stop_pid() {   # PID: SIGINT (the masters stop cleanly), SIGKILL after 5 s
    [ -n "$1" ] || return 0
    kill -INT "$1" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null
}

# the simulated network on CPU 0, its pid in SIM
sim_start() {
    case $NET in
    paper40)
        "$TAKT" sim ecat -a $SIM_CPU -p $SIM_PRIO -i "$TAKT_IF_A" --preset paper-40 >"$base.sim.out" 2>&1 & SIM=$! ;;
    kickcat)
        # 12 slaves of KickCAT's own configurations (its freedom-k64f example slave)
        local cfgs=() _
        for _ in $(seq 12); do cfgs+=("$KICKCAT_CONFIGS/freedom-k64f.json"); done
        (cd "$KICKCAT_CONFIGS" && exec taskset -c $SIM_CPU chrt -f $SIM_PRIO "$KICKCAT_SIM" -i "$TAKT_IF_A" -s "${cfgs[@]}") \
            >"$base.sim.out" 2>&1 & SIM=$! ;;
    k64f)
        # the same 12 devices from the ESI KickCAT's configuration names (sim-12 row)
        local devs _
        devs=$K64F_ESI; for _ in $(seq 11); do devs="$devs,$K64F_ESI"; done
        "$TAKT" sim ecat -a $SIM_CPU -p $SIM_PRIO -i "$TAKT_IF_A" --devices "$devs" >"$base.sim.out" 2>&1 & SIM=$! ;;
    plk3)
        # awake for each SoC (--soc-lead): the first PReq is answered in a round trip, as
        # by a CN in hardware, not after the CNs' thread wakes; the same for every MN
        "$TAKT" plk cn -a $SIM_CPU -p $SIM_PRIO -i "$TAKT_IF_A" --nodes 1,32,110 --soc-lead 60 \
            >"$base.sim.out" 2>&1 & SIM=$! ;;
    esac
}

# The floor's frame: takt's cyclic frame in this row's first takt run, the one of its
# process-data frames (LRD/LWR/LRW) whose length and commands came most often, as the
# simulator received it, in hex from the EtherCAT header on (floor_cycle replays it, so
# the simulator does for it what it did for takt's); without one, a length, 93 bytes
# (paper-40's), for a single LRW.
floor_frame() {
    local cap=$PEER_SCRATCH/$ROW.takt.1.pcapng n len
    read -r n len < <(tshark -r "$cap" -Y 'ecat.cmd == 0x0a || ecat.cmd == 0x0b || ecat.cmd == 0x0c' \
        -T fields -e frame.number -e frame.len -e ecat.cmd 2>/dev/null |
        awk '{ k = $2 " " $3; c[k]++; if (!(k in at)) at[k] = $1 " " $2 }
             END { m = 0; for (k in c) if (c[k] > m) { m = c[k]; r = at[k] } print r }')
    if [ -z "$n" ]; then echo 93; return; fi
    # tshark -x: offset, up to 16 bytes, then the bytes as text (which may look like hex
    # too: the dump is cut at the frame's length), the Ethernet header's 14 bytes dropped
    tshark -r "$cap" -Y "frame.number == $n" -x 2>/dev/null |
        awk '/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { for (i = 2; i <= 17 && $i ~ /^[0-9a-f][0-9a-f]$/; i++) printf "%s", $i }' |
        cut -c1-$((2 * len)) | cut -c29-
}

# plk_floor_cycle's arguments after IFNAME and CYCLE_US: the PRes timeout (the largest
# 0x1F92/node of the row's CDC, ns, in µs) and NODE:SIZE:FRAMELEN per CN, each CN's PReq
# as takt's MN sent it most often in this row's first takt run (its PReqs as the CNs
# received them); a CN without one there gets an empty PReq.
plk_floor_args() {
    python3 - "$CDC" <<'EOF' || return 1
import struct, sys
d = open(sys.argv[1], 'rb').read()
t = [struct.unpack_from('<I', d, at + 7)[0] for node in (1, 32, 110)
     for at in [d.find(struct.pack('<HBI', 0x1F92, node, 4))] if at >= 0]
print(max(t) // 1000 if t else 200)
EOF
    local n
    for n in 1 32 110; do
        tshark -r "$PEER_SCRATCH/$ROW.takt.1.pcapng" -Y "epl.mtyp == 3 && epl.dest == $n" \
            -T fields -e epl.preq.size -e frame.len 2>/dev/null |
            sort | uniq -c | sort -rn | awk -v n=$n 'NR == 1 { s = n ":" $2 ":" $3 } END { print s ? s : n ":0" }'
    done
}

json_err() {   # MESSAGE
    python3 -c 'import json, sys; print(json.dumps(dict(row=sys.argv[1], who=sys.argv[2], run=int(sys.argv[3]), error=sys.argv[4])))' \
        "$ROW" "$WHO" "$RUN" "$1"
}

inner_run() {   # ROW NET CYCLE_US WHO RUN WINDOW_S CDC
    ROW=$1 NET=$2 CYC=$3 WHO=$4 RUN=$5 WIN=$6 CDC=${7:-}
    local pid="" cap t0 t1 k0 k1 ok=0 limit=60 meas=master
    # the simulator row: takt's master against either simulator, whose CPU is measured
    if [ "$NET" = sim12 ]; then
        meas=sim
        case $WHO in kickcat) NET=kickcat ;; *) NET=k64f ;; esac
    fi
    local mw=$WHO   # whose master runs: takt's, in the simulator row
    [ $meas = sim ] && mw=takt
    base=$PEER_SCRATCH/$ROW.$WHO.$RUN SIM=""
    rm -rf "$base" "$base".*; mkdir -p "$base"
    [ "$NET" = plk3 ] || { sim_start; sleep 1; }
    # the capture that counts cycles: what the simulator's end receives, on CPU 0 too
    cap=$base.pcapng
    taskset -c $SIM_CPU dumpcap -q -i "$TAKT_IF_A" -f inbound -w "$cap" 2>"$base.dumpcap.log" &
    local capw=$!
    for _ in $(seq 50); do grep -q 'Capturing on' "$base.dumpcap.log" 2>/dev/null && break; sleep 0.1; done
    # POWERLINK's OP watch: a live tshark on CPU 0, in side B, until every CN's PRes says
    # NMT_CS_OPERATIONAL 0xFD (EPSG DS 301 7.1.3.1: the MN started them)
    local opw=""
    if [ "$NET" = plk3 ]; then
        "$TAKT" netns exec b -- sh -c 'echo $$ >"$0.op.pid"; exec taskset -c '"$SIM_CPU"' tshark -l -n -i "$1" -f inbound \
            -Y "(epl.pres.stat == 0xfd || epl.soa.stat == 0xfd)" -T fields -e epl.src' "$base" "$TAKT_IF_B" \
            >"$base.op.txt" 2>/dev/null &
        opw=$!
    fi
    # PLK_LINK=ring: takt's MN on its ring link, the floor reading from a ring too
    local plk_if=$TAKT_IF_B plk_ring=
    [ "${PLK_LINK:-ring}" = ring ] && { plk_if=ring:$TAKT_IF_B; plk_ring=-r; }
    case $mw:$NET in
    takt:plk3) master_start "$base/m" "$TAKT" plk mn -i "$plk_if" --cdc "$CDC" -a $MASTER_CPU -p $MASTER_PRIO ;;
    oplk:plk3) master_start "$base/m" "$OPLK_MN" -c "$CDC" -d "$TAKT_IF_B" ;;
    base:plk3) master_start "$base/m" "$TAKT_BASE" plk mn -i "$plk_if" --cdc "$CDC" -a $MASTER_CPU -p $MASTER_PRIO ;;
    base:*)    master_start "$base/m" "$TAKT_BASE" ecat run -i "$TAKT_IF_B" -c "$CYC" -a $MASTER_CPU -p $MASTER_PRIO; limit=30 ;;
    takt:*)    master_start "$base/m" "$TAKT" ecat run -i "$TAKT_IF_B" -c "$CYC" -a $MASTER_CPU -p $MASTER_PRIO; limit=30 ;;
    soem:*)    master_start "$base/m" "$SOEM_CYCLE" "$TAKT_IF_B" "$CYC"; limit=30 ;;
    floor:plk3)
        # shellcheck disable=SC2046 # one argument per word
        master_start "$base/m" "$PLK_FLOOR_CYCLE" $plk_ring "$TAKT_IF_B" "$CYC" $(plk_floor_args) ;;
    floor:*)   master_start "$base/m" "$FLOOR_CYCLE" "$TAKT_IF_B" "$CYC" "$(floor_frame)"; limit=30 ;;
    esac
    # the CNs start 3 s after the MN: openPOWERLINK's MN goes to NMT_GS_OFF when it finds
    # CNs while still in PreOp1 (docs/interop.md, scenario cn-early); the same for both MNs
    [ "$NET" = plk3 ] && { sleep 3; sim_start; }
    for _ in $(seq 50); do pid=$(cat "$base/m.pid" 2>/dev/null) && [ -n "$pid" ] && break; sleep 0.1; done
    # OP: the master says so (EtherCAT), or the MN's SoA announces NMT_MS_OPERATIONAL
    # 0xFD (POWERLINK, EPSG DS 301 7.1.3.1; the same for both MNs), then 3 s for the CNs
    for _ in $(seq $((limit * 2))); do
        kill -0 "$pid" 2>/dev/null || break
        case $NET in
        plk3) [ "$(sort -u "$base.op.txt" | grep -c -x '1\|32\|110')" = 3 ] && { ok=1; sleep 1; break; } ;;
        *) grep -q 'slaves in OP\|^OP ' "$base/m.out" && { ok=1; break; } ;;
        esac
        sleep 0.5
    done
    [ -n "$opw" ] && kill "$(cat "$base.op.pid" 2>/dev/null)" 2>/dev/null
    if [ $ok = 1 ] && kill -0 "$pid" 2>/dev/null; then
        sleep 1
        local mpid=$pid
        [ $meas = sim ] && mpid=$SIM
        t0=$(date +%s.%N); k0=$(ticks "$mpid")
        sleep "$WIN"
        k1=$(ticks "$mpid"); t1=$(date +%s.%N)
    fi
    sleep 0.3
    [ -n "$opw" ] && { kill "$(cat "$base.op.pid" 2>/dev/null)" 2>/dev/null; wait $opw 2>/dev/null; }
    kill -INT $capw 2>/dev/null; wait $capw 2>/dev/null
    stop_pid "$pid"; wait "$MASTER_WRAP" 2>/dev/null
    stop_pid "$SIM"; wait "$SIM" 2>/dev/null
    # openPOWERLINK's MN names its way out: a critical error sends it to NMT_GS_OFF
    local off
    off=$(grep -o 'Nmt[A-Za-z0-9]*->NmtGsOff Originating event:[A-Za-z]*' "$base/m.out" | head -1)
    off=${off:+ (the MN left: $off$(grep -q NmtEventNmtCycleError "$base/m.out" && echo ', after an NmtCycleError'))}
    if [ $ok != 1 ]; then
        json_err "no OP within $limit s$off (see $base/m.out)"
        return 1
    fi
    if [ -z "${k0:-}" ] || [ -z "${k1:-}" ]; then json_err "the master ended during the window (see $base/m.out)"; return 1; fi
    local filt cnt
    case $NET in
    plk3) filt='epl.mtyp == 1'; cnt=$(tshark -r "$cap" -Y "frame.time_epoch >= $t0 && frame.time_epoch <= $t1 && $filt" 2>/dev/null | wc -l) ;;
    *) if [ $meas = sim ]; then   # the simulator's work: every EtherCAT frame it received
          cnt=$(tshark -r "$cap" -Y "frame.time_epoch >= $t0 && frame.time_epoch <= $t1 && ecat" 2>/dev/null | wc -l)
       else
          filt='ecat.cmd == 0x0a || ecat.cmd == 0x0b || ecat.cmd == 0x0c'
          cnt=$(tshark -r "$cap" -Y "frame.time_epoch >= $t0 && frame.time_epoch <= $t1 && ($filt)" -T fields -e ecat.cmd -e ecat.lad 2>/dev/null |
              awk '{ n = split($1, c, ","); split($2, a, ","); j = 0   # ecat.lad lists the logical datagrams only
                     for (i = 1; i <= n; i++) if (c[i] ~ /^0x0*(a|b|c)$/) k[c[i] " " a[++j]]++ }
                   END { m = 0; for (x in k) if (k[x] > m) m = k[x]; print m }')
       fi ;;
    esac
    python3 - "$ROW" "$WHO" "$RUN" "$CYC" "$t0" "$t1" "$k0" "$k1" "$(getconf CLK_TCK)" "$cnt" "$base/m.out" "$off" "$meas" <<'EOF'
import json, sys
row, who, run, cyc, t0, t1, k0, k1, hz, cnt, out, off, meas = sys.argv[1:]
win = float(t1) - float(t0)
cpu_us = (int(k1) - int(k0)) * 1e6 / int(hz)
cycles = int(cnt)
tail = [l.strip() for l in open(out, errors='replace') if l.strip()][-3:]
r = dict(row=row, who=who, run=int(run), cycle_us=int(cyc), window_s=round(win, 3), cpu_us=cpu_us,
         cycles_in_capture=cycles, cycles_expected=round(win * 1e6 / int(cyc)),
         cpu_us_per_cycle=round(cpu_us / cycles, 2) if cycles else None, master_tail=tail, measured=meas)
if meas == 'sim':   # the simulator's CPU per frame it served
    r['frames_in_capture'] = r.pop('cycles_in_capture')
    r['cpu_us_per_frame'] = r.pop('cpu_us_per_cycle')
    r['cycles_expected'] = None
if not cycles:
    r['error'] = 'no cycle in the capture' + off + ' (see %s)' % out
print(json.dumps(r))
EOF
}
