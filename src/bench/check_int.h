/* Helpers the parts of takt check share (check.c, check_iface.c): reading below
 * env->root, adding a finding to the report, CPU lists. Internal to src/bench. */
#ifndef TAKT_BENCH_CHECK_INT_H
#define TAKT_BENCH_CHECK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "bench/check.h"

/* A small file below root, trailing newline stripped: its length or -errno. */
int check_rd(const struct check_env *e, const char *path, char *buf, size_t cap);
bool check_exists(const struct check_env *e, const char *path);
/* The entries of a directory below root, one name per line: the length or -errno. */
int check_list_dir(const struct check_env *e, const char *path, char *buf, size_t cap);
/* A finding with its verdict and fix (NULL when the report is full). */
struct check_item *check_add(struct check_report *r, const char *id, const char *title,
                             enum check_verdict v, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Whether a CPU list such as "1-3,5" holds cpu. */
bool check_cpulist_has(const char *list, int cpu);

/* The interface and privilege checks (check_iface.c). */
void check_iface(const struct check_env *e, struct check_report *r);
void check_privileges(const struct check_env *e, struct check_report *r);

#endif
