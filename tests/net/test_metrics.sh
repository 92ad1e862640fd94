#!/bin/bash
# --metrics-file of takt ecat run, takt plk mn and takt plk cn against the simulators across veth:
# the file is there while the run goes on and after it, every version of it passes a
# strict check of the Prometheus text format (promtool check metrics as well when it is
# installed), and its figures agree with the run's own JSON summary: frames, cycles,
# states, per-slave and per-node figures, the PerfMsmt histograms' counts.
. "$(dirname "$0")/lib.sh"

CHECK="$TAKT_SOURCE_DIR/tests/tools/prom_check.py"

prom_ok() {   # FILE WHAT
    python3 "$CHECK" "$1" >/dev/null || net_fail "$2: $(python3 "$CHECK" "$1" 2>&1)"
    if command -v promtool >/dev/null; then
        promtool check metrics <"$1" || net_fail "$2: promtool check metrics"
    fi
}

# the checker can fail: a histogram whose buckets decrease, a counter without _total
checker_fails() {
    local f=$1
    sed 's/^\(takt_perf_seconds_bucket{.*le="+Inf"} \).*/\11/' "$f" >"$NET_TMP/bad1.prom"
    python3 "$CHECK" "$NET_TMP/bad1.prom" 2>/dev/null && net_fail "checker passed a +Inf bucket != _count"
    sed 's/takt_overruns_total/takt_overruns/g' "$f" >"$NET_TMP/bad2.prom"
    python3 "$CHECK" "$NET_TMP/bad2.prom" 2>/dev/null && net_fail "checker passed a counter without _total"
    return 0
}

# Python over the metrics (M: {(name, labels...): value}) and the JSON summary (j)
agree() {   # PROM JSON EXPR MSG
    python3 - "$CHECK" "$1" "$2" "$3" <<'PY' || net_fail "$4"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("pc", sys.argv[1]); pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)
fams = pc.parse(open(sys.argv[2]).read())
M, L = {}, []
for ss in fams.values():
    for n, lab, v in ss:
        L.append((n, lab, v))
        M[(n,) + tuple(sorted((k, x) for k, x in lab.items() if k not in ('interface', 'protocol')))] = v
