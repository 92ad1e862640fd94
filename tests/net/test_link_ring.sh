# ring link (-i ring:IF, a memory-mapped TPACKET_V2 receive ring on the packet link's
# socket) across a veth pair: everything the packet link test checks (batch, padding,
# EtherType filter, order, kernel timestamps, capture judged by tshark, qdisc bypass),
# then the ring's own limit: a frozen reader overflows the ring and every frame that
# did not fit is counted as a kernel drop (tp_drops), none lost silently.
. "${TAKT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/net/lib.sh"

RING_FRAMES=256      # LINK_RING_FRAMES in src/link/link_internal.h

qdisc_bytes() { tc -s qdisc show dev "$TAKT_IF_A" | sed -n 's/^ *Sent \([0-9]*\) bytes.*/\1/p' | head -1; }
qdisc_bypass() {
    command -v tc >/dev/null || { net_log "tc missing: qdisc bypass not checked"; return 0; }
    tc qdisc add dev "$TAKT_IF_A" root pfifo || net_fail "cannot add a pfifo qdisc on $TAKT_IF_A"
    local b0 b1 b2
    b0=$(qdisc_bytes)
    "$TAKT" link send -i "ring:$TAKT_IF_A" -n 5 -s 1000 >/dev/null || net_fail "send with bypass"
    b1=$(qdisc_bytes)
    "$TAKT" link send -i "ring:$TAKT_IF_A" -n 5 -s 1000 --no-bypass >/dev/null || net_fail "send without bypass"
    b2=$(qdisc_bytes)
    tc qdisc del dev "$TAKT_IF_A" root
    [ $((b1 - b0)) -lt 5000 ] || net_fail "with PACKET_QDISC_BYPASS the qdisc saw $((b1 - b0)) bytes (5 x 1000 sent)"
    [ $((b2 - b1)) -ge 5000 ] || net_fail "with --no-bypass the qdisc saw only $((b2 - b1)) bytes (5 x 1000 sent)"
}

same_as_packet() {
    local rx=$NET_TMP/rx
    on_b "$TAKT" link recv -i "ring:$TAKT_IF_B" -n 10 -t 10 --json "$rx.json" --pcap "$rx.pcapng" \
        >"$rx.txt" 2>"$rx.err" &
    local pid=$!
    net_wait_for "$rx.err" "listening on"
    "$TAKT" link send -i "ring:$TAKT_IF_A" --ethertype 0x88a4 -n 3 >/dev/null || net_fail "send 0x88a4"
    "$TAKT" link send -i "ring:$TAKT_IF_A" -n 8 -b 8 -s 40 >/dev/null || net_fail "batch send"
    "$TAKT" link send -i "$TAKT_IF_A" --ethertype 0x0800 -n 2 -s 60 >/dev/null || net_fail "send 0x0800"
    "$TAKT" link send -i "ring:$TAKT_IF_A" -n 2 -s 1514 -b 2 --no-bypass >/dev/null || net_fail "send 1514"
    wait $pid || net_fail "takt link recv failed: $(cat "$rx.err")"

    net_json_check "$rx.json" "len(j['frames']) == 10" "10 frames expected"
    net_json_check "$rx.json" "all(f['ethertype'] == 0x88b5 for f in j['frames'])" "only EtherType 0x88b5 delivered"
    net_json_check "$rx.json" "[f['len'] for f in j['frames']] == [60]*8 + [1514]*2" "40-byte frames padded to 60"
    net_json_check "$rx.json" "[f['seq'] for f in j['frames']] == list(range(8)) + [0, 1]" "order of a batch kept"
    net_json_check "$rx.json" "all(f['ts_ns'] > 0 for f in j['frames'])" "receive timestamps present"
    net_json_check "$rx.json" "all(a['ts_ns'] <= b['ts_ns'] for a, b in zip(j['frames'], j['frames'][1:]))" \
        "receive timestamps monotonic"
    net_json_check "$rx.json" "j['frames'][-1]['ts_ns'] - j['frames'][0]['ts_ns'] < 10e9" "timestamps in ns, plausible"
    net_json_check "$rx.json" "j['link']['rx_filtered'] == 0" "the kernel filter kept other types away"
    net_json_check "$rx.json" "j['link']['rx_dropped'] == 0" "no drop with a reader"
    [ "$(wc -l <"$rx.txt")" -eq 10 ] || net_fail "10 text lines expected: $(cat "$rx.txt")"
    if command -v tshark >/dev/null; then
        local lens
        lens=$(tshark -r "$rx.pcapng" -T fields -e frame.len 2>/dev/null | tr '\n' ' ')
        [ "$lens" = "60 60 60 60 60 60 60 60 1514 1514 " ] || net_fail "capture lengths: $lens"
        net_check_capture "$rx.pcapng"
    fi
    qdisc_bypass
}

# Freeze the reader (SIGSTOP), send more than the ring holds in batches small enough
# for the veth backlog (netdev_max_backlog, 1000 by default), thaw it: it reads exactly
# the ring's worth and counts the rest as dropped.
overflow() {
    local rx=$NET_TMP/ov sent=600
    # -n: it ends by itself once it has read the ring's worth (or after -t, short of it)
    on_b "$TAKT" link recv -i "ring:$TAKT_IF_B" -n $RING_FRAMES -t 60 --json "$rx.json" \
        >"$rx.txt" 2>"$rx.err" &
    local pid=$!
    net_wait_for "$rx.err" "listening on"
    kill -STOP $pid
    "$TAKT" link send -i "$TAKT_IF_A" -n $sent -b 16 >/dev/null || { kill -CONT $pid; net_fail "send $sent"; }
    kill -CONT $pid
    wait $pid || net_fail "takt link recv failed: $(cat "$rx.err")"
    net_json_check "$rx.json" "len(j['frames']) == $RING_FRAMES" "the full ring read after the thaw"
    net_json_check "$rx.json" "j['link']['rx_dropped'] > 0" "the overflow counted as kernel drops"
    net_json_check "$rx.json" "len(j['frames']) + j['link']['rx_dropped'] == $sent" \
        "every frame sent either read or counted as dropped"
    net_json_check "$rx.json" "[f['seq'] for f in j['frames']] == list(range($RING_FRAMES))" \
        "the ring kept the first frames in order"
}

body() {
    same_as_packet
    overflow
    echo "ok: ring link send/recv/batch/padding/filter/timestamps/qdisc bypass/drops counted"
}

net_main body
