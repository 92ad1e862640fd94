#!/bin/bash
# takt ecat run never uses a stale reply: replies held back by one and by several
# datagram-index wraps (a relay between master and simulator) and a frozen simulator
# (SIGSTOP for 20 ms, 200 ms, 2 s) at 1 ms and 250 us cycles. The judge is not the
# master's own counters but the application's echo, seen by the simulated device:
#
# The simulator's "echo" device (docs/devices.md) numbers the frames that access its
# process data (1, 2, ...) and puts into its Counter input the number of the frame that
# will carry it to the master. `takt ecat run --echo` copies Counter into the device's
# Echo output in each cycle whose inputs are fresh (takt_ecat_master_inputs_age() == 0). An
# echo v that arrives in frame F is F - v frames old.
#   Largest age of a fresh reply: fresh at cycle k means the frame sent at cycle k-1 (say
#   the device's frame F) came back before cycle k; its Counter is F. The echo goes out in
#   the frame of cycle k, and that is the device's frame F+1: here each cycle sends one
#   cyclic frame holding the whole image (a few bytes, one LRW), acyclic frames never
#   touch the process-data SMs, and requests reach the simulator unduplicated and in
#   order (the relay acts on replies only; a request lost on the way is not counted by
#   the device at all). So a fresh echo is exactly 1 frame old; an echo of 2 or more
#   frames ("stale" in the simulator's JSON) was copied from a reply that was not the
#   newest the device had sent, i.e. the master passed an old reply off as fresh.
# Each run also checks that the device saw enough fresh echoes (the check is alive), and
# that the master counts the held-back replies: every reply the relay held 60 ms or more
# (more than the 50 ms datagram timeout, more than a cycle) is counted late, or unmatched
# when it is older than the master's ring of 4096 frames.
#
# Topology: side A runs the master on TAKT_IF_A. Side B gets a second veth pair (both
# ends in B): the relay bridges TAKT_IF_B and one end, the simulator serves the other.
#
# Silence events (`no frame returned for N cycles`, `frames return again after N cycles
# without`) are checked in the block marked NET_SILENCE_EVENTS (default 1; 0 skips it);
# the stale checks do not depend on them.
#
# NET_TAKT_MASTER=PATH runs another build's master (with --echo) under the same checks;
# NET_KEEP_GOING=1 runs every case before failing.
#
# The capture is judged whole by tshark: held-back, reordered and duplicated replies are
# still well-formed EtherCAT frames, only late or repeated, and the ecat dissector keeps
# no state across frames (no duplicate or sequence analysis, so no expert info for
# them), so nothing in it may be flagged.
. "$(dirname "$0")/lib.sh"

NET_SILENCE_EVENTS=${NET_SILENCE_EVENTS:-1}
MASTER_BIN=${NET_TAKT_MASTER:-$TAKT}
FAILED=

case_fail() {   # net_fail, or with NET_KEEP_GOING=1 note it and go on with the next case
    [ "${NET_KEEP_GOING:-}" = 1 ] || net_fail "$@"
    echo "FAIL: $*" >&2
    FAILED="$FAILED $1"
}

# Start the relay and the simulator in side B, the master in side A; wait for OP.
# start NAME CYCLE_US SECONDS
start() {
    local name=$1 cyc=$2 secs=$3
    CTL_N=0
    on_b "$TAKT_RELAY" -a "$TAKT_IF_B" -b rlA -c "$NET_TMP/$name.ctl" -l 60000000 \
        >"$NET_TMP/$name-relay.json" 2>"$NET_TMP/$name-relay.err" &
    RELAY=$!
    net_wait_for "$NET_TMP/$name-relay.err" "ready" 10
    on_b "$TAKT" sim ecat -i rlS --devices ek1100,echo -t $((secs + 30)) --json "$NET_TMP/$name-sim.json" \
        >"$NET_TMP/$name-sim.out" 2>&1 &
    SIM=$!
    net_wait_for "$NET_TMP/$name-sim.out" "slaves on" 10
    "$MASTER_BIN" ecat run -i "$TAKT_IF_A" -c "$cyc" -t "$secs" --echo --json "$NET_TMP/$name-run.json" \
        --pcap "$NET_TMP/$name.pcapng" >"$NET_TMP/$name-run.out" 2>&1 &
    MASTER=$!
    net_wait_for "$NET_TMP/$name-run.out" "slaves in OP after" 30
}

