#!/bin/bash
# takt sim ecat on a veth end, driven by raw frames from the other end (a small
# python3 AF_PACKET master): scan by BRD/APWR, U/L bit, SII read, mailbox CoE SDO
# upload, DC latch and FRMW. tshark (ecat, ecatf, ecat_mailbox) must find nothing
# malformed and no expert info in the capture. A second run sends malformed frames:
# no reply, and the first slave's processing-unit error counter (0x030C) counts them;
# --ram sets the process RAM a master reads in 0x0006 (default 8 KiB). --fault from the
# command line: an SDO abort, a refused state, replies delayed and corrupted.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || net_skip "python3 missing: needed for the raw-frame driver"

write_driver() {
cat >"$NET_TMP/drive.py" <<'EOF'
import socket, struct, sys, time

iface, mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88A4))
s.bind((iface, 0))
s.settimeout(0.3)
SRC = bytes([0x10] * 6)
idx = 0

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def frame(dgs, raw_hdr=None):
    body = b''
    for i, (cmd, adp, ado, data) in enumerate(dgs):
        ln = len(data) | (0x8000 if i < len(dgs) - 1 else 0)
        body += struct.pack('<BBHHHH', cmd, (idx + i) & 0xFF, adp & 0xFFFF, ado, ln, 0) + data + b'\0\0'
    hdr = raw_hdr if raw_hdr is not None else struct.pack('<H', 0x1000 | len(body))
    f = b'\xff' * 6 + SRC + b'\x88\xa4' + hdr + body
    return f + b'\0' * max(0, 60 - len(f))

def recv_reply(want_idx):
    end = time.time() + 0.3
    while time.time() < end:
        try:
            data, addr = s.recvfrom(2000)
        except socket.timeout:
            return None
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        if len(data) >= 17 and data[17] == want_idx:
            return data
    return None

def xfer(dgs, raw_hdr=None, expect=True):
    global idx
    f = frame(dgs, raw_hdr)
    s.send(f)
    r = recv_reply(idx & 0xFF)
    first = idx
    idx = (idx + len(dgs)) & 0xFF
    if r is None:
        if expect:
            fail("no reply to datagrams %s" % [hex(d[0]) for d in dgs])
        return None
    if expect is False:
        fail("a reply came to a frame that should have been dropped")
    if r[6] != (SRC[0] | 0x02):
        fail("source MAC of the reply %s: U/L bit not set" % r[6:12].hex())
    out, p = [], 16
    for cmd, adp, ado, data in dgs:
        n = len(data)
        radp = struct.unpack_from('<H', r, p + 2)[0]
        out.append((r[p + 10:p + 10 + n], struct.unpack_from('<H', r, p + 10 + n)[0], radp))
        p += 10 + n + 2
    return out

def rd(st, ado, n):
    d, w, _ = xfer([(4, st, ado, b'\0' * n)])[0]
    if w != 1:
        fail("FPRD 0x%04X:0x%04X WKC %d" % (st, ado, w))
    return d

def wr(st, ado, data):
    _, w, _ = xfer([(5, st, ado, data)])[0]
    if w != 1:
        fail("FPWR 0x%04X:0x%04X WKC %d" % (st, ado, w))

def sii(st, word):
    wr(st, 0x502, struct.pack('<HI', 0x0100, word))
    for _ in range(50):
        if not struct.unpack('<H', rd(st, 0x502, 2))[0] & 0x8000:
            return struct.unpack('<I', rd(st, 0x508, 4))[0]
    fail("SII busy forever")

