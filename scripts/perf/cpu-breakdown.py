#!/usr/bin/env python3
"""Sort `perf script -F comm,tid,ip,sym` samples (with call chains) of the master into
the steps of a cycle and print the table (docs/performance.md, Per-cycle breakdown).
Args: PERF_TXT PROC_CPU_NS WINDOW_NS CYCLE_NS LINK."""
import re
import sys

# Walked from the leaf up: the first pattern a frame's symbol matches names the step.
# Kernel work a syscall does (softirq delivery to the veth peer included) sits under
# the syscall's own symbols, so it counts to the step that made the call.
STEPS = [
    ("capture tap", r"^cap_|pcapng|takt_link_capture"),
    ("statistics", r"^perf_(record|set_|hist|msmt|stat)|ecat_rate_add"),
    ("slave supervision", r"ecat_recovery|readdress|ecat_svc|mbx_"),
    ("WKC check", r"check_wkc|ecat_cyc_check"),
    ("image copy", r"take_inputs|ecat_cyc_reap|put_outputs"),
    ("parse", r"ecat_frame_first|ecat_frame_next|parse_dg|ecat_pdu_|dispatch|match"),
    ("build", r"ecat_cyc_build|ecat_frame_add|ecat_frame_begin|ecat_frame_end"),
    ("application", r"_cb$|app_"),
    ("send", r"pkt_send|ring_send|send_frames|sendmmsg|packet_snd|dev_queue_xmit|veth_xmit"),
    ("receive", r"ring_take|ring_recv|pkt_recv|^receive$|recvmmsg|ppoll|packet_recvmsg|packet_poll|do_sys_poll"),
    ("wake-up", r"clock_nanosleep|do_nanosleep|hrtimer|^schedule|__schedule|rt_cycle_wait|finish_task_switch|sysvec_|irq"),
    ("loop and clock reads", r"run_cycle|loop_body|cycle_step|ecat_master_cycle|takt_now|clock_gettime|__vdso"),
]
PATS = [(n, re.compile(p)) for n, p in STEPS]


def samples(path):
    cur = None
    for line in open(path, errors="replace"):
        if not line.strip():
            if cur is not None:
                yield cur
            cur = None
            continue
        if not line.startswith((" ", "\t")):
            cur = {"head": line.split(), "syms": []}
        elif cur is not None:
            parts = line.split(None, 1)
            sym = parts[1].split("+")[0].strip() if len(parts) > 1 else "?"
            cur["syms"].append(sym)
    if cur is not None:
        yield cur


def main():
    path, proc_ns, win_ns, cyc_ns, link = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    count, leaves, total = {}, {}, 0
    for s in samples(path):
        total += 1
        step = None
        for sym in s["syms"]:
            for n, p in PATS:
                if p.search(sym):
                    step = n
                    break
            if step:
                break
        if not step:
            step = "other"
        leaf = s["syms"][0] if s["syms"] else "?"
        leaves.setdefault(step, {})
        leaves[step][leaf] = leaves[step].get(leaf, 0) + 1
        count[step] = count.get(step, 0) + 1
    cycles = win_ns / cyc_ns
    per_cycle = proc_ns / cycles if cycles else 0
    print(f"master CPU over the {win_ns / 1e9:.1f} s window: {proc_ns / 1e6:.1f} ms (/proc utime+stime, "
          f"in clock ticks) = {per_cycle / 1e3:.1f} us per cycle "
          f"({cycles:.0f} cycles of {cyc_ns / 1e3:.0f} us), link {link}, {total} samples")
    print("| step | samples | share | us per cycle | where (leaf symbols, samples) |")
    print("|---|---|---|---|---|")
    for n in [n for n, _ in STEPS] + ["other"]:
        k = count.get(n, 0)
        share = k / total if total else 0
        top = sorted(leaves.get(n, {}).items(), key=lambda x: -x[1])[:3]
        where = ", ".join(f"{s} {c}" for s, c in top)
        print(f"| {n} | {k} | {100 * share:.1f} % | {share * per_cycle / 1e3:.2f} | {where} |")


if __name__ == "__main__":
    main()
