#!/bin/bash
# Cable redundancy for the ecat verbs that open the bus themselves (no master running):
# in a closed ring every frame sent by -i comes back on the other port, so a verb on -i
# alone sees nothing, and with a break it sees only the slaves before it. Given the ring's
# second port (--redundant IF2) a verb reaches every slave, closed or broken anywhere:
# takt ecat slaves lists all of them, takt ecat states brings them all to PREOP and
# takt ecat reg reads a register of the last one. tshark finds nothing wrong on either
# port's capture.
. "$(dirname "$0")/lib.sh"

N=6

sim() {   # sim TAG [--fault SPEC]: the ring in side B for 20 s (stopped by the test)
    local tag=$1
    shift
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --redundant rdB -t 20 --preset $N "$@" \
        >"$NET_TMP/sim-$tag.out" 2>&1 &
    SIM=$!
    sleep 0.3
}

stop_sim() {
    kill "$SIM" 2>/dev/null
    wait "$SIM" 2>/dev/null
}

body() {
    local err out
    err=$("$TAKT" netns exec b -- sh -c "ip link add rdB type veth peer name rdA &&
          ip link set rdA netns $TAKT_NETNS_PID_A && ip link set rdB up" 2>&1) ||
        net_skip "cannot make the second veth pair between the sides: $err"
    ip link set rdA up || net_skip "cannot set the second pair's end in side A up"

    sim closed
    # the frames of -i alone leave by the ring's far end: no slave answers on -i
    if out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" 2>&1); then
        net_fail "a closed ring on one port was scanned: $out"
    fi
    for tag in closed; do
        out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" --redundant rdA --pcap "$NET_TMP/slaves-$tag.pcapng" 2>&1) ||
            net_fail "ring $tag: takt ecat slaves --redundant failed: $out"
        [ "$(echo "$out" | grep -c 'PREOP\|INIT\|SAFEOP\|OP')" -eq $N ] ||
            net_fail "ring $tag: expected $N slaves listed, got: $out"
    done
    stop_sim

    for k in 0 3 $N; do   # broken into slave 0, into a middle slave, before the second port
        sim "break$k" --fault "break=$k"
        out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" --redundant rdA --pcap "$NET_TMP/slaves-$k.pcapng" 2>&1) ||
            net_fail "broken into $k: takt ecat slaves --redundant failed: $out"
        [ "$(echo "$out" | grep -c 'PREOP\|INIT\|SAFEOP\|OP')" -eq $N ] ||
            net_fail "broken into $k: expected $N slaves listed, got: $out"
        out=$("$TAKT" ecat states -i "$TAKT_IF_A" --redundant rdA PREOP -t 10 2>&1) ||
            net_fail "broken into $k: takt ecat states PREOP --redundant failed: $out"
        out=$("$TAKT" ecat reg read $((N - 1)) 0x0130 2 -i "$TAKT_IF_A" --redundant rdA 2>&1) ||
            net_fail "broken into $k: reading the last slave's AL status failed: $out"
        echo "$out" | grep -qi "02 00\|0x0002\|PREOP" ||
            net_fail "broken into $k: the last slave's AL status is not PREOP: $out"
        net_log "broken into $k: $N slaves listed, all to PREOP, last slave's AL status: $out"
        stop_sim
        net_check_capture "$NET_TMP/slaves-$k.pcapng"
        net_check_capture "$NET_TMP/slaves-$k-2.pcapng"
    done
    out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" --redundant "$TAKT_IF_A" 2>&1) &&
        net_fail "the same port twice was accepted: $out"
    echo "$out" | grep -q "expects the ring's other port" ||
        net_fail "the same port twice: no clear error: $out"
}

net_main body
