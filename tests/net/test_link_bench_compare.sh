# takt link bench --compare: packet:IF, ring:IF and xdp:IF in alternated runs against
# one takt link echo, then per link the median and spread of each figure, in text and
# JSON, and each link's median CPU per cycle as a ratio to the packet link's. Checks the
# series (order reversed every round, each run answered), that every median lies
# within its own runs' min-max, that each run's process CPU per cycle is at least its
# loop thread's (the process figure counts the reporter thread as well), and that the
# ratios are the medians' own. xdp takes part where AF_XDP can be opened (root, a build
# with libxdp); elsewhere (the unprivileged pass) it is left out with the reason.
# No figure is compared between the links: on a shared host that would prove nothing;
# the ratios are logged as figures.
. "${TAKT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/net/lib.sh"

body() {
    local out=$NET_TMP/cmp
    on_b "$TAKT" link echo -i "$TAKT_IF_B" -t 120 >"$NET_TMP/echo.out" 2>&1 &
    local echo=$!
    sleep 0.3
    "$TAKT" link bench -i "$TAKT_IF_A" --compare 2 -t 1 -c 1000 --json "$out.json" >"$out.txt" 2>"$out.err" ||
        net_fail "link bench --compare: $(cat "$out.err")"
    kill $echo 2>/dev/null; wait $echo 2>/dev/null
    local order kinds want
    if net_json "$out.json" "'runs' in j['xdp']" | grep -q True; then
        kinds="packet ring xdp"; want="packet ring xdp xdp ring packet "
    else
        kinds="packet ring"; want="packet ring ring packet "
        net_json_check "$out.json" "len(j['xdp']['left_out']) > 0" "xdp left out without a reason"
        grep -q "xdp left out of the comparison: " "$out.err" || net_fail "xdp left out silently: $(cat "$out.err")"
        [ "$TAKT_NET_OUTER_UID" = 0 ] && [ "$TAKT_NETNS_USERNS" = 0 ] &&
            ! grep -q "built without AF_XDP" "$out.err" && net_fail "xdp left out as root: $(cat "$out.err")"
        net_log "xdp not compared here: $(net_json "$out.json" "j['xdp']['left_out']")"
    fi
    order=$(sed -n 's/^=== run [0-9]* of 2: \([a-z]*\):.*/\1/p' "$out.txt" | tr '\n' ' ')
    [ "$order" = "$want" ] || net_fail "runs not alternated: $order (expected $want)"
    for k in $kinds; do
        grep -q "^| $k |" "$out.txt" || net_fail "no table row for $k: $(tail "$out.txt")"
    done
    for k in $kinds; do
        net_json_check "$out.json" "len(j['$k']['runs']) == 2" "$k: 2 runs"
        net_json_check "$out.json" "all(r['sent'] > 0 and r['lost'] < r['sent'] for r in j['$k']['runs'])" \
            "$k: every run sent frames and got answers"
        net_json_check "$out.json" "all(j['$k'][f]['min'] <= j['$k'][f]['median'] <= j['$k'][f]['max'] for f in ('cpu_per_cycle_ns', 'thread_cpu_per_cycle_ns', 'rtt_p50_ns', 'rtt_p99_ns'))" \
            "$k: medians within their spread"
        net_json_check "$out.json" "sorted(r['cpu_per_cycle_ns'] for r in j['$k']['runs']) == sorted([j['$k']['cpu_per_cycle_ns']['min'], j['$k']['cpu_per_cycle_ns']['max']])" \
            "$k: min and max are the runs' own"
        net_json_check "$out.json" "all(r['cpu_per_cycle_ns'] >= r['thread_cpu_per_cycle_ns'] for r in j['$k']['runs'])" \
            "$k: process CPU per cycle at least the loop thread's"
        net_json_check "$out.json" "abs(j['$k']['cpu_per_cycle_ratio_to_packet'] - j['$k']['cpu_per_cycle_ns']['median'] / j['packet']['cpu_per_cycle_ns']['median']) < 1e-9" \
            "$k: CPU ratio is the medians' own"
    done
    net_log "$(grep '^| ' "$out.txt" | tr '\n' ' ')"
    echo "ok: link bench --compare alternates packet, ring (and xdp where it opens) and reports medians, spread and ratios"
}

net_main body
