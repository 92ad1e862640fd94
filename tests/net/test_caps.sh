#!/bin/bash
# Least privilege of a takt binary carrying the README's setcap line, run by the
# ordinary user nobody in a namespace pair made by root:
#  (a) once a master, MN, CN or simulator has opened its socket and set up its cycle
#      thread, no thread of it holds a capability (effective, permitted, inheritable,
#      ambient) but CAP_IPC_LOCK, and that only where mlockall(MCL_FUTURE) needs it
#      for every later allocation (a finite RLIMIT_MEMLOCK);
#  (b) `takt capture --all` and `takt link send --ethertype 0x0806` are refused with
#      a clear error, while EtherCAT/POWERLINK capture and takt's test frames work;
#  (c) EtherCAT (sim ecat + ecat run) and POWERLINK (plk cn + plk mn) still reach
#      OP / Operational across the veth, and `takt netns run` and `takt demo` still
#      work for nobody, with the setcap'd binary and without.
. "$(dirname "$0")/lib.sh"

NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
CAP_IPC_LOCK=$((1 << 14))

# The capability list of the README's line `sudo setcap LIST $(which takt)`.
readme_caps() {
    sed -n 's/.*sudo setcap \([a-z_,+=]*\) \$(which takt).*/\1/p' "$TAKT_SOURCE_DIR/README.md" | head -n 1
}

