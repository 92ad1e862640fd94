#!/bin/bash
# Cable redundancy for the ecat verbs that open the bus themselves (no master running):
# in a closed ring every frame sent by -i comes back on the other port, so a verb on -i
# alone sees nothing, and with a break it sees only the slaves before it. Given the ring's
# second port (--redundant IF2) a verb reaches every slave, closed or broken anywhere:
# takt ecat slaves lists all of them, takt ecat states brings them all to PREOP and
# takt ecat reg reads a register of the last one. The mailbox verbs reach a servo and an
# SoE drive behind a break the same way: CoE upload (expedited and segmented), download
# read back, the object list (SDO information), SoE IDN read, FoE write read back; and
# through a running master (takt ecat run --redundant) over its control socket. tshark
# finds nothing wrong on either port's capture.
. "$(dirname "$0")/lib.sh"

N=6

sim() {   # sim TAG [--fault SPEC]: the ring in side B for 20 s (stopped by the test)
    local tag=$1
    shift
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --redundant rdB -t 20 --preset $N "$@" \
        >"$NET_TMP/sim-$tag.out" 2>&1 &
    SIM=$!
    net_wait_for "$NET_TMP/sim-$tag.out" "slaves on" 10
}

# The mailbox slaves: a CiA 402 servo (CoE, FoE) at 3 and an SoE drive at 4, so a break
# into 3 puts both behind it (they answer by the second port only).
MBX=ek1100,el1004,el2004,servo,soe-drive

mbx_sim() {   # mbx_sim TAG SECONDS [--fault SPEC]
    local tag=$1 t=$2
    shift 2
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --redundant rdB -t "$t" --devices $MBX "$@" \
        >"$NET_TMP/sim-$tag.out" 2>&1 &
    SIM=$!
    net_wait_for "$NET_TMP/sim-$tag.out" "slaves on" 10
}

# The mailbox verbs against the servo (3) and the SoE drive (4); ARGS select the way
# (-i IF --redundant IF2 [--pcap], or --master SOCKET); TAG names the captures.
mailbox_verbs() {   # TAG ARGS...
    local tag=$1 out
    shift
    out=$("$TAKT" ecat upload "$@" --type uint32 3 0x1018 1 2>&1) ||
        net_fail "$tag: upload 0x1018:01 of the servo behind the break failed: $out"
    [ "$out" = "0x00746B74 7629684" ] || net_fail "$tag: upload 0x1018:01: $out"
    # the device name is longer than an expedited transfer's 4 bytes: segmented
    out=$("$TAKT" ecat upload "$@" --type string 3 0x1008 0 2>&1) ||
        net_fail "$tag: segmented upload of 0x1008 failed: $out"
    [ "$out" = "$SERVO_NAME" ] || net_fail "$tag: 0x1008 of the servo: '$out', expected '$SERVO_NAME'"
    out=$("$TAKT" ecat download "$@" --type uint32 3 0x6065 0 4242 2>&1) ||
        net_fail "$tag: download 0x6065 failed: $out"
    out=$("$TAKT" ecat upload "$@" --type uint32 3 0x6065 0 2>&1) ||
        net_fail "$tag: upload of 0x6065 after download failed: $out"
    [ "$out" = "0x00001092 4242" ] || net_fail "$tag: 0x6065 read back: $out"
    out=$("$TAKT" ecat sdos "$@" 3 2>&1) || net_fail "$tag: sdos of the servo behind the break failed: $out"
    echo "$out" | grep -q "0x1018  RECORD  Identity" || net_fail "$tag: sdos: $out"
    out=$("$TAKT" ecat soe "$@" read 4 S-0-0030 2>&1) ||
        net_fail "$tag: SoE read of S-0-0030 from the drive behind the break failed: $out"
    [ "$out" = "takt soe-drive 1.0" ] || net_fail "$tag: S-0-0030: $out"
    net_log "$tag: servo 0x1018:01, 0x1008 '$SERVO_NAME', 0x6065 written and read back, its object list, drive S-0-0030 '$out'"
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

    # the mailbox verbs that open the bus themselves, the ring broken before the servo
    # (its device name is the ESI's, data/esi/takt-servo.xml)
    SERVO_NAME="takt CiA 402 servo drive"
    mbx_sim mbx 60 --fault break=3
    mailbox_verbs direct -i "$TAKT_IF_A" --redundant rdA --pcap "$NET_TMP/mbx.pcapng"
    head -c 1000 /dev/urandom >"$NET_TMP/foe.bin"
    out=$("$TAKT" ecat foe -i "$TAKT_IF_A" --redundant rdA -s 3 write "$NET_TMP/foe.bin" 2>&1) ||
        net_fail "direct: FoE write to the servo behind the break failed: $out"
    out=$("$TAKT" ecat foe -i "$TAKT_IF_A" --redundant rdA --pcap "$NET_TMP/foe.pcapng" -s 3 \
          read foe.bin -o "$NET_TMP/foe.back" 2>&1) ||
        net_fail "direct: FoE read from the servo behind the break failed: $out"
    cmp "$NET_TMP/foe.bin" "$NET_TMP/foe.back" || net_fail "direct: the FoE file read back differs"
    stop_sim
    for f in mbx foe; do
        net_check_capture "$NET_TMP/$f.pcapng"
        net_check_capture "$NET_TMP/$f-2.pcapng"
    done

    # through a running master that holds both ports, the break placed before the servo
    # while it runs (after OP), so the verbs' datagrams cross to the second port there
    local sock="$NET_TMP/ecat.sock"
    mbx_sim run 120 --fault "break=3@4s"
    "$TAKT" ecat run -i "$TAKT_IF_A" --redundant rdA -c 1000 -t 600 --dc --control "$sock" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>&1 &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "in OP after" 60
    net_wait_for "$NET_TMP/run.out" "ring broken between slave 2 and slave 3 " 60
    mailbox_verbs master -i "$TAKT_IF_A" --master "$sock"
    kill -INT "$run"
    wait "$run" || net_fail "takt ecat run --redundant: exit status $?: $(tail -5 "$NET_TMP/run.out")"
    stop_sim
    net_check_capture "$NET_TMP/run.pcapng"
    net_check_capture "$NET_TMP/run-2.pcapng"

    out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" --redundant "$TAKT_IF_A" 2>&1) &&
        net_fail "the same port twice was accepted: $out"
    echo "$out" | grep -q "expects the ring's other port" ||
        net_fail "the same port twice: no clear error: $out"
}

net_main body
