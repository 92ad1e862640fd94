#!/bin/bash
# IgH's verbs for a running master across veth, against takt sim ecat: graph draws the
# branched junction network as the simulator builds it, cstruct's header compiles and
# places each entry where ecat pdos does, domains and master see the network in OP with
# the WKC expected, top piped prints timed refreshes, alias lands in SII word 4 with a
# right checksum; every capture is clean.
. "$(dirname "$0")/lib.sh"

sim_start() {   # ARGS of takt sim ecat
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" "$@" -t 60 >"$NET_TMP/sim.out" 2>&1 &
    SIM=$!
    sleep 0.3
}
sim_stop() { kill $SIM 2>/dev/null; wait $SIM 2>/dev/null; }

graph() {
    sim_start --preset junction
    local dot="$NET_TMP/net.dot" want k=-1 line par port
    "$TAKT" ecat graph -i "$TAKT_IF_A" --pcap "$NET_TMP/graph.pcapng" >"$dot" 2>"$NET_TMP/graph.err" ||
        net_fail "ecat graph: $(cat "$NET_TMP/graph.err")"
    sim_stop
    want=$("$TAKT" sim ecat --preset junction -l)
    while read -r line; do
        k=$((k + 1))
        [ $k -eq 0 ] && continue
        port=$(echo "$line" | sed -n 's/.*on port \([0-3]\) of position \([0-9]*\).*/\1/p')
        par=$(echo "$line" | sed -n 's/.*on port \([0-3]\) of position \([0-9]*\).*/\2/p')
        [ -n "$par" ] || continue
        grep -q "slave$par -> slave$k \[taillabel=\"$port\"" "$dot" ||
            net_fail "graph: slave $k should hang on port $port of $par: $(cat "$dot")"
    done <<<"$want"
    grep -q "master -> slave0 " "$dot" || net_fail "graph: no edge from the master: $(cat "$dot")"
    if command -v dot >/dev/null; then
        dot -Tsvg "$dot" >/dev/null || net_fail "dot -Tsvg refused the graph"
    fi
    net_check_capture "$NET_TMP/graph.pcapng"
}

cstruct() {
    sim_start --devices ek1100,el2004,el1004,el3102
    "$TAKT" ecat cstruct -i "$TAKT_IF_A" -o "$NET_TMP/pd.h" --pcap "$NET_TMP/cs.pcapng" 2>"$NET_TMP/cs.err" ||
        net_fail "ecat cstruct: $(cat "$NET_TMP/cs.err")"
    "$TAKT" ecat pdos -i "$TAKT_IF_A" --json "$NET_TMP/pdos.json" >/dev/null 2>&1 || net_fail "ecat pdos"
    sim_stop
    cat >"$NET_TMP/main.c" <<'C'
#include <stddef.h>
#include <stdio.h>
#include "pd.h"
int main(void)
{
    printf("%zu %zu %d\n", TAKT_PD_S3_IN_OFFSET + offsetof(struct takt_pd_s3_in, Value),
           TAKT_PD_S3_IN_OFFSET + offsetof(struct takt_pd_s3_in, Value_2), TAKT_PD_S1_OUT_Output_3_BIT);
    return 0;
}
C
    cc -std=c11 -Wall -Werror -I"$NET_TMP" -o "$NET_TMP/main" "$NET_TMP/main.c" || net_fail "the header does not compile"
    local got want
    got=$("$NET_TMP/main")
    want=$(net_json "$NET_TMP/pdos.json" "' '.join(str(e['byte']) for s in j['slaves'] if s['position'] == 3 for e in s['entries'] if e['index'] in (0x6000, 0x6010) and e['subindex'] == 0x11) + ' ' + str([e['bit'] for s in j['slaves'] if s['position'] == 1 for e in s['entries'] if e['index'] == 0x7020][0])")
    [ "$got" = "$want" ] || net_fail "cstruct offsets '$got', ecat pdos says '$want'"
    net_check_capture "$NET_TMP/cs.pcapng"
}

live() {
    sim_start --devices ek1100,el2004,el1004,el3102
    "$TAKT" ecat domains -i "$TAKT_IF_A" -c 1000 -t 1 --json "$NET_TMP/dom.json" \
        --pcap "$NET_TMP/dom.pcapng" >"$NET_TMP/dom.out" 2>&1 || net_fail "ecat domains: $(cat "$NET_TMP/dom.out")"
    net_json_check "$NET_TMP/dom.json" "len(j['datagrams']) == 1 and j['datagrams'][0]['wkc_last'] == j['datagrams'][0]['wkc_expected'] == 4" \
        "domains: one LRW, WKC 4 as expected"
    "$TAKT" ecat master -i "$TAKT_IF_A" -c 1000 -t 1 --json "$NET_TMP/master.json" >"$NET_TMP/master.out" 2>&1 ||
        net_fail "ecat master: $(cat "$NET_TMP/master.out")"
    net_json_check "$NET_TMP/master.json" "j['state'] == 'OP' and j['slaves_op'] == 4 and j['frames_sent'] > 500" "master: OP, frames"
    "$TAKT" ecat top -i "$TAKT_IF_A" -c 1000 -t 2 -n 0.5 --pcap "$NET_TMP/top.pcapng" >"$NET_TMP/top.out" 2>"$NET_TMP/top.err" ||
        net_fail "ecat top: $(cat "$NET_TMP/top.err")"
    [ "$(grep -c '^--- [0-9-]* [0-9:.]*$' "$NET_TMP/top.out")" -ge 2 ] || net_fail "top piped: want timed refreshes: $(cat "$NET_TMP/top.out")"
    grep -q "^3    OP .* 4/4 " "$NET_TMP/top.out" || net_fail "top: slave 3 in OP with WKC 4/4: $(tail -n 8 "$NET_TMP/top.out")"
    ! grep -q $'\033' "$NET_TMP/top.out" || net_fail "top piped wrote terminal escapes"
    # alias: SII word 4 (bytes 8-9) and the header checksum (byte 14) of slave 2
    "$TAKT" ecat alias -i "$TAKT_IF_A" -p 2 4660 >"$NET_TMP/alias.out" 2>&1 || net_fail "ecat alias: $(cat "$NET_TMP/alias.out")"
    "$TAKT" ecat sii read -i "$TAKT_IF_A" 2 -o "$NET_TMP/sii2.bin" || net_fail "sii read"
    sim_stop
    python3 - "$NET_TMP/sii2.bin" <<'PY' || net_fail "alias not in the SII"
import sys
d = open(sys.argv[1], "rb").read()
crc = 0xFF
for b in d[:14]:
    crc ^= b
    for _ in range(8):
        crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
if d[8] | d[9] << 8 != 4660 or d[14] != crc:
    sys.exit("FAIL: word 4 0x%04X, checksum 0x%02X want 0x%02X" % (d[8] | d[9] << 8, d[14], crc))
PY
    net_check_capture "$NET_TMP/dom.pcapng"
    net_check_capture "$NET_TMP/top.pcapng"
    net_log "$(grep -E 'Frames|Loss' "$NET_TMP/master.out" | tr '\n' ' ')"
}

body() {
    graph
    cstruct
    live
}
net_main body
