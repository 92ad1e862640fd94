# takt link bench --compare: packet:IF and ring:IF in alternated runs against one
# takt link echo, then per link the median and spread of each figure, in text and JSON.
# Checks the series (order swapped every round, each run answered), that every median
# lies within its own runs' min-max, and that each run's process CPU per cycle is at
# least its loop thread's (the process figure counts the reporter thread as well).
# No figure is compared between the links: on a shared host that would prove nothing.
. "${TAKT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/net/lib.sh"

body() {
    local out=$NET_TMP/cmp
    on_b "$TAKT" link echo -i "$TAKT_IF_B" -t 120 >"$NET_TMP/echo.out" 2>&1 &
    local echo=$!
    sleep 0.3
    "$TAKT" link bench -i "$TAKT_IF_A" --compare 2 -t 1 -c 1000 --json "$out.json" >"$out.txt" 2>"$out.err" ||
        net_fail "link bench --compare: $(cat "$out.err")"
    kill $echo 2>/dev/null; wait $echo 2>/dev/null
    local order
    order=$(sed -n 's/^=== run [0-9]* of 2: \([a-z]*\):.*/\1/p' "$out.txt" | tr '\n' ' ')
    [ "$order" = "packet ring ring packet " ] || net_fail "runs not alternated: $order"
    grep -q "^| ring |" "$out.txt" && grep -q "^| packet |" "$out.txt" || net_fail "no table: $(tail "$out.txt")"
    for k in packet ring; do
        net_json_check "$out.json" "len(j['$k']['runs']) == 2" "$k: 2 runs"
        net_json_check "$out.json" "all(r['sent'] > 0 and r['lost'] < r['sent'] for r in j['$k']['runs'])" \
            "$k: every run sent frames and got answers"
        net_json_check "$out.json" "all(j['$k'][f]['min'] <= j['$k'][f]['median'] <= j['$k'][f]['max'] for f in ('cpu_per_cycle_ns', 'thread_cpu_per_cycle_ns', 'rtt_p50_ns', 'rtt_p99_ns'))" \
            "$k: medians within their spread"
        net_json_check "$out.json" "sorted(r['cpu_per_cycle_ns'] for r in j['$k']['runs']) == sorted([j['$k']['cpu_per_cycle_ns']['min'], j['$k']['cpu_per_cycle_ns']['max']])" \
            "$k: min and max are the runs' own"
        net_json_check "$out.json" "all(r['cpu_per_cycle_ns'] >= r['thread_cpu_per_cycle_ns'] for r in j['$k']['runs'])" \
            "$k: process CPU per cycle at least the loop thread's"
    done
    net_log "$(grep '^| ' "$out.txt" | tr '\n' ' ')"
    echo "ok: link bench --compare alternates packet and ring and reports medians and spread"
}

net_main body
