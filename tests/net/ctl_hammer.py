#!/usr/bin/env python3
"""Hammer a takt control socket (docs/control.md) from N concurrent clients: valid
requests, garbage, lines beyond 64 KiB, requests cut off by a close, lines left
incomplete until the server times them out, and floods beyond the rate limit. Prints
one JSON object of what each kind saw; exit 1 when a kind did not get the answer the
protocol promises it (an error line, not silence or a crash)."""
import json, os, random, socket, sys, threading, time

path, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
seen = {}
lock = threading.Lock()


def note(kind, what):
    with lock:
        seen.setdefault(kind, {}).setdefault(what, 0)
        seen[kind][what] += 1


def connect(kind, end):
    """A connection that got a slot (the server refuses beyond its maximum: retry)."""
    while time.monotonic() < end:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(15)
        try:
            s.connect(path)
            s.sendall(b'{"v":1,"id":1,"verb":"hello"}\n')
            line = s.makefile("rb").readline()
            if b'"ok":true' in line:
                return s
            note(kind, "refused: " + json.loads(line).get("error", "?")[:24] if line else "closed")
        except (OSError, ValueError) as e:
            note(kind, "connect: " + type(e).__name__)
        s.close()
        time.sleep(0.02)
    return None


def lines(s):
    f = s.makefile("rb")
    while True:
        ln = f.readline()
        if not ln:
            return
        yield json.loads(ln)


def valid(end, once=False):
    reqs = [{"verb": "states"}, {"verb": "slaves"}, {"verb": "stats"},
            {"verb": "reg_read", "pos": 0, "reg": 0x10, "len": 2}]
    while time.monotonic() < end:
        s = connect("valid", end)
        if not s:
            return
        it = lines(s)
        try:
            for i in range(20):
                r = dict(random.choice(reqs), v=1, id=100 + i)
                s.sendall((json.dumps(r) + "\n").encode())
                a = next(it)
                note("valid", "ok" if a.get("ok") else "error: " + a.get("error", "")[:30])
        except (OSError, StopIteration, ValueError) as e:
            note("valid", "lost: " + type(e).__name__)
        s.close()
        if once:
            return


def garbage(end):
    s = connect("garbage", end)
    if not s:
        return
    try:
        junk = bytes(random.getrandbits(8) for _ in range(2000)).replace(b"\n", b" ")
        for bad in (junk, b"[1,2,3]", b'{"v":1}', b'{"v":7,"verb":"slaves"}', b'{"v":1,"verb":"nope"}',
                    b'{"v":1,"verb":"reg_read","pos":99999,"reg":1,"len":2}', b'{"v":1,"verb":"slaves"} x',
                    b"{" * 5000):
            s.sendall(bad + b"\n")
            a = next(lines(s))
            note("garbage", "error" if a.get("ok") is False and a.get("error") else "ANSWERED")
    except (OSError, StopIteration, ValueError) as e:
        note("garbage", "lost: " + type(e).__name__)
    s.close()


def oversize(end):
    s = connect("oversize", end)
    if not s:
        return
    try:
        s.sendall(b'{"v":1,"verb":"slaves","pad":"' + b"x" * 70000)
        a = next(lines(s))
        note("oversize", "error" if "longer than" in a.get("error", "") else "OTHER")
        try:
            note("oversize", "closed" if not s.recv(1) else "OPEN")
        except ConnectionResetError:
            note("oversize", "closed")
    except (OSError, StopIteration, ValueError) as e:
        note("oversize", "lost: " + type(e).__name__)
    s.close()


def cutoff(end):
    s = connect("cutoff", end)
    if s:
        s.sendall(b'{"v":1,"id":5,"verb":"upload","pos":0,"ind')
        s.close()
        note("cutoff", "closed mid-request")


def hang(end):
    s = connect("hang", end)
    if not s:
        return
    try:
        s.sendall(b'{"v":1,"id":6,"verb":"sta')
        a = next(lines(s))      # the server gives up on the line after 5 s
        note("hang", "timed out" if "incomplete" in a.get("error", "") else "OTHER")
    except (OSError, StopIteration, ValueError) as e:
        note("hang", "lost: " + type(e).__name__)
    s.close()


def flood(end):
    s = connect("flood", end)
    if not s:
        return
    try:
        s.sendall(b'{"v":1,"verb":"stats"}\n' * 500)
        it = lines(s)
        for _ in range(500):
            a = next(it)
            note("flood", "ok" if a.get("ok") else ("rate" if "too many" in a.get("error", "") else "OTHER"))
    except (OSError, StopIteration, ValueError) as e:
        note("flood", "lost: " + type(e).__name__)
    s.close()


def run(kinds, count, end):
    threads = [threading.Thread(target=kinds[i % len(kinds)], args=(end,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# first each kind once, within the connection limit: each must see its answer; then
# the storm of n clients, in which any answer must still be the promised one
run([lambda end: valid(end, True), garbage, oversize, cutoff, hang, flood], 6, time.monotonic() + 30)
run([valid] * 4 + [garbage, oversize, cutoff, hang, flood, valid], n, time.monotonic() + seconds)
print(json.dumps(seen, sort_keys=True))
bad = [k for k, v in seen.items() for w in v if w in ("ANSWERED", "OTHER", "OPEN") or w.startswith("lost")]
need = {"garbage": "error", "oversize": "error", "hang": "timed out", "flood": "rate", "valid": "ok"}
missing = [k for k, w in need.items() if not seen.get(k, {}).get(w)]
if bad or missing:
    print("unexpected answers: %s; never seen: %s" % (bad, missing), file=sys.stderr)
    sys.exit(1)
