/* takt link bench: one test frame per cycle to a `takt link echo`, wait for the answer
 * within the cycle, record round trip and CPU time per cycle beside takt_rt_loop's own
 * Cycle Time / Wake Deviation / Task Duration; PerfMsmt lines and JSON at the end. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>
#include <time.h>
#include <takt/rt.h>
#include <takt/wire.h>
#include "cli/cli.h"
#include "cli/cli_link.h"

#define RX_BATCH 8

struct bench {
    const struct bench_args *a;
    struct takt_link *l;
    struct takt_rt_loop *loop;
    struct takt_perf_msmt m_rtt, m_cpu;
    uint32_t seq;
    takt_ns_t last_cpu;
    /* written by the cycle thread only, read by the reporter: relaxed atomics */
    uint64_t sent, answered, lost, late, tx_errors;
    uint8_t tx[TAKT_FRAME_BUF];
    uint8_t rx[RX_BATCH][TAKT_FRAME_BUF];
};

static void inc(uint64_t *v) { __atomic_store_n(v, *v + 1, __ATOMIC_RELAXED); }
static uint64_t get(const uint64_t *v) { return __atomic_load_n(v, __ATOMIC_RELAXED); }

static takt_ns_t thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (takt_ns_t)t.tv_sec * TAKT_NS_PER_S + t.tv_nsec;
}

/* Sequence number of a reply to us, or -1 for anything else. */
static int64_t reply_seq(const struct takt_frame *f)
{
    if (f->len < LT_MIN_LEN || memcmp(f->data + LT_MAGIC_OFF, "takt", 4) || f->data[LT_KIND_OFF] != 'R')
        return -1;
    return takt_get_le32(f->data + LT_SEQ_OFF);
}

/* Wait until `deadline` for the reply to `seq`; older replies count as late. */
static int wait_reply(struct bench *b, uint32_t seq, takt_ns_t t0, takt_ns_t deadline, bool record)
{
    struct takt_frame f[RX_BATCH];
    for (;;) {
        takt_ns_t now = takt_now();
        if (now >= deadline)
            return 0;
        for (int i = 0; i < RX_BATCH; i++)
            f[i] = (struct takt_frame){ .data = b->rx[i], .cap = TAKT_FRAME_BUF };
        int n = takt_link_recv(b->l, f, RX_BATCH, deadline - now);
        if (n < 0)
            return n;
        int found = 0;
        for (int i = 0; i < n; i++) {
            int64_t s = reply_seq(&f[i]);
            if (s == (int64_t)seq) {
                if (record)
                    takt_perf_record(takt_rt_loop_perf(b->loop), &b->m_rtt, f[i].ts - t0);
                found = 1;
            } else if (s >= 0) {
                inc(&b->late);
            }
        }
        if (found)
            return 1;
    }
}

static int bench_step(void *ctx, struct takt_rt_loop *loop, takt_ns_t wake)
{
    struct bench *b = ctx;
    takt_ns_t cpu = thread_cpu();
    if (b->last_cpu)   /* CPU the thread used over the whole previous cycle */
        takt_perf_record(takt_rt_loop_perf(loop), &b->m_cpu, cpu - b->last_cpu);
    b->last_cpu = cpu;

    uint32_t seq = ++b->seq;
    takt_ns_t t0 = takt_now();
    link_test_frame(b->tx, b->a->size, link_bcast, b->l->mac, TAKT_ETHERTYPE_TEST, 'Q', seq, t0);
    struct takt_frame f = { .data = b->tx, .len = (uint16_t)b->a->size, .ts = t0 };
    if (takt_link_send(b->l, &f, 1) != 1) {
        inc(&b->tx_errors);
    } else {
        inc(&b->sent);
        /* leave the last tenth of the cycle free so the next wake-up is not late */
        int r = wait_reply(b, seq, t0, wake + b->a->cycle_ns - b->a->cycle_ns / 10, true);
        if (r < 0)
            return r;
        inc(r ? &b->answered : &b->lost);
    }
    return *b->a->stop ? 1 : 0;
}

