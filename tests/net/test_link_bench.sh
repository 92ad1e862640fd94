# takt link echo and takt link bench end to end across a veth pair, JSON checked.
. "${TAKT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/net/lib.sh"

body() {
    local e=$NET_TMP/echo b=$NET_TMP/bench
    on_b_bg "$TAKT" link echo -i "$TAKT_IF_B" -t 20 --json "$e.json" >"$e.txt" 2>"$e.err"
    local pid=$!
    net_wait_for "$e.err" "answering on"
    "$TAKT" link bench -i "$TAKT_IF_A" -c 1000 -t 2 --perf=1 --json "$b.json" --pcap "$b.pcapng" \
        >"$b.txt" 2>"$b.err" || net_fail "takt link bench failed: $(cat "$b.err")"
    kill -TERM $pid
    wait $pid || net_fail "takt link echo failed: $(cat "$e.err")"

    grep -q "^PerfMsmt 'Round Trip' (min/avg/max) \[usec\]: " "$b.txt" || net_fail "no Round Trip PerfMsmt line: $(cat "$b.txt")"
    grep -q "^PerfMsmt 'Wake Deviation'" "$b.txt" || net_fail "no Wake Deviation line"
    grep -q "^PerfMsmt 'CPU Time'" "$b.txt" || net_fail "no CPU Time line"
    [ "$(grep -c "^PerfMsmt 'Cycle Time'" "$b.txt")" -ge 2 ] || net_fail "no interval report (--perf=1)"
    net_json_check "$b.json" "j['cycle_ns'] == 1000000" "cycle in JSON"
    net_json_check "$b.json" "1000 < j['frames']['sent'] <= 2100" "about 2000 frames sent in 2 s"
    net_json_check "$b.json" "j['frames']['answered'] >= 0.9 * j['frames']['sent']" "most frames answered"
    net_json_check "$b.json" "j['frames']['sent'] == j['frames']['answered'] + j['frames']['lost']" "every frame accounted"
    net_json_check "$b.json" "j['perf']['Round Trip']['count'] == j['frames']['answered']" "one RTT per answer"
    net_json_check "$b.json" "0 < j['perf']['Round Trip']['min_ns'] <= j['perf']['Round Trip']['p50_ns'] <= j['perf']['Round Trip']['max_ns'] + 1000" "RTT ordered"
    net_json_check "$b.json" "j['perf']['Wake Deviation']['count'] == j['cycles']" "wake deviation every cycle"
    net_json_check "$b.json" "j['perf']['CPU Time']['count'] > 0" "CPU time per cycle"
    net_json_check "$e.json" "j['answered'] >= $(net_json "$b.json" "j['frames']['answered']")" "echo answered them"
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
