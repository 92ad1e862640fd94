#!/bin/bash
# takt check -i on a real interface of the current network namespace (a veth end inside
# the pair, where sysfs still shows the host's interfaces): up, then down with the fix
# that brings it up; a virtual interface has no IRQ of its own; coalescing as ethtool -c
# reports it (veth: not supported); a missing interface fails the audit (exit 1).
. "$(dirname "$0")/lib.sh"

verdict() {   # verdict FILE ID -> the item's verdict
    net_json "$1" "[i['verdict'] for i in j['items'] if i['id'] == '$2'][0]"
}

body() {
    local j=$NET_TMP/check.json rc
    "$TAKT" check -i "$TAKT_IF_A" -a 0 --json "$j" >"$NET_TMP/check.out" 2>&1
    rc=$?
    [ $rc -le 1 ] || net_fail "takt check exited $rc: $(cat "$NET_TMP/check.out")"
    net_json_check "$j" "[i for i in j['items'] if i['id'] == 'iface'][0]['found'] == '$TAKT_IF_A is up'" \
        "the veth end is seen up in its own namespace"
    [ "$(verdict "$j" iface.irq)" = info ] || net_fail "iface.irq of a veth: $(verdict "$j" iface.irq), expected info"
    if command -v ethtool >/dev/null && ethtool -c "$TAKT_IF_A" 2>&1 | grep -q "not supported"; then
        [ "$(verdict "$j" iface.coalesce)" = info ] ||
            net_fail "ethtool -c says not supported, takt check says $(verdict "$j" iface.coalesce)"
    fi
    net_log "$(grep -E "Interface|coalescing" "$NET_TMP/check.out" | tr -s ' ' | tr '\n' ';')"

    ip link set dev "$TAKT_IF_A" down || net_fail "cannot set $TAKT_IF_A down"
    "$TAKT" check -i "$TAKT_IF_A" --json "$j" >/dev/null 2>&1
    [ "$(verdict "$j" iface)" = warn ] || net_fail "a down interface: $(verdict "$j" iface), expected warn"
    net_json_check "$j" "'ip link set dev $TAKT_IF_A up' in [i for i in j['items'] if i['id'] == 'iface'][0]['fix']" \
        "the fix for a down interface names it"

    "$TAKT" check -i nosuch0 --json "$j" >/dev/null 2>&1
    rc=$?
    [ $rc -eq 1 ] || net_fail "a missing interface: exit $rc, expected 1"
    [ "$(verdict "$j" iface)" = fail ] || net_fail "a missing interface: $(verdict "$j" iface), expected fail"
}
net_main body
