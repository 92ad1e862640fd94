#!/usr/bin/env python3
"""Sort `perf script -F comm,tid,ip,sym` samples (with call chains) of the master into
the steps of a cycle and print the table (docs/performance.md, Per-cycle breakdown).
Args: ecat|plk PERF_TXT PROC_CPU_NS WINDOW_NS CYCLE_NS LINK."""
import re
import sys

# A sample goes to the first step in this order that any frame of its call chain
# matches (specific steps before generic ones, so a memcpy in the image copy is the
# image copy, and a sleep inside ppoll is the receive). Kernel work a syscall does
# (softirq delivery to the veth peer included) sits under the syscall's own frames, so
# it counts to the step that made the call; an interrupt to the step it interrupted.
KERNEL_SEND = r"sendmmsg|packet_snd|packet_sendmsg|dev_queue_xmit|__dev_direct_xmit|veth_xmit"
KERNEL_RECV = r"recvmmsg|ppoll|packet_recvmsg|packet_poll|do_sys_poll"
WAKE = r"clock_nanosleep|do_nanosleep|takt_rt_cycle_wait|hrtimer_interrupt|sysvec_apic_timer"
LOOP = r"run_cycle|loop_body|takt_now|clock_gettime|__vdso"
ECAT_STEPS = [
    ("capture tap", r"^cap_|pcapng|takt_link_capture"),
    ("statistics", r"^perf_(record|set_|hist|msmt|stat)|ecat_rate_add"),
    ("slave supervision", r"ecat_recovery|readdress|ecat_svc|mbx_"),
    ("image copy", r"take_inputs|ecat_cyc_reap|put_outputs"),
    ("WKC check", r"check_wkc|ecat_cyc_check"),
    ("parse", r"ecat_frame_first|ecat_frame_next|parse_dg|ecat_pdu_|dispatch|match"),
    ("build", r"ecat_cyc_build|ecat_frame_add|ecat_frame_begin|ecat_frame_end"),
    ("application", r"_cb$|app_"),
    ("send", r"pkt_send|ring_send|send_frames|" + KERNEL_SEND),
    ("receive", r"ring_take|ring_recv|pkt_recv|^receive$|" + KERNEL_RECV),
    ("wake-up", WAKE),
    ("loop and clock reads", LOOP + r"|cycle_step|takt_ecat_master_cycle"),
]
# POWERLINK MN, per cycle: SoC, a PReq per CN and its PRes, SoA and the async slot
PLK_STEPS = [
    ("capture tap", r"^cap_|pcapng|takt_link_capture"),
    ("statistics", r"^perf_(record|set_|hist|msmt|stat)|pres_latency"),
    ("publication to other threads", r"publish|words_store|node_snapshot"),
    ("application", r"_cb$|app_"),
    ("PRes handling (parse, image copy, judge)", r"plk_mn_rx|plk_frame_decode|^dec_|judge_cycle|pres_lost|chain_complete|^plk_pdo"),
    ("async phase (SoA, NMT, SDO, ident)", r"plk_mn_async|plk_mn_soa|^try_(nmt|mn_sdo|eth|invite|sync|status|ident)|plk_mn_nmt|^plk_sdo|^sdo_|nmt_mn"),
    ("frame build (SoC, PReq, PResMN)", r"send_soc|send_preq|send_pres_mn|msg_init|^enc_|plk_frame_encode|plk_txq_encode|build_poll_list|^advance|^tx$"),
    ("send", r"plk_drv_flush|mn_flush|pkt_send|ring_send|" + KERNEL_SEND),
    ("receive", r"ring_take|ring_recv|pkt_recv|^receive$|wait_pres|" + KERNEL_RECV),
    ("wake-up", WAKE),
    ("loop and clock reads", LOOP + r"|mn_step|plk_mn_cycle|plk_mn_tick|check_exceeded|mux_next"),
]


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
    mode, path = sys.argv[1], sys.argv[2]
    proc_ns, win_ns, cyc_ns, link = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    steps = ECAT_STEPS if mode == "ecat" else PLK_STEPS
    pats = [(n, re.compile(p)) for n, p in steps]
    count, leaves, total = {}, {}, 0
    for s in samples(path):
        total += 1
        step = None
        for n, p in pats:
            if any(p.search(sym) for sym in s["syms"]):
                step = n
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
          f"({cycles:.0f} cycles of {cyc_ns / 1e3:.0f} us), {mode}, link {link}, {total} samples")
    print("| step | samples | share | us per cycle | where (leaf symbols, samples) |")
    print("|---|---|---|---|---|")
    for n in [n for n, _ in steps] + ["other"]:
        k = count.get(n, 0)
        share = k / total if total else 0
        top = sorted(leaves.get(n, {}).items(), key=lambda x: -x[1])[:3]
        where = ", ".join(f"{s} {c}" for s, c in top)
        print(f"| {n} | {k} | {100 * share:.1f} % | {share * per_cycle / 1e3:.2f} | {where} |")


if __name__ == "__main__":
    main()