def m(n, **lab): return M[(n,) + tuple(sorted(lab.items()))]
j = json.load(open(sys.argv[3]))
ok = eval(sys.argv[4])
if not ok:
    print("not true:", sys.argv[4], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# --metrics-listen while the run goes on: GET /metrics answers the text (checked as the
# file is), other paths, methods and oversized requests get their errors, and a client
# that connects and says nothing holds the one-connection server for its 2 s timeout only
http_checks() {
    python3 - "$1" "$NET_TMP/http.prom" <<'PY' || net_fail "--metrics-listen (above)"
import socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
def ask(raw, timeout=10):
    c = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    c.sendall(raw)
    data = b""
    while True:
        b = c.recv(65536)
        if not b:
            break
        data += b
    c.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.decode(), body
for i in range(100):
    try:
        h, body = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        break
    except ConnectionRefusedError:
        time.sleep(0.1)
else:
    sys.exit("FAIL: nothing listens on 127.0.0.1:%d" % port)
if not h.startswith("HTTP/1.0 200 OK") or "text/plain; version=0.0.4" not in h:
    sys.exit("FAIL: GET /metrics: " + h)
if b"takt_ecat_frames_sent_total" not in body:
    sys.exit("FAIL: GET /metrics: no takt_ecat_frames_sent_total in the text")
open(out, "wb").write(body)
for raw, want in ((b"GET / HTTP/1.0\r\n\r\n", "404"), (b"POST /metrics HTTP/1.0\r\n\r\n", "405"),
                  (b"GET /metrics\r\n\r\n", "400"), (b"GET /metrics HTTP/1.0\r\nX: " + b"a" * 5000, "431")):
    h, _ = ask(raw)
    if not h.startswith("HTTP/1.0 " + want):
        sys.exit(f"FAIL: {raw[:30]!r}: expected {want}, got {h.splitlines()[0] if h else 'nothing'}")
h, body = ask(b"HEAD /metrics HTTP/1.0\r\n\r\n")
if not h.startswith("HTTP/1.0 200") or body:
    sys.exit("FAIL: HEAD /metrics: %r %d body bytes" % (h, len(body)))
silent = socket.create_connection(("127.0.0.1", port))
t = time.monotonic()
h, _ = ask(b"GET /metrics HTTP/1.0\r\n\r\n", timeout=20)
if not h.startswith("HTTP/1.0 200"):
    sys.exit("FAIL: GET after a silent client: " + h)
silent.close()
print("--- http: 200/404/405/400/431/HEAD as expected; served again %.1f s after a silent client" % (time.monotonic() - t), file=sys.stderr)
PY
    prom_ok "$NET_TMP/http.prom" "ecat, over HTTP"
}

ecat() {
    # the namespace's own loopback, for --metrics-listen (down in a new namespace)
    ip link set lo up || net_fail "cannot bring up lo in the test's namespace"
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004,el3102 -t 60 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$! prom="$NET_TMP/ecat.prom"
    sleep 0.3
    # no -t: it runs until the checks while it runs are done, then SIGTERM ends it
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 --metrics-file "$prom" --metrics-every 0.5 \
        --metrics-listen 127.0.0.1:9187 \
        --json "$NET_TMP/ecat.json" --pcap "$NET_TMP/ecat.pcapng" >"$NET_TMP/ecat.out" 2>&1 &
    local run=$!
    # a version written while the cycle runs, in OP
    local i=0
    until [ -s "$prom" ] && grep -q '^takt_ecat_state{.*} 8$' "$prom" && grep -q '^takt_perf_seconds_count' "$prom"; do
        i=$((i + 1)); [ $i -gt 600 ] && net_fail "no metrics file in OP within 30 s: $(cat "$NET_TMP/ecat.out")"
        sleep 0.05
    done
    cp "$prom" "$NET_TMP/ecat-running.prom"
    http_checks 9187
    sleep 1   # a second more of cycles: the final figures must differ from the running ones
    kill -TERM $run
    wait $run || net_fail "takt ecat run exit $?: $(tail -n 20 "$NET_TMP/ecat.out")"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    prom_ok "$NET_TMP/ecat-running.prom" "ecat, while running"
    prom_ok "$prom" "ecat, at the end"
    checker_fails "$prom"
    [ ! -e "$prom.tmp" ] || net_fail "the temporary file $prom.tmp stayed"
    local r="$NET_TMP/ecat-running.prom" J="$NET_TMP/ecat.json"
    agree "$r" "$J" "m('takt_ecat_slaves') == 4 and sorted((l['position'], l['name'].split('-')[1], v) for n, l, v in L if n == 'takt_ecat_slave_state') == [('0','EK1100',8),('1','EL1004',8),('2','EL2004',8),('3','EL3102',8)]" \
        "ecat, while running: four slaves in OP with their names"
    agree "$r" "$J" "0 < m('takt_perf_seconds_count', msmt='Cycle Time') < j['cycles'] and m('takt_cycles_total') < j['cycles']" \
        "ecat, while running: fewer cycles than at the end"
    agree "$prom" "$J" "m('takt_cycles_total') == j['cycles'] and m('takt_overruns_total') == j['overruns']" "ecat: cycles and overruns as the JSON"
    for k in frames_sent frames_received frames_lost frames_unmatched frames_late frames_duplicate wkc_errors; do
        agree "$prom" "$J" "m('takt_ecat_${k}_total') == j['$k']" "ecat: $k as the JSON"
    done
    agree "$prom" "$J" "m('takt_ecat_cyclic_frames_lost_total') == j['cyclic_frames_lost']" "ecat: cyclic frames lost"
    agree "$prom" "$J" "all(m('takt_ecat_slaves_in_state', state=s) == j['slaves_in_state'][s] for s in j['slaves_in_state'])" "ecat: slaves per state as the JSON"
    agree "$prom" "$J" "j['state'] == 'OP' and m('takt_ecat_state') == 8" "ecat: state OP"
    agree "$prom" "$J" "all(m('takt_perf_seconds_count', msmt=k) == v['count'] for k, v in j['perf'].items())" "ecat: every PerfMsmt count as the JSON"
    agree "$prom" "$J" "abs(m('takt_cpu_seconds_per_cycle') * 1e6 - j['cpu_us_per_cycle']) < 0.01" "ecat: CPU per cycle (the process's)"
    agree "$prom" "$J" "abs(m('takt_rt_thread_cpu_seconds_total') * 1e6 / j['cycles'] - j['thread_cpu_us_per_cycle']) < 0.01 and m('takt_rt_thread_cpu_seconds_total') <= m('takt_cpu_seconds_total')" "ecat: the RT thread's share"
    agree "$prom" "$J" "m('takt_ecat_dc_sync_error_max_seconds') * 1e9 == j['dc_sync_err_max_ns']" "ecat: DC deviation"
    net_check_capture "$NET_TMP/ecat.pcapng"
    net_log "ecat: $(python3 "$CHECK" "$prom")"
}

plk() {
    net_plk_cn -i "$TAKT_IF_B" --nodes 1-3 >"$NET_TMP/cn.out" 2>&1
    local prom="$NET_TMP/plk.prom"
    "$TAKT" plk mn -i "$TAKT_IF_A" -c 2000 --nodes 1-3 --measure 3 -t $NET_PLK_LIMIT --boot-wait 100 --pres-timeout 400 \
        --loss-threshold $NET_PLK_LOSS --metrics-file "$prom" --metrics-every 0.5 \
        --json "$NET_TMP/plk.json" --pcap "$NET_TMP/plk.pcapng" >"$NET_TMP/plk.out" 2>&1 ||
        net_fail "takt plk mn exit $?: $(tail -n 20 "$NET_TMP/plk.out")"
    net_plk_cn_stop
    prom_ok "$prom" "plk"
    local J="$NET_TMP/plk.json"
    agree "$prom" "$J" "m('takt_plk_mn_cycles_total') == j['cycles'] and m('takt_plk_frames_sent_total') == j['frames_tx'] and m('takt_plk_frames_received_total') == j['frames_rx']" "plk: cycles and frames as the JSON"
    agree "$prom" "$J" "m('takt_plk_nodes_operational') == j['nodes_operational'] == 3 and m('takt_plk_mn_state') == 0xFD" "plk: MN and CNs operational"
    agree "$prom" "$J" "all(m('takt_plk_node_state', node=str(n['node'])) == 0xFD and m('takt_plk_node_pres_lost_total', node=str(n['node'])) == n['pres_lost'] and m('takt_plk_node_pres_ok_total', node=str(n['node'])) == n['pres_ok'] and m('takt_plk_node_loss_threshold_hits_total', node=str(n['node'])) == n['loss_threshold_hits'] for n in j['nodes'])" "plk: per node as the JSON"
    agree "$prom" "$J" "m('takt_cycles_total') == j['loop']['cycles'] and all(m('takt_perf_seconds_count', msmt=k) == v['count'] for k, v in j['loop']['perf'].items())" "plk: loop and PerfMsmt counts as the JSON"
    net_check_capture "$NET_TMP/plk.pcapng"
    net_log "plk: $(python3 "$CHECK" "$prom")"
}

# takt plk cn --metrics-file / --metrics-listen: a version while the CNs serve an MN (all
# Operational), the final one after SIGTERM, whose per-node counters are the CN's JSON
plk_cn() {
    # the CNs run in the second namespace: its loopback, and the client there too
    on_b ip link set lo up || net_fail "cannot bring up lo in the CNs' namespace"
    local prom="$NET_TMP/cn.prom"
    net_plk_cn -i "$TAKT_IF_B" --nodes 1-3 --metrics-file "$prom" --metrics-every 0.2 \
        --metrics-listen 127.0.0.1:9188 --json "$NET_TMP/cn.json" >"$NET_TMP/cn2.out" 2>&1
    "$TAKT" plk mn -i "$TAKT_IF_A" -c 2000 --nodes 1-3 -t 4 --boot-wait 100 --pres-timeout 400 \
        --loss-threshold $NET_PLK_LOSS >"$NET_TMP/mn2.out" 2>&1 &
    local mn=$! i=0
    until [ -s "$prom" ] && [ "$(grep -c '^takt_plk_cn_state{.*} 253$' "$prom")" = 3 ]; do
        i=$((i + 1)); [ $i -gt 600 ] && net_fail "no CN metrics with 3 Operational CNs within 30 s: $(cat "$prom" "$NET_TMP/cn2.out" 2>/dev/null | tail -n 20)"
        sleep 0.05
    done
    cp "$prom" "$NET_TMP/cn-running.prom"
    on_b python3 - "$NET_TMP/cn-http.prom" <<'PY' || net_fail "plk cn --metrics-listen"
import socket, sys
c = socket.create_connection(("127.0.0.1", 9188), timeout=10)
c.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
data = b""
while True:
    b = c.recv(65536)
    if not b:
        break
    data += b
head, _, body = data.partition(b"\r\n\r\n")
if not head.startswith(b"HTTP/1.0 200") or b"takt_plk_cn_preq_received_total" not in body:
    sys.exit("FAIL: GET /metrics of plk cn: %r" % head)
open(sys.argv[1], "wb").write(body)
PY
    wait $mn
    net_plk_cn_stop || net_fail "takt plk cn exit $?: $(tail -n 20 "$NET_TMP/cn2.out")"
    prom_ok "$NET_TMP/cn-running.prom" "plk cn, while running"
    prom_ok "$NET_TMP/cn-http.prom" "plk cn, over HTTP"
    prom_ok "$prom" "plk cn, at the end"
    [ ! -e "$prom.tmp" ] || net_fail "the temporary file $prom.tmp stayed"
    local J="$NET_TMP/cn.json"
    agree "$prom" "$J" "m('takt_plk_cn_nodes') == 3 and len(j['nodes']) == 3" "plk cn: three nodes"
    for k in preq_rx:preq_received pres_tx:pres_sent loss_soc:loss_soc loss_preq:loss_preq cycle_errors:cycle_errors stale_dropped:stale_dropped; do
        agree "$prom" "$J" "all(m('takt_plk_cn_${k#*:}_total', node=str(n['node'])) == n['${k%%:*}'] for n in j['nodes'])" "plk cn: ${k%%:*} per node as the JSON"
    done
    agree "$NET_TMP/cn-running.prom" "$J" "all(0 < m('takt_plk_cn_preq_received_total', node=str(n['node'])) < n['preq_rx'] for n in j['nodes'])" \
        "plk cn: while running, fewer PReqs than at the end"
    net_log "plk cn: $(python3 "$CHECK" "$prom")"
}

body() {
    ecat
    plk
    plk_cn
}
net_main body
