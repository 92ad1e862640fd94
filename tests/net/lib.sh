# Shared helpers for takt's network tests (tests/net/test_*.sh), sourced by each.
#
# A test defines a function `body` and calls `net_main body`. net_main re-runs the
# script inside a fresh namespace pair made by `takt netns run` (veth ends in
# $TAKT_IF_A and $TAKT_IF_B; the script itself runs in side A; `on_b CMD` (or on_b_bg) runs CMD in
# side B). As root it then runs the same script again as the ordinary user nobody,
# which gets an unprivileged user namespace instead. Exit 77 (skip) with the reason
# when namespaces cannot be made. Everything is removed at the end, also on failure.
#
# Environment (set by CTest): TAKT (the takt binary), TAKT_SOURCE_DIR, TAKT_BUILD_DIR.

set -u

net_fail() { echo "FAIL: $*" >&2; exit 1; }
net_skip() { echo "SKIP: $*" >&2; exit 77; }
net_log()  { echo "--- $*" >&2; }

# Run a command in side B of the pair. `on_b CMD &` runs in a subshell: there the
# command replaces the subshell (exec), so $! is the command's own pid and `kill $!`
# reaches it. on_b_bg CMD does the same as `on_b CMD &`.
on_b() {
    if [ "$BASHPID" != "$$" ]; then
        exec "$TAKT" netns exec b -- "$@"
    fi
    "$TAKT" netns exec b -- "$@"
}
on_b_bg() { "$TAKT" netns exec b -- "$@" & }

# Wait until FILE contains TEXT (grep -F), at most SECONDS (default 5).
net_wait_for() {
    local file=$1 text=$2 t=${3:-5} i=0
    while ! grep -qF -- "$text" "$file" 2>/dev/null; do
        i=$((i + 1))
        [ $i -gt $((t * 20)) ] && net_fail "timed out waiting for '$text' in $file: $(cat "$file" 2>/dev/null)"
        sleep 0.05
    done
}

# Evaluate a Python expression on the JSON document in FILE (bound to `j`); prints it.
net_json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# Fail unless the Python expression on FILE's JSON is true; MSG explains.
net_json_check() {
    local file=$1 expr=$2 msg=$3 v
    v=$(net_json "$file" "$expr") || net_fail "$msg: cannot evaluate '$expr' on $file"
    [ "$v" = True ] || net_fail "$msg ($expr is $v)"
}

# tshark is the judge of a capture: no malformed frame, no expert info.
net_check_capture() {
    command -v tshark >/dev/null || { net_log "tshark missing: capture $1 not judged"; return 0; }
    local bad
    bad=$(tshark -r "$1" -Y '_ws.malformed || _ws.expert' 2>/dev/null) || net_fail "tshark cannot read $1"
    [ -z "$bad" ] || net_fail "tshark flags $1: $bad"
}

net_cleanup() {
    local p
    for p in $(jobs -p); do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${NET_TMP:-}" ] && rm -rf "$NET_TMP"
}

net_main() {
    local body=$1 script rc
    script=$(readlink -f "$0")
    [ -n "${TAKT:-}" ] && [ -x "$TAKT" ] || net_skip "TAKT (path of the takt binary) is not set; run through ctest"
    if [ -n "${TAKT_IF_A:-}" ]; then                  # inside the pair: the test proper
        NET_TMP=$(mktemp -d)
        trap net_cleanup EXIT
        net_log "$(basename "$script") as uid $(id -u) (outside: ${TAKT_NET_OUTER_UID:-?}) on $TAKT_IF_A <-> $TAKT_IF_B, user namespace: $TAKT_NETNS_USERNS"
        "$body"
        return
    fi
    TAKT_NET_OUTER_UID=$(id -u) "$TAKT" netns run -- bash "$script"
    rc=$?
    [ $rc -eq 0 ] || exit $rc
    if [ "$(id -u)" = 0 ] && [ -z "${TAKT_NET_NO_USER:-}" ] &&
        ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TAKT" -a -r "$script" -a -r "$TAKT_SOURCE_DIR/data" 2>/dev/null; then
        # a checkout inside a private directory (mktemp -d makes them 0700) is out of
        # nobody's reach: the ordinary-user pass cannot run from here
        net_log "ordinary-user pass skipped: nobody cannot reach $TAKT, $script or $TAKT_SOURCE_DIR/data" \
                "(a checkout below a private directory); run from a world-readable checkout to include it"
    elif [ "$(id -u)" = 0 ] && [ -z "${TAKT_NET_NO_USER:-}" ]; then
        net_log "again as an ordinary user (nobody, uid 65534)"
        ( cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
            env TAKT_NET_NO_USER=1 TAKT_NET_OUTER_UID=65534 "$TAKT" netns run -- bash "$script" )
        rc=$?
        if [ $rc -eq 77 ]; then
            net_log "the ordinary-user run was skipped (reason above); the root run passed"
            rc=0
        fi
    fi
    exit $rc
}