if mode == 'good':
    n = int(sys.argv[3])
    _, w, adp = xfer([(7, 0, 0, b'\0\0')])[0]
    if w != n or adp != n:
        fail("BRD 0x0000: WKC %d ADP %d, expected %d" % (w, adp, n))
    res = xfer([(2, -k, 0x10, struct.pack('<H', 0x1001 + k)) for k in range(n)])
    if [r[1] for r in res] != [1] * n:
        fail("APWR station addresses: WKCs %s" % [r[1] for r in res])
    if rd(0x1001, 0x0006, 1)[0] != 8:
        fail("0x0006 process RAM %d KiB, expected the default 8" % rd(0x1001, 0x0006, 1)[0])
    st = 0x1003                                    # el3102: mailbox + CoE
    vendor = sii(st, 0x08)
    mbx = [sii(st, w) & 0xFFFF for w in (0x18, 0x19, 0x1A, 0x1B)]
    wr(st, 0x800, struct.pack('<HHBBBB', mbx[0], mbx[1], 0x26, 0, 1, 0) +
                  struct.pack('<HHBBBB', mbx[2], mbx[3], 0x22, 0, 1, 0))
    wr(st, 0x120, struct.pack('<H', 2))
    for _ in range(50):
        if rd(st, 0x130, 2)[0] == 2:
            break
    else:
        fail("slave 3 did not reach PREOP: AL status 0x%s" % rd(st, 0x130, 2).hex())
    req = struct.pack('<HHBB', 10, 0, 0, 0x13) + struct.pack('<HBHB', 0x2000, 0x40, 0x1018, 1) + b'\0' * 4
    wr(st, mbx[0], req + b'\0' * (mbx[1] - len(req)))
    for _ in range(50):
        if rd(st, 0x80D, 1)[0] & 0x08:
            break
    else:
        fail("no SDO response in the read mailbox")
    resp = rd(st, mbx[2], mbx[3])
    ln, _, _, typ = struct.unpack_from('<HHBB', resp)
    coe, cmd, index, sub, val = struct.unpack_from('<HBHBI', resp, 6)
    if typ & 0x0F != 3 or coe >> 12 != 3 or cmd != 0x43 or index != 0x1018 or sub != 1:
        fail("SDO upload 0x1018:01 answer %s" % resp[:16].hex())
    if val != vendor:
        fail("0x1018:01 = 0x%08X but SII vendor = 0x%08X" % (val, vendor))
    # faults injected by --fault: 0x1008:00 of position 2 (station 0x1003) aborts with 0x06060000 ...
    req = struct.pack('<HHBB', 10, 0, 0, 0x23) + struct.pack('<HBHB', 0x2000, 0x40, 0x1008, 0) + b'\0' * 4
    wr(st, mbx[0], req + b'\0' * (mbx[1] - len(req)))
    for _ in range(50):
        if rd(st, 0x80D, 1)[0] & 0x08:
            break
    else:
        fail("no answer to the SDO upload of 0x1008")
    resp = rd(st, mbx[2], mbx[3])
    coe, cmd, index, sub, code = struct.unpack_from('<HBHBI', resp, 6)
    if cmd != 0x80 or index != 0x1008 or code != 0x06060000:
        fail("upload 0x1008 under sdo-abort: %s, expected abort 0x06060000" % resp[:16].hex())
    # ... and position 1 (station 0x1002) refuses PREOP with AL status code 0x0024
    wr(0x1002, 0x120, struct.pack('<H', 2))
    al = struct.unpack('<HHH', rd(0x1002, 0x130, 6))
    if al[0] != 0x11 or al[2] != 0x0024:
        fail("position 1 under refuse=1:preop: AL status 0x%04X code 0x%04X, expected 0x0011 0x0024" % (al[0], al[2]))
    # DC: latch, read, and the cyclic FRMW of 0x0910 from slave 1
    _, w, _ = xfer([(8, 0, 0x900, b'\0' * 4)])[0]
    if w < 1:
        fail("BWR 0x0900: no DC slave latched")
    for k in range(n):
        rd(0x1001 + k, 0x900, 16)
    for _ in range(20):
        res = xfer([(12, 0, 0, b'\0' * 8), (14, 0x1001, 0x910, b'\0' * 8)])
        if res[1][1] != w:
            fail("FRMW 0x0910 WKC %d, expected %d (DC slaves)" % (res[1][1], w))
    print("OK vendor 0x%08X dc %d" % (vendor, w))
elif mode == 'faults':
    # --fault 'delay=30ms;corrupt=1': every reply 30 ms late with one bit flipped
    # after the EtherCAT header; a NOP datagram comes back otherwise unchanged
    sent = frame([(0, 0, 0, b'\0' * 8)])
    for _ in range(3):
        t0 = time.time()
        s.send(sent)
        r = None
        while time.time() < t0 + 1:
            try:
                data, addr = s.recvfrom(2000)
            except socket.timeout:
                break
            if addr[2] != socket.PACKET_OUTGOING:
                r = data
                break
        if r is None:
            fail("no reply under delay/corrupt")
        dt = time.time() - t0
        if dt < 0.03:
            fail("reply after %.1f ms, expected >= 30 ms (delay=30ms)" % (dt * 1000))
        want = bytearray(sent)
        want[6] |= 0x02
        flips = sum(bin(a ^ b).count('1') for a, b in zip(r[16:], want[16:]))
        if len(r) != len(want) or r[:16] != bytes(want[:16]) or flips != 1:
            fail("corrupt=1: %d bits differ after the header, expected 1" % flips)
    print("OK delayed and corrupted")
