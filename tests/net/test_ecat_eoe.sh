#!/bin/bash
# EoE across veth: takt sim ecat with an eoe-device (EoE in its SII, 512-byte mailboxes,
# its own IP stack) behind an ek1100; `takt ecat run --eoe` brings the bus to OP, sets
# the slave's IP parameters and makes the TAP (named web2) with the host's address. ping
# (small frames and 1400-byte ones that travel in three fragments each way) and curl of
# the slave's web page must go through, while no datagram misses its working counter and
# no EoE fragment is dropped (the master's own counters, JSON eoe; frames that came back
# late on this shared host are counted and logged, not judged); set-ip and set-filter as
# tools; a slave without EoE refused by name. tshark judges every capture (EoE fragments,
# set-IP requests; check_capture_eoe for what tunnelled traffic adds). Latency and
# throughput are logged, figures only: the host is shared.
. "$(dirname "$0")/lib.sh"

# The judge of a capture with EoE traffic. net_check_capture's rules, with what follows
# from tunnelling Ethernet through a bus that is captured both ways:
# - every EtherCAT frame is captured twice, going out and coming back, so TCP's analysis
#   would call each segment's second copy a retransmission: the rules apply to the
#   frames as they came back (inbound), each seen once; the whole capture must still
#   hold no malformed frame;
# - TCP and HTTP add "chat" notes to every SYN, FIN and request line: not findings;
# - Wireshark dissects the first EoE fragment of a frame as a whole Ethernet frame (it
#   does not reassemble EoE), so a first of several fragments shows a truncated IPv4
#   datagram: those frames may carry exactly these two notes and nothing else.
check_capture_eoe() {
    command -v tshark >/dev/null || { net_log "tshark missing: capture $1 not judged"; return 0; }
    local first='ecat_mailbox.eoe.fragno == 0 && ecat_mailbox.eoe.last == 0' in=$1.in.pcapng bad n
    bad=$(tshark -r "$1" -Y '_ws.malformed' -T fields -e frame.number 2>/dev/null) || net_fail "tshark cannot read $1"
    [ -z "$bad" ] || net_fail "tshark finds malformed frames in $1: $(echo "$bad" | head -n 5 | tr '\n' ' ')"
    tshark -r "$1" -Y 'frame.packet_flags_direction == 1' -w "$in" 2>/dev/null || net_fail "tshark cannot split $1"
    n=$(tshark -r "$in" 2>/dev/null | wc -l)
    [ "$n" -gt 100 ] || net_fail "only $n inbound frames in $1 (no direction flags?)"
    # each expert item as "frame<TAB>severity<TAB>message"; chat (0x200000) and the two
    # notes of an orderly TCP close are the connection's normal life
    bad=$(tshark -r "$in" -Y "!($first) && (_ws.malformed || _ws.expert)" -T fields -E occurrence=a \
          -E aggregator='|' -e frame.number -e _ws.expert.severity -e _ws.expert.message 2>/dev/null |
          awk -F'\t' '{ n = split($2, sv, "|"); split($3, msg, "|");
                        for (i = 1; i <= n; i++) print $1 "\t" sv[i] "\t" msg[i] }' |
          awk -F'\t' '$2 != 2097152 && $3 != "This frame initiates the connection closing" &&
                      $3 != "This frame undergoes the connection closing"')
    [ -z "$bad" ] || net_fail "tshark flags $in (frame, severity, expert message): $(echo "$bad" | head -n 20)"
    bad=$(tshark -r "$in" -Y "_ws.malformed" -T fields -e frame.number 2>/dev/null)
    [ -z "$bad" ] || net_fail "tshark finds malformed frames in $in: $bad"
    bad=$(tshark -r "$in" -Y "($first) && (_ws.malformed || _ws.expert)" -T fields -e _ws.expert.message 2>/dev/null |
          tr ',' '\n' | grep -v -e '^IPv4 total length exceeds packet length' -e '^Bad checksum' -e '^$' | sort -u)
    [ -z "$bad" ] || net_fail "tshark flags first EoE fragments in $in with: $bad"
    n=$(tshark -r "$in" -Y "$first" 2>/dev/null | wc -l)
    net_log "$1: $n first fragments of multi-fragment frames (truncated IPv4 in Wireshark's view)"
}

rtt_summary() {   # FILE of ping output: "median M ms, p10-p90 A-B ms" from the replies' times
    grep -o 'time=[0-9.]*' "$1" | cut -d= -f2 | sort -n |
        awk '{ v[NR] = $1 }
             END { if (!NR) exit; hi = int(NR * 0.9); if (hi < 1) hi = 1
                   printf "median %.2f ms, p10-p90 %.2f-%.2f ms (%d replies)", v[int((NR + 1) / 2)],
                          v[int(NR * 0.1) + 1], v[hi], NR }'
}

