#!/bin/bash
# takt plk sdo write --cdc: the value goes out with the object's size as the network's
# configuration gives it, without reading the object first. The Demo_3CN project
# (openCONFIGURATOR: mnobd.cdc and the CiA 401 XDD beside it) against simulated CNs 1,
# 32, 110: 0x1C0B/3 is in node 1's concise DCF (4 bytes), 0x6200/1 is not, the XDD says
# UNSIGNED8 (1 byte). The capture holds no SDO ReadByIndex of either object (before this,
# the command read each object to learn its size); a value too large for the XDD's type
# is refused naming the file, before any MN starts.
. "$(dirname "$0")/lib.sh"

body() {
    local fix=${TAKT_FIXTURES:-}/powerlink-config/Demo_3CN
    [ -f "$fix/mnobd.cdc" ] && [ -f "$fix/00000000_POWERLINK_CiA401_CN.xdd" ] ||
        net_skip "fixture $fix absent (TAKT_FIXTURES)"
    local out rc
    out=$("$TAKT" plk sdo -i "$TAKT_IF_A" --cdc "$fix/mnobd.cdc" -t 5 write 1 0x6200 1 300 2>&1)
    rc=$?
    [ $rc -eq 1 ] && echo "$out" | grep -q "0x6200/1 is 1 byte in $fix/00000000_POWERLINK_CiA401_CN.xdd; 300 does not fit" ||
        net_fail "300 into the XDD's UNSIGNED8: exit $rc: $out"
    net_plk_cn -p 20 -i "$TAKT_IF_B" --nodes 1,32,110 >"$NET_TMP/cn.out" 2>&1
    # PRes timeout and loss threshold as test_plk_cdc.sh: the CDC's are a real network's
    local common=(-i "$TAKT_IF_A" --cdc "$fix/mnobd.cdc" --pres-timeout 1000 --loss-threshold "$NET_PLK_LOSS"
                  --boot-wait 100 -t 60)
    out=$("$TAKT" plk sdo "${common[@]}" --pcap "$NET_TMP/cdc.pcapng" write 1 0x1C0B 3 80 2>&1) ||
        net_fail "write 0x1C0B/3: $out"
    echo "$out" | grep -q "written (4 bytes, the size $fix/mnobd.cdc gives)" ||
        net_fail "0x1C0B/3 not written with the CDC's 4 bytes: $out"
    out=$("$TAKT" plk sdo "${common[@]}" --pcap "$NET_TMP/xdd.pcapng" write 1 0x6200 1 5 2>&1) ||
        net_fail "write 0x6200/1: $out"
    echo "$out" | grep -q "written (1 bytes, the size $fix/00000000_POWERLINK_CiA401_CN.xdd gives)" ||
        net_fail "0x6200/1 not written with the XDD's 1 byte: $out"
    # (no read back: 0x6200/1 is RPDO-mapped, every PReq of the MN overwrites it)
    net_plk_cn_stop
    if command -v tshark >/dev/null; then
        local f idx n
        for f in cdc:0x1c0b xdd:0x6200; do
            idx=${f#*:}
            # SDO command layer ReadByIndex (command ID 2) requests from the MN for it
            n=$(tshark -r "$NET_TMP/${f%%:*}.pcapng" -Y "epl.src == 240 && epl.asnd.sdo.cmd.command.id == 2 && epl.asnd.sdo.cmd.response == 0 && epl.asnd.sdo.cmd.data.index == $idx" 2>/dev/null | wc -l)
            [ "$n" -eq 0 ] || net_fail "$n SDO reads of $idx before the write: the size did not come from the ${f%%:*}"
            n=$(tshark -r "$NET_TMP/${f%%:*}.pcapng" -Y "epl.src == 240 && epl.asnd.sdo.cmd.command.id == 1 && epl.asnd.sdo.cmd.response == 0 && epl.asnd.sdo.cmd.data.index == $idx" 2>/dev/null | wc -l)
            [ "$n" -ge 1 ] || net_fail "no SDO WriteByIndex of $idx in the capture"
            net_check_capture "$NET_TMP/${f%%:*}.pcapng"
        done
    fi
}

net_main body
