#!/bin/bash
# IgH's verbs for a running master through takt ecat run's control socket
# (docs/control.md, docs/tools.md): each of master, data, data -e, domains, graph,
# cstruct and top is first run on its own (it opens the interface itself), then while
# `takt ecat run` keeps the same network in OP, through its socket. Both go through the
# same renderer, so the outputs agree line for line once the figures that move with
# time (counters, rates, values, states of a scan) are masked. The running master sees
# no frame it did not send (nobody else opened the interface); rescan through it finds
# the simulator's slaves as scanned and leaves them in OP; alias goes through it;
# version names the master's takt and protocol version; tshark
# judges the capture.
. "$(dirname "$0")/lib.sh"

# figures that move between two moments: every number
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g'; }
# states a scan leaves vs the running master's OP
mask_state() { sed -E 's/\b(INIT|PREOP|BOOT|SAFEOP|OP)\b/STATE/g'; }

body() {
    local sock="$NET_TMP/ecat.sock" out v t
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004,el3102 -t 120 \
        >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    # the renderers over a master of the verb's own
    for v in master data domains graph cstruct; do
        t=(-t 1); [ $v = graph ] || [ $v = cstruct ] && t=()
        "$TAKT" ecat $v -i "$TAKT_IF_A" "${t[@]}" >"$NET_TMP/$v.local" 2>"$NET_TMP/$v.local.err" ||
            net_fail "local ecat $v: $(cat "$NET_TMP/$v.local.err")"
    done
    "$TAKT" ecat data -e -i "$TAKT_IF_A" -t 1 >"$NET_TMP/data-e.local" || net_fail "local ecat data -e"
    "$TAKT" ecat top -i "$TAKT_IF_A" -t 2 >"$NET_TMP/top.local" || net_fail "local ecat top"
    out=$("$TAKT" ecat rescan -i "$TAKT_IF_A") || net_fail "local ecat rescan: $out"
    [ "$out" = "scanned 4 slaves on $TAKT_IF_A" ] || net_fail "local ecat rescan: $out"

    "$TAKT" ecat run -i "$TAKT_IF_A" -c 1000 -t 600 --control "$sock" --json "$NET_TMP/run.json" \
        --pcap "$NET_TMP/run.pcapng" >"$NET_TMP/run.out" 2>"$NET_TMP/run.err" &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "in OP after" 60 || net_fail "not in OP: $(cat "$NET_TMP/run.err")"
    local m=(-i "$TAKT_IF_A" --master "$sock")
    for v in master data domains graph cstruct; do
        "$TAKT" ecat $v "${m[@]}" >"$NET_TMP/$v.ctl" 2>"$NET_TMP/$v.ctl.err" ||
            net_fail "ecat $v through the master: $(cat "$NET_TMP/$v.ctl.err")"
    done
    "$TAKT" ecat data -e "${m[@]}" >"$NET_TMP/data-e.ctl" || net_fail "ecat data -e through the master"
    "$TAKT" ecat top "${m[@]}" -t 2 -n 0.5 | cat >"$NET_TMP/top.ctl" || net_fail "ecat top through the master"

    # master: the same lines (the state's wording aside: a frame lost on a stalled host
    # words it otherwise for a moment); all in OP, asked again until it says so
    diff <(grep -v "State:" "$NET_TMP/master.local" | mask) <(grep -v "State:" "$NET_TMP/master.ctl" | mask) >&2 ||
        net_fail "ecat master prints otherwise through the master than on its own"
    local i=0
    until grep -q "State: OP, slaves 4/4" "$NET_TMP/master.ctl"; do
        i=$((i + 1)); [ $i -lt 50 ] || net_fail "ecat master: never all in OP: $(cat "$NET_TMP/master.ctl")"
        sleep 0.1
        "$TAKT" ecat master "${m[@]}" >"$NET_TMP/master.ctl" || net_fail "ecat master through the master"
    done
    grep -q "OP 4, not answering 0" "$NET_TMP/master.ctl" || net_fail "ecat master: $(cat "$NET_TMP/master.ctl")"
    grep -q " 0 unmatched" "$NET_TMP/master.ctl" || net_fail "ecat master: unmatched frames: $(cat "$NET_TMP/master.ctl")"
    # domains: the same datagrams, addresses, lengths, slaves and expected WKC; seen = expected
    diff <(sed -E 's/seen [-0-9]+.*//' "$NET_TMP/domains.local") <(sed -E 's/seen [-0-9]+.*//' "$NET_TMP/domains.ctl") >&2 ||
        net_fail "ecat domains prints otherwise through the master than on its own"
    grep -q "WKC expected" "$NET_TMP/domains.ctl" || net_fail "ecat domains: $(cat "$NET_TMP/domains.ctl")"
    # (seen '-': that cycle's frame was lost, which a stalled host may cause)
    if grep -E "WKC expected ([0-9]+) seen [0-9]" "$NET_TMP/domains.ctl" | grep -vE "expected ([0-9]+) seen \1,"; then
        net_fail "ecat domains: a WKC seen that is not the expected one: $(cat "$NET_TMP/domains.ctl")"
    fi
    # data: the image's size and lines; -e the same entries (values aside)
    diff <(sed -E 's/ [0-9a-f]{2}\b/ XX/g' "$NET_TMP/data.local") <(sed -E 's/ [0-9a-f]{2}\b/ XX/g' "$NET_TMP/data.ctl") >&2 ||
        net_fail "ecat data prints otherwise through the master than on its own"
    diff <(awk '{$6=""; print}' "$NET_TMP/data-e.local") <(awk '{$6=""; print}' "$NET_TMP/data-e.ctl") >&2 ||
        net_fail "ecat data -e lists other entries through the master than on its own"
    [ "$(wc -l <"$NET_TMP/data-e.ctl")" -ge 8 ] || net_fail "ecat data -e: $(cat "$NET_TMP/data-e.ctl")"
    # graph and cstruct: identical but for the states a scan leaves
    diff <(mask_state <"$NET_TMP/graph.local") <(mask_state <"$NET_TMP/graph.ctl") >&2 ||
        net_fail "ecat graph prints otherwise through the master than on its own"
    [ "$(grep -c -- '-> slave' "$NET_TMP/graph.ctl")" = 4 ] || net_fail "ecat graph: $(cat "$NET_TMP/graph.ctl")"
    diff "$NET_TMP/cstruct.local" "$NET_TMP/cstruct.ctl" >&2 ||
        net_fail "ecat cstruct writes another header through the master than on its own"
    if command -v cc >/dev/null; then
        printf '#include "%s"\nint main(void){return 0;}\n' "$NET_TMP/cstruct.ctl" | cc -x c -o /dev/null - ||
            net_fail "the header from the running master does not compile"
    fi
    # top piped: refreshes, each slave's row as the local one's
    [ "$(grep -c '^--- ' "$NET_TMP/top.ctl")" -ge 2 ] || net_fail "ecat top -t 2 -n 0.5: $(cat "$NET_TMP/top.ctl")"
    # the same slaves (position and name); each seen in OP
    diff <(grep -E '^[0-9]+ ' "$NET_TMP/top.local" | awk '{print $1, $NF}' | sort -u) \
         <(grep -E '^[0-9]+ ' "$NET_TMP/top.ctl" | awk '{print $1, $NF}' | sort -u) >&2 ||
        net_fail "ecat top shows other slaves through the master"
    [ "$(grep -E '^[0-9]+ +OP ' "$NET_TMP/top.ctl" | awk '{print $1}' | sort -u | wc -l)" = 4 ] ||
        net_fail "ecat top: each slave in OP expected: $(cat "$NET_TMP/top.ctl")"
    # version: the running master's
    out=$("$TAKT" ecat version "${m[@]}") || net_fail "ecat version: $out"
    echo "$out" | grep -qE "^master on $TAKT_IF_A: takt [^ ]+ \(pid $run\), control protocol 1$" ||
        net_fail "ecat version through the master: $out"
    # what would disturb it is refused, saying why
    # rescan: the running master counts the slaves again and reads each identity again
    # from its SII, in OP: the simulator's four, each as scanned; it stays in OP
    out=$("$TAKT" ecat rescan "${m[@]}" 2>&1) || net_fail "rescan through the master: $out"
    echo "$out" | grep -qx "scanned 4 slaves on $TAKT_IF_A (4 configured)" || net_fail "rescan: $out"
    echo "$out" | grep -qx "every slave as scanned" || net_fail "rescan found changes: $out"
    "$TAKT" ecat rescan "${m[@]}" --json "$NET_TMP/rescan.json" >/dev/null || net_fail "rescan --json"
    net_json_check "$NET_TMP/rescan.json" "j['seen'] == 4 and j['expected'] == 4" "rescan counts the simulator's slaves"
    net_json_check "$NET_TMP/rescan.json" "[s['status'] for s in j['slaves']] == ['same'] * 4" "rescan: each slave the same"
    "$TAKT" ecat master "${m[@]}" >"$NET_TMP/master.rescan" || net_fail "ecat master after rescan"
    grep -q "OP 4, not answering 0" "$NET_TMP/master.rescan" || net_fail "after rescan: $(cat "$NET_TMP/master.rescan")"
    grep -q " 0 unmatched" "$NET_TMP/master.rescan" || net_fail "after rescan: $(cat "$NET_TMP/master.rescan")"
    # the alias is written by the running master's cycle (test_ctl_ecat reads it back)
    out=$("$TAKT" ecat alias "${m[@]}" 1 7 2>&1) || net_fail "alias through a running master: $out"
    echo "$out" | grep -q "alias 7 written" || net_fail "alias through the master: $out"
    kill -INT $run
    wait $run
    local rc=$?
    kill $sim 2>/dev/null; wait $sim 2>/dev/null
    [ $rc -eq 0 ] || net_fail "takt ecat run exit $rc: $(tail -n 20 "$NET_TMP/run.out" "$NET_TMP/run.err")"
    net_json_check "$NET_TMP/run.json" "j['state'] == 'OP'" "network in OP at the end"
    net_json_check "$NET_TMP/run.json" "j['frames_unmatched'] == 0" "no frame the master did not send"
    net_json_check "$NET_TMP/run.json" "j['wkc_errors'] == 0" "no WKC error"
    net_check_capture "$NET_TMP/run.pcapng"
}

net_main body
