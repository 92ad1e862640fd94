# Shared helpers for takt's network tests (tests/net/test_*.sh), sourced by each.
#
# A test defines a function `body` and calls `net_main body`. net_main re-runs the
# script inside a fresh namespace pair made by `takt netns run` (veth ends in
# $TAKT_IF_A and $TAKT_IF_B; the script itself runs in side A; `on_b CMD` (or on_b_bg) runs CMD in
# side B). As root it then runs the same script again as the ordinary user nobody,
# which gets an unprivileged user namespace instead. Exit 77 (skip) with the reason
# when namespaces cannot be made. Everything is removed at the end, also on failure.
#
# Environment (set by CTest): TAKT (the takt binary), TAKT_SOURCE_DIR, TAKT_BUILD_DIR.

set -u

net_fail() { echo "FAIL: $*" >&2; exit 1; }
net_skip() { echo "SKIP: $*" >&2; exit 77; }
net_log()  { echo "--- $*" >&2; }

# Run a command in side B of the pair. `on_b CMD &` runs in a subshell: there the
# command replaces the subshell (exec), so $! is the command's own pid and `kill $!`
# reaches it. on_b_bg CMD does the same as `on_b CMD &`.
on_b() {
    if [ "$BASHPID" != "$$" ]; then
        exec "$TAKT" netns exec b -- "$@"
    fi
    "$TAKT" netns exec b -- "$@"
}
on_b_bg() { "$TAKT" netns exec b -- "$@" & }

# POWERLINK on a loaded host. A shared 2-vCPU CI host stalls processes, SCHED_FIFO ones
# too, for 10-15 ms at a time (seen in CI: SoC period max 14.7 ms at FIFO 30) and can
# stretch a boot of 1-3 s to tens of seconds. So the tests run the MN with --measure S
# (wait until every CN is Operational, then S seconds) within NET_PLK_LIMIT seconds, and
# the simulated CNs from net_plk_cn until net_plk_cn_stop after the MN has ended (SIGTERM:
# they write their JSON and exit). NET_PLK_LOSS (--loss-threshold) switches the reaction
# to lost frames off: the losses are still counted and reported, but a CN is not reset
# for them. No threshold would do: a counter gains 8 per loss and sheds 1 per good
# cycle, so where an unprivileged MN beside CPU hogs loses more than 1 SoC in 9 (seen:
# 13 %), any threshold fires sooner or later. The unit tests (test_errcnt,
# test_mn_errors, test_cn_nmt) check the thresholds and their consequences exactly,
# test_plk_faults.sh a silent CN's threshold across veth.
NET_PLK_LIMIT=150
NET_PLK_LOSS=0
net_plk_cn() {     # ARGS of takt plk cn (not -t); redirect the call's output as wanted
    on_b "$TAKT" plk cn "$@" -t $((NET_PLK_LIMIT + 60)) &
    NET_PLK_CN=$!
    sleep 0.3
}
net_plk_cn_stop() {
    kill -TERM "$NET_PLK_CN" 2>/dev/null
    wait "$NET_PLK_CN"
}

# Wait until FILE contains TEXT (grep -F), at most SECONDS (default 5).
net_wait_for() {
    local file=$1 text=$2 t=${3:-5} i=0
    while ! grep -qF -- "$text" "$file" 2>/dev/null; do
        i=$((i + 1))
        [ $i -gt $((t * 20)) ] && net_fail "timed out waiting for '$text' in $file: $(cat "$file" 2>/dev/null)"
        sleep 0.05
    done
}

# Evaluate a Python expression on the JSON document in FILE (bound to `j`); prints it.
net_json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# Fail unless the Python expression on FILE's JSON is true; MSG explains.
net_json_check() {
    local file=$1 expr=$2 msg=$3 v
    v=$(net_json "$file" "$expr") || net_fail "$msg: cannot evaluate '$expr' on $file"
    [ "$v" = True ] || net_fail "$msg ($expr is $v)"
}

# tshark is the judge of a capture: no malformed frame, no expert info.
net_check_capture() {
    command -v tshark >/dev/null || { net_log "tshark missing: capture $1 not judged"; return 0; }
    local bad
    bad=$(tshark -r "$1" -Y '_ws.malformed || _ws.expert' -T fields -e frame.number -e frame.time_relative \
          -e _ws.col.Info -e _ws.expert.message 2>/dev/null) || net_fail "tshark cannot read $1"
    [ -z "$bad" ] || net_fail "tshark flags $1 (frame, time, info, expert message): $(echo "$bad" | head -n 20)"
}

