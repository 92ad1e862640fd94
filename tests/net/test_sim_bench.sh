#!/usr/bin/env bash
# takt sim ecat --bench (the simulator's own benchmark): the rows it must have (each size with and
# without the device models), --repeat's median/min/max from its own runs, JSON and
# table agreeing, and bad options refused. In-process: needs no namespaces.
set -euo pipefail
TAKT=${TAKT:?path of the takt binary}
out=$(mktemp -d /tmp/takt-sim-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$TAKT" sim ecat --bench --frames 300 --repeat 3 --bench-slaves 3,40,1000 --json "$out/b.json" >"$out/table" 2>"$out/err" ||
    { cat "$out/err"; exit 1; }
python3 - "$out/b.json" "$out/table" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["bench"]
table = [l.split() for l in open(sys.argv[2]) if l.split() and l.split()[0].isdigit()]
err = []
want = [(n, m) for n in (3, 40, 1000) for m in (True, False)]
got = [(r["slaves"], r["device_models"]) for r in rows]
if got != want: err.append("rows %s, expected %s" % (got, want))
for r, t in zip(rows, table):
    tag = "%d slaves, models %s" % (r["slaves"], r["device_models"])
    runs = sorted(r["ns_per_frame_runs"])
    if len(runs) != 3 or r["repeat"] != 3: err.append(tag + ": %d runs, expected 3" % len(runs))
    if r["ns_per_frame"] != runs[1] or r["ns_per_frame_min"] != runs[0] or r["ns_per_frame_max"] != runs[2]:
        err.append(tag + ": median/min/max %s are not those of the runs %s" % ((r["ns_per_frame"], r["ns_per_frame_min"], r["ns_per_frame_max"]), runs))
    if not all(x > 0 for x in runs): err.append(tag + ": a run took no CPU time")
    if abs(r["frames_per_s"] * r["ns_per_frame"] - 1e9) > 1e3: err.append(tag + ": frames/s is not 1e9/ns per frame")
    # a coupler, then DI (1 B in) and DO (1 B out) alternating: one byte per terminal
    if r["image_bytes"] != r["slaves"] - 1: err.append(tag + ": image %d B, expected %d" % (r["image_bytes"], r["slaves"] - 1))
    if not r["wkc_ok"] or r["frames"] != 300: err.append(tag + ": wkc_ok %s frames %d" % (r["wkc_ok"], r["frames"]))
    if int(t[0]) != r["slaves"] or abs(float(t[3]) - r["ns_per_frame"]) > 1: err.append(tag + ": table row %s disagrees with the JSON" % t)
if err:
    print("FAIL: " + "\n".join(err)); sys.exit(1)
PY
for bad in "--bench-slaves 0" "--bench-slaves 40,x" "--repeat 0" "--bench-slaves 1,2,3,4,5,6,7,8,9"; do
    if "$TAKT" sim ecat --bench --frames 10 $bad >/dev/null 2>"$out/bad"; then
        echo "FAIL: '$bad' was accepted"; exit 1
    fi
    grep -q "expect" "$out/bad" || { echo "FAIL: '$bad' refused without saying what was expected:"; cat "$out/bad"; exit 1; }
done
echo "PASS: --bench rows, --repeat statistics, JSON = table, bad options refused"
