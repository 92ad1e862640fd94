# takt link echo and takt link bench end to end across a veth pair, JSON checked.
. "${TAKT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/net/lib.sh"

# The real-time set-up asked for (-a 0 -p 80): as real root everything is granted and
# nothing is said; as nobody (a user namespace grants no capability on the host) each
# missing privilege gives exactly one warning naming the capability and limit, and the
# run goes on (the checks above passed).
rt_warnings() {
    local err=$1 json=$2
    net_json_check "$json" "j['rt']['affinity_ok']" "CPU 0 affinity"
    if [ "${TAKT_NET_OUTER_UID:-}" = 0 ]; then
        ! grep -q "warning:" "$err" || net_fail "as root the set-up warned: $(cat "$err")"
        net_json_check "$json" "j['rt']['fifo_ok'] and j['rt']['mlock_ok'] and j['rt']['dma_latency_ok']" \
            "as root SCHED_FIFO, mlockall and /dev/cpu_dma_latency granted"
        return
    fi
    [ "${TAKT_NET_OUTER_UID:-}" = 65534 ] || return 0
    [ "$(grep -c "warning: SCHED_FIFO priority 80 refused: needs CAP_SYS_NICE or RLIMIT_RTPRIO" "$err")" = 1 ] ||
        net_fail "one SCHED_FIFO warning naming CAP_SYS_NICE/RLIMIT_RTPRIO expected: $(cat "$err")"
    net_json_check "$json" "not j['rt']['fifo_ok']" "SCHED_FIFO refused to nobody"
    if ! python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["rt"]["mlock_ok"] else 1)' "$json"; then
        [ "$(grep -c "warning: mlockall .*CAP_IPC_LOCK.*RLIMIT_MEMLOCK" "$err")" = 1 ] ||
            net_fail "one mlockall warning naming CAP_IPC_LOCK/RLIMIT_MEMLOCK expected: $(cat "$err")"
    fi
    if [ ! -w /dev/cpu_dma_latency ]; then
        [ "$(grep -c "warning: cannot hold /dev/cpu_dma_latency" "$err")" = 1 ] ||
            net_fail "one /dev/cpu_dma_latency warning expected: $(cat "$err")"
    fi
    local n
    n=$(grep -c "warning:" "$err")
    net_json_check "$json" "j['rt']['warnings'] == $n" "every warning counted once in the JSON"
}

body() {
    local e=$NET_TMP/echo b=$NET_TMP/bench
    on_b_bg "$TAKT" link echo -i "$TAKT_IF_B" -t 20 --json "$e.json" >"$e.txt" 2>"$e.err"
    local pid=$!
    net_wait_for "$e.err" "answering on"
    "$TAKT" link bench -i "$TAKT_IF_A" -c 1000 -t 2 -a 0 -p 80 --perf=1 --json "$b.json" --pcap "$b.pcapng" \
        >"$b.txt" 2>"$b.err" || net_fail "takt link bench failed: $(cat "$b.err")"
    kill -TERM $pid
    wait $pid || net_fail "takt link echo failed: $(cat "$e.err")"

    grep -q "^PerfMsmt 'Round Trip' (min/avg/max) \[usec\]: " "$b.txt" || net_fail "no Round Trip PerfMsmt line: $(cat "$b.txt")"
    grep -q "^PerfMsmt 'Wake Deviation'" "$b.txt" || net_fail "no Wake Deviation line"
    grep -q "^PerfMsmt 'CPU Time'" "$b.txt" || net_fail "no CPU Time line"
    [ "$(grep -c "^PerfMsmt 'Cycle Time'" "$b.txt")" -ge 2 ] || net_fail "no interval report (--perf=1)"
    net_json_check "$b.json" "j['cycle_ns'] == 1000000" "cycle in JSON"
    net_json_check "$b.json" "1000 < j['frames']['sent'] <= 2100" "about 2000 frames sent in 2 s"
    # a reply counts as answered only within its cycle, so how many do depends on how
    # quiet the host is; that the echo saw and answered nearly every frame does not
    net_json_check "$b.json" "j['frames']['answered'] > 0" "frames answered"
    net_json_check "$e.json" "j['answered'] >= 0.9 * $(net_json "$b.json" "j['frames']['sent']")" "the echo answered most frames"
    net_json_check "$b.json" "j['frames']['sent'] == j['frames']['answered'] + j['frames']['lost']" "every frame accounted"
    net_json_check "$b.json" "j['perf']['Round Trip']['count'] == j['frames']['answered']" "one RTT per answer"
    net_json_check "$b.json" "0 < j['perf']['Round Trip']['min_ns'] <= j['perf']['Round Trip']['p50_ns'] <= j['perf']['Round Trip']['max_ns'] + 1000" "RTT ordered"
    net_json_check "$b.json" "j['perf']['Wake Deviation']['count'] == j['cycles']" "wake deviation every cycle"
    net_json_check "$b.json" "j['perf']['CPU Time']['count'] > 0" "CPU time per cycle"
    net_json_check "$e.json" "j['answered'] >= $(net_json "$b.json" "j['frames']['answered']")" "echo answered them"
    rt_warnings "$b.err" "$b.json"
    net_check_capture "$b.pcapng"
    if command -v tshark >/dev/null; then
        local n
        n=$(tshark -r "$b.pcapng" 2>/dev/null | wc -l)
        [ "$n" -ge "$(net_json "$b.json" "j['frames']['sent'] + j['frames']['answered']")" ] ||
            net_fail "capture holds $n frames, fewer than sent + answered"
    fi
    echo "ok: link echo/bench end to end: $(tail -1 "$b.txt")"
}

net_main body
