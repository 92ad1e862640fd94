#!/bin/bash
# FoE across veth: takt ecat foe write/read against takt sim ecat's servo (FoE in its
# ESI; --foe adds a password-protected file and a BUSY before each ACK): files of
# several segments, an exact multiple of the segment size, empty and 100 kB read back
# byte for byte; a missing file, a firmware written outside BOOT and a wrong password
# refused with their FoE error codes; the firmware written with --boot (INIT -> BOOT on
# the bootstrap mailbox, BOOT -> INIT) and read back; `takt ecat slaves -v` shows the
# bootstrap mailbox; `takt ecat states [-s POS] BOOT`. tshark decodes the FoE (BUSY
# included) in every capture without expert info.
. "$(dirname "$0")/lib.sh"

SEG=$((128 - 12))    # the servo's 128-byte mailboxes less mailbox and FoE headers

foe() {   # NAME, takt ecat foe args...: run with a capture of its own
    local name=$1
    shift
    "$TAKT" ecat foe -i "$TAKT_IF_A" --pcap "$NET_TMP/foe-$name.pcapng" "$@" \
        >"$NET_TMP/foe-$name.out" 2>"$NET_TMP/foe-$name.err"
}

round_trip() {   # NAME, BYTES
    local name=$1 n=$2
    head -c "$n" /dev/urandom >"$NET_TMP/$name"
    foe "w-$name" -s 1 write "$NET_TMP/$name" ||
        net_fail "write $name ($n bytes): $(cat "$NET_TMP/foe-w-$name.err")"
    foe "r-$name" -s 1 read "$name" -o "$NET_TMP/$name.back" ||
        net_fail "read $name: $(cat "$NET_TMP/foe-r-$name.err")"
    cmp "$NET_TMP/$name" "$NET_TMP/$name.back" || net_fail "$name ($n bytes) read back differs"
    net_check_capture "$NET_TMP/foe-w-$name.pcapng"
    net_check_capture "$NET_TMP/foe-r-$name.pcapng"
    net_log "$name: $n bytes written and read back"
}

foe_packets() {   # CAPTURE: FoE messages tshark decodes in it
    tshark -r "$1" -Y ecat_mailbox.foe 2>/dev/null | wc -l
}

body() {
    # the servo holds a password-protected file and answers each DATA once with BUSY
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,servo -t 60 \
        --foe "1:secret.txt,pw=77,size=500;1:busy=1" >"$NET_TMP/sim.out" 2>&1 &
    local sim=$! out
    net_wait_for "$NET_TMP/sim.out" "slaves on" 10
    round_trip several.bin $((3 * SEG + 17))
    round_trip exact.bin $((4 * SEG))
    round_trip empty.bin 0
    round_trip large.bin 100000
    if command -v tshark >/dev/null; then
        local k
        k=$(foe_packets "$NET_TMP/foe-w-exact.bin.pcapng")
        # WRQ + ACK, 5 DATA (the last one empty) + 5 ACK, each seen going and coming back
        [ "$k" -ge 12 ] || net_fail "tshark decodes $k FoE messages in the exact-multiple write, expected >= 12"
    fi
    foe secret -s 1 read secret.txt --password 77 -o "$NET_TMP/secret" ||
        net_fail "password read: $(cat "$NET_TMP/foe-secret.err")"
    [ "$(stat -c %s "$NET_TMP/secret")" = 500 ] || net_fail "secret.txt: 500 bytes expected"
    foe nopw -s 1 read secret.txt -o "$NET_TMP/x" && net_fail "read without the password"
    grep -q "0x800A" "$NET_TMP/foe-nopw.err" || net_fail "password: $(cat "$NET_TMP/foe-nopw.err")"
    if command -v tshark >/dev/null; then
        tshark -r "$NET_TMP/foe-w-several.bin.pcapng" -Y "ecat_mailbox.foe_opmode == 6" 2>/dev/null |
            grep -q . || net_fail "no FoE BUSY in the capture of a write (busy=1)"
    fi
    # refusals: exit 1 and the FoE error code named
    foe missing -s 1 read nothing.bin -o "$NET_TMP/x" && net_fail "a missing file was read"
    grep -q "0x8001" "$NET_TMP/foe-missing.err" || net_fail "not found: $(cat "$NET_TMP/foe-missing.err")"
    net_check_capture "$NET_TMP/foe-missing.pcapng"
    head -c 3000 /dev/urandom >"$NET_TMP/firmware.bin"
    foe fw-preop -s 1 write "$NET_TMP/firmware.bin" && net_fail "firmware written outside BOOT"
    grep -q "0x8008" "$NET_TMP/foe-fw-preop.err" || net_fail "bootstrap only: $(cat "$NET_TMP/foe-fw-preop.err")"
    # with --boot: INIT -> BOOT, the write, BOOT -> INIT
    foe fw-boot -s 1 write --boot "$NET_TMP/firmware.bin" ||
        net_fail "firmware in BOOT: $(cat "$NET_TMP/foe-fw-boot.err")"
    net_check_capture "$NET_TMP/foe-fw-boot.pcapng"
    foe fw-back -s 1 read firmware.bin -o "$NET_TMP/firmware.back" ||
        net_fail "firmware read: $(cat "$NET_TMP/foe-fw-back.err")"
    cmp "$NET_TMP/firmware.bin" "$NET_TMP/firmware.back" || net_fail "firmware read back differs"
    # bad usage says what was expected
    out=$("$TAKT" ecat foe -i "$TAKT_IF_A" copy x 2>&1) && net_fail "foe copy accepted"
    echo "$out" | grep -q "expected read FILE or write FILE" || net_fail "usage message: $out"
    out=$("$TAKT" ecat slaves -i "$TAKT_IF_A" -v) || net_fail "ecat slaves -v: $out"
    echo "$out" | grep -q "bootstrap mailbox out 0x1000/128 in 0x1200/128" ||
        net_fail "slaves -v shows no bootstrap mailbox for the servo: $out"
    # one slave to BOOT, the coupler stays where it is
    "$TAKT" ecat states -i "$TAKT_IF_A" PREOP >/dev/null || net_fail "ecat states PREOP"
    out=$("$TAKT" ecat states -i "$TAKT_IF_A" -s 1 BOOT --pcap "$NET_TMP/boot1.pcapng" 2>&1) ||
        net_fail "ecat states -s 1 BOOT: $out"
    echo "$out" | grep -q "^1 .*BOOT" || net_fail "servo not in BOOT: $out"
    echo "$out" | grep -q "^0 .*PREOP" || net_fail "the coupler left PREOP: $out"
    net_check_capture "$NET_TMP/boot1.pcapng"
    # the whole network to BOOT and back (the EK1100 mirrors AL control: device emulation)
    out=$("$TAKT" ecat states -i "$TAKT_IF_A" BOOT 2>&1) || net_fail "ecat states BOOT: $out"
    echo "$out" | grep -q "^1 .*BOOT" || net_fail "servo not in BOOT: $out"
    out=$("$TAKT" ecat states -i "$TAKT_IF_A" INIT 2>&1) || net_fail "ecat states INIT after BOOT: $out"
    [ "$(echo "$out" | grep -c INIT)" = 2 ] || net_fail "not back in INIT: $out"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
}

net_main body
