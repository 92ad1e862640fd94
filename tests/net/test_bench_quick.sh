#!/usr/bin/env bash
# takt bench --quick end to end: both stacks against their simulated networks across
# namespace pairs, every table, the plots, and numbers that agree with each other.
set -euo pipefail
TAKT=${TAKT:?path of the takt binary}
if ! why=$("$TAKT" netns check 2>&1); then
  echo "SKIP: $why"; exit 77
fi
out=$(mktemp -d /tmp/takt-bench-test.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$TAKT" bench --quick --out "$out" >"$out.stdout" 2>"$out.stderr" || { cat "$out.stderr"; exit 1; }
grep -q "report written to $out/report.md" "$out.stdout"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "report.json")))
md = open(os.path.join(out, "report.md")).read()
errors = []
def check(cond, msg):
    if not cond: errors.append(msg)
# the four tables
for h in ("CPU load of the EtherCAT master", "CPU load of the POWERLINK MN",
          "EtherCAT master: cycle time under load", "POWERLINK MN: cycle time under load"):
    check(h in md, "report.md lacks the table '%s'" % h)
check(len(r["load"]) == 2 * 4 * 6, "load matrix has %d cells, expected 48" % len(r["load"]))
check(len(r["jitter"]) == 2 * 7, "jitter table has %d rows, expected 14" % len(r["jitter"]))
held = 0
for run in r["load"] + r["jitter"]:
    tag = "%s %d nodes %d ns %s" % (run["protocol"], run["nodes"], run["cycle_ns"], run["stress"])
    ct = run["cycle_time"]
    if run["cycles"]:
        h = ct["hist"]
        total = h["under"] + h["over"] + sum(n for _, n in h["bins"])
        check(total == h["total"], tag + ": histogram bins add up to %d, total says %d" % (total, h["total"]))
        check(ct["count"] == h["total"], tag + ": Cycle Time count %d != histogram total %d" % (ct["count"], h["total"]))
        check(abs(run["cycles"] - ct["count"]) <= 1, tag + ": cycles %d vs Cycle Time count %d" % (run["cycles"], ct["count"]))
        check(ct["min_ns"] <= ct["avg_ns"] <= ct["max_ns"], tag + ": min/avg/max out of order")
    if run["held"]:
        held += 1
        check(0 < run["cpu_percent"] < 100, tag + ": CPU load %.3f%% out of range" % run["cpu_percent"])
        check(run["frames_lost"] * 1000 <= run["cycles"], tag + ": held with more than 0.1 % of the cycles lost")
    if "wire" in run and run["cycles"] and run["frames_lost"] == 0:
        # without loss, the capture at the peer sees the same number of cycles, give or
        # take the window's edges (under stress frames can die in the kernel: then it may not)
        w = run["wire"]["count"]
        check(abs(w - run["cycles"]) <= max(5, run["cycles"] // 50),
              tag + ": wire saw %d periods, the stack %d cycles" % (w, run["cycles"]))
check(held >= 8, "only %d cells held their cycle" % held)
if os.path.exists("/usr/bin/gnuplot"):
    for p in ("ethercat", "powerlink"):
        for k in ("load", "hist"):
            for ext in ("png", "svg"):
                f = os.path.join(out, "plots", "%s-%s.%s" % (k, p, ext))
                check(os.path.getsize(f) > 1000 if os.path.exists(f) else False, "plot %s missing" % f)
if errors:
    print("\n".join(errors)); sys.exit(1)
print("bench report consistent: %d load cells, %d jitter runs, %d held" % (len(r["load"]), len(r["jitter"]), held))
PY
