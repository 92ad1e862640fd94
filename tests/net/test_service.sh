#!/bin/bash
# takt as a systemd service without systemd (it is not PID 1 where the tests run):
#  - the unit templates pass `systemd-analyze verify` (skipped without systemd-analyze),
#    and a unit with a wrong setting does not (so the check can fail);
#  - the notification protocol: with $NOTIFY_SOCKET on a datagram socket the test owns,
#    `takt ecat run` against the simulator sends READY=1 only after it printed that the
#    network is in OP, WATCHDOG=1 while frames return, none once the simulator is gone,
#    and on SIGTERM STOPPING=1, the summary and exit 0; `takt plk mn` sends READY=1 once
#    every CN is Operational.
. "$(dirname "$0")/lib.sh"

verify_units() {
    command -v systemd-analyze >/dev/null || { net_log "systemd-analyze missing: units not verified"; return 0; }
    local d="$NET_TMP/units" u out
    mkdir -p "$d"
    for u in takt-ecat@ takt-plk-mn@; do
        # an instance (verify needs one), with the binary being tested
        sed "s|@TAKT_BINDIR@|$(dirname "$TAKT")|" "$TAKT_SOURCE_DIR/dist/systemd/$u.service.in" >"$d/${u}veth0.service"
        out=$(systemd-analyze verify --man=no "$d/${u}veth0.service" 2>&1) || net_fail "$u: verify exit: $out"
        [ -z "$out" ] || net_fail "$u.service: systemd-analyze verify: $out"
    done
    sed 's/^CPUSchedulingPolicy=fifo/CPUSchedulingPolicy=fast/' "$d/takt-ecat@veth0.service" >"$d/takt-bad@veth0.service"
    out=$(systemd-analyze verify --man=no "$d/takt-bad@veth0.service" 2>&1)
    [ -n "$out" ] || net_fail "verify found nothing wrong in a unit with CPUSchedulingPolicy=fast"
}

notify() {
    on_b "$TAKT" sim ecat -i "$TAKT_IF_B" --devices ek1100,el1004,el2004 -t 120 >"$NET_TMP/sim.out" 2>&1 &
    local sim=$!
    sleep 0.3
    python3 - "$TAKT" "$TAKT_IF_A" "$NET_TMP" "$sim" <<'PY' || net_fail "notify protocol (above)"
import os, signal, socket, subprocess, sys, time
takt, iface, tmp, sim = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
path = os.path.join(tmp, "notify.sock")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)   # the ordinary-user pass: takt runs as nobody too
s.settimeout(0.2)
env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="1000000")
env.pop("WATCHDOG_PID", None)
out = open(os.path.join(tmp, "run.out"), "w+")
p = subprocess.Popen([takt, "ecat", "run", "-i", iface, "-c", "1000"], stdout=out, stderr=subprocess.STDOUT, env=env)
def fail(msg):
    p.kill()
    out.seek(0)
    print("FAIL:", msg, "\n", out.read()[-3000:], file=sys.stderr)
    sys.exit(1)
def recv(deadline):
    while time.monotonic() < deadline:
        if p.poll() is not None:
            return None
        try:
            return s.recv(4096).decode()
        except socket.timeout:
            pass
    return None
def op_printed():
    out.flush()
    return "slaves in OP after" in open(out.name).read()
ready = False
pings = 0
end = time.monotonic() + 60
while pings < 3:
    m = recv(end)
    if m is None:
        fail(f"messages stopped (ready {ready}, pings {pings}, exit {p.poll()})")
    lines = m.split("\n")
    if "READY=1" in lines:
        if not op_printed():
            fail("READY=1 before the network was in OP")
        if not any(l.startswith("STATUS=OP") for l in lines):
            fail(f"READY=1 without STATUS=OP...: {m!r}")
        ready = True
    if "WATCHDOG=1" in lines:
        pings += 1
if not ready:
    fail("WATCHDOG=1 before READY=1")
