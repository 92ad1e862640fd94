#!/bin/bash
# takt plk cn --veth: POWERLINK's virtual Ethernet on the CN's host (EPSG DS 301
# "Virtual Ethernet"), a TAP device takt-plk5 with the CN's MAC and 192.168.100.5/24,
# against takt plk mn --veth (takt-plk0, 192.168.100.240) in the other namespace. The
# two hosts' own IP stacks talk through the async phase: ping from the MN's host to
# the CN's host (no duplicate answer: the CN host takes no frame from its POWERLINK
# interface), a small page over TCP from a Python HTTP server on the CN's host, and
# meanwhile SDO over UDP port 3819 from a plain UDP socket on the MN's host, which the
# CN itself still answers (a TAP that took it would answer with nothing). In the
# capture every IP or ARP frame answers a SoA UnspecifiedInvite for its
# sender, and tshark's epl dissector finds nothing malformed.
. "$(dirname "$0")/lib.sh"

# GET http://192.168.100.5:8080/page.html from the MN's host into $NET_TMP/got.html
http_get() {
    python3 - "$NET_TMP/got.html" <<'PY'
import sys, time, urllib.request
end = time.time() + 90
while True:
    try:
        data = urllib.request.urlopen("http://192.168.100.5:8080/page.html", timeout=20).read()
        break
    except OSError as e:
        if time.time() > end:
            sys.exit("no page from 192.168.100.5:8080: %s" % e)
        time.sleep(0.5)
open(sys.argv[1], "wb").write(data)
PY
}