/* Before measuring: probe until the echo answers, so start-up is not counted as loss. */
static int find_echo(struct bench *b)
{
    takt_ns_t end = takt_now() + 3 * TAKT_NS_PER_S;
    while (takt_now() < end && !*b->a->stop) {
        takt_ns_t t0 = takt_now();
        link_test_frame(b->tx, b->a->size, link_bcast, b->l->mac, TAKT_ETHERTYPE_TEST, 'Q', 0, t0);
        struct takt_frame f = { .data = b->tx, .len = (uint16_t)b->a->size };
        int rc = takt_link_send(b->l, &f, 1);
        if (rc < 0)
            return rc;
        if (wait_reply(b, 0, t0, t0 + 20 * TAKT_NS_PER_MS, false) == 1) {
            /* drain stray probe answers, then start from clean statistics */
            struct takt_frame d = { .data = b->rx[0], .cap = TAKT_FRAME_BUF };
            while (takt_link_recv(b->l, &d, 1, 20 * TAKT_NS_PER_MS) > 0)
                d.cap = TAKT_FRAME_BUF;
            b->late = 0;
            return 1;
        }
    }
    return 0;
}

static int add_msmt(struct bench *b, struct takt_perf_msmt *m, const char *name)
{
    /* 1 us bins up to 4 periods + 1 ms, like takt_rt_loop's own (at most 100000 bins) */
    uint64_t range = 4 * (uint64_t)b->a->cycle_ns + TAKT_NS_PER_MS, bin = TAKT_NS_PER_US;
    while (range / bin > 100000)
        bin *= 10;
    int rc = takt_perf_msmt_init(m, name, 0, (int64_t)bin, (uint32_t)((range + bin - 1) / bin));
    return rc ? rc : takt_perf_set_add(takt_rt_loop_perf(b->loop), m);
}

static void fmt_us(char *s, size_t n, int64_t ns)
{
    if (ns == INT64_MAX)
        snprintf(s, n, "overflow");
    else
        snprintf(s, n, "%.1f", (double)ns / 1000.0);
}

static void print_frames(FILE *out, struct bench *b)
{
    fprintf(out, "frames: sent %" PRIu64 ", answered %" PRIu64 ", lost %" PRIu64
                 " (answered late %" PRIu64 "), send errors %" PRIu64 "\n",
            get(&b->sent), get(&b->answered), get(&b->lost), get(&b->late), get(&b->tx_errors));
}

static void print_summary(FILE *out, struct bench *b)
{
    const struct takt_perf_msmt *r = &b->m_rtt, *w = takt_rt_loop_msmt(b->loop, TAKT_RT_LOOP_WAKE_DEVIATION),
                           *c = &b->m_cpu;
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(b->loop, &li);
    char v[6][24];
    fprintf(out, "--- %s (%s), cycle %.1f us, %.1f s, %" PRIu64 " cycles, %" PRIu64 " overruns ---\n",
            b->l->name, b->l->ops->kind, (double)b->a->cycle_ns / 1000.0,
            (double)(li.ended - li.started) / 1e9, li.cycles, li.overruns);
    takt_perf_print_total(out, takt_rt_loop_perf(b->loop));
    fmt_us(v[0], 24, r->total.count ? r->total.min : 0);
    fmt_us(v[1], 24, takt_perf_hist_percentile(&r->hist, 50));
    fmt_us(v[2], 24, takt_perf_hist_percentile(&r->hist, 99));
    fmt_us(v[3], 24, r->total.count ? r->total.max : 0);
    fprintf(out, "Round Trip [usec]: min %s p50 %s p99 %s max %s (p: upper edge of a 1 us bin)\n",
            v[0], v[1], v[2], v[3]);
    fmt_us(v[0], 24, takt_perf_hist_percentile(&w->hist, 99));
    fmt_us(v[1], 24, w->total.count ? w->total.max : 0);
    fmt_us(v[2], 24, perf_stat_avg(&c->total));
    fmt_us(v[3], 24, takt_perf_hist_percentile(&c->hist, 99));
    fprintf(out, "Wake Deviation [usec]: p99 %s max %s; CPU per cycle [usec]: avg %s p99 %s\n",
            v[0], v[1], v[2], v[3]);
    /* the /proc view: every thread of the process (the reporter too) over the loop's run */
    fmt_us(v[4], 24, takt_rt_loop_cpu_per_cycle(b->loop));
    fprintf(out, "CPU per cycle, process [usec]: %s (the loop thread's alone: the avg above)\n", v[4]);
    print_frames(out, b);
}

