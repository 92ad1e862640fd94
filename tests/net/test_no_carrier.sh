#!/bin/bash
# An interface that is up without a carrier (cable unplugged; here a veth end whose peer
# is down): every command that needs the wire says "IF has no carrier (cable unplugged?)"
# and exits non-zero, instead of an empty error, a bogus position range or the errno of
# the kernel's drop; `plk mn` warns at its start and names the link in its final line.
. "$(dirname "$0")/lib.sh"

expect_no_carrier() {   # expect_no_carrier NAME CMD... : exit != 0 and the message
    local name=$1 rc
    shift
    "$@" >"$NET_TMP/$name.out" 2>&1
    rc=$?
    [ $rc -ne 0 ] || net_fail "$name: exit 0 on $IF without carrier: $(cat "$NET_TMP/$name.out")"
    grep -qF "$IF has no carrier (cable unplugged?)" "$NET_TMP/$name.out" ||
        net_fail "$name (exit $rc) does not name the missing carrier: $(cat "$NET_TMP/$name.out")"
    grep -qE "failed: *$" "$NET_TMP/$name.out" && net_fail "$name: an empty error: $(cat "$NET_TMP/$name.out")"
    net_log "$name: exit $rc: $(tr '\n' ';' <"$NET_TMP/$name.out")"
}

body() {
    IF=nc0
    ip link add "$IF" type veth peer name nc1 || net_skip "cannot make a veth pair in the test's namespace"
    ip link set dev "$IF" up || net_fail "cannot set $IF up"
    ip link set dev nc1 down
    # the local end is up, the kernel says it has no carrier
    ip -o link show dev "$IF" | grep -q "NO-CARRIER" || net_fail "$IF has a carrier: $(ip -o link show dev "$IF")"
    if [ -r "/sys/class/net/$IF/carrier" ]; then   # sysfs of this namespace (not always mounted)
        c=$(cat "/sys/class/net/$IF/carrier" 2>/dev/null)
        [ "$c" = 0 ] || net_log "sysfs carrier of $IF reads '$c' (sysfs of another namespace)"
    fi

    expect_no_carrier slaves "$TAKT" ecat slaves -i "$IF"
    expect_no_carrier states "$TAKT" ecat states -i "$IF"
    expect_no_carrier run    "$TAKT" ecat run -i "$IF" -t 1
    expect_no_carrier upload "$TAKT" ecat upload -i "$IF" 0 0x1000 0
    expect_no_carrier bench  "$TAKT" link bench -i "$IF" -t 1

    # plk mn keeps running (the cable may come): a warning first, the link in its last line
    "$TAKT" plk mn -i "$IF" --nodes 1 -t 1 --pcap "$NET_TMP/mn.pcapng" >"$NET_TMP/mn.out" 2>"$NET_TMP/mn.err"
    grep -qF "warning: $IF has no carrier (cable unplugged?)" "$NET_TMP/mn.err" ||
        net_fail "plk mn did not warn of the missing carrier: $(cat "$NET_TMP/mn.err")"
    grep -E "^--- takt plk mn: .*CNs operational on $IF, which has no carrier \(cable unplugged\?\)" "$NET_TMP/mn.out" >/dev/null ||
        net_fail "plk mn's final line does not name $IF and its missing carrier: $(grep -- '---' "$NET_TMP/mn.out")"
    net_check_capture "$NET_TMP/mn.pcapng"   # what the MN tried to send is still well-formed
    net_log "plk mn: $(head -n 1 "$NET_TMP/mn.err"); $(grep -- '--- takt plk mn' "$NET_TMP/mn.out")"
}
net_main body