# Every thread of PID: "CapInh CapPrm CapEff CapAmb NAME" (hex, the thread's name), one
# line per thread.
thread_caps() {
    local st
    for st in /proc/"$1"/task/*/status; do
        awk '/^Name:/ { n = $2 } /^CapInh|^CapPrm|^CapEff|^CapAmb/ { printf "%s ", $2 } END { print n }' "$st"
    done
}

# Fail unless every thread of PID holds exactly WANT (a number) in its permitted and
# effective sets, and nothing inheritable or ambient; the control socket's thread
# (takt-ctl), which reads what any client sends, nothing at all. NAME names the process.
check_caps() {
    local name=$1 pid=$2 want0=$3 want line inh prm eff amb tn n=0
    [ -d "/proc/$pid" ] || net_fail "$name: process $pid is gone before its capabilities were read"
    while read -r inh prm eff amb tn; do
        [ -n "$inh" ] || continue
        n=$((n + 1))
        want=$want0
        [ "$tn" = takt-ctl ] && want=0
        if [ $((16#$prm)) -ne "$want" ] || [ $((16#$eff)) -ne "$want" ] || [ $((16#$inh)) -ne 0 ] ||
            [ $((16#$amb)) -ne 0 ]; then
            net_fail "$name (pid $pid): a thread holds Inh/Prm/Eff/Amb $inh/$prm/$eff/$amb, expected" \
                     "$(printf '%016x' "$want") permitted and effective and nothing else" \
                     "(CAP_NET_RAW is 0x2000, CAP_NET_ADMIN 0x1000, CAP_IPC_LOCK 0x4000, CAP_SYS_NICE 0x800000)"
        fi
    done < <(thread_caps "$pid")
    [ $n -gt 0 ] || net_fail "$name (pid $pid): no thread status readable"
    net_log "$name: $n thread(s), each holding $(printf '%#x' "$want") only"
}

body() {
    [ "$(id -u)" = 0 ] || net_skip "file capabilities can only be set by root"
    [ "$TAKT_NETNS_USERNS" = 0 ] || net_skip "the pair is in a user namespace: file capabilities grant nothing there"
    command -v setcap >/dev/null && command -v getcap >/dev/null || net_skip "setcap/getcap missing (libcap2-bin)"
    local caps
    caps=$(readme_caps)
    [ -n "$caps" ] || net_fail "README.md has no line 'sudo setcap CAPS \$(which takt)'"
    chmod 755 "$NET_TMP"
    local bin=$NET_TMP/takt
    cp "$TAKT" "$bin" && chmod 755 "$bin" || net_fail "cannot copy $TAKT to $bin"
    setcap "$caps" "$bin" 2>"$NET_TMP/setcap.err" ||
        net_skip "setcap $caps refused on $NET_TMP ($(cat "$NET_TMP/setcap.err")): no xattrs here"
    [ -n "$(getcap "$bin")" ] || net_skip "getcap shows no capability on $bin: the filesystem keeps no xattrs"
    "${NB[@]}" test -x "$bin" || net_skip "nobody cannot run $bin (a private directory above $NET_TMP)"
    findmnt -no OPTIONS -T "$bin" 2>/dev/null | grep -qw nosuid &&
        net_skip "$NET_TMP is on a nosuid mount: file capabilities are ignored there"
    net_log "README's line: setcap $caps; getcap: $(getcap "$bin")"
    local u=$NET_TMP/u              # what nobody writes
    mkdir "$u" && chown 65534:65534 "$u" || net_fail "cannot make $u for nobody"
    local memlock want_rt=0
    memlock=$("${NB[@]}" bash -c 'ulimit -l')
    [ "$memlock" = unlimited ] || want_rt=$CAP_IPC_LOCK
    net_log "RLIMIT_MEMLOCK for nobody: $memlock KiB: a role with mlockall keeps $(printf '%#x' $want_rt)"

    # --- (b) what the file capabilities must not grant -----------------------------
    local out
    out=$("${NB[@]}" "$bin" capture --all -i "$TAKT_IF_A" -o "$u/all.pcapng" -t 1 2>&1) &&
        net_fail "nobody captured all traffic with the setcap'd binary: $out"
    echo "$out" | grep -qF "capturing all traffic needs root: the file capabilities of takt grant EtherCAT/POWERLINK only" ||
        net_fail "capture --all refused without the expected reason: $out"
    out=$("${NB[@]}" "$bin" link send --ethertype 0x0806 -i "$TAKT_IF_A" 2>&1) &&
        net_fail "nobody sent EtherType 0x0806 with the setcap'd binary: $out"
    echo "$out" | grep -qF "EtherType 0x0806 needs root: the file capabilities of takt grant EtherCAT/POWERLINK only" ||
        net_fail "link send --ethertype 0x0806 refused without the expected reason: $out"
    # ...while what they are for still works, and root keeps its powers
    out=$("${NB[@]}" "$bin" link send -n 3 -i "$TAKT_IF_A" 2>&1) ||
        net_fail "nobody cannot send takt's test frames with the setcap'd binary: $out"
    out=$("${NB[@]}" "$bin" capture -i "$TAKT_IF_A" -o "$u/ecat.pcapng" -t 0.2 2>&1) ||
        net_fail "nobody cannot capture EtherCAT/POWERLINK with the setcap'd binary: $out"
    out=$("$bin" link send --ethertype 0x0806 -n 1 -i "$TAKT_IF_A" 2>&1) ||
        net_fail "root was refused an arbitrary EtherType: $out"
    net_log "(b) capture --all and EtherType 0x0806 refused to nobody; test frames, EtherCAT capture and root allowed"

    # --- (a) + (c) EtherCAT: simulator and master as nobody -------------------------
    # the catalogue's ESI files where nobody can read them (a clone may sit in a 0700
    # directory; the copied binary is not in the tree it would find them through)
    cp -r "$TAKT_SOURCE_DIR/data/esi" "$NET_TMP/esi" && chmod -R a+rX "$NET_TMP/esi" ||
        net_fail "cannot copy the ESI catalogue to $NET_TMP/esi"
    on_b env TAKT_ESI_DIR="$NET_TMP/esi" "${NB[@]}" "$bin" sim ecat -i "$TAKT_IF_B" --preset 10 -t 60 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    net_wait_for "$NET_TMP/sim.out" "slaves on" 20
    check_caps "sim ecat" "$sim" 0
    "${NB[@]}" "$bin" ecat run -i "$TAKT_IF_A" -c 1000 -p 10 -t 60 --json "$u/run.json" \
        --pcap "$u/run.pcapng" --control "$u/ctl.sock" >"$NET_TMP/run.out" 2>&1 &
    local run=$!
    net_wait_for "$NET_TMP/run.out" "slaves in OP after" 60
    grep -q "control socket $u/ctl.sock" "$NET_TMP/run.out" || net_fail "ecat run as nobody serves no control socket: $(cat "$NET_TMP/run.out")"
    check_caps "ecat run" "$run" "$want_rt"
    check_caps "sim ecat (serving)" "$sim" 0
    kill -INT "$run"
    wait "$run" || net_fail "ecat run as nobody: exit $?: $(tail -n 20 "$NET_TMP/run.out")"
    kill "$sim" 2>/dev/null; wait "$sim" 2>/dev/null
    net_json_check "$u/run.json" "j['slaves'] == 10 and j['state'] == 'OP'" "ecat run as nobody: 10 slaves in OP"
    net_check_capture "$u/run.pcapng"
    # the set-up the capabilities are for: SCHED_FIFO and mlockall (only a warning where
    # the host refuses them for other reasons, e.g. a cgroup without real-time budget)
    net_log "ecat run as nobody, its set-up: $(grep -E 'SCHED_FIFO|mlockall|MCL_FUTURE' "$NET_TMP/run.out" ||
        echo 'SCHED_FIFO 10 and mlockall(MCL_CURRENT|MCL_FUTURE) without a warning')"

    # --- (a) + (c) POWERLINK: simulated CNs and the MN as nobody --------------------
    # 20 simulated CNs, 3 of them booted: their report at the end needs fresh heap,
    # which MCL_FUTURE past a finite RLIMIT_MEMLOCK refuses without CAP_IPC_LOCK (an
    # earlier drop of it made this CN abort in json-c on a failed malloc)
    on_b "${NB[@]}" "$bin" plk cn -i "$TAKT_IF_B" --nodes 1-20 -t 120 --json "$u/cn.json" >"$NET_TMP/cn.out" 2>&1 &
    local cn=$!
    net_wait_for "$NET_TMP/cn.out" "simulated CN" 20
    check_caps "plk cn" "$cn" "$want_rt"
    "${NB[@]}" "$bin" plk mn -i "$TAKT_IF_A" --nodes 1-3 -c 10000 --loss-threshold "$NET_PLK_LOSS" -t 90 \
        --json "$u/mn.json" --pcap "$u/mn.pcapng" -v >"$NET_TMP/mn.out" 2>&1 &
    local mn=$!
    net_wait_for "$NET_TMP/mn.out" "3 of 3 CNs operational" 80
    check_caps "plk mn" "$mn" "$want_rt"
    kill -INT "$mn"
    wait "$mn" || net_fail "plk mn as nobody: exit $?: $(tail -n 20 "$NET_TMP/mn.out")"
    kill -TERM "$cn"
    wait "$cn" || net_fail "plk cn as nobody: exit $? after SIGTERM: $(tail -n 20 "$NET_TMP/cn.out")"
    net_json_check "$u/mn.json" "j['nodes_operational'] == 3" "plk mn as nobody: 3 CNs Operational"
    net_json_check "$u/cn.json" "len(j['nodes']) == 20" "plk cn as nobody: its report covers its 20 CNs"
    net_check_capture "$u/mn.pcapng"
    net_log "(a)+(c) EtherCAT in OP and POWERLINK Operational as nobody with the setcap'd binary"

    # --- (c) the namespace tools and the demo for an ordinary user ------------------
    # A command without -i opens no socket on the host's network: `takt netns run`
    # itself (the parent of CMD, in the host's namespaces) holds no network capability.
    local prm
    prm=$(cd / && "${NB[@]}" "$bin" netns run -- sh -c 'awk "/^CapPrm/ { print \$2 }" /proc/$PPID/status' 2>&1) ||
        net_fail "netns run as nobody with the setcap'd binary: $prm"
    [ $((16#$prm & 0x3000)) -eq 0 ] ||
        net_fail "takt netns run as nobody still holds CapPrm $prm (CAP_NET_RAW 0x2000, CAP_NET_ADMIN 0x1000)"
    net_log "takt netns run as nobody: CapPrm $prm, no network capability"
    local b plain=$NET_TMP/takt-plain   # a copy without file capabilities, in nobody's reach
    cp "$TAKT" "$plain" && chmod 755 "$plain" || net_fail "cannot copy $TAKT to $plain"
    for b in "$bin" "$plain"; do
        out=$(cd / && "${NB[@]}" "$b" netns run -- sh -c 'echo "in $TAKT_IF_A"' 2>&1) ||
            net_fail "netns run as nobody with $b: $out"
        out=$(cd / && env TAKT_ESI_DIR="$NET_TMP/esi" "${NB[@]}" "$b" demo -t 2 2>&1) || net_fail "demo as nobody with $b: $(echo "$out" | tail -n 20)"
        echo "$out" | grep -q "state OP" || net_fail "demo as nobody with $b did not reach OP: $(echo "$out" | tail -n 20)"
    done
    net_log "(c) netns run and demo work for nobody with and without file capabilities"
}

# The ordinary-user pass of net_main would run in a user namespace, where file
# capabilities mean nothing: this test makes its own ordinary-user runs.
TAKT_NET_NO_USER=1 net_main body