else:
    xfer([(0x33, 0, 0, b'\0\0')], expect=False)                    # unknown command
    xfer([(7, 0, 0, b'\0\0')], raw_hdr=struct.pack('<H', 0x1000 | 200), expect=False)  # truncated
    xfer([(2, 0, 0x10, b'\x01\x10')])                           # APWR slave 1
    kib = rd(0x1001, 0x0006, 1)[0]
    if kib != int(sys.argv[3]):
        fail("0x0006 process RAM %d KiB, expected %s (--ram)" % (kib, sys.argv[3]))
    errs = rd(0x1001, 0x30C, 1)[0]                              # found by slave 1's processing unit
    if errs != 2:
        fail("slave 1 0x030C processing unit error counter %d, expected 2" % errs)
    fwd = rd(0x1001, 0x308, 1)[0]
    if fwd != 0:
        fail("slave 1 0x0308 forwarded error counter %d, expected 0" % fwd)
    print("OK malformed counted")
EOF
}

# The ways to give the network (--preset, --devices, --esi-dir) build what they say.
check_lists() {
    local p n
    for p in 3 10 20 paper-40; do
        n=$("$TAKT" sim ecat --preset $p --list | wc -l)
        [ "$n" -eq "${p#paper-}" ] || net_fail "--preset $p lists $n slaves"
    done
    n=$("$TAKT" sim ecat --devices ek1100,el1004x4,el2004x2,servo --list | grep -c .)
    [ "$n" -eq 8 ] || net_fail "--devices ek1100,el1004x4,el2004x2,servo lists $n slaves"
    local esi="${TAKT_SOURCE_DIR:-}/data/esi"
    if [ -d "$esi" ]; then
        "$TAKT" sim ecat --esi-dir "$esi" --list >"$NET_TMP/esi.list" || net_fail "--esi-dir $esi refused"
        n=$(ls "$esi"/*.xml | wc -l)
        [ "$(grep -c . "$NET_TMP/esi.list")" -eq "$n" ] || net_fail "--esi-dir: $(cat "$NET_TMP/esi.list")"
        grep -q "CiA 402 servo" "$NET_TMP/esi.list" || net_fail "--esi-dir: no servo in $(cat "$NET_TMP/esi.list")"
    fi
}

body() {
    write_driver
    check_lists
    local devs=ek1100,el1004,el3102,servo n=4
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices $devs -t 20 --json "$NET_TMP/sim.json" \
        --fault 'sdo-abort=2:0x1008:0=0x06060000;refuse=1:preop=0x0024' \
        --pcap "$NET_TMP/sim.pcapng" >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    net_wait_for "$NET_TMP/sim.out" "slaves on" 5
    python3 "$NET_TMP/drive.py" "$TAKT_IF_A" good $n >"$NET_TMP/drive.out" 2>&1 ||
        net_fail "driver: $(cat "$NET_TMP/drive.out")"
    kill -INT $sim 2>/dev/null; wait $sim 2>/dev/null
    net_log "$(cat "$NET_TMP/drive.out")"
    net_json_check "$NET_TMP/sim.json" "j['malformed'] == 0 and j['replies'] == j['frames']" "every frame answered"
    net_check_capture "$NET_TMP/sim.pcapng"
    if command -v tshark >/dev/null; then
        # the dissectors really ran: no malformed/expert means something only if
        # the frames were decoded as EtherCAT frame header, datagrams and mailbox
        local p
        for p in ecatf ecat ecat_mailbox.coe; do
            tshark -r "$NET_TMP/sim.pcapng" -Y "$p" 2>/dev/null | grep -q . ||
                net_fail "tshark decoded no '$p' in the capture"
        done
    fi

    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 3 --ram 16 -t 20 --json "$NET_TMP/sim2.json" \
        >"$NET_TMP/sim2.out" 2>&1 &
    sim=$!
    net_wait_for "$NET_TMP/sim2.out" "slaves on" 5
    python3 "$NET_TMP/drive.py" "$TAKT_IF_A" bad 16 >"$NET_TMP/drive2.out" 2>&1 ||
        net_fail "driver (malformed): $(cat "$NET_TMP/drive2.out")"
    kill -INT $sim 2>/dev/null; wait $sim 2>/dev/null
    net_json_check "$NET_TMP/sim2.json" "j['malformed'] == 2" "malformed frames counted"

    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --preset 3 --fault 'delay=30ms;corrupt=1' -t 20 \
        >"$NET_TMP/sim3.out" 2>&1 &
    sim=$!
    net_wait_for "$NET_TMP/sim3.out" "slaves on" 5
    python3 "$NET_TMP/drive.py" "$TAKT_IF_A" faults >"$NET_TMP/drive3.out" 2>&1 ||
        net_fail "driver (delay/corrupt): $(cat "$NET_TMP/drive3.out")"
    kill -INT $sim 2>/dev/null; wait $sim 2>/dev/null
    net_log "$(cat "$NET_TMP/drive3.out")"
}

net_main body
