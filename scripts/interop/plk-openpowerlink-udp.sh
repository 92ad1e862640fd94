#!/bin/bash
# takt's CN behind openPOWERLINK's virtual Ethernet (docs/interop.md): demo_mn_console,
# whose Linux library liboplkmn is built with CONFIG_INCLUDE_VETH and
# CONFIG_INCLUDE_SDO_UDP, boots `takt plk cn --node 1`; then its TAP device plk_veth
# (192.168.100.240) carries a ping of 192.168.100.1 and an SDO read of 0x1018/1 from a
# plain UDP socket to 192.168.100.1:3819, both through the async phase of an MN that
# is not takt's. The other direction is not possible: openPOWERLINK's Linux CN library
# (liboplkcn) has neither SDO over UDP nor a virtual Ethernet, and demo_cn_console adds
# SDO over UDP only with CFG_IP_STACK (targets with an IP stack of their own).
#
# usage: plk-openpowerlink-udp.sh; needs root. Environment:
#   TAKT     takt binary (default: build-interop/takt, then build/takt in the tree)
#   OPLK_MN  path of demo_mn_console;  OPLK_CDC its mnobd.cdc (default: Demo_3CN's fixture)
#   OUT      directory for logs and captures (default: a new /tmp/plk-interop-udp.*)
# Exit 0 on PASS, and on XFAIL: the ping and the read fail because openPOWERLINK's MN
# writes no received frame to plk_veth, shown by a probe of raw ARP frames to its port
# that leaves plk_veth's RX count unchanged (docs/interop.md); 1 on FAIL, 77 when it
# cannot run here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if [ -z "${TAKT:-}" ]; then
    for t in "$src/build-interop/takt" "$src/build/takt"; do [ -x "$t" ] && { TAKT=$t; break; }; done
fi
[ -n "${TAKT:-}" ] && [ -x "$TAKT" ] || { echo "SKIP: set TAKT to the takt binary" >&2; exit 77; }
[ -x "${OPLK_MN:-}" ] || { echo "SKIP: set OPLK_MN to demo_mn_console (docs/interop.md builds it)" >&2; exit 77; }
export TAKT OPLK_MN
if [ -z "${TAKT_IF_A:-}" ]; then               # outside: make the pair, rerun inside it
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (SCHED_FIFO, mount namespaces, /dev/net/tun)" >&2; exit 77; }
    for c in dumpcap tshark mergecap unshare ping python3; do
        command -v $c >/dev/null || { echo "SKIP: $c missing" >&2; exit 77; }
    done
    export OUT=${OUT:-$(mktemp -d /tmp/plk-interop-udp.XXXXXX)}
    mkdir -p "$OUT"
    exec "$TAKT" netns run -- bash "$0"
fi
cdc=${OPLK_CDC:-${TAKT_FIXTURES:-$src/../shared/fixtures}/powerlink-config/Demo_3CN/mnobd.cdc}
[ -f "$cdc" ] || cdc=$(dirname "$OPLK_MN")/mnobd.cdc
[ -f "$cdc" ] || { echo "FAIL no CDC (set OPLK_CDC)"; exit 1; }
log() { echo "--- $*" >&2; }
b() { "$TAKT" netns exec b -- "$@"; }
d=$(mktemp -d "$OUT/oplk-mn.XXXX")
tag=oplk-mn-veth_takt-cn
"$TAKT" netns exec a -- dumpcap -q -i "$TAKT_IF_A" -f inbound -w "$OUT/$tag.a.pcapng" 2>"$OUT/dumpcap-a.log" &
cap_a=$!
"$TAKT" netns exec b -- dumpcap -q -i "$TAKT_IF_B" -f inbound -w "$OUT/$tag.b.pcapng" 2>"$OUT/dumpcap-b.log" &
cap_b=$!
sleep 1
log "$(basename "$OPLK_MN") -c $cdc on side B (plk_veth there); takt plk cn --node 1 on side A"
# a private /dev/shm for openPOWERLINK's fixed-name queues; its pid for the stop
"$TAKT" netns exec b -- unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm && cd "$0" && echo $$ >pid && exec "$@"' \
    "$d" "$OPLK_MN" -c "$cdc" -d "$TAKT_IF_B" </dev/null >"$OUT/oplk-mn.out" 2>&1 &
