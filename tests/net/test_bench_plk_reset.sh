#!/usr/bin/env bash
# takt bench names a POWERLINK network reset inside a measured window, end to end: the
# simulated CNs (--sim-args) have node 1 ask the MN for NMTResetNode of every node
# (0x28 to 255) one second after it is Operational. The MN goes back to PreOp1, stops
# the SoC stream and boots every CN again -- inside the load cell's 4 s window and the
# jitter run's 3 s one, whatever the boot took, since both open once every CN is
# Operational. The report's cell (report.md and report.json's note) must name the reset
# and the reboots, not only a count of lost PRes, and the cell is not held.
. "$(dirname "$0")/bench_lib.sh"
work=$BENCH_WORK
out=$work/r

"$TAKT" bench --stack plk --nodes 3 --cycles 2000 -t 4 --stress idle --ref-cycle 1000 --ref-cycles 3000 \
  --sim-args '--nmt-request 0x28@255+1' --out "$out" >"$work/stdout" 2>"$work/stderr" \
  || { cat "$work/stderr"; echo "FAIL: takt bench exited non-zero"; exit 1; }

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
r = json.load(open(out + "/report.json"))
md = open(out + "/report.md").read()
errs = []
want = "POWERLINK network reset inside the measured window"
runs = [("load", x) for x in r["load"]] + [("jitter", x) for x in r["jitter"]]
if len(runs) != 2:
    errs.append("expected one load cell and one jitter run, got %d" % len(runs))
for kind, x in runs:
    ev = x.get("network_events", {})
    tag = "%s run (%d CNs, %d us)" % (kind, x["nodes"], x["cycle_ns"] // 1000)
    if not ev.get("cn_reboots"):
        errs.append("%s: the MN's report shows no CN reboot, the reset did not happen: %s" % (tag, ev))
        continue
    if want not in x["note"] or "booted again" not in x["note"]:
        errs.append("%s: the cell's note does not name the reset and the reboots: '%s'" % (tag, x["note"]))
    if x["held"]:
        errs.append("%s: held, though the network was reset inside the window" % tag)
# report.md: Table 3's N/A cell is explained in its "Why, per cell" list, Table 5's
# frames-lost cell carries it in the table itself
cells = [l for l in md.splitlines() if l.startswith(("|", "- ")) and want in l]
if len(cells) < 2 or not any(l.startswith("|") for l in cells):
    errs.append("report.md: %d lines name the reset (%d in a table), expected the load cell's reason "
                "and the jitter run's cell" % (len(cells), sum(l.startswith("|") for l in cells)))
if errs:
    print("\n".join(errs))
    sys.exit(1)
print("the reset is named in %d cells: %s" % (len(cells), runs[0][1]["note"][:300]))
PY