to_relay() {   # to_relay NAME LINE: a FIFO without its reader would block the writer
    kill -0 "$RELAY" 2>/dev/null || net_fail "$1: the relay has ended: $(cat "$NET_TMP/$1-relay.err")"
    timeout 10 bash -c 'echo "$1" >"$2"' _ "$2" "$NET_TMP/$1.ctl" || net_fail "$1: cannot write '$2' to the relay"
}

ctl() {     # ctl NAME COMMAND: send a command to the relay and wait for its acknowledgement
    CTL_N=$((CTL_N + 1))
    to_relay "$1" "$2"
    net_wait_for "$NET_TMP/$1-relay.err" "command $CTL_N: $2" 10
}

# Wait for the master, stop the relay and the simulator, and judge the run.
finish() {
    local name=$1 rc
    wait "$MASTER"
    rc=$?
    to_relay "$name" quit
    wait "$RELAY"
    kill -TERM "$SIM" 2>/dev/null
    wait "$SIM"
    [ $rc -eq 0 ] || net_fail "$name: takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/$name-run.out")"
    # replies that reached the master (received frames in its capture): a burst (the
    # simulator's backlog, a stalled relay) can overflow the master's socket
    local rx=-1
    command -v tshark >/dev/null &&
        rx=$(tshark -r "$NET_TMP/$name.pcapng" -Y 'eth.type == 0x88a4 && frame.p2p_dir == 1' 2>/dev/null | wc -l)
    NET_RX=$rx
    python3 - "$name" "$NET_TMP/$name-run.json" "$NET_TMP/$name-sim.json" "$NET_TMP/$name-relay.json" "$rx" <<'PY' ||
import json, sys
name = sys.argv[1]
r = json.load(open(sys.argv[2])); s = json.load(open(sys.argv[3]))
x = json.loads(open(sys.argv[4]).read().strip().splitlines()[-1])
rx = int(sys.argv[5])
missing = max(0, x["replies_out"] - rx) if rx >= 0 else 0   # sent by the relay, never read
e = s["echo"]
print("%s: relay held %d replies >= 60 ms (%d delayed in all, queue max %d); master: %d sent, "
      "%d back in time, %d lost, %d late, %d unmatched; echo: %d new values, %d stale, "
      "oldest %d frames; app copied in %d cycles, held in %d; %d replies never reached the master" %
      (name, x["held_long"], x["delayed"], x["queue_max"], r["frames_sent"], r.get("frames_received", -1),
       r["frames_lost"], r["frames_late"], r["frames_unmatched"], e["echoes"], e["stale"],
       e["age_max"], r["echo"]["cycles_copied"], r["echo"]["cycles_held"], missing), file=sys.stderr)
bad = []
if e["stale"] != 0:
    bad.append("%d stale echoes: a reply that was not the newest was used as fresh (first: %d frames "
               "old, in frame %d)" % (e["stale"], e["stale_first_age"], e["stale_first_frame"]))
if e["echoes"] < 200:
    bad.append("only %d echoes: the application hardly ever saw fresh inputs" % e["echoes"])
if r["frames_late"] + r["frames_unmatched"] < x["held_long"] - missing:
    bad.append("the relay held %d replies 60 ms or more (%d of all replies never reached the "
               "master), the master counted only %d late + %d unmatched" %
               (x["held_long"], missing, r["frames_late"], r["frames_unmatched"]))
if x["overflow"] or x["send_errors"]:
    bad.append("relay overflow %d, send errors %d" % (x["overflow"], x["send_errors"]))
for b in bad:
    print("%s: %s" % (name, b), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
        case_fail "$name: see above"
    net_check_capture "$NET_TMP/$name.pcapng"
}

