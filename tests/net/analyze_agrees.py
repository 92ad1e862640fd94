#!/usr/bin/env python3
"""Compare takt analyze's JSON of a stack's own capture with the stack's JSON of the
same run (used by test_analyze_agrees.sh; runnable by hand on any pair of files).

usage: analyze_agrees.py ecat|plk STACK.json ANALYZE.json
Prints the figures side by side; exits 1 with the reasons when they disagree.

What must agree, and why the bounds are what they are:
- the number of cyclic frames: one per stack cycle (EtherCAT: the whole run, exactly,
  +-2 for the first/last cycle; POWERLINK: the --measure window, whose edges a reporter
  thread reads, +-25 cycles);
- the mean period within 1 us: the capture's timestamps are ns, and a mean over
  thousands of periods does not depend on where in the cycle the frame was stamped;
- min and max period within the stack's longest Task Duration: the stack times
  wake-up to wake-up, the capture send to send, and the send happens inside the task,
  so each period differs by at most the variation of the send's offset in the task;
- frames the stack counts lost (never came back, or came after its deadline) equal the
  capture's lost + late: exactly (+-2 at the run's edges) for EtherCAT, with one upper
  allowance for one cause, a master thread that woke late: its deadline for a return is
  the next cycle's start on the nominal grid, the capture calls a return late only once
  the next frame went out, so a return that came before a late next send (more than a
  cycle after its own send, or in time but read only after the master moved on) is lost
  for the master and in time for the capture. The master counts every return it had
  already given up as frames_late ("came back late, never used"); of those, the capture
  calls its late ones late too, so the allowance is frames_late - capture late; for POWERLINK
  the MN's lost + late (a PRes stamped after its timeout but within the cycle is late,
  not lost) within 2 + 10 % (window edges; the MN judges a PRes by its stamp against
  the timeout, the capture by whether the MN had sent its next frame: a PRes in time
  but read after the MN moved on, or late while the MN's thread woke late, counts on
  one side only; the PRes after the timeout that the capture still sees in time, which
  analyze --pres-timeout counts as pres_after_timeout, widen the bound upwards).
"""
import json
import sys


def ns(v):
    return "%.1f us" % (v / 1000.0)


def main():
    kind, sp, ap = sys.argv[1:4]
    s, a = json.load(open(sp)), json.load(open(ap))
    err = []
    if a["timestamp_precision_ns"] != 1:
        err.append("capture precision %s ns, expected 1" % a["timestamp_precision_ns"])
    if kind == "ecat":
        if a["protocol"] != "EtherCAT":
            err.append("protocol %s" % a["protocol"])
        st = s["perf"]["Cycle Time"]
        task = s["perf"]["Task Duration"]["max_ns"]
        frames, cycles, tol_cycles = a["stream"]["sent"], s["cycles"], 2
        stack_lost = s["cyclic_frames_lost"]
        cap_lost = (a["stream"]["lost"] or 0) + (a["stream"]["late"] or 0)
        tol_lost = 2
        # returns the master had given up (its thread woke late) that the capture saw
        # before the next send: counted lost by the master only (see above)
        allow_up = max(0, (s.get("frames_late") or 0) - (a["stream"]["late"] or 0))
        if a["stream"]["lost"] is None:
            err.append("the capture holds no returns: loss not measurable")
        what = "EtherCAT (master, whole run)"
    else:
        if a["protocol"] != "POWERLINK":
            err.append("protocol %s" % a["protocol"])
        m = s["measure"]
        st = m["perf"]["SoC Period"]
        task = m["perf"]["Task Duration"]["max_ns"]
        frames, cycles, tol_cycles = a["soc"], m["cycles"], 25
        stack_lost = m["pres_lost"] + m.get("pres_late", 0)
        cap_lost = a["lost"] + a["late"]
        tol_lost = 2 + stack_lost // 10
        # PRes stamped after the timeout while the MN's thread had not yet moved on: late
        # for the MN (stamp against timeout), in time for the capture (analyze
        # --pres-timeout counts them), so they widen the bound upwards
        allow_up = a.get("pres_after_timeout") or 0
        what = "POWERLINK (MN, --measure window)"
    ca = a["cycle_time"]
    print("%s: cycles stack %d / capture %d frames; period stack min/avg/max %s/%s/%s, "
          "capture %s/%s/%s (bound for min/max: Task Duration max %s); lost stack %d / capture %d lost + %d late"
          " (upper allowance %d)"
          % (what, cycles, frames, ns(st["min_ns"]), ns(st["avg_ns"]), ns(st["max_ns"]), ns(ca["min_ns"]),
             ns(ca["avg_ns"]), ns(ca["max_ns"]), ns(task), stack_lost,
             (a["stream"]["lost"] or 0) if kind == "ecat" else a["lost"],
             (a["stream"]["late"] or 0) if kind == "ecat" else a["late"], allow_up))
    if abs(frames - cycles) > tol_cycles:
        err.append("cyclic frames: stack %d cycles, capture %d frames (tolerance %d)" % (cycles, frames, tol_cycles))
    if abs(ca["avg_ns"] - st["avg_ns"]) > 1000:
        err.append("mean period: capture %d ns, stack %d ns" % (ca["avg_ns"], st["avg_ns"]))
    for k in ("min_ns", "max_ns"):
        if abs(ca[k] - st[k]) > task:
            err.append("%s period: capture %d ns, stack %d ns, more apart than the longest task (%d ns)"
                       % (k[:3], ca[k], st[k], task))
    if stack_lost < cap_lost - tol_lost or stack_lost > cap_lost + allow_up + tol_lost:
        err.append("lost: stack %d, capture %d lost + late (+ %d returned after the master's deadline but before its next send; tolerance %d)"
                   % (stack_lost, cap_lost, allow_up, tol_lost))
    if err:
        print("DISAGREE: " + "; ".join(err))
        sys.exit(1)


main()
