#!/bin/bash
# takt ecat run keeps supervising across veth whatever the network does: the simulator
# stops (silence: reported within a few cycles, the state unknown while it lasts, its end
# reported), a new one comes up with every slave power-cycled and 60 % of the frames lost
# (every re-scan fails and is retried with back-off), then a clean one where a slave is
# power-cycled and the line cut and healed. At the end every slave is back in OP, the
# state lines say so, and lost and returned slaves pair up.
. "$(dirname "$0")/lib.sh"

OUT=
sim() {   # sim NAME ARGS...: a simulated 10-slave line on side B until killed
    local name=$1
    shift
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 10 -t 300 --json "$NET_TMP/sim-$name.json" "$@" \
        >"$NET_TMP/sim-$name.out" 2>&1 &
    SIM=$!
    net_wait_for "$NET_TMP/sim-$name.out" "slaves on" 10
}
sim_stop() { kill "$SIM" 2>/dev/null; wait "$SIM" 2>/dev/null; }

# Wait until TEXT appears in the master's output after line FROM, at most T seconds.
wait_after() {    # FROM TEXT T
    local from=$1 text=$2 t=$3 i=0
    while ! tail -n +"$((from + 1))" "$OUT" | grep -qF -- "$text"; do
        i=$((i + 1))
        [ $i -gt $((t * 20)) ] && net_fail "timed out ($t s) waiting for '$text': $(tail -n 30 "$OUT")"
        sleep 0.05
    done
}
lines() { wc -l <"$OUT"; }
# seconds (the event's own time) of the first event with TEXT after line FROM
event_time() { tail -n +"$(($1 + 1))" "$OUT" | grep -F -- "$2" | head -n 1 | sed -E 's/^[^:]*: ([0-9.]+) s: .*/\1/'; }

body() {
    OUT=$NET_TMP/run.out
    sim a
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 240 --perf=0.25 --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$OUT" 2>&1 &
    local master=$!
    wait_after 0 "all 10 slaves in OP after" 20

    # silence: nothing answers
    local from
    from=$(lines)
    sim_stop
    wait_after "$from" "no frame returned for 3 cycles" 10
    wait_after "$from" "State unknown: no frame returned for" 10

    # every slave power-cycled, 60 % of the frames lost: re-scans fail, and are retried
    from=$(lines)
    sim b --fault 'drop=0.6'
    wait_after "$from" "frames return again after" 10
    wait_after "$from" "re-scan failed" 30
    wait_after "$from" "re-scanning it again" 30
    wait_after "$from" "trying again in 128 ms" 60     # six failures in a row: backing off
    sim_stop

    # a clean network (all power-cycled again); later position 2 power-cycled, then the
    # cable into position 7 cut and healed
    from=$(lines)
    sim c --fault 'power=2@6s;break=7@9s;heal=7@10s'
    local t_back t_op
    wait_after "$from" "frames return again after" 10
    wait_after "$from" "State OP, slaves 10/10" 30
    t_back=$(event_time "$from" "frames return again after")
    t_op=$(event_time "$from" "slave 9 (station 0x1009) back in OP")
    net_log "failed re-scans, then a clean network: frames back at $t_back s, every slave in OP by $t_op s"
    wait_after "$from" "slave 2 (station 0x1002) does not answer its address" 30
    local from2
    from2=$(lines)
    wait_after "$from2" "slave 2 (station 0x1002) back in OP" 30
    wait_after "$from2" "lost: no longer answers" 30
    wait_after "$from2" "slave 9 (station 0x1009) back in OP" 30
    from=$(lines)
    wait_after "$from" "State OP, slaves 10/10" 10
    kill -TERM $master
    wait $master || net_fail "takt ecat run failed: $(tail -n 30 "$OUT")"
    sim_stop

    grep -q "Summary: state OP, slaves 10/10" "$OUT" || net_fail "summary not OP 10/10: $(grep Summary "$OUT")"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "back in OP at the end"
    net_json_check "$NET_TMP/run.json" "j['state_text'] == 'OP, slaves 10/10'" "state text"
    net_json_check "$NET_TMP/run.json" "j['slaves_in_state']['OP'] == 10 and j['slaves_not_answering'] == 0" "per-state counts"
    net_json_check "$NET_TMP/run.json" "j['slaves_lost'] == j['slaves_returned'] and j['slaves_lost'] >= 10" \
        "lost and returned slaves pair up"
    net_json_check "$NET_TMP/run.json" "j['frames_late'] <= j['frames_lost']" "late <= lost"
    net_json_check "$NET_TMP/run.json" "j['frames_received'] + j['frames_lost'] <= j['frames_sent']" "frames add up"
    net_log "$(net_json "$NET_TMP/run.json" "'sent %d, back %d, lost %d, late %d, unmatched %d; slaves lost/returned %d/%d' % (j['frames_sent'], j['frames_received'], j['frames_lost'], j['frames_late'], j['frames_unmatched'], j['slaves_lost'], j['slaves_returned'])")"
    # no state line claims OP for all while nothing returned: a line in a silence says so
    if grep -E "^State " "$OUT" | grep -q "NONE"; then net_fail "a state line says NONE"; fi
    net_check_capture "$NET_TMP/run.pcapng"
}

net_main body