# Replies held back by one index wrap (~128 frames: 127.5, 128.5, 129 cycles) and by
# several, then released; the last delay is switched off well before the master ends, so
# every held reply is back while it runs.
delays() {     # delays NAME CYCLE_US DELAY...
    local name=$1 cyc=$2 d
    shift 2
    start "$name" "$cyc" $(($# + 4))
    sleep 0.5
    for d in "$@"; do
        ctl "$name" "delay $d"
        sleep 0.7
    done
    ctl "$name" "delay 0"
    finish "$name"
    net_json_check "$NET_TMP/$name-relay.json" "j['held_long'] >= 300" \
        "$name: the relay really held replies back"
}

freeze() {     # freeze NAME CYCLE_US: SIGSTOP the simulator for 20 ms, 200 ms and 2 s
    local name=$1 cyc=$2 t
    start "$name" "$cyc" 7
    for t in 0.02 0.2 2; do
        sleep 0.5
        kill -STOP "$SIM"
        sleep "$t"
        kill -CONT "$SIM"
    done
    finish "$name"
    net_json_check "$NET_TMP/$name-run.json" "j['frames_lost'] >= 0.5 * 2.2 * 1e6 / $cyc" \
        "$name: the frames of the freezes counted lost"
    net_json_check "$NET_TMP/$name-run.json" "j['frames_late'] + j['frames_unmatched'] > 0" \
        "$name: the simulator's backlog after the freeze counted late"
    # ---- NET_SILENCE_EVENTS: the master reports silence and its end (not yet in every
    # build; NET_SILENCE_EVENTS=0 leaves this block out) ----
    if [ "$NET_SILENCE_EVENTS" = 1 ]; then
        local n_silent n_back
        n_silent=$(grep -cE 'no frame returned for [0-9]+ cycles' "$NET_TMP/$name-run.out")
        n_back=$(grep -cE 'frames return again after [0-9]+ cycles without' "$NET_TMP/$name-run.out")
        net_log "$name: $n_silent 'no frame returned' and $n_back 'frames return again' events"
        [ "$n_silent" -ge 3 ] && [ "$n_back" -ge 3 ] ||
            net_fail "$name: 3 freezes, but $n_silent 'no frame returned' and $n_back 'frames return again' events: $(grep -v PerfMsmt "$NET_TMP/$name-run.out" | tail -n 30)"
    fi
    # ---- end of NET_SILENCE_EVENTS ----
}

# Duplicated, dropped and reordered replies, then all replies held for 300 ms and let go
# at once: still no stale echo, every duplicate counted as one, every drop as a loss.
misc() {
    local name=misc
    start "$name" 1000 6
    sleep 0.3
    ctl "$name" "dup 0.05"
    ctl "$name" "drop 0.02"
    ctl "$name" "reorder 7"
    sleep 1.5
    ctl "$name" "dup 0"
    ctl "$name" "drop 0"
    ctl "$name" "reorder 0"
    ctl "$name" "hold"
    sleep 0.3
    ctl "$name" "release"
    finish "$name"
    python3 - "$NET_TMP/$name-run.json" "$NET_TMP/$name-relay.json" "$NET_RX" <<'PY' || case_fail "$name: duplicates or drops not counted"
import json, sys
r = json.load(open(sys.argv[1])); x = json.load(open(sys.argv[2]))
rx = int(sys.argv[3])
missing = max(0, x["replies_out"] - rx) if rx >= 0 else 0   # sent by the relay, never read
print("misc: relay duplicated %d, dropped %d, reordered %d; master: %d duplicate, %d lost, %d late" %
      (x["duplicated"], x["dropped"], x["reordered"], r.get("frames_duplicate", -1), r["frames_lost"],
       r["frames_late"]), file=sys.stderr)
ok = x["duplicated"] >= 20 and x["dropped"] >= 10 and x["reordered"] >= 50
dup = r.get("frames_duplicate", -1)
ok = ok and x["duplicated"] - missing <= dup <= x["duplicated"] and r["frames_lost"] >= x["dropped"]
sys.exit(0 if ok else 1)
PY
}

body() {
    [ -n "${TAKT_RELAY:-}" ] && [ -x "$TAKT_RELAY" ] || net_skip "TAKT_RELAY (tests/tools/relay) is not set or not executable; run through ctest"
    local err
    err=$("$TAKT" netns exec b -- sh -c 'ip link add rlA type veth peer name rlS &&
          ip link set rlA up && ip link set rlS up' 2>&1) ||
        net_skip "cannot make the second veth pair in side B: $err"
    delays wrap1ms 1000 127500us 128500us 129ms 512500us
    delays wrap250us 250 31875us 32125us 32250us 128500us 512500us
    freeze freeze1ms 1000
    freeze freeze250us 250
    misc
    [ -z "$FAILED" ] || net_fail "failed:$FAILED"
}

net_main body