body() {
    command -v ping >/dev/null || net_skip "ping missing"
    [ -c /dev/net/tun ] && [ -r /dev/net/tun ] && [ -w /dev/net/tun ] ||
        net_skip "/dev/net/tun missing or out of reach for uid $(id -u): no TAP device can be made"
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el2004,eoe-device -t 300 \
        >"$NET_TMP/sim.out" 2>&1 &
    local sim=$! out
    net_wait_for "$NET_TMP/sim.out" "slaves on" 10
    # the services as tools, each with its capture
    "$TAKT" ecat eoe -i "$TAKT_IF_A" --pcap "$NET_TMP/setip.pcapng" set-ip 2 --mac 02:00:00:00:00:22 \
        --ip 10.77.0.9/24 --gw 10.77.0.1 --json "$NET_TMP/setip.json" >"$NET_TMP/setip.out" 2>&1 ||
        net_fail "eoe set-ip: $(cat "$NET_TMP/setip.out")"
    net_json_check "$NET_TMP/setip.json" "j['set_ip']['ip'] == '10.77.0.9' and j['set_ip']['netmask'] == '255.255.255.0'" "set-ip JSON"
    net_check_capture "$NET_TMP/setip.pcapng"
    "$TAKT" ecat eoe -i "$TAKT_IF_A" --pcap "$NET_TMP/filter.pcapng" set-filter 2 --mac 02:00:00:00:00:22 \
        >"$NET_TMP/filter.out" 2>&1 || net_fail "eoe set-filter: $(cat "$NET_TMP/filter.out")"
    net_check_capture "$NET_TMP/filter.pcapng"
    out=$("$TAKT" ecat eoe -i "$TAKT_IF_A" set-ip 1 --ip 10.77.0.9/24 2>&1) && net_fail "set-ip on el2004 accepted"
    echo "$out" | grep -q "slave 1 (.*) has no EoE" || net_fail "no EoE message: $out"
    out=$("$TAKT" ecat eoe -i "$TAKT_IF_A" set-ip 2 --ip 10.77.0.300/24 2>&1) && net_fail "bad IP accepted"
    echo "$out" | grep -q "expected an IPv4 address" || net_fail "bad IP message: $out"
    if command -v tshark >/dev/null; then
        local k
        k=$(tshark -r "$NET_TMP/setip.pcapng" -Y "ecat_mailbox.eoe" 2>/dev/null | wc -l)
        [ "$k" -ge 2 ] || net_fail "tshark decodes $k EoE messages in set-ip, expected >= 2"
    fi
    # the bus in OP with the TAP; the slave's IP set again by --eoe
    out=$("$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 1 --eoe 1:10.77.0.2/24 2>&1) && net_fail "--eoe on el2004 accepted"
    echo "$out" | grep -q "slave 1 (.*) has no EoE" || net_fail "run --eoe 1: $out"
    # --eoe all: a port for the one slave whose SII says EoE, none for the others
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 1 --eoe all --json "$NET_TMP/all.json" >"$NET_TMP/all.out" 2>&1 ||
        net_fail "run --eoe all: $(tail -n 20 "$NET_TMP/all.out")"
    net_json_check "$NET_TMP/all.json" "[(e['position'], e['tap']) for e in j['eoe']] == [(2, 'takt-eoe2')]" \
        "--eoe all: a TAP for the eoe-device (2) alone"
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 200 --eoe 2@web2:10.77.0.2/24:10.77.0.1 \
        --json "$NET_TMP/run.json" --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>&1 &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "in OP after" 60
    grep -q "EoE on TAP web2, slave 10.77.0.2, host 10.77.0.1" "$NET_TMP/run.out" ||
        net_fail "TAP line: $(cat "$NET_TMP/run.out")"
    ping -c 20 -i 0.05 -W 5 10.77.0.2 >"$NET_TMP/ping.out" 2>&1 || net_fail "ping: $(cat "$NET_TMP/ping.out")"
    net_log "ping 56 bytes: $(grep -E 'packet loss' "$NET_TMP/ping.out"); $(rtt_summary "$NET_TMP/ping.out")"
    ping -c 20 -i 0.05 -s 1400 -W 5 10.77.0.2 >"$NET_TMP/ping2.out" 2>&1 ||
        net_fail "ping -s 1400: $(cat "$NET_TMP/ping2.out")"
    net_log "ping 1400 bytes: $(grep -E 'packet loss' "$NET_TMP/ping2.out"); $(rtt_summary "$NET_TMP/ping2.out")"
    if command -v curl >/dev/null; then
        curl -sS --max-time 20 -o "$NET_TMP/page.html" -w '%{http_code} %{time_total}\n' http://10.77.0.2/ \
            >"$NET_TMP/curl.out" 2>&1 || net_fail "curl: $(cat "$NET_TMP/curl.out")"
        grep -q "takt simulated EoE device" "$NET_TMP/page.html" || net_fail "page: $(cat "$NET_TMP/page.html")"
        net_log "curl: $(cat "$NET_TMP/curl.out")"
    else
        net_log "curl missing: the web page not fetched"
    fi
    # throughput: 1400-byte echoes as fast as they come back, for 5 s
    ping -q -c 2000 -i 0.002 -s 1400 -w 5 10.77.0.2 >"$NET_TMP/flood.out" 2>&1
    net_log "ping -s 1400 for 5 s: $(grep -E 'transmitted|rtt' "$NET_TMP/flood.out" | tr '\n' ' ')"
    local got
    got=$(grep -o '[0-9]* received' "$NET_TMP/flood.out" | cut -d' ' -f1)
    # each echo is a 1442-byte Ethernet frame each way (1400 + ICMP 8 + IPv4 20 + 14)
    net_log "EoE throughput: ${got:-0} echoes in 5 s = $(( ${got:-0} * 1442 / 5 / 1024 )) KiB/s each way"
    kill -INT $run
    wait $run || net_fail "ecat run: $(tail -5 "$NET_TMP/run.out")"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP' and j['eoe'][0]['position'] == 2 and j['eoe'][0]['rx_dropped'] == 0" "EoE port in OP"
    # no cycle disturbed: every datagram that came back had its working counter (frames
    # that came back late on this loaded host are counted and logged, not judged)
    net_json_check "$NET_TMP/run.json" "j['wkc_errors'] == 0" "no WKC error while EoE ran"
    net_json_check "$NET_TMP/run.json" "j['eoe'][0]['tx_frames'] >= 40 and j['eoe'][0]['rx_frames'] >= 40" "frames through EoE"
    net_log "$(grep -E 'EoE slave|lost' "$NET_TMP/run.out" | tr '\n' ' ')"
    check_capture_eoe "$NET_TMP/run.pcapng"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
}

net_main body
