#!/bin/bash
# SoE across veth: takt ecat soe read/write against takt sim ecat's soe-drive (SoE in
# its SII, no CoE): a value, several elements in one request (name, attribute, unit,
# value), a write read back with the IDN's decimals, an IDN list, a list larger than the
# mailbox written and read back in fragments; a read-only IDN, an unknown IDN and a
# slave without SoE refused with clear messages; N reads timed (--repeat); the drive
# runs in OP under `takt ecat run`. tshark decodes the SoE messages (fragments
# included) in every capture without expert info.
. "$(dirname "$0")/lib.sh"

soe() {   # NAME, takt ecat soe args...: run with a capture of its own
    local name=$1
    shift
    "$TAKT" ecat soe -i "$TAKT_IF_A" --pcap "$NET_TMP/soe-$name.pcapng" "$@" \
        >"$NET_TMP/soe-$name.out" 2>"$NET_TMP/soe-$name.err"
}

ok() {   # NAME, args...: must succeed; the capture must be clean
    local name=$1
    soe "$@" || net_fail "soe $*: $(cat "$NET_TMP/soe-$name.err")"
    net_check_capture "$NET_TMP/soe-$name.pcapng"
}

refused() {   # NAME, TEXT, args...: must fail naming TEXT
    local name=$1 text=$2
    shift 2
    soe "$name" "$@" && net_fail "soe $*: accepted, expected '$text'"
    grep -qF -- "$text" "$NET_TMP/soe-$name.err" ||
        net_fail "soe $*: expected '$text', got: $(cat "$NET_TMP/soe-$name.err")"
    net_check_capture "$NET_TMP/soe-$name.pcapng"
    net_log "refused: $(cat "$NET_TMP/soe-$name.err")"
}

body() {
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,soe-drive,el2004 -t 120 \
        >"$NET_TMP/sim.out" 2>&1 &
    local sim=$! out
    net_wait_for "$NET_TMP/sim.out" "slaves on" 10
    ok cycle read 1 S-0-0001
    [ "$(cat "$NET_TMP/soe-cycle.out")" = 1000 ] || net_fail "S-0-0001: $(cat "$NET_TMP/soe-cycle.out")"
    ok elems read 1 S-0-0036 --elements name,attribute,unit,value
    out=$(cat "$NET_TMP/soe-elems.out")
    echo "$out" | grep -q "^name *Velocity command value$" || net_fail "name: $out"
    echo "$out" | grep -q "^unit *rpm$" || net_fail "unit: $out"
    echo "$out" | grep -q "^value *0.0000$" || net_fail "value: $out"
    ok wvel write 1 S-0-0036 -- -1.5
    ok rvel read 1 S-0-0036 --json -
    net_json_check "$NET_TMP/soe-rvel.out" "j['value'] == '-1.5000' and j['idn'] == 'S-0-0036'" \
        "S-0-0036 read back"
    ok at read 1 S-0-0016
    [ "$(cat "$NET_TMP/soe-at.out")" = S-0-0051,S-0-0040 ] || net_fail "AT list: $(cat "$NET_TMP/soe-at.out")"
    # 400 items of 2 bytes: 804 bytes through a 128-byte mailbox, 7 fragments each way
    local list
    list=$(python3 -c 'print(",".join(str((i * 37) % 65536) for i in range(400)))')
    ok wlist write 1 P-0-0010 "$list"
    ok rlist read 1 P-0-0010
    [ "$(cat "$NET_TMP/soe-rlist.out")" = "$list" ] || net_fail "P-0-0010 read back differs"
    if command -v tshark >/dev/null; then
        local k
        for f in wlist rlist; do
            k=$(tshark -r "$NET_TMP/soe-$f.pcapng" -Y "ecat_mailbox.soe_header_incomplete == 1" 2>/dev/null | wc -l)
            # 6 fragments with Incomplete set, each seen going out and coming back
            [ "$k" -ge 6 ] || net_fail "tshark sees $k SoE fragments in $f, expected >= 6"
        done
        k=$(tshark -r "$NET_TMP/soe-elems.pcapng" -Y "ecat_mailbox.soe_idn == 36" 2>/dev/null | wc -l)
        [ "$k" -ge 2 ] || net_fail "tshark decodes $k SoE messages for IDN 36, expected >= 2"
    fi
    refused ro "IDN S-0-0040 is read-only" write 1 S-0-0040 5
    refused unknown "IDN S-0-0099: no such IDN" read 1 S-0-0099
    refused nosoe "slave 2 (" read 2 S-0-0001
    grep -q "has no SoE" "$NET_TMP/soe-nosoe.err" || net_fail "no SoE: $(cat "$NET_TMP/soe-nosoe.err")"
    out=$("$TAKT" ecat soe -i "$TAKT_IF_A" read 1 X-0-1 2>&1) && net_fail "IDN X-0-1 accepted"
    echo "$out" | grep -q "expected an IDN like S-0-0036" || net_fail "usage message: $out"
    # round trips of one IDN (figures only: the host is shared and loaded)
    ok rtt read 1 S-0-0051 --repeat 200 --json "$NET_TMP/rtt.json"
    net_log "$(cat "$NET_TMP/soe-rtt.err")"
    # the drive in OP: its process data sized from the SII (MDT 10 bytes, AT 10 bytes)
    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 2 --json "$NET_TMP/run.json" --pcap "$NET_TMP/run.pcapng" \
        >"$NET_TMP/run.out" 2>&1 || net_fail "ecat run: $(tail -5 "$NET_TMP/run.out")"
    net_json_check "$NET_TMP/run.json" "j['slaves'] == 3 and j['state'] == 'OP'" "all slaves in OP"
    net_check_capture "$NET_TMP/run.pcapng"
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
}

net_main body
