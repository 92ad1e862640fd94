/* The running side of the metrics (metrics.h): options, the histograms accumulated from
 * the perf interval banks, rendering from the public accessors, the atomic file write.
 * Called from the reporter thread only; the cycle's part is metrics_latch (a flip hook). */
#include "cli/metrics.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/metrics_http.h"

struct metrics {
    const char *path;
    struct mx_http *http;      /* --metrics-listen */
    takt_ns_t every, next;
    char iface[64], proto[16];
    struct takt_rt_loop *loop;
    /* the measurements, summed over the banks handed to metrics_add_bank */
    unsigned n, banks;
    struct takt_perf_stat st[TAKT_PERF_MAX_MSMT];
    struct takt_perf_hist h[TAKT_PERF_MAX_MSMT];
    /* written by the cycle at each flip (metrics_latch), read after a snapshot */
    uint64_t latch_cycles, latch_overruns;
    struct mx_ecat_slave *slaves;
    unsigned n_slaves;
    struct mx_plk_node nodes[239];
    char *buf;
    size_t cap;
    bool said;
};

int metrics_open(struct cli_ctx *c, const char *iface, const char *protocol,
                 struct takt_rt_loop *loop, bool always, struct metrics **out)
{
    *out = NULL;
    const char *path = cli_get(c, "metrics-file"), *ev = cli_get(c, "metrics-every");
    const char *listen = cli_get(c, "metrics-listen");
    double every = 5;
    if (ev && cli_parse_double(c, "--metrics-every (seconds)", ev, 0.1, 86400, &every))
        return 2;
    if (!path && !listen && ev)
        return cli_usage_error(c, "--metrics-every needs --metrics-file or --metrics-listen");
    if (!path && !listen && !always)
        return 0;
    if (path && !*path)
        return cli_usage_error(c, "--metrics-file expects a file name, got ''");
    struct metrics *x = calloc(1, sizeof *x);
    if (!x)
        return 1;
    x->path = path;
    x->every = (takt_ns_t)(every * 1e9);
    x->next = takt_now();   /* the first version at once: a scrape finds the figures */
    snprintf(x->iface, sizeof x->iface, "%s", iface ? iface : "");
    snprintf(x->proto, sizeof x->proto, "%s", protocol);
    x->loop = loop;
    x->cap = 256 * 1024;
    x->buf = malloc(x->cap);
    if (!x->buf) {
        free(x);
        return 1;
    }
    const struct takt_perf_set *ps = loop ? takt_rt_loop_perf(loop) : NULL;
    for (unsigned i = 0; ps && i < takt_perf_set_count(ps); i++, x->n++) {
        const struct takt_perf_hist *h = &takt_perf_set_msmt(ps, i)->hist;
        takt_perf_stat_reset(&x->st[i]);
        if (takt_perf_hist_init(&x->h[i], h->lo, h->bin, h->nbins)) {
            metrics_close(x);
            return 1;
        }
    }
    if (listen) {
        char err[200];
        int rc = mx_http_start(&x->http, listen, err, sizeof err);
        if (rc) {
            metrics_close(x);
            return rc == -EINVAL ? cli_usage_error(c, "%s", err) : cli_error(c, "%s", err);
        }
    }
    *out = x;
    return 0;
}

void metrics_latched(const struct metrics *x, uint64_t *cycles, uint64_t *overruns)
{
    *cycles = x ? __atomic_load_n(&x->latch_cycles, __ATOMIC_RELAXED) : 0;
    *overruns = x ? __atomic_load_n(&x->latch_overruns, __ATOMIC_RELAXED) : 0;
}

void metrics_close(struct metrics *x)
{
    if (!x)
        return;
    mx_http_stop(x->http);
    for (unsigned i = 0; i < x->n; i++)
        takt_perf_hist_free(&x->h[i]);
    free(x->slaves);
    free(x->buf);
    free(x);
}

/* In the cycle, at the interval's edge: two plain copies. */
static void metrics_latch(void *arg)
{
    struct metrics *x = arg;
    /* atomic: a snapshot that timed out leaves its request pending, and then the cycle
     * may flip while the reporter reads these */
    struct takt_rt_loop_info li;
    takt_rt_loop_get_info(x->loop, &li);   /* in the cycle, once per bank flip */
    __atomic_store_n(&x->latch_cycles, li.cycles, __ATOMIC_RELAXED);
    __atomic_store_n(&x->latch_overruns, li.overruns, __ATOMIC_RELAXED);
}

void metrics_hook_flips(struct metrics *x)
{
    takt_perf_set_on_flip(takt_rt_loop_perf(x->loop), metrics_latch, x);
}

void metrics_add_bank(struct metrics *x, const struct takt_perf_set *s, int bank)
{
    for (unsigned i = 0; i < x->n && i < takt_perf_set_count(s); i++) {
        const struct takt_perf_hist *h;
        const struct takt_perf_stat *v = takt_perf_msmt_interval(takt_perf_set_msmt(s, i), bank, &h);
        if (!v->count)
            continue;
        struct takt_perf_stat *t = &x->st[i];
        t->min = v->min < t->min ? v->min : t->min;
        t->max = v->max > t->max ? v->max : t->max;
        t->sum += v->sum;
        t->count += v->count;
        for (uint32_t k = 0; k < h->nbins && k < x->h[i].nbins; k++)
            x->h[i].bins[k] += h->bins[k];
        x->h[i].under += h->under;
        x->h[i].over += h->over;
        x->h[i].total += h->total;
    }
    x->banks++;
}