body() {
    if ! [ -r /dev/net/tun ] || ! [ -w /dev/net/tun ]; then
        net_skip "/dev/net/tun is not open to uid $(id -u) here: no TAP device"
    fi
    # a page of several TCP segments (the TAP's MTU is the minimum async MTU, 300)
    mkdir -p "$NET_TMP/www"
    python3 -c 'import sys; sys.stdout.write("".join("line %04d of the CN host page\n" % i for i in range(120)))' \
        >"$NET_TMP/www/page.html"
    net_plk_cn -i "$TAKT_IF_B" --node 5 --veth --json "$NET_TMP/cn.json" >"$NET_TMP/cn.out" 2>"$NET_TMP/cn.err"
    net_wait_for "$NET_TMP/cn.err" "virtual Ethernet takt-plk5 up" 20
    on_b ip -br addr show takt-plk5 | grep -q "192.168.100.5/24" ||
        net_fail "takt-plk5 without 192.168.100.5/24: $(on_b ip -br addr show takt-plk5 2>&1)"
    local cnmac tapmac
    # (ip, not /sys/class/net: sysfs shows the namespace of whoever mounted it)
    cnmac=$(on_b ip -br link show dev "$TAKT_IF_B" | awk '{print $3}')
    tapmac=$(on_b ip -br link show dev takt-plk5 | awk '{print $3}')
    [ -n "$cnmac" ] && [ "$cnmac" = "$tapmac" ] || net_fail "takt-plk5 has MAC '$tapmac', the CN's is '$cnmac'"
    on_b_bg python3 -m http.server 8080 --bind 192.168.100.5 --directory "$NET_TMP/www" \
        >"$NET_TMP/http.out" 2>&1
    "$TAKT" plk mn -i "$TAKT_IF_A" --nodes 5 --veth --boot-wait 100 --loss-threshold "$NET_PLK_LOSS" \
        -t "$NET_PLK_LIMIT" --pcap "$NET_TMP/veth.pcapng" >"$NET_TMP/mn.out" 2>"$NET_TMP/mn.err" &
    local mn=$! i=0 out
    net_wait_for "$NET_TMP/mn.err" "virtual Ethernet takt-plk0 up" 20
    # the CN's host answers once the MN has booted the CN: ping until then (generous limit)
    until ping -c 1 -W 2 192.168.100.5 >"$NET_TMP/ping" 2>&1; do
        i=$((i + 1))
        [ $i -lt 60 ] || net_fail "no ping answer from 192.168.100.5 through takt-plk0: $(cat "$NET_TMP/ping" "$NET_TMP/mn.err" "$NET_TMP/cn.err")"
    done
    ping -c 5 -W 5 192.168.100.5 >"$NET_TMP/ping" 2>&1 || net_fail "ping -c 5 through the virtual Ethernet: $(cat "$NET_TMP/ping")"
    ! grep -q DUP "$NET_TMP/ping" || net_fail "duplicate ping answers (the CN's host took a frame twice): $(cat "$NET_TMP/ping")"
    net_log "$(grep -E 'received|rtt' "$NET_TMP/ping" | tr '\n' ' ')"
    on_b ip link show dev takt-plk5 | grep -q "mtu 300 " ||
        net_fail "takt-plk5's MTU is not the minimum async MTU 300: $(on_b ip link show dev takt-plk5)"
    # TCP and SDO over UDP at the same time
    http_get >"$NET_TMP/http_get.err" 2>&1 &
    local get=$!
    out=$(net_plk_udp_read) || net_fail "SDO over UDP to the CN while its host has the TAP: $out"
    [ "$out" = "0x0000001a" ] || net_fail "0x1018/1 over UDP: expected 0x0000001a, got '$out'"
    wait $get || net_fail "HTTP through the virtual Ethernet: $(cat "$NET_TMP/http_get.err")"
    cmp -s "$NET_TMP/got.html" "$NET_TMP/www/page.html" ||
        net_fail "the page came back different ($(wc -c <"$NET_TMP/got.html") of $(wc -c <"$NET_TMP/www/page.html") bytes)"
    kill -INT $mn
    wait $mn
    net_plk_cn_stop
    grep -q "virtual Ethernet takt-plk5: [1-9][0-9]* frames to the network, [1-9][0-9]* to the host, 0 dropped" "$NET_TMP/cn.out" ||
        net_fail "CN virtual Ethernet counts: $(grep -i virtual "$NET_TMP/cn.out")"
    net_json_check "$NET_TMP/cn.json" "j['nodes'][0]['veth_to_host'] >= 10 and j['nodes'][0]['veth_to_net'] >= 10 and j['nodes'][0]['veth_dropped'] == 0" \
        "the CN's JSON: frames through its virtual Ethernet"
    command -v tshark >/dev/null || { net_log "tshark missing: capture not judged"; return 0; }
    [ -r "${HOME:-/nonexistent}" ] && [ -x "${HOME:-/nonexistent}" ] || export HOME=$NET_TMP
    # POWERLINK and every frame but TCP's judged by the house rule (no malformed frame,
    # no expert info); TCP's notes on a resent segment are TCP's business, a malformed
    # TCP frame is not
    tshark -r "$NET_TMP/veth.pcapng" -Y '!tcp' -w "$NET_TMP/notcp.pcapng" 2>/dev/null ||
        net_fail "tshark cannot filter $NET_TMP/veth.pcapng"
    net_check_capture "$NET_TMP/notcp.pcapng"
    local bad n
    bad=$(tshark -r "$NET_TMP/veth.pcapng" -Y '_ws.malformed' 2>/dev/null | head -n 5)
    [ -z "$bad" ] || net_fail "malformed frames: $bad"
    n=$(tshark -r "$NET_TMP/veth.pcapng" -Y 'tcp.srcport == 8080 && ip.src == 192.168.100.5' 2>/dev/null | wc -l)
    [ "$n" -ge 5 ] || net_fail "expected TCP segments from the CN host's port 8080, got $n"
    n=$(tshark -r "$NET_TMP/veth.pcapng" -Y 'udp.port==3819 && ip.src==192.168.100.5 && epl.asnd.svid==5' 2>/dev/null | wc -l)
    [ "$n" -ge 3 ] || net_fail "expected SDO/UDP answers from 192.168.100.5, got $n"
    net_plk_check_slots "$NET_TMP/veth.pcapng" 20 5
    net_log "$(grep "virtual Ethernet" "$NET_TMP/cn.out" "$NET_TMP/mn.out")"
}

net_main body