# no frame returns once the simulator is gone: the pings stop (one may be on its way)
os.kill(sim, signal.SIGTERM)
time.sleep(1.5)
while True:
    try:
        s.setblocking(False); s.recv(4096)
    except BlockingIOError:
        break
s.settimeout(0.2)
late = 0
end = time.monotonic() + 2.5
while time.monotonic() < end:
    m = recv(end)
    if m and "WATCHDOG=1" in m.split("\n"):
        late += 1
if late:
    fail(f"{late} WATCHDOG=1 while no frame returned")
p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(30)
except subprocess.TimeoutExpired:
    fail("no exit within 30 s of SIGTERM")
msgs = []
s.setblocking(False)
while True:
    try:
        msgs.append(s.recv(4096).decode())
    except BlockingIOError:
        break
if not any("STOPPING=1" in m.split("\n") for m in msgs):
    fail(f"no STOPPING=1 after SIGTERM: {msgs}")
text = open(out.name).read()
if "Summary: state" not in text:
    fail("no summary after SIGTERM")
print(f"--- notify: READY after OP, {pings} pings, none without frames, exit {rc} on SIGTERM", file=sys.stderr)
PY
    wait $sim 2>/dev/null
}

# the MN: READY=1 comes with the status that every CN is Operational, and SIGTERM ends it
notify_mn() {
    net_plk_cn -i "$TAKT_IF_B" --nodes 1-2 >"$NET_TMP/cn.out" 2>&1
    python3 - "$TAKT" "$TAKT_IF_A" "$NET_TMP" "$NET_PLK_LIMIT" "$NET_PLK_LOSS" <<'PY' || net_fail "MN notify protocol (above)"
import os, signal, socket, subprocess, sys, time
takt, iface, tmp, limit, loss = sys.argv[1:6]
path = os.path.join(tmp, "notify-mn.sock")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)
s.settimeout(0.5)
env = dict(os.environ, NOTIFY_SOCKET=path)
env.pop("WATCHDOG_USEC", None)
out = open(os.path.join(tmp, "mn.out"), "w")
p = subprocess.Popen([takt, "plk", "mn", "-i", iface, "-c", "2000", "--nodes", "1-2", "--boot-wait", "100",
                      "--pres-timeout", "400", "--loss-threshold", loss], stdout=out, stderr=subprocess.STDOUT, env=env)
def fail(msg):
    p.kill()
    print("FAIL:", msg, "\n", open(out.name).read()[-3000:], file=sys.stderr)
    sys.exit(1)
end = time.monotonic() + int(limit)
ready = None
while ready is None and time.monotonic() < end and p.poll() is None:
    try:
        m = s.recv(4096).decode()
    except socket.timeout:
        continue
    lines = m.split("\n")
    if "READY=1" in lines:
        ready = m
    elif any(l.startswith("STATUS=MN OPERATIONAL, 2 of 2") for l in lines):
        fail("all CNs Operational said without READY=1: " + m)
if ready is None:
    fail("no READY=1")
if "STATUS=MN OPERATIONAL, 2 of 2 CNs operational" not in ready.split("\n"):
    fail("READY=1 without every CN Operational: %r" % ready)
p.send_signal(signal.SIGTERM)
try:
    p.wait(30)
except subprocess.TimeoutExpired:
    fail("no exit within 30 s of SIGTERM")
msgs = []
s.setblocking(False)
while True:
    try:
        msgs.append(s.recv(4096).decode())
    except BlockingIOError:
        break
if not any("STOPPING=1" in m.split("\n") for m in msgs):
    fail("no STOPPING=1 after SIGTERM")
if "--- takt plk mn: MN OPERATIONAL" not in open(out.name).read():
    fail("no summary after SIGTERM")
print("--- notify (MN): READY=1 with every CN Operational, STOPPING=1 and the summary on SIGTERM", file=sys.stderr)
PY
    net_plk_cn_stop
}

body() {
    verify_units
    notify
    notify_mn
}
net_main body
