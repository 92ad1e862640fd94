/* takt bench's verdict on one run: was the cycle held, and if not, why, in words that
 * fit the protocol (a POWERLINK cell speaks of PRes and resets, an EtherCAT one of
 * working counters). A reset of the POWERLINK network inside the measured window is
 * named, not left to hide behind a frame-loss count. */
#include "bench/bench.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double us(int64_t ns) { return (double)ns / 1000.0; }


static uint64_t u64(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static bool any_event(const struct bench_plk_events *e)
{
    return e->reboots || e->resets || e->loss_thr || e->exceed_thr;
}

/* Where the events lie: `takt plk mn -v` logs "takt plk mn: MN STATE, k of n CNs
 * operational" on every change, and the measured window opens at the first "MN
 * OPERATIONAL, n of n"; any change logged after it is the network leaving that state
 * inside the window (the MN stops logging when the window closes). */
static int events_in_window(const char *log, unsigned n)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    if (!f)
        return -1;
    char line[512], all[80];
    snprintf(all, sizeof all, "MN OPERATIONAL, %u of %u CNs operational", n, n);
    int where = -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "takt plk mn: MN ");
        if (!p || strstr(line, "--- takt plk mn") || !strstr(p, "CNs operational"))
            continue;
        if (where < 0 && strstr(p, all))
            where = 0;
        else if (where == 0)
            where = 1;
    }
    fclose(f);
    return where;
}

void bench_plk_events_read(struct bench_run *r, const char *json_path, const char *log)
{
    struct bench_plk_events *e = &r->ev;
    memset(e, 0, sizeof *e);
    e->in_window = -1;
    json_object *root = json_object_from_file(json_path), *nodes;
    if (!root)
        return;
    e->exceed_thr = u64(root, "cycle_exceed_threshold_hits");
    if (json_object_object_get_ex(root, "nodes", &nodes) && json_object_is_type(nodes, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(nodes); i++) {
            json_object *n = json_object_array_get_idx(nodes, i), *lr;
            uint64_t boots = u64(n, "boots");
            e->nodes++;
            if (boots > 1) {
                e->reboots += boots - 1;
                e->nodes_rebooted++;
            }
            e->resets += u64(n, "resets");
            e->loss_thr += u64(n, "loss_threshold_hits");
            if (json_object_object_get_ex(n, "last_reset", &lr))
                snprintf(e->last_reset, sizeof e->last_reset, "CN %d: %s", (int)u64(n, "node"),
                         json_object_get_string(lr));
        }
    }
    json_object_put(root);
    e->in_window = events_in_window(log, e->nodes);
}

const char *bench_plk_events_text(const struct bench_run *r, char *buf, size_t n)
{
    const struct bench_plk_events *e = &r->ev;
    buf[0] = 0;
    if (r->proto != BP_PLK || !any_event(e))
        return buf;
    bool network = e->exceed_thr || (e->nodes && e->nodes_rebooted == e->nodes);
    static const char *const where[] = { "while booting, before the measured window",
                                         "inside the measured window",
                                         "in the run (the MN's log does not say whether inside the measured window)" };
    size_t l = (size_t)snprintf(buf, n, "%s %s:", network ? "POWERLINK network reset" : "CN reset",
                                where[e->in_window == 0 ? 0 : e->in_window == 1 ? 1 : 2]);
#define PUT(...) (l < n ? l += (size_t)snprintf(buf + l, n - l, __VA_ARGS__) : 0)
    const char *sep = " ";
    if (e->reboots) {
        PUT("%s%u of %u CNs booted again (%llu reboot%s)", sep, e->nodes_rebooted, e->nodes,
            (unsigned long long)e->reboots, e->reboots == 1 ? "" : "s");
        sep = ", ";
    }
    if (e->resets) {
        e->resets == 1 ? PUT("%sthe MN reset a CN once", sep)
                         : PUT("%sthe MN reset CNs %llu times", sep, (unsigned long long)e->resets);
        sep = ", ";
    }
    if (e->loss_thr) {
        e->loss_thr == 1 ? PUT("%sthe loss-of-PRes threshold fired once", sep)
                           : PUT("%sthe loss-of-PRes threshold fired %llu times", sep, (unsigned long long)e->loss_thr);
        sep = ", ";
    }
    if (e->exceed_thr)
        e->exceed_thr == 1
            ? PUT("%sthe cycle-exceeded threshold (0x1C02) fired once: the MN went back to PreOp1 and reset every CN", sep)
            : PUT("%sthe cycle-exceeded threshold (0x1C02) fired %llu times: the MN went back to PreOp1 and reset every CN",
                  sep, (unsigned long long)e->exceed_thr);
    if (e->last_reset[0])
        PUT(" (last reset: %s)", e->last_reset);
#undef PUT
    return buf;
}