bool metrics_due(struct metrics *x, takt_ns_t now)
{
    if (!x || (!x->path && !x->http) || now < x->next)
        return false;
    x->next += x->every;
    if (x->next <= now)   /* fell behind (a stalled reporter): no burst of writes */
        x->next = now + x->every;
    return true;
}

takt_ns_t metrics_next_due(const struct metrics *x)
{
    return !x || (!x->path && !x->http) ? INT64_MAX : x->next;
}

int metrics_write_file(const char *path, const char *text, size_t len)
{
    char tmp[4096], dir[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    snprintf(dir, sizeof dir, "%s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    for (size_t at = 0; at < len;) {
        ssize_t n = write(fd, text + at, len - at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            return -e;
        }
        at += (size_t)n;
    }
    /* the data on disk before the name points at it: a crash leaves the old file or the
     * new one, never a short one */
    if (fsync(fd) || close(fd)) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    if (rename(tmp, path)) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* Render with fn into the buffer, growing it (this is the reporter, not the cycle)
 * until the text fits; then write the file. */
int metrics_render_write(struct metrics *x, bool final, metrics_fn fn, void *ctx)
{
    if (!x->path && !x->http)
        return 0;
    struct mx_buf b;
    for (;;) {
        mx_init(&b, x->buf, x->cap, x->iface, x->proto);
        if (x->loop) {   /* without takt's cycle loop (plk cn): the caller's figures alone */
            struct takt_rt_loop_info li;
            takt_rt_loop_get_info(x->loop, &li);
            struct mx_loop l = { .period_ns = li.period };
            if (final) {
                l.cycles = li.cycles;
                l.overruns = li.overruns;
                l.ended = true;
                l.cpu_ns = li.proc_cpu_ns;
                l.thread_cpu_ns = li.cpu_ns;
            } else {
                metrics_latched(x, &l.cycles, &l.overruns);
            }
            mx_loop(&b, &l);
            struct mx_perf p = { 0 };
            const struct takt_perf_set *s = takt_rt_loop_perf(x->loop);
            for (unsigned i = 0; i < x->n && i < takt_perf_set_count(s) && (final || x->banks); i++, p.n++) {
                const struct takt_perf_msmt *m = takt_perf_set_msmt(s, i);
                p.name[i] = m->name;
                p.stat[i] = final ? &m->total : &x->st[i];
                p.hist[i] = final ? &m->hist : &x->h[i];
            }
            mx_perf(&b, &p, li.period);
        }
        fn(x, &b, ctx);
        if (!b.overflow)
            break;
        char *nb = realloc(x->buf, x->cap * 2);
        if (!nb)
            return -ENOMEM;
        x->buf = nb;
        x->cap *= 2;
    }
    if (x->http)
        mx_http_publish(x->http, b.p, b.len);
    int rc = x->path ? metrics_write_file(x->path, b.p, b.len) : 0;
    if (rc && !x->said) {
        fprintf(stderr, "takt: --metrics-file %s: cannot write it: %s (expected a writable "
                "directory; going on without metrics)\n", x->path, strerror(-rc));
        x->said = true;
    }
    return rc;
}

void metrics_ecat_names(struct metrics *x, struct takt_ecat_master *m)
{
    unsigned n = takt_ecat_master_slave_count(m);
    free(x->slaves);
    x->slaves = calloc(n ? n : 1, sizeof *x->slaves);
    x->n_slaves = x->slaves ? n : 0;
    for (unsigned i = 0; i < x->n_slaves; i++) {
        struct takt_ecat_slave_info si;
        if (!takt_ecat_master_slave_info(m, i, &si))
            snprintf(x->slaves[i].name, sizeof x->slaves[i].name, "%s", si.name);
    }
}

static void ecat_fn(struct metrics *x, struct mx_buf *b, void *ctx)
{
    struct takt_ecat_master *m = ctx;
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(m, &s);
    for (unsigned i = 0; i < x->n_slaves; i++)
        takt_ecat_master_slave_state(m, i, &x->slaves[i].st);
    mx_ecat(b, &s, x->slaves, x->n_slaves);
}

int metrics_write_ecat(struct metrics *x, struct takt_ecat_master *m, bool final)
{
    return metrics_render_write(x, final, ecat_fn, m);
}

static void plk_fn(struct metrics *x, struct mx_buf *b, void *ctx)
{
    struct takt_plk_mn *mn = ctx;
    struct takt_plk_mn_stats s;
    takt_plk_mn_get_stats(mn, &s);
    unsigned n = 0;
    for (unsigned id = 1; id <= 239; id++)
        if (!takt_plk_mn_node_stats(mn, id, &x->nodes[n].st))
            x->nodes[n++].id = (uint8_t)id;
    mx_plk_mn(b, &s, x->nodes, n);
}

int metrics_write_plk_mn(struct metrics *x, struct takt_plk_mn *mn, bool final)
{
    return metrics_render_write(x, final, plk_fn, mn);
}
