#!/bin/bash
# takt sim ecat on a veth end, driven by raw frames from the other end (a small
# python3 AF_PACKET master): scan by BRD/APWR, U/L bit, SII read, mailbox CoE SDO
# upload, DC latch and FRMW. tshark (ecat, ecatf, ecat_mailbox) must find nothing
# malformed and no expert info in the capture. A second run sends malformed frames:
# no reply, and the first slave's processing-unit error counter (0x030C) counts them;
# --ram sets the process RAM a master reads in 0x0006 (default 8 KiB).
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

body() {
    write_driver
    local devs=ek1100,el1004,el3102,servo n=4
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices $devs -t 20 --json "$NET_TMP/sim.json" \
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
}

net_main body