static json_object *result_json(struct bench *b)
{
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(b->loop, &li);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "interface", json_object_new_string(b->l->name));
    json_object_object_add(o, "link", json_object_new_string(b->l->ops->kind));
    json_object_object_add(o, "cycle_ns", json_object_new_int64(b->a->cycle_ns));
    json_object_object_add(o, "duration_ns", json_object_new_int64(li.ended - li.started));
    json_object_object_add(o, "frame_len", json_object_new_int((int)b->a->size));
    json_object_object_add(o, "cycles", json_object_new_uint64(li.cycles));
    json_object_object_add(o, "overruns", json_object_new_uint64(li.overruns));
    json_object *fr = json_object_new_object();
    json_object_object_add(fr, "sent", json_object_new_uint64(b->sent));
    json_object_object_add(fr, "answered", json_object_new_uint64(b->answered));
    json_object_object_add(fr, "lost", json_object_new_uint64(b->lost));
    json_object_object_add(fr, "late", json_object_new_uint64(b->late));
    json_object_object_add(fr, "send_errors", json_object_new_uint64(b->tx_errors));
    json_object_object_add(o, "frames", fr);
    /* the same "rt" object as every takt_rt_loop's JSON (which settings took effect, how
     * many warnings), plus the loop thread's CPU time */
    json_object *loop = takt_rt_loop_to_json(b->loop), *rt = NULL;
    if (json_object_object_get_ex(loop, "rt", &rt))
        rt = json_object_get(rt);
    else
        rt = json_object_new_object();
    json_object_put(loop);
    json_object_object_add(rt, "cpu_ns", json_object_new_int64(li.cpu_ns));
    json_object_object_add(rt, "proc_cpu_ns", json_object_new_int64(li.proc_cpu_ns));
    json_object_object_add(rt, "proc_cpu_per_cycle_ns", json_object_new_int64(takt_rt_loop_cpu_per_cycle(b->loop)));
    json_object_object_add(o, "rt", rt);
    json_object_object_add(o, "perf", takt_perf_set_to_json(takt_rt_loop_perf(b->loop)));
    return o;
}

static int write_json_file(const char *path, json_object *o)
{
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    int rc = (!f || fprintf(f, "%s\n", s) < 0) ? -errno : 0;
    if (f && f != stdout && fclose(f))
        rc = -errno;
    return rc;
}

/* The reporter: sleep in small steps, print an interval every perf_s seconds. */
static void report_until_done(struct bench *b)
{
    const struct bench_args *a = b->a;
    takt_ns_t start = takt_now(), end = start + (takt_ns_t)(a->time_s * 1e9);
    takt_ns_t next = a->perf_s > 0 ? start + (takt_ns_t)(a->perf_s * 1e9) : INT64_MAX;
    while (!*a->stop && takt_now() < end && !takt_rt_loop_ended(b->loop)) {
        nanosleep(&(struct timespec){ 0, 10 * TAKT_NS_PER_MS }, NULL);
        if (takt_now() < next)
            continue;
        next += (takt_ns_t)(a->perf_s * 1e9);
        int bank = takt_perf_set_snapshot(takt_rt_loop_perf(b->loop), TAKT_NS_PER_S);
        if (bank < 0)
            continue;
        takt_perf_print_interval(a->out, takt_rt_loop_perf(b->loop), bank);
        takt_perf_set_release(takt_rt_loop_perf(b->loop), bank);
        print_frames(a->out, b);
        fflush(a->out);
    }
}