mn=$!
# takt's CN joins 3 s later, as in plk-openpowerlink.sh's scenario cn: found while the
# MN is still in PreOp1 it trips over its async race (cn-early, docs/interop.md)
sleep 3
"$TAKT" plk cn -i "$TAKT_IF_A" --node 1 -t 60 --json "$OUT/takt-cn.json" >"$OUT/takt-cn.out" 2>&1 &
cn=$!
ok=1 why=""
for _ in $(seq 400); do   # its CFM needs ~8 s; a loaded host more
    grep -q 'Node=  1, NmtNodeEventNmtState State:NmtCsOperational' "$OUT/oplk-mn.out" && break
    sleep 0.1
done
grep -q 'Node=  1, NmtNodeEventNmtState State:NmtCsOperational' "$OUT/oplk-mn.out" || { ok=0; why="CN 1 not Operational; "; }
# openPOWERLINK sets plk_veth's address and MTU but leaves it down: the user brings it up
b ip link set plk_veth up 2>"$OUT/veth-up.txt" || { ok=0; why="$why plk_veth: $(cat "$OUT/veth-up.txt"); "; }
b ip -br addr show >"$OUT/side-b-addr.txt" 2>&1
ping_out=$(b ping -c 5 -W 3 192.168.100.1 2>&1) || { ok=0; why="$why ping failed; "; }
echo "$ping_out" >"$OUT/ping.txt"
b ip neigh show dev plk_veth >"$OUT/neigh.txt" 2>&1
b ip -s link show plk_veth >"$OUT/veth-stats.txt" 2>&1
sdo=$(b python3 - <<'PY' 2>&1
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.168.100.240", 0))   # openPOWERLINK's own SDO/UDP socket holds port 3819
s.settimeout(2)
def xfer(seq, cmd=b""):
    for _ in range(10):
        s.sendto(bytes([6, 0, 0, 5]) + bytes(seq) + bytes(2) + cmd, ("192.168.100.1", 3819))
        try:
            return s.recvfrom(1500)[0]
        except socket.timeout:
            pass
    sys.exit("no answer from 192.168.100.1:3819")
xfer([0x00, 0x01])
xfer([0x01, 0x02])
r = xfer([0x02, 0x06], bytes([0, 0, 0, 2]) + struct.pack("<H", 4) + bytes(2) + struct.pack("<HBB", 0x1018, 1, 0))
if r[:4] != bytes([6, 0, 0, 5]) or r[10] & 0xC0 != 0x80:
    sys.exit("unexpected answer " + r.hex())
print("0x%08x" % struct.unpack("<I", r[16:20])[0])
PY
) || { ok=0; why="$why SDO over UDP failed: $sdo; "; }
[ "$sdo" = 0x0000001a ] || { ok=0; why="$why 0x1018/1 over UDP: '$sdo'; "; }
sleep 0.3
kill "$cap_a" "$cap_b" 2>/dev/null; wait "$cap_a" "$cap_b" 2>/dev/null
# Probe (not captured): does openPOWERLINK's MN pass any received non-POWERLINK frame to plk_veth?
# Five ARP replies to its port's MAC and five to all, sent raw from side A, must raise
# plk_veth's RX count; takt's CN is not involved.
rx0=$(b cat /proc/net/dev | awk '$1 == "plk_veth:" { print $3 }')
bmac=$(b ip -br link show dev "$TAKT_IF_B" | awk '{ print $3 }')
python3 - "$TAKT_IF_A" "$bmac" <<'PY' 2>"$OUT/probe.txt"
import socket, struct, sys
ifn, mac = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifn, 0))
src = bytes.fromhex("020000000199")
arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 2) + src + bytes([192, 168, 100, 99]) + mac + bytes([192, 168, 100, 240])
for dst in [mac] * 5 + [b"\xff" * 6] * 5:
    s.send(dst + src + b"\x08\x06" + arp + bytes(18))
