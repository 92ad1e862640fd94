/* takt check: a real-time tuning audit. Every item reads plain files below a root
 * ("" = this machine, or a fixture tree in tests) and gets a verdict and a fix. */
#ifndef TAKT_BENCH_CHECK_H
#define TAKT_BENCH_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum check_verdict { CHECK_OK, CHECK_INFO, CHECK_WARN, CHECK_FAIL, CHECK_UNKNOWN, CHECK_VERDICTS };

struct check_item {
    char id[40];            /* stable key for JSON and tests: "preempt_rt", "cmdline.isolcpus" */
    char title[64];
    enum check_verdict v;
    char found[192];        /* what was read */
    char fix[320];          /* the concrete change, empty when nothing to do */
};

/* Interrupt coalescing of an interface (ethtool -c); -1 = not reported. */
struct check_coalesce { int rx_usecs, rx_frames, tx_usecs, tx_frames; };
typedef int (*check_coalesce_fn)(const char *iface, struct check_coalesce *c, void *ctx);

/* Contents of a file below root, for tests and the fuzz target: at most cap - 1 bytes
 * into buf; the length, or -errno (-ENOENT: no such file). A directory reads as the
 * names of its entries, one per line. */
typedef int (*check_read_fn)(void *ctx, const char *path, char *buf, size_t cap);

struct check_env {
    const char *root;       /* prefix for /proc and /sys; "" for the live system */
    const char *iface;      /* interface to audit, NULL = skip the interface items */
    int cpu;                /* CPU the cycle thread will use, -1 = not given */
    const char *binary;     /* path for the setcap line (argv[0] resolved) */
    check_coalesce_fn coalesce; /* NULL = ETHTOOL_GCOALESCE ioctl on the live system */
    void *coalesce_ctx;
    check_read_fn read;     /* NULL = the files below root */
    void *read_ctx;
};

#define CHECK_MAX_ITEMS 40
struct check_report {
    struct check_item item[CHECK_MAX_ITEMS];
    unsigned n;
    unsigned count[CHECK_VERDICTS];
};

void check_run(const struct check_env *env, struct check_report *r);
const struct check_item *check_find(const struct check_report *r, const char *id);
const char *check_verdict_name(enum check_verdict v);
void check_print(FILE *f, const struct check_report *r, bool color);
void *check_to_json(const struct check_report *r);   /* json_object* */

#endif