const char *bench_max_why(const struct bench_run *r, char *buf, size_t n)
{
    buf[0] = 0;
    if (!r->wire_cycles || !r->period.count)
        return buf;
    int64_t d = r->wire.max - r->period.max, tol = r->cycle_ns / 10 > 20000 ? r->cycle_ns / 10 : 20000;
    if (d <= tol && -d <= tol)
        return buf;
    char ev[400];
    size_t l = (size_t)snprintf(buf, n, "wire max %.1f µs, stack max %.1f µs: ", us(r->wire.max), us(r->period.max));
    if (l >= n)
        return buf;
    if (d > 0 && r->ev.in_window != 0 && bench_plk_events_text(r, ev, sizeof ev)[0])
        snprintf(buf + l, n - l, "the MN stopped sending SoC while the network was reset");
    else if (d > 0 && r->capture_drops > 0)
        snprintf(buf + l, n - l, "the capture lost %ld frames in the kernel, so the wire shows periods that were "
                                 "not on it", r->capture_drops);
    else if (d > 0 && r->wire_lost)
        snprintf(buf + l, n - l, "%llu cyclic frames never reached the wire's capture; the period across each gap "
                                 "is longer than any wake-up to wake-up of the stack",
                 (unsigned long long)r->wire_lost);
    else if (d > 0)
        snprintf(buf + l, n - l, "a frame left later than the stack's wake-up (send path: qdisc, veth, the "
                                 "simulated network's CPU); the stack measures wake-up to wake-up and does not see it");
    else
        snprintf(buf + l, n - l, "the stack measures wake-up to wake-up in its cycle thread, the wire between "
                                 "captured frames: the late wake-up's frame was not captured, or fell outside the "
                                 "capture's part of the window");
    return buf;
}

const char *bench_ct_cell(const struct bench_run *r, bool avg, char *buf, size_t n)
{
    const struct bench_ct *c = &r->ct;
    if (c->ok) {
        int l = avg ? snprintf(buf, n, "%.0f / %.0f", c->avg_us, c->max_us) : snprintf(buf, n, "%.0f", c->max_us);
        if (c->status == -ETIMEDOUT && l > 0 && (size_t)l < n)
            snprintf(buf + l, n - (size_t)l, " (stopped: timed out)");
    } else if (c->missing)
        snprintf(buf, n, "not installed");
    else if (c->status == -ETIMEDOUT)
        snprintf(buf, n, "timed out: no result (see data/cyclictest-*.log)");
    else if (c->status > 0)
        snprintf(buf, n, "exited with status %d, no result", c->status);
    else if (!c->cmd[0])
        snprintf(buf, n, "did not run (the stack did not start)");
    else
        snprintf(buf, n, "no result");
    return buf;
}

/* Did the run happen, whatever its figures? */
static bool run_happened(const struct bench_run *r, int rc)
{
    /* plk mn exits 3 when a CN is not Operational at the end; with a measured window in
     * its report the run did happen (a CN dropped out during it) */
    if (rc == 3 && r->proto == BP_PLK && r->cycles > 0)
        return true;
    /* ecat run and plk mn exit 1 when most cycles overran: the run happened, and its
     * figures show a cycle the machine could not hold */
    return rc == 0 || (rc == 1 && r->cycles > 0 && r->overruns * 2 > r->cycles);
}

bool bench_run_happened(const struct bench_run *r, int rc) { return run_happened(r, rc); }

void bench_judge(struct bench_run *r, int rc, bool capture, const char *tag)
{
    bool plk = r->proto == BP_PLK;
    r->ran = run_happened(r, rc);
    bool dropped = r->ran && rc == 3 && plk;
    /* a CN not Operational at the end of a window that opened with all of them: the
     * network fell out inside it, whatever the log caught */
    if (dropped && r->ev.in_window < 0)
        r->ev.in_window = 1;
    char ev[400];
    bench_plk_events_text(r, ev, sizeof ev);
    bool reset = plk && ev[0] && r->ev.in_window != 0;
    if (dropped)
        bench_add_note(r, "a CN dropped out of Operational while measuring (%llu PRes lost)", (unsigned long long)r->lost);
    /* held: no WKC error, at most 0.1 % of the cycles with a lost frame, at most 1 % overrun
     * (a machine's rare stall is reported, not taken for an unholdable cycle), and no reset
     * of the POWERLINK network in the window */
    r->held = r->ran && !dropped && !reset && r->cycles > 0 && r->wkc_errors == 0 && r->lost * 1000 <= r->cycles &&
              r->overruns * 100 <= r->cycles;
    if (!r->ran && rc != -ETIMEDOUT) {
        if (rc == 3 && plk)
            bench_add_note(r, "not every CN reached Operational (see logs/%.60s-stack.log)", tag);
        else
            bench_add_note(r, "the stack exited with status %d (see logs/%.60s-stack.log)", rc, tag);
    } else if (r->ran && !r->held && !dropped) {
        double c = r->cycles ? (double)r->cycles : 1.0;
        if (plk)
            bench_add_note(r, "%s%llu of %llu cycles lost a PRes (%.2f %%), %llu overran (%.2f %%)", capture ? "" : "not held: ",
                     (unsigned long long)r->lost, (unsigned long long)r->cycles, 100.0 * (double)r->lost / c,
                     (unsigned long long)r->overruns, 100.0 * (double)r->overruns / c);
        else
            bench_add_note(r, "%s%llu of %llu cycles lost a frame (%.2f %%), %llu overran (%.2f %%), %llu WKC errors",
                     capture ? "" : "not held: ", (unsigned long long)r->lost, (unsigned long long)r->cycles,
                     100.0 * (double)r->lost / c, (unsigned long long)r->overruns, 100.0 * (double)r->overruns / c,
                     (unsigned long long)r->wkc_errors);
    }
    if (ev[0])
        bench_add_note(r, "%s", ev);
    char why[600];
    if (bench_max_why(r, why, sizeof why)[0])
        bench_add_note(r, "%s", why);
}