int link_bench(const struct bench_args *a)
{
    static struct bench b;     /* large (rx buffers); one bench per process */
    memset(&b, 0, sizeof b);
    b.a = a;
    b.l = a->link;
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    ro.cpu = a->cpu;
    ro.prio = a->prio;
    ro.drop_caps = !a->keep_caps && !takt_rt_caps_root();   /* as cli_caps_dropping() */
    /* the link is open: keep only what the loop thread's set-up uses */
    if (ro.drop_caps)
        takt_rt_caps_drop(takt_rt_caps_for_setup(&ro));
    int rc = takt_rt_loop_create(&b.loop, a->cycle_ns, &ro, bench_step, &b);
    if (!rc)
        rc = add_msmt(&b, &b.m_rtt, "Round Trip");
    if (!rc)
        rc = add_msmt(&b, &b.m_cpu, "CPU Time");
    if (rc)
        return rc;
    rc = find_echo(&b);
    if (rc <= 0) {
        takt_perf_msmt_free(&b.m_rtt);
        takt_perf_msmt_free(&b.m_cpu);
        takt_rt_loop_destroy(b.loop);
        return rc < 0 ? rc : 1;
    }
    rc = takt_rt_loop_start(b.loop);
    if (rc) {
        takt_rt_loop_destroy(b.loop);
        return rc;
    }
    if (ro.drop_caps)
        takt_rt_caps_drop(takt_rt_caps_after_setup(&ro));
    report_until_done(&b);
    takt_rt_loop_stop(b.loop);
    rc = takt_rt_loop_join(b.loop);
    print_summary(a->out, &b);
    if (a->res) {
        struct takt_rt_loop_info li;
        takt_rt_loop_get_info(b.loop, &li);
        *a->res = (struct bench_result){
            .cpu = takt_rt_loop_cpu_per_cycle(b.loop), .thread_cpu = perf_stat_avg(&b.m_cpu.total),
            .rtt_p50 = takt_perf_hist_percentile(&b.m_rtt.hist, 50),
            .rtt_p99 = takt_perf_hist_percentile(&b.m_rtt.hist, 99), .cycles = li.cycles,
            .sent = b.sent, .answered = b.answered, .lost = b.lost };
    }
    if (a->json) {
        json_object *o = result_json(&b);
        int jrc = write_json_file(a->json, o);
        json_object_put(o);
        if (jrc)
            fprintf(stderr, "takt link bench: cannot write JSON to '%s': %s\n", a->json, strerror(-jrc));
    }
    takt_perf_msmt_free(&b.m_rtt);
    takt_perf_msmt_free(&b.m_cpu);
    takt_rt_loop_destroy(b.loop);
    return rc < 0 ? rc : (b.answered ? 0 : 1);
}

/* -i mem: a mem pair, the far end answering in the sender's call; --pcap taps our end. */
static int open_mem(struct cli_ctx *c, struct takt_link **out, struct takt_link **peer,
                    struct echo_result *er)
{
    struct takt_link *a;
    char err[320];
    int rc = takt_link_mem_pair(&a, peer, 64, NULL, NULL);
    if (rc)
        return cli_error(c, "cannot make a mem link pair: %s", takt_strerror(rc));
    takt_link_mem_set_responder(*peer, link_echo_responder, er);
    struct takt_link *cap = NULL;
    if (c->pcap && takt_link_capture(a, c->pcap, &cap, err, sizeof err)) {
        takt_link_close(a);
        takt_link_close(*peer);
        return cli_error(c, "%s", err);
    }
    *out = cap ? cap : a;
    return 0;
}

int cli_link_bench_cmd(struct cli_ctx *c);
int cli_link_bench_cmd(struct cli_ctx *c)
{
    long size = 60, rounds = 0;
    const char *s = cli_get(c, "size");
    if (s && cli_parse_long(c, "-s/--size (bytes)", s, LT_MIN_LEN, TAKT_ETH_MAX_FRAME, &size))
        return 2;
    if ((s = cli_get(c, "compare")) && cli_parse_long(c, "--compare (rounds)", s, 1, 1000, &rounds))
        return 2;
    if (rounds)
        return cli_link_compare(c, rounds, (unsigned)size);
    struct takt_link *l, *peer = NULL;
    struct echo_result er = { 0 };
    int rc = c->iface && !strcmp(c->iface, "mem") ? open_mem(c, &l, &peer, &er) : cli_link_open(c, &l);
    if (rc)
        return rc;
    struct bench_args a = {
        .link = l, .cycle_ns = c->cycle_ns, .time_s = c->time_s > 0 ? c->time_s : 10,
        .perf_s = c->perf_s, .cpu = c->cpu, .prio = c->prio, .size = (unsigned)size,
        .json = c->json, .out = stdout, .stop = &cli_interrupted,
    };
    fprintf(stderr, "takt link bench: %s, cycle %.1f us, %.1f s: looking for the echo...\n",
            l->name, (double)a.cycle_ns / 1000.0, a.time_s);
    rc = link_bench(&a);
    takt_link_close(l);
    if (peer)
        takt_link_close(peer);
    if (rc == 1)
        return cli_error(c, "no answer on %s: is 'takt link echo -i PEER' running on the other end?",
                         c->iface);
    if (rc < 0)
        return cli_error(c, "on %s: %s", c->iface, takt_strerror(rc));
    return 0;
}