PY
sleep 1
rx1=$(b cat /proc/net/dev | awk '$1 == "plk_veth:" { print $3 }')
probe="plk_veth RX packets ${rx0:-?} -> ${rx1:-?} after 10 raw ARP frames to its port"
kill -TERM "$cn" 2>/dev/null; wait "$cn" 2>/dev/null
p=$(cat "$d/pid" 2>/dev/null) && kill -TERM "$p" 2>/dev/null
for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$p" 2>/dev/null; wait "$mn" 2>/dev/null
mergecap -w "$OUT/$tag.pcapng" "$OUT/$tag.a.pcapng" "$OUT/$tag.b.pcapng" && rm -f "$OUT/$tag".[ab].pcapng
f=$OUT/$tag.pcapng
# the IP side is judged here; the boot's own frames are scenario cn's business in
# plk-openpowerlink.sh (SDO retransmissions of a loaded host show there as notes)
all=$(tshark -r "$f" -Y '_ws.malformed || _ws.expert' 2>/dev/null | tee "$OUT/tshark-notes.txt" | wc -l)
bad=$(tshark -r "$f" -Y '(_ws.malformed || _ws.expert) && (ip || arp)' 2>/dev/null | tee "$OUT/tshark-bad.txt" | wc -l)
[ "$bad" = 0 ] || { ok=0; why="$why tshark: $bad malformed/expert IP/ARP frames (tshark-bad.txt); "; }
# where each IP/ARP frame sat: after which SoA (svid/target), by sender
slots=$(tshark -r "$f" -T fields -E separator=';' -e eth.type -e ip.src -e arp.src.proto_ipv4 -e epl.mtyp \
    -e epl.soa.svid -e epl.soa.svtg 2>/dev/null | awk -F';' '
    $1 == "0x0800" || $1 == "0x0806" { src = $2 != "" ? $2 : $3; sub(/.*\./, "", src)
        k = "from ." src " after SoA " (svid == "" ? "none" : svid "->" tg); n[k]++; svid = ""; next }
    $4 == "5" { svid = $5; tg = $6; next }
    $4 == "4" { next }   # a PRes later than the MN waited (Demo_3CN: 200 us) still comes before
    { svid = "" }
    END { for (k in n) printf "%s: %d; ", k, n[k] }')
udp=$(tshark -r "$f" -Y 'udp.port==3819 && epl.asnd.svid==5' 2>/dev/null | wc -l)
rtt=$(grep -o 'rtt min/avg/max/mdev = [0-9./]*' "$OUT/ping.txt")
msg="demo_mn_console (plk_veth) -> takt plk cn --node 1: ping $(grep -o '[0-9]* received' "$OUT/ping.txt") ${rtt:-}; SDO over UDP 0x1018/1 = ${sdo:-none}; $udp SDO/UDP frames decoded by tshark; IP/ARP frames: ${slots:-none}; tshark $bad malformed/expert IP/ARP frames ($all notes in all, tshark-notes.txt); logs in $OUT"
msg="$msg; probe: $probe"
if [ $ok = 1 ]; then echo "PASS $msg"; exit 0; fi
# the peer's fault, not takt's: its MN hands no received frame to its TAP at all
if [ -n "${rx0:-}" ] && [ "${rx0:-}" = "${rx1:-}" ] && [ "$bad" = 0 ]; then
    echo "XFAIL KNOWN openPOWERLINK MN LIMIT (no received frame reaches plk_veth): $why$msg"
    exit 0
fi
echo "FAIL $why$msg"
exit 1