# POWERLINK's virtual Ethernet in a capture (DS 301 async phase): each IP or ARP frame
# answers a SoA UnspecifiedInvite for its sender (240: the MN), the last SoA before
# it, which no other IP frame answered. Cyclic frames may come between: an MN that
# ran late sends its next SoC right after the SoA, and the answer crosses it on the
# wire. Fails unless at least MIN such frames are there (from node NODE only, if given).
net_plk_check_slots() {   # PCAP MIN [NODE]
    local f=$1 min=$2 only=${3:-}
    tshark -r "$f" -T fields -E separator=';' -e eth.type -e ip.src -e arp.src.proto_ipv4 -e epl.mtyp \
        -e epl.soa.svid -e epl.soa.svtg 2>/dev/null |
        awk -F';' -v f="$f" -v min="$min" -v only="$only" '
            $1 == "0x0800" || $1 == "0x0806" {           # an IP or ARP frame
                src = $2 != "" ? $2 : $3; sub(/.*\./, "", src)
                if (svid != "255" || tg != src || used) {
                    print f ": frame " NR " from ." src " after SoA svid " svid " target " tg (used ? ", answered already" : ""); bad = 1 }
                used = 1; n += only == "" || src == only; next }
            $4 == "5" { svid = $5; tg = $6; used = 0 }   # SoA
            END { if (n < min) print f ": " n " IP/ARP frames" (only == "" ? "" : " from node " only) ", expected " min " or more"
                  exit bad || n < min }' ||
        net_fail "IP frames that answer no UnspecifiedInvite for their sender (above)"
}

# An SDO read of 0x1018/1 from CN 192.168.100.5 with a plain UDP socket of the MN's host
# (192.168.100.240, as openPOWERLINK's sdoudp sends it): the sequence layer's handshake,
# then an expedited ReadByIndex, then the close; prints the value
net_plk_udp_read() {
    python3 - <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.168.100.240", 3819))
s.settimeout(2)
def xfer(seq, cmd=b""):
    for _ in range(15):
        s.sendto(bytes([6, 0, 0, 5]) + bytes(seq) + bytes(2) + cmd, ("192.168.100.5", 3819))
        try:
            return s.recvfrom(1500)[0]
        except socket.timeout:
            pass
    sys.exit("no answer from 192.168.100.5:3819")
xfer([0x00, 0x01])                      # InitReq
xfer([0x01, 0x02])                      # InitResp (after the InitAck)
r = xfer([0x02, 0x06], bytes([0, 0, 0, 2]) + struct.pack("<H", 4) + bytes(2) + struct.pack("<HBB", 0x1018, 1, 0))
if r[:4] != bytes([6, 0, 0, 5]) or r[10] & 0xC0 != 0x80:
    sys.exit("unexpected answer " + r.hex())
print("0x%08x" % struct.unpack("<I", r[16:20])[0])
# close the connection (rcon 0, scon 0), else the CN resends its unacknowledged answer;
# the port stays open a while so an answer resent before the close arrived meets a
# socket (and another close), not the host's ICMP port unreachable
close = bytes([6, 0, 0, 5, 0, 0, 0, 0])
s.sendto(close, ("192.168.100.5", 3819))
s.settimeout(0.2)
end = time.time() + 1.5
while time.time() < end:
    try:
        s.recvfrom(1500)
        s.sendto(close, ("192.168.100.5", 3819))
    except socket.timeout:
        pass
PY
}

net_cleanup() {
    local p
    for p in $(jobs -p); do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${NET_TMP:-}" ] && rm -rf "$NET_TMP"
}

net_main() {
    local body=$1 script rc
    script=$(readlink -f "$0")
    [ -n "${TAKT:-}" ] && [ -x "$TAKT" ] || net_skip "TAKT (path of the takt binary) is not set; run through ctest"
    if [ -n "${TAKT_IF_A:-}" ]; then                  # inside the pair: the test proper
        NET_TMP=$(mktemp -d)
        trap net_cleanup EXIT
        net_log "$(basename "$script") as uid $(id -u) (outside: ${TAKT_NET_OUTER_UID:-?}) on $TAKT_IF_A <-> $TAKT_IF_B, user namespace: $TAKT_NETNS_USERNS"
        "$body"
        return
    fi
    TAKT_NET_OUTER_UID=$(id -u) "$TAKT" netns run -- bash "$script"
    rc=$?
    [ $rc -eq 0 ] || exit $rc
    if [ "$(id -u)" = 0 ] && [ -z "${TAKT_NET_NO_USER:-}" ] &&
        ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TAKT" -a -r "$script" -a -r "$TAKT_SOURCE_DIR/data" 2>/dev/null; then
        # a checkout inside a private directory (mktemp -d makes them 0700) is out of
        # nobody's reach: the ordinary-user pass cannot run from here
        net_log "ordinary-user pass skipped: nobody cannot reach $TAKT, $script or $TAKT_SOURCE_DIR/data" \
                "(a checkout below a private directory); run from a world-readable checkout to include it"
    elif [ "$(id -u)" = 0 ] && [ -z "${TAKT_NET_NO_USER:-}" ]; then
        net_log "again as an ordinary user (nobody, uid 65534)"
        ( cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
            env TAKT_NET_NO_USER=1 TAKT_NET_OUTER_UID=65534 "$TAKT" netns run -- bash "$script" )
        rc=$?
        if [ $rc -eq 77 ]; then
            net_log "the ordinary-user run was skipped (reason above); the root run passed"
            rc=0
        fi
    fi
    exit $rc
}
